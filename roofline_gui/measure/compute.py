"""Peak compute through numpy: matrix multiply through its BLAS (all cores), and an
elementwise multiply-add loop on in-cache arrays for the vector rate."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from roofline_gui.measure.timing import ParallelRunner, Timing, time_repeated


@dataclass(frozen=True)
class ComputePoint:
    method: str  # "gemm" or "vector"
    precision: str
    size: int
    ops_per_call: float
    timing: Timing

    @property
    def rate(self) -> float:
        return self.ops_per_call / self.timing.best


DTYPES = {"fp64": np.float64, "fp32": np.float32}


def gemm_rate(precision: str, n: int, *, repeats: int = 5,
              cancel: threading.Event | None = None) -> ComputePoint:
    """C = A·B with n×n matrices through numpy's BLAS: 2·n³ flops per call."""
    rng = np.random.default_rng(0)
    dtype = DTYPES[precision]
    a = rng.standard_normal((n, n)).astype(dtype)
    b = rng.standard_normal((n, n)).astype(dtype)
    c = np.empty((n, n), dtype=dtype)
    timing = time_repeated(lambda: np.matmul(a, b, out=c), repeats=repeats, min_time=0.05,
                           cancel=cancel)
    return ComputePoint("gemm", precision, n, 2.0 * n**3, timing)


def vector_rate(precision: str, runner: ParallelRunner, *, elements: int = 4096, passes: int = 64,
                repeats: int = 5, cancel: threading.Event | None = None) -> ComputePoint:
    """x = x·a + b on arrays that fit in L1, on every thread: 2 flops per element per pass.
    numpy has no fused multiply-add ufunc, so this is two ufunc calls per pass; it measures what
    numpy reaches, below the hardware's FMA peak."""
    dtype = DTYPES[precision]
    data = [(np.full(elements, 0.5, dtype), np.full(elements, 0.999, dtype),
             np.full(elements, 1e-3, dtype)) for _ in range(runner.threads)]

    def work(i):
        x, a, b = data[i]
        for _ in range(passes):
            np.multiply(x, a, out=x)
            np.add(x, b, out=x)

    timing = time_repeated(lambda: runner.run(work), repeats=repeats, min_time=0.02, cancel=cancel)
    ops = 2.0 * elements * passes * runner.threads
    return ComputePoint("vector", precision, elements, ops, timing)


#: Elements per thread in the FMA kernel's array: 16 KiB of fp64, well inside any L1.
FMA_ELEMENTS = 2048


def fma_sweep(precision: str, threads: int, *, repeats: int = 3,
              cancel: threading.Event | None = None) -> list[ComputePoint]:
    """The compiled ERT-style multiply-add kernel at each of ``FMA_STEPS`` steps per element
    (``size`` of each point: the steps), all threads, L1-resident. The vector peak is the best."""
    from roofline_gui.measure.compiled import FMA_STEPS, fma_kernel  # noqa: PLC0415

    dtype = DTYPES[precision]
    x = np.full((threads, FMA_ELEMENTS), 0.5, dtype=dtype)
    a, b = dtype(0.999), dtype(1e-4)
    points = []
    for steps in FMA_STEPS:
        kernel = fma_kernel(steps)
        kernel(x, a, b, 1)  # compiles for this dtype
        reps = max(1, int(2e8 // (2 * steps * x.size)))
        timing = time_repeated(lambda k=kernel, r=reps: k(x, a, b, r), repeats=repeats,
                               min_time=0.02, cancel=cancel)
        points.append(ComputePoint("fma", precision, steps, 2.0 * steps * x.size * reps, timing))
    return points
