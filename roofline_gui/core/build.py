"""Building a workload: its entries, a sized kernel per layer type with its count and its formula
with the numbers filled in (:func:`build`).

Each kind has its builder here (CNN, MLP, LSTM, custom; a transformer's is
:mod:`roofline_gui.core.transformer`, reading its config through its family's reader); a training step
(:mod:`roofline_gui.core.training`) is built from a kind's forward pass. What a workload *is*
(its fields and their checks) is :mod:`roofline_gui.core.workload`, below both.

Conventions, as the kernel templates have them: ops count every add and multiply (1 MAC = 2 ops);
bytes are compulsory main-memory traffic (every weight read once per step, activations read
and written once between kernels, as if each kernel were fused and caches were perfect).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from roofline_gui.core.errors import Problem, ValidationError
from roofline_gui.core.i18n import _
from roofline_gui.core.identity_cache import IdentityCache
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.templates import TEMPLATES
from roofline_gui.core.training import build_training
from roofline_gui.core.transformer import build_transformer, make_entry
from roofline_gui.core.units import BYTES_PER_VALUE
from roofline_gui.core.units import format_bytes as _b  # short: formulas are full of them
from roofline_gui.core.units import format_count as _g
from roofline_gui.core.workload import MAX_COUNT, MAX_DIM, Built, Entry, Workload, parameters_text

_entry = make_entry


# -- CNNs, MLPs, LSTMs (the TPU paper's workloads) ------------------------------------------

CONV_FIELDS = ("c_in", "c_out", "height", "width", "kernel", "stride")


def _need(raw: Any, key: str, path: str, problems: list[Problem], maximum: int = MAX_DIM) -> int:
    value = raw.get(key) if isinstance(raw, Mapping) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) \
            or not 1 <= value <= maximum:
        problems.append(Problem(f"{path}.{key}", _(
            "must be a whole number from 1 to {maximum}, not {value}").format(
            maximum=maximum, value=repr(value))))
        return 1
    return int(value)


_CNN_LAYERS: IdentityCache[tuple] = IdentityCache(8)


def _cnn_layers(layers: Any) -> tuple[tuple, ...]:
    """The CNN's layers read and checked: ("fc", name, count, d_in, d_out) or ("conv", name,
    count, c_in, c_out, height, width, kernel, stride). Raises ValidationError naming each bad
    field. Read once for the same list: a batch sweep builds the same layers 13 times."""
    if not isinstance(layers, list) or not layers:
        raise ValidationError([Problem("spec.layers", _("needs a list of layers"))])
    problems: list[Problem] = []
    out = []
    for j, layer in enumerate(layers):
        path = f"spec.layers[{j}]"
        if not isinstance(layer, Mapping):
            problems.append(Problem(path, _("must be an object")))
            continue
        name = str(layer.get("name", _("layer {n}").format(n=j + 1)))
        count = _need(layer, "count", path, problems, MAX_COUNT) if "count" in layer else 1
        if layer.get("type", "conv") == "fc":
            out.append(("fc", name, count, _need(layer, "d_in", path, problems),
                        _need(layer, "d_out", path, problems)))
        else:
            out.append(("conv", name, count, *(_need(layer, f, path, problems) for f in CONV_FIELDS)))
    if problems:
        raise ValidationError(problems)
    return tuple(out)


def _cnn(w: Workload) -> Built:
    layers = w.spec.get("layers")
    parsed = (_CNN_LAYERS.get((layers,), lambda: _cnn_layers(layers)) if isinstance(layers, list)
              else _cnn_layers(layers))
    bw, ba, B = BYTES_PER_VALUE[w.weights], BYTES_PER_VALUE[w.activations], w.batch
    entries: list[Entry] = []
    params = 0.0
    for kind, name, count, *dims in parsed:
        if kind == "fc":
            di, do = dims
            weights = di * do * bw
            ops = 2 * B * di * do
            params += count * (di * do + do)
            entries.append(_entry(w, len(entries), name, "fully connected", count, ops,
                                  weights + B * di * ba, B * do * ba,
                                  [f"ops = 2·B·d_in·d_out = 2·{_g(B)}·{di}·{do} = {_g(ops)}",
                                   _("weights = d_in·d_out·b_w = {weights}").format(
                                       weights=_b(weights))], weights))
            continue
        ci, co, hh, ww, kk, s = dims
        ho, wo = -(-hh // s), -(-ww // s)
        ops = 2 * B * co * ho * wo * ci * kk * kk
        weights = ci * co * kk * kk * bw
        inp, out = B * ci * hh * ww * ba, B * co * ho * wo * ba
        params += count * (ci * co * kk * kk + 2 * co)  # weights and batch-norm scale, shift
        entries.append(_entry(
            w, len(entries), name, "conv", count, ops, weights + inp, out,
            [_("{k}×{k} conv, {c_in}→{c_out} channels, {h}×{w} input, stride {s} → "
               "{ho}×{wo}").format(k=kk, c_in=ci, c_out=co, h=hh, w=ww, s=s, ho=ho, wo=wo),
             f"ops = 2·B·C_out·Ho·Wo·C_in·K² = {_g(ops)}",
             _("bytes = input B·C_in·H·W·b_a {input} + weights C_in·C_out·K²·b_w {weights} + "
               "output {output} (batch norm and ReLU fused; the weights slide over every pixel "
               "and image: the reuse that makes CNNs compute-bound)").format(
                 input=_g(inp), weights=_g(weights), output=_b(out))], weights))
    return Built(tuple(entries), parameters=params, active_parameters=params,
                 resident_bytes=params * bw, weight_bytes=params * bw,
                 resident_steps=(_weights_text(params, bw),))


def _weights_text(params: float, bw: float) -> str:
    return _("weights {parameters} parameters · b_w{split} = {bytes}").format(
        parameters=parameters_text(params), split="", bytes=_b(params * bw))


def _mlp(w: Workload) -> Built:
    widths = w.spec.get("widths")
    if not isinstance(widths, list) or len(widths) < 2:
        raise ValidationError([Problem("spec.widths", _("needs at least two widths (in, out)"))])
    problems: list[Problem] = []
    dims = [_need({"w": v}, "w", f"spec.widths[{j}]", problems) for j, v in enumerate(widths)]
    if problems:
        raise ValidationError(problems)
    bw, ba, B = BYTES_PER_VALUE[w.weights], BYTES_PER_VALUE[w.activations], w.batch
    entries = []
    for j, (di, do) in enumerate(zip(dims, dims[1:], strict=False)):
        weights = di * do * bw
        ops = 2 * B * di * do
        entries.append(_entry(w, j, _("Layer {n}: {d_in}×{d_out}").format(n=j + 1, d_in=di,
                                                                          d_out=do),
                              "fully connected", 1, ops, weights + B * di * ba, B * do * ba,
                              [f"ops = 2·B·d_in·d_out = 2·{_g(B)}·{di}·{do} = {_g(ops)}",
                               _("weights = d_in·d_out·b_w = {weights}, read once for the batch: "
                                 "intensity ≈ 2·B / b_w = {intensity} op/B").format(
                                   weights=_b(weights), intensity=_g(2 * B / bw))],
                              weights))
    params = sum(di * do + do for di, do in zip(dims, dims[1:], strict=False))
    return Built(tuple(entries), parameters=params, active_parameters=params,
                 resident_bytes=params * bw, weight_bytes=params * bw,
                 resident_steps=(_weights_text(params, bw),))


def _lstm(w: Workload) -> Built:
    problems: list[Problem] = []
    layers = _need(w.spec, "layers", "spec", problems)
    x = _need(w.spec, "input", "spec", problems)
    hid = _need(w.spec, "hidden", "spec", problems)
    steps = _need(w.spec, "steps", "spec", problems)
    if problems:
        raise ValidationError(problems)
    bw, ba, B = BYTES_PER_VALUE[w.weights], BYTES_PER_VALUE[w.activations], w.batch
    weights = 4 * hid * (x + hid) * bw
    ops = 2 * B * 4 * hid * (x + hid)
    acts = B * (x + 2 * hid) * ba
    entry = _entry(w, 0, _("LSTM step, h = {h}").format(h=hid), "LSTM", layers * steps, ops,
                   weights + acts, 2 * B * hid * ba,
                   [_("count = layers·time steps = {layers}·{steps} = {count} (the weights are "
                      "read again every step: they do not stay on chip)").format(
                       layers=layers, steps=steps, count=layers * steps),
                    f"ops = 2·B·4h·(x + h) = {_g(ops)}",
                    _("weights = 4h·(x + h)·b_w = {weights}; intensity ≈ 2·B / b_w").format(
                        weights=_b(weights))],
                   weights)
    params = layers * 4 * hid * (x + hid + 1)
    return Built((entry,), parameters=params, active_parameters=params,
                 resident_bytes=params * bw, weight_bytes=params * bw,
                 resident_steps=(_weights_text(params, bw),))


def _custom(w: Workload, kernels: Mapping[str, Kernel]) -> Built:
    raw = w.spec.get("entries")
    if not isinstance(raw, list) or not raw:
        raise ValidationError([Problem("spec.entries", _("needs a list of {kernel, count}"))])
    problems: list[Problem] = []
    entries = []
    for j, item in enumerate(raw):
        path = f"spec.entries[{j}]"
        kid = item.get("kernel") if isinstance(item, Mapping) else None
        if not isinstance(kid, str) or kid not in kernels:
            problems.append(Problem(f"{path}.kernel", _(
                "names no kernel of the session ({kernel})").format(kernel=repr(kid))))
            continue
        count = _need(item, "count", path, problems, MAX_COUNT)
        k = kernels[kid]
        if not k.has_size:
            problems.append(Problem(f"{path}.kernel", _(
                "{kernel} has an intensity only, no size: it has no time to add up").format(
                kernel=repr(k.name))))
            continue
        bound = bool(k.template) and "batch" in {p.name for p in TEMPLATES[k.template].params}
        if bound:
            k = replace(k, params={**k.params, "batch": w.batch})
        t = k.traffic()
        steps = [(_("{count} × the session's kernel {kernel} at the workload's batch {batch}")
                  if bound else _("{count} × the session's kernel {kernel}")).format(
                     count=count, kernel=repr(k.name), batch=w.batch),
                 _("ops = {ops}, dram bytes = {bytes}").format(
                     ops=_g(t.ops), bytes=_g(t.bytes.get("dram", 0)))]
        entries.append(Entry(replace(k, id=f"{w.id}/{j}"), count,
                             k.category, tuple(steps)))
    if problems:
        raise ValidationError(problems)
    return Built(tuple(entries))


def build(workload: Workload, kernels: Mapping[str, Kernel] | None = None) -> Built:
    """The workload's entries. Raises ValidationError naming each bad parameter or spec field."""
    problems = workload.problems()
    if problems:
        raise ValidationError(problems)
    if not isinstance(workload.spec, Mapping):
        raise ValidationError([Problem("spec", _("must be an object"))])
    if workload.training:
        return build_training(workload, _build_kind)
    return _build_kind(workload, kernels)


def _build_kind(workload: Workload, kernels: Mapping[str, Kernel] | None = None) -> Built:
    match workload.kind:
        case "transformer":
            return build_transformer(workload)
        case "cnn":
            return _cnn(workload)
        case "mlp":
            return _mlp(workload)
        case "lstm":
            return _lstm(workload)
    return _custom(workload, kernels or {})
