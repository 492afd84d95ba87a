"""How close `roofline-explorer --measure` comes to references on this machine.

1. Main-memory bandwidth: the measured DRAM plateau against a compiled C STREAM triad
   (benchmarks/stream_triad.c, OpenMP, all cores, 24 B per element, best of 20).
2. dgemm: the quick measurement against a long run (about 20 s) of the same BLAS matrix multiply.
Run: python benchmarks/bench_measure.py   (needs gcc with OpenMP)
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

from roofline_gui.measure.machine import measure, to_chip  # noqa: E402


def c_stream() -> tuple[float, float, int]:
    binary = ROOT / "build" / "stream_triad"
    binary.parent.mkdir(exist_ok=True)
    subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", str(ROOT / "benchmarks" / "stream_triad.c"),
                    "-o", str(binary)], check=True)
    out = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout.split()
    return float(out[1]) * 1e9, float(out[7]) * 1e9, int(out[3])


def interleaved_dram(rounds: int = 5) -> list[tuple[float, float]]:
    """(numpy best STREAM kernel at 384 MiB, C triad) pairs, run back to back: this machine's
    bandwidth drifts by tens of percent over minutes, so only pairs taken together compare."""
    from roofline_gui.measure.stream import measure_size
    from roofline_gui.measure.timing import ParallelRunner, thread_count

    runner = ParallelRunner(thread_count())
    pairs = []
    for _ in range(rounds):
        ours = max(p.bandwidth for p in measure_size(384 * 1024**2, runner))
        pairs.append((ours, c_stream()[0]))
    runner.close()
    return pairs


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


def main() -> None:
    start = time.perf_counter()
    result = measure()
    took = time.perf_counter() - start
    chip = to_chip(result)
    print(f"machine: {result.cpu}, {result.threads} threads ({os.cpu_count()} CPUs)")
    print(f"--measure took {took:.1f} s")
    dram = chip.dram.bandwidth
    triad, add, threads = c_stream()
    big = max(p.elements for p in result.bandwidth)
    numpy_triad = max(p.bandwidth for p in result.bandwidth if p.kernel == "triad" and p.elements == big)
    print(f"DRAM level, --measure (best STREAM kernel, numpy) {dram / 1e9:7.2f} GB/s")
    print(f"  numpy triad alone at the largest size           {numpy_triad / 1e9:7.2f} GB/s")
    print(f"C STREAM triad (OpenMP, {threads} threads)                 {triad / 1e9:7.2f} GB/s")
    print(f"C STREAM add (OpenMP, {threads} threads)                   {add / 1e9:7.2f} GB/s")
    print(f"ratio measure / C triad                           {dram / triad:7.2f}")
    print(f"ratio measure / best C kernel                     {dram / max(triad, add):7.2f}")
    pairs = interleaved_dram()
    ratios = sorted(o / c for o, c in pairs)
    print("interleaved DRAM pairs (numpy best kernel / C triad), GB/s: "
          + ", ".join(f"{o / 1e9:.1f}/{c / 1e9:.1f}" for o, c in pairs))
    print(f"median ratio of the pairs                         {ratios[len(ratios) // 2]:7.2f}")
    quick = chip.compute["fp64"]
    reference = long_dgemm()
    print(f"dgemm, --measure                                  {quick / 1e9:7.2f} GFLOP/s")
    print(f"dgemm, 20 s run of the same BLAS                  {reference / 1e9:7.2f} GFLOP/s")
    print(f"ratio measure / long run                          {quick / reference:7.2f}")
    for level in chip.memory:
        print(f"level {level.name:6s} {level.bandwidth / 1e9:8.2f} GB/s")


if __name__ == "__main__":
    main()
