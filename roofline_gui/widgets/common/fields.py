"""Unit-aware input fields. Typing "2 TB/s", "900G" or "19.5 TFLOPS" works; invalid input is
refused in place with the reason (red frame, message under the field) and never stored."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, Qt, Signal
from PySide6.QtWidgets import QAbstractScrollArea, QLabel, QLineEdit, QVBoxLayout, QWidget

from roofline_gui.core.errors import UnitError
from roofline_gui.core.units import format_si, parse_quantity

_UNITS = {"bandwidth": "B/s", "compute": "op/s", "bytes": "B", "intensity": "op/B", "count": ""}
_INVALID = "QLineEdit { border: 2px solid #d62728; }"


class QuantityEdit(QLineEdit):
    """A line edit for one quantity. Emits ``sig_value_committed`` with the parsed value (None
    when emptied and ``allow_empty``) only when the text is valid and the value changed."""

    sig_value_committed = Signal(object)
    sig_value_edited = Signal(object)  # each keystroke that leaves a valid value (not committed)
    sig_error_changed = Signal(str)  # "" when valid
    _height: int | None = None  # a field's fixed height, measured on the first one built

    def __init__(self, kind: str, *, allow_empty: bool = False, fraction: bool = False,
                 integer: bool = False, minimum: float = 0.0, maximum: float = float("inf"),
                 parent=None) -> None:
        super().__init__(parent)
        self.kind, self.allow_empty, self.fraction = kind, allow_empty, fraction
        self.integer, self.minimum, self.maximum = integer, minimum, maximum
        self._value: float | None = None
        self._shown = self._exact = ""  # the text set_value showed; the value in full
        self.error = ""
        self.setPlaceholderText("not supported" if allow_empty else "")
        # The red border of an error is a style sheet, which sizes the field by its own box
        # model: the height is fixed so the form does not move when an error comes or goes.
        # Every field has the same font and style: the height is measured once, not per field.
        if QuantityEdit._height is None:
            QuantityEdit._height = self.sizeHint().height()
        self.setFixedHeight(QuantityEdit._height)
        self.editingFinished.connect(self._on_editing_finished)
        self.textEdited.connect(self._on_text_edited)

    def value(self) -> float | None:
        return self._value

    def set_value(self, value: float | None) -> None:
        """Show ``value`` (from the document) as every view formats it (4 significant digits:
        the chart's and the table's '1.979 Pop/s'); clears any error shown. The exact value is
        kept, and stays unless the text is edited; the tooltip gives it in full."""
        self._value = value
        if value is None:
            text = exact = ""
        elif self.fraction:
            text = exact = f"{value:g}"
        elif self.integer:
            text = exact = f"{value:.0f}"
        else:
            text = format_si(value, _UNITS[self.kind])
            exact = format_si(value, _UNITS[self.kind], digits=12)
        self._shown = text
        self._exact = exact if exact != text else ""
        if text != self.text():
            self.setText(text)
        self._set_error("", force=True)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt API)
        """Escape puts back the value the document holds (and clears an error shown)."""
        if event.key() == Qt.Key.Key_Escape and (self.text() != self._shown or self.error):
            self.set_value(self._value)
            event.accept()
            return
        super().keyPressEvent(event)

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

    def _on_text_edited(self, text: str) -> None:
        try:
            value = self.parse(text)
        except UnitError:
            return  # said when the field is left or Enter is pressed, not mid-typing
        self.sig_value_edited.emit(value)

    def _on_editing_finished(self) -> None:
        if self.text() == self._shown:  # left as shown: keep the exact value, not the rounded text
            self._set_error("")
            return
        try:
            value = self.parse(self.text())
        except UnitError as exc:
            self._set_error(str(exc))
            return
        self._set_error("")
        if value != self._value:
            self._value = value
            self.sig_value_committed.emit(value)

    def show_error(self, message: str) -> None:
        """Show a reason the value typed cannot be taken (from a rule outside the field)."""
        self._set_error(message)

    def _set_error(self, message: str, force: bool = False) -> None:
        if message != self.error or force:
            changed = message != self.error
            self.error = message
            if self.styleSheet() != (_INVALID if message else ""):  # each change re-polishes
                self.setStyleSheet(_INVALID if message else "")
            self.setToolTip(message or (f"exactly {self._exact}" if self._exact else ""))
            if changed:
                self.sig_error_changed.emit(message)


class FieldWithMessage(QWidget):
    """A QuantityEdit with its error message shown just under it when there is one.

    The message floats over what lies below (a child of the enclosing scrolled form, or of the
    window) instead of taking a row of the layout, so the panel does not jump when it appears."""

    def __init__(self, edit: QuantityEdit, parent=None) -> None:
        super().__init__(parent)
        self.edit = edit
        self._message: QLabel | None = None  # made when the first error comes (most never do)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(edit)
        edit.sig_error_changed.connect(self._on_error_changed)
        edit.installEventFilter(self)

    @property
    def message(self) -> QLabel:
        """The floating label that shows the field's error."""
        if self._message is None:
            self._message = QLabel()
            self._message.setStyleSheet("color: #d62728; background: palette(base); "
                                        "border: 1px solid #d62728; padding: 1px 3px;")
            self._message.setWordWrap(True)
            # It floats over the field below: clicks go through to that field.
            self._message.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
            self._message.hide()
            self.destroyed.connect(self._message.deleteLater)  # it may live in another parent
        return self._message

    def _host(self) -> QWidget:
        """The widget the message floats in: the form inside a scroll area, else the window."""
        widget = self
        while widget.parentWidget() is not None and not widget.isWindow():
            parent = widget.parentWidget()
            if isinstance(parent.parentWidget(), QAbstractScrollArea):
                return widget
            widget = parent
        return widget

    def _place(self) -> None:
        host = self._host()
        if self.message.parentWidget() is not host:
            self.message.setParent(host)
        self.message.setFixedWidth(max(self.edit.width(), 160))
        self.message.adjustSize()
        self.message.move(self.edit.mapTo(host, QPoint(0, self.edit.height())))
        self.message.raise_()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt API)
        if self._message is None:
            return False
        if event.type() in (QEvent.Type.Move, QEvent.Type.Resize) and self._message.isVisible():
            self._place()
        elif event.type() == QEvent.Type.Hide:
            self._message.hide()
        return False

    def _on_error_changed(self, message: str) -> None:
        if not message and self._message is None:
            return
        self.message.setText(message)
        if message and self.isVisible():
            self._place()
            self.message.show()
        else:
            self.message.hide()
