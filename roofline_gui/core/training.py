"""Training: one optimizer step of a transformer, CNN or MLP workload on one kind of chip, as
kernels of the roofline, and the run it implies (issue 26).

Qt-free. A workload in phase ``train`` is built (:func:`build_training`) from its forward pass
on one micro-batch: every forward kernel, its backward, any recomputation and the optimizer
update are entries evaluated on the roofline like any workload's
(:mod:`roofline_gui.core.workload_eval`), so a training step is drawn, summed and explained as
inference is. The conventions, with their sources (``../shared/reference/training-and-energy.md``):

- **Backward**: data gradients plus weight gradients, each the size of the forward: twice the
  forward's ops and twice its bytes (it reads the weights, the saved inputs and the output
  gradients, and writes the input gradients and the weight gradients).
- **Model FLOPs** per token, PaLM's (Chowdhery et al. 2022, appendix B): 6·N + 12·L·H·Q·T, N
  the parameters a token's matmuls use (an untied input embedding table is a lookup and is left
  out; a tied one is the LM head and counts once), L layers, H heads of dimension Q, T the
  sequence; per image or sample, three times the forward's. MFU counts these, never the
  recomputation; the hardware FLOPs the entries add up are shown beside. Attention is counted
  over the full S×S square in training, as PaLM's term and Megatron's kernel count it, so the
  hardware FLOPs are never below the model FLOPs and the MFU at the bound never above 100 %.
- **Recomputation**: selective recomputes the attention core (Korthikanti et al. 2022); full,
  one more forward of every layer.
- **Model states**, ZeRO's (Rajbhandari et al. 2020): mixed-precision Adam keeps 2 bytes of
  16-bit weights, 2 of gradients and K = 12 of fp32 master weights, momentum and variance per
  parameter; SGD with momentum K = 8; training in fp32, 4 + 4 and K = 8 (Adam) or 4 (SGD), no
  master copy. Stage 1 divides the K bytes by the data-parallel degree d, stage 2 the gradients
  too, stage 3 the weights too.
- **Optimizer update**: a memory-bound kernel that reads and writes weights, gradients and
  states of the parameters a chip updates once per step.
- **Activations** per layer (Korthikanti et al. 2022, Table 2, 16-bit values, with sequence
  parallelism; s sequence, b micro-batch, h hidden, a heads, t tensor parallel): none
  s·b·h·(34 + 5·a·s/h)/t, selective 34·s·b·h/t, full 2·s·b·h. With 1F1B the first pipeline
  stage holds L layers' worth (eq. 5). A CNN or MLP keeps every layer's output.
- **Communication** per chip and step: data parallel, a ring all-reduce of the gradients,
  2·(d−1)/d of their bytes (ZeRO-3: 3·(d−1)/d of the weights' bytes, the ZeRO paper's 1.5×);
  tensor parallel, 4 all-reduces of b·s·h values per layer and micro-batch (6 with full
  recomputation); pipeline, each micro-batch's activations sent on and its gradients sent back.
- **Pipeline bubble**: (p−1)/m of the forward and backward time, m micro-batches per step
  (Narayanan et al. 2021).
- **Step time**: at least max(kernels, communication) + bubble (communication hidden behind
  compute), at most kernels + communication + bubble.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from roofline_gui.core.errors import Problem, ValidationError
from roofline_gui.core.families import read_config
from roofline_gui.core.i18n import N_, _, ngettext
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.model_config import TransformerConfig
from roofline_gui.core.units import BYTES_PER_VALUE
from roofline_gui.core.units import format_bytes as _b  # short: formulas are full of them
from roofline_gui.core.units import format_count as _g
from roofline_gui.core.workload import Built, Entry, Workload

#: translated where shown
RECOMPUTE_WORDS = {"none": N_("no recomputation"), "selective": N_("selective recomputation"),
                   "full": N_("full recomputation")}
OPTIMIZER_NAMES = {"adam": N_("Adam"), "sgd": N_("SGD with momentum")}
#: Ops per parameter of an update: Adam's two moments (7), bias corrections, square root,
#: division, weight decay and step (6); SGD's momentum (2) and step (2).
OPTIMIZER_OPS = {"adam": 13, "sgd": 4}
#: The groups of a training step's entries, in order; the bubble idles the first three.
GROUPS = ("forward", "backward", "recompute", "optimizer")
BUBBLE_GROUPS = ("forward", "backward", "recompute")


def matmul_parameters(cfg: TransformerConfig) -> float:
    """N of the model FLOPs: the parameters a token's matmuls use. An untied input embedding
    table (and learned positions) is a lookup, not a matmul, and is left out; a tied one is the
    LM head's matrix and counts once, as in PaLM (tied) and Korthikanti et al.'s eq. 7 (the
    v/(12·h·L) term: the head once)."""
    lookup = (0 if cfg.tied else cfg.vocab * cfg.hidden) + cfg.positions * cfg.hidden
    return cfg.active_parameters() - lookup


def model_flops_per_token(cfg: TransformerConfig, sequence: int) -> float:
    """PaLM's model FLOPs per token of a training step: 6·N + 12·L·H·Q·T, N the matmul
    parameters a token uses (:func:`matmul_parameters`)."""
    return 6 * matmul_parameters(cfg) + 12 * cfg.layers * cfg.heads * cfg.head_dim * sequence


def state_bytes_per_parameter(precision: str, optimizer: str) -> tuple[float, float, float]:
    """(weights, gradients, optimizer states) bytes per parameter, ZeRO's count: 2 + 2 + 12 for
    mixed-precision Adam (fp32 master weights, momentum, variance), 2 + 2 + 8 for SGD with
    momentum; in fp32 4 + 4 + 8 (Adam) or 4 + 4 + 4 (SGD), no master copy."""
    b = BYTES_PER_VALUE[precision]
    moments = 8.0 if optimizer == "adam" else 4.0
    master = 4.0 if b < 4 else 0.0
    return b, b, moments + master


def activation_bytes_per_layer(s: int, b: int, h: int, a: int, t: int, recompute: str,
                               precision: str) -> float:
    """Korthikanti et al. 2022, Table 2 (with sequence parallelism), scaled from its 16-bit
    values to ``precision``."""
    if recompute == "full":
        per = 2 * s * b * h
    elif recompute == "selective":
        per = s * b * h * 34 / t
    else:
        per = s * b * h * (34 + 5 * a * s / h) / t
    return per * BYTES_PER_VALUE[precision] / 2


def implied_mfu(cfg: TransformerConfig, sequence: int, tokens_per_second: float, chips: int,
                peak: float) -> float:
    """The MFU a published throughput implies: model FLOPs per second ÷ (chips × peak)."""
    return model_flops_per_token(cfg, sequence) * tokens_per_second / (chips * peak)


@dataclass(frozen=True)
class TrainingFacts:
    """What a training step is, whatever chip runs it."""

    unit: str  # "token", "image", "sample"
    model_flops_per_item: float  # MFU counts these
    model_flops_text: str  # the formula with its numbers
    hardware_flops_per_item: float  # what the entries add up to, recomputation included
    items_per_step: float  # tokens (images) of the global batch
    chips: int  # d · t · p
    micro_batches: int  # m per replica and step
    bubble_fraction: float  # (p − 1) / m
    weights_bytes: float  # per chip, after ZeRO
    gradient_bytes: float
    optimizer_bytes: float
    activation_bytes: float
    state_text: str
    activation_text: str
    train_items: float  # D: tokens (images) of the whole run (0: none)

    @property
    def state_bytes(self) -> float:
        return self.weights_bytes + self.gradient_bytes + self.optimizer_bytes


def _scaled(kernel, factor: float, name: str, note: str):
    return replace(kernel, name=name, flops=kernel.flops * factor,
                   bytes={r: v * factor for r, v in kernel.bytes.items()},
                   write_bytes={r: v * factor for r, v in kernel.write_bytes.items()},
                   notes=f"{note}\n{kernel.notes}")


def build_training(w: Workload, build_kind: Callable[[Workload], Built]) -> Built:
    """The entries one chip runs in one optimizer step of ``w`` (phase ``train``), from its
    forward pass on one micro-batch. Raises ValidationError naming each setting that cannot be."""
    transformer = w.kind == "transformer"
    problems = []
    if not transformer and w.chips_per_model > 1:
        problems.append(Problem("chips_per_model", _(
            "tensor parallelism splits a transformer's heads; train a CNN or MLP with data and "
            "pipeline parallelism")))
    if w.activations_on_chip:
        problems.append(Problem("activations_on_chip", _(
            "applies to inference: training keeps every layer's activations for the backward "
            "pass")))
    if problems:
        raise ValidationError(problems)
    prec = w.activations  # the matmuls', the activations' and the gradients' precision
    forward = build_kind(replace(w, weights=prec, kv_cache=prec))
    cfg = read_config(w.spec, "spec") if transformer else None
    layers = cfg.layers if cfg else int(sum(e.count for e in forward.entries))
    d, t, p = w.data_parallel, w.chips_per_model, w.pipeline_parallel
    b, m = w.batch, w.micro_batches
    if p > layers:
        raise ValidationError([Problem("pipeline_parallel", _(
            "{p} pipeline stages for {layers} layers: at most one stage per layer").format(
            p=p, layers=layers))])
    chips = d * t * p
    s = w.sequence if transformer else 1
    unit = "token" if transformer else ("image" if w.kind == "cnn" else "sample")
    items = w.sequences_per_step * s
    per = m / p
    where = ngettext("per chip: × m/p = {m}/{p} (m = G/(b·d) = {G}/({b}·{d}) micro-batches, "
                     "p = {p} stage)",
                     "per chip: × m/p = {m}/{p} (m = G/(b·d) = {G}/({b}·{d}) micro-batches, "
                     "p = {p} stages)", p).format(m=m, p=p, G=w.sequences_per_step, b=b, d=d)
    entries: list[Entry] = []

    def add(kernel, count, group, steps, weight_bytes=0.0):
        entries.append(Entry(replace(kernel, id=f"{w.id}/{len(entries)}"), count, group,
                             tuple(steps), weight_bytes))

    for e in forward.entries:
        add(e.kernel, e.count * per, "forward", [*e.steps, where], e.weight_bytes)
    for e in forward.entries:
        note = _("backward: data gradients and weight gradients, each the forward's size: "
                 "2 × its ops and 2 × its bytes (reads weights, saved inputs and output "
                 "gradients; writes input and weight gradients)")
        add(_scaled(e.kernel, 2.0, _("{kernel} (backward)").format(kernel=e.kernel.name), note),
            e.count * per,
            "backward", [note, *e.steps, where], 2 * e.weight_bytes)
    if w.recompute != "none":
        again = [e for e in forward.entries
                 if e.attention_core
                 or (w.recompute == "full" and e.group != "head")]
        for e in again:
            note = (_("{recompute}: this forward kernel runs again in the backward pass (the "
                      "attention core: Korthikanti et al. 2022)") if w.recompute == "selective"
                    else _("{recompute}: this forward kernel runs again in the backward pass")
                    ).format(recompute=_(RECOMPUTE_WORDS[w.recompute]))
            add(_scaled(e.kernel, 1.0, _("{kernel} (recompute)").format(kernel=e.kernel.name),
                        note), e.count * per,
                "recompute", [note, *e.steps, where], e.weight_bytes)
    # -- model states and the optimizer -----------------------------------------------------
    params = forward.parameters
    shard = params / (t * p)
    bw, bg, bo = state_bytes_per_parameter(prec, w.optimizer)
    z = w.zero
    weights = shard * bw / (d if z >= 3 else 1)
    grads = shard * bg / (d if z >= 2 else 1)
    states = shard * bo / (d if z >= 1 else 1)
    owned = shard / (d if z >= 1 else 1)  # the parameters a chip updates
    split = (_("Ψ = parameters ÷ (t·p) = {parameters} / ({t}·{p}) = {shard} per chip").format(
        parameters=_g(params), t=t, p=p, shard=_g(shard))
        if t * p > 1 else _("Ψ = {parameters} parameters").format(parameters=_g(params)))
    optimizer = _(OPTIMIZER_NAMES[w.optimizer])
    how = (_("{optimizer}, {precision}, fp32 master weights") if bw < 4 else
           _("{optimizer}, {precision}")).format(optimizer=optimizer, precision=prec)
    zero = (_("ZeRO stage {z}"), _("ZeRO stage {z} dividing the optimizer states by d = {d}"),
            _("ZeRO stage {z} dividing them and the gradients by d = {d}"),
            _("ZeRO stage {z} dividing them, the gradients and the weights by d = {d}"))[z]
    state_text = _("{split}; weights {bw} + gradients {bg} + optimizer {bo} B per parameter "
                   "({how}), {zero}: {weights} + {grads} + {states} = {total}").format(
        split=split, bw=f"{bw:g}", bg=f"{bg:g}", bo=f"{bo:g}", how=how,
        zero=zero.format(z=z, d=d), weights=_b(weights), grads=_b(grads), states=_b(states),
        total=_b(weights + grads + states))
    traffic = (bw + bg + bo) * owned
    ops = OPTIMIZER_OPS[w.optimizer] * owned
    opt_steps = [(_("{optimizer} update of the {parameters} parameters this chip owns (ZeRO-{z}: "
                    "Ψ/d)") if z else
                  _("{optimizer} update of the {parameters} parameters this chip owns")).format(
                     optimizer=optimizer, parameters=_g(owned), z=z),
                 _("ops ≈ {per} per parameter = {ops}").format(per=OPTIMIZER_OPS[w.optimizer],
                                                               ops=_g(ops)),
                 _("reads weights, gradients and states ({bw} + {bg} + {bo} B per parameter) and "
                   "writes them back (gradients zeroed): {formula} = {bytes}").format(
                     bw=f"{bw:g}", bg=f"{bg:g}", bo=f"{bo:g}",
                     formula=f"2·{_g(bw + bg + bo)}·{_g(owned)}", bytes=_b(2 * traffic))]
    add(Kernel(id="", name=_("Optimizer update ({optimizer})").format(optimizer=optimizer),
               precision=prec,
               category=f"workload: {w.name}", flops=ops, bytes={"dram": 2 * traffic},
               write_bytes={"dram": traffic}, notes="\n".join(opt_steps)),
        1, "optimizer", opt_steps, 2 * traffic)
    # -- activations held for the backward pass ----------------------------------------------
    in_flight = min(m, p)  # 1F1B: the first stage holds p micro-batches of L/p layers
    if cfg:
        per_layer = activation_bytes_per_layer(s, b, cfg.hidden, cfg.heads, t, w.recompute, prec)
        acts = per_layer * cfg.layers * in_flight / p
        formula = {"none": "s·b·h·(34 + 5·a·s/h)/t", "selective": "34·s·b·h/t",
                   "full": "2·s·b·h"}[w.recompute]
        if BYTES_PER_VALUE[prec] != 2:  # the table's bytes are of 16-bit values: fp32's
            # are twice (the ×2 had not been written: 34·s·b·h/t read 570 MB, the text said
            # 1.141 GB, the twenty-second tour)
            formula += f" × {BYTES_PER_VALUE[prec]:g} B/2 B"
        act_text = (_("activations {formula} per layer (Korthikanti et al. 2022, Table 2, "
                      "{recompute}) = {per_layer} × {layers} layers × {in_flight}/{p} (1F1B: the "
                      "first stage holds min(m, p) micro-batches of L/p layers) = {bytes}")
                    if p > 1 else
                    _("activations {formula} per layer (Korthikanti et al. 2022, Table 2, "
                      "{recompute}) = {per_layer} × {layers} layers = {bytes}")).format(
            formula=formula, recompute=_(RECOMPUTE_WORDS[w.recompute]), per_layer=_b(per_layer),
            layers=cfg.layers, in_flight=in_flight, p=p, bytes=_b(acts))
    else:
        outputs = [e.kernel.write_bytes.get("dram", 0.0) for e in forward.entries]
        held = (max(outputs) if w.recompute == "full" else
                sum(o * e.count for o, e in zip(outputs, forward.entries, strict=True)))
        acts = held * in_flight / p
        act_text = (_("activations: the largest layer's output (full recomputation keeps one "
                      "layer's at a time) = {bytes}") if w.recompute == "full" else
                    _("activations: every layer's output, kept for the backward pass = "
                      "{bytes}")).format(bytes=_b(acts))
    # -- communication ----------------------------------------------------------------------
    link, link_steps = 0.0, []
    if d > 1:
        if z >= 3:
            vol = 3 * (d - 1) / d * shard * bw
            link_steps.append(_("data parallel, ZeRO-3: reduce-scatter of the gradients and two "
                                "all-gathers of the weights, 3·(d−1)/d·Ψ·b = {formula} = "
                                "{bytes}").format(formula=f"3·{d - 1}/{d}·{_b(shard * bw)}",
                                                  bytes=_b(vol)))
        else:
            vol = 2 * (d - 1) / d * shard * bg
            link_steps.append(_("data parallel: ring all-reduce of the gradients, "
                                "2·(d−1)/d·Ψ·b_g = {formula} = {bytes}").format(
                formula=f"2·{d - 1}/{d}·{_b(shard * bg)}", bytes=_b(vol)))
        link += vol
    ba = BYTES_PER_VALUE[prec]
    if t > 1 and cfg:
        act = b * s * cfg.hidden * ba
        n = 6 if w.recompute == "full" else 4
        vol = n * (cfg.layers / p) * m * 2 * (t - 1) / t * act
        link_steps.append(_("tensor parallel: {n} all-reduces per layer and micro-batch of "
                            "b·s·h·b_a = {act}, 2·(t−1)/t of it each, × {layers} layers × {m} "
                            "micro-batches = {bytes}").format(
            n=n, act=_b(act), layers=_g(cfg.layers / p), m=m, bytes=_b(vol)))
        link += vol
    moved = dict(forward.link_parts).get("all-to-all", 0.0)
    all_to_all = 3 * moved * per
    if moved:
        vol = 3 * moved * per
        link_steps.append(_("expert parallel: the forward's all-to-all ({moved} per "
                            "micro-batch), and twice in backward (the data gradients back, the "
                            "outputs' gradients out): 3 × that × m/p = {bytes}").format(
            moved=_b(moved), bytes=_b(vol)))
        link += vol
    if p > 1:
        boundary = (b * s * cfg.hidden * ba if cfg else
                    sum(e.kernel.write_bytes.get("dram", 0.0) * e.count for e in forward.entries)
                    / max(layers, 1))
        vol = 2 * m * boundary
        link_steps.append(_("pipeline: each micro-batch's activations sent on and gradients "
                            "sent back, 2·m·{boundary} = {bytes}").format(boundary=_b(boundary),
                                                                          bytes=_b(vol)))
        link += vol
    # -- what the step counts -----------------------------------------------------------------
    fwd_ops = sum(e.kernel.flops * e.count for e in forward.entries)
    if cfg:
        model_ft = model_flops_per_token(cfg, s)
        model_text = _("6·N + 12·L·H·Q·T = {formula} = {flops} per token").format(
            formula=f"6·{matmul_parameters(cfg):.4g} + 12·{cfg.layers}·{cfg.heads}·"
                    f"{cfg.head_dim}·{s}", flops=f"{model_ft:.4g}")
    else:
        model_ft = 3 * fwd_ops / b
        model_text = (_("3 × the forward's ops per image = {formula} = {flops} (forward, data "
                        "gradients, weight gradients)") if unit == "image" else
                      _("3 × the forward's ops per sample = {formula} = {flops} (forward, data "
                        "gradients, weight gradients)")).format(
            formula=f"3·{fwd_ops / b:.4g}", flops=f"{model_ft:.4g}")
    chip_ops = sum(e.kernel.flops * e.count for e in entries)
    facts = TrainingFacts(
        unit, model_ft, model_text, chip_ops * chips / items, items, chips, m,
        (p - 1) / m if p > 1 else 0.0, weights, grads, states, acts, state_text, act_text,
        float(w.train_tokens))
    step = (_("step: G = {G} sequences ({items} tokens) over d·t·p = {formula} = {chips} chips")
            if cfg else
            _("step: G = {G} images over d·t·p = {formula} = {chips} chips")
            if unit == "image" else
            _("step: G = {G} samples over d·t·p = {formula} = {chips} chips"))
    steps = (step.format(G=w.sequences_per_step, items=_g(items), formula=f"{d}·{t}·{p}",
                         chips=chips), state_text, act_text)
    return Built(tuple(entries), link, tuple(link_steps), forward.notes, params,
                 forward.active_parameters, weights + grads + states + acts, steps,
                 forward.heads, facts, weight_bytes=weights, kv_cache_bytes=0.0,
                 link_parts=(("all-to-all", all_to_all), ("the rest", link - all_to_all))
                 if all_to_all else ())


def scaling_variants(w: Workload, degrees=tuple(2**i for i in range(13))) -> list[Workload]:
    """The workload at each data-parallel degree d (1 … 4,096 by default), each replica's share
    of the global batch kept (so the global batch grows with d): the scaling view's points."""
    per_replica = w.sequences_per_step // w.data_parallel
    return [replace(w, data_parallel=int(d), global_batch=per_replica * int(d)) for d in degrees]
