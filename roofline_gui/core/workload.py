"""Workloads: a whole model as an ordered list of kernels with repeat counts.

A workload is a recipe: a generator (``kind``), its model description (``spec``: a Hugging
Face-style ``config.json`` for a transformer, a layer list for a CNN, widths for an MLP, sizes for
an LSTM, kernel ids and counts for a custom workload) and the workload-level parameters that
bind into every kernel: batch B, prefill sequence S or decode KV-cache length L, the precisions
of weights, activations and KV cache, and the number of chips N that share the model (tensor
parallelism over one of the chip's link levels). :func:`build` turns it into entries (a sized
kernel per layer type with its count and its formula with the numbers filled in);
:mod:`roofline_gui.core.workload_eval` evaluates them on chips.

Conventions, as the kernel templates have them: ops count every add and multiply (1 MAC = 2 ops);
bytes are compulsory main-memory traffic (every weight read once per step, activations read
and written once between kernels, as if each kernel were fused and caches were perfect).
Every number here is derived from the spec; the formulas are shown to the user as written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from roofline_gui.core.errors import Problem
from roofline_gui.core.i18n import N_, _, listed
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.units import BLOCK_FORMATS, FORMATS

KINDS = ("transformer", "cnn", "mlp", "lstm", "custom")
PHASES = ("prefill", "decode", "train")
#: each phase as the interface says it
PHASE_WORDS = {"prefill": N_("prefill"), "decode": N_("decode"), "train": N_("train")}
#: Kinds that can be trained (a training step: forward, backward, optimizer; core.training).
TRAIN_KINDS = ("transformer", "cnn", "mlp")
#: What one unit of throughput is, per kind (transformer: tokens, per phase below).
UNITS = {"transformer": "tokens", "cnn": "images", "mlp": "samples", "lstm": "samples",
         "custom": "runs"}
#: the throughput units as the views show them (translated there; files and CSVs keep these)
UNIT_WORDS = (N_("tokens/s"), N_("images/s"), N_("samples/s"), N_("runs/s"))
#: Memory roles that can join the chips of one model.
LINK_ROLES = ("link", "host")
MAX_DIM = 10**7
MAX_COUNT = 10**9
#: A training step's settings (core.training builds the step from them).
RECOMPUTE = ("none", "selective", "full")
OPTIMIZERS = ("adam", "sgd")
ZERO_STAGES = (0, 1, 2, 3)


#: Kinds whose activations can stay on chip (Workload.activations_on_chip).
ON_CHIP_KINDS = ("cnn", "mlp", "lstm")

@dataclass(frozen=True)
class Workload:
    id: str
    name: str
    kind: str
    spec: Mapping[str, Any]
    phase: str = "decode"
    batch: int = 1
    sequence: int = 2048  # prefill: prompt tokens per sequence (S)
    context: int = 2048  # decode: tokens already in the KV cache (L)
    weights: str = "bf16"
    activations: str = "bf16"
    kv_cache: str = "bf16"
    chips_per_model: int = 1
    link: str = "link"
    #: e: of the N chips that share the model, how many the routed experts are spread over
    #: (each holds E/e of them, split N/e ways); 1: every expert split over all N
    expert_parallel: int = 1
    #: how much more than the mean the busiest expert-parallel chip is sent (routing is never
    #: perfectly even); 1: perfectly even
    moe_imbalance: float = 1.0
    #: attention data parallel: each of the N chips runs the attention of B/N sequences with
    #: every head (for latent attention, whose one cache tensor parallelism cannot split)
    attention_data_parallel: bool = False
    #: DeepSeek: hold (and count) its multi-token prediction module beside the model, as the
    #: draft of speculative decoding uses it
    mtp: bool = False
    # -- serving (core.serving; the Serving view): a transformer's requests as a server sees them
    input_tokens: int = 1000  # I: prompt tokens per request (a mean)
    output_tokens: int = 1000  # O: output tokens per request (a mean)
    tpot_limit: float = 0.0  # s per output token; 0: no limit
    ttft_limit: float = 0.0  # s to the first token; 0: no limit
    draft_tokens: int = 0  # speculative decoding: tokens drafted per step (0: off)
    acceptance: float = 0.0  # each drafted token's acceptance rate, in [0, 1)
    #: disaggregated serving: chips that prefill and chips that decode, each pool a multiple of
    #: chips_per_model, the KV cache moved between them over the link level (0, 0: both on one)
    prefill_chips: int = 0
    decode_chips: int = 0
    source: str = ""
    visible: bool = True
    #: CNN, MLP and LSTM: activations kept on chip across layers (the TPU v1's Unified Buffer),
    #: so only the weights cross main memory and the activations move at the on-chip level
    activations_on_chip: bool = False
    # -- a training step (phase "train"; core.training): ``batch`` is the micro-batch per replica
    global_batch: int = 0  # G: sequences (images) per optimizer step; 0: batch · data_parallel
    data_parallel: int = 1  # d
    pipeline_parallel: int = 1  # p (chips_per_model is the tensor-parallel degree t)
    zero: int = 0  # ZeRO stage 0-3
    recompute: str = "none"  # none, selective, full
    optimizer: str = "adam"  # adam, sgd
    train_tokens: float = 0.0  # D: tokens (images) of the whole run, for days and chip-hours

    @property
    def training(self) -> bool:
        return self.phase == "train" and self.kind in TRAIN_KINDS

    @property
    def sequences_per_step(self) -> int:
        """G: what one optimizer step takes over all replicas."""
        return self.global_batch or self.batch * self.data_parallel

    @property
    def micro_batches(self) -> int:
        """m: micro-batches each replica runs per step (gradient accumulation)."""
        return max(1, self.sequences_per_step // (self.batch * self.data_parallel))

    @property
    def chips_total(self) -> int:
        """Chips one step runs on: d · t · p in training, the N that share the model otherwise."""
        if self.training:
            return self.data_parallel * self.chips_per_model * self.pipeline_parallel
        return self.chips_per_model

    @property
    def throughput_unit(self) -> str:
        return f"{UNITS[self.kind]}/s"

    def tokens(self) -> int:
        """Items one step processes: tokens for a transformer (B in decode, B·S in prefill),
        else the batch."""
        if self.kind == "transformer" and self.phase in ("prefill", "train"):
            return self.batch * self.sequence
        return self.batch

    def per_step_items(self) -> int:
        """What the throughput counts per step: prefill tokens, decode tokens (one per
        sequence), images or samples of the batch, or 1 run; in training, the tokens (images)
        of the global batch on all chips."""
        if self.training:
            return self.sequences_per_step * (self.sequence if self.kind == "transformer" else 1)
        return 1 if self.kind == "custom" else self.tokens()

    def problems(self) -> list[Problem]:
        """What is wrong with the workload-level parameters (the spec is checked by build)."""
        out = []
        if self.kind not in KINDS:
            out.append(Problem("kind", _("unknown kind {kind}; use one of {kinds}").format(
                kind=repr(self.kind), kinds=", ".join(KINDS))))
        if self.kind == "transformer" and self.phase not in PHASES:
            out.append(Problem("phase", _("must be prefill, decode or train, not {phase}").format(
                phase=repr(self.phase))))
        if self.phase == "train" and self.kind not in TRAIN_KINDS:
            out.append(Problem("phase", _("a {kind} workload cannot be trained here: training is "
                                          "modelled for transformer, CNN and MLP workloads").format(
                kind=self.kind)))
        if self.training:
            out.extend(self._training_problems())
        if self.activations_on_chip and self.kind not in ON_CHIP_KINDS:
            out.append(Problem("activations_on_chip", _("applies to CNN, MLP and LSTM workloads (a "
                                                 "transformer's KV cache and activations live in "
                                                 "main memory)")))
        for name in ("batch", "sequence", "context", "chips_per_model"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                out.append(Problem(name, _("must be a positive whole number, not {value}").format(
                    value=repr(value))))
            elif value > MAX_DIM:
                out.append(Problem(name, _("{value} is beyond the plausible maximum {maximum}").format(
                    value=value, maximum=MAX_DIM)))
        for name in ("weights", "activations", "kv_cache"):
            if getattr(self, name) not in FORMATS:
                out.append(Problem(name, _("unknown precision or format {value}; use one of "
                                           "{formats}").format(value=repr(getattr(self, name)),
                                                               formats=", ".join(FORMATS))))
        e = self.expert_parallel
        if isinstance(e, bool) or not isinstance(e, int) or not 1 <= e <= MAX_DIM:
            out.append(Problem("expert_parallel", _("must be a whole number of chips from 1, not "
                                                    "{value}").format(value=repr(e))))
        out.extend(serving_problems(self))
        if not isinstance(self.mtp, bool):
            out.append(Problem("mtp", _("must be true or false")))
        if not isinstance(self.attention_data_parallel, bool):
            out.append(Problem("attention_data_parallel", _("must be true or false")))
        elif self.attention_data_parallel and self.kind != "transformer":
            out.append(Problem("attention_data_parallel", _("applies to a transformer's attention")))
        f = self.moe_imbalance
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not 1 <= f <= 100:
            out.append(Problem("moe_imbalance", _("must be a number from 1 (perfectly even routing) "
                                                  "to 100, not {value}").format(value=repr(f))))
        if self.link not in LINK_ROLES:
            out.append(Problem("link", _("must be one of {roles}, not {value}").format(
                roles=", ".join(LINK_ROLES), value=repr(self.link))))
        return out

    def _training_problems(self) -> list[Problem]:
        out = []
        for name in ("data_parallel", "pipeline_parallel"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DIM:
                out.append(Problem(name, _("must be a whole number from 1 to {maximum}, not {value}").format(
                    maximum=MAX_DIM, value=repr(value))))
        g = self.global_batch
        if isinstance(g, bool) or not isinstance(g, int) or not 0 <= g <= 10**9:
            out.append(Problem("global_batch", _("must be a whole number of sequences (0: micro-batch "
                                                 "× data parallel), not {value}").format(
                value=repr(g))))
        elif g and not out and isinstance(self.batch, int) and self.batch >= 1 and (
                g % (self.batch * self.data_parallel)):
            out.append(Problem("global_batch", _("{value} per step is not a multiple of micro-batch × "
                                                 "data parallel = {batch}·{d} = {product}").format(
                value=g, batch=self.batch, d=self.data_parallel,
                product=self.batch * self.data_parallel)))
        if self.zero not in ZERO_STAGES or isinstance(self.zero, bool):
            out.append(Problem("zero", _("ZeRO stage {value}: one of 0, 1, 2, 3").format(
                value=repr(self.zero))))
        if self.recompute not in RECOMPUTE:
            out.append(Problem("recompute", _("{value}: one of {choices}").format(
                value=repr(self.recompute), choices=", ".join(RECOMPUTE))))
        elif self.recompute == "selective" and self.kind != "transformer":
            out.append(Problem("recompute", _("selective recomputation recomputes a transformer's "
                                              "attention; a CNN or MLP takes none or full")))
        if self.activations in ("int8", "int4", "fp64", "fp6", "fp4", *BLOCK_FORMATS):
            out.append(Problem("activations", _("training in {precision} is not modelled: train in "
                                                "fp32, tf32, bf16, fp16 or fp8").format(
                precision=self.activations)))
        if self.optimizer not in OPTIMIZERS:
            out.append(Problem("optimizer", _("{value}: one of {choices}").format(
                value=repr(self.optimizer), choices=", ".join(OPTIMIZERS))))
        t = self.train_tokens
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t < 1e18:
            out.append(Problem("train_tokens", _("must be a number of tokens from 0 (no run) up, not "
                                                 "{value}").format(value=repr(t))))
        return out


@dataclass(frozen=True)
class MeasuredServing:
    """A published or measured serving point: one chip's output tokens/s at a speed per user
    (a session keeps them, drawn against their chip's serving bound)."""

    chip: str  # the chip's name or preset id, as the file gives it
    per_user: float  # tokens/s per user
    per_chip: float  # output tokens/s per chip
    source: str = ""


#: A workload's serving settings (the Serving view's): no decode step, prefill or training step
#: depends on them.
SERVING_FIELDS = ("input_tokens", "output_tokens", "tpot_limit", "ttft_limit", "draft_tokens",
                  "acceptance", "prefill_chips", "decode_chips")
_NO_SERVING = dict.fromkeys(SERVING_FIELDS, None)


def serving_only(old: Sequence[Workload], new: Sequence[Workload]) -> bool:
    """Whether ``new`` differs from ``old`` (a document's workloads before and after an edit)
    in their serving settings alone: every view but the Serving view's shows the same then."""
    return len(old) == len(new) and any(a is not b for a, b in zip(old, new, strict=True)) and all(
        a is b or replace(a, **_NO_SERVING) == replace(b, **_NO_SERVING)
        for a, b in zip(old, new, strict=True))


def serving_problems(s: Any) -> list[Problem]:
    """What is wrong with a serving bound's settings (a Workload's, a ServingSpec's: the same
    names): the requests' lengths, the limits in s, speculative decoding."""
    out = []
    for name in ("input_tokens", "output_tokens"):
        v = getattr(s, name)
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_DIM:
            out.append(Problem(name, _("must be a whole number of tokens from 1 to {maximum}, not "
                                       "{value}").format(maximum=MAX_DIM, value=repr(v))))
    for name in ("tpot_limit", "ttft_limit"):
        v = getattr(s, name)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < 1e6:
            shown = f"{v * 1e3:g} ms" if isinstance(v, (int, float)) else repr(v)
            out.append(Problem(name, _("must be a time from 0 ms (no limit) up, not {value}").format(
                value=shown)))
    n, a = s.draft_tokens, s.acceptance
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 64:
        out.append(Problem("draft_tokens", _("must be a whole number from 0 (off) to 64, not "
                                                 "{value}").format(value=repr(n))))
    if isinstance(a, bool) or not isinstance(a, (int, float)) or not 0 <= a < 1:
        out.append(Problem("acceptance", _("must be a rate in [0, 1), not {value}").format(value=repr(a))))
    elif a and not n:
        out.append(Problem("acceptance", _("applies with draft tokens (speculative decoding): "
                                           "set those first")))
    pools = (s.prefill_chips, s.decode_chips)
    for name, v in zip(("prefill_chips", "decode_chips"), pools, strict=True):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_DIM:
            out.append(Problem(name, _("must be a whole number of chips from 0 (prefill and decode "
                                       "on the same chips) to {maximum}, not {value}").format(
                maximum=MAX_DIM, value=repr(v))))
            return out
    if (pools[0] == 0) != (pools[1] == 0):
        out.append(Problem("decode_chips" if pools[0] else "prefill_chips",
                           _("disaggregated serving needs chips for both prefill and decode "
                             "(or 0 for both: each chip does both)")))
    return out


def pool_problems(w) -> list[Problem]:
    """Disaggregated pools that cannot hold whole copies of the model: checked where the
    workload is served, not among the workload's own rules, so that a variant with more chips
    per model (a what-would-help search, a tensor-parallel sweep) never trips on its pools."""
    n = w.chips_per_model
    return [Problem(name, _("{value} chips cannot hold whole copies of the model: use a "
                            "multiple of the {n} chips that share it").format(value=v, n=n))
            for name in ("prefill_chips", "decode_chips")
            if isinstance(v := getattr(w, name), int) and n > 1 and v % n]


@dataclass(frozen=True)
class Entry:
    """One kernel of a workload, run ``count`` times per step (per layer × layers)."""

    kernel: Kernel
    count: float
    group: str  # "attention", "MLP", "experts", "norms", "head", "conv", ... for the breakdown
    steps: tuple[str, ...] = ()
    #: Bytes at ``dram`` that are weights (read once per step however large the batch).
    weight_bytes: float = 0.0
    #: The attention itself (scores and weighted values), not its projections: what selective
    #: recomputation runs again.
    attention_core: bool = False


@dataclass(frozen=True)
class Built:
    """A workload's entries and what the generator says about it as a whole."""

    entries: tuple[Entry, ...]
    #: Bytes each chip sends over the link per step (tensor parallelism), and how it is derived.
    link_bytes: float = 0.0
    link_steps: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    parameters: float = 0.0  # weights of the whole model
    active_parameters: float = 0.0  # weights one token uses (mixture of experts: k of E)
    #: Bytes each chip must hold in main memory: its share of the weights and of the KV cache
    #: (NaN where unknown: a custom workload).
    resident_bytes: float = float("nan")
    resident_steps: tuple[str, ...] = ()
    heads: int = 1  # attention heads: tensor parallelism splits them evenly (1: not a transformer)
    training: Any = None  # a training step's facts (core.training.TrainingFacts), else None
    #: of ``resident_bytes``: the weights each chip holds, and the KV cache (the batch's, at its
    #: context); NaN where unknown
    weight_bytes: float = float("nan")
    kv_cache_bytes: float = 0.0
    #: ``link_bytes`` by kind of collective: ("all-reduce", bytes), ("all-to-all", bytes)...
    link_parts: tuple[tuple[str, float], ...] = ()


def parameters_text(x: float) -> str:
    """Parameter counts as model cards write them: 8.03 B, 124 M, 25.6 M."""
    for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:  # Japanese writes it unspaced, "671B", not bytes' "671 B"
            return _("{value} {suffix}").format(value=f"{x / scale:.3g}", suffix=suffix)
    return f"{x:g}"


def label_of(w: Workload) -> str:
    """'Llama-3-8B · decode B = 8, L = 2048' (the phase left out when the name says it)."""
    name = w.name.lower()
    if w.training:
        what = (listed([f"b = {w.batch}", f"S = {w.sequence}"]) if w.kind == "transformer"
                else f"b = {w.batch}")
        chips = w.chips_total
        said = "train" in name or _(PHASE_WORDS["train"]) in w.name
        return (f"{w.name} · {'' if said else _(PHASE_WORDS['train']) + ' '}" + listed(
            [what, f"G = {w.sequences_per_step}"]
            + ([] if w.activations in name else [w.activations])
            + ([_("{chips} chips").format(chips=f"{chips:,}")] if chips > 1 else [])))
    if w.kind == "transformer":
        length = f"S = {w.sequence}" if w.phase == "prefill" else f"L = {w.context}"
        word = _(PHASE_WORDS[w.phase])
        phase = "" if w.phase in name or word in w.name else f"{word} "
        return f"{w.name} · {phase}" + listed([f"B = {w.batch}", length] + (
            [f"N = {w.chips_per_model}"] if w.chips_per_model > 1 else []))
    return f"{w.name} · B = {w.batch}"


def with_field(workload: Workload, key: str, value: Any) -> Workload:
    """The workload with ``key`` at ``value``, as a drag, a field or a sweep sets it: a training
    step's micro-batch keeps the global batch where it is still a multiple of micro-batch × data
    parallel, and otherwise takes the nearest multiple above it; turned to training, its
    activations leave the chip (backward needs them all)."""
    w = replace(workload, **{key: value})
    if key == "phase" and value == "train":  # training keeps every activation for backward
        w = replace(w, activations_on_chip=False)
    if w.training and key == "batch" and w.global_batch:
        unit = w.batch * w.data_parallel
        w = replace(w, global_batch=-(-w.global_batch // unit) * unit)
    return w
