"""The live roofline canvas: an overlay chart (all chips on one plot) or side-by-side charts
(one small plot per chip, axes linked), kept in step with the document model.

Kernels dragged from the library can be dropped here to add them to the session; dragging a
kernel's marker changes its main parameter (through the document model, so it is undoable),
and dragging a workload's point changes its batch (Shift: its context or sequence).
"""

from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QGraphicsView,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from roofline_gui.core.chart_labels import LABEL_INSET, MIN_LABELLED_PX
from roofline_gui.core.chart_scene import Selection, union, without_roof
from roofline_gui.core.chip import WHAT_IF_SPAN, round_factor
from roofline_gui.core.i18n import _, ngettext
from roofline_gui.core.roofline import LIMITER_UNSUPPORTED
from roofline_gui.core.units import format_si
from roofline_gui.io.presets import Presets
from roofline_gui.io.validate import MAX_BANDWIDTH, MAX_COMPUTE
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.models.mime import MIME_KERNELS, decode
from roofline_gui.widgets.chart import pg_private, roofline_plot
from roofline_gui.widgets.chart.plot_items import GridKey
from roofline_gui.widgets.chart.roofline_plot import RangeMode, RooflinePlot, ViewOptions
from roofline_gui.widgets.common.axes import SIAxis, longest_fitting

#: The most of a chart's width (side by side) the key of its peaks may take: at 0.3 two charts
#: of the training example at 1280 × 800 had none; at 0.35 "fp16 62.5 TMAC/s" (128 px) folded
#: away in two columns with a scroll bar beside them (the fourth tour)
KEY_SHARE = 0.4

class _KernelDropMixin:
    """Accepts kernel drags from the preset library (synthesized events work the same).
    The concrete views declare ``sig_kernels_dropped`` (signals must live on the QObject class)."""

    def _accepts(self, event) -> bool:
        decoded = decode(event.mimeData(), MIME_KERNELS)
        return decoded is not None and decoded[0] == "preset"

    def dragEnterEvent(self, event) -> None:  # noqa: N802 (Qt API)
        if self._accepts(event):
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:  # noqa: N802
        self.dragEnterEvent(event)

    def dropEvent(self, event) -> None:  # noqa: N802
        decoded = decode(event.mimeData(), MIME_KERNELS)
        if decoded is None or decoded[0] != "preset":
            event.ignore()
            return
        event.setDropAction(Qt.DropAction.CopyAction)
        event.accept()
        self.sig_kernels_dropped.emit(decoded[1])

    def _repaint_bounding_rect(self) -> None:
        # A drag step exposes a few small rects (old and new marker, ring, name). Painted as a
        # region of several rects, the 30 chips' cached marker images are clipped span by span:
        # 3.9 ms against 0.85 ms for the same changes' bounding rect (10,000 x 30, this host).
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)


class OverlayView(_KernelDropMixin, pg.PlotWidget):
    sig_kernels_dropped = Signal(list)  # preset kernel ids

    def __init__(self, parent=None, background="w") -> None:
        super().__init__(parent, background=background,
                         axisItems={"left": SIAxis("left"), "bottom": SIAxis("bottom")})
        self.setAcceptDrops(True)
        self._repaint_bounding_rect()


class GridView(_KernelDropMixin, pg.GraphicsLayoutWidget):
    sig_kernels_dropped = Signal(list)  # preset kernel ids
    sig_resized = Signal()

    def __init__(self, parent=None, background="w") -> None:
        super().__init__(parent)
        self.setBackground(background)
        self.setAcceptDrops(True)
        self._repaint_bounding_rect()
        self.ci.layout.setContentsMargins(*GRID_MARGINS)

    def resizeEvent(self, ev) -> None:  # noqa: N802 (Qt API)
        super().resizeEvent(ev)
        self.sig_resized.emit()

    def wheelEvent(self, ev) -> None:  # noqa: N802 (Qt API)
        """Where the grid scrolls, the wheel scrolls it (the guide says so); Ctrl+wheel zooms
        the linked charts. The fourth tour's wheel over eight charts zoomed them all out."""
        area = self.parentWidget().parentWidget() if self.parentWidget() else None
        bar = area.verticalScrollBar() if isinstance(area, QScrollArea) else None
        if bar is not None and bar.maximum() > 0 and \
                not ev.modifiers() & Qt.KeyboardModifier.ControlModifier:
            QApplication.sendEvent(bar, ev)  # the scroll bar's own wheel: a step of rows
            return
        super().wheelEvent(ev)


class CanvasPanel(QWidget):
    # intensity (op/B) and performance (op/s) under the pointer; NaN, NaN: off every chart
    sig_cursor_moved = Signal(float, float)

    def __init__(self, model: DocumentModel, presets: Presets, parent=None,
                 background: str = "w", foreground: str = "#202020",
                 hold_labels: bool = False) -> None:
        super().__init__(parent)
        self.model, self.presets = model, presets
        #: the charts' labels wait for release_labels (a window being built: RooflinePlot's
        #: labels_held)
        self._labels_held = hold_labels
        self.options = ViewOptions(foreground=foreground,
                                   background=pg.mkColor(background).name(),
                                   ops_per_unit=float(model.units.ops_per_unit),
                                   kernel_labels=model.view.kernel_labels,
                                   memory_levels=model.view.memory_levels,
                                   bytes_per_op=model.view.bytes_per_op)
        self.mode = "overlay"
        self.energy_chart = None  # the Energy mode's chart, built when first shown
        self._drag_serial = 0
        self._roof_start = None  # the chip a roof's drag began on
        self._workload_drag: tuple | None = None  # (id, field, ladder values, their intensity)
        self._lifted: str | None = None
        self._shown: tuple = ()
        self.overlay = OverlayView(background=background)
        self.overlay_plot = self._make_plot(self.overlay.getPlotItem())
        self._background = background
        self._grid: GridView | None = None  # built on first use of side-by-side mode
        self._grid_area: QScrollArea | None = None
        self.grid_plots: list[RooflinePlot] = []
        self._grid_titles: tuple | None = None  # the grid's y and x titles (LabelItems)
        self._grid_key: GridKey | None = None  # the grid's key under them
        self._key_pinned = False  # the key at its own row (an export), not kept in sight
        self._columns = self._rows = 0  # the grid's, as last built
        self._title_rows = 1  # the rows its y title spans: those in sight
        self.stack = QStackedWidget()
        self.stack.addWidget(self.overlay)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self._proxies = []
        self._pointer_out = False  # the pointer left the charts since it last moved over one
        self._watch(self.overlay)
        # A whole redraw of a big chart waits for the next turn of the event loop, so the side
        # panels take in a newly opened document (and paint) in one turn and the chart in the
        # next, rather than all of it in one long block.
        self._redraw_pending = False
        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.timeout.connect(self._redraw_now)
        model.sig_document_changed.connect(self.refresh)
        model.sig_selection_changed.connect(self._on_selection_changed)
        model.sig_view_changed.connect(self._on_view_changed)
        self.refresh(model.document, None)

    def _watch(self, view) -> None:
        view.sig_kernels_dropped.connect(self._on_kernels_dropped)
        self._proxies.append(pg.SignalProxy(view.scene().sigMouseMoved, rateLimit=60,
                                            slot=self._on_mouse_moved))
        view.installEventFilter(self)  # the pointer leaving a chart's view
        view.scene().sigMouseMoved.connect(self._pointer_over)  # at once, not rate-limited

    def _pointer_over(self, _pos) -> None:
        self._pointer_out = False

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt API)
        """The pointer leaving a chart's view: the readout goes (a quick flick onto a panel
        left the last place over the chart in the status bar: the twelfth tour), and a move
        the rate limit held back, delivered after, is not read."""
        if event.type() == QEvent.Type.Leave:
            self._pointer_out = True
            self.sig_cursor_moved.emit(math.nan, math.nan)
        return super().eventFilter(watched, event)

    @property
    def grid_area(self) -> QScrollArea:
        """The grid of charts in its scroll area (the stack's page for side by side)."""
        _ = self.grid
        return self._grid_area

    @property
    def grid(self) -> GridView:
        if self._grid is None:
            self._grid = GridView(background=self._background)
            # Many charts side by side on a small screen scroll rather than shrink past use
            # (eight at 1280 × 800 were 25 px tall): each row keeps its least (_least_row)
            self._grid_area = QScrollArea()
            self._grid_area.setWidgetResizable(True)
            self._grid_area.setFrameShape(QFrame.Shape.NoFrame)
            self._grid_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
            self._grid_area.setWidget(self._grid)
            self.stack.addWidget(self._grid_area)
            self._watch(self._grid)
            self._grid.sig_resized.connect(self._grid_resized)
            self._grid.sig_resized.connect(self._equal_keys)
            self._grid.sig_resized.connect(self._fit_grid_titles)
            self._grid_area.verticalScrollBar().valueChanged.connect(self._title_in_sight)
            self._grid_area.verticalScrollBar().valueChanged.connect(self._key_in_sight)
            self._grid_area.verticalScrollBar().rangeChanged.connect(self._key_in_sight)
        return self._grid

    def release_labels(self) -> None:
        """The window is built: every chart's labels are placed on the next turn of the event
        loop, in the view it is then shown in (hold_labels)."""
        self._labels_held = False
        for plot in (self.overlay_plot, *self.grid_plots):
            plot.release_labels()

    def _make_plot(self, plot_item: pg.PlotItem) -> RooflinePlot:
        plot = RooflinePlot(plot_item, self.options, self)
        plot.labels_held = self._labels_held
        plot.sig_kernel_clicked.connect(self._on_kernel_clicked)
        plot.sig_marker_dragged.connect(self._on_marker_dragged)
        plot.sig_workload_dragged.connect(self._on_workload_dragged)
        plot.sig_roof_dragged.connect(self._on_roof_dragged)
        plot.workload_results = self.model.workload_results
        return plot

    @property
    def plots(self) -> list[RooflinePlot]:
        return [self.overlay_plot] if self.mode == "overlay" else self.grid_plots

    # -- keeping up with the document ---------------------------------------------------------------
    def _on_view_changed(self, view, changed) -> None:
        """The model's view state: units, kernel names and mode, as the chart draws them."""
        self.options.ops_per_unit = float(view.units.ops_per_unit)
        self.options.kernel_labels = view.kernel_labels
        self.options.memory_levels = view.memory_levels
        self.options.bytes_per_op = view.bytes_per_op
        if "mode" in changed:
            self.set_mode(view.mode)
        elif changed & {"mac", "kernel_labels", "memory_levels", "bytes_per_op"}:
            self.redraw()

    def set_mode(self, mode: str) -> None:
        """Overlay, side by side, or energy: the energy chart (op per joule, or op/s under the
        board power) in the roofline's place; the roofline's own mode is kept beneath it."""
        if mode == "energy":
            if self.energy_chart is None:
                from roofline_gui.widgets.common.energy_chart import EnergyChart  # noqa: PLC0415

                self.energy_chart = EnergyChart(self.model)
                self.stack.addWidget(self.energy_chart)
            self.stack.setCurrentWidget(self.energy_chart)
            return
        if mode not in ("overlay", "side_by_side"):
            return
        if mode == self.mode:
            self.stack.setCurrentWidget(self.overlay if mode == "overlay" else self.grid_area)
            return
        self.mode = mode
        self.stack.setCurrentWidget(self.overlay if mode == "overlay" else self.grid_area)
        self.refresh(self.model.document, None)

    def redraw(self) -> None:
        """Redraw everything (after a change of view options)."""
        self.refresh(self.model.document, None)

    def _shape(self, doc) -> tuple:
        """What the roofs depend on: the shown chips, the kernels' precisions and the mode."""
        used = np.flatnonzero(np.bincount(self.model.comparison.kernel_arrays.precision)).tolist()
        used += sorted({w.activations for w in doc.workloads})
        return tuple(c for c in doc.chips if c.visible), tuple(used), self.mode

    @property
    def drawing(self) -> bool:
        """Whether part of the chart is still to come on a later turn of the event loop."""
        return self._redraw_pending or any(plot.drawing for plot in self.plots)

    def refresh(self, doc, touched) -> None:
        if self.model.serving_only:  # the Serving view's settings alone: nothing here moved
            return
        if self._redraw_pending or (touched is None and roofline_plot.drawn_in_turns(
                len(doc.kernels), len(doc.visible_chips))):
            self._redraw_pending = True  # any change meanwhile is part of that redraw
            self._redraw_timer.start(0)
            return
        self._refresh_now(doc, touched)

    def _redraw_now(self) -> None:
        if self._redraw_pending:
            self._redraw_pending = False
            self._refresh_now(self.model.document, None)

    def _refresh_now(self, doc, touched) -> None:
        cmp = self.model.comparison
        shape = self._shape(doc)
        workload_ids = {w.id for w in doc.workloads}
        if touched and shape == self._shown and touched <= workload_ids:
            for plot in self.plots:  # a workload's edit or drag step: its marks only
                plot.update_workloads(self.model.workload_results)
            return
        for plot in self.plots:
            plot.workload_results = self.model.workload_results
        only_kernels = (touched is not None and shape == self._shown
                        and all(t in cmp.kernel_index for t in touched))
        if only_kernels:  # a drag step among them: the chart redraws only what changed
            for plot in self.plots:
                plot.update_kernels(cmp)
            return
        if touched is None or shape[:1] != self._shown[:1] or shape[2:] != self._shown[2:]:
            for plot in self.plots:  # another document, chips, mode or units: it all fits again
                plot.range_mode.auto = True
        self._shown = shape
        indices = [i for i, c in enumerate(doc.chips) if c.visible]
        if self.mode == "overlay":
            self.overlay_plot.selected = self.model.selected_kernel
            self.overlay_plot.selected_chip = self.model.selected_chip
            self.overlay_plot.draw(cmp, indices)
        elif self._grid_shows(cmp, indices):
            self._redraw_grid(cmp, indices)
        else:
            self._rebuild_grid(cmp, indices)

    def _grid_shows(self, cmp, indices: list[int]) -> bool:
        """Whether the grid's charts are those of these chips, in this order."""
        shown = [p.scene.comparison.chips[p.scene.chips[0]].id if p.scene and p.scene.chips
                 else None for p in self.grid_plots]
        return bool(shown) and shown == [cmp.chips[c].id for c in indices] and \
            self._columns == self.grid_columns(len(indices))

    def _redraw_grid(self, cmp, indices: list[int]) -> None:
        """The same chips' charts drawn again in place (a roof's drag step, an edit): made anew,
        the chart under the pointer went away at each step, and the new one, fitted again to
        the moved roof, mapped the pointer to a new value: the roof ran off (1e-31 B/s)."""
        for plot, c in zip(self.grid_plots, indices, strict=True):
            _chip_title(plot.plot, cmp, c, cmp.chips[c].id == self.model.selected_chip)
            plot.selected = self.model.selected_kernel
            plot.selected_chip = self.model.selected_chip
            plot.draw(cmp, [c])
        if self.grid_plots and self._lifted is None:
            self.grid_plots[0].fit()
        self._fit_grid_titles()  # the units or the view may have changed them

    def _rebuild_grid(self, cmp, indices: list[int]) -> None:
        for plot in self.grid_plots:
            plot.close()
        self.grid.clear()
        self.grid_plots = []
        self._grid_titles = None
        self._grid_key: GridKey | None = None
        mode = RangeMode()  # one for the grid: its axes are linked
        columns = self._columns = self.grid_columns(len(indices))
        first = None
        rows = self._rows = -(-len(indices) // columns)
        self._fit_grid_height()
        # One title per axis for the whole grid, left of it and under it: on the outer charts'
        # axes they made those axes wider and taller, and every chart took their size (to keep
        # the linked decades one size), so each chart lost a title's height and width (four
        # charts at 1280 × 800 were 110 px tall)
        if rows:  # none for a session without chips (a span of 0 broke the layout for good)
            # beside the rows in sight where the grid scrolls (eight charts at 1280 × 800: a
            # title centred on all four rows was cut at the window's edge, the tour)
            self._title_rows = min(rows, max(1, int(self.stack.height() // self._least_row())))
            self._grid_titles = (self.grid.addLabel("", row=0, col=0, rowspan=self._title_rows,
                                                    angle=-90),
                                 self.grid.addLabel("", row=rows, col=1, colspan=columns))
            # the layout puts it back at its row whenever it lays the grid out again (a key's
            # new row, a chart's resize): then it is moved to the rows in sight again
            self._grid_titles[0].geometryChanged.connect(self._title_in_sight)
            # and one key for what the charts share (the second tour found no legend here)
            self._grid_key = GridKey(self.options.foreground)
            # (its rows wrap with the grid's width: a row more left the charts' rows 8 px short,
            # the grid's least height counted without it)
            self._grid_key.on_height = self._fit_grid_height
            # kept in sight where the grid scrolls (_key_in_sight): moved back whenever the
            # layout sets it at its row again
            self._grid_key.setZValue(10)
            self._grid_key.geometryChanged.connect(self._key_in_sight)
            self.grid.addItem(self._grid_key, row=rows + 1, col=1, colspan=columns)
        elif not cmp.chips:  # a new session: where to begin, as the overlay's note says
            self.grid.addLabel(_(roofline_plot.NO_CHIP_YET), row=0, col=0,
                               color=self.options.foreground)
        for n, c in enumerate(indices):
            item = self.grid.addPlot(row=n // columns, col=n % columns + 1,
                                     axisItems={"left": SIAxis("left"), "bottom": SIAxis("bottom")})
            _chip_title(item, cmp, c, cmp.chips[c].id == self.model.selected_chip)
            item.hideButtons()  # pyqtgraph's "A" floated in the gap between charts (the tour);
            # the view's note fits them all, as it does in the overlay
            plot = self._make_plot(item)
            # its labels wait for the grid's layout (released below): drawn into a grid not
            # yet laid out, each chart placed them at once in a view of another size, then
            # again for each size the layout gave it on the next turns
            plot.labels_held = True
            plot.roofless_in_title = True
            plot.range_mode = mode
            plot.shared_fit = self._grid_fit
            plot.key.fit_width = self._equal_keys
            plot.axis_titles = {"left": False, "bottom": False}  # the grid's titles name them
            plot.show_legend = False  # each chart's title names its chip; the grid's key
            plot.legend.on_shared = self._update_grid_key  # the rest
            plot.selected = self.model.selected_kernel
            plot.selected_chip = self.model.selected_chip
            plot.lifted = self._lifted
            if first is None:
                first = item
            else:
                item.setXLink(first)
                item.setYLink(first)
            self.grid_plots.append(plot)
            plot.draw(cmp, [c])
        if self.grid_plots:  # one range that shows every chip's roofs and markers
            self.grid_plots[0].fit()
            self._equal_axes()
        self._fit_grid_titles()
        self._update_grid_key()
        if not self._labels_held:  # laid out now, and its charts' labels placed for the
            # views it gives them, before it is first painted (placed on the next turn, it had
            # been painted without them for 0.2 s at a new window's start)
            self.grid.ci.layout.activate()
            for plot in self.grid_plots:
                plot.release_labels(now=True)

    def _update_grid_key(self) -> None:
        """The grid's key: every chart's shared rows, each once, in the charts' order."""
        if self._grid_key is None:
            return
        seen, entries = set(), []
        for plot in self.grid_plots:
            for entry in plot.legend.shared:
                if entry[0] not in seen:
                    seen.add(entry[0])
                    entries.append(entry)
        # the shapes and marks first, the lines' rows (faint levels, datasheet) after them
        self._grid_key.set_entries(sorted(entries, key=lambda e: len(e) == 2))
        self._fit_grid_height()

    def _least_row(self) -> float:
        """A grid row's least height: a chart's margins, title, GRID_VIEW_PX of view and x
        axis (its layout's parts, as pyqtgraph sizes them)."""
        if not self.grid_plots:
            return LEAST_ROW_PX
        item = self.grid_plots[0].plot
        _left, top, _right, bottom = item.layout.getContentsMargins()
        return top + CHIP_TITLE_PX + GRID_VIEW_PX + item.getAxis("bottom").minimumHeight() + bottom

    def _fit_grid_height(self) -> None:
        """The grid's least height: each row of charts its least (_least_row), the key and x
        title below them and the layout's margins and spacing (else it scrolls): counted
        without the key and title, a short canvas had given the rows less, unequally (the
        42nd tour, four charts in Japanese at 1280 × 800: 101 and 40 px views); counted
        roughly (165 px a row, 22 to spare), four charts at 1280 × 800 scrolled for 38 px, their
        key cut at the edge (the 44th)."""
        rows = getattr(self, "_rows", 0) or 0
        below = [item.minimumHeight() for item in (
            self._grid_key, self._grid_titles[1] if self._grid_titles is not None else None)
            if item is not None]
        layout = self.grid.ci.layout
        _left, top, _right, bottom = layout.getContentsMargins()
        height = math.ceil(top + bottom + rows * self._least_row() + sum(below)
                           + layout.verticalSpacing() * max(0, rows - 1 + len(below)))
        if self.grid.minimumHeight() != height:
            self.grid.setMinimumHeight(height)

    def _fit_grid_titles(self) -> None:
        """The grid's axis titles: the first chart's (its units and view), each the longest
        form that fits the grid's side."""
        if not self.grid_plots or self._grid_titles is None:
            return
        plot = self.grid_plots[0]
        forms = plot.title_forms()
        if forms is None:
            return
        unit, lefts, bottoms = forms
        color = plot.plot.getAxis("left").textPen().color().name()
        for label, titles, room in zip(self._grid_titles, (lefts, bottoms),
                                       (self.grid.height() * self._title_rows / self._rows - 30,
                                        self.grid.width() - 60),
                                       strict=True):
            text = titles[longest_fitting(titles, unit, room)].format(unit=unit)
            if label.text != text:
                label.setText(text, color=color)
            if label is self._grid_titles[0]:  # fitted to its rows, it sizes none of them
                # (over some rows only, it made those taller: a short grid's first row 101 px
                # and its second 40, the 42nd tour; pyqtgraph sets its least size again)
                label.setMinimumHeight(0)
                label.setPreferredHeight(0)
        QTimer.singleShot(0, self, self._title_in_sight)  # once the layout has placed it

    def _title_in_sight(self, *_args) -> None:
        """The grid's y title beside the rows in sight as the grid scrolls (scrolled to the
        bottom it had gone with the first rows: the fourth tour)."""
        if self._grid_titles is None or self._grid_area is None:
            return
        label, bar = self._grid_titles[0], self._grid_area.verticalScrollBar()
        if bar.maximum() <= 0:
            return
        shown = self._grid_area.viewport().height()
        top = max(0.0, bar.value() + (shown - label.geometry().height()) / 2)
        if abs(label.pos().y() - top) > 0.5:  # (its own move calls this again)
            label.setPos(label.pos().x(), top)

    def _key_in_sight(self, *_args) -> None:
        """The grid's key under the rows in sight where the grid scrolls, over the bottom of
        the charts there, until scrolled to its own row: below the fold it went unseen (the
        45th tour, four charts in a short window: "the key disappears"). At its own row for
        an export (render_plot_item)."""
        key, area = self._grid_key, self._grid_area
        if key is None or area is None:
            return
        bar = area.verticalScrollBar()
        own = self.grid.ci.size().height() - GRID_MARGINS[3] - key.size().height()
        y = own
        if bar.maximum() > 0 and not self._key_pinned:
            y = min(own, bar.value() + area.viewport().height() - key.size().height())
        floating = pg.mkColor(self._background) if y < own - 0.5 else None
        if floating != key.floating_on:
            key.floating_on = floating
            key.update()
        if abs(key.pos().y() - y) > 0.5:  # (its own move calls this again)
            key.setPos(key.pos().x(), y)

    def _equal_axes(self) -> None:
        """Every chart of the grid the same size: the outer charts' axes carry titles and
        were wider (or taller), so a decade's width differed from chart to chart although the
        axes are linked."""
        for side, size, fix in (("left", "minimumWidth", "setWidth"),
                                ("bottom", "minimumHeight", "setHeight")):
            axes = [p.plot.getAxis(side) for p in self.grid_plots]
            largest = max(getattr(axis, size)() for axis in axes)
            for axis in axes:
                getattr(axis, fix)(largest)
        # The layout gives each column its smallest width (a titled axis's title sets it), then
        # shares what is left: the same smallest size for all makes them equal.
        items = [p.plot for p in self.grid_plots]
        width = max(item.minimumWidth() for item in items)
        height = max(item.minimumHeight() for item in items)
        for item in items:
            item.setMinimumSize(width, height)
            item.setPreferredSize(width, height)

    def _equal_keys(self) -> None:
        """Every chart's key of peaks as wide as the widest: the views keep one width, so the
        linked decades match from chart to chart. Where the key would take more than KEY_SHARE
        of a chart's width (eight charts side by side at 1280 × 800 ran past the window's
        edge), the keys are folded away: the roofs' tooltips name them."""
        if not self.grid_plots:
            return
        columns = self._columns or 1
        wanted = max(p.key.axis.wanted for p in self.grid_plots)
        folded = wanted > KEY_SHARE * self.grid.width() / columns
        for plot in self.grid_plots:
            plot.key.axis.fold(folded, wanted)

    def grid_columns(self, charts: int) -> int:
        """The columns of a grid of ``charts`` charts: up to two (four charts) or three, each
        at least NARROWEST_COLUMN_PX wide (three at 1280 × 800 left 180 px views whose peaks'
        keys folded away and named no kernel: the second tour); of those, the count whose
        charts' views are largest in their smaller side, a view's width counted 1/VIEW_ASPECT
        (one column of three charts at 1280 × 800 left views 90 px tall, the third scrolled out
        of sight: the ninth tour; two columns of two charts there, views 150 px wide: the
        tenth); of two as large, the fewer columns."""
        if charts <= 1:
            return 1
        most = 2 if charts <= 4 else 3
        width, height = self.stack.width(), self.stack.height()

        def smaller_side(columns: int) -> float:  # a view's width counted 1/VIEW_ASPECT
            rows = -(-charts // columns)  # (a roofline spans more decades across than up)
            return min((width / columns - CHART_FRAME_PX[0]) / VIEW_ASPECT,
                       height / rows - CHART_FRAME_PX[1])

        fit = [c for c in range(1, most + 1) if width / c >= NARROWEST_COLUMN_PX] or [1]
        return max(fit, key=lambda c: (round(smaller_side(c)), -c))

    def _grid_resized(self) -> None:
        """The grid's width changed: its columns may too (made again, on the next turn)."""
        if self.mode == "side_by_side" and self.grid_plots and \
                self.grid_columns(len(self.grid_plots)) != self._columns:
            self._redraw_pending = True  # not inside the grid's own resize
            self._redraw_timer.start(0)

    def _grid_fit(self):
        """The range of a grid of charts: every chart's fit at once (their axes are linked)."""
        return union(p.view_range for p in self.grid_plots)

    # -- interaction --------------------------------------------------------------------------------
    def _on_selection_changed(self, kernel_id, chip_id) -> None:
        for plot in self.grid_plots if self.mode != "overlay" else ():
            if plot.scene is not None and plot.scene.chips:
                cmp, c = plot.scene.comparison, plot.scene.chips[0]
                _chip_title(plot.plot, cmp, c, cmp.chips[c].id == chip_id)
        for plot in self.plots:
            plot.select_chip(chip_id)
            plot.select_kernel(kernel_id)

    def _on_kernel_clicked(self, kernel_id: str, chip_id: str) -> None:
        self.model.select(kernel_id, chip_id)

    def _on_marker_dragged(self, kernel_id: str, chip_id: str, intensity: float, finished: bool) -> None:
        if self._lifted != kernel_id:  # the first step of a drag
            # The moving kernel is drawn in a small overlay; its old markers stay where they were
            # until the drag ends, as a ghost of the start, so no big scatter item is touched.
            # Lifted before selecting, so the selection ring is drawn without the moving kernel.
            self._set_lifted(kernel_id)
            self.model.select(kernel_id, chip_id)
        self.model.move_kernel_to_intensity(
            kernel_id, intensity * self.options.ops_per_unit, merge_key=("drag", self._drag_serial),
            chip_id=chip_id)
        if finished:
            self._drag_serial += 1
            self._set_lifted(None)

    def _set_lifted(self, item_id: str | None) -> None:
        """Start (the dragged kernel's or workload's id) or end (None) a drag on every chart:
        the view's range, roof labels, legend and note hold still until it ends."""
        self._lifted = item_id
        for plot in self.plots:
            plot.set_lifted(item_id)

    def _on_workload_dragged(self, workload_id: str, intensity: float, finished: bool,
                             shift: bool) -> None:
        """A drag of a workload's point: the batch (Shift: the context or the sequence) whose
        aggregate intensity is nearest the cursor; each step one edit, the drag one undo step."""
        from roofline_gui.core.workload import with_field  # noqa: PLC0415
        from roofline_gui.core.workload_view import (  # noqa: PLC0415
            drag_key,
            drag_ladder,
            ladder_note,
            value_at,
        )

        doc = self.model.document
        if workload_id not in {w.id for w in doc.workloads}:
            return
        workload = doc.workload(workload_id)
        if self._workload_drag is None or self._workload_drag[0] != workload_id:
            key = drag_key(workload, shift)
            values, at = drag_ladder(workload, key, doc.kernels_by_id)
            self._workload_drag = (workload_id, key, values, at)
            self._set_lifted(workload_id)  # as a kernel's drag: the rest of the chart holds still
            self.model.select(workload_id, None)
        _, key, values, at = self._workload_drag
        target = intensity * self.options.ops_per_unit
        value = value_at(values, at, target)
        self.model.say(ladder_note(workload.name, key, values, at, target))
        if getattr(workload, key) != value:
            self.model.set_workload(with_field(workload, key, value),
                                    f"Drag {workload.name}: {key} {value}",
                                    merge_key=("workload drag", self._drag_serial))
        if finished:
            self._drag_serial += 1
            self._workload_drag = None
            self._set_lifted(None)


    def _on_roof_dragged(self, what: tuple, lx: float, ly: float, finished: bool,
                         modifiers) -> None:
        """A drag of a roof: its peak (the flat part) or a memory level's bandwidth (the slope,
        a diagonal) follows the pointer as a what-if; Shift snaps the factor to a round one,
        Ctrl moves every ceiling of the chip by it (a faster clock); the drag is one undo step."""
        kind, chip_id, which = what
        doc = self.model.document
        chip = next((c for c in doc.chips if c.id == chip_id), None)
        if chip is None:
            return
        if self._lifted != Selection.roof_of(chip_id):
            self._set_lifted(Selection.roof_of(chip_id))
            self._roof_start = chip  # every step is worked out from the chip the drag began on
        start = self._roof_start if getattr(self._roof_start, "id", None) == chip_id else chip
        if kind == "peak":
            now = start.compute[which]
            sheet = start.compute_what_if_of.get(which, now)
            # op/s under the pointer, in log10 (the chart is drawn in shown units)
            log_value, most = ly + np.log10(self.options.ops_per_unit), MAX_COMPUTE
        else:
            level = start.memory[which]
            now = level.bandwidth
            sheet = level.what_if_of if level.what_if_of is not None else level.bandwidth
            log_value, most = ly - lx, MAX_BANDWIDTH  # shown rate ÷ shown intensity: B/s
        if np.isfinite(log_value):
            # Within WHAT_IF_SPAN (core.chip) of the datasheet either way, and never beyond what a session
            # may hold (the loader would refuse the saved session); a pointer far off the chart
            # holds the value at the end of that span.
            span = np.log10(WHAT_IF_SPAN)
            log_sheet = np.log10(sheet)
            log_value = min(max(log_value, log_sheet - span), log_sheet + span, np.log10(most))
            value = float(10.0 ** log_value)
            if modifiers & Qt.KeyboardModifier.ShiftModifier:
                value = sheet * round_factor(value / sheet)  # a round factor (core.chip)
            # Ctrl moves every ceiling by the factor the dragged one moved since the drag began
            # (pressed partway, the others had been left behind the dragged one).
            moved = (start.scaled(value / now) if modifiers & Qt.KeyboardModifier.ControlModifier
                     else start.with_ceiling((kind, which), value))
            name = which if kind == "peak" else chip.memory[which].name
            unit = "op/s" if kind == "peak" else "B/s"
            self.model.push_what_if(moved, f"{name} {format_si(value, unit)}",
                                    merge_key=("roof drag", self._drag_serial, chip_id))
        if finished:
            self._drag_serial += 1
            self._set_lifted(None)
            now = next((c for c in self.model.document.chips if c.id == chip_id), None)
            if now is not None:
                self.model.say(now.order_note())

    def _on_kernels_dropped(self, preset_ids: list) -> None:
        kernels = [self.presets.kernels[i] for i in preset_ids if i in self.presets.kernels]
        new_ids = self.model.add_kernels(kernels)
        if new_ids:
            self.model.select(new_ids[-1], None)

    def _on_mouse_moved(self, args) -> None:
        if self._pointer_out:  # held back by the rate limit until the pointer had left
            return
        pos = args[0]
        for plot in self.plots:
            vb = plot.plot.getViewBox()
            if vb.sceneBoundingRect().contains(pos):
                point = vb.mapSceneToView(pos)
                per_unit = self.options.ops_per_unit  # the chart is drawn in shown units
                self.sig_cursor_moved.emit(float(10 ** point.x()) * per_unit,
                                           float(10 ** point.y()) * per_unit)
                return
        self.sig_cursor_moved.emit(math.nan, math.nan)  # off every chart: no readout

    def user_range(self):
        """The range the user zoomed or panned to (shown units), or None while it is automatic:
        what an export drawn afresh shows, as the live chart's SVG and PDF do."""
        plot = self.plots[0] if self.plots else None
        return None if plot is None or plot.range_mode.auto else plot.visible_range()

    def show_range(self, view_range) -> None:
        """Show ``view_range`` (shown units) as if the user had zoomed to it."""
        if self.plots:
            self.plots[0].show_range(view_range)

    @contextmanager
    def exporting(self):
        """What an export renders, with what is only for the screen (selection rings, sweep
        paths, the dragged kernel, the view's note) hidden until the export is done."""
        item = self.render_plot_item()
        for plot in self.plots:
            plot.set_exporting(True)
        try:
            yield item
        finally:
            for plot in self.plots:
                plot.set_exporting(False)
            self._key_pinned = False
            self._key_in_sight()

    def render_plot_item(self) -> pg.PlotItem | pg.GraphicsLayout:
        """What an export should render (every marker set): the overlay plot, or the grid, its
        key at its own row (until exporting() is done)."""
        self._redraw_now()
        for plot in self.plots:
            plot.finish_pending()
        self._key_pinned = True
        self._key_in_sight()
        return self.overlay.getPlotItem() if self.mode == "overlay" else self.grid.ci



if __name__ == "__main__":
    import sys

    from roofline_gui.widgets.common.preview import preview

    sys.exit(preview(lambda model, presets: CanvasPanel(model, presets)))


MIN_COLUMN_PX = 340  # a grid's column: a chart this wide keeps its peaks' key and names
NARROWEST_COLUMN_PX = 300  # a grid's column is never narrower (its view ~130 px beside its key)
CHART_FRAME_PX = (170.0, 60.0)  # a grid chart's axes, key and title about its view, px
VIEW_ASPECT = 1.2  # a roofline view is wider than tall (about six decades across, five up)
CHIP_TITLE_PX = 22  # a chart's title in a grid (pyqtgraph's 30 px row took a sixth of a small chart)
#: A grid chart's least view: its roofs labelled (MIN_LABELLED_PX inside the labels' inset) with
#: 2 px to spare
GRID_VIEW_PX = MIN_LABELLED_PX + 2 * LABEL_INSET[1] + 2
#: A grid row's least height before its first chart is laid out (_least_row): its margins
#: (8 + 4), title, view and x axis (16)
LEAST_ROW_PX = 12 + CHIP_TITLE_PX + GRID_VIEW_PX + 16
#: The grid's margins (left, top, right, bottom): pyqtgraph's 9 all round took 10 px of a short
#: canvas's height
GRID_MARGINS = (9, 4, 9, 4)


def _chip_title(item: pg.PlotItem, cmp, c: int, chosen: bool = False) -> None:
    """A grid chart's title, its chip's name, in a row of CHIP_TITLE_PX; the selected chip's in
    bold black, the others' in grey (side by side the charts did not say which chip was
    selected: the sixth tour). It counts the kernels the chip draws no marker for, having no
    roof at their precision ("TPU v1 · no roof for 3 kernels"), its tooltip says which: a note
    saying so over a small chart had covered TPU v1's CNN and MLP (the 38th tour); "TPU v3 · 6
    not drawn" read as cryptic (the 43rd)."""
    label = item.titleLabel
    name = cmp.chips[c].name
    n = int((cmp.result.limiter[:, c] == LIMITER_UNSUPPORTED).sum())  # (a drag step redraws)
    whole = name + (" · " + ngettext("no roof for {n} kernel", "no roof for {n} kernels",
                                     n).format(n=n) if n else "")
    # where that has no room, a shorter form before any cut (cut in its middle, "TPU v1 · no
    # …or 3 kernels" lost the word that says why: the 44th tour)
    forms = (whole, name + " · " + _("no roof for {n}").format(n=n)) if n else (whole,)
    if (getattr(label, "whole", None), getattr(item, "chosen_title", None)) == (whole, chosen):
        return
    item.chosen_title = chosen
    item.setTitle(whole, size="10pt", bold=chosen, color="#000000" if chosen else "#5a5a5a")
    label.setMaximumHeight(CHIP_TITLE_PX)
    item.layout.setRowFixedHeight(0, CHIP_TITLE_PX)
    if not getattr(label, "spans_chart", False):  # over the axis and the peaks' key too: the
        # view's width alone cut "TPU v1 · no roof for 3" in a bold title at 1180 px (the 44th
        # tour's "TPU v1 · no …or 3 kernels" at 1280)
        label.spans_chart = True
        item.layout.removeItem(label)
        item.layout.addItem(label, 0, 0, 1, 3)
    # a long name never widens its chart: it is cut to the chart's width, whole in its tooltip
    # (its text's width had set every chart's smallest width, and two Williams CPUs charts ran
    # past the grid's right edge, "Xeon Platinum 8480+ (Sapphire Rap": the fourteenth tour)
    label.whole = whole
    label.forms = forms
    label.setToolTip("\n".join((name, roofline_plot.roofless_tip(without_roof(cmp, [c])[2])))
                     if n else name)
    if not getattr(label, "fits_names", False):
        label.fits_names = True
        label.geometryChanged.connect(lambda: _fit_title(label))
    _fit_title(label)


def _fit_title(label: pg.LabelItem) -> None:
    """A grid chart's title cut (…, in its middle) to its label's width; that width never set
    by it."""
    font = QFont()
    font.setPointSizeF(10.0)
    font.setBold(bool(label.opts.get("bold")))
    room = label.size().width() - 4
    metrics = QFontMetricsF(font)
    forms = getattr(label, "forms", (label.whole,))
    # the longest form that fits, else the shortest cut in its middle: the end of a name tells
    # a copy from its original ("A100 SXM4 40GB (copy)" cut at its end read as the A100 beside
    # it: the twenty-sixth tour)
    text = next((form for form in forms if metrics.horizontalAdvance(form) <= room), None)
    if text is None:
        text = (metrics.elidedText(forms[-1], Qt.TextElideMode.ElideMiddle, room)
                if room > 0 else forms[-1])
    if text != label.text:
        label.setText(text)
    pg_private.let_label_shrink(label)  # setText asked for the text's width again
