"""Explanations in words and numbers: why a kernel sits where it does on a chip, and what would
move it. Plain text lines (the UI escapes them); every number comes from the comparison's
evaluation (derated or not) and is shown through :class:`~roofline_gui.core.display.Units`, as the
chart and the table show it.
"""

from __future__ import annotations

import math
from dataclasses import replace

from roofline_gui.core.comparison import Comparison
from roofline_gui.core.diagnose import diagnosis_lines
from roofline_gui.core.energy import kernel_lines
from roofline_gui.core.i18n import N_, _, clauses, listed
from roofline_gui.core.levels import (
    ROLE_SHORT,
    host_note,
    level_points,
    ratio_to_main_memory,
    residency_note,
)
from roofline_gui.core.roofline import LIMITER_COMPUTE, LIMITER_UNSUPPORTED
from roofline_gui.core.templates import TEMPLATES
from roofline_gui.core.units import (
    BYTES_PER_VALUE,
    ROLE_INDEX,
    SAME_WIDTH,
    WIDER,
    Units,
    format_si,
    format_time,
)
from roofline_gui.core.worth import speedups, worth_text

#: a ceiling's provenance, as the explanation says it (Provenance.kind keeps the English word)
PROVENANCE_WORDS = (N_("datasheet"), N_("measured"), N_("derated"), N_("what-if"))


def _pct(x: float) -> str:
    return f"{x:.2g}%" if x < 1 else f"{x:.3g}%"


def _times(x: float) -> str:
    return f"{x:,.0f}×" if x >= 10 else f"{x:.2g}×"


def explain(comparison: Comparison, k: int, c: int, units: Units = Units()) -> list[str]:  # noqa: B008
    """Lines of text for kernel ``k`` on chip ``c``, with rates and intensities in ``units``."""
    kernel, chip = comparison.kernels[k], comparison.chips[c]
    r = comparison.result
    code = int(r.limiter[k, c])
    if code == LIMITER_UNSUPPORTED:
        have = listed(chip.precisions) or _("none")
        sibling = next((s for s in SAME_WIDTH.get(kernel.precision, ()) if s in chip.compute), None)
        hint = (" " + _("Or turn on View → Same-width precisions stand in: its {sibling} (the same "
                        "{bytes} bytes a value) would stand in.").format(
            sibling=sibling, bytes=f"{BYTES_PER_VALUE[sibling]:g}") if sibling else "")
        return [
            _("{kernel} on {chip}: unsupported.").format(kernel=kernel.name, chip=chip.name),
            _("{chip} has no {precision} ceiling, so there is no roof to run against. Its "
              "precisions: {have}. Switch the kernel's precision to compare.").format(
                chip=chip.name, precision=kernel.precision, have=have) + hint,
        ]
    attainable = float(r.attainable[k, c])
    lines = []
    stand_in = comparison.stand_in(k, c)
    if stand_in and stand_in in WIDER.get(kernel.precision, ()):
        lines.append(_("{chip} has no {precision}: it runs {precision} math at its {stand_in}, "
                       "the next wider precision it has (the values widened as they are "
                       "loaded), so the bytes are the stored format's and the roof is its "
                       "{stand_in} peak.").format(chip=chip.name, precision=kernel.precision,
                                                  stand_in=stand_in))
    elif stand_in:
        lines.append(_("{chip} has no {precision}: its {stand_in}, the same {bytes} bytes a "
                       "value, stands in (View → Same-width precisions stand in), so the bytes are the "
                       "same and the roof is its peak.").format(
            chip=chip.name, precision=kernel.precision, stand_in=stand_in,
            bytes=f"{BYTES_PER_VALUE[stand_in]:g}"))
    if code == LIMITER_COMPUTE:
        runs_at = stand_in or kernel.precision
        kind = chip.compute_provenance(runs_at, r.derated).kind
        lines.append((_("{kernel} on {chip}: compute-bound at the {precision} peak.")
                      if kind == "datasheet" else
                      _("{kernel} on {chip}: compute-bound at the {precision} peak ({kind}).")
                      ).format(kernel=kernel.name, chip=chip.name, precision=runs_at,
                               kind=_(kind)))
    else:
        level = chip.memory[code]
        lines.append(_("{kernel} on {chip}: memory-bound on {level} ({role}).").format(
            kernel=kernel.name, chip=chip.name, level=level.name,
            role=_(ROLE_SHORT.get(level.role, level.role))))
    if note := chip.order_note():
        lines.append(note)
    lines.extend(_where_it_sits(comparison, k, c, code, attainable, units))
    lines.extend(_same_speed_lines(comparison, k, c, units))
    lines.append(_worth_line(comparison, k, c))
    lines.extend(_level_lines(comparison, k, c, units))
    lines.append(_time_line(comparison, k, c, units))
    lines.extend(kernel_lines(comparison, k, c, units))
    moves = _what_would_move_it(comparison, k, c, code, attainable, units)
    if moves:
        lines.append(_("What would move it:"))
        lines.extend(f"• {m}" for m in moves)
    lines.extend(diagnosis_lines(comparison, k, c, units))  # a measured point above its roof
    if kernel.source:  # where its figures come from: the examples tie each kernel to the
        # article's claim it shows (the tour had looked for the article's ~1,000 and ~100 here)
        lines.append(_("About this kernel: {source}").format(source=kernel.source))
    return lines


def _where_it_sits(cmp: Comparison, k, c, code, attainable, units: Units) -> list[str]:
    kernel, chip = cmp.kernels[k], cmp.chips[c]
    r = cmp.result
    peak, ceiling = r.cell("peak", k, c), r.cell("ceiling", k, c)
    op = units.word
    # The share is of the roof the kernel runs against: the peak, or the derated roof.
    runs_at = cmp.stand_in(k, c) or kernel.precision  # its own, or the same width's standing in
    kind = chip.compute_provenance(runs_at, r.derated).kind
    roof = (_("the {precision} peak ({peak})").format(precision=runs_at,
                                                       peak=units.format_rate(peak))
            if ceiling == peak else
            _("the {kind} {precision} roof ({roof}, {share} of the {peak} datasheet peak)").format(
                kind=_(kind), precision=runs_at, roof=units.format_rate(ceiling),
                share=_pct(ceiling / peak * 100), peak=units.format_rate(peak)))
    lines = []
    if code >= 0:
        level = chip.memory[code]
        bandwidth = float(cmp.chip_arrays.read_bandwidth(r.derated)[c, code])
        level_intensity = float(r.kernel_arrays.ops[k] / r.kernel_arrays.bytes[k, ROLE_INDEX[level.role]])
        bytes_per_unit = units.ops_per_unit / level_intensity
        derated_bw = ("" if bandwidth == level.bandwidth else " " + _(
            "({kind}; the datasheet says {bandwidth})").format(
            kind=_(level.provenance(True).kind), bandwidth=format_si(level.bandwidth, "B/s")))
        lines.append(_("{bytes}/{op} ({intensity}) at {bandwidth}{derated} gives {rate}, {share} "
                       "of {roof}.").format(
            bytes=format_si(bytes_per_unit, "B"), op=op,  # (B/op first: op/B alone after it)
            intensity=replace(units, bytes_per_op=False).format_intensity(level_intensity),
            bandwidth=format_si(bandwidth, "B/s"), derated=derated_bw,
            rate=units.format_rate(attainable), share=_pct(attainable / ceiling * 100), roof=roof))
        ridge = ceiling / bandwidth
        more = ridge / level_intensity
        lines.append((_("The ridge point is {ridge}; it needs about {more} more reuse ({op}s per "
                        "byte) to reach it.") if more >= 1.5 else
                      _("The ridge point is {ridge}; it sits just left of it: a little more reuse "
                        "reaches it.")).format(ridge=units.format_intensity(ridge),
                                               more=_times(more), op=op))
        if units.bytes_per_op:
            lines.append(_bytes_per_op_line(cmp, k, c, level.name, level_intensity, ridge, units))
    else:
        intensity = float(cmp.dram_intensity[k])
        lines.append(_("Intensity {intensity} is past the ridge point ({ridge} at {level}): "
                       "{rate}, {share} of {roof}.").format(
            intensity=units.format_intensity(intensity),
            ridge=units.format_intensity(r.cell("ridge_dram", k, c)), level=chip.dram.name,
            rate=units.format_rate(attainable), share=_pct(attainable / ceiling * 100), roof=roof))
        if units.bytes_per_op:
            lines.append(_bytes_per_op_line(cmp, k, c, chip.dram.name, intensity,
                                            float(r.cell("ridge_dram", k, c)), units))
    return lines


def _bytes_per_op_line(cmp: Comparison, k: int, c: int, name: str, intensity: float,
                       ridge: float, units: Units) -> str:
    """The same in bytes per op (B/F), as Japanese HPC courses reason: the kernel's required
    B/F against the machine's (bandwidth ÷ peak, the inverse of the ridge), and the machine's
    B/F at each of its memory levels."""
    chip, r = cmp.chips[c], cmp.result
    op, per = units.word, units.ops_per_unit
    need, have = per / intensity, per / ridge
    ceiling = float(r.cell("ceiling", k, c))
    bandwidths = cmp.chip_arrays.read_bandwidth(r.derated)[c]
    machine = listed(f"{level.name} {per * float(bw) / ceiling:,.3g}"
                        for level, bw in zip(chip.memory, bandwidths, strict=False)
                        if math.isfinite(float(bw)) and bw > 0)
    verdict = (_("the kernel asks more bytes per op than the machine supplies: memory-bound")
               if need > have * (1 + 1e-9) else
               _("the machine supplies the bytes the kernel asks: compute-bound"))
    return _("In bytes per op: the kernel's required B/F is {need} B/{op} at {level}, the "
             "machine's B/F there {have} B/{op} (bandwidth ÷ peak, the inverse of the ridge): "
             "{verdict}. The machine's B/F at each level: {machine}.").format(
        need=f"{need:,.3g}", have=f"{have:,.3g}", op=op, level=name, verdict=verdict,
        machine=machine)


def _same_speed_lines(cmp: Comparison, k: int, c: int, units: Units) -> list[str]:
    """Other chips that run the kernel at the same speed (within 2 %), and why: the article's
    "a TPU and a GPU with the same HBM run about as fast" where both are memory-bound on main
    memories of one bandwidth; the peaks where both are compute-bound."""
    r, chips = cmp.result, cmp.chips
    rate, code = float(r.attainable[k, c]), int(r.limiter[k, c])
    bandwidths = cmp.chip_arrays.read_bandwidth(r.derated)
    out = []
    for d, other in enumerate(chips):
        theirs = float(r.attainable[k, d])
        if d == c or not math.isfinite(theirs) or abs(theirs / rate - 1) > 0.02:
            continue
        code_d = int(r.limiter[k, d])
        ours = chips[c].memory[code] if code >= 0 else None
        theirs_level = other.memory[code_d] if code_d >= 0 else None
        # as the chart draws them: derated bandwidths where derated (the datasheet's 3.35 TB/s
        # had been named beside a derated 3.08 TB/s roof)
        ours_bw = float(bandwidths[c][code]) if ours is not None else math.nan
        theirs_bw = float(bandwidths[d][code_d]) if theirs_level is not None else math.nan
        same_level = (ours is not None and theirs_level is not None
                      and ours.role == theirs_level.role
                      and abs(ours_bw / theirs_bw - 1) <= 0.01)
        if same_level and ours.role == "dram":
            out.append(_("{other} runs it at the same speed ({rate}): both are memory-bound on "
                         "main memories of {bandwidth}, the article's case: the same HBM, about "
                         "the same speed, whatever their peaks.").format(
                other=other.name, rate=units.format_rate(theirs),
                bandwidth=format_si(ours_bw, "B/s")))
        elif same_level:
            out.append(_("{other} runs it at the same speed ({rate}): both are held by {level} "
                         "at {bandwidth}, whatever their peaks and main memories.").format(
                other=other.name, rate=units.format_rate(theirs), level=ours.name,
                bandwidth=format_si(ours_bw, "B/s")))
        elif code == LIMITER_COMPUTE and code_d == LIMITER_COMPUTE:
            out.append(_("{other} runs it at the same speed ({rate}): both are compute-bound, "
                         "their peaks for it within 2 % of each other, not for the article's "
                         "reason (the same HBM).").format(
                other=other.name, rate=units.format_rate(theirs)))
        else:
            out.append(_("{other} runs it at the same speed ({rate}), held by another ceiling "
                         "(Why it sits there on {other} says which).").format(
                other=other.name, rate=units.format_rate(theirs)))
    return out


def _worth_line(cmp: Comparison, k: int, c: int) -> str:
    """Each ceiling's worth for this pair, largest first (core.worth), on the pair alone."""
    pair = cmp.result.pair(k, c)
    chip, kernel = cmp.chips[c], cmp.kernels[k]
    values = {name: float(v[0, 0]) for name, v in speedups(pair).items()}
    runs_at = cmp.stand_in(k, c) or kernel.precision
    names = {"compute": _("the {precision} peak").format(precision=runs_at),
             **{role: " and ".join(lv.name for lv in chip.levels(role)) for role in values
                if role != "compute" and chip.levels(role)}}
    return worth_text(values, names)


def _level_lines(cmp: Comparison, k: int, c: int, units: Units) -> list[str]:
    """The kernel level by level where it moves bytes through more than one (one point each with
    View → Memory levels), the on-chip levels against main memory, the host link per direction,
    and whether what it keeps on chip fits there."""
    kernel, chip = cmp.kernels[k], cmp.chips[c]
    points = level_points(cmp, k, c)
    lines = []
    if len(points) > 1:
        # a level's line at the kernel's intensity there can pass the compute roof: said, or
        # "HBM2 1,365 op/B → 2.123 Pop/s" read as above the 312 Top/s peak (the seventh tour)
        ceiling = float(cmp.result.ceiling[k, c])
        parts = [(_("{level} {intensity} → {rate} (limits)") if p.limits else
                  _("{level} {intensity} → {rate} (above the {peak} compute roof: no limit)")
                  if p.roof > ceiling else "{level} {intensity} → {rate}").format(
            level=p.name, intensity=units.format_intensity(p.intensity),
            rate=units.format_rate(p.roof), peak=units.format_rate(ceiling)) for p in points]
        lines.append(_("Level by level (a point each with View → Memory levels): {levels}.").format(
            levels=clauses(parts)))
    roles = {p.role for p in points}
    if "cache" in roles:
        lines.append(_("On chip against main memory (the article's “about 10×”): {ratios}.").format(
            ratios=clauses(ratio_to_main_memory(chip))))
    if "host" in roles:
        lines.append(host_note(chip))
    note = residency_note(kernel, chip)
    if note:
        lines.append(note)
    return lines


def _time_line(cmp: Comparison, k: int, c: int, units: Units) -> str:
    """The lower bound (the slowest ceiling) and the no-overlap bound (their sum), with each
    ceiling's time: compute at the roof applied, each level's reads and writes at its read and
    write bandwidths applied, so the parts add up to the bounds."""
    kernel, chip = cmp.kernels[k], cmp.chips[c]
    if not kernel.has_size:
        return _("No size is given (intensity only), so there is no time.")
    pair = cmp.result.pair(k, c)  # the one pair, not a column of 300,000 while a drag patches it
    ops = float(pair.kernel_arrays.ops[0])
    parts = [_("compute {time}").format(time=format_time(ops / float(pair.ceiling[0, 0])))]
    parts += [f"{chip.memory[level].name} {format_time(t)}" for level, t in pair.level_times(0, 0)]
    lower, upper = float(pair.time_lower[0, 0]), float(pair.time_upper[0, 0])
    return _("Time for {ops} {op}s: at least {lower} (at most {upper} with no overlap; "
             "{parts}).").format(ops=format_si(units.rate(ops)), op=units.word,
                                 lower=format_time(lower), upper=format_time(upper),
                                 parts=listed(parts))


def _what_would_move_it(cmp: Comparison, k: int, c: int, code: int, attainable: float,
                        units: Units) -> list[str]:
    kernel, chip = cmp.kernels[k], cmp.chips[c]
    moves = []
    if code >= 0:
        bpv = kernel.bytes_per_value
        packed = {8.0: "fp32", 4.0: "bf16", 2.0: "int8", 1.0: "int4"}.get(bpv)
        best = min(attainable * 2, cmp.result.cell("ceiling", k, c))
        if packed and kernel.template is not None and best > 1.05 * attainable:
            # (not where the compute roof is as near: "raise it to 624 Top/s (1×)", the tour)
            moves.append(_("Packing the data as {packed} ({bytes} B per value, math still "
                           "{precision}) would halve the bytes and raise it to {rate} "
                           "({times}×).").format(
                packed=packed, bytes=f"{BYTES_PER_VALUE[packed]:g}",
                # the precision the chip computes it in ("fp16" on a V100, which has no bf16:
                # "math still bf16" there, the twentieth tour)
                precision=cmp.stand_in(k, c) or kernel.precision,
                rate=units.format_rate(best), times=f"{best / attainable:.2g}"))
        if kernel.template is not None:
            template = TEMPLATES[kernel.template]
            spec = template.param(template.main_param)
            if template.id not in ("triad", "dot"):
                moves.append(_("More reuse: raise {parameter} (now {value}); drag the marker "
                               "right to see how far it goes.").format(
                    parameter=_(spec.label),
                    value=f"{kernel.params.get(spec.name, spec.default):,.0f}"))
        level = chip.memory[code]
        moves.append(_("More {level} bandwidth: it scales 1:1 until the next ceiling.").format(
            level=level.name))
    else:
        runs_at = cmp.stand_in(k, c) or kernel.precision
        faster = [
            (p, chip.compute[p]) for p in chip.precisions
            if p in chip.compute and chip.compute[p] > chip.compute.get(runs_at, math.inf)
        ]
        if faster:
            p, value = max(faster, key=lambda pv: pv[1])
            moves.append(_("A lower precision: {chip}'s {precision} peak is {rate}, {times}× the "
                           "{current} peak.").format(
                chip=chip.name, precision=p, rate=units.format_rate(value),
                times=f"{value / chip.compute[runs_at]:.2g}", current=runs_at))
        moves.append(_("Compute-bound: only a higher peak (more units, clock, lower precision) "
                       "helps; more bandwidth would not."))
    return moves
