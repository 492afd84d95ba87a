"""Measure this computer and describe it as a Chip.

The memory levels are the plateaus of a triad bandwidth sweep (sizes from inside L1 to well past
the last cache); each level's bandwidth is its best sustained plateau. The compute ceilings are
BLAS matrix multiply rates (fp64, fp32). Method, sizes, thread count and the spread of the
repetitions go into the chip's notes and sources.
"""

from __future__ import annotations

import datetime as dt
import platform
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from roofline_gui.core.chip import Chip, MemoryLevel
from roofline_gui.core.units import format_si
from roofline_gui.measure.compute import ComputePoint, gemm_rate, vector_rate
from roofline_gui.measure.stream import (
    KERNELS,
    BandwidthPoint,
    Plateau,
    find_plateaus,
    measure_size,
    sweep_sizes,
)
from roofline_gui.measure.timing import Cancelled, ParallelRunner, thread_count

Progress = Callable[[float, str], None]


@dataclass
class Measurement:
    threads: int
    date: str
    cpu: str
    caches: dict[str, int]
    bandwidth: list[BandwidthPoint] = field(default_factory=list)
    compute: list[ComputePoint] = field(default_factory=list)
    plateaus: list[Plateau] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "cpu": self.cpu, "threads": self.threads, "date": self.date, "caches": self.caches,
            "bandwidth": [{"kernel": p.kernel, "working_set_bytes": p.working_set,
                           "bytes_per_s": p.bandwidth, "best_s": p.timing.best,
                           "median_s": p.timing.median, "spread": p.timing.spread}
                          for p in self.bandwidth],
            "plateaus": [{"first_size": p.first_size, "last_size": p.last_size,
                          "bytes_per_s": p.bandwidth, "points": p.points} for p in self.plateaus],
            "compute": [{"method": c.method, "precision": c.precision, "size": c.size,
                         "ops_per_s": c.rate, "spread": c.timing.spread} for c in self.compute],
        }


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cache_sizes(threads: int = 1) -> dict[str, int]:
    """Data/unified cache capacity per level available to ``threads`` threads, from Linux sysfs
    ({'L1': 65536, ...}: a per-core cache counts once per thread); {} elsewhere."""
    out: dict[str, int] = {}
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    for index in sorted(base.glob("index*")):
        try:
            if (index / "type").read_text().strip() == "Instruction":
                continue
            level = (index / "level").read_text().strip()
            size = (index / "size").read_text().strip()
            sharing = (index / "shared_cpu_list").read_text().strip()
        except OSError:
            continue
        factor = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(size[-1], 1)
        sharers = sum(int(b) - int(a) + 1 if "-" in part else 1
                      for part in sharing.split(",") if part
                      for a, _, b in [part.partition("-")])
        out[f"L{level}"] = int(size.rstrip("KMG")) * factor * max(1, threads // max(1, sharers))
    return out


def measure(progress: Progress | None = None, cancel: threading.Event | None = None, *,
            sizes: list[int] | None = None, gemm_sizes: dict[str, int] | None = None,
            threads: int | None = None) -> Measurement:
    """Run the sweep and the compute measurements. Raises Cancelled if ``cancel`` is set."""
    progress = progress or (lambda _f, _m: None)
    threads = threads or thread_count()
    sizes = sizes or sweep_sizes()
    gemm_sizes = gemm_sizes or {"fp64": 2048, "fp32": 3072}
    result = Measurement(threads, dt.datetime.now().strftime("%Y-%m-%d %H:%M"), cpu_name(),
                         cache_sizes(threads))
    runner = ParallelRunner(threads)
    steps = len(sizes) + 2 * len(gemm_sizes)
    try:
        for i, size in enumerate(sizes):
            progress(i / steps, f"memory bandwidth, working set {format_si(size, 'B')}")
            result.bandwidth += measure_size(size, runner, KERNELS, cancel=cancel)
        for j, (precision, n) in enumerate(gemm_sizes.items()):
            progress((len(sizes) + 2 * j) / steps, f"{precision} matrix multiply {n}×{n}")
            result.compute.append(gemm_rate(precision, n, cancel=cancel))
            progress((len(sizes) + 2 * j + 1) / steps, f"{precision} vector multiply-add")
            result.compute.append(vector_rate(precision, runner, cancel=cancel))
    finally:
        runner.close()
    sizes_seen, envelope = best_per_size(result.bandwidth)
    result.plateaus = _dram_by_stream_rule(find_plateaus(sizes_seen, envelope), sizes_seen,
                                           envelope, result.caches)
    progress(1.0, "done")
    return result


def _dram_by_stream_rule(plateaus, sizes, envelope, caches) -> list[Plateau]:
    """STREAM's rule for main memory: arrays at least 4× the largest cache. The last plateau's
    level is taken from those sizes only, so working sets still partly cached do not count."""
    if not plateaus or not caches:
        return plateaus
    floor = 4 * max(caches.values())
    big = [bw for size, bw in zip(sizes, envelope, strict=True) if size >= floor]
    if not big:
        return plateaus
    last = plateaus[-1]
    level = float(np.median(big))
    return [*plateaus[:-1], Plateau(max(last.first_size, floor), last.last_size, level, len(big))]


def best_per_size(points: list[BandwidthPoint]) -> tuple[list[int], list[float]]:
    """The better of add and triad at each swept size (keyed by the 3-array size).

    Both move 24 B per element as STREAM counts them, like the C triad they are compared with.
    In numpy a fused triad needs a Python loop over cache-sized chunks, which holds the GIL
    between ufunc calls and so understates bandwidth with several threads; add (one ufunc per
    slice) does not. Copy and scale are measured and reported but count 16 B per element.
    """
    best: dict[int, float] = {}
    for p in points:
        if p.kernel not in ("add", "triad"):
            continue
        key = p.elements * 24
        best[key] = max(best.get(key, 0.0), p.bandwidth)
    keys = sorted(best)
    return keys, [best[k] for k in keys]


def _level_names(plateaus: list[Plateau], caches: dict[str, int]) -> list[str]:
    """Name plateaus by the smallest cache that holds their last working set; the last is DRAM."""
    names: list[str] = []
    for p in plateaus[:-1]:
        fitting = [level for level, size in sorted(caches.items(), key=lambda kv: kv[1])
                   if p.last_size <= size * 1.5]
        name = fitting[0] if fitting else "cache"
        while name in names:  # two plateaus in one level's range: keep both, named apart
            name += "'"
        names.append(name)
    return [*names, "DRAM"]


def to_chip(m: Measurement, chip_id: str = "this-computer") -> Chip:
    """The measured machine as a chip: cache plateaus, DRAM, BLAS compute ceilings."""
    if not m.plateaus:
        raise ValueError("no bandwidth plateau was found")
    names = _level_names(m.plateaus, m.caches)
    method = (f"measured by Roofline Explorer on {m.date}: better of the STREAM add and triad "
              f"kernels at each working-set size (24 B counted per element as STREAM does, "
              f"write-allocate not counted), {m.threads} threads, best of 3 repetitions; main "
              f"memory from working sets at least 4x the largest cache")
    levels = []
    for name, p in zip(names, m.plateaus, strict=True):
        role = "dram" if name == "DRAM" else "cache"
        label = name if role == "cache" else "DRAM"
        levels.append(MemoryLevel(role, label, p.bandwidth, source=(
            f"{method}; plateau over working sets {format_si(p.first_size, 'B')}–"
            f"{format_si(p.last_size, 'B')} ({p.points} sizes)")))
    gemm = {c.precision: c for c in m.compute if c.method == "gemm"}
    vector = {c.precision: c for c in m.compute if c.method == "vector"}
    compute = {p: c.rate for p, c in gemm.items()}
    sources = {p: (f"measured on {m.date}: numpy matmul {c.size}×{c.size} through its BLAS, "
                   f"all threads, best of {c.timing.repeats} (spread {c.timing.spread:.1%})")
               for p, c in gemm.items()}
    caches = ", ".join(f"{k} {format_si(v, 'B')}" for k, v in m.caches.items()) or "unknown"
    notes = [f"{m.cpu}, {m.threads} threads; measured {m.date} by Roofline Explorer.",
             f"Caches (sysfs): {caches}.",
             "Memory levels: plateaus of the STREAM bandwidth sweep (add/triad), "
             "best sustained rate each.",
             "Compute: BLAS matrix multiply (the rate a long GEMM reaches, not the datasheet peak).",
             *(f"Vector rate through numpy ({p}, x = x·a + b in L1): "
               f"{format_si(c.rate, 'FLOP/s')}" for p, c in vector.items())]
    return Chip(id=chip_id, name=f"This computer, measured {m.date}", compute=compute,
                memory=tuple(levels), vendor=m.cpu,
                year=int(m.date[:4]), notes="\n".join(notes), compute_sources=sources)


__all__ = ["Cancelled", "Measurement", "measure", "to_chip"]
