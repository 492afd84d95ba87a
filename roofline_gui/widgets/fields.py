"""Unit-aware input fields. Typing "2 TB/s", "900G" or "19.5 TFLOPS" works; invalid input is
refused in place with the reason (red frame, message under the field) and never stored."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QLineEdit, QVBoxLayout, QWidget

from roofline_gui.core.errors import UnitError
from roofline_gui.core.units import format_si, parse_quantity

_UNITS = {"bandwidth": "B/s", "compute": "op/s", "bytes": "B", "intensity": "op/B", "count": ""}
_INVALID = "QLineEdit { border: 2px solid #d62728; }"


class QuantityEdit(QLineEdit):
    """A line edit for one quantity. Emits ``sig_value_committed`` with the parsed value (None
    when emptied and ``allow_empty``) only when the text is valid and the value changed."""

    sig_value_committed = Signal(object)
    sig_error_changed = Signal(str)  # "" when valid

    def __init__(self, kind: str, *, allow_empty: bool = False, fraction: bool = False,
                 integer: bool = False, minimum: float = 0.0, maximum: float = float("inf"),
                 parent=None) -> None:
        super().__init__(parent)
        self.kind, self.allow_empty, self.fraction = kind, allow_empty, fraction
        self.integer, self.minimum, self.maximum = integer, minimum, maximum
        self._value: float | None = None
        self.error = ""
        self.setPlaceholderText("not supported" if allow_empty else "")
        self.editingFinished.connect(self._on_editing_finished)

    def value(self) -> float | None:
        return self._value

    def set_value(self, value: float | None) -> None:
        """Show ``value`` (from the document); clears any error shown."""
        self._value = value
        if value is None:
            text = ""
        elif self.fraction:
            text = f"{value:g}"
        elif self.integer:
            text = f"{value:.0f}"
        else:
            text = format_si(value, _UNITS[self.kind], digits=6)
        if text != self.text():
            self.setText(text)
        self._set_error("")

    def parse(self, text: str) -> float | None:
        """The value typed, or raise UnitError with the reason."""
        if not text.strip() and self.allow_empty:
            return None
        value = parse_quantity(text, self.kind)
        if self.fraction and value > 1:
            raise UnitError("an achievable fraction is between 0 and 1 (e.g. 0.92)")
        if self.integer and value != int(value):
            raise UnitError(f"must be a whole number, not {value:g}")
        if not self.minimum <= value <= self.maximum:
            raise UnitError(f"must be between {self.minimum:g} and {self.maximum:g}")
        return value

    def _on_editing_finished(self) -> None:
        try:
            value = self.parse(self.text())
        except UnitError as exc:
            self._set_error(str(exc))
            return
        self._set_error("")
        if value != self._value:
            self._value = value
            self.sig_value_committed.emit(value)

    def _set_error(self, message: str) -> None:
        if message != self.error:
            self.error = message
            self.setStyleSheet(_INVALID if message else "")
            self.setToolTip(message)
            self.sig_error_changed.emit(message)


class FieldWithMessage(QWidget):
    """A QuantityEdit with its error message shown underneath when there is one."""

    def __init__(self, edit: QuantityEdit, parent=None) -> None:
        super().__init__(parent)
        self.edit = edit
        self.message = QLabel()
        self.message.setStyleSheet("color: #d62728;")
        self.message.setWordWrap(True)
        self.message.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addWidget(edit)
        layout.addWidget(self.message)
        edit.sig_error_changed.connect(self._on_error_changed)

    def _on_error_changed(self, message: str) -> None:
        self.message.setText(message)
        self.message.setVisible(bool(message))
