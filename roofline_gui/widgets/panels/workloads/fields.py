"""The fields of a workload (phase, batch, sequence or context, precisions and formats, chips
per model and their link, a mixture of experts' parallelism and imbalance, and a training step's
settings), shared by the Workloads panel and the New Workload
dialog; each field refuses what cannot be, in place."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QWidget,
)

from roofline_gui.core.errors import RooflineError
from roofline_gui.core.families import read_config
from roofline_gui.core.i18n import N_, _
from roofline_gui.core.units import FORMAT_WORDS, FORMATS
from roofline_gui.core.workload import (
    LINK_ROLES,
    MAX_DIM,
    ON_CHIP_KINDS,
    TRAIN_KINDS,
    Workload,
)
from roofline_gui.widgets.common.application import set_tip
from roofline_gui.widgets.common.fields import QuantityEdit
from roofline_gui.widgets.common.wheel import guard_wheel_in

#: Characters a choice box keeps room for however narrow the form ("fp8_e4m3", "1: optimizer").
COMBO_CHARS = 8

_INT_FIELDS = (("batch", N_("Batch B"), N_("sequences (or images, samples) per step")),
               ("sequence", N_("Sequence S"), N_("prompt tokens per sequence, for prefill")),
               ("context", N_("Context L"), N_("tokens already in the KV cache, for decode")),
               ("chips_per_model", N_("Chips N"), N_("chips sharing the model (tensor parallelism)")))
_PRECISION_FIELDS = (("weights", N_("Weights")), ("activations", N_("Activations, math")),
                     ("kv_cache", N_("KV cache")))
#: A training step's fields (phase train): (name, label, tooltip).
_TRAIN_INTS = (("global_batch", N_("Global batch G"), N_("sequences (images) per optimizer step, over "
                "all replicas; auto: micro-batch × data parallel (no gradient accumulation)")),
               ("data_parallel", N_("Data parallel d"), N_("replicas, each on t·p chips; the gradients "
                "are all-reduced once per step")),
               ("pipeline_parallel", N_("Pipeline p"), N_("pipeline stages (1F1B): each chip holds L/p "
                "layers; the bubble idles (p−1)/m of the step")))
_TRAIN_CHOICES = (("zero", N_("ZeRO"), [(N_("0: none"), 0), (N_("1: optimizer states"), 1),
                                    (N_("2: + gradients"), 2), (N_("3: + weights"), 3)],
                   N_("ZeRO stage: which model states are divided by d (Rajbhandari et al. 2020)")),
                  ("recompute", N_("Recompute"), [(N_("none"), "none"),
                                                  (N_("selective"), "selective"),
                                                  (N_("full"), "full")],
                   N_("activation recomputation: selective recomputes the attention core "
                   "(Korthikanti et al. 2022), full one more forward of every layer")),
                  ("optimizer", N_("Optimizer"), [(N_("Adam"), "adam"), (N_("SGD, momentum"), "sgd")],
                   N_("Adam keeps fp32 master weights, momentum and variance (12 B per parameter "
                   "in mixed precision); SGD master weights and momentum (8 B)")))
#: Fields by the names the window gives them (the undo history says "Chips N 4").
FIELD_LABELS = {**{name: label for name, label, _tip in _INT_FIELDS}, **dict(_PRECISION_FIELDS),
                **{name: label for name, label, _tip in _TRAIN_INTS},
                **{name: label for name, label, _items, _tip in _TRAIN_CHOICES},
                "train_tokens": N_("Tokens D"), "phase": N_("Phase"), "link": N_("Chips joined by"),
                "activations_on_chip": N_("activations on chip"), "expert_parallel": N_("Experts over e"),
                "moe_imbalance": N_("Imbalance"), "attention_data_parallel": N_("attention data parallel"),
                "mtp": N_("MTP module")}


def _config(w: Workload):
    """A transformer workload's model as the builder reads it (None where it cannot be read):
    whether it has experts, a multi-token prediction module."""
    if w.kind != "transformer":
        return None
    try:
        return read_config(w.spec, "spec")
    except RooflineError:
        return None


class DoublingSpinBox(QSpinBox):
    """Its arrows double and halve (1, 2, 4, 8...): chip counts that split a model's heads;
    any other number can still be typed."""

    def stepBy(self, steps: int) -> None:  # noqa: N802 (Qt API)
        value = self.value()
        for _step in range(abs(steps)):
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
        set_tip(self.phase, _("prefill: the prompt's S tokens at once; decode: one new token per "
                              "sequence against a KV cache of L; train: one optimizer step "
                              "(forward, backward, optimizer) over the global batch"))
        self.phase.activated.connect(
            lambda i: self.sig_changed.emit("phase", self.phase.itemData(i)))
        self._phase_kind = None
        self.spins: dict[str, QSpinBox] = {}
        for name, _label, tip in _INT_FIELDS:
            spin = DoublingSpinBox() if name == "chips_per_model" else QSpinBox()
            spin.setRange(1, MAX_DIM)
            set_tip(spin, _(tip))
            spin.setKeyboardTracking(False)  # one edit per value typed, not per digit
            spin.valueChanged.connect(lambda v, n=name: self.sig_changed.emit(n, int(v)))
            self.spins[name] = spin
        self.combos: dict[str, QComboBox] = {}
        for name, _label in _PRECISION_FIELDS:
            combo = QComboBox()
            combo.addItems(list(FORMATS))
            for i, fmt in enumerate(FORMATS):  # block-scaled formats say what their bits are
                if fmt in FORMAT_WORDS:
                    combo.setItemData(i, _(FORMAT_WORDS[fmt]), Qt.ItemDataRole.ToolTipRole)
            combo.currentTextChanged.connect(lambda t, n=name: self.sig_changed.emit(n, t))
            self.combos[name] = combo
        # A mixture of experts: the chips the routed experts spread over, and how uneven routing is
        spin = DoublingSpinBox()
        spin.setRange(1, MAX_DIM)
        spin.setKeyboardTracking(False)
        set_tip(spin, _("expert parallelism: of the N chips, how many the routed experts are "
                        "spread over (E/e whole experts each, split N/e ways); their tokens go "
                        "all-to-all. A divisor of N and of the experts"))
        spin.valueChanged.connect(lambda v: self.sig_changed.emit("expert_parallel", int(v)))
        self.spins["expert_parallel"] = spin
        self.imbalance = QDoubleSpinBox()
        self.imbalance.setRange(1.0, 100.0)
        self.imbalance.setDecimals(2)
        self.imbalance.setSingleStep(0.1)
        self.imbalance.setKeyboardTracking(False)
        set_tip(self.imbalance, _("routing is never perfectly even: the busiest expert-parallel "
                                  "chip is sent this many times the mean (its ops, its experts' "
                                  "weights and its all-to-all); 1: perfectly even"))
        self.imbalance.valueChanged.connect(
            lambda v: self.sig_changed.emit("moe_imbalance", round(float(v), 2)))
        for name, _label, tip in _TRAIN_INTS:
            spin = QSpinBox() if name == "global_batch" else DoublingSpinBox()
            spin.setRange(0 if name == "global_batch" else 1, 10**9 if name == "global_batch"
                          else MAX_DIM)
            if name == "global_batch":
                spin.setSpecialValueText(_("auto (b·d)"))
            set_tip(spin, _(tip))
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(lambda v, n=name: self.sig_changed.emit(n, int(v)))
            self.spins[name] = spin
        for name, _label, items, tip in _TRAIN_CHOICES:
            combo = QComboBox()
            for text, value in items:
                combo.addItem(_(text), value)
            set_tip(combo, _(tip))
            combo.activated.connect(lambda i, n=name, c=combo: self.sig_changed.emit(n, c.itemData(i)))
            self.combos[name] = combo
        self.tokens = QuantityEdit("count", minimum=0.0, bound=True)
        set_tip(self.tokens, _("Training tokens (images) of the whole run, for its days and "
                               "chip-hours: 2T, 300e9, 1.4e12; 0: no run"))
        self.tokens.sig_value_committed.connect(
            lambda v: self.sig_changed.emit("train_tokens", float(v or 0.0)))
        self.tokens.sig_error_changed.connect(
            lambda why: self.sig_refused.emit(f"{self.label_of('train_tokens')}: {why}"
                                              if why else ""))
        self.link = QComboBox()
        # What each role is, in the words of the chips' levels: "link / host" alone told a new
        # user nothing (the tour)
        # user nothing (the tour); the box says it in a word or two (at 1280×800 it read
        # "chip-to-chip (NVLi"), each choice's tooltip and the box's name the links
        for role, words, tip in (
                ("link", _("chip-to-chip"), _("NVLink, ICI, Infinity Fabric: the chips' own links")),
                ("host", _("host (PCIe)"), _("Through the host, over each chip's PCIe link"))):
            if role in LINK_ROLES:
                self.link.addItem(words, role)
                self.link.setItemData(self.link.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        set_tip(self.link, _("What carries the traffic between the N chips that share the "
                               "model (tensor parallelism's all-reduce, a training step's "
                               "gradients), at that link's bandwidth on each chip: chip-to-chip "
                               "(NVLink, ICI, Infinity Fabric) or through the host (PCIe)"))
        self.link.activated.connect(lambda i: self.sig_changed.emit("link", self.link.itemData(i)))
        labels = {name: _(label) for name, label, _tip in _INT_FIELDS}
        labels.update({name: _(label) for name, label in _PRECISION_FIELDS})
        # Sequence (prefill) and context (decode) share a cell: one of them is shown.
        rows = [((_("Phase"), self.phase), (_("Batch B"), self.spins["batch"])),
                ((_("Chips joined by"), self.link), (labels["sequence"], self.spins["sequence"])),
                (None, (labels["context"], self.spins["context"])),
                ((_("Weights"), self.combos["weights"]), (_("Math"), self.combos["activations"])),
                ((_("KV cache"), self.combos["kv_cache"]), (_("Chips N"), self.spins["chips_per_model"])),
                ((_("Global batch G"), self.spins["global_batch"]),
                 (_("Data parallel d"), self.spins["data_parallel"])),
                ((_("Pipeline p"), self.spins["pipeline_parallel"]), (_("ZeRO"), self.combos["zero"])),
                ((_("Recompute"), self.combos["recompute"]), (_("Optimizer"), self.combos["optimizer"])),
                ((_("Tokens D"), self.tokens), None),
                ((_("Experts over e"), self.spins["expert_parallel"]),
                 (_("Imbalance"), self.imbalance))]
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
        set_tip(self._labels[self.link], self.link.toolTip())  # the label's words explained
        set_tip(self.combos["activations"], _("Precision of activations and of the math: the "
                                              "compute roof used"))
        self.on_chip = QCheckBox(_("Activations on chip"))
        set_tip(self.on_chip, _("Activations stay in the chip's on-chip level between layers, as "
                                "in the TPU v1's 24 MiB Unified Buffer: only the weights cross "
                                "main memory (its roofline counts ops per weight byte), the "
                                "activations move at the on-chip level"))
        self.on_chip.toggled.connect(lambda on: self.sig_changed.emit("activations_on_chip", on))
        grid.addWidget(self.on_chip, len(rows), 0, 1, 4)
        guard_wheel_in(self)  # a wheel over the fields scrolls them
        self.attention_dp = QCheckBox(_("Attention data parallel"))
        set_tip(self.attention_dp,
            _("Each of the N chips runs the attention of B/N sequences with every head, its "
            "weights whole on each chip, instead of every sequence with H/N heads: a latent "
            "attention's one cache (DeepSeek's MLA) is then split by sequence, not copied to "
            "every chip"))
        self.attention_dp.toggled.connect(
            lambda on: self.sig_changed.emit("attention_data_parallel", on))
        grid.addWidget(self.attention_dp, len(rows) + 1, 0, 1, 2)
        self.mtp = QCheckBox(_("MTP module"))
        set_tip(self.mtp, _("DeepSeek: hold its multi-token prediction module beside the model "
                            "(about 14 B parameters more), as speculative decoding's draft uses "
                            "it; off, as the published parameter count has it"))
        self.mtp.toggled.connect(lambda on: self.sig_changed.emit("mtp", on))
        grid.addWidget(self.mtp, len(rows) + 1, 2, 1, 2)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        # A choice's longest words ("SGD, momentum", "chip-to-chip (NVLink, ICI)") no longer set
        # the form's width: at 1280×800 the second column's fields were cut off on the right (the
        # sixth tour). Each box is as wide as its column gives it, the whole text in its list.
        for combo in (self.phase, self.link, *self.combos.values()):
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(COMBO_CHARS)
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
            for phase, words in (("decode", N_("decode")), ("prefill", N_("prefill")),
                                 ("train", N_("train"))):
                self.phase.addItem(_(words), phase)
        else:
            self.phase.addItem(_("inference"), "decode")
            self.phase.addItem(_("train"), "train")

    def label_of(self, name: str) -> str:
        """A field's label as shown now ("Tensor par. t" in training, "Chips N" otherwise)."""
        widget = self.spins.get(name) or self.combos.get(name) or (
            self.tokens if name == "train_tokens" else None)
        label = self._labels.get(widget) if widget is not None else None
        return label.text() if label is not None else _(FIELD_LABELS.get(name, name))

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
        widgets = [self.phase, self.link, self.on_chip, self.imbalance, self.attention_dp, self.mtp,
                   *self.spins.values(),
                   *self.combos.values()]
        for widget in widgets:
            widget.blockSignals(True)
        try:
            self._phases(w.kind)
            self.phase.setCurrentIndex(max(0, self.phase.findData(
                "train" if w.phase == "train" else w.phase if w.kind == "transformer"
                else "decode")))
            self.link.setCurrentIndex(max(0, self.link.findData(w.link)))
            for name, spin in self.spins.items():
                spin.setValue(getattr(w, name))
            for name, combo in self.combos.items():
                index = combo.findData(getattr(w, name))
                combo.setCurrentIndex(index if index >= 0 else combo.findText(getattr(w, name)))
            self.on_chip.setChecked(w.activations_on_chip)
            self.imbalance.setValue(w.moe_imbalance)
            self.attention_dp.setChecked(w.attention_data_parallel)
            self.mtp.setChecked(w.mtp)
            if not self.tokens.hasFocus():
                self.tokens.set_value(w.train_tokens)
        finally:
            for widget in widgets:
                widget.blockSignals(False)
        transformer = w.kind == "transformer"
        train = w.training
        cfg = _config(w)
        moe = cfg is not None and cfg.moe
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
                              (self.tokens, train),
                              (self.spins["expert_parallel"], moe),
                              (self.imbalance, moe)):
            widget.setVisible(shown)
            self._labels[widget].setVisible(shown)
        self._arrange(train)
        # In training the batch is each replica's micro-batch, the chips sharing the model the
        # tensor-parallel degree and the math's precision the training precision.
        self._labels[self.spins["batch"]].setText(_("Micro-batch b") if train else _("Batch B"))
        self._labels[self.spins["chips_per_model"]].setText(_("Tensor par. t") if train else _("Chips N"))
        self._labels[self.combos["activations"]].setText(_("Precision") if train else _("Math"))
        self._labels[self.tokens].setText({"cnn": _("Images D"), "mlp": _("Samples D")}.get(
            w.kind, _("Tokens D")))
        set_tip(self.spins["chips_per_model"],
            _("tensor parallelism: chips sharing every matrix (a divisor of the heads)") if train
            else _("chips sharing the model (tensor parallelism)"))
        set_tip(self.combos["activations"],
            _("the training precision: matmuls, activations, gradients and the weights' working "
            "copy; below fp32 the optimizer keeps fp32 master weights") if train else
            _("Precision of activations and of the math: the compute roof used"))
        self.on_chip.setVisible(w.kind in ON_CHIP_KINDS and not train)
        self.attention_dp.setVisible(transformer and not train and
                                     (w.chips_per_model > 1 or w.attention_data_parallel))
        self.mtp.setVisible(transformer and (w.mtp or (cfg is not None and cfg.mtp_layers > 0)))
