"""The drag protocol shared by the draggable items of the charts."""

from __future__ import annotations

from PySide6.QtCore import Qt


def drag_target(item, ev, pick):
    """The left-button drag protocol of the chart's draggable items (markers, roofs, the design
    space's dots): at the drag's start ``pick(position)`` names what it moves; a drag that
    starts on nothing (or with another button) is left to the view, which pans. Returns what
    the drag moves, or None; kept on the item until the drag finishes."""
    if ev.button() != Qt.MouseButton.LeftButton:
        ev.ignore()
        return None
    if ev.isStart():
        item._drag_target = pick(ev.buttonDownPos())
    target = getattr(item, "_drag_target", None)
    if target is None:
        ev.ignore()
        return None
    ev.accept()
    if ev.isFinish():
        item._drag_target = None
    return target
