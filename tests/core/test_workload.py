"""Whole-model workloads: the generators against hand derivations, and workload totals against
the sum of their kernels as the kernel evaluation gives them."""

from dataclasses import replace

import numpy as np
import pytest

from roofline_gui.core.build import build
from roofline_gui.core.comparison import compare
from roofline_gui.core.errors import ValidationError
from roofline_gui.core.families import read_config
from roofline_gui.core.workload import Workload
from roofline_gui.core.workload_eval import (
    batch_sweep,
    communication_dominates_at,
    evaluate_workloads,
)
from roofline_gui.io.presets import default_presets
from roofline_gui.io.workloads import shipped_workloads

CHIPS = default_presets().chips
H100, MI300X, TPU_V5E = (CHIPS[i] for i in (
    "nvidia-h100-sxm5-80gb", "amd-instinct-mi300x", "google-tpu-v5e"))


def llama(**kw) -> Workload:
    return shipped_workloads()["llama-3-8b"].workload(**kw)


@pytest.mark.parametrize("model", ["llama-2-7b", "llama-3-8b", "llama-3-70b", "mistral-7b",
                                   "mixtral-8x7b", "qwen2-7b", "gpt2"])
def test_parameter_counts_match_the_published_sizes(model):
    shipped = shipped_workloads()[model]
    cfg = read_config(shipped.spec)
    # Model cards round to three figures: 8.03 B, 46.7 B, 124 M.
    assert cfg.total_parameters() == pytest.approx(shipped.published_parameters, rel=0.004)


def test_exact_counts_derived_by_hand():
    # Llama-3-8B: 32 × (Q,O 4096² each + K,V 4096·1024 each + 3·4096·14336 + 2 norms of 4096)
    # + embeddings and untied head 2·128256·4096 + final norm 4096.
    per_layer = 2 * 4096**2 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096
    assert read_config(shipped_workloads()["llama-3-8b"].spec) \
        .total_parameters() == 32 * per_layer + 2 * 128256 * 4096 + 4096 == 8_030_261_248
    # Mixtral: 8 experts, 2 per token; active = all but 6 experts' 3·4096·14336 per layer.
    mixtral = read_config(shipped_workloads()["mixtral-8x7b"].spec)
    assert mixtral.active_parameters() == 46_702_792_704 - 32 * 6 * 3 * 4096 * 14336
    assert mixtral.active_parameters() == pytest.approx(12.9e9, rel=0.002)
    # GPT-2 (tied embeddings, biases, learned positions): 124,439,808 as torch counts it.
    assert read_config(shipped_workloads()["gpt2"].spec) \
        .total_parameters() == 124_439_808
    # ResNet-50: torchvision's 25,557,032 (conv weights, batch-norm scale and shift, fc).
    assert build(shipped_workloads()["resnet-50"].workload()).parameters == 25_557_032


def test_bytes_read_per_decode_token():
    """Llama-3-8B, batch 1, KV cache of 2048, bf16: every weight once (the embedding table
    only its one row) plus the whole KV cache; activations add under 0.1 %."""
    built = build(llama(batch=1, context=2048))
    weights = 2 * (32 * (2 * 4096**2 + 2 * 4096 * 1024 + 3 * 4096 * 14336) + 4096 * 128256)
    assert sum(e.weight_bytes * e.count for e in built.entries) == weights + 2 * 4096
    kv = 2 * 8 * 2048 * 128 * 2 * 32  # K and V, 8 KV heads, L, head dim 128, 2 B, 32 layers
    total = sum(e.kernel.bytes["dram"] * e.count for e in built.entries)
    assert total == pytest.approx(weights + kv, rel=1e-3) and total > weights + kv
    # fp8 KV cache halves the cache's bytes (read, and the new token's K and V written);
    # int8 weights halve the weights'.
    new_kv = 2 * 8 * 128 * 2 * 32
    fp8 = build(llama(batch=1, context=2048, kv_cache="fp8"))
    assert sum(e.kernel.bytes["dram"] * e.count for e in fp8.entries) == total - (kv + new_kv) / 2
    int8 = build(llama(batch=1, context=2048, weights="int8"))
    assert sum(e.weight_bytes * e.count for e in int8.entries) == (weights + 2 * 4096) / 2


def test_prefill_ops_are_two_per_parameter_per_token_plus_attention():
    S = 2048
    built = build(llama(phase="prefill", batch=1, sequence=S))
    ops = sum(e.kernel.flops * e.count for e in built.entries)
    matrices = 32 * (2 * 4096**2 + 2 * 4096 * 1024 + 3 * 4096 * 14336)
    head = 2 * 4096 * 128256  # logits of the last token only
    attention = 32 * 2 * 32 * S * S * 128  # causal: half of 4·H·S²·D per layer
    norms = 32 * 10 * S * 4096 + 4 * S * 4096
    assert ops == 2 * matrices * S + head + attention + norms
    assert ops == pytest.approx(2 * 8.03e9 * S, rel=0.10)  # the rule of thumb, ±10 %


def test_workload_totals_are_the_sum_of_their_kernels():
    w = llama(batch=8, context=4096)
    chips = (H100, MI300X, TPU_V5E)
    r, = evaluate_workloads([w], chips)
    kernels = tuple(e.kernel for e in r.entries)
    cmp = compare(kernels, chips)
    counts = np.array([e.count for e in r.entries])
    np.testing.assert_allclose(r.time, counts @ cmp.result.time, rtol=1e-12)
    np.testing.assert_allclose(r.time_no_overlap, counts @ cmp.result.time_upper, rtol=1e-12)
    np.testing.assert_allclose(r.throughput, 8 / r.time)
    assert r.ops == pytest.approx(float(counts @ cmp.kernel_arrays.ops))


def test_decode_at_batch_one_runs_at_the_memory_bandwidth():
    r, = evaluate_workloads([llama(batch=1, context=2048)], (H100, MI300X))
    assert r.memory_bound_share.tolist() == [1.0, 1.0]
    # time = bytes / bandwidth: 15.28 GB at 3.35 TB/s and at 5.3 TB/s
    np.testing.assert_allclose(r.time, r.dram_bytes / np.array([3.35e12, 5.3e12]), rtol=1e-12)
    assert r.throughput[0] == pytest.approx(219.2, abs=0.1)  # tokens/s on an H100
    assert r.dominant_name(0).startswith("MLP gate and up")


def test_batching_raises_intensity_and_throughput_until_compute_bound():
    sweep = batch_sweep(shipped_workloads()["mlp-tpu"].workload(), [H100])
    intensity = [r.intensity for r in sweep]
    assert intensity == sorted(intensity) and intensity[-1] > 100 * intensity[0]
    throughput = [r.throughput[0] for r in sweep]
    assert throughput == sorted(throughput)
    shares = [r.memory_bound_share[0] for r in sweep]
    assert shares[0] == 1.0 and shares[-1] == 0.0  # memory-bound at 1, compute-bound at 4096


def test_tensor_parallel_link_cost():
    """Llama-3-70B prefill on 8 chips: two all-reduces per layer, each 2·(N−1)/N·T·h·b."""
    w = shipped_workloads()["llama-3-70b"].workload(phase="prefill", batch=1, sequence=2048,
                                                    chips_per_model=8)
    built = build(w)
    assert built.link_bytes == 80 * 2 * 2 * 7 / 8 * 2048 * 8192 * 2
    r, = evaluate_workloads([w], [H100, TPU_V5E])
    nvlink = next(lv.bandwidth for lv in H100.memory if lv.role == "link")
    assert r.link_time[0] == pytest.approx(built.link_bytes / nvlink)
    assert 0 < r.communication_share[0] < 1
    one = build(replace(w, chips_per_model=1))

    def matrices(b):  # the weight matrices (the embedding rows a step gathers are not split)
        return sum(e.weight_bytes * e.count for e in b.entries if e.group != "head" or
                   e.kernel.name.startswith("LM head"))

    assert matrices(built) == pytest.approx(matrices(one) / 8, rel=1e-12)
    # A chip without a level of the chosen role cannot join: NaN, not a made-up figure.
    no_link = replace(H100, memory=tuple(lv for lv in H100.memory if lv.role != "link"))
    r, = evaluate_workloads([w], [no_link])
    assert np.isnan(r.time[0])
    assert communication_dominates_at(w, [H100])[0] in (2, 4, 8, 16, 32, 64, None)


def test_mixture_of_experts_reads_the_experts_the_batch_touches():
    mixtral = shipped_workloads()["mixtral-8x7b"]
    per_expert = 3 * 4096 * 14336 * 2  # bf16

    def expert_bytes(batch):
        built = build(mixtral.workload(batch=batch))
        return sum(e.weight_bytes for e in built.entries if e.kernel.name.startswith("Routed experts"))

    assert expert_bytes(1) == pytest.approx(2 * per_expert)  # k = 2 of 8 at one token
    assert expert_bytes(64) == pytest.approx(8 * per_expert * (1 - (6 / 8) ** 64))


def test_resnet50_ops_and_images_per_second():
    w = shipped_workloads()["resnet-50"].workload(batch=1)
    r, = evaluate_workloads([w], [H100])
    assert r.ops == 2 * 4_089_184_256  # torchvision's 4.09 GMACs, 1 MAC = 2 ops
    assert r.workload.throughput_unit == "images/s"
    assert r.throughput[0] == pytest.approx(1 / r.time[0])


@pytest.mark.parametrize(("spec_change", "field"), [
    ({"hidden_size": None}, "hidden_size"),
    ({"num_attention_heads": 30}, "num_attention_heads"),
    ({"num_key_value_heads": 5}, "num_key_value_heads"),
    ({"num_hidden_layers": -2}, "num_hidden_layers"),
])
def test_bad_configs_name_the_field(spec_change, field):
    spec = {**shipped_workloads()["llama-3-8b"].spec, **spec_change}
    spec = {k: v for k, v in spec.items() if v is not None}
    with pytest.raises(ValidationError, match=field):
        build(llama(spec=spec))


@pytest.mark.parametrize(("change", "field"), [
    ({"batch": 0}, "batch"), ({"context": -1}, "context"), ({"weights": "fp7"}, "weights"),
    ({"phase": "warmup"}, "phase"), ({"chips_per_model": 0}, "chips_per_model"),
])
def test_bad_workload_parameters_name_the_field(change, field):
    with pytest.raises(ValidationError, match=field):
        build(llama(**change))


def test_custom_workload_binds_its_batch_into_template_kernels():
    presets = default_presets().kernels
    mlp = replace(presets["mlp-bf16-b1"], id="k1")
    triad = replace(presets["triad-fp64"], id="k2")
    w = Workload("w1", "mine", "custom", {"entries": [{"kernel": "k1", "count": 3},
                                                       {"kernel": "k2", "count": 1}]}, batch=32)
    built = build(w, {"k1": mlp, "k2": triad})
    assert built.entries[0].kernel.params["batch"] == 32 and built.entries[0].count == 3
    assert built.entries[1].kernel.traffic() == triad.traffic()
    with pytest.raises(ValidationError, match=r"entries\[0\]\.kernel"):
        build(w, {"k2": triad})
    # its CSV row names no precision of its own: its kernels carry theirs (bf16 and fp64 here)
    r, = evaluate_workloads([w], (H100,), kernels={"k1": mlp, "k2": triad})
    row = r.csv_row(0)
    assert (row["weights"], row["activations"], row["kv_cache"]) == ("", "", "")


# -- what the views show (core.workload_view) ------------------------------------------------------

from roofline_gui.core.units import (  # noqa: E402
    Units,
    format_time,
    rate_count,  # noqa: E402
)
from roofline_gui.core.workload_view import breakdown, drag_ladder, explain_workload, value_at, workload_marks  # noqa: E402


@pytest.mark.parametrize("mac", [False, True])
@pytest.mark.parametrize("derated", [False, True])
def test_marks_lie_on_or_under_their_roofs_and_agree_with_the_numbers(mac, derated):
    """Every workload kernel's mark is the kernel evaluation's point (on or under its chip's
    roof, on the diagonal when memory-bound); the workload's point is total ops ÷ time."""
    chips = (H100, MI300X, TPU_V5E)
    ws = [llama(batch=8), shipped_workloads()["resnet-50"].workload("w2", batch=16)]
    results = evaluate_workloads(ws, chips, derated=derated)
    units = Units(mac=mac)
    marks = workload_marks(results, units, [0, 1, 2])
    for mark, r in zip(marks, results, strict=True):
        ev = r.evaluation
        ceiling = units.rate(ev.ceiling[r.rows])
        assert np.all(mark.entry_y <= ceiling * (1 + 1e-12))
        bw = ev.chip_arrays.dram_bandwidth(derated)
        memory = ev.bound[r.rows] == 0
        diagonal = mark.entry_x[:, None] * bw[None, :]
        np.testing.assert_allclose(mark.entry_y[memory], np.broadcast_to(diagonal, memory.shape)[memory],
                                   rtol=1e-9)
        np.testing.assert_allclose(mark.point_y, units.rate(r.ops / r.time))
        assert mark.point_x == pytest.approx(units.intensity(r.ops / r.dram_bytes))
        # The explanation quotes the same time and throughput the CSV row gives.
        for c in range(3):
            text = "\n".join(explain_workload(r, c, units))
            row = r.csv_row(c)
            # the precisions it runs at; a CNN has no KV cache
            assert (row["weights"], row["activations"], row["kv_cache"]) == (
                ("bf16", "bf16", "bf16") if r.workload.kind == "transformer" else ("bf16", "bf16", ""))
            assert format_time(float(row["time_s"])) in text
            assert rate_count(float(row["throughput_per_s"])) in text


def test_breakdown_bars_add_up_to_the_step_and_are_coloured_by_bound():
    w = shipped_workloads()["llama-3-70b"].workload(phase="prefill", batch=1, sequence=2048,
                                                    chips_per_model=8)
    r, = evaluate_workloads([w], (H100, MI300X))
    segments = breakdown(r, [0, 1])
    for c in (0, 1):
        mine = [s for s in segments if s.chip == c]
        assert sum(s.width for s in mine) == pytest.approx(float(r.time[c]))
        assert sum(s.share for s in mine) == pytest.approx(1.0)
        assert mine[-1].kind == "link" and mine[-1].width == pytest.approx(float(r.link_time[c]))
        memory = sum(s.width for s in mine if s.kind == "memory")
        assert memory / r.time[c] == pytest.approx(float(r.memory_bound_share[c]))


def test_the_drag_ladder_finds_the_batch_under_the_cursor():
    values, intensity = drag_ladder(llama(), "batch")
    assert list(values[:8]) == [1, 2, 3, 4, 6, 8, 12, 16] and values[-1] == 4096
    assert np.all(np.diff(intensity) > 0)  # decode: intensity rises with batch (then flattens)
    for b in (1, 8, 64, 512):
        assert value_at(values, intensity, float(intensity[list(values).index(b)]) * 1.01) == b
    # The intensity the ladder gives is the evaluation's aggregate intensity.
    r, = evaluate_workloads([llama(batch=64)], [H100])
    assert intensity[list(values).index(64)] == pytest.approx(r.intensity)


def test_memory_capacity_is_checked_and_the_advice_stays_inside_it():
    """Llama-3-70B in bf16 does not fit in one 80 GB H100 (141 GB of weights): the explanation
    says so first, with the chips it needs; a batch the memory cannot hold is never advised."""
    w70 = shipped_workloads()["llama-3-70b"].workload(batch=1, context=2048)
    r, = evaluate_workloads([w70], [H100, MI300X])
    assert not r.fits[0] and r.fits[1]  # 192 GB MI300X holds it
    assert r.chips_needed(0) == 2
    lines = explain_workload(r, 0)
    assert lines[1].startswith("Does NOT fit") and "at least 2 such chips" in lines[1]
    # Llama-3-8B at batch 32 with 8k contexts: the KV cache limits the batch.
    w = llama(batch=32, context=8192)
    r, = evaluate_workloads([w], [H100])
    most = r.batch_that_fits(0)
    per_seq = 2 * 32 * 8 * 8192 * 128 * 2  # K and V, 32 layers, bytes per sequence
    assert most == int((80e9 - 8_030_261_248 * 2 - per_seq) // per_seq) + 1
    text = "\n".join(explain_workload(r, 0))
    assert f"batch {most} (the most that fits)" in text
    assert "batch 256" not in text


def test_tensor_parallel_chips_must_divide_the_heads():
    with pytest.raises(ValidationError, match="chips_per_model.*32 attention heads"):
        build(llama(chips_per_model=3))


def test_the_n_at_which_the_link_dominates():
    w = shipped_workloads()["llama-3-70b"].workload(phase="prefill", batch=1, sequence=2048)
    at, = communication_dominates_at(w, [H100])
    assert at == 32  # NVLink at 450 GB/s per direction
    shares = {n: evaluate_workloads([replace(w, chips_per_model=n)], [H100])[0]
              .communication_share[0] for n in (at // 2, at)}
    assert shares[at // 2] <= 0.5 < shares[at]
    text = "\n".join(explain_workload(evaluate_workloads([w], [H100])[0], 0))
    assert "from N = 32 the link takes more of the step than the kernels" in text


def test_kv_heads_are_not_split_below_one_and_a_sliding_window_bounds_the_cache():
    w70 = shipped_workloads()["llama-3-70b"].workload(batch=1, context=4096)
    per_head = 2 * 80 * 4096 * 128 * 2  # K and V, 80 layers, L, D, bf16: bytes per KV head
    assert build(replace(w70, chips_per_model=8)).resident_bytes == pytest.approx(
        70_553_706_496 * 2 / 8 + per_head * 1)  # 8 KV heads over 8 chips: one each
    assert build(replace(w70, chips_per_model=16)).resident_bytes == pytest.approx(
        70_553_706_496 * 2 / 16 + per_head * 1)  # still one whole head each, not half
    mistral = shipped_workloads()["mistral-7b"].workload(batch=1, context=32768)
    built = build(mistral)
    window = 4096  # the config's sliding_window
    assert built.resident_bytes == pytest.approx(7_241_732_096 * 2 + 2 * 32 * 8 * window * 128 * 2)
    attention = next(e for e in built.entries if e.kernel.name.startswith("Attention decode"))
    assert attention.kernel.flops == 4 * 32 * window * 128
    assert any("sliding window of 4096" in note for note in built.notes)


def test_activations_on_chip_leave_only_weights_on_main_memory_as_on_the_tpu_v1():
    """The TPU v1 case: with activations in the Unified Buffer each layer's main-memory bytes
    are its weights alone, so its intensity is ops per weight byte (2·B for a dense layer), and
    the activations move at the on-chip level; the formula says so. A transformer refuses it."""
    from roofline_gui.core.units import BYTES_PER_VALUE

    _replace = replace
    w = shipped_workloads()["mlp-tpu"].workload("w1")
    plain, on_chip = build(w), build(_replace(w, activations_on_chip=True))
    for a, b in zip(plain.entries, on_chip.entries, strict=True):
        ta, tb = a.kernel.traffic(), b.kernel.traffic()
        assert tb.ops == ta.ops
        assert tb.bytes["dram"] == b.weight_bytes
        assert tb.bytes["dram"] + tb.bytes["cache"] == pytest.approx(ta.bytes["dram"])
        assert tb.ops / tb.bytes["dram"] == pytest.approx(2 * w.batch / BYTES_PER_VALUE[w.weights])
        assert any("activations on chip" in s for s in b.steps)
    tpu = default_presets().chips["google-tpu-v1"]
    cmp = compare([e.kernel for e in on_chip.entries], [tpu])
    assert all(cmp.limiter_name(k, 0) == "DDR3-2133" for k in range(len(on_chip.entries)))
    llama = shipped_workloads()["llama-3-8b"].workload("w2")
    with pytest.raises(ValidationError, match="applies to CNN, MLP and LSTM workloads"):
        build(_replace(llama, activations_on_chip=True))


def test_a_cnns_layers_are_read_once_for_a_sweep_and_bad_ones_are_still_named():
    """The batch sweep builds the same layers 13 times: they are read and checked once for the
    same list, and each batch's entries scale as a fresh build's do."""
    from roofline_gui.core import build as builder
    from roofline_gui.core.workload_eval import SWEEP_BATCHES, batch_sweep

    layers = [{"name": "c1", "c_in": 3, "c_out": 64, "height": 224, "width": 224, "kernel": 7,
               "stride": 2}, {"type": "fc", "name": "fc", "d_in": 2048, "d_out": 1000}]
    w = Workload("w", "tiny CNN", "cnn", {"layers": layers})
    chips = tuple(default_presets().chips.values())[:2]
    reads = []
    real = builder._cnn_layers
    builder._cnn_layers = lambda raw: reads.append(raw) or real(raw)
    try:
        swept = batch_sweep(w, chips, SWEEP_BATCHES)
    finally:
        builder._cnn_layers = real
    assert len(reads) <= 1 and len(swept) == len(SWEEP_BATCHES)
    for r, batch in zip(swept, SWEEP_BATCHES, strict=True):
        fresh = build(replace(w, batch=batch, spec={"layers": [dict(x) for x in layers]}))
        assert [e.kernel.flops for e in r.entries] == [e.kernel.flops for e in fresh.entries]
    bad = Workload("w", "bad", "cnn", {"layers": [{**layers[0], "stride": 0}]})
    with pytest.raises(ValidationError, match=r"spec\.layers\[0\]\.stride"):
        build(bad)
    with pytest.raises(ValidationError, match=r"spec\.layers\[0\]\.stride"):
        build(bad)  # refused again, not a cached success
