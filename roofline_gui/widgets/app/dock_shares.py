"""Docks keep their share of the window when the window is resized.

QMainWindow gives every change of the window's size to the central widget: a window made
smaller squeezes the chart until the docks must give way, and made larger again it gives all the
room back to the chart, so the panels end up narrower than they started. This filter keeps each
dock's share of the window's width or height instead, so resizing back restores the proportions.

The shares are read at the start of each resize, from the docks' sizes before the layout moves
them (an object's event filter runs before its layout handles the resize), so a separator the
user dragged is kept too. A dock still at the size the last resize left it keeps its earlier
share: a dock held at its minimum size in a small window gets its share back when the window
grows again.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QTabBar

Horizontal, Vertical = Qt.Orientation.Horizontal, Qt.Orientation.Vertical


class DockShares(QObject):
    def __init__(self, window: QMainWindow, left: list[QDockWidget], bottom: list[QDockWidget]) -> None:
        super().__init__(window)
        self.window, self.left, self.bottom = window, left, bottom
        self._shares: tuple | None = None
        self._left_at: dict[QDockWidget, tuple[int, int]] = {}  # each dock's size after the last apply
        self._apply = QTimer(self)
        self._apply.setSingleShot(True)
        self._apply.timeout.connect(self.apply)
        #: off while a saved layout is put back: the window then goes from its normal size to
        #: its saved (often maximised) one, and scaling the restored docks by that step grew
        #: them at every start (the hardware dock 506 -> 539 px in five restarts at 1280 x 800)
        self.holding = False
        window.installEventFilter(self)

    def hold_next_resize(self, ms: int = 1000) -> None:
        """Leave the docks as they are through the window's next resize (a restored window
        going to its saved maximised size), or for ``ms`` if none comes."""
        self.holding = True
        QTimer.singleShot(ms, self, self._release)

    def _release(self) -> None:
        self.holding = False
        self._shares = None

    @staticmethod
    def _docked(docks: list[QDockWidget]) -> list[QDockWidget]:
        """The docks shown in place: of tabbed ones, the tab in front (a tab behind it keeps the
        size it had when it was last in front, and measuring it scaled the docks wrongly: the
        bottom panels shrank when the window was maximised with the breakdown in front)."""
        return [d for d in docks if d.isVisible() and not d.isFloating()
                and not d.visibleRegion().isEmpty()]

    def shares(self, width: int, height: int) -> tuple:
        """(left dock's width share, bottom docks' width shares, bottom height share)."""
        left = self._docked(self.left)[:1]  # tabified docks share one place
        bottom = self._docked(self.bottom)
        return (self._share(left, width, 0), self._share(bottom, width, 0),
                self._share(bottom[:1], height, 1))

    def _share(self, docks: list[QDockWidget], extent: int, axis: int) -> list[tuple[QDockWidget, float]]:
        earlier = dict(self._shares[0] + self._shares[1]) if axis == 0 and self._shares else {}
        if axis == 1 and self._shares:
            earlier = dict(self._shares[2])
        out = []
        for dock in docks:
            size = dock.size().toTuple()[axis]
            unmoved = dock in earlier and dock in self._left_at and self._left_at[dock][axis] == size
            out.append((dock, earlier[dock] if unmoved else size / extent))
        return out

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt API)
        if watched is self.window and event.type() == QEvent.Type.Resize and self.holding:
            self._release()  # this one was the restore's, not the user's
            return False
        if watched is self.window and event.type() == QEvent.Type.Resize:
            old = event.oldSize()
            if old.isValid() and old.width() > 0 and old.height() > 0 and self.window.isVisible():
                if not self._apply.isActive():  # a burst of resizes keeps the shares of its start
                    self._shares = self.shares(old.width(), old.height())
                self._apply.start(0)
        return False

    def apply(self) -> None:
        if self._shares is None:
            return
        width, height = self.window.width(), self.window.height()
        left, across, down = self._shares
        for docks, orientation, extent in ((left, Horizontal, width), (across, Horizontal, width),
                                           (down, Vertical, height)):
            docks = [(d, s) for d, s in docks if d.isVisible() and not d.isFloating()]
            if docks:
                sizes = [max(1, round(s * extent)) + (self.tab_bar(d) if orientation == Vertical
                                                      else 0) for d, s in docks]
                self.window.resizeDocks([d for d, _ in docks], sizes, orientation)
        QTimer.singleShot(0, self, self._note_sizes)

    def tab_bar(self, dock: QDockWidget) -> int:
        """The height of the tab bar under a tabified dock: resizeDocks sizes the dock area,
        tab bar included, where the share was read from the dock alone."""
        if not self.window.tabifiedDockWidgets(dock):
            return 0
        for bar in self.window.findChildren(QTabBar):
            if bar.isVisible() and dock.windowTitle() in {bar.tabText(i) for i in range(bar.count())}:
                return bar.height()
        return 0

    def _note_sizes(self) -> None:
        self._left_at = {d: d.size().toTuple() for d in self.left + self.bottom}

