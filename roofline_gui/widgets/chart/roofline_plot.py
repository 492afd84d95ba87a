"""Drawing one roofline chart into a pyqtgraph PlotItem.

Per chip: one roof per shown precision (a short polyline: start, ridge, end) on the dram
diagonal; one diagonal per other memory level (cache dashed, host dotted, link dash-dot),
ridge points marked, labels. Per kernel: a marker at (dram intensity, attainable) for each
chip, measured points with the gap to their roof, the selected kernel ringed with the path it
takes as its main parameter sweeps.

Redraw cost is kept to what changed: ``draw`` rebuilds everything (a document reset or a chip
edit), ``update_markers`` only the markers, and while a kernel is being dragged it is
"lifted" out of the big scatter items into a small overlay, so a drag step redraws a handful
of points instead of every marker.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPen
from PySide6.QtWidgets import QGraphicsItem

from roofline_gui.core.comparison import Comparison
from roofline_gui.core.display import (
    WORKLOAD_LABEL_SPOTS,
    X_SPAN,
    ChartSpec,
    TextWidth,
    Units,
    boxes_overlap,
    chart_spec,
    marker_symbols,
    offset_label_box,
    overlaps_any,
    place_kernel_labels,
    shape_legend,
    short_name,
    shown_precisions,
    text_width,
)
from roofline_gui.core.roofline import ROLE_INDEX, evaluate
from roofline_gui.core.sweep import can_move, sweep
from roofline_gui.core.units import OPS_PER_MAC, format_si, format_time
from roofline_gui.widgets.chart.plot_items import (
    ChipLegend,
    GridLines,
    MarkerScatter,
    RoofLayer,
    WorkloadScatter,
    label_text_origin,
    log10,
)
from roofline_gui.widgets.common import background

LABEL_INSET = (4.0, 2.0)  # pixels between the view's edges (sides, top and bottom) and any name
SHORTEST_NAME = 20  # characters of a kernel's name on the chart, where no longer one fits
SYNC_SPOTS = 20_000  # a chart with more markers draws them a chip per event-loop turn
TURN_BUDGET_S = 0.002  # filling per turn, in s (about a chip of 10,000: docs/performance.md)
DATASHEET_LEGEND = "datasheet roofs (long dashes)"
DATASHEET_DASHES = [9.0, 5.0]  # in pen widths: longer than the cache diagonals' dashes


def datasheet_pen(color: QColor) -> QPen:
    pen = pg.mkPen(color, width=1.2)
    pen.setDashPattern(DATASHEET_DASHES)
    return pen
LABEL_ALL_CHIPS = 6  # with more chips, only the selected chip's roofs and diagonals are labelled
KERNEL_LABELS_MAX = 40  # with more kernels, names are in the markers' tooltips only
BUSY_RETRY_MS = 30  # while a file job runs on a worker, the chart waits (see widgets/common/background.py)


def drawn_in_turns(n_kernels: int, n_chips: int) -> bool:
    """Whether a chart of this size is drawn over several turns of the event loop."""
    return n_kernels * n_chips > SYNC_SPOTS


LEVEL_STYLE = {
    "dram": Qt.PenStyle.SolidLine,
    "cache": Qt.PenStyle.DashLine,
    "host": Qt.PenStyle.DotLine,
    "link": Qt.PenStyle.DashDotLine,
}


@dataclass
class ViewOptions:
    """How the chart is drawn (view state only; nothing here is saved in the session)."""

    precisions: tuple[str, ...] | None = None  # None: the precisions the kernels use
    ops_per_unit: float = 1.0  # 2.0 labels the y axis in MAC/s
    show_labels: bool = True
    foreground: str = "#202020"
    background: str = "#ffffff"
    hidden_levels: set[str] = field(default_factory=set)
    kernel_labels: bool = True  # each kernel's short name beside its highest marker


class RooflinePlot(QObject):
    """Draws a set of chips and kernels into ``plot_item``; emits clicks and drags."""

    sig_kernel_clicked = Signal(str, str)  # kernel id, chip id
    sig_marker_dragged = Signal(str, str, float, bool)  # kernel id, chip id, op/B, finished
    #: workload id, shown intensity under the cursor, finished, Shift held
    sig_workload_dragged = Signal(str, float, bool, bool)

    def __init__(self, plot_item: pg.PlotItem, options: ViewOptions | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.plot = plot_item
        self.options = options or ViewOptions()
        self.spec: ChartSpec | None = None  # what the chart draws (display.chart_spec), once drawn
        # The hidden top and right axes: pyqtgraph's SI prefix would re-render their (hidden)
        # titles as rich text on every range change, ten times before the first paint.
        for side in ("top", "right"):
            plot_item.getAxis(side).enableAutoSIPrefix(False)
        self.roofs = RoofLayer()  # roofs, diagonals, ridge points: one item
        plot_item.addItem(self.roofs, ignoreBounds=True)
        # Their labels above every marker and point, so none is hidden under one.
        self.roof_labels = RoofLayer()
        self.roof_labels.setZValue(15)
        plot_item.addItem(self.roof_labels, ignoreBounds=True)
        # The selected kernel's sweep paths: bands 9 px wide, so antialiased for a few chips only.
        self.paths = RoofLayer(smooth_lines=8)
        self.paths.setZValue(8)
        self.paths.beneath = self.roofs  # hovering the band over a roof names the roof as well
        plot_item.addItem(self.paths, ignoreBounds=True)
        self.kernel_labels = RoofLayer()  # kernels' names by their markers (labels only)
        self.kernel_labels.setZValue(12)
        plot_item.addItem(self.kernel_labels, ignoreBounds=True)
        # Placed in pixels: again when the view is resized, zoomed or panned (after a pause).
        self._relabel = QTimer(self)
        self._relabel.setSingleShot(True)
        self._relabel.setInterval(60)
        self._relabel.timeout.connect(self._place_labels_again)
        self._setting_range = False
        plot_item.getViewBox().sigResized.connect(lambda _vb: self._on_view_changed())
        plot_item.getViewBox().sigRangeChanged.connect(lambda *_args: self._on_view_changed())
        self._markers: dict[str, MarkerScatter] = {}  # chip id -> scatter
        self._extras: list = []  # measured points, selection ring, sweep path
        self.ring: pg.ScatterPlotItem | None = None  # the selected kernel's rings, one per chip
        self._lifted_item = pg.ScatterPlotItem(size=14)
        self._lifted_item.setZValue(13)
        # ignoreBounds: the view's range is set explicitly, and an item that informs the view box
        # of bounds changes makes every setData repaint the whole plot instead of its own spots.
        plot_item.addItem(self._lifted_item, ignoreBounds=True)
        # Workloads: each one's kernels as a group of small marks in its own shape, and its
        # aggregate point (drag it to change the batch), with its name beside it.
        self.workload_results: list = []  # WorkloadResult of the document, set by the canvas
        # Per workload: its kernels (small marks), its point and its label, as their own items,
        # so a drag step of one workload updates (and repaints) that workload's items only.
        self._wl_items: dict[str, tuple] = {}  # workload id -> (entries, point, label)
        self._wl_drawn: dict[str, tuple] = {}  # workload id -> what its items were drawn from
        self.marks: list = []  # the workloads' WorkloadMarks as drawn
        self._shape_entries: list = []
        self._legend_workloads = None
        self._drawn_path_key = None
        self._comparison: Comparison | None = None
        self._pending: list[str] = []  # chip ids whose markers are still to be set
        self._extras_pending = False  # the selection's ring and paths are still to be drawn
        self._brushes: dict[str, QBrush] = {}  # marker styles, one object per colour (see _brush)
        self._pens: dict[tuple[str, float], QPen] = {}
        self._fill_timer = QTimer(self)
        self._fill_timer.setSingleShot(True)
        self._fill_timer.timeout.connect(self._on_fill_timer)
        self._moves: list[tuple[str, str]] = []  # (chip id, kernel id) spots still to move
        self._chip_indices: list[int] = []
        self.selected: str | None = None
        self.selected_chip: str | None = None
        self.lifted: str | None = None
        backdrop = QColor(self.options.background)
        backdrop.setAlpha(210)  # readable over the grid and roofs, which still show through
        self.legend = ChipLegend(self.options.foreground, offset=(-10, -10), brush=backdrop)
        self.legend.setParentItem(plot_item.vb)
        self._legend_wanted: list[tuple[str, QPen]] = []
        self._ids: tuple[tuple, np.ndarray] = ((), np.zeros(0, dtype=object))  # kernels -> ids
        self._symbol_cache: tuple = (None, None)  # kernels -> their marker shapes
        # Both labels from the start, so the axes keep their size when the first chart comes.
        plot_item.setLabel("bottom", "Arithmetic intensity (op/B, main memory)", units="")
        plot_item.setLabel("left", "Attainable performance (op/s)")
        self._axis_unit = "op"
        # In a grid of charts only the outer ones carry axis titles, and the chart's title (the
        # chip) stands for the legend: set by the canvas before drawing.
        self.axis_titles = {"left": True, "bottom": True}
        self.show_legend = True
        plot_item.setMenuEnabled(False)
        plot_item.layout.setContentsMargins(4, 8, 14, 4)  # room for the right-hand labels
        self._add_grid()

    def _add_grid(self) -> None:
        """Decade and minor grid lines as two non-antialiased line sets. pyqtgraph's own grid is
        painted by the axes across the whole plot and re-rendered with every repaint of it
        (most of a repaint: docs/performance.md); these are two cheap paths outside the autorange."""
        decades = np.arange(-6, 22)
        minor = np.log10(np.outer(10.0 ** decades, np.arange(2, 10)).ravel())
        for values, alpha in ((decades.astype(float), 45), (minor, 18)):
            xs = values[(values >= -4) & (values <= 7)]
            ys = values[(values >= 4) & (values <= 21)]
            seg_x = np.concatenate([np.repeat(xs, 2), np.tile([-4.0, 7.0], len(ys))])
            seg_y = np.concatenate([np.tile([4.0, 21.0], len(xs)), np.repeat(ys, 2)])
            color = QColor(self.options.foreground)
            color.setAlpha(alpha)
            grid = GridLines(seg_x, seg_y, color)
            grid.setZValue(-10)
            self.plot.addItem(grid, ignoreBounds=True)

    # -- whole redraw -----------------------------------------------------------------------------
    def draw(self, comparison: Comparison, chip_indices: list[int]) -> None:
        """Rebuild roofs and markers for the chips at ``chip_indices`` of the comparison."""
        self._comparison, self._chip_indices = comparison, chip_indices
        # The range first, so every label is placed once, in the pixels it will be shown in
        # (the range change's own relabelling would place them all a second time).
        self._range = self._view_range()
        if self._range is not None:
            (x_lo, x_hi), (y_lo, y_hi) = self._range
            self._setting_range = True
            try:
                self.plot.setRange(xRange=(np.log10(x_lo), np.log10(x_hi)),
                                   yRange=(np.log10(y_lo), np.log10(y_hi)), padding=0)
            finally:
                self._setting_range = False
        self._draw_roofs(view_range_known=True)
        self.update_workloads(self.workload_results)  # first: the kernels' names avoid them
        self.update_markers()  # and their names, in the range just set

    def update_kernels(self, comparison: Comparison) -> None:
        """Only kernels changed (same chips): redraw the markers from ``comparison``."""
        self._comparison = comparison
        self.update_markers()

    @property
    def view_range(self):
        """((x_lo, x_hi), (y_lo, y_hi)) in shown units that shows every roof and marker."""
        return self._range

    def select_kernel(self, kernel_id: str | None) -> None:
        """Make ``kernel_id`` the selected kernel: its rings and sweep paths are redrawn."""
        if kernel_id == self.selected:
            return
        self.selected = kernel_id
        if self._comparison is not None:
            self._draw_extras()

    def select_chip(self, chip_id: str | None) -> None:
        """Make ``chip_id`` the selected chip: in a chart of many chips its roofs are the ones
        labelled, so the labels are redrawn (the markers stay as they are)."""
        if chip_id == self.selected_chip:
            return
        self.selected_chip = chip_id
        if self._comparison is not None and len(self._chip_indices) > LABEL_ALL_CHIPS:
            self._draw_roofs()

    def _labelled(self, chip_id: str) -> bool:
        return self.options.show_labels and (len(self._chip_indices) <= LABEL_ALL_CHIPS
                                             or chip_id == self.selected_chip)

    def _draw_roofs(self, view_range_known: bool = False) -> None:
        """Every roof, diagonal and roof label (``view_range_known``: draw() has just worked
        out the range, so it is not worked out again here)."""
        comparison, chip_indices = self._comparison, self._chip_indices
        self.roofs.clear()
        self.roof_labels.clear()
        self._legend_wanted = []
        unit = self._units().word
        if self._axis_unit != unit:  # each setLabel re-lays out the axis
            self._axis_unit = unit
            self.plot.setLabel("left", f"Attainable performance ({unit}/s)")
            self.plot.setLabel("bottom", f"Arithmetic intensity ({unit}/B, main memory)")
        for side, shown in self.axis_titles.items():
            self.plot.getAxis(side).showLabel(shown)
        if not view_range_known:
            self._range = self._view_range()
        self._placed_labels: list[tuple[float, float, float, float]] = []  # boxes, in decades
        # The view's pixels per decade and the label font's metrics, once per drawing.
        metrics = QFontMetricsF(QFont())
        self._label_scale = (self.label_geometry()[0], metrics.horizontalAdvance, metrics.height())
        also = tuple(p for r in self.workload_results for p in r.precisions)
        self._wanted = set(shown_precisions(comparison, self.options.precisions, also))
        # The geometry comes from the core (display.chart_spec), in the units shown.
        self.spec = chart_spec(comparison, self._units(), list(chip_indices), self.options.precisions,
                               frozenset(self.options.hidden_levels), also)
        self._marker_boxes = self._markers_as_obstacles(self.spec)
        for c in chip_indices:
            self._draw_chip(comparison, c)
        self.roofs.finish()
        self.roof_labels.finish()
        self._shape_entries = [(category, self._pen(QColor(self.options.foreground), 1), symbol)
                               for category, symbol in shape_legend(comparison)]
        self._legend_workloads = None
        self._set_legend()

    def _set_legend(self) -> None:
        """Chips by colour, kernel categories by shape, then each workload by its shape."""
        pen = self._pen(QColor(self.options.foreground), 1)
        workloads = tuple((m.name, m.symbol)
                          for m in self.marks)
        if workloads == self._legend_workloads:
            return
        self._legend_workloads = workloads
        entries = self._legend_wanted + self._shape_entries + [(name, pen, symbol)
                                                               for name, symbol in workloads]
        self.legend.set_entries(entries if self.show_legend else [])

    def _on_view_changed(self) -> None:
        """On screen, the labels follow a resize or a range change after a pause. Before the
        chart's first paint (the window being laid out as it is shown) they are placed at once,
        so that paint is right and no second full repaint follows it."""
        if self._setting_range:  # draw() places them itself, in the range it sets
            return
        if self.roofs.painted or self.roof_labels.painted:
            self._relabel.start()
        else:
            self._relabel.stop()
            self._place_labels_again()

    def _place_labels_again(self) -> None:
        """The view changed size or range: the roofs' and the kernels' labels are placed again
        in its pixels (roofs and markers stay as they are)."""
        if self._comparison is not None and self._chip_indices:
            self._draw_roofs()
        self._draw_kernel_labels()
        self._place_workload_labels()

    def _draw_kernel_labels(self) -> None:
        """Each kernel's short name by its highest marker, placed (display.place_kernel_labels)
        clear of the other names, the roof labels and the markers; left out where none fits."""
        self.kernel_labels.clear()
        cmp = self._comparison
        if (not self.options.kernel_labels or not self._chip_indices or cmp is None
                or not 0 < len(cmp.kernels) <= KERNEL_LABELS_MAX or self._range is None):
            self.kernel_labels.finish()
            return
        units = self._units()
        rates = units.rate(cmp.result.attainable[:, self._chip_indices])
        top = np.where(np.isfinite(rates), rates, -np.inf).max(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            xs = np.log10(units.intensity(cmp.dram_intensity))
            ys = np.where(top > 0, np.log10(np.where(top > 0, top, 1.0)), np.nan)
        px, bounds = self.label_geometry()
        metrics = QFontMetricsF(QFont())
        text_px, line = metrics.horizontalAdvance, metrics.height()
        taken = [box for label in self.roof_labels.labels
                 for box in self.label_footprint(label, px, text_px, line)]
        # The whole name where it fits, else the name shortened in the middle, to 28 characters,
        # then (a small chart, side by side at 1280×800) to 20; the tooltip has it whole.
        texts = [tuple(dict.fromkeys((k.name, short_name(k.name), short_name(k.name, SHORTEST_NAME))))
                 for k in cmp.kernels]
        color = QColor(self.options.foreground)
        with np.errstate(divide="ignore", invalid="ignore"):  # every chip's markers, as obstacles
            others = (np.repeat(xs, rates.shape[1]), np.log10(rates).ravel())
            for mark in self.marks:  # and the workloads' points and their kernels' marks
                wx = np.concatenate([np.full(len(mark.point_y), np.log10(mark.point_x)),
                                     np.repeat(np.log10(mark.entry_x), mark.entry_y.shape[1])])
                wy = np.concatenate([np.log10(mark.point_y), np.log10(mark.entry_y).ravel()])
                others = (np.concatenate([others[0], wx]), np.concatenate([others[1], wy]))
        # Not written over a roof where another spot beside the marker is free of them.
        roofs = [np.column_stack([np.log10(rx) * px[0], -np.log10(ry) * px[1]])
                 for rx, ry in (roof.points() for roof in (self.spec.roofs if self.spec else ()))]
        for label in place_kernel_labels(texts, xs, ys, px, text_px, line, taken, others, bounds,
                                         lines=roofs):
            self.kernel_labels.add_label(label.text, label.x, label.y, color, anchor=label.anchor,
                                         offset=label.offset)
        self.kernel_labels.finish()

    def label_geometry(self) -> tuple[tuple[float, float], tuple[float, float, float, float]]:
        """(pixels per decade in x and y, the box names are placed in, in those pixels): the
        view as it is on screen (names are placed again whenever it changes), a few pixels in
        from its edges (LABEL_INSET: a name that started right at the left axis had its first
        glyph clipped by it)."""
        view = self.plot.getViewBox()
        box = view.boundingRect()
        (lx_lo, lx_hi), (ly_lo, ly_hi) = view.viewRange()
        if box.width() < 50 or lx_hi <= lx_lo or ly_hi <= ly_lo:  # not laid out yet
            (x_lo, x_hi), (y_lo, y_hi) = self._range
            lx_lo, lx_hi, ly_lo, ly_hi = np.log10([x_lo, x_hi, y_lo, y_hi])
            width, height = 800.0, 500.0
        else:
            width, height = box.width(), box.height()
        px = (width / (lx_hi - lx_lo), height / (ly_hi - ly_lo))
        dx, dy = LABEL_INSET
        return px, (lx_lo * px[0] + dx, -ly_hi * px[1] + dy, lx_hi * px[0] - dx, -ly_lo * px[1] - dy)

    @staticmethod
    def label_footprint(label, px, text_px: TextWidth, line) -> list[tuple[float, float, float, float]]:
        """Boxes (pixels, as ``label_box``) that a roof label covers, as obstacles for the
        kernels' and workloads' names: a label along a diagonal as a staircase of small boxes
        along its slanted text, one per text height (its one enclosing box, most of it empty,
        kept names off a wide band beside every bandwidth label), any other as its box."""
        if label.along is None:
            return [RooflinePlot.label_box(label, px, text_px, line)]
        x, y = label.x * px[0], -label.y * px[1]
        angle = math.atan2(-label.along[1] * px[1], label.along[0] * px[0])
        c, s = math.cos(angle), math.sin(angle)
        w = text_width(label.text, text_px) + 4
        # The text's rectangle in its own turned frame, as RoofLayer paints it (plus a pixel).
        x0, y0 = label_text_origin(label, w, line)
        x0, y0 = x0 - 1, y0 - 1
        pieces = max(1, math.ceil(w / line))
        boxes = []
        for i in range(pieces):
            a, b = x0 + (w + 2) * i / pieces, x0 + (w + 2) * (i + 1) / pieces
            corners = [(u * c - v * s, u * s + v * c) for u in (a, b) for v in (y0, y0 + line + 2)]
            xs, ys = [x + cx for cx, _ in corners], [y + cy for _, cy in corners]
            boxes.append((min(xs), min(ys), max(xs), max(ys)))
        return boxes

    @staticmethod
    def label_box(label, px, text_px: TextWidth, line) -> tuple[float, float, float, float]:
        """A roof label's box in pixels (x right, y down from log10 (0, 0)); a label along a
        diagonal is given the box its slanted text covers. ``text_px``: display.TextWidth."""
        x, y = label.x * px[0], -label.y * px[1]
        w = text_width(label.text, text_px) + 4
        if label.along is not None:
            return (x, y - 0.7 * w - line, x + 0.75 * w, y + 2)
        left = x - label.anchor[0] * w
        top = y - label.anchor[1] * line - (3 if label.anchor[1] == 1 else 0)
        return (left, top, left + w, top + line)

    def markers_of(self, chip_id: str) -> tuple[np.ndarray, np.ndarray, list]:
        """(log10 x, log10 y, kernel ids) of the markers drawn for a chip (after
        ``finish_pending``): what the chart shows, for checks and exports."""
        scatter = self._markers.get(chip_id)
        if scatter is None:
            return np.zeros(0), np.zeros(0), []
        x, y = scatter.getData()
        return np.asarray(x), np.asarray(y), list(scatter.data["data"])

    def _units(self) -> Units:
        return Units(mac=self.options.ops_per_unit == OPS_PER_MAC)

    def _draw_chip(self, comparison: Comparison, c: int) -> None:
        spec, units = self.spec, self.spec.units
        chip = comparison.chips[c]
        labelled = self._labelled(chip.id)
        color = QColor(chip.color or "#808080")
        roofs = spec.roofs_of(c)
        dashed = not any(r.precision in self._wanted for r in roofs)  # none of the kernels' precisions
        rate_unit = f"{units.word}/s"
        derated = comparison.result.derated
        dram_said = f"{chip.dram.name} {chip.dram.provenance(derated).text}"
        for n, roof in enumerate(roofs):
            first = n == 0
            xs, ys = roof.points()
            pen = pg.mkPen(color, width=2.5 if first else 1.5,
                           style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
            legend = f"{chip.name} (none of the kernels' precisions)" if dashed else chip.name
            said = chip.compute_provenance(roof.precision, derated).text
            self.roofs.add_line(log10(xs), log10(ys), pen,
                                tip=f"{chip.name} {roof.precision} roof: "
                                    f"{format_si(roof.peak, rate_unit)}, {said}; {dram_said}",
                                smooth=first)
            if first:
                self._legend_wanted.append((legend, pen))
            # The ridge's derivation, so the number can be checked: peak ÷ bandwidth.
            self.roofs.add_dot(np.log10(roof.ridge), np.log10(roof.peak), color,
                               tip=f"{chip.name} {roof.precision} ridge point: "
                                   f"{roof.ridge:,.4g} {units.word}/B = "
                                   f"{format_si(roof.peak, rate_unit)} ÷ "
                                   f"{format_si(roof.bandwidth, 'B/s')} ({chip.dram.name}). "
                                   f"Left of it the {chip.dram.name} diagonal is the roof, "
                                   f"right of it the {roof.precision} peak.")
            if labelled:
                right = self._range[0][1] / 1.15 if self._range else X_SPAN[1]
                kind = "" if roof.kind == "datasheet" else f" {roof.kind}"
                self._label(f"{roof.precision} {format_si(roof.peak, rate_unit)}{kind}", right,
                            roof.peak, color, anchor=(1, 1), ridge=roof.ridge)
        self._draw_datasheet_roofs(chip, c, color, rate_unit)
        top = roofs[0].peak if roofs else 0.0
        for diagonal in (d for d in spec.diagonals if d.chip == c):
            xs, ys = diagonal.points()
            faint = QColor(color)
            faint.setAlpha(255 if diagonal.used else 60)
            pen = pg.mkPen(faint, width=1.2, style=LEVEL_STYLE[diagonal.role])
            self.roofs.add_line(
                log10(xs), log10(ys), pen,
                tip=f"{chip.name} {diagonal.name}: {format_si(diagonal.bandwidth, 'B/s')} ({diagonal.role})"
                    + ("" if diagonal.used else "; no kernel moves bytes at this level"))
            if labelled and diagonal.used:
                self._diagonal_label(f"{diagonal.name} {format_si(diagonal.bandwidth, 'B/s')}",
                                     diagonal.bandwidth, top, color, low=True)
        if labelled and roofs:
            kind = chip.dram.provenance(derated).kind
            self._diagonal_label(f"{chip.dram.name} {format_si(roofs[0].bandwidth, 'B/s')}"
                                 + ("" if kind == "datasheet" else f" {kind}"),
                                 roofs[0].bandwidth, top, color)

    def _draw_datasheet_roofs(self, chip, c: int, color: QColor, rate_unit: str) -> None:
        """With achievable roofs: the datasheet roofs they stand below (or above), thin, faint
        and in long dashes (short dashes are cache diagonals), so theoretical and measured (or
        derated) roofs show together."""
        drawn = False
        for roof in (r for r in self.spec.datasheet_roofs if r.chip == c):
            faint = QColor(color)
            faint.setAlpha(150)
            xs, ys = roof.points()
            self.roofs.add_line(
                log10(xs), log10(ys), datasheet_pen(faint),
                tip=f"{chip.name} {roof.precision} datasheet roof: "
                    f"{format_si(roof.peak, rate_unit)}, {chip.dram.name} "
                    f"{format_si(roof.bandwidth, 'B/s')} "
                    f"({chip.compute_provenance(roof.precision).text})")
            drawn = True
        if drawn and not any(name == DATASHEET_LEGEND for name, *_ in self._legend_wanted):
            self._legend_wanted.append((DATASHEET_LEGEND,
                                        datasheet_pen(QColor(self.options.foreground))))

    def _markers_as_obstacles(self, spec) -> np.ndarray:
        """The shown chips' kernel markers (the chart spec's) as boxes (decades: x0, y0, x1,
        y1), which the roofs' labels keep clear of where they can: a GEMM's square at the
        right end of its roof had sat on the roof's label. None in a chart of more than
        KERNEL_LABELS_MAX kernels, whose markers cover the roofs anyway."""
        if not 0 < len(spec.marker_x) <= KERNEL_LABELS_MAX or not spec.marker_y.size:
            return np.zeros((0, 4))
        with np.errstate(divide="ignore", invalid="ignore"):
            x, y = np.log10(spec.marker_x), np.log10(spec.marker_y)
        xs, ys = np.repeat(x, y.shape[1]), y.ravel()
        ok = np.isfinite(xs) & np.isfinite(ys)
        px = self._label_scale[0]
        rx, ry = 6.0 / px[0], 6.0 / px[1]  # a marker's half size, and a pixel
        return np.column_stack([xs - rx, ys - ry, xs + rx, ys + ry])[ok]

    def _label(self, text, x, y, color, anchor=(0, 1), ridge: float | None = None) -> None:
        """A roof label at the right, just above its line; where it would overlap a label
        already placed (near-equal peaks of several chips) or a kernel's marker, just below
        its line, then further left, a third of a label's width at a time, while it stays on
        the flat part (right of ``ridge``). Measured in pixels of the view as it is on screen
        (placed again when the view changes), so the rule holds at any size."""
        px, text_px, line = self._label_scale
        w = (text_px(text) + 8) / px[0]  # decades
        h = (line + 1) / px[1]
        lx, ly = float(np.log10(x)), float(np.log10(y))

        def box(right: float, above: bool) -> tuple[float, float, float, float]:
            return (right - w, ly if above else ly - h, right, ly + h if above else ly)

        markers = self._marker_boxes

        def free(b, of_markers: bool) -> bool:
            if any(boxes_overlap(b, o) for o in self._placed_labels):
                return False
            return not (of_markers and overlaps_any(b, markers))

        flat_from = float(np.log10(ridge)) if ridge else -np.inf
        # Clear of labels and markers on the flat part; else clear of labels there; else clear
        # of labels anywhere to the left.
        for of_markers, flat in ((True, True), (False, True), (False, False)):
            right = lx
            for _attempt in range(18):  # up to six widths, a third of one at a time
                if flat and right - w < flat_from:  # it would leave its roof's flat part
                    break
                for above in (True, False):
                    if free(b := box(right, above), of_markers):
                        self._placed_labels.append(b)
                        self.roof_labels.add_label(text, right, ly, color,
                                                   anchor=(anchor[0], 1 if above else 0))
                        return
                right -= w / 3
        self._placed_labels.append(box(lx, True))  # nowhere free: keep it at the right
        self.roof_labels.add_label(text, lx, ly, color, anchor=anchor)

    def _diagonal_label(self, text, bw, top, color, low: bool = False) -> None:
        """A label along a bandwidth diagonal inside the view: main memory's a decade below its
        ridge, other levels' near the bottom of the chart, so they do not pile up."""
        x = top / bw / 20  # shown units: on a diagonal, shown rate = bandwidth × shown intensity
        bottom = None
        if self._range is not None:
            (x_lo, x_hi), (y_lo, _y_hi) = self._range
            bottom = max(x_lo * 1.5, y_lo * 2.5 / bw)
            x = bottom if low else max(min(x, x_hi / 8), bottom)
        # Near-equal bandwidths of several chips: a label that would cover one already placed
        # slides down its own diagonal, a third of a decade at a time, while there is room.
        px, text_px, line = self._label_scale
        w = (text_px(text) + 4) / px[0]
        h = (line + 1) / px[1]
        lx = float(np.log10(x))
        for _attempt in range(6):
            ly = lx + float(np.log10(bw))
            box = (lx, ly - 0.1 * h, lx + 0.75 * w, ly + 0.75 * w * px[0] / px[1] + h)
            if not any(boxes_overlap(box, o) for o in self._placed_labels):
                break
            if bottom is not None and lx - 1 / 3 < np.log10(bottom):
                break
            lx -= 1 / 3
        self._placed_labels.append(box)
        self.roof_labels.add_label(text, lx, lx + float(np.log10(bw)), color, anchor=(0, 1),
                             along=(1.0, 1.0))

    # -- markers ----------------------------------------------------------------------------------
    def update_markers(self) -> None:
        """Redraw every kernel marker (and the overlay of a kernel being dragged).

        A chart of up to SYNC_SPOTS markers is drawn at once. A bigger one is drawn over the
        following turns of the event loop: the roofs are painted first, then the selection's
        sweep paths, then each chip's markers (TURN_BUDGET_S of work per turn), so the window
        keeps painting and answering while 30 chips of 10,000 markers appear. Meanwhile a
        chip's old markers stay up if they show the same kernels, and are hidden if not.
        ``finish_pending`` completes the chart at once (before an export, say).
        """
        cmp = self._comparison
        if cmp is None:
            return
        self._draw_kernel_labels()
        wanted = [cmp.chips[c].id for c in self._chip_indices]
        for chip_id in list(self._markers):
            if chip_id not in wanted:
                self.plot.removeItem(self._markers.pop(chip_id))
        self._pending, self._moves = wanted, []
        if not drawn_in_turns(len(cmp.kernels), len(wanted)):
            self._fill_pending()
            self._draw_extras()
            return
        ids = self._kernel_ids(cmp)
        same: dict[int, bool] = {}  # scatters filled together share one ids array: compare once
        for scatter in self._markers.values():
            old = scatter.kernel_ids
            if old is ids:
                continue
            if id(old) not in same:
                same[id(old)] = old is not None and len(old) == len(ids) and np.array_equal(old, ids)
            if not same[id(old)]:
                scatter.hide()  # another document's markers: not shown until refilled
        self._extras_pending = True
        self._fill_timer.start(0)

    def _fill_pending(self, max_seconds: float | None = None) -> None:
        start = time.perf_counter()
        while self._pending:
            self._fill_chip(self._pending.pop(0))
            if max_seconds is not None and time.perf_counter() - start >= max_seconds:
                break
        if self._pending:
            self._fill_timer.start(0)

    def finish_pending(self) -> None:
        """Fill any chips still waiting for their markers and move any spots still waiting
        (before an export, say)."""
        self._move_next(len(self._moves))
        self._fill_pending()
        if self._extras_pending:
            self._draw_extras()
        self._fill_timer.stop()  # nothing is left for it

    @property
    def labels_pending(self) -> bool:
        """Whether the labels are waiting to be placed again after a resize or a range change."""
        return self._relabel.isActive()

    @property
    def pending(self) -> list[str]:
        """Chips whose markers are not yet set or moved."""
        return list(dict.fromkeys([*self._pending, *(c for c, _k in self._moves)]))

    @property
    def drawing(self) -> bool:
        """Whether part of the chart is still to be drawn on a later turn of the event loop."""
        return bool(self._pending or self._moves or self._extras_pending)

    def _fill_chip(self, chip_id: str) -> None:
        """Set one chip's markers from the current comparison."""
        cmp = self._comparison
        c = cmp.chip_index.get(chip_id)
        if c is None:
            return
        chip = cmp.chips[c]
        x_all = log10(self._units().intensity(cmp.dram_intensity))
        y = log10(self._units().rate(cmp.result.attainable[:, c]))
        ok = np.isfinite(y) & np.isfinite(x_all)
        scatter = self._markers.get(chip.id)
        if scatter is None:
            scatter = MarkerScatter(hoverable=True, tip=self._tip(chip.id), size=10,
                                    hoverSize=14)
            scatter.setZValue(10)
            # Repaints around a moving marker blit the cached image of the thousands of
            # still ones instead of drawing them all again.
            scatter.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            scatter.sigClicked.connect(self._on_scatter_clicked)
            scatter.sig_marker_dragged.connect(
                lambda k, x, f, cid=chip.id: self.sig_marker_dragged.emit(k, cid, x, f))
            self.plot.addItem(scatter, ignoreBounds=True)
            self._markers[chip.id] = scatter
        color = QColor(chip.color or "#808080")
        rows = np.flatnonzero(ok)
        ids = self._kernel_ids(cmp)
        scatter.kernel_ids = ids
        scatter.show()
        symbols = self._symbols(cmp)
        scatter.fill(x_all[ok], y[ok], ids[rows],
                     brush=self._brush(color), pen=self._pen(color.darker(150), 1),
                     rows=rows, n_kernels=len(cmp.kernels),
                     symbols=None if symbols is None else symbols[rows])

    def _symbols(self, cmp: Comparison) -> np.ndarray | None:
        """Each kernel's marker shape (display.marker_symbols), made once per kernel set."""
        if self._symbol_cache[0] is not cmp.kernels:
            self._symbol_cache = (cmp.kernels, marker_symbols(cmp))
        return self._symbol_cache[1]

    # pyqtgraph's symbol atlas keys a marker style by the identity of its pen and brush objects:
    # a new QPen per redraw or drag step rendered the symbol again and grew the atlas each time.
    def _brush(self, color: QColor) -> QBrush:
        key = color.name(QColor.NameFormat.HexArgb)
        if key not in self._brushes:
            self._brushes[key] = pg.mkBrush(color)
        return self._brushes[key]

    def _pen(self, color: QColor, width: float) -> QPen:
        key = (color.name(QColor.NameFormat.HexArgb), width)
        if key not in self._pens:
            self._pens[key] = pg.mkPen(color, width=width)
        return self._pens[key]

    def _kernel_ids(self, cmp: Comparison) -> np.ndarray:
        """The kernels' ids as an object array (the markers' data), made once per kernel set."""
        if self._ids[0] is not cmp.kernels:
            self._ids = (cmp.kernels, np.array([k.id for k in cmp.kernels], dtype=object))
        return self._ids[1]

    def move_kernel(self, kernel_id: str) -> None:
        """The drag of ``kernel_id`` ended: move its spot in each chip's markers in place (a
        full ``setData`` of 30 items of 10,000 markers took most of a second)."""
        cmp = self._comparison
        k = cmp.kernel_index.get(kernel_id) if cmp is not None else None
        if k is None:
            self.update_markers()
            return
        # Each moved spot re-renders its chip's cached image of 10,000 markers at the next
        # paint; in a big chart the chips after the first follow one per event-loop turn.
        chips = [cmp.chips[c].id for c in self._chip_indices]
        big = drawn_in_turns(len(cmp.kernels), len(chips))
        self._moves = [(chip_id, kernel_id) for chip_id in chips]
        self._move_next(len(chips) if not big else 1)
        self._draw_extras()

    def _move_next(self, count: int) -> None:
        cmp = self._comparison
        while self._moves and count > 0:
            chip_id, kernel_id = self._moves.pop(0)
            count -= 1
            k, c = cmp.kernel_index.get(kernel_id), cmp.chip_index.get(chip_id)
            scatter = self._markers.get(chip_id)
            if k is None or c is None or scatter is None or chip_id in self._pending:
                continue  # gone, or filled later from this comparison anyway
            x = float(log10(self._units().intensity(cmp.dram_intensity[k])))
            y = float(log10(self._units().rate(cmp.result.attainable[k, c])))
            if not scatter.move_spot(k, x, y, kernel_id):  # appeared or disappeared: refill
                self._fill_chip(chip_id)
        if self._moves or self._pending:
            self._fill_timer.start(0)

    def _on_fill_timer(self) -> None:
        if background.busy():  # a file is being read or written: finish the chart after it
            self._fill_timer.start(BUSY_RETRY_MS)
            return
        if self._extras_pending:
            self._draw_extras()
            if self._pending or self._moves:
                self._fill_timer.start(0)
        elif self._moves:
            self._move_next(1)
        else:
            self._fill_pending(max_seconds=TURN_BUDGET_S)

    # -- workloads ------------------------------------------------------------------------------
    def update_workloads(self, results: list) -> None:
        """Draw the workloads' marks (display geometry from core.workload_view.workload_marks):
        each workload's three items are set only when what they show changed, so a drag step
        of one workload redraws that workload alone."""
        self.workload_results = results
        units, chips = self._units(), self._chip_indices
        cmp = self._comparison
        self.marks = []
        if results and cmp is not None and chips:
            from roofline_gui.core.workload_view import workload_marks  # noqa: PLC0415

            self.marks = workload_marks(results, units, chips)
        colors = tuple(cmp.chips[c].color or "#808080" for c in chips) if cmp else ()
        wanted = {m.workload_id for m in self.marks}
        for wid in list(self._wl_items):
            if wid not in wanted:
                for item in self._wl_items.pop(wid):
                    self.plot.removeItem(item)
                self._wl_drawn.pop(wid, None)
        for mark in self.marks:
            key = (mark.label, mark.symbol, colors, mark.point_x, mark.point_y.tobytes(),
                   mark.entry_y.tobytes(), mark.fits, self.options.foreground)
            if self._wl_drawn.get(mark.workload_id) != key:
                self._draw_workload(mark, colors)
                self._wl_drawn[mark.workload_id] = key
        self._place_workload_labels()
        if self._comparison is not None and self._chip_indices:
            self._set_legend()  # only when the workloads' names or shapes changed
        if self._path_key() != self._drawn_path_key:  # a drag of the batch keeps its path
            self._draw_extras()

    def _place_workload_labels(self) -> None:
        """Each workload's label by its highest point, placed as the kernels' names are
        (display.place_kernel_labels) clear of the roof labels, the kernels' names and each
        other; where none of the spots is free, to the right above the point."""
        if not self.marks or self._range is None:
            return
        px, bounds = self.label_geometry()
        metrics = QFontMetricsF(QFont())
        line = metrics.height()
        taken = [box for lb in (*self.roof_labels.labels, *self.kernel_labels.labels)
                 for box in self.label_footprint(lb, px, metrics.horizontalAdvance, line)]

        def item_px(text: str) -> float:  # a text item's width: the text's and its margins
            return metrics.horizontalAdvance(text) + 6

        xs = np.array([np.log10(m.point_x) for m in self.marks])
        tops = [m.point_y[np.isfinite(m.point_y)] for m in self.marks]
        ys = np.array([np.log10(t.max()) if len(t) else np.nan for t in tops])
        texts = [(m.label, m.name) for m in self.marks]
        with np.errstate(divide="ignore", invalid="ignore"):  # every mark, as an obstacle
            ox = np.concatenate([np.repeat(np.log10(m.entry_x), m.entry_y.shape[1])
                                 for m in self.marks] + [np.repeat(xs, [len(t) for t in tops])])
            oy = np.concatenate([np.log10(m.entry_y).ravel() for m in self.marks]
                                + [np.log10(t) for t in tops])
        placed = {lb.kernel: lb for lb in place_kernel_labels(
            texts, xs, ys, px, item_px, line, taken, (ox, oy), bounds, WORKLOAD_LABEL_SPOTS)}
        # Those with no room by their highest point: by their lowest (the slowest chip's).
        lows = np.array([np.log10(t.min()) if len(t) else np.nan for t in tops])
        missing = [n for n in range(len(self.marks)) if n not in placed]
        if missing:
            boxes = taken + [offset_label_box(lb, px, item_px, line) for lb in placed.values()]
            for lb in place_kernel_labels([texts[n] for n in missing], xs[missing], lows[missing],
                                          px, item_px, line, boxes, (ox, oy), bounds,
                                          WORKLOAD_LABEL_SPOTS):
                n = missing[lb.kernel]
                placed[n] = replace(lb, kernel=n)
                ys[n] = lows[n]
        for n, mark in enumerate(self.marks):
            label = self._wl_items[mark.workload_id][2]
            lb = placed.get(n)
            # A label with no free spot is left out (the point's tooltip names it), unless its
            # workload is the selected one.
            if not np.isfinite(ys[n]):
                label.hide()
                continue
            label.setVisible(lb is not None or mark.workload_id == self.selected)
            # No free spot (the selected workload's label is shown anyway): the side with more
            # room, and the name alone where the whole label does not fit there.
            room_right = bounds[2] - xs[n] * px[0] - 20
            room_left = xs[n] * px[0] - bounds[0] - 20
            right = room_right >= room_left
            fallback = ((11.0, -11.0), (0.0, 1.0)) if right else ((-11.0, -11.0), (1.0, 1.0))
            (dx, dy), anchor = (lb.offset, lb.anchor) if lb else fallback
            room = max(room_right, room_left)
            text = lb.text if lb is not None else (
                mark.label if item_px(mark.label) <= room else mark.name)
            if label.toPlainText() != text:
                label.setText(text)
            label.setAnchor(anchor)
            # TextItem pads its text by a few pixels; the offsets are the text box's corner.
            label.setPos(float(xs[n]) + dx / px[0], float(ys[n]) - dy / px[1])

    def _workload_items(self, wid: str) -> tuple:
        items = self._wl_items.get(wid)
        if items is None:
            entries = pg.ScatterPlotItem(size=8, hoverable=True, tip=self._workload_tip)
            entries.setZValue(9)
            point = WorkloadScatter(size=17, hoverable=True, hoverSize=21, tip=self._workload_tip)
            point.setZValue(14)
            point.sig_workload_dragged.connect(self.sig_workload_dragged)
            point.sigClicked.connect(lambda _s, points, _ev: len(points) and (
                self.sig_kernel_clicked.emit(points[0].data(), self.selected_chip or "")))
            label = pg.TextItem(color=self.options.foreground, anchor=(0, 1))
            label.setZValue(12)
            for item in (entries, point, label):
                self.plot.addItem(item, ignoreBounds=True)
            items = self._wl_items[wid] = (entries, point, label)
        return items

    def _draw_workload(self, mark, colors: tuple[str, ...]) -> None:
        entries, point, label = self._workload_items(mark.workload_id)
        ex, ey, eb, ed = [], [], [], []
        px, py, pb, pp = [], [], [], []
        for j, name in enumerate(colors):
            color = QColor(name)
            faint = QColor(color)
            faint.setAlpha(150)
            ok = np.isfinite(mark.entry_y[:, j]) & np.isfinite(mark.entry_x)
            ex += log10(mark.entry_x[ok]).tolist()
            ey += log10(mark.entry_y[ok, j]).tolist()
            eb += [self._brush(faint)] * int(ok.sum())
            ed += [(mark.workload_id, int(e), j) for e in np.flatnonzero(ok)]
            if np.isfinite(mark.point_y[j]):
                px.append(float(np.log10(mark.point_x)))
                py.append(float(np.log10(mark.point_y[j])))
                # Hollow where the model and its cache do not fit in the chip's memory.
                pb.append(self._brush(color if mark.fits[j] else QColor("#ffffff")))
                pp.append(self._pen(color.darker(130) if not mark.fits[j]
                                    else QColor(self.options.foreground), 2))
        pen = self._pen(QColor(self.options.foreground), 1)
        entries.setData(x=ex, y=ey, brush=eb, symbol=mark.symbol, data=ed, pen=pen)
        point.setData(x=px, y=py, brush=pb, symbol=mark.symbol, data=[mark.workload_id] * len(px),
                      pen=pp)
        if label.toPlainText() != mark.label:
            label.setText(mark.label)
        label.setVisible(bool(py))

    def workload_spots(self) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """((log10 x, log10 y) of the workloads' kernels, the same of their points) as drawn:
        what the chart shows, for checks and exports."""
        out = []
        for n in (0, 1):
            data = [items[n].getData() for items in self._wl_items.values()]
            out.append((np.concatenate([np.asarray(d[0]) for d in data] or [np.zeros(0)]),
                        np.concatenate([np.asarray(d[1]) for d in data] or [np.zeros(0)])))
        return out[0], out[1]

    def _path_key(self):
        """What the selected workload's path depends on: all of it but the batch."""
        r = next((r for r in self.workload_results if r.workload.id == self.selected), None)
        return None if r is None else (replace(r.workload, batch=1), r.chips, self._chip_indices,
                                       r.evaluation.derated, self._units())

    def _workload_tip(self, x, y, data) -> str:
        results = {r.workload.id: r for r in self.workload_results}
        units = self._units()
        if isinstance(data, tuple):  # one of the workload's kernels
            wid, e, j = data
            r = results.get(wid)
            if r is None or j >= len(self._chip_indices):
                return ""
            c = self._chip_indices[j]
            entry = r.entries[e]
            k = r.rows.start + e
            rate = float(r.evaluation.attainable[k, c])
            return (f"{entry.kernel.name} × {entry.count:,.0f} in {r.workload.name} on "
                    f"{r.chips[c].name}\nattainable {units.format_rate(rate)}\n"
                    f"{format_time(float(r.entry_time[e, c]))} of "
                    f"{format_time(float(r.time[c]))} per step")
        r = results.get(data)
        if r is None:
            return ""
        lines = [f"{r.workload.name} (drag: batch; Shift+drag: "
                 f"{'context' if r.workload.phase == 'decode' else 'sequence'})",
                 f"aggregate intensity {units.format_intensity(r.intensity)}"]
        for c in self._chip_indices:
            if np.isfinite(r.time[c]):
                lines.append(f"{r.chips[c].name}: {format_time(float(r.time[c]))} per step, "
                             f"{r.throughput[c]:,.4g} {r.workload.throughput_unit}")
        return "\n".join(lines)

    def _draw_workload_path(self, wid: str) -> None:
        """The path the selected workload's point takes as its batch runs from 1 to 4096."""
        r = next((r for r in self.workload_results if r.workload.id == wid), None)
        if r is None or not self._chip_indices:
            return
        from roofline_gui.core.workload_view import sweep_path  # noqa: PLC0415

        chips = [r.chips[c] for c in self._chip_indices]
        x, y, _batches = sweep_path(r.workload, chips, self._units(),
                                    derated=r.evaluation.derated, kernels=r.kernels)
        tip = f"The path {r.workload.name} takes as its batch runs from 1 to 4096"
        for j, c in enumerate(self._chip_indices):
            color = QColor(r.chips[c].color or "#808080")
            color.setAlpha(55)
            self.paths.add_line(log10(x), log10(y[:, j]), pg.mkPen(color, width=9), tip=tip)

    def _draw_extras(self) -> None:
        """Measured points with their gap, the selection ring and its sweep path, lifted kernel."""
        self._extras_pending = False
        for item in self._extras:
            self.plot.removeItem(item)
        self._extras.clear()
        self.paths.clear()
        cmp = self._comparison
        for k in cmp.measured_rows:
            measured = cmp.measured_rate(k)
            if measured is not None:
                self._draw_measured(cmp, k, measured)
        if self.selected in cmp.kernel_index:
            self._draw_selection(cmp, cmp.kernel_index[self.selected])
        elif self.selected is not None:
            self._draw_workload_path(self.selected)
        self._drawn_path_key = self._path_key()
        self.paths.finish()
        self._draw_lifted()

    def _add_extra(self, item) -> None:
        self.plot.addItem(item, ignoreBounds=True)
        self._extras.append(item)

    def _draw_measured(self, cmp: Comparison, k: int, measured: float) -> None:
        x = float(np.log10(self._units().intensity(cmp.dram_intensity[k])))
        y = float(np.log10(self._units().rate(measured)))
        from roofline_gui.core.diagnose import above_roof  # noqa: PLC0415

        above = [cmp.chips[c].name for c in self._chip_indices if above_roof(cmp, k, c)]
        # Above a roof: drawn red, as the table flags it; the explanation says why.
        star = pg.ScatterPlotItem([x], [y], symbol="star", size=16 if above else 14,
                                  brush=pg.mkBrush(None),
                                  pen=pg.mkPen("#d00000" if above else self.options.foreground,
                                               width=2 if above else 1.5))
        star.setToolTip(f"{cmp.kernels[k].name}: measured {self._units().format_rate(measured)}"
                        + (f"\nABOVE its roof on {', '.join(above)}: a figure is wrong (select "
                           "it: the explanation checks the usual causes)" if above else ""))
        star.setZValue(12)
        self._add_extra(star)
        for c in self._chip_indices:
            roof = float(cmp.result.attainable[k, c])
            if np.isfinite(roof):
                color = QColor(cmp.chips[c].color or "#808080")
                gap = pg.PlotDataItem([x, x], [y, float(np.log10(self._units().rate(roof)))],
                                      pen=pg.mkPen(color, width=1, style=Qt.PenStyle.DotLine))
                self._add_extra(gap)

    def _draw_selection(self, cmp: Comparison, k: int) -> None:
        kernel = cmp.kernels[k]
        x = self._units().intensity(cmp.dram_intensity[k])
        xs, ys = [], []
        for c in self._chip_indices:
            y = self._units().rate(cmp.result.attainable[k, c])
            if np.isfinite(y):
                xs.append(float(np.log10(x)))
                ys.append(float(np.log10(y)))
        if kernel.template is not None and can_move(kernel):
            self._draw_sweeps(cmp, k)  # the whole range: it stays put while the kernel is dragged
        ring = pg.ScatterPlotItem(xs, ys, size=20, brush=pg.mkBrush(None),
                                  pen=pg.mkPen(self.options.foreground, width=2))
        ring.setZValue(11)
        self._add_extra(ring)
        self.ring = ring  # follows the kernel while it is dragged (_draw_lifted)

    def _draw_sweeps(self, cmp: Comparison, k: int) -> None:
        """The path the kernel takes on each chip as its main parameter runs over its range:
        one evaluation of 80 steps on every shown chip, drawn as lines of one item."""
        _, ka = sweep(cmp.kernels[k], points=80)
        result = evaluate(ka, cmp.chip_arrays.take(self._chip_indices), derated=cmp.result.derated)
        x = log10(self._units().intensity(ka.intensity()[:, ROLE_INDEX["dram"]]))
        tip = f"The path {cmp.kernels[k].name} takes as its main parameter changes"
        for j, c in enumerate(self._chip_indices):
            color = QColor(cmp.chips[c].color or "#808080")
            color.setAlpha(55)
            self.paths.add_line(x, log10(self._units().rate(result.attainable[:, j])),
                                pg.mkPen(color, width=9), tip=tip)

    def _draw_lifted(self) -> None:
        """The kernel being dragged, one spot per chip, in one small reused scatter item."""
        cmp = self._comparison
        xs, ys, brushes = [], [], []
        k = cmp.kernel_index.get(self.lifted) if self.lifted is not None else None
        if k is not None:
            x = float(np.log10(self._units().intensity(cmp.dram_intensity[k])))
            for c in self._chip_indices:
                y = self._units().rate(cmp.result.attainable[k, c])
                if np.isfinite(y):
                    xs.append(x)
                    ys.append(float(np.log10(y)))
                    brushes.append(self._brush(QColor(cmp.chips[c].color or "#808080")))
        symbols = self._symbols(cmp) if k is not None else None
        self._lifted_item.setData(x=xs, y=ys, brush=brushes,
                                  pen=self._pen(QColor(self.options.foreground), 2),
                                  symbol="o" if symbols is None else str(symbols[k]))
        if k is not None and self.lifted == self.selected and self.ring in self._extras:
            self.ring.setData(x=xs, y=ys)  # the selection's rings go where the kernel is

    def update_lifted(self, comparison: Comparison) -> None:
        """A drag step: only the lifted kernel moved. Redraw its overlay, nothing else."""
        self._comparison = comparison
        self._draw_lifted()

    # -- interaction ------------------------------------------------------------------------------
    def _on_scatter_clicked(self, scatter, points, _ev) -> None:
        chip_id = next((cid for cid, s in self._markers.items() if s is scatter), None)
        if len(points) and chip_id is not None:
            self.sig_kernel_clicked.emit(points[0].data(), chip_id)

    def _tip(self, chip_id: str):
        def tip(x, y, data):
            cmp = self._comparison
            k, c = cmp.kernel_index.get(data), cmp.chip_index.get(chip_id)
            if k is None or c is None:
                return ""
            units = self._units()
            return (f"{cmp.kernels[k].name} on {cmp.chips[c].name}\n"
                    f"intensity {units.format_intensity(float(cmp.dram_intensity[k]))}\n"
                    f"attainable {units.format_rate(float(cmp.result.attainable[k, c]))}\n"
                    f"{cmp.bound_name(k, c)}-bound, limited by {cmp.limiter_name(k, c)}\n"
                    f"time {format_time(float(cmp.result.time[k, c]))}")
        return tip

    def _view_range(self):
        """((x_lo, x_hi), (y_lo, y_hi)) in data units that shows every roof and marker."""
        cmp = self._comparison
        if cmp is None or not self._chip_indices:
            return None
        xs = [cmp.dram_intensity[np.isfinite(cmp.dram_intensity)]]
        ys = [cmp.result.attainable[:, self._chip_indices].ravel(),
              np.array([m for k in cmp.measured_rows if (m := cmp.measured_rate(k)) is not None])]
        for c in self._chip_indices:
            chip = cmp.chips[c]
            peaks = np.array(list(chip.compute.values()))
            xs.append(peaks / chip.dram.bandwidth)
            ys.append(peaks)
        for r in self.workload_results:
            if r.workload.visible:
                xs.append(np.array([r.intensity]))
                ys.append(r.attainable[self._chip_indices])
                ys.append(r.evaluation.attainable[r.rows][:, self._chip_indices].ravel())
                with np.errstate(divide="ignore", invalid="ignore"):
                    xs.append(r.evaluation.kernel_arrays.intensity()[r.rows, ROLE_INDEX["dram"]])
        x = self._units().intensity(np.concatenate(xs))
        y = self._units().rate(np.concatenate(ys))
        x, y = x[np.isfinite(x) & (x > 0)], y[np.isfinite(y) & (y > 0)]
        if not len(x) or not len(y):
            return None
        x_lo, x_hi = min(x.min() / 4, 0.05), max(x.max() * 4, 1e3)
        return (x_lo, x_hi), (y.min() / 4, y.max() * 3)

