"""What every layer of the chart shares: its items' life cycle and the pens and brushes."""

from __future__ import annotations

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

    def add(self, item, z: float | None = None):
        """Add ``item`` to the plot above the view box; z set after adding (``addItem`` raises
        a lower z to the view box's)."""
        self.plot.addItem(item, ignoreBounds=True)
        item.setZValue(self.Z if z is None else z)
        self.items.append(item)
        return item

    def remove(self, item) -> None:
        self.plot.removeItem(item)
        self.items.remove(item)

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
