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

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from roofline_gui.core.errors import Problem, ValidationError
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.units import PRECISIONS

KINDS = ("transformer", "cnn", "mlp", "lstm", "custom")
PHASES = ("prefill", "decode", "train")
#: Kinds that can be trained (a training step: forward, backward, optimizer; core.training).
TRAIN_KINDS = ("transformer", "cnn", "mlp")
#: What one unit of throughput is, per kind (transformer: tokens, per phase below).
UNITS = {"transformer": "tokens", "cnn": "images", "mlp": "samples", "lstm": "samples",
         "custom": "runs"}
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
            out.append(Problem("kind", f"unknown kind {self.kind!r}; use one of {', '.join(KINDS)}"))
        if self.kind == "transformer" and self.phase not in PHASES:
            out.append(Problem("phase", f"must be prefill, decode or train, not {self.phase!r}"))
        if self.phase == "train" and self.kind not in TRAIN_KINDS:
            out.append(Problem("phase", f"a {self.kind} workload cannot be trained here: training "
                                        "is modelled for transformer, CNN and MLP workloads"))
        if self.training:
            out.extend(self._training_problems())
        if self.activations_on_chip and self.kind not in ON_CHIP_KINDS:
            out.append(Problem("activations_on_chip", "applies to CNN, MLP and LSTM workloads "
                               "(a transformer's KV cache and activations live in main memory)"))
        for name in ("batch", "sequence", "context", "chips_per_model"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                out.append(Problem(name, f"must be a positive whole number, not {value!r}"))
            elif value > MAX_DIM:
                out.append(Problem(name, f"{value} is beyond the plausible maximum {MAX_DIM}"))
        for name in ("weights", "activations", "kv_cache"):
            if getattr(self, name) not in PRECISIONS:
                out.append(Problem(name, f"unknown precision {getattr(self, name)!r}; "
                                         f"use one of {', '.join(PRECISIONS)}"))
        if self.link not in LINK_ROLES:
            out.append(Problem("link", f"must be one of {', '.join(LINK_ROLES)}, not {self.link!r}"))
        return out

    def _training_problems(self) -> list[Problem]:
        out = []
        for name in ("data_parallel", "pipeline_parallel"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DIM:
                out.append(Problem(name, f"must be a whole number from 1 to {MAX_DIM}, not {value!r}"))
        g = self.global_batch
        if isinstance(g, bool) or not isinstance(g, int) or not 0 <= g <= 10**9:
            out.append(Problem("global_batch", f"must be a whole number of sequences (0: micro-batch "
                                               f"× data parallel), not {g!r}"))
        elif g and not out and isinstance(self.batch, int) and self.batch >= 1 and (
                g % (self.batch * self.data_parallel)):
            out.append(Problem("global_batch", f"{g} per step is not a multiple of micro-batch × "
                                               f"data parallel = {self.batch}·{self.data_parallel} "
                                               f"= {self.batch * self.data_parallel}"))
        if self.zero not in ZERO_STAGES or isinstance(self.zero, bool):
            out.append(Problem("zero", f"ZeRO stage {self.zero!r}: one of 0, 1, 2, 3"))
        if self.recompute not in RECOMPUTE:
            out.append(Problem("recompute", f"{self.recompute!r}: one of {', '.join(RECOMPUTE)}"))
        elif self.recompute == "selective" and self.kind != "transformer":
            out.append(Problem("recompute", "selective recomputation recomputes a transformer's "
                                            "attention; a CNN or MLP takes none or full"))
        if self.activations in ("int8", "int4", "fp64"):
            out.append(Problem("activations", f"training in {self.activations} is not modelled: "
                                              "train in fp32, tf32, bf16, fp16 or fp8"))
        if self.optimizer not in OPTIMIZERS:
            out.append(Problem("optimizer", f"{self.optimizer!r}: one of {', '.join(OPTIMIZERS)}"))
        t = self.train_tokens
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t < 1e18:
            out.append(Problem("train_tokens", f"must be a number of tokens from 0 (no run) up, "
                                               f"not {t!r}"))
        return out


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


def parameters_text(x: float) -> str:
    """Parameter counts as model cards write them: 8.03 B, 124 M, 25.6 M."""
    for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {suffix}"
    return f"{x:g}"


def label_of(w: Workload) -> str:
    """'Llama-3-8B · decode B = 8, L = 2048' (the phase left out when the name says it)."""
    if w.training:
        what = f"b = {w.batch}, S = {w.sequence}" if w.kind == "transformer" else f"b = {w.batch}"
        chips = w.chips_total
        name = w.name.lower()
        return (f"{w.name} · {'' if 'train' in name else 'train '}{what}, "
                f"G = {w.sequences_per_step}"
                + ("" if w.activations in name else f", {w.activations}")
                + (f", {chips:,} chips" if chips > 1 else ""))
    if w.kind == "transformer":
        length = f"S = {w.sequence}" if w.phase == "prefill" else f"L = {w.context}"
        phase = "" if w.phase in w.name.lower() else f"{w.phase} "
        return f"{w.name} · {phase}B = {w.batch}, {length}" + (
            f", N = {w.chips_per_model}" if w.chips_per_model > 1 else "")
    return f"{w.name} · B = {w.batch}"


# -- transformer language models -------------------------------------------------------------

#: Architectures whose MLP is gated (three matrices: gate, up, down).
GATED_TYPES = {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "gemma", "gemma2", "phi3"}


@dataclass(frozen=True)
class TransformerConfig:
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    gated: bool
    vocab: int
    tied: bool
    experts: int = 1
    experts_per_token: int = 1
    attention_bias: bool = False
    gpt2: bool = False  # LayerNorm with bias, biases on every matrix, learned positions
    positions: int = 0
    model_type: str = ""
    notes: tuple[str, ...] = field(default=())

    @classmethod
    def from_config(cls, raw: Any, path: str = "config") -> TransformerConfig:
        """Read a Hugging Face-style ``config.json`` (both the Llama and the GPT-2 spellings);
        raise ValidationError naming every missing or bad field."""
        problems: list[Problem] = []
        if not isinstance(raw, Mapping):
            raise ValidationError([Problem(path, "must be an object (a config.json)")])
        notes: list[str] = []

        def whole(*names: str, default: Any = None, required: bool = True) -> int | None:
            for name in names:
                if name in raw and raw[name] is not None:
                    value = raw[name]
                    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                            value != int(value) or value < 1 or value > 10**9:
                        problems.append(Problem(f"{path}.{name}", f"must be a positive whole "
                                                                  f"number, not {value!r}"))
                        return None
                    return int(value)
            if default is not None:
                return default
            if required:
                problems.append(Problem(f"{path}.{names[0]}", "is required"))
            return None

        model_type = str(raw.get("model_type", ""))
        gpt2 = model_type == "gpt2" or "n_embd" in raw
        hidden = whole("hidden_size", "n_embd", "d_model")
        layers = whole("num_hidden_layers", "n_layer", "num_layers")
        heads = whole("num_attention_heads", "n_head")
        kv_heads = whole("num_key_value_heads", default=heads or 1)
        vocab = whole("vocab_size")
        intermediate = whole("intermediate_size", "n_inner", "ffn_dim",
                             default=4 * hidden if hidden else None)
        head_dim = whole("head_dim", required=False)
        experts = whole("num_local_experts", "num_experts", default=1)
        per_token = whole("num_experts_per_tok", default=1)
        positions = whole("n_positions", "max_position_embeddings", default=0) if gpt2 else 0
        if hidden and heads and head_dim is None:
            if hidden % heads:
                problems.append(Problem(f"{path}.num_attention_heads",
                                        f"{heads} heads do not divide hidden_size {hidden} "
                                        "(give head_dim if the model sets it)"))
            head_dim = hidden // heads
        if heads and kv_heads and heads % kv_heads:
            problems.append(Problem(f"{path}.num_key_value_heads",
                                    f"{kv_heads} KV heads do not divide {heads} query heads"))
        if experts and per_token and per_token > experts:
            problems.append(Problem(f"{path}.num_experts_per_tok",
                                    f"{per_token} is more than the {experts} experts"))
        if raw.get("shared_expert_intermediate_size") or raw.get("moe_intermediate_size"):
            problems.append(Problem(f"{path}.moe_intermediate_size",
                                    "shared or fine-grained experts are not modelled yet"))
        if problems:
            raise ValidationError(problems)
        act = str(raw.get("hidden_act", raw.get("activation_function", "")))
        gated = (model_type in GATED_TYPES or act in ("silu", "swiglu")) and not gpt2
        notes.append(f"MLP: {'gated (gate, up, down: 3 matrices)' if gated else 'plain (up, down)'}"
                     f" from {'model_type ' + repr(model_type) if model_type else 'hidden_act ' + repr(act)}")
        tied = bool(raw.get("tie_word_embeddings", True))
        bias = bool(raw.get("attention_bias", model_type == "qwen2"))
        return cls(hidden, layers, heads, kv_heads, head_dim, intermediate, gated, vocab, tied,
                   experts, per_token, bias, gpt2, positions or 0, model_type, tuple(notes))

    def parameters(self) -> dict[str, float]:
        """Weights by part, as the model's checkpoint holds them."""
        h, hd = self.hidden, self.head_dim
        q, kv = self.heads * hd, self.kv_heads * hd
        attention = h * (q + 2 * kv) + q * h
        if self.attention_bias:
            attention += q + 2 * kv
        if self.gpt2:
            attention += q + 2 * kv + h  # c_attn and c_proj biases
        matrices = 3 if self.gated else 2
        expert = matrices * h * self.intermediate + (
            (self.intermediate + h) if self.gpt2 else 0)
        mlp = expert * self.experts + (h * self.experts if self.experts > 1 else 0)
        norms = (4 if self.gpt2 else 2) * h
        embed = self.vocab * h + self.positions * h
        head = 0 if self.tied else self.vocab * h
        final = (2 if self.gpt2 else 1) * h
        return {"attention": attention * self.layers, "mlp": mlp * self.layers,
                "norms": norms * self.layers + final, "embedding": embed, "head": head,
                "expert": expert}

    def total_parameters(self) -> float:
        p = self.parameters()
        return p["attention"] + p["mlp"] + p["norms"] + p["embedding"] + p["head"]

    def active_parameters(self) -> float:
        """Weights one token uses: all but the experts it is not routed to."""
        p = self.parameters()
        idle = (self.experts - self.experts_per_token) * p["expert"] * self.layers
        return self.total_parameters() - idle


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
