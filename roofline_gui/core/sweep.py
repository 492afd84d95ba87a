"""Moving a kernel along the intensity axis: what dragging its marker means.

A template kernel moves by its main parameter (the batch size, a size, fused steps); a kernel
given by ops and bytes moves by its ops (bytes stay, so its intensity changes); an
intensity-only kernel moves by its intensity. ``sweep`` gives the whole path a template kernel
can take as its main parameter runs over its range, evaluated in one vectorised call.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from roofline_gui.core.kernel import Kernel
from roofline_gui.core.roofline import MEMORY_ROLES, PRECISION_INDEX, ROLE_INDEX, KernelArrays
from roofline_gui.core.templates import TEMPLATES

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
    traffic = template.function(params, kernel.bytes_per_value)
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


def with_intensity(kernel: Kernel, target: float) -> Kernel:
    """The kernel changed so that its dram intensity is as close to ``target`` as it can be."""
    if not (np.isfinite(target) and target > 0):
        return kernel
    if kernel.template is not None:
        if not can_move(kernel):
            return kernel
        values, ka = sweep(kernel)
        intensity = ka.intensity()[:, ROLE_INDEX["dram"]]
        best = float(values[np.nanargmin(np.abs(np.log(intensity) - np.log(target)))])
        name = TEMPLATES[kernel.template].main_param
        if kernel.params.get(name) == best:
            return kernel
        return kernel.with_params(**{name: best})
    if kernel.flops is not None:
        dram = kernel.bytes.get("dram")
        return replace(kernel, flops=float(target * dram)) if dram else kernel
    return replace(kernel, intensity=float(target))


def describe_move(kernel: Kernel) -> str:
    """What a move changed, for the undo text: 'batch B = 64' or 'intensity 2.5 op/B'."""
    if kernel.template is not None:
        template = TEMPLATES[kernel.template]
        spec = template.param(template.main_param)
        return f"{spec.label} = {kernel.params.get(spec.name, spec.default):,.0f}"
    intensity = kernel.traffic().ops / kernel.traffic().bytes["dram"]
    return f"intensity {intensity:,.4g} op/B"
