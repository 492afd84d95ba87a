"""Roofline evaluation over arrays of kernels × chips, with no Python loop per pair.

For kernel k on chip c (Williams, Waterman & Patterson, CACM 2009, extended to a hierarchy):
    T_compute = ops / peak(c, precision(k))
    T_level   = reads(role) / bandwidth + writes(role) / write_bandwidth, for every memory level
                of c whose role k has bytes for (write_bandwidth defaults to bandwidth)
    time lower bound = max(T_compute, T_level...)    (perfect overlap)
    time upper bound = T_compute + Σ T_level          (no overlap)
    attainable       = ops / lower bound = min(peak, intensity × bandwidth for each level)
    ridge point      = peak / bandwidth               (op/B, per level)
A chip with no ceiling at the kernel's precision gives ``unsupported``: NaN numbers and
bound code 2. Nothing falls back to another precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from roofline_gui.core.chip import Chip
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.templates import Traffic
from roofline_gui.core.units import (
    MEMORY_ROLES,
    PRECISION_INDEX,
    PRECISIONS,
    ROLE_INDEX,
    SAME_WIDTH,
    WIDER,
)

BOUND_MEMORY, BOUND_COMPUTE, BOUND_UNSUPPORTED = 0, 1, 2
BOUND_NAMES = ("memory", "compute", "unsupported")
LIMITER_COMPUTE, LIMITER_UNSUPPORTED = -1, -2


@dataclass(frozen=True)
class KernelArrays:
    """Kernels as arrays. ``bytes``/``writes`` are [K, roles], NaN where a role has no bytes."""

    ops: np.ndarray
    bytes: np.ndarray
    writes: np.ndarray
    precision: np.ndarray
    sized: np.ndarray
    #: [K] bytes each kernel keeps in the on-chip level across calls (Traffic.resident); None
    #: where not worked out (a parameter sweep's arrays)
    resident: np.ndarray | None = None

    @classmethod
    def from_kernels(cls, kernels: Sequence[Kernel]) -> KernelArrays:
        traffic = [k.traffic() for k in kernels]
        return cls.from_traffic(
            traffic, [k.precision for k in kernels], [k.has_size for k in kernels]
        )

    @classmethod
    def from_traffic(
        cls, traffic: Sequence[Traffic], precisions: Sequence[str], sized: Sequence[bool]
    ) -> KernelArrays:
        n = len(traffic)
        nbytes = np.full((n, len(MEMORY_ROLES)), np.nan)
        writes = np.zeros((n, len(MEMORY_ROLES)))
        for i, t in enumerate(traffic):
            for role, value in t.bytes.items():
                nbytes[i, ROLE_INDEX[role]] = value
            for role, value in t.writes.items():
                writes[i, ROLE_INDEX[role]] = value
        return cls(
            ops=np.array([float(t.ops) for t in traffic], dtype=float).reshape(n),
            bytes=nbytes,
            writes=writes,
            precision=np.array([PRECISION_INDEX[p] for p in precisions], dtype=np.intp).reshape(n),
            sized=np.array(sized, dtype=bool).reshape(n),
            resident=np.array([float(t.resident) for t in traffic], dtype=float).reshape(n),
        )

    def with_rows(self, rows: Sequence[int], traffic: Sequence[Traffic],
                  precisions: Sequence[str], sized: Sequence[bool]) -> KernelArrays:
        """A copy with the given rows replaced (a drag changes one kernel of thousands)."""
        patch = KernelArrays.from_traffic(traffic, precisions, sized)
        index = np.asarray(rows, dtype=np.intp)
        arrays = {}
        for name in ("ops", "bytes", "writes", "precision", "sized", "resident"):
            if getattr(self, name) is None:
                continue
            array = getattr(self, name).copy()
            array[index] = getattr(patch, name)
            arrays[name] = array
        return KernelArrays(**arrays)

    def take(self, rows: Sequence[int]) -> KernelArrays:
        """The kernels at ``rows`` alone."""
        index = np.asarray(rows, dtype=np.intp)
        return KernelArrays(*(getattr(self, f)[index] for f in (
            "ops", "bytes", "writes", "precision", "sized")),
            resident=None if self.resident is None else self.resident[index])

    def intensity(self) -> np.ndarray:
        """[K, roles] ops per byte moved at each role; NaN where the kernel moves no bytes."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.ops[:, None] / self.bytes

    def shown_intensity(self) -> np.ndarray:
        """[K] the intensity a kernel is drawn at with main memory only: ops per dram byte, or,
        for a kernel whose operands all live off main memory, per byte at the first level of
        ``MEMORY_ROLES`` it moves bytes through (never NaN for a kernel that moves bytes)."""
        every = self.intensity()
        out = every[:, ROLE_INDEX["dram"]].copy()
        for role in MEMORY_ROLES:
            missing = ~np.isfinite(out)
            if not missing.any():
                break
            out[missing] = every[missing, ROLE_INDEX[role]]
        return out


@dataclass(frozen=True)
class ChipArrays:
    """Chips as arrays; levels padded to the longest hierarchy (role -1, bandwidth NaN)."""

    peak: np.ndarray  # [C, P] op/s, NaN where the precision is absent
    peak_fraction: np.ndarray  # [C, P] achievable (measured ÷ peak, or derated) fraction, else 1
    bandwidth: np.ndarray  # [C, L] B/s
    write_bandwidth: np.ndarray  # [C, L] B/s (= bandwidth where not stated)
    bandwidth_fraction: np.ndarray  # [C, L]
    role: np.ndarray  # [C, L] role index, -1 for padding
    dram_level: np.ndarray  # [C] index of the first dram level
    #: [C, P] the precision whose ceiling stands in where the chip lacks this one (same width,
    #: units.SAME_WIDTH), else -1; all -1 unless built with ``same_width``
    stand_in: np.ndarray | None = None
    same_width: bool = False  # built with same-width stand-ins (what a variant is evaluated with)

    @classmethod
    def from_chips(cls, chips: Sequence[Chip], same_width: bool = False) -> ChipArrays:
        """The chips as arrays. ``same_width``: a precision a chip lacks takes the ceiling of its
        own precision of the same width (bf16 for fp16, fp8 for int8, and back)."""
        n = len(chips)
        depth = max((len(c.memory) for c in chips), default=1)
        peak = np.full((n, len(PRECISIONS)), np.nan)
        peak_fraction = np.ones((n, len(PRECISIONS)))
        bw = np.full((n, depth), np.nan)
        wbw = np.full((n, depth), np.nan)
        frac = np.ones((n, depth))
        role = np.full((n, depth), -1, dtype=np.intp)
        dram = np.zeros(n, dtype=np.intp)
        for i, chip in enumerate(chips):
            for prec, value in chip.compute.items():
                peak[i, PRECISION_INDEX[prec]] = value
            for prec in {*chip.compute_achievable, *chip.compute_measured}:
                if prec in chip.compute:
                    peak_fraction[i, PRECISION_INDEX[prec]] = chip.applied_compute_fraction(prec)
            for j, level in enumerate(chip.memory):
                bw[i, j] = level.bandwidth
                wbw[i, j] = level.write_bandwidth or level.bandwidth
                frac[i, j] = level.applied_fraction
                role[i, j] = ROLE_INDEX[level.role]
            dram[i] = next((j for j, lv in enumerate(chip.memory) if lv.role == "dram"), 0)
        stand_in = np.full((n, len(PRECISIONS)), -1, dtype=np.intp)
        # A narrow float a chip lacks runs at the next wider one it has (always); with
        # ``same_width``, also a precision of the same width (bf16 for fp16, fp8 for int8).
        table = {**(SAME_WIDTH if same_width else {}), **WIDER}
        for p, others in table.items():
            j = PRECISION_INDEX[p]
            for other in others:
                s = PRECISION_INDEX[other]
                use = np.isnan(peak[:, j]) & ~np.isnan(peak[:, s]) & (stand_in[:, j] < 0)
                stand_in[use, j] = s
        rows, cols = np.nonzero(stand_in >= 0)
        peak[rows, cols] = peak[rows, stand_in[rows, cols]]
        peak_fraction[rows, cols] = peak_fraction[rows, stand_in[rows, cols]]
        return cls(peak, peak_fraction, bw, wbw, frac, role, dram, stand_in, same_width)

    def ceiling(self, derated: bool) -> np.ndarray:
        """[C, P] the compute ceilings applied: peak, × its achievable fraction when derated."""
        return self.peak * self.peak_fraction if derated else self.peak

    def read_bandwidth(self, derated: bool) -> np.ndarray:
        """[C, L] the read bandwidths applied: bandwidth, × its achievable fraction when derated."""
        return self.bandwidth * self.bandwidth_fraction if derated else self.bandwidth

    def write_bandwidth_applied(self, derated: bool) -> np.ndarray:
        """[C, L] the write bandwidths applied (the read bandwidth where none is stated)."""
        return self.write_bandwidth * self.bandwidth_fraction if derated else self.write_bandwidth

    def dram_bandwidth(self, derated: bool) -> np.ndarray:
        """[C] each chip's main-memory read bandwidth applied."""
        return self.read_bandwidth(derated)[np.arange(len(self.dram_level)), self.dram_level]

    def take(self, columns: Sequence[int]) -> ChipArrays:
        """The chips at ``columns`` alone."""
        index = np.asarray(columns, dtype=np.intp)
        return ChipArrays(*(getattr(self, f)[index] for f in (
            "peak", "peak_fraction", "bandwidth", "write_bandwidth", "bandwidth_fraction", "role",
            "dram_level")), None if self.stand_in is None else self.stand_in[index],
            self.same_width)

    def stand_in_for(self, c: int, precision_index: int) -> int:
        """The precision index standing in for ``precision_index`` on chip ``c``, or -1."""
        return -1 if self.stand_in is None else int(self.stand_in[c, precision_index])


class Evaluation:
    """Results of :func:`evaluate`, each [K, C] unless stated; NaN marks unsupported pairs.

    The arrays needed to draw (attainable, bound, limiter) are computed eagerly; the others are
    derived on first use, so a redraw never pays for columns it does not show.
    """

    def __init__(self, ka: KernelArrays, ca: ChipArrays, derated: bool,
                 compute_time: np.ndarray, memory_time: np.ndarray, limiter: np.ndarray) -> None:
        self.kernel_arrays, self.chip_arrays, self.derated = ka, ca, derated
        self.compute_time = compute_time  # s; NaN where unsupported
        self.memory_time = memory_time  # s; the slowest level's time, -inf where none applies
        memory_wins = memory_time > compute_time  # a tie counts as compute-bound
        #: level index of the limiting memory level, LIMITER_COMPUTE or LIMITER_UNSUPPORTED
        self.limiter = np.where(memory_wins, limiter, np.int8(LIMITER_COMPUTE))
        self.time_lower = np.maximum(compute_time, memory_time)  # NaN where unsupported
        np.copyto(self.limiter, LIMITER_UNSUPPORTED, where=np.isnan(self.time_lower))
        self.attainable = ka.ops[:, None] / self.time_lower

    #: Columns a patched evaluation copies at once: what the chart draws on every drag step.
    _EAGER = ("limiter", "attainable")
    #: Columns it patches only when first read (2.4 MB each at 10,000 x 30, about 0.6 ms a copy):
    #: a drag step reads none of them, the explanation asks :meth:`pair` instead.
    _LAZY = ("compute_time", "memory_time", "time_lower")

    def patched(self, rows: Sequence[int], ka: KernelArrays, sub: Evaluation) -> Evaluation:
        """This evaluation with ``rows`` replaced by ``sub`` (those kernels evaluated alone on
        the same chips); ``ka`` holds every kernel's arrays after the change.

        The lazy columns are kept as the first fully computed evaluation (the root) and the list
        of row patches since, applied in order when one is read: a drag of a hundred steps holds
        the root and a hundred one-row patches, never a hundred copies."""
        index = np.asarray(rows, dtype=np.intp)
        out = Evaluation.__new__(Evaluation)
        out.kernel_arrays, out.chip_arrays, out.derated = ka, self.chip_arrays, self.derated
        for name in self._EAGER:
            array = getattr(self, name).copy()
            array[index] = getattr(sub, name)
            setattr(out, name, array)
        root, patches = self.__dict__.get("_root"), self.__dict__.get("_patches", ())
        if root is None or any(name in self.__dict__ for name in self._LAZY):
            root, patches = self, ()
        out._root, out._patches = root, (*patches, (index, sub))
        return out

    def _patched_column(self, name: str) -> np.ndarray:
        array = getattr(self._root, name).copy()
        for index, sub in self._patches:
            array[index] = getattr(sub, name)
        return array

    @cached_property
    def compute_time(self) -> np.ndarray:
        """s; NaN where unsupported (set by ``__init__``, patched on first read otherwise)."""
        return self._patched_column("compute_time")

    @cached_property
    def memory_time(self) -> np.ndarray:
        """s; the slowest level's time, -inf where none applies."""
        return self._patched_column("memory_time")

    @cached_property
    def time_lower(self) -> np.ndarray:
        """s; the lower time bound, NaN where unsupported."""
        return self._patched_column("time_lower")

    def cell(self, name: str, k: int, c: int) -> float:
        """Kernel ``k`` on chip ``c``'s value of the [K, C] column ``name``, without computing or
        patching the whole column: the table and the explanation read a few cells on every drag
        step, and each whole derived column is 2.4 MB at 10,000 x 30 (docs/performance.md)."""
        if name in self.__dict__:
            return float(self.__dict__[name][k, c])
        if name in self._LAZY:  # a patched evaluation: the last patch that holds row k, or the root
            for index, sub in reversed(self._patches):
                hit = np.flatnonzero(index == k)
                if hit.size:
                    return sub.cell(name, int(hit[-1]), c)
            return self._root.cell(name, k, c)
        precision = self.kernel_arrays.precision[k]
        if name == "peak":
            return float(self.chip_arrays.peak[c, precision])
        if name == "ceiling":
            return float(self.chip_arrays.ceiling(self.derated)[c, precision])
        if name == "time":
            return self.cell("time_lower", k, c) if self.kernel_arrays.sized[k] else float("nan")
        if name == "ridge_dram":
            return self.cell("ceiling", k, c) / float(self.chip_arrays.dram_bandwidth(self.derated)[c])
        if name == "percent_of_peak":
            return self.cell("attainable", k, c) / self.cell("peak", k, c) * 100.0
        if name == "bound":
            code = int(self.limiter[k, c])
            return float(BOUND_COMPUTE if code == LIMITER_COMPUTE else
                         BOUND_UNSUPPORTED if code == LIMITER_UNSUPPORTED else BOUND_MEMORY)
        return float(getattr(self, name)[k, c])

    def pair(self, k: int, c: int) -> Evaluation:
        """Kernel ``k`` on chip ``c`` alone, as a 1 × 1 evaluation: the derived columns of one
        pair without computing them for every pair (an explanation of one of 300,000)."""
        return evaluate(self.kernel_arrays.take([k]), self.chip_arrays.take([c]),
                        derated=self.derated)

    @cached_property
    def peak(self) -> np.ndarray:
        """Op/s at each kernel's precision (nominal, not derated); NaN where unsupported."""
        return self.chip_arrays.peak.T[self.kernel_arrays.precision]

    @cached_property
    def bound(self) -> np.ndarray:
        """BOUND_MEMORY, BOUND_COMPUTE or BOUND_UNSUPPORTED, from the limiter."""
        out = np.full(self.limiter.shape, BOUND_MEMORY, dtype=np.int8)
        out[self.limiter == LIMITER_COMPUTE] = BOUND_COMPUTE
        out[self.limiter == LIMITER_UNSUPPORTED] = BOUND_UNSUPPORTED
        return out

    @cached_property
    def time_upper(self) -> np.ndarray:
        """Sum of the ceilings' times: no overlap of compute and memory traffic at all."""
        total = self.compute_time.copy()
        for _, t in _level_times(self.kernel_arrays, self.chip_arrays, self.derated):
            total += np.nan_to_num(t)
        return total

    @cached_property
    def time(self) -> np.ndarray:
        """The lower time bound where the kernel has a size, else NaN."""
        return np.where(self.kernel_arrays.sized[:, None], self.time_lower, np.nan)

    @cached_property
    def ceiling(self) -> np.ndarray:
        """Op/s of the compute roof applied at each kernel's precision: the peak, derated when the
        evaluation is (the flat roof the chart draws and the kernel runs against)."""
        return self.chip_arrays.ceiling(self.derated).T[self.kernel_arrays.precision]

    @cached_property
    def ridge_dram(self) -> np.ndarray:
        """Ridge point (op/B) at each chip's dram level for each kernel's precision: the ceiling
        applied ÷ the dram bandwidth applied (both derated when the evaluation is)."""
        return self.ceiling / self.chip_arrays.dram_bandwidth(self.derated)[None, :]

    def level_times(self, k: int, c: int) -> list[tuple[int, float]]:
        """(memory level, seconds) for kernel ``k`` on chip ``c``: reads at the read bandwidth
        plus writes at the write bandwidth, derated when the evaluation is; the levels the
        kernel moves bytes through, in the chip's order."""
        pair = (self.kernel_arrays.take([k]), self.chip_arrays.take([c]))
        return [(level, float(t[0, 0])) for level, t in _level_times(*pair, self.derated)
                if np.isfinite(t[0, 0])]

    @cached_property
    def percent_of_peak(self) -> np.ndarray:
        return self.attainable / self.peak * 100.0

    @cached_property
    def intensity(self) -> np.ndarray:
        """[K, roles] op/B."""
        return self.kernel_arrays.intensity()


def _level_times(ka: KernelArrays, ca: ChipArrays, derated: bool):
    """Yield (level index, [K, C] seconds at that level), NaN where the level does not apply.

    The loop runs over memory levels and roles (a handful), never over pairs: each level's time
    for all pairs is two outer products, reads ⊗ 1/bandwidth + writes ⊗ 1/write_bandwidth.
    """
    read_bw, write_bw = ca.read_bandwidth(derated), ca.write_bandwidth_applied(derated)
    reads = ka.bytes - ka.writes  # NaN where the kernel has no bytes at a role
    for level in range(ca.role.shape[1]):
        role = ca.role[:, level]
        # sorted(set()) rather than np.unique, which imports numpy.ma (docs/performance.md)
        for r in sorted(set(role[role >= 0].tolist())):
            if not np.isfinite(reads[:, r]).any():
                continue
            chips = role == r
            with np.errstate(divide="ignore"):
                inv_read = np.where(chips, 1.0 / read_bw[:, level], np.nan)
                inv_write = np.where(chips, 1.0 / write_bw[:, level], np.nan)
            t = np.multiply.outer(reads[:, r], inv_read)
            if ka.writes[:, r].any():
                t += np.multiply.outer(ka.writes[:, r], inv_write)
            yield level, t


def evaluate(ka: KernelArrays, ca: ChipArrays, *, derated: bool = False) -> Evaluation:
    """Evaluate every kernel on every chip. ``derated`` applies the achievable fractions."""
    inv_peak = 1.0 / ca.ceiling(derated)  # NaN stays NaN: unsupported
    compute_time = ka.ops[:, None] * inv_peak.T[ka.precision]
    memory_time = np.full(compute_time.shape, -np.inf)
    limiter = np.zeros(compute_time.shape, dtype=np.int8)
    for level, t in _level_times(ka, ca, derated):
        np.copyto(limiter, np.int8(level), where=t > memory_time)
        np.fmax(memory_time, t, out=memory_time)
    return Evaluation(ka, ca, derated, compute_time, memory_time, limiter)


def attainable_curve(peak: float, bandwidth: float, intensity: np.ndarray) -> np.ndarray:
    """The roof itself: min(peak, intensity × bandwidth), for drawing and for checks."""
    return np.minimum(peak, np.asarray(intensity, dtype=float) * bandwidth)
