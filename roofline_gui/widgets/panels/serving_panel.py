"""The Serving view: the selected transformer workload served on every shown chip, output
tokens/s per chip against tokens/s per user as the concurrency grows (core.serving), with the
requests' lengths and the latency limits as fields, the TPOT limit as a line to drag, and the
selected chip's best point in words."""

from __future__ import annotations

import html
from dataclasses import replace

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from roofline_gui.core.edits import SetField
from roofline_gui.core.errors import RooflineError
from roofline_gui.core.i18n import N_, _, clauses, listed, ngettext, tidy
from roofline_gui.core.serving import SHARE_WORDS, measured_lines, serve, serving_lines, spec_of
from roofline_gui.core.units import rate_count
from roofline_gui.core.workload import MAX_DIM, Workload, pool_problems, with_field
from roofline_gui.io.imports import import_serving_csv
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.widgets.common.application import set_tip
from roofline_gui.widgets.common.throttle import Throttle
from roofline_gui.widgets.common.wheel import guard_wheel
from roofline_gui.widgets.panels.serving_chart import (
    MEASURES,
    ServingChart,
    hidden_chips,
    hidden_name,
    measure_values,
)

#: The fields: (name, label, tooltip), whole numbers then times and the rate.
_FIELDS = (("input_tokens", N_("Input I"), N_("prompt tokens per request (a mean)")),
           ("output_tokens", N_("Output O"), N_("output tokens per request (a mean)")),
           ("tpot_limit", N_("TPOT limit (ms)"), N_("time per output token a user may see at most "
                                                   "(none: no limit); or drag its line on the "
                                                   "chart")),
           ("ttft_limit", N_("TTFT limit (ms)"), N_("time to the first token at most (none: no "
                                                   "limit): one prompt's prefill, without "
                                                   "queueing")),
           ("draft_tokens", N_("Draft tokens n"), N_("speculative decoding: tokens drafted per "
                                                    "step (0: off); the draft's own work is not "
                                                    "counted")),
           ("acceptance", N_("Acceptance α"), N_("each drafted token's chance to be accepted: "
                                                "(1 − α^(n+1))/(1 − α) tokens a step")),
           ("prefill_chips", N_("Prefill chips x"), N_("disaggregated serving: chips that only "
                                                      "prefill (a multiple of the chips sharing "
                                                      "the model), each prompt's KV cache moved "
                                                      "over the link level; 0: every chip does "
                                                      "both")),
           ("decode_chips", N_("Decode chips y"), N_("disaggregated serving: chips that only "
                                                    "decode; 0: every chip does both")))
#: The two pools of disaggregated serving: set one from 0 and the other follows (1:1), set one
#: to 0 and both are (each chip does both again).
_POOLS = {"prefill_chips": "decode_chips", "decode_chips": "prefill_chips"}
LABELS = {name: label for name, label, _tip in _FIELDS}


class MeasuredFiles:
    """The file dialog of Measured points…, replaceable in tests."""

    @staticmethod
    def open_path(parent: QWidget) -> str:
        return QFileDialog.getOpenFileName(parent, _("Measured serving points"), "",
                                           _("CSV (*.csv);;All files (*)"))[0]


class ServingPanel(QWidget):
    def __init__(self, model: DocumentModel, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.result = None  # the ServingResult shown
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.edits: dict[str, QSpinBox | QDoubleSpinBox] = {}
        # The fields, the buttons and the y-axis box in a column at the left: a bottom dock is
        # wide and short (about 250 px at 1280 × 800), so the chart takes the dock's height.
        grid = QGridLayout()
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(3)
        for i, (name, label, tip) in enumerate(_FIELDS):
            # The ranges let a bad value through to the workload's rules, which refuse it and
            # say why (a spin box's own range put its last value back, silently).
            if name in ("input_tokens", "output_tokens", "draft_tokens", *_POOLS):
                edit = QSpinBox()
                edit.setRange(0, MAX_DIM)
            else:
                edit = QDoubleSpinBox()
                edit.setDecimals(2 if name != "acceptance" else 3)
                edit.setRange(0.0, 10.0 if name == "acceptance" else 1e6)
                edit.setSingleStep(0.05 if name == "acceptance" else 5.0)
            if name in ("tpot_limit", "ttft_limit"):
                edit.setSpecialValueText(_("none"))  # 0: no limit, said as such
            elif name in _POOLS:  # 0: no pool of its own (a tour read "x = 0" as no chips)
                edit.setSpecialValueText(_("shared (0)"))
            elif name == "draft_tokens":
                edit.setSpecialValueText(_("off (0)"))
            edit.setKeyboardTracking(False)
            set_tip(edit, _(tip))
            guard_wheel(edit)  # a wheel over the fields' column scrolls it
            edit.valueChanged.connect(lambda v, n=name: self._on_field(n, v))
            caption = QLabel(_(label))
            caption.setBuddy(edit)
            grid.addWidget(caption, i, 0)
            grid.addWidget(edit, i, 1)
            self.edits[name] = edit
        self.chart = ServingChart(tip=self._tip, on_click=self._on_click, legend=False)
        self.plot, self.tpot_line = self.chart.plot, self.chart.tpot_line
        self.plot.setMinimumHeight(8 * self.fontMetrics().lineSpacing())
        self.tpot_line.sigPositionChangeFinished.connect(self._on_line_dragged)
        self.measure_button = QPushButton(_("Measured points"))
        set_tip(self.measure_button,
            _("Measured or published serving points, kept with the session: drawn as stars "
            "against their chip's bound, any above it named with what to check"))
        menu = QMenu(self.measure_button)
        self.act_import = menu.addAction(_("Import CSV…"), self.import_measured)
        set_tip(self.act_import, _("Columns chip, tokens_per_s_per_user, tokens_per_s_per_chip "
                                   "and an optional source; one row a point"))
        self.act_remove = menu.addAction(_("Remove all"), self.remove_measured)
        menu.aboutToShow.connect(lambda: self.act_remove.setEnabled(bool(self.measured)))
        self.measure_button.setMenu(menu)
        rows = len(_FIELDS)
        grid.addWidget(self.measure_button, rows, 0, 1, 2)
        #: the view's exports (PNG, SVG, PDF, CSV): the window's File menu actions, set by it
        self.export_button = QPushButton(_("Export"))
        set_tip(self.export_button, _("This chart as an image or a document, or its points as a "
                                      "CSV table (one row per chip and concurrency)"))
        self.export_button.setEnabled(False)
        grid.addWidget(self.export_button, rows + 1, 0, 1, 2)
        #: what the y axis reads: tokens/s per chip, per joule (energy data), per dollar (price)
        self.measure_box = QComboBox()
        for name, title, _attr, _needs in MEASURES:
            self.measure_box.addItem(f"y: {_(title)}", name)
        set_tip(self.measure_box,
            _("Output tokens per chip-second; per joule, by the chips' energy data (as the "
            "workload views count a step's energy); per dollar, at each chip's price per "
            "chip-hour (the hardware editor's energy fields)"))
        self.measure_box.currentIndexChanged.connect(self._on_measure)
        grid.addWidget(self.measure_box, rows + 2, 0, 1, 2)
        grid.setRowStretch(rows + 3, 1)
        self.refused = QLabel()  # a field's refusal, until the next edit
        self.refused.setWordWrap(True)
        self.refused.setStyleSheet("color: #b00020")
        self.refused.hide()  # shown with a refusal only: the chart keeps the line otherwise
        self.words = QLabel()
        self.words.setWordWrap(True)
        self.words.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.words.setAlignment(Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        fields = QWidget()
        fields.setLayout(grid)
        side = QScrollArea()
        side.setWidget(fields)
        side.setWidgetResizable(True)
        side.setFrameShape(QFrame.Shape.NoFrame)
        side.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        side.setFixedWidth(fields.sizeHint().width() + side.verticalScrollBar().sizeHint().width())
        words = QScrollArea()
        words.setWidget(self.words)
        words.setWidgetResizable(True)
        words.setFrameShape(QFrame.Shape.NoFrame)
        words.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._words_area = words
        body = QGridLayout()
        body.addWidget(side, 0, 0)
        body.addWidget(self.plot, 0, 1)
        column = QVBoxLayout()  # a refusal above the words: the fields never move under the mouse
        column.addWidget(self.refused)
        column.addWidget(words, 1)
        body.addLayout(column, 0, 2)
        body.setColumnStretch(1, 3)
        body.setColumnStretch(2, 2)
        layout.addLayout(body, 1)
        self._serial = 0
        self._frontier_key = None  # what the frontier was served for, limits left out
        # the TPOT limit the frontier's concurrencies were searched for (None: not searched)
        self._served_limit = None
        self._drawn_key = None  # what is drawn now
        # The words serve three variants of the workload (~20 ms): written once the fields and
        # the line have held still, not at every step of a drag.
        self._words_later = QTimer(self)
        self._words_later.setSingleShot(True)
        self._words_later.setInterval(200)
        self._words_later.timeout.connect(self._write_words)
        self._later = Throttle(self, self.refresh)
        model.sig_document_changed.connect(lambda *_a: self._later.request())
        model.sig_selection_changed.connect(lambda *_a: self._later.request())
        model.sig_selection_changed.connect(lambda *_a: self._refuse(""))  # said of another
        self.refresh()

    def _refuse(self, text: str) -> None:
        self.refused.setText(text)
        self.refused.setVisible(bool(text))

    @property
    def measured(self) -> tuple:
        """The session's measured serving points, drawn against their chips' frontiers."""
        return self.model.document.serving_measured

    def set_export_actions(self, actions) -> None:
        """The window's export actions, offered by the Export button too."""
        menu = QMenu(self.export_button)
        for action in actions:
            menu.addAction(action)
        self.export_button.setMenu(menu)
        self.export_button.setEnabled(True)

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
        changed = with_field(w, name, value)
        other = _POOLS.get(name)
        if other and (value == 0) != (getattr(w, other) == 0):
            changed = with_field(changed, other, value)  # both pools on, or both off
        # the pools this edit set (one, or both where it turned the split on or off); the other
        # pool's own problem is said where the workload is served, not charged to this value
        edited = {name} | ({other} if other and getattr(changed, other) != getattr(w, other)
                           else set())
        pools = [p for p in pool_problems(changed) if p.path in edited] if other else []
        done = not pools and self.model.set_workload(
            changed, _("{workload}: {field} {value}").format(workload=w.name, field=_(LABELS[name]),
                                                              value=shown),
            merge_key=("serving field", self._serial, name))
        refusal = "; ".join(p.message for p in pools) if pools else self.model.last_refused
        self._refuse(_("{field} {value} refused: {why}").format(
            field=_(LABELS[name]), value=shown, why=refusal)
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
                                _("{workload}: TPOT limit {ms} ms").format(
                                    workload=w.name, ms=f"{tpot * 1e3:.3g}"))

    def _chip_index(self, chips) -> int:
        ids = [c.id for c in chips]
        return ids.index(self.model.selected_chip) if self.model.selected_chip in ids else 0

    def _show_fields(self, w) -> None:
        """The serving fields at ``w``'s values, or greyed at a new workload's (None)."""
        for name, edit in self.edits.items():
            edit.blockSignals(True)
            value = getattr(w, name) if w is not None else Workload.__dataclass_fields__[
                name].default
            edit.setValue(value * 1e3 if name in ("tpot_limit", "ttft_limit") else value)
            edit.setEnabled(w is not None)
            edit.blockSignals(False)

    def refresh(self) -> None:
        w = self.workload()
        chips = tuple(c for c in self.model.document.chips if c.visible)
        if w is None or not chips:
            self.chart.clear()
            self.result = None
            self._drawn_key = None
            self.title.setText(_("No chip shown: the Hardware panel's Add… adds one; the "
                                 "workload's serving bound is drawn for it.") if w is not None else
                               _("No transformer workload: Workloads → New Workload… makes one; "
                               "its serving bound is drawn here."))
            self.words.setText("")
            # nothing to edit: the fields greyed, at a new workload's values (they read 0 after
            # a restart: the second tour)
            self._show_fields(None)
            return
        self._show_fields(w)
        derated = self.model.view.derated
        key = (w, chips, derated, self.measured)
        if key == self._drawn_key:  # the selected chip may have changed: its words, its box
            self.chart.draw_current(self.result, self._chip_index(self.result.chips))
            self._words_later.start()
            return
        frontier = (replace(w, tpot_limit=0.0, ttft_limit=0.0), chips, derated)
        same = frontier == self._frontier_key and self.result is not None
        try:
            # a limit moved: the same frontier, other best points
            # a new frontier is served at the doublings alone; the concurrencies between them
            # are searched for each chip's best point once the fields hold still
            result = replace(self.result if same else serve(
                w, chips, replace(spec_of(w), tpot_limit=0.0), derated=derated, search=False),
                workload=w, spec=spec_of(w))
        except RooflineError as exc:
            self.result = None
            self._drawn_key = self._frontier_key = None
            self.chart.clear()
            why = ("; ".join(_("{field}: {problem}").format(
                field=_(LABELS[p.path]) if p.path in LABELS else p.path, problem=p.message)
                for p in exc.problems) if getattr(exc, "problems", ()) else str(exc))
            self.title.setText(_("{workload} cannot be served: {why}").format(
                workload=f"<b>{html.escape(w.name)}</b>", why=html.escape(why)))
            self.words.setText("")
            return
        self.result = result
        measured_moved = self._drawn_key is None or self._drawn_key[3] != self.measured
        self._frontier_key, self._drawn_key = frontier, key
        if not same:
            self._served_limit = None
            self._draw_frontier(result)
        elif measured_moved:
            self.chart.draw_measured(result, self.measured)
        self.chart.draw_limits(result)
        self.chart.draw_current(result, self._chip_index(result.chips))
        self._words_later.start()

    @property
    def measure(self) -> str:
        return self.measure_box.currentData()

    def _on_measure(self, _index=None) -> None:
        if self.result is not None:
            self._draw_frontier(self.result)
            self._write_words()

    def _draw_frontier(self, result) -> None:
        under = hidden_chips(result, self.measure)
        key = " ".join(f"<span style='color:{chip.color or '#808080'}'>━ "
                       f"{html.escape(hidden_name(result, c, under))}</span>"
                       for c, chip in enumerate(result.chips))
        title = _("{workload} served as more users decode at once (the numbers); hollow: their "
                  "caches do not fit; ringed: the best within the limits; boxed: the one the roofline "
                  "shows; dashed: the TPOT limit. {chips}").format(
            workload=f"<b>{html.escape(result.workload.name)}</b>", chips=key)
        if title != self.title.text():  # a new text lays the panel out again
            self.title.setText(tidy(title))
        self.chart.draw(result, self.measured, self.measure, under)
        # the box too: a point the search between the doublings found (448 users) is only in
        # this frontier (the eighth tour's MI355X point had none)
        self.chart.draw_current(result, self._chip_index(result.chips))

    def import_measured(self, path: str | None = None) -> bool:
        """Measured points from a CSV, added to the session's (one undo step); a bad file is
        named, line by line, and changes nothing."""
        path = path or MeasuredFiles.open_path(self)
        if not path:
            return False
        try:
            points = import_serving_csv(path)
        except RooflineError as exc:
            self._refuse(str(exc))
            return False
        self._refuse("")
        new = tuple(p for p in dict.fromkeys(points) if p not in self.measured)
        if new:
            self.model.push(SetField("serving_measured", self.measured + new),
                            ngettext("Import {n} measured serving point",
                                     "Import {n} measured serving points", len(new)).format(
                                n=f"{len(new):,}"))
        self.refresh()
        self._write_words()
        return True

    def remove_measured(self) -> None:
        if self.measured:
            self.model.push(SetField("serving_measured", ()), _("Remove the measured serving points"))

    def settled(self):
        """The view as it will stand once its fields hold still (the search between the
        doublings done, the words written): what an export writes."""
        self.refresh()
        if self._words_later.isActive() or (self.result is not None and
                                            self.result.spec.tpot_limit != self._served_limit):
            self._words_later.stop()
            self._write_words()
        return self.result

    def _write_words(self) -> None:
        result = self.result
        if result is None:
            return
        if result.spec.tpot_limit != self._served_limit:
            # not searched, or the limit moved since: serve it again, searching the
            # concurrencies between the doublings for each chip's best point under the limit
            try:
                result = serve(result.workload, result.chips, result.spec,
                               derated=self.model.view.derated)
            except RooflineError:
                return
            self.result, self._served_limit = result, result.spec.tpot_limit
            self._draw_frontier(result)
        c = self._chip_index(result.chips)
        try:
            lines = serving_lines(result, c)
        except RooflineError as exc:  # never a traceback, never the last words left standing
            self.words.setText("<span style='color:#b00020'>{}</span>".format(html.escape(
                _("The words cannot be written: {why}").format(why=exc))))
            return
        if self.measure != "chip":
            lines.insert(0, self._measure_line(result))
        if result.not_shown_line():  # the example opened with no box and no word why (the tour)
            lines.insert(0, result.not_shown_line())
        if self.measured:
            lines += [_("Measured points:"), *measured_lines(result, self.measured)]
        self.words.setText("<br><br>".join(html.escape(tidy(line)) for line in lines))
        shown = (result.workload.id, result.chips[c].id)
        if shown != getattr(self, "_words_of", None):  # another workload or chip: from the top
            self._words_area.verticalScrollBar().setValue(0)
            self._words_of = shown

    def _measure_line(self, result) -> str:
        """The chips ranked by the measure the y axis reads, at each one's best point within
        the limits; those without the figure named."""
        name, title, _attr, needs = next(m for m in MEASURES if m[0] == self.measure)
        values = measure_values(result, name)
        ranked, lacking = [], []
        for c, chip in enumerate(result.chips):
            b = result.best(c)
            if not np.isfinite(values[c]).any():
                lacking.append(chip.name)
            elif b is not None:
                ranked.append((float(values[c, b]), chip.name))
        ranked.sort(reverse=True)
        line = _("{measure} at each chip's best point within the limits: {ranking}.").format(
            measure=_(title)[0].upper() + _(title)[1:],
            ranking=clauses(f"{n} {rate_count(v)}" for v, n in ranked) or _("none"))
        if lacking:
            line += " " + _("Not drawn, for want of {needs}: {chips}").format(
                needs=_(needs), chips=listed(lacking))
            line += (_(" (the hardware editor's Energy fields: $ per chip-hour).")
                     if name == "dollar" else _(" (the hardware editor's Energy fields)."))
        return line

    def _measure_tip(self, result, c: int, k: int) -> str:
        """The point's tokens per joule or per dollar, when the y axis reads it."""
        if self.measure == "chip":
            return ""
        value = float(measure_values(result, self.measure)[c, k])
        title = next(m[1] for m in MEASURES if m[0] == self.measure)
        return f"\n{rate_count(value)} {title}" if np.isfinite(value) else ""

    def _tip(self, x, y, data) -> str:
        result = self.result
        if result is None or not isinstance(data, tuple):
            return ""
        c, k = data
        shares = result.shares(c, k)
        users = int(result.concurrency[k])
        return (_("{chip}: {users} at once\n{per_chip} output tokens/s per chip, {per_user} per "
                  "user\nTPOT {tpot} ms, TTFT {ttft} ms").format(
                    chip=result.chips[c].name,
                    users=ngettext("{n} user", "{n} users", users).format(n=f"{users:,}"),
                    per_chip=f"{result.tokens_per_chip[c, k]:,.0f}",
                    per_user=f"{result.tokens_per_user[c, k]:,.1f}",
                    tpot=f"{result.tpot[c, k] * 1e3:,.2f}", ttft=f"{result.ttft[c] * 1e3:,.1f}")
                + self._measure_tip(result, c, k)
                + ("" if result.fits[c, k] else _("\ndoes not fit in its memory")) + "\n"
                + ", ".join(f"{_(SHARE_WORDS[name])} {share:.0%}" for name, share in shares.items()
                            if share >= 0.005))

    def _on_click(self, _item, points, _ev=None) -> None:
        """A point: its chip selected, and the workload's decode step set to its users at the
        mean context (shown on the roofline and in the table)."""
        if not len(points) or self.result is None:
            return
        c, k = self.chart.nearest(points, _ev).data()
        w, chip = self.result.workload, self.result.chips[c]
        users = int(self.result.concurrency[k])
        changed = with_field(with_field(w, "batch", users), "context",
                             self.result.spec.mean_context)
        if changed != w:
            self.model.set_workload(changed, _("{workload}: serve {users} users at once").format(
                workload=w.name, users=f"{users:,}"))
        self.model.select(w.id, chip.id)
        r = self.result
        step = float(r.decode[k].time[c])
        self.model.sig_status.emit(_(
            "{chip}, {users} users: the roofline and the table now show their decode step alone "
            "({ms} ms, {rate} tokens/s of the {chips}); served, {how}: {per_chip} tokens/s per "
            "chip, TPOT {tpot} ms.").format(
            chip=chip.name, users=f"{users:,}", ms=f"{step * 1e3:,.2f}",
            rate=f"{users / step:,.0f}",
            chips=ngettext("{n} chip", "{n} chips", w.chips_per_model).format(n=w.chips_per_model),
            how=(_("each request's prefill is mixed in") if not r.spec.disaggregated else
                 _("the prefill pool and the link are counted")),
            per_chip=f"{r.tokens_per_chip[c, k]:,.0f}", tpot=f"{r.tpot[c, k] * 1e3:,.2f}"))
