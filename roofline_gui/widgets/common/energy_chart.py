"""The energy chart (issue 28), the main chart's Energy mode and the Energy tab: the session's
kernels and workloads against each shown chip's
energy roofline (op/J over intensity: Choi et al. 2013, its smooth knee at the energy-balance
point) or, switched, its performance roof under the board power (op/s: Choi et al. 2014, the
power cap biting near the ridge). Every number from core.energy over the document model's
evaluation, in the window's units (Count MACs)."""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from roofline_gui.core.display import hidden_under
from roofline_gui.core.energy import bound_signs, constants
from roofline_gui.core.i18n import N_, _, listed, tidy
from roofline_gui.core.units import PRECISIONS, format_si
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.widgets.common.application import set_tip
from roofline_gui.widgets.common.axes import Ring, log_plot
from roofline_gui.widgets.common.throttle import Throttle

#: The y axis: energy efficiency, or performance held to the board power.
MODES = ((N_("Energy efficiency ({unit}/J)"), "energy"),
         (N_("Performance under the board power ({unit}/s)"), "power"))
GRID = np.logspace(-1.5, 4.5, 240)  # op/B of main memory


def runs_at(cmp, c: int, precision: str) -> str | None:
    """The precision chip ``c`` of ``cmp`` runs ``precision`` at: its own, else its stand-in
    (the next wider, or the same width with View → Same-width precisions), else None."""
    if precision in cmp.chips[c].compute:
        return precision
    s = cmp.chip_arrays.stand_in_for(c, PRECISIONS.index(precision)) if precision in PRECISIONS else -1
    return PRECISIONS[s] if s >= 0 else None


def energy_curves(chip, precision: str, peak: float, bandwidth: float):
    """(I, op/J at the capped rate, uncapped op/s, capped op/s) over GRID for one chip's
    precision, or None without energy data: e(I) = ε_op + ε_dram/I + π0/R(I), R(I) the roofline,
    held to the board power where it would draw more."""
    k = constants(chip)
    if k is None or precision not in k.op_j:
        return None
    dynamic = k.op_j[precision] + k.byte_j.get("dram", 0.0) / GRID
    rate = np.minimum(peak, GRID * bandwidth)
    if k.is_estimate(f"op:{precision}") or k.dram_estimated:
        # upper-bound estimates claim no cap: the power is at most the board's (core.energy)
        per_op = np.minimum(dynamic + k.idle_power / rate, k.board_power / rate)
        return GRID, 1.0 / per_op, rate, rate
    capped = np.minimum(rate, (k.board_power - k.idle_power) / dynamic)
    return GRID, 1.0 / (dynamic + k.idle_power / capped), rate, capped


class EnergyChart(QWidget):
    def __init__(self, model: DocumentModel, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.mode = QComboBox()
        for text, key in MODES:
            self.mode.addItem(_(text).format(unit=model.units.word), key)
        set_tip(self.mode, _("The y axis: op per joule (the energy roofline), or op/s with each "
                             "chip held to its board power (the power-capped roof)"))
        self.mode.currentIndexChanged.connect(lambda _i: self.refresh())
        self.plot = log_plot()
        self.plot.showGrid(True, True, 0.2)
        top = QHBoxLayout()
        top.addWidget(QLabel(_("y axis")))
        top.addWidget(self.mode, 1)
        # The words beside the chart, not over it: above it, three lines of them left the chart
        # about 110 px of a 270 px tab at 1280 x 800 (the tour); beside it, it has the height.
        side = QVBoxLayout()
        side.addLayout(top)
        # the words scroll where they outgrow the tab (eight chips' values at the right)
        words = QScrollArea()
        words.setWidget(self.title)
        words.setWidgetResizable(True)
        words.setFrameShape(QFrame.Shape.NoFrame)
        words.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        side.addWidget(words, 1)
        words.setMinimumWidth(220)
        words.setMaximumWidth(340)
        self.title.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.plot, 1)
        layout.addLayout(side)
        self.points: dict[str, tuple[float, float]] = {}  # "kernel@chip" -> (x, y) shown, for checks
        self.marks = None  # the points' scatter (refresh)
        self.curves: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # chip name -> its roof shown
        self._later = Throttle(self, self.refresh, 60)
        # methods, not lambdas: Qt drops them with this widget if the model outlives it
        model.sig_document_changed.connect(self._request)
        model.sig_view_changed.connect(self._request)  # Count MACs
        model.sig_derated_changed.connect(self._request)
        model.sig_selection_changed.connect(self._ring_selected)
        # the selected kernel (or workload) ringed on every chip, as on the roofline: the tour
        # found nothing here to say which point "Why it sits there" was about
        self._bold, self._thin = pg.mkPen("k", width=3), pg.mkPen("k", width=1.5)
        self.ring = Ring(size=22, pen=self._thin, brush=None)
        self.ring.setZValue(5)
        # the selected chip's point drawn again over the others: another chip's dot of the same
        # kernel at the same spot hid it under the bold ring (the sixth tour: MI300X over B200)
        self.lifted = Ring(pen=pg.mkPen("k"))
        self.lifted.setZValue(6)  # over the rings too (under them, another chip's star still
        # covered its top: the eighth tour); the bold ring is wider than the point
        self.looks: dict[str, tuple] = {}  # point key -> (brush, symbol, size)
        self.refresh()

    def _ring_selected(self, *_args) -> None:
        """The ring round the selected kernel's or workload's points (log10 x, y shown)."""
        item, chip = self.model.selected_kernel, self.model.selected_chip
        at = [(key.rsplit("@", 1)[1] == chip, xy) for key, xy in self.points.items()
              if item and key.rsplit("@", 1)[0] == item]
        # the selected chip's ring bold and larger, as on the roofline (rings of one weight on
        # every chip did not say which was selected: the fifth tour)
        self.ring.setData([np.log10(x) for _s, (x, _y) in at], [np.log10(y) for _s, (_x, y) in at],
                          size=[26 if s else 20 for s, _xy in at],
                          pen=[self._bold if s else self._thin for s, _xy in at])
        key = f"{item}@{chip}"
        if item and chip and key in self.points and key in self.looks:
            (x, y), (brush, symbol, size) = self.points[key], self.looks[key]
            self.lifted.setData([np.log10(x)], [np.log10(y)], brush=[brush], symbol=[symbol],
                                size=[size])
        else:
            self.lifted.setData([], [])

    def _clicked(self, points) -> None:
        """A click on points selects one; of a stack at one spot, the selected one stays (it is
        drawn on top), else the first."""
        if not len(points):
            return
        chosen = (self.model.selected_kernel, self.model.selected_chip)
        ids = [p.data()[0] for p in points if p.data()[0] is not None]  # not a balance bar
        if ids:
            self.model.select(*(chosen if chosen in ids else ids[0]))

    @property
    def pending(self) -> bool:
        return self._later.pending

    @property
    def energy_mode(self) -> bool:
        return self.mode.currentData() == "energy"

    def showEvent(self, event) -> None:  # noqa: N802 (Qt API)
        super().showEvent(event)
        self.refresh()  # what changed while it was hidden

    def _request(self, *_args) -> None:
        if self.model.serving_only:  # the Serving view's settings alone: nothing here moved
            return
        self._later.request()

    def refresh(self) -> None:
        if not self.isVisible() and self.points:  # hidden: nothing to draw on a drag step
            return
        self.plot.clear()
        self.points, self.curves, self.looks = {}, {}, {}
        self.marks = None  # the points' scatter: kernels, workloads, energy-balance bars
        cmp = self.model.comparison
        units = self.model.units
        energy = self.energy_mode
        shown = [c for c, chip in enumerate(cmp.chips) if chip.visible]
        missing = [cmp.chips[c] for c in shown if constants(cmp.chips[c]) is None]
        chips = [c for c in shown if constants(cmp.chips[c]) is not None]
        ke = cmp.energy
        r = cmp.result
        ceiling = cmp.chip_arrays.ceiling(r.derated)
        dram = cmp.chip_arrays.dram_bandwidth(r.derated)
        used = [k.precision for k in cmp.kernels] + [
            p for w in self.model.workload_results for p in w.precisions]
        word = units.word
        for i, (text, _key) in enumerate(MODES):  # in MAC/J with Count MACs, as the axis (the
            self.mode.setItemText(i, _(text).format(unit=word))  # tour read op/J beside MAC/J)
        bars: list[tuple] = []  # each chip's energy-balance point: (x, y, colour, words)
        flat: dict[int, list[str]] = {}  # each chip's curves' values at the right
        drawn: list[tuple[int, np.ndarray]] = []  # each chip's first curve, as drawn
        for c in chips:
            chip = cmp.chips[c]
            color = chip.color or "#808080"
            # the precisions its kernels and workloads run at here, a stand-in's where it has
            # not theirs (the V100 runs bf16 at its fp16: the caption had named its fp32 alone,
            # the 37th tour)
            stands_for: dict[str, list[str]] = {}
            for q in dict.fromkeys(used):
                if (p := runs_at(cmp, c, q)) is not None:
                    stands_for.setdefault(p, [])
                    if p != q:
                        stands_for[p].append(q)
            have = list(stands_for) or [max(chip.compute, key=chip.compute.get)]
            for n, p in enumerate(have):
                curves = energy_curves(chip, p, float(ceiling[c, PRECISIONS.index(p)]),
                                       float(dram[c]))
                if curves is None:
                    continue
                x, opj, rate, capped = curves
                xs = units.intensity(x)
                pen = pg.mkPen(color, width=2.2 if n == 0 else 1.2)
                if energy:
                    ys = opj / units.ops_per_unit
                    self.plot.plot(xs, ys, pen=pen)
                else:
                    self.plot.plot(xs, units.rate(rate), pen=pg.mkPen(color, width=1,
                                                                       style=Qt.PenStyle.DotLine))
                    ys = units.rate(capped)
                    self.plot.plot(xs, ys, pen=pen)
                if n == 0:
                    self.curves[chip.name] = (xs, ys)
                    with np.errstate(divide="ignore", invalid="ignore"):
                        drawn.append((c, np.log10(np.asarray(ys, dtype=float))))
                # its flat part's value at the chart's right, where compute alone sets it (the
                # energy roofs carried no numbers: the thirteenth tour)
                end = float(ys[-1])
                name = (_("{precision} (for {others})").format(
                    precision=p, others=listed(stands_for[p])) if stands_for.get(p) else p)
                flat.setdefault(c, []).append(
                    f"{name} " + (format_si(end, f"{word}/J") if energy else
                                  units.format_rate(end * units.ops_per_unit)))
                k = constants(chip)
                balance = k.byte_j.get("dram", 0.0) / k.op_j[p]
                if balance > 0 and energy:
                    at = float(np.interp(np.log10(balance), np.log10(x), np.log10(opj)))
                    # an upright bar across the curve: ▽ is a neural network's kernel on the
                    # roofline (the tour read the two as one); one of the points' spots, its
                    # words their hover's: with a tooltip of its own it took the place of a
                    # workload's star on its knee (the eleventh tour)
                    bars.append((np.log10(units.intensity(balance)),
                                 at - np.log10(units.ops_per_unit), color, _(
                        "{chip} {precision} energy-balance point: ε_dram/ε_op = {balance}; left "
                        "of it main memory spends more energy per op than compute").format(
                        chip=chip.name, precision=p, balance=units.format_intensity(balance))))
        # every kernel on every shown chip with energy data, over the balance bars (drawn
        # first: the points' words come first in the tooltip where they lie on a bar)
        xs, ys, brushes, tips, symbols, ids = [], [], [], [], [], []
        pens, sizes = [], []
        for bx, by, color, tip in bars:
            xs.append(bx)
            ys.append(by)
            brushes.append(pg.mkBrush("w"))
            symbols.append("|")
            pens.append(pg.mkPen(color, width=3))
            sizes.append(16)
            tips.append(tip)
            ids.append(None)  # a click on it selects nothing
        signs: dict[tuple[int, str], tuple[str, str]] = {}
        for k, kernel in enumerate(cmp.kernels):
            for c in chips:
                value = (ke.ops_per_joule[k, c] / units.ops_per_unit if energy
                         else units.rate(ke.capped_rate[k, c]))
                if not np.isfinite(value) or value <= 0:
                    continue
                x = float(units.intensity(cmp.dram_intensity[k]))
                xs.append(np.log10(x))
                ys.append(np.log10(value))
                brushes.append(pg.mkBrush(cmp.chips[c].color or "#808080"))
                symbols.append("o")
                self.looks[f"{kernel.id}@{cmp.chips[c].id}"] = (brushes[-1], "o", 9)
                capped = _(" (power-capped)") if ke.capped[k, c] else ""
                # as the table's cell says it (its efficiency a floor, its power a ceiling
                # where the chip's energies are estimates; the tour read them without)
                precision = cmp.stand_in(k, c) or kernel.precision
                if (c, precision) not in signs:  # once a chip and precision (43 µs a call:
                    # 3 s a refresh at 10,000 kernels on 8 chips, asked for each point)
                    signs[c, precision] = bound_signs(cmp.chips[c], precision)
                at_least, at_most = signs[c, precision]
                tips.append(f"{kernel.name} on {cmp.chips[c].name}: "
                            + (at_least + format_si(float(ke.ops_per_joule[k, c])
                                                    / units.ops_per_unit, f"{word}/J")
                               if energy else units.format_rate(float(ke.capped_rate[k, c])))
                            + capped + f", {at_most}{format_si(float(ke.capped_power[k, c]), 'W')}")
                self.points[f"{kernel.id}@{cmp.chips[c].id}"] = (x, float(value))
                ids.append((kernel.id, cmp.chips[c].id))
        for w in self.model.workload_results:
            e = w.energy
            for j, chip in enumerate(w.chips):
                if (not chip.visible or constants(chip) is None or not np.isfinite(e.per_step[j])
                        or e.per_step[j] <= 0):
                    continue
                value = (w.ops / float(e.per_step[j]) / units.ops_per_unit if energy
                         else units.rate(w.ops / float(e.time[j])))
                x = float(units.intensity(w.intensity))
                xs.append(np.log10(x))
                ys.append(np.log10(value))
                brushes.append(pg.mkBrush(chip.color or "#808080"))
                symbols.append("star")
                self.looks[f"{w.workload.id}@{chip.id}"] = (brushes[-1], "star", 13)
                unit = w.workload.throughput_unit.removesuffix("/s")
                at_least, at_most = bound_signs(chip, w.workload.activations)
                tips.append(_("{workload} on {chip}: {per_joule} {unit} per joule, {power}").format(
                    workload=w.workload.name, chip=chip.name,
                    per_joule=f"{at_least}{float(e.items_per_joule[j]):,.4g}", unit=_(unit),
                    power=at_most + format_si(float(e.average_power[j]), "W"))
                            + (_(" (power-capped)") if e.capped[j] else ""))
                self.points[f"{w.workload.id}@{chip.id}"] = (x, float(value))
                ids.append((w.workload.id, chip.id))
        if xs:
            black = pg.mkPen("k")
            sizes += [13 if s == "star" else 9 for s in symbols[len(sizes):]]
            pens += [black] * (len(symbols) - len(pens))
            scatter = pg.ScatterPlotItem(xs, ys, size=sizes,
                                         symbol=symbols, brush=brushes, pen=pens,
                                         hoverable=True, data=list(zip(ids, tips, strict=True)),
                                         tip=lambda x, y, data: data[1])  # words, not log x, y
            # a click selects it, as on the roofline: Why it sits there follows
            scatter.sigClicked.connect(lambda _s, points, _ev: self._clicked(points))
            self.marks = scatter
            self.plot.addItem(scatter)
        self.plot.addItem(self.ring, ignoreBounds=True)  # clear() took it off
        self.plot.addItem(self.lifted, ignoreBounds=True)
        self._ring_selected()
        # as the roofline reads it: B/F, its labels 1/intensity, where View → Intensity as B/F
        # (bytes per op) is on
        bf = units.bytes_per_op
        axis = self.plot.getAxis("bottom")
        if hasattr(axis, "set_inverted"):
            axis.set_inverted(bf)
        self.plot.setLabel("bottom", (_("Bytes per op, B/F (B/{unit}, main memory)") if bf else
                                      _("Arithmetic intensity ({unit}/B, main memory)")).format(
            unit=word))
        self.plot.setLabel("left", f"{word}/J" if energy else _("{unit}/s, capped").format(unit=word))
        if not shown:  # an empty session read ": each chip's energy roofline…" (the tour)
            self.title.setText(_("No chip shown: the Hardware panel's Add… adds one; its energy roofline "
                                 "is drawn here."))
            return
        names = listed(f"<span style='color:{cmp.chips[c].color or '#808080'}'>■</span> "
                          f"{html.escape(cmp.chips[c].name)}" for c in chips)
        said = (_("{chips}: each chip's energy roofline, {unit} per joule at the rate the "
                  "roofline allows, its knee at the energy-balance point (the upright bar, "
                  "ε_dram/ε_op); ● kernels, ★ workloads (hover for their tokens or images per "
                  "joule).") if energy
                else _("{chips}: each chip's roof held to its board power (solid) against its "
                       "roofline (dotted, where they differ): near the ridge, where compute and "
                       "memory run flat out together, the cap bites first, claimed only from "
                       "given energies; ● kernels, ★ workloads.")).format(
            chips=names, unit=self.model.units.word)
        estimated = [cmp.chips[c].name for c in chips if (k := constants(cmp.chips[c])) is not None
                     and k.dram_estimated]
        if estimated:
            said += " " + _("{chips}: estimated from the board power (upper bounds): the knee at "
                            "the ridge, no cap claimed (Help → User guide, Energy).").format(
                chips=html.escape(listed(estimated)))
        # a preset without one: its maker publishes none (its notes say so), which "no energy
        # data" did not tell (the seventeenth tour, TPU v5e)
        unpublished = [chip.name for chip in missing if chip.preset]
        if unpublished:
            said += " " + _("No published board power, so no curve: {chips} (give one in the "
                            "hardware editor's Energy and cost).").format(
                chips=html.escape(listed(unpublished)))
        if own := [chip.name for chip in missing if not chip.preset]:
            said += " " + _("No energy data: {chips} (give a board power in the hardware "
                            "editor's Energy and cost).").format(chips=html.escape(listed(own)))
        if flat:
            under = hidden_under(drawn)

            def entry(c: int, values: list[str]) -> str:
                text = f"{cmp.chips[c].name}: {listed(values)}"
                if c in under:  # a chip with no line of its own in sight says so
                    text = _("{chip} (hidden under {others})").format(
                        chip=text, others=listed(cmp.chips[d].name for d in under[c]))
                return html.escape(text)

            said += "<br>" + (_("At the right, where compute alone sets it:") if energy else
                              _("At the right, held to the board power:")) + "".join(
                f"<br><span style='color:{cmp.chips[c].color or '#808080'}'>■</span> "
                f"{entry(c, values)}" for c, values in flat.items())
        self.title.setText(tidy(said))
