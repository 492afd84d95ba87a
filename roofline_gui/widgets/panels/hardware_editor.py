"""The hardware editor: the session's chips (add from presets, duplicate, delete, reorder,
show/hide, colour, baseline) and a form for the selected chip with unit-aware fields for every
ceiling and the source of each value. Every change is an undoable edit."""

from __future__ import annotations

import html
from dataclasses import replace

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from roofline_gui.core.chip import Chip, MemoryLevel, ceiling_note
from roofline_gui.core.edits import Move, Remove, Replace, SetField
from roofline_gui.core.i18n import _
from roofline_gui.core.units import MEMORY_ROLES, PRECISIONS, ROLE_LABELS, format_si
from roofline_gui.io.presets import Presets
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.models.item_models import ID_ROLE, ChipListModel
from roofline_gui.widgets.common.application import set_tip
from roofline_gui.widgets.common.dialogs import ChipPresetDialog, ColorDialog
from roofline_gui.widgets.common.fields import ChoiceBox, FieldWithMessage, QuantityEdit
from roofline_gui.widgets.common.text_keys import keep_text_keys

# the sources the editor writes for a figure of the user's own, told from a datasheet's by
# _datasheet (saved in sessions as they are: not translated)
ENTERED_BY_HAND = "entered by hand"
ADDED_BY_HAND = "added by hand"
BY_HAND = (ENTERED_BY_HAND, ADDED_BY_HAND)


def label_of_energy(name: str) -> str:
    return {"board_power": _("board power"), "idle_power": _("idle power"),
            "price_per_hour": _("price per chip-hour")}[name]


def _source_label() -> QLabel:
    """The provenance of a value, shortened; the full text is the tooltip (set by
    ChipForm._fill). It takes only the width left over, so the fields beside it never shrink."""
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    label.setMinimumWidth(40)
    return label


def _set_note(label: QLabel, note: tuple[str, str]) -> None:
    short, full = note
    shown = short[:80] + ("…" if len(short) > 80 else "")
    if short.startswith("what-if"):  # a moved ceiling: one click puts its datasheet value back
        label.setTextFormat(Qt.TextFormat.RichText)
        # (the word outside the f-string: Python 3.11's tokenizer, which pybabel reads the
        # sources with, does not see a call inside one, and the catalogue had missed it)
        word = html.escape(_("reset"))
        label.setText(f"<a href='reset'>{word}</a> · {html.escape(shown)}")
    else:
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setText(shown)
    set_tip(label, full)
    # The text's colour through the palette: a style sheet would colour the tooltip too
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText,
                     QColor("#b00020") if "⚠" in short else label.palette().color(QPalette.ColorRole.Mid))
    label.setPalette(palette)


class ChipForm(QWidget):
    """Fields for one chip. Rebuilt when another chip is selected or its levels change;
    otherwise values update in place so typing is never interrupted."""

    def __init__(self, model: DocumentModel, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.chip_id: str | None = None
        self._structure = None
        self._filled: Chip | None = None  # the chip object the fields show
        self.compute_fields: dict[str, QuantityEdit] = {}
        self.fraction_fields: dict[str, QuantityEdit] = {}
        self.compute_notes: dict[str, QLabel] = {}
        self.remove_buttons: dict[str, QToolButton] = {}
        self.level_fields: list[dict] = []
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(4, 4, 4, 4)
        self._body: QWidget | None = None
        model.sig_document_changed.connect(self._on_document_changed)

    def _on_document_changed(self, *_args) -> None:
        self.show_chip(self.chip_id)

    def show_chip(self, chip_id: str | None) -> None:
        doc = self.model.document
        chip = next((c for c in doc.chips if c.id == chip_id), None)
        structure = None if chip is None else (chip.id, tuple((lv.role, lv.name) for lv in chip.memory))
        if structure != self._structure:
            self._structure = structure
            self.chip_id = chip_id if chip else None
            self._rebuild(chip)
        elif chip is not None and chip is not self._filled:  # a kernel's edit leaves it alone
            self._fill(chip, self._filled)
        self._filled = chip

    # -- building -------------------------------------------------------------------------------
    def _rebuild(self, chip: Chip | None) -> None:
        if self._body is not None:
            self._body.setParent(None)
            self._body.deleteLater()
        self._body = QWidget()
        self._layout.addWidget(self._body)
        layout = QVBoxLayout(self._body)
        layout.setContentsMargins(0, 0, 0, 0)
        self.compute_fields.clear()
        self.fraction_fields.clear()
        self.compute_notes.clear()
        self.remove_buttons.clear()
        self.level_fields.clear()
        if chip is None:
            layout.addWidget(QLabel(_("Select a chip to edit its ceilings.")))
            layout.addStretch()
            return
        layout.addLayout(self._identity(chip))
        layout.addWidget(self._compute_group(chip))
        layout.addWidget(self._memory_group(chip))
        layout.addWidget(self._energy_group())
        notes = QPlainTextEdit("\n".join(filter(None, (chip.derivation, chip.notes))))
        notes.setReadOnly(True)
        keep_text_keys(notes)
        notes.setMaximumHeight(110)
        set_tip(notes, _("Where the numbers come from (read-only)"))
        self.notes = notes
        layout.addWidget(QLabel(_("Notes and sources")))
        layout.addWidget(notes)
        layout.addStretch()
        self._fill(chip)

    def _identity(self, chip: Chip) -> QFormLayout:
        form = QFormLayout()
        self.name_edit = QLineEdit(chip.name)
        self.name_edit.editingFinished.connect(self._on_name_edited)
        form.addRow(_("Name"), self.name_edit)
        form.addRow(_("Vendor"), QLabel(f"{chip.vendor} {chip.year or ''}".strip() or "—"))
        return form

    def _compute_group(self, chip: Chip) -> QGroupBox:
        box = QGroupBox(_("Compute ceilings (dense peak per chip; empty = not supported)"))
        grid = QGridLayout(box)
        for col, title in enumerate(("", _("peak"), _("achievable"), _("source or measurement"))):
            grid.addWidget(QLabel(f"<i>{title}</i>"), 0, col)
        for row, precision in enumerate(PRECISIONS, start=1):
            self._compute_row(grid, row, precision)
        grid.setColumnStretch(1, 2)
        grid.setColumnStretch(3, 3)
        return box

    def _compute_row(self, grid: QGridLayout, row: int, precision: str) -> None:
        """Peak, achievable fraction, source and remove button of one precision. Emptying the
        peak removes the precision only with Enter (a workload may need it), or with ✕."""
        peak = QuantityEdit("compute", allow_empty=True, bound=True, confirm_empty=True)
        peak.setMinimumWidth(120)
        peak.sig_value_committed.connect(lambda v, p=precision: self._on_compute(p, v))
        peak.sig_input_refused.connect(lambda t, why, p=precision: self._say_kept(f"{p} peak", t, why))
        frac = QuantityEdit("count", allow_empty=True, fraction=True, bound=True)
        frac.setPlaceholderText(_("as datasheet"))
        frac.setMaximumWidth(70)
        set_tip(frac, _("The fraction of the peak reached in practice, for View → "
                          "Achievable roofs (empty: the datasheet's peak); where a preset's "
                          "comes from, the sources and the chip's notes say"))
        frac.sig_value_committed.connect(lambda v, p=precision: self._on_compute_fraction(p, v))
        frac.sig_input_refused.connect(
            lambda t, why, p=precision: self._say_kept(f"{p} achievable fraction", t, why))
        remove = QToolButton(text="✕", toolTip=_("Remove {precision} from this chip").format(
            precision=precision))
        remove.clicked.connect(lambda _c=False, p=precision: self._on_remove_precision(p))
        self.compute_fields[precision], self.fraction_fields[precision] = peak, frac
        self.compute_notes[precision], self.remove_buttons[precision] = _source_label(), remove
        self.compute_notes[precision].linkActivated.connect(
            lambda _link, p=precision: self._reset_ceiling(("peak", p)))
        grid.addWidget(QLabel(precision), row, 0)
        grid.addWidget(FieldWithMessage(peak), row, 1)
        grid.addWidget(frac, row, 2)
        grid.addWidget(self.compute_notes[precision], row, 3)
        grid.addWidget(remove, row, 4)

    def _memory_group(self, chip: Chip) -> QGroupBox:
        box = QGroupBox(_("Memory levels (bandwidth per level; links per direction)"))
        grid = QGridLayout(box)
        for i, level in enumerate(chip.memory):
            self.level_fields.append(self._level_rows(grid, 2 * i, i, level))
        add = QPushButton(_("Add level"))
        set_tip(add, _("Add a memory level (cache, host link or chip-to-chip link)"))
        add.clicked.connect(self._on_add_level)
        grid.addWidget(add, 2 * len(chip.memory), 0, 1, 2)
        grid.setColumnStretch(1, 3)
        grid.setColumnStretch(3, 2)
        return box

    def _level_rows(self, grid: QGridLayout, row: int, index: int, level: MemoryLevel) -> dict:
        """Two grid rows per level: role, name, remove; then bandwidth, achievable, source."""
        role = ChoiceBox()  # the wheel scrolls the editor, not the role, until it is clicked
        for r in MEMORY_ROLES:
            role.addItem(r, r)
            role.setItemData(role.count() - 1, _(ROLE_LABELS[r]), Qt.ItemDataRole.ToolTipRole)
        role.setCurrentIndex(MEMORY_ROLES.index(level.role))
        role.currentIndexChanged.connect(lambda _i, n=index, w=role: self._on_level(n, role=w.currentData()))
        name = QLineEdit(level.name)
        set_tip(name, _("Name shown on the chart and as the limiter"))
        name.editingFinished.connect(lambda n=index, w=name: self._on_level(n, name=w.text().strip()))
        bandwidth = QuantityEdit("bandwidth", bound=True)
        bandwidth.setMinimumWidth(120)
        set_tip(bandwidth, _("Bandwidth, e.g. 1.5 TB/s or 900G"))
        bandwidth.sig_value_committed.connect(lambda v, n=index: self._on_level(n, bandwidth=v))
        bandwidth.sig_input_refused.connect(
            lambda t, why: self._say_kept(f"{level.name} bandwidth", t, why))
        frac = QuantityEdit("count", allow_empty=True, fraction=True, bound=True)
        frac.setPlaceholderText(_("as datasheet"))
        frac.setMaximumWidth(70)
        set_tip(frac, _("Fraction of the bandwidth reached in practice (for derated roofs)"))
        frac.sig_value_committed.connect(lambda v, n=index: self._on_level(n, achievable=v))
        frac.sig_input_refused.connect(
            lambda t, why: self._say_kept(f"{level.name} achievable fraction", t, why))
        remove = QToolButton(text="✕", toolTip=_("Remove this level"))
        remove.clicked.connect(lambda _c=False, n=index: self._on_remove_level(n))
        grid.addWidget(role, row, 0)
        grid.addWidget(name, row, 1, 1, 3)
        grid.addWidget(remove, row, 4)
        grid.addWidget(FieldWithMessage(bandwidth), row + 1, 1)
        grid.addWidget(frac, row + 1, 2)
        note = _source_label()
        note.linkActivated.connect(lambda _link, n=index: self._reset_ceiling(("level", n)))
        grid.addWidget(note, row + 1, 3, 1, 2)
        return {"role": role, "name": name, "bandwidth": bandwidth, "achievable": frac, "note": note}

    def _reset_ceiling(self, what: tuple) -> None:
        """A what-if ceiling's "reset": back to its datasheet figure, one undo step."""
        chip = next((c for c in self.model.document.chips if c.id == self.chip_id), None)
        if chip is None:
            return
        kind, which = what
        sheet = (chip.compute_what_if_of.get(which) if kind == "peak"
                 else chip.memory[which].what_if_of)
        if sheet is None:
            return
        name = which if kind == "peak" else chip.memory[which].name
        self.model.push_what_if(chip.with_ceiling(what, sheet),
                                _("{ceiling} back to its datasheet").format(ceiling=name))

    def _energy_group(self) -> QGroupBox:
        """Board power (the power cap), idle power and a price per chip-hour, with what the
        energy per op and per byte are (given or estimated from the board power)."""
        box = QGroupBox(_("Energy and cost"))
        grid = QGridLayout(box)
        self.energy_fields: dict[str, QuantityEdit] = {}
        rows = (("board_power", _("Board power (W)"), "power", False,
                 _("The board power (TDP): the power cap; the energy per op and per byte are "
                 "estimated from it where no source gives them")),
                ("idle_power", _("Idle power (W)"), "power", True,
                 _("π0, drawn whatever runs (empty: 0, folded into the estimates)")),
                ("price_per_hour", _("$ per chip-hour"), "count", True,
                 _("Your price of a chip-hour, for $ per million tokens (empty: no cost)")))
        for row, (name, label, kind, empty, tip) in enumerate(rows):
            edit = QuantityEdit(kind, allow_empty=True, bound=True, confirm_empty=empty,
                                minimum=0.0)
            edit.setPlaceholderText(_("not given") if empty else _("no energy data"))
            set_tip(edit, tip)
            edit.sig_value_committed.connect(lambda v, n=name: self._on_energy(n, v))
            edit.sig_input_refused.connect(
                lambda typed, why, t=label: self._say_kept(t, typed, why))
            grid.addWidget(QLabel(label), row, 0)
            grid.addWidget(edit, row, 1)
            self.energy_fields[name] = edit
        self.energy_given = QLineEdit()
        self._given_shown = ""  # the text the chip's energies last put in the field
        self.energy_given.setPlaceholderText(_("none given: estimated from the board power"))
        set_tip(self.energy_given,
            _("Energies you have a source for, in pJ: per op by precision, per byte by memory "
            "level (its name) or by role for every level of it not named, e.g. \"bf16=0.5, "
            "HBM3=60, L2=5\" (empty: every one estimated from the board power). They replace "
            "the estimates and let the power cap be claimed."))
        self.energy_given.editingFinished.connect(self._on_energy_given)
        grid.addWidget(QLabel(_("Given pJ")), len(rows), 0)
        grid.addWidget(self.energy_given, len(rows), 1)
        rows = (*rows, None)
        self.energy_note = QLabel()
        self.energy_note.setWordWrap(True)
        self.energy_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        grid.addWidget(self.energy_note, len(rows), 0, 1, 2)
        grid.setColumnStretch(1, 1)
        return box

    def _on_energy_given(self) -> None:
        """"bf16=0.5, HBM3=60, cache=5": energies per op (by precision) and per byte (by a
        level's name, or by role for every level of it not named) in pJ
        (core.energy.parse_given); a bad entry is named and nothing is changed. Each entry
        taken is an undo step of its own."""
        from roofline_gui.core.energy import Energy, given_text, parse_given  # noqa: PLC0415

        chip = self._chip()
        if chip is None:
            return
        text = self.energy_given.text().strip()
        if text == given_text(chip):
            return
        op, byte, bad = parse_given(text, chip)
        if bad:  # the text stays, to be corrected; the chip keeps its figures
            self._say_kept(_("Given pJ"), text, _("not taken: {problems}").format(
                problems="; ".join(bad)))
            self.energy_note.setText(_("Not taken: {problems}. The chip keeps “{given}”.").format(
                problems="; ".join(bad), given=given_text(chip) or _("none given")))
            return
        e = chip.energy or Energy()
        sources = {k: v for k, v in e.sources.items() if not k.startswith(("op:", "byte:"))}
        sources.update({f"op:{p}": ENTERED_BY_HAND for p in op})
        sources.update({f"byte:{r}": ENTERED_BY_HAND for r in byte})
        new = replace(e, op_pj=op, byte_pj=byte, sources=sources)
        # taken, the text is no longer the user's own: the fill that follows the edit writes it
        # as the chip has it ("L2" as "L2 (50 MB)"), so an undo with the cursor still in the
        # field finds the chip's text there and shows the one before
        self._given_shown = self.energy_given.text()
        self.model.push(Replace("chips", replace(chip, energy=new)),
                        _("Set {chip} energies: {values}").format(chip=chip.name, values=text or _("none")))

    def _fill_energy(self, chip: Chip) -> None:
        from roofline_gui.core.energy import PJ, constants, given_text  # noqa: PLC0415

        e = chip.energy
        for name, edit in self.energy_fields.items():
            edit.set_value(None if e is None else getattr(e, name))
        # a preset whose maker publishes no board power says so (TPU v5e…v7, Trainium2, M2)
        self.energy_fields["board_power"].setPlaceholderText(
            _("no published figure") if chip.preset and e is None else _("not given"))
        # The chip's text, unless the field holds text of the user's own being typed (not the
        # text it was last given): an undo with the cursor in it shows the chip's again.
        shown = given_text(chip)
        field = self.energy_given
        if not field.hasFocus() or field.text() == self._given_shown:
            field.setText(shown)
        self._given_shown = shown
        k = constants(chip)
        if k is None:
            self.energy_note.setText(
                _("No published board power (the chip's notes say so): give one to estimate the "
                  "energy per op and per byte from it.") if chip.preset else
                _("No energy data: give a board power to estimate the energy per op and per byte "
                  "from it."))
            return
        def mark(key: str) -> str:
            return "*" if k.is_estimate(key) else _(" (given)")

        ops = ", ".join(f"{p} {v / PJ:.3g}{mark('op:' + p)}" for p, v in k.op_j.items())
        byte = ", ".join(f"{name} {v / PJ:.3g}{mark('byte:' + name)}" if v else
                         _("{level} not counted (no figure)").format(level=name)
                         for name, _role, v in k.levels)
        estimated = any(k.is_estimate(key) for key in k.said if ":" in key)
        self.energy_note.setText(
            _("pJ per op: {ops}. pJ per byte: {bytes}.").format(ops=ops, bytes=byte)
            + (_(" * estimated as upper bounds from the board power: (P − π0)/peak and "
               "(P − π0)/bandwidth.") if estimated else "")
            + "\n" + _("Board power: {source}").format(source=k.said["board_power"]))

    def _on_energy(self, name: str, value: float | None) -> None:
        from roofline_gui.core.energy import Energy  # noqa: PLC0415

        chip = self._chip()
        if chip is None:
            return
        e = chip.energy or Energy()
        sources = dict(e.sources)
        if value is None:
            sources.pop(name, None)
        else:
            sources[name] = ENTERED_BY_HAND
        new = replace(e, **{name: value}, sources=sources)
        problems = new.problems()
        if problems:  # the chip's own value back, and why (set_value would clear the error)
            self.energy_fields[name].set_value(getattr(e, name))
            self.energy_fields[name].show_error(problems[0][1])
            self._say_kept(label_of_energy(name), str(value), problems[0][1])
            return
        label = label_of_energy(name)
        said = _("cleared") if value is None else (
            f"${value:g}" if name == "price_per_hour" else format_si(value, "W"))
        # each value taken is an undo step of its own (typed values are not a drag's steps)
        self.model.push(Replace("chips", replace(chip, energy=None if new.empty else new)),
                        _("Set {chip} {field}: {value}").format(chip=chip.name, field=label, value=said))

    def _fill(self, chip: Chip, old: Chip | None = None) -> None:
        """The fields from ``chip``; those whose values are as in ``old`` (what the fields
        show, the same structure) are left as they are (a roof's drag changes one ceiling at
        every step, and the others' fields and notes were 0.5 ms of it)."""
        if not self.name_edit.hasFocus():
            self.name_edit.setText(chip.name)
        for precision, edit in self.compute_fields.items():
            if old is not None and _compute_row(old, precision) == _compute_row(chip, precision):
                continue
            edit.set_value(chip.compute.get(precision))
            self.fraction_fields[precision].set_value(chip.compute_achievable.get(precision))
            self.remove_buttons[precision].setEnabled(precision in chip.compute)
            _set_note(self.compute_notes[precision], ceiling_note(
                chip.compute.get(precision, 0.0), chip.compute_sources.get(precision, ""),
                chip.compute_measured.get(precision), "op/s",
                chip.compute_what_if_of.get(precision)))
        if old is None or (old.energy, old.compute, old.memory) != (chip.energy, chip.compute,
                                                                     chip.memory):
            self._fill_energy(chip)  # its estimates follow the peaks and the bandwidths
        for n, (fields, level) in enumerate(zip(self.level_fields, chip.memory, strict=True)):
            if old is not None and old.memory[n] == level:
                continue
            fields["bandwidth"].set_value(level.bandwidth)
            fields["achievable"].set_value(level.achievable)
            _set_note(fields["note"], ceiling_note(level.bandwidth, level.source, level.measured,
                                                   "B/s", level.what_if_of))
            if not fields["name"].hasFocus():
                fields["name"].setText(level.name)

    # -- edits ------------------------------------------------------------------------------------
    def _chip(self) -> Chip | None:
        return next((c for c in self.model.document.chips if c.id == self.chip_id), None)

    def _push(self, chip: Chip, text: str, field: str) -> None:
        self.model.push(Replace("chips", chip), text, merge_key=("chip-field", chip.id, field))

    def _on_name_edited(self) -> None:
        chip, name = self._chip(), self.name_edit.text().strip()
        if chip and not name:  # put back and said, as a kernel's
            self.name_edit.setText(chip.name)
            self.model.sig_refused.emit(_("A chip needs a name: “{name}” kept").format(
                name=chip.name))
        elif chip and name != chip.name:
            # each rename confirmed is a step of its own, as a kernel's and a workload's are
            # (merged with the next, Ctrl+Z went past the first name back to the one before,
            # while Redo offered the second: the twenty-fourth tour)
            self.model.push(Replace("chips", replace(chip, name=name)),
                            _("Rename {old} to {new}").format(old=chip.name, new=name))

    def _say_kept(self, what: str, typed: str, why: str) -> None:
        """A field was left with text it did not take and shows the chip's value again: the
        status bar says what was typed and why it was not taken."""
        chip = self._chip()
        if chip is not None:
            said = f"{what}: “{typed.strip()}” not taken" if typed.strip() else f"{what} kept"
            self.model.sig_refused.emit(f"{chip.name} {said} ({why})")

    def _on_remove_precision(self, precision: str) -> None:
        """✕ of a precision row; the core refuses removing a chip's last compute ceiling."""
        chip = self._chip()
        if chip is not None and precision in chip.compute:
            self.model.push(Replace("chips", chip.with_compute(precision, None)),
                            _("Remove {chip} {precision} peak").format(chip=chip.name, precision=precision))

    def _on_compute(self, precision: str, value: float | None) -> None:
        chip = self._chip()
        if chip is None:
            return
        if value is None:  # the emptied field confirmed with Enter
            if reason := chip.with_compute(precision, None).rule_broken():
                self.compute_fields[precision].show_error(reason.split(": ", 1)[1])  # said there
            else:
                self._on_remove_precision(precision)
            return
        text = _("Set {chip} {precision} peak to {peak}").format(
            chip=chip.name, precision=precision, peak=format_si(value, "op/s"))
        if precision in chip.compute and (precision in chip.compute_what_if_of or _datasheet(
                chip.compute_sources.get(precision, ""), chip.compute_measured.get(precision),
                chip.compute[precision])):
            # a datasheet figure typed over is a what-if, as one dragged is: the datasheet's
            # figure and source kept beside it, its reset one click (typed, the source had
            # gone on naming the datasheet for the new number: the nineteenth tour)
            self._push(chip.with_ceiling(("peak", precision), value).named_as_what_if(), text,
                       f"compute.{precision}")
            return
        new = chip.with_compute(precision, value)
        measured = chip.compute_measured.get(precision)
        if measured is not None and measured.value == chip.compute.get(precision):
            # a measured-only ceiling given a value by hand: that value is now its datasheet
            new = replace(new, compute_sources={**new.compute_sources, precision: ENTERED_BY_HAND})
        self._push(new, text, f"compute.{precision}")

    def _on_compute_fraction(self, precision: str, value: float | None) -> None:
        chip = self._chip()
        if chip is None:
            return
        fractions = dict(chip.compute_achievable)
        if value is None:
            fractions.pop(precision, None)
        else:
            fractions[precision] = value
        self._push(replace(chip, compute_achievable=fractions),
                   _("Set {chip} {precision} achievable fraction").format(
                       chip=chip.name, precision=precision), f"achievable.{precision}")

    def _on_level(self, index: int, **changes) -> None:
        chip = self._chip()
        if chip is None or index >= len(chip.memory):
            return
        level = chip.memory[index]
        if changes.get("name") == "" or all(getattr(level, k) == v for k, v in changes.items()):
            return
        if set(changes) == {"bandwidth"} and (level.what_if_of is not None or _datasheet(
                level.source, level.measured, level.bandwidth)):
            # a datasheet bandwidth typed over: a what-if, as a dragged roof is (its energy per
            # byte, estimated from the datasheet's, stays)
            self._push(chip.with_ceiling(("level", index), changes["bandwidth"]).named_as_what_if(),
                       _("Set {chip} {level} {what}").format(
                           chip=chip.name, level=level.name,
                           what=f"bandwidth {format_si(changes['bandwidth'], 'B/s')}"),
                       f"level{index}.bandwidth")
            return
        by_hand = ("bandwidth" in changes and level.measured is not None
                   and level.measured.value == level.bandwidth)  # the measurement stays beside it
        new = chip.with_level(index, replace(level, **changes,
                                             **({"source": ENTERED_BY_HAND} if by_hand else {})))
        if new.rule_broken():  # the only main-memory level keeps its role
            self.level_fields[index]["role"].setCurrentIndex(MEMORY_ROLES.index(level.role))
            self.model.sig_refused.emit(new.rule_broken())
            return
        what = ", ".join(f"{k} {format_si(v, 'B/s') if k == 'bandwidth' else v}"
                         for k, v in changes.items())
        self._push(new, _("Set {chip} {level} {what}").format(
            chip=chip.name, level=level.name, what=what), f"level{index}.{','.join(changes)}")

    def _on_add_level(self) -> None:
        chip = self._chip()
        if chip is None:
            return
        level = MemoryLevel("cache", "L2", chip.dram.bandwidth * 4, source=ADDED_BY_HAND)
        self.model.push(Replace("chips", replace(chip, memory=(level, *chip.memory))),
                        _("Add a memory level to {chip}").format(chip=chip.name))

    def _on_remove_level(self, index: int) -> None:
        chip = self._chip()
        if chip is None:
            return
        level = chip.memory[index]
        self.model.push(Replace("chips", chip.without_level(index)),  # the core refuses the
                        _("Remove {level} from {chip}").format(
                            level=level.name, chip=chip.name))     # last dram level


def _compute_row(chip: Chip, precision: str) -> tuple:
    """What one precision's row of the form shows."""
    return (chip.compute.get(precision), chip.compute_achievable.get(precision),
            chip.compute_sources.get(precision), chip.compute_measured.get(precision),
            chip.compute_what_if_of.get(precision))


def _datasheet(source: str, measured, value: float) -> bool:
    """Whether a ceiling's value is a datasheet's figure: a source given that is not the user's
    own (ENTERED_BY_HAND, "added by hand") and no measurement the value is."""
    return (bool(source.strip()) and not source.endswith("by hand")
            and not (measured is not None and measured.value == value))


class HardwareEditor(QWidget):
    """The chips of the session above, the selected chip's form below."""

    def __init__(self, model: DocumentModel, presets: Presets, parent=None) -> None:
        super().__init__(parent)
        self.model, self.presets = model, presets
        self.list_model = ChipListModel(model, presets, self)
        self.view = QListView()
        self.view.setModel(self.list_model)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.view.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setMinimumHeight(90)
        self.view.selectionModel().currentChanged.connect(self._on_current_changed)
        self.form = ChipForm(model)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.form)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.view)
        top_layout.addLayout(self._buttons())
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(scroll)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([130, 600])
        self.splitter, self._top = splitter, top
        for signal in (self.list_model.modelReset, self.list_model.rowsInserted,
                       self.list_model.rowsRemoved):
            signal.connect(self._fit_list)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(splitter)
        model.sig_selection_changed.connect(self._on_selection_changed)
        self.list_model.modelReset.connect(lambda: self._on_selection_changed(None, model.selected_chip))
        self._on_selection_changed(None, model.selected_chip)

    #: chips the list shows before it scrolls (with four chips it showed three: the tour)
    LIST_ROWS = 5

    def showEvent(self, event) -> None:  # noqa: N802 (Qt API)
        super().showEvent(event)
        QTimer.singleShot(0, self, self._fit_list)  # laid out: the splitter knows its height

    def _fit_list(self, *_args) -> None:
        """The chips' list tall enough for every chip up to LIST_ROWS; the form takes the rest."""
        rows = min(max(self.list_model.rowCount(), 2), self.LIST_ROWS)
        row = (self.view.sizeHintForRow(0) if self.list_model.rowCount()
               else self.view.fontMetrics().height() + 6)
        wanted = rows * row + 2 * self.view.frameWidth() + 4
        extra = self._top.sizeHint().height() - self.view.sizeHint().height()
        total = sum(self.splitter.sizes())
        if total > 0:
            top = min(wanted + max(extra, 0), total // 2)
            self.splitter.setSizes([top, total - top])

    def _buttons(self) -> QHBoxLayout:
        row = QHBoxLayout()
        specs = ((_("Add…"), _("Add chips from the preset library"), self.add_from_presets),
                 (_("Duplicate"), _("Duplicate the selected chip"), self.duplicate),
                 (_("Delete"), _("Delete the selected chip"), self.delete),
                 ("▲", _("Move up"), lambda: self.move(-1)), ("▼", _("Move down"), lambda: self.move(1)),
                 (_("Colour…"), _("Pick the chip's colour"), self.pick_color),
                 (_("Baseline"), _("Measure speedups against this chip"), self.set_baseline))
        self.buttons = {}
        for text, tip, slot in specs:
            button = QPushButton(text) if len(text) > 1 else QToolButton(text=text)
            set_tip(button, tip)
            button.clicked.connect(slot)
            row.addWidget(button)
            self.buttons[text] = button
        row.addStretch()
        return row

    # -- selection ---------------------------------------------------------------------------------
    def _on_current_changed(self, current, _previous) -> None:
        if current.isValid():
            self.model.select(None, current.data(ID_ROLE))

    def _on_selection_changed(self, _kernel_id, chip_id) -> None:
        row = self.list_model.row_of(chip_id) if chip_id else -1
        if row >= 0 and self.view.currentIndex().row() != row:
            self.view.setCurrentIndex(self.list_model.index(row))
        self.form.show_chip(chip_id)

    def current_chip(self) -> Chip | None:
        chip_id = self.model.selected_chip
        return next((c for c in self.model.document.chips if c.id == chip_id), None)

    # -- actions ----------------------------------------------------------------------------------
    def add_from_presets(self) -> None:
        shown = {c.name for c in self.model.document.chips}
        picked = [self.presets.chips[i] for i in ChipPresetDialog.ask(self.presets, self, shown)
                  if i in self.presets.chips]
        if len(picked) > 1:
            # several picked (Ctrl+A): those the session has already are not added again as
            # copies (the 40th tour's "H100 SXM5 80GB (copy)"); one picked alone is a copy
            # asked for
            picked = [c for c in picked if c.name not in shown]
        new = self.model.add_chips(picked)
        if new:
            self.model.select(None, new[-1])

    def duplicate(self) -> None:
        chip = self.current_chip()
        if chip:
            # named as a copy by add_chips, as any chip added under a name in use
            new = self.model.add_chips([replace(chip, color=None)],
                                       self.model.document.chips.index(chip) + 1,
                                       text=_("Duplicate {chip}").format(chip=chip.name))
            self.model.select(None, new[-1])

    def delete(self) -> None:
        chip = self.current_chip()
        if chip:
            self.model.push(Remove("chips", chip.id), _("Delete {chip}").format(chip=chip.name))
            if self.model.document.chips:
                self.model.select(None, self.model.document.chips[0].id)

    def move(self, step: int) -> None:
        chip = self.current_chip()
        if chip:
            index = self.model.document.chips.index(chip) + step
            if 0 <= index < len(self.model.document.chips):
                self.model.push(Move("chips", chip.id, index), _("Move {chip}").format(chip=chip.name))
                self.view.setCurrentIndex(self.list_model.index(index))

    def pick_color(self) -> None:
        chip = self.current_chip()
        if chip:
            color = ColorDialog.ask(chip.color or "#808080", self)
            if color:
                self.model.push(Replace("chips", replace(chip, color=color)), _("Colour {chip}").format(
                    chip=chip.name))

    def set_baseline(self) -> None:
        chip = self.current_chip()
        if chip:
            self.model.push(SetField("baseline", chip.id), _("Make {chip} the baseline").format(
                chip=chip.name))


if __name__ == "__main__":
    import sys

    from roofline_gui.widgets.common.preview import preview

    sys.exit(preview(lambda model, presets: HardwareEditor(model, presets)))
