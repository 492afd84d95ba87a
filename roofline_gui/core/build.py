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
        problems.append(Problem(f"{path}.{key}", f"must be a whole number from 1 to {maximum}, "
                                                 f"not {value!r}"))
        return 1
    return int(value)


_CNN_LAYERS: IdentityCache[tuple] = IdentityCache(8)


def _cnn_layers(layers: Any) -> tuple[tuple, ...]:
    """The CNN's layers read and checked: ("fc", name, count, d_in, d_out) or ("conv", name,
    count, c_in, c_out, height, width, kernel, stride). Raises ValidationError naming each bad
    field. Read once for the same list: a batch sweep builds the same layers 13 times."""
    if not isinstance(layers, list) or not layers:
        raise ValidationError([Problem("spec.layers", "needs a list of layers")])
    problems: list[Problem] = []
    out = []
    for j, layer in enumerate(layers):
        path = f"spec.layers[{j}]"
        if not isinstance(layer, Mapping):
            problems.append(Problem(path, "must be an object"))
            continue
        name = str(layer.get("name", f"layer {j + 1}"))
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
                                   f"weights = d_in·d_out·b_w = {_b(weights)}"], weights))
            continue
        ci, co, hh, ww, kk, s = dims
        ho, wo = -(-hh // s), -(-ww // s)
        ops = 2 * B * co * ho * wo * ci * kk * kk
        weights = ci * co * kk * kk * bw
        inp, out = B * ci * hh * ww * ba, B * co * ho * wo * ba
        params += count * (ci * co * kk * kk + 2 * co)  # weights and batch-norm scale, shift
        entries.append(_entry(
            w, len(entries), name, "conv", count, ops, weights + inp, out,
            [f"{kk}×{kk} conv, {ci}→{co} channels, {hh}×{ww} input, stride {s} → {ho}×{wo}",
             f"ops = 2·B·C_out·Ho·Wo·C_in·K² = {_g(ops)}",
             f"bytes = input B·C_in·H·W·b_a {_g(inp)} + weights C_in·C_out·K²·b_w {_g(weights)} "
             f"+ output {_b(out)} (batch norm and ReLU fused; the weights slide over every "
             "pixel and image: the reuse that makes CNNs compute-bound)"], weights))
    return Built(tuple(entries), parameters=params, active_parameters=params,
                 resident_bytes=params * bw, weight_bytes=params * bw,
                 resident_steps=(f"weights {parameters_text(params)} · b_w = {_b(params * bw)}",))


def _mlp(w: Workload) -> Built:
    widths = w.spec.get("widths")
    if not isinstance(widths, list) or len(widths) < 2:
        raise ValidationError([Problem("spec.widths", "needs at least two widths (in, out)")])
    problems: list[Problem] = []
    dims = [_need({"w": v}, "w", f"spec.widths[{j}]", problems) for j, v in enumerate(widths)]
    if problems:
        raise ValidationError(problems)
    bw, ba, B = BYTES_PER_VALUE[w.weights], BYTES_PER_VALUE[w.activations], w.batch
    entries = []
    for j, (di, do) in enumerate(zip(dims, dims[1:], strict=False)):
        weights = di * do * bw
        ops = 2 * B * di * do
        entries.append(_entry(w, j, f"Layer {j + 1}: {di}×{do}", "fully connected", 1, ops,
                              weights + B * di * ba, B * do * ba,
                              [f"ops = 2·B·d_in·d_out = 2·{_g(B)}·{di}·{do} = {_g(ops)}",
                               f"weights = d_in·d_out·b_w = {_b(weights)}, read once for the "
                               f"batch: intensity ≈ 2·B / b_w = {_g(2 * B / bw)} op/B"],
                              weights))
    params = sum(di * do + do for di, do in zip(dims, dims[1:], strict=False))
    return Built(tuple(entries), parameters=params, active_parameters=params,
                 resident_bytes=params * bw, weight_bytes=params * bw,
                 resident_steps=(f"weights {parameters_text(params)} · b_w = {_b(params * bw)}",))


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
    entry = _entry(w, 0, f"LSTM step, h = {hid}", "LSTM", layers * steps, ops, weights + acts,
                   2 * B * hid * ba,
                   [f"count = layers·time steps = {layers}·{steps} = {layers * steps} (the "
                    "weights are read again every step: they do not stay on chip)",
                    f"ops = 2·B·4h·(x + h) = {_g(ops)}",
                    f"weights = 4h·(x + h)·b_w = {_b(weights)}; intensity ≈ 2·B / b_w"],
                   weights)
    params = layers * 4 * hid * (x + hid + 1)
    return Built((entry,), parameters=params, active_parameters=params,
                 resident_bytes=params * bw, weight_bytes=params * bw,
                 resident_steps=(f"weights {parameters_text(params)} · b_w = {_b(params * bw)}",))


def _custom(w: Workload, kernels: Mapping[str, Kernel]) -> Built:
    raw = w.spec.get("entries")
    if not isinstance(raw, list) or not raw:
        raise ValidationError([Problem("spec.entries", "needs a list of {kernel, count}")])
    problems: list[Problem] = []
    entries = []
    for j, item in enumerate(raw):
        path = f"spec.entries[{j}]"
        kid = item.get("kernel") if isinstance(item, Mapping) else None
        if not isinstance(kid, str) or kid not in kernels:
            problems.append(Problem(f"{path}.kernel", f"names no kernel of the session ({kid!r})"))
            continue
        count = _need(item, "count", path, problems, MAX_COUNT)
        k = kernels[kid]
        if not k.has_size:
            problems.append(Problem(f"{path}.kernel", f"{k.name!r} has an intensity only, no "
                                                      "size: it has no time to add up"))
            continue
        bound = bool(k.template) and "batch" in {p.name for p in TEMPLATES[k.template].params}
        if bound:
            k = replace(k, params={**k.params, "batch": w.batch})
        t = k.traffic()
        steps = [f"{count} × the session's kernel {k.name!r}"
                 + (f" at the workload's batch {w.batch}" if bound else ""),
                 f"ops = {_g(t.ops)}, dram bytes = {_g(t.bytes.get('dram', 0))}"]
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
        raise ValidationError([Problem("spec", "must be an object")])
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
