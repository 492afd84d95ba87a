"""The Serving view: the selected transformer workload served on every shown chip, output
tokens/s per chip against tokens/s per user as the concurrency grows (core.serving), with the
requests' lengths and the latency limits as fields, the TPOT limit as a line to drag, and the
selected chip's best point in words."""

from __future__ import annotations

import html
from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from roofline_gui.core.errors import RooflineError
from roofline_gui.core.serving import chip_named, measured_lines, serve, serving_lines, spec_of
from roofline_gui.core.workload import MAX_DIM, Workload, with_field
from roofline_gui.io.imports import import_serving_csv
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.widgets.common.axes import log_plot
from roofline_gui.widgets.common.throttle import Throttle

#: The fields: (name, label, tooltip), whole numbers then times and the rate.
_FIELDS = (("input_tokens", "Input I", "prompt tokens per request (a mean)"),
           ("output_tokens", "Output O", "output tokens per request (a mean)"),
           ("tpot_limit", "TPOT limit (ms)", "time per output token a user may see at most "
                                             "(0: none); or drag its line on the chart"),
           ("ttft_limit", "TTFT limit (ms)", "time to the first token at most (0: none): one "
                                             "prompt's prefill, without queueing"),
           ("draft_tokens", "Draft tokens n", "speculative decoding: tokens drafted per step "
                                              "(0: off); the draft's own work is not counted"),
           ("acceptance", "Acceptance α", "each drafted token's chance to be accepted: "
                                          "(1 − α^(n+1))/(1 − α) tokens a step"))
LABELS = {name: label for name, label, _tip in _FIELDS}


class MeasuredFiles:
    """The file dialog of Measured points…, replaceable in tests."""

    @staticmethod
    def open_path(parent: QWidget) -> str:
        return QFileDialog.getOpenFileName(parent, "Measured serving points", "",
                                           "CSV (*.csv);;All files (*)")[0]


class ServingPanel(QWidget):
    def __init__(self, model: DocumentModel, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.result = None  # the ServingResult shown
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.edits: dict[str, QSpinBox | QDoubleSpinBox] = {}
        grid = QGridLayout()
        grid.setHorizontalSpacing(6)
        for i, (name, label, tip) in enumerate(_FIELDS):
            if name in ("input_tokens", "output_tokens", "draft_tokens"):
                edit = QSpinBox()
                edit.setRange(0 if name == "draft_tokens" else 1,
                              64 if name == "draft_tokens" else MAX_DIM)
            else:
                edit = QDoubleSpinBox()
                edit.setDecimals(2 if name != "acceptance" else 3)
                edit.setRange(0.0, 0.999 if name == "acceptance" else 1e6)
                edit.setSingleStep(0.05 if name == "acceptance" else 5.0)
            edit.setKeyboardTracking(False)
            edit.setToolTip(tip)
            edit.valueChanged.connect(lambda v, n=name: self._on_field(n, v))
            caption = QLabel(label)
            caption.setBuddy(edit)
            grid.addWidget(caption, i // 3, 2 * (i % 3))
            grid.addWidget(edit, i // 3, 2 * (i % 3) + 1)
            self.edits[name] = edit
        self.plot = log_plot()
        self.plot.showGrid(True, True, 0.25)
        self.plot.setLabel("bottom", "tokens/s per user (output)")
        self.plot.setLabel("left", "tokens/s per chip")
        self.plot.setMinimumHeight(8 * self.fontMetrics().lineSpacing())
        self.tpot_line = pg.InfiniteLine(angle=90, movable=True,
                                         pen=pg.mkPen("#b00020", width=2,
                                                      style=Qt.PenStyle.DashLine))
        self.tpot_line.setToolTip("The TPOT limit: drag it (left: a looser limit)")
        self.tpot_line.sigPositionChangeFinished.connect(self._on_line_dragged)
        self.measured: tuple = ()  # measured points drawn against their chips' frontiers
        self.measure_button = QPushButton("Measured points…")
        self.measure_button.setToolTip(
            "A CSV of measured or published serving points (columns chip, tokens_per_s_per_user, "
            "tokens_per_s_per_chip, source): drawn as stars against their chip's bound, any "
            "above it named with what to check")
        self.measure_button.clicked.connect(self.import_measured)
        grid.addWidget(self.measure_button, 0, 6)
        self.refused = QLabel()  # a field's refusal, until the next edit
        self.refused.setWordWrap(True)
        self.refused.setStyleSheet("color: #b00020")
        self.words = QLabel()
        self.words.setWordWrap(True)
        self.words.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.words.setAlignment(Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addLayout(grid)
        layout.addWidget(self.refused)
        words = QScrollArea()
        words.setWidget(self.words)
        words.setWidgetResizable(True)
        words.setFrameShape(QFrame.Shape.NoFrame)
        words.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QGridLayout()
        body.addWidget(self.plot, 0, 0)
        body.addWidget(words, 0, 1)
        body.setColumnStretch(0, 3)
        body.setColumnStretch(1, 2)
        layout.addLayout(body, 1)
        self._serial = 0
        self._frontier_key = None  # what the frontier was served for, limits left out
        self._served_limit = None  # the TPOT limit the frontier's concurrencies were searched for
        self._drawn_key = None  # what is drawn now
        # The words serve three variants of the workload (~20 ms): written once the fields and
        # the line have held still, not at every step of a drag.
        self._words_later = QTimer(self)
        self._words_later.setSingleShot(True)
        self._words_later.setInterval(200)
        self._words_later.timeout.connect(self._write_words)
        self._make_items()
        self._later = Throttle(self, self.refresh)
        model.sig_document_changed.connect(lambda *_a: self._later.request())
        model.sig_selection_changed.connect(lambda *_a: self._later.request())
        self.refresh()

    @property
    def pending(self) -> bool:
        return self._later.pending or self._words_later.isActive()

    def workload(self) -> Workload | None:
        """The selected workload if it is a transformer, else the document's first one."""
        doc = self.model.document
        chosen = doc.workload(self.model.selected_kernel) if self.model.selected_kernel in {
            w.id for w in doc.workloads} else None
        if chosen is not None and chosen.kind == "transformer":
            return chosen
        return next((w for w in doc.workloads if w.kind == "transformer"), None)

    def _on_field(self, name: str, value) -> None:
        w = self.workload()
        if w is None:
            return
        if name in ("tpot_limit", "ttft_limit"):
            value = float(value) / 1e3
        elif name == "acceptance":
            value = round(float(value), 3)
        else:
            value = int(value)
        if getattr(w, name) == value:
            return
        self._serial += 1
        shown = (f"{value * 1e3:g} ms" if name in ("tpot_limit", "ttft_limit") else value)
        self.model.last_refused = None
        done = self.model.set_workload(with_field(w, name, value), f"{w.name}: {LABELS[name]} "
                                       f"{shown}", merge_key=("serving field", self._serial, name))
        refusal = self.model.last_refused
        self.refused.setText(f"{LABELS[name]} {shown} refused: {refusal}"
                             if not done and refusal is not None else "")
        if not done:
            self.refresh()  # the field shows the workload's own value again

    def _on_line_dragged(self) -> None:
        w = self.workload()
        x = float(self.tpot_line.value())
        if w is None or not np.isfinite(x):
            return
        tpot = round(1.0 / 10**x, 6)  # the line stands at tokens/s per user = 1 / TPOT
        self.model.set_workload(with_field(w, "tpot_limit", tpot),
                                f"{w.name}: TPOT limit {tpot * 1e3:.3g} ms")

    def _chip_index(self, chips) -> int:
        ids = [c.id for c in chips]
        return ids.index(self.model.selected_chip) if self.model.selected_chip in ids else 0

    def refresh(self) -> None:
        w = self.workload()
        chips = tuple(c for c in self.model.document.chips if c.visible)
        if w is None or not chips:
            self._clear_chart()
            self.result = None
            self._drawn_key = None
            self.title.setText("No transformer workload: Workloads → New Workload… makes one; "
                               "its serving bound is drawn here.")
            self.words.setText("")
            return
        for name, edit in self.edits.items():
            edit.blockSignals(True)
            value = getattr(w, name)
            edit.setValue(value * 1e3 if name in ("tpot_limit", "ttft_limit") else value)
            edit.blockSignals(False)
        derated = self.model.view.derated
        key = (w, chips, derated)
        if key == self._drawn_key:  # the selected chip may have changed: its words
            self._words_later.start()
            return
        frontier = (replace(w, tpot_limit=0.0, ttft_limit=0.0), chips, derated)
        same = frontier == self._frontier_key and self.result is not None
        try:
            # a limit moved: the same frontier, other best points
            # a new frontier is served at the doublings alone; the concurrencies between them
            # are searched for the best point under a TPOT limit once the fields hold still
            result = replace(self.result if same else serve(
                w, chips, replace(spec_of(w), tpot_limit=0.0), derated=derated),
                workload=w, spec=spec_of(w))
        except RooflineError as exc:
            self.result = None
            self._drawn_key = self._frontier_key = None
            self._clear_chart()
            self.title.setText(f"<b>{html.escape(w.name)}</b> cannot be served: "
                               f"{html.escape(str(exc))}")
            self.words.setText("")
            return
        self.result = result
        self._frontier_key, self._drawn_key = frontier, key
        if not same:
            self._served_limit = 0.0
            self._draw_frontier(result)
        self._draw_limits(result)
        self._words_later.start()

    def _make_items(self) -> None:
        """The chart's items, made once and given new data at each redraw (a frontier typed
        or dragged redraws in a few ms; clearing and rebuilding them took 60)."""
        plot = self.plot.getPlotItem()
        self._lines: list[tuple[pg.PlotDataItem, pg.PlotDataItem]] = []  # per chip: fits, all
        self._points = pg.ScatterPlotItem(size=7, hoverable=True, tip=self._tip)
        self._points.sigClicked.connect(self._on_click)
        self._stars = pg.ScatterPlotItem()
        self._stars.setToolTip("Measured points (Measured points…), against their chip's bound")
        self._rings = pg.ScatterPlotItem(size=16, pen=pg.mkPen("k", width=2), brush=None)
        self._labels: list[pg.TextItem] = []
        # bottom left: the frontiers fall from the top left to the bottom right, never there
        self.legend = plot.addLegend(offset=(8, -8), labelTextSize="8pt", labelTextColor="k",
                                     brush=pg.mkBrush(255, 255, 255, 230),
                                     pen=pg.mkPen("#c0c0c0"))
        self.legend.setZValue(1000)  # over the TPOT line dragged across it
        for item in (self._points, self._stars, self._rings):
            plot.addItem(item)
        plot.addItem(self.tpot_line, ignoreBounds=True)
        self._legend_key = None

    def _clear_chart(self) -> None:
        for fit, every in self._lines:
            fit.setData([], [])
            every.setData([], [])
        for item in (self._points, self._stars, self._rings):
            item.setData([])
        for label in self._labels:
            label.setVisible(False)
        self.legend.clear()
        self._legend_key = None
        self.tpot_line.setVisible(False)

    def _draw_frontier(self, result) -> None:
        """Each chip's curve, its points (hover, click) and their users' numbers, the chips
        named in a legend."""
        plot = self.plot.getPlotItem()
        self.title.setText(
            f"<b>{html.escape(result.workload.name)}</b> served: each chip's tokens/s against "
            "each user's as more users decode at once (numbered); hollow: their caches do not "
            "fit; ringed: the best within the limits.")
        while len(self._lines) < len(result.chips):
            pair = (pg.PlotDataItem(), pg.PlotDataItem())
            for item in pair:
                plot.addItem(item)
            self._lines.append(pair)
        xs, ys, data, brushes, pens, marks = [], [], [], [], [], []
        hollow = pg.mkBrush("#ffffff")
        for c, chip in enumerate(result.chips):
            x, y = result.tokens_per_user[c], result.tokens_per_chip[c]
            ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
            fits = result.fits[c] & ok
            color = chip.color or "#808080"
            fit_line, every_line = self._lines[c]
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
                       f"{int(result.concurrency[k]):,}", color) for k in np.flatnonzero(fits)]
        for fit, every in self._lines[len(result.chips):]:
            fit.setData([], [])
            every.setData([], [])
        self._points.setData(x=np.concatenate(xs), y=np.concatenate(ys), data=data,
                             brush=brushes, pen=pens)
        self._place_labels(marks)
        legend_key = tuple((chip.name, chip.color) for chip in result.chips)
        if legend_key != self._legend_key:
            self.legend.clear()
            for c, chip in enumerate(result.chips):
                self.legend.addItem(self._lines[c][0], chip.name)
            self._legend_key = legend_key
        self._draw_measured(result)
        sx, sy = self._stars.getData()
        self._fit_range(np.concatenate([*xs, sx]), np.concatenate([*ys, sy]))

    def _fit_range(self, xs: np.ndarray, ys: np.ndarray) -> None:
        """Fit the axes to the points, unless they lie well inside the range shown and fill
        more than half of it: an input length stepped or typed moves the frontier a little, and
        axes that stay put are not redrawn (nor is the reader's eye thrown)."""
        vb = self.plot.getPlotItem().getViewBox()
        if not len(xs):
            return
        (x0, x1), (y0, y1) = vb.viewRange()
        lo_x, hi_x, lo_y, hi_y = xs.min(), xs.max(), ys.min(), ys.max()
        inside = (x0 < lo_x and hi_x < x1 and y0 < lo_y and hi_y < y1
                  and hi_x - lo_x > 0.5 * (x1 - x0) and hi_y - lo_y > 0.5 * (y1 - y0))
        if not inside:
            vb.autoRange(padding=0.08)

    def _place_labels(self, marks) -> None:
        """The users' numbers beside their points, none over another: a number that would
        touch one already placed (in a twentieth of the chart's span) is left out; hover tells
        every point's."""
        if marks:
            xs, ys = np.array([m[0] for m in marks]), np.array([m[1] for m in marks])
            dx = max(float(np.ptp(xs)), 0.5) / 14
            dy = max(float(np.ptp(ys)), 0.5) / 16
        placed: list[tuple[float, float]] = []
        for x, y, text, color in marks:
            if any(abs(x - px) < dx and abs(y - py) < dy for px, py in placed):
                continue
            if len(placed) == len(self._labels):
                label = pg.TextItem(anchor=(0.5, 1.2))
                self.plot.getPlotItem().addItem(label, ignoreBounds=True)
                self._labels.append(label)
            label = self._labels[len(placed)]
            label.setText(text, color=color)
            label.setPos(x, y)
            label.setVisible(True)
            placed.append((x, y))
        for label in self._labels[len(placed):]:
            label.setVisible(False)

    def import_measured(self, path: str | None = None) -> bool:
        path = path or MeasuredFiles.open_path(self)
        if not path:
            return False
        try:
            self.measured = import_serving_csv(path)
        except RooflineError as exc:
            self.refused.setText(str(exc))
            return False
        self.refused.setText("")
        if self.result is not None:
            self._draw_frontier(self.result)
            self._draw_limits(self.result)
            self._write_words()
        return True

    def _draw_measured(self, result) -> None:
        spots = []
        for p in self.measured:
            c = chip_named(result.chips, p.chip)
            if c is not None:
                spots.append({"pos": (float(np.log10(p.per_user)), float(np.log10(p.per_chip))),
                              "brush": pg.mkBrush(result.chips[c].color or "#808080"),
                              "pen": pg.mkPen("k", width=1), "symbol": "star", "size": 15})
        self._stars.setData(spots)

    def _draw_limits(self, result) -> None:
        """The best points within the limits, ringed, and the TPOT limit's line."""
        xs, ys = [], []
        for c in range(len(result.chips)):
            best = result.best(c)
            if best is not None:
                xs.append(float(np.log10(result.tokens_per_user[c, best])))
                ys.append(float(np.log10(result.tokens_per_chip[c, best])))
        self._rings.setData(xs, ys)
        limit = result.workload.tpot_limit
        self.tpot_line.setVisible(limit > 0)
        if limit > 0:
            self.tpot_line.blockSignals(True)
            self.tpot_line.setValue(float(np.log10(1.0 / limit)))
            self.tpot_line.blockSignals(False)

    def _write_words(self) -> None:
        result = self.result
        if result is None:
            return
        if result.spec.tpot_limit != self._served_limit:
            # the limit moved since the frontier was served: serve it again, searching the
            # concurrencies between the doublings for each chip's best point under the limit
            try:
                result = serve(result.workload, result.chips, result.spec,
                               derated=self.model.view.derated)
            except RooflineError:
                return
            self.result, self._served_limit = result, result.spec.tpot_limit
            self._draw_frontier(result)
            self._draw_limits(result)
        c = self._chip_index(result.chips)
        lines = serving_lines(result, c)
        if self.measured:
            lines += ["Measured points:", *measured_lines(result, self.measured)]
        self.words.setText("<br><br>".join(html.escape(line) for line in lines))

    def _tip(self, x, y, data) -> str:
        result = self.result
        if result is None or not isinstance(data, tuple):
            return ""
        c, k = data
        shares = result.shares(c, k)
        users = int(result.concurrency[k])
        return (f"{result.chips[c].name}: {users:,} user{'s' if users != 1 else ''} at once\n"
                f"{result.tokens_per_chip[c, k]:,.0f} output tokens/s per chip, "
                f"{result.tokens_per_user[c, k]:,.1f} per user\n"
                f"TPOT {result.tpot[c, k] * 1e3:,.2f} ms, TTFT {result.ttft[c] * 1e3:,.1f} ms"
                + ("" if result.fits[c, k] else "\ndoes not fit in its memory") + "\n"
                + ", ".join(f"{name} {share:.0%}" for name, share in shares.items()
                            if share >= 0.005))

    def _on_click(self, _item, points, _ev=None) -> None:
        """A point: its chip selected, and the workload's decode step set to its users at the
        mean context (shown on the roofline and in the table)."""
        if not len(points) or self.result is None:
            return
        c, k = points[0].data()
        w, chip = self.result.workload, self.result.chips[c]
        users = int(self.result.concurrency[k])
        changed = with_field(with_field(w, "batch", users), "context",
                             self.result.spec.mean_context)
        if changed != w:
            self.model.set_workload(changed, f"{w.name}: serve {users:,} users at once")
        self.model.select(w.id, chip.id)
