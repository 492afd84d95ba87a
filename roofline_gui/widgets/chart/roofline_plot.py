"""One roofline chart in a pyqtgraph PlotItem: a thin composer of layers.

Every change (a document edit, a drag step, the selection, a zoom) makes a new
:class:`~roofline_gui.core.chart_scene.ChartScene`, reusing the parts that did not change, and
hands it to each layer, which draws what it shows from the scene alone when one of its parts
changed. Nothing is drawn here and no item is kept here, so no item can outlive the scene it
was drawn from. The layers (``widgets/chart/layers/``), bottom to top: roofs, workloads,
markers, overlays (measured points, selection, sweep paths, the dragged kernel), kernels'
names, roofs' labels; the legend and the view's note sit on the view box.

The view's range: automatic until the user zooms or pans, then theirs. Automatic, it is the
scene's fit (every kernel, roof and workload; outliers kept out, with a note) after every
change but a drag step; theirs, a note says how many kernels lie outside it, and a click on it
(or pyqtgraph's "A" button) makes it automatic again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import QGraphicsItem

from roofline_gui.core import chart_labels
from roofline_gui.core.chart_labels import LabelGeometry, geometry_for, place_labels
from roofline_gui.core.chart_scene import (
    ChartScene,
    Selection,
    changed_parts,
    kernels_out,
    measured_points,
    roofs_of,
    with_edge_room,
    without_roof,
    workloads_outside,
)
from roofline_gui.core.comparison import Comparison
from roofline_gui.core.display import chart_spec
from roofline_gui.core.i18n import N_, _, clauses, listed, ngettext
from roofline_gui.core.units import OPS_PER_MAC, Units
from roofline_gui.widgets.chart.layers.base import Style
from roofline_gui.widgets.chart.layers.key import PeakKeyLayer
from roofline_gui.widgets.chart.layers.labels import KernelNamesLayer, RoofLabelsLayer
from roofline_gui.widgets.chart.layers.legend import LegendLayer
from roofline_gui.widgets.chart.layers.levels import LevelPointsLayer
from roofline_gui.widgets.chart.layers.markers import KernelMarkersLayer, drawn_in_turns
from roofline_gui.widgets.chart.layers.note import ViewNote
from roofline_gui.widgets.chart.layers.overlays import OverlaysLayer
from roofline_gui.widgets.chart.layers.roofs import DATASHEET_LEGEND, RoofsLayer
from roofline_gui.widgets.chart.layers.workloads import WorkloadsLayer
from roofline_gui.widgets.chart.plot_items import GridLines
from roofline_gui.widgets.common.axes import longest_fitting

LABEL_ALL_CHIPS = chart_labels.LABEL_ALL_CHIPS
__all__ = ["DATASHEET_LEGEND", "LABEL_ALL_CHIPS", "RooflinePlot", "ViewOptions", "drawn_in_turns"]


#: pixels within which markers of one kernel on several chips are one stack (clicked in turn)
STACK_PX = 1.5


def empty_range() -> tuple:
    """What an empty chart shows (no chip yet): whole decades of the ranges kernels and chips
    take, 0.01 to 10,000 op/B (read as B/F, its labels 100 to 0.0001) and 1 Gop/s to
    1 Pop/s, not pyqtgraph's 1 to 10."""
    return (1e-2, 1e4), (1e9, 1e15)


#: what a new session's chart says, where it is empty (overlay's note, side by side's grid)
NO_CHIP_YET = N_("No chip yet: the Hardware panel's Add… puts one on the chart; Help → "
                 "Examples opens finished sessions")


def roofless_tip(gaps) -> str:
    """Each (chip, precision, tags) of ``without_roof`` as a line: which chip has no roof for
    which kernels."""
    return "\n".join(_("{chip} has no {precision} roof: {kernels} not drawn on it").format(
        chip=chip, precision=precision, kernels=tags) for chip, precision, tags in gaps)


#: The view's limits, log10 decades: intensity 10^-9 to 10^12 op/B, performance 1 op/s to
#: 10^27 op/s (a zettascale machine is 10^21); a zoom out stops there
VIEW_LIMITS = {"xMin": -9.0, "xMax": 12.0, "yMin": 0.0, "yMax": 27.0,
               "maxXRange": 21.0, "maxYRange": 27.0}


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
    memory_levels: bool = False  # a point per memory level (hierarchical roofline)
    bytes_per_op: bool = False  # the x axis read as B/F (its labels 1/intensity)


@dataclass
class RangeMode:
    """Whether the view's range follows the scene (automatic) or the user's zoom and pan."""

    auto: bool = True


class RooflinePlot(QObject):
    """Composes the chart's layers in ``plot_item``; emits clicks and drags."""

    sig_kernel_clicked = Signal(str, str)  # kernel id, chip id
    sig_marker_dragged = Signal(str, str, float, bool)  # kernel id, chip id, op/B, finished
    #: workload id, shown intensity under the cursor, finished, Shift held
    sig_workload_dragged = Signal(str, float, bool, bool)
    #: a roof dragged: (what, chip id...), log10 x and y under the pointer, finished, modifiers
    sig_roof_dragged = Signal(tuple, float, float, bool, object)

    def __init__(self, plot_item: pg.PlotItem, options: ViewOptions | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.plot = plot_item
        self.options = options or ViewOptions()
        self.scene: ChartScene | None = None
        self.workload_results: list = []  # the document's WorkloadResults, set by the canvas
        self.selected: str | None = None
        self.selected_chip: str | None = None
        self.lifted: str | None = None
        self.axis_titles = {"left": True, "bottom": True}  # in a grid, the outer charts' only
        #: the longest form of the y and x titles (_title_forms) the chart's sides hold
        self._cramped = (0, 0)
        self.range_mode = RangeMode()  # shared by the charts of a grid (their axes are linked)
        #: the range to fit, where several charts share one (side by side); default: this one's
        self.shared_fit = None
        self._applying_range = False
        self._comparison: Comparison | None = None
        self._chip_indices: list[int] = []
        self._setup_plot()
        style = Style(self.options.foreground, self.options.background)
        self.roofs = RoofsLayer(plot_item, style)
        self.roofs.item.sig_roof_dragged.connect(self.sig_roof_dragged.emit)
        self.workloads = WorkloadsLayer(plot_item, style, self.sig_workload_dragged.emit)
        self.markers = KernelMarkersLayer(plot_item, style, self.sig_marker_dragged.emit)
        self.levels = LevelPointsLayer(plot_item, style, self.markers.symbol_of)
        self.overlays = OverlaysLayer(plot_item, style, self.markers.symbol_of, beneath=self.roofs.item)
        self.names = KernelNamesLayer(plot_item, style)
        self.roof_labels = RoofLabelsLayer(plot_item, style)
        self.key = PeakKeyLayer(plot_item, style)
        self.legend = LegendLayer(plot_item, style)
        self.layers = [self.roofs, self.workloads, self.markers, self.levels, self.overlays, self.names,
                       self.roof_labels, self.key, self.legend]
        for layer in self.layers:
            layer.on_click = self._on_point_clicked
        self.note = ViewNote(plot_item.getViewBox(), style, self.fit)
        #: a grid chart's title counts the kernels it draws no marker for (canvas_panel), so
        #: its note does not say them
        self.roofless_in_title = False
        view = plot_item.getViewBox()
        # the legend's corner first: the labels that follow keep off it
        self._range_scene: ChartScene | None = None  # the scene whose fit the view shows
        view.sigResized.connect(lambda _vb: self._refit_room())
        view.sigResized.connect(lambda _vb: self.scene is not None and self._place_legend(self.scene))
        view.sigResized.connect(lambda _vb: self._on_view_changed())
        view.sigResized.connect(lambda _vb: self._fit_titles())
        view.sigRangeChanged.connect(lambda *_args: self._on_view_changed())
        view.sigRangeChangedManually.connect(self._on_user_range)
        plot_item.autoBtn.clicked.disconnect()
        plot_item.autoBtn.clicked.connect(self.fit)
        # pyqtgraph's "A" in the corner, unexplained (the third tour): what it does
        plot_item.autoBtn.setToolTip(_("Fit the view to every kernel, roof and workload"))
        # and only where it would change the view: after a zoom or pan, not over the automatic
        # fit (pyqtgraph shows it on every hover of a view not its own autorange: the 36th tour
        # clicked a marker and found an unexplained "A")
        shown_by_pyqtgraph = plot_item.updateButtons

        def update_buttons() -> None:
            shown_by_pyqtgraph()
            if self.range_mode.auto:
                plot_item.autoBtn.hide()

        plot_item.updateButtons = update_buttons
        # The legend lays itself out and anchors to the view's corner after the labels that
        # keep off it were placed (a new session, a row added): they are placed again, off the
        # box it took (the article's "DDR3-2133 34 GB/s" was cut short for a box it left)
        self._placed_avoid: tuple = ()
        self._placing_legend = False  # within _place_legend's own relayout
        self._legend_moved = QTimer(self)
        self._legend_moved.setSingleShot(True)
        self._legend_moved.timeout.connect(self._on_legend_moved)
        self.legend.legend.geometryChanged.connect(self._legend_moved.start)
        # A view's change (a resize, a zoom, a linked chart's range followed) places the labels
        # once, on the event loop's next turn, and not at all where they are placed for that
        # geometry already: side by side every chart's range follows the others', so one
        # refresh of eight charts changed each view seven times, each placing its labels again
        # (0.2 s a time, all but the last thrown away), and a new window placed them six times
        # for the resizes of its first layout. A new scene places them at once; finish_pending
        # (an export) places what waits.
        self._placed_for: tuple | None = None  # the geometry the labels were placed in
        #: While a window is built its chart is drawn three times (the panel's first draw, the
        #: view settings put back, their redraw), each at a size it is never shown at: the
        #: labels wait (the canvas lets them go, release_labels) and are placed once, on the
        #: turn the window is shown. (Each placement took 100-190 ms for a shipped example: two
        #: thirds of a new window's time went to labels nobody saw.)
        self.labels_held = False
        #: the legend judged again in the view first shown (release_labels): judged in the
        #: window's first layout, before its final size, it had gone below the chart and
        #: stayed there, then come into a corner after an edit and stayed after its undo (the
        #: 44th tour, 1920 × 1080)
        self._legend_unjudged = False
        self.closed = False  # its layers' items removed (close): nothing is placed again
        self._view_placing = QTimer(self)
        self._view_placing.setSingleShot(True)
        self._view_placing.setInterval(0)
        self._view_placing.timeout.connect(self._place_for_view)

    def _setup_plot(self) -> None:
        plot = self.plot
        # The hidden top axis (the right one is the peaks' key): pyqtgraph's SI prefix would
        # re-render its (hidden) title as rich text on every range change, ten times before the
        # first paint.
        plot.getAxis("top").enableAutoSIPrefix(False)
        plot.setLabel("bottom", _("Arithmetic intensity ({unit}/B, main memory)").format(unit="op"),
                      units="")
        plot.setLabel("left", _("Attainable performance ({unit}/s)").format(unit="op"))
        self._axis_unit = ("op", False, False, False, (0, 0))
        plot.setMenuEnabled(False)
        plot.layout.setContentsMargins(4, 8, 4, 4)  # the peaks' key at the right (layers.key)
        # Zoom and pan within VIEW_LIMITS (log10): a wheel turned on and on had zoomed out to
        # 10^300 and beyond, each paint an OverflowError, the window black (the fourth tour)
        plot.getViewBox().setLimits(**VIEW_LIMITS)
        self._add_grid()

    def _add_grid(self) -> None:
        """Decade and minor grid lines as two non-antialiased paths (pyqtgraph's own grid is
        re-rendered with every repaint: docs/performance.md), outside the autorange. Faint, in
        an opaque colour mixed from the foreground and the background they lie on: Qt's raster
        engine blends translucent lines pixel by pixel (the minor grid's first paint took 18-21
        ms of the start on a 2-core Intel host), and paints opaque ones as plain spans (0.4 ms)."""
        decades = np.arange(-6, 22)
        minor = np.log10(np.outer(10.0 ** decades, np.arange(2, 10)).ravel())
        for values, alpha in ((decades.astype(float), 45), (minor, 18)):
            xs = values[(values >= -4) & (values <= 7)]
            ys = values[(values >= 4) & (values <= 21)]
            seg_x = np.concatenate([np.repeat(xs, 2), np.tile([-4.0, 7.0], len(ys))])
            seg_y = np.concatenate([np.tile([4.0, 21.0], len(xs)), np.repeat(ys, 2)])
            grid = GridLines(seg_x, seg_y, mixed(self.options.foreground, self.options.background,
                                                 alpha / 255))
            # Painted once per view: a drag step's repaint blits it (it was 3 ms a paint).
            grid.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            self.plot.addItem(grid, ignoreBounds=True)
            grid.setZValue(-10)

    @property
    def show_legend(self) -> bool:
        return self.legend.shown

    @show_legend.setter
    def show_legend(self, shown: bool) -> None:
        self.legend.shown = shown

    # -- what the document model tells ----------------------------------------------------------
    def draw(self, comparison: Comparison, chip_indices: list[int]) -> None:
        """Draw the chips at ``chip_indices`` of the comparison (new chips, mode or units)."""
        self._comparison, self._chip_indices = comparison, list(chip_indices)
        self._set_axis_titles()
        self._rebuild(spec=True, workloads=True)

    def update_kernels(self, comparison: Comparison) -> None:
        """Kernels changed (same chips)."""
        self._comparison = comparison
        self._rebuild(spec=True)

    def update_workloads(self, results: list) -> None:
        self.workload_results = results
        self._rebuild(workloads=True)

    def select_kernel(self, item_id: str | None) -> None:
        """Select a kernel or a workload: its rings and path are drawn."""
        if item_id != self.selected:
            self.selected = item_id
            self._rebuild()

    def select_chip(self, chip_id: str | None) -> None:
        """In a chart of many chips the selected chip's roofs are the ones labelled."""
        if chip_id != self.selected_chip:
            self.selected_chip = chip_id
            self._rebuild()

    def set_lifted(self, item_id: str | None) -> None:
        """Start (a kernel's or a workload's id) or end (None) a drag of its marker."""
        if item_id != self.lifted:
            self.lifted = item_id
            self._rebuild()

    # -- scenes ---------------------------------------------------------------------------------
    def _units(self) -> Units:
        return Units(mac=self.options.ops_per_unit == OPS_PER_MAC)

    def _rebuild(self, spec: bool = False, workloads: bool = False) -> None:
        """A new scene: the parts asked for made again, the selection and labels as they are
        now, everything else reused from the last scene; then every layer updated."""
        cmp, old = self._comparison, self.scene
        if cmp is None:
            return
        chips = tuple(self._chip_indices)
        units = self._units()
        results = tuple(self.workload_results)
        if old is None or workloads or (old.chips, old.spec.units) != (chips, units):
            marks = self._marks(results, units, chips)
        else:
            marks, results = old.workloads, old.results
        if old is None or spec or workloads:
            also = tuple(p for r in results for p in r.precisions)
            chart = chart_spec(cmp, units, list(chips), self.options.precisions,
                               frozenset(self.options.hidden_levels), also,
                               reuse=None if old is None else old.spec,
                               levels=self.options.memory_levels)
            measured = measured_points(cmp, chart, chips)
            self._set_axis_titles(chart)  # a kernel another level holds may have come or gone
        else:
            chart, measured = old.spec, old.measured
        selection = Selection(self.selected, self.selected_chip, self.lifted)
        if old is not None and selection == old.selection:
            selection = old.selection
        if old is not None:  # equal parts stay the same objects: their layers are not touched
            measured = old.measured if old.measured == measured else measured
        roofs = roofs_of(chart, cmp, chips)
        if old is not None and old.roofs == roofs:
            roofs = old.roofs
        scene = ChartScene(chart, cmp, chips, marks, results, measured, selection, roofs=roofs)
        if old is not None and chart is old.spec and marks is old.workloads and measured is old.measured:
            scene.__dict__["fit"] = old.fit  # the same parts: the same fit, not worked out again
        self._show(scene)

    def _marks(self, results: tuple, units: Units, chips: tuple) -> tuple:
        if not results or not chips:
            return ()
        from roofline_gui.core.workload_view import workload_marks  # noqa: PLC0415

        return tuple(workload_marks(list(results), units, list(chips)))

    def _show(self, scene: ChartScene) -> None:
        """Set the range (automatic, the scene's fit) and the labels, then update every layer."""
        self._range_scene = scene  # a resize on the way (the legend's) fits this one, not the last
        if self.range_mode.auto and scene.selection.lifted is None:
            self._apply_range(self._fit_of(scene) or empty_range(), room=True)
        # the legend takes its new entries' size first, so the labels keep off the box it will
        # have (a kernel's name ran under a Japanese legend, wider than the English: the tour)
        changed = changed_parts(self.scene, scene)
        if changed & self.legend.PARTS:
            self.legend.update(scene, changed)
            if changed & {"spec", "workloads"}:  # not on a selection (its ring): it would jump
                self._place_legend(scene, fresh=True)
                if self.legend.shown:  # in the view as the legend left it (after a restart
                    self._fit_titles()  # the y title kept a taller view's form: the 4th tour)
        self._push(self._with_labels(scene))

    #: the view's corners a legend may take, in order of preference (the note is top left)
    LEGEND_CORNERS = ((1, 1), (0, 1), (1, 0))

    #: What the legend may hide in the best corner before it goes below the chart: lines
    #: crossed, by weight (a faint level's counts a quarter); any marker, and any solid line,
    #: sends it below (at three, the fourth tour saw the serving example's H200 diagonal and
    #: TPU v5e's roof under it)
    LEGEND_LINES_MAX = 1.0

    def _place_legend(self, scene: ChartScene, fresh: bool = False) -> None:
        """The legend in the corner of the view where it hides fewest markers and lines (in the
        bottom right it had hidden TPU v1's DDR3 line and the host links: the tour), unless the
        user has dragged it somewhere; below the chart where every corner would hide a marker
        or cross a solid line (LEGEND_LINES_MAX; the third tour read markers through it). It comes
        back into the view only on a new scene (``fresh``), judged in the view as tall as it
        then is: a resize it causes itself never moves it back and forth."""
        legend = self.legend.legend
        box = self.plot.getViewBox().boundingRect()
        g = self.label_geometry(scene)
        if (not self.legend.shown or legend.user_placed or g is None or box.width() < 50
                or legend.width() <= 0 or scene.selection.lifted is not None):
            return
        if self._placing_legend:  # its own relayout's resize
            return
        if self.legend.outside:
            if not fresh:
                return
            # judged in the view as tall as it is without the rows below: taken back in first
            # (laid out at once, nothing painted between), sent below again if it must
            self._legend_outside(False)
            box = self.plot.getViewBox().boundingRect()
            g = self.label_geometry(scene)
            if g is None:
                return
        w, h = legend.width(), legend.height()
        left, top = g.view[0] * g.px[0], -g.view[3] * g.px[1]
        rects = [(left + (box.width() - 10 - w if cx else 10),
                  top + (box.height() - 10 - h if cy else 10)) for cx, cy in self.LEGEND_CORNERS]
        cost = chart_labels.hidden_under(scene, g, [(x, y, x + w, y + h) for x, y in rects])
        best = int(np.argmin(cost))  # ties: the first, bottom right
        if cost[best] >= min(chart_labels.MARKER_COST, self.LEGEND_LINES_MAX):
            self._legend_outside(True)
            return
        corner = self.LEGEND_CORNERS[best]
        offset = (-10 if corner[0] else 10, -10 if corner[1] else 10)
        if legend.corner != (corner, offset):
            legend.corner = (corner, offset)
            legend.anchor(itemPos=corner, parentPos=corner, offset=offset)

    def _legend_outside(self, outside: bool) -> None:
        """The legend below the chart or back in it, laid out at once; the view's resize that
        follows does not place it again."""
        self._placing_legend = True
        try:
            self.legend.set_outside(outside)
        finally:
            self._placing_legend = False

    def _push(self, scene: ChartScene, note: bool = True) -> None:
        """Make ``scene`` the chart's: each layer draws what changed, the note follows (unless
        ``note`` is False: a view change has updated it first)."""
        changed = changed_parts(self.scene, scene)
        self.scene = scene
        for layer in self.layers:
            layer.update(scene, changed)
        if note and scene.selection.lifted is None:  # during a drag only the dragged kernel
            self._update_note()  # moves: the count follows on release (2 ms a step at 300,000)
            if self._legend_box() != self._placed_avoid:  # a note shown, gone or of another
                self._view_placing.start()  # size: the labels keep off it

    def _with_labels(self, scene: ChartScene) -> ChartScene:
        g = self.label_geometry(scene)
        if g is None:
            return scene.with_labels(chart_labels.PlacedLabels())
        if self.labels_held:  # a window being built: placed once, in the view it first shows
            self._placed_for = None
            self._view_placing.start()
            return scene.with_labels(chart_labels.key_only(
                scene, g, selected_chip=self.selected_chip, foreground=self.options.foreground,
                roofs=self.options.show_labels))
        old = self.scene
        lifted = scene.selection.lifted
        if (scene.selection.roof_chip is not None and old is not None
                and old.selection.lifted == lifted and old.labels.px == g.px
                and old.spec.units == scene.spec.units):
            # A roof's drag: every label holds still (placing them again took 7 ms a step at
            # 1,000 x 8 and 10 workloads) and is placed again, clear of the new roof, on release.
            return scene.with_labels(old.labels)
        # During a drag only the dragged kernel moves: the roofs' labels stay where they were
        # (1 ms a step at 10,000 x 30) and are placed again, clear of it, on release.
        keep = (scene.selection.lifted is not None and old is not None
                and old.selection.lifted == scene.selection.lifted and old.roofs is scene.roofs
                and old.labels.px == g.px and old.spec.units == scene.spec.units)
        self._placed_avoid = self._legend_box()
        self._placed_for = (g.view, g.px, g.avoid)
        labels = place_labels(scene, g, selected_chip=self.selected_chip,
                              foreground=self.options.foreground, roofs=self.options.show_labels,
                              names=self.options.kernel_labels,
                              roof_labels=old.labels.roofs if keep else None,
                              key=(old.labels.key, old.labels.key_texts) if keep else None,
                              held=old.labels if keep and _ids(old.workloads) == _ids(scene.workloads)
                              else None)
        if old is not None and old.labels == labels:
            labels = old.labels  # the same texts in the same places: nothing to redraw
        return scene.with_labels(labels)

    def _fit_of(self, scene: ChartScene):
        shared = self.shared_fit() if self.shared_fit is not None else None
        return shared or scene.fit.range

    # -- the view -------------------------------------------------------------------------------
    @property
    def view_range(self):
        """((x_lo, x_hi), (y_lo, y_hi)) in shown units: the scene's fit (every roof and kernel)."""
        return None if self.scene is None else self.scene.fit.range

    def visible_range(self):
        """((x_lo, x_hi), (y_lo, y_hi)) in shown units of what the view shows now."""
        (x_lo, x_hi), (y_lo, y_hi) = self.plot.getViewBox().viewRange()
        return (10.0 ** x_lo, 10.0 ** x_hi), (10.0 ** y_lo, 10.0 ** y_hi)

    def _apply_range(self, fit, room: bool = False) -> None:
        """Show ``fit``; ``room``: an automatic fit, given EDGE_ROOM_PX above and below its
        points in this view's height (a ring was cut at a small chart's top)."""
        if fit is None:
            return
        if room:
            fit = with_edge_room(fit, self.plot.getViewBox().height())
        (x_lo, x_hi), (y_lo, y_hi) = fit
        self._applying_range = True
        try:
            self.plot.setRange(xRange=(np.log10(x_lo), np.log10(x_hi)),
                               yRange=(np.log10(y_lo), np.log10(y_hi)), padding=0)
        finally:
            self._applying_range = False
        self.plot.autoBtn.hide()

    def _refit_room(self) -> None:
        """A resize of an automatic view: its fit again, with the edges' room at the new
        height."""
        scene = self._range_scene
        if scene is not None and self.range_mode.auto and scene.selection.lifted is None:
            self._apply_range(self._fit_of(scene), room=True)

    def show_range(self, view_range) -> None:
        """Show ``view_range`` (shown units) and keep it, as after the user's own zoom."""
        self.range_mode.auto = False
        self._apply_range(view_range)
        self._on_view_changed()
        self._place_for_view()

    def fit(self) -> None:
        """Make the range automatic again and show the scene's fit (the note's click, "A")."""
        self.range_mode.auto = True
        if self.scene is not None:
            self._apply_range(self._fit_of(self.scene), room=True)
            self._on_view_changed()
            self._place_for_view()

    def _on_legend_moved(self) -> None:
        if self.scene is not None and self.scene.selection.lifted is None and \
                self._legend_box() != self._placed_avoid:
            self._on_view_changed()

    def _on_user_range(self, *_args) -> None:
        self.range_mode.auto = False

    def _on_view_changed(self) -> None:
        """A resize, zoom or pan: the labels are placed again in the view's pixels."""
        if self._applying_range or self.scene is None:
            return
        if self.scene.selection.lifted is None:  # the note first: the labels keep off it
            self._update_note()
        self._view_placing.start()

    def _place_for_view(self) -> None:
        """The labels placed in the view as it is now, unless they already are (a new scene
        placed them since the view changed)."""
        self._view_placing.stop()
        if self.scene is None:
            return
        if self._shown_nowhere():
            self._placed_for = None
            return
        if self._legend_unjudged:
            self._legend_unjudged = False
            self._place_legend(self.scene, fresh=True)
        g = self.label_geometry(self.scene)
        if g is not None and self._placed_for == (g.view, g.px, g.avoid):
            return
        self._push(self._with_labels(self.scene), note=False)

    def release_labels(self, now: bool = False) -> None:
        """The labels held (labels_held) placed, at once (``now``: the view has its size) or
        on the next turn of the event loop, in the view as it then is."""
        if not self.labels_held:
            return
        self.labels_held = False
        self._legend_unjudged = True
        if now:
            self._place_for_view()
        else:
            self._view_placing.start()

    def _shown_nowhere(self) -> bool:
        """Whether the chart is closed (a grid rebuilt without it) or its view belongs to a
        mode not shown (the overlay behind side by side: placed when it is drawn again, as a
        change of mode draws it)."""
        if self.closed:
            return True
        scene = self.plot.scene()
        view = scene.views()[0] if scene is not None and scene.views() else None
        return view is not None and not view.isVisibleTo(view.window())

    def _update_note(self) -> None:
        """Say what the view leaves out: kernels and workloads outside it (a click fits), and
        measured points far above every roof (outliers, not in the automatic range)."""
        scene = self.scene
        if not scene.chips and not scene.comparison.chips:  # a new session: where to begin
            self.note.show_text(_(NO_CHIP_YET), False)
            return
        view = self.visible_range()
        parts = []
        wholly, partly = kernels_out(scene, view)
        kernels = wholly + partly
        if wholly:
            parts.append(ngettext("{n} kernel outside the view", "{n} kernels outside the view",
                                  wholly).format(n=wholly))
        if partly:  # some of its markers (another chip's, another level's) in sight
            parts.append(ngettext("{n} kernel partly outside it", "{n} kernels partly outside it",
                                  partly).format(n=partly) if wholly else
                         ngettext("{n} kernel partly outside the view",
                                  "{n} kernels partly outside the view", partly).format(n=partly))
        n_workloads = workloads_outside(scene, view)
        if n_workloads:
            parts.append(ngettext("{n} workload outside the view",
                                  "{n} workloads outside the view", n_workloads).format(
                n=n_workloads))
        # the kernels drawn on no chip here for want of a roof (a grid chart's title says how
        # many: a note over a small chart had covered TPU v1's CNN and MLP, the 38th tour),
        # each chip's gaps in the tooltip
        nowhere, _n, gaps = (("", 0, []) if self.roofless_in_title else
                             without_roof(scene.comparison, scene.chips))
        if nowhere:
            parts.append(_("no roof for {kernels}").format(kernels=nowhere)
                         if len(scene.chips) == 1 else
                         _("no chip here has a roof for {kernels}").format(kernels=nowhere))
        tip = roofless_tip(gaps)
        outliers = [p for p in scene.measured if p.outlier]
        if outliers:
            names = listed(scene.comparison.kernels[p.kernel].name for p in outliers[:2])
            if len(outliers) > 2:
                names = _("{names} and {n} more").format(names=names, n=len(outliers) - 2)
            parts.append(ngettext(
                "{n} measured point far above every roof ({names}): left out of the automatic "
                "range", "{n} measured points far above every roof ({names}): left out of the "
                "automatic range", len(outliers)).format(n=len(outliers), names=names))
        text = clauses(parts)
        outside = bool(kernels or n_workloads)
        self.note.show_text(text + (" · " + _("click to fit") if outside else ""), outside, tip)

    def label_geometry(self, scene: ChartScene | None = None) -> LabelGeometry | None:
        """The view's pixels per decade and visible range, with the label font's measure; before
        the view is laid out, the fit in an 800 × 500 view."""
        view = self.plot.getViewBox()
        box = view.boundingRect()
        (lx_lo, lx_hi), (ly_lo, ly_hi) = view.viewRange()
        metrics = QFontMetricsF(QFont())
        if box.width() >= 50 and lx_hi > lx_lo and ly_hi > ly_lo:
            return geometry_for((lx_lo, lx_hi, ly_lo, ly_hi), (box.width(), box.height()),
                                metrics.horizontalAdvance, metrics.height(), self._legend_box())
        fit = (scene or self.scene).fit.range if (scene or self.scene) is not None else None
        if fit is None:
            return None
        (x_lo, x_hi), (y_lo, y_hi) = fit
        return geometry_for(tuple(np.log10([x_lo, x_hi, y_lo, y_hi])), (800.0, 500.0),
                            metrics.horizontalAdvance, metrics.height())

    def _legend_box(self) -> tuple:
        """The legend's box and the view's note's, in the view's (log10) coordinates, which
        labels keep off: names had run under the legend at 1280 × 800, and the note after a
        zoom covered a kernel's name (the tour)."""
        legend, note = self.legend.legend, self.note.item
        boxes = []
        for item in ((legend,) if self.legend.shown else ()) + (note,):
            if item.isVisible() and item.boundingRect().width() > 0:
                rect = self.plot.getViewBox().mapSceneToView(item.sceneBoundingRect()).boundingRect()
                boxes.append((rect.left(), rect.top(), rect.right(), rect.bottom()))
        return tuple(boxes)

    def _set_axis_titles(self, spec=None) -> None:
        """The axes' titles for the units and view; ``spec`` (default: the scene's), with Memory
        levels off, tells whether a kernel another level holds has its point there."""
        unit = self._units().word
        levels = self.options.memory_levels
        bf = self.options.bytes_per_op
        spec = spec if spec is not None else self.scene.spec if self.scene is not None else None
        held = not levels and spec is not None and spec.levels is not None and len(spec.levels) > 0
        # the longest form of each title that fits
        lefts, bottoms = self._title_forms(levels, bf, held)
        form = self._cramped
        if self._axis_unit != (unit, levels, bf, held, form):  # setLabel lays out
            self._axis_unit = (unit, levels, bf, held, form)
            left, bottom = lefts[form[0]], bottoms[form[1]]
            axis = self.plot.getAxis("bottom")
            if hasattr(axis, "set_inverted"):
                axis.set_inverted(bf)
            self.plot.setLabel("left", left.format(unit=unit))
            self.plot.setLabel("bottom", bottom.format(unit=unit))
        for side, shown in self.axis_titles.items():
            axis = self.plot.getAxis(side)
            if axis.label.isVisible() != shown:  # showLabel re-lays out and repaints the axis
                axis.showLabel(shown)

    def title_forms(self) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
        """(unit, y titles, x titles) as the axes show them now, longest first (a grid's
        titles, one for all its charts); None before the first draw."""
        if self._axis_unit is None:
            return None
        unit, levels, bf, held, _form = self._axis_unit
        return (unit, *self._title_forms(levels, bf, held))

    @staticmethod
    def _title_forms(levels: bool, bf: bool, held: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The y and x axes' titles ({unit} to fill in), longest first: the whole one, then
        shorter ones for small charts (the whole ones ran into each other, or past the chart's
        edge); the y axis's last is its unit alone (eight charts at 1280 × 800, 25 px tall)."""
        lefts = (_("Attainable performance ({unit}/s)"), _("Performance ({unit}/s)"), "{unit}/s")
        if bf:  # the same axis, read as bytes per op (B/F): right is fewer bytes per op
            bottoms = ((_("Bytes per op, B/F (B/{unit}, at each memory level)"),
                        _("B/F (B/{unit}, each memory level)")) if levels else
                       (_("Bytes per op, B/F (B/{unit}, main memory; a kernel another level "
                          "holds, also at that level)"),
                        _("B/F (B/{unit}, main memory; held kernels also at their level)"))
                       if held else
                       (_("Bytes per op, B/F (B/{unit}, main memory)"),
                        _("B/F (B/{unit}, main memory)"))) + (_("B/F (B/{unit})"),)
        else:
            # Memory levels off, a kernel another level holds has its point there too: the
            # title says so (the second tour read its x as main memory's)
            bottoms = ((_("Arithmetic intensity ({unit}/B, at each memory level)"),
                        _("Intensity ({unit}/B, each memory level)")) if levels else
                       (_("Arithmetic intensity ({unit}/B, main memory; a kernel another "
                          "level holds, also at that level)"),
                        _("Intensity ({unit}/B, main memory; held kernels also at their level)"))
                       if held else
                       (_("Arithmetic intensity ({unit}/B, main memory)"),
                        _("Intensity ({unit}/B, main memory)"))) + (_("Intensity ({unit}/B)"),)
        return lefts, bottoms

    def _fit_titles(self) -> None:
        """After a resize: each axis's longest title that fits the chart's side (four charts
        side by side at 1280 × 800: the y title ran into the x title below it, the x title into
        the next chart's)."""
        box = self.plot.getViewBox().boundingRect()
        if box.height() < 20:
            return  # not laid out yet
        unit, levels, bf, held, _form = self._axis_unit
        lefts, bottoms = self._title_forms(levels, bf, held)
        cramped = (longest_fitting(lefts, unit, box.height()),
                   longest_fitting(bottoms, unit, box.width()))
        if cramped != self._cramped:
            self._cramped = cramped
            self._set_axis_titles()

    # -- interaction and exports ------------------------------------------------------------------
    def _on_point_clicked(self, ev) -> None:
        """A click on a spot of any layer: the kernel (or workload) and chip nearest it."""
        if ev.button() != Qt.MouseButton.LeftButton:
            return
        picked = self.pick_at(ev.scenePos())
        if picked is not None:
            ev.accept()
            self.sig_kernel_clicked.emit(picked[0], picked[1] or self.selected_chip or "")

    def pick_at(self, scene_pos) -> tuple[str, str | None] | None:
        """(id, chip id or None) of the spot nearest ``scene_pos`` among every layer's point
        items (markers, points per memory level, selection rings, hollow marks, measured
        stars, workloads' marks); of two at the same distance, one that names its chip (a
        marker, not a selection ring round it), then the one drawn on top. Where several
        markers lie on the point (several chips' of one kernel, or several kernels' on one chip)
        and one of them is selected, the next of them (a click again on a stack of markers goes
        through it). None when no spot is under it."""
        ranked = self.stack_at(scene_pos)
        if not ranked:
            return None
        best = ranked[0]
        stack = self._in_turn([t for t in ranked if t[1] is not None])
        current = (self.selected, self.selected_chip)
        if len(stack) > 1 and current in stack:
            return stack[(stack.index(current) + 1) % len(stack)]
        return best

    def _in_turn(self, stack: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
        """A stack's targets in the session's order (kernels, then chips): the order clicks go
        round them in. By distance, it changed with the selection (the selected marker is
        drawn on top), and clicks went between two of three, never to the third (the
        twenty-second tour)."""
        cmp = self._comparison
        kernels = {k.id: i for i, k in enumerate(cmp.kernels)} if cmp is not None else {}
        chips = {c.id: i for i, c in enumerate(cmp.chips)} if cmp is not None else {}
        return sorted(stack, key=lambda t: (kernels.get(t[0], len(kernels)), str(t[0]),
                                            chips.get(t[1], len(chips))))

    def stack_at(self, scene_pos) -> list[tuple[str, str | None]]:
        """The targets (id, chip id or None) of the spots under ``scene_pos``, nearest first:
        the nearest, then those within STACK_PX of it that name a chip (pick_at goes round
        them)."""
        found: dict[tuple, tuple] = {}  # target -> its best key
        centre: dict[tuple, object] = {}  # target -> its spot's centre (scene)

        def gather(at) -> None:
            for layer in self.layers:
                for item, pick in layer.pickers:
                    if not item.isVisible():
                        continue
                    for spot in item.pointsAt(item.mapFromScene(at)):
                        target = pick(spot.data())
                        if target is None:
                            continue
                        where = item.mapToScene(spot.pos())
                        key = ((where - scene_pos).manhattanLength(), target[1] is None,
                               -item.zValue())
                        if target not in found or key < found[target]:
                            found[target], centre[target] = key, where

        gather(scene_pos)
        if not found:
            return []
        # and every spot on the nearest one's centre: a smaller marker stacked under a larger
        # one is missed by a click near the larger one's edge (TPU v3's "5, 6" under the
        # V100's, which the tooltip named and no click reached: the twenty-first tour)
        gather(centre[min(found, key=found.get)])
        ranked = sorted(found, key=found.get)
        best = ranked[0]
        # on the same spot as the nearest, centre to centre: whatever the click's distance
        return [best] + [t for t in ranked[1:] if t[1] is not None
                         and (centre[t] - centre[best]).manhattanLength() < STACK_PX]

    def set_exporting(self, exporting: bool) -> None:
        """Around an export: what is only for the screen (selection, drag, note) is hidden."""
        for layer in self.layers:
            layer.set_exporting(exporting)
        self.note.set_exporting(exporting)

    def close(self) -> None:
        """Remove every layer's items from the plot (a grid of charts is being rebuilt); its
        labels are never placed again (a grid rebuilt for another count of columns had its
        old charts' labels placed on the next turn, for views no longer shown)."""
        self.closed = True
        self._view_placing.stop()
        for layer in self.layers:
            layer.close()

    def finish_pending(self) -> None:
        """Complete any part of the chart still to come (before an export, say)."""
        self.markers.finish_pending()
        if self._view_placing.isActive():
            self._place_for_view()

    @property
    def pending(self) -> list[str]:
        """Chips whose markers are not yet set."""
        return self.markers.pending

    @property
    def drawing(self) -> bool:
        return bool(self.markers.pending)

    @property
    def labels_pending(self) -> bool:
        """The view has changed and its labels are placed on the event loop's next turn."""
        return self._view_placing.isActive()

    def markers_of(self, chip_id: str):
        """(log10 x, log10 y, kernel ids) of the markers drawn for a chip."""
        return self.markers.markers_of(chip_id)

    def workload_spots(self):
        return self.workloads.spots()

    @property
    def marks(self) -> tuple:
        """The workloads' marks as drawn (core.workload_view.WorkloadMarks)."""
        return () if self.scene is None else self.scene.workloads

    @property
    def kernel_labels(self):
        return self.names

    @property
    def paths(self):
        return self.overlays.paths

    @property
    def ring(self):
        return self.overlays.ring


def _ids(marks) -> tuple[str, ...]:
    return tuple(m.workload_id for m in marks)


def mixed(foreground: str, background: str, share: float) -> QColor:
    """The opaque colour of ``foreground`` drawn at ``share`` opacity over ``background``."""
    f, b = QColor(foreground), QColor(background)
    return QColor(*(round(share * x + (1 - share) * y) for x, y in (
        (f.red(), b.red()), (f.green(), b.green()), (f.blue(), b.blue()))))
