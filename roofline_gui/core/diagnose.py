"""Points above their roof, explained.

A measured (or imported) point above the roof it runs against breaks the model: nothing runs
faster than its roof. The usual reasons, in the order they are checked, are errors in the
numbers rather than in the chip, and each leaves its own fingerprint in the ratio of measured
to modelled performance and in where the point sits:

1. **A sparse peak counted as dense**: the chip's sparse (2:4) rate is twice its dense one, so a
   point that used sparsity sits up to 2× above the dense compute roof.
2. **Boost against base clock**: a peak at the base clock lies up to about 1.35× below what the
   chip runs at its boost clock.
3. **Cache traffic counted as main-memory bytes**: the data came from an on-chip cache, so fewer
   main-memory bytes moved than the count says; the point sits above the DRAM diagonal but
   under a cache level's.
4. **A MAC counted as one op** somewhere: the op count and the peak disagree by exactly 2×.
5. **A unit prefix off by 1,000** (GB for MB, TFLOP/s for GFLOP/s): about 1,000× above.
6. **A precision mismatch**: the kernel ran at another precision (tf32 tensor cores for an
   "fp32" GEMM) whose roof is above the point, or, memory-bound, stored its values in fewer
   bytes than its label says.

:func:`diagnose` says which of these fit the numbers; the explanation pane and the table show it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from roofline_gui.core.comparison import Comparison
from roofline_gui.core.i18n import CLAUSE_SEPARATOR, _
from roofline_gui.core.roofline import LIMITER_COMPUTE
from roofline_gui.core.units import BYTES_PER_VALUE, Units, format_si

#: Above its roof by more than this (1 %) a point is flagged: less is rounding in the figures.
TOLERANCE = 1.01
#: Precisions NVIDIA-style 2:4 sparsity doubles (the datasheets' "with sparsity" figures).
SPARSE_PRECISIONS = ("tf32", "bf16", "fp16", "fp8", "int8", "int4")
BOOST_MAX = 1.35  # boost clock over base clock, at most, for the chips in the presets


@dataclass(frozen=True)
class Cause:
    """A usual cause of a point above its roof, whether it fits this point, and why."""

    name: str
    fits: bool
    why: str


def above_roof(comparison: Comparison, k: int, c: int) -> float | None:
    """Measured ÷ modelled for kernel ``k`` on chip ``c`` when the point is above its roof
    (by more than TOLERANCE), else None."""
    rate, _percent = comparison.measured(k, c)
    roof = float(comparison.result.attainable[k, c])
    if rate is None or not np.isfinite(roof) or roof <= 0 or rate <= roof * TOLERANCE:
        return None
    return rate / roof


def above_every_roof(comparison: Comparison, rows, far: float = 10.0) -> tuple[int, int]:
    """Of the kernels at ``rows``: how many are measured above their roof on every chip that
    runs them, and how many of those more than ``far`` times above it (the chart keeps such a
    point out of its automatic range: core.chart_scene.OUTLIER_FACTOR)."""
    above = far_above = 0
    for k in rows:
        ratios = [above_roof(comparison, k, c) for c in range(len(comparison.chips))
                  if np.isfinite(comparison.result.attainable[k, c])]
        if ratios and all(r is not None for r in ratios):
            above += 1
            far_above += min(ratios) > far
    return above, far_above


def diagnose(comparison: Comparison, k: int, c: int, units: Units = Units()) -> list[Cause]:  # noqa: B008
    """The causes checked, in order, for a point above its roof (empty when it is not), each
    saying whether it fits the numbers and why."""
    ratio = above_roof(comparison, k, c)
    if ratio is None:
        return []
    kernel, chip = comparison.kernels[k], comparison.chips[c]
    r = comparison.result
    rate = comparison.measured_rate(k)
    code = int(r.limiter[k, c])
    compute_bound = code == LIMITER_COMPUTE
    intensity = float(comparison.dram_intensity[k])
    times = f"{ratio:.3g}×"
    causes = []
    memory_note = _("but the point is under the memory roof, not the compute roof")

    sparse = kernel.precision in SPARSE_PRECISIONS
    why = (_("{times} its {precision} roof; 2:4 sparsity doubles the dense peak, so a sparse run "
             "can reach up to 2×") if sparse else
           _("{times} its {precision} roof; 2:4 sparsity doubles the dense peak, so a sparse run "
             "can reach up to 2× (not at {precision})")).format(times=times,
                                                               precision=kernel.precision)
    causes.append(Cause(
        _("sparse peak counted as dense"),
        compute_bound and sparse and ratio <= 2.0 * TOLERANCE,
        why + ("" if compute_bound else _(CLAUSE_SEPARATOR) + memory_note)))
    causes.append(Cause(
        _("boost clock against a base-clock peak"),
        compute_bound and ratio <= BOOST_MAX,
        _("{times}: a peak quoted at the base clock is exceeded by up to {boost}× at boost").format(
            times=times, boost=f"{BOOST_MAX:g}")
        + ("" if compute_bound else _(CLAUSE_SEPARATOR) + _("but the point is memory-bound"))))

    # Cache bytes counted as main-memory bytes: the point under a cache level's diagonal.
    cache_fit = None
    for level in chip.memory:
        if level.role == "cache" and rate <= intensity * level.bandwidth * TOLERANCE:
            cache_fit = level
            break
    causes.append(Cause(
        _("cache traffic counted as main-memory bytes"),
        not compute_bound and cache_fit is not None,
        (_("at {intensity} op/B the {level} diagonal ({bandwidth}) is above the point: its data "
           "came from there, so fewer main-memory bytes were moved than counted").format(
            intensity=f"{intensity:,.4g}", level=cache_fit.name,
            bandwidth=format_si(cache_fit.bandwidth, "B/s"))
         if cache_fit is not None and not compute_bound else
         _("the point is above every cache level's diagonal too") if not compute_bound else
         _("the point is compute-bound: the bytes counted do not set its roof"))))
    causes.append(Cause(
        _("a MAC counted as one op (or two)"),
        compute_bound and abs(ratio - 2.0) <= 0.15,
        _("{times}: a multiply-accumulate is 2 ops here; a count or a peak in MACs is off by "
          "exactly 2×").format(times=times)))
    causes.append(Cause(
        _("a unit prefix off by 1,000"),
        500 <= ratio <= 2000,
        _("{times}: GB for MB or TFLOP/s for GFLOP/s gives about 1,000×").format(times=times)))

    others = []
    if compute_bound:  # another compute roof above the point
        for precision, peak in chip.compute.items():
            ceiling = peak * (chip.applied_compute_fraction(precision) if r.derated else 1.0)
            if precision != kernel.precision and rate <= ceiling * TOLERANCE:
                others.append(_("{precision} roof ({peak})").format(
                    precision=precision, peak=units.format_rate(ceiling)))
    else:  # fewer bytes per value than the label: the memory roof moves up as much
        label = BYTES_PER_VALUE[kernel.storage]
        for precision, size in BYTES_PER_VALUE.items():
            if size < label and ratio <= label / size * TOLERANCE and precision in chip.compute:
                others.append(_("{precision} storage ({size} B a value against {label})").format(
                    precision=precision, size=f"{size:g}", label=f"{label:g}"))
    if others:
        fit = (_("the point fits the {first} (or {more}): it may have run at another precision "
                 "than its label, {precision}") if others[1:] else
               _("the point fits the {first}: it may have run at another precision than its "
                 "label, {precision}")).format(first=others[0], more=", ".join(others[1:]),
                                               precision=kernel.precision)
    else:
        fit = _("no other precision of {chip} explains the point").format(chip=chip.name)
    causes.append(Cause(_("a precision mismatch"), bool(others), fit))
    return causes


def diagnosis_lines(comparison: Comparison, k: int, c: int,
                    units: Units = Units()) -> list[str]:  # noqa: B008
    """The diagnosis as lines of text for the explanation (empty when the point is not above
    its roof), rates in ``units``."""
    causes = diagnose(comparison, k, c, units)
    if not causes:
        return []
    rate = comparison.measured_rate(k)
    roof = float(comparison.result.attainable[k, c])
    fitting = [cause for cause in causes if cause.fits]
    lines = [_("The measured point is ABOVE its roof: {rate} against {roof} ({share}% of it). "
               "Nothing runs faster than its roof, so a figure is wrong; the usual causes, "
               "checked against the numbers:").format(
        rate=units.format_rate(rate), roof=units.format_rate(roof),
        share=f"{rate / roof * 100:.3g}")]
    lines += [(_("• {cause}: fits ({why})") if cause.fits else
               _("• {cause}: does not fit ({why})")).format(cause=cause.name, why=cause.why)
              for cause in causes]
    lines.append(_("Most likely: {causes}.").format(causes=_(", or ").join(
        c.name for c in fitting)) if fitting else
        _("Most likely: none of these; check the measurement's op and byte counts."))
    return lines
