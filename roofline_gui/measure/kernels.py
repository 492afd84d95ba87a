"""Running session kernels on this computer through numpy, timed properly.

A kernel runs at its own parameters and storage precision; its ops and bytes come from the same
template as its modelled point, so the measured point sits at the same intensity and the gap to
its roof is the efficiency. Warm-up, then repetitions; the best time is the measurement and the
median and spread go into its notes.
"""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass, replace

import numpy as np

from roofline_gui.core.kernel import Kernel
from roofline_gui.core.units import format_si, format_time
from roofline_gui.measure.stream import stream_kernel
from roofline_gui.measure.timing import ParallelRunner, Timing, thread_count, time_repeated

DTYPES = {"fp64": np.float64, "fp32": np.float32, "fp16": np.float16, "int8": np.int8}
RUNNABLE = ("elementwise", "triad", "dot", "gemm", "stencil7")
MAX_BYTES = 3e9  # refuse kernels whose arrays would not fit comfortably in memory


@dataclass(frozen=True)
class KernelRun:
    timing: Timing
    ops: float
    threads: int

    @property
    def rate(self) -> float:
        return self.ops / self.timing.best


def why_not_runnable(kernel: Kernel) -> str | None:
    """None when the kernel can run here, else the reason in words."""
    if kernel.template not in RUNNABLE:
        return (f"only {', '.join(RUNNABLE)} kernels run through numpy; "
                "import measurements for the others (File → Import)")
    if kernel.storage not in DTYPES:
        return f"numpy has no {kernel.storage} arithmetic (it has {', '.join(DTYPES)})"
    if kernel.template in ("gemm", "dot", "triad", "stencil7") and kernel.storage == "int8":
        return f"{kernel.template} in int8 would overflow; use an integer add (elementwise)"
    if kernel.template == "elementwise" and kernel.params.get("fused_ops", 1) != 1:
        return "only the plain add (fused ops f = 1) runs through numpy"
    traffic = kernel.traffic()
    if traffic.bytes["dram"] > MAX_BYTES:
        size = format_si(traffic.bytes["dram"], "B")
        return f"its arrays ({size}) exceed the {format_si(MAX_BYTES, 'B')} limit"
    return None


def run_kernel(kernel: Kernel, *, repeats: int = 5, cancel: threading.Event | None = None,
               threads: int | None = None) -> KernelRun:
    reason = why_not_runnable(kernel)
    if reason:
        raise ValueError(reason)
    dtype = DTYPES[kernel.storage]
    p = {**_defaults(kernel), **kernel.params}
    threads = threads or thread_count()
    run = _make_runner(kernel.template, p, dtype, threads)
    try:
        timing = time_repeated(run.call, repeats=repeats, min_time=0.05, cancel=cancel)
    finally:
        run.close()
    return KernelRun(timing, kernel.traffic().ops, run.threads)


def with_measurement(kernel: Kernel, result: KernelRun) -> Kernel:
    """The kernel carrying its measured time, with how it was measured in its notes."""
    when = dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    note = (f"Measured on this computer {when}: best {format_time(result.timing.best)}, median "
            f"{format_time(result.timing.median)} over {result.timing.repeats} runs after a "
            f"warm-up ({format_si(result.rate, 'op/s')}, {result.threads} threads).")
    kept = [line for line in kernel.notes.splitlines()
            if line and not line.startswith("Measured on this computer")]
    notes = "\n".join([*kept, note])
    return replace(kernel, measured_time=result.timing.best, measured_flops=None, notes=notes)


def _defaults(kernel: Kernel) -> dict:
    from roofline_gui.core.templates import TEMPLATES  # noqa: PLC0415

    return TEMPLATES[kernel.template].defaults()


@dataclass
class _Runner:
    call: object
    threads: int
    pool: ParallelRunner | None = None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()


def _make_runner(template: str, p: dict, dtype, threads: int) -> _Runner:
    if template in ("elementwise", "triad"):
        n = int(p["n"])
        a, b, c = np.zeros(n, dtype), np.ones(n, dtype), np.full(n, 2, dtype)
        pool = ParallelRunner(threads)
        bounds = np.linspace(0, n, threads + 1).astype(int)
        parts = [slice(int(bounds[i]), int(bounds[i + 1])) for i in range(threads)]
        name = "add" if template == "elementwise" else "triad"
        return _Runner(stream_kernel(name, a, b, c, parts, pool), threads, pool)
    if template == "dot":
        n = int(p["n"])
        x, y = np.ones(n, dtype), np.ones(n, dtype)
        return _Runner(lambda: float(np.dot(x, y)), 1)
    if template == "gemm":
        m, n, k = (int(p[key]) for key in ("m", "n", "k"))
        rng = np.random.default_rng(0)
        a = rng.standard_normal((m, k)).astype(dtype)
        b = rng.standard_normal((k, n)).astype(dtype)
        c = np.empty((m, n), dtype)
        return _Runner(lambda: np.matmul(a, b, out=c), threads)
    # stencil7: out = (u + its six neighbours) / 7, T sweeps, 8 ops a point; numpy makes a pass
    # per term, so it moves more than the compulsory bytes and the gap to the roof shows it.
    nx, ny, nz, steps = (int(p[key]) for key in ("nx", "ny", "nz", "steps"))
    u = np.ones((nx, ny, nz), dtype)
    out = np.zeros_like(u)

    def sweep():
        src, dst = u, out
        for _ in range(steps):
            inner = dst[1:-1, 1:-1, 1:-1]
            np.copyto(inner, src[1:-1, 1:-1, 1:-1])
            for sl in ((slice(None, -2), slice(1, -1), slice(1, -1)),
                       (slice(2, None), slice(1, -1), slice(1, -1)),
                       (slice(1, -1), slice(None, -2), slice(1, -1)),
                       (slice(1, -1), slice(2, None), slice(1, -1)),
                       (slice(1, -1), slice(1, -1), slice(None, -2)),
                       (slice(1, -1), slice(1, -1), slice(2, None))):
                np.add(inner, src[sl], out=inner)
            np.multiply(inner, 1 / 7, out=inner)
            src, dst = dst, src

    return _Runner(sweep, 1)
