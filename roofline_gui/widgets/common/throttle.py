"""Follow a fast stream of changes (a drag's 60 edits a second) at a slower pace."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer


class Throttle(QObject):
    """Calls ``slot`` at most once every ``ms``: the first ``request`` starts the wait, and
    every request until it ends is served by that one call. A view whose refresh costs more
    than a drag step can afford (a breakdown's plots, an explanation that evaluates variants)
    follows the drag this way without slowing it."""

    def __init__(self, parent: QObject, slot: Callable[[], None], ms: int = 40) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(ms)
        self._timer.timeout.connect(slot)

    def request(self) -> None:
        if not self._timer.isActive():
            self._timer.start()

    @property
    def pending(self) -> bool:
        """Whether a requested call is still to come."""
        return self._timer.isActive()
