"""Where each of a template kernel's operands lives: main memory, on chip (kept across calls) or
the host link (every call), one choice per operand, with what it is and its size; and a warning
where what it keeps on chip does not fit a chip of the session (core.levels.residency_note)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel

from roofline_gui.core.chip import Chip
from roofline_gui.core.i18n import N_, _
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.levels import residency_note
from roofline_gui.core.templates import RESIDENCE_LABELS, RESIDENCES, TEMPLATES
from roofline_gui.core.units import format_si
from roofline_gui.widgets.common.application import set_tip
from roofline_gui.widgets.common.fields import ChoiceBox
from roofline_gui.widgets.common.wheel import guard_wheel

#: an operand's role, as the form says it (core.templates keeps the English word)
ROLES = (N_("input"), N_("weight"), N_("output"))


class OperandPlaces(QGroupBox):
    """One "lives in" choice per operand; ``on_changed`` gets the whole {operand: place}."""

    def __init__(self, on_changed: Callable[[dict[str, str]], None], parent=None) -> None:
        super().__init__(_("Where each operand lives"), parent)
        set_tip(self, _("Main memory: read or written from DRAM/HBM every call. On chip: kept in "
                        "the chip's on-chip level (cache, SRAM, the TPU's unified buffer) across "
                        "calls, so its bytes move there instead. Host link: brought over PCIe "
                        "every call."))
        self.on_changed = on_changed
        self.form = QFormLayout(self)
        self.form.setContentsMargins(6, 4, 6, 4)
        # A fixed set of rows, relabelled per template and never deleted: the focus can move
        # into one of them while the form rebuilds (a parameter committed on leaving its field
        # re-enters show_kernel), and deleting a widget then crashed the app.
        self._rows: list[tuple[QLabel, QComboBox]] = []
        for _row in range(max(len(t.operands) for t in TEMPLATES.values())):
            label, combo = QLabel(), ChoiceBox()
            guard_wheel(combo)
            for place in RESIDENCES:
                combo.addItem(_(RESIDENCE_LABELS[place]), place)
            combo.activated.connect(self._changed)
            self.form.addRow(label, combo)
            self._rows.append((label, combo))
        self.warning = QLabel()
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet("color: #b00020")
        self.form.addRow(self.warning)
        self.combos: dict[str, QComboBox] = {}
        self._template: str | None = None

    def show_kernel(self, kernel: Kernel | None, chips: Sequence[Chip]) -> None:
        template = kernel.template if kernel is not None else None
        self.setVisible(template is not None)
        if template is None:
            return
        if template != self._template:
            self._build(template)
        sizes = TEMPLATES[template].function({**TEMPLATES[template].defaults(), **kernel.params},
                                             kernel.bytes_per_value).operands
        for op in TEMPLATES[template].operands:
            combo = self.combos[op.name]
            combo.blockSignals(True)
            combo.setCurrentIndex(combo.findData(kernel.resides.get(op.name, "dram")))
            combo.blockSignals(False)
            set_tip(combo, _("{operand} ({role}): {size} per call").format(
                operand=_(op.label), role=_(op.role), size=format_si(float(sizes[op.name]), "B")))
        notes = [n for n in (residency_note(kernel, c) for c in chips if c.visible) if n]
        self.warning.setText("\n".join(notes))
        self.warning.setVisible(bool(notes))

    def _build(self, template: str) -> None:
        operands = TEMPLATES[template].operands
        self.combos = {}
        for row, (label, combo) in enumerate(self._rows):
            shown = row < len(operands)
            self.form.setRowVisible(row, shown)
            if shown:
                label.setText(f"{operands[row].name} ({_(operands[row].role)})")
                self.combos[operands[row].name] = combo
        self._template = template

    def _changed(self, _index: int) -> None:
        self.on_changed({name: combo.currentData() for name, combo in self.combos.items()})
