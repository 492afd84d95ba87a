"""Tools → Derive what-if chip…: a copy of a session chip with a factor per ceiling (every
compute roof, each precision, each memory role, main memory's capacity), named from its changes
and added beside the original, so both are compared (core.chip.derive)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from roofline_gui.core.chip import Chip, derive
from roofline_gui.core.i18n import _
from roofline_gui.core.units import format_si


class DeriveDialog(QDialog):
    def __init__(self, chips: Sequence[Chip], selected: str | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("Derive a what-if chip"))
        self.chips = list(chips)
        self.chip = QComboBox()
        for chip in self.chips:
            self.chip.addItem(chip.name, chip.id)
        self.chip.setCurrentIndex(max(0, self.chip.findData(selected)))
        self.chip.currentIndexChanged.connect(self._rebuild)
        self.form = QFormLayout()
        self.name = QLabel()
        self.name.setWordWrap(True)
        self.error = QLabel()
        self.error.setStyleSheet("color: #b00020")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(_("Add"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        layout = QVBoxLayout(self)
        top = QFormLayout()
        top.addRow(_("From"), self.chip)
        layout.addLayout(top)
        layout.addWidget(QLabel(_("A factor per ceiling (1: unchanged). The copy's changed ceilings "
                                "say what-if and the value they came from.")))
        layout.addLayout(self.form)
        layout.addWidget(self.name)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.fields: dict[str, QDoubleSpinBox] = {}
        self._rebuild()

    def original(self) -> Chip:
        return self.chips[self.chip.currentIndex()]

    def _rebuild(self) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.fields = {}
        self.values: dict[str, QLabel] = {}  # each ceiling's figure, before → after
        chip = self.original()
        rows = [("compute", _("Every compute roof"))]
        rows += [(p, f"{p} peak") for p in chip.precisions]
        rows += [(role, _(" and ").join(lv.name for lv in chip.levels(role)) + f" ({role})")
                 for role in ("dram", "cache", "host", "link") if chip.levels(role)]
        if chip.dram.capacity:
            rows.append(("capacity", _("Main memory capacity")))
        for key, label in rows:
            spin = QDoubleSpinBox()
            spin.setDecimals(2)
            spin.setRange(0.01, 1000.0)
            spin.setValue(1.0)
            spin.setSingleStep(0.5)
            spin.setSuffix(" ×")
            spin.valueChanged.connect(self._preview)
            self.fields[key] = spin
            value = QLabel()
            value.setMinimumWidth(value.fontMetrics().horizontalAdvance("9.999 TB/s → 99.99 TB/s"))
            self.values[key] = value
            row = QHBoxLayout()
            row.addWidget(spin)
            row.addWidget(value, 1)
            self.form.addRow(label, row)
        self._preview()

    @staticmethod
    def _figure(chip: Chip, key: str) -> str:
        """The ceiling ``key`` of ``chip`` as the editor writes it."""
        if key == "compute":
            return _("each peak below")
        if key in chip.compute:
            return format_si(chip.compute[key], "op/s")
        if key == "capacity":
            return format_si(chip.dram.capacity, "B")
        return ", ".join(format_si(lv.bandwidth, "B/s") for lv in chip.levels(key))

    def factors(self) -> dict[str, float]:
        return {k: spin.value() for k, spin in self.fields.items() if spin.value() != 1.0}

    def derived(self) -> Chip | None:
        try:
            return derive(self.original(), self.factors())
        except ValueError as exc:
            self.error.setText(str(exc))
            return None

    def _preview(self) -> None:
        self.error.setText("")
        chip = self.derived()
        original = self.original()
        for key, label in self.values.items():
            before = self._figure(original, key)
            after = self._figure(chip, key) if chip else before
            label.setText(before if after == before else f"{before} → {after}")
        self.name.setText(_("Adds “{chip}” after {original}").format(
            chip=chip.name, original=original.name) if chip else "")
        self.ok.setEnabled(chip is not None and bool(self.factors()))
