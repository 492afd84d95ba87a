"""Workloads: whole models as the user sizes them.

- :class:`WorkloadsPanel` (a dock): the session's workloads, and the fields of the selected one
  (phase, batch, sequence or context, precisions, chips per model and their link), with its
  kernel breakdown and every formula filled in. Each change is one undoable edit.
- :class:`WorkloadDialog`: a new workload from a shipped example, a ``config.json`` opened from
  disk (nothing is downloaded) or the session's own kernels, with a live preview of its kernels.
- :class:`WorkloadCharts`: the selected workload on every chip: a bar per chip of its step's
  time by kernel, coloured by what bounds each (memory, compute, link), and the batch sweep
  (throughput against latency, the trade-off a batch makes).
"""

from __future__ import annotations

import html
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from roofline_gui.core import training_view
from roofline_gui.core.build import build
from roofline_gui.core.energy import ENERGY_PART_COLORS, ENERGY_PART_WORDS, energy_parts
from roofline_gui.core.errors import RooflineError, ValidationError
from roofline_gui.core.units import PRECISIONS, format_si, format_time
from roofline_gui.core.workload import (
    LINK_ROLES,
    MAX_DIM,
    ON_CHIP_KINDS,
    TRAIN_KINDS,
    Workload,
    label_of,
    parameters_text,
    with_field,
)
from roofline_gui.core.workload_eval import SWEEP_BATCHES, batch_sweep
from roofline_gui.core.workload_view import SEGMENT_KINDS, breakdown
from roofline_gui.io.workloads import shipped_folder, shipped_workloads, workload_from_config
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.widgets.common.axes import log_plot
from roofline_gui.widgets.common.fields import QuantityEdit
from roofline_gui.widgets.common.throttle import Throttle

_INT_FIELDS = (("batch", "Batch B", "sequences (or images, samples) per step"),
               ("sequence", "Sequence S", "prompt tokens per sequence, for prefill"),
               ("context", "Context L", "tokens already in the KV cache, for decode"),
               ("chips_per_model", "Chips N", "chips sharing the model (tensor parallelism)"))
_PRECISION_FIELDS = (("weights", "Weights"), ("activations", "Activations, math"),
                     ("kv_cache", "KV cache"))
#: A training step's fields (phase train): (name, label, tooltip).
_TRAIN_INTS = (("global_batch", "Global batch G", "sequences (images) per optimizer step, over "
                "all replicas; auto: micro-batch × data parallel (no gradient accumulation)"),
               ("data_parallel", "Data parallel d", "replicas, each on t·p chips; the gradients "
                "are all-reduced once per step"),
               ("pipeline_parallel", "Pipeline p", "pipeline stages (1F1B): each chip holds L/p "
                "layers; the bubble idles (p−1)/m of the step"))
_TRAIN_CHOICES = (("zero", "ZeRO", [("0: none", 0), ("1: optimizer states", 1),
                                    ("2: + gradients", 2), ("3: + weights", 3)],
                   "ZeRO stage: which model states are divided by d (Rajbhandari et al. 2020)"),
                  ("recompute", "Recompute", [("none", "none"), ("selective", "selective"),
                                              ("full", "full")],
                   "activation recomputation: selective recomputes the attention core "
                   "(Korthikanti et al. 2022), full one more forward of every layer"),
                  ("optimizer", "Optimizer", [("Adam", "adam"), ("SGD, momentum", "sgd")],
                   "Adam keeps fp32 master weights, momentum and variance (12 B per parameter "
                   "in mixed precision); SGD master weights and momentum (8 B)"))
#: Fields by the names the window gives them (the undo history says "Chips N 4").
FIELD_LABELS = {**{name: label for name, label, _tip in _INT_FIELDS}, **dict(_PRECISION_FIELDS),
                **{name: label for name, label, _tip in _TRAIN_INTS},
                **{name: label for name, label, _items, _tip in _TRAIN_CHOICES},
                "train_tokens": "Tokens D", "phase": "Phase", "link": "Link",
                "activations_on_chip": "activations on chip"}


class DoublingSpinBox(QSpinBox):
    """Its arrows double and halve (1, 2, 4, 8...): chip counts that split a model's heads;
    any other number can still be typed."""

    def stepBy(self, steps: int) -> None:  # noqa: N802 (Qt API)
        value = self.value()
        for _ in range(abs(steps)):
            value = value * 2 if steps > 0 else max(1, value // 2)
        self.setValue(value)


class WorkloadFields(QWidget):
    """The workload-level parameters as fields, two to a row (the panel shares the left side
    with the workload list and the formulas); ``sig_changed(field, value)`` on each edit."""

    sig_changed = Signal(str, object)
    sig_refused = Signal(str)  # a field's own refusal of what is typed ("" once it is good)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(3)
        self._labels: dict[QWidget, QLabel] = {}
        self.phase = QComboBox()
        self.phase.setToolTip("prefill: the prompt's S tokens at once; decode: one new token per "
                              "sequence against a KV cache of L; train: one optimizer step "
                              "(forward, backward, optimizer) over the global batch")
        self.phase.activated.connect(
            lambda i: self.sig_changed.emit("phase", self.phase.itemData(i)))
        self._phase_kind = None
        self.spins: dict[str, QSpinBox] = {}
        for name, _label, tip in _INT_FIELDS:
            spin = DoublingSpinBox() if name == "chips_per_model" else QSpinBox()
            spin.setRange(1, MAX_DIM)
            spin.setToolTip(tip)
            spin.setKeyboardTracking(False)  # one edit per value typed, not per digit
            spin.valueChanged.connect(lambda v, n=name: self.sig_changed.emit(n, int(v)))
            self.spins[name] = spin
        self.combos: dict[str, QComboBox] = {}
        for name, _label in _PRECISION_FIELDS:
            combo = QComboBox()
            combo.addItems(list(PRECISIONS))
            combo.currentTextChanged.connect(lambda t, n=name: self.sig_changed.emit(n, t))
            self.combos[name] = combo
        for name, _label, tip in _TRAIN_INTS:
            spin = QSpinBox() if name == "global_batch" else DoublingSpinBox()
            spin.setRange(0 if name == "global_batch" else 1, 10**9 if name == "global_batch"
                          else MAX_DIM)
            if name == "global_batch":
                spin.setSpecialValueText("auto (b·d)")
            spin.setToolTip(tip)
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(lambda v, n=name: self.sig_changed.emit(n, int(v)))
            self.spins[name] = spin
        for name, _label, items, tip in _TRAIN_CHOICES:
            combo = QComboBox()
            for text, value in items:
                combo.addItem(text, value)
            combo.setToolTip(tip)
            combo.activated.connect(lambda i, n=name, c=combo: self.sig_changed.emit(n, c.itemData(i)))
            self.combos[name] = combo
        self.tokens = QuantityEdit("count", minimum=0.0, bound=True)
        self.tokens.setToolTip("Training tokens (images) of the whole run, for its days and "
                               "chip-hours: 2T, 300e9, 1.4e12; 0: no run")
        self.tokens.sig_value_committed.connect(
            lambda v: self.sig_changed.emit("train_tokens", float(v or 0.0)))
        self.tokens.sig_error_changed.connect(
            lambda why: self.sig_refused.emit(f"{self.label_of('train_tokens')}: {why}"
                                              if why else ""))
        self.link = QComboBox()
        self.link.addItems(list(LINK_ROLES))
        self.link.setToolTip("The memory role joining the N chips: link (NVLink, ICI, Infinity "
                             "Fabric) or host (PCIe)")
        self.link.currentTextChanged.connect(lambda t: self.sig_changed.emit("link", t))
        labels = {name: label for name, label, _tip in _INT_FIELDS}
        labels.update(dict(_PRECISION_FIELDS))
        # Sequence (prefill) and context (decode) share a cell: one of them is shown.
        rows = [(("Phase", self.phase), ("Batch B", self.spins["batch"])),
                (("Link", self.link), (labels["sequence"], self.spins["sequence"])),
                (None, (labels["context"], self.spins["context"])),
                (("Weights", self.combos["weights"]), ("Math", self.combos["activations"])),
                (("KV cache", self.combos["kv_cache"]), ("Chips N", self.spins["chips_per_model"])),
                (("Global batch G", self.spins["global_batch"]),
                 ("Data parallel d", self.spins["data_parallel"])),
                (("Pipeline p", self.spins["pipeline_parallel"]), ("ZeRO", self.combos["zero"])),
                (("Recompute", self.combos["recompute"]), ("Optimizer", self.combos["optimizer"])),
                (("Tokens D", self.tokens), None)]
        shared = {2: 1}  # grid row 2's cells go into row 1
        self._grid = grid
        self._arranged_for_training = False
        for r, pair in enumerate(rows):
            for k, cell in enumerate(pair):
                if cell is None:
                    continue
                text, widget = cell
                label = QLabel(text)
                label.setBuddy(widget)
                self._labels[widget] = label
                grid.addWidget(label, shared.get(r, r), 2 * k)
                grid.addWidget(widget, shared.get(r, r), 2 * k + 1)
        self.combos["activations"].setToolTip("Precision of activations and of the math: the "
                                              "compute roof used")
        self.on_chip = QCheckBox("Activations on chip")
        self.on_chip.setToolTip("Activations stay in the chip's on-chip level between layers, as "
                                "in the TPU v1's 24 MiB Unified Buffer: only the weights cross "
                                "main memory (its roofline counts ops per weight byte), the "
                                "activations move at the on-chip level")
        self.on_chip.toggled.connect(lambda on: self.sig_changed.emit("activations_on_chip", on))
        grid.addWidget(self.on_chip, len(rows), 0, 1, 4)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        # As tall as its rows, wherever it sits (a dialog's spare height is not spread between them).
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)

    def _phases(self, kind: str) -> None:
        """The phases a kind has: a transformer decode, prefill and train; a CNN or MLP
        inference and train."""
        if kind == self._phase_kind:
            return
        self._phase_kind = kind
        self.phase.clear()
        if kind == "transformer":
            for phase in ("decode", "prefill", "train"):
                self.phase.addItem(phase, phase)
        else:
            self.phase.addItem("inference", "decode")
            self.phase.addItem("train", "train")

    def label_of(self, name: str) -> str:
        """A field's label as shown now ("Tensor par. t" in training, "Chips N" otherwise)."""
        widget = self.spins.get(name) or self.combos.get(name) or (
            self.tokens if name == "train_tokens" else None)
        label = self._labels.get(widget) if widget is not None else None
        return label.text() if label is not None else FIELD_LABELS.get(name, name)

    def _arrange(self, train: bool) -> None:
        """In training the weights' and KV cache's fields go: the precision moves into the
        weights' cell and the tensor-parallel degree beside it, a row fewer."""
        if train == self._arranged_for_training:
            return
        self._arranged_for_training = train
        for widget, (row, column) in ((self.combos["activations"], (3, 0) if train else (3, 1)),
                                      (self.spins["chips_per_model"], (3, 1) if train else (4, 1))):
            self._grid.addWidget(self._labels[widget], row, 2 * column)
            self._grid.addWidget(widget, row, 2 * column + 1)

    def show_workload(self, w: Workload) -> None:
        widgets = [self.phase, self.link, self.on_chip, *self.spins.values(),
                   *self.combos.values()]
        for widget in widgets:
            widget.blockSignals(True)
        try:
            self._phases(w.kind)
            self.phase.setCurrentIndex(max(0, self.phase.findData(
                "train" if w.phase == "train" else w.phase if w.kind == "transformer"
                else "decode")))
            self.link.setCurrentText(w.link)
            for name, spin in self.spins.items():
                spin.setValue(getattr(w, name))
            for name, combo in self.combos.items():
                index = combo.findData(getattr(w, name))
                combo.setCurrentIndex(index if index >= 0 else combo.findText(getattr(w, name)))
            self.on_chip.setChecked(w.activations_on_chip)
            if not self.tokens.hasFocus():
                self.tokens.set_value(w.train_tokens)
        finally:
            for widget in widgets:
                widget.blockSignals(False)
        transformer = w.kind == "transformer"
        train = w.training
        own = w.kind != "custom"  # a custom workload's kernels keep their own precisions
        for widget, shown in ((self.combos["weights"], own and not train),
                              (self.combos["activations"], own),
                              (self.phase, w.kind in TRAIN_KINDS),
                              (self.spins["sequence"], transformer and w.phase != "decode"),
                              (self.spins["context"], transformer and w.phase == "decode"),
                              (self.combos["kv_cache"], transformer and not train),
                              (self.spins["chips_per_model"], transformer),
                              (self.link, transformer or train),
                              *((self.spins[n], train) for n, _l, _t in _TRAIN_INTS),
                              *((self.combos[n], train) for n, _l, _i, _t in _TRAIN_CHOICES),
                              (self.tokens, train)):
            widget.setVisible(shown)
            self._labels[widget].setVisible(shown)
        self._arrange(train)
        # In training the batch is each replica's micro-batch, the chips sharing the model the
        # tensor-parallel degree and the math's precision the training precision.
        self._labels[self.spins["batch"]].setText("Micro-batch b" if train else "Batch B")
        self._labels[self.spins["chips_per_model"]].setText("Tensor par. t" if train else "Chips N")
        self._labels[self.combos["activations"]].setText("Precision" if train else "Math")
        self._labels[self.tokens].setText({"cnn": "Images D", "mlp": "Samples D"}.get(
            w.kind, "Tokens D"))
        self.spins["chips_per_model"].setToolTip(
            "tensor parallelism: chips sharing every matrix (a divisor of the heads)" if train
            else "chips sharing the model (tensor parallelism)")
        self.combos["activations"].setToolTip(
            "the training precision: matmuls, activations, gradients and the weights' working "
            "copy; below fp32 the optimizer keeps fp32 master weights" if train else
            "Precision of activations and of the math: the compute roof used")
        self.on_chip.setVisible(w.kind in ON_CHIP_KINDS and not train)


def entries_html(w: Workload, kernels=None) -> str:
    """The workload's kernels with their counts and formulas, numbers filled in."""
    try:
        built = build(w, kernels)
    except ValidationError as exc:
        return "<p><b>Cannot build:</b> " + html.escape("; ".join(map(str, exc.problems))) + "</p>"
    parts = [f"<p><b>{html.escape(label_of(w))}</b>"]
    if built.parameters:
        parts.append(f"<br>{parameters_text(built.parameters)} parameters"
                     + (f" ({parameters_text(built.active_parameters)} active per token)"
                        if built.active_parameters != built.parameters else ""))
    parts.append("</p>")
    for note in built.notes:
        parts.append(f"<p><i>{html.escape(note)}</i></p>")
    for e in built.entries:
        k = e.kernel
        t = k.traffic()
        dram = t.bytes.get("dram", 0.0)
        on_chip = t.bytes.get("cache")
        parts.append(
            f"<p><b>{html.escape(k.name)}</b> × {e.count:,.0f}: "
            f"{format_si(t.ops, 'op')}, {format_si(dram, 'B')} of main memory"
            + (f" and {format_si(on_chip, 'B')} on chip" if on_chip else "")
            + f", {t.ops / dram if dram else float('nan'):,.4g} op/B<br>"
            + "<br>".join(html.escape(s) for s in e.steps) + "</p>")
    if built.link_steps:
        parts.append("<p><b>Link</b><br>" + "<br>".join(map(html.escape, built.link_steps)) + "</p>")
    if built.resident_steps:
        parts.append("<p><b>Held in memory per chip</b><br>"
                     + "<br>".join(map(html.escape, built.resident_steps)) + "</p>")
    if w.source:
        parts.append(f"<p><small>Source: {html.escape(w.source)}</small></p>")
    return "".join(parts)


class WorkloadsPanel(QWidget):
    def __init__(self, model: DocumentModel, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.list = QListWidget()
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.currentItemChanged.connect(self._on_current)
        self.list.itemChanged.connect(self._on_item_changed)
        self.add_button = QPushButton("New…")
        self.add_button.setToolTip("A workload from an example model, a config.json on disk or "
                                   "the session's kernels")
        self.add_button.clicked.connect(self.new_workload)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_selected)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        self.name = QLineEdit()
        self.name.setToolTip("The workload's name, on the chart, in the table and the CSV")
        self.name.editingFinished.connect(self._on_name)
        self.fields = WorkloadFields()
        self.fields.sig_changed.connect(self._on_field)
        self.refused = QLabel()
        self.fields.sig_refused.connect(self.refused.setText)
        self.refused.setWordWrap(True)
        self.refused.setStyleSheet("color: #b00020")
        self.formulas = QTextBrowser()
        self.formulas.setOpenLinks(False)
        self.hint = QLabel("Drag a workload's big point on the chart to change its batch "
                           "(Shift+drag: its context or sequence).")
        self.hint.setWordWrap(True)
        # A few rows for the list, so the formulas keep the room on a laptop screen.
        row = self.list.fontMetrics().height() + 6
        self.list.setMinimumHeight(2 * row + 6)
        self.list.setMaximumHeight(5 * row + 6)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        name_row = QHBoxLayout()
        name_row.addWidget(QLabel("Name"))
        name_row.addWidget(self.name, 1)
        layout.addLayout(name_row)
        layout.addWidget(self.fields)
        layout.addWidget(self.refused)
        layout.addWidget(self.hint)
        layout.addWidget(self.formulas, 4)
        self._serial = 0  # spin-box edits of one field merge into one undo step until another
        self._last_field = None
        self._last_edit = 0.0
        self._later = Throttle(self, self.refresh)  # a drag's stream of edits
        model.sig_document_changed.connect(self._on_document_changed)
        model.sig_selection_changed.connect(lambda _k, _c: self._follow_selection())
        self.refresh()

    def _on_document_changed(self, doc, touched) -> None:
        ids = tuple(w.id for w in doc.workloads)
        shown = tuple(self.list.item(i).data(Qt.ItemDataRole.UserRole)
                      for i in range(self.list.count()))
        self.refused.setText("")  # an edit, an undo or a drag since: the refusal is past
        if touched and ids == shown and touched <= set(ids):  # edits of workloads: throttled
            self._later.request()
            return
        if touched and ids == shown and touched <= {c.id for c in doc.chips}:  # chips alone: the
            return  # list, fields and formulas here do not depend on them (a roof drag's step)
        self.refresh()

    @property
    def pending(self) -> bool:
        return self._later.pending

    @property
    def selected(self) -> Workload | None:
        item = self.list.currentItem()
        wid = item.data(Qt.ItemDataRole.UserRole) if item else None
        doc = self.model.document
        return doc.workload(wid) if wid in {w.id for w in doc.workloads} else None

    def refresh(self) -> None:
        doc = self.model.document
        current = self.selected.id if self.selected else self.model.selected_kernel
        self.list.blockSignals(True)
        try:
            self.list.clear()
            for w in doc.workloads:
                item = QListWidgetItem(label_of(w))
                item.setData(Qt.ItemDataRole.UserRole, w.id)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked if w.visible else Qt.CheckState.Unchecked)
                problem = self.model.workload_problems.get(w.id)
                item.setToolTip(problem or w.source)
                if problem:
                    item.setForeground(QColor("#b00020"))
                self.list.addItem(item)
                if w.id == current:
                    self.list.setCurrentItem(item)
            if self.list.currentItem() is None and self.list.count():
                self.list.setCurrentRow(0)  # shown here; the chart's selection stays as it was
        finally:
            self.list.blockSignals(False)
        self._show_selected()

    def _show_selected(self) -> None:
        w = self.selected
        self.fields.setEnabled(w is not None)
        self.name.setEnabled(w is not None)
        self.remove_button.setEnabled(w is not None)
        # With none selected (another document, File → New) the fields go, rather than keep
        # the last workload's values greyed.
        self.fields.setVisible(w is not None)
        self.hint.setVisible(w is not None)
        if w is None:
            if not self.name.hasFocus():
                self.name.clear()
            self.formulas.setHtml("<p>No workload selected. <b>New…</b> makes one from a model "
                                  "(Llama, Mistral, Mixtral, Qwen2, GPT-2 or your own "
                                  "config.json), ResNet-50, an MLP or LSTM stack, or the "
                                  "session's kernels.</p>")
            return
        self.fields.show_workload(w)
        if not self.name.hasFocus():
            self.name.setText(w.name)
        self.hint.setText("On the chart, drag its big point: the "
                          + ("micro-batch" if w.training else "batch")
                          + ("; Shift+drag: the sequence." if w.kind == "transformer" and
                             w.training else "; Shift+drag: the context or prompt length."
                             if w.kind == "transformer" else "."))
        self.hint.setToolTip("The point moves the way the intensity goes: in decode a longer "
                             "KV cache moves it left at large batches, right at batch 1.")
        scroll = self.formulas.verticalScrollBar().value()
        self.formulas.setHtml(entries_html(w, self.model.document.kernels_by_id))
        self.formulas.verticalScrollBar().setValue(scroll)

    def _follow_selection(self) -> None:
        wid = self.model.selected_kernel
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.ItemDataRole.UserRole) == wid:
                if self.list.currentRow() != i:
                    self.list.setCurrentRow(i)
                return

    def _on_current(self, item, _previous) -> None:
        self._show_selected()
        if item is not None:
            self.model.select(item.data(Qt.ItemDataRole.UserRole), None)

    def _on_item_changed(self, item) -> None:
        wid = item.data(Qt.ItemDataRole.UserRole)
        w = self.model.document.workload(wid)
        visible = item.checkState() == Qt.CheckState.Checked
        if visible != w.visible:
            self.model.set_workload(replace(w, visible=visible),
                                    f"{'Show' if visible else 'Hide'} {w.name}")

    #: A stream of edits of one field (a spin box's arrows held) is one undo step; an edit of
    #: the same field after this pause is a step of its own.
    MERGE_SECONDS = 1.5

    def _on_field(self, name: str, value) -> None:
        w = self.selected
        if w is None or getattr(w, name) == value:
            return
        now = time.monotonic()
        if name != self._last_field or now - self._last_edit > self.MERGE_SECONDS:
            self._serial += 1
            self._last_field = name
        self._last_edit = now
        label = self.fields.label_of(name)
        changed = with_field(w, name, value)  # what a field sets, as a drag sets it
        shown = (f"stage {value}" if name == "zero" else format_si(value, "").strip()
                 if name == "train_tokens" else value or "auto" if name == "global_batch"
                 else value)
        refused = []
        self.model.sig_refused.connect(refused.append)
        try:
            done = self.model.set_workload(changed, f"{w.name}: {label} {shown}",
                                           merge_key=("workload field", self._serial, name))
        finally:
            self.model.sig_refused.disconnect(refused.append)
        # A refused value does not stay in its field: the field shows the workload's own again,
        # and the reason stays under the fields (the status bar's goes after a while).
        self.refused.setText(f"{label} {shown} refused: {self._in_words(refused[0])}"
                             if refused and not done else "")
        if not done:
            self.fields.show_workload(w)

    def _in_words(self, message: str) -> str:
        """A refusal as the fields name things: "Llama-2-7B: Global batch G: 1000 per step is
        not a multiple…", not "1 problem / global_batch: …"."""
        lines = [line.strip() for line in message.splitlines()]
        lines = [line for line in lines if line and not line.rstrip(":").endswith(
            ("problem", "problems"))]
        out = []
        for line in lines:
            for name in FIELD_LABELS:
                line = line.replace(f"{name}: ", f"{self.fields.label_of(name)}: ")
            out.append(line)
        return "; ".join(out)

    def _on_name(self) -> None:
        w = self.selected
        name = self.name.text().strip()
        if w is None or not name or name == w.name:
            self.name.setText(w.name if w else "")
            return
        self.model.set_workload(replace(w, name=name), f"Rename {w.name} to {name}")

    def new_workload(self) -> list[str]:
        dialog = WorkloadDialog(self.model, self)
        if dialog.exec() != QDialog.DialogCode.Accepted or dialog.workload is None:
            return []
        ids = self.model.add_workloads([dialog.workload])
        if ids:
            self.model.select(ids[0], None)
        return ids

    def remove_selected(self, w: Workload | None = None) -> None:
        from roofline_gui.core.edits import Remove  # noqa: PLC0415

        w = w or self.selected
        if w is not None:
            self.model.push(Remove("workloads", w.id), f"Remove workload {w.name}")


class ConfigDialogs:
    """The file dialog of Open config.json…, replaceable in tests."""

    @classmethod
    def open_path(cls, parent: QWidget, folder: str) -> str:
        return QFileDialog.getOpenFileName(parent, "Open a model's config.json", folder,
                                           "Model config (*.json);;All files (*)")[0]


class WorkloadDialog(QDialog):
    """A new workload, previewed live as its source and fields change."""

    CUSTOM = "The session's kernels (counts below)"
    last_folder: Path | None = None  # where a config.json was picked last in this run

    def __init__(self, model: DocumentModel, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New workload")
        self.model = model
        self.workload: Workload | None = None
        self._opened: Workload | None = None  # a config.json read from disk
        self.source = QComboBox()
        for shipped in shipped_workloads().values():
            self.source.addItem(shipped.name, shipped.id)
        self.source.addItem(self.CUSTOM, "custom")
        self.source.currentIndexChanged.connect(self._on_source)
        self.open_button = QPushButton("Open config.json…")
        self.open_button.setToolTip("A Hugging Face-style config.json on disk (nothing is "
                                    "downloaded)")
        self.open_button.clicked.connect(self.open_config)
        top = QHBoxLayout()
        top.addWidget(QLabel("Model"))
        top.addWidget(self.source, 1)
        top.addWidget(self.open_button)
        self.fields = WorkloadFields()
        self.fields.sig_changed.connect(lambda name, value: self._set(**{name: value}))
        self.kernel_counts = QTableWidget(0, 2)
        self.kernel_counts.setHorizontalHeaderLabels(["Kernel", "Count"])
        self.kernel_counts.horizontalHeader().setStretchLastSection(True)
        self.kernel_counts.itemChanged.connect(lambda _i: self._preview())
        self.preview = QTextBrowser()
        self.error = QLabel()
        self.error.setStyleSheet("color: #b00020")
        self.error.setWordWrap(True)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                               | QDialogButtonBox.StandardButton.Cancel)
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        self.ok = box.button(QDialogButtonBox.StandardButton.Ok)
        left = QVBoxLayout()
        left.addLayout(top)
        left.addWidget(self.fields)
        left.addWidget(self.kernel_counts, 10)
        left.addStretch(1)  # the fields stay at the top when the kernel table is hidden
        right = QVBoxLayout()
        right.addWidget(QLabel("Its kernels, with their formulas"))
        right.addWidget(self.preview, 1)
        body = QHBoxLayout()
        body.addLayout(left, 2)
        body.addLayout(right, 3)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(self.error)
        layout.addWidget(box)
        self.resize(1000, 640)
        self._draft: Workload | None = None
        self._on_source()

    def _on_source(self) -> None:
        key = self.source.currentData()
        custom = key == "custom"
        self.kernel_counts.setVisible(custom)
        if custom:
            self._fill_kernels()
            self._draft = Workload("w0", "My workload", "custom", {"entries": []},
                                   source="the session's kernels")
        elif key == "opened" and self._opened is not None:
            self._draft = self._opened
        else:
            self._draft = shipped_workloads()[key].workload("w0")
        self.fields.show_workload(self._draft)
        self._preview()

    def _fill_kernels(self) -> None:
        self.kernel_counts.blockSignals(True)
        self.kernel_counts.setRowCount(0)
        for kernel in self.model.document.kernels:
            if not kernel.has_size:
                continue
            row = self.kernel_counts.rowCount()
            self.kernel_counts.insertRow(row)
            name = QTableWidgetItem(kernel.name)
            name.setData(Qt.ItemDataRole.UserRole, kernel.id)
            name.setFlags(name.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.kernel_counts.setItem(row, 0, name)
            self.kernel_counts.setItem(row, 1, QTableWidgetItem("0"))
            name.setToolTip(kernel.name)
        self.kernel_counts.resizeColumnToContents(0)  # whole names: "batch 1" from "batch 64"
        self.kernel_counts.blockSignals(False)

    @classmethod
    def config_folder(cls) -> Path:
        """Where Open config.json… starts: the folder of the one picked last in this run, else
        beside the model configs that ship with the app (not the folder it was started from)."""
        if cls.last_folder is not None and cls.last_folder.is_dir():
            return cls.last_folder
        return shipped_folder()

    def open_config(self, path: str | None = None) -> bool:
        if not path:
            path = ConfigDialogs.open_path(self, str(self.config_folder()))
            if not path:
                return False
            WorkloadDialog.last_folder = Path(path).parent
        try:
            workload = workload_from_config(path, "w0")
        except RooflineError as exc:
            self.error.setText(str(exc))
            return False
        self._opened = workload
        index = self.source.findData("opened")
        if index < 0:
            self.source.addItem("", "opened")
            index = self.source.count() - 1
        self.source.setItemText(index, f"{workload.name} (opened)")
        self.source.setCurrentIndex(index)
        self._on_source()
        return True

    def _set(self, **changes) -> None:
        if self._draft is not None:
            (name, value), = changes.items()
            self._draft = with_field(self._draft, name, value)
            self.fields.show_workload(self._draft)
            self._preview()

    def _custom_entries(self) -> list[dict] | None:
        """The counts typed, or None (with the reason shown) when one is not a whole number
        from 0 up."""
        entries = []
        for row in range(self.kernel_counts.rowCount()):
            text = self.kernel_counts.item(row, 1).text().strip() or "0"
            name = self.kernel_counts.item(row, 0).text()
            try:
                count = float(text)
            except ValueError:
                count = -1.0
            if count < 0 or count != int(count):
                self.error.setText(f"{name}: the count {text!r} must be a whole number, 0 or more")
                return None
            count = int(count)
            if count > 0:
                entries.append({"kernel": self.kernel_counts.item(row, 0).data(
                    Qt.ItemDataRole.UserRole), "count": count})
        return entries

    def _preview(self) -> None:
        self.error.setText("")
        if self._draft is None:
            return
        if self._draft.kind == "custom":
            entries = self._custom_entries()
            if entries is None:
                self.ok.setEnabled(False)
                self.workload = None
                return
            self._draft = replace(self._draft, spec={"entries": entries})
            if not entries:  # nothing chosen yet: a hint, not an error
                self.ok.setEnabled(False)
                self.workload = None
                self.preview.setHtml("<p>Give a count to one or more of the session's kernels "
                                     "(how many times a step runs each). Template kernels with a "
                                     "batch take the workload's batch.</p>")
                return
        kernels = self.model.document.kernels_by_id
        try:
            build(self._draft, kernels)
        except ValidationError as exc:
            self.error.setText("; ".join(str(p) for p in exc.problems))
            self.ok.setEnabled(False)
            self.preview.setHtml("")
            self.workload = None
            return
        self.ok.setEnabled(True)
        self.workload = self._draft
        self.preview.setHtml(entries_html(self._draft, kernels))


#: A bar's height, in rows of the breakdown's charts (one row per chip).
BAR_HEIGHT = 0.6


def energy_segments(result, chips) -> list:
    """Each chip's energy per step as a bar of parts (core.energy.energy_parts)."""
    from roofline_gui.core.training_view import Part  # noqa: PLC0415

    out = []
    for c in chips:
        parts = energy_parts(result, c)
        total = sum(j for _k, _n, j in parts)
        start = 0.0
        for kind, name, joules in parts:  # each memory level its own part, coloured by role
            out.append(Part(c, start, joules, f"e:{kind}", name, joules / total))
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
        self.measure.addItem("Time per step", "time")
        self.measure.addItem("Energy per step (where it goes)", "energy")
        self.measure.setToolTip("The bars: each chip's step time by kernel (or by part, in "
                                "training), or its energy per chip by where it goes: compute, "
                                "each memory level, the link, idle (docs/energy.md)")
        self.measure.currentIndexChanged.connect(lambda _i: self.refresh())
        self.bars = pg.PlotWidget(background="w")
        self.bars.setMenuEnabled(False)
        self.bars.getViewBox().disableAutoRange()
        self.bars.setLabel("bottom", "time per step", units="s")
        self.bars.getPlotItem().hideButtons()
        # Decade ticks read 1 k, 10 k, 1 m (pyqtgraph's own log axis labels the minor ticks too,
        # which run into each other over a few decades).
        self.sweep = log_plot()
        self.sweep.showGrid(True, True, 0.25)

        # A training step's memory per chip (weights, gradients, optimizer states, activations)
        # against each chip's capacity, under its time bars.
        self.memory = pg.PlotWidget(background="w")  # linear: SIAxis is for log axes
        self.memory.setMenuEnabled(False)
        self.memory.getPlotItem().hideButtons()
        self.memory.getViewBox().setMouseEnabled(False, False)
        self.memory.hide()
        left = QVBoxLayout()
        left.addWidget(self.bars, 3)
        left.addWidget(self.memory, 2)
        charts = QHBoxLayout()
        charts.addLayout(left, 3)
        charts.addWidget(self.sweep, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.measure, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(head)
        layout.addLayout(charts, 1)
        self.segments: list = []  # what the bars show, for checks
        self._bar_items: dict = {}  # kind -> its BarGraphItem, updated in place
        self._segment_labels: list = []
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
        model.sig_document_changed.connect(lambda _d, _t: self._later.request())
        model.sig_selection_changed.connect(lambda _k, _c: self.refresh())
        # Which names fit in their bar depends on the bars' width in pixels.
        self.bars.getViewBox().sigResized.connect(lambda _vb: self._later.request())
        self.refresh()

    @property
    def pending(self) -> bool:
        """Whether a change is still to be shown."""
        return self._later.pending or self._sweep_later.isActive()

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

    def refresh(self) -> None:
        """Bring both charts up to date. A drag step changes the bars' lengths and the sweep's
        marker only: the bar items are updated in place and the axes keep their range unless
        the bars outgrow it (or shrink to under half), so a step repaints bars, not axes."""
        r = self._result()
        if r is None:
            self.bars.clear()
            self._step_marks = None  # cleared with the rest
            self.bars.getAxis("left").setTicks([[]])  # no chip names of another document
            self._bar_items = {}
            self._segment_labels = []
            self.sweep.clear()
            self.memory.clear()
            self.memory.hide()
            self._shown_key = self._chips_shown = None
            problem = self.model.workload_problems.get(self.model.selected_kernel)
            self.title.setText(f"This workload cannot be evaluated: {html.escape(problem)}"
                               if problem else
                               "No workload: Workloads → New Workload… makes one from a model.")
            self.segments = []
            return
        chips = [i for i, c in enumerate(r.chips) if c.visible]
        train = r.training is not None
        energy = self.measure.currentData() == "energy"
        if energy:
            self.segments = energy_segments(r, chips)
        else:
            self.segments = training_view.breakdown(r, chips) if train else breakdown(r, chips)
        self.bars.setLabel("bottom", "energy per chip per step" if energy else "time per step",
                           units="J" if energy else "s")
        unit = r.workload.throughput_unit
        # What the bars do not show: chips that cannot run it, or cannot hold it.
        cannot = [r.chips[c].name for c in chips if not np.isfinite(r.time[c])]
        too_small = [r.chips[c].name for c in chips if np.isfinite(r.time[c])
                     and np.isfinite(r.built.resident_bytes) and not r.fits[c]]
        notes = ""
        if too_small:
            notes += (f" <span style='color:#b00020'>Does not fit in the memory of "
                      f"{html.escape(', '.join(too_small))}</span>: the bars assume it did.")
        if cannot:
            notes += f" No bar: {html.escape(', '.join(cannot))} cannot run it (Why it sits there)."
        if energy:
            title = (f"<b>{html.escape(label_of(r.workload))}</b>: each chip's energy per step by "
                     "where it goes: " + ", ".join(
                         f"<span style='color:{color}'>■</span> {ENERGY_PART_WORDS[name]}"
                         for name, color in ENERGY_PART_COLORS.items())
                     + " (estimates from the board power are upper bounds, held to the board "
                       f"power over the time); right, {unit} as before.{notes}")
        elif train:
            title = (f"<b>{html.escape(label_of(r.workload))}</b>: one step's time per chip by "
                     "part (blue forward, orange backward, purple recompute, green optimizer, "
                     "grey communication, light grey bubble; every kernel at its roof, the parts "
                     "end to end; the black tick: the step with communication hidden); below, "
                     "memory per chip; right, "
                     f"{unit} against the number of chips as data parallelism grows.{notes}")
        else:
            title = (f"<b>{html.escape(label_of(r.workload))}</b>: time per step by kernel, "
                     "coloured by what bounds it (blue memory, orange compute, grey link); "
                     f"right, {unit} against latency as the batch grows.{notes}")
        if self.title.text() != title:
            self.title.setText(title)
        rows = {c: n for n, c in enumerate(chips)}
        names = tuple(r.chips[c].name for c in chips)
        if names != self._chips_shown:
            self.bars.getAxis("left").setTicks([list(enumerate(names))])
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
        self.bars.setToolTip("\n".join(self._bar_tip(r, c, energy) for c in chips))
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

    def _bar_tip(self, r, c: int, energy: bool) -> str:
        """One chip's bar in words: its step's time (or energy) and every part of 0.5 % or more;
        said so where the chip cannot run the workload or has no energy data."""
        total = float(r.energy.per_step[c]) if energy else float(r.time[c])
        if not np.isfinite(total):
            return f"{r.chips[c].name}: " + ("no energy data" if energy else "cannot run it")
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
            self._step_marks = pg.ScatterPlotItem(symbol="|", size=22,
                                                  pen=pg.mkPen("k", width=2.5))
            self._step_marks.setZValue(5)
            self.bars.addItem(self._step_marks, ignoreBounds=True)
        shown = [(float(r.time[c]), rows[c]) for c in chips if r.training is not None
                 and np.isfinite(r.time[c]) and r.time[c] < r.time_no_overlap[c] * 0.999]
        self._step_marks.setData([t for t, _y in shown], [y for _t, y in shown])
        self._step_marks.setToolTip("the step at its lower bound: communication hidden behind "
                                    "compute" if shown else "")

    @staticmethod
    def _sweep_key(w: Workload) -> Workload:
        """What the sweep depends on: all but the batch (inference), all but the data-parallel
        degree and the global batch it scales (training: each replica's share is kept)."""
        if w.training:
            return replace(w, data_parallel=1, global_batch=w.sequences_per_step // w.data_parallel)
        return replace(w, batch=1)

    def _draw_memory(self, r, chips, names) -> None:
        """A training step's bytes per chip, stacked by part, with each chip's capacity."""
        self.memory.setVisible(r.training is not None)
        self.memory.clear()
        if r.training is None:
            return
        parts = training_view.memory_parts(r)
        rows = list(range(len(chips)))
        start = 0.0
        for name, size in parts:
            if size <= 0:
                continue
            bar = pg.BarGraphItem(x0=[start] * len(rows), y=rows, width=[size] * len(rows),
                                  height=BAR_HEIGHT, brush=training_view.MEMORY_COLORS[name],
                                  pen=pg.mkPen("w", width=1), name=name)
            bar.setToolTip(f"{name}: {format_si(size, 'B')} per chip")
            self.memory.addItem(bar)
            start += size
        caps = [float(r.capacity[c]) for c in chips]
        known = [(y, cap) for y, cap in zip(rows, caps, strict=True) if np.isfinite(cap)]
        if known:
            held = start
            self.memory.addItem(pg.ScatterPlotItem(
                [cap for _y, cap in known], [y for y, _cap in known], symbol="|", size=26,
                pen=pg.mkPen("#b00020", width=3),
                brush=[pg.mkBrush("#b00020") for _ in known]))
            top = max([start, *[cap for _y, cap in known]]) * 1.45
            for y, cap in known:  # rows are a few pixels high: words only where it does not fit
                if held > cap:
                    text = pg.TextItem(f"does not fit in {format_si(cap, 'B')}", color="#b00020",
                                       anchor=(1, 0.5))
                    text.setPos(top, y)
                    self.memory.addItem(text)
        key = ", ".join(f"<span style='color:{training_view.MEMORY_COLORS[name]}'>■</span> {name}"
                        for name, size in parts if size > 0)
        self.memory.setLabel("bottom", f"per chip {format_si(start, 'B')}: {key}; "
                             "<span style='color:#b00020'>|</span> capacity", units="B")
        self.memory.getAxis("left").setTicks([list(enumerate(names))])
        self.memory.getViewBox().invertY(True)
        top = max([start, *[cap for _y, cap in known]]) * 1.45
        self.memory.setXRange(0, top, padding=0)
        self.memory.setYRange(-0.6, len(chips) - 0.4, padding=0)
        self.memory.setToolTip("Memory per chip: " + ", ".join(
            f"{name} {format_si(size, 'B')}" for name, size in parts)
            + f" = {format_si(start, 'B')}; the red mark is each chip's capacity")

    def _fit_x(self, times: list[float]) -> None:
        """The time axis holds the longest bar; it keeps its range while the bars stay between
        70% and 100% of it (a drag step then repaints bars, not axes)."""
        if times:
            top = max(times) * 1.05
            if not self._x_top or top > self._x_top or top < 0.7 * self._x_top:
                self._x_top = top
                self.bars.setXRange(-0.01 * top, top, padding=0)

    def _label_segments(self, rows: dict[int, int]) -> None:
        """Name the segments wide enough for their name inside their bar (every one is in the
        tooltip), measured against the axis as it now is: placed before the axis followed the
        bars, the names of a step that shrank the axis were judged against the old, wider
        range and left out."""
        for item in self._segment_labels:
            self.bars.removeItem(item)
        self._segment_labels = []
        px_per_s = max(self.bars.getViewBox().width(), 100.0) / (self._x_top or 1.0)
        metrics = QFontMetricsF(QFont())
        char = metrics.averageCharWidth()
        # in a short dock (1280 x 800) the names overran the bars' height
        bar_px = BAR_HEIGHT * self.bars.getViewBox().height() / max(len(rows), 1)
        if bar_px < 0.75 * metrics.height():  # (a little over the bar still reads)
            return
        for seg in self.segments:
            words = f"{seg.name.split(' (')[0]} {100 * seg.share:.0f}%"
            if seg.width * px_per_s > len(words) * char + 24:  # only where it fits in its bar
                text = pg.TextItem(words, color="w", anchor=(0.5, 0.5))
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
        unit = r.workload.throughput_unit
        self.sweep.setLabel("bottom", "chips, d doubling (hollow: link-bound)")
        self.sweep.setLabel("left", unit)
        xs = np.array([s.training.chips for s in sweep], dtype=float)
        for j, c in enumerate(chips):
            thr = np.array([s.throughput[j] for s in sweep])
            ok = np.isfinite(thr)
            if not ok.any():
                continue
            color = r.chips[c].color or "#808080"
            comm = np.array([s.link_time[j] > s.kernel_time[j] for s in sweep])
            self.sweep.plot(xs[ok], thr[ok], pen=pg.mkPen(color, width=2), name=r.chips[c].name)
            for mask, brush in ((ok & ~comm, color), (ok & comm, "w")):
                if mask.any():
                    self.sweep.plot(xs[mask], thr[mask], pen=None, symbol="o", symbolSize=6,
                                    symbolBrush=brush, symbolPen=color)
            first = int(np.argmax(ok))
            ideal = thr[first] * xs / xs[first]
            self.sweep.plot(xs[ok], ideal[ok], pen=pg.mkPen(color, width=1,
                                                            style=Qt.PenStyle.DotLine))
        self._marker = pg.ScatterPlotItem(size=14, pen=pg.mkPen("k", width=2),
                                          brush=pg.mkBrush(None))
        self.sweep.getViewBox().autoRange(padding=0.08)
        self.sweep.getViewBox().disableAutoRange()
        self.sweep.addItem(self._marker, ignoreBounds=True)

    def _draw_sweep(self, r, chips) -> None:
        self.sweep.clear()
        if r.training is not None:
            self._draw_scaling(r, chips)
            return
        sweep = batch_sweep(r.workload, [r.chips[c] for c in chips], SWEEP_BATCHES,
                            derated=r.evaluation.derated, kernels=r.kernels)
        self._sweep = sweep
        # Each chip in its colour, as on the chart and in the bars (no legend over the curves).
        self.sweep.setLabel("bottom", f"{r.workload.throughput_unit} (dashed: does not fit)")
        self.sweep.setLabel("left", "s per step")
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
        self._marker = pg.ScatterPlotItem(size=14, pen=pg.mkPen("k", width=2),
                                          brush=pg.mkBrush(None))
        # The range fits the sweep's lines once; the marker moving along them changes no range
        # (so a drag step repaints the marker, not the axes).
        self.sweep.getViewBox().autoRange(padding=0.08)
        self.sweep.getViewBox().disableAutoRange()
        self.sweep.addItem(self._marker, ignoreBounds=True)

    def _mark_batch(self, r, chips) -> None:
        if r.training is not None:  # the step as it is: its chips and its tokens per second
            ys = [float(np.log10(r.throughput[c])) for c in chips if np.isfinite(r.throughput[c])]
            self._marker.setData([float(np.log10(r.training.chips))] * len(ys), ys)
            self._marker.setToolTip(f"d = {r.workload.data_parallel}: {r.training.chips:,} chips")
            return
        xs = [float(np.log10(r.throughput[c])) for c in chips if np.isfinite(r.throughput[c])]
        ys = [float(np.log10(r.time[c])) for c in chips if np.isfinite(r.time[c])]
        self._marker.setData(xs, ys)
        self._marker.setToolTip(f"batch {r.workload.batch}")
