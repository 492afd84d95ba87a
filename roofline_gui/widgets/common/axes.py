"""An axis for log-scaled pyqtgraph plots whose ticks read as people write quantities: 1 T,
100 G, 0.1 (the roofline canvas and the workload sweep both use it)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetricsF

from roofline_gui.core.units import format_si


class SIAxis(pg.AxisItem):
    """A log-labelled axis whose ticks read 1 T, 100 G, 0.1 rather than 10¹²."""

    WIDEST_TICK = "100 m"  # decades read 1 m ... 100 P: never more than five characters

    def __init__(self, orientation: str, **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        self.setLogMode(True)
        self.enableAutoSIPrefix(False)  # the tick labels carry the SI prefix themselves
        # Room for the widest tick label from the start, and no resizing to the labels of the
        # moment: pyqtgraph measures tick text while painting, so an axis that grows after a
        # chart's first paint shrinks the plot by a few pixels and every cached layer (30
        # chips of 10,000 markers) is rendered a second time.
        metrics = QFontMetricsF(self.style["tickFont"] or QFont())
        self.textWidth = int(metrics.horizontalAdvance(self.WIDEST_TICK)) + 2
        self.textHeight = int(metrics.height()) + 1
        self.setStyle(autoExpandTextSpace=False, autoReduceTextSpace=False)

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 (pyqtgraph API)
        decades = [abs(v - round(v)) < 1e-6 for v in values]
        out = []
        for v, decade in zip(values, decades, strict=True):
            x = 10 ** float(v) * scale
            # Whole decades only, minor ticks unlabelled to avoid clutter; but a range within one
            # decade (no whole decade in it) labels its ticks, or it would read nothing at all.
            out.append(format_si(x, digits=3).strip() if decade or not any(decades) else "")
        return out
