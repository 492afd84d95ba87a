"""View → Memory levels: the hierarchical roofline. Each kernel that moves bytes through more
than one memory level gets a point at each level's intensity, all at its attainable rate and
joined by a thin line; the limiting level's point is filled (it lies on that level's roof), the
others hollow, drawn over the kernel's main-memory marker where that is not the limit. Drawn
from the scene's ``spec.levels`` (core.display.LevelMarks) alone."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor

from roofline_gui.core.chart_scene import ChartScene
from roofline_gui.core.units import MEMORY_ROLES, ROLE_LABELS
from roofline_gui.widgets.chart.layers.base import ChartLayer
from roofline_gui.widgets.chart.plot_items import log10


class LevelPointsLayer(ChartLayer):
    Z = 10.5  # over the kernels' markers (a hollow point covers a marker that does not limit)
    PARTS = frozenset({"spec"})

    def __init__(self, plot, style, symbol_of: Callable[[int], str]) -> None:
        super().__init__(plot, style)
        self.symbol_of = symbol_of
        self.lines = self.add(pg.PlotCurveItem(connect="pairs"), self.Z - 0.2)
        self.points = self.add(pg.ScatterPlotItem(size=10, hoverable=True, tip=self._tip))
        self.scene: ChartScene | None = None
        self._drawn: tuple | None = None

    def draw(self, scene: ChartScene) -> None:
        self.scene = scene
        marks = scene.spec.levels
        key = None if marks is None else (marks.x.tobytes(), marks.y.tobytes(),
                                          marks.filled.tobytes(), marks.chip.tobytes(),
                                          marks.kernel.tobytes(), scene.chips)
        if key == self._drawn:
            return
        self._drawn = key
        if marks is None or not len(marks):
            self.points.setData(x=[], y=[])
            self.lines.setData(x=np.zeros(0), y=np.zeros(0))
            return
        on = np.isin(marks.chip, scene.chips)
        x, y = log10(marks.x[on]), log10(marks.y[on])
        chips, kernels, filled = marks.chip[on], marks.kernel[on], marks.filled[on]
        roles = marks.role[on]
        background = self.style.brush(self.style.background)
        brushes, pens = [], []
        for c, full in zip(chips.tolist(), filled.tolist(), strict=True):
            color = self.style.chip_color(scene, c)
            brushes.append(self.style.brush(color) if full else background)
            pens.append(self.style.pen(self.style.foreground if full else color, 1 if full else 2))
        self.points.setData(x=x, y=y, brush=brushes, pen=pens,
                            symbol=[self.symbol_of(k) for k in kernels.tolist()],
                            data=list(zip(kernels.tolist(), chips.tolist(), roles.tolist(),
                                          strict=True)))
        # One thin line per kernel and chip, from its lowest to its highest level's intensity.
        seg_x, seg_y = [], []
        pairs = kernels * (max(scene.chips, default=0) + 1) + chips
        for pair in np.unique(pairs):
            sel = pairs == pair
            seg_x += [x[sel].min(), x[sel].max()]
            seg_y += [y[sel][0], y[sel][0]]
        self.lines.setData(x=np.array(seg_x), y=np.array(seg_y),
                           pen=pg.mkPen(QColor(self.style.foreground), width=1,
                                        style=pg.QtCore.Qt.PenStyle.DotLine))

    def spots(self) -> tuple[np.ndarray, np.ndarray, list]:
        """(log10 x, log10 y, (kernel, chip, role) of each) as drawn: what the chart shows."""
        x, y = self.points.getData()
        return np.asarray(x), np.asarray(y), list(self.points.data["data"])

    def _tip(self, x, y, data) -> str:
        scene = self.scene
        if scene is None or data is None:
            return ""
        k, c, role = data
        cmp, units = scene.comparison, scene.spec.units
        name = next((lv.name for lv in cmp.chips[c].memory if lv.role == MEMORY_ROLES[role]), "")
        limits = cmp.limiter_name(k, c)
        return (f"{cmp.kernels[k].name} on {cmp.chips[c].name}\n"
                f"at {name} ({ROLE_LABELS[MEMORY_ROLES[role]]}): "
                f"{units.format_intensity(10 ** float(x))}\n"
                f"attainable {units.format_rate(float(cmp.result.attainable[k, c]))}, "
                f"limited by {limits}")
