"""What every layer of the chart shares: its items' life cycle and the pens and brushes."""

from __future__ import annotations

from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtGui import QBrush, QColor, QPen

from roofline_gui.core.chart_scene import ChartScene


class Style:
    """The chart's colours, and its pens and brushes made once per colour: pyqtgraph's symbol
    atlas keys a marker style by the identity of its pen and brush objects, so a new QPen per
    redraw rendered the symbol again and grew the atlas each time. Shared by the layers."""

    def __init__(self, foreground: str, background: str) -> None:
        self.foreground, self.background = foreground, background
        self._brushes: dict[str, QBrush] = {}
        self._pens: dict[tuple[str, float], QPen] = {}

    def brush(self, color: QColor | str) -> QBrush:
        key = QColor(color).name(QColor.NameFormat.HexArgb)
        if key not in self._brushes:
            self._brushes[key] = pg.mkBrush(QColor(color))
        return self._brushes[key]

    def pen(self, color: QColor | str, width: float) -> QPen:
        key = (QColor(color).name(QColor.NameFormat.HexArgb), width)
        if key not in self._pens:
            self._pens[key] = pg.mkPen(QColor(color), width=width)
        return self._pens[key]

    @staticmethod
    def chip_color(scene: ChartScene, c: int) -> QColor:
        return QColor(scene.comparison.chips[c].color or "#808080")


class ChartLayer:
    """A layer: its items are made once (or as the scene needs them) and added to the plot
    with ``ignoreBounds`` (the range is set from the scene, never from the items); ``draw``
    pushes the scene's whole state to them and is safe to call at any time; ``update`` draws
    only when a part the layer shows changed (``PARTS``, see core.chart_scene.changed_parts)."""

    Z = 0.0
    PARTS: frozenset[str] = frozenset()

    def __init__(self, plot: pg.PlotItem, style: Style) -> None:
        self.plot, self.style = plot, style
        self.items: list = []
        #: (item, pick): the point items whose spots stand for a kernel (or a workload) on a
        #: chip; ``pick(spot data)`` gives (its id, its chip's id or None: the selected chip)
        self.pickers: list[tuple[pg.ScatterPlotItem, Callable[[object], tuple | None]]] = []
        #: set by the chart: called with a click on any point item of this layer. A click is
        #: taken by the topmost item with a spot under the pointer (a selection ring, a point
        #: per memory level, a marker), so the chart then picks, across every layer, the spot
        #: nearest the pointer: one hit test for all of them.
        self.on_click: Callable[[object], None] | None = None

    def add(self, item, z: float | None = None, pick: Callable[[object], tuple | None] | None = None):
        """Add ``item`` to the plot above the view box; z set after adding (``addItem`` raises
        a lower z to the view box's). A point item's clicks go to the chart's one hit test;
        ``pick`` says what its spots stand for."""
        self.plot.addItem(item, ignoreBounds=True)
        item.setZValue(self.Z if z is None else z)
        self.items.append(item)
        if isinstance(item, pg.ScatterPlotItem):
            item.sigClicked.connect(lambda _item, _spots, ev: self.on_click and self.on_click(ev))
            if pick is not None:
                self.pickers.append((item, pick))
        return item

    def remove(self, item) -> None:
        self.plot.removeItem(item)
        self.items.remove(item)
        self.pickers = [(i, p) for i, p in self.pickers if i is not item]

    def draw(self, scene: ChartScene) -> None:
        raise NotImplementedError

    def update(self, scene: ChartScene, changed: frozenset[str]) -> None:
        if changed & self.PARTS:
            self.draw(scene)

    def set_exporting(self, exporting: bool) -> None:
        """Before an export (True) and after it: hide what is only for the screen."""

    def close(self) -> None:
        for item in list(self.items):
            self.remove(item)


class HidesMovingChip:
    """Mixed into a layer of roofs' labels (before ChartLayer): while a chip's roof is dragged
    its own labels are hidden (they hold still during the drag and would name the old value)
    and come back, with the new value, on release."""

    def __init__(self, plot: pg.PlotItem, style: Style) -> None:
        super().__init__(plot, style)
        self._moving: int | None = None

    def update(self, scene: ChartScene, changed: frozenset[str]) -> None:
        moving = scene.moving_chip
        if changed & self.PARTS or moving != self._moving:
            self._moving = moving
            self.draw(scene)

    @staticmethod
    def still(labels: tuple, scene: ChartScene) -> tuple:
        """``labels`` but those naming the chip whose roof is being dragged."""
        moving = scene.moving_chip
        return tuple(lb for lb in labels if moving is None or moving not in lb.chips)
