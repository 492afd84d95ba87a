"""Overlays: the kernels' measured points with the gap to their roofs, the selected kernel's
rings and the path it takes as its main parameter sweeps (or the selected workload's as its
batch does), and the kernel being dragged. The only layer besides the workloads' that a drag
step redraws; selection and measurement never touch the markers."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPainterPath

from roofline_gui.core.arrays import among, distinct
from roofline_gui.core.chart_scene import ChartScene
from roofline_gui.core.i18n import _
from roofline_gui.core.roofline import evaluate
from roofline_gui.core.sweep import can_move, sweep
from roofline_gui.core.templates import TEMPLATES
from roofline_gui.core.units import ROLE_INDEX, format_si
from roofline_gui.widgets.chart.layers.base import ChartLayer
from roofline_gui.widgets.chart.plot_items import RoofLayer, log10


def _strike() -> QPainterPath:
    """A diagonal stroke across a marker (pyqtgraph's symbols span -0.5 … 0.5)."""
    path = QPainterPath()
    path.moveTo(-0.5, 0.5)
    path.lineTo(0.5, -0.5)
    return path


class OverlaysLayer(ChartLayer):
    Z = 11.0
    PARTS = frozenset({"spec", "selection", "measured", "workloads"})

    def __init__(self, plot, style, symbol_of, beneath: RoofLayer | None = None) -> None:
        super().__init__(plot, style)
        self.symbol_of = symbol_of  # kernel row -> its marker shape (the markers layer's)
        # The selected item's sweep paths: bands 9 px wide, so antialiased for a few chips only.
        self.paths = self.add(RoofLayer(smooth_lines=8), 8)
        self.paths.beneath = beneath  # hovering the band over a roof names the roof as well
        self.ring = self.add(pg.ScatterPlotItem(size=20, brush=pg.mkBrush(None),
                                                pen=pg.mkPen(style.foreground, width=2)), 11,
                             pick=self._pick_pair)
        self.lifted = self.add(pg.ScatterPlotItem(size=14), 13)
        self.measured = self.add(pg.ScatterPlotItem(size=14, symbol="star", brush=pg.mkBrush(None),
                                                    hoverable=True, tip=self._measured_tip), 12,
                                 pick=self._pick_measured)
        self.gaps = self.add(pg.PlotDataItem(connect="pairs"), 7)
        # Kernels whose operands kept on chip do not fit there: hollow, as a workload that does
        # not fit in memory is drawn.
        self.misfit = self.add(pg.ScatterPlotItem(size=10, hoverable=True, tip=self._misfit_tip),
                               10.8, pick=self._pick_pair)
        # ... and struck through: a hollow point alone means "not the limiting level", as the
        # points per memory level draw it (the tour read both the same)
        self.misfit_strike = self.add(pg.ScatterPlotItem(size=15, symbol=_strike(),
                                                         brush=pg.mkBrush(None)), 10.9)
        self._misfit_drawn: tuple | None = None
        self._path_key: object = ()
        self._ring_at: tuple = ([], [], [], None)
        self._lifted_shown = False
        self.scene: ChartScene | None = None

    def update(self, scene: ChartScene, changed: frozenset[str]) -> None:
        """Each item set only when what it shows changed: setting even an empty scatter item
        again repaints the whole view (30 chips of 10,000 markers) at every drag step."""
        first = self.scene is None
        self.scene = scene
        if first or "measured" in changed:
            self._draw_measured(scene)
        if changed & self.PARTS:
            self._draw_misfits(scene)
            self._draw_ring(scene)
            self._draw_lifted(scene)
            self._draw_path(scene)

    def draw(self, scene: ChartScene) -> None:
        self.scene = scene
        self._draw_misfits(scene)
        self._draw_measured(scene)
        self._draw_ring(scene)
        self._draw_lifted(scene)
        self._draw_path(scene)

    def _draw_path(self, scene: ChartScene) -> None:
        if scene.selection.roof_chip is not None and self._path_key != ():
            return  # held during a roof's drag (8 bands were 4 ms a step), drawn on release
        key = self._key(scene)
        if key != self._path_key:  # a drag of the main parameter keeps its path
            self._path_key = key
            self.paths.clear()
            self._draw_paths(scene)
            self.paths.finish()

    # -- measured points --------------------------------------------------------------------------
    def _draw_measured(self, scene: ChartScene) -> None:
        xs, ys, pens, sizes, data = [], [], [], [], []
        gap_x, gap_y = [], []
        for p in scene.measured:
            x, y = float(np.log10(p.x)), float(np.log10(p.y))
            above = bool(p.above)
            xs.append(x)
            ys.append(y)
            # Above a roof: drawn red, as the table flags it; the explanation says why.
            pens.append(self.style.pen("#d00000" if above else self.style.foreground, 2 if above else 1.5))
            sizes.append(16 if above else 14)
            data.append(p.kernel)
            for roof in p.roofs:
                if np.isfinite(roof) and roof > 0:
                    gap_x += [x, x]
                    gap_y += [y, float(np.log10(roof))]
        self.measured.setData(x=xs, y=ys, pen=pens, size=sizes, data=data, symbol="star",
                              brush=pg.mkBrush(None))
        pen = pg.mkPen(self.style.foreground, width=1, style=Qt.PenStyle.DotLine)
        self.gaps.setData(gap_x, gap_y, pen=pen, connect="pairs")

    def _measured_tip(self, x, y, data) -> str:
        p = next((p for p in self.scene.measured if p.kernel == data), None)
        if p is None:
            return ""
        units = self.scene.spec.units
        text = f"{self.scene.comparison.kernels[p.kernel].name}: measured {format_si(p.y, f'{units.word}/s')}"
        if p.above:
            text += (f"\nABOVE its roof on {', '.join(p.above)}: a figure is wrong (select "
                     "it: the explanation checks the usual causes)")
        if p.outlier:
            text += "\nfar above every roof: left out of the automatic range"
        return text

    # -- kernels whose on-chip operands do not fit --------------------------------------------------
    def _draw_misfits(self, scene: ChartScene) -> None:
        """Vectorised: a drag step compares two small arrays; the item is set only when they
        differ (hundreds of misfits had been rebuilt through Python every step, 20 ms)."""
        spec = scene.spec
        pairs = spec.misfits
        pairs = pairs[among(pairs[:, 1], scene.chips)]
        lifted = scene.comparison.kernel_index.get(scene.selection.lifted)
        if lifted is not None:  # the dragged kernel is drawn apart; its hollow mark on release
            pairs = pairs[pairs[:, 0] != lifted]
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.log10(spec.marker_x[pairs[:, 0]])
            y = np.log10(spec.marker_y[pairs[:, 0], pairs[:, 1]])
        ok = np.isfinite(x) & np.isfinite(y)
        pairs, x, y = pairs[ok], x[ok], y[ok]
        key = (pairs.tobytes(), x.tobytes(), y.tobytes())
        if key == self._misfit_drawn:
            return
        self._misfit_drawn = key
        pens = {c: self.style.pen(self.style.chip_color(scene, c).darker(130), 2)
                for c in distinct(pairs[:, 1])}
        symbols = {k: self.symbol_of(k) for k in distinct(pairs[:, 0])}
        ks, cs = pairs[:, 0].tolist(), pairs[:, 1].tolist()
        self.misfit.setData(x=x, y=y, brush=[self.style.brush(self.style.background)] * len(ks),
                            pen=[pens[c] for c in cs], symbol=[symbols[k] for k in ks],
                            data=list(zip(ks, cs, strict=True)))
        self.misfit_strike.setData(x=x, y=y, pen=[pens[c] for c in cs])

    def _misfit_tip(self, x, y, data) -> str:
        from roofline_gui.core.levels import NO_LEVEL, residency_note, residency_problem  # noqa: PLC0415

        k, c = data
        cmp = self.scene.comparison
        kernel, chip = cmp.kernels[k], cmp.chips[c]
        return (_("{kernel} on {chip}: no on-chip level to keep it in (struck through)\n{note}")
                if residency_problem(kernel, chip) == NO_LEVEL else
                _("{kernel} on {chip}: does not fit (struck through)\n{note}")
                ).format(kernel=kernel.name, chip=chip.name, note=residency_note(kernel, chip))

    # -- the selection ----------------------------------------------------------------------------
    def _selected_spots(self, scene: ChartScene, kernel_id: str | None,
                        at_limit: bool = False) -> tuple[list, list, list]:
        """A kernel's spot on each shown chip: its marker's, or (``at_limit``, the selection's
        ring) its filled point's where another level limits it."""
        k = scene.comparison.kernel_index.get(kernel_id) if kernel_id is not None else None
        if k is None:
            return [], [], []
        at = (scene.spec.at_limit[k] if at_limit else
              np.full(len(scene.comparison.chips), scene.spec.marker_x[k]))
        xs, ys, chips = [], [], []
        for c in scene.chips:
            x, y = float(log10(at[c])), float(log10(scene.spec.marker_y[k, c]))
            if np.isfinite(x) and np.isfinite(y):
                xs.append(x)
                ys.append(y)
                chips.append(c)
        return xs, ys, chips

    def _draw_ring(self, scene: ChartScene) -> None:
        """Rings round the selected kernel on every chip, the selected chip's bold (with only
        rings of one weight the chart did not say which chip was selected: the tour)."""
        xs, ys, chips = self._selected_spots(scene, scene.selection.item, at_limit=True)
        k = scene.comparison.kernel_index.get(scene.selection.item)
        grow = 0  # a workload's big point (17 px) takes a wider ring than a kernel's marker
        if k is None:  # a selected workload: its big points ringed as a kernel's markers are
            # (all four of DeepSeek's looked the same after a click: the thirteenth tour)
            xs, ys, chips, grow = *self._workload_spots(scene, scene.selection.item), 8
        chosen = scene.comparison.chip_index.get(scene.selection.chip)
        if (xs, ys, chips, chosen) != self._ring_at:
            self._ring_at = (xs, ys, chips, chosen)
            bold, thin = self.style.pen(self.style.foreground, 3), self.style.pen(self.style.foreground, 1)
            self.ring.setData(x=xs, y=ys, data=[(k, c) for c in chips],
                              # side by side each chart rings its own chip: only the
                              # selected chip's is bold (every chart's was: the sixth tour)
                              pen=[bold if c == chosen or (chosen is None and len(chips) == 1)
                                   else thin for c in chips],
                              size=[(22 if c == chosen else 18) + grow for c in chips])

    @staticmethod
    def _workload_spots(scene: ChartScene, workload_id: str | None) -> tuple[list, list, list]:
        """A workload's big point on each shown chip (log10 x, y, chip index)."""
        mark = next((m for m in scene.workloads if m.workload_id == workload_id), None)
        if mark is None:
            return [], [], []
        xs, ys, chips = [], [], []
        for j, c in enumerate(scene.chips):
            x, y = float(log10(mark.point_x)), float(log10(mark.point_y[j]))
            if np.isfinite(x) and np.isfinite(y):
                xs.append(x)
                ys.append(y)
                chips.append(c)
        return xs, ys, chips

    def _pick_pair(self, data) -> tuple[str, str] | None:
        """A ring or a hollow mark at (kernel row, chip index) stands for that kernel there."""
        cmp = None if self.scene is None else self.scene.comparison
        if cmp is None or data is None or data[0] is None:
            return None
        return cmp.kernels[int(data[0])].id, cmp.chips[int(data[1])].id

    def _pick_measured(self, data) -> tuple[str, None] | None:
        """A measured point stands for its kernel (on the selected chip)."""
        cmp = None if self.scene is None else self.scene.comparison
        return None if cmp is None or data is None else (cmp.kernels[int(data)].id, None)

    def _draw_lifted(self, scene: ChartScene) -> None:
        """The kernel being dragged, one spot per chip, in one small reused scatter item."""
        xs, ys, chips = self._selected_spots(scene, scene.selection.lifted)
        k = scene.comparison.kernel_index.get(scene.selection.lifted)
        brushes = [self.style.brush(self.style.chip_color(scene, c)) for c in chips]
        if not xs and not self._lifted_shown:
            return  # nothing dragged, and nothing shown: leave the item alone
        self._lifted_shown = bool(xs)
        self.lifted.setData(x=xs, y=ys, brush=brushes, pen=self.style.pen(self.style.foreground, 2),
                            symbol="o" if k is None else self.symbol_of(k))

    def _key(self, scene: ChartScene):
        """What the selected item's path depends on: all of it but its main parameter."""
        chips = tuple(scene.comparison.chips[c] for c in scene.chips)
        sel, units, derated = scene.selection.item, scene.spec.units, scene.comparison.result.derated
        k = scene.comparison.kernel_index.get(sel)
        if k is not None:
            kernel = scene.comparison.kernels[k]
            if kernel.template is None or not can_move(kernel):
                return ("none",)
            main = TEMPLATES[kernel.template].main_param
            return ("kernel", kernel.with_params(**{main: 1}), chips, derated, units)
        r = next((r for r in scene.results if r.workload.id == sel), None)
        if r is None:
            return ("none",)
        return ("workload", replace(r.workload, batch=1), r.chips, chips, derated, units)

    def _draw_paths(self, scene: ChartScene) -> None:
        k = scene.comparison.kernel_index.get(scene.selection.item)
        if k is not None:
            kernel = scene.comparison.kernels[k]
            if kernel.template is not None and can_move(kernel):
                self._draw_kernel_path(scene, k)
            return
        r = next((r for r in scene.results if r.workload.id == scene.selection.item), None)
        if r is not None and scene.chips:
            self._draw_workload_path(scene, r)

    def _band(self, scene: ChartScene, c: int):
        color = self.style.chip_color(scene, c)
        color.setAlpha(55)
        return pg.mkPen(color, width=9)

    def _draw_kernel_path(self, scene: ChartScene, k: int) -> None:
        """The path the kernel takes on each chip as its main parameter runs over its range:
        one evaluation of 80 steps on every shown chip."""
        cmp, units = scene.comparison, scene.spec.units
        _values, ka = sweep(cmp.kernels[k], points=80)
        result = evaluate(ka, cmp.chip_arrays.take(list(scene.chips)), derated=cmp.result.derated)
        x = log10(units.intensity(ka.intensity()[:, ROLE_INDEX["dram"]]))
        # ("The path … takes as its main parameter changes" read as broken: the 32nd tour)
        tip = _("Where {kernel} would sit as its main parameter changes (the path a drag of its "
                "marker follows)").format(kernel=cmp.kernels[k].name)
        for j, c in enumerate(scene.chips):
            self.paths.add_line(x, log10(units.rate(result.attainable[:, j])), self._band(scene, c), tip=tip)

    def _draw_workload_path(self, scene: ChartScene, r) -> None:
        """The path the selected workload's point takes as its batch runs from 1 to 4096."""
        from roofline_gui.core.workload_view import sweep_path  # noqa: PLC0415

        chips = [r.chips[c] for c in scene.chips]
        x, y, _batches = sweep_path(r.workload, chips, scene.spec.units,
                                    derated=r.evaluation.derated, kernels=r.kernels)
        tip = _("The path {workload} takes as its batch runs from 1 to 4096").format(
            workload=r.workload.name)
        for j, c in enumerate(scene.chips):
            self.paths.add_line(log10(x), log10(y[:, j]), self._band(scene, c), tip=tip)

    def set_exporting(self, exporting: bool) -> None:
        """An export shows the document, not the screen's selection: no rings, paths or drag."""
        for item in (self.ring, self.paths, self.lifted):
            item.setVisible(not exporting)

