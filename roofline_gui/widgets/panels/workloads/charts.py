"""The selected workload on every chip: a bar per chip of its step's time by kernel, coloured by
what bounds each (memory, compute, link), with its energy, the memory a training step holds, the
batch sweep (throughput against latency) and the scaling chart."""

from __future__ import annotations

import html
import re
from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from roofline_gui.core import training_view
from roofline_gui.core.display import hidden_under
from roofline_gui.core.energy import ENERGY_PART_COLORS, ENERGY_PART_WORDS, energy_parts
from roofline_gui.core.i18n import _, listed, tidy
from roofline_gui.core.units import format_si, format_time
from roofline_gui.core.workload import (
    Workload,
    label_of,
)
from roofline_gui.core.workload_eval import SWEEP_BATCHES, batch_sweep, weights_sweep
from roofline_gui.core.workload_view import SEGMENT_KINDS, breakdown
from roofline_gui.models.comparison_model import short_names
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.widgets.common.application import set_tip
from roofline_gui.widgets.common.axes import BottomTitle, log_plot
from roofline_gui.widgets.common.throttle import Throttle

#: A bar's share of its row: four chips' rows at 1280 × 800 are 14.6 px, their bars at 0.6
#: of that too thin for a name's capitals (its letters' tops lost on the white above, or no
#: name at all: the 37th and 42nd tours)
BAR_HEIGHT = 0.75
STEP_MARK_PX = 22.0  # the tick at a training step's bound, where its row has room
SEGMENT_ROOM_PX = 2.0  # a bar's height beyond its segments' names' capitals, to name them
SMALLEST_SEGMENT_PT = 7.0  # a segment's name in a thin bar is written no smaller
MEMORY_ROWS = 3  # the memory bar keeps room for this many rows of chips' names (see _draw_memory)
FEW_CHIPS = 4  # chips named in a note above the charts; the tooltip names every one
KEY_CHIPS = 4  # chips named in the right-hand chart's key
WORD_JOINER = "\u2060"  # no line break here (Unicode's line breaking, as Qt's)
AREA_LINES = 16  # the most height the bars and memory chart take before they scroll, in lines


def _first(items: list, few: int) -> tuple[list, int]:
    """The first ``few`` of ``items`` and how many more, all where only one more would be left
    (a count of one says no less than its name)."""
    shown = items if len(items) <= few + 1 else items[:few]
    return shown, len(items) - len(shown)


def _first_few(names: list[str]) -> str:
    """The first FEW_CHIPS names, and how many more ("A, B, C, D and 26 more")."""
    shown, more = _first(names, FEW_CHIPS)
    return (_("{chips} and {n} more").format(chips=listed(shown), n=more) if more
            else listed(shown))


def energy_segments(result, chips) -> list:
    """Each chip's energy per step as a bar of parts (core.energy.energy_parts)."""
    out = []
    for c in chips:
        parts = energy_parts(result, c)
        total = sum(j for _k, _n, j in parts)
        start = 0.0
        for kind, name, joules in parts:  # each memory level its own part, coloured by role
            out.append(training_view.Part(c, start, joules, f"e:{kind}", name, joules / total))
            start += joules
    return out


class WorkloadCharts(QWidget):
    """The selected workload on every shown chip: its step's time by kernel, and its batch
    sweep. Both from the core (workload_view.breakdown, workload_eval.batch_sweep)."""

    def __init__(self, model: DocumentModel, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.measure = QComboBox()  # the bars: a step's time by part, or its energy by where
        self.measure.addItem(_("Time per step"), "time")
        self.measure.addItem(_("Energy per step (where it goes)"), "energy")
        set_tip(self.measure, _("The bars: each chip's step time by kernel (or by part, in "
                                "training), or its energy per chip by where it goes: compute, "
                                "each memory level, the link, idle (Help → User guide, Energy)"))
        self.measure.currentIndexChanged.connect(lambda _i: self.refresh())
        # The right-hand chart: throughput against latency, or (a transformer's inference) the
        # weights a step reads per token as the batch grows, a dense model's beside it.
        self.right = QComboBox()
        self.right.addItem(_("Right: throughput against latency"), "latency")
        self.right.addItem(_("Right: weights read per token"), "weights")
        set_tip(self.right, _("The right-hand chart as the batch grows: tokens/s against the "
                              "time per step, or the weight bytes each token costs (a mixture of "
                              "experts reads more experts as the batch grows; a dense model the "
                              "same weights whatever the batch)"))
        self.right.currentIndexChanged.connect(lambda _i: self._redraw_right())
        self.bars = pg.PlotWidget(background="w")
        self.bars.setMenuEnabled(False)
        self.bars.getViewBox().disableAutoRange()
        self.bars.setLabel("bottom", _("time per step"), units="s")
        self.bars.getPlotItem().hideButtons()
        # Decade ticks read 1 k, 10 k, 1 m (pyqtgraph's own log axis labels the minor ticks too,
        # which run into each other over a few decades).
        self.sweep = log_plot()
        self._sweep_title = BottomTitle(self.sweep.getPlotItem())
        self.sweep.showGrid(True, True, 0.25)

        # A training step's memory per chip (weights, gradients, optimizer states, activations)
        # against each chip's capacity, under its time bars.
        self.memory = pg.PlotWidget(background="w")  # linear: SIAxis is for log axes
        self.memory.setMenuEnabled(False)
        self.memory.getPlotItem().hideButtons()
        self.memory.getViewBox().setMouseEnabled(False, False)
        self.memory.hide()
        holder = QWidget()
        left = QVBoxLayout(holder)
        left.setContentsMargins(0, 0, 0, 0)
        left.addWidget(self.bars, 3)
        left.addWidget(self.memory, 2)
        # a bar, its capacities' names and the axis, whatever the dock's height
        self.memory.setMinimumHeight(5 * self.fontMetrics().lineSpacing())
        # scrolled where the chips' rows need more height than the panel has: with every preset
        # added their names were printed over each other, and the training memory chart's rows
        # of names grew the window past an 800 px screen (the 41st tour)
        self.bars_area = QScrollArea()
        self.bars_area.setWidget(holder)
        self.bars_area.setWidgetResizable(True)
        self.bars_area.setFrameShape(QFrame.Shape.NoFrame)
        self.bars_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        charts = QHBoxLayout()
        charts.addWidget(self.bars_area, 3)
        charts.addWidget(self.sweep, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.right, 0, Qt.AlignmentFlag.AlignTop)
        head.addWidget(self.measure, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(head)
        layout.addLayout(charts, 1)
        # Room for its title and two chips' bars, however the window lays its docks out (the
        # tour: maximised on a large screen beside a long Workloads panel, the bars were crushed
        # to slivers and the chip names printed over each other)
        line = self.fontMetrics().lineSpacing()
        self.bars.setMinimumHeight(7 * line)
        self.bars_area.setMinimumHeight(7 * line)
        self._area_key: tuple | None = None  # what _fit_area last fitted the area to
        self.sweep.setMinimumHeight(7 * line)
        self.title.setMinimumHeight(4 * line)  # a wrapped label asks for one line otherwise
        self.segments: list = []  # what the bars show, for checks
        self.hidden_note = ""  # the scaling chart's lines under others', as it says them
        self._hidden_item: pg.TextItem | None = None
        self.sweep.getViewBox().sigResized.connect(self._fit_hidden_note)
        self._bar_items: dict = {}  # kind -> its BarGraphItem, updated in place
        self._segment_labels: list = []
        self._labelled_width: float | None = -1.0  # the bars' width their names were placed for
        self._chips_shown = None
        self._x_top = 0.0
        self._shown_key = None
        # Changes come at a drag's pace (60 a second); the charts follow at most every
        # 40 ms, so a drag step does not wait for two more plots to repaint.
        self._later = Throttle(self, self.refresh)
        self._marker = None
        self._step_marks = None  # a training step's lower bound on each bar
        # The batch sweep costs 50 ms a redraw: while a chip changes step by step (a roof
        # drag), it waits until the chips have held still this long.
        self._sweep_later = QTimer(self)
        self._sweep_later.setSingleShot(True)
        self._sweep_later.setInterval(250)
        self._sweep_later.timeout.connect(self._redraw_sweep)
        model.sig_document_changed.connect(self._request)
        model.sig_selection_changed.connect(self._on_selection)
        # An edit, an undo or a redo (not a drag's later steps, merged into its first) fits
        # the time axis to the bars again: after an undo the axis had kept the undone batch's
        # range and the bars' names no longer fitted them (the third tour)
        model.undo_stack.indexChanged.connect(self._refit)
        # Which names fit in their bar depends on the bars' width in pixels.
        self.bars.getViewBox().sigResized.connect(lambda _vb: self._later.request())
        # the memory bar's rows of names are a text line apart in pixels
        self.memory.getViewBox().sigResized.connect(lambda _vb: self._later.request())
        # A click on a chip's bar (or its name) selects that chip, as a click on its marker on
        # the roofline does; a band behind the bars marks the selected one.
        self._row_chips: list = []  # the chip id of each bar, top to bottom
        self._chosen_band = pg.BarGraphItem(x0=[], y=[], width=[], height=1.0,
                                            brush=pg.mkBrush(0, 90, 200, 28), pen=pg.mkPen(None))
        self._chosen_band.setZValue(-10)
        self.bars.addItem(self._chosen_band, ignoreBounds=True)
        self.bars.scene().sigMouseClicked.connect(self._on_bars_clicked)
        self.bars.scene().sigMouseMoved.connect(self._on_bars_hover)
        self.refresh()

    @property
    def pending(self) -> bool:
        """Whether a change is still to be shown: a refresh or a sweep waiting, or names placed for
        bars of another width than they now have (a resize whose refresh is yet to come)."""
        return (self._later.pending or self._sweep_later.isActive()
                or self._labelled_width not in (None, self.bars.getViewBox().width()))

    def label_texts(self) -> list[str]:
        """The names written inside the bars, for checks."""
        return [item.textItem.toPlainText() for item in self._segment_labels]

    def _result(self):
        """The selected workload's result; the first workload's when a kernel is selected."""
        results = self.model.workload_results
        selected = self.model.selected_kernel
        if selected in {w.id for w in self.model.document.workloads}:
            return self.model.workload_result(selected)  # None: it cannot be evaluated
        return results[0] if results else None

    def _request(self, *_args) -> None:
        if self.model.serving_only:  # the Serving view's settings alone: nothing here moved
            return
        self._later.request()

    def _on_selection(self, *_args) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Bring both charts up to date. A drag step changes the bars' lengths and the sweep's
        marker only: the bar items are updated in place and the axes keep their range unless
        the bars outgrow it (or shrink to under half), so a step repaints bars, not axes."""
        try:
            self._refresh()
        finally:
            self._fit_area()

    def _fit_area(self) -> None:
        """The bars' scroll area as tall as the bars and the memory chart need, up to AREA_LINES
        lines: a few chips' charts whole, as before the scroll area (the memory chart of a
        training step had needed scrolling at 1280 × 800); many chips' scrolled. Asked of the
        layout only where what it holds changed its least size: not at each drag step."""
        holder = self.bars_area.widget()
        key = (self.bars.minimumHeight(), self.memory.minimumHeight(),
               self.memory.isVisibleTo(holder))
        if key == self._area_key:
            return
        self._area_key = key
        need = holder.minimumSizeHint().height()
        least = min(need, AREA_LINES * self.fontMetrics().lineSpacing())
        if self.bars_area.minimumHeight() != least:
            self.bars_area.setMinimumHeight(least)

    def _refresh(self) -> None:
        r = self._result()
        if r is None:
            self.bars.clear()
            self._chosen_band.setOpts(x0=[], y=[], width=[])
            self.bars.addItem(self._chosen_band, ignoreBounds=True)  # kept for the next one
            self._row_chips = []
            self._step_marks = None  # cleared with the rest
            self.bars.getAxis("left").setTicks([[]])  # no chip names of another document
            self._bar_items = {}
            self._segment_labels = []
            self._labelled_width = None  # no bars to name
            self.sweep.clear()
            self.memory.clear()
            self.memory.hide()
            # no axes of the last workload under "No workload" (the tour): the charts go
            self.bars.hide()
            self.sweep.hide()
            self._shown_key = self._chips_shown = None
            problem = self.model.workload_problems.get(self.model.selected_kernel)
            doc = self.model.document
            self.title.setText(
                _("This workload cannot be evaluated: {problem}").format(problem=html.escape(problem))
                if problem else
                _("No chip shown: the Hardware panel's Add… adds one; the workload's bars are drawn for "
                  "each shown chip.") if doc.workloads and not any(c.visible for c in doc.chips)
                else _("No workload: Workloads → New Workload… makes one from a model."))
            self.segments = []
            return
        self.bars.show()
        self.sweep.show()
        chips = [i for i, c in enumerate(r.chips) if c.visible]
        train = r.training is not None
        energy = self.measure.currentData() == "energy"
        if energy:
            self.segments = energy_segments(r, chips)
        else:
            self.segments = training_view.breakdown(r, chips) if train else breakdown(r, chips)
        self.bars.setLabel("bottom", _("energy per chip per step") if energy else _("time per step"),
                           units="J" if energy else "s")
        unit = _(r.workload.throughput_unit)
        # What the bars do not show: chips that cannot run it, or cannot hold it.
        cannot = [r.chips[c].name for c in chips if not np.isfinite(r.time[c])]
        too_small = [r.chips[c].name for c in chips if np.isfinite(r.time[c])
                     and np.isfinite(r.built.resident_bytes) and not r.fits[c]]
        no_energy = []
        if energy:
            # a chip with neither a board power nor energies given has no estimate (its blank
            # row had been explained by the memory note beside it: the thirtieth tour)
            with_bars = {seg.chip for seg in self.segments}  # (energy_segments: with parts)
            no_energy = [r.chips[c].name for c in chips
                         if np.isfinite(r.time[c]) and c not in with_bars]

        def notes_of(names) -> str:
            notes = ""
            if too_small:
                notes += " " + _("<span style='color:#b00020'>Does not fit in the memory of "
                                 "{chips}</span>: the bars assume it did.").format(
                    chips=html.escape(names(too_small)))
            if cannot:
                notes += " " + _("No bar: {chips} cannot run it (Why it sits there).").format(
                    chips=html.escape(names(cannot)))
            if no_energy:
                notes += " " + _("No energy bar for {chips}: no board power published or given "
                                 "to estimate it from (the hardware editor's Energy fields take "
                                 "one).").format(chips=html.escape(names(no_energy)))
            return notes

        # every chip named in the tooltip; a few in the panel, which 30 names had filled (the
        # 41st tour: every preset added)
        notes, short_notes = notes_of(listed), notes_of(_first_few)
        name = f"<b>{html.escape(label_of(r.workload))}</b>"
        # Shown: what the charts are; the colours' key in the tooltip (six lines of it above the
        # charts at 1280 × 800 left the memory bar's axis cut off: the second tour).
        if energy:
            shown = _("{workload}: each chip's energy per step by where it goes (hover for the "
                      "colours); right, {unit} as before.").format(workload=name, unit=unit)
        elif train:
            shown = _("{workload}: one step's time per chip by part, every kernel at its roof "
                      "(hover for the colours); below, memory per chip; right, {unit} against the "
                      "number of chips.").format(workload=name, unit=unit)
        else:
            shown = None
        if energy:
            parts = ", ".join(f"<span style='color:{color}'>■</span> {_(ENERGY_PART_WORDS[part])}"
                              for part, color in ENERGY_PART_COLORS.items())
            title = _("{workload}: each chip's energy per step by where it goes: {parts} "
                      "(estimates from the board power are upper bounds, held to the board power "
                      "over the time); right, {unit} as before.").format(
                workload=name, parts=parts, unit=unit)
        elif train:
            title = _("{workload}: one step's time per chip by part (blue forward, orange "
                      "backward, purple recompute, green optimizer, grey communication, light "
                      "grey bubble; every kernel at its roof, the parts end to end; the black "
                      "tick: the step with communication hidden); below, memory per chip; right, "
                      "{unit} against the number of chips as data parallelism grows.").format(
                workload=name, unit=unit)
        else:
            right = (self._weights_words(r) if self._weights_shown(r) else
                     _("{unit} against latency as the batch grows").format(unit=unit))
            title = _("{workload}: time per step by kernel, coloured by what bounds it (blue "
                      "memory, orange compute, grey link); right, {right}.").format(
                workload=name, right=right)
        shown = tidy((title if shown is None else shown) + short_notes)
        title = tidy(title + notes)
        if self.title.text() != shown:
            self.title.setText(shown)
            set_tip(self.title, title if shown != title else "")
        rows = {c: n for n, c in enumerate(chips)}
        names = tuple(r.chips[c].name for c in chips)
        if names != self._chips_shown:
            self.bars.getAxis("left").setTicks([list(enumerate(names))])
            # a row a chip, its name's line tall, and the axis: scrolled where the panel is lower
            # (up to about five chips the least height as before, no scrolling)
            line = self.fontMetrics().lineSpacing()
            self.bars.setMinimumHeight(max(7 * line, (len(names) + 2) * line))
            self.bars.getViewBox().invertY(True)
            self.bars.setYRange(-0.6, len(chips) - 0.4, padding=0)
            self._chips_shown = names
        for kind, color in {**SEGMENT_KINDS, **training_view.PART_COLORS,
                            **{f"e:{k}": v for k, v in ENERGY_PART_COLORS.items()}}.items():
            parts = [s for s in self.segments if s.kind == kind]
            item = self._bar_items.get(kind)
            if item is None:
                item = pg.BarGraphItem(x0=[], y=[], width=[], height=BAR_HEIGHT, brush=color,
                                       pen=pg.mkPen("w", width=1))
                self.bars.addItem(item, ignoreBounds=True)  # the range is set below
                self._bar_items[kind] = item
            item.setOpts(x0=[s.start for s in parts], y=[rows[s.chip] for s in parts],
                         width=[s.width for s in parts], height=BAR_HEIGHT)
        ends = [s.start + s.width for s in self.segments]
        self._fit_x([max(ends)] if ends else [])
        self._label_segments(rows)
        self._mark_steps(r, [] if energy else chips, rows)
        self._draw_memory(r, chips, names)
        self._row_chips = [r.chips[c].id for c in chips]
        self._row_tips = [self._bar_tip(r, c, energy) for c in chips]
        self._mark_chosen()
        set_tip(self.bars, "\n".join(self._row_tips))
        key = (self._sweep_key(r.workload), r.chips, r.evaluation.derated)
        if key != self._shown_key:
            same_else = (self._shown_key is not None and self._marker is not None
                         and key[0] == self._shown_key[0] and key[2] == self._shown_key[2])
            if same_else:  # only a chip changed (a roof dragged): redrawn once it settles
                self._sweep_later.start()
            else:
                self._draw_sweep(r, chips)
                self._shown_key = key
        self._mark_batch(r, chips)

    def _row_at(self, scene_pos) -> int | None:
        """The bar (row) under a point of the bars' scene, on the bars or on the chip names
        beside them; None elsewhere."""
        item = self.bars.getPlotItem()
        if not item.sceneBoundingRect().contains(scene_pos) or not self._row_chips:
            return None
        row = round(self.bars.getViewBox().mapSceneToView(scene_pos).y())
        return row if 0 <= row < len(self._row_chips) else None

    def _on_bars_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        row = self._row_at(event.scenePos())
        if row is not None:
            event.accept()
            self.model.select(chip_id=self._row_chips[row])

    def _on_bars_hover(self, scene_pos) -> None:
        """The tooltip names the bar under the pointer alone (all of them elsewhere)."""
        row = self._row_at(scene_pos)
        tips = getattr(self, "_row_tips", [])
        text = (tips[row] + _("\n(click: select this chip)") if row is not None and row < len(tips)
                else "\n".join(tips))
        if self.bars.toolTip() != text:
            set_tip(self.bars, text)

    def _mark_chosen(self) -> None:
        """A faint band behind the selected chip's bar."""
        chosen = self.model.selected_chip
        rows = [n for n, cid in enumerate(self._row_chips) if cid == chosen]
        top = self._x_top or 1.0
        self._chosen_band.setOpts(x0=[-top] * len(rows), y=rows, width=[3 * top] * len(rows),
                                  height=1.0)

    def _bar_tip(self, r, c: int, energy: bool) -> str:
        """One chip's bar in words: its step's time (or energy) and every part of 0.5 % or more;
        said so where the chip cannot run the workload or has no energy data."""
        total = float(r.energy.per_step[c]) if energy else float(r.time[c])
        if not np.isfinite(total):
            return f"{r.chips[c].name}: " + (_("no energy data") if energy else _("cannot run it"))
        parts = ", ".join(f"{s.name} {100 * s.share:.2g}%" for s in self.segments
                          if s.chip == c and s.share >= 0.005)
        value = format_si(total, "J") if energy else format_time(total)
        return f"{r.chips[c].name}: {value}" + (f", {parts}" if parts else "")

    def _redraw_sweep(self) -> None:
        """The sweep after a chip changed (a roof drag's last step): each of its 13 batches
        evaluated again on every chip, once the chips stop changing."""
        r = self._result()
        if r is None:
            return
        chips = [i for i, c in enumerate(r.chips) if c.visible]
        self._draw_sweep(r, chips)
        self._shown_key = (self._sweep_key(r.workload), r.chips, r.evaluation.derated)
        self._mark_batch(r, chips)

    def _mark_steps(self, r, chips, rows) -> None:
        """A training step's bar runs its parts end to end (communication not hidden); a black
        tick marks the step's lower bound on each, communication hidden behind compute."""
        if self._step_marks is None:
            self._step_marks = pg.ScatterPlotItem(symbol="|", size=STEP_MARK_PX,
                                                  pen=pg.mkPen("k", width=2.5))
            self._step_marks.setZValue(5)
            self.bars.addItem(self._step_marks, ignoreBounds=True)
        shown = [(float(r.time[c]), rows[c]) for c in chips if r.training is not None
                 and np.isfinite(r.time[c]) and r.time[c] < r.time_no_overlap[c] * 0.999]
        # a little taller than its bar, a few pixels short of its row (four chips at 1280 ×
        # 800, 9 px bars: the 22 px ticks of two rows ran into each other, the 42nd tour; at
        # thirteen chips, 13 px rows, two ticks a pixel apart read as one bar across both)
        bar = self._bar_px(len(rows))
        size = min(STEP_MARK_PX, max(6.0, min(bar + 6.0, bar / BAR_HEIGHT - 3.0)))
        self._step_marks.setData([t for t, _y in shown], [y for _t, y in shown], size=size)
        set_tip(self._step_marks, _("the step at its lower bound: communication hidden behind "
                                    "compute") if shown else "")

    @staticmethod
    def _sweep_key(w: Workload) -> Workload:
        """What the sweep depends on: all but the batch (inference), all but the data-parallel
        degree and the global batch it scales (training: each replica's share is kept)."""
        if w.training:
            return replace(w, data_parallel=1, global_batch=w.sequences_per_step // w.data_parallel)
        return replace(w, batch=1)

    def _draw_memory(self, r, chips, names) -> None:
        """A training step's bytes per chip, stacked by part, in one bar (every chip holds the
        same share of the model), with each chip's capacity marked on it in the chip's colour
        and named: a row per chip, a few pixels high at 1280 × 800, printed the chips' names
        over each other (the tour)."""
        self.memory.setVisible(r.training is not None)
        self.memory.clear()
        if r.training is None:
            return
        parts = training_view.memory_parts(r)
        # The vertical axis in pixels (y down, the bar at 0): the capacities' names go in rows a
        # text line apart above it however tall the chart is (rows 0.75 of a bar apart printed
        # two chips' "does not fit" over each other in a short dock: the second tour).
        line = QFontMetricsF(QFont()).height() + 1  # a name's height (drawn without margins)
        bar_px = line * 0.9
        start = 0.0
        for name, size in parts:
            if size <= 0:
                continue
            bar = pg.BarGraphItem(x0=[start], y=[0], width=[size], height=bar_px,
                                  brush=training_view.MEMORY_COLORS[name],
                                  pen=pg.mkPen("w", width=1), name=name)
            set_tip(bar, _("{part}: {size} per chip").format(part=_(name),
                                                               size=format_si(size, "B")))
            self.memory.addItem(bar)
            start += size
        # each chip that runs it: its capacity, a mark in its colour, named above the bar
        runs = [c for c in chips if np.isfinite(r.time[c]) and np.isfinite(r.capacity[c])]
        short = dict(zip(chips, short_names(tuple(names)), strict=True))
        marks = sorted((float(r.capacity[c]), c) for c in runs)
        vb = self.memory.getViewBox()
        metrics = QFontMetricsF(QFont())
        # the total at the bar's right end, in the room the axis leaves beyond it
        total = pg.TextItem(format_si(start, "B"), color="#404040", anchor=(0.0, 0.5))
        total_px = metrics.horizontalAdvance(format_si(start, "B")) + 12
        width_px = max(vb.width(), 200.0)
        top = max(max([start, *[cap for cap, _c in marks]]) * 1.15,
                  start * width_px / max(width_px - total_px, 1.0))
        px = top / width_px  # data units per pixel across (an estimate before layout)
        total.textItem.document().setDocumentMargin(0)
        total.setPos(start + 4 * top / width_px, 0)
        self.memory.addItem(total)
        rows: list[float] = []  # the right end of the last label on each row of labels

        def row_for(x: float, half: float) -> int:
            """The first row of labels where one centred at ``x``, ``half`` wide each side, runs
            into none placed; taken."""
            row = next((i for i, end in enumerate(rows) if x - half > end), len(rows))
            if row == len(rows):
                rows.append(-np.inf)
            rows[row] = x + half
            return row

        # a capacity's mark across the total beside the bar ("3.152 GB" struck through by the
        # V100's 16 GB mark in a narrow panel: the 42nd tour): the total above the bar's end,
        # in the first row of labels, as the chips' names are
        end = start + (4 + total_px) * px
        if any(start - 3 * px <= cap <= end + 3 * px for cap, _c in marks):
            half = (total_px / 2 + 6) * px
            x = min(max(start, half), top - half)
            row = row_for(x, half)
            total.setAnchor((0.5, 0.5))
            total.setPos(x, -(max(bar_px, line) / 2 + 1 + line * (row + 0.5)))
        for cap, c in marks:
            color = r.chips[c].color or "#808080"
            fits = start <= cap
            self.memory.addItem(pg.ScatterPlotItem([cap], [0], symbol="|", size=14,
                                                   pen=pg.mkPen(color, width=3)))
            words = (_("{chip} {capacity}") if fits else
                     _("{chip} {capacity}: does not fit")).format(
                chip=short[c], capacity=format_si(cap, "B"))
            half = (metrics.horizontalAdvance(words) / 2 + 6) * px
            x = min(max(cap, half), top - half)  # where it is written: inside the chart
            row = row_for(x, half)
            text = pg.TextItem(words, color=color if fits else "#b00020", anchor=(0.5, 0.5))
            text.textItem.document().setDocumentMargin(0)
            text.setPos(x, -(max(bar_px, line) / 2 + 1 + line * (row + 0.5)))
            self.memory.addItem(text)
        # the total at the bar's end: in the title too, it read "memory per chip: 169 GB (hover
        # for its parts) (GB)"
        self.memory.setLabel("bottom", _("memory per chip (hover for its parts)"), units="B")
        self.memory.getAxis("left").setTicks([[]])
        vb.invertY(True)
        self.memory.setXRange(0, top, padding=0)
        needed = max(bar_px, line) / 2 + 3 + line * max(len(rows), 1)
        below = max(bar_px, line) / 2 + 1  # the bar, and the total beside it
        self.memory.setYRange(-max(needed, vb.height() - below), below, padding=0)
        # tall enough for its rows of names, the bar and the axis with its title; for up to
        # MEMORY_ROWS chips shown, room for a row each whatever rows the names took: the rows
        # follow the workload's total (the axis's end), and the panel's least height with them
        # moved the bottom panels by 15 px when another precision was selected (the
        # twenty-fifth tour)
        room = max(bar_px, line) / 2 + 3 + line * max(len(rows), min(len(chips), MEMORY_ROWS), 1)
        axis = self.memory.getAxis("bottom")
        self.memory.setMinimumHeight(int(room + below + axis.height() + 6))
        set_tip(self.memory, _("Memory per chip: {parts} = {total}; the marks are each chip's "
                                 "capacity").format(
            parts=", ".join(f"{_(name)} {format_si(size, 'B')}" for name, size in parts),
            total=format_si(start, "B")))

    def _refit(self, _index: int) -> None:
        self._x_top = 0.0
        self._later.request()

    def _fit_x(self, times: list[float]) -> None:
        """The time axis holds the longest bar; it keeps its range while the bars stay between
        70% and 100% of it (a drag step then repaints bars, not axes)."""
        if times:
            top = max(times) * 1.05
            if not self._x_top or top > self._x_top or top < 0.7 * self._x_top:
                self._x_top = top
                self.bars.setXRange(-0.01 * top, top, padding=0)

    def _bar_px(self, rows: int) -> float:
        """A bar's height in pixels, the bars' view holding ``rows`` rows."""
        return BAR_HEIGHT * self.bars.getViewBox().height() / max(rows, 1)

    def _label_segments(self, rows: dict[int, int]) -> None:
        """Name the segments wide enough for their name inside their bar (every one is in the
        tooltip), measured against the axis as it now is: placed before the axis followed the
        bars, the names of a step that shrank the axis were judged against the old, wider
        range and left out."""
        for item in self._segment_labels:
            self.bars.removeItem(item)
        self._segment_labels = []
        self._labelled_width = self.bars.getViewBox().width()
        px_per_s = max(self._labelled_width, 100.0) / (self._x_top or 1.0)
        # in a short dock (1280 x 800) the names overran the bars' height: in a smaller font
        # where the bars are thin (four chips there had lost every name: the 37th tour), none
        # where even that would (a little over the bar still reads)
        # (white on the bar: the letters' tops above a thin bar were lost on the white behind
        # it, "backward 61%" read cut at four chips, the 42nd tour): a name where the bar holds
        # its capitals with a pixel or two to spare
        bar_px = self._bar_px(len(rows))
        font = QFont()
        usual = font.pointSizeF()
        for points in (usual, 0.8 * usual, SMALLEST_SEGMENT_PT):  # the largest that fits
            font.setPointSizeF(max(SMALLEST_SEGMENT_PT, points))
            if bar_px >= QFontMetricsF(font).capHeight() + SEGMENT_ROOM_PX:
                break
        else:
            return
        metrics = QFontMetricsF(font)
        char = metrics.averageCharWidth()
        for seg in self.segments:
            words = f"{re.split(r' [(]|（', seg.name)[0]} {100 * seg.share:.0f}%"  # (Japanese too)
            if seg.width * px_per_s > len(words) * char + 24:  # only where it fits in its bar
                text = pg.TextItem(words, color="w", anchor=(0.5, 0.5))
                text.setFont(font)
                text.setPos(seg.start + seg.width / 2, rows[seg.chip])
                self.bars.addItem(text, ignoreBounds=True)
                self._segment_labels.append(text)

    def _draw_scaling(self, r, chips) -> None:
        """Tokens (images) per second against the number of chips as d grows, each replica's
        share of the global batch kept; hollow where communication takes longer than the
        kernels (it then bounds the step), dashed the perfect scaling from one replica."""
        sweep = training_view.scaling(r.workload, [r.chips[c] for c in chips],
                                      derated=r.evaluation.derated,
                                      same_width=self.model.view.same_width, kernels=r.kernels)
        self._sweep = sweep
        unit = _(r.workload.throughput_unit)
        # a step that does not fit in a chip's memory: its points crosses and its line dashed
        # (the line had climbed on, filled, where every chip said "does not fit": the ninth
        # tour; the decode sweep dashes such points too)
        fits = np.array([training_view.fits_in_memory(s) for s in sweep])  # [d, chips]
        self._sweep_title.set((_("chips, d doubling (hollow: link-bound; ×, dashed: does not fit)"),
                               _("chips (hollow: link-bound; ×: does not fit)"),
                               _("chips (×: does not fit)"), _("chips")) if not fits.all() else
                              (_("chips, d doubling (hollow: link-bound)"),
                               _("chips (hollow: link-bound)"), _("chips")))
        self.sweep.setLabel("left", unit)
        xs = np.array([s.training.chips for s in sweep], dtype=float)
        drawn: list[tuple[int, np.ndarray]] = []  # each chip's line, log10, as drawn
        for j, c in enumerate(chips):
            thr = np.array([s.throughput[j] for s in sweep])
            ok = np.isfinite(thr)
            if not ok.any():
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                drawn.append((c, np.log10(np.where(ok & (thr > 0), thr, np.nan))))
            color = r.chips[c].color or "#808080"
            comm = np.array([s.link_time[j] > s.kernel_time[j] for s in sweep])
            fit = ok & fits[:, j]
            self.sweep.plot(xs[ok], thr[ok], pen=pg.mkPen(color, width=2, style=(
                Qt.PenStyle.SolidLine if fit[ok].all() else Qt.PenStyle.DashLine)),
                name=r.chips[c].name)
            if fit.any() and not fit[ok].all():  # the part that fits, solid over the dashes
                self.sweep.plot(xs[fit], thr[fit], pen=pg.mkPen(color, width=2))
            for mask, brush, symbol in ((fit & ~comm, color, "o"), (fit & comm, "w", "o"),
                                        (ok & ~fit, color, "x")):
                if mask.any():
                    self.sweep.plot(xs[mask], thr[mask], pen=None, symbol=symbol,
                                    symbolSize=6 if symbol == "o" else 8, symbolBrush=brush,
                                    symbolPen=color)
            first = int(np.argmax(ok))
            ideal = thr[first] * xs / xs[first]
            self.sweep.plot(xs[ok], ideal[ok], pen=pg.mkPen(color, width=1,
                                                            style=Qt.PenStyle.DotLine))
        self._marker = pg.ScatterPlotItem(size=14, pen=pg.mkPen("k", width=2),
                                          brush=pg.mkBrush(None))
        self.sweep.getViewBox().autoRange(padding=0.08)
        self.sweep.getViewBox().disableAutoRange()
        self.sweep.addItem(self._marker, ignoreBounds=True)
        # a chip whose line lies under another's says so, in its colour, at the top left
        # (where throughput rising with the chips leaves room): TPU v3's under the V100's in
        # the training example showed two lines for three chips (the twenty-fifth tour)
        under = hidden_under(drawn)
        hidden = [(c, _("{chip} (hidden under {others})").format(
            chip=r.chips[c].name, others=listed(r.chips[d].name for d in under[c])))
            for c, _ys in drawn if c in under]
        self.hidden_note = "; ".join(words for _c, words in hidden)
        # and names each chip's line in its colour: the 36th tour read two lines and nothing
        # to say whose (the chips' colours are the breakdown's, but not every reader looks)
        self._chip_key(r, [c for c, _ys in drawn], under)

    def _chip_key(self, r, drawn: list[int], under: dict | None = None) -> None:
        """Each drawn chip's name in its colour at the view's top left, a chip whose line lies
        under others' said so; wrapped to the chart's width (_fit_hidden_note)."""
        under = under or {}

        def whole(name: str) -> str:  # a chip's name never broken across lines
            return html.escape(name).replace(" ", "&nbsp;")

        # the first few: every preset's name had covered the whole chart (the 41st tour)
        few, others = _first(drawn, KEY_CHIPS)
        key = [(c, _("{chip} (hidden under {others})").format(
            chip=whole(r.chips[c].name), others=whole(listed(r.chips[d].name for d in under[c])))
            if c in under else whole(r.chips[c].name)) for c in few]
        if key:
            # (nor the count of the others between its characters, as Japanese breaks: "ほか
            # 28 チップ" broke after "ほ")
            more = ("&nbsp;&nbsp; " + whole(WORD_JOINER.join(_("and {n} more").format(n=others)))
                    if others else "")
            # on a backdrop: with many chips the key grows over the lines, which ran through
            # its words (the 42nd tour's second look)
            note = pg.TextItem(html="&nbsp;&nbsp; ".join(
                f"<span style='color:{r.chips[c].color or '#808080'}'>■</span>&nbsp;" + words
                for c, words in key) + more, anchor=(0, 0), fill=pg.mkBrush(255, 255, 255, 215))
            note.setZValue(20)  # over the lines and rings
            (x_lo, _x_hi), (_y_lo, y_hi) = self.sweep.getViewBox().viewRange()
            note.setPos(x_lo, y_hi)
            self.sweep.addItem(note, ignoreBounds=True)
            self._hidden_item = note
            self._fit_hidden_note()

    def _fit_hidden_note(self, *_args) -> None:
        """The scaling chart's note wrapped to the chart's width (one line was cut at a small
        chart's right edge)."""
        note = self._hidden_item
        if note is not None and note.scene() is not None:
            note.setTextWidth(max(60.0, self.sweep.getViewBox().width() - 12))

    def _redraw_right(self) -> None:
        self._shown_key = None
        self.refresh()

    def _weights_shown(self, r) -> bool:
        return (r.training is None and r.workload.kind == "transformer"
                and self.right.currentData() == "weights")

    def _weights_words(self, r) -> str:
        """What the weights-per-token chart's three lines are, with their sizes."""
        sweep = weights_sweep(replace(r.workload, batch=1), (1,))
        n = r.workload.chips_per_model  # on all the chips of the step
        every = format_si(float(n * sweep.dense_all[0]), "B")
        one = format_si(float(n * sweep.dense_active[0]), "B")
        if sweep.dense_active[0] < 0.99 * sweep.dense_all[0]:
            return _("the weight bytes each token costs as the batch grows (black; grey dashed: a "
                     "dense model reading all {every} every step; dotted: one reading one "
                     "token's {one} every step)").format(every=every, one=one)
        return _("the weight bytes each token costs as the batch grows (black; grey dashed: a "
                 "dense model reading all {every} every step)").format(every=every)

    def _draw_weights(self, r) -> None:
        """Weight bytes per token against the batch: the workload's, and two dense models'."""
        sweep = weights_sweep(r.workload, SWEEP_BATCHES)
        self._weights = sweep
        n = r.workload.chips_per_model  # on all the chips of the step, as the explanation says
        self._sweep_title.set((_("batch B"),))
        self.sweep.setLabel("left", _("B per token") + (f", {n} chips" if n > 1 else ""))
        # What each line is, in the title above (a legend would sit on the lines)
        self.sweep.plot(sweep.batches, n * sweep.dense_all,
                        pen=pg.mkPen("#9d9d9d", width=1, style=Qt.PenStyle.DashLine))
        if sweep.dense_active[0] < 0.99 * sweep.dense_all[0]:
            self.sweep.plot(sweep.batches, n * sweep.dense_active,
                            pen=pg.mkPen("#9d9d9d", width=1, style=Qt.PenStyle.DotLine))
        self.sweep.plot(sweep.batches, n * sweep.per_token, pen=pg.mkPen("#222222", width=2),
                        symbol="o", symbolSize=5, symbolBrush="#222222")
        set_tip(self.sweep, "\n".join(
            _("batch {batch}: {bytes} per token").format(batch=int(b), bytes=format_si(float(n * v), "B"))
            for b, v in zip(sweep.batches, sweep.per_token, strict=True)))
        self._fit_with_marker()

    def _fit_with_marker(self) -> None:
        """The range fits the sweep's lines once; the marker of the current batch, moving along
        them, changes no range (so a drag step repaints the marker, not the axes)."""
        self._marker = pg.ScatterPlotItem(size=14, pen=pg.mkPen("k", width=2),
                                          brush=pg.mkBrush(None))
        self.sweep.getViewBox().autoRange(padding=0.08)
        self.sweep.getViewBox().disableAutoRange()
        self.sweep.addItem(self._marker, ignoreBounds=True)

    def _draw_sweep(self, r, chips) -> None:
        self.sweep.clear()
        self.hidden_note = ""  # the scaling chart's lines under others', as it says them
        self._hidden_item = None
        set_tip(self.sweep, "")
        self.right.setVisible(r.training is None and r.workload.kind == "transformer")
        if r.training is not None:
            self._draw_scaling(r, chips)
            return
        if self._weights_shown(r):
            self._draw_weights(r)
            return
        sweep = batch_sweep(r.workload, [r.chips[c] for c in chips], SWEEP_BATCHES,
                            derated=r.evaluation.derated, kernels=r.kernels)
        self._sweep = sweep
        # Each chip in its colour, as on the chart, named at the top left (_chip_key).
        # Through the chart's one title keeper: a plain setLabel was blanked at the next resize
        # (the sixth tour's short Llama chart had no x title)
        unit = _(r.workload.throughput_unit)
        self._sweep_title.set((_("{unit} (dashed: does not fit)").format(unit=unit), unit))
        self.sweep.setLabel("left", _("s per step"))
        for j, c in enumerate(chips):
            thr = np.array([s.throughput[j] for s in sweep])
            lat = np.array([s.time[j] for s in sweep])
            # Up to the batch whose weights and KV cache still fit in the chip's memory.
            fits = np.array([bool(s.fits[j]) or not np.isfinite(s.built.resident_bytes)
                             for s in sweep])
            ok = np.isfinite(thr) & np.isfinite(lat)
            color = r.chips[c].color or "#808080"
            if (ok & fits).any():
                self.sweep.plot(thr[ok & fits], lat[ok & fits], pen=pg.mkPen(color, width=2),
                                symbol="o", symbolSize=5, name=r.chips[c].name, symbolBrush=color)
            # Batches whose weights and cache do not fit in the chip: dashed, hollow points.
            beyond = ok & ~fits
            if beyond.any():
                first = max(0, int(np.argmax(beyond)) - 1)  # joined to the last that fits
                span = np.arange(len(thr)) >= first
                self.sweep.plot(thr[ok & span], lat[ok & span],
                                pen=pg.mkPen(color, width=1, style=Qt.PenStyle.DashLine),
                                symbol="o", symbolSize=5, symbolBrush="w", symbolPen=color)
        self._fit_with_marker()
        # whose each curve is, at the top left (latency rising with throughput leaves it
        # empty): the bars' blue is memory-bound time, not a chip (the 38th tour read the two
        # blues as one and found no key here, as the training chart has)
        self._chip_key(r, [c for j, c in enumerate(chips)
                           if np.isfinite([s.throughput[j] for s in sweep]).any()])

    def _mark_batch(self, r, chips) -> None:
        if r.training is not None:  # the step as it is: its chips and its tokens per second
            ys = [float(np.log10(r.throughput[c])) for c in chips if np.isfinite(r.throughput[c])]
            self._marker.setData([float(np.log10(r.training.chips))] * len(ys), ys)
            set_tip(self._marker, _("d = {d}: {chips} chips").format(
                d=r.workload.data_parallel, chips=f"{r.training.chips:,}"))
            return
        if self._weights_shown(r):  # the batch on the weights-per-token curve
            read = (sum(e.weight_bytes * e.count for e in r.entries) / r.workload.tokens()
                    * r.workload.chips_per_model)
            self._marker.setData([float(np.log10(r.workload.batch))], [float(np.log10(read))])
            set_tip(self._marker, _("batch {batch}: {bytes} of weights per token").format(
                batch=r.workload.batch, bytes=format_si(read, "B")))
            return
        xs = [float(np.log10(r.throughput[c])) for c in chips if np.isfinite(r.throughput[c])]
        ys = [float(np.log10(r.time[c])) for c in chips if np.isfinite(r.time[c])]
        self._marker.setData(xs, ys)
        set_tip(self._marker, _("batch {batch}").format(batch=r.workload.batch))
