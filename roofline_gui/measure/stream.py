"""STREAM-style bandwidth over a sweep of working-set sizes, and plateau detection.

Bytes are counted the way STREAM counts them: copy and scale move 2 words per element (one read,
one write), add and triad 3 (two reads, one write). A cache with write-allocate also reads each
written line before writing it, so the bus carries one more word per element than counted
(copy 3, add 4); like STREAM, the figures here do not include that traffic.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from roofline_gui.measure.timing import ParallelRunner, Timing, time_interleaved

WORDS = {"copy": 2, "scale": 2, "add": 3, "triad": 3}
FLOPS = {"copy": 0, "scale": 1, "add": 1, "triad": 2}
KERNELS = tuple(WORDS)
TRIAD_CHUNK = 32_768  # elements; triad's temporary for s*c stays in cache


@dataclass(frozen=True)
class BandwidthPoint:
    kernel: str
    working_set: int  # bytes in all arrays the kernel touches
    elements: int
    timing: Timing

    @property
    def bandwidth(self) -> float:
        """Best sustained B/s, STREAM's byte count."""
        return WORDS[self.kernel] * 8 * self.elements / self.timing.best


def _slices(n: int, threads: int) -> list[slice]:
    bounds = np.linspace(0, n, threads + 1).astype(int)
    return [slice(int(bounds[i]), int(bounds[i + 1])) for i in range(threads)]


#: Each thread repeats its pass until it has streamed this many elements per dispatch, so the
#: cost of waking the threads (tens of µs) does not swamp small, in-cache working sets.
ELEMENTS_PER_DISPATCH = 4_000_000


def stream_kernel(name: str, a, b, c, parts: list[slice], runner: ParallelRunner,
                  passes: int = 1) -> Callable[[], None]:
    """A callable that runs ``passes`` passes of kernel ``name`` over all elements, each thread
    on its own slice (the threads start together; the call returns when all are done)."""
    q = 3.0
    temps = [np.empty(min(TRIAD_CHUNK, s.stop - s.start), dtype=a.dtype) for s in parts]

    def copy(i):
        np.copyto(a[parts[i]], b[parts[i]])

    def scale(i):
        np.multiply(b[parts[i]], q, out=a[parts[i]])

    def add(i):
        np.add(b[parts[i]], c[parts[i]], out=a[parts[i]])

    def triad(i):
        s, tmp = parts[i], temps[i]
        for start in range(s.start, s.stop, TRIAD_CHUNK):
            stop = min(start + TRIAD_CHUNK, s.stop)
            t = tmp[: stop - start]
            np.multiply(c[start:stop], q, out=t)
            np.add(b[start:stop], t, out=a[start:stop])

    one = {"copy": copy, "scale": scale, "add": add, "triad": triad}[name]

    def work(i):
        for _ in range(passes):
            one(i)

    return lambda: runner.run(work)


class NumpyStream:
    """STREAM kernels through numpy's ufuncs, one Python thread per core (the fallback when the
    compiled kernels cannot run: slower, and blind to L1)."""

    label = "numpy ufuncs, one Python thread per core"
    elements_per_dispatch = ELEMENTS_PER_DISPATCH

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.runner = ParallelRunner(threads)

    def arrays(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return np.full(n, 1.0), np.full(n, 2.0), np.full(n, 0.5)

    def kernel(self, name: str, a, b, c, passes: int) -> Callable[[], None]:
        return stream_kernel(name, a, b, c, _slices(a.size, self.threads), self.runner, passes)

    def close(self) -> None:
        self.runner.close()


def measure_size(working_set: int, backend, kernels=KERNELS, *, repeats: int = 3,
                 cancel: threading.Event | None = None) -> list[BandwidthPoint]:
    """All ``kernels`` at one working-set size (the 3-array size; copy/scale touch 2 of them),
    run by ``backend`` (:class:`NumpyStream` or the compiled one), round-robin as STREAM runs
    them (each repetition runs every kernel once)."""
    n = max(backend.threads * 64, working_set // (3 * 8))
    a, b, c = backend.arrays(n)
    points = []
    passes = max(1, backend.elements_per_dispatch // n)
    timings = time_interleaved({name: backend.kernel(name, a, b, c, passes) for name in kernels},
                               repeats=repeats, min_time=0.02, cancel=cancel)
    for name, timing in timings.items():
        arrays = 2 if name in ("copy", "scale") else 3
        per_pass = Timing(timing.best / passes, timing.median / passes, timing.worst / passes,
                          timing.repeats)
        points.append(BandwidthPoint(name, arrays * 8 * n, n, per_pass))
    return points


def sweep_sizes(smallest: int = 24 * 1024, largest: int = 384 * 1024**2, per_octave: int = 2) -> list[int]:
    """Working-set sizes, geometric, from inside the first cache to well beyond the last."""
    count = int(np.log2(largest / smallest) * per_octave) + 1
    return [int(s) for s in np.geomspace(smallest, largest, count)]


@dataclass(frozen=True)
class Plateau:
    first_size: int
    last_size: int
    bandwidth: float  # best sustained B/s on the plateau
    points: int


def find_plateaus(sizes, bandwidths, *, flat: float = 0.2, merge: float = 0.25,
                  edges=()) -> list[Plateau]:
    """Flat stretches of a bandwidth-vs-size curve, smallest sizes first.

    The curve is first smoothed with a running median of three (in log space), which removes
    single noisy points. A point is flat when the log-log slope to both neighbours is within
    ``flat`` (|d ln bw / d ln size|; a cache edge drops much faster). Consecutive flat points
    form a plateau; neighbouring plateaus whose levels differ by less than ``merge`` (in ln) are
    joined. A plateau's bandwidth is the upper quartile of its points: the best sustained rate.

    ``edges`` are the caches' capacities, where known: a plateau that runs across one with at
    least two points on each side, whose sides differ by more than ``EDGE_STEP`` (in ln), is
    split there, and two plateaus on either side of one are joined only when they differ by less
    than that (L1 and L2 can be within 25 % of each other on a busy host, and the gentle slope
    between them then reads as flat).
    """
    sizes = np.asarray(sizes, dtype=float)
    raw = np.asarray(bandwidths, dtype=float)
    order = np.argsort(sizes)
    sizes, raw = sizes[order], raw[order]
    if len(sizes) < 3:
        return [Plateau(int(sizes[0]), int(sizes[-1]), float(raw.max()), len(sizes))] if len(sizes) else []
    log_bw = np.log(raw)
    padded = np.concatenate([[log_bw[0]], log_bw, [log_bw[-1]]])
    smooth = np.median(np.stack([padded[:-2], padded[1:-1], padded[2:]]), axis=0)
    slope = np.diff(smooth) / np.diff(np.log(sizes))
    left = np.concatenate([[0.0], slope])
    right = np.concatenate([slope, [0.0]])
    is_flat = (np.abs(left) <= flat) & (np.abs(right) <= flat)
    groups: list[list[int]] = []
    for i in np.flatnonzero(is_flat):
        if groups and i == groups[-1][-1] + 1:
            groups[-1].append(int(i))
        else:
            groups.append([int(i)])
    for edge in sorted(edges):
        groups = [part for g in groups for part in _split_at(g, edge, sizes, raw)]
    # Smoothing finds the plateaus; their level is the upper quartile of the points on them:
    # interference only slows runs down, but the edge points of a plateau can still be partly
    # served by the level above, so the single best point would overstate it.
    plateaus = [Plateau(int(sizes[g[0]]), int(sizes[g[-1]]), float(np.percentile(raw[g], 75)), len(g))
                for g in groups]
    merged: list[Plateau] = []
    for p in plateaus:
        step = abs(np.log(p.bandwidth / merged[-1].bandwidth)) if merged else np.inf
        across = merged and any(merged[-1].last_size <= e < p.first_size for e in edges)
        if merged and step < merge and not (across and step >= EDGE_STEP):
            q = merged[-1]
            merged[-1] = Plateau(q.first_size, p.last_size, max(q.bandwidth, p.bandwidth),
                                 q.points + p.points)
        else:
            merged.append(p)
    # A cache level is faster than every level behind it: a "plateau" no faster than a larger
    # working set's is an artefact (call overhead on tiny arrays), not a level.
    kept: list[Plateau] = []
    for i, p in enumerate(merged):
        if all(p.bandwidth > q.bandwidth * 1.1 for q in merged[i + 1:]):
            kept.append(p)
    return kept


#: Two sides of a cache's capacity differing by more than this (in ln, about 12 %) are two levels.
EDGE_STEP = 0.12


def _split_at(group: list[int], edge: float, sizes, raw) -> list[list[int]]:
    below = [i for i in group if sizes[i] <= edge]
    above = [i for i in group if sizes[i] > edge]
    if len(below) < 2 or len(above) < 2:
        return [group]
    if abs(np.log(np.median(raw[below]) / np.median(raw[above]))) <= EDGE_STEP:
        return [group]
    return [below, above]
