"""How close `roofline-explorer --measure` comes to compiled references on this machine.

1. Main memory: the app's compiled STREAM triad (numba) and a C OpenMP triad
   (benchmarks/stream_triad.c: STREAM's loop, the four kernels round-robin, each one's best of
   10, all cores, 40 M doubles per array, ordinary stores)
   run interleaved, five rounds at the C reference's size; the median ratio is the figure. The
   numpy fallback's triad is run in the same rounds for comparison.
2. The full `--measure` (timed: aim under 60 s): its levels with their working-set ranges, and
   its DRAM level against a C triad run right after it.
3. Compute: the FMA peak per precision beside cores × clock × FMA width × 2 (where the clock
   can be read) and the BLAS GEMM rate; dgemm against a 20 s run of the same BLAS.
4. Robustness on a shared host: the full measurement and the C triad interleaved, five rounds:
   main memory within 10 % of the C triad run right after it, and L1, L2 and L3 found, in how
   many of the five (aims: five of five).
Run: python benchmarks/bench_measure.py [--rounds-only]   (needs gcc with OpenMP)
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from roofline_gui.core.units import format_si  # noqa: E402
from roofline_gui.measure.compiled import CompiledStream  # noqa: E402
from roofline_gui.measure.machine import DRAM_REPEATS, measure, to_chip  # noqa: E402
from roofline_gui.measure.stream import NumpyStream, measure_size  # noqa: E402
from roofline_gui.measure.timing import thread_count  # noqa: E402

C_ELEMENTS = 40_000_000


def c_binary() -> Path:
    binary = ROOT / "build" / "stream_triad"
    binary.parent.mkdir(exist_ok=True)
    subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", str(ROOT / "benchmarks" / "stream_triad.c"),
                    "-o", str(binary)], check=True)
    return binary


def c_stream(binary: Path) -> tuple[float, float, int]:
    """(triad B/s, add B/s, threads) of one run of the C reference."""
    out = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout.split()
    return float(out[1]) * 1e9, float(out[7]) * 1e9, int(out[3])


def triad_at(backend, elements: int) -> float:
    """The triad at one size, with as many repetitions as --measure gives main memory's sizes."""
    return measure_size(elements * 24, backend, ("triad",), repeats=DRAM_REPEATS)[0].bandwidth


def interleaved(binary: Path, rounds: int = 5) -> list[tuple[float, float, float]]:
    """(compiled triad, numpy triad, C triad) per round, back to back: this machine's
    bandwidth drifts by tens of percent over minutes, so only figures taken together compare."""
    threads = thread_count()
    jit, numpy_kernels = CompiledStream(threads), NumpyStream(threads)
    rows = []
    for _ in range(rounds):
        ours = triad_at(jit, C_ELEMENTS)
        fallback = triad_at(numpy_kernels, C_ELEMENTS)
        rows.append((ours, fallback, c_stream(binary)[0]))
    numpy_kernels.close()
    return rows


def long_dgemm(n: int = 2048, seconds: float = 20.0) -> float:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    c = np.empty((n, n))
    best, end = 0.0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        np.matmul(a, b, out=c)
        best = max(best, 2 * n**3 / (time.perf_counter() - t))
    return best


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def robustness(binary: Path, rounds: int = 5) -> None:
    """The full measurement, five times over, with the C triad run right after each working set
    main memory is taken from (interleaved size by size: this host's bandwidth moves between
    about 35 and 70 GB/s in bursts of seconds, so only figures taken together compare): how
    often main memory is within 10 % of the median of those C runs, and how often every cache
    level sysfs lists is found."""
    from roofline_gui.measure import machine  # noqa: PLC0415
    from roofline_gui.measure.machine import _level_names  # noqa: PLC0415

    within = found = 0
    floor = 4 * max(machine.cache_sizes(thread_count()).values(), default=0)
    runs: list[float] = []
    original = machine.measure_size

    def interleaved_size(size, *args, **kwargs):
        points = original(size, *args, **kwargs)
        if size >= floor:
            runs.append(c_stream(binary)[0])
        return points

    machine.measure_size = interleaved_size
    print(f"4. --measure with the C triad after each of main memory's sizes, {rounds} rounds:")
    for i in range(rounds):
        runs.clear()
        start = time.perf_counter()
        result = machine.measure()
        took = time.perf_counter() - start
        before = after = runs
        triad = float(np.median(runs))
        names = _level_names(result.plateaus, result.caches)
        dram = result.plateaus[-1].bandwidth
        ok = abs(dram / triad - 1) <= 0.10
        every = all(level in names for level in result.caches)
        within += ok
        found += every
        spread = result.main_memory.rates[result.main_memory.reported]
        print(f"   round {i + 1}: {took:5.1f} s, DRAM {dram / 1e9:5.1f} GB/s (sizes ranged "
              f"{spread[1] / 1e9:.1f}-{spread[2] / 1e9:.1f}), C triad median {triad / 1e9:5.1f} "
              f"GB/s ({len(runs)} runs, {min(before + after) / 1e9:.1f}-"
              f"{max(before + after) / 1e9:.1f}; the wall time includes them), "
              f"ratio {dram / triad:4.2f}; levels {', '.join(names)}")
        for note in result.notes:
            if "not a level" in note or "not told apart" in note or "times: a pass" in note:
                print(f"      note: {note}")
    print(f"   main memory within 10 % of the C triad: {within} of {rounds} (aim {rounds} of {rounds})")
    print(f"   every cache level found ({', '.join(result.caches)}): {found} of {rounds} "
          f"(aim {rounds} of {rounds})")
    machine.measure_size = original


def main() -> None:
    binary = c_binary()
    print(f"machine: {os.uname().machine}, {thread_count()} threads ({os.cpu_count()} CPUs)")
    if "--rounds-only" in sys.argv:
        robustness(binary)
        return
    rows = interleaved(binary)
    print("1. interleaved at 40 M doubles per array (GB/s): compiled / numpy / C triad")
    for ours, fallback, c in rows:
        print(f"   {ours / 1e9:6.1f} {fallback / 1e9:6.1f} {c / 1e9:6.1f}   "
              f"compiled/C {ours / c:5.2f}   numpy/C {fallback / c:5.2f}")
    print(f"   median ratio compiled / C triad   {median([o / c for o, _, c in rows]):5.2f}  (aim >= 0.9)")
    print(f"   median ratio numpy / C triad      {median([f / c for _, f, c in rows]):5.2f}  (the fallback)")

    start = time.perf_counter()
    result = measure()
    took = time.perf_counter() - start
    triad_after, add_after, threads = c_stream(binary)
    chip = to_chip(result)
    print(f"2. --measure took {took:.1f} s (aim < 60 s); method: {result.method}")
    for level in chip.memory:
        print(f"   {level.name:5s} {format_si(level.bandwidth, 'B/s'):>12s}   {level.source}")
    print(f"   DRAM level / C triad right after  {chip.dram.bandwidth / triad_after:5.2f}  "
          f"({chip.dram.bandwidth / 1e9:.1f} vs {triad_after / 1e9:.1f} GB/s, {threads} threads)")
    for note in result.notes:
        print(f"   note: {note}")
    print("3. compute")
    theory = result.theoretical
    for precision, measured in chip.compute_measured.items():
        gemm = next(c for c in result.compute if c.method == "gemm" and c.precision == precision)
        line = (f"   {precision}: FMA kernel {format_si(result.vector(precision).rate, 'FLOP/s')}, "
                f"BLAS GEMM {format_si(gemm.rate, 'FLOP/s')}, the chip's peak "
                f"{format_si(measured.value, 'FLOP/s')}")
        if theory is not None:
            line += (f", theoretical {format_si(theory.peak(precision), 'FLOP/s')} "
                     f"(ratio {measured.value / theory.peak(precision):.2f}; {theory.formula(precision)})")
        print(line)
    reference = long_dgemm()
    gemm64 = next(c for c in result.compute if c.method == "gemm" and c.precision == "fp64")
    print(f"   dgemm quick / 20 s run of the same BLAS  {gemm64.rate / reference:5.2f}")
    robustness(binary)


if __name__ == "__main__":
    main()
