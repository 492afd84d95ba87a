"""Follow a fast stream of changes (a drag's 60 edits a second) at a slower pace."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer


class Throttle(QObject):
    """Calls ``slot`` at most once every ``ms``: the first ``request`` starts the wait, and
    every request until it ends is served by that one call. A view whose refresh costs more
    than a drag step can afford (a breakdown's plots, an explanation that evaluates variants)
    follows the drag this way without slowing it.

    The views a drag step touches all request at once, so their waits would end together and
    one step would carry every refresh (three side panels: about 14 ms on a 2-core Intel host,
    over the 16 ms a step may take). A call that comes due within ``SPREAD_MS`` of another
    throttled call waits that long again, so the refreshes fall on successive steps."""

    SPREAD_MS = 8
    _last_call = -1.0  # perf_counter of the last throttled call, any instance

    def __init__(self, parent: QObject, slot: Callable[[], None], ms: int = 40) -> None:
        super().__init__(parent)
        self._slot = slot
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(ms)
        self._timer.timeout.connect(self._due)
        self._ms = ms

    def request(self) -> None:
        if not self._timer.isActive():
            self._timer.start(self._ms)

    def _due(self) -> None:
        now = time.perf_counter()
        if (now - Throttle._last_call) * 1e3 < self.SPREAD_MS:
            self._timer.start(self.SPREAD_MS)  # another view refreshed this turn: the next one
            return
        Throttle._last_call = now
        self._slot()
        Throttle._last_call = time.perf_counter()

    @property
    def pending(self) -> bool:
        """Whether a requested call is still to come."""
        return self._timer.isActive()
