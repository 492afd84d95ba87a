"""Helpers for synthesizing drag-and-drop and mouse events in widget tests."""

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


def drag_event(cls, pos: QPointF, mime):
    """A drag event at ``pos``: the QPointF constructor where the binding has it (PySide6 6.12
    deprecates the QPoint one), else the QPoint one (6.11 and older only have that)."""
    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    try:
        return cls(QPointF(pos), *args)
    except TypeError:
        return cls(QPoint(int(pos.x()), int(pos.y())), *args)


def drop_on(widget, mime, pos: QPointF) -> bool:
    """Enter, move and drop ``mime`` on ``widget`` at ``pos``; True when the drop was accepted."""
    enter = drag_event(QDragEnterEvent, pos, mime)
    QApplication.sendEvent(widget, enter)
    if not enter.isAccepted():
        return False
    move = drag_event(QDragMoveEvent, pos, mime)
    QApplication.sendEvent(widget, move)
    drop = drag_event(QDropEvent, pos, mime)
    QApplication.sendEvent(widget, drop)
    return drop.isAccepted()


def mouse(widget, kind, pos: QPointF, buttons=Qt.MouseButton.LeftButton,
          modifiers=Qt.KeyboardModifier.NoModifier):
    button = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseMove else Qt.MouseButton.LeftButton
    global_pos = QPointF(widget.mapToGlobal(pos.toPoint()))
    event = QMouseEvent(kind, QPointF(pos), global_pos, button, buttons, modifiers)
    QApplication.sendEvent(widget, event)


def drag_mouse(widget, start: QPointF, end: QPointF, steps: int = 8,
               modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    """Press at ``start``, move in steps to ``end`` with the button (and ``modifiers``) held,
    release."""
    mouse(widget, QEvent.Type.MouseButtonPress, start, modifiers=modifiers)
    for i in range(1, steps + 1):
        p = start + (end - start) * (i / steps)
        mouse(widget, QEvent.Type.MouseMove, p, modifiers=modifiers)
        QApplication.processEvents()
        QTest.qWait(20)  # pyqtgraph drops mouse moves closer together than its rate limit
    mouse(widget, QEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton, modifiers)
    QApplication.processEvents()
