"""The kernel library: preset kernels grouped by category (drag them onto the canvas or the
table, or double-click), the session's kernels, kernels made from templates, and a form for the
selected kernel that shows its formula with the numbers filled in."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from roofline_gui.core.document import copy_name
from roofline_gui.core.edits import Batch, Remove, Replace
from roofline_gui.core.i18n import _
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.templates import TEMPLATES
from roofline_gui.core.units import PRECISIONS, ROLE_LABELS, format_si
from roofline_gui.io.presets import Presets
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.models.item_models import ID_ROLE, KernelListModel, PresetKernelModel
from roofline_gui.widgets.common.application import set_tip
from roofline_gui.widgets.common.fields import FieldWithMessage, QuantityEdit
from roofline_gui.widgets.common.text_keys import keep_text_keys
from roofline_gui.widgets.common.wheel import guard_wheel, guard_wheel_box
from roofline_gui.widgets.panels.operand_places import OperandPlaces


def formula_text(kernel: Kernel) -> str:
    """The kernel's derivation: template formula, then the numbers filled in."""
    traffic = kernel.traffic()
    lines = []
    if kernel.template is not None:
        template = TEMPLATES[kernel.template]
        lines += [_(template.name), template.formula, "",
                  _("With b = {b} B per value ({storage}):").format(
                      b=f"{kernel.bytes_per_value:g}", storage=kernel.storage)]
        lines += [f"  {step}" for step in traffic.steps]
    elif kernel.flops is not None:
        lines.append(f"ops = {format_si(kernel.flops)}")
        lines += [_("bytes at {level} = {bytes}").format(level=_(ROLE_LABELS.get(role, role)),
                                                        bytes=format_si(v, "B"))
                  for role, v in kernel.bytes.items()]
    else:
        lines.append(_("intensity = {value} op/B (no size given, so no time)").format(
            value=f"{kernel.intensity:g}"))
    levels = [(role, traffic.bytes[role]) for role in ROLE_LABELS if traffic.bytes.get(role)]
    if len(levels) == 1 and levels[0][0] == "dram":
        lines.append(_("intensity = ops / dram bytes = {value} op/B").format(
            value=f"{traffic.ops / levels[0][1]:,.4g}"))
    elif levels:
        lines.append(_("intensity = ops / bytes at each level: ") + ", ".join(
            f"{_(ROLE_LABELS[role])} {traffic.ops / v:,.4g} op/B" for role, v in levels))
    if kernel.source:
        lines += ["", kernel.source]
    return "\n".join(lines)


def _precision_combo(current: str | None, allow_same: bool = False) -> QComboBox:
    combo = QComboBox()
    if allow_same:
        combo.addItem(_("same as compute"), None)
    for p in PRECISIONS:
        combo.addItem(p, p)
    combo.setCurrentIndex(max(0, combo.findData(current)))
    guard_wheel(combo)  # a wheel over the form scrolls it, not the kernel's precision
    return combo


def set_text_keeping_scroll(box: QPlainTextEdit, text: str) -> None:
    """New text in a read-only box, scrolled where it was (setPlainText goes back to the top, so
    the numbers a keystroke changed would scroll out of sight)."""
    if box.toPlainText() == text:
        return
    bar = box.verticalScrollBar()
    where = bar.value()
    box.setPlainText(text)
    bar.setValue(min(where, bar.maximum()))


class ParamFields(QWidget):
    """One QuantityEdit per template parameter (typing 4k or 1e6 works). ``on_commit(name,
    value)`` when a field is committed (Enter, leaving it); ``on_edit(name, value)`` at each
    keystroke that leaves a valid value, for a live preview."""

    def __init__(self, template_id: str, params: dict, on_commit, on_edit=None, parent=None) -> None:
        super().__init__(parent)
        self.fields: dict[str, QuantityEdit] = {}
        self.typed: dict[str, float] = {}  # valid values typed and not yet committed
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        template = TEMPLATES[template_id]
        for spec in template.params:
            edit = QuantityEdit("count", integer=spec.integer, minimum=spec.minimum,
                                maximum=spec.maximum)
            edit.set_value(params.get(spec.name, spec.default))
            edit.sig_value_committed.connect(lambda v, n=spec.name: self._commit(n, v, on_commit))
            edit.sig_value_edited.connect(lambda v, n=spec.name: self._edited(n, v, on_edit))
            label = _(spec.label) + (" ⟷" if spec.name == template.main_param else "")
            form.addRow(label, FieldWithMessage(edit))
            self.fields[spec.name] = edit

    def _commit(self, name: str, value: float, on_commit) -> None:
        self.typed.pop(name, None)
        on_commit(name, value)

    def _edited(self, name: str, value: float, on_edit) -> None:
        self.typed[name] = value
        if on_edit is not None:
            on_edit(name, value)

    def values(self) -> dict[str, float]:
        """The values shown: committed ones, and valid ones still being typed."""
        return {name: self.typed.get(name, edit.value()) for name, edit in self.fields.items()}


class KernelForm(QWidget):
    """Name, precision (compute and storage), parameters and formula of the selected kernel."""

    def __init__(self, model: DocumentModel, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.kernel_id: str | None = None
        self._structure = None
        self.params: ParamFields | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.name_edit = QLineEdit()
        self.name_edit.editingFinished.connect(self._on_name)
        self.precision = _precision_combo("fp32")
        set_tip(self.precision, _("Compute precision: picks the roof; bytes follow the storage"))
        self.precision.activated.connect(self._on_precision)
        self.storage = _precision_combo(None, allow_same=True)
        set_tip(self.storage, _("Storage precision (e.g. int8 weights with bf16 math)"))
        self.storage.activated.connect(self._on_precision)
        form.addRow(_("Name"), self.name_edit)
        form.addRow(_("Precision"), self.precision)
        form.addRow(_("Stored as"), self.storage)
        layout.addLayout(form)
        self.params_box = QVBoxLayout()
        layout.addLayout(self.params_box)
        self.places = OperandPlaces(self._on_places)
        layout.addWidget(self.places)
        self.formula = QPlainTextEdit(readOnly=True)
        keep_text_keys(self.formula)
        self.formula.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        # Unwrapped: the formulas' columns stay aligned (wrapped, a Japanese note broke across
        # them: the tour); a long line scrolls sideways.
        self.formula.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.formula.setMinimumHeight(90)
        guard_wheel_box(self.formula)
        layout.addWidget(self.formula, 1)
        model.sig_document_changed.connect(self._on_document_changed)
        self.show_kernel(None)

    def _kernel(self) -> Kernel | None:
        return next((k for k in self.model.document.kernels if k.id == self.kernel_id), None)

    def _on_document_changed(self, *_args) -> None:
        self.show_kernel(self.kernel_id)

    def show_kernel(self, kernel_id: str | None) -> None:
        self.kernel_id = kernel_id
        kernel = self._kernel()
        self.setEnabled(kernel is not None)
        if kernel is None:
            self._clear()
            return
        structure = (kernel.id, kernel.template)
        same_kernel = structure == self._structure
        if not same_kernel:
            self._structure = structure
            self._drop_params()
            if kernel.template is not None:
                self.params = ParamFields(
                    kernel.template, kernel.params,
                    lambda name, value, kid=kernel.id: self._on_param(name, value, kid),
                    self._on_param_typed)
                self.params_box.addWidget(self.params)
        elif self.params is not None:
            template = TEMPLATES[kernel.template]
            for spec in template.params:
                self.params.fields[spec.name].set_value(kernel.params.get(spec.name, spec.default))
        self.places.show_kernel(kernel, self.model.document.chips)
        if not self.name_edit.hasFocus():
            self.name_edit.setText(kernel.name)
        self.precision.setCurrentIndex(self.precision.findData(kernel.precision))
        self.storage.setCurrentIndex(max(0, self.storage.findData(kernel.storage_precision)))
        if same_kernel:  # an edit: stay where the reader is
            set_text_keeping_scroll(self.formula, formula_text(kernel))
        else:
            self.formula.setPlainText(formula_text(kernel))

    def _clear(self) -> None:
        """No kernel selected (a new session, the last kernel deleted): a fresh form, not the
        previous kernel's name, precision and parameters greyed out."""
        self._structure = None
        self._drop_params()
        self.places.show_kernel(None, ())
        self.name_edit.clear()
        self.precision.setCurrentIndex(self.precision.findData("fp32"))
        self.storage.setCurrentIndex(0)  # same as compute
        self.formula.setPlainText(_("Select a kernel to see its formula."))

    def _drop_params(self) -> None:
        if self.params is not None:
            # Taking the fields away moves the focus out of them, which commits a value still
            # being typed: to the kernel it was typed for (see _on_param).
            old, self.params = self.params, None
            old.setParent(None)
            old.deleteLater()

    def _on_name(self) -> None:
        kernel, name = self._kernel(), self.name_edit.text().strip()
        if kernel and not name:  # put back and said (the field stayed blank: the 19th tour)
            self.name_edit.setText(kernel.name)
            self.model.sig_refused.emit(_("A kernel needs a name: “{name}” kept").format(
                name=kernel.name))
        elif kernel and name != kernel.name:
            self.model.push(Replace("kernels", replace(kernel, name=name)), _("Rename {kernel}").format(
                kernel=kernel.name))

    def _on_precision(self, _index: int) -> None:
        kernel = self._kernel()
        if kernel is None:
            return
        precision, storage = self.precision.currentData(), self.storage.currentData()
        storage = None if storage == precision else storage
        if (precision, storage) != (kernel.precision, kernel.storage_precision):
            self.model.push(Replace("kernels", kernel.with_precision(precision, storage)),
                            (_("{kernel}: precision {precision}, stored as {storage}") if storage
                             else _("{kernel}: precision {precision}")).format(
                                kernel=kernel.name, precision=precision, storage=storage))

    def _on_places(self, resides: dict[str, str]) -> None:
        kernel = self._kernel()
        if kernel is None or kernel.template is None:
            return
        moved = kernel.with_resides(resides)
        if moved.resides != kernel.resides:
            where = moved.placement().lstrip(", ") or _("every operand in main memory")
            self.model.push(Replace("kernels", moved), f"{kernel.name}: {where}")

    def _on_param_typed(self, _name: str, _value: float) -> None:
        """The formula follows each valid keystroke; the kernel changes when the field is
        committed (Enter or leaving it), as one undo step."""
        kernel = self._kernel()
        if kernel is not None and self.params is not None:
            set_text_keeping_scroll(self.formula, formula_text(kernel.with_params(**self.params.typed)))

    def _on_param(self, name: str, value: float, kernel_id: str | None = None) -> None:
        """A parameter committed: for the kernel its field was made for, which may no longer be
        the one selected (a value typed, then another kernel clicked)."""
        kernel = next((k for k in self.model.document.kernels if k.id == (kernel_id or self.kernel_id)),
                      None)
        if kernel is not None and kernel.params.get(name) != value:
            self.model.push(Replace("kernels", kernel.with_params(**{name: value})),
                            f"{kernel.name}: {name} = {value:,.0f}",
                            merge_key=("param", kernel.id, name))


class TemplateDialog(QDialog):
    """Create a kernel from a template: pick it, set the precision and parameters, see the formula."""

    last_used: tuple[str, str] | None = None  # (template, precision) picked last, offered next

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("New kernel from a template"))
        self.resize(520, 560)
        self.template = QComboBox()
        for template in TEMPLATES.values():
            self.template.addItem(f"{_(template.name)}  [{_(template.category)}]", template.id)
        self.template.currentIndexChanged.connect(self._rebuild)
        self.precision = _precision_combo("bf16")
        self.precision.currentIndexChanged.connect(self._preview)
        self.name = QLineEdit()
        self.params_box = QVBoxLayout()
        self.params: ParamFields | None = None
        self.formula = QPlainTextEdit(readOnly=True)
        keep_text_keys(self.formula)
        self.formula.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.formula.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)  # columns aligned
        form = QFormLayout()
        form.addRow(_("Template"), self.template)
        form.addRow(_("Precision"), self.precision)
        form.addRow(_("Name"), self.name)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(self.params_box)
        layout.addWidget(self.formula, 1)
        layout.addWidget(buttons)
        if TemplateDialog.last_used is not None:
            template_id, precision = TemplateDialog.last_used
            for combo, value in ((self.template, template_id), (self.precision, precision)):
                combo.blockSignals(True)
                combo.setCurrentIndex(max(0, combo.findData(value)))
                combo.blockSignals(False)
        self._rebuild()

    def accept(self) -> None:
        TemplateDialog.last_used = (self.template.currentData(), self.precision.currentData())
        super().accept()

    def _rebuild(self) -> None:
        if self.params is not None:
            self.params.setParent(None)
            self.params.deleteLater()
        template_id = self.template.currentData()
        self.params = ParamFields(template_id, TEMPLATES[template_id].defaults(),
                                  lambda _n, _v: self._preview(), lambda _n, _v: self._preview())
        self.params_box.addWidget(self.params)
        self._preview()

    def kernel(self) -> Kernel:
        template = TEMPLATES[self.template.currentData()]
        params = {k: v for k, v in self.params.values().items() if v is not None}
        precision = self.precision.currentData()
        kernel = Kernel("new", "", precision, category=template.category, template=template.id,
                        params=params)
        return replace(kernel, name=self.name.text().strip() or kernel.auto_name())

    def _preview(self) -> None:
        kernel = self.kernel()
        self.name.setPlaceholderText(replace(kernel, name="").auto_name())
        set_text_keeping_scroll(self.formula, formula_text(kernel))

    @classmethod
    def ask(cls, parent=None) -> Kernel | None:
        dialog = cls(parent)
        return dialog.kernel() if dialog.exec() == QDialog.DialogCode.Accepted else None


class KernelLibrary(QWidget):
    def __init__(self, model: DocumentModel, presets: Presets, parent=None) -> None:
        super().__init__(parent)
        self.model, self.presets = model, presets
        self.preset_model = PresetKernelModel(presets, self)
        self.tree = QTreeView()
        self.tree.setModel(self.preset_model)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setHeaderHidden(True)  # the title above names it ("Preset kernels" twice: the tour)
        self.tree.expandAll()
        self.tree.doubleClicked.connect(self._on_preset_double_clicked)
        set_tip(self.tree, _("Drag kernels onto the canvas or the table, or double-click to add"))
        self.session_model = KernelListModel(model, presets, self)
        self.list = QListView()
        self.list.setModel(self.session_model)
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.list.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.selectionModel().currentChanged.connect(self._on_current_changed)
        self.form = KernelForm(model)
        # The preset library folds away to its title on a short dock, so the selected kernel's
        # form has room (at 1280 x 800 it showed three fields: the tour); a click unfolds it.
        self.presets_toggle = QToolButton()
        self.presets_toggle.setText(_("Preset kernels (drag or double-click)"))
        self.presets_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.presets_toggle.setAutoRaise(True)
        self.presets_toggle.setCheckable(True)
        self.presets_toggle.setChecked(True)
        font = self.presets_toggle.font()
        font.setBold(True)
        self.presets_toggle.setFont(font)
        self.presets_toggle.toggled.connect(self._show_presets)
        self._presets_chosen = False  # True once the user folds or unfolds it
        self.presets_toggle.clicked.connect(lambda: setattr(self, "_presets_chosen", True))
        splitter = self.splitter = QSplitter(Qt.Orientation.Vertical)
        self._show_presets(True)
        splitter.addWidget(self.tree)
        session = self._titled(_("Session kernels"), self.list)
        session.layout().addLayout(self._buttons())
        splitter.addWidget(session)
        # The form scrolls rather than holding the dock (and the table under it) to its height
        # on a laptop screen.
        scroll = QScrollArea()
        scroll.setWidget(self.form)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        splitter.addWidget(self._titled(_("Selected kernel"), scroll))
        # Room by what each part holds: the form with its formula most, then the preset
        # library (two dozen kernels in groups), then the session's list; kept as shares.
        splitter.setSizes([300, 140, 400])
        for index, stretch in enumerate((3, 1, 4)):
            splitter.setStretchFactor(index, stretch)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        layout.addWidget(self.presets_toggle)
        layout.addWidget(splitter)
        model.sig_selection_changed.connect(self._on_selection_changed)
        self.session_model.modelReset.connect(
            lambda: self._on_selection_changed(model.selected_kernel, None))
        self._on_selection_changed(model.selected_kernel, None)

    @staticmethod
    def _titled(title: str, widget: QWidget) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        label = QLabel(f"<b>{title}</b>")
        layout.addWidget(label)
        layout.addWidget(widget)
        return box

    #: below this height (px) the dock starts with the preset library folded
    FOLD_BELOW = 480

    def _show_presets(self, shown: bool) -> None:
        """Unfold (or fold) the preset library; the splitter gives its room to the others."""
        self.tree.setVisible(shown)
        self.presets_toggle.setArrowType(Qt.ArrowType.DownArrow if shown
                                         else Qt.ArrowType.RightArrow)
        set_tip(self.presets_toggle, _("Hide the preset kernels") if shown else
                                       _("Show the preset kernels (drag one onto the chart or "
                                         "the table, or double-click it, to add it)"))
        if self.presets_toggle.isChecked() != shown:
            self.presets_toggle.setChecked(shown)
        room = sum(self.splitter.sizes())
        if shown and 0 < room < self.FOLD_BELOW:  # unfolded on a short dock: the form keeps
            # most (by the stretches it kept three eighths, two of its fields at 1280 × 800:
            # the 37th tour), the library a third of what the session's list leaves
            session = max(room // 6, self.splitter.widget(1).minimumSizeHint().height())
            tree = min(room // 3, (room - session) // 3)
            self.splitter.setSizes([tree, session, room - tree - session])

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt API)
        super().resizeEvent(event)
        if not self._presets_chosen:  # until the user chooses: folded on a short dock
            self._show_presets(event.size().height() >= self.FOLD_BELOW)

    def _buttons(self) -> QHBoxLayout:
        row = QHBoxLayout()
        specs = ((_("New from template…"), _("Create a kernel from a template"), self.new_from_template),
                 (_("Duplicate"), _("Duplicate the selected kernel"), self.duplicate),
                 (_("Delete"), _("Delete the selected kernel"), self.delete))
        for text, tip, slot in specs:
            button = QPushButton(text)
            set_tip(button, tip)
            button.clicked.connect(slot)
            row.addWidget(button)
        row.addStretch()
        return row

    def _on_preset_double_clicked(self, index) -> None:
        preset_id = index.data(ID_ROLE)
        if preset_id in self.presets.kernels:
            new = self.model.add_kernels([self.presets.kernels[preset_id]])
            self.model.select(new[-1], None)

    def _on_current_changed(self, current, _previous) -> None:
        if current.isValid():
            self.model.select(current.data(ID_ROLE), None)

    def _on_selection_changed(self, kernel_id, _chip_id) -> None:
        row = self.session_model.row_of(kernel_id) if kernel_id else -1
        if row >= 0 and self.list.currentIndex().row() != row:
            # Selected from elsewhere (the chart, the table, a new or duplicated kernel): that
            # kernel alone, so Delete right after acts on it and not on an earlier pick too.
            self.list.selectionModel().setCurrentIndex(
                self.session_model.index(row), QItemSelectionModel.SelectionFlag.ClearAndSelect)
        self.form.show_kernel(kernel_id)

    def new_from_template(self) -> None:
        kernel = TemplateDialog.ask(self)  # opens on the template used last
        if kernel is not None:
            new = self.model.add_kernels([kernel])
            self.model.select(new[-1], None)

    def selected_ids(self) -> list[str]:
        """The session kernels picked in the list (in document order), else the selected one."""
        ids = {i.data(ID_ROLE) for i in self.list.selectionModel().selectedRows()}
        if not ids and self.model.selected_kernel:
            ids = {self.model.selected_kernel}
        return [k.id for k in self.model.document.kernels if k.id in ids]

    def select_all(self) -> None:
        self.list.selectAll()
        self.list.setFocus()

    def duplicate(self) -> None:
        kernels = [self.model.document.kernel(i) for i in self.selected_ids()]
        if kernels:
            index = self.model.document.kernels.index(kernels[-1]) + 1
            names = ", ".join(k.name for k in kernels)
            taken, copies = [k.name for k in self.model.document.kernels], []
            for k in kernels:
                copies.append(replace(k, name=copy_name(k.name, taken)))
                taken.append(copies[-1].name)
            new = self.model.add_kernels(copies, index,
                                         text=_("Duplicate {names}").format(names=names))
            self.model.select(new[-1], None)

    def delete(self) -> None:
        ids = self.selected_ids()
        if not ids:
            return
        doc = self.model.document
        names = ", ".join(doc.kernel(i).name for i in ids)
        text = (_("Delete {names}").format(names=names) if len(ids) == 1 else
                _("Delete {n} kernels").format(n=len(ids)))
        self.model.push(Batch(tuple(Remove("kernels", i) for i in ids)), text)
        kernels = self.model.document.kernels
        self.list.clearSelection()
        self.model.select(kernels[0].id if kernels else None, None)

if __name__ == "__main__":
    import sys

    from roofline_gui.widgets.common.preview import preview

    sys.exit(preview(lambda model, presets: KernelLibrary(model, presets)))
