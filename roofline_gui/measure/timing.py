"""Timing helpers: warm-up, repetitions, best / median / spread, all threads at once.

numpy's ufuncs release the GIL on large arrays, so P Python threads each working on its own
slice run on P cores. A barrier starts them together; the time of a repetition is the slowest
thread's, as STREAM times its OpenMP loops.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


class Cancelled(Exception):
    """Raised between measurements when the caller asked to stop."""


@dataclass(frozen=True)
class Timing:
    best: float
    median: float
    worst: float
    repeats: int

    @property
    def spread(self) -> float:
        """(worst - best) / best: how noisy the repetitions were."""
        return (self.worst - self.best) / self.best if self.best > 0 else 0.0


def thread_count() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else (os.cpu_count() or 1))


def time_repeated(run: Callable[[], None], *, repeats: int = 5, min_time: float = 0.02,
                  warmup: int = 1, cancel: threading.Event | None = None) -> Timing:
    """Time ``run``; each sample repeats it until ``min_time`` has passed, so short kernels are
    timed over many calls. Returns per-call best, median and worst."""
    return time_interleaved({"run": run}, repeats=repeats, min_time=min_time, warmup=warmup,
                            cancel=cancel)["run"]


def time_interleaved(runs: dict[str, Callable[[], None]], *, repeats: int = 5,
                     min_time: float = 0.02, warmup: int = 1,
                     cancel: threading.Event | None = None) -> dict[str, Timing]:
    """Time several kernels as STREAM does, round-robin: each repetition runs every kernel once
    (each sample at least ``min_time``), so every kernel's samples spread over the same minutes
    of a shared host whose bandwidth comes and goes in bursts of seconds, and no kernel's best
    is taken from a quieter or busier stretch than the others'. Per-call best, median, worst."""
    for run in runs.values():
        for _ in range(warmup):
            run()
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            if cancel is not None and cancel.is_set():
                raise Cancelled
            calls, start = 0, time.perf_counter()
            while True:
                run()
                calls += 1
                elapsed = time.perf_counter() - start
                if elapsed >= min_time:
                    break
            samples[name].append(elapsed / calls)
    return {name: Timing(min(s), statistics.median(s), max(s), repeats)
            for name, s in samples.items()}


class ParallelRunner:
    """Runs ``work(i)`` for i in range(threads) concurrently, once per call."""

    def __init__(self, threads: int) -> None:
        from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415 (off the start-up path)

        self.threads = threads
        self._pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None

    def run(self, work: Callable[[int], None]) -> None:
        if self._pool is None:
            work(0)
            return
        for future in [self._pool.submit(work, i) for i in range(self.threads)]:
            future.result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
