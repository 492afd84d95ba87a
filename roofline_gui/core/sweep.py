"""Moving a kernel along the intensity axis: what dragging its marker means.

A template kernel moves by its main parameter (the batch size, a size, fused steps); a kernel
given by ops and bytes moves by its ops (bytes stay, so its intensity changes); an
intensity-only kernel moves by its intensity. ``sweep`` gives the whole path a template kernel
can take as its main parameter runs over its range, evaluated in one vectorised call.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from roofline_gui.core.i18n import _
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.roofline import KernelArrays
from roofline_gui.core.templates import TEMPLATES, place
from roofline_gui.core.units import MEMORY_ROLES, PRECISION_INDEX, ROLE_INDEX

#: Templates whose intensity does not depend on their parameters (STREAM kernels by design).
FIXED_INTENSITY = frozenset({"triad", "dot"})


def main_param_values(kernel: Kernel, points: int = 400) -> np.ndarray:
    """Candidate values of the main parameter, geometric over its range, whole numbers."""
    template = TEMPLATES[kernel.template]
    spec = template.param(template.main_param)
    values = np.geomspace(spec.minimum, spec.maximum, points)
    if not spec.integer:
        return values
    rounded = np.round(values)  # increasing, so duplicates are neighbours (and np.unique would
    return rounded[np.concatenate([[True], np.diff(rounded) > 0])]  # import numpy.ma: docs/performance.md)


def sweep(kernel: Kernel, points: int = 400) -> tuple[np.ndarray, KernelArrays]:
    """The main-parameter values and the kernel at each, as KernelArrays (one row per value)."""
    template = TEMPLATES[kernel.template]
    values = main_param_values(kernel, points)
    params = {**template.defaults(), **kernel.params, template.main_param: values}
    traffic = place(template.operands, template.function(params, kernel.bytes_per_value),
                    kernel.resides)
    n = len(values)
    nbytes = np.full((n, len(MEMORY_ROLES)), np.nan)
    writes = np.zeros((n, len(MEMORY_ROLES)))
    for role, value in traffic.bytes.items():
        nbytes[:, ROLE_INDEX[role]] = value
    for role, value in traffic.writes.items():
        writes[:, ROLE_INDEX[role]] = value
    ka = KernelArrays(
        ops=np.broadcast_to(np.asarray(traffic.ops, dtype=float), (n,)).copy(),
        bytes=nbytes,
        writes=writes,
        precision=np.full(n, PRECISION_INDEX[kernel.precision], dtype=np.intp),
        sized=np.ones(n, dtype=bool),
    )
    return values, ka


def can_move(kernel: Kernel) -> bool:
    return kernel.template not in FIXED_INTENSITY


#: A path ends where its intensity comes within this fraction of the furthest it reaches: past
#: that, a larger parameter only creeps towards the limit (a CNN layer's batch from 1,000 to
#: 1,000,000 for its last tenth of a percent), and a drag would jump there for nothing.
REACH_TOLERANCE = 0.01


@dataclass(frozen=True)
class Move:
    """Where a kernel goes when dragged to an intensity, and why it stopped short, if it did."""

    kernel: Kernel
    note: str = ""


def with_intensity(kernel: Kernel, target: float) -> Kernel:
    """The kernel changed so that its dram intensity is as close to ``target`` as it can be."""
    return move_to_intensity(kernel, target).kernel


def move_to_intensity(kernel: Kernel, target: float) -> Move:
    """The kernel moved towards ``target`` (op/B) along the reachable part of its path: a
    template kernel by its main parameter, never past the value where its intensity stops
    growing (REACH_TOLERANCE), with a note saying so; other kernels by their ops or intensity."""
    if not (np.isfinite(target) and target > 0):
        return Move(kernel)
    if kernel.template is None:
        if kernel.flops is not None:
            dram = kernel.bytes.get("dram")
            return Move(replace(kernel, flops=float(target * dram)) if dram else kernel)
        return Move(replace(kernel, intensity=float(target)))
    if not can_move(kernel):
        return Move(kernel)
    values, ka = sweep(kernel)
    intensity = ka.shown_intensity()
    best, note, limit = _along_path(values, intensity, target)
    spec = TEMPLATES[kernel.template].param(TEMPLATES[kernel.template].main_param)
    if note:
        note = note.format(kernel=kernel.name, limit=limit, param=_(spec.label), best=f"{best:,.0f}",
                           reached=f"{intensity[values == best][0]:,.4g}")
    if kernel.params.get(spec.name) == best:
        return Move(kernel, note)
    return Move(kernel.with_params(**{spec.name: best}), note)


def _along_path(values: np.ndarray, intensity: np.ndarray,
                target: float) -> tuple[float, str, str]:
    """The parameter value nearest ``target`` on the reachable part of the path, and a note
    (to fill in) with the intensity it cannot pass when the target lies beyond either end."""
    ok = np.isfinite(intensity) & (intensity > 0)
    values, intensity = values[ok], intensity[ok]
    hi, lo = float(intensity.max()), float(intensity.min())
    if target >= hi * (1 - REACH_TOLERANCE):
        end = int(np.argmax(intensity >= hi * (1 - REACH_TOLERANCE)))
        return float(values[end]), _(
            "{kernel}: its intensity cannot pass {limit} op/B by changing its {param} ({param} = "
            "{best} reaches {reached} op/B)"), f"{hi:,.4g}"
    if target <= lo * (1 + REACH_TOLERANCE):
        end = int(np.argmax(intensity <= lo * (1 + REACH_TOLERANCE)))
        return float(values[end]), _(
            "{kernel}: its intensity cannot go below {limit} op/B by changing its {param} ({param} "
            "= {best} reaches {reached} op/B)"), f"{lo:,.4g}"
    return float(values[int(np.argmin(np.abs(np.log(intensity) - np.log(target))))]), "", ""


def describe_move(kernel: Kernel) -> str:
    """What a move changed, for the undo text: 'batch B = 64' or 'intensity 2.5 op/B'."""
    if kernel.template is not None:
        template = TEMPLATES[kernel.template]
        spec = template.param(template.main_param)
        return f"{_(spec.label)} = {kernel.params.get(spec.name, spec.default):,.0f}"
    traffic = kernel.traffic()
    return _("intensity {value} op/B").format(value=f"{traffic.ops / traffic.bytes['dram']:,.4g}")
