"""Unit-aware input fields. Typing "2 TB/s", "900G" or "19.5 TFLOPS" works; invalid input is
refused in place with the reason (red frame, message under the field) and never stored."""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QComboBox,
    QLabel,
    QLineEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from roofline_gui.core.errors import UnitError
from roofline_gui.core.i18n import _
from roofline_gui.core.units import format_si, parse_quantity
from roofline_gui.widgets.common.application import fitted_tip
from roofline_gui.widgets.common.wheel import guard_wheel

_UNITS = {"bandwidth": "B/s", "compute": "op/s", "bytes": "B", "intensity": "op/B", "count": "",
          "power": "W"}
_INVALID = "QLineEdit { border: 2px solid #d62728; }"
# Focus that goes to a popup (the field's context menu) or to another window comes back: the
# field is not being left.
_STAYING = (Qt.FocusReason.PopupFocusReason, Qt.FocusReason.ActiveWindowFocusReason)


def _plain(x: float) -> str:
    """A bound as people write it: "1,000,000", "0.5"."""
    return f"{x:,.0f}" if math.isfinite(x) and x == int(x) and abs(x) < 1e15 else f"{x:,.6g}"


class QuantityEdit(QLineEdit):
    """A line edit for one quantity. Emits ``sig_value_committed`` with the parsed value (None
    when emptied and ``allow_empty``) only when the text is valid and the value changed.

    ``bound``: the value is held elsewhere (the document) and only ``set_value`` changes it, so
    the field never shows what is not held once it is left: leaving it (Tab, a click elsewhere)
    with text that was not taken puts the held value back, and ``sig_input_refused`` says why.
    ``confirm_empty`` (a bound field that ``allow_empty``): emptying is committed by Enter only;
    leaving an emptied field keeps the value."""

    sig_value_committed = Signal(object)
    sig_value_edited = Signal(object)  # each keystroke that leaves a valid value (not committed)
    sig_error_changed = Signal(str)  # "" when valid
    sig_input_refused = Signal(str, str)  # (text typed, why) when leaving put the value back
    _height: int | None = None  # a field's fixed height, measured on the first one built

    def __init__(self, kind: str, *, allow_empty: bool = False, fraction: bool = False,
                 integer: bool = False, minimum: float = 0.0, maximum: float = float("inf"),
                 bound: bool = False, confirm_empty: bool = False, parent=None) -> None:
        super().__init__(parent)
        self.kind, self.allow_empty, self.fraction = kind, allow_empty, fraction
        self.integer, self.minimum, self.maximum = integer, minimum, maximum
        self.bound, self.confirm_empty = bound, confirm_empty and allow_empty
        self._focus_out: Qt.FocusReason | None = None  # its reason, within focusOutEvent
        self._value: float | None = None
        self._shown = self._exact = ""  # the text set_value showed; the value in full
        self.error = ""
        #: what the field is, its tooltip where no error or exact value is said (a tooltip set
        #: with setToolTip was cleared by the first value shown: the twenty-first tour hovered
        #: an achievable fraction of 0.78 and read nothing)
        self.hint = ""
        self.setPlaceholderText(_("not supported") if allow_empty else "")
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

    def setToolTip(self, text: str) -> None:  # noqa: N802 (Qt API)
        """What the field is: kept, and shown where no error is (with the exact value)."""
        self.hint = text
        self._show_tip()

    def _show_tip(self) -> None:
        exact = _("exactly {value}").format(value=self._exact) if self._exact else ""
        super().setToolTip(fitted_tip(self.error) or fitted_tip(
            "\n".join(filter(None, (exact, self.hint)))))

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
        # the text is the document's now, not typing of its own (Enter left it "modified"
        # with the same text, and Ctrl+Z then undid the field's typing instead of the step:
        # the tour's kernel batch stayed 8 while its field read 1)
        self.setModified(False)
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
            raise UnitError(_("an achievable fraction is between 0 and 1 (e.g. 0.92)"))
        if self.integer and value != int(value):
            raise UnitError(_("must be a whole number, not {value}").format(value=f"{value:g}"))
        if not self.minimum <= value <= self.maximum:
            # as people write numbers ("1,000,000", not "1e+06": the nineteenth tour)
            raise UnitError((_("must be between {low} and {high}") if math.isfinite(self.maximum)
                             else _("must be at least {low}")).format(
                low=_plain(self.minimum), high=_plain(self.maximum)))
        return value

    def _on_text_edited(self, text: str) -> None:
        try:
            value = self.parse(text)
        except UnitError:
            return  # said when the field is left or Enter is pressed, not mid-typing
        self.sig_value_edited.emit(value)

    def focusOutEvent(self, event) -> None:  # noqa: N802 (Qt API)
        """Leaving a bound field commits a valid value (Qt's editingFinished), else puts the
        held value back."""
        self._focus_out = event.reason()
        try:
            super().focusOutEvent(event)
        finally:
            self._focus_out = None
        if self._left(event.reason()) and self.text() != self._shown:
            self._put_back()

    def _left(self, reason: Qt.FocusReason) -> bool:
        return self.bound and reason not in _STAYING

    def _put_back(self) -> None:
        typed, reason = self.text(), self.error or self._why_not_taken(self.text())
        self.set_value(self._value)
        if reason:
            self.sig_input_refused.emit(typed, reason)

    def _why_not_taken(self, text: str) -> str:
        if self.confirm_empty and not text.strip():
            return _("press Enter in the emptied field to remove it")
        try:
            self.parse(text)
        except UnitError as exc:
            return str(exc)
        return ""

    def _held_on_focus_out(self) -> bool:
        """Focus going away commits no emptied ``confirm_empty`` field (Enter alone does), and
        nothing a bound field being left cannot take (focusOutEvent puts the value back)."""
        if self.confirm_empty and not self.text().strip():
            return True
        return self._left(self._focus_out) and bool(self._why_not_taken(self.text()))

    def _on_editing_finished(self) -> None:
        if self.text() == self._shown:  # left as shown: keep the exact value, not the rounded text
            self._set_error("")
            return
        if self._focus_out is not None and self._held_on_focus_out():
            return
        try:
            value = self.parse(self.text())
        except UnitError as exc:
            self._set_error(str(exc))
            return
        self._set_error("")
        if value != self._value:
            if not self.bound:  # a bound field's value comes back through set_value
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
            self._show_tip()
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
            # in sight: under a field at the scrolled form's bottom it was cut off until the
            # user scrolled (the twentieth tour's "'abc' is not a number…")
            viewport = self.message.parentWidget().parentWidget()
            area = viewport.parentWidget() if viewport is not None else None
            if isinstance(area, QScrollArea):
                area.ensureWidgetVisible(self.message, 0, 2)
        else:
            self.message.hide()


class ChoiceBox(QComboBox):
    """A combo box the mouse wheel changes only once it has the focus: the form scrolls under
    the wheel (fresh-eyes tours moved an operand to the host link, and an L2 to a link, by scrolling
    past them)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        guard_wheel(self)
