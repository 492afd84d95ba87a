"""Select all and Copy belong to a text that has the focus: the window's Edit → Select All
Kernels (Ctrl+A) took them from read-only texts (Why it sits there, a kernel's formula, a
workload's formulas, a chip's notes), and Ctrl+C then copied a kernel's name (a tour)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QWidget


class _TextKeys(QObject):
    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.ShortcutOverride and (
                event.matches(QKeySequence.StandardKey.SelectAll)
                or event.matches(QKeySequence.StandardKey.Copy)):
            event.accept()  # the text's own: the key press goes to it, not to the window
            return True
        return False


_KEYS = _TextKeys()


def keep_text_keys(*widgets: QWidget) -> None:
    """Ctrl+A and Ctrl+C select and copy these texts while they have the focus."""
    for widget in widgets:
        widget.installEventFilter(_KEYS)
