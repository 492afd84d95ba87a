"""What the views show of workloads, in the units they show it (Qt-free): the chart's workload
marks and paths, the breakdown bars, the drag's batch ladder and the explanation in words.

Like :mod:`roofline_gui.core.display` for kernels, every number comes from a
:class:`~roofline_gui.core.workload_eval.WorkloadResult`, scaled through
:class:`~roofline_gui.core.display.Units`, so the chart, the table, the explanation and the CSV
agree in every mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from roofline_gui.core.build import build
from roofline_gui.core.energy import workload_lines
from roofline_gui.core.families import read_config
from roofline_gui.core.i18n import CLAUSE_SEPARATOR, _, clauses, full_stop, listed, ngettext
from roofline_gui.core.roofline import BOUND_COMPUTE, BOUND_MEMORY, LIMITER_COMPUTE
from roofline_gui.core.training_view import explain_training, same_time_lines
from roofline_gui.core.transformer import experts_touched
from roofline_gui.core.units import (
    PRECISIONS,
    ROLE_INDEX,
    Units,
    format_si,
    format_time,
    rate_count,
    share_text,
)
from roofline_gui.core.workload import Workload, label_of, with_field
from roofline_gui.core.workload_eval import (
    SWEEP_BATCHES,
    WorkloadResult,
    batch_sweep,
    communication_dominates_at,
    evaluate_workloads,
)
from roofline_gui.core.worth import workload_speedups, worth_text

#: Each workload's markers take one shape, in turn (kernels' shapes are by category).
WORKLOAD_SYMBOLS = ("x", "+", "d", "s", "t", "p", "h", "star")


@dataclass(frozen=True)
class WorkloadMarks:
    """One workload on the chart: its kernels as a group and its aggregate point, per chip."""

    workload_id: str
    name: str
    symbol: str
    entry_x: np.ndarray  # [E] shown intensity (main memory) of each entry's kernel
    entry_y: np.ndarray  # [E, C] shown attainable rate of each entry on each chip
    point_x: float  # shown aggregate intensity (total ops ÷ total dram bytes)
    point_y: np.ndarray  # [C] shown aggregate rate (total ops ÷ time)
    label: str  # "Llama-3-8B · B = 8"
    fits: tuple[bool, ...] = ()  # [C] whether weights and KV cache fit in each chip's memory


def workload_marks(results: Sequence[WorkloadResult], units: Units,
                   chips: Sequence[int]) -> list[WorkloadMarks]:
    """The marks of each visible workload on the chips at ``chips`` (indices into the results'
    chips), in shown units."""
    out = []
    for n, r in enumerate(results):
        if not r.workload.visible:
            continue
        ev, rows = r.evaluation, r.rows
        with np.errstate(divide="ignore", invalid="ignore"):
            x = ev.kernel_arrays.ops[rows] / ev.kernel_arrays.bytes[rows, ROLE_INDEX["dram"]]
        out.append(WorkloadMarks(
            r.workload.id, r.workload.name, WORKLOAD_SYMBOLS[n % len(WORKLOAD_SYMBOLS)],
            units.intensity(x), units.rate(ev.attainable[rows][:, list(chips)]),
            float(units.intensity(r.intensity)), units.rate(r.attainable[list(chips)]),
            label_of(r.workload),
            tuple(bool(f) or not np.isfinite(r.built.resident_bytes) for f in r.fits[list(chips)])))
    return out


def sweep_path(workload: Workload, chips, units: Units, *, derated: bool = False,
               kernels=None, batches: Sequence[int] = SWEEP_BATCHES):
    """(x [B], y [B, C], batches): where the workload's point goes as its batch runs over
    ``batches``: the path a drag of the point follows."""
    sweep = batch_sweep(workload, chips, batches, derated=derated, kernels=kernels)
    x = np.array([units.intensity(r.intensity) for r in sweep])
    y = np.array([units.rate(r.attainable) for r in sweep])
    return x, y, tuple(batches)


# -- dragging a workload's point ------------------------------------------------------------------

DRAG_MAX = {"batch": 4096, "context": 1 << 20, "sequence": 1 << 17}


def drag_key(workload: Workload, modifier: bool) -> str:
    """What a drag of the workload's point changes: its batch, or (with the modifier key) its
    context in decode or its sequence in prefill."""
    if not modifier or workload.kind != "transformer":
        return "batch"
    return "context" if workload.phase == "decode" else "sequence"


def drag_ladder(workload: Workload, key: str, kernels=None) -> tuple[np.ndarray, np.ndarray]:
    """(values, aggregate intensity at each) for the values a drag may give ``key``: the round
    numbers people size with, powers of two and the halves between (1, 2, 3, 4, 6, 8, 12, 16,
    24...), up to DRAG_MAX[key]. Intensity does not depend on the chip, so this is worked out
    once per drag."""
    top = DRAG_MAX[key]
    values = np.array(sorted({v for p in range(top.bit_length()) for v in (2**p, 3 * 2**p // 2)
                              if 1 <= v <= top}))
    if workload.training and key == "batch" and workload.global_batch:
        # A training step's micro-batch divides each replica's share of the global batch, which
        # a drag keeps: m = G/(b·d) micro-batches, fewer as b grows.
        share = workload.global_batch // workload.data_parallel
        values = np.array([v for v in range(1, share + 1) if share % v == 0][:64])
    intensity = np.empty(len(values))
    for i, v in enumerate(values):
        built = build(with_field(workload, key, int(v)), kernels)
        ops = sum(e.kernel.traffic().ops * e.count for e in built.entries)
        dram = sum(e.kernel.traffic().bytes.get("dram", 0.0) * e.count for e in built.entries)
        intensity[i] = ops / dram
    return values, intensity


def value_at(values: np.ndarray, intensity: np.ndarray, target: float) -> int:
    """The ladder's value whose intensity is nearest ``target`` (op/B) on the log axis."""
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = np.abs(np.log(intensity) - np.log(max(target, 1e-300)))
    return int(values[int(np.nanargmin(gap))])


def ladder_note(name: str, key: str, values: np.ndarray, intensity: np.ndarray,
                target: float) -> str:
    """Why a drag to ``target`` (op/B) stops where it does, when the target lies beyond the
    ladder's reach (as core.sweep.move_to_intensity says it of a kernel); '' inside it."""
    ok = np.isfinite(intensity)
    if not ok.any():
        return ""
    hi, lo = int(np.nanargmax(intensity)), int(np.nanargmin(intensity))
    if target > intensity[hi] * 1.01:
        return _("{name}: its intensity cannot pass {intensity} op/B by changing its {key} ({key} "
                 "{value} reaches it; a drag goes up to {most})").format(
            name=name, intensity=f"{intensity[hi]:,.4g}", key=key, value=f"{int(values[hi]):,}",
            most=f"{int(values[-1]):,}")
    if target < intensity[lo] / 1.01:
        return _("{name}: its intensity cannot go below {intensity} op/B by changing its {key} "
                 "({key} {value} reaches it)").format(
            name=name, intensity=f"{intensity[lo]:,.4g}", key=key, value=f"{int(values[lo]):,}")
    return ""


# -- the breakdown ---------------------------------------------------------------------------------

#: What bounds a segment of the breakdown bar, and the colour it is drawn in.
SEGMENT_KINDS = {"memory": "#4c78a8", "compute": "#f58518", "link": "#9d9d9d"}


@dataclass(frozen=True)
class Segment:
    chip: int
    start: float  # s from the start of the step
    width: float  # s
    kind: str  # memory, compute or link
    name: str
    share: float  # of the chip's time


def breakdown(result: WorkloadResult, chips: Sequence[int]) -> list[Segment]:
    """Each chip's step as a bar of segments: every entry's time (count × kernel time), coloured
    by what bounds it, in the workload's order, then the link's time."""
    out = []
    for c in chips:
        total = float(result.time[c])
        if not np.isfinite(total):
            continue
        start = 0.0
        for e, entry in enumerate(result.entries):
            t = float(result.entry_time[e, c])
            code = int(result.entry_bound[e, c])
            kind = "memory" if code == BOUND_MEMORY else "compute" if code == BOUND_COMPUTE else ""
            if kind and t > 0:
                out.append(Segment(c, start, t, kind, entry.kernel.name, t / total))
                start += t
        link = float(result.link_time[c])
        if link > 0:
            parts = result.built.link_parts or (("all-reduces", result.built.link_bytes),)
            whole = sum(v for _, v in parts)
            for name, moved in parts:  # the link's time split by what it carries
                t = link * moved / whole
                out.append(Segment(c, start, t, "link", f"link ({name})", t / total))
                start += t
    return out


# -- the explanation -------------------------------------------------------------------------------

def _gb(x: float) -> str:
    return format_si(x, "B")


def fit_line(result: WorkloadResult, c: int) -> str | None:
    """Whether the workload's weights and KV cache fit in chip ``c``'s main memory, and how
    many chips it needs if not (None where unknown)."""
    if not np.isfinite(result.built.resident_bytes) or not np.isfinite(result.capacity[c]):
        return None
    held, cap = _gb(result.built.resident_bytes), _gb(float(result.capacity[c]))
    need = result.chips_needed(c)
    how = clauses(result.built.resident_steps)
    if result.fits[c]:
        return (_("Memory: each chip holds {held} ({how}) of its {capacity}; the model would fit "
                  "on {chips}.").format(held=held, how=how, capacity=cap, chips=ngettext(
                      "{n} chip", "{n} chips", need).format(n=need))
                if need < result.workload.chips_per_model else
                _("Memory: each chip holds {held} ({how}) of its {capacity}.").format(
                    held=held, how=how, capacity=cap))
    fits = result.batch_that_fits(c)
    facts = {"held": held, "how": how, "capacity": cap, "need": need, "batch": fits}
    return (_("Does NOT fit: each chip must hold {held} ({how}) but has {capacity}: the model and "
              "its cache need at least {need} such chips; at most batch {batch} fits. The times "
              "assume it fits.") if fits and result.workload.batch > 1 else
            _("Does NOT fit: each chip must hold {held} ({how}) but has {capacity}: the model and "
              "its cache need at least {need} such chips. The times assume it fits.")
            ).format(**facts)


def explain_workload(result: WorkloadResult, c: int, units: Units = Units(),  # noqa: B008
                     kernels=None, carbon: float | None = None) -> list[str]:
    """Lines of text for the workload on chip ``c``: whether it fits, what a step reads and
    does, the bandwidth that limits it, how busy compute is, where the time goes, what would
    move it and the link's cost."""
    if result.training is not None:
        return explain_training(result, c, units, kernels, carbon)
    w, chip = result.workload, result.chips[c]
    t = float(result.time[c])
    if not np.isfinite(t):
        why, missing = result.unsupported(c)
        if why == "link":
            return [_("{workload} on {chip}: the chip has no {link} level to join {n} chips; "
                      "choose another link or N = 1.").format(
                workload=w.name, chip=chip.name, link=w.link, n=w.chips_per_model)]
        return [_("{workload} on {chip}: unsupported: {chip} has no {missing} ceiling (its "
                  "precisions: {have}).").format(
            workload=w.name, chip=chip.name, missing=listed(missing), have=listed(chip.precisions))]
    unit = _(w.throughput_unit)
    lines = [(_("{workload} on {chip}: {time} per step, {rate} {unit} per {n} chips.")
              if w.chips_per_model > 1 else
              _("{workload} on {chip}: {time} per step, {rate} {unit}.")).format(
        workload=label_of(w), chip=chip.name, time=format_time(t),
        rate=rate_count(float(result.throughput[c])), unit=unit, n=w.chips_per_model)]
    if w.kind == "transformer" and w.phase == "decode" and (w.tpot_limit or w.ttft_limit):
        # a served workload: its Serving tab gives another tokens/s for as many users (the
        # tour read 8,122 here against 5,146 there for B = 256 and took one for wrong)
        lines.append(_("This is one decode step of {batch} sequences alone; the Serving tab's "
                       "bound for {batch} users mixes each request's prefill into the steps, "
                       "so it gives fewer tokens/s per chip.").format(batch=f"{w.batch:,}"))
    fit = fit_line(result, c)
    if fit and not result.fits[c]:
        lines.append(fit)  # first, where it cannot be missed
    per = w.chips_per_model > 1
    step = {"bytes": _gb(result.dram_bytes), "ops": format_si(units.rate(result.ops), units.word),
            "intensity": units.format_intensity(result.intensity)}
    if w.kind == "custom":
        lines.append((_("Each step moves {bytes} of main memory per chip and does {ops}: "
                        "{intensity}.") if per else
                      _("Each step moves {bytes} of main memory and does {ops}: {intensity}.")
                      ).format(**step))
    else:
        weights = sum(e.weight_bytes * e.count for e in result.entries)
        rest = _gb(result.dram_bytes - weights)
        if w.kind == "transformer":
            said = (_("Each step moves {bytes} of main memory per chip (weights {weights}, KV "
                      "cache and activations {rest}) and does {ops}: {intensity}.") if per else
                    _("Each step moves {bytes} of main memory (weights {weights}, KV cache and "
                      "activations {rest}) and does {ops}: {intensity}."))
        else:
            said = (_("Each step moves {bytes} of main memory per chip (weights {weights}, "
                      "activations {rest}) and does {ops}: {intensity}.") if per else
                    _("Each step moves {bytes} of main memory (weights {weights}, activations "
                      "{rest}) and does {ops}: {intensity}."))
        lines.append(said.format(weights=_gb(weights), rest=rest, **step))
    bw = float(result.evaluation.chip_arrays.dram_bandwidth(result.evaluation.derated)[c])
    precisions = {e.kernel.precision for e in result.entries}
    if len(precisions) == 1:  # one roof to compare the aggregate point with
        precision = _runs_at(result, c, precisions.pop())
        ceiling = float(result.evaluation.ceiling[result.rows][0, c])
        ridge = ceiling / bw
        what_if = (" " + _("(what-if: {ratio}× the datasheet's {value})").format(
            ratio=f"{chip.dram.bandwidth / chip.dram.what_if_of:.3g}",
            value=format_si(chip.dram.what_if_of, "B/s")) if chip.dram.what_if_of else "")
        derated = " " + _("(derated)") if result.evaluation.derated else ""
        said = (_("{level} at {bandwidth}{notes} meets the {precision} roof of {roof} at {ridge}; "
                  "the workload sits left of it, at {rate}: compute is busy {share} of the "
                  "step.") if result.intensity < ridge else
                _("{level} at {bandwidth}{notes} meets the {precision} roof of {roof} at {ridge}; "
                  "the workload sits right of it, at {rate}: compute is busy {share} of the "
                  "step."))
        lines.append(said.format(
            level=chip.dram.name, bandwidth=format_si(bw, "B/s"), notes=what_if + derated,
            precision=precision, roof=units.format_rate(ceiling),
            ridge=units.format_intensity(ridge), rate=units.format_rate(float(result.attainable[c])),
            share=share_text(float(result.attainable[c]) / ceiling)))
    mem, comm = float(result.memory_bound_share[c]), float(result.communication_share[c])
    shares = {"memory": share_text(mem),
              "compute": share_text(max(0.0, float(result.compute_share[c]))),
              "link": share_text(comm)}
    lines.append((_("Time: {memory} in memory-bound kernels, {compute} compute-bound, {link} on "
                    "the link.") if w.chips_per_model > 1 else
                  _("Time: {memory} in memory-bound kernels, {compute} compute-bound.")
                  ).format(**shares))
    precisions = sorted({_runs_at(result, c, e.kernel.precision) for e in result.entries})
    names = {"compute": (_("the {precisions} peaks") if len(precisions) > 1 else
                         _("the {precision} peak")).format(precisions=", ".join(precisions),
                                                           precision=", ".join(precisions)),
             **{role: " and ".join(lv.name for lv in chip.levels(role))
                for role in ("dram", "cache", "host", "link") if chip.levels(role)}}
    worth = worth_text({k: float(v[c]) for k, v in workload_speedups(result).items()}, names)
    if worth:
        lines.append(worth)
    order = np.argsort(-np.nan_to_num(result.entry_time[:, c]))[:3]
    top = [(_("{kernel} {share} (memory-bound)")
            if result.evaluation.limiter[result.rows][e, c] != LIMITER_COMPUTE else
            _("{kernel} {share} (compute-bound)")).format(
        kernel=result.entries[e].kernel.name, share=share_text(result.entry_time[e, c] / t))
        for e in order]
    lines.append(_("Where the time goes: {parts}.").format(parts=listed(top)))
    moves = _moves(result, c, kernels)
    if moves:
        lines.append(_("What would move it:"))
        lines.extend(f"• {m}" for m in moves)
    if result.built.link_steps:
        level = next((lv.name for lv in chip.memory if lv.role == w.link), w.link)
        lines.append(_("Link ({level}): {steps}; at {bandwidth} that is {time} per step (latency "
                       "of each all-reduce not counted).").format(
            level=level, steps=clauses(result.built.link_steps),
            bandwidth=format_si(float(result.link_bandwidth[c]), "B/s"),
            time=format_time(float(result.link_time[c]))))
    if w.kind == "transformer" and np.isfinite(result.link_bandwidth[c]):
        level = next((lv.name for lv in chip.memory if lv.role == w.link), w.link)
        at = communication_dominates_at(w, [chip], derated=result.evaluation.derated)[0]
        heads = result.built.heads
        top = max((n for n in (2, 4, 8, 16, 32, 64) if heads % n == 0), default=1)
        if top > 1:
            lines.append((_("Splitting it over more chips on {level}: from N = {at} the link takes "
                            "more of the step than the kernels.") if at else
                          _("Splitting it over more chips on {level}: up to N = {top} (its {heads} "
                            "heads split evenly) the link takes less of the step than the "
                            "kernels.")).format(level=level, at=at, top=top, heads=heads))
    lines.extend(experts_lines(result))
    for note in result.built.notes:
        if "beyond" in note:
            lines.append(_("Note: {note}.").format(note=note))
    if fit and result.fits[c]:
        lines.append(fit)
    lines.extend(same_time_lines(result, c, units))
    lines.extend(workload_lines(result, c, carbon))
    return lines


def _runs_at(result: WorkloadResult, c: int, precision: str) -> str:
    """'fp4', or 'fp8 (standing in for fp4, which the chip lacks)' where another precision's
    roof stands in on chip ``c``."""
    s = result.evaluation.chip_arrays.stand_in_for(c, PRECISIONS.index(precision))
    return precision if s < 0 else _("{stand_in} (standing in for {precision}, which it lacks)").format(
        stand_in=PRECISIONS[s], precision=precision)


def experts_lines(result: WorkloadResult) -> list[str]:
    """A mixture of experts: how many experts the step's tokens touch, and how the weights it
    reads grow with the batch until every expert is read (worked out at batch 1 beside it)."""
    w = result.workload
    if w.kind != "transformer":
        return []
    cfg = read_config(w.spec, "spec")
    if not cfg.moe:
        return []
    tokens = w.tokens()
    touched = experts_touched(cfg.experts, cfg.experts_per_token, tokens)
    here = sum(e.weight_bytes * e.count for e in result.entries)
    line = _("Experts: the step's {tokens} route to about {touched} of the {experts} routed "
             "experts in each of its {layers} MoE layers (E·(1 − (1 − k/E)^T) with k = {k}, "
             "routing taken as even)").format(
        tokens=ngettext("{n} token", "{n} tokens", tokens).format(n=f"{tokens:,}"),
        touched=f"{touched:.4g}", experts=cfg.experts, layers=cfg.moe_layers,
        k=cfg.experts_per_token)
    if tokens > 1:
        one = build(replace(w, batch=1, sequence=1, phase="decode", activations_on_chip=False))
        first = sum(e.weight_bytes * e.count for e in one.entries)
        n = w.chips_per_model
        facts = {"bytes": _gb(here * n), "one": _gb(first * n), "times": f"{here / first:.3g}",
                 "tokens": f"{tokens:,}", "per_token": _gb(here * n / tokens), "chips": n}
        line += _(CLAUSE_SEPARATOR)
        line += (_("so the step reads {bytes} of weights on its {chips} chips where one "
                          "token reads {one}: {times}× the bytes for {tokens}× the tokens, "
                          "{per_token} of weights a token instead of {one}") if n > 1 else
                        _("so the step reads {bytes} of weights where one token reads {one}: "
                          "{times}× the bytes for {tokens}× the tokens, {per_token} of weights a "
                          "token instead of {one}")).format(**facts)
        if touched > 0.99 * cfg.experts:
            line += _(CLAUSE_SEPARATOR) + _("every expert is read already, so more tokens add no "
                                            "weights")
    if w.expert_parallel > 1:
        line += full_stop() + _("Expert parallelism over {chips} chips sends each token to its "
                                "experts and back (all-to-all)").format(chips=w.expert_parallel)
        if w.moe_imbalance != 1:
            line += _(CLAUSE_SEPARATOR) + _("the busiest chip takes {times}× the mean").format(
                times=f"{w.moe_imbalance:g}")
    return [line + full_stop()]


def _moves(result: WorkloadResult, c: int, kernels) -> list[str]:
    """What batch, precision or chip count would do, each worked out by evaluating the variant;
    a larger batch only as far as memory holds it, and only changes worth making."""
    w, chip = result.workload, result.chips[c]
    t = float(result.time[c])
    out: list[str] = []
    variants = []
    most = result.batch_that_fits(c)
    bigger = min(w.batch * 8, 4096) if most is None else min(w.batch * 8, most)
    if bigger > w.batch and w.kind != "custom":  # a custom workload's batch is its kernels' own
        variants.append(("batch", replace(w, batch=bigger), (
            _("batch {batch} (the most that fits)") if most is not None and bigger == most
            else _("batch {batch} ({times}×)")).format(batch=bigger, times=bigger // w.batch)))
    if w.weights not in ("int8", "fp8", "int4") and w.kind != "custom":
        variants.append(("weights", replace(w, weights="int8"), _("int8 weights")))
    if w.kind == "transformer" and w.kv_cache not in ("fp8", "int8", "int4"):
        variants.append(("kv", replace(w, kv_cache="fp8"), _("an fp8 KV cache")))
    if not variants:
        return out
    results = evaluate_workloads([v for _what, v, _text in variants], [chip],
                                 derated=result.evaluation.derated, kernels=kernels)
    for (what, _variant, text), r in zip(variants, results, strict=True):
        t2 = float(r.time[0])
        if not np.isfinite(t2):
            continue
        if what == "batch":
            gain = float(r.throughput[0] / result.throughput[c])
            if gain < 1.05:
                why = (_("the step is compute-bound already")
                       if result.memory_bound_share[c] < 0.5 else
                       _("each sequence's KV cache is read at every step, so the time grows "
                         "with the batch") if w.kind == "transformer" and w.phase == "decode" else
                       _("the time grows with the batch as fast as the work"))
                out.append(_("not a larger batch: {variant} would add latency ({latency}×) for "
                             "{gain}× the throughput: {why}").format(
                    variant=text, latency=f"{t2 / t:.3g}", gain=f"{gain:.3g}", why=why))
            else:
                out.append(_("{variant}: {rate} {unit} ({gain}× the throughput) at {time} per "
                             "step ({latency}× the latency)").format(
                    variant=text, rate=rate_count(float(r.throughput[0])),
                    unit=_(w.throughput_unit), gain=f"{gain:.3g}", time=format_time(t2),
                    latency=f"{t2 / t:.3g}"))
        elif t / t2 >= 1.05:
            out.append(_("{variant}: {time} per step, {times}× faster").format(
                variant=text, time=format_time(t2), times=f"{t / t2:.3g}"))
    if most == 0:
        need = result.chips_needed(c)
        out.append(_("more chips: it does not fit on {n}; it needs at least {need} "
                     "(Chips N)").format(n=w.chips_per_model, need=need))
    return out
