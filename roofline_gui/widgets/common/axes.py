"""An axis for log-scaled pyqtgraph plots whose ticks read as people write quantities: 1 T,
100 G, 0.1 (the roofline canvas and the workload sweep both use it)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPen
from PySide6.QtWidgets import QGraphicsItem

from roofline_gui.core.units import format_si


class SIAxis(pg.AxisItem):
    """A log-labelled axis whose ticks read 1 T, 100 G, 0.1 rather than 10¹²."""

    WIDEST_TICK = "100 m"  # decades read 1 m ... 100 P: never more than five characters

    def __init__(self, orientation: str, background: str | None = None, **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        #: the chart's background: translucent ticks and grid lines are drawn in the opaque
        #: colour they make on it (None: as pyqtgraph draws them)
        self.background = pg.mkColor(background) if background else None
        #: ticks read 1/x (an intensity axis read as bytes per op, B/F): the same positions,
        #: each decade's label its inverse, so the roofs and markers stay where they are
        self.inverted = False
        self.setLogMode(True)
        self.enableAutoSIPrefix(False)  # the tick labels carry the SI prefix themselves
        # Room for the widest tick label from the start, and no resizing to the labels of the
        # moment: pyqtgraph measures tick text while painting, so an axis that grows after a
        # chart's first paint shrinks the plot by a few pixels and every cached layer (30
        # chips of 10,000 markers) is rendered a second time.
        metrics = QFontMetricsF(self.style["tickFont"] or QFont())
        self.textWidth = int(metrics.horizontalAdvance(self.WIDEST_TICK)) + 2
        self.textHeight = int(metrics.height()) + 1
        # (the room itself, not pyqtgraph's 30 px: an untitled axis in a grid of charts was
        # too narrow for "100T", and dropped it)
        self.setStyle(autoExpandTextSpace=False, autoReduceTextSpace=False,
                      tickTextWidth=self.textWidth, tickTextHeight=self.textHeight)
        # Repaints of the plot (a roof's drag repaints all of it at each step) blit the axis
        # from an image instead of replaying its recorded picture (0.4 ms an axis).
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def setLabel(self, *args, **kwargs) -> None:  # noqa: N802 (pyqtgraph API)
        """pyqtgraph's, and the title centred again: pyqtgraph centres it only when the axis is
        resized, so a longer title set on an axis of the same size started where the shorter
        one had and ran past the chart's right edge ("…×, dashed: does": the eighteenth tour)."""
        super().setLabel(*args, **kwargs)
        self.resizeEvent()

    def generateDrawSpecs(self, p):  # noqa: N802 (pyqtgraph API)
        """pyqtgraph's ticks and grid lines, each in the opaque colour its translucent one
        makes on the white background of the side charts: Qt's raster engine blends translucent
        lines pixel by pixel, so a grid redrawn after the range moved took 8 of the 14 ms of
        the Serving view's repaint; opaque, it paints as plain spans."""
        specs = super().generateDrawSpecs(p)
        if specs is None or self.background is None:
            return specs
        bg = self.background
        axis, ticks, texts = specs
        solid = []
        for pen, a, b in ticks:
            color = pen.color()
            if color.alpha() < 255:
                share = color.alphaF()
                pen = QPen(pen)
                pen.setColor(QColor(*(round(share * x + (1 - share) * y) for x, y in (
                    (color.red(), bg.red()), (color.green(), bg.green()),
                    (color.blue(), bg.blue())))))
            solid.append((pen, a, b))
        return axis, solid, texts

    def set_inverted(self, inverted: bool) -> None:
        if inverted != self.inverted:
            self.inverted = inverted
            self.picture = None  # the labels drawn again
            self.update()

    def _decade_step(self) -> int:
        """Every how many decades a label goes: 1, or on a short axis 2, 3…, so the labels
        keep an even step with a label's room between them (pyqtgraph dropped the labels that
        would touch, and "1P, 10T, 1T, 10G" read as uneven decades: the tour)."""
        vertical = self.orientation in ("left", "right")
        length = self.height() if vertical else self.width()
        span = (self.range[1] - self.range[0]) if self.range else 0.0
        if length <= 0 or span <= 0:
            return 1
        per_decade = length / span
        need = 2 * self.textHeight if vertical else self.textWidth + 10
        return next((n for n in (1, 2, 3, 4, 5, 10) if n * per_decade >= need), 10)

    def logTickValues(self, minVal, maxVal, size, stdTicks):  # noqa: N802, N803 (pyqtgraph API)
        """Whole decades in two levels, the labelled ones (every _decade_step-th) first, then
        the others, then the 2 to 9 of each decade: no value in two levels (pyqtgraph's own
        repeated the decades among the minor ticks, and dropped a label it had drawn twice)."""
        ticks = super().logTickValues(minVal, maxVal, size, stdTicks)
        lo, hi = int(np.ceil(minVal - 1e-9)), int(np.floor(maxVal + 1e-9))
        if not ticks or ticks[-1][0] is not None or hi - lo < 2:  # zoomed in: pyqtgraph's
            return ticks
        step = self._decade_step()
        decades = [float(v) for v in range(lo, hi + 1)]
        levels = [(float(step), [v for v in decades if round(v) % step == 0])]
        rest = [v for v in decades if round(v) % step != 0]
        if rest:
            levels.append((1.0, rest))
        return levels + [(None, [v for v in ticks[-1][1] if abs(v - round(v)) > 1e-6])]

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 (pyqtgraph API)
        decades = [abs(v - round(v)) < 1e-6 for v in values]
        # how many whole decades the view shows (each tick level is asked apart: the minor
        # ticks' holds none, and read as a view within a decade it labelled its 2s and 5s)
        in_view = sum(decades)
        lo, hi = (self.range or (0.0, 0.0))[:2]
        if hi > lo and all(lo - 1e-6 <= v <= hi + 1e-6 for v in values):  # the axis's range
            in_view = int(np.floor(self.range[1] + 1e-9) - np.ceil(self.range[0] - 1e-9) + 1)
        # Whole decades only, minor ticks unlabelled to avoid clutter; but a view of less than
        # three decades (zoomed in) also labels the 2s and 5s, and one within a decade every
        # tick, or it would read a single number, or nothing at all.
        few = in_view < 3
        # within a decade, the 2 and the 5 where both are in view (all eight ticks, 2 to 9,
        # printed over each other on a short axis), else every tick
        mantissas = {round(10 ** (float(v) - np.floor(float(v) + 1e-9)), 6) for v in values}
        round_ones = {2.0, 5.0} <= mantissas and len(values) > 4
        step = self._decade_step()
        out = []
        for v, decade in zip(values, decades, strict=True):
            x = 10 ** (-float(v) if self.inverted else float(v)) * scale
            mantissa = round(10 ** (float(v) - np.floor(float(v) + 1e-9)), 6)
            if self.inverted and not decade:  # 2 and 5 of a decade read 0.5 and 0.2 of one
                mantissa = round(10 / mantissa, 6)
            shown = (decade and round(float(v)) % step == 0) or (few and mantissa in (2.0, 5.0)) or (
                in_view == 0 and (not round_ones or mantissa in (2.0, 5.0)))
            out.append(format_si(x, digits=3).strip() if shown else "")
        return out


def log_plot() -> pg.PlotWidget:
    """A small log-log chart as the side views draw them (the design space, the batch sweep,
    the energy chart): white, SI-labelled decades, no context menu or auto-range button."""
    plot = pg.PlotWidget(background="w", axisItems={"left": SIAxis("left", "w"),
                                                    "bottom": SIAxis("bottom", "w")})
    plot.setMenuEnabled(False)
    plot.getPlotItem().hideButtons()
    # the data (and a legend) over the axes' grid lines, which pyqtgraph stacks above them
    plot.getPlotItem().getViewBox().setZValue(1)
    plot.setLogMode(True, True)
    # room above the top tick's label, half of which the chart's edge cut ("100T" in the design
    # space at 1280 x 800: the tour)
    plot.getPlotItem().setContentsMargins(0, 8, 4, 0)
    return plot


class Ring(pg.ScatterPlotItem):
    """Rings drawn round selected points, which let clicks through to the points under them
    (a ScatterPlotItem takes a click on its spots even when nothing is connected to it)."""

    def mouseClickEvent(self, ev) -> None:  # noqa: N802 (pyqtgraph API)
        ev.ignore()


def longest_fitting(forms: tuple[str, ...], unit: str, room: float) -> int:
    """The index of the longest of an axis title's ``forms`` (longest first, {unit} to fill in)
    that fits ``room`` pixels, else the last: a chart's side, or a grid's."""
    metrics = QFontMetricsF(QFont())
    return next((i for i, title in enumerate(forms)
                 if metrics.horizontalAdvance(title.format(unit=unit)) + 16 <= room),
                len(forms) - 1)


class BottomTitle:
    """A plot's x title in the longest of its forms (longest first) that fits the axis, again at
    each resize (a small chart cut "(hollow: link-bound" at its edge: the fifth tour)."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        self.forms: tuple[str, ...] = ("",)
        plot.getViewBox().sigResized.connect(self.fit)

    def set(self, forms: tuple[str, ...]) -> None:
        self.forms = forms
        self.fit()

    #: pixels the title may want beyond its measure: pyqtgraph draws it a little right of the
    #: view's middle, and at the measure's edge it lost its last ")" (the thirteenth tour)
    SLACK = 24.0

    def fit(self, *_args) -> None:
        room = self.plot.getViewBox().width() - self.SLACK
        text = self.forms[longest_fitting(self.forms, "", room)]
        if self.plot.getAxis("bottom").labelText != text:
            self.plot.setLabel("bottom", text)
