"""The compiled measurement kernels (numba), the sweep's plan and levels, the theoretical peak
and the fallback to numpy. Timing itself is in benchmarks/bench_measure.py."""

from pathlib import Path

import numpy as np
import pytest

from roofline_gui.measure import compiled, machine
from roofline_gui.measure.compiled import FMA_STEPS, CompiledStream, fma_kernel
from roofline_gui.measure.compute import FMA_ELEMENTS, fma_sweep
from roofline_gui.measure.machine import (
    _dram_by_stream_rule,
    _level_names,
    fp16_note,
    measure,
    still_falling,
    sweep_plan,
    theoretical_peak,
    to_chip,
)
from roofline_gui.measure.stream import find_plateaus

KIB, MIB, GIB = 1024, 1024**2, 1024**3


def test_numba_is_there_for_the_accurate_path():
    assert compiled.unavailable() is None, compiled.unavailable()


@pytest.mark.parametrize("kernel", ["copy", "scale", "add", "triad"])
def test_compiled_stream_kernels_compute_what_stream_computes(kernel):
    stream = CompiledStream(2)
    a, b, c = stream.arrays(100_001)  # an odd size: the slices differ by one element
    assert np.all(a == 1.0) and np.all(b == 2.0) and np.all(c == 0.5)  # the first touch fills
    stream.kernel(kernel, a, b, c, passes=3)()
    expected = {"copy": 2.0, "scale": 6.0, "add": 2.5, "triad": 3.5}[kernel]
    assert np.all(a == expected)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("steps", [1, 8])
def test_the_fma_kernel_does_steps_multiply_adds_per_element_per_pass(dtype, steps):
    x = np.linspace(0.1, 0.9, 2 * 64, dtype=dtype).reshape(2, 64)
    expected = x.astype(np.float64)
    a, b = dtype(0.999), dtype(1e-4)
    fma_kernel(steps)(x, a, b, 5)
    for _ in range(5 * steps):
        expected = expected * 0.999 + 1e-4
    assert x.dtype == dtype  # fp32 stays fp32: the fp32 roof is measured in fp32
    assert np.allclose(x, expected, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_the_fma_sweep_counts_two_flops_per_step_per_element():
    points = fma_sweep("fp64", 2, repeats=1)
    assert [p.size for p in points] == list(FMA_STEPS)
    for p in points:
        per_pass = 2 * p.size * 2 * FMA_ELEMENTS  # 2 flops × steps × threads × elements
        assert p.ops_per_call % per_pass == 0 and p.rate > 0


def test_a_measurement_says_it_used_the_compiled_kernels_and_finds_l1():
    result = measure(sizes=[8 * KIB, 16 * KIB, 24 * KIB, 4 * MIB, 8 * MIB, 16 * MIB],
                     gemm_sizes={"fp64": 64}, threads=2)
    assert result.fallback is None and result.method.startswith("compiled loops (numba)")
    chip = to_chip(result)
    how = chip.compute_measured["fp64"].method  # the FMA kernel, or a GEMM that outran it
    assert how.startswith(("ERT-style multiply-add kernel", "BLAS matrix multiply")), how
    assert any("fp16" in line for line in chip.notes.splitlines())


def test_without_numba_the_numpy_kernels_measure_and_the_result_says_why(monkeypatch):
    monkeypatch.setattr(compiled, "unavailable", lambda: "numba could not be used (ImportError)")
    result = measure(sizes=[64 * KIB, 256 * KIB, 4 * MIB], gemm_sizes={"fp64": 64}, threads=1)
    assert result.fallback == "numba could not be used (ImportError)"
    assert result.method.startswith("numpy ufuncs")
    assert {c.method for c in result.compute} == {"gemm", "vector"}
    chip = to_chip(result)
    assert "Compiled kernels not used: numba could not be used (ImportError)." in chip.notes
    assert "numpy" in chip.compute_measured["fp64"].method
    assert result.to_json()["fallback"] == result.fallback


def test_the_sweep_goes_from_inside_l1_to_past_four_times_a_large_l3():
    caches = {"L1": 2 * 48 * KIB, "L2": 2 * 2 * MIB, "L3": 105 * MIB}  # the Xeon host of issue 13
    sizes, note = sweep_plan(caches, threads=2, compiled=True, available=16 * GIB)
    assert sizes[0] == 16 * KIB and sizes[-1] >= 6 * 105 * MIB and note is None
    assert sum(s >= 4 * 105 * MIB for s in sizes) >= 2  # STREAM's rule is met by several sizes
    numpy_sizes, _ = sweep_plan(caches, threads=2, compiled=False, available=16 * GIB)
    assert numpy_sizes[0] == 24 * KIB  # numpy's call overhead hides L1: no point starting lower


def test_a_sweep_bounded_by_memory_says_so():
    sizes, note = sweep_plan({"L3": 105 * MIB}, threads=2, compiled=True, available=600 * MIB)
    assert sizes[-1] <= 300 * MIB
    assert "4× the largest cache" in note and "may" in note


def _hierarchy(sizes):
    """L1 64 KiB 350 GB/s, L2 2 MiB 190 GB/s, L3 105 MiB 100 GB/s, DRAM 20 GB/s, with a soft
    edge at each level (a working set just past a cache is partly served by it)."""
    levels = [(64 * KIB, 350e9), (2 * MIB, 190e9), (105 * MIB, 100e9), (np.inf, 20e9)]
    out = []
    for s in sizes:
        bw = next(b for cap, b in levels if s <= cap)
        prev = [(cap, b) for cap, b in levels if cap < s]
        if prev and s < prev[-1][0] * 1.6:  # just past a cache: between the two levels
            bw = (bw * prev[-1][1]) ** 0.5
        out.append(bw)
    return np.array(out)


def test_four_levels_are_found_and_named_with_an_l3_above_100_mb():
    sizes = np.array(machine.sweep_sizes(8 * KIB, 2 * GIB, per_octave=3))
    bw = _hierarchy(sizes) * np.random.default_rng(3).uniform(0.94, 1.0, len(sizes))
    caches = {"L1": 64 * KIB, "L2": 2 * MIB, "L3": 105 * MIB}
    plateaus = _dram_by_stream_rule(find_plateaus(sizes, bw), list(sizes), list(bw), caches)
    assert _level_names(plateaus, caches) == ["L1", "L2", "L3", "DRAM"]
    assert [p.bandwidth / 1e9 for p in plateaus] == pytest.approx([350, 190, 100, 20], rel=0.07)
    assert plateaus[-1].first_size >= 4 * 105 * MIB  # DRAM only from STREAM-sized arrays
    assert plateaus[0].last_size <= 64 * KIB * 1.5


def test_main_memory_is_not_taken_from_sizes_a_hidden_cache_still_serves():
    # sysfs says 32 MiB of L3, but working sets up to 320 MB still run at 42 GB/s (a larger
    # cache the hypervisor does not report): the DRAM level is the plateau beyond, 26 GB/s
    sizes = np.array(machine.sweep_sizes(8 * MIB, 2 * GIB, per_octave=3))
    bw = np.where(sizes < 33 * MIB, 150e9, np.where(sizes < 330 * MIB, 42e9, 26e9))
    plateaus = _dram_by_stream_rule(find_plateaus(sizes, bw), list(sizes), list(bw), {"L3": 32 * MIB})
    assert plateaus[-1].bandwidth == pytest.approx(26e9)
    assert plateaus[-1].first_size >= 330 * MIB


def test_a_curve_still_falling_at_its_end_is_told_apart_from_a_plateau():
    assert still_falling([50e9, 44e9, 40e9])
    assert not still_falling([50e9, 26e9, 26e9, 25.5e9])
    assert not still_falling([26e9])


AVX2 = {"vendor_id": "AuthenticAMD", "flags": "sse2 avx avx2 fma f16c", "cpu MHz": "2445.404"}


def test_theoretical_peak_from_cpufreq_and_the_vector_width(tmp_path):
    max_freq = tmp_path / "cpuinfo_max_freq"
    max_freq.write_text("3500000\n")  # kHz
    t = theoretical_peak(2, AVX2, max_freq)
    assert t.clock_source == "cpufreq maximum"
    assert t.peak("fp64") == pytest.approx(2 * 3.5e9 * 4 * 2 * 2)  # 4 fp64 lanes in 256 bits
    assert t.peak("fp32") == pytest.approx(2 * t.peak("fp64"))
    assert "2 cores × 3.5 GHz" in t.formula("fp64") and "112 GFLOP/s" in t.formula("fp64")
    intel = {**AVX2, "vendor_id": "GenuineIntel", "flags": "avx2 fma avx512f"}
    assert theoretical_peak(1, intel, max_freq).peak("fp64") == pytest.approx(3.5e9 * 8 * 2 * 2)
    zen4 = {**AVX2, "flags": "avx2 fma avx512f"}  # 512-bit FMAs as two 256-bit halves
    assert theoretical_peak(1, zen4, max_freq).peak("fp64") == pytest.approx(3.5e9 * 4 * 2 * 2)


def test_theoretical_peak_falls_back_to_cpu_mhz_and_needs_fma():
    t = theoretical_peak(2, AVX2, Path("/nonexistent"))
    assert t.clock_hz == pytest.approx(2445.404e6) and "cpu MHz" in t.clock_source
    assert theoretical_peak(2, {**AVX2, "flags": "sse2 avx"}, Path("/nonexistent")) is None
    assert theoretical_peak(2, {"flags": "fma avx2"}, Path("/nonexistent")) is None  # no clock


def test_the_chip_takes_the_theoretical_peak_as_datasheet_only_from_cpufreq(monkeypatch, tmp_path):
    result = measure(sizes=[64 * KIB, 256 * KIB, 4 * MIB], gemm_sizes={"fp64": 64}, threads=1)
    max_freq = tmp_path / "max"
    max_freq.write_text("3000000")
    result.theoretical = theoretical_peak(1, AVX2, max_freq)
    chip = to_chip(result)
    assert chip.compute["fp64"] == pytest.approx(3e9 * 4 * 2 * 2)  # the datasheet value
    prov = chip.compute_provenance("fp64", applied=True)
    assert prov.kind == "measured" and prov.datasheet == chip.compute["fp64"]
    assert prov.of_datasheet == pytest.approx(chip.compute_measured["fp64"].value / chip.compute["fp64"])
    result.theoretical = theoretical_peak(1, AVX2, Path("/nonexistent"))  # cpu MHz: not trusted
    chip = to_chip(result)
    assert chip.compute["fp64"] == chip.compute_measured["fp64"].value
    assert "Theoretical fp64: 1 core × 2.45 GHz" in chip.notes


def test_fp16_is_said_to_be_missing_for_the_right_reason():
    assert "no fp16 arithmetic" in fp16_note(AVX2)
    assert "AVX512-FP16" in fp16_note({"flags": "avx512fp16 f16c"})


def test_measure_on_the_command_line_writes_the_chip_and_keeps_a_preset(monkeypatch, tmp_path, capsys):
    from roofline_gui.__main__ import main
    from roofline_gui.io.presets import load_presets
    from roofline_gui.io.session import open_document

    monkeypatch.setenv("ROOFLINE_DATA_DIR", str(tmp_path))
    # A small sweep, so the run is quick: three sizes inside the one cache it reports and three
    # from 4x it, 4x apart, so a level is flat within the plateau test's slope on a busy host
    # (2x apart, a 15 % wobble between two sizes read as a slope: no plateau, now and then).
    monkeypatch.setattr(machine, "sweep_plan", lambda *a: ([32 * KIB, 128 * KIB, 512 * KIB, 8 * MIB,
                                                            32 * MIB, 128 * MIB], None))
    monkeypatch.setattr(machine, "cache_sizes", lambda threads: {"L1": 2 * MIB})
    out = tmp_path / "m.json"
    assert main(["--measure", "--json", str(out), "--keep-preset"]) == 0
    printed = capsys.readouterr()
    assert "compiled loops (numba)" in printed.out and "fp64 peak" in printed.out
    assert "multiply-add kernel" in printed.out and "BLAS GEMM" in printed.out
    assert "kept as preset user-this-computer-measured-" in printed.err
    doc, is_session = open_document(out)
    assert not is_session and len(doc.chips) == 1 and doc.chips[0].dram.measured is not None
    kept = [c for c in load_presets().chips.values() if c.name == doc.chips[0].name]
    assert kept and kept[0].compute == doc.chips[0].compute


def test_json_and_keep_preset_go_with_measure(capsys):
    from roofline_gui.__main__ import main

    assert main(["--json", "out.json"]) == 2
    assert "--json goes with --measure" in capsys.readouterr().err


def test_figures_that_cannot_be_the_machines_are_said_to_be_suspect():
    from conftest import synthetic_measurement

    from roofline_gui.measure.compute import ComputePoint
    from roofline_gui.measure.machine import plausibility_notes
    from roofline_gui.measure.timing import Timing

    m = synthetic_measurement()  # fp64 FMA 80 GFLOP/s beside a GEMM of 68.7: plausible
    assert plausibility_notes(m) == []
    m.compute += [ComputePoint("gemm", "fp32", 2048, 2 * 2048**3, Timing(0.1, 0.1, 0.1, 5)),
                  ComputePoint("fma", "fp32", 8, 100e9, Timing(1.0, 1.0, 1.0, 3))]
    notes = plausibility_notes(m)
    assert any("fp32 multiply-add kernel (100 GFLOP/s) came out well below the BLAS" in n for n in notes)
    assert any("less than 1.5× fp64" in n for n in notes)
    assert all("idle" in n for n in notes)
    max_freq = Path("/nonexistent")
    m = synthetic_measurement()
    m.theoretical = theoretical_peak(2, {**AVX2, "cpu MHz": "2000"}, max_freq)  # 64 GFLOP/s fp64
    (boost,) = plausibility_notes(m)
    assert "fp64 peak exceeds the theoretical one" in boost and "boost" in boost


def test_l1_and_l2_within_25_percent_are_told_apart_at_the_caches_capacity():
    # measured here on a busy host: L1 about 225 GB/s, L2 about 180, the slope between gentle
    kib = [16, 20, 25, 32, 40, 51, 64, 81, 102, 128, 161, 203, 256, 323, 406, 512, 645, 813, 1024,
           1290, 1625, 2048]
    gbs = [209, 228, 232, 236, 214, 237, 220, 177, 167, 175, 183, 173, 161, 149, 171, 174, 195, 186,
           174, 172, 158, 128]
    sizes, bw = [k * KIB for k in kib], [g * 1e9 for g in gbs]
    caches = {"L1": 64 * KIB, "L2": 1024 * KIB}
    assert len(find_plateaus(sizes, bw)) < 3  # without the capacities: L1 and L2 run together
    plateaus = find_plateaus(sizes, bw, edges=tuple(caches.values()))
    assert _level_names([*plateaus[:2], plateaus[-1]], caches)[:2] == ["L1", "L2"]
    assert plateaus[0].bandwidth / 1e9 == pytest.approx(234, rel=0.03)
    assert plateaus[0].last_size <= 64 * KIB < plateaus[1].first_size


def test_a_machine_busy_all_along_is_told_from_a_moments_interference():
    from conftest import synthetic_measurement

    from roofline_gui.measure.machine import plausibility_notes
    from roofline_gui.measure.stream import BandwidthPoint
    from roofline_gui.measure.timing import Timing

    m = synthetic_measurement()
    m.bandwidth = [BandwidthPoint("triad", 24 * 1000, 1000, Timing(1.0, 1.02, 6.0, 3))] * 10
    assert plausibility_notes(m) == []  # one repetition was slow: the best of the rest is kept
    m.bandwidth = [BandwidthPoint("triad", 24 * 1000, 1000, Timing(1.0, 1.6, 2.0, 3))] * 10
    (busy,) = plausibility_notes(m)
    assert "busy" in busy and "1.6×" in busy


def test_the_measured_peak_is_the_best_rate_any_kernel_reached():
    from conftest import synthetic_measurement

    from roofline_gui.measure.compute import ComputePoint
    from roofline_gui.measure.timing import Timing

    m = synthetic_measurement()  # FMA 80 GFLOP/s, GEMM 68.7
    assert to_chip(m).compute_measured["fp64"].value == pytest.approx(80e9)
    m.compute.append(ComputePoint("gemm", "fp64", 4096, 90e9, Timing(1.0, 1.0, 1.0, 5)))
    m.compute = [c for c in m.compute if c.size != 2048]
    measured = to_chip(m).compute_measured["fp64"]
    assert measured.value == pytest.approx(90e9)
    assert measured.method.startswith("BLAS matrix multiply 4096×4096") and "80 GFLOP/s" in measured.method
