"""Texts placed by the core (core.chart_labels): the roofs' and diagonals' labels above every
marker, and the kernels' names beside their markers. Each a layer of one painted item."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QFontMetricsF

from roofline_gui.core.chart_scene import ChartScene
from roofline_gui.widgets.chart.layers.base import ChartLayer, HidesMovingChip
from roofline_gui.widgets.chart.plot_items import RoofLayer


class _TextLayer(ChartLayer):
    PARTS = frozenset({"labels"})

    def __init__(self, plot, style) -> None:
        super().__init__(plot, style)
        self.item = self.add(RoofLayer())
        # A line where a text is (crowded roofs leave no clear spot) passes under it, hidden:
        # at 75 % a thick roof still struck the text through (the tour's "int8 92 Top/s")
        self.item.backdrop = QColor(style.background)

    def texts(self, scene: ChartScene) -> tuple:
        raise NotImplementedError

    def draw(self, scene: ChartScene) -> None:
        self.item.clear()
        texts = self.texts(scene) if scene.labels is not None else ()
        for label in texts:
            self.item.add_label(label.text, label.x, label.y,
                                QColor(label.color or self.style.foreground),
                                anchor=label.anchor, along=label.along, offset=label.offset,
                                stem=label.stem,
                                pieces=tuple((text, QColor(color)) for text, color in label.pieces))
        self.item.finish(reach=self._reach(texts, scene))

    @staticmethod
    def _reach(texts, scene: ChartScene) -> tuple[float, float] | None:
        """How far the texts reach from their points, in decades: the longest text and its
        offset, in the pixels they were placed in (a slanted one may reach as far up)."""
        if not texts:
            return None
        metrics = QFontMetricsF(QFont())
        longest = (max(metrics.horizontalAdvance(t.text) for t in texts) + 40 + metrics.height()
                   + max(abs(c) for t in texts for c in t.offset))  # a name set off its marker
        px = scene.labels.px
        return longest / px[0], longest / px[1]

    @property
    def labels(self):
        """The labels as drawn (plot_items._Label), for checks."""
        return self.item.labels


class RoofLabelsLayer(HidesMovingChip, _TextLayer):
    """The diagonals' labels (the peaks' are in the key: layers.key)."""

    Z = 15.0  # above every marker and point, so none is hidden under one

    def texts(self, scene: ChartScene) -> tuple:
        return self.still(scene.labels.roofs, scene)


class KernelNamesLayer(_TextLayer):
    Z = 12.0

    def texts(self, scene: ChartScene) -> tuple:
        return scene.labels.names

