"""The Serving view's chart: one frontier per chip (output tokens/s per chip against tokens/s
per user as the concurrency grows), its points numbered with their users, the best point of each
chip within the limits ringed, the TPOT limit as a line, measured points as stars, the chips
named in a legend. Drawn in the Serving view and afresh, offscreen, for its exports."""

from __future__ import annotations

import functools
import html
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF

from roofline_gui.core.display import hidden_under, offset_label_box, place_kernel_labels
from roofline_gui.core.i18n import N_, _, listed
from roofline_gui.core.serving import chip_named
from roofline_gui.widgets.common.application import set_tip
from roofline_gui.widgets.common.axes import Ring, log_plot

#: What the y axis reads: (name, axis title, the result's [C, K] array's attribute, what a chip
#: without it lacks).
MEASURES = (("chip", N_("tokens/s per chip"), "tokens_per_chip", ""),
            ("joule", N_("tokens per joule"), "tokens_per_joule", N_("energy data (board power)")),
            ("dollar", N_("tokens per dollar"), "tokens_per_dollar", N_("a price per chip-hour")))
_MEASURE = {m[0]: m for m in MEASURES}


def measure_values(result, measure: str) -> np.ndarray:
    """[C, K]: the result's output tokens per chip-second, per joule or per dollar."""
    return getattr(result, _MEASURE[measure][2])


SERVING_HIDDEN = 0.04  # decades: a serving point this near a later chip's lies under it


def hidden_name(result, c: int, under: dict[int, list[int]]) -> str:
    """Chip ``c``'s name, and whose curve hides its own where one does."""
    if c not in under:
        return result.chips[c].name
    return _("{chip} (under {others})").format(
        chip=result.chips[c].name, others=listed(result.chips[d].name for d in under[c]))


def hidden_chips(result, measure: str) -> dict[int, list[int]]:
    """The chips whose curve lies under later ones' (drawn over it) in both its coordinates at
    nearly every concurrency, each with the chips covering it (the B200's points under the
    MI355X's, their users' numbers beside green markers, and nothing said so: the 37th tour)."""
    values = measure_values(result, measure)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_user = [(c, np.log10(np.where(result.tokens_per_user[c] > 0,
                                          result.tokens_per_user[c], np.nan)))
                    for c in range(len(result.chips))]
        rate = [(c, np.log10(np.where(values[c] > 0, values[c], np.nan)))
                for c in range(len(result.chips))]
    # (points 7 px across, about 110 px a decade: 0.04 decades apart they cover each other)
    across, up = hidden_under(per_user, SERVING_HIDDEN), hidden_under(rate, SERVING_HIDDEN)
    both = {c: [d for d in up[c] if d in across[c]] for c in up if c in across}
    return {c: covering for c, covering in both.items() if covering}


#: The TPOT limit's line: dark grey, dashed (in crimson a tour took it for a red chip's line)
TPOT_LINE = "#505050"


class ServingChart:
    """The plot and its items, made once and given new data at each redraw (a frontier typed
    or dragged redraws in a few ms; clearing and rebuilding them took 60)."""

    def __init__(self, tip=None, on_click=None, legend: bool = True) -> None:
        self.plot = log_plot()
        self.plot.showGrid(True, True, 0.25)
        self.plot.setLabel("bottom", _("tokens/s per user (output)"))
        self.plot.setLabel("left", _("tokens/s per chip"))
        item = self.plot.getPlotItem()
        self.tpot_line = pg.InfiniteLine(angle=90, movable=on_click is not None,
                                         pen=pg.mkPen(TPOT_LINE, width=2,
                                                      style=Qt.PenStyle.DashLine))
        set_tip(self.tpot_line, _("The TPOT limit: drag it (left: a looser limit)"))
        self.lines: list[tuple[pg.PlotDataItem, pg.PlotDataItem]] = []  # per chip: fits, all
        self.points = pg.ScatterPlotItem(size=7, hoverable=tip is not None, tip=tip)
        if on_click is not None:
            self.points.sigClicked.connect(on_click)
        self.stars = pg.ScatterPlotItem()
        set_tip(self.stars, _("Measured points (Measured points…), against their chip's bound"))
        # a best point's ring is over its point and stands for it: it tells the same figures on
        # hover, and a click anywhere in it chooses that point (a click through it went to the
        # nearest point under the pointer, often a neighbour at the crowded top of a curve: the
        # sixth tour got 449 users, which do not fit, for the ringed 448)
        self.rings = pg.ScatterPlotItem(size=16, pen=pg.mkPen("k", width=2), brush=None,
                                        hoverable=tip is not None, tip=tip)
        if on_click is not None:
            self.rings.sigClicked.connect(on_click)
        # the point the roofline and the table show now (the workload's batch at the mean
        # context, as a click sets it), boxed on the selected chip's curve
        self.current = Ring(size=15, symbol="s", pen=pg.mkPen("k", width=1.5), brush=None)
        self.labels: list[pg.TextItem] = []
        self._marks: list = []  # the users' numbers: (x, y, text, colour, (chip, point)), placed at each size
        item.getViewBox().sigResized.connect(lambda _vb: self._place_labels(self._marks))
        # bottom left: the frontiers fall from the top left to the bottom right, never there
        self.legend = item.addLegend(offset=(8, -8), labelTextSize="8pt", labelTextColor="k",
                                     brush=pg.mkBrush(255, 255, 255, 230),
                                     pen=pg.mkPen("#c0c0c0"))
        self.legend.setZValue(1000)  # over the TPOT line dragged across it
        # in a short dock the legend would cover the curves: the view names the chips above
        self.legend.setVisible(legend)
        for part in (self.points, self.stars, self.current, self.rings):
            item.addItem(part)
            part.setZValue(5)  # over the TPOT line: a point under it tells its own figures
        item.addItem(self.tpot_line, ignoreBounds=True)
        self._legend_key = None
        self.measure = "chip"  # what the y axis reads (MEASURES)

    def clear(self) -> None:
        for fit, every in self.lines:
            fit.setData([], [])
            every.setData([], [])
        for part in (self.points, self.stars, self.rings, self.current):
            part.setData([])
        for label in self.labels:
            label.setVisible(False)
        self._marks = []  # a resize places the numbers of what is drawn: nothing (the tour saw
        # the last example's numbers come back over an empty chart)
        self.legend.clear()
        self._legend_key = None
        self.tpot_line.setVisible(False)
        # whole decades, as an empty roofline shows them: pyqtgraph's default range of one
        # decade labelled every tick, 2 to 9, over each other (the second tour)
        self.plot.setRange(xRange=(0, 3), yRange=(0, 4), padding=0)

    def draw(self, result, measured=(), measure: str = "chip",
             under: dict[int, list[int]] | None = None) -> None:
        """Each chip's curve, its points and their users' numbers, the measured points (on the
        per-chip axis: they are rates), the chips named in the legend; then the best points and
        the limit (draw_limits). ``measure``: what the y axis reads (MEASURES); ``under``: the
        chips whose curves lie under others' (hidden_chips), where the caller has them."""
        plot = self.plot.getPlotItem()
        self.measure = measure
        self.plot.setLabel("left", _(_MEASURE[measure][1]))
        values = measure_values(result, measure)
        while len(self.lines) < len(result.chips):
            pair = (pg.PlotDataItem(), pg.PlotDataItem())
            for part in pair:
                plot.addItem(part)
            self.lines.append(pair)
        xs, ys, data, brushes, pens, marks = [], [], [], [], [], []
        hollow = pg.mkBrush("#ffffff")
        for c, chip in enumerate(result.chips):
            x, y = result.tokens_per_user[c], values[c]
            ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
            fits = result.fits[c] & ok
            color = chip.color or "#808080"
            fit_line, every_line = self.lines[c]
            fit_line.setData(x[fits], y[fits], pen=pg.mkPen(color, width=2))
            loose = ok if (ok & ~fits).any() else np.zeros_like(ok)
            every_line.setData(x[loose], y[loose], pen=pg.mkPen(color, width=1,
                                                               style=Qt.PenStyle.DotLine))
            brush, pen = pg.mkBrush(color), pg.mkPen(color, width=1.5)
            shown = np.flatnonzero(ok)
            xs.append(np.log10(x[shown]))
            ys.append(np.log10(y[shown]))
            data += [(c, int(k)) for k in shown]
            brushes += [brush if fits[k] else hollow for k in shown]
            pens += [pen] * len(shown)
            marks += [(float(np.log10(x[k])), float(np.log10(y[k])),
                       f"{int(result.concurrency[k]):,}", color, (c, int(k)))
                      for k in np.flatnonzero(fits)]
        for fit, every in self.lines[len(result.chips):]:
            fit.setData([], [])
            every.setData([], [])
        self.points.setData(x=np.concatenate(xs), y=np.concatenate(ys), data=data,
                            brush=brushes, pen=pens)
        for c, (fit, _every) in enumerate(self.lines[:len(result.chips)]):
            fit.setVisible(bool(np.isfinite(values[c]).any()))
        self._marks = marks
        drawn = [c for c in range(len(result.chips)) if np.isfinite(values[c]).any()]
        under = hidden_chips(result, measure) if under is None else under
        names = [hidden_name(result, c, under) for c in drawn]
        legend_key = tuple(zip(names, (result.chips[c].color for c in drawn), strict=True))
        if legend_key != self._legend_key:
            self.legend.clear()
            for c, name in zip(drawn, names, strict=True):
                self.legend.addItem(self.lines[c][0], name)
            self.legend.setColumnCount(min(3, max(1, len(drawn))))  # a row or two, not a column
            self._legend_key = legend_key
        self.draw_limits(result)  # (the rings of another axis would hold the range)
        self.draw_measured(result, measured if measure == "chip" else ())
        self._place_labels(self._marks)  # in the range just fitted, at its size in pixels

    def draw_measured(self, result, measured) -> None:
        """The measured points as stars in their chip's colour (those naming no chip shown are
        left out: the words name them); the range fitted to everything drawn."""
        spots = []
        for p in measured:
            c = chip_named(result.chips, p.chip)
            if c is not None:
                spots.append({"pos": (float(np.log10(p.per_user)), float(np.log10(p.per_chip))),
                              "brush": pg.mkBrush(result.chips[c].color or "#808080"),
                              "pen": pg.mkPen("k", width=1), "symbol": "star", "size": 15})
        self.stars.setData(spots)
        self.fit_range()

    def fit_range(self) -> None:
        """Fit the axes to the points, unless they lie well inside the range shown and fill
        more than half of it: an input length stepped or typed moves the frontier a little, and
        axes that stay put are not redrawn (nor is the reader's eye thrown)."""
        vb = self.plot.getPlotItem().getViewBox()
        (px, py), (sx, sy) = self.points.getData(), self.stars.getData()
        xs, ys = np.concatenate([px, sx]), np.concatenate([py, sy])
        if not len(xs):
            return
        (x0, x1), (y0, y1) = vb.viewRange()
        lo_x, hi_x, lo_y, hi_y = xs.min(), xs.max(), ys.min(), ys.max()
        inside = (x0 < lo_x and hi_x < x1 and y0 < lo_y and hi_y < y1
                  and hi_x - lo_x > 0.5 * (x1 - x0) and hi_y - lo_y > 0.5 * (y1 - y0))
        if not inside:
            self._fit(vb, lo_x, hi_x, lo_y, hi_y)

    @staticmethod
    def _fit(vb, lo_x: float, hi_x: float, lo_y: float, hi_y: float) -> None:
        """The points with a margin, more above them: the users' numbers stand over their
        points (pyqtgraph's fit left the top row's numbers cut)."""
        dx, dy = max(hi_x - lo_x, 0.3), max(hi_y - lo_y, 0.3)
        vb.setRange(xRange=(lo_x - 0.06 * dx, hi_x + 0.06 * dx),
                    yRange=(lo_y - 0.08 * dy, hi_y + 0.2 * dy), padding=0)

    def nearest(self, points, ev=None):
        """Of the points under a click (the curves' points lie close at the top), the one
        nearest the pointer in pixels; the first without an event."""
        if ev is None or len(points) == 1:
            return points[0]
        sx, sy = self.plot.getPlotItem().getViewBox().viewPixelSize()
        at = ev.pos()
        # of points as near (within a pixel), the one drawn last, on top: where two chips'
        # curves lie on each other a click on the dot in sight chose the one under it (the
        # eighth tour)
        return min(points, key=lambda p: (round((((p.pos().x() - at.x()) / sx) ** 2
                                                 + ((p.pos().y() - at.y()) / sy) ** 2) ** 0.5),
                                          -p.index()))

    def _place_labels(self, marks) -> None:
        """The users' numbers beside their points, each where it touches no other number, no
        point and no chip's curve (over other chips' lines and points they were partly hidden:
        the third tour), inside the view; a number with no such spot is left out, and hover
        tells every point's. core.display.place_kernel_labels places them, as the roofline's
        kernel names."""
        vb = self.plot.getPlotItem().getViewBox()
        metrics = _label_metrics()
        per_px = vb.viewPixelSize() if vb.width() > 1 else (0.0, 0.0)
        if marks and not all(per_px):  # not laid out yet: a share of the points' span
            xs, ys = np.array([m[0] for m in marks]), np.array([m[1] for m in marks])
            per_px = (max(float(np.ptp(xs)), 0.5) / 500, max(float(np.ptp(ys)), 0.5) / 200)
        sx, sy = 1.0 / per_px[0], 1.0 / per_px[1]  # pixels per decade
        placed = []
        # the best points' numbers first: a neighbour's, a pixel away, had taken the spot, so
        # the ring round 448 users read "445" (the seventh tour)
        best = {tuple(d) for d in self.rings.data["data"]} if len(self.rings.data) else set()
        marks = sorted(marks, key=lambda m: m[4] not in best)
        # and no number for a point within a ring's reach of a ringed one: beside the ring it
        # reads as the ring's (262 users beside the ring round 256)
        rings = [(m[0] * sx, m[1] * sy) for m in marks if m[4] in best]
        marks = [m for m in marks if m[4] in best or not any(
            (m[0] * sx - x) ** 2 + (m[1] * sy - y) ** 2 < RING_REACH_PX ** 2 for x, y in rings)]
        if marks:
            xs = np.array([m[0] for m in marks])
            ys = np.array([m[1] for m in marks])
            # every point drawn (the curves' points, fitting or not) and every curve
            px, py = self.points.getData()
            px, py = np.asarray(px, dtype=float), np.asarray(py, dtype=float)
            lines = []
            for fit, every in self.lines:
                for item in (fit, every):
                    lx, ly = item.getData()  # as drawn: log10 (the axes are logarithmic)
                    if item.isVisible() and lx is not None and len(lx) > 1:
                        lines.append(np.column_stack([np.asarray(lx) * sx,
                                                      -np.asarray(ly) * sy]))
            (x0, x1), (y0, y1) = vb.viewRange()
            bounds = (x0 * sx + 2, -y1 * sy + 2, x1 * sx - 2, -y0 * sy - 2)
            if self.tpot_line.isVisible():  # the TPOT limit's line too (it crossed a "256")
                at = float(self.tpot_line.value()) * sx
                lines.append(np.array([[at, -y1 * sy], [at, -y0 * sy]]))
            args = ((sx, sy), metrics.horizontalAdvance, metrics.height())
            # a ringed point's number over a curve rather than none: with its own left out the
            # nearest number read as the ring's (265 users by the ring round 219, the knee's
            # points close together)
            ringed = sum(m[4] in best for m in marks)

            def place_ringed(ring_marks, taken):
                return place_kernel_labels(
                    [m[2] for m in ring_marks], np.array([m[0] for m in ring_marks]),
                    np.array([m[1] for m in ring_marks]), *args, taken, (px, py), bounds,
                    lines=lines, over_lines=True)

            placed = place_ringed(marks[:ringed], [])
            # a ring whose number found no spot, beside another's (the MI355X's by the B200's,
            # both 8 TB/s: the 41st tour): their numbers as one, "302 / 342", each in its
            # colour, where that finds a spot
            named, joints = {lb.kernel for lb in placed}, []
            for group in _rings_together(marks[:ringed], sx, sy):
                members = [n for n, m in enumerate(marks[:ringed])
                           if m[4] in group[5]]
                if all(n in named for n in members):
                    continue
                rest = [lb for lb in placed if lb.kernel not in members]
                (joint,) = place_ringed([group], [offset_label_box(lb, *args) for lb in rest]) \
                    or (None,)
                if joint is not None:  # (its mark after every other: len(marks) + its place)
                    joints.append(group)
                    placed = [*rest, replace(joint, kernel=len(marks) + len(joints) - 1)]
                    named = {lb.kernel for lb in placed}
            taken = [offset_label_box(lb, *args) for lb in placed]
            placed += [replace(lb, kernel=lb.kernel + ringed) for lb in place_kernel_labels(
                [m[2] for m in marks[ringed:]], xs[ringed:], ys[ringed:], *args, taken,
                (px, py), bounds, lines=lines, over_lines=False)]
            marks = [*marks, *joints]
        for n, lb in enumerate(placed):
            if n == len(self.labels):
                label = pg.TextItem()
                # no margin round the text: its anchor is then the text's own corner, as the
                # placement's boxes assume (with pyqtgraph's margin a number's glyphs stood a
                # few pixels off its box, over a point)
                label.textItem.document().setDocumentMargin(0)
                self.plot.getPlotItem().addItem(label, ignoreBounds=True)
                self.labels.append(label)
            label = self.labels[n]
            x, y, text, color, _at, *_members = marks[lb.kernel]
            if isinstance(color, tuple):  # rings' numbers together, each in its chip's colour
                label.numbers = list(zip(lb.text.split(" / "), color, strict=True))
                label.setHtml(" / ".join(f"<span style='color:{c}'>{html.escape(t)}</span>"
                                         for t, c in label.numbers))
            else:
                label.numbers = [(text, color)]
                label.setText(text, color=color)
            label.setAnchor(lb.anchor)
            label.setPos(x + lb.offset[0] * per_px[0], y - lb.offset[1] * per_px[1])
            label.setVisible(True)
        for label in self.labels[len(placed):]:
            label.setVisible(False)

    def draw_limits(self, result) -> None:
        """The best points within the limits, ringed, and the TPOT limit's line."""
        xs, ys, data = [], [], []
        values = measure_values(result, getattr(self, "measure", "chip"))
        for c in range(len(result.chips)):
            best = result.best(c)
            if best is not None and np.isfinite(values[c, best]) and values[c, best] > 0:
                xs.append(float(np.log10(result.tokens_per_user[c, best])))
                ys.append(float(np.log10(values[c, best])))
                data.append((c, best))
        moved = [tuple(d) for d in self.rings.data["data"]] != data
        self.rings.setData(x=xs, y=ys, data=data)
        if moved and self._marks:  # other best points: their numbers placed first
            self._place_labels(self._marks)
        limit = result.workload.tpot_limit
        self.tpot_line.setVisible(limit > 0)
        if limit > 0:
            self.tpot_line.blockSignals(True)
            self.tpot_line.setValue(float(np.log10(1.0 / limit)))
            self.tpot_line.blockSignals(False)

    def draw_current(self, result, c: int) -> None:
        """The box round chip ``c``'s point at the workload's batch and the requests' mean
        context (what a click on a point sets, and the roofline then shows); none elsewhere."""
        values, k = measure_values(result, self.measure), result.shown()
        at = k is not None and 0 <= c < len(result.chips)
        x = result.tokens_per_user[c, k] if at else np.nan
        y = values[c, k] if at else np.nan
        if np.isfinite(x) and np.isfinite(y) and x > 0 and y > 0:
            self.current.setData(x=[float(np.log10(x))], y=[float(np.log10(y))])
        else:
            self.current.setData([])

    @contextmanager
    def titled(self, result):
        """The chart with a title saying what it shows (the workload, the requests, the
        limits), for a file that leaves the window; yields the plot item."""
        item = self.plot.getPlotItem()
        s = result.spec
        limits = [f"TPOT ≤ {s.tpot_limit * 1e3:g} ms"] if s.tpot_limit else []
        limits += [f"TTFT ≤ {s.ttft_limit * 1e3:g} ms"] if s.ttft_limit else []
        item.setTitle(html.escape(
            _("{workload}: {input} in, {output} out per request").format(
                workload=result.workload.name, input=f"{s.input_tokens:,}",
                output=f"{s.output_tokens:,}")
            + (f"; {', '.join(limits)}" if limits else "")
            + ("; " + _("{n} draft tokens at α = {acceptance}").format(
                n=s.draft_tokens, acceptance=f"{s.acceptance:g}") if s.draft_tokens else "")
            + (f"; disaggregated: prefill on {s.prefill_chips:,}, decode on {s.decode_chips:,} chips"
               if s.prefill_chips else "")), color="k", size="10pt")
        item.layout.activate()  # the title's row laid out before anything renders
        try:
            yield item
        finally:
            item.setTitle(None)
            item.titleLabel.setText("")


#: Pixels from a ringed point within which no other point's number is written.
RING_REACH_PX = 14.0


def _rings_together(ringed: list, sx: float, sy: float) -> list:
    """The ringed points whose rings touch (within twice RING_REACH_PX), each group as one mark
    by its first point: their numbers as one ("302 / 342"), their colours, and the points it
    stands for. The MI355X's ring beside the B200's, both 8 TB/s, had no number, every spot by
    it taken by the B200's (the 41st tour)."""
    groups: list[list] = []
    for m in ringed:
        near = next((g for g in groups if any((m[0] - o[0]) ** 2 * sx * sx
                                              + (m[1] - o[1]) ** 2 * sy * sy
                                              < (2 * RING_REACH_PX) ** 2 for o in g)), None)
        if near is None:
            groups.append([m])
        else:
            near.append(m)
    return [(g[0][0], g[0][1], " / ".join(o[2] for o in g), tuple(o[3] for o in g), g[0][4],
             {o[4] for o in g}) for g in groups if len(g) > 1]


@functools.cache
def _label_metrics() -> QFontMetricsF:
    """The users' numbers' font (a text item's own), measured once."""
    item = pg.TextItem()
    return QFontMetricsF(QFont(item.textItem.font()))  # a copy: the item goes


@contextmanager
def offscreen_chart(result, measured, width: int, height: int, measure: str = "chip"):
    """The chart drawn afresh, offscreen, laid out at ``width`` × ``height`` and titled: what
    the exports render at scale 1 (scaling the dock's chart to a file's size scaled its text
    and markers with it). Yields the plot item."""
    chart = ServingChart()
    widget = chart.plot
    widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    widget.resize(width, height)
    widget.show()
    try:
        with chart.titled(result) as item:
            chart.draw(result, measured, measure)
            (px, py), (sx, sy) = chart.points.getData(), chart.stars.getData()
            xs, ys = np.concatenate([px, sx]), np.concatenate([py, sy])
            if len(xs):
                chart._fit(item.getViewBox(), xs.min(), xs.max(), ys.min(), ys.max())
            yield item
    finally:
        widget.close()
        widget.deleteLater()
