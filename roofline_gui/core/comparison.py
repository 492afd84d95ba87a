"""Comparison: one evaluation of a set of kernels on a set of chips, with names attached.

Everything the views show about a (kernel, chip) pair comes from here: the table, the CSV, the
canvas markers and the explanation pane, so they can never disagree.
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from roofline_gui.core.chip import Chip
from roofline_gui.core.energy import energy_basis, kernel_energy
from roofline_gui.core.identity_cache import IdentityCache
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.roofline import (
    BOUND_NAMES,
    LIMITER_COMPUTE,
    LIMITER_UNSUPPORTED,
    ChipArrays,
    Evaluation,
    KernelArrays,
    evaluate,
)
from roofline_gui.core.units import MEMORY_ROLES, PRECISIONS, format_plain
from roofline_gui.core.worth import CEILINGS, speedups

#: the kernel set's measured rows, one set at a time: the document's (core.identity_cache)
_MEASURED_ROWS: IdentityCache[list[int]] = IdentityCache(1)

CSV_COLUMNS = (
    "chip",
    "kernel",
    "precision",
    # the precision the chip computes it at: its own, or a stand-in's (the V100 runs bf16 at
    # its fp16: a row saying bf16 beside fp16's roof read as a disagreement, the 38th tour);
    # empty where it cannot run it
    "runs_at_precision",
    "intensity_flop_per_byte",
    "attainable_flop_per_s",
    "bound",
    "limiter",
    "ridge_flop_per_byte",
    "time_s",
    "percent_of_peak",
    # measured columns, filled for kernels that carry a measurement
    "measured_flop_per_s",
    "measured_percent_of_roof",
    # bytes per call at each memory role, empty where the kernel moves none there
    *(f"{role}_bytes" for role in MEMORY_ROLES),
    # what each ceiling is worth: the speedup with it alone twice as high (core.worth)
    "speedup_if_2x_compute", *(f"speedup_if_2x_{role}" for role in MEMORY_ROLES),
    # energy and power (core.energy), at the power cap where the board's power binds; empty
    # for a chip without energy data (and the energy for a kernel without a size)
    "energy_j", "flop_per_joule", "average_power_w", "power_capped",
    # what the energy counts: "figures", "board power x time" or "capped rate" (core.energy)
    "energy_basis",
)


@dataclass(frozen=True)
class Comparison:
    """The kernels and chips of a document, as arrays, and their evaluation (``result``)."""

    kernels: tuple[Kernel, ...]
    chips: tuple[Chip, ...]
    kernel_arrays: KernelArrays
    chip_arrays: ChipArrays
    result: Evaluation
    #: (the comparison this one patched, by weak reference; the kernel rows it changed) where
    #: the evaluator re-evaluated a few rows of it (a drag step), else None: what is derived
    #: row by row (the chart's points per memory level) can be patched the same way
    patched_from: tuple | None = field(default=None, compare=False, repr=False)

    def limiter_name(self, k: int, c: int) -> str:
        """The ceiling that limits kernel k on chip c: a level name or '<precision> peak'."""
        code = int(self.result.limiter[k, c])
        if code == LIMITER_UNSUPPORTED:
            return f"no {self.kernels[k].precision} on this chip"
        if code == LIMITER_COMPUTE:
            stand_in = self.stand_in(k, c)
            return (f"{stand_in} peak (for {self.kernels[k].precision})" if stand_in
                    else f"{self.kernels[k].precision} peak")
        return self.chips[c].memory[code].name

    def limiting_level(self, k: int, c: int):
        """The memory level whose bandwidth limits kernel k on chip c, or None where a compute
        peak does (or the chip cannot run it)."""
        code = int(self.result.limiter[k, c])
        return self.chips[c].memory[code] if code >= 0 else None

    def stand_in(self, k: int, c: int) -> str | None:
        """The precision chip ``c`` runs kernel ``k`` at in place of its own (the same width,
        View → Same-width precisions), or None."""
        s = self.chip_arrays.stand_in_for(c, int(self.kernel_arrays.precision[k]))
        return PRECISIONS[s] if s >= 0 else None

    def bound_name(self, k: int, c: int) -> str:
        return BOUND_NAMES[int(self.result.cell("bound", k, c))]

    @cached_property
    def kernel_index(self) -> dict[str, int]:
        """Kernel id -> row, built once per comparison (views look kernels up by id)."""
        return {k.id: i for i, k in enumerate(self.kernels)}

    @cached_property
    def chip_index(self) -> dict[str, int]:
        return {c.id: i for i, c in enumerate(self.chips)}

    @cached_property
    def dram_intensity(self) -> np.ndarray:
        """[K] ops per dram byte, the x of the main-memory chart (a kernel with no main-memory
        bytes: per byte at the first level it moves bytes through, KernelArrays.shown_intensity)."""
        return self.kernel_arrays.shown_intensity()

    def speedup(self, baseline: int) -> np.ndarray:
        """[K, C] attainable on each chip ÷ attainable on the baseline chip (= time ratio)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.result.attainable / self.result.attainable[:, baseline : baseline + 1]

    @cached_property
    def measured_rows(self) -> list[int]:
        """Rows of the kernels that carry a measurement (usually few of thousands); found once
        per kernel set (a roof's drag makes a comparison a step of the same kernels)."""
        return _MEASURED_ROWS.get((self.kernels,), lambda: [
            k for k, kernel in enumerate(self.kernels) if kernel.is_measured])

    def measured_rate(self, k: int) -> float | None:
        """Kernel k's measured op/s (its measured rate, else its ops over its measured time)."""
        kernel = self.kernels[k]
        if kernel.measured_flops is not None:
            return kernel.measured_flops
        if kernel.measured_time is not None and kernel.has_size:
            return float(self.kernel_arrays.ops[k]) / kernel.measured_time  # ops already derived
        return None

    def measured(self, k: int, c: int) -> tuple[float | None, float | None]:
        """(measured op/s, percent of this chip's modelled roof) for kernel k, or Nones."""
        rate = self.measured_rate(k)
        if rate is None:
            return None, None
        roof = float(self.result.attainable[k, c])
        return rate, (rate / roof * 100.0 if np.isfinite(roof) and roof > 0 else None)

    def row(self, k: int, c: int) -> dict[str, str]:
        """One CSV row: plain SI numbers, empty where there is no value."""
        r = self.result
        rate, percent = self.measured(k, c)
        return {
            "chip": self.chips[c].name,
            "kernel": self.kernels[k].name,
            "precision": self.kernels[k].precision,
            "runs_at_precision": ("" if int(r.limiter[k, c]) == LIMITER_UNSUPPORTED else
                                  self.stand_in(k, c) or self.kernels[k].precision),
            "intensity_flop_per_byte": format_plain(float(self.dram_intensity[k])),
            "attainable_flop_per_s": format_plain(float(r.attainable[k, c])),
            "bound": self.bound_name(k, c),
            "limiter": self.limiter_name(k, c),
            "ridge_flop_per_byte": format_plain(float(r.ridge_dram[k, c])),
            "time_s": format_plain(float(r.time[k, c])),
            "percent_of_peak": format_plain(float(r.percent_of_peak[k, c])),
            "measured_flop_per_s": format_plain(rate),
            "measured_percent_of_roof": format_plain(percent),
            **{f"{role}_bytes": (format_plain(float(self.kernel_arrays.bytes[k, i]))
                                 if self.kernels[k].has_size else "")
               for i, role in enumerate(MEMORY_ROLES)},
        }

    def rows(self) -> list[dict[str, str]]:
        """Rows chip by chip, kernels in document order within each chip."""
        worth = speedups(self.result)
        e = self.energy
        ops = self.kernel_arrays.ops

        def energy(k: int, c: int) -> dict[str, str]:
            power = float(e.capped_power[k, c])
            if not np.isfinite(power):
                return {"energy_j": "", "flop_per_joule": "", "average_power_w": "",
                        "power_capped": "", "energy_basis": ""}
            per_op = float(e.capped_per_op[k, c])
            joules = per_op * float(ops[k]) if self.kernels[k].has_size else np.nan
            # the table's op/J (the tour found only joules per call here)
            return {"energy_j": format_plain(joules), "flop_per_joule": format_plain(1 / per_op),
                    "average_power_w": format_plain(power),
                    "power_capped": "yes" if e.capped[k, c] else "no",
                    "energy_basis": energy_basis(bool(e.capped[k, c]), bool(e.held[k, c]))}

        return [{**self.row(k, c),
                 **{f"speedup_if_2x_{name}": format_plain(float(worth[name][k, c]))
                    for name in CEILINGS}, **energy(k, c)}
                for c in range(len(self.chips)) for k in range(len(self.kernels))]

    @cached_property
    def energy(self):
        """Energy, power and the power cap of every kernel on every chip (core.energy)."""
        return kernel_energy(self.result, self.chips)

    def energy_of(self, k: int):
        """The same for kernel ``k`` alone ([1, C] arrays): what a table row or an explanation
        needs, without the whole [K, C] model on a drag step (5 ms at 10,000 x 30)."""
        if "energy" in self.__dict__:
            return self.energy.row(k)
        rows = self.__dict__.setdefault("_energy_rows", {})
        if k not in rows:
            rows[k] = kernel_energy(self.result, self.chips, slice(k, k + 1))
        return rows[k]


def compare(
    kernels: Sequence[Kernel], chips: Sequence[Chip], *, derated: bool = False,
    same_width: bool = False,
) -> Comparison:
    """Every kernel on every chip. ``same_width``: a chip lacking a kernel's precision runs it at
    its own precision of the same width (fp16 for bf16, fp8 for int8, and back)."""
    ka = KernelArrays.from_kernels(kernels)
    ca = ChipArrays.from_chips(chips, same_width)
    return Comparison(tuple(kernels), tuple(chips), ka, ca, evaluate(ka, ca, derated=derated))


def changed_rows(old: Sequence, new: Sequence) -> list[int]:
    """Indices where ``old`` and ``new`` (of one length) hold different objects. The identity
    test runs in C (``map(operator.is_not, ...)``): several times faster than a Python loop on
    every drag step (docs/performance.md)."""
    return np.flatnonzero(np.fromiter(map(operator.is_not, old, new), dtype=bool,
                                      count=len(new))).tolist()


def _measured_rows_after(before: list[int], changed: Sequence[int], kernels: Sequence[Kernel]) -> list[int]:
    """Comparison.measured_rows after the kernels at ``changed`` were replaced (a drag step
    asks it of one row, not of 10,000 kernels)."""
    changed = set(changed)
    kept = [k for k in before if k not in changed]
    return sorted(kept + [k for k in changed if kernels[k].is_measured])


class Evaluator:
    """Re-evaluates after an edit, recomputing ops and bytes only for kernels that changed.

    Documents are immutable, so an unchanged kernel is the very same object in the new document;
    its derived traffic is reused. Chip arrays are reused while the chips are the same objects,
    and then only the changed kernels' rows are evaluated again (a drag step changes one row of
    10,000).
    """

    def __init__(self) -> None:
        self._traffic: dict[str, tuple[Kernel, object]] = {}
        self._kernels: tuple[Kernel, ...] = ()
        self._arrays: KernelArrays | None = None
        self._changed: list[int] | None = None  # rows patched by the last _kernel_arrays call
        self._chips: tuple[Chip, ...] = ()
        self._chip_arrays: ChipArrays | None = None
        self._same_width = False
        self._last: Comparison | None = None

    def compare(
        self, kernels: Sequence[Kernel], chips: Sequence[Chip], *, derated: bool = False,
        same_width: bool = False,
    ) -> Comparison:
        kernels = tuple(kernels)
        ka = self._kernel_arrays(kernels)
        changed = self._changed
        chips = tuple(chips)
        if self._chip_arrays is None or len(chips) != len(self._chips) or any(
            a is not b for a, b in zip(chips, self._chips, strict=True)
        ) or self._same_width != same_width:
            self._chips, self._same_width = chips, same_width
            self._chip_arrays = ChipArrays.from_chips(chips, same_width)
            changed = None
        last = self._last
        if (changed is not None and last is not None and last.chip_arrays is self._chip_arrays
                and last.result.derated == derated):
            sub = evaluate(ka.take(changed), self._chip_arrays, derated=derated)
            result = last.result.patched(changed, ka, sub)
            comparison = Comparison(kernels, chips, ka, self._chip_arrays, result,
                                    (weakref.ref(last), tuple(changed)))
            if "kernel_index" in last.__dict__:  # same ids in the same order
                comparison.__dict__["kernel_index"] = last.kernel_index
            if "measured_rows" in last.__dict__:  # only the changed rows are looked at again
                comparison.__dict__["measured_rows"] = _measured_rows_after(
                    last.measured_rows, changed, kernels)
        else:
            result = evaluate(ka, self._chip_arrays, derated=derated)
            comparison = Comparison(kernels, chips, ka, self._chip_arrays, result)
        self._last = comparison
        return comparison

    def _traffic_of(self, kernel: Kernel):
        cached = self._traffic.get(kernel.id)
        if cached is None or cached[0] is not kernel:
            cached = (kernel, kernel.traffic())
            self._traffic[kernel.id] = cached
        return cached[1]

    def _kernel_arrays(self, kernels: tuple[Kernel, ...]) -> KernelArrays:
        """The arrays of ``kernels``: when only a few kernels changed since the last call (same
        ids in the same order), only their rows are recomputed."""
        last, arrays = self._kernels, self._arrays
        self._changed = None
        if arrays is not None and len(last) == len(kernels):
            # Unchanged kernels are the same objects; only the others need their ids compared.
            changed = changed_rows(last, kernels)
            if len(changed) <= max(8, len(kernels) // 8) and all(
                last[i].id == kernels[i].id for i in changed
            ):
                if changed:
                    picked = [kernels[i] for i in changed]
                    arrays = arrays.with_rows(changed, [self._traffic_of(k) for k in picked],
                                              [k.precision for k in picked],
                                              [k.has_size for k in picked])
                self._kernels, self._arrays, self._changed = kernels, arrays, changed
                return arrays
        traffic = [self._traffic_of(k) for k in kernels]
        if len(self._traffic) > 2 * len(kernels) + 64:  # forget removed kernels
            live = {k.id for k in kernels}
            self._traffic = {i: v for i, v in self._traffic.items() if i in live}
        arrays = KernelArrays.from_traffic(
            traffic, [k.precision for k in kernels], [k.has_size for k in kernels]
        )
        self._kernels, self._arrays = kernels, arrays
        return arrays
