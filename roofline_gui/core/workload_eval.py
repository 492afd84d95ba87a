"""Workloads on chips: end-to-end time, throughput and where the time goes.

Every entry of every workload is a kernel evaluated by :func:`roofline.evaluate` in one call
over all chips (and over a batch sweep, every batch's entries in the same call), so a workload's
numbers are sums of the very kernel numbers the chart and the table show:
    time (per step)   = Σ count × kernel time (each kernel's compute and memory overlap) + link
    no-overlap bound  = Σ count × (compute time + every level's time) + link
    throughput        = items per step ÷ time (tokens, images, samples; per model of N chips)
    memory-bound share = the part of the kernel time spent in memory-bound kernels
    aggregate intensity = total ops ÷ total dram bytes; aggregate rate = total ops ÷ time
Link time (tensor parallelism over N chips) is the bytes each chip sends per step ÷ the
bandwidth of the chip's link level (per direction): it adds to the time, without overlap.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from roofline_gui.core.build import build
from roofline_gui.core.chip import Chip
from roofline_gui.core.energy import (
    CAP_SLOWDOWN,
    chip_constants,
    energy_basis,
    estimated,
    kernel_energy,
    link_constants,
)
from roofline_gui.core.i18n import _
from roofline_gui.core.identity_cache import IdentityCache
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.roofline import (
    BOUND_MEMORY,
    LIMITER_COMPUTE,
    ChipArrays,
    Evaluation,
    KernelArrays,
    evaluate,
)
from roofline_gui.core.training import BUBBLE_GROUPS
from roofline_gui.core.units import PRECISIONS, ROLE_INDEX
from roofline_gui.core.workload import Built, Workload, with_field
from roofline_gui.core.worth import workload_speedups

WORKLOAD_CSV_COLUMNS = (
    "chip", "workload", "phase", "batch", "sequence", "context", "chips_per_model",
    # the precisions it runs at (the matmuls' is the activations'; the KV cache a transformer's)
    "weights", "activations", "kv_cache", "time_s",
    "time_no_overlap_s", "throughput_per_s", "throughput_unit", "memory_bound_time_share",
    "communication_time_share", "dominant_kernel",
    # why the times are empty where the chip cannot run the workload (no ceiling at its
    # precision, no link to join its chips); empty where it runs
    "unsupported_reason",
    # a training step's (core/training.py); empty for inference rows
    "data_parallel", "pipeline_parallel", "global_batch", "chips_total", "model_flops_per_token",
    "mfu_at_bound", "state_bytes_per_chip", "activation_bytes_per_chip", "fits", "train_days",
    "chip_hours",
    # what each ceiling is worth: the speedup with it alone twice as high (core.worth)
    "speedup_if_2x_compute", "speedup_if_2x_dram", "speedup_if_2x_cache", "speedup_if_2x_host",
    "speedup_if_2x_link",
    # energy and cost (core.energy), per chip; empty without energy data (cost: without a price)
    "energy_per_step_j", "joules_per_item", "average_power_w", "power_capped", "energy_basis",
    "cost_per_million_items",
    # the model's size and what each chip holds (the KV cache: the batch's, at its context)
    "parameters", "active_parameters", "weight_bytes_per_chip", "kv_cache_bytes_per_chip",
    # a serving row's (core.serving); empty for the other phases
    "concurrency", "input_tokens", "output_tokens", "ttft_s", "tpot_s", "tokens_per_s_per_user",
    "tokens_per_s_per_chip", "meets_slo",
)


@dataclass(frozen=True)
class WorkloadEnergy:
    """A workload's energy on each chip: arrays [C], NaN where the chip has no energy data."""

    per_step: np.ndarray  # J per chip per step
    compute: np.ndarray  # J per chip per step of its ops alone (before the board power's hold)
    per_item: np.ndarray  # J per token (image, sample) on all the chips that run the step
    average_power: np.ndarray  # W per chip, never above the board power
    capped: np.ndarray  # bool: held to the board power (a kernel, or the step as a whole)
    cost_per_million: np.ndarray  # $ per million items at the chips' price (NaN without one)
    time: np.ndarray  # s per step at the power cap (the roofline's where it does not bind)
    board_power: np.ndarray  # W
    #: bool: the estimates' sum passed the board power and the board power over the time is
    #: counted instead (a kernel of the step, or the step as a whole)
    held: np.ndarray
    #: J per chip per step by the energy figures alone, before the board power's hold
    by_figures: np.ndarray

    @property
    def items_per_joule(self) -> np.ndarray:
        return 1.0 / self.per_item


@dataclass(frozen=True)
class WorkloadResult:
    """One workload on every chip. Arrays are [C] unless stated; NaN where a chip cannot run
    it (a precision it lacks, or no level of the chosen link role when N > 1)."""

    workload: Workload
    built: Built
    chips: tuple[Chip, ...]
    rows: slice  # this workload's rows in ``evaluation``
    evaluation: Evaluation
    link_bandwidth: np.ndarray  # [C] B/s of the link level (NaN where there is none)
    kernels: Mapping[str, Kernel] | None = None  # the session's, for a custom workload's sweeps

    @property
    def entries(self):
        return self.built.entries

    @cached_property
    def counts(self) -> np.ndarray:
        return np.array([e.count for e in self.entries], dtype=float)

    @cached_property
    def entry_time(self) -> np.ndarray:
        """[E, C] seconds of all ``count`` runs of each entry (lower bound, per kernel overlap)."""
        return self.counts[:, None] * self.evaluation.time_lower[self.rows]

    @cached_property
    def entry_time_upper(self) -> np.ndarray:
        return self.counts[:, None] * self.evaluation.time_upper[self.rows]

    @cached_property
    def entry_bound(self) -> np.ndarray:
        """[E, C] BOUND_* code of each entry's kernel."""
        return self.evaluation.bound[self.rows]

    @cached_property
    def link_time(self) -> np.ndarray:
        if self.built.link_bytes == 0:
            return np.zeros(len(self.chips))
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.built.link_bytes / self.link_bandwidth

    @cached_property
    def kernel_time(self) -> np.ndarray:
        return self.entry_time.sum(axis=0)

    @property
    def training(self):
        """The training step's facts (core.training.TrainingFacts), None for inference."""
        return self.built.training

    @cached_property
    def _bubble_rows(self) -> np.ndarray:
        return np.array([e.group in BUBBLE_GROUPS for e in self.entries], dtype=bool)

    def bubble_of(self, entry_time: np.ndarray) -> np.ndarray:
        """[C] the pipeline bubble of a training step whose entries take ``entry_time`` [E, C]:
        (p − 1)/m of its forward, backward and recompute time (0 in inference)."""
        if self.training is None or not self.training.bubble_fraction:
            return np.zeros(entry_time.shape[1])
        return self.training.bubble_fraction * entry_time[self._bubble_rows].sum(axis=0)

    def step_time(self, entry_time: np.ndarray, link_time: np.ndarray) -> np.ndarray:
        """[C] a step's time from its entries' times [E, C] and its link time [C]: in inference
        their sum (a tensor-parallel all-reduce waits for the kernel before it); in training
        max(kernels, communication) + bubble, communication hidden behind compute (the lower
        bound). core.worth composes its doubled ceilings through this too."""
        kernels = entry_time.sum(axis=0)
        if self.training is None:
            return kernels + link_time
        return np.maximum(kernels, link_time) + self.bubble_of(entry_time)

    @cached_property
    def bubble_time(self) -> np.ndarray:
        return self.bubble_of(self.entry_time)

    @cached_property
    def time(self) -> np.ndarray:
        """Seconds per step (one forward pass of the batch; one token per sequence in decode;
        one optimizer step in training, at its lower bound)."""
        return self.step_time(self.entry_time, self.link_time)

    @cached_property
    def time_no_overlap(self) -> np.ndarray:
        """The upper bound: in inference no overlap anywhere (each kernel's compute and memory
        time added, then the link); in training communication not hidden behind compute (each
        entry at its roof, then communication and bubble), the bound the issue's "no overlap"
        names and the breakdown bar draws."""
        if self.training is not None:
            return self.kernel_time + self.link_time + self.bubble_time
        return self.entry_time_upper.sum(axis=0) + self.link_time

    @cached_property
    def _share_base(self) -> np.ndarray:
        """What shares of the step are taken of: its time in inference; in training the sum of
        kernels, communication and bubble (the no-overlap composition of the lower bounds),
        so the shares add up to one whatever overlaps."""
        if self.training is None:
            return self.time
        return self.time_no_overlap

    @cached_property
    def throughput(self) -> np.ndarray:
        return self.workload.per_step_items() / self.time

    @property
    def precisions(self) -> tuple[str, ...]:
        """The precisions its kernels run at (the roofs the chart must draw)."""
        return tuple(sorted({e.kernel.precision for e in self.entries}))

    def limiter_name(self, c: int, shown: bool = False) -> str:
        """What holds the step back on chip ``c``: the memory level, the compute roof or the
        link that takes the largest share of its time; in English (the CSV's words, the same in
        every language) or, ``shown``, in the interface's language."""
        if not np.isfinite(self.time[c]):
            return _("unsupported") if shown else "unsupported"
        ev, chip = self.evaluation, self.chips[c]
        peak = _("{precision} peak") if shown else "{precision} peak"
        # a precision the chip lacks runs at the same width's (the V100's bf16 at its fp16
        # roof): the tour read "bf16 peak" for a chip whose editor says bf16 is not supported
        stood = _("{stand_in} peak (for {precision})") if shown else "{stand_in} peak (for {precision})"
        by: dict[str, float] = {}
        for e in range(len(self.entries)):
            code = int(ev.limiter[self.rows][e, c])
            precision = self.entries[e].kernel.precision
            s = ev.chip_arrays.stand_in_for(c, PRECISIONS.index(precision))
            name = (chip.memory[code].name if code != LIMITER_COMPUTE
                    else stood.format(stand_in=PRECISIONS[s], precision=precision) if s >= 0
                    else peak.format(precision=precision))
            by[name] = by.get(name, 0.0) + float(self.entry_time[e, c])
        if self.link_time[c] > 0:
            level = next((lv.name for lv in chip.memory if lv.role == self.workload.link), "link")
            by[level] = by.get(level, 0.0) + float(self.link_time[c])
        name, t = max(by.items(), key=lambda kv: kv[1])
        return f"{name} {100 * t / self.time[c]:.3g}%"

    @cached_property
    def memory_time(self) -> np.ndarray:
        return np.where(self.entry_bound == BOUND_MEMORY, self.entry_time, 0.0).sum(axis=0)

    @cached_property
    def memory_bound_share(self) -> np.ndarray:
        return self.memory_time / self._share_base

    @cached_property
    def communication_share(self) -> np.ndarray:
        return self.link_time / self._share_base

    @cached_property
    def bubble_share(self) -> np.ndarray:
        return self.bubble_time / self._share_base

    @cached_property
    def compute_share(self) -> np.ndarray:
        return 1.0 - self.memory_bound_share - self.communication_share - self.bubble_share

    def group_time(self, group: str) -> np.ndarray:
        """[C] seconds of a step in the entries of one group (forward, backward, ...)."""
        rows = np.array([e.group == group for e in self.entries], dtype=bool)
        return self.entry_time[rows].sum(axis=0)

    # -- a training step -----------------------------------------------------------------------

    @cached_property
    def peak(self) -> np.ndarray:
        """[C] the compute roof the workload's first kernel meets (its precision's, or the
        stand-in of the same width), op/s."""
        return self.evaluation.ceiling[self.rows][0].astype(float)

    def _utilisation(self, flops_per_item: str) -> np.ndarray:
        f = self.training
        if f is None:
            return np.full(len(self.chips), np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (getattr(f, flops_per_item) * f.items_per_step / self.time
                    / (f.chips * self.peak))

    @cached_property
    def mfu_at_bound(self) -> np.ndarray:
        """[C] model FLOPs per second at the step's lower bound ÷ (chips × peak): the MFU the
        bound implies (NaN in inference)."""
        return self._utilisation("model_flops_per_item")

    @cached_property
    def hfu_at_bound(self) -> np.ndarray:
        """[C] the same with the hardware FLOPs (recomputation included)."""
        return self._utilisation("hardware_flops_per_item")

    @cached_property
    def train_days(self) -> np.ndarray:
        """[C] days to train on D tokens (images) at the bound (NaN without D)."""
        f = self.training
        if f is None or not f.train_items:
            return np.full(len(self.chips), np.nan)
        return f.train_items / f.items_per_step * self.time / 86_400

    @cached_property
    def chip_hours(self) -> np.ndarray:
        f = self.training
        return self.train_days * 24 * (f.chips if f else 1)

    @cached_property
    def ops(self) -> float:
        """Ops of one step on one chip of the N (all chips do the same share)."""
        return float(self.counts @ self.evaluation.kernel_arrays.ops[self.rows])

    @cached_property
    def dram_bytes(self) -> float:
        return float(self.counts @ np.nan_to_num(
            self.evaluation.kernel_arrays.bytes[self.rows, ROLE_INDEX["dram"]]))

    @property
    def intensity(self) -> float:
        """Aggregate intensity: total ops ÷ total dram bytes (op/B)."""
        return self.ops / self.dram_bytes

    @cached_property
    def attainable(self) -> np.ndarray:
        """Aggregate rate per chip: total ops ÷ time (op/s)."""
        return self.ops / self.time

    @cached_property
    def capacity(self) -> np.ndarray:
        """[C] bytes of each chip's main memory (NaN where the preset does not say)."""
        return np.array([c.dram.capacity or np.nan for c in self.chips], dtype=float)

    @cached_property
    def fits(self) -> np.ndarray:
        """[C] whether each chip's share (weights and KV cache) fits in its main memory."""
        return self.built.resident_bytes <= self.capacity

    def chips_needed(self, c: int) -> int | None:
        """The fewest chips of kind ``c`` whose main memories hold the model and its cache at
        this batch, a divisor of the heads for a transformer (None where the capacity or the
        size is not known, or in training: core.training_view says what would make it fit)."""
        if self.training is not None:
            return None
        total = self.built.resident_bytes * self.workload.chips_per_model
        cap = self.capacity[c]
        if not (np.isfinite(total) and np.isfinite(cap)):
            return None
        need = max(1, int(np.ceil(total / cap)))
        heads = self.built.heads  # tensor parallelism splits a transformer's heads evenly
        return next((n for n in range(need, heads + 1) if heads % n == 0), need)

    @property
    def chips_joined(self) -> int:
        """How many chips the link joins: a model's N, a training step's every chip."""
        return self.training.chips if self.training is not None else self.workload.chips_per_model

    def unsupported(self, c: int) -> tuple[str, tuple[str, ...]]:
        """Why chip ``c`` cannot run the workload: ("", ()) where it can; ("link", ()) where
        it has no level of the workload's link to join its chips; ("precision", the precisions
        it has no ceiling for) otherwise."""
        if np.isfinite(self.time[c]):
            return "", ()
        if self.chips_joined > 1 and not np.isfinite(self.link_bandwidth[c]):
            return "link", ()
        have = set(self.chips[c].precisions)
        return "precision", tuple(sorted({e.kernel.precision for e in self.entries} - have)) or (
            self.workload.activations,)

    def unsupported_reason(self, c: int) -> str:
        """unsupported() in the CSV's words (English in every language); "" where it runs."""
        why, missing = self.unsupported(c)
        chip = self.chips[c].name
        if why == "link":
            return f"{chip} has no {self.workload.link} level to join {self.chips_joined} chips"
        return f"{chip} has no {' or '.join(missing)} ceiling" if why else ""

    def dominant(self, c: int) -> int:
        """The entry that takes the most time on chip ``c`` (-1 where the chip cannot run it)."""
        column = self.entry_time[:, c]
        return -1 if not np.isfinite(self.time[c]) else int(np.nanargmax(column))

    def batch_that_fits(self, c: int) -> int | None:
        """The largest batch whose weights and KV cache fit in chip ``c``'s main memory (0: not
        even one; None: unknown). Resident bytes grow linearly with the batch."""
        cap = self.capacity[c]
        if not np.isfinite(cap) or not np.isfinite(self.built.resident_bytes):
            return None
        one, per = self._resident_by_batch
        if one > cap:
            return 0
        return 10**7 if per <= 0 else int(1 + (cap - one) // per)

    @cached_property
    def _resident_by_batch(self) -> tuple[float, float]:
        """(bytes held at batch 1, more bytes per sequence): built once, for every chip."""
        w = replace(self.workload, global_batch=0)  # a training micro-batch alone
        # attention data parallel: each chip holds ⌈B/N⌉ sequences' caches, so measure the
        # growth over N sequences
        step = w.chips_per_model if w.attention_data_parallel and not w.training else 1
        first = build(replace(w, batch=step), self.kernels).resident_bytes
        per = (build(replace(w, batch=2 * step), self.kernels).resident_bytes - first) / step
        return first - (step - 1) * per, per

    def dominant_name(self, c: int) -> str:
        e = self.dominant(c)
        return self.entries[e].kernel.name if e >= 0 else ""

    def csv_row(self, c: int) -> dict[str, str]:
        w = self.workload
        transformer = w.kind == "transformer"
        f = self.training
        train = {} if f is None else {
            "data_parallel": str(w.data_parallel), "pipeline_parallel": str(w.pipeline_parallel),
            "global_batch": str(w.sequences_per_step), "chips_total": str(f.chips),
            "model_flops_per_token": csv_number(f.model_flops_per_item),
            "mfu_at_bound": csv_number(float(self.mfu_at_bound[c])),
            "state_bytes_per_chip": csv_number(f.state_bytes),
            "activation_bytes_per_chip": csv_number(f.activation_bytes),
            "fits": "" if not np.isfinite(self.capacity[c]) else "yes" if self.fits[c] else "no",
            "train_days": csv_number(float(self.train_days[c])),
            "chip_hours": csv_number(float(self.chip_hours[c]))}
        return {
            "chip": self.chips[c].name, "workload": w.name,
            "phase": w.phase if transformer or f else "inference", "batch": str(w.batch),
            "sequence": str(w.sequence) if transformer and w.phase in ("prefill", "train") else "",
            "context": str(w.context) if transformer and w.phase == "decode" else "",
            "chips_per_model": str(w.chips_per_model),
            # a custom workload's kernels carry their own precisions
            "weights": w.weights if w.kind != "custom" else "",
            "activations": w.activations if w.kind != "custom" else "",
            "kv_cache": w.kv_cache if transformer else "",
            "time_s": csv_number(self.time[c]), "time_no_overlap_s": csv_number(self.time_no_overlap[c]),
            "throughput_per_s": csv_number(self.throughput[c]), "throughput_unit": w.throughput_unit,
            "memory_bound_time_share": csv_number(self.memory_bound_share[c]),
            "communication_time_share": csv_number(self.communication_share[c]),
            "dominant_kernel": self.dominant_name(c),
            "unsupported_reason": self.unsupported_reason(c),
            **dict.fromkeys(WORKLOAD_CSV_COLUMNS[WORKLOAD_CSV_COLUMNS.index("data_parallel"):
                                                 WORKLOAD_CSV_COLUMNS.index("speedup_if_2x_compute")],
                            ""),
            # whether the weights and caches fit, for every phase that knows its size
            "fits": "" if not (np.isfinite(self.capacity[c]) and np.isfinite(
                self.built.resident_bytes)) else "yes" if self.fits[c] else "no",
            **train,
            **{f"speedup_if_2x_{k}": csv_number(float(v[c])) for k, v in self.worth.items()},
            **self._energy_row(c),
            **self._size_row(),
            **dict.fromkeys(WORKLOAD_CSV_COLUMNS[WORKLOAD_CSV_COLUMNS.index("concurrency"):], ""),
        }

    def _size_row(self) -> dict[str, str]:
        b = self.built
        known = b.parameters > 0  # a custom workload of the session's kernels has no model size
        return {"parameters": csv_number(b.parameters) if known else "",
                "active_parameters": csv_number(b.active_parameters) if known else "",
                "weight_bytes_per_chip": csv_number(b.weight_bytes) if known else "",
                "kv_cache_bytes_per_chip": csv_number(b.kv_cache_bytes) if known else ""}

    def _energy_row(self, c: int) -> dict[str, str]:
        e = self.energy
        if not np.isfinite(e.per_step[c]) or not np.isfinite(self.time[c]):
            return dict.fromkeys(("energy_per_step_j", "joules_per_item", "average_power_w",
                                  "power_capped", "energy_basis", "cost_per_million_items"), "")
        return {"energy_per_step_j": csv_number(float(e.per_step[c])),
                "joules_per_item": csv_number(float(e.per_item[c])),
                "average_power_w": csv_number(float(e.average_power[c])),
                "power_capped": "yes" if e.capped[c] else "no",
                "energy_basis": energy_basis(bool(e.capped[c]), bool(e.held[c])),
                "cost_per_million_items": csv_number(float(e.cost_per_million[c]))}

    # -- energy, power and cost (core.energy) ----------------------------------------------------

    @cached_property
    def energy(self) -> WorkloadEnergy:
        """Each chip's energy per step, power, power cap and cost (NaN without energy data)."""
        rows = self.rows
        ke = kernel_energy(self.evaluation, self.chips, rows)  # [E, C]: this workload's entries
        ops = self.counts * self.evaluation.kernel_arrays.ops[rows]  # [E] ops of all runs
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            kernels = (ops[:, None] * ke.capped_per_op).sum(axis=0)
            entry_time = ops[:, None] / ke.capped_rate
            _op, _byte_j, p0, board = chip_constants(self.chips)
            link_j = link_constants(self.chips, self.workload.link)  # its first level's
            link = np.nan_to_num(self.built.link_bytes * link_j) + p0 * self.link_time
            # with estimates the link has no figure of its own: the board power over its time
            link = np.where(estimated(self.chips) & (link_j == 0), board * self.link_time, link)
            bubble = self.bubble_of(entry_time)
            step = kernels + link + p0 * bubble  # J per chip per step
            by_figures = (ops[:, None] * ke.per_op).sum(axis=0) + link + p0 * bubble
            time = self.step_time(entry_time, self.link_time)
            # The step as a whole held to the board power (overlapped parts add their energy):
            # with given constants its time stretches until the power fits; with estimates
            # (upper bounds) the energy is at most the board power over the time instead.
            guessed = estimated(self.chips)
            over = step / time > board
            capped = ~guessed & (step / time > board * (1 + CAP_SLOWDOWN))
            stretched = np.maximum((step - p0 * time) / (board - p0), time)
            step = np.where(guessed & over, board * time, step)
            time = np.where(~guessed & over, stretched, time)
            step = np.where(np.isfinite(board), step, np.nan)
            per_step_chips = (self.training.chips if self.training is not None
                              else self.workload.chips_per_model)
            items = self.workload.per_step_items()
            joules_per_item = step * per_step_chips / items
            capped = capped | (ke.capped & (self.counts[:, None] > 0)).any(axis=0)
            held = (guessed & over) | (ke.held & (self.counts[:, None] > 0)).any(axis=0)
            price = np.array([c.energy.price_per_hour if c.energy is not None and
                              c.energy.price_per_hour is not None else np.nan
                              for c in self.chips])
            cost = price * per_step_chips / 3600 * time / items * 1e6
        compute = (ops[:, None] * ke.compute_per_op).sum(axis=0)
        return WorkloadEnergy(step, compute, joules_per_item, np.minimum(step / time, board),
                              capped & np.isfinite(step), cost, time, board,
                              held & ~capped & np.isfinite(step), by_figures)

    @cached_property
    def worth(self) -> dict[str, np.ndarray]:
        """{ceiling: [C]} the speedup with that ceiling alone twice as high (core.worth)."""
        return workload_speedups(self)


def csv_number(x: float) -> str:
    """A CSV cell: six significant figures, empty where the number is not finite."""
    return "" if not np.isfinite(x) else f"{x:.6g}"


def link_bandwidth(chips: Sequence[Chip], role: str, ca: ChipArrays, derated: bool) -> np.ndarray:
    """[C] B/s of each chip's first level of ``role`` (NaN where it has none)."""
    bw = ca.read_bandwidth(derated)
    out = np.full(len(chips), np.nan)
    for c in range(len(chips)):
        hits = np.flatnonzero(ca.role[c] == ROLE_INDEX[role])
        if hits.size:
            out[c] = bw[c, hits[0]]
    return out


#: the built workloads' entry arrays: the document's set, a variant's (core.identity_cache)
_ENTRY_ARRAYS: IdentityCache[KernelArrays] = IdentityCache(4)


def _entry_arrays(built: Sequence[Built]) -> KernelArrays:
    """Every entry's kernel of ``built`` as arrays, worked out once for the same built
    workloads (a roof's drag evaluates them on new chips at every step)."""
    return _ENTRY_ARRAYS.get(built, lambda: KernelArrays.from_kernels(
        [e.kernel for b in built for e in b.entries]))


def evaluate_workloads(
    workloads: Sequence[Workload],
    chips: Sequence[Chip],
    *,
    derated: bool = False,
    kernels: Mapping[str, Kernel] | None = None,
    built: Sequence[Built] | None = None,
    same_width: bool = False,
) -> list[WorkloadResult]:
    """Every workload on every chip, in one roofline evaluation of all their entries
    (``same_width``: as in core.comparison.compare)."""
    chips = tuple(chips)
    built = list(built) if built is not None else [build(w, kernels) for w in workloads]
    ca = ChipArrays.from_chips(chips, same_width)
    result = evaluate(_entry_arrays(built), ca, derated=derated)
    links: dict[str, np.ndarray] = {}
    out, start = [], 0
    for w, b in zip(workloads, built, strict=True):
        if w.link not in links:
            links[w.link] = link_bandwidth(chips, w.link, ca, derated)
        rows = slice(start, start + len(b.entries))
        out.append(WorkloadResult(w, b, chips, rows, result, links[w.link], kernels))
        start = rows.stop
    return out


#: The batch sweep's batches: powers of two from 1 to 4096 (13 points).
SWEEP_BATCHES = tuple(2**i for i in range(13))


def batch_sweep(workload: Workload, chips: Sequence[Chip], batches: Sequence[int] = SWEEP_BATCHES,
                *, derated: bool = False, kernels: Mapping[str, Kernel] | None = None,
                ) -> list[WorkloadResult]:
    """The workload at each batch, all evaluated together (latency-throughput trade-off)."""
    variants = [with_field(workload, "batch", int(b)) for b in batches]
    return evaluate_workloads(variants, chips, derated=derated, kernels=kernels)


@dataclass(frozen=True)
class WeightsSweep:
    """The weight bytes a step reads per token, per chip, as the batch grows; beside it two dense
    models that read the same bytes every step however large the batch: one as large as all the
    weights the chip holds, one as large as what one token reads. A dense model's line falls as
    1/B; a mixture of experts' falls slower while each new token brings experts not yet read,
    and joins the first once every expert is read."""

    batches: np.ndarray
    tokens: np.ndarray  # per step: B in decode, B·S in prefill
    per_token: np.ndarray  # B per token
    dense_all: np.ndarray  # all held weights ÷ tokens
    dense_active: np.ndarray  # one token's weights ÷ tokens


def weights_sweep(workload: Workload, batches: Sequence[int] = SWEEP_BATCHES) -> WeightsSweep:
    variants = [with_field(workload, "batch", int(b)) for b in batches]
    built = [build(v) for v in variants]
    tokens = np.array([v.tokens() for v in variants], dtype=float)
    read = np.array([sum(e.weight_bytes * e.count for e in b.entries) for b in built])
    one = build(replace(workload, batch=1, sequence=1, phase="decode"))
    first = sum(e.weight_bytes * e.count for e in one.entries)
    return WeightsSweep(np.array(batches, dtype=float), tokens, read / tokens,
                        built[0].weight_bytes / tokens, first / tokens)


def workload_rows(results: Sequence[WorkloadResult]) -> list[dict[str, str]]:
    return [r.csv_row(c) for r in results for c in range(len(r.chips))]


def communication_dominates_at(workload: Workload, chips: Sequence[Chip], *,
                               derated: bool = False, most: int = 64) -> list[int | None]:
    """Per chip, the smallest N (a power of two up to ``most``) at which the link takes more
    time than the kernels (None: never, or the chip has no such link)."""
    heads = build(workload).heads
    ns = [2**i for i in range(1, most.bit_length()) if 2**i <= most and heads % 2**i == 0]
    if not ns:
        return [None] * len(chips)
    # the experts stay spread over as many of the N chips as both allow
    results = evaluate_workloads([replace(workload, chips_per_model=n,
                                          expert_parallel=math.gcd(workload.expert_parallel, n))
                                  for n in ns], chips,
                                 derated=derated)
    return [next((r.workload.chips_per_model for r in results
                  if r.communication_share[c] > 0.5), None) for c in range(len(chips))]
