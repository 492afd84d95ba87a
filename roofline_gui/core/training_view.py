"""What the views show of a training step (Qt-free): the report of one chip's step and run, the
breakdown by forward / backward / recompute / optimizer / communication / bubble, the memory
per chip, the changes that would make it fit, the scaling over data parallelism and the
explanation in words. Every number comes from a
:class:`~roofline_gui.core.workload_eval.WorkloadResult` of a workload in phase ``train``
(core.training builds its entries), so the chart, the table, the CSV and the words agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from roofline_gui.core.build import build
from roofline_gui.core.energy import workload_lines
from roofline_gui.core.errors import ValidationError
from roofline_gui.core.i18n import N_, _, listed, ngettext
from roofline_gui.core.roofline import BOUND_MEMORY
from roofline_gui.core.training import GROUPS, RECOMPUTE_WORDS, scaling_variants
from roofline_gui.core.units import PRECISIONS, Units, format_si, format_time, rate_count, share_text
from roofline_gui.core.workload import Workload, label_of
from roofline_gui.core.workload_eval import WorkloadResult, evaluate_workloads
from roofline_gui.core.worth import workload_speedups, worth_text

#: The step's parts in the breakdown, in order, with the colour each is drawn in.
PART_COLORS = {"forward": "#4c78a8", "backward": "#f58518", "recompute": "#b279a2",
               "optimizer": "#54a24b", "communication": "#9d9d9d", "bubble": "#d6d6d6"}
#: The memory bar's parts (bytes per chip), with their colours.
#: the parts of a chip's memory, as the breakdown names them
MEMORY_PART_WORDS = (N_("weights"), N_("gradients"), N_("optimizer states"), N_("activations"))
#: a training step's items, as its words count them (translated where shown)
ITEM_PLURALS = {"token": N_("tokens"), "image": N_("images"), "sample": N_("samples")}
#: the step's parts and one item, as the explanation names them (translated where shown)
PART_WORDS = (N_("forward"), N_("backward"), N_("recompute"), N_("optimizer"),
              N_("communication"), N_("bubble"), N_("token"), N_("image"), N_("sample"))
MEMORY_COLORS = {"weights": "#1b9e77", "gradients": "#d95f02", "optimizer states": "#7570b3",
                 "activations": "#e7298a"}  # not the time parts' colours: another quantity


@dataclass(frozen=True)
class TrainingReport:
    """One chip's training step and the run it implies: times in s, bytes per chip, rates."""

    chip: str
    time_lower: float  # communication hidden behind compute
    time_upper: float  # communication not hidden: kernels + communication + bubble
    forward_time: float
    backward_time: float
    recompute_time: float
    optimizer_time: float
    compute_time: float  # in compute-bound entries
    memory_time: float  # in memory-bound entries
    communication_time: float
    bubble_time: float
    tokens_per_second: float  # all chips together (images or samples for a CNN or MLP)
    tokens_per_second_per_chip: float
    model_flops_per_token: float
    hardware_flops_per_token: float
    mfu_at_bound: float
    hfu_at_bound: float
    state_bytes: float
    activation_bytes: float
    capacity: float | None
    fits: bool
    train_days: float | None
    chip_hours: float | None
    steps: tuple[str, ...]


def chip_hours_text(hours: float) -> str:
    """Chip-hours as the run's line and "How it is counted" both write them: whole from 10, three
    digits below (7.93 in one had read "8" in the other)."""
    return f"{hours:,.0f}" if hours >= 10 else f"{hours:.3g}"


def _opt(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def report(result: WorkloadResult, c: int) -> TrainingReport:
    """The step on chip ``c`` with every formula's numbers in ``steps``."""
    f = result.training
    if f is None:
        raise ValueError(f"{result.workload.name} is not a training step (phase {result.workload.phase})")
    lower, upper = float(result.time[c]), float(result.time_no_overlap[c])
    groups = {g: float(result.group_time(g)[c]) for g in GROUPS}
    comm, bubble = float(result.link_time[c]), float(result.bubble_time[c])
    mem = float(result.memory_time[c])
    peak = float(result.peak[c])
    unit = f.unit
    w = result.workload
    items = _(ITEM_PLURALS[unit])
    steps = (
        *result.built.resident_steps[:1],
        (_("model FLOPs = {formula} (PaLM, appendix B; MFU counts these)") if unit == "token" else
         _("model FLOPs = {formula}; MFU counts these")).format(formula=f.model_flops_text),
        _("hardware FLOPs ({recompute}) = the entries' ops × {chips} chips ÷ {items_per_step} "
          "{items} = {per_item} per {item}").format(
            recompute=_(RECOMPUTE_WORDS[w.recompute]), chips=f.chips,
            items_per_step=f"{f.items_per_step:,.0f}", items=items,
            per_item=f"{f.hardware_flops_per_item:.4g}", item=_(unit)),
        _("per chip and step: {parts} (each entry at its roof: {time})").format(
            parts=listed(f"{_(g)} {format_time(t)}" for g, t in groups.items() if t),
            time=format_time(result.kernel_time[c])),
        *result.built.resident_steps[1:],
        *result.built.link_steps,
        (_("communication at {bandwidth}: {time}").format(
            bandwidth=format_si(float(result.link_bandwidth[c]), "B/s"), time=format_time(comm))
         if comm else _("one chip: no communication")),
        (_("pipeline bubble = (p−1)/m = {stages}/{micro} of forward, backward and recompute = "
           "{time}").format(stages=w.pipeline_parallel - 1, micro=f.micro_batches,
                            time=format_time(bubble))
         if w.pipeline_parallel > 1 else _("no pipeline: no bubble")),
        _("step ≥ max(kernels, communication) + bubble = {lower} (communication hidden behind "
          "compute), ≤ kernels + communication + bubble = {upper}").format(
            lower=format_time(lower), upper=format_time(upper)),
        _("MFU at the bound = {per_item}·{items_per_step} / ({time} · {chips} · {peak}) = {mfu} "
          "(hardware FLOPs: {hfu})").format(
            per_item=f"{f.model_flops_per_item:.4g}", items_per_step=f"{f.items_per_step:,.0f}",
            time=format_time(lower), chips=f.chips, peak=format_si(peak, "op/s"),
            mfu=f"{float(result.mfu_at_bound[c]):.1%}", hfu=f"{float(result.hfu_at_bound[c]):.1%}"),
    )
    days = float(result.train_days[c])
    if np.isfinite(days):
        steps = (*steps, _("{count} {items} = {steps} steps: {days} days, {hours} chip-hours").format(
            count=format_si(f.train_items, "").strip(), items=items,
            steps=f"{f.train_items / f.items_per_step:,.0f}", days=f"{days:.3g}",
            hours=chip_hours_text(float(result.chip_hours[c]))))
    cap = float(result.capacity[c])
    return TrainingReport(
        result.chips[c].name, lower, upper, groups["forward"], groups["backward"],
        groups["recompute"], groups["optimizer"], float(result.kernel_time[c]) - mem, mem, comm,
        bubble, float(result.throughput[c]), float(result.throughput[c]) / f.chips,
        f.model_flops_per_item, f.hardware_flops_per_item, float(result.mfu_at_bound[c]),
        float(result.hfu_at_bound[c]), f.state_bytes, f.activation_bytes, _opt(cap),
        bool(result.fits[c]) if np.isfinite(cap) else True, _opt(days),
        _opt(float(result.chip_hours[c])), steps)


# -- the breakdown and the memory bar ---------------------------------------------------------

@dataclass(frozen=True)
class Part:
    chip: int
    start: float
    width: float
    kind: str  # a key of PART_COLORS or MEMORY_COLORS
    name: str
    share: float


def breakdown(result: WorkloadResult, chips: Sequence[int]) -> list[Part]:
    """Each chip's step as a bar: forward, backward, recompute and optimizer time (each entry
    at its roof), then communication and the pipeline bubble, end to end (the no-overlap sum;
    the lower bound hides communication behind compute)."""
    out = []
    for c in chips:
        if not np.isfinite(result.time[c]):
            continue
        total = float(result.kernel_time[c] + result.link_time[c] + result.bubble_time[c])
        start = 0.0
        for g in GROUPS:
            rows = [e for e, entry in enumerate(result.entries) if entry.group == g]
            t = float(result.entry_time[rows, c].sum()) if rows else 0.0
            if t <= 0:
                continue
            memory = float(result.entry_time[rows, c][result.entry_bound[rows, c] == BOUND_MEMORY]
                           .sum())
            share = f"{100 * max(memory, t - memory) / t:.0f}%"
            name = (_("{part} (memory-bound {share})") if memory > 0.5 * t else
                    _("{part} (compute-bound {share})")).format(part=_(g), share=share)
            out.append(Part(c, start, t, g, name, t / total))
            start += t
        for kind, t in (("communication", float(result.link_time[c])),
                        ("bubble", float(result.bubble_time[c]))):
            if t > 0:
                out.append(Part(c, start, t, kind, _(kind), t / total))
                start += t
    return out


def memory_parts(result: WorkloadResult) -> list[tuple[str, float]]:
    """(part, bytes per chip) of what one chip holds: the same on every chip of the step."""
    f = result.training
    return [("weights", f.weights_bytes), ("gradients", f.gradient_bytes),
            ("optimizer states", f.optimizer_bytes), ("activations", f.activation_bytes)]


def fits_in_memory(result: WorkloadResult) -> np.ndarray:
    """[C] whether what one chip holds (memory_parts) fits in each chip's main memory; True
    where the preset does not say its capacity."""
    need = sum(size for _part, size in memory_parts(result))
    return ~(need > result.capacity)  # NaN capacity: not known to be short


def fit_changes(workload: Workload, capacity: float, kernels=None) -> list[str]:
    """The smallest changes, one setting at a time, after which each chip's states and
    activations fit in ``capacity`` bytes: a higher ZeRO stage (with d > 1), recomputation, a
    smaller micro-batch, more tensor or pipeline parallelism."""
    w = workload
    tries: list[tuple[str, str, Workload]] = []  # (kind of change, its words, the workload)
    if w.data_parallel > 1:
        tries += [("zero", _("ZeRO stage {stage}").format(stage=z), replace(w, zero=z))
                  for z in range(w.zero + 1, 4)]
    later = ("selective", "full") if w.kind == "transformer" else ("full",)
    tries += [(r, _(RECOMPUTE_WORDS[r]), replace(w, recompute=r)) for r in later
              if later.index(r) > (later.index(w.recompute) if w.recompute in later else -1)]
    b = w.batch
    while b > 1:
        b //= 2
        tries.append(("batch", _("micro-batch {batch}").format(batch=b),
                      replace(w, batch=b, global_batch=0 if not w.global_batch else w.global_batch)))
    if w.kind == "transformer":
        t = w.chips_per_model
        while t < 64:
            t *= 2
            tries.append(("tensor", _("tensor parallel t = {t} ({chips} chips)").format(
                t=t, chips=w.data_parallel * t * w.pipeline_parallel), replace(w, chips_per_model=t)))
    p = w.pipeline_parallel
    while p < 64:
        p *= 2
        tries.append(("pipeline", _("pipeline parallel p = {p} ({chips} chips)").format(
            p=p, chips=w.data_parallel * w.chips_per_model * p), replace(w, pipeline_parallel=p)))
    out, kinds = [], set()
    for kind, text, variant in tries:
        if kind in kinds:
            continue
        try:
            held = build(variant, kernels).resident_bytes
        except ValidationError:
            continue
        if held <= capacity:
            out.append(_("{change} ({bytes} per chip)").format(change=text,
                                                                bytes=format_si(held, "B")))
            kinds.add(kind)
    return out[:4]


def scaling(workload: Workload, chips, *, derated: bool = False, same_width: bool = False,
            kernels=None) -> list[WorkloadResult]:
    """The step as the data-parallel degree d runs over 1 … 4,096 (each replica's share of the
    global batch kept), all evaluated together: where communication takes over."""
    return evaluate_workloads(scaling_variants(workload), chips, derated=derated,
                              same_width=same_width, kernels=kernels)


def communication_takes_over(results: Sequence[WorkloadResult], c: int) -> int | None:
    """The smallest chip count of a scaling sweep at which communication takes longer than the
    kernels on chip ``c`` (None: never within it)."""
    return next((r.training.chips for r in results
                 if np.isfinite(r.time[c]) and r.link_time[c] > r.kernel_time[c]), None)


# -- the explanation ----------------------------------------------------------------------------

def _stand_in(result: WorkloadResult, c: int) -> str:
    """' (its fp16 stands in)' where the chip lacks the training precision and a same-width
    one of its own is used (View → Same-width precisions), else ''."""
    p = result.workload.activations
    s = result.evaluation.chip_arrays.stand_in_for(c, PRECISIONS.index(p))
    return (" " + _("(its {stand_in} stands in: it has no {precision})").format(
        stand_in=PRECISIONS[s], precision=p)) if s >= 0 else ""


def _runs_at(result: WorkloadResult, c: int) -> str:
    """The precision whose roof the step's matmuls run at on chip ``c``: the training one, or
    the same width's standing in for it (the V100's fp16 for bf16)."""
    p = result.workload.activations
    s = result.evaluation.chip_arrays.stand_in_for(c, PRECISIONS.index(p))
    return PRECISIONS[s] if s >= 0 else p


def explain_training(result: WorkloadResult, c: int, units: Units = Units(),  # noqa: B008
                     kernels=None, carbon: float | None = None) -> list[str]:
    """Lines of text for the training step on chip ``c``: the step and the run, whether the
    states and activations fit, the MFU and its convention, where the time goes, what bounds
    it, what would move it, and the formulas with their numbers."""

    w, chip, f = result.workload, result.chips[c], result.training
    t = float(result.time[c])
    if not np.isfinite(t):
        if result.unsupported(c)[0] == "link":
            return [_("{workload} on {chip}: the chip has no {link} level to join {n} chips; "
                      "choose another link or one chip.").format(
                workload=w.name, chip=chip.name, link=w.link, n=f.chips)]
        return [_("{workload} on {chip}: unsupported: {chip} has no {precision} ceiling (its "
                  "precisions: {have}); train it in one of those.").format(
            workload=w.name, chip=chip.name, precision=w.activations,
            have=listed(chip.precisions))]
    r = report(result, c)
    unit = f.unit
    what = (_("{sequences} sequences ({tokens} tokens)").format(
        sequences=f"{w.sequences_per_step:,}", tokens=f"{f.items_per_step:,.0f}")
            if unit == "token" else f"{w.sequences_per_step:,} {_(ITEM_PLURALS[unit])}")
    lines = [_("{workload} on {chip}: one step of {what} takes at least {time} on {chips} with "
               "communication hidden behind compute, at most {upper} with none hidden: {rate} "
               "{unit}/s, {per_chip} per chip.").format(
        workload=label_of(w), chip=chip.name, what=what, time=format_time(t),
        chips=ngettext("{n} chip", "{n} chips", f.chips).format(n=f"{f.chips:,}"),
        upper=format_time(r.time_upper), rate=rate_count(r.tokens_per_second),
        unit=_(ITEM_PLURALS[unit]), per_chip=rate_count(r.tokens_per_second_per_chip))]
    cap = float(result.capacity[c])
    held = f.state_bytes + f.activation_bytes
    memory = _("weights {weights}, gradients {gradients}, optimizer states {optimizer}, "
               "activations {activations}").format(
        weights=format_si(f.weights_bytes, "B"), gradients=format_si(f.gradient_bytes, "B"),
        optimizer=format_si(f.optimizer_bytes, "B"), activations=format_si(f.activation_bytes, "B"))
    if np.isfinite(cap) and held > cap:
        fixes = fit_changes(w, cap, kernels)
        facts = {"held": format_si(held, "B"), "memory": memory, "capacity": format_si(cap, "B")}
        lines.append(_("Does NOT fit: each chip must hold {held} ({memory}) but has {capacity}. "
                        "The times assume it fit: it would with {fixes}.").format(
            fixes=_("; or ").join(fixes), **facts) if fixes else
            _("Does NOT fit: each chip must hold {held} ({memory}) but has {capacity}. The times "
              "assume it fit.").format(**facts))
    if r.train_days is not None:
        days, hours = f"{r.train_days:,.3g}", f"{r.train_days * 24:,.3g}"
        span = (ngettext("{n} day", "{n} days", 1 if days == "1" else 2).format(n=days)
                if r.train_days >= 1 else
                ngettext("{n} hour", "{n} hours", 1 if hours == "1" else 2).format(n=hours))
        hours = chip_hours_text(r.chip_hours)
        lines.append(_("The run: {count} {items} take {span} on {chips}, {hours} chip-hours (at "
                       "the bound: a real run takes longer).").format(
            count=format_si(f.train_items, "").strip(), items=_(ITEM_PLURALS[unit]), span=span,
            chips=ngettext("{n} chip", "{n} chips", f.chips).format(n=f"{f.chips:,}"),
            hours=hours))
    lines.append((_("MFU at the bound: {mfu}. It counts model FLOPs as PaLM's appendix B counts "
                    "them, {formula}, against {chips} × the {precision} peak of {peak}{stand_in}; "
                    "with {recompute} the chips do {per_item} per {item} ({hfu} of peak).")
                  if unit == "token" else
                  _("MFU at the bound: {mfu}. It counts model FLOPs as three forward passes, "
                    "{formula}, against {chips} × the {precision} peak of {peak}{stand_in}; with "
                    "{recompute} the chips do {per_item} per {item} ({hfu} of peak).")).format(
        mfu=f"{r.mfu_at_bound:.1%}", formula=f.model_flops_text, chips=f"{f.chips:,}",
        precision=w.activations, peak=units.format_rate(float(result.peak[c])),
        stand_in=_stand_in(result, c), recompute=_(RECOMPUTE_WORDS[w.recompute]),
        per_item=f"{f.hardware_flops_per_item:.4g}", item=_(unit), hfu=f"{r.hfu_at_bound:.1%}"))
    total = r.time_upper  # the parts end to end, as the breakdown bar draws them
    parts = [(g, getattr(r, f"{g}_time")) for g in GROUPS] + [
        ("communication", r.communication_time), ("bubble", r.bubble_time)]
    top = result.dominant(c)
    bound = (_("memory-bound") if result.entry_bound[top, c] == BOUND_MEMORY else
             _("compute-bound"))
    lines.append(_("Where the time goes (the parts end to end, as the bar draws them): {parts}; "
                   "{memory} of it in memory-bound kernels. The longest entry: {entry}, {share} "
                   "({bound}).").format(
        parts=listed(f"{_(name)} {share_text(x / total)}" for name, x in parts if x > 0),
        memory=share_text(r.memory_time / total), entry=result.entries[top].kernel.name,
        share=share_text(float(result.entry_time[top, c]) / total), bound=bound))
    ceiling = float(result.peak[c])
    # the roof it runs at: the V100's fp16 for bf16 (the tour read "the bf16 roof of 125
    # Top/s" beside the table's "fp16 peak (for bf16)")
    busy = {"busy": f"{r.hfu_at_bound:.1%}", "precision": _runs_at(result, c),
            "roof": units.format_rate(ceiling), "share": share_text(r.compute_time / total),
            "link": format_time(r.communication_time),
            "kernels": format_time(float(result.kernel_time[c]))}
    lines.append((_("Compute is busy {busy} of the step at the {precision} roof of {roof} (the "
                    "chips' FLOPs ÷ peak; {share} of the time in compute-bound kernels); "
                    "communication ({link}) is longer than the kernels ({kernels}): the link "
                    "bounds the step.") if r.communication_time > result.kernel_time[c] else
                  _("Compute is busy {busy} of the step at the {precision} roof of {roof} (the "
                    "chips' FLOPs ÷ peak; {share} of the time in compute-bound kernels).")
                  ).format(**busy))
    names = {"compute": _("the {precision} peak").format(precision=_runs_at(result, c)),
             **{role: " and ".join(lv.name for lv in chip.levels(role))
                for role in ("dram", "cache", "host", "link") if chip.levels(role)}}
    worth = worth_text({k: float(v[c]) for k, v in workload_speedups(result).items()}, names)
    if worth:
        lines.append(worth)
    links = chip.levels("link")
    if w.link == "link" and f.chips > 8 and links and chip.levels("host"):
        # A chip's link level (NVLink, ICI) joins the chips of one node or pod; across nodes a
        # GPU's gradients cross the network, about the host link's speed (PCIe to the NIC).
        host = chip.levels("host")[0]
        slow = float(result.link_time[c]) * links[0].bandwidth / host.bandwidth
        facts = {"link": links[0].name, "bandwidth": format_si(links[0].bandwidth, "B/s"),
                 "chips": f"{f.chips:,}", "host": host.name,
                 "host_bandwidth": format_si(host.bandwidth, "B/s"), "time": format_time(slow)}
        lines.append((_("Communication is counted at {link}'s {bandwidth} between all {chips} "
                        "chips: a bound. Where they span nodes joined by a network of about "
                        "{host}'s {host_bandwidth} per chip, it takes {time} a step, longer than "
                        "the kernels: set Link to host to see that step.")
                      if slow > float(result.kernel_time[c]) else
                      _("Communication is counted at {link}'s {bandwidth} between all {chips} "
                        "chips: a bound. Where they span nodes joined by a network of about "
                        "{host}'s {host_bandwidth} per chip, it takes {time} a step and still "
                        "hides behind compute.")).format(**facts))
    lines.extend(precision_lines(result, c, kernels))
    lines.extend(same_time_lines(result, c, units))
    moves = _moves(result, c, kernels, result.evaluation.chip_arrays.same_width)
    if moves:
        lines.append(_("What would move it:"))
        lines.extend(f"• {m}" for m in moves)
    lines.append((_("Memory per chip: {memory} = {held} of {capacity}.") if np.isfinite(cap) else
                  _("Memory per chip: {memory} = {held}.")).format(
        memory=memory, held=format_si(held, "B"), capacity=format_si(cap, "B")))
    lines.extend(workload_lines(result, c, carbon))
    lines.append(_("How it is counted:"))
    lines.extend(f"• {s}" for s in r.steps)
    return lines


#: The precisions a training step is compared at (the article: "lower precision halves the
#: bytes, about 2x in training too"), widest first.
TRAINING_PRECISIONS = ("fp32", "tf32", "bf16", "fp16")


def precision_lines(result: WorkloadResult, c: int, kernels=None) -> list[str]:
    """The step at each training precision the chip has, tied to the article's "about 2x": the
    bytes halve from fp32 to 16 bits, which speeds a memory-bound step by 2x; a compute-bound
    step moves by the ratio of the peaks, which on a GPU whose fp32 runs on CUDA cores is far
    more (the A100: 19.5 against 312 Top/s)."""
    w, chip = result.workload, result.chips[c]
    t = float(result.time[c])
    here = [p for p in TRAINING_PRECISIONS if p in chip.precisions]
    if not np.isfinite(t) or w.activations not in here or len(here) < 2:
        return []
    variants = []
    for p in here:
        v = w if p == w.activations else replace(w, activations=p)
        try:
            build(v, kernels)
        except ValidationError:
            continue
        variants.append((p, v))
    if len(variants) < 2:
        return []
    results = evaluate_workloads([v for _p, v in variants], [chip], derated=result.evaluation.derated,
                                 kernels=kernels)
    times = {p: float(r.time[0]) for (p, _v), r in zip(variants, results, strict=True)}
    shares = {p: float(r.memory_bound_share[0]) for (p, _v), r in zip(variants, results, strict=True)}
    wide = "fp32" if "fp32" in times else w.activations
    narrow = next((p for p in ("bf16", "fp16") if p in times), None)
    if narrow is None or wide == narrow or not np.isfinite(times[wide]):
        return []
    # three digits, as "What would move it" writes the same ratios (11× here read 10.7× there)
    steps = listed(f"{p} {format_time(x)}" + ("" if p == wide else f" ({times[wide] / x:.3g}×)")
                   for p, x in times.items() if np.isfinite(x))
    peak_ratio = chip.compute[narrow] / chip.compute[wide]
    memory_share = shares[wide]
    why = (_("the {wide} step is {share} compute-bound, so the ratio of the peaks sets the gap: "
             "{chip}'s {wide} peak is {wide_peak}, its {narrow} peak {narrow_peak} ({ratio}×)")
           if memory_share < 0.5 else
           _("the {wide} step is {share} memory-bound, so the bytes' 2× sets most of the gap, "
             "as the article says")).format(
        wide=wide, narrow=narrow, chip=chip.name,
        share=share_text(1 - memory_share if memory_share < 0.5 else memory_share),
        wide_peak=format_si(chip.compute[wide], "op/s"),
        narrow_peak=format_si(chip.compute[narrow], "op/s"), ratio=f"{peak_ratio:.3g}")
    gap = times[wide] / times[narrow]
    if memory_share < 0.5 and gap < 0.9 * peak_ratio and np.isfinite(gap):
        # the tour: "the ratio of the peaks sets the gap (16×)" beside a step 11× faster
        why += _(", but the {narrow} step, {share} memory-bound, is held by its bytes before "
                 "it gets there: {gap}× rather than {ratio}×").format(
            narrow=narrow, share=share_text(shares[narrow]), gap=f"{gap:.3g}",
            ratio=f"{peak_ratio:.3g}")
    # both at once here: the tour read the 2x as the bytes' alone
    tf32 = (" " + _("From tf32 (4-byte values on the tensor cores, {peak}) to {narrow} it is "
                    "{times}×: the bytes halve and the peak grows {grows}× as well, so here the "
                    "article's 2× comes from both (a memory-bound step gets it from the bytes "
                    "alone).").format(
        peak=format_si(chip.compute["tf32"], "op/s"), narrow=narrow,
        times=f"{times['tf32'] / times[narrow]:.3g}",
        grows=f"{chip.compute[narrow] / chip.compute['tf32']:.3g}")
            if "tf32" in times and np.isfinite(times["tf32"]) else "")
    return [_("Precision, against the article's “lower precision halves the bytes, about 2× in "
              "training too”: on {chip} the step takes {steps}. From {wide} to {narrow} the bytes "
              "per value halve (2× for a memory-bound step); {why}.").format(
        chip=chip.name, steps=steps, wide=wide, narrow=narrow, why=why) + tf32]


def same_time_lines(result: WorkloadResult, c: int, units: Units = Units()) -> list[str]:  # noqa: B008
    """Other chips that take the same time (within 5 %), and why: the article's "a TPU and a
    GPU with the same HBM run about as fast" holds for a memory-bound step; a compute-bound one
    runs as fast where the peaks are near each other, whatever the bandwidths."""
    t, chip = float(result.time[c]), result.chips[c]
    if not np.isfinite(t):
        return []
    p = result.workload.activations
    out = []
    for d, other in enumerate(result.chips):
        t2 = float(result.time[d])
        if d == c or not np.isfinite(t2) or abs(t2 / t - 1) > 0.05:
            continue
        memory = min(float(result.memory_bound_share[c]), float(result.memory_bound_share[d]))
        # each chip's share as its own "Where the time goes" says it (one "up to 59.3%" read
        # beside the V100's own 57.6%: the twenty-first tour)
        shares = {"memory_shares": _("{share} on {chip}, {other_share} on {other}").format(
                      share=share_text(float(result.memory_bound_share[c])), chip=chip.name,
                      other_share=share_text(float(result.memory_bound_share[d])),
                      other=other.name),
                  "compute_shares": _("{share} on {chip}, {other_share} on {other}").format(
                      share=share_text(max(0.0, float(result.compute_share[c]))), chip=chip.name,
                      other_share=share_text(max(0.0, float(result.compute_share[d]))),
                      other=other.name)}
        bw = (chip.dram.bandwidth, other.dram.bandwidth)
        peaks = (float(result.peak[c]), float(result.peak[d]))
        same_hbm = abs(bw[0] / bw[1] - 1) <= 0.05
        hbm = (_("the same main-memory bandwidth ({bandwidth})") if same_hbm else
               _("main memories at {bandwidth} and {other_bandwidth}")).format(
            bandwidth=format_si(bw[0], "B/s"), other_bandwidth=format_si(bw[1], "B/s"))
        # the roofs each runs at: the V100's fp16 for bf16 (it read "their bf16 roofs" of a
        # V100 that has none: the ninth tour)
        runs = dict.fromkeys((_runs_at(result, c), _runs_at(result, d)))
        facts = {"hbm": hbm, **shares,
                 "precision": _("{first} and {second}").format(first=_runs_at(result, c),
                                                                second=_runs_at(result, d))
                 if len(runs) > 1 else p,
                 "roof": units.format_rate(peaks[0]),
                 "other_roof": units.format_rate(peaks[1]),
                 "ratio": f"{max(peaks) / min(peaks):.3g}"}
        if memory >= 0.5:
            reason = (_("the step is memory-bound (the time in memory-bound kernels: "
                        "{memory_shares}) and they have {hbm}: the article's case, the same HBM, "
                        "about the same speed")
                      if same_hbm else
                      _("the step is memory-bound (the time in memory-bound kernels: "
                        "{memory_shares}) and they have {hbm}")).format(**facts)
        else:
            reason = (_("they have {hbm}, but the step is compute-bound for much of its time "
                        "({compute_shares}), so the time is as equal as it is because their "
                        "{precision} roofs ({roof} and {other_roof}) are {ratio}× apart: the "
                        "article's same HBM is half the reason here") if same_hbm else
                      _("they have {hbm}, but the step is compute-bound for much of its time "
                        "({compute_shares}), so the time is as equal as it is because their "
                        "{precision} roofs ({roof} and {other_roof}) are {ratio}× apart, not for "
                        "the article's reason (the same HBM)")).format(**facts)
        out.append(_("{chip} and {other} take the same time within {gap} ({time} and "
                     "{other_time}): {reason}.").format(
            chip=chip.name, other=other.name, gap=f"{abs(t2 / t - 1):.0%}",
            time=format_time(t), other_time=format_time(t2), reason=reason))
    return out


def _moves(result: WorkloadResult, c: int, kernels, same_width: bool) -> list[str]:
    """Precision, micro-batch, recomputation and data parallelism, each evaluated on the chip."""
    w, chip = result.workload, result.chips[c]
    t = float(result.time[c])
    variants: list[tuple[str, Workload]] = []
    # Only a precision the chip has itself: a same-width stand-in would offer fp8 training on
    # an A100 at its int8 roof, which no one can run.
    low = next((p for p in {"fp32": ("bf16", "fp16"), "tf32": ("bf16", "fp16"),
                            "bf16": ("fp8",), "fp16": ("fp8",)}.get(w.activations, ())
                if p in chip.precisions), None)
    if low:
        variants.append((_("{low} instead of {precision} (mixed precision)").format(
            low=low, precision=w.activations), replace(w, activations=low)))
    if w.activations in ("bf16", "fp16", "fp8"):
        variants.append((_("fp32 instead (no mixed precision)"), replace(w, activations="fp32")))
    if w.recompute != "none":
        variants.append((_("no recomputation"), replace(w, recompute="none")))
    if w.global_batch in (0, w.batch * w.data_parallel):
        variants.append((_("micro-batch {batch} (the global batch with it)").format(
            batch=2 * w.batch), replace(w, batch=2 * w.batch)))
    variants.append((_("twice the data parallelism (d = {d}, {chips} chips, the global batch "
                       "twice as large)").format(d=2 * w.data_parallel,
                                                 chips=f"{2 * result.training.chips:,}"),
                     scaling_variants(w, (2 * w.data_parallel,))[0]))
    good = []
    for text, v in variants:
        try:
            build(v, kernels)
        except ValidationError:
            continue
        good.append((text, v))
    if not good:
        return []
    results = evaluate_workloads([v for _text, v in good], [chip], derated=result.evaluation.derated,
                                 same_width=same_width, kernels=kernels)
    out = []
    thr = float(result.throughput[c])
    for (text, _v), r in zip(good, results, strict=True):
        t2 = float(r.time[0])
        if not np.isfinite(t2):
            out.append(_("{change}: {chip} has no roof for it").format(change=text, chip=chip.name))
            continue
        fit = r.built.resident_bytes <= float(result.capacity[c]) if np.isfinite(
            result.capacity[c]) else True
        gain = float(r.throughput[0]) / thr
        days = float(r.train_days[0])
        parts = [_("{change}: {gain}× the {items}/s, step {time} ({ratio}×)").format(
            change=text, gain=f"{gain:.3g}", items=_(ITEM_PLURALS[result.training.unit]),
            time=format_time(t2), ratio=f"{t2 / t:.3g}")]
        if np.isfinite(days):
            parts.append(_("{days} days").format(days=f"{days:,.3g}"))
        if np.isfinite(r.mfu_at_bound[0]):
            parts.append(_("MFU {mfu}").format(mfu=f"{float(r.mfu_at_bound[0]):.1%}"))
        out.append(listed(parts) + ("" if fit else _("; does not fit ({bytes} per chip)").format(
            bytes=format_si(r.built.resident_bytes, "B"))))
    return out

