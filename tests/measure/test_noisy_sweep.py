"""Memory levels from a sweep recorded on a shared, noisy host (issue 29): this project's
2-core AMD EPYC (L1 96 KiB and L2 2 MiB for two threads, L3 32 MiB), where past 4× the L3 the
per-size rates wandered between 30 and 47 GB/s while a compiled C triad read 34 GB/s. Main
memory must be the robust figure of the whole tail, not its luckiest size, and every cache level
must be found though neighbouring sizes wander."""

import numpy as np
import pytest

from roofline_gui.measure.machine import (
    MAIN_MEMORY_SIZES,
    _level_names,
    main_memory,
    memory_levels,
    sweep_plan,
)
from roofline_gui.measure.stream import WORDS, BandwidthPoint
from roofline_gui.measure.timing import Timing

KIB, MIB = 1024, 1024**2
CACHES = {"L1": 96 * KIB, "L2": 2 * MIB, "L3": 32 * MIB}
GB = 1e9


def _point(kernel: str, size: int, rate: float) -> BandwidthPoint:
    n = size // 24
    best = WORDS[kernel] * 8 * n / rate
    return BandwidthPoint(kernel, (2 if WORDS[kernel] == 2 else 3) * 8 * n, n,
                          Timing(best, best * 1.1, best * 1.3, 10))


def recorded_sweep(seed: int = 0, dram_luck: float = 47 * GB) -> list[BandwidthPoint]:
    """The sweep --measure plans here, with levels near this host's (L1 ~400, L2 ~190, L3 ~95,
    DRAM ~35 GB/s) and its noise: ±15 % on every size, DRAM sizes wandering 30-44 GB/s, and
    one lucky DRAM size (536.9 MB) at ``dram_luck``."""
    rng = np.random.default_rng(seed)
    sizes, _note = sweep_plan(CACHES, 2, True, None)
    points = []
    for size in sizes:
        if size <= CACHES["L1"]:
            level = 400 * GB
        elif size <= CACHES["L2"]:
            level = 190 * GB
        elif size <= CACHES["L3"]:
            level = 95 * GB
        else:
            level = 35 * GB
        if size >= 4 * CACHES["L3"]:
            triad = float(rng.uniform(30, 44)) * GB
            if abs(size - 536.9e6) < 1e6:
                triad = dram_luck
        else:
            triad = level * float(rng.uniform(0.85, 1.15))
        for kernel, factor in (("copy", 1.05), ("scale", 1.03), ("add", 0.99), ("triad", 1.0)):
            points.append(_point(kernel, size, triad * factor))
    return points


@pytest.mark.parametrize("seed", range(5))
def test_every_cache_level_and_a_robust_main_memory_are_found_on_a_noisy_host(seed):
    points = recorded_sweep(seed)
    plateaus, memory, notes = memory_levels(points, CACHES)
    assert _level_names(plateaus, CACHES) == ["L1", "L2", "L3", "DRAM"]
    dram = plateaus[-1]
    triad = sorted(p.bandwidth for p in points if p.kernel == "triad" and p.elements * 24 >= 128 * MIB)
    assert dram.bandwidth == pytest.approx(float(np.median(triad)))
    assert dram.bandwidth < 44 * GB  # not the lucky 47 GB/s size
    assert dram.points == len(triad) >= MAIN_MEMORY_SIZES and dram.first_size >= 4 * CACHES["L3"]
    assert memory.reported == "triad" and set(memory.rates) == {"copy", "scale", "add", "triad"}
    median, low, high = memory.rates["triad"]
    assert low <= median <= high and high == pytest.approx(47 * GB)
    assert memory.rates["copy"][0] == pytest.approx(median * 1.05, rel=0.03)
    text = memory.describe()
    assert text.startswith("triad ") and "the median over" in text and "ranged" in text
    for level, want in zip(plateaus[:3], (400, 190, 95), strict=True):
        assert level.bandwidth == pytest.approx(want * GB, rel=0.16)
    assert notes == []


def test_a_cache_the_sweep_covered_but_could_not_separate_is_said_so():
    """An L3 that reads within 10 % of main memory (a busy host's L3 shared with the
    neighbours): not a level of its own, and the notes say why it is missing."""
    points = [p for p in recorded_sweep(1) if not (4 * MIB <= p.elements * 24 <= 16 * MIB)]
    for size in (4 * MIB, 8 * MIB, 16 * MIB):
        points += [_point(k, size, 37 * GB) for k in ("copy", "scale", "add", "triad")]
    plateaus, _memory, notes = memory_levels(points, CACHES)
    assert _level_names(plateaus, CACHES) == ["L1", "L2", "DRAM"]
    assert any(n.startswith("L3 was swept") and "not told apart" in n for n in notes)


def test_numpys_sweep_that_cannot_reach_inside_l1_says_so():
    points = [p for p in recorded_sweep(2) if p.elements * 24 >= 40 * KIB]
    plateaus, memory, notes = memory_levels(points, CACHES, reported="add/triad")
    assert _level_names(plateaus, CACHES) == ["L2", "L3", "DRAM"]
    assert any(n.startswith("L1 (98.3 kB) is not a level here") for n in notes)
    assert memory.reported == "add/triad"


def test_main_memory_from_the_largest_sizes_when_too_few_reach_the_stream_rule():
    points = [p for p in recorded_sweep(3) if p.elements * 24 <= 160 * MIB]
    memory, notes = main_memory(points, 4 * CACHES["L3"])
    assert len(memory.sizes) == MAIN_MEMORY_SIZES and notes and "fewer than 3" in notes[0]


def test_an_l1_a_busy_core_sibling_held_back_is_swept_again(monkeypatch):
    """A vCPU shares its core with another guest's: for a few seconds L1 read half its rate,
    within 10 % of L2, and was lost (one round of five on this host). The level is swept once
    more; each size keeps its better reading, and the notes say it was swept twice."""
    from roofline_gui.measure.machine import Measurement, _sweep_again_where_unseparated

    sizes, _note = sweep_plan(CACHES, 2, True, None)
    first = [p if p.elements * 24 > CACHES["L1"] / 2 else _point(p.kernel, p.elements * 24,
                                                                 p.bandwidth * 0.5)
             for p in recorded_sweep(4)]
    m = Measurement(2, "2026-12-02 13:40", "test CPU", dict(CACHES), bandwidth=list(first))
    assert "L1" not in _level_names(memory_levels(first, CACHES)[0], CACHES)
    swept = []

    def quiet_again(size, backend, kernels, *, cancel=None, repeats=3):
        swept.append((size, repeats))
        return [_point(k, size, 400 * GB) for k in kernels]

    import roofline_gui.measure.machine as machine

    monkeypatch.setattr(machine, "measure_size", quiet_again)
    _sweep_again_where_unseparated(m, sizes, None, lambda _f, _m: None, None)
    assert swept and all(s <= CACHES["L1"] / 2 and r == machine.L1_REPEATS for s, r in swept)
    plateaus, _memory, notes = memory_levels(m.bandwidth, CACHES)
    assert _level_names(plateaus, CACHES) == ["L1", "L2", "L3", "DRAM"]
    assert any(n.startswith("L1 was swept 2 times") for n in m.notes)  # once more sufficed


def test_an_l1_whose_sizes_mostly_read_slow_is_still_found_from_its_best():
    """Recorded on this host, minutes apart (2026-12-02): most L1 working sets read 270-310
    GB/s (a busy core sibling, or sizes whose arrays alias), one 650, and L2 305. A cache is
    never faster than it can be, so its level is its best size: L1 650, found; the upper
    quartile (310) had hidden it in three rounds of five."""
    points = [p for p in recorded_sweep(5) if p.elements * 24 > CACHES["L1"] / 2]
    for size, rate in ((16_400, 280), (20_600, 271), (26_000, 310), (32_800, 304),
                       (41_300, 650)):
        points += [_point(k, size, rate * GB) for k in ("copy", "scale", "add", "triad")]
    points = [p if not (CACHES["L1"] < p.elements * 24 <= CACHES["L2"])
              else _point(p.kernel, p.elements * 24, 305 * GB) for p in points]
    plateaus, _memory, notes = memory_levels(points, CACHES)
    assert _level_names(plateaus, CACHES) == ["L1", "L2", "L3", "DRAM"], notes
    assert plateaus[0].bandwidth == pytest.approx(650 * GB)
