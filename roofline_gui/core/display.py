"""What the views show, in the units they show it: the one place a number is scaled for display
and the chart's geometry is computed (Qt-free).

Every view (chart, table, explanation, status bar, exports) takes its numbers from a
:class:`~roofline_gui.core.comparison.Comparison` through :class:`Units` and
:func:`chart_spec`, so they agree in every mode:

- **Count MACs** divides every rate and every intensity by ``OPS_PER_MAC`` (1 MAC = 2 ops). A
  roof keeps its bandwidth: attainable/2 = min(peak/2, (intensity/2) × bandwidth), so in MAC
  units the diagonal is still y = bandwidth × x and the ridge moves to peak/2 ÷ bandwidth.
- **Derated** (View → Achievable roofs) applies each ceiling's measured value where it has one,
  else its achievable fraction; the evaluation carries it (``Evaluation.ceiling``,
  ``ChipArrays.read_bandwidth``) and everything here reads those. The chart then also lists the
  datasheet roofs that differ (``ChartSpec.datasheet_roofs``), drawn dashed beside them.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from roofline_gui.core.arrays import among
from roofline_gui.core.comparison import Comparison
from roofline_gui.core.i18n import N_
from roofline_gui.core.levels import misfits
from roofline_gui.core.units import MEMORY_ROLES, PRECISIONS, ROLE_INDEX, Units

DRAM = ROLE_INDEX["dram"]

X_SPAN = (1e-3, 1e6)  # op/B: roofs are drawn across this, wider than any view


@dataclass(frozen=True)
class View:
    """How the session is looked at (not saved in it): one value, held by the document model,
    kept in the settings, observed by every view."""

    mode: str = "overlay"  # or "side_by_side", or "energy" (the energy chart in the chart's place)
    mac: bool = False  # Count MACs
    derated: bool = False  # each ceiling's achievable fraction applied
    kernel_labels: bool = True  # kernels' names on the chart
    memory_levels: bool = False  # a point per memory level (the hierarchical roofline)
    same_width: bool = False  # a chip lacking a precision runs at its own of the same width
    #: intensity read as bytes per op (B/F, as Japanese HPC courses read it): the chart's x axis
    #: labelled 1/intensity, the table's intensity column and the explanation's ridge in B/F
    bytes_per_op: bool = False

    MODES = ("overlay", "side_by_side", "energy")

    @property
    def units(self) -> Units:
        return Units(mac=self.mac, bytes_per_op=self.bytes_per_op)


@dataclass(frozen=True)
class Roof:
    """One chip's compute roof at one precision, on its main-memory diagonal (shown units)."""

    chip: int  # index into the comparison's chips
    precision: str
    peak: float  # shown rate of the flat part (derated when the comparison is)
    ridge: float  # shown intensity where the diagonal meets the flat part
    bandwidth: float  # B/s of the diagonal (dram, derated when the comparison is)
    kind: str = "datasheet"  # the compute roof's provenance: datasheet, measured or derated

    def points(self, x_lo: float = X_SPAN[0], x_hi: float = X_SPAN[1]) -> tuple[np.ndarray, np.ndarray]:
        """The roof's polyline: (x, y) at x_lo, the ridge and x_hi, in shown units."""
        xs = np.array([x_lo, self.ridge, x_hi])
        return xs, np.minimum(self.peak, xs * self.bandwidth)


@dataclass(frozen=True)
class Diagonal:
    """A memory level's bandwidth diagonal (shown units), up to the chip's highest roof."""

    chip: int
    level: int  # index into the chip's memory levels
    name: str
    role: str
    bandwidth: float  # B/s applied
    top: float  # shown rate where it stops
    used: bool  # some kernel moves bytes at this level's role

    def points(self, x_lo: float = X_SPAN[0]) -> tuple[np.ndarray, np.ndarray]:
        xs = np.array([x_lo, self.top / self.bandwidth])
        return xs, xs * self.bandwidth


@dataclass(frozen=True)
class ChartSpec:
    """Everything a roofline chart draws for some chips, in shown units."""

    units: Units
    roofs: tuple[Roof, ...]
    diagonals: tuple[Diagonal, ...]
    #: with achievable roofs: the datasheet roof (peak on the datasheet dram diagonal) of each
    #: shown roof whose peak or diagonal the measurement or the derating moved
    datasheet_roofs: tuple[Roof, ...]
    #: chips drawn with none of the kernels' precisions (their roofs dashed); never a chip of a
    #: chart with no kernel and no workload, whose roofs are shown plainly
    off_precision: frozenset[int]
    marker_x: np.ndarray  # [K] shown intensity (main memory) of each kernel
    marker_y: np.ndarray  # [K, C] shown attainable rate; NaN where unsupported
    roofs_from: tuple = field(default=(), compare=False, repr=False)  # what the roofs came from
    #: with View → Memory levels: a point per memory level of each kernel that moves bytes
    #: through more than one; without: the points of the kernels another level than main
    #: memory holds, at that level and at main memory (level_marks' held_only)
    levels: LevelMarks | None = field(default=None, compare=False)
    held_only: bool = False  # ``levels`` are the held kernels' only (View → Memory levels off)
    #: (kernel, chip) pairs whose operands kept on chip do not fit there (core.levels.misfits):
    #: their markers are drawn hollow
    misfits: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.intp),
                                compare=False)
    #: what ``levels`` were worked out from: (the comparison, by weak reference, units, chips)
    levels_from: tuple = field(default=(), compare=False, repr=False)

    def roofs_of(self, chip: int) -> list[Roof]:
        return [r for r in self.roofs if r.chip == chip]

    @functools.cached_property
    def at_limit(self) -> np.ndarray:
        """[K, C] each kernel's shown intensity at the point that says its limit on each chip
        (LevelMarks.at_limit): main memory's, its marker's, where no other level's is drawn.
        Worked out once per spec (the ring, the names and the labels' obstacles all read it)."""
        n = self.marker_y.shape[1] if self.marker_y.ndim == 2 else 0
        if self.levels is None or not len(self.levels):
            return np.repeat(np.asarray(self.marker_x, dtype=float)[:, None], n, axis=1)
        return self.levels.at_limit(self.marker_x, n)


@dataclass(frozen=True)
class LevelMarks:
    """The hierarchical roofline's points (as Nsight Compute and Intel Advisor draw them): for
    each kernel that moves bytes through more than one memory level of a shown chip, a point at
    each level's intensity, all at the kernel's attainable rate, the limiting level's filled (it
    lies on that level's roof), the others hollow; one row per point, in shown units."""

    kernel: np.ndarray  # [N] kernel row
    chip: np.ndarray  # [N] chip index
    role: np.ndarray  # [N] memory role index (one point per role: levels of a role share bytes)
    x: np.ndarray  # [N] shown intensity at that level
    y: np.ndarray  # [N] shown attainable rate of the kernel on that chip
    filled: np.ndarray  # [N] bool: this level limits the kernel on this chip

    def __len__(self) -> int:
        return len(self.x)

    def at_limit(self, marker_x: np.ndarray, n_chips: int) -> np.ndarray:
        """[K, C] each kernel's shown intensity where its mark says its limit: its filled
        point's level where it has one here, else main memory's (``marker_x``, its marker).
        The selection's ring and the kernel's name go there (on the hollow main-memory point
        of a GEMM fed over PCIe, they had marked the point that does not limit it: the tour)."""
        out = np.repeat(np.asarray(marker_x, dtype=float)[:, None], n_chips, axis=1)
        f = self.filled
        out[self.kernel[f], self.chip[f]] = self.x[f]
        return out


def level_marks(comparison: Comparison, units: Units, chips: list[int],
                kernels: np.ndarray | None = None, held_only: bool = False) -> LevelMarks:
    """The per-level points of every kernel on ``chips`` (LevelMarks), or of the kernels at
    rows ``kernels`` alone. ``held_only`` (Memory levels off): only the kernels another level
    than main memory holds (a GEMM fed over PCIe), with two points each, that level's (on its
    line) and main memory's (the kernel's marker): drawn at main memory's intensity alone, the
    marker sat below every roof (the tour)."""
    ka, ca, r = comparison.kernel_arrays, comparison.chip_arrays, comparison.result
    pick = slice(None) if kernels is None else kernels
    with np.errstate(divide="ignore", invalid="ignore"):
        moved = np.isfinite(ka.bytes[pick]) & (ka.bytes[pick] > 0)  # [K, R]
        intensity = ka.intensity()[pick]
    index = np.arange(len(ka.bytes))[pick]
    attainable, limiter = r.attainable[pick], r.limiter[pick]
    parts = []
    for c in chips:
        has = np.zeros(len(MEMORY_ROLES), dtype=bool)
        has[ca.role[c][ca.role[c] >= 0]] = True
        here = moved & has[None, :] & np.isfinite(attainable[:, c])[:, None]
        rows = np.flatnonzero(here.sum(axis=1) >= 2)
        lim = limiter[rows, c].astype(np.intp)
        lim_role = np.where(lim >= 0, ca.role[c][np.maximum(lim, 0)], -1)
        if held_only:
            keep = (lim_role >= 0) & (lim_role != DRAM)
            rows, lim_role = rows[keep], lim_role[keep]
        if not len(rows):
            continue
        shown = here[rows]
        if held_only:  # the holding level and main memory
            roles = np.arange(len(MEMORY_ROLES))[None, :]
            shown = shown & ((roles == lim_role[:, None]) | (roles == DRAM))
        k_idx, role_idx = np.nonzero(shown)
        k = rows[k_idx]
        parts.append((index[k], np.full(len(k), c), role_idx, intensity[k, role_idx],
                      attainable[k, c], lim_role[k_idx] == role_idx))
    if not parts:
        empty = np.zeros(0)
        return LevelMarks(empty.astype(np.intp), empty.astype(np.intp), empty.astype(np.intp),
                          empty, empty, empty.astype(bool))
    k, chip, role, x, y, filled = (np.concatenate(a) for a in zip(*parts, strict=True))
    return LevelMarks(k, chip, role, units.intensity(x), units.rate(y), filled)


def level_points_toggled(comparison: Comparison, chips: list[int]) -> int:
    """How many points View → Memory levels adds on ``chips``: each kernel's at the levels it
    moves bytes through besides main memory and its limit (none in a session whose kernels use
    no other level: the switch then changes nothing, and says so)."""
    return (len(level_marks(comparison, Units(), chips).x)
            - len(level_marks(comparison, Units(), chips, held_only=True).x))


def _patched_level_marks(comparison: Comparison, units: Units, chips: list[int],
                         reuse: ChartSpec | None, held_only: bool = False
                         ) -> tuple[LevelMarks, tuple]:
    """level_marks, and what they came from. Where ``comparison`` patched a few rows of the one
    ``reuse``'s points came from (a drag step: one kernel of 10,000), the other kernels' points
    are kept and only those rows' are worked out again (10 ms a step at 10,000 x 30 before)."""
    key = (weakref.ref(comparison), units, tuple(chips), held_only)
    base = comparison.patched_from
    if (reuse is not None and reuse.levels is not None and base is not None and reuse.levels_from
            and reuse.levels_from[0]() is base[0]() is not None and reuse.levels_from[1:] == key[1:]):
        rows = np.asarray(base[1], dtype=np.intp)
        old = reuse.levels
        keep = ~among(old.kernel, rows)
        new = level_marks(comparison, units, chips, rows, held_only)
        return LevelMarks(*(np.concatenate([a[keep], b]) for a, b in zip(
            (old.kernel, old.chip, old.role, old.x, old.y, old.filled),
            (new.kernel, new.chip, new.role, new.x, new.y, new.filled), strict=True))), key
    return level_marks(comparison, units, chips, held_only=held_only), key


def shown_precisions(comparison: Comparison, override: tuple[str, ...] | None = None,
                     also: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The precisions whose roofs are drawn: ``override``, else those the kernels use and
    ``also`` (the workloads' math precisions); none with nothing to place: each chip's every
    precision then (a new session's H100 had shown its fp32 roof alone, 67 Top/s of its 989
    in bf16: the 41st tour)."""
    if override is not None:
        return override
    used = np.bincount(comparison.kernel_arrays.precision, minlength=len(PRECISIONS))
    return tuple(p for p, n in zip(PRECISIONS, used, strict=False) if n or p in also)


def chart_spec(comparison: Comparison, units: Units, chips: list[int] | None = None,
               precisions: tuple[str, ...] | None = None,
               hidden_levels: frozenset[str] = frozenset(),
               also: tuple[str, ...] = (), reuse: ChartSpec | None = None,
               levels: bool = False) -> ChartSpec:
    """The chart of ``comparison`` for the chips at ``chips`` (default: all): each chip's roof
    per shown precision it has (else every precision it has), its other memory levels'
    diagonals, and every kernel's marker on every chip, all from the comparison's evaluation.

    ``reuse``: an earlier spec whose roofs are taken as they are when everything they depend
    on is the same (the same chips' arrays, which the evaluator keeps while the chips are the
    same objects, and the same options, units and kernels' precisions and levels): a kernel's
    drag step then rebuilds its markers only."""
    r, ca = comparison.result, comparison.chip_arrays
    chips = list(range(len(comparison.chips))) if chips is None else chips
    wanted = shown_precisions(comparison, precisions, also)
    moved = np.isfinite(comparison.kernel_arrays.bytes).any(axis=0)
    used_roles = frozenset(role for role, i in ROLE_INDEX.items() if moved[i])
    something = len(comparison.kernels) > 0 or bool(also) or precisions is not None
    key = (ca, r.derated, tuple(chips), units, hidden_levels, wanted, used_roles, something)
    markers = (units.intensity(comparison.dram_intensity), units.rate(r.attainable))
    per_level, levels_from = _patched_level_marks(comparison, units, chips, reuse,
                                                  held_only=not levels)
    misfit = misfits(comparison, chips)
    if reuse is not None and _same_inputs(reuse.roofs_from, key):
        return replace(reuse, marker_x=markers[0], marker_y=markers[1], levels=per_level,
                       held_only=not levels, misfits=misfit, levels_from=levels_from)
    return ChartSpec(units, *_roofs(comparison, units, chips, wanted, used_roles, hidden_levels,
                                    something), *markers, roofs_from=key, levels=per_level,
                     held_only=not levels, misfits=misfit, levels_from=levels_from)


def _same_inputs(a: tuple, b: tuple) -> bool:
    """Whether two chart_spec roof keys are the same: the chip arrays by identity (numpy
    arrays have no single truth value), the rest by value."""
    return bool(a) and a[0] is b[0] and a[1:] == b[1:]


def _roofs(comparison: Comparison, units: Units, chips: list[int], wanted: tuple[str, ...],
           used_roles: frozenset[str], hidden_levels: frozenset[str], something: bool):
    """(roofs, diagonals, datasheet roofs, chips off the kernels' precisions) of chart_spec."""
    r, ca = comparison.result, comparison.chip_arrays
    ceiling = ca.ceiling(r.derated)
    read_bw = ca.read_bandwidth(r.derated)
    dram_bw = ca.dram_bandwidth(r.derated)
    nominal_dram = ca.dram_bandwidth(False)
    datasheet: list[Roof] = []
    roofs, diagonals = [], []
    off_precision = set()
    for c in chips:
        chip = comparison.chips[c]
        # a precision the chip lacks is drawn as the one standing in for it (same width)
        have = list(dict.fromkeys(
            p if p in chip.compute else PRECISIONS[ca.stand_in_for(c, PRECISIONS.index(p))]
            for p in wanted if p in chip.compute or ca.stand_in_for(c, PRECISIONS.index(p)) >= 0))
        if not have:
            have = list(chip.precisions)
            if something:
                off_precision.add(c)
        peaks = {p: float(ceiling[c, PRECISIONS.index(p)]) for p in have}
        for p, peak in sorted(peaks.items(), key=lambda kv: -kv[1]):
            kind = chip.compute_provenance(p, r.derated).kind
            roofs.append(Roof(c, p, float(units.rate(peak)),
                              float(units.intensity(peak / dram_bw[c])), float(dram_bw[c]), kind))
            nominal, nominal_bw = float(ca.peak[c, PRECISIONS.index(p)]), float(nominal_dram[c])
            # a what-if roof keeps its datasheet figure: drawn as the ghost it moved from
            sheet = chip.compute_what_if_of.get(p, nominal)
            sheet_bw = chip.dram.what_if_of or nominal_bw
            if (r.derated and (nominal != peak or nominal_bw != dram_bw[c])) or (
                    (sheet, sheet_bw) != (nominal, nominal_bw)):
                datasheet.append(Roof(c, p, float(units.rate(sheet)),
                                      float(units.intensity(sheet / sheet_bw)), sheet_bw))
        top = units.rate(max(peaks.values(), default=0.0))
        for j, level in enumerate(chip.memory):
            if level.role == "dram" or level.role in hidden_levels:
                continue
            diagonals.append(Diagonal(c, j, level.name, level.role, float(read_bw[c, j]), float(top),
                                      level.role in used_roles))
    return tuple(roofs), tuple(diagonals), tuple(datasheet), frozenset(off_precision)


# -- kernel labels ---------------------------------------------------------------------------------
#: Where a kernel's label may go around its marker, in order of preference: (offset in pixels
#: from the marker's centre, the text's anchor): right, left, above, below, then the four
#: corners (in a small chart, with the other chips' markers beside each one, the sides are
#: often taken).
LABEL_SPOTS = (((8.0, 0.0), (0.0, 0.5)), ((-8.0, 0.0), (1.0, 0.5)),
               ((0.0, -8.0), (0.5, 1.0)), ((0.0, 8.0), (0.5, 0.0)),
               ((6.0, -6.0), (0.0, 1.0)), ((6.0, 6.0), (0.0, 0.0)),
               ((-6.0, -6.0), (1.0, 1.0)), ((-6.0, 6.0), (1.0, 0.0)))
#: The same spots round a ringed marker (the selected kernel's: its ring is 22 px across with a
#: 3 px pen on the selected chip, 12.5 px to its outer edge, 18 px with 1 px on the others): at
#: LABEL_SPOTS its tag touched the ring (the 42nd tour), at 14 and 10 px a corner's tag came
#: within 2 px of it (the 43rd); a box's side 15 px out, its corner 12 px each way (17 px)
RING_LABEL_SPOTS = tuple(((dx * 15.0 / 8.0, dy * 15.0 / 8.0) if dx == 0 or dy == 0
                          else (dx * 2.0, dy * 2.0), anchor)
                         for (dx, dy), anchor in LABEL_SPOTS)


#: px between two kernels' markers that read as one spot (their 10 px shapes mostly overlap):
#: a name beside them names both (chart_labels._stacked_tags joins their tags, "4/5")
STACKED_PX = 6.0
#: px: a name is ambiguous where another kernel's marker is less than this further from its
#: box than its own marker is (a tag "7" under kernel 2's circle, "1" beside the V100's marker,
#: read as theirs: the fourteenth to sixteenth tours); its own is 8 px away at the near spots
AMBIGUOUS_PX = 6.0


#: Spots further from a marker, tried where none of LABEL_SPOTS is clear of the roofs (crowded
#: charts): at these a thin stem joins the name to its marker. Nearest first; eight directions,
#: the text's near edge (or corner) facing the marker.
_DIRECTIONS = (((1.0, 0.0), (0.0, 0.5)), ((-1.0, 0.0), (1.0, 0.5)), ((0.0, -1.0), (0.5, 1.0)),
               ((0.0, 1.0), (0.5, 0.0)), ((0.7, -0.7), (0.0, 1.0)), ((0.7, 0.7), (0.0, 0.0)),
               ((-0.7, -0.7), (1.0, 1.0)), ((-0.7, 0.7), (1.0, 0.0)))
FAR_LABEL_SPOTS = tuple(((r * dx, r * dy), anchor) for r in (26.0, 44.0, 66.0)
                        for (dx, dy), anchor in _DIRECTIONS)


#: px from a marker's centre to just outside it (its shape is 10 px across): a stem crossing a
#: line within this starts on the marker's own roof, which is no crossing
MARKER_HALF_PX = 6.0
#: A stem keeps this far (pixels) from any name's box: one that passed a pixel from "GEMM…"
#: read as that name's (the third tour); the box as measured and the text as drawn differ so
STEM_CLEAR = np.array([-4.0, -3.0, 4.0, 3.0])
# px a name keeps from a roof: a box just touching the line read as written on it (the fourth
# tour's "4b · TPU v1 MLP…" on the bf16 roof)
LINE_CLEAR = np.array([-2.0, -2.0, 2.0, 2.0])
#: px a name keeps from any other text's box (names, tags, roof labels): the tag "8" set just
#: under the name "MLP layer…, batch 8 (bf16)" read as part of it (the nineteenth tour)
LABEL_GAP = np.array([-3.0, -3.0, 3.0, 3.0])


#: Spots for a workload's label around its (bigger) point: the kernel spots further out, then
#: the four corners; clear of the ring a selected workload's point takes (30 px across, a 3 px
#: pen), which a label 13 px off its point cut (the 35th tour)
WORKLOAD_LABEL_SPOTS = (((17.0, 0.0), (0.0, 0.5)), ((-17.0, 0.0), (1.0, 0.5)),
                        ((0.0, -17.0), (0.5, 1.0)), ((0.0, 17.0), (0.5, 0.0)),
                        ((13.0, 13.0), (0.0, 0.0)), ((-13.0, 13.0), (1.0, 0.0)),
                        ((13.0, -13.0), (0.0, 1.0)), ((-13.0, -13.0), (1.0, 1.0)))


@dataclass(frozen=True)
class KernelLabel:
    """A kernel's name, placed beside its highest marker."""

    kernel: int  # index into the comparison's kernels
    text: str
    x: float  # log10 shown intensity of the marker it names
    y: float  # log10 shown rate of that marker
    offset: tuple[float, float]  # pixels from the marker (y down)
    anchor: tuple[float, float]  # of the text box: (0, 0.5) is its left middle
    stem: bool = False  # set off at a far spot: a thin line joins it to its marker


def short_names(names: list[str], limit: int = 28) -> list[str]:
    """short_name of each, told apart: names whose first words are the same as another's ("1 ·
    out = a + b, all in HBM (int8)" and "2 · out = a + b, a and b kept on chip (int8)" had read
    "1 · out = a… (int8)" and "2 · out = a… (int8)": the tour) leave those words out where the
    shortened name would show none past them, "1 · …all in… (int8)" (a numbering before " · "
    is kept); names the same apart from their last words keep those instead ("MLP layer… batch
    1 (bf16)" / "… batch 26 (bf16)")."""
    return list(_short_names(tuple(names), limit))


@functools.lru_cache(maxsize=64)
def _short_names(names: tuple[str, ...], limit: int) -> tuple[str, ...]:
    """short_names, kept for the same names (each placement of the labels asks twice; at 40
    kernels the pairs took 4 ms a call, at every drag step)."""
    parsed = [_numbering(n) for n in names]
    forms = [_told_apart(n, parsed[k], [p[1] for p in parsed], limit)
             for k, n in enumerate(names)]
    seen: dict[str, int] = {}
    for form in forms:
        seen[form] = seen.get(form, 0) + 1
    # Names that would read the same: their first word and last words ("MLP layer… batch 1
    # (bf16)"); where that leaves one with no word of its own ("Attention… 4 (bf16)" and
    # "Attention… (bf16)": the thirteenth tour) and they share their last parenthesis (the
    # precision, which then tells nothing), their first words without it ("Attention
    # decode…", "Attention prefill…").
    out = list(forms)
    for form in {f for f in forms if seen[f] > 1}:
        group = [k for k, f in enumerate(forms) if f == form and f != names[k]]
        chosen = [short_name(names[k], limit, words=False) for k in group]
        ends = {parsed[k][2] for k in group}
        if not _each_has_a_word(chosen) and len(ends) == 1 and ends != {""}:
            bare = [short_name(names[k][:len(names[k]) - len(parsed[k][2])].rstrip(), limit)
                    for k in group]
            if _each_has_a_word(bare):
                chosen = bare
        for k, c in zip(group, chosen, strict=True):
            out[k] = c
    return tuple(out)


def _each_has_a_word(forms: list[str]) -> bool:
    """Whether each of ``forms`` shows a word none of the others does (what tells it apart)."""
    words = [{w.strip("…,") for w in f.split()} - {""} for f in forms]
    return all(mine - set().union(*(w for j, w in enumerate(words) if j != i))
               for i, mine in enumerate(words))


def split_numbering(name: str) -> tuple[str, str]:
    """A name's numbering, as the article's kernels have ("4a · ", or ""), and the rest."""
    head, sep, rest = name.partition(" · ")
    return (head + sep, rest) if sep and len(head) <= 4 else ("", name)


def own_numbering(names) -> list[str] | None:
    """Each name's own numbering without its " · " ("1", "4a", "5, 6": the article's kernels),
    where every name has one and no two the same; else None."""
    tags = []
    for name in names:
        head = split_numbering(name)[0]
        if not head:
            return None
        tags.append(head.removesuffix(" · "))
    return tags if len(set(tags)) == len(tags) else None


def kernel_tags(names) -> list[str]:
    """What names each kernel where its name has no room on the chart: its own numbering
    where every name has one (own_numbering), else its place in the session, from 1, as the
    table's rows head it ("3 · GEMM 4096³ (bf16)"). Where only some names are numbered, or
    some alike, the numbers are kept: a repeat primed ("1′": a duplicated "1 · out = a + b"),
    a name without one by its place ("#9": a preset added to the article's kernels); falling
    back to places there had turned the article's "4a" into "5" (the 38th tour). Kept for the
    last few lists of names: a placement asks for one scene's tags in five places."""
    return list(_kernel_tags(tuple(names)))


@functools.lru_cache(maxsize=16)
def _kernel_tags(names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(_numbered_tags(list(names)) or [str(k + 1) for k in range(len(names))])


def _numbered_tags(names: list[str]) -> list[str] | None:
    """kernel_tags where some name has a numbering of its own, else None (found at C speed:
    a drag renames its kernel at every step, 10,000 names among them)."""
    if " · " not in "\n".join(names):
        return None
    own = own_numbering(names)
    if own is not None:
        return own
    heads = [split_numbering(name)[0].removesuffix(" · ") for name in names]
    if not any(heads):
        return None
    # a repeat's primes by its name, shortest first (the original, then "(copy)", "(copy 2)"),
    # not its place: a second copy, put under the original, had taken the first's "1′"
    # (the 39th tour)
    tags = [head or f"#{k + 1}" for k, head in enumerate(heads)]
    by_head: dict[str, list[int]] = {}
    for k, head in enumerate(heads):
        if head:
            by_head.setdefault(head, []).append(k)
    for rows in by_head.values():
        for n, k in enumerate(sorted(rows, key=lambda k: (len(names[k]), names[k], k))):
            tags[k] += "′" * n
    return tags


def headed_names(names) -> list[str] | None:
    """Each name headed by its tag (kernel_tags), as the table's rows and an export's key give
    it: a name with its own numbering as it is ("4a · TPU v1 CNN…"), a repeat's numbering
    primed ("1′ · out = a + b… (copy)"), any other after its tag ("#9 · GEMM 4096³ (bf16)").
    None where no name has a numbering of its own: each is then headed by its place ("3 ·
    GEMM 4096³ (bf16)"), made where it is shown."""
    names = list(names)
    tags = _numbered_tags(names)
    if tags is None:
        return None
    out = []
    for name, tag in zip(names, tags, strict=True):
        head, body = split_numbering(name)
        out.append(name if head and head.removesuffix(" · ") == tag else f"{tag} · {body}")
    return out


def _numbering(name: str) -> tuple[str, list[str], str]:
    """A name's numbering ("4a · ", or ""), the words of its body and its last parenthesis."""
    lead, body = split_numbering(name)
    at = max(body.rfind("("), body.rfind("（"))
    end = body[at:] if at > 0 and body.endswith((")", "）")) else ""
    return lead, body[:len(body) - len(end)].split(), end


def _told_apart(name: str, parsed: tuple[str, list[str], str], bodies: list[list[str]],
                limit: int) -> str:
    """short_name(name, limit), or, where it would show no word past those the name shares
    with another name (``bodies``) (at least two shared, and two or more left), the
    name from its first word that differs: its numbering (or its first word), "…" and that."""
    form = short_name(name, limit)
    if form == name:
        return form
    lead, words, end = parsed  # _numbering(name); ``bodies``: every name's words
    shared = 0
    for words2 in bodies:
        if words2 == words:  # itself, or the same but for its numbering or precision
            continue
        n = 0
        while n < min(len(words), len(words2)) and words[n] == words2[n]:
            n += 1
        shared = max(shared, n)
    if shared < 2 or len(words) - shared < 2:  # "…26 (bf16)" says too little: last words
        return form
    shown = form[len(lead):].partition("…")[0].split()
    if len(shown) > shared and shown[:shared + 1] == words[:shared + 1]:
        return form  # a word that differs is shown ("4a · TPU v1 CNN… (int8)"): as it is
    rest = " ".join(words[shared:]) + (" " if end[:1] == "(" else "") + end
    if not lead:  # unnumbered, its first word names it ("GEMM …bf16, inputs…")
        return words[0] + " …" + short_name(rest, limit - len(words[0]) - 2)
    # numbered, its first word too where the word that differs still shows whole ("1 · out
    # …all in HBM (int8)": "1 · …all in… (int8)" had said nothing of what kernel 1 is, the
    # twenty-second tour), as the table's row names keep it
    first = f"{lead}{words[0]} …"
    told = short_name(rest, limit - len(first))
    shown = told.partition("…")[0].split()  # of the words that tell it apart: two, or all
    if shown[:2] == words[shared:shared + 2] or shown == words[shared:]:
        return first + told
    return lead + "…" + short_name(rest, limit - len(lead) - 1)


def short_name(name: str, limit: int = 28, words: bool = True) -> str:
    """A kernel's name for a label on the chart, at most ``limit`` characters: its first words,
    "…" and its last parenthesis (the precision, "(int8)" or the Japanese "（int8）"), cut
    between words where it can ("4a · TPU v1 CNN… (int8)"; cut at characters, it had read
    "4b · TPU v…ip (int8)": the tours); with ``words`` False, its first word and as many last
    words as fit. Where the first word is too long to keep whole, its characters are cut."""
    if len(name) <= limit:
        return name
    if words:  # the end kept: a last parenthesis, where it is short
        at = max(name.rfind("("), name.rfind("（"))
        end = name[at:] if at > 0 and name.endswith((")", "）")) and \
            len(name) - at <= limit // 2 + 1 else ""  # "(bf16, batch 4)" in 28
        body = name[:len(name) - len(end)].rstrip()
    else:  # as many last words as the room beside the first holds ("… batch 26 (bf16)")
        parts, tail = name.split(), []
        while len(parts) > len(tail) + 1 and \
                len(" ".join(parts[-len(tail) - 1:])) <= limit - len(parts[0]) - 2:
            tail = parts[-len(tail) - 1:]
        end = " ".join(tail)
        body = " ".join(parts[:len(parts) - len(tail)])
    gap = " " if end[:1] not in ("", "（") else ""  # the full-width bracket takes no space
    room = limit - len(end) - len(gap) - 1  # "…" and the space before the end
    head: list[str] = []
    for word in body.split():
        if len(" ".join([*head, word])) > room:
            break
        head.append(word)
    start = " ".join(head).rstrip(",;:·-—、 ")
    if not start:  # a first word too long to keep whole (or a Japanese name's few spaces)
        start = body[:room].rstrip(",;:·-—、 ")
    return f"{start}…{gap}{end}"


#: A text's width in pixels: the font's own measure (the chart passes Qt's ``horizontalAdvance``),
#: or a number, the average character's width, for an estimate (len × it). The estimate runs
#: short for capitals and wide glyphs (up to 13 % on the chart's labels), and a label placed by
#: it at an edge of the view was cut there.
TextWidth = Callable[[str], float] | float


def text_width(text: str, text_px: TextWidth) -> float:
    """``text``'s width in pixels by ``text_px`` (see TextWidth)."""
    return text_px(text) if callable(text_px) else len(text) * text_px


def offset_label_box(label: KernelLabel, px_per_decade: tuple[float, float], text_px: TextWidth,
                     line_px: float) -> tuple[float, float, float, float]:
    """The box (pixels, x right, y down from log10 (0, 0)) of a label placed beside its marker,
    as place_kernel_labels worked it out."""
    w = text_width(label.text, text_px) + 4
    left = label.x * px_per_decade[0] + label.offset[0] - label.anchor[0] * w
    top = -label.y * px_per_decade[1] + label.offset[1] - label.anchor[1] * line_px
    return (left, top, left + w, top + line_px)


def place_kernel_labels(texts: list[str | tuple[str, ...]], xs: np.ndarray, ys: np.ndarray,
                        px_per_decade: tuple[float, float], text_px: TextWidth, line_px: float,
                        taken: list[tuple[float, float, float, float]],
                        others: tuple[np.ndarray, ...] | None = None,
                        bounds: tuple[float, float, float, float] | None = None,
                        spots=LABEL_SPOTS, lines: list[np.ndarray] | None = None,
                        far_spots=(), over_lines: bool = True, beside_others: bool = True,
                        crossing_soft: bool | None = None,
                        soft_lines: list[np.ndarray] | None = None,
                        owners: np.ndarray | None = None,
                        gap: np.ndarray = LABEL_GAP,
                        stems_drawn: np.ndarray | None = None,
                        dots: np.ndarray | None = None) -> list[KernelLabel]:
    """Labels for markers at (log10) ``xs``, ``ys``: each in the first of LABEL_SPOTS where its
    text (or, failing that, each shorter alternative in turn: ``texts[k]`` may be a tuple, the
    whole name first)
    box overlaps no other label, no roof label (``taken``: boxes in pixels, x right, y down,
    relative to log10 (0, 0)) and no marker (these and ``others``, the markers on the other
    chips), inside ``bounds`` (the view, same pixels) when given; a label that fits nowhere is
    left out (the marker's tooltip still names it). Greedy, in the given order.

    ``lines``: polylines ([N, 2] points, same pixels) the text should not be written over (the
    roofs). Of the spots where a text fits, the first that no line crosses is taken, a shorter
    form of the name before a spot over a line; then, where no form has a spot clear of the
    lines, ``far_spots`` (further out, a stem joining the text to its marker that crosses no
    label); only where none of those is clear either does the text go over a line, in the near
    spot (of any form) where its backdrop hides the least of the lines, a roof only where every
    spot crosses one (_least_crossed), else in a far spot over a line, its stem crossing lines,
    and only where none of those fits beside another kernel's marker (with ``owners``; not at
    all where ``beside_others`` is False), unless ``over_lines`` is False: then it is left out
    (the marker's tooltip names it).
    ``soft_lines`` (other memory levels' diagonals) are kept off as the roofs are where some
    spot allows; where none does, they are crossed rather than the name left out.
    ``crossing_soft`` False: only spots clear of them (a caller tries a shorter text clear of
    every line first); True: only spots the soft lines may cross (its second try, where the
    first found none clear of them).

    ``owners``: which kernel each text names (an id per text), with ``others`` given as (xs, ys,
    ids): a text is then set by its marker only where no other kernel's marker is about as
    near it as its own (AMBIGUOUS_PX), which would leave the reader guessing which one it
    names; else set off with a stem, or, where nothing else is clear, in the first spot that
    fits (over a line before beside another's marker).

    ``gap``: added to each box of ``taken`` and of the labels placed before (LABEL_GAP: a name
    keeps 3 px from any other text; a workload's label, boxed and with its margins in its box,
    none). ``stems_drawn``: stems ([N, 4] segments, same pixels) of names placed before, by
    another call, which no text is set on and no stem crosses, as this call's own.
    ``dots``: points drawn as filled dots that are no kernel's ([N, 2], same pixels: the roofs'
    ridge points): of the spots clear for a text, one that covers none and has none about as
    near as its own marker (AMBIGUOUS_PX) first ("6" under TPU v3's bf16 ridge dot read as
    naming it: the 44th tour); else as before (a dot is no reason to leave the marker)."""
    sx, sy = px_per_decade
    # Boxes as arrays, so a candidate is tested against all of them in one numpy expression
    # (ten workloads' marks on eight chips are hundreds of obstacles, tested at each drag step).
    boxes = np.array(list(taken), dtype=float).reshape(-1, 4)
    ox, oy, *rest = others if others is not None else (np.zeros(0), np.zeros(0))
    mx, my = np.concatenate([xs, ox]) * sx, -np.concatenate([ys, oy]) * sy
    keep = np.isfinite(mx) & np.isfinite(my)
    markers = np.column_stack([mx - 5, my - 5, mx + 5, my + 5])[keep]
    # each marker's kernel, where known (-2: unknown, never taken for a text's own)
    marker_ids = (np.concatenate([np.asarray(owners), np.asarray(rest[0])])[keep]
                  if owners is not None and rest else np.full(len(markers), -2))
    centres = markers[:, :2] + 5  # (worked out once, not for each text)
    if dots is not None:
        dot_boxes = np.column_stack([dots - MARKER_HALF_PX + 1, dots + MARKER_HALF_PX - 1])

    segments = polyline_segments(lines)
    # first clear of the soft lines too, then of the roofs alone
    tiers = (np.concatenate([segments, soft]), segments) if len(soft := polyline_segments(
        soft_lines)) else (segments,)
    if len(soft) and crossing_soft is not None:  # one of the two
        tiers = tiers[1:] if crossing_soft else tiers[:1]
    # Every spot of a text is tested at once: its candidate boxes against every obstacle and
    # every roof segment, one numpy expression each.
    near = (np.array([d for d, _ in spots], dtype=float).reshape(-1, 2),
            np.array([a for _, a in spots], dtype=float).reshape(-1, 2))
    far = (np.array([d for d, _ in far_spots], dtype=float).reshape(-1, 2),
           np.array([a for _, a in far_spots], dtype=float).reshape(-1, 2))

    def clear_spots(text: str, px: float, py: float, at, obstacles: np.ndarray,
                    segments: np.ndarray, neighbours: np.ndarray | None = None):
        """The candidate boxes of ``text`` at the spots ``at``, which of them fit (clear of
        labels and markers, inside the bounds), which of those no roof crosses and no
        ``neighbours``' marker is about as near as its own (ambiguous_each), and which of
        those that fit are not ambiguous."""
        key = (text, id(at), id(obstacles), neighbours is None, len(boxes), len(stems))
        if key not in fitting:  # (the same for every tier of lines: only the lines differ)
            fitting[key] = fitting_spots(text, px, py, at, obstacles, neighbours)
        candidates, ok, plain = fitting[key]
        return candidates, ok, plain[~crosses_each(candidates[plain] + LINE_CLEAR, segments)], plain

    def apart_from_dots(candidates: np.ndarray, free: np.ndarray, px: float, py: float):
        """``free`` (spots of ``candidates`` by the marker at ``px``, ``py``) split in those
        that cover no dot and have none about as near as the marker, and the rest."""
        if dots is None or not len(dots) or not len(free):
            return free, free[:0]
        by_dot = (ambiguous_each(candidates[free], px, py, dots)
                  | overlaps_each(candidates[free], dot_boxes))
        return free[~by_dot], free[by_dot]

    def fitting_spots(text: str, px: float, py: float, at, obstacles: np.ndarray,
                      neighbours: np.ndarray | None):
        offsets, anchors = at
        w, h = text_width(text, text_px) + 4, line_px
        left = px + offsets[:, 0] - anchors[:, 0] * w
        top = py + offsets[:, 1] - anchors[:, 1] * h
        candidates = np.column_stack([left, top, left + w, top + h])
        fits = ~overlaps_each(candidates, boxes + gap) & ~overlaps_each(candidates, obstacles)
        if len(stems):  # nor over a stem already drawn (a tour saw one run behind a name),
            fits &= ~crosses_each(candidates + STEM_CLEAR, stems)  # nor grazing its letters
        if bounds is not None:
            fits &= ((bounds[0] <= candidates[:, 0]) & (candidates[:, 2] <= bounds[2])
                     & (bounds[1] <= candidates[:, 1]) & (candidates[:, 3] <= bounds[3]))
        ok = np.flatnonzero(fits)
        plain = ok
        if neighbours is not None and len(neighbours) and len(ok):
            plain = ok[~ambiguous_each(candidates[ok], px, py, neighbours)]
        return candidates, ok, plain

    def stem_clear(stem: np.ndarray, others_boxes: np.ndarray, lines_here: np.ndarray) -> bool:
        """Whether a stem ([x1, y1, x2, y2]) from a marker to a far spot crosses no text
        (from the marker's edge), no other marker, no stem drawn, and runs along no line."""
        return not (crosses_each(boxes + STEM_CLEAR, _from_edge(stem)[None, :]).any()
                    or crosses_each(others_boxes, stem[None, :]).any()
                    or _crosses_a_segment(stem, stems)
                    or _runs_along(stem, lines_here))

    def far_over_lines(options, px: float, py: float, others_boxes: np.ndarray) -> list:
        """(text, box, spot, True) for each far spot of each text that fits, over a line or
        not, whose stem is clear (stem_clear; crossing lines allowed), as _least_crossed takes
        them."""
        if not len(far[0]):
            return []
        out = []
        for text in options:
            candidates, ok, _free, _plain = clear_spots(text, px, py, far, others_boxes,
                                                        segments)
            out += [(text, candidates[s], far_spots[s], True) for s in ok
                    if stem_clear(np.array([px, py, px + far[0][s, 0], py + far[0][s, 1]]),
                                  others_boxes, segments)]
        return out

    placed = []
    # the stems of names set off their markers, as segments
    stems = np.zeros((0, 4)) if stems_drawn is None else np.asarray(stems_drawn, dtype=float)
    for k, (options, x, y) in enumerate(zip(texts, xs, ys, strict=True)):
        options = (options,) if isinstance(options, str) else options
        if not (options and np.isfinite(x) and np.isfinite(y)):
            continue
        px, py = x * sx, -y * sy
        fitting = {}  # this text's spots that fit, by text and spots (clear_spots)
        # The marker's own box is not an obstacle to its label.
        not_own = ~((markers[:, 0] == px - 5) & (markers[:, 1] == py - 5))
        others_boxes = markers[not_own]
        # the markers of other kernels, but those on its own (STACKED_PX: _stacked_tags
        # names them together)
        neighbours = None
        if owners is not None:
            neighbours = centres[(marker_ids != owners[k]) & not_own
                                 & (np.hypot(centres[:, 0] - px, centres[:, 1] - py) >= STACKED_PX)]
        # The first text (the whole name, then shorter) with a spot no roof crosses; then one
        # set off further, its stem crossing no label (the tours saw names written across roofs
        # where a shorter form, or a spot a little further out, was clear); only where none
        # has one, the first that fits at all, over a roof
        chosen = None
        over_a_line, beside_another = [], []  # (text, box, spot) where nothing clear is left
        for lines_here in tiers:
            by_a_dot = []  # (text, box, spot) clear of the lines, by a dot (apart_from_dots)
            for text in options:
                candidates, ok, free, plain = clear_spots(text, px, py, near, others_boxes,
                                                          lines_here, neighbours)
                free, dotted = apart_from_dots(candidates, free, px, py)
                if len(free):
                    chosen = (text, candidates[free[0]], spots[free[0]], False)
                    break
                by_a_dot += [(text, candidates[i], spots[i]) for i in dotted]
                if lines_here is tiers[0]:  # (the same spots fit in every tier)
                    over_a_line += [(text, candidates[i], spots[i]) for i in plain]
                    beside_another += [(text, candidates[i], spots[i]) for i in ok]
            # a stem crossing no roof first (one crossing the line between a name and its
            # marker read as joining it to the roof: the nineteenth tour), else by a dot, else
            # any (each text's far spots tested once, for both)
            tried = ([(text, *clear_spots(text, px, py, far, others_boxes, lines_here)[::2])
                      for text in options] if chosen is None and len(far[0]) else [])
            if chosen is None and by_a_dot:
                tried = [*((False, t) for t in tried), (None, None), *((True, t) for t in tried)]
            else:
                tried = [(c, t) for c in (False, True) for t in tried]
            for cross_ok, attempt in tried:
                if attempt is None:  # by a dot, before a stem across a roof
                    chosen = (*by_a_dot[0], False)
                    break
                text, candidates, free = attempt
                for s in free:
                    (ox, oy), _anchor = far_spots[s]
                    stem = np.array([[px, py, px + ox, py + oy]])
                    # nor through another marker (one ran through the hollow host-transfer
                    # points beside the GEMM's: the ninth tour)
                    # nor along a line (the CNN layer's stem ran on the bf16 roof: the
                    # thirteenth tour)
                    # (clear of the texts and rings from the marker's edge: kernel 7's marker
                    # just outside kernel 1's ring had every stem start within the ring's box,
                    # and went unnamed; of the other markers from its centre: one starting in a
                    # stacked marker would name one of the two)
                    if stem_clear(stem[0], others_boxes, lines_here) and (
                            cross_ok or not stem_crosses(stem[0], segments)):
                        chosen = (text, candidates[s], far_spots[s], True)
                        stems = np.vstack([stems, stem])
                        break
                if chosen is not None:
                    break
            if chosen is not None:
                break
        if chosen is None and over_lines:
            # over a line by its own marker; else set off with a stem, over a line (a tag in
            # the only near spot left, beside another kernel's marker, read as that one's: "2"
            # level with marker 1 and "1" with marker 2, the 42nd tour); that only where
            # neither is left
            chosen = (_least_crossed(over_a_line, segments, soft)
                      or _least_crossed(far_over_lines(options, px, py, others_boxes), segments, soft)
                      or beside_others and _least_crossed(beside_another, segments, soft) or None)
            if chosen is not None and chosen[3]:
                (ox, oy), _anchor = chosen[2]
                stems = np.vstack([stems, [[px, py, px + ox, py + oy]]])
        if chosen is not None:
            text, box, (offset, anchor), stem = chosen
            boxes = np.vstack([boxes, box])
            placed.append(KernelLabel(k, text, float(x), float(y), offset, anchor, stem))
    return placed


def polyline_segments(polylines) -> np.ndarray:
    """Polylines ([N, 2] points each; None: none) as their finite segments ([M, 4]: x1, y1,
    x2, y2), as crosses_each and crossed_length_each take them."""
    pieces = [np.column_stack([p[:-1], p[1:]]) for p in polylines or () if len(p) > 1]
    out = np.concatenate(pieces) if pieces else np.zeros((0, 4))
    return out[np.isfinite(out).all(axis=1)]


#: What a pixel of another level's diagonal (or a dotted connector) under a text costs where
#: every spot crosses one, against the others: a spot over a roof is taken only where every
#: spot crosses a roof
SOFT_LINE = 0.5


def _least_crossed(spots: list, roofs: np.ndarray, soft: np.ndarray):
    """Of ``spots`` ((text, box, spot[, stem]) a text fits in, every one over a line), the one hiding
    the least of the other levels' lines, where some spot crosses no roof (the roofs are the
    lines the chart is read by: the first spot that fitted had put "7" on the A100's bf16 roof
    where a spot over a faint line was left, the 41st tour); else the one hiding the least of
    every line, a roof's pixel 1 and another's SOFT_LINE. The first of equals; as
    place_kernel_labels chooses it (its stem as given, else False); None where ``spots`` is
    empty."""
    if not spots:
        return None
    boxes = np.array([box for _text, box, _spot, *_stem in spots]) + LINE_CLEAR
    on_roofs = crossed_length_each(boxes, roofs)
    cost = on_roofs + SOFT_LINE * crossed_length_each(boxes, soft)
    best = int(np.argmin(np.where(on_roofs > 0, np.inf, cost) if (on_roofs == 0).any() else cost))
    text, box, spot, *stem = spots[best]
    return text, box, spot, bool(stem and stem[0])


def box_gaps(boxes, xs, ys) -> np.ndarray:
    """Pixels from each of the points (``xs``, ``ys``, [M]) to each of ``boxes`` ([S, 4]), as
    [S, M] (0 inside a box)."""
    boxes = np.asarray(boxes, dtype=float).reshape(-1, 4)
    x, y = np.asarray(xs, dtype=float)[None, :], np.asarray(ys, dtype=float)[None, :]
    dx = np.maximum(np.maximum(boxes[:, 0:1] - x, x - boxes[:, 2:3]), 0.0)
    dy = np.maximum(np.maximum(boxes[:, 1:2] - y, y - boxes[:, 3:4]), 0.0)
    return np.hypot(dx, dy)


def ambiguous_each(boxes: np.ndarray, px: float, py: float, neighbours: np.ndarray) -> np.ndarray:
    """For each of ``boxes`` ([S, 4]) of a text naming the marker at (``px``, ``py``), whether
    one of ``neighbours`` ([M, 2], other kernels' marker centres) is within AMBIGUOUS_PX of as
    near the box as that marker (box_gaps)."""
    boxes = np.asarray(boxes, dtype=float).reshape(-1, 4)
    if not len(neighbours):
        return np.zeros(len(boxes), dtype=bool)
    own = box_gaps(boxes, [px], [py])[:, 0]
    return box_gaps(boxes, neighbours[:, 0], neighbours[:, 1]).min(axis=1) < own + AMBIGUOUS_PX


def _runs_along(segment: np.ndarray, segments: np.ndarray, near: float = 2.5) -> bool:
    """Whether ``segment`` (x1, y1, x2, y2) runs along any of ``segments`` ([M, 4]): three or
    more of nine points spread over its outer four fifths lie within ``near`` pixels of
    them (one crossing a line at a slant has one or two)."""
    if not len(segments):
        return False
    t = np.linspace(0.2, 1.0, 9)[:, None]
    x, y = segment[0] + t * (segment[2] - segment[0]), segment[1] + t * (segment[3] - segment[1])
    ax, ay, bx, by = (segments[:, i][None, :] for i in range(4))
    dx, dy = bx - ax, by - ay
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.clip(np.nan_to_num(((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)), 0, 1)
    gap = np.hypot(ax + u * dx - x, ay + u * dy - y).min(axis=1)
    return int((gap < near).sum()) >= 3


def _from_edge(stem: np.ndarray) -> np.ndarray:
    """``stem`` (x1, y1, x2, y2, from a marker's centre) from its marker's edge on: without
    its first MARKER_HALF_PX (its end alone where it is no longer)."""
    length = math.hypot(stem[2] - stem[0], stem[3] - stem[1])
    f = min(MARKER_HALF_PX / length, 1.0) if length > 0 else 1.0
    return np.array([stem[0] + f * (stem[2] - stem[0]), stem[1] + f * (stem[3] - stem[1]),
                     stem[2], stem[3]])


def stem_crosses(stem: np.ndarray, segments: np.ndarray) -> bool:
    """Whether ``stem`` (x1, y1, x2, y2, from a marker's centre) crosses any of ``segments``
    outside the marker (its first MARKER_HALF_PX: the marker's own roof starts it)."""
    if math.hypot(stem[2] - stem[0], stem[3] - stem[1]) <= MARKER_HALF_PX:
        return False
    return _crosses_a_segment(_from_edge(stem), segments)


def _crosses_a_segment(segment: np.ndarray, segments: np.ndarray) -> bool:
    """Whether ``segment`` (x1, y1, x2, y2) crosses any of ``segments`` ([M, 4]): each pair's
    ends lie on opposite sides of the other's line."""
    if not len(segments):
        return False
    (ax, ay, bx, by), (cx, cy, dx, dy) = segment, segments.T

    def side(px, py, qx, qy, rx, ry):
        return np.sign((qx - px) * (ry - py) - (qy - py) * (rx - px))

    return bool(((side(ax, ay, bx, by, cx, cy) * side(ax, ay, bx, by, dx, dy) < 0)
                 & (side(cx, cy, dx, dy, ax, ay) * side(cx, cy, dx, dy, bx, by) < 0)).any())


def crosses_each(boxes: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """For each of ``boxes`` ([S, 4]: left, top, right, bottom), whether any of ``segments``
    ([M, 4]: x1, y1, x2, y2) passes through it: the part of the segment inside the box's four
    slabs (Liang-Barsky) is not empty. One numpy expression for all [S, M] pairs."""
    clipped = _clipped(boxes, segments)
    if clipped is None:
        return np.zeros(len(np.asarray(boxes).reshape(-1, 4)), dtype=bool)
    inside, _t0, _t1, _lengths = clipped
    return inside.any(axis=1)


def crossed_length_each(boxes: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """For each of ``boxes`` ([S, 4]), how many pixels of ``segments`` ([M, 4]) run inside it,
    summed: what a text's backdrop there would hide of the lines (crosses_each, measured)."""
    clipped = _clipped(boxes, segments)
    if clipped is None:
        return np.zeros(len(np.asarray(boxes).reshape(-1, 4)))
    inside, t0, t1, lengths = clipped
    return np.where(inside, (t1 - t0) * lengths, 0.0).sum(axis=1)


def _clipped(boxes: np.ndarray, segments: np.ndarray):
    """Each segment clipped to each box (Liang-Barsky): (inside [S, M], t0, t1 (the part
    inside, as fractions of the segment), the segments' lengths [1, M]); None where no segment
    comes near a box."""
    boxes = np.asarray(boxes, dtype=float).reshape(-1, 4)
    if not len(segments) or not len(boxes):
        return None
    # only the segments whose own extent meets the boxes' together can cross one (a text's
    # candidate spots lie round one marker: most of a chart's roofs are far from them), so the
    # [S, M] test below runs on a few (this test was two thirds of placing 40 kernels' names)
    lo_x, lo_y = np.minimum(segments[:, 0], segments[:, 2]), np.minimum(segments[:, 1], segments[:, 3])
    hi_x, hi_y = np.maximum(segments[:, 0], segments[:, 2]), np.maximum(segments[:, 1], segments[:, 3])
    with np.errstate(invalid="ignore"):
        near = ((lo_x <= boxes[:, 2].max()) & (hi_x >= boxes[:, 0].min())
                & (lo_y <= boxes[:, 3].max()) & (hi_y >= boxes[:, 1].min()))
    segments = segments[near]
    if not len(segments):
        return None
    x1, y1, x2, y2 = (segments[:, i][None, :] for i in range(4))
    dx, dy = x2 - x1, y2 - y1
    left, top, right, bottom = (boxes[:, i][:, None] for i in range(4))
    t0 = np.zeros((len(boxes), len(segments)))
    t1 = np.ones_like(t0)
    outside = np.zeros(t0.shape, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, x1 - left), (dx, right - x1), (-dy, y1 - top), (dy, bottom - y1)):
            t = q / p  # ([1, M] over [S, M])
            # Parallel to a slab (p == 0): outside it, the segment misses; inside, that slab
            # allows all.
            outside |= (p == 0) & (q < 0)
            np.maximum(t0, np.where(p < 0, t, 0.0), out=t0)
            np.minimum(t1, np.where(p > 0, t, 1.0), out=t1)
    return ~outside & (t0 <= t1), t0, t1, np.hypot(dx, dy)


def crosses_any(box, segments: np.ndarray) -> bool:
    """Whether any of ``segments`` ([M, 4]) passes through ``box`` (crosses_each, one box)."""
    return bool(crosses_each(np.asarray(box, dtype=float)[None, :], segments)[0])


def boxes_overlap(a, b) -> bool:
    """Whether two (left, top, right, bottom) boxes overlap."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def overlaps_each(candidates: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """For each of ``candidates`` ([S, 4]), whether it overlaps any of ``boxes`` ([N, 4])."""
    if not len(boxes):
        return np.zeros(len(candidates), dtype=bool)
    c, b = candidates[:, None, :], boxes[None, :, :]
    return ((c[..., 0] < b[..., 2]) & (b[..., 0] < c[..., 2])
            & (c[..., 1] < b[..., 3]) & (b[..., 1] < c[..., 3])).any(axis=1)


def overlaps_any(box, boxes: np.ndarray) -> bool:
    """Whether ``box`` overlaps any row of ``boxes`` ([N, 4], as boxes_overlap): overlaps_each,
    one box."""
    return bool(overlaps_each(np.asarray(box, dtype=float)[None, :], boxes)[0])


# -- marker shapes ---------------------------------------------------------------------------------
#: A marker shape per kernel category (pyqtgraph's symbol names), so kernels tell apart by shape
#: as chips do by colour. Categories not listed share the star.
CATEGORY_SYMBOLS = {
    "streaming": "o", "dense linear algebra": "s", "neural network": "t", "transformer": "d",
    "sparse": "p", "structured grid": "h", "spectral": "t1", "host transfer": "t2", "cache": "t3",
}
OTHER_SYMBOL = "star"
#: Up to this many kernels the markers take their category's shape; beyond, every marker is a
#: circle (one shape is what keeps 300,000 markers quick to draw: docs/performance.md).
SHAPES_MAX = 2000


def symbol_of(category: str) -> str:
    return CATEGORY_SYMBOLS.get(category, OTHER_SYMBOL)


def marker_symbols(comparison: Comparison) -> np.ndarray | None:
    """Each kernel's marker shape by its category, or None (one shape for all) when the kernels
    are of one category or more than SHAPES_MAX."""
    kernels = comparison.kernels
    if len(kernels) > SHAPES_MAX or len({k.category for k in kernels}) < 2:
        return None
    return np.array([symbol_of(k.category) for k in kernels], dtype=object)


#: the kernels' categories of the presets and templates, as the legend says them (a kernel keeps
#: its category in English: the session's word, not the interface's)
CATEGORY_WORDS = (N_("cache"), N_("dense linear algebra"), N_("host transfer"),
                  N_("neural network"), N_("sparse"), N_("spectral"), N_("streaming"),
                  N_("structured grid"), N_("transformer"))


def shape_legend(comparison: Comparison) -> list[tuple[str, str]]:
    """(category, shape) for the categories the markers show, in first-seen order."""
    if marker_symbols(comparison) is None:
        return []
    seen: dict[str, str] = {}
    for kernel in comparison.kernels:
        seen.setdefault(kernel.category, symbol_of(kernel.category))
    return list(seen.items())


#: decades within which two chips' markers of one kernel are drawn on each other (about a pixel)
SAME_POINT = 3e-3


def same_point(attainable: np.ndarray, k: int, c: int, chips) -> list[int]:
    """The other chips of ``chips`` whose marker of kernel ``k`` lies on chip ``c``'s (every
    chip's marker of a kernel is at the same intensity, so at the same attainable rate): one
    hides the other on the chart, so a tooltip names them all."""
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log10(attainable[k])
    if not np.isfinite(y[c]):
        return []
    return [o for o in chips if o != c and np.isfinite(y[o]) and abs(y[o] - y[c]) < SAME_POINT]


def kernels_on_point(x: np.ndarray, y: np.ndarray, k: int) -> list[int]:
    """The other kernels whose marker on a chip lies on kernel ``k``'s there (``x``, ``y``: log10
    of each kernel's marker on that chip): one hides the other, so a tooltip names them (the
    article's 2 and 5 at 1 op/B on the A100: the tour saw one)."""
    if not (np.isfinite(x[k]) and np.isfinite(y[k])):
        return []
    with np.errstate(invalid="ignore"):
        near = (np.abs(x - x[k]) < SAME_POINT) & (np.abs(y - y[k]) < SAME_POINT)
    near[k] = False
    return np.flatnonzero(near).tolist()


def earlier_on_point(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """For each kernel's marker on a chip (``x``, ``y``: log10), how many kernels before it (drawn
    under it) have theirs on the same point, to within SAME_POINT (points on either side of a
    rounding edge aside): each is then drawn smaller, so the one beneath shows as a ring."""
    out = np.zeros(len(x))
    ok = np.flatnonzero(np.isfinite(x) & np.isfinite(y))
    if len(ok) < 2:
        return out
    # one key per point, exact in float64: |log10| < 30 is under 10^4 steps of SAME_POINT
    key = np.round(x[ok] / SAME_POINT) * 1e6 + np.round(y[ok] / SAME_POINT)
    _values, group = np.unique(key, return_inverse=True)
    order = np.argsort(group, kind="stable")  # each point's group, in the kernels' order
    starts = np.flatnonzero(np.r_[True, np.diff(group[order]) != 0])
    rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    out[ok[order]] = rank
    return out


HIDDEN_DECADES = 0.03  # a curve this near later ones' is drawn under them there
HIDDEN_SHARE = 0.95  # a curve under later ones at this share of its points is hidden (its
#                      knee may show a few pixels: not enough to be told from the others)


def hidden_under(curves: list[tuple[int, np.ndarray]],
                 near: float = HIDDEN_DECADES) -> dict[int, list[int]]:
    """Of curves over one grid (chip, log10 values, in the order drawn, later on top), those
    later ones cover at HIDDEN_SHARE of their points or more, each with the chips covering it,
    topmost first (the H100's curve lay under the A100's slope and the H200's flat part, and
    the chart said nothing of it: the twenty-fifth tour; the training example's scaling
    chart drew TPU v3's line under the V100's). ``near``: the decades within which a point
    is under another."""
    out: dict[int, list[int]] = {}
    for i, (c, ys) in enumerate(curves):
        shown = np.isfinite(ys)
        left = shown.copy()  # its points no later curve covers yet
        covering = []
        for d, other in reversed(curves[i + 1:]):
            under = shown & (np.abs(ys - other) <= near)
            if (under & left).any():
                covering.append(d)
                left &= ~under
        if shown.any() and left.sum() <= (1.0 - HIDDEN_SHARE) * shown.sum():
            out[c] = covering
    return out
