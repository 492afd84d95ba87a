"""Building a workload: its entries, a sized kernel per layer type with its count and its formula
with the numbers filled in (:func:`build`).

Each kind has its builder here (transformer, CNN, MLP, LSTM, custom); a training step
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
from roofline_gui.core.units import BYTES_PER_VALUE
from roofline_gui.core.units import format_bytes as _b  # short: formulas are full of them
from roofline_gui.core.units import format_count as _g
from roofline_gui.core.workload import (
    MAX_COUNT,
    MAX_DIM,
    ON_CHIP_KINDS,
    Built,
    Entry,
    TransformerConfig,
    Workload,
    parameters_text,
)


def _entry(workload: Workload, index: int, name: str, group: str, count: float, ops: float,
           reads: float, writes: float, steps: list[str], weight_bytes: float = 0.0,
           attention_core: bool = False) -> Entry:
    nbytes, written = {"dram": reads + writes}, {"dram": writes}
    if workload.activations_on_chip and workload.kind in ON_CHIP_KINDS:
        acts = reads - weight_bytes + writes  # activations read and written
        nbytes, written = {"dram": weight_bytes, "cache": acts}, {"cache": writes}
        steps = [*steps, f"activations on chip: {_b(acts)} read and written at the on-chip "
                         f"level, only the weights ({_b(weight_bytes)}) cross main memory: "
                         f"{_g(ops / weight_bytes) if weight_bytes else '∞'} op per weight byte"]
    kernel = Kernel(
        id=f"{workload.id}/{index}", name=name, precision=workload.activations,
        category=f"workload: {workload.name}", flops=ops,
        bytes=nbytes, write_bytes=written, notes="\n".join(steps),
    )
    return Entry(kernel, count, group, tuple(steps), weight_bytes, attention_core)


def _transformer(w: Workload) -> Built:
    cfg = TransformerConfig.from_config(w.spec, "spec")
    if cfg.heads % w.chips_per_model:
        raise ValidationError([Problem(
            "chips_per_model", f"{w.chips_per_model} chips cannot share {cfg.heads} attention "
                               f"heads evenly (tensor parallelism splits the heads): use a divisor "
                               f"of {cfg.heads}")])
    bw, ba, bkv = (BYTES_PER_VALUE[p] for p in (w.weights, w.activations, w.kv_cache))
    n = w.chips_per_model
    h, hd, H, Hkv, i_size = cfg.hidden, cfg.head_dim, cfg.heads, cfg.kv_heads, cfg.intermediate
    decode = w.phase == "decode"
    train = w.phase == "train"  # every token's logits (the loss), not the last one's
    B, S, L = w.batch, w.sequence, w.context
    T = B if decode else B * S
    tok = f"T = B = {_g(B)}" if decode else f"T = B·S = {_g(B)}·{_g(S)} = {_g(T)}"
    share = f" ÷ N (N = {n} chips share every matrix)" if n > 1 else ""
    qkv = (H + 2 * Hkv) * hd
    entries: list[Entry] = []
    count = cfg.layers

    def add(name, group, cnt, ops, reads, writes, steps, weight=0.0, core=False):
        entries.append(_entry(w, len(entries), name, group, cnt, ops, reads, writes, steps, weight,
                              core))

    # Attention projections: Q (H heads), K and V (Hkv heads each, grouped-query attention).
    wq = h * qkv * bw / n
    add("QKV projection", "attention", count, 2 * T * h * qkv / n,
        wq + T * h * ba, T * qkv * ba / n,
        [tok, f"Q, K, V width = (H + 2·Hkv)·D = ({H} + 2·{Hkv})·{hd} = {_g(qkv)}",
         f"ops = 2·T·hidden·width{share} = 2·{_g(T)}·{_g(h)}·{_g(qkv)} / {n} = "
         f"{_g(2 * T * h * qkv / n)}",
         f"weights = hidden·width·b_w{share} = {_b(wq)} (read once for the whole batch)",
         f"activations: read T·hidden·b_a = {_b(T * h * ba)}, write T·width·b_a / N = "
         f"{_b(T * qkv * ba / n)}"], wq)
    # KV heads per chip: split N ways, but never below one whole head (with N > Hkv the
    # cache is replicated N / Hkv times, as Megatron-style tensor parallelism does).
    kvn = max(Hkv / n, 1.0)
    kv_split = (f"Hkv / N = {Hkv}/{n}" if n <= Hkv else f"1 (N = {n} > Hkv = {Hkv}: each chip keeps "
                f"one whole KV head)") if n > 1 else f"Hkv = {Hkv}"
    window = w.spec.get("sliding_window")
    windowed = (isinstance(window, int) and not isinstance(window, bool) and window > 0
                and w.spec.get("use_sliding_window", True) is not False)
    if decode:
        held = min(L, window) if windowed else L  # tokens the attention reads and keeps
        kv_read = 2 * B * kvn * held * hd * bkv
        kv_write = 2 * B * kvn * hd * bkv
        qo = B * H * hd * ba / n
        ops = 4 * B * H * held * hd / n
        seen = f"L = {_g(L)}" + (f" (attends the last {_g(window)}: sliding window)"
                                 if windowed and L > window else "")
        add(f"Attention decode, L = {_g(L)}", "attention", count, ops, kv_read + qo,
            kv_write + qo,
            [f"{seen}; KV heads per chip = {kv_split}",
             f"ops = 4·B·H·L·D{share} = 4·{_g(B)}·{H}·{_g(held)}·{hd} / {n} = {_g(ops)}",
             f"KV cache read = 2·B·(KV heads per chip)·L·D·b_kv = 2·{_g(B)}·{kvn:g}·{_g(held)}·"
             f"{hd}·{_g(bkv)} = {_b(kv_read)} (each sequence has its own cache: batching does "
             "not help)",
             f"new K, V written = {_b(kv_write)}; q read and o written = B·H·D·b_a / N = "
             f"{_b(qo)} each",
             *([f"grouped-query attention: {H // Hkv} query heads share each KV head"]
               if H > Hkv else [])], core=True)
    else:
        # Training counts the full S×S square, as PaLM's model FLOPs (12·L·H·Q·T) and
        # Megatron's kernel do, so the hardware FLOPs never fall below the model FLOPs.
        square = 4 if train else 2
        ops = square * B * H * S * S * hd / n
        reads = B * S * qkv * ba / n
        writes = B * S * H * hd * ba / n + 2 * B * S * kvn * hd * bkv
        why = ("the full square, as PaLM's model FLOPs and Megatron's kernel count it; a causal "
               "kernel could skip half" if train else "halved by the causal mask")
        add(f"Attention {'forward' if train else 'prefill'}, S = {_g(S)}", "attention", count,
            ops, reads, writes,
            [f"ops = {square}·B·H·S²·D{share} = {square}·{_g(B)}·{H}·{_g(S)}²·{hd} / {n} = "
             f"{_g(ops)} (Q·Kᵀ and P·V, 2·S²·D each per head, {why}; fused: the S×S scores "
             "stay on chip)",
             f"read Q, K, V = B·S·width·b_a / N = {_b(reads)}",
             f"write O = B·S·H·D·b_a / N and the KV cache 2·B·S·Hkv·D·b_kv / N: {_b(writes)}"],
            core=True)
    wo = H * hd * h * bw / n
    add("Output projection", "attention", count, 2 * T * H * hd * h / n,
        wo + T * H * hd * ba / n, T * h * ba,
        [f"ops = 2·T·(H·D)·hidden{share} = {_g(2 * T * H * hd * h / n)}",
         f"weights = H·D·hidden·b_w{share} = {_b(wo)}"], wo)
    # MLP: dense, or mixture of experts with E experts and k routed per token.
    mats_in = 2 if cfg.gated else 1
    up_w, down_w = mats_in * h * i_size * bw, i_size * h * bw
    gate = "gate and up (gated, fused)" if cfg.gated else "up"
    if cfg.experts == 1:
        add(f"MLP {gate}", "MLP", count, 2 * T * h * i_size * mats_in / n,
            up_w / n + T * h * ba, T * i_size * ba / n,
            [f"ops = 2·T·hidden·{mats_in}·intermediate{share} = 2·{_g(T)}·{_g(h)}·{mats_in}·"
             f"{_g(i_size)} / {n} = {_g(2 * T * h * i_size * mats_in / n)}",
             f"weights = {mats_in}·hidden·intermediate·b_w{share} = {_b(up_w / n)}"], up_w / n)
        add("MLP down", "MLP", count, 2 * T * i_size * h / n,
            down_w / n + T * i_size * ba / n, T * h * ba,
            [f"ops = 2·T·intermediate·hidden{share} = {_g(2 * T * i_size * h / n)}",
             f"weights = intermediate·hidden·b_w{share} = {_b(down_w / n)}"], down_w / n)
    else:
        E, k = cfg.experts, cfg.experts_per_token
        touched = E * (1 - (1 - k / E) ** T)
        route = [f"{E} experts, {k} per token; T = {_g(T)} tokens route to {_g(T * k)} expert "
                 f"slots",
                 f"experts whose weights a step reads = E·(1 − (1 − k/E)^T) = {E}·(1 − (1 − "
                 f"{k}/{E})^{_g(T)}) = {touched:.3g} (routing spread evenly; at batch 1 in decode "
                 f"that is k = {k}, and with enough tokens every expert)"]
        router_w = h * E * bw
        add("MoE router", "experts", count, 2 * T * h * E, router_w + T * h * ba, T * E * ba,
            [f"ops = 2·T·hidden·E = {_g(2 * T * h * E)}", f"weights = hidden·E·b_w = "
                                                         f"{_b(router_w)}"], router_w)
        wu = touched * up_w / n
        add(f"Experts {gate}", "experts", count, 2 * T * k * h * i_size * mats_in / n,
            wu + T * k * h * ba, T * k * i_size * ba / n,
            [*route, f"ops = 2·T·k·hidden·{mats_in}·intermediate{share} = "
                     f"{_g(2 * T * k * h * i_size * mats_in / n)}",
             f"weights = experts read · {mats_in}·hidden·intermediate·b_w{share} = {_b(wu)}"], wu)
        wd = touched * down_w / n
        add("Experts down", "experts", count, 2 * T * k * i_size * h / n,
            wd + T * k * i_size * ba / n, T * k * h * ba,
            [f"ops = 2·T·k·intermediate·hidden{share} = {_g(2 * T * k * i_size * h / n)}",
             f"weights = experts read · intermediate·hidden·b_w{share} = {_b(wd)}"], wd)
    norm = "LayerNorm" if cfg.gpt2 else "RMSNorm"
    add(f"{norm}s and residual adds", "norms", count, 10 * T * h, 8 * T * h * ba, 2 * T * h * ba,
        [f"2 {norm}s (about 4 ops per value: square, sum, scale, weight) and 2 residual adds "
         f"(1 op per value): ops = 10·T·hidden = {_g(10 * T * h)}",
         f"bytes: each norm reads and writes T·hidden values, each add reads 2 and writes 1: "
         f"10·T·hidden·b_a = {_b(10 * T * h * ba)} (not split over the N chips)"])
    emb = T * h * (bw + ba) + 2 * T * h * ba
    add("Embedding lookup and final norm", "head", 1, 4 * T * h, emb - T * h * ba, T * h * ba,
        [f"gather T rows of the embedding table: T·hidden·b_w = {_b(T * h * bw)}, written as "
         "activations; the final norm reads and writes them once more",
         f"ops = 4·T·hidden = {_g(4 * T * h)} (the norm; a lookup does no arithmetic)"],
        T * h * bw)
    V = cfg.vocab
    head_w = h * V * bw / n
    R = T if train else B  # rows of logits
    rows = (f"logits for every token (the loss): T = {_g(T)}" if train else
            f"logits for the last token of each of the B = {_g(B)} sequences")
    add("LM head (logits)", "head", 1, 2 * R * h * V / n, head_w + R * h * ba, R * V * ba / n,
        [rows,
         f"ops = 2·{'T' if train else 'B'}·hidden·vocab{share} = 2·{_g(R)}·{_g(h)}·{_g(V)} / {n} = "
         f"{_g(2 * R * h * V / n)}",
         f"weights = hidden·vocab·b_w{share} = {_b(head_w)}"
         + (" (tied: the embedding table read again)" if cfg.tied else "")], head_w)
    link_bytes, link_steps = 0.0, ()
    if n > 1:
        per = 2 * (n - 1) / n * T * h * ba
        link_bytes = 2 * per * cfg.layers
        link_steps = (
            f"two all-reduces of the activations per layer (after attention and after the MLP), "
            f"each sending 2·(N−1)/N·T·hidden·b_a = 2·{n - 1}/{n}·{_g(T)}·{_g(h)}·{_g(ba)} = "
            f"{_b(per)} per chip",
            f"per step: 2·layers·that = 2·{cfg.layers}·{_b(per)} = {_b(link_bytes)} per chip",
        )
    limit = w.spec.get("max_position_embeddings", w.spec.get("n_positions"))
    length = L if decode else S
    notes = list(cfg.notes)
    if isinstance(limit, int) and not isinstance(limit, bool) and length > limit:
        notes.append(f"{'L' if decode else 'S'} = {length} is beyond the model's "
                     f"{limit} positions (max_position_embeddings): it would need a longer "
                     "context than it was trained for")
    held = L if decode else S
    if windowed:
        held = min(held, window)
        notes.append(f"sliding window of {window} tokens: the KV cache keeps (and decode "
                     "attends) the last window only" + ("; prefill's attention is counted over "
                                                         "the whole prompt" if not decode and
                                                         S > window else ""))
    weights_held = cfg.total_parameters() * bw / n
    cache = 2 * cfg.layers * B * kvn * held * hd * bkv
    split = f" ÷ {n}" if n > 1 else ""
    resident = (f"weights {parameters_text(cfg.total_parameters())} parameters · b_w{split} = "
                f"{_b(weights_held)}",
                f"KV cache 2·layers·B·(KV heads per chip {kvn:g})·{'L' if decode else 'S'}·D·b_kv "
                f"= {_b(cache)}")
    return Built(tuple(entries), link_bytes, link_steps, tuple(notes),
                 cfg.total_parameters(), cfg.active_parameters(), weights_held + cache, resident,
                 cfg.heads)


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
                 resident_bytes=params * bw,
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
                 resident_bytes=params * bw,
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
                 resident_bytes=params * bw,
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
            return _transformer(workload)
        case "cnn":
            return _cnn(workload)
        case "mlp":
            return _mlp(workload)
        case "lstm":
            return _lstm(workload)
    return _custom(workload, kernels or {})
