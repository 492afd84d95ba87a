"""A wheel turned over a form scrolls the form: a drop-down or a spin box it passes over takes
the wheel only once clicked into (a tour's scroll over the kernel form turned its precision
from int8 to int4, unnoticed)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QWidget


class _WheelGuard(QObject):
    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.Wheel and not watched.hasFocus():
            event.ignore()  # not the field's: Qt passes an ignored wheel on to the scroll area
            return True
        return False


_GUARD = _WheelGuard()


def guard_wheel(*widgets: QWidget) -> None:
    """The wheel changes these fields only while they have the focus (a click, or Tab)."""
    for widget in widgets:
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # not focused by the wheel itself
        widget.installEventFilter(_GUARD)


def guard_wheel_in(container: QWidget) -> None:
    """``guard_wheel`` for every drop-down and spin box in ``container``."""
    guard_wheel(*container.findChildren(QComboBox), *container.findChildren(QAbstractSpinBox))
