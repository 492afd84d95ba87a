"""One training step of a dense (or mixture-of-experts) decoder transformer, and a whole run,
on one kind of chip: the published conventions, each formula with its numbers (issue 26).

Qt-free; the window, the command line and the API build on it. The conventions, with their
sources (``../shared/reference/training-and-energy.md``):

- **Model FLOPs** per token, PaLM's (Chowdhery et al. 2022, appendix B): 6·N + 12·L·H·Q·T, N
  the parameters a token uses (all of them for a dense model), L layers, H heads of dimension Q,
  T the sequence. MFU counts these, never the recomputation.
- **Hardware FLOPs** add the recomputation: selective (the attention scores) as Korthikanti et
  al. 2022, eq. 8, counts it (the attention term doubled); full, one more forward pass
  (2·N + 4·L·H·Q·T more per token).
- **Model states**, ZeRO's (Rajbhandari et al. 2020): mixed-precision Adam keeps 2 bytes of
  16-bit weights, 2 of gradients and K = 12 of fp32 master weights, momentum and variance per
  parameter; SGD with momentum K = 8 (master weights, momentum); training in fp32, 4 + 4 and
  K = 8 (Adam's two moments) or 4 (SGD's momentum), no master copy. Stage 1 divides the K
  bytes by the data-parallel degree d, stage 2 the gradients too, stage 3 the weights too.
- **Activations** per layer (Korthikanti et al. 2022, Table 2, 16-bit values; s sequence, b
  micro-batch, h hidden, a heads, t tensor parallel with sequence parallelism): none
  s·b·h·(34 + 5·a·s/h)/t, selective s·b·h·34/t, full 2·s·b·h (the layer's input only). With
  1F1B the first pipeline stage holds the activations of L layers whatever p is (eq. 5).
- **Communication**: ring all-reduce 2·(N−1)/N of the bytes per chip; tensor parallelism four
  all-reduces of the layer's activations per layer and micro-batch (forward and backward); data
  parallelism one all-reduce of the gradients per step (ZeRO-3 adds an all-gather of the
  weights in forward and backward); pipeline bubble (p−1)/m with m micro-batches per step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from roofline_gui.core.units import BYTES_PER_VALUE, format_si, format_time
from roofline_gui.core.workload import TransformerConfig

RECOMPUTE = ("none", "selective", "full")
_RECOMPUTE_WORDS = {"none": "no recomputation", "selective": "selective recomputation",
                    "full": "full recomputation"}
OPTIMIZERS = ("adam", "sgd")
ZERO_STAGES = (0, 1, 2, 3)


@dataclass(frozen=True)
class TrainingSetup:
    """How a model is trained: the batch, the sequence, the parallelism and the precisions."""

    micro_batch: int = 1  # b: sequences per replica per micro-batch
    sequence: int = 2048  # T (s)
    global_batch: int | None = None  # G: sequences per optimizer step (default b·d)
    data_parallel: int = 1  # d
    tensor_parallel: int = 1  # t
    pipeline_parallel: int = 1  # p
    zero: int = 0
    recompute: str = "none"
    optimizer: str = "adam"
    precision: str = "bf16"  # the matmuls', the activations' and the gradients' precision
    tokens: float = 0.0  # D: training tokens of the whole run (0: no run)

    @property
    def chips(self) -> int:
        return self.data_parallel * self.tensor_parallel * self.pipeline_parallel

    @property
    def sequences_per_step(self) -> int:
        return self.global_batch or self.micro_batch * self.data_parallel

    @property
    def micro_batches(self) -> int:
        """m: micro-batches each replica runs per step (gradient accumulation)."""
        return self.sequences_per_step // (self.micro_batch * self.data_parallel)

    def problems(self, cfg: TransformerConfig) -> list[tuple[str, str]]:
        """(field, message) for every setting that cannot be, as the window and the command
        line refuse it."""
        out = []
        for name in ("micro_batch", "sequence", "data_parallel", "tensor_parallel",
                     "pipeline_parallel"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                out.append((name, f"must be a positive whole number, not {value!r}"))
        if out:
            return out
        if self.global_batch is not None and (
                self.global_batch < 1 or self.global_batch % (self.micro_batch * self.data_parallel)):
            out.append(("global_batch", f"{self.global_batch} sequences per step is not a multiple "
                        f"of micro-batch × data parallel = {self.micro_batch * self.data_parallel}"))
        if self.zero not in ZERO_STAGES:
            out.append(("zero", f"ZeRO stage {self.zero!r}: one of 0, 1, 2, 3"))
        if self.recompute not in RECOMPUTE:
            out.append(("recompute", f"{self.recompute!r}: one of {', '.join(RECOMPUTE)}"))
        if self.optimizer not in OPTIMIZERS:
            out.append(("optimizer", f"{self.optimizer!r}: one of {', '.join(OPTIMIZERS)}"))
        if self.precision not in BYTES_PER_VALUE:
            out.append(("precision", f"unknown precision {self.precision!r}"))
        if self.pipeline_parallel > cfg.layers:
            out.append(("pipeline_parallel", f"{self.pipeline_parallel} pipeline stages for "
                        f"{cfg.layers} layers: at most one stage per layer"))
        if cfg.heads % self.tensor_parallel:
            out.append(("tensor_parallel", f"{self.tensor_parallel} chips cannot share "
                        f"{cfg.heads} attention heads evenly: use a divisor of {cfg.heads}"))
        if self.tokens < 0 or not math.isfinite(self.tokens):
            out.append(("tokens", f"must be a positive number of tokens, not {self.tokens!r}"))
        return out


def model_flops_per_token(cfg: TransformerConfig, sequence: int) -> float:
    """PaLM's model FLOPs per token of a training step: 6·N + 12·L·H·Q·T."""
    return 6 * cfg.active_parameters() + 12 * cfg.layers * cfg.heads * cfg.head_dim * sequence


def hardware_flops_per_token(cfg: TransformerConfig, sequence: int, recompute: str) -> float:
    """The FLOPs the chips do per token: the model FLOPs and the recomputation."""
    attention = 12 * cfg.layers * cfg.heads * cfg.head_dim * sequence
    model = model_flops_per_token(cfg, sequence)
    if recompute == "selective":  # Korthikanti et al. 2022, eq. 8: s/(6h) becomes s/(3h)
        return model + attention
    if recompute == "full":  # one more forward pass
        return model + 2 * cfg.active_parameters() + attention / 3
    return model


def state_bytes_per_parameter(precision: str, optimizer: str) -> tuple[float, float, float]:
    """(weights, gradients, optimizer states) bytes per parameter, ZeRO's count: 2 + 2 + 12 for
    mixed-precision Adam (fp32 master weights, momentum, variance), 2 + 2 + 8 for SGD with
    momentum; in fp32 4 + 4 + 8 (Adam) or 4 + 4 + 4 (SGD), no master copy."""
    b = BYTES_PER_VALUE[precision]
    moments = 8.0 if optimizer == "adam" else 4.0
    master = 4.0 if b < 4 else 0.0
    return b, b, moments + master


@dataclass(frozen=True)
class TrainingStep:
    """A training step on one kind of chip: what each chip does, holds and sends, the bounds
    and the run they imply, with the steps of every formula."""

    flops_model_per_token: float
    flops_hardware_per_token: float
    tokens_per_step: float
    state_bytes: float  # weights + gradients + optimizer states on one chip
    activation_bytes: float  # on one chip (the first pipeline stage's)
    capacity: float | None
    compute_time: float  # s per step
    memory_time: float  # s per step: the optimizer update and the weights' reads
    communication_time: float  # s per step
    bubble_time: float  # s per step
    time_lower: float  # perfect overlap of communication with compute
    time_upper: float  # no overlap
    mfu_at_bound: float  # model FLOPs per s at the lower bound ÷ (chips × peak)
    train_days: float | None
    chip_hours: float | None
    steps: tuple[str, ...] = field(default=())

    @property
    def fits(self) -> bool:
        return self.capacity is None or self.state_bytes + self.activation_bytes <= self.capacity


def training_step(cfg: TransformerConfig, setup: TrainingSetup, *, peak: float, bandwidth: float,
                  link: float | None = None, capacity: float | None = None) -> TrainingStep:
    """One optimizer step over the global batch on ``setup.chips`` chips of one kind: ``peak``
    op/s at the training precision, ``bandwidth`` B/s of main memory, ``link`` B/s per chip
    and direction between chips (None: no link, so only one chip), ``capacity`` bytes."""
    d, t, p = setup.data_parallel, setup.tensor_parallel, setup.pipeline_parallel
    b, s, m = setup.micro_batch, setup.sequence, setup.micro_batches
    n_params = cfg.total_parameters()
    h, a, layers = cfg.hidden, cfg.heads, cfg.layers
    tokens = setup.sequences_per_step * s
    model_ft = model_flops_per_token(cfg, s)
    hw_ft = hardware_flops_per_token(cfg, s, setup.recompute)
    chips = setup.chips
    # -- compute ------------------------------------------------------------------------------
    compute = hw_ft * tokens / chips / peak
    # -- memory per chip ------------------------------------------------------------------------
    bw_, bg, bo = state_bytes_per_parameter(setup.precision, setup.optimizer)
    shard = n_params / (t * p)  # the parameters one chip's model-parallel part holds
    zero = setup.zero
    weights = shard * bw_ / (d if zero >= 3 else 1)
    grads = shard * bg / (d if zero >= 2 else 1)
    states = shard * bo / (d if zero >= 1 else 1)
    state_bytes = weights + grads + states
    value = BYTES_PER_VALUE[setup.precision] / 2  # Table 2 counts 16-bit values
    if setup.recompute == "full":
        per_layer = 2 * s * b * h
    elif setup.recompute == "selective":
        per_layer = s * b * h * 34 / t
    else:
        per_layer = s * b * h * (34 + 5 * a * s / h) / t
    activation_bytes = per_layer * value * layers  # 1F1B: the first stage holds L layers' worth
    # -- memory traffic: the optimizer reads and writes weights, gradients and states once; each
    # micro-batch reads the chip's weights in forward and twice in backward
    update = 2 * (shard * (bw_ + bg + bo)) / (d if zero >= 1 else 1)
    weight_reads = 3 * m * shard * bw_ * (4 / 3 if setup.recompute == "full" else 1)
    memory = (update + weight_reads) / bandwidth
    # -- communication --------------------------------------------------------------------------
    comm = 0.0
    comm_steps = []
    if chips > 1 and link:
        if d > 1:
            grad_volume = shard * bg
            comm += 2 * (d - 1) / d * grad_volume / link
            comm_steps.append(f"data parallel: ring all-reduce of {format_si(grad_volume, 'B')} of "
                              f"gradients, 2·(d−1)/d of them at {format_si(link, 'B/s')}")
            if zero >= 3:
                comm += 2 * (d - 1) / d * shard * bw_ / link
                comm_steps.append("ZeRO-3: all-gather of the weights in forward and backward")
        if t > 1:
            act = b * s * h * BYTES_PER_VALUE[setup.precision]
            comm += 4 * (layers / p) * m * 2 * (t - 1) / t * act / link
            comm_steps.append(f"tensor parallel: 4 all-reduces of {format_si(act, 'B')} per layer "
                              f"and micro-batch")
    bubble = (p - 1) / m * compute if p > 1 else 0.0
    lower = max(compute, memory, comm) + bubble
    upper = compute + memory + comm + bubble
    mfu = model_ft * tokens / lower / (chips * peak) if lower > 0 else float("nan")
    days = hours = None
    if setup.tokens > 0:
        seconds = setup.tokens / tokens * lower
        days, hours = seconds / 86_400, seconds / 3_600 * chips
    steps = (
        f"model FLOPs per token = 6·N + 12·L·H·Q·T = 6·{n_params:.4g} + 12·{layers}·{a}·"
        f"{cfg.head_dim}·{s} = {model_ft:.4g} (PaLM, appendix B; MFU counts these)",
        f"hardware FLOPs per token ({_RECOMPUTE_WORDS[setup.recompute]}) = {hw_ft:.4g}",
        f"tokens per step = G·T = {setup.sequences_per_step}·{s} = {tokens:,}; "
        f"m = {m} micro-batches of {b} per replica",
        f"compute = {hw_ft:.4g}·{tokens:,} / ({chips} chips · {format_si(peak, 'op/s')}) = "
        f"{format_time(compute)}",
        f"states per chip = {format_si(state_bytes, 'B')} (weights {bw_:g} + gradients {bg:g} + "
        f"optimizer {bo:g} B per parameter, ZeRO stage {zero})",
        f"activations per chip = {format_si(activation_bytes, 'B')} (Korthikanti Table 2, "
        f"{_RECOMPUTE_WORDS[setup.recompute]}, 1F1B)",
        *comm_steps,
        (f"pipeline bubble = (p−1)/m = {p - 1}/{m} of compute = {format_time(bubble)}" if p > 1
         else "no pipeline: no bubble"),
        f"step ≥ {format_time(lower)} (perfect overlap), ≤ {format_time(upper)} (none); "
        f"MFU at the bound {mfu:.1%}",
    )
    return TrainingStep(model_ft, hw_ft, tokens, state_bytes, activation_bytes, capacity,
                        compute, memory, comm, bubble, lower, upper, mfu, days, hours, steps)


def chip_inputs(chip, setup: TrainingSetup) -> dict:
    """What training_step takes from a chip: its peak at the training precision (or its own of
    the same width), main memory's bandwidth and capacity, its first chip-to-chip link. Raises
    ValueError naming what it lacks."""
    from roofline_gui.core.units import SAME_WIDTH  # noqa: PLC0415

    precision = next((p for p in (setup.precision, *SAME_WIDTH.get(setup.precision, ()))
                      if p in chip.compute), None)
    if precision is None:
        raise ValueError(f"{chip.name} has no {setup.precision} peak (nor one of the same width)")
    links = chip.levels("link")
    if setup.chips > 1 and not links:
        raise ValueError(f"{chip.name} has no chip-to-chip link level to join {setup.chips} chips")
    return {"peak": chip.compute[precision], "bandwidth": chip.dram.bandwidth,
            "link": links[0].bandwidth if links else None, "capacity": chip.dram.capacity}


def csv_row(name: str, chip_name: str, setup: TrainingSetup, step: TrainingStep) -> dict[str, str]:
    """A training step as a row of the workloads CSV: ``time_s`` the step time (lower bound),
    ``throughput_per_s`` the tokens per second of all chips together."""
    def num(x):
        return "" if x is None or not math.isfinite(x) else f"{x:.6g}"

    return {
        "chip": chip_name, "workload": name, "phase": "train", "batch": str(setup.micro_batch),
        "sequence": str(setup.sequence), "context": "",
        "chips_per_model": str(setup.tensor_parallel), "time_s": num(step.time_lower),
        "time_no_overlap_s": num(step.time_upper),
        "throughput_per_s": num(step.tokens_per_step / step.time_lower),
        "throughput_unit": "tokens/s", "memory_bound_time_share": num(step.memory_time / step.time_upper),
        "communication_time_share": num(step.communication_time / step.time_upper),
        "dominant_kernel": "",
        "data_parallel": str(setup.data_parallel), "pipeline_parallel": str(setup.pipeline_parallel),
        "global_batch": str(setup.sequences_per_step), "chips_total": str(setup.chips),
        "model_flops_per_token": num(step.flops_model_per_token),
        "mfu_at_bound": num(step.mfu_at_bound), "state_bytes_per_chip": num(step.state_bytes),
        "activation_bytes_per_chip": num(step.activation_bytes),
        "fits": "yes" if step.fits else "no", "train_days": num(step.train_days),
        "chip_hours": num(step.chip_hours),
        **{f"speedup_if_2x_{k}": num(v) for k, v in step_speedups(step).items()},
    }


def step_speedups(step: TrainingStep) -> dict[str, float]:
    """What each ceiling is worth for a training step: compute (and with it the bubble), main
    memory, the link, each doubled alone; 1 for the roles a step does not use here."""
    def bound(compute=1.0, memory=1.0, comm=1.0):
        return (max(step.compute_time / compute, step.memory_time / memory,
                    step.communication_time / comm) + step.bubble_time / compute)

    now = step.time_lower
    return {"compute": now / bound(compute=2), "dram": now / bound(memory=2), "cache": 1.0,
            "host": 1.0, "link": now / bound(comm=2)}


def implied_mfu(cfg: TransformerConfig, sequence: int, tokens_per_second: float, chips: int,
                peak: float) -> float:
    """The MFU a published throughput implies: model FLOPs per second ÷ (chips × peak)."""
    return model_flops_per_token(cfg, sequence) * tokens_per_second / (chips * peak)


def scaling_sweep(cfg: TransformerConfig, setup: TrainingSetup, chips,
                  degrees=tuple(2**i for i in range(13))) -> list[list[TrainingStep | None]]:
    """The step at each data-parallel degree d (1 … 4,096 by default) on each chip, the global
    batch growing with d (``setup.global_batch`` per replica's share kept): [d][chip], None
    where a chip cannot run it. Where communication takes over shows as its share growing."""
    out = []
    per_replica = setup.sequences_per_step // setup.data_parallel
    for d in degrees:
        at = TrainingSetup(**{**setup.__dict__, "data_parallel": d,
                              "global_batch": per_replica * d})
        row = []
        for chip in chips:
            try:
                row.append(training_step(cfg, at, **chip_inputs(chip, at)))
            except ValueError:
                row.append(None)
        out.append(row)
    return out
