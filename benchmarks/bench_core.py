"""Core evaluation speed: 1,000,000 kernel × chip pairs against a bare numpy roofline.

Prints both times and their ratio. The bare version computes only
``minimum(peak, intensity * bandwidth)``; the core also computes every level's time, the
limiter, the bound, both time bounds, the ridge and percent of peak.
Run: python benchmarks/bench_core.py
"""

from __future__ import annotations

import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from roofline_gui.core.chip import Chip, MemoryLevel  # noqa: E402
from roofline_gui.core.kernel import Kernel  # noqa: E402
from roofline_gui.core.roofline import ChipArrays, KernelArrays, evaluate  # noqa: E402


def best_of(fn, repeats=5):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bare_with_limiter(intensity, peaks, bws):
    """What any roofline tool must compute to draw and label a point: the attainable value,
    the time per op and which ceiling binds, for one memory level, in plain numpy."""
    compute = 1.0 / peaks[None, :] + 0 * intensity[:, None]
    memory = 1.0 / (intensity[:, None] * bws[None, :])
    limiter = memory > compute
    time = np.maximum(compute, memory)
    return 1.0 / time, limiter


def main(n_kernels: int = 1000, n_chips: int = 1000) -> None:
    rng = np.random.default_rng(0)
    intensity = 10 ** rng.uniform(-2, 4, n_kernels)
    peaks = 10 ** rng.uniform(12, 15, n_chips)
    bws = 10 ** rng.uniform(10, 13, n_chips)
    kernels = [Kernel(f"k{i}", "k", "bf16", flops=float(x) * 1e9, bytes={"dram": 1e9})
               for i, x in enumerate(intensity)]
    chips = [Chip(f"c{j}", "c", {"bf16": float(p)},
                  (MemoryLevel("cache", "L2", float(b) * 5), MemoryLevel("dram", "HBM", float(b))))
             for j, (p, b) in enumerate(zip(peaks, bws, strict=True))]
    start = time.perf_counter()
    ka, ca = KernelArrays.from_kernels(kernels), ChipArrays.from_chips(chips)
    build = time.perf_counter() - start

    core = best_of(lambda: evaluate(ka, ca))
    bare = best_of(lambda: np.minimum(peaks[None, :], intensity[:, None] * bws[None, :]))
    bare_full = best_of(lambda: bare_with_limiter(intensity, peaks, bws))
    result = evaluate(ka, ca)
    expected = np.minimum(peaks[None, :], intensity[:, None] * bws[None, :])
    assert np.allclose(result.attainable, expected, rtol=1e-12)

    pairs = n_kernels * n_chips
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, numpy {np.__version__}")
    print(f"pairs: {pairs:,} ({n_kernels} kernels x {n_chips} chips, 2 memory levels each)")
    print(f"building arrays from objects: {build * 1e3:8.1f} ms (once per document change)")
    print(f"core evaluate():             {core * 1e3:8.1f} ms  ({core / pairs * 1e9:.1f} ns/pair)")
    print(f"bare numpy minimum():        {bare * 1e3:8.1f} ms  ({bare / pairs * 1e9:.1f} ns/pair)")
    print(f"bare + time and limiter:     {bare_full * 1e3:8.1f} ms  (the same outputs, one level)")
    print(f"ratio core / bare minimum:   {core / bare:8.1f}x")
    print(f"ratio core / bare + limiter: {core / bare_full:8.1f}x")


if __name__ == "__main__":
    main()
