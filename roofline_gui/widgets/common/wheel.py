"""A wheel turned over a form scrolls the form: a drop-down or a spin box it passes over takes
the wheel only once clicked into (a tour's scroll over the kernel form turned its precision
from int8 to int4, unnoticed)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSpinBox, QComboBox, QWidget


class _WheelGuard(QObject):
    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.Wheel and not watched.hasFocus():
            event.ignore()  # not the field's: Qt passes an ignored wheel on to the scroll area
            return True
        return False


class _ViewportGuard(QObject):
    """A text box's viewport (which gets the wheel) passes it on unless the box has focus."""

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt API)
        box = watched.parentWidget()
        if event.type() == QEvent.Type.Wheel and box is not None and not box.hasFocus():
            event.ignore()
            return True
        return False


_GUARD = _WheelGuard()
_VIEWPORT_GUARD = _ViewportGuard()


def guard_wheel(*widgets: QWidget) -> None:
    """The wheel changes these fields only while they have the focus (a click, or Tab)."""
    for widget in widgets:
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # not focused by the wheel itself
        widget.installEventFilter(_GUARD)


def guard_wheel_in(container: QWidget) -> None:
    """``guard_wheel`` for every drop-down and spin box in ``container``."""
    guard_wheel(*container.findChildren(QComboBox), *container.findChildren(QAbstractSpinBox))


def guard_wheel_box(*boxes: QAbstractScrollArea) -> None:
    """A text box inside a scrolling form scrolls its own text only once clicked into; the
    wheel over it scrolls the form (the kernel form's formulas took fourteen notches of the
    wheel before the form moved on to "batch B": the twentieth tour)."""
    for box in boxes:
        box.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        box.viewport().installEventFilter(_VIEWPORT_GUARD)
