"""The design space of one workload (issue 27, item 4; the view is to come): its step time on
a chip whose compute roof and main-memory bandwidth are scaled over a grid, every other ceiling
as the chip has it, exact from each entry's per-precision compute time and per-level times.

Scaling the compute roofs by p (every precision together, as a faster clock does) and main
memory by m: an entry's time is max(compute / p, main memory / m, every other level) and the
step is composed from the entries' times (times their counts) and the link time as the
workload's own step is (WorkloadResult.step_time). Vectorised: a 200 × 200
map of a 100-entry workload is one [entries, 200, 200] maximum and a sum.
"""

from __future__ import annotations

import numpy as np

from roofline_gui.core.chip import Chip
from roofline_gui.core.roofline import ChipArrays, _level_times
from roofline_gui.core.units import PRECISIONS, ROLE_INDEX


def entry_times(result, c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """([E] compute s, [E] main-memory s, [E] slowest other level s) of each entry's one run on
    chip ``c`` (NaN compute where the chip cannot run it)."""
    ev, rows = result.evaluation, result.rows
    ka, ca = ev.kernel_arrays, ev.chip_arrays
    compute = ev.compute_time[rows, c]
    dram = np.zeros(len(compute))
    other = np.zeros(len(compute))
    dram_role = ROLE_INDEX["dram"]
    for level, t in _level_times(ka, ca, ev.derated):
        times = np.nan_to_num(t[rows, c], nan=0.0)
        if ca.role[c, level] == dram_role:
            dram = np.maximum(dram, times)
        else:
            other = np.maximum(other, times)
    return compute, dram, other


def design_space(result, c: int, compute_factors: np.ndarray,
                 bandwidth_factors: np.ndarray) -> np.ndarray:
    """[len(compute_factors), len(bandwidth_factors)] seconds per step of the workload on chip
    ``c`` with its compute roofs × each compute factor and its main memory × each bandwidth
    factor (the chip itself at 1, 1)."""
    compute, dram, other = entry_times(result, c)
    counts = result.counts
    p = np.asarray(compute_factors, dtype=float)[None, :, None]
    m = np.asarray(bandwidth_factors, dtype=float)[None, None, :]
    per_entry = counts[:, None, None] * np.maximum(
        np.maximum(compute[:, None, None] / p, dram[:, None, None] / m), other[:, None, None])
    # composed as the workload's own step (result.step_time): in training the communication
    # hidden behind the kernels and the pipeline's bubble added (summed as in inference, the
    # map's own point read 6,281 images/s where the workload's table said 6,327)
    e, rows, cols = per_entry.shape
    link = np.full(rows * cols, float(result.link_time[c]))
    return result.step_time(per_entry.reshape(e, rows * cols), link).reshape(rows, cols)


def balance_ratio(result, c: int) -> float:
    """The bandwidth factor ÷ compute factor at which the step's compute and main-memory times
    are equal (the map's balance line, slope 1 on log axes): Σ main-memory time ÷ Σ compute."""
    compute, dram, _other = entry_times(result, c)
    counts = result.counts
    return float((counts * dram).sum() / (counts * np.nan_to_num(compute)).sum())


def chip_peak(result, chip: Chip, precision: str) -> float | None:
    """``chip``'s peak at ``precision`` as ``result``'s (a WorkloadResult's) evaluation takes
    it: its own, else the same-width (or wider) precision standing in for it (the V100's fp16
    for bf16: without it the design space "on V100" had no V100 dot, the fifth tour); None
    where neither."""
    arrays = ChipArrays.from_chips([chip], same_width=result.evaluation.chip_arrays.same_width)
    peak = float(arrays.peak[0, PRECISIONS.index(precision)])
    return peak if np.isfinite(peak) and peak > 0 else None
