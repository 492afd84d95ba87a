"""What to do with a measurement of this computer: the figures, then add it as a chip or as the
selected chip's measured values, and keep it as a user preset or not."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from roofline_gui.core.chip import Chip
from roofline_gui.core.i18n import _
from roofline_gui.core.units import format_si
from roofline_gui.widgets.common.application import set_tip


def measured_summary(chip: Chip) -> str:
    """The measured figures, a line each."""
    lines = [f"{level.name}: {format_si(level.measured.value if level.measured else level.bandwidth, 'B/s')}"
             f"  ({level.source.split(': ', 1)[-1]})" for level in chip.memory]
    lines += [_("{precision} peak: {rate}").format(precision=p, rate=format_si(m.value, "FLOP/s"))
              for p, m in chip.compute_measured.items()]
    lines += [line for line in chip.notes.splitlines()
              if line.startswith(("Theoretical", "fp16", "fp64 BLAS", "fp32 BLAS"))]
    return "\n".join(lines)


class MeasuredDialog(QDialog):
    """The figures of a measurement (what measured, on what, with any warning in red) and the
    choice of what to do with them."""

    def __init__(self, chip: Chip, measurement, selected: Chip | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("This computer, measured"))
        self.selected = selected
        layout = QVBoxLayout(self)
        host = chip.compute_measured and next(iter(chip.compute_measured.values())).host
        header = QLabel(_("{machine}, measured {date} with {method}").format(
            machine=f"<b>{escape(host or measurement.cpu)}</b>", date=measurement.date,
            method=escape(measurement.method)))
        header.setWordWrap(True)
        layout.addWidget(header)
        figures = QLabel(measured_summary(chip))
        figures.setTextFormat(Qt.TextFormat.PlainText)
        figures.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        figures.setWordWrap(True)
        layout.addWidget(figures)
        warnings = list(measurement.notes)
        if measurement.fallback:
            warnings.insert(0, _("Measured with numpy's kernels, not the compiled ones: {why}. "
                                 "Bandwidths are lower than the machine's and L1 is not "
                                 "seen.").format(why=measurement.fallback))
        for text in warnings:
            if text.startswith("fp16"):
                continue  # in the figures already
            warning = QLabel(text[0].upper() + text[1:])
            warning.setWordWrap(True)
            warning.setTextFormat(Qt.TextFormat.PlainText)
            warning.setStyleSheet("color: #b00020;")
            layout.addWidget(warning)
        self.as_new = QRadioButton(_("Add it to the session as a new chip"))
        self.as_new.setChecked(True)
        self.onto_selected = QRadioButton(
            _("Add the measured values to {chip}, beside its datasheet values: only if {chip} is "
              "this computer's datasheet").format(chip=selected.name) if selected is not None
            else _("Add the measured values to the selected chip (select a chip first)"))
        self.onto_selected.setEnabled(selected is not None)
        set_tip(self.onto_selected,
            _("For a chip that describes this machine (a datasheet you typed in, or the preset of "
            "its processor with as many cores as were measured): each measured level goes to the "
            "level of the same name (DRAM to main memory), each peak to its precision; View → "
            "Achievable roofs draws them"))
        group = QButtonGroup(self)
        for button in (self.as_new, self.onto_selected):
            group.addButton(button)
            layout.addWidget(button)
        self.keep = QCheckBox(_("Also keep “{chip}” as one of my chip presets (the hardware "
                                "editor's Add… lists it)").format(chip=chip.name))
        layout.addWidget(self.keep)
        buttons = QDialogButtonBox()
        buttons.addButton(_("Add"), QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(_("Discard"), QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def answer(self) -> tuple[Chip | None, bool]:
        target = self.selected if self.onto_selected.isChecked() else None
        return target, self.keep.isChecked()
