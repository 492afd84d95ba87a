"""Explanations in words and numbers: why a kernel sits where it does on a chip, and what would
move it. Plain text lines (the UI escapes them); every number comes from the comparison.
"""

from __future__ import annotations

import math

from roofline_gui.core.comparison import Comparison
from roofline_gui.core.roofline import LIMITER_COMPUTE, LIMITER_UNSUPPORTED, ROLE_INDEX
from roofline_gui.core.templates import TEMPLATES
from roofline_gui.core.units import BYTES_PER_VALUE, format_si, format_time


def _pct(x: float) -> str:
    return f"{x:.2g}%" if x < 1 else f"{x:.3g}%"


def _times(x: float) -> str:
    return f"{x:,.0f}×" if x >= 10 else f"{x:.2g}×"


def explain(comparison: Comparison, k: int, c: int, op: str = "op") -> list[str]:
    """Lines of text for kernel ``k`` on chip ``c``. ``op`` is the unit word (op or MAC is
    only a label here; numbers are in ops)."""
    kernel, chip = comparison.kernels[k], comparison.chips[c]
    r = comparison.result
    code = int(r.limiter[k, c])
    if code == LIMITER_UNSUPPORTED:
        have = ", ".join(chip.precisions) or "none"
        return [
            f"{kernel.name} on {chip.name}: unsupported.",
            f"{chip.name} has no {kernel.precision} ceiling, so there is no roof to run "
            f"against. Its precisions: {have}. Switch the kernel's precision to compare.",
        ]
    attainable = float(r.attainable[k, c])
    peak = float(r.peak[k, c])
    intensity = float(comparison.dram_intensity[k])
    lines = []
    if code == LIMITER_COMPUTE:
        lines.append(f"{kernel.name} on {chip.name}: compute-bound at the {kernel.precision} peak.")
    else:
        level = chip.memory[code]
        lines.append(f"{kernel.name} on {chip.name}: memory-bound on {level.name} ({level.role}).")
    lines.extend(_where_it_sits(comparison, k, c, code, attainable, peak, intensity, op))
    lines.append(_time_line(comparison, k, c))
    moves = _what_would_move_it(comparison, k, c, code, attainable)
    if moves:
        lines.append("What would move it:")
        lines.extend(f"• {m}" for m in moves)
    return lines


def _where_it_sits(cmp: Comparison, k, c, code, attainable, peak, intensity, op) -> list[str]:
    kernel, chip = cmp.kernels[k], cmp.chips[c]
    lines = []
    unit = f"{op}/s"
    if code >= 0:
        level = chip.memory[code]
        level_intensity = float(cmp.result.intensity[k, ROLE_INDEX[level.role]])
        per_op = 1 / level_intensity
        lines.append(
            f"{format_si(per_op, 'B')}/{op} ({level_intensity:.4g} {op}/B) at "
            f"{format_si(level.bandwidth, 'B/s')} gives {format_si(attainable, unit)}, "
            f"{_pct(attainable / peak * 100)} of the {kernel.precision} peak "
            f"({format_si(peak, unit)})."
        )
        ridge = peak / level.bandwidth
        lines.append(
            f"The ridge point is {ridge:,.4g} {op}/B; it needs about "
            f"{_times(ridge / level_intensity)} more reuse (ops per byte) to reach it."
        )
    else:
        lines.append(
            f"Intensity {intensity:,.4g} {op}/B is past the ridge point "
            f"({float(cmp.result.ridge_dram[k, c]):,.4g} {op}/B at {chip.dram.name}): "
            f"{format_si(attainable, unit)}, 100% of the {kernel.precision} peak."
        )
    return lines


def _time_line(cmp: Comparison, k: int, c: int) -> str:
    kernel, chip = cmp.kernels[k], cmp.chips[c]
    if not kernel.has_size:
        return "No size is given (intensity only), so there is no time."
    traffic = kernel.traffic()
    parts = [f"compute {format_time(traffic.ops / float(cmp.result.peak[k, c]))}"]
    for level in chip.memory:
        nbytes = traffic.bytes.get(level.role)
        if nbytes:
            parts.append(f"{level.name} {format_time(nbytes / level.bandwidth)}")
    lower, upper = float(cmp.result.time_lower[k, c]), float(cmp.result.pair(k, c).time_upper[0, 0])
    return (f"Time for {format_si(traffic.ops)} ops: at least {format_time(lower)} "
            f"(at most {format_time(upper)} with no overlap; {', '.join(parts)}).")


def _what_would_move_it(cmp: Comparison, k: int, c: int, code: int, attainable: float) -> list[str]:
    kernel, chip = cmp.kernels[k], cmp.chips[c]
    moves = []
    if code >= 0:
        bpv = kernel.bytes_per_value
        packed = {8.0: "fp32", 4.0: "bf16", 2.0: "int8", 1.0: "int4"}.get(bpv)
        if packed and kernel.template is not None:
            best = min(attainable * 2, float(cmp.result.peak[k, c]))
            moves.append(
                f"Packing the data as {packed} ({BYTES_PER_VALUE[packed]:g} B per value, math "
                f"still {kernel.precision}) would halve the bytes and raise it to "
                f"{format_si(best, 'op/s')} ({best / attainable:.2g}×)."
            )
        if kernel.template is not None:
            template = TEMPLATES[kernel.template]
            spec = template.param(template.main_param)
            if template.id not in ("triad", "dot"):
                moves.append(f"More reuse: raise {spec.label} (now "
                             f"{kernel.params.get(spec.name, spec.default):,.0f}); drag the marker "
                             "right to see how far it goes.")
        level = chip.memory[code]
        moves.append(f"More {level.name} bandwidth: it scales 1:1 until the next ceiling.")
    else:
        faster = [
            (p, chip.compute[p]) for p in chip.precisions
            if p in chip.compute and chip.compute[p] > chip.compute.get(kernel.precision, math.inf)
        ]
        if faster:
            p, value = max(faster, key=lambda pv: pv[1])
            moves.append(f"A lower precision: {chip.name}'s {p} peak is {format_si(value, 'op/s')}, "
                         f"{value / chip.compute[kernel.precision]:.2g}× the {kernel.precision} peak.")
        moves.append("Compute-bound: only a higher peak (more units, clock, lower precision) helps; "
                     "more bandwidth would not.")
    return moves
