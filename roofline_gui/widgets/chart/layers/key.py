"""The key at the chart's right: each peak's label beside where its roof meets the view's right
edge (placed by core.chart_labels.place_peak_key), outside the view, so none covers a line, a
marker or another label however crowded the chart. A label spread from its roof's end (roofs a
few pixels apart) is joined to it by a short elbow in the roof's colour."""

from __future__ import annotations

import math
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from roofline_gui.core.chart_labels import KeyLabel
from roofline_gui.core.chart_scene import ChartScene
from roofline_gui.widgets.chart.layers.base import ChartLayer, HidesMovingChip

TICK = 5.0  # px: the stub each roof's line gets past the view's edge
ELBOW = 12.0  # px from the view's edge to the text: the stub, then a slant to a spread label
MAX_TEXT = 190.0  # px: a longer text (roofs of several chips merged) is elided; its line's
#                   tooltip names it whole
WIDTH_STEP = 16.0  # px: the key's width is a multiple of this
EMPTY = 14.0  # px: the key's width with nothing in it (the last x tick's text reaches past
#               the view's right edge)


class PeakKeyAxis(pg.AxisItem):
    """The chart's right axis, drawn as the peaks' key: no ticks, no values, no drag or wheel
    (an axis of pyqtgraph pans and zooms its view; this one only names the roofs)."""

    def __init__(self) -> None:
        super().__init__("right")
        self.enableAutoSIPrefix(False)  # no title to re-render as rich text at each range change
        self.labels: tuple[KeyLabel, ...] = ()
        self.tips: tuple[str, ...] = ()  # each label's tooltip: its chips and its whole text
        self.wanted = EMPTY  # the width its texts need; the chart sets the width (a grid: the widest)
        self.folded = False  # no room for it (small charts side by side): nothing drawn
        self.setWidth(int(EMPTY))

    def fold(self, folded: bool, width: float) -> None:
        """Folded away (nothing drawn, EMPTY wide: the view takes the room), or shown ``width``
        wide."""
        self.folded = folded
        width = int(EMPTY if folded else width)
        if self.width() != width:
            self.setWidth(width)
        self.update()

    def set_labels(self, labels: tuple[KeyLabel, ...], texts: tuple[str, ...],
                   tips: tuple[str, ...]) -> None:
        """The labels to draw, every text the key may show (its width fits the widest) and each
        label's tooltip."""
        self.labels, self.tips = labels, tips
        metrics = QFontMetricsF(QFont())
        widest = max((metrics.horizontalAdvance(t) for t in texts), default=0.0)
        # in steps of WIDTH_STEP: another precision or Count MACs ("Top/s", "TMAC/s") changed
        # the width by a few pixels, and the whole chart was laid out and drawn again for it
        self.wanted = (math.ceil((ELBOW + min(widest, MAX_TEXT) + 6) / WIDTH_STEP) * WIDTH_STEP
                       if texts else EMPTY)
        self.update()

    def shown_spots(self) -> list[tuple[str, float, float]]:
        """(text, the roof's end, the text's middle) in the axis's pixels (y down), as drawn."""
        view = self.linkedView()
        if view is None:
            return []

        def y_of(value: float) -> float:
            return self.mapFromScene(view.mapViewToScene(QPointF(0.0, value))).y()

        return [(label.text, y_of(label.y), y_of(label.shown_y)) for label in self.labels]

    def paint(self, painter: QPainter, option, widget=None) -> None:
        if not self.labels or self.folded:
            return
        font = widget.font() if widget is not None else QFont()
        painter.setFont(font)
        metrics = QFontMetricsF(font)
        h = metrics.height()
        width = self.width() - ELBOW - 2
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for label, (_text, roof_y, text_y) in zip(self.labels, self.shown_spots(), strict=True):
            color = QColor(label.color)
            painter.setPen(QPen(color, 1.2))
            painter.drawLine(QPointF(0.0, roof_y), QPointF(TICK, roof_y))
            painter.drawLine(QPointF(TICK, roof_y), QPointF(ELBOW - 2, text_y))
            text = self.text_of(label, metrics, width)
            painter.setPen(QPen(color))
            painter.drawText(QRectF(ELBOW, text_y - h / 2, width + 2, h),
                             int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)

    @staticmethod
    def text_of(label: KeyLabel, metrics: QFontMetricsF, width: float) -> str:
        """A label's text as drawn in ``width`` pixels: whole where it fits, else its chips
        counted, not named ("bf16 123 Top/s: 3 chips each"), elided only where that too is wider."""
        text = label.text
        if label.short and metrics.horizontalAdvance(text) > width:
            text = label.short
        return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)

    def drawn_texts(self) -> list[str]:
        """The texts as painted now, top to bottom (for checks)."""
        if not self.labels or self.folded:
            return []
        metrics = QFontMetricsF(QFont())
        return [self.text_of(label, metrics, self.width() - ELBOW - 2) for label in self.labels]

    def tip_at(self, y: float) -> str:
        """The tooltip of the label at ``y`` (the axis's pixels), '' where none is."""
        h = QFontMetricsF(QFont()).height()
        for tip, (_text, _roof, middle) in zip(self.tips, self.shown_spots(), strict=True):
            if abs(y - middle) <= h / 2:
                return tip
        return ""

    def hoverEvent(self, ev) -> None:  # noqa: N802 (pyqtgraph API)
        tip = "" if ev.isExit() else self.tip_at(ev.pos().y())
        if tip != self.toolTip():
            self.setToolTip(tip)

    def mouseDragEvent(self, ev) -> None:  # noqa: N802 (pyqtgraph API)
        ev.ignore()

    def mouseClickEvent(self, ev) -> None:  # noqa: N802 (pyqtgraph API)
        ev.ignore()

    def wheelEvent(self, ev) -> None:  # noqa: N802 (Qt API)
        ev.ignore()


class PeakKeyLayer(HidesMovingChip, ChartLayer):
    """The key's labels from the scene (hidden for a chip whose roof is being dragged)."""

    PARTS = frozenset({"labels"})

    def __init__(self, plot: pg.PlotItem, style) -> None:
        super().__init__(plot, style)
        self.axis = PeakKeyAxis()
        plot.setAxisItems({"right": self.axis})
        plot.showAxis("right")
        #: set by the chart: fits the key's width (a grid gives all its charts the widest)
        self.fit_width: Callable[[], None] = lambda: self.axis.fold(False, self.axis.wanted)

    def draw(self, scene: ChartScene) -> None:
        labels = scene.labels
        shown = self.still(labels.key, scene)
        chips = scene.comparison.chips
        # one chip's label names it in its tooltip (the colour tells it on the chart); a merged
        # one names its chips in its text
        tips = tuple(f"{chips[lb.chips[0]].name}: {lb.text}" if len(lb.chips) == 1 else lb.text
                     for lb in shown)
        self.axis.set_labels(shown, labels.key_texts, tips)
        self.fit_width()

    @property
    def labels(self) -> tuple[KeyLabel, ...]:
        """The labels as drawn, for checks."""
        return self.axis.labels
