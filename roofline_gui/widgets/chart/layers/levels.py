"""View → Memory levels: the hierarchical roofline. Each kernel that moves bytes through more
than one memory level gets a point at each level's intensity, all at its attainable rate and
joined by a thin line; the limiting level's point is filled (it lies on that level's roof), the
others hollow, drawn over the kernel's main-memory marker where that is not the limit (where it
is, the marker is that filled point). With
Memory levels off, the same for the kernels another level holds (a GEMM fed over PCIe): its
point there and at main memory. Drawn from the scene's ``spec.levels`` (core.display.LevelMarks)
alone."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsItem

from roofline_gui.core.arrays import among, distinct
from roofline_gui.core.chart_scene import ChartScene
from roofline_gui.core.display import earlier_on_point
from roofline_gui.core.i18n import _
from roofline_gui.core.units import MEMORY_ROLES, ROLE_LABELS
from roofline_gui.models.comparison_model import limiter_words
from roofline_gui.widgets.chart.layers.base import ChartLayer
from roofline_gui.widgets.chart.plot_items import CachedScatter, log10

DRAM = MEMORY_ROLES.index("dram")


class LevelPointsLayer(ChartLayer):
    Z = 10.5  # over the kernels' markers (a hollow point covers a marker that does not limit)
    PARTS = frozenset({"spec", "selection"})

    def __init__(self, plot, style, symbol_of: Callable[[int], str]) -> None:
        super().__init__(plot, style)
        self.symbol_of = symbol_of
        # The still points, and the dragged kernel's in a small item of their own: a drag step
        # sets a few points, not thousands (76 ms a step at 1,000 kernels x 8 chips).
        self.lines = self.add(pg.PlotCurveItem(connect="pairs"), self.Z - 0.2)
        # their tooltips on themselves (CachedScatter): on the view box, as pyqtgraph puts
        # them, a roof drawn under the point showed its own (the host link's, over the
        # host-link GEMM's filled point: the 40th tour)
        self.points = self.add(CachedScatter(size=10, hoverable=True, tip=self._tip),
                               pick=self._pick)
        for item in (self.lines, self.points):  # blitted under a drag step's repaint
            item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.moving_lines = self.add(pg.PlotCurveItem(connect="pairs"), self.Z - 0.1)
        self.moving = self.add(CachedScatter(size=10, hoverable=True, tip=self._tip),
                               pick=self._pick)
        self.scene: ChartScene | None = None
        self._drawn: dict[str, tuple | None] = {"still": None, "moving": None}

    def draw(self, scene: ChartScene) -> None:
        self.scene = scene
        marks = scene.spec.levels
        if marks is None or not len(marks):
            for part, points, lines in (("still", self.points, self.lines),
                                        ("moving", self.moving, self.moving_lines)):
                if self._drawn[part] != ():
                    self._drawn[part] = ()
                    points.setData(x=[], y=[])
                    lines.setData(x=np.zeros(0), y=np.zeros(0))
            return
        on = among(marks.chip, scene.chips)
        lifted = scene.comparison.kernel_index.get(scene.selection.lifted)
        moving = on & (marks.kernel == lifted) if lifted is not None else np.zeros_like(on)
        for part, rows, points, lines in (("still", on & ~moving, self.points, self.lines),
                                          ("moving", moving, self.moving, self.moving_lines)):
            key = (scene.chips, *(a[rows].tobytes() for a in (marks.x, marks.y, marks.filled,
                                                             marks.chip, marks.kernel)))
            if key != self._drawn[part]:
                self._drawn[part] = key
                self._fill(scene, marks, rows, points, lines)

    def _fill(self, scene: ChartScene, marks, rows: np.ndarray, points, lines) -> None:
        x, y = log10(marks.x[rows]), log10(marks.y[rows])
        chips, kernels, filled, roles = (marks.chip[rows], marks.kernel[rows], marks.filled[rows],
                                         marks.role[rows])
        if not len(x):
            points.setData(x=[], y=[])
            lines.setData(x=np.zeros(0), y=np.zeros(0))
            return
        # Brushes and pens by (chip, filled), symbols by kernel: made once each, then indexed.
        style, background = self.style, self.style.brush(self.style.background)
        looks = {}
        for c in distinct(chips):
            color = style.chip_color(scene, c)
            looks[c, True] = (style.brush(color), style.pen(style.foreground, 1))
            looks[c, False] = (background, style.pen(color, 2))
        # A filled point at main memory is the kernel's own marker, drawn by the markers layer
        # with the others on its point stacked smaller over it: drawn again here, over them, it
        # hid the article's MLP under its "2 · kept on chip" at 1 op/B (the eleventh tour).
        show = np.flatnonzero(~(filled & (roles == DRAM)))
        pairs = [looks[c, f] for c, f in zip(chips[show].tolist(), filled[show].tolist(),
                                              strict=True)]
        symbols = {k: self.symbol_of(k) for k in distinct(kernels)}
        points.setData(x=x[show], y=y[show], brush=[p[0] for p in pairs],
                       pen=[p[1] for p in pairs],
                       symbol=[symbols[k] for k in kernels[show].tolist()],
                       size=self._stacked_sizes(scene, x[show], y[show], chips[show],
                                                kernels[show]),
                       data=list(zip(kernels[show].tolist(), chips[show].tolist(),
                                     roles[show].tolist(), strict=True)))
        # One thin line per kernel and chip, from its lowest to its highest level's intensity.
        group = kernels.astype(np.int64) * (int(chips.max()) + 1) + chips
        order = np.argsort(group, kind="stable")
        g, xs, ys = group[order], x[order], y[order]
        starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
        lo, hi = np.minimum.reduceat(xs, starts), np.maximum.reduceat(xs, starts)
        seg_x = np.column_stack([lo, hi]).ravel()
        seg_y = np.repeat(ys[starts], 2)
        lines.setData(x=seg_x, y=seg_y, pen=pg.mkPen(QColor(self.style.foreground), width=1,
                                                    style=pg.QtCore.Qt.PenStyle.DotLine))

    #: a point's size (px), and how much smaller for each point drawn beneath it (as the
    #: markers' layer), up to this many points (more: one size, drawn fast)
    SIZE, STACK_STEP, SMALLEST, STACKED_UP_TO = 10.0, 5.0, 3.0, 20_000

    def _stacked_sizes(self, scene: ChartScene, x, y, chips, kernels):
        """Each point's size: smaller by STACK_STEP for each point drawn beneath it on the same
        spot (an earlier chip's in the chart's order, then an earlier kernel's), so the one
        beneath shows as a ring: a what-if copy's host-link triangles had hidden TPU v3's
        exactly, where the markers' layer nested them (the 37th tour)."""
        if len(x) < 2 or len(x) > self.STACKED_UP_TO:
            return self.SIZE
        rank = {c: i for i, c in enumerate(scene.chips)}
        order = np.lexsort((kernels, np.array([rank.get(int(c), 0) for c in chips])))
        beneath = np.empty(len(x))
        beneath[order] = earlier_on_point(x[order], y[order])
        if not beneath.any():
            return self.SIZE
        return np.maximum(self.SIZE - self.STACK_STEP * beneath, self.SMALLEST)

    def _pick(self, data) -> tuple[str, str] | None:
        """A point per level stands for its kernel on its chip."""
        cmp = None if self.scene is None else self.scene.comparison
        if cmp is None or data is None:
            return None
        k, c = int(data[0]), int(data[1])
        return cmp.kernels[k].id, cmp.chips[c].id

    def spots(self) -> tuple[np.ndarray, np.ndarray, list]:
        """(log10 x, log10 y, (kernel, chip, role) of each) as drawn, the still points and the
        dragged kernel's: what the chart shows."""
        xs, ys, data = [], [], []
        for item in (self.points, self.moving):
            x, y = item.getData()
            xs.append(np.asarray(x, dtype=float))
            ys.append(np.asarray(y, dtype=float))
            data += list(item.data["data"])
        return np.concatenate(xs), np.concatenate(ys), data

    def brush_of(self, spot: tuple) -> QColor:
        """The fill a (kernel, chip, role) point is drawn with."""
        for item in (self.points, self.moving):
            data = list(item.data["data"])
            if spot in data:
                return item.data["brush"][data.index(spot)].color()
        raise KeyError(spot)

    def _tip(self, x, y, data) -> str:
        scene = self.scene
        if scene is None or data is None:
            return ""
        k, c, role = data
        if role == DRAM:  # drawn over the kernel's marker: the marker's tooltip, which says more
            return ""
        cmp, units = scene.comparison, scene.spec.units
        name = next((lv.name for lv in cmp.chips[c].memory if lv.role == MEMORY_ROLES[role]), "")
        return _("{kernel} on {chip}\nat {level} ({role}): {intensity}\nattainable {rate}, "
                 "limited by {limiter}").format(
            kernel=cmp.kernels[k].name, chip=cmp.chips[c].name, level=name,
            role=_(ROLE_LABELS[MEMORY_ROLES[role]]),
            intensity=units.format_intensity(10 ** float(x)),
            rate=units.format_rate(float(cmp.result.attainable[k, c])),
            limiter=limiter_words(cmp, k, c))
