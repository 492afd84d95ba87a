"""What one roofline chart shows, as one immutable value (Qt-free): the scene the chart's
layers draw from.

A :class:`ChartScene` is made of parts (the roofs and markers of ``display.chart_spec``, the
workloads' marks, the selection, the view's range and the placed labels). A part that did not
change is the *same object* in the next scene, so ``changed_parts`` tells with ``is`` what a
layer has to draw again, and a layer that draws from the scene cannot keep an item from an
older one (napari's layers do the same with their slices: ``../shared/design/chart-layers.md``).

The view's range is worked out here too (``fit_view``): it holds every kernel's markers on
every shown chip, every roof's ridge and peak and every workload's point; a measured point far
above every roof (``OUTLIER_FACTOR``) is flagged and left out of it, so one wrong row cannot
squash every real point into a thin band.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from roofline_gui.core.arrays import among
from roofline_gui.core.comparison import Comparison
from roofline_gui.core.diagnose import above_roof
from roofline_gui.core.display import ChartSpec, kernel_tags
from roofline_gui.core.roofline import LIMITER_UNSUPPORTED

#: A measured point more than this factor above every shown roof at its intensity is an outlier:
#: flagged, drawn where it is, and kept out of the automatic range.
OUTLIER_FACTOR = 10.0  # the import summary counts them too (diagnose.above_every_roof)
#: The automatic range reaches this far beyond the outermost point (a factor on each log axis).
X_MARGIN, Y_LOW_MARGIN, Y_HIGH_MARGIN = 4.0, 4.0, 3.0
#: and always shows at least 0.05 .. 1000 op/B, where the classic kernels live, and three
#: decades of performance.
X_MIN_SPAN = (0.05, 1e3)
Y_MIN_DECADES = 3

Range = tuple[tuple[float, float], tuple[float, float]]  # ((x_lo, x_hi), (y_lo, y_hi)), shown units

PARTS = frozenset({"spec", "roofs", "workloads", "selection", "labels", "measured"})


@dataclass(frozen=True)
class Selection:
    """The selected kernel or workload, the selected chip, and the kernel or workload being
    dragged (the rest of the chart holds still meanwhile)."""

    item: str | None = None
    chip: str | None = None
    lifted: str | None = None  # a kernel's or workload's id, or roof_of(a chip's id)

    ROOF = "roof:"

    @classmethod
    def roof_of(cls, chip_id: str) -> str:
        """What ``lifted`` is while the roofs of chip ``chip_id`` are dragged."""
        return cls.ROOF + chip_id

    @property
    def roof_chip(self) -> str | None:
        """The id of the chip whose roof is being dragged, or None."""
        lifted = self.lifted or ""
        return lifted.removeprefix(self.ROOF) if lifted.startswith(self.ROOF) else None


@dataclass(frozen=True)
class MeasuredPoint:
    """A kernel's measured rate, where the chart draws it (shown units)."""

    kernel: int
    x: float
    y: float
    roofs: tuple[float, ...]  # [shown chips] the attainable rate on each (NaN: unsupported)
    above: tuple[str, ...]  # names of the chips whose roof it is above
    outlier: bool  # more than OUTLIER_FACTOR above every roof: not in the automatic range


@dataclass(frozen=True)
class ViewFit:
    """The automatic range and what it leaves out."""

    range: Range | None
    outliers: tuple[int, ...] = ()  # kernel rows whose measured point is kept out of the range


@dataclass(frozen=True)
class ChartScene:
    """Everything a chart draws, in shown units. Parts unchanged from the last scene are the
    same objects (see ``changed_parts``)."""

    spec: ChartSpec  # roofs, diagonals, kernel markers (display.chart_spec)
    comparison: Comparison  # names, colours and provenance for texts and tooltips
    chips: tuple[int, ...]  # the comparison's chips this chart shows
    workloads: tuple = ()  # WorkloadMarks (core.workload_view), one per visible workload
    results: tuple = ()  # the document's WorkloadResults (tooltips, the selected one's path)
    measured: tuple[MeasuredPoint, ...] = ()
    selection: Selection = field(default_factory=Selection)
    labels: object = None  # chart_labels.PlacedLabels, once placed in a view's pixels
    #: what the roofs are drawn from (see roofs_of): the same object while the roofs are equal,
    #: so a kernel's drag step, which makes a new spec, does not redraw them
    roofs: tuple = ()

    @cached_property
    def fit(self) -> ViewFit:
        """The automatic range (fit_view), worked out when asked for: a drag step, which
        never changes the range, does not pay for it (300,000 markers: 4 ms)."""
        return fit_view(self.spec, self.chips, self.workloads, self.measured)

    @property
    def moving_chip(self) -> int | None:
        """The comparison's index of the chip whose roof is being dragged, or None."""
        chip_id = self.selection.roof_chip
        return None if chip_id is None else self.comparison.chip_index.get(chip_id)

    def with_labels(self, labels) -> ChartScene:
        """This scene with its labels placed: the same parts, so the same fit."""
        placed = replace(self, labels=labels)
        if "fit" in self.__dict__:
            placed.__dict__["fit"] = self.fit
        return placed

    @property
    def empty(self) -> bool:
        """No kernel and no workload: the roofs are shown plainly."""
        return not len(self.comparison.kernels) and not self.workloads


def roofs_of(spec: ChartSpec, comparison: Comparison, chips: tuple[int, ...]) -> tuple:
    """Everything the roofs layer draws from: the roofs, diagonals and datasheet roofs, the
    shown chips (names, colours, provenance for the tooltips) and the units."""
    return (spec.roofs, spec.diagonals, spec.datasheet_roofs, spec.off_precision, spec.units,
            tuple(comparison.chips[c] for c in chips), comparison.result.derated)


def changed_parts(old: ChartScene | None, new: ChartScene) -> frozenset[str]:
    """The parts of ``new`` that are not the same objects as ``old``'s (all, without ``old``)."""
    if old is None:
        return PARTS
    return frozenset(p for p in PARTS if getattr(old, p) is not getattr(new, p))


def measured_points(comparison: Comparison, spec: ChartSpec,
                    chips: tuple[int, ...]) -> tuple[MeasuredPoint, ...]:
    """Every kernel's measured rate (shown units) with its roofs on the shown chips, flagged
    above a roof (a figure is wrong) and as an outlier (far above all of them)."""
    units, points = spec.units, []
    for k in comparison.measured_rows:
        rate = comparison.measured_rate(k)
        if rate is None:
            continue
        roofs = tuple(float(units.rate(comparison.result.attainable[k, c])) for c in chips)
        finite = [r for r in roofs if np.isfinite(r) and r > 0]
        y = float(units.rate(rate))
        points.append(MeasuredPoint(
            k, float(units.intensity(comparison.dram_intensity[k])), y, roofs,
            tuple(comparison.chips[c].name for c in chips if above_roof(comparison, k, c)),
            bool(finite) and y > OUTLIER_FACTOR * max(finite)))
    return tuple(points)


def fit_view(spec: ChartSpec, chips: tuple[int, ...], workloads=(), measured=()) -> ViewFit:
    """The range that shows every kernel's marker on every shown chip, every roof's ridge and
    peak, every workload's point and kernels, and every measured point but the outliers."""
    shown = spec.marker_y[:, list(chips)] if spec.marker_y.ndim == 2 else np.zeros((0, 0))
    xs = [spec.marker_x[np.isfinite(shown).any(axis=1)] if shown.size else np.zeros(0)]
    ys = [shown.ravel()]
    for roof in spec.roofs:
        xs.append(np.array([roof.ridge]))
        ys.append(np.array([roof.peak]))
    if spec.levels is not None:  # each kernel's point at every memory level (View → Memory levels)
        on = among(spec.levels.chip, chips)
        xs.append(spec.levels.x[on])
        ys.append(spec.levels.y[on])
    for mark in workloads:
        xs += [np.array([mark.point_x]), np.asarray(mark.entry_x)]
        ys += [np.asarray(mark.point_y), np.asarray(mark.entry_y).ravel()]
    kept = [p for p in measured if not p.outlier]
    xs.append(np.array([p.x for p in kept]))
    ys.append(np.array([p.y for p in kept]))
    x, y = np.concatenate(xs), np.concatenate(ys)
    x, y = x[np.isfinite(x) & (x > 0)], y[np.isfinite(y) & (y > 0)]
    if not len(x) or not len(y) or not chips:
        return ViewFit(None, tuple(p.kernel for p in measured if p.outlier))
    x_lo = min(float(x.min()) / X_MARGIN, X_MIN_SPAN[0])
    x_hi = max(float(x.max()) * X_MARGIN, X_MIN_SPAN[1])
    y_hi = float(y.max()) * Y_HIGH_MARGIN
    # At least Y_MIN_DECADES, so roofs alone (a session with no kernel yet) show their
    # diagonals, not one decade around the peaks.
    y_range = (min(float(y.min()) / Y_LOW_MARGIN, y_hi / 10**Y_MIN_DECADES), y_hi)
    return ViewFit(((x_lo, x_hi), y_range), tuple(p.kernel for p in measured if p.outlier))


#: px the automatic range keeps between the outermost point and the view's top and bottom
#: edges: a selected kernel's ring (24 px across) was cut at a small chart's top (a tour)
EDGE_ROOM_PX = 14.0
#: and above the highest point: a name or tag above a marker on the highest roof, 8 px off it
#: and a line of text tall (with less the 40th tour read "4a" written over the int8 roof, the
#: only spot its tag fitted)
TOP_ROOM_PX = 26.0


def with_edge_room(fit: Range, height_px: float, room_px: float = EDGE_ROOM_PX,
                   top_px: float = TOP_ROOM_PX) -> Range:
    """``fit`` (fit_view's range, its margins Y_LOW_MARGIN and Y_HIGH_MARGIN beyond the
    outermost points) widened in y where a view ``height_px`` tall would leave those margins
    less than ``room_px`` pixels below and ``top_px`` above; unchanged in a view tall
    enough."""
    (x_lo, x_hi), (y_lo, y_hi) = fit
    if height_px <= 2 * (room_px + top_px):  # a chart too small for a tag's room: a ring's
        top_px = room_px
    if not (height_px > 4 * room_px and y_hi > y_lo > 0):
        return fit
    # decades added below (a) and above (b) so that each margin m, with them, takes its share
    # k of the wider range's pixels: m + a = k_low (span + a + b), m + b = k_high (span + a + b)
    span = math.log10(y_hi / y_lo)
    k_low, k_high = room_px / height_px, top_px / height_px
    c_low = k_low * span - math.log10(Y_LOW_MARGIN)
    c_high = k_high * span - math.log10(Y_HIGH_MARGIN)
    if c_low <= 0 and c_high <= 0:
        return fit
    det = 1 - k_low - k_high
    low = ((1 - k_high) * c_low + k_low * c_high) / det
    high = ((1 - k_low) * c_high + k_high * c_low) / det
    if low < 0:  # room to spare at that end: only the other grows
        low, high = 0.0, c_high / (1 - k_high)
    elif high < 0:
        low, high = c_low / (1 - k_low), 0.0
    return (x_lo, x_hi), (y_lo / 10.0**low, y_hi * 10.0**high)


def contains(outer: Range, inner: Range) -> bool:
    """Whether the range ``outer`` holds all of ``inner``."""
    (ox, oy), (ix, iy) = outer, inner
    return ox[0] <= ix[0] and ix[1] <= ox[1] and oy[0] <= iy[0] and iy[1] <= oy[1]


def union(ranges) -> Range | None:
    """The smallest range holding every one of ``ranges`` (None among them is skipped)."""
    ranges = [r for r in ranges if r is not None]
    if not ranges:
        return None
    return ((min(r[0][0] for r in ranges), max(r[0][1] for r in ranges)),
            (min(r[1][0] for r in ranges), max(r[1][1] for r in ranges)))


def kernels_outside(scene: ChartScene, view: Range) -> int:
    """How many kernels have a marker (on a shown chip) outside ``view``: they are drawn, but
    not seen. The lifted kernel counts where it is now."""
    return sum(kernels_out(scene, view))


def kernels_out(scene: ChartScene, view: Range) -> tuple[int, int]:
    """(wholly, partly): how many kernels have every marker (on the shown chips, at every
    memory level) outside ``view``, and how many some but not all (a zoom to one chip's marker
    read "8 kernels outside the view" with that kernel in sight: the tour)."""
    spec = scene.spec
    y = spec.marker_y[:, list(scene.chips)] if spec.marker_y.ndim == 2 else np.zeros((0, 0))
    if not y.size:
        return 0, 0
    (x_lo, x_hi), (y_lo, y_hi) = view
    x = spec.marker_x[:, None]
    shown = np.isfinite(y) & np.isfinite(x)
    away = (x < x_lo) | (x > x_hi) | (y < y_lo) | (y > y_hi)
    outside, inside = (shown & away).any(axis=1), (shown & ~away).any(axis=1)
    levels = spec.levels
    if levels is not None and len(levels):  # a point at another memory level counts too
        on = among(levels.chip, scene.chips)
        off = (levels.x < x_lo) | (levels.x > x_hi) | (levels.y < y_lo) | (levels.y > y_hi)
        outside[levels.kernel[on & off]] = True
        inside[levels.kernel[on & ~off]] = True
    return int((outside & ~inside).sum()), int((outside & inside).sum())


def without_roof(cmp: Comparison, chips: Sequence[int]
                 ) -> tuple[str, int, list[tuple[str, str, str]]]:
    """The kernels the chips ``chips`` of ``cmp`` draw no marker for because they have no roof
    at their precision: (those drawn on none of them, as their tags grouped by precision, "1, 2
    (int8), 7 (fp32)", or '', and how many they are; and every (chip name, precision, its
    tags listed) such gap). Kernel 1 (int8) on TPU v3 had no marker, and only the table said why (the 37th
    tour)."""
    limiter = cmp.result.limiter
    if not len(chips) or limiter.size == 0 or not (
            limiter[:, list(chips)] == LIMITER_UNSUPPORTED).any():
        return "", 0, []
    tags = kernel_tags([k.name for k in cmp.kernels])
    gaps: dict[tuple[str, str], list[str]] = {}
    for c in chips:
        for k in np.flatnonzero(limiter[:, c] == LIMITER_UNSUPPORTED):
            gaps.setdefault((cmp.chips[c].name, cmp.kernels[k].precision), []).append(tags[k])
    nowhere: dict[str, list[str]] = {}
    drawn_nowhere = np.flatnonzero((limiter[:, list(chips)] == LIMITER_UNSUPPORTED).all(axis=1))
    for k in drawn_nowhere:
        nowhere.setdefault(cmp.kernels[k].precision, []).append(tags[k])
    # tags listed with "; " where one holds a comma ("3; 5, 6; 7": "3, 5, 6" read as three
    # kernels, the 39th tour)
    sep = "; " if any("," in t for t in tags) else ", "
    grouped = sep.join(f"{sep.join(t)} ({precision})" for precision, t in nowhere.items())
    return grouped, len(drawn_nowhere), [(chip, precision, sep.join(t))
                                         for (chip, precision), t in gaps.items()]


def workloads_outside(scene: ChartScene, view: Range) -> int:
    """How many workloads have their point on some shown chip outside ``view``."""
    (x_lo, x_hi), (y_lo, y_hi) = view
    count = 0
    for mark in scene.workloads:
        y = np.asarray(mark.point_y)
        y = y[np.isfinite(y)]
        if len(y) and (not x_lo <= mark.point_x <= x_hi or (y < y_lo).any() or (y > y_hi).any()):
            count += 1
    return count
