"""The Workloads dock: the session's workloads, and the fields of the selected one with its kernel
breakdown and every formula filled in. Each change is one undoable edit."""

from __future__ import annotations

import time
from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from roofline_gui.core.edits import Remove
from roofline_gui.core.i18n import _
from roofline_gui.core.units import format_si
from roofline_gui.core.workload import (
    Workload,
    label_of,
    with_field,
)
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.widgets.common.application import set_tip
from roofline_gui.widgets.common.text_keys import keep_text_keys
from roofline_gui.widgets.common.throttle import Throttle
from roofline_gui.widgets.panels.workloads.dialog import WorkloadDialog
from roofline_gui.widgets.panels.workloads.fields import WorkloadFields
from roofline_gui.widgets.panels.workloads.formulas import entries_html


def distinct_name(w: Workload, taken: set[str]) -> str:
    """A name no other workload has: what sets it apart (its formats, its chips), else a number."""
    what = [w.phase if w.kind == "transformer" else "", w.activations,
            f"N = {w.chips_per_model}" if w.chips_per_model > 1 else ""]
    name = f"{w.name} ({', '.join(p for p in what if p)})"
    n = 2
    while name in taken:
        name, n = f"{w.name} ({n})", n + 1
    return name


class WorkloadsPanel(QWidget):
    def __init__(self, model: DocumentModel, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.list = QListWidget()
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.currentItemChanged.connect(self._on_current)
        # a click on the row already current (a kernel selected since) selects its workload
        # again: "Why it sits there" had stayed on the kernel (the ninth tour)
        self.list.itemClicked.connect(self._on_clicked)
        self.list.itemChanged.connect(self._on_item_changed)
        self.add_button = QPushButton(_("New…"))
        set_tip(self.add_button, _("A workload from an example model, a config.json on disk or "
                                   "the session's kernels"))
        self.add_button.clicked.connect(self.new_workload)
        self.remove_button = QPushButton(_("Remove"))
        self.remove_button.clicked.connect(self.remove_selected)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        self.name = QLineEdit()
        set_tip(self.name, _("The workload's name, on the chart, in the table and the CSV"))
        self.name.editingFinished.connect(self._on_name)
        self.fields = WorkloadFields()
        self.fields.sig_changed.connect(self._on_field)
        self.refused = QLabel()
        self.fields.sig_refused.connect(self.refused.setText)
        self.refused.setWordWrap(True)
        self.refused.setStyleSheet("color: #b00020")
        self.formulas = QTextBrowser()
        keep_text_keys(self.formulas)
        self.formulas.setOpenLinks(False)
        self.hint = QLabel(_("Drag a workload's big point on the chart to change its batch "
                           "(Shift+drag: its context or sequence)."))
        self.hint.setWordWrap(True)
        # two lines whatever the language (in Japanese the second was laid out of sight)
        self.hint.setMinimumHeight(2 * self.hint.fontMetrics().lineSpacing() + 2)
        # A few rows for the list, so the formulas keep the room on a laptop screen.
        row = self.list.fontMetrics().height() + 6
        self.list.setMinimumHeight(2 * row + 6)
        self.list.setMaximumHeight(4 * row + 6)
        # The list and the fields scroll where the dock is short (a laptop screen, a mixture of
        # experts' extra fields): the panel never asks for more height than the screen has.
        top = QWidget()
        above = QVBoxLayout(top)
        above.setContentsMargins(0, 0, 0, 0)
        above.addWidget(self.list)
        above.addLayout(buttons)
        name_row = QHBoxLayout()
        name_row.addWidget(QLabel(_("Name")))
        name_row.addWidget(self.name, 1)
        above.addLayout(name_row)
        above.addWidget(self.fields)
        above.addWidget(self.refused)
        above.addWidget(self.hint)
        above.addStretch(1)  # spare height below the fields, not between them
        self.scroll = QScrollArea()
        self.scroll.setWidget(top)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        # Sideways only where the dock is narrower than the fields can shrink to: never cut off
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.scroll.setMinimumHeight(8 * row)
        layout = QVBoxLayout(self)
        layout.addWidget(self.scroll)  # as tall as the fields where there is room
        layout.addWidget(self.formulas, 1)
        self._serial = 0  # spin-box edits of one field merge into one undo step until another
        self._last_field = None
        self._last_edit = 0.0
        self._later = Throttle(self, self.refresh)  # a drag's stream of edits
        model.sig_document_changed.connect(self._on_document_changed)
        model.sig_selection_changed.connect(self._follow_selection)
        self.refresh()

    def _on_document_changed(self, doc, touched) -> None:
        ids = tuple(w.id for w in doc.workloads)
        shown = tuple(self.list.item(i).data(Qt.ItemDataRole.UserRole)
                      for i in range(self.list.count()))
        self.refused.setText("")  # an edit, an undo or a drag since: the refusal is past
        if self.model.serving_only:  # the Serving view's settings: not among these fields
            return
        if touched and ids == shown and touched <= set(ids):  # edits of workloads: throttled
            self._later.request()
            return
        if touched and ids == shown and touched <= {c.id for c in doc.chips}:  # chips alone: the
            return  # list, fields and formulas here do not depend on them (a roof drag's step)
        self.refresh()

    @property
    def pending(self) -> bool:
        return self._later.pending

    @property
    def selected(self) -> Workload | None:
        item = self.list.currentItem()
        wid = item.data(Qt.ItemDataRole.UserRole) if item else None
        doc = self.model.document
        return doc.workload(wid) if wid in {w.id for w in doc.workloads} else None

    def refresh(self) -> None:
        doc = self.model.document
        current = self.selected.id if self.selected else self.model.selected_kernel
        self.list.blockSignals(True)
        try:
            self.list.clear()
            for w in doc.workloads:
                item = QListWidgetItem(label_of(w))
                item.setData(Qt.ItemDataRole.UserRole, w.id)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked if w.visible else Qt.CheckState.Unchecked)
                problem = self.model.workload_problems.get(w.id)
                set_tip(item, problem or w.source)
                if problem:
                    item.setForeground(QColor("#b00020"))
                self.list.addItem(item)
                if w.id == current:
                    self.list.setCurrentItem(item)
            if self.list.currentItem() is None and self.list.count():
                self.list.setCurrentRow(0)  # shown here; the chart's selection stays as it was
        finally:
            self.list.blockSignals(False)
        # as tall as its workloads, two to four rows: the fields below keep the room
        row = self.list.fontMetrics().height() + 6
        self.list.setMaximumHeight(min(4, max(2, self.list.count())) * row + 6)
        self._show_selected()

    def _show_selected(self) -> None:
        w = self.selected
        self.fields.setEnabled(w is not None)
        self.name.setEnabled(w is not None)
        self.remove_button.setEnabled(w is not None)
        # With none selected (another document, File → New) the fields go, rather than keep
        # the last workload's values greyed.
        self.fields.setVisible(w is not None)
        self.hint.setVisible(w is not None)
        if w is None:
            if not self.name.hasFocus():
                self.name.clear()
            self.formulas.setHtml("<p>" + _(
                "No workload selected. <b>New…</b> makes one from a model (Llama 2, 3 and 4, "
                "Mistral, Mixtral, Qwen2 and Qwen3, DeepSeek-V3, gpt-oss, GPT-2 or your own "
                "config.json), ResNet-50, an MLP or LSTM stack, or the session's kernels.")
                + "</p>")
            return
        self.fields.show_workload(w)
        if not self.name.hasFocus():
            self.name.setText(w.name)
        self.hint.setText(
            _("On the chart, drag its big point: the micro-batch; Shift+drag: the sequence.")
            if w.kind == "transformer" and w.training else
            _("On the chart, drag its big point: the micro-batch.") if w.training else
            _("On the chart, drag its big point: the batch; Shift+drag: the context or prompt "
              "length.") if w.kind == "transformer" else
            _("On the chart, drag its big point: the batch."))
        set_tip(self.hint, _("The point moves the way the intensity goes: in decode a longer "
                             "KV cache moves it left at large batches, right at batch 1."))
        scroll = self.formulas.verticalScrollBar().value()
        self.formulas.setHtml(entries_html(w, self.model.document.kernels_by_id))
        self.formulas.verticalScrollBar().setValue(scroll)

    def _follow_selection(self, *_args) -> None:
        wid = self.model.selected_kernel
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.ItemDataRole.UserRole) == wid:
                if self.list.currentRow() != i:
                    self.list.setCurrentRow(i)
                return

    def _on_current(self, item, _previous) -> None:
        self._show_selected()
        if item is not None:
            self.model.select(item.data(Qt.ItemDataRole.UserRole), None)

    def _on_clicked(self, item) -> None:
        wid = item.data(Qt.ItemDataRole.UserRole)
        if wid != self.model.selected_kernel:
            self.model.select(wid, None)

    def _on_item_changed(self, item) -> None:
        wid = item.data(Qt.ItemDataRole.UserRole)
        w = self.model.document.workload(wid)
        visible = item.checkState() == Qt.CheckState.Checked
        if visible != w.visible:
            self.model.set_workload(replace(w, visible=visible),
                                    (_("Show {chip}") if visible else _("Hide {chip}")).format(
                                        chip=w.name))

    #: A stream of edits of one field (a spin box's arrows held) is one undo step; an edit of
    #: the same field after this pause is a step of its own.
    MERGE_SECONDS = 1.5

    def _on_field(self, name: str, value) -> None:
        w = self.selected
        if w is None or getattr(w, name) == value:
            return
        now = time.monotonic()
        if name != self._last_field or now - self._last_edit > self.MERGE_SECONDS:
            self._serial += 1
            self._last_field = name
        self._last_edit = now
        label = self.fields.label_of(name)
        changed = with_field(w, name, value)  # what a field sets, as a drag sets it
        shown = (f"stage {value}" if name == "zero" else format_si(value, "").strip()
                 if name == "train_tokens" else value or "auto" if name == "global_batch"
                 else value)
        self.model.last_refused = None
        done = self.model.set_workload(changed, f"{w.name}: {label} {shown}",
                                       merge_key=("workload field", self._serial, name))
        refusal = self.model.last_refused
        # A refused value does not stay in its field: the field shows the workload's own again,
        # and the reason stays under the fields (the status bar's goes after a while).
        self.refused.setText(f"{label} {shown} refused: {self._in_words(w, refusal)}"
                             if refusal is not None and not done else "")
        if not done:
            self.fields.show_workload(w)

    def _in_words(self, w: Workload, refusal) -> str:
        """A refusal as the fields name things: "Llama-2-7B: Global batch G: 1000 per step is
        not a multiple…", each refused field by its label (from the refusal's problems)."""
        if not refusal.problems:
            return str(refusal)
        return f"{w.name}: " + "; ".join(
            f"{self.fields.label_of(p.path)}: {p.message}" if p.path else p.message
            for p in refusal.problems)

    def _on_name(self) -> None:
        w = self.selected
        name = self.name.text().strip()
        if w is None or not name or name == w.name:
            self.name.setText(w.name if w else "")
            return
        self.model.set_workload(replace(w, name=name), _("Rename {old} to {new}").format(
            old=w.name, new=name))

    def new_workload(self) -> list[str]:
        dialog = WorkloadDialog(self.model, self)
        if dialog.exec() != QDialog.DialogCode.Accepted or dialog.workload is None:
            return []
        taken = {w.name for w in self.model.document.workloads}
        made = dialog.workload
        if made.name in taken:  # two workloads of one model: the chart's names tell them apart
            made = replace(made, name=distinct_name(made, taken))
        ids = self.model.add_workloads([made])
        if ids:
            self.model.select(ids[0], None)
        return ids

    def remove_selected(self, w: Workload | None = None) -> None:
        w = w or self.selected
        if w is not None:
            self.model.push(Remove("workloads", w.id), _("Remove workload {workload}").format(
                workload=w.name))
