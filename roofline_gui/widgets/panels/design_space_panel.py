"""The design space of the selected workload (issue 27, item 4): its throughput as a heatmap
over the compute roof and the main-memory bandwidth of the selected chip (a decade or more
either side), with iso-lines of throughput, the session's chips as labelled dots, and the
balance line where compute and main-memory time are equal. Dragging a chip's dot is a what-if
of both ceilings at once, one undo step. Computed off the drag path (core.design_space)."""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from roofline_gui.core.chip import WHAT_IF_SPAN, round_factor
from roofline_gui.core.design_space import balance_ratio, chip_peak, design_space
from roofline_gui.core.display import crosses_each
from roofline_gui.core.i18n import N_, _, listed, ngettext, tidy
from roofline_gui.core.units import compute_precision, format_si, rate_count
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.widgets.common.application import set_tip
from roofline_gui.widgets.common.axes import log_plot
from roofline_gui.widgets.common.drag import drag_target
from roofline_gui.widgets.common.throttle import Throttle

CELLS = 120  # per axis: 14,400 cells, a few ms for a 100-entry workload
SPAN = 1.5  # decades either side of the chip
READOUT_HINT = N_("Point at the map to read its throughput there.")


class ChipDots(pg.ScatterPlotItem):
    """The chips as dots; a drag moves the dot's chip (its data, a chip id)."""

    #: chip id, how far the pointer moved since the press in log10 x and y, finished, Shift held
    sig_dot_dragged = Signal(str, float, float, bool, bool)
    #: screen pixels the pointer must travel along an axis before that ceiling moves: a drag
    #: along one axis with a hand's sideways slip (3 px) moved the other ceiling too (the tour:
    #: a vertical drag changed the compute peak 989.4 -> 1,008 TFLOP/s)
    DEAD_PX = 8.0

    def mouseDragEvent(self, ev) -> None:  # noqa: N802 (Qt API)
        chip_id = drag_target(self, ev, self._chip_at)
        if chip_id is not None:
            moved = ev.pos() - ev.buttonDownPos()  # a press beside the dot's centre moves nothing
            travel = ev.screenPos() - ev.buttonDownScreenPos()
            dx = float(moved.x()) if abs(travel.x()) >= self.DEAD_PX else 0.0
            dy = float(moved.y()) if abs(travel.y()) >= self.DEAD_PX else 0.0
            shift = bool(ev.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            self.sig_dot_dragged.emit(chip_id, dx, dy, bool(ev.isFinish()), shift)

    def _chip_at(self, pos) -> str | None:
        spots = self.pointsAt(pos)
        return spots[0].data() if len(spots) else None


class DesignSpacePanel(QWidget):
    def __init__(self, model: DocumentModel, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.plot = log_plot()
        self.plot.setLabel("bottom", _("peak compute (op/s, the workload's precision)"))
        self.plot.setLabel("left", _("main memory (B/s)"))  # the longer title was cut at 1280 x 800
        self.image = pg.ImageItem()
        self.image.setColorMap(pg.colormap.get("viridis"))
        self.plot.addItem(self.image)
        # The colours' scale: log10 of the throughput, beside the map (not interactive).
        self.colorbar = pg.ColorBarItem(values=(0, 1), colorMap=pg.colormap.get("viridis"),
                                        interactive=False, width=12)
        self.colorbar.setImageItem(self.image, insert_in=self.plot.getPlotItem())
        self.isolines: list[pg.IsocurveItem] = []
        self.iso_factor = 2
        self.balance = pg.PlotCurveItem(pen=pg.mkPen("w", width=1.5, style=Qt.PenStyle.DashLine))
        self.plot.addItem(self.balance)
        self.dots = ChipDots(size=11, pen=pg.mkPen("k", width=1.5))
        self.dots.setZValue(10)
        self.dots.sig_dot_dragged.connect(self._on_dot_dragged)
        self.plot.addItem(self.dots)
        self.names: list[pg.TextItem] = []
        # from a dot to its name where the name sits a line away from it (the dots close by)
        self.leaders = pg.PlotCurveItem(pen=pg.mkPen("w", width=1), connect="pairs")
        self.leaders.setZValue(5)
        self.plot.addItem(self.leaders)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        # What the map says under the pointer: the throughput there, against the chip's own.
        self.readout = QLabel(_(READOUT_HINT))
        self.readout.setTextFormat(Qt.TextFormat.PlainText)  # a chip's name is text, not markup
        self.readout.setWordWrap(True)
        # the words beside the map, not over and under it: there they left the map about 115
        # px of a 270 px tab at 1280 x 800 (the thirteenth tour); they scroll where they
        # outgrow it
        words = QWidget()
        column = QVBoxLayout(words)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.title)
        column.addWidget(self.readout)
        column.addStretch(1)
        self._side = side = QScrollArea()
        side.setWidget(words)
        side.setWidgetResizable(True)
        side.setFrameShape(QFrame.Shape.NoFrame)
        side.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        side.setMinimumWidth(220)
        side.setMaximumWidth(340)
        layout.addWidget(self.plot, 1)
        layout.addWidget(side)
        self.plot.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.plot.getViewBox().sigResized.connect(self._place_names)
        self._here: tuple | None = None  # (chip's throughput, unit, chip name) for the readout
        self.grid: np.ndarray | None = None  # throughput over (compute, bandwidth), for checks
        self._exact = None  # (result, chip index, peak, bandwidth) the pointer's value is from
        self.axes: tuple[np.ndarray, np.ndarray] | None = None  # log10 peak, log10 bandwidth
        self._drag_serial = 0
        #: while a dot is dragged: (chip id, the chip as the drag began, the map's centre then)
        self._drag: tuple | None = None
        self._map_at: tuple | None = None  # (peak, bandwidth, decades across, up) as drawn
        self._later = Throttle(self, self.refresh, 60)
        model.sig_document_changed.connect(self._request)
        model.sig_selection_changed.connect(self._request)
        self.refresh()

    @property
    def pending(self) -> bool:
        return self._later.pending

    def _result_and_chip(self):
        results = self.model.workload_results
        selected = self.model.selected_kernel
        r = next((x for x in results if x.workload.id == selected), results[0] if results else None)
        if r is None:
            return None, None
        shown = [c for c, chip in enumerate(r.chips) if chip.visible and np.isfinite(r.time[c])]
        if not shown:
            return r, None
        chosen = next((c for c in shown if r.chips[c].id == self.model.selected_chip), shown[0])
        return r, chosen

    def _request(self, *_args) -> None:
        if self.model.serving_only:  # the Serving view's settings alone: nothing here moved
            return
        self._later.request()

    def refresh(self) -> None:
        r, c = self._result_and_chip()
        if r is None or c is None:
            # no chip is said as such (with every chip deleted it said "No workload to map"
            # beside two workloads: the ninth tour)
            doc = self.model.document
            no_chip = bool(doc.workloads) and not any(chip.visible for chip in doc.chips)
            self.title.setText(_("No chip shown: the Hardware panel's Add… adds one; the "
                                 "workload's map is drawn for it.") if no_chip else
                               _("No workload to map: Workloads → New Workload… makes one, and a "
                               "chip that runs it is needed.") if r is None else
                               _("{workload} runs on none of the shown chips.").format(
                                   workload=html.escape(r.workload.name)))
            self.image.clear()
            self.dots.setData([], [])
            self.balance.setData([], [])
            self._clear_lines()
            self.grid = None
            # no map: no empty axes (0.5 to 2) and colour bar (0 to 1) meaning nothing (the
            # third tour), nor a hint to point at it
            self.plot.setVisible(False)
            self.readout.setVisible(False)
            self._side.setMaximumWidth(16777215)  # the words alone: the whole width
            return
        self.plot.setVisible(True)
        self.readout.setVisible(True)
        self._side.setMaximumWidth(340)
        chip = r.chips[c]
        precision, p_now, b_now = _centre(r, chip)
        p0, b0, sx, sy = _map_centre(r, chip, precision, self.model.document.chips)
        if self._drag is not None:  # the map holds still under a dragged dot (it ran away when
            p0, b0, sx, sy = self._drag[2]  # it re-centred on the moving chip at each step)
        self._map_at = (p0, b0, sx, sy)  # where a dot's drag holds the map
        fx, fy = np.logspace(-sx, sx, CELLS), np.logspace(-sy, sy, CELLS)
        # the cells at p0 · f and b0 · f, from the chip as it is now (its own factors 1, 1)
        times = design_space(r, c, fx * (p0 / p_now), fy * (b0 / b_now))
        with np.errstate(divide="ignore", invalid="ignore"):
            throughput = r.workload.per_step_items() / times
        self.grid = throughput
        self._exact = (r, c, p_now, b_now)  # what the pointer's readout is computed from
        lx, ly = np.log10(p0 * fx), np.log10(b0 * fy)
        self.axes = (lx, ly)
        data = np.log10(throughput)
        self.image.setImage(data, autoLevels=True)
        finite = data[np.isfinite(data)]
        if finite.size:
            self.colorbar.setLevels((float(finite.min()), float(finite.max())))
            self.colorbar.setLabel("right", f"log10 {_(r.workload.throughput_unit)}")
        step_x, step_y = 2 * sx / (CELLS - 1), 2 * sy / (CELLS - 1)
        self.image.setRect(float(lx[0] - step_x / 2), float(ly[0] - step_y / 2),
                           float(lx[-1] - lx[0] + step_x), float(ly[-1] - ly[0] + step_y))
        self._draw_isolines(data, lx, ly)
        ratio = balance_ratio(r, c)
        self.balance.setData(lx, lx + np.log10(b_now * ratio / p_now))  # the chip's own
        unit = _(r.workload.throughput_unit)
        self._here = (float(r.throughput[c]), unit, chip.name)
        # a chip with no peak at the workload's precision has no dot: said, not left to guess
        # (the sixth tour's fp32 map had no TPU v3 and nothing said why)
        missing = [c.name for c in self.model.document.chips
                   if c.visible and not chip_peak(r, c, precision)]
        self.title.setText(tidy(_(
            "{workload} on {chip}, its other ceilings as they are: {unit} over peak compute and "
            "main-memory bandwidth (brighter is faster; the lines are throughput ×{factor} "
            "apart). Dashed: compute time = main-memory time. Drag a chip's dot to move both its "
            "ceilings (a what-if; with Shift, by round factors).").format(
            workload=f"<b>{html.escape(r.workload.name)}</b>", chip=html.escape(chip.name),
            unit=unit, factor=self.iso_factor) + (" " + ngettext(
                "No dot for {chips}: it has no {precision} peak, nor one of the same width to "
                "stand in for it.",
                "No dot for {chips}: they have no {precision} peak, nor one of the same width to "
                "stand in for it.", len(missing)).format(
                chips=html.escape(listed(missing)), precision=precision) if missing else "")))
        if self._drag is None:  # during a dot's drag the view stays as the user left it
            self.plot.getViewBox().setRange(xRange=(lx[0], lx[-1]), yRange=(ly[0], ly[-1]),
                                            padding=0)
        self._draw_chips(r, precision)  # in the range just set: their names keep apart in pixels
        self.readout.setText(_(READOUT_HINT))  # it named the map before this one

    def _clear_lines(self) -> None:
        for item in self.isolines:  # children of the image, not of the plot: taken out whole
            scene = item.scene()
            item.setParentItem(None)
            if scene is not None:
                scene.removeItem(item)
        self.isolines = []

    def _draw_isolines(self, data: np.ndarray, lx: np.ndarray, ly: np.ndarray) -> None:
        self._clear_lines()
        finite = data[np.isfinite(data)]
        if not finite.size:
            return
        lo, hi = float(finite.min()), float(finite.max())
        levels = np.arange(np.ceil(lo / np.log10(2)), np.floor(hi / np.log10(2)) + 1) * np.log10(2)
        stride = max(1, len(levels) // 8)
        self.iso_factor = 2 ** stride
        for level in levels[::stride]:
            curve = pg.IsocurveItem(data=data, level=float(level),
                                    pen=pg.mkPen((255, 255, 255, 120), width=1))
            curve.setParentItem(self.image)
            self.isolines.append(curve)

    def _on_mouse_moved(self, pos) -> None:
        if self.grid is None or self.axes is None or self._here is None:
            return
        vb = self.plot.getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            return
        point = vb.mapSceneToView(pos)
        lx, ly = self.axes
        if not (lx[0] <= point.x() <= lx[-1] and ly[0] <= point.y() <= ly[-1]):
            return
        peak, bandwidth = 10 ** point.x(), 10 ** point.y()
        own, unit, name = self._here
        chip = self._chip_under(pos)  # on a dot: its chip, at its own ceilings (the tour)
        if chip is not None:
            peak, bandwidth = 10 ** chip[1], 10 ** chip[2]
        value = self.exact_at(peak, bandwidth)
        facts = {"peak": format_si(peak, "op/s"), "bandwidth": format_si(bandwidth, "B/s"),
                 "value": rate_count(value), "unit": unit, "chip": chip and chip[0],  # as the table
                 "times": f"{value / own:.3g}" if own > 0 else "", "here": name}
        if chip is not None:
            text = (_("{chip}: {peak} and {bandwidth}: {value} {unit}, {times}× {here}'s.")
                    if own > 0 else _("{chip}: {peak} and {bandwidth}: {value} {unit}.")
                    ).format(**facts)
        else:
            text = (_("At {peak} and {bandwidth}: {value} {unit}, {times}× {here}'s.") if own > 0
                    else _("At {peak} and {bandwidth}: {value} {unit}.")).format(**facts)
        self.readout.setText(text)
        # and beside the pointer: on a small screen the line under the map is easy to miss
        # (the tour found no values on hovering the map)
        set_tip(self.plot, text)

    def _chip_under(self, pos) -> tuple[str, float, float] | None:
        """(name, log10 peak, log10 bandwidth) of the chip whose dot is within 10 px of the
        scene point ``pos``, else None."""
        vb = self.plot.getViewBox()
        best, near = None, 10.0
        for text in self.names:
            at = vb.mapViewToScene(text.pos())
            d = ((at.x() - pos.x()) ** 2 + (at.y() - pos.y()) ** 2) ** 0.5
            if d <= near:
                best, near = (text.toPlainText(), text.pos().x(), text.pos().y()), d
        return best

    def _draw_chips(self, r, precision: str) -> None:
        for name in self.names:
            self.plot.removeItem(name)
        self.names = []
        xs, ys, brushes, ids = [], [], [], []
        # the selected chip's dot last, over any other at its spot (the TPU v3's lay under the
        # V100's on the map "on TPU v3": the seventh tour)
        chips = sorted((c for c in self.model.document.chips if c.visible),
                       key=lambda c: c.id == self.model.selected_chip)
        for chip in chips:
            peak = chip_peak(r, chip, precision)
            if not peak:
                continue
            x, y = float(np.log10(peak)), float(np.log10(chip.dram.bandwidth))
            xs.append(x)
            ys.append(y)
            brushes.append(pg.mkBrush(chip.color or "#808080"))
            ids.append(chip.id)
            # framed in its dot's colour on a dark backdrop: placed a line from its dot where
            # the spot beside it is taken, a bare name read as the nearer dot's, and the
            # throughput lines ran through it (the twenty-first tour)
            text = pg.TextItem(chip.name, color="w", anchor=(0, 1),
                               border=pg.mkPen(chip.color or "#808080", width=1.5),
                               fill=pg.mkBrush(0, 0, 0, 150))
            text.setPos(x, y)
            self.plot.addItem(text)
            self.names.append(text)
        self.dots.setData(xs, ys, brush=brushes, data=ids)
        # its name placed first, where it has the most room
        self.names.reverse()
        self._place_names()

    def _place_names(self, *_args) -> None:
        """Each name beside its dot where it covers no name placed before (above right, above
        left, below right, below left), in the view's pixels as they are now (again when the
        view is resized): two names 0.2 decades apart overlapped at 1280 x 800 (the tour)."""
        px = self.plot.getViewBox().viewPixelSize()  # decades per pixel
        px = (max(px[0], 1e-9), max(px[1], 1e-9))
        metrics = self.fontMetrics()
        # the dots are in the way too (a name over another chip's dot hides it)
        dots = [(t.pos().x() / px[0] - 7, -t.pos().y() / px[1] - 7, t.pos().x() / px[0] + 7,
                 -t.pos().y() / px[1] + 7) for t in self.names]
        # and off the dashed balance line where a spot allows (it ran through "A100 SXM4
        # 40GB": the fifth tour)
        bx, by = self.balance.getData()
        line = (np.array([[bx[0] / px[0], -by[0] / px[1], bx[-1] / px[0], -by[-1] / px[1]]])
                if bx is not None and len(bx) > 1 else np.zeros((0, 4)))
        (x_lo, x_hi), (y_lo, y_hi) = self.plot.getViewBox().viewRange()
        view = (x_lo / px[0], -y_hi / px[1], x_hi / px[0], -y_lo / px[1])  # pixels, y down
        names: list[tuple[float, float, float, float]] = []
        leaders: list[tuple[float, float]] = []  # pairs of points, in pixels (y down)
        for n, text in enumerate(self.names):
            placed = names + dots[:n] + dots[n + 1:]  # not its own dot: it sits by it
            # the text item's own box (its margins included: measured from the font, a line
            # came out a pixel short and names a line apart touched)
            box = text.boundingRect()
            w, h = (box.width(), box.height()) if box.height() > 0 else (
                metrics.horizontalAdvance(text.toPlainText()) + 8, metrics.height() + 4)
            pos = text.pos()
            X, Y = pos.x() / px[0], -pos.y() / px[1]  # screen pixels, y down
            def overlap(box, placed=placed):
                return sum(max(0.0, min(box[2], b[2]) - max(box[0], b[0]))
                           * max(0.0, min(box[3], b[3]) - max(box[1], b[1])) for b in placed)

            # beside the dot first; a line further up or down where the dots are close
            candidates = [(ax, ay) for ay in (1, 0, 2, -1) for ax in (0, 1)]
            boxes = [(X - ax * w, Y - ay * h, X - ax * w + w, Y - ay * h + h) for ax, ay in candidates]
            crossed = crosses_each(np.array(boxes) + LABEL_PAD, line)
            # inside the map (a line above the MI300X's dot, its name was cut at the map's top
            # edge: the ninth tour)
            out = [b[0] < view[0] or b[2] > view[2] or b[1] < view[1] or b[3] > view[3]
                   for b in boxes]
            best = min(range(len(candidates)),
                       key=lambda i: (overlap(boxes[i]) > 0, out[i], bool(crossed[i]),
                                      overlap(boxes[i]), i))
            # none clear of the names placed before (the selected chip's goes first): left out,
            # as the chart's names are (the dot's hover names it); over each other, four names
            # on a short map read as none (the ninth tour)
            text.setVisible(n == 0 or not (overlap(boxes[best]) > 0 or out[best]))
            if text.isVisible():
                names.append(boxes[best])
                x0, y0, x1, y1 = boxes[best]
                if candidates[best][1] in (2, -1):  # a line off its dot: a leader to it
                    leaders += [(X, Y), (min(max(X, x0 + 4), x1 - 4), y1 if y1 <= Y else y0)]
            text.setAnchor(candidates[best])
        xy = np.array(leaders, dtype=float).reshape(-1, 2)
        self.leaders.setData(xy[:, 0] * px[0], -xy[:, 1] * px[1])

    def _on_dot_dragged(self, chip_id: str, dx: float, dy: float, finished: bool,
                        shift: bool = False) -> None:
        """Both ceilings of the dragged chip follow the pointer as what-ifs, by the factors the
        pointer moved since the press (10^dx, 10^dy): every compute roof together, main memory;
        with Shift each factor snaps to a round one (2×, 1.5×, ½×: on a small map a few pixels
        are a large factor); the map holds still meanwhile; one undo step."""
        r, c = self._result_and_chip()
        chip = next((ch for ch in self.model.document.chips if ch.id == chip_id), None)
        if r is None or chip is None or self._map_at is None:
            return
        if self._drag is None or self._drag[0] != chip_id:
            self._drag = (chip_id, chip, self._map_at)  # the map as drawn holds still
        start = self._drag[1]
        span = np.log10(WHAT_IF_SPAN)  # decades either way from the start, as far as a roof
        fx, fy = (10 ** min(max(d, -span), span) for d in (dx, dy))
        if shift:
            fx, fy = round_factor(fx), round_factor(fy)
        moved = start.scaled(fx, memory=False).with_ceiling(
            ("level", start.memory.index(start.dram)), start.dram.bandwidth * fy)
        # and where main memory passes an on-chip level, so (Gaudi 3's HBM dragged to 13 TB/s,
        # past its 12.8 TB/s SRAM, went unremarked here: the thirtieth tour)
        # (first: a long status line is cut at the window's edge, the 32nd tour)
        note = moved.order_note()
        self.model.say((note + " " if note else "") + _(
            "Compute ×{compute}, main memory ×{memory} (Shift: round factors).").format(
            compute=f"{fx:.3g}", memory=f"{fy:.3g}"))
        _p, peak, _b = _centre(r, moved)
        self.model.push_what_if(moved, f"{format_si(peak, 'op/s')}, "
                                       f"{format_si(moved.dram.bandwidth, 'B/s')}",
                                merge_key=("design space drag", self._drag_serial, chip_id))
        if finished:
            self._drag_serial += 1
            self._drag = None
            self._later.request()  # centred on the chip again

    def exact_at(self, peak: float, bandwidth: float) -> float:
        """The throughput at (peak, bandwidth) itself, not at the nearest cell (a cell is 6 %
        wide: on the H100's dot the pointer read 1,545 tokens/s, the explanation 1,557: the
        seventeenth tour)."""
        r, c, p_now, b_now = self._exact
        times = design_space(r, c, np.array([peak / p_now]), np.array([bandwidth / b_now]))
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(r.workload.per_step_items() / times[0, 0])

    def value_at(self, peak: float, bandwidth: float) -> float:
        """The map's throughput at the cell nearest (peak, bandwidth), for checks."""
        lx, ly = self.axes
        i = int(np.argmin(np.abs(lx - np.log10(peak))))
        j = int(np.argmin(np.abs(ly - np.log10(bandwidth))))
        return float(self.grid[i, j])

    def dot_position(self, chip_id: str) -> QPointF | None:
        x, y = self.dots.getData()
        ids = list(self.dots.data["data"])
        return QPointF(float(x[ids.index(chip_id)]), float(y[ids.index(chip_id)])) if chip_id in ids else None


LABEL_PAD = np.array([1.0, 3.0, -1.0, -3.0])  # a name's box is a text's line: its glyphs within


def _map_centre(r, chip, precision: str, chips) -> tuple[float, float, float, float]:
    """Where the map is centred and how far it reaches (peak, bandwidth, and the decades either
    side on each axis): the middle of every shown chip's dot and the chip's own, at least SPAN
    either side and far enough for all of them with room around (a chip dragged to 9× its
    bandwidth re-centred the map on itself, and the TPU v5e fell off it: the second tour)."""
    _p, peak, bandwidth = _centre(r, chip)
    dots = [(chip_peak(r, c, precision), c.dram.bandwidth) for c in chips if c.visible]
    dots = np.log10([d for d in dots if d[0] and d[1] > 0] + [(peak, bandwidth)])
    out = []
    for axis in (0, 1):
        lo, hi = float(dots[:, axis].min()), float(dots[:, axis].max())
        out.append((10 ** ((lo + hi) / 2), max(SPAN, (hi - lo) / 2 + 0.4)))
    (p0, sx), (b0, sy) = out
    return p0, b0, sx, sy


def _centre(r, chip) -> tuple[str, float, float]:
    """Where the map of workload result ``r`` on ``chip`` is centred: the workload's precision
    (a custom workload's first kernel precision), the chip's peak at it (its stand-in's, else
    its highest) and its main-memory bandwidth."""
    precision = compute_precision(r.workload.activations) if r.workload.kind != "custom" else next(
        iter(sorted({e.kernel.precision for e in r.entries})))
    peak = chip_peak(r, chip, precision) or max(chip.compute.values())
    return precision, peak, chip.dram.bandwidth
