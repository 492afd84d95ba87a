"""What each ceiling is worth (issue 27, item 3): the speedup of every kernel and workload on
every chip if one ceiling alone were twice as high, exact from the per-precision compute time
and the per-level memory times (no sampling). Doubling the compute roof halves the compute
time; doubling a memory role's bandwidth halves the time of every level of that role; a
workload's link time halves with its link role. 1 where the kernel does not use the ceiling;
NaN where it cannot run.
"""

from __future__ import annotations

import numpy as np

from roofline_gui.core.i18n import _, clauses
from roofline_gui.core.roofline import Evaluation, _level_times
from roofline_gui.core.units import MEMORY_ROLES

#: The ceilings, in the CSVs' order: the compute roof at each kernel's precision, each memory role.
CEILINGS: tuple[str, ...] = ("compute", *MEMORY_ROLES)
CSV_COLUMNS: tuple[str, ...] = tuple(f"speedup_if_2x_{c}" for c in CEILINGS)


def doubled_times(ev: Evaluation, ceiling: str) -> np.ndarray:
    """[K, C] the lower time bound of every pair with ``ceiling`` twice as high."""
    ka, ca = ev.kernel_arrays, ev.chip_arrays
    compute = ev.compute_time / (2.0 if ceiling == "compute" else 1.0)
    memory = np.full(compute.shape, -np.inf)
    for level, t in _level_times(ka, ca, ev.derated):
        roles = ca.role[:, level]
        factor = np.where(roles == (MEMORY_ROLES.index(ceiling) if ceiling in MEMORY_ROLES else -9),
                          0.5, 1.0)
        np.fmax(memory, t * factor[None, :], out=memory)
    return np.maximum(compute, memory)


def speedups(ev: Evaluation) -> dict[str, np.ndarray]:
    """{ceiling: [K, C] time now ÷ time with that ceiling doubled}."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return {c: ev.time_lower / doubled_times(ev, c) for c in CEILINGS}


def workload_speedups(result) -> dict[str, np.ndarray]:
    """{ceiling: [C]} for a workload (core.workload_eval.WorkloadResult): its kernels' times
    with the ceiling doubled, summed with their counts, and its link time halved where the
    ceiling is its link role."""
    ev, rows, counts = result.evaluation, result.rows, result.counts
    out = {}
    for c in CEILINGS:
        entries = counts[:, None] * doubled_times(ev, c)[rows]
        link = result.link_time / (2.0 if c == result.workload.link else 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[c] = result.time / result.step_time(entries, link)
    return out


def worth_text(values: dict[str, float], names: dict[str, str]) -> str:
    """'2× HBM2 → 1.93× faster; 2× the bf16 peak → 1.02×', largest first, the ceilings the work
    uses only (a speedup above 1, or the compute roof); "" when nothing runs."""
    used = [(c, v) for c, v in values.items() if np.isfinite(v) and (v > 1 + 1e-9 or c == "compute")]
    if not used:
        return ""
    used.sort(key=lambda cv: -cv[1])
    parts = [(_("2× {ceiling} → {times}× faster") if i == 0 else _("2× {ceiling} → {times}×")).format(
        ceiling=names.get(c, c), times=_times(v)) for i, (c, v) in enumerate(used)]
    return _("What each ceiling is worth, doubled alone: {parts}.").format(parts=clauses(parts))


def _times(v: float) -> str:
    """A speedup to 3 significant digits, but never "1" for one above 1: the tour read
    "2× HBM2 → 1× faster" beside "memory-bound on HBM2" for a 1.003× gain."""
    text, digits = f"{v:.3g}", 3
    while text == "1" and v > 1 + 1e-9 and digits < 10:
        digits += 1
        text = f"{v:.{digits}g}"
    return text
