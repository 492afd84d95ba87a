"""Hand-checked roofline numbers. Each expected value is worked out in the comment beside it."""

import numpy as np
import pytest

from roofline_gui.core.chip import Chip, MemoryLevel
from roofline_gui.core.comparison import compare
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.roofline import (
    BOUND_COMPUTE,
    BOUND_MEMORY,
    BOUND_UNSUPPORTED,
    ChipArrays,
    KernelArrays,
    attainable_curve,
    evaluate,
)

A100 = Chip(
    id="a100",
    name="A100 40GB",
    compute={"fp64": 9.7e12, "fp32": 19.5e12, "bf16": 312e12, "int8": 624e12},
    memory=(
        MemoryLevel("cache", "L2", 7e12),
        MemoryLevel("dram", "HBM2", 1.555e12),
        MemoryLevel("host", "PCIe Gen4 x16", 32e9),
    ),
)
TPU_V3 = Chip(
    id="tpu", name="TPU v3", compute={"bf16": 123e12}, memory=(MemoryLevel("dram", "HBM", 900e9),)
)


def add_int8():
    return Kernel("add", "out = a + b", "int8", template="elementwise", params={"n": 1e9})


def test_add_int8_on_a100_is_memory_bound_at_bandwidth_over_three():
    # 1 op per 3 bytes (two 1-byte reads and one write): 1.555e12 / 3 = 518.3 Gop/s.
    c = compare([add_int8()], [A100])
    assert c.result.attainable[0, 0] == pytest.approx(1.555e12 / 3)
    assert c.result.attainable[0, 0] == pytest.approx(518.3e9, rel=1e-4)
    assert c.bound_name(0, 0) == "memory"
    assert c.limiter_name(0, 0) == "HBM2"
    # 518.3e9 / 624e12 = 0.083 % of the int8 peak.
    assert c.result.percent_of_peak[0, 0] == pytest.approx(100 * 1.555e12 / 3 / 624e12)


def test_tpu_v3_bf16_ridge_point():
    # 123e12 / 900e9 = 136.7 op/B.
    gemm = Kernel("g", "GEMM", "bf16", template="gemm", params={"m": 4096, "n": 4096, "k": 4096})
    c = compare([gemm], [TPU_V3])
    assert c.result.ridge_dram[0, 0] == pytest.approx(123e12 / 900e9)
    assert c.result.ridge_dram[0, 0] == pytest.approx(136.7, abs=0.05)


def test_gemm_4096_bf16_ops_and_compulsory_bytes():
    gemm = Kernel("g", "GEMM", "bf16", template="gemm", params={"m": 4096, "n": 4096, "k": 4096})
    t = gemm.traffic()
    assert t.ops == 2 * 4096**3
    assert t.bytes["dram"] == 3 * 4096**2 * 2
    c = compare([gemm], [A100])
    assert c.bound_name(0, 0) == "compute"
    assert c.limiter_name(0, 0) == "bf16 peak"
    # Time lower bound = 2·4096³ / 312e12 = 0.4405 ms.
    assert c.result.time[0, 0] == pytest.approx(2 * 4096**3 / 312e12)


def test_mlp_batch_1_is_memory_bound_and_crosses_the_ridge_as_batch_grows():
    batches = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    kernels = [
        Kernel(f"m{b}", f"MLP b{b}", "bf16", template="mlp",
               params={"batch": b, "d_in": 4096, "d_out": 4096})
        for b in batches
    ]
    c = compare(kernels, [A100])
    bounds = [c.bound_name(i, 0) for i in range(len(batches))]
    assert bounds[0] == "memory"
    assert bounds[-1] == "compute"
    # Intensity grows monotonically with batch; the ridge (312e12 / 1.555e12 = 200.6) is crossed
    # once, between the last memory-bound and the first compute-bound batch.
    intensity = c.dram_intensity
    assert np.all(np.diff(intensity) > 0)
    first_compute = bounds.index("compute")
    assert all(b == "memory" for b in bounds[:first_compute])
    assert intensity[first_compute - 1] < 312e12 / 1.555e12 <= intensity[first_compute]
    # Batch 1: 2·4096² ops over (4096² + 2·4096)·2 bytes ≈ 0.9995 op/B.
    assert intensity[0] == pytest.approx(2 * 4096**2 / ((4096**2 + 2 * 4096) * 2))


def test_unsupported_precision_is_reported_not_faked():
    c = compare([add_int8()], [TPU_V3])
    assert c.result.bound[0, 0] == BOUND_UNSUPPORTED
    assert np.isnan(c.result.attainable[0, 0])
    assert np.isnan(c.result.time[0, 0])
    assert c.bound_name(0, 0) == "unsupported"
    assert c.limiter_name(0, 0) == "no int8 on this chip"


def test_host_link_can_be_the_limit():
    # 2·4096³ ops with 67.1 MB of inputs over PCIe: 2048 op per host byte × 32e9 = 65.5 TFLOP/s.
    host_bytes = 2 * 4096**2 * 2
    k = Kernel("h", "GEMM from host", "bf16", flops=2 * 4096**3,
               bytes={"dram": 3 * 4096**2 * 2, "host": host_bytes})
    c = compare([k], [A100])
    assert c.limiter_name(0, 0) == "PCIe Gen4 x16"
    assert c.result.attainable[0, 0] == pytest.approx(2 * 4096**3 / host_bytes * 32e9)


def test_cache_level_limits_when_its_traffic_dominates():
    # 8 op per L2 byte × 7e12 = 56 TFLOP/s < 312 peak and < 683 op/B × 1.555e12 on HBM.
    ops = 2 * 4096**3
    k = Kernel("t", "tiled", "bf16", flops=ops, bytes={"dram": 3 * 4096**2 * 4, "cache": ops / 8})
    c = compare([k], [A100])
    assert c.limiter_name(0, 0) == "L2"
    assert c.result.attainable[0, 0] == pytest.approx(56e12)


def test_time_bounds_are_max_and_sum_of_ceiling_times():
    k = Kernel("k", "k", "bf16", flops=312e12, bytes={"dram": 1.555e12, "host": 16e9})
    c = compare([k], [A100])
    # compute 1 s, HBM 1 s, PCIe 0.5 s: lower = 1 s, upper = 2.5 s.
    assert c.result.time_lower[0, 0] == pytest.approx(1.0)
    assert c.result.time_upper[0, 0] == pytest.approx(2.5)
    assert c.result.bound[0, 0] == BOUND_COMPUTE  # a tie counts as compute-bound


def test_write_bandwidth_applies_to_written_bytes():
    chip = Chip("c", "c", {"fp32": 1e15}, (MemoryLevel("dram", "DDR", 100e9, write_bandwidth=50e9),))
    k = Kernel("k", "k", "fp32", flops=1e9, bytes={"dram": 300e9}, write_bytes={"dram": 100e9})
    c = compare([k], [chip])
    # 200 GB read at 100 GB/s (2 s) + 100 GB written at 50 GB/s (2 s) = 4 s.
    assert c.result.time[0, 0] == pytest.approx(4.0)
    assert c.result.bound[0, 0] == BOUND_MEMORY


def test_derated_roofs_use_the_achievable_fractions():
    chip = Chip("h", "H100", {"bf16": 989.4e12}, (MemoryLevel("dram", "HBM3", 3.35e12, achievable=0.92),),
                compute_achievable={"bf16": 0.78})
    mem = Kernel("m", "m", "bf16", intensity=1.0)
    comp = Kernel("c", "c", "bf16", intensity=1e6)
    ka, ca = KernelArrays.from_kernels([mem, comp]), ChipArrays.from_chips([chip])
    nominal, derated = evaluate(ka, ca), evaluate(ka, ca, derated=True)
    assert derated.attainable[0, 0] == pytest.approx(0.92 * nominal.attainable[0, 0])
    assert derated.attainable[1, 0] == pytest.approx(0.78 * 989.4e12)


def test_intensity_only_kernel_has_a_place_but_no_time():
    k = Kernel("s", "SpMV", "fp64", intensity=0.25)
    c = compare([k], [A100])
    assert c.result.attainable[0, 0] == pytest.approx(0.25 * 1.555e12)
    assert np.isnan(c.result.time[0, 0])


def test_evaluation_agrees_with_the_bare_roof_formula_over_many_pairs():
    rng = np.random.default_rng(1)
    intensities = 10 ** rng.uniform(-2, 4, 200)
    kernels = [Kernel(f"k{i}", "k", "bf16", intensity=float(x)) for i, x in enumerate(intensities)]
    chips = [
        Chip(f"c{j}", "c", {"bf16": float(p)}, (MemoryLevel("dram", "M", float(b)),))
        for j, (p, b) in enumerate(zip(10 ** rng.uniform(12, 15, 30), 10 ** rng.uniform(10, 13, 30),
                                       strict=True))
    ]
    c = compare(kernels, chips)
    peaks = np.array([ch.compute["bf16"] for ch in chips])
    bws = np.array([ch.memory[0].bandwidth for ch in chips])
    expected = attainable_curve(peaks[None, :], bws[None, :], intensities[:, None])
    np.testing.assert_allclose(c.result.attainable, expected, rtol=1e-12)


def test_lower_precision_halves_bytes_and_doubles_memory_bound_speed():
    fp16 = Kernel("a", "add", "fp16", template="elementwise", params={"n": 1e9})
    fp8 = fp16.with_precision("fp8")
    h100 = Chip("h", "H100", {"fp16": 989.4e12, "fp8": 1978.9e12},
                (MemoryLevel("dram", "HBM3", 3.35e12),))
    c = compare([fp16, fp8], [h100])
    assert c.result.attainable[1, 0] == pytest.approx(2 * c.result.attainable[0, 0])
    sized = Kernel("s", "s", "fp32", flops=1e9, bytes={"dram": 12e9})
    assert sized.with_precision("bf16").bytes["dram"] == pytest.approx(6e9)
    assert Kernel("i", "i", "fp32", intensity=0.25).with_precision("bf16").intensity == 0.5


def test_speedup_against_a_baseline_chip():
    k = Kernel("m", "mlp", "bf16", template="mlp", params={"batch": 1, "d_in": 4096, "d_out": 4096})
    c = compare([k], [A100, TPU_V3])
    # Both memory-bound: the speedup is the bandwidth ratio 900 / 1555.
    assert c.speedup(0)[0, 1] == pytest.approx(900e9 / 1.555e12)


def test_evaluator_patches_changed_rows_and_matches_a_fresh_evaluation():
    from dataclasses import replace

    from roofline_gui.core.comparison import Evaluator

    kernels = [Kernel(f"k{i}", "m", "bf16", template="mlp", params={"batch": i + 1, "d_in": 64,
                                                                       "d_out": 64})
               for i in range(40)]
    evaluator = Evaluator()
    evaluator.compare(kernels, [A100, TPU_V3])
    kernels[7] = replace(kernels[7], params={"batch": 500, "d_in": 64, "d_out": 64})
    kernels[9] = kernels[9].with_precision("int8")
    patched = evaluator.compare(kernels, [A100, TPU_V3])
    fresh = compare(kernels, [A100, TPU_V3])
    for name in ("attainable", "limiter", "bound", "time_lower", "time_upper", "time",
                 "compute_time", "memory_time", "percent_of_peak"):
        np.testing.assert_array_equal(getattr(patched.result, name), getattr(fresh.result, name))
    assert patched.kernel_index == fresh.kernel_index
    # the same edit with the achievable fractions applied is evaluated afresh, not patched
    kernels[3] = replace(kernels[3], params={"batch": 77, "d_in": 64, "d_out": 64})
    derated = evaluator.compare(kernels, [A100, TPU_V3], derated=True)
    np.testing.assert_array_equal(derated.result.attainable,
                                  compare(kernels, [A100, TPU_V3], derated=True).result.attainable)
    # a reorder (same ids, other order) is recomputed in full, not patched
    reordered = kernels[::-1]
    np.testing.assert_array_equal(evaluator.compare(reordered, [A100]).result.attainable,
                                  compare(reordered, [A100]).result.attainable)


def test_a_chain_of_patches_reads_like_a_fresh_evaluation_cell_by_cell_and_column_by_column():
    """A drag patches the evaluation step after step; the columns it does not draw are patched
    only when read, and a single cell is read without building its column."""
    from dataclasses import replace

    from roofline_gui.core.comparison import Evaluator

    kernels = [Kernel(f"k{i}", "m", "bf16", template="mlp", params={"batch": i + 1, "d_in": 64,
                                                                       "d_out": 64})
               for i in range(12)] + [Kernel("s", "SpMV", "fp64", intensity=0.25)]
    chips = [A100, TPU_V3]
    evaluator = Evaluator()
    evaluator.compare(kernels, chips)
    names = ("attainable", "limiter", "bound", "time_lower", "time", "compute_time",
             "memory_time", "peak", "ceiling", "ridge_dram", "percent_of_peak")
    for step, (row, batch) in enumerate([(3, 900), (5, 2), (3, 40), (8, 10_000), (3, 7)]):
        kernels[row] = replace(kernels[row], params={"batch": batch, "d_in": 64, "d_out": 64})
        result = evaluator.compare(kernels, chips).result
        fresh = compare(kernels, chips).result
        if step < 4:  # cells first: not one of the lazy columns has been built
            for name in names:
                for k in range(len(kernels)):
                    for c in range(len(chips)):
                        np.testing.assert_array_equal(result.cell(name, k, c), getattr(fresh, name)[k, c])
            assert not {"time_lower", "compute_time", "memory_time"} & set(vars(result))
        for name in names:
            np.testing.assert_array_equal(getattr(result, name), getattr(fresh, name))
    assert len(result._patches) == 1  # the columns built at step 4 became the root of step 5


def test_one_pair_alone_matches_the_full_evaluation():
    kernels = [add_int8(), Kernel("k", "k", "bf16", flops=312e12, bytes={"dram": 1.555e12, "host": 16e9}),
               Kernel("s", "SpMV", "fp64", intensity=0.25)]
    for derated in (False, True):
        full = compare(kernels, [A100, TPU_V3], derated=derated).result
        for k in range(len(kernels)):
            for c in range(2):
                one = full.pair(k, c)
                for name in ("attainable", "time_lower", "time_upper", "limiter", "bound", "ridge_dram"):
                    np.testing.assert_array_equal(getattr(one, name)[0, 0], getattr(full, name)[k, c])
    assert compare(kernels, [A100]).result.pair(1, 0).time_upper[0, 0] == pytest.approx(2.5)


def test_changed_rows_are_found_by_identity_not_equality():
    from roofline_gui.core.comparison import changed_rows

    a, b, c = [1.5], [1.5], [2.5]  # a == b, but another object
    assert changed_rows((a, c, a), (a, c, a)) == []
    assert changed_rows((a, c, a), (b, c, a)) == [0]
    assert changed_rows((a, c, a), (a, a, c)) == [1, 2]
    assert changed_rows((), ()) == []


def test_same_width_precisions_stand_in_so_v100_and_tpu_v3_compare_at_900_gbs():
    """V100 has fp16 and no bf16, TPU v3 bf16 and no fp16: both 2 bytes a value and 900 GB/s.
    With same-width stand-ins a bf16 kernel runs on V100 at fp16 and the two read 1.00×; a
    compute-bound one meets the fp16 peak, named as standing in."""
    from roofline_gui.io.presets import default_presets

    presets = default_presets()
    v100, tpu = presets.chips["nvidia-v100-sxm2-16gb"], presets.chips["google-tpu-v3"]
    mlp = Kernel("m", "m", "bf16", template="mlp", params={"batch": 1, "d_in": 4096, "d_out": 4096})
    gemm = Kernel("g", "g", "bf16", template="gemm", params={"m": 8192, "n": 8192, "k": 8192})
    plain = compare([mlp, gemm], [v100, tpu])
    assert plain.limiter_name(0, 0) == "no bf16 on this chip" and np.isnan(plain.speedup(1)[0, 0])
    both = compare([mlp, gemm], [v100, tpu], same_width=True)
    assert both.speedup(1)[0, 0] == pytest.approx(1.0)
    intensity = 2 * 4096 * 4096 / ((4096 * 4096 + 2 * 4096) * 2)  # op/B, batch 1 in 2 bytes
    assert both.result.attainable[0, 0] == pytest.approx(intensity * 900e9)
    assert both.stand_in(0, 0) == "fp16" and both.stand_in(0, 1) is None
    assert both.limiter_name(1, 0) == "fp16 peak (for bf16)"
    assert both.result.attainable[1, 0] == pytest.approx(125e12)
    assert both.limiter_name(1, 1) == "bf16 peak"
