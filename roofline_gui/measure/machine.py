"""Measure this computer and describe it as a Chip.

The memory levels are the plateaus of a STREAM bandwidth sweep (working sets from inside L1 to
at least 4× the largest cache); each level's bandwidth is its best sustained plateau. The
compute ceilings are the vector multiply-add peak per precision (an ERT-style compiled kernel),
with the BLAS matrix multiply rate and the theoretical peak (cores × clock × vector width × FMA
units × 2, where the clock can be read) reported beside it. The kernels are compiled through
numba; where it cannot run, numpy's kernels measure instead and the result says so. Method,
sizes, thread count and the spread of the repetitions go into the chip's notes and sources.
"""

from __future__ import annotations

import datetime as dt
import platform
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from roofline_gui.core.chip import Chip, Measured, MemoryLevel
from roofline_gui.core.i18n import _
from roofline_gui.core.units import format_si
from roofline_gui.measure.compute import ComputePoint, fma_sweep, gemm_rate, vector_rate
from roofline_gui.measure.stream import (
    KERNELS,
    BandwidthPoint,
    NumpyStream,
    Plateau,
    find_plateaus,
    measure_size,
    sweep_sizes,
)
from roofline_gui.measure.timing import Cancelled, thread_count

Progress = Callable[[float, str], None]

#: The sweep goes at least this far, and to 6× the largest cache where that is further, so
#: that at least two sizes meet STREAM's rule (arrays of at least 4× the largest cache).
DRAM_FLOOR = 1024**3
CACHE_MULTIPLE = 6
#: ... but never takes more than this share of the memory available when it starts.
MEMORY_SHARE = 0.5
WORD_BYTES = {"fp64": 8, "fp32": 4}


@dataclass(frozen=True)
class Theoretical:
    """cores × clock × (vector bits ÷ word bits) × FMA units × 2 flops."""

    cores: int
    clock_hz: float
    clock_source: str
    vector_bits: int
    fma_units: int
    isa: str

    def peak(self, precision: str) -> float:
        lanes = self.vector_bits // (8 * WORD_BYTES[precision])
        return self.cores * self.clock_hz * lanes * self.fma_units * 2

    def formula(self, precision: str) -> str:
        lanes = self.vector_bits // (8 * WORD_BYTES[precision])
        cores = f"{self.cores} core{'s' if self.cores != 1 else ''}"
        return (f"{cores} × {self.clock_hz / 1e9:.3g} GHz ({self.clock_source}) × "
                f"{lanes} {precision} lanes ({self.isa}) × {self.fma_units} FMA units × 2 = "
                f"{format_si(self.peak(precision), 'FLOP/s')}")


@dataclass
class Measurement:
    threads: int
    date: str
    cpu: str
    caches: dict[str, int]
    bandwidth: list[BandwidthPoint] = field(default_factory=list)
    compute: list[ComputePoint] = field(default_factory=list)
    plateaus: list[Plateau] = field(default_factory=list)
    method: str = ""  # which kernels measured the bandwidth (compiled or numpy)
    fallback: str | None = None  # why the compiled kernels were not used, when they were not
    theoretical: Theoretical | None = None
    notes: list[str] = field(default_factory=list)  # what the sweep could not do
    main_memory: MainMemory | None = None  # every kernel's robust figure over the DRAM sizes

    def vector(self, precision: str) -> ComputePoint | None:
        """The best point of the multiply-add kernel at ``precision`` (numpy's vector rate
        where the compiled kernels could not run)."""
        points = [c for c in self.compute if c.precision == precision and c.method in ("fma", "vector")]
        return max(points, key=lambda c: c.rate, default=None)

    def peak(self, precision: str) -> ComputePoint | None:
        """The measured compute peak at ``precision``: the higher of the multiply-add kernel and
        the BLAS matrix multiply (no kernel outruns the peak, so the best rate any reached is
        the closest to it; an SGEMM can beat a short FMA loop by a few percent)."""
        points = [c for c in self.compute if c.precision == precision]
        vector = self.vector(precision)
        return max(points, key=lambda c: c.rate, default=None) if vector is not None else None

    def to_json(self) -> dict:
        theory = self.theoretical
        return {
            "format": "roofline-measurement", "version": 1,
            "cpu": self.cpu, "threads": self.threads, "date": self.date, "caches": self.caches,
            "method": self.method, "fallback": self.fallback, "notes": self.notes,
            "bandwidth": [{"kernel": p.kernel, "working_set_bytes": p.working_set,
                           "bytes_per_s": p.bandwidth, "best_s": p.timing.best,
                           "median_s": p.timing.median, "spread": p.timing.spread}
                          for p in self.bandwidth],
            "plateaus": [{"first_size": p.first_size, "last_size": p.last_size,
                          "bytes_per_s": p.bandwidth, "points": p.points} for p in self.plateaus],
            "main_memory": None if self.main_memory is None else self.main_memory.to_json(),
            "compute": [{"method": c.method, "precision": c.precision, "size": c.size,
                         "ops_per_s": c.rate, "spread": c.timing.spread} for c in self.compute],
            "theoretical": None if theory is None else {
                p: {"flop_per_s": theory.peak(p), "formula": theory.formula(p)} for p in WORD_BYTES},
        }


def _cpuinfo() -> dict[str, str]:
    """The first processor's fields of /proc/cpuinfo ({} where there is none)."""
    out: dict[str, str] = {}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return out
    for line in text.split("\n\n")[0].splitlines():
        key, _, value = line.partition(":")
        out[key.strip()] = value.strip()
    return out


def cpu_name() -> str:
    return _cpuinfo().get("model name") or platform.processor() or platform.machine()


def theoretical_peak(cores: int, info: dict[str, str] | None = None,
                     max_freq: Path = Path("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"),
                     ) -> Theoretical | None:
    """The theoretical vector peak of an x86-64 CPU, or None where the clock or the vector width
    cannot be read. The clock is the highest one sysfs gives (cpufreq), else /proc/cpuinfo's
    ``cpu MHz`` (the clock now; under a hypervisor, the nominal clock: cores may boost above
    it). Two FMA units of the full width per core are assumed (every Intel core since Haswell
    and AMD's since Zen 2 has two; AMD's Zen 4 runs a 512-bit FMA as two 256-bit halves)."""
    info = _cpuinfo() if info is None else info
    flags = set(info.get("flags", "").split())
    if "fma" not in flags:
        return None
    if "avx512f" in flags and info.get("vendor_id") != "AuthenticAMD":
        bits, isa = 512, "AVX-512"
    else:
        bits, isa = 256, "AVX2" if "avx512f" not in flags else "AVX-512 as 2 × 256 bits"
    try:
        clock, source = int(max_freq.read_text()) * 1e3, "cpufreq maximum"
    except (OSError, ValueError):
        try:
            clock, source = float(info["cpu MHz"]) * 1e6, "cpu MHz in /proc/cpuinfo"
        except (KeyError, ValueError):
            return None
    return Theoretical(cores, clock, source, bits, 2, isa)


def fp16_note(info: dict[str, str] | None = None) -> str:
    """Why there is no fp16 ceiling."""
    flags = set((_cpuinfo() if info is None else info).get("flags", "").split())
    if "avx512fp16" in flags:
        return ("fp16: this CPU has fp16 arithmetic (AVX512-FP16), but numba compiles no fp16 "
                "arithmetic for the CPU, so its peak is not measured")
    return ("fp16: this CPU has no fp16 arithmetic (F16C only converts), so there is no fp16 "
            "ceiling" if "f16c" in flags else "fp16: not measured (no fp16 arithmetic found)")


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


def memory_available() -> int | None:
    """Bytes of memory available now (Linux's MemAvailable), or None where unknown."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def sweep_plan(caches: dict[str, int], threads: int, compiled: bool,
               available: int | None) -> tuple[list[int], str | None]:
    """Working-set sizes from inside L1 (compiled kernels; numpy's call overhead hides L1, so
    its sweep starts at 24 KiB) to max(1 GiB, 6× the largest cache), bounded by half the
    memory available, and a note when that bound keeps the sweep under 4× the largest cache."""
    largest_cache = max(caches.values(), default=0)
    want = max(DRAM_FLOOR, CACHE_MULTIPLE * largest_cache)
    top = want if available is None else min(want, int(available * MEMORY_SHARE))
    note = None
    if largest_cache and top < 4 * largest_cache:
        note = (f"main memory was measured up to {format_si(top, 'B')} only: STREAM's rule "
                f"(4× the largest cache, {format_si(4 * largest_cache, 'B')}) needs more memory "
                f"than the {format_si(available or 0, 'B')} available, so the DRAM level may "
                f"still be partly served by the cache")
    smallest = 8 * 1024 * threads if compiled else 24 * 1024
    return sweep_sizes(smallest, top, per_octave=3 if compiled else 2), note


def _stream_backend(threads: int, compiled: bool):
    """The compiled STREAM kernels, or numpy's with the reason they are used instead."""
    if not compiled:
        return NumpyStream(threads), "the numpy kernels were asked for"
    from roofline_gui.measure import compiled as jit  # noqa: PLC0415 (numba is heavy)

    reason = jit.unavailable()
    if reason is not None:
        return NumpyStream(threads), reason
    return jit.CompiledStream(threads), None


def measure(progress: Progress | None = None, cancel: threading.Event | None = None, *,
            sizes: list[int] | None = None, gemm_sizes: dict[str, int] | None = None,
            threads: int | None = None, compiled: bool = True) -> Measurement:
    """Run the sweep and the compute measurements. Raises Cancelled if ``cancel`` is set.
    ``sizes`` replaces the planned sweep (and its extension); ``compiled=False`` measures
    with numpy's kernels."""
    extend = sizes is None
    progress = progress or (lambda _f, _m: None)
    threads = threads or thread_count()
    gemm_sizes = gemm_sizes or {"fp64": 2048, "fp32": 3072}
    info = _cpuinfo()
    result = Measurement(threads, dt.datetime.now().strftime("%Y-%m-%d %H:%M"), cpu_name(),
                         cache_sizes(threads), theoretical=theoretical_peak(threads, info))
    progress(0.0, _("compiling the measurement kernels (numba)") if compiled else _("starting"))
    backend, result.fallback = _stream_backend(threads, compiled)
    use_jit = result.fallback is None
    result.method = backend.label + (f", {_jit_version()}" if use_jit else "")
    available = memory_available()
    if sizes is None:
        sizes, note = sweep_plan(result.caches, threads, use_jit, available)
        if note:
            result.notes.append(note)
    result.notes.append(fp16_note(info))
    steps = len(sizes) + 2 * len(gemm_sizes)
    try:
        for i, size in enumerate(sizes):
            progress(i / steps, _("memory bandwidth, working set {size}").format(
                size=format_si(size, "B")))
            result.bandwidth += measure_size(size, backend, KERNELS, cancel=cancel,
                                             repeats=repeats_at(size, result.caches))
        if extend:  # a cache larger than sysfs says: go on while the curve still falls
            _extend_sweep(result, sizes, backend, progress, cancel, available)
        _sweep_again_where_unseparated(result, sizes, backend, progress, cancel)
        for j, (precision, n) in enumerate(gemm_sizes.items()):
            progress((len(sizes) + 2 * j) / steps, _("{precision} matrix multiply {n}×{n}").format(
                precision=precision, n=n))
            result.compute.append(gemm_rate(precision, n, cancel=cancel))
            progress((len(sizes) + 2 * j + 1) / steps, _("{precision} vector multiply-add").format(
                precision=precision))
            if use_jit:
                result.compute += fma_sweep(precision, threads, cancel=cancel)
            else:
                result.compute.append(vector_rate(precision, backend.runner, cancel=cancel))
    finally:
        backend.close()
    result.plateaus, result.main_memory, notes = memory_levels(
        result.bandwidth, result.caches, reported="triad" if use_jit else "add/triad")
    result.notes += notes
    result.notes += plausibility_notes(result)
    progress(1.0, _("done"))
    return result


#: Median repetitions this much slower than the best, at most sizes, mean the machine was busy.
BUSY_SPREAD = 0.25


def plausibility_notes(m: Measurement) -> list[str]:
    """What in the figures says they are not the machine's: another program on the cores (the
    vector peak below the BLAS rate, fp32 no faster than fp64, repetitions far apart), or a
    theoretical peak exceeded because ``cpu MHz`` is the nominal clock."""
    notes = []
    again = "measure again with the machine otherwise idle"
    for precision in WORD_BYTES:
        vector = m.vector(precision)
        gemm = next((c for c in m.compute if c.method == "gemm" and c.precision == precision), None)
        if vector is not None and vector.method == "fma" and gemm is not None \
                and vector.rate < 0.8 * gemm.rate:
            notes.append(f"the {precision} multiply-add kernel ({format_si(vector.rate, 'FLOP/s')}) "
                         f"came out well below the BLAS matrix multiply "
                         f"({format_si(gemm.rate, 'FLOP/s')}), which does more than multiply-adds: "
                         f"the cores were probably busy; {again}")
    fp64, fp32 = m.vector("fp64"), m.vector("fp32")
    if fp64 is not None and fp32 is not None and fp64.method == "fma" and fp32.rate < 1.5 * fp64.rate:
        notes.append(f"fp32 ({format_si(fp32.rate, 'FLOP/s')}) came out less than 1.5× fp64 "
                     f"({format_si(fp64.rate, 'FLOP/s')}) though a vector holds twice as many "
                     f"fp32 values: the cores were probably busy; {again}")
    # One slow repetition is a moment's interference; the best of the others is kept. A median
    # repetition well behind the best, at most sizes, is a machine busy all along.
    slow = [p.timing.median / p.timing.best - 1 for p in m.bandwidth if p.timing.best > 0]
    if slow and float(np.median(slow)) > BUSY_SPREAD:
        notes.append(f"half the bandwidth measurements took more than {1 + float(np.median(slow)):.2g}× "
                     f"their best time in their median repetition: the machine was busy or its "
                     f"memory shared; {again}")
    theory = m.theoretical
    if theory is not None and theory.clock_source != "cpufreq maximum":
        above = [p for p in WORD_BYTES if m.peak(p) is not None
                 and m.peak(p).rate > 1.05 * theory.peak(p)]
        if above:
            notes.append(f"the measured {' and '.join(above)} peak exceeds the theoretical one: "
                         f"{theory.clock_hz / 1e9:.3g} GHz ({theory.clock_source}) is the clock "
                         "now or, under a hypervisor, the nominal one; the cores boost above it")
    return notes


#: Repetitions, each a round of the four kernels as STREAM runs them (its NTIMES is 10): at the
#: working sets main memory's level is taken from (at least 4× the largest cache) 10, each
#: kernel's best then spans about a second, as the C STREAM's does; inside the first cache 10 as
#: well (a vCPU shares its core with another guest's: L1 read half its rate while the sibling was
#: busy, and within 10 % of L2 in one round of five with 5; its plateau is a few sizes wide);
#: in the other caches 5 (their points wandered by ±25 % with 3 on this project's host; 10 there
#: took the measurement from 40 to 70 s); between the largest cache and 4x it 3 (the curve's
#: shape is enough there).
DRAM_REPEATS = 10
L1_REPEATS = 10
CACHE_REPEATS = 5


def repeats_at(size: int, caches: dict[str, int]) -> int:
    """Repetitions at working set ``size`` of a machine with ``caches`` (see DRAM_REPEATS)."""
    floor = 4 * max(caches.values(), default=0)
    if size >= floor:
        return DRAM_REPEATS
    if size <= min(caches.values(), default=0):
        return L1_REPEATS
    return CACHE_REPEATS if size <= floor // 8 else 3


#: At most this many doublings beyond the planned sweep while the curve still falls.
MAX_EXTENSIONS = 2


def _extend_sweep(result: Measurement, sizes: list[int], backend, progress, cancel,
                  available: int | None) -> None:
    size = sizes[-1]
    for _attempt in range(MAX_EXTENSIONS):
        if not still_falling(best_per_size(result.bandwidth)[1]):
            return
        size *= 2
        if available is not None and size > available * MEMORY_SHARE:
            break
        progress(0.9, _("memory bandwidth still falling: working set {size}").format(
            size=format_si(size, "B")))
        result.bandwidth += measure_size(size, backend, KERNELS, cancel=cancel,
                                         repeats=DRAM_REPEATS)
    if still_falling(best_per_size(result.bandwidth)[1]):
        result.notes.append(
            f"the bandwidth was still falling at the largest working set "
            f"({format_si(size, 'B')}): main memory may be slower than the DRAM level says")


def _jit_version() -> str:
    from roofline_gui.measure.compiled import version  # noqa: PLC0415

    return version()


def _dram_by_stream_rule(plateaus, sizes, envelope, caches) -> list[Plateau]:
    """STREAM's rule for main memory: arrays at least 4× the largest cache. The last plateau's
    level is the median of its sizes that meet the rule, so working sets still partly cached
    (the edge of the plateau, or a cache larger than sysfs says) do not count."""
    if not plateaus or not caches:
        return plateaus
    last = plateaus[-1]
    floor = max(4 * max(caches.values()), last.first_size)
    big = [bw for size, bw in zip(sizes, envelope, strict=True) if floor <= size <= last.last_size]
    if not big:
        return plateaus
    level = float(np.median(big))
    return [*plateaus[:-1], Plateau(floor, last.last_size, level, len(big))]


@dataclass(frozen=True)
class MainMemory:
    """Main memory as STREAM reports it, robust on a shared host: for each kernel, the median
    over every working set at least 4× the largest cache of that size's best repetition, with
    the lowest and highest of them (the spread across sizes); ``reported`` is the one the DRAM
    level takes (STREAM's triad; the better of add and triad with numpy's kernels, whose triad
    is held back by the Python loop)."""

    sizes: tuple[int, ...]  # the working sets it is taken from (3-array sizes)
    rates: dict[str, tuple[float, float, float]]  # kernel -> (median, lowest, highest) B/s
    reported: str

    @property
    def bandwidth(self) -> float:
        return self.rates[self.reported][0]

    def describe(self) -> str:
        median, low, high = self.rates[self.reported]
        others = ", ".join(f"{k} {format_si(v[0], 'B/s')}" for k, v in self.rates.items()
                           if k != self.reported)
        return (f"{self.reported} {format_si(median, 'B/s')}, the median over "
                f"{len(self.sizes)} working sets from {format_si(self.sizes[0], 'B')} to "
                f"{format_si(self.sizes[-1], 'B')} of each one's best repetition (they ranged "
                f"{format_si(low, 'B/s')}–{format_si(high, 'B/s')})" + (f"; {others}" if others else ""))

    def to_json(self) -> dict:
        return {"sizes": list(self.sizes), "reported": self.reported,
                "kernels": {k: {"median": m, "lowest": lo, "highest": hi}
                            for k, (m, lo, hi) in self.rates.items()}}


#: The fewest working sets main memory is taken from (the largest ones, when fewer reach the
#: STREAM rule's 4× the largest cache, with a note).
MAIN_MEMORY_SIZES = 3
#: A cache level must read this much faster than the next one to stand as a level of its own.
SEPARATE = 0.10


def main_memory(points: list[BandwidthPoint], floor: int,
                reported: str = "triad") -> tuple[MainMemory | None, list[str]]:
    """Main memory from the whole tail of sizes at or above ``floor`` (never one size), as
    MainMemory; and a note where fewer than MAIN_MEMORY_SIZES sizes reach it."""
    by_kernel: dict[str, dict[int, float]] = {}
    for p in points:
        by_kernel.setdefault(p.kernel, {})[p.elements * 24] = p.bandwidth
    if reported == "add/triad":
        add, triad = by_kernel.get("add", {}), by_kernel.get("triad", {})
        by_kernel["add/triad"] = {s: max(add.get(s, 0.0), triad.get(s, 0.0)) for s in {*add, *triad}}
    sizes = sorted(by_kernel.get(reported, {}))
    if not sizes:
        return None, []
    tail = [s for s in sizes if s >= floor]
    notes = []
    if len(tail) < MAIN_MEMORY_SIZES:
        tail = sizes[-MAIN_MEMORY_SIZES:]
        notes.append(f"main memory was taken from the {len(tail)} largest working sets "
                     f"({format_si(tail[0], 'B')}–{format_si(tail[-1], 'B')}); fewer than "
                     f"{MAIN_MEMORY_SIZES} reached 4× the largest cache "
                     f"({format_si(floor, 'B')}), so it may still be partly served by the cache")
    rates = {}
    for kernel in (*KERNELS, "add/triad"):
        values = [by_kernel.get(kernel, {}).get(s) for s in tail]
        values = [v for v in values if v]
        if values and (kernel in KERNELS or kernel == reported):
            rates[kernel] = (float(np.median(values)), float(min(values)), float(max(values)))
    return MainMemory(tuple(tail), rates, reported), notes


def memory_levels(points: list[BandwidthPoint], caches: dict[str, int],
                  reported: str = "triad") -> tuple[list[Plateau], MainMemory | None, list[str]]:
    """The memory levels of a sweep, smallest first, DRAM last; main memory's robust figure;
    and notes on what the sweep could not separate.

    With the caches' capacities known, each cache's level is read from the working sets well
    inside it and well past the one before (from 2× the previous capacity to half its own):
    the best of the better of add and triad there: a cache is never faster than it can be,
    and a host's noise (a busy core sibling, for minutes) or a size that aliases only slows
    some sizes down, which hid L1 when the upper quartile was taken (L1 sizes read 270-310
    GB/s but one 650, with L2 at 305). So a noisy host's wandering points neither split nor
    hide a level. A cache the sweep covered but whose level reads
    within SEPARATE of the next is said so and left out. Main memory comes from every size at
    least 4× the largest cache (main_memory). Without capacities, the plateaus of the curve
    (find_plateaus)."""
    return _levels(points, caches, reported)[:3]


def _levels(points: list[BandwidthPoint], caches: dict[str, int], reported: str = "triad"
            ) -> tuple[list[Plateau], MainMemory | None, list[str], list[str]]:
    """memory_levels, and the names of the cache levels the sweep covered but could not tell
    apart from the level behind them."""
    sizes, envelope = best_per_size(points)
    if not sizes:
        return [], None, [], []
    largest = max(caches.values(), default=0)
    memory, notes = main_memory(points, 4 * largest, reported)
    if not caches or memory is None:
        plateaus = find_plateaus(sizes, envelope, edges=tuple(caches.values()))
        plateaus = _dram_by_stream_rule(plateaus, sizes, envelope, caches)
        return plateaus, memory, notes, []
    levels: list[tuple[str, Plateau]] = []
    for name, (low, high) in cache_ranges(caches, sizes[0]).items():
        capacity = caches[name]
        inside = [(s, bw) for s, bw in zip(sizes, envelope, strict=True) if low <= s <= high]
        if len(inside) < 2:
            notes.append(f"{name} ({format_si(capacity, 'B')}) is not a level here: the sweep "
                         f"has {len(inside)} working set{'s' * (len(inside) != 1)} well inside it "
                         "(numpy's kernels cannot time working sets that small)"
                         if len(inside) == 1 or sizes[0] > capacity / 2 else
                         f"{name} ({format_si(capacity, 'B')}) is not a level here: the sweep "
                         f"has no working set well inside it and past the level before")
            continue
        rates = [bw for _s, bw in inside]
        levels.append((name, Plateau(inside[0][0], inside[-1][0], float(max(rates)),
                                     len(inside))))
    dram = Plateau(memory.sizes[0], memory.sizes[-1], memory.bandwidth, len(memory.sizes))
    kept: list[Plateau] = []
    apart: list[str] = []  # the cache levels covered but not told apart
    following = dram
    for name, level in reversed(levels):  # each must be faster than the level behind it
        if level.bandwidth > following.bandwidth * (1 + SEPARATE):
            kept.insert(0, level)
            following = level
        else:
            apart.insert(0, name)
            notes.append(f"{name} was swept ({format_si(level.first_size, 'B')}–"
                         f"{format_si(level.last_size, 'B')}) but read "
                         f"{format_si(level.bandwidth, 'B/s')}, within {SEPARATE:.0%} of the level "
                         f"behind it ({format_si(following.bandwidth, 'B/s')}): not told apart, "
                         "so not a level of its own")
    return [*kept, dram], memory, notes, apart


def cache_ranges(caches: dict[str, int], smallest: int) -> dict[str, tuple[float, float]]:
    """The working sets each cache level is read from, smallest cache first: well inside it and
    well past the one before (2× the previous capacity to half its own)."""
    out, low = {}, smallest
    for name, capacity in sorted(caches.items(), key=lambda kv: kv[1]):
        out[name] = (low, capacity / 2)
        low = 2 * capacity
    return out


#: How many more times a cache level read within SEPARATE of the next is swept.
SWEEP_AGAIN = 2


def _sweep_again_where_unseparated(result: Measurement, sizes: list[int], backend, progress,
                                   cancel) -> None:
    """A cache level the sweep covered but read within SEPARATE of the level behind it is swept
    again, up to SWEEP_AGAIN times: on a shared host a vCPU's core sibling, busy for a few
    seconds, halves its L1's rate, and a few seconds later it is quiet again. Each size keeps
    its better reading; the notes say how many times a level was swept."""
    swept: dict[str, int] = {}
    for _attempt in range(SWEEP_AGAIN):
        apart = _levels(result.bandwidth, result.caches)[3]
        again = [(name, low, high) for name, (low, high)
                 in cache_ranges(result.caches, sizes[0]).items() if name in apart]
        if not again:
            break
        for name, low, high in again:
            for size in (s for s in sizes if low <= s <= high):
                progress(0.9, _("{level} again, working set {size}").format(
                    level=name, size=format_si(size, "B")))
                result.bandwidth += measure_size(size, backend, KERNELS, cancel=cancel,
                                                 repeats=repeats_at(size, result.caches))
            swept[name] = swept.get(name, 1) + 1
    for name, times in swept.items():
        result.notes.append(f"{name} was swept {times} times: a pass before read it within "
                            f"{SEPARATE:.0%} of the level behind it")


def still_falling(envelope: list[float], points: int = 3, drop: float = 0.1) -> bool:
    """Whether the bandwidth curve's last ``points`` sizes still fall by more than ``drop``:
    the sweep has not yet reached main memory's plateau."""
    if len(envelope) < points:
        return False
    tail = envelope[-points:]
    return tail[-1] < tail[0] * (1 - drop)


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
    """Name plateaus by the smallest cache that holds the working set in their middle
    (geometric: a plateau's ends stray past the cache it stands for, as a working set just
    larger than a cache is still partly served by it); the last is DRAM."""
    names: list[str] = []
    for p in plateaus[:-1]:
        middle = (p.first_size * p.last_size) ** 0.5
        fitting = [level for level, size in sorted(caches.items(), key=lambda kv: kv[1])
                   if middle <= size]
        name = fitting[0] if fitting else "cache"
        while name in names:  # two plateaus in one level's range: keep both, named apart
            name += "'"
        names.append(name)
    return [*names, "DRAM"]


def host_name(m: Measurement) -> str:
    return f"{m.cpu}, {m.threads} threads ({platform.node() or 'this computer'})"


def to_chip(m: Measurement, chip_id: str = "this-computer") -> Chip:
    """The measured machine as a chip: cache plateaus and DRAM (measured: no datasheet figure is
    known), and the vector peak per precision, measured. Where sysfs gives the highest clock,
    the compute ceiling's datasheet value is the theoretical peak and the measurement sits
    beside it; ``cpu MHz`` alone (the clock now, or under a hypervisor the nominal clock) is
    not trusted for that, and the theoretical peak is only reported."""
    if not m.plateaus:
        raise ValueError("no bandwidth plateau was found")
    host = host_name(m)
    names = _level_names(m.plateaus, m.caches)
    method = (f"better of the STREAM add and triad kernels at each working-set size, "
              f"{m.method} (24 B counted per element as STREAM does, write-allocate not "
              f"counted), {m.threads} threads, the kernels run round-robin as STREAM runs them, "
              f"best of {CACHE_REPEATS} repetitions in the caches ({L1_REPEATS} in the "
              f"first, {DRAM_REPEATS} at main memory's sizes, 3 between); main memory from "
              f"working sets at least 4x the largest cache")
    levels = []
    for name, p in zip(names, m.plateaus, strict=True):
        role = "dram" if name == "DRAM" else "cache"
        span = (f"plateau over working sets {format_si(p.first_size, 'B')}–"
                f"{format_si(p.last_size, 'B')} ({p.points} size{'s' if p.points != 1 else ''})")
        if role == "dram" and m.main_memory is not None:
            span = f"main memory: {m.main_memory.describe()}"
        elif role == "cache":
            span += ", the best of its sizes"
        measured = Measured(p.bandwidth, m.date, f"{method}; {span}", host)
        levels.append(MemoryLevel(role, name, p.bandwidth, source=f"measured on {m.date}: {span}",
                                  measured=measured))
    gemm = {c.precision: c for c in m.compute if c.method == "gemm"}
    theory = m.theoretical
    compute, sources, measured_peaks = {}, {}, {}
    for precision in gemm:
        peak = m.peak(precision)
        if peak is None:
            continue
        vector = m.vector(precision)
        kernel = (f"ERT-style multiply-add kernel, compiled ({m.method.rsplit(', ', 1)[-1]}), "
                  f"{vector.size} FMAs per element in L1, all threads, best of the intensity sweep"
                  if vector.method == "fma" else
                  "x = x·a + b through numpy in L1 (no fused multiply-add: below the FMA peak)")
        how = (kernel if peak is vector else
               f"BLAS matrix multiply {peak.size}×{peak.size}, all threads, which outran the "
               f"{kernel} ({format_si(vector.rate, 'FLOP/s')})")
        measured = Measured(peak.rate, m.date, how, host)
        measured_peaks[precision] = measured
        if theory is not None and theory.clock_source == "cpufreq maximum":
            compute[precision] = theory.peak(precision)
            sources[precision] = f"theoretical: {theory.formula(precision)}"
        else:
            compute[precision] = peak.rate
            sources[precision] = f"measured on {m.date}: {how}"
    caches = ", ".join(f"{k} {format_si(v, 'B')}" for k, v in m.caches.items()) or "unknown"
    notes = [f"{m.cpu}, {m.threads} threads; measured {m.date} by Roofline Explorer.",
             f"Caches (sysfs): {caches}.",
             f"Memory levels: the STREAM bandwidth sweep (add/triad, {m.method}); each cache's "
             "level from the working sets well inside it, main memory from every working set "
             "at least 4x the largest cache.",
             *([f"Main memory: {m.main_memory.describe()}."] if m.main_memory else []),
             *([f"Compiled kernels not used: {m.fallback}."] if m.fallback else []),
             *(f"{precision} BLAS matrix multiply {c.size}×{c.size}: "
               f"{format_si(c.rate, 'FLOP/s')}" for precision, c in gemm.items()),
             *(f"Theoretical {p}: {theory.formula(p)}; measured "
               f"{measured_peaks[p].value / theory.peak(p):.2f}× of it."
               for p in measured_peaks if theory is not None),
             *m.notes]
    return Chip(id=chip_id, name=f"This computer, measured {m.date}", compute=compute,
                memory=tuple(levels), vendor=m.cpu, year=int(m.date[:4]), notes="\n".join(notes),
                compute_sources=sources, compute_measured=measured_peaks)


def measurement_file(m: Measurement, chip: Chip | None = None) -> dict:
    """What ``--measure --json`` writes: every figure, and the measured chip (``to_chip(m)``
    unless given) in the session's chip format under ``chip`` (File → Open and File → Import →
    Import chips from a file… read it)."""
    from roofline_gui.io.serialize import chip_to_dict  # noqa: PLC0415

    return {**m.to_json(), "chip": chip_to_dict(chip or to_chip(m))}


__all__ = ["Cancelled", "Measurement", "measure", "measurement_file", "to_chip"]
