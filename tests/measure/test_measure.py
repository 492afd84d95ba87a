"""Measurement logic on small sizes and synthetic data (timing itself is in benchmarks/)."""

import threading

import numpy as np
import pytest

from roofline_gui.measure.compiled import FMA_STEPS
from roofline_gui.measure.machine import Measurement, best_per_size, measure, to_chip
from roofline_gui.measure.stream import (
    WORDS,
    BandwidthPoint,
    NumpyStream,
    find_plateaus,
    measure_size,
    stream_kernel,
)
from roofline_gui.measure.timing import Cancelled, ParallelRunner, Timing, time_interleaved


def test_plateaus_are_found_on_a_synthetic_three_level_hierarchy():
    sizes = np.geomspace(16e3, 1e9, 40)
    bw = np.where(sizes < 1e6, 200e9, np.where(sizes < 3e7, 80e9, 20e9))
    rng = np.random.default_rng(1)
    noisy = bw * rng.uniform(0.93, 1.0, len(bw))  # interference only slows runs down
    plateaus = find_plateaus(sizes, noisy)
    assert [round(p.bandwidth / 1e9) for p in plateaus] == pytest.approx([200, 80, 20], rel=0.08)
    assert plateaus[0].last_size < 1e6 <= plateaus[1].first_size
    assert plateaus[-1].first_size >= 3e7


def test_a_single_noisy_spike_does_not_make_a_level():
    sizes = np.geomspace(16e3, 1e9, 30)
    bw = np.full(30, 20e9)
    bw[12] = 60e9
    plateaus = find_plateaus(sizes, bw)
    assert len(plateaus) == 1 and plateaus[0].bandwidth == pytest.approx(20e9)  # upper quartile
    # ... though it does not split the plateau: one level over the whole range
    assert plateaus[0].first_size == pytest.approx(sizes[0])
    assert plateaus[0].last_size == pytest.approx(sizes[-1])


def test_overhead_bound_small_sizes_are_not_reported_as_a_cache_level():
    sizes = np.geomspace(16e3, 1e9, 30)
    bw = np.where(sizes < 1e5, 5e9, np.where(sizes < 3e7, 80e9, 20e9))  # tiny arrays: overhead
    assert [round(p.bandwidth / 1e9) for p in find_plateaus(sizes, bw)] == [80, 20]


def test_stream_byte_accounting():
    assert WORDS == {"copy": 2, "scale": 2, "add": 3, "triad": 3}
    point = BandwidthPoint("triad", 3 * 8 * 1000, 1000, Timing(1e-6, 1e-6, 1e-6, 3))
    assert point.bandwidth == pytest.approx(24 * 1000 / 1e-6)  # 24 B per element, no write-allocate
    copy = BandwidthPoint("copy", 2 * 8 * 1000, 1000, Timing(1e-6, 1e-6, 1e-6, 3))
    assert copy.bandwidth == pytest.approx(16 * 1000 / 1e-6)


@pytest.mark.parametrize("kernel", ["copy", "scale", "add", "triad"])
def test_stream_kernels_compute_what_stream_computes(kernel):
    n = 100_000
    a, b, c = np.zeros(n), np.full(n, 2.0), np.full(n, 0.5)
    runner = ParallelRunner(2)
    parts = [slice(0, n // 2), slice(n // 2, n)]
    stream_kernel(kernel, a, b, c, parts, runner, passes=2)()
    runner.close()
    expected = {"copy": 2.0, "scale": 6.0, "add": 2.5, "triad": 3.5}[kernel]
    assert np.all(a == expected)


def test_a_small_measurement_makes_a_whole_chip():
    result = measure(sizes=[64 * 1024, 256 * 1024, 4 * 1024**2], gemm_sizes={"fp64": 64, "fp32": 64},
                     threads=1)
    assert len(result.bandwidth) == 3 * 4
    assert all(p.bandwidth > 0 and p.timing.best <= p.timing.median for p in result.bandwidth)
    chip = to_chip(result)
    assert chip.dram.role == "dram" and chip.dram.bandwidth > 0
    assert set(chip.compute) == {"fp64", "fp32"} and all(v > 0 for v in chip.compute.values())
    assert "measured" in chip.name and chip.compute_sources["fp64"].startswith("measured")
    assert all(level.source for level in chip.memory)
    # every ceiling is measured: its value is its measurement (no datasheet figure is known)
    assert all(level.measured.value == level.bandwidth for level in chip.memory)
    assert {p: m.value for p, m in chip.compute_measured.items()} == chip.compute
    assert all(lv.provenance().kind == "measured" for lv in chip.memory)
    json = result.to_json()
    # a GEMM per precision and the FMA kernel at each of its intensities
    assert json["threads"] == 1 and len(json["compute"]) == 2 * (1 + len(FMA_STEPS))
    assert json["fallback"] is None and "numba" in json["method"]


def test_cancel_stops_between_measurements_and_returns_nothing():
    cancel = threading.Event()
    seen = []

    def progress(fraction, message):
        seen.append(message)
        if len(seen) == 2:
            cancel.set()

    with pytest.raises(Cancelled):
        measure(progress, cancel, sizes=[64 * 1024, 128 * 1024, 256 * 1024],
                gemm_sizes={"fp64": 64}, threads=1)
    assert len(seen) == 2


def test_best_per_size_keeps_the_faster_24_byte_kernel_at_each_size():
    t = Timing(1.0, 1.0, 1.0, 3)
    pts = [BandwidthPoint("triad", 24, 100, t), BandwidthPoint("add", 24, 100, Timing(0.5, 0.5, 0.5, 3)),
           BandwidthPoint("copy", 16, 100, Timing(0.1, 0.1, 0.1, 3))]  # copy counts 16 B: not used
    sizes, best = best_per_size(pts)
    assert sizes == [2400] and best == [pytest.approx(24 * 100 / 0.5)]


def test_measurement_json_is_plain_data():
    m = Measurement(2, "2026-01-01 00:00", "cpu", {"L1": 1})
    assert m.to_json()["caches"] == {"L1": 1}


def test_measure_size_small():
    backend = NumpyStream(2)
    points = measure_size(48 * 1024, backend, ("add",), repeats=2)
    backend.close()
    assert points[0].kernel == "add" and points[0].bandwidth > 1e8


def test_the_kernels_are_timed_round_robin_as_stream_runs_them():
    """Each repetition runs every kernel once (STREAM's loop), so each kernel's best is taken
    over the same stretch of a shared host's time, not one kernel's quiet second."""
    calls = []
    runs = {name: (lambda n=name: calls.append(n)) for name in ("copy", "scale", "add", "triad")}
    timings = time_interleaved(runs, repeats=3, min_time=0.0, warmup=0)
    assert calls == ["copy", "scale", "add", "triad"] * 3
    assert set(timings) == set(runs) and all(t.repeats == 3 for t in timings.values())
