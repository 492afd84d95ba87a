"""Where a chart's texts go (Qt-free): the roofs' and diagonals' labels, the kernels' names and
the workloads' labels, placed in the pixels of the view as it is shown.

The chart passes the view's geometry and the font's measure (``LabelGeometry``); everything
else comes from the scene. Coordinates: a label's point is in log10 shown units; boxes are in
pixels, x right and y down, relative to log10 (0, 0).

Rules the user sees:
- Roofs of several chips at the same height (or diagonals of the same bandwidth) lie on each
  other, so their labels merge into one: "HBM2 900 GB/s: V100, TPU v3".
- A peak's label is written in the key at the chart's right, beside the point where its roof
  meets the view's right edge (roofs run flat to that edge): there it covers no line, marker or
  other text however crowded the chart. Labels of roofs a few pixels apart are spread apart, a
  short elbow joining each to its roof's end; those the view's height has no room for are left
  out (the line's tooltip names them), the selected chip's and the highest kept first.
- No label is printed over another or over a marker: a label with no such spot is left out
  (the line's tooltip names it). A diagonal's label keeps clear of the other lines too where its
  diagonal has room; where the whole text has no clear spot, a shorter one is tried (the level
  without its size; never the figure alone), then the text set a few pixels off its line, and
  where none is clear of lines, the spot crossing fewest is taken (the text is painted over
  them). A diagonal shared by several chips, or lying a few pixels from another, names its
  chips in every form ("PCIe Gen4 x16 32 GB/s each way: A100"). Where the labels go does not
  depend on which kernel is selected.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

from roofline_gui.core.arrays import among
from roofline_gui.core.chart_scene import ChartScene
from roofline_gui.core.display import (
    FAR_LABEL_SPOTS,
    LABEL_GAP,
    LABEL_SPOTS,
    LINE_CLEAR,
    RING_LABEL_SPOTS,
    SOFT_LINE,
    STACKED_PX,
    STEM_CLEAR,
    WORKLOAD_LABEL_SPOTS,
    TextWidth,
    box_gaps,
    crossed_length_each,
    crosses_each,
    headed_names,
    kernel_tags,
    offset_label_box,
    overlaps_each,
    place_kernel_labels,
    polyline_segments,
    short_name,
    short_names,
    stem_crosses,
    text_width,
)
from roofline_gui.core.i18n import LIST_SEPARATOR, _, ngettext
from roofline_gui.core.units import format_si

LABEL_INSET = (4.0, 2.0)  # pixels between the view's edges and any name
SHORTEST_NAME = 20  # characters of a kernel's name on the chart, where no longer one fits
LABEL_ALL_CHIPS = 6  # with more chips, only the selected chip's roofs and diagonals are labelled
KERNEL_LABELS_MAX = 40  # with more kernels, names are in the markers' tooltips only
MIN_LABELLED_PX = 100  # a view less tall than this has no roof labels: they would cover it
MIN_TAGGED_PX = 60  # nor names, only its kernels' tags ("4b"), where it is this tall
SAME_LINE = 2e-3  # decades: roofs (or diagonals) closer than this are drawn on each other
NEAR_LINE_PX = 4.0  # px: a parallel diagonal this near a label's own lies under it wherever it goes
MARKER_COST = 4.0  # a label over a kernel's marker is worse than one crossed by a line
FAINT_LINE = 0.25  # what crossing a faint level's diagonal costs, a solid line's 1
LEFT_OUT = 12.0  # what a label left out (no spot free of the others) costs, a crossed line's 1
OFF_LINE = 0.5  # what a diagonal's label set off its line costs (its line is further to find)
OFF_LINE_PX = 8.0  # px between a diagonal and its label set off it (a marker's half and a gap)
_PARENTHESES = re.compile(r"\s*[(（][^()（）]*[)）]")  # "(24 MiB)", "(108 SMs)"
#: px between two kernels' markers that touch (their shapes are 10 px across): where the only
#: spot left for one's tag is beside another kernel's marker, its tag is joined to the touching
#: one's ("1/7") first
TOUCHING_PX = 10.0
RING_HALF_PX = 11.0  # px: half the selected chip's ring (22 px across), which other names keep off
NO_GAP = np.zeros(4)  # a workload's label is boxed, its margins in its box: it needs no LABEL_GAP
WORKLOAD_POINT_HALF = 11.0  # px: half a workload's big point (17 px, 21 hovered) and a gap
WORKLOAD_RING_HALF = 17.0  # px: half the ring of a selected workload's point (30 px, 3 px pen)
TEXT_ITEM_MARGIN = 1.0  # px: a workload's label's (a text item's) margin about its text


@dataclass(frozen=True)
class ChartLabel:
    """A text on the chart, at a point (log10 shown units)."""

    text: str
    x: float
    y: float
    color: str  # a colour name (#rrggbb); merged labels take the chart's foreground
    anchor: tuple[float, float] = (0.0, 1.0)  # (0, 1): the point is the text's bottom-left
    along: tuple[float, float] | None = None  # a data direction the text follows on screen
    offset: tuple[float, float] = (0.0, 0.0)  # pixels from the point (y down)
    item: int = -1  # the kernel row (names) or workload index (workloads' labels) it names
    chips: tuple[int, ...] = ()  # the chips a roof's label names (hidden while one is dragged)
    stem: bool = False  # a name set off from its marker: a thin line joins them
    #: the text in coloured pieces, which join to ``text``, where it names several chips' lines
    #: ("HBM3 5.3 TB/s: Instinct MI300X" red, "; ", "L2 (50 MB) 5.5 TB/s: H100 SXM5 80GB"
    #: blue: in the foreground alone it did not say which level was whose, the fourteenth tour)
    pieces: tuple[tuple[str, str], ...] = ()
    #: the lines a diagonal's label names, each as (chip, level): unnamed_lines lists the rest
    lines: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class KeyLabel:
    """A peak's label in the key at the chart's right, beside its roof's end at the view's edge."""

    text: str
    y: float  # log10 of the peak: where the roof meets the view's right edge
    shown_y: float  # log10 of the text's middle (spread from its neighbours' where they are near)
    color: str
    chips: tuple[int, ...] = ()  # the chips whose roof it names (hidden while one is dragged)
    #: where the text is wider than the key, the chips counted, not named ("bf16 123 Top/s:
    #: 3 chips"): elided, a merged label read "TPU v3, TPU v…" after a Duplicate (the tour)
    short: str = ""


@dataclass(frozen=True)
class LabelGeometry:
    """The view in pixels: pixels per decade, the visible range (log10) and the box names are
    placed in, with the font's measure."""

    px: tuple[float, float]
    view: tuple[float, float, float, float]  # log10 x_lo, x_hi, y_lo, y_hi
    text_px: TextWidth
    line: float
    #: boxes no label may cover (the legend), in label pixels: (left, top, right, bottom) of
    #: log10 x · px and −log10 y · px, as label_box gives
    avoid: tuple[tuple[float, float, float, float], ...] = ()

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        (sx, sy), (x_lo, x_hi, y_lo, y_hi) = self.px, self.view
        dx, dy = LABEL_INSET
        return (x_lo * sx + dx, -y_hi * sy + dy, x_hi * sx - dx, -y_lo * sy - dy)


def geometry_for(view: tuple[float, float, float, float], size: tuple[float, float],
                 text_px: TextWidth, line: float,
                 avoid: tuple[tuple[float, float, float, float], ...] = ()) -> LabelGeometry:
    """The geometry of a view of ``size`` pixels showing ``view`` (log10 x_lo, x_hi, y_lo, y_hi);
    ``avoid`` are boxes of the view in log10 data coordinates (x_lo, y_lo, x_hi, y_hi), such as
    the legend's, that no label may cover."""
    x_lo, x_hi, y_lo, y_hi = view
    px = (size[0] / (x_hi - x_lo), size[1] / (y_hi - y_lo))
    boxes = tuple((a * px[0], -d * px[1], c * px[0], -b * px[1]) for a, b, c, d in avoid)
    return LabelGeometry(px, view, text_px, line, boxes)


@dataclass(frozen=True)
class PlacedLabels:
    """The chart's texts, placed: roofs' and diagonals' labels, kernels' names, workloads'."""

    roofs: tuple[ChartLabel, ...] = ()  # the diagonals' (the peaks' are in ``key``)
    names: tuple[ChartLabel, ...] = ()
    workloads: tuple[ChartLabel | None, ...] = ()  # one per workload mark; None: not shown
    px: tuple[float, float] = (1.0, 1.0)  # the pixels per decade they were placed in
    key: tuple[KeyLabel, ...] = ()  # the peaks' labels, at the chart's right
    key_texts: tuple[str, ...] = ()  # every text the key may show, whatever the view (its width)


def label_text_origin(label, w: float, h: float) -> tuple[float, float]:
    """The top-left corner of a label's text box (``w`` × ``h`` pixels) from its point, in the
    label's own frame (turned along its line, if it follows one): placed by its anchor, and a
    few pixels clear of the line it labels unless it is placed by an offset from a marker."""
    gap = -3.0 if label.anchor[1] == 1 else 1.0
    if label.offset != (0.0, 0.0):
        gap = 0.0  # placed by offset, centred on its anchor
    return -label.anchor[0] * w + 2 - 4 * label.anchor[0], -label.anchor[1] * h + gap


def backdrop_inset(label) -> float:
    """Pixels the backdrop of a label's text leaves uncovered along its box's top edge: a label
    below its line has its box 1 px under the line, whose 2.5 px stroke reaches into that first
    row; a backdrop over it hid the line's lower half the length of the text ("HBM2 900 GB/s"
    under the V100's: the 33rd tour, and the label scan, benchmarks/scan_labels.py). The glyphs
    start a few pixels lower still (the font's leading)."""
    return 1.0 if label.anchor[1] == 0 and label.offset == (0.0, 0.0) else 0.0


def label_box(label: ChartLabel, g: LabelGeometry) -> tuple[float, float, float, float]:
    """A roof label's box in pixels; a label along a diagonal is given the box its slanted
    text covers."""
    x, y = label.x * g.px[0], -label.y * g.px[1]
    w = text_width(label.text, g.text_px) + 4
    if label.along is not None:
        return (x, y - 0.7 * w - g.line, x + 0.75 * w, y + 2)
    left = x - label.anchor[0] * w
    top = y - label.anchor[1] * g.line - (3 if label.anchor[1] == 1 else 0)
    return (left, top, left + w, top + g.line)


def label_footprint(label: ChartLabel, g: LabelGeometry) -> list[tuple[float, float, float, float]]:
    """Boxes (pixels) a roof label covers: a label along a diagonal as a staircase of small
    boxes along its slanted text, one per text height (its one enclosing box, most of it
    empty, kept names off a wide band beside every bandwidth label), any other as its box."""
    if label.along is None and label.offset != (0.0, 0.0):
        # a kernel's (or a workload's) name, set off its marker: its box where it is drawn (as
        # a roof label's, without the offset, the workloads' labels were placed over the
        # kernels' names: the second tour)
        return [offset_label_box(label, g.px, g.text_px, g.line)]
    if label.along is None:
        return [label_box(label, g)]
    x, y = label.x * g.px[0], -label.y * g.px[1]
    return [(x + a, y + b, x + c, y + d) for a, b, c, d in _footprint_shape(label, g)]


def _footprint_shape(label: ChartLabel, g: LabelGeometry) -> list[tuple[float, float, float, float]]:
    """A slanted label's staircase of boxes about its point (0, 0): the same wherever the
    label is (its text, anchor and direction decide it), so the spots along a line are that
    shape moved."""
    angle = math.atan2(-label.along[1] * g.px[1], label.along[0] * g.px[0])
    c, s = math.cos(angle), math.sin(angle)
    w = text_width(label.text, g.text_px) + 4
    x0, y0 = label_text_origin(label, w, g.line)
    x0, y0 = x0 - 1, y0 - 1
    pieces = max(1, math.ceil(w / g.line))
    boxes = []
    for i in range(pieces):
        a, b = x0 + (w + 2) * i / pieces, x0 + (w + 2) * (i + 1) / pieces
        corners = [(u * c - v * s, u * s + v * c) for u in (a, b) for v in (y0, y0 + g.line + 2)]
        xs, ys = [cx for cx, _ in corners], [cy for _, cy in corners]
        boxes.append((min(xs), min(ys), max(xs), max(ys)))
    return boxes


# -- roofs and diagonals ---------------------------------------------------------------------------
def _groups(items, key, near: float = SAME_LINE) -> list[list]:
    """``items`` grouped where ``key`` (log10 of a value) is within ``near`` of the group's
    first, in first-seen order."""
    groups: list[list] = []
    for item in items:
        for group in groups:
            if abs(key(group[0]) - key(item)) < near:
                group.append(item)
                break
        else:
            groups.append([item])
    return groups


def _joined(parts: list[str]) -> str:
    """Parts of a label, by ", "; by "; " where a part holds a comma itself (a chip named
    "DGX node, 8×V100" read as two chips), by " / " where one holds a semicolon too."""
    listed_by = _(LIST_SEPARATOR)  # 、 in Japanese
    for sep in (listed_by, ", ", "; ", " / "):
        if not any(sep.strip() in p for p in parts):
            return sep.join(parts)
    return " / ".join(parts)


def _initials(level: str) -> str:
    """A level's name of two or more capitalised words by their initials ("Unified Buffer":
    "UB", "Infinity Cache": "IC"); "" for any other ("PCIe Gen4 x16", "HBM2", "L2")."""
    words = level.split()
    if len(words) < 2 or not all(w[0].isupper() and w[1:].islower() for w in words):
        return ""
    return "".join(w[0] for w in words)


def _level_word(what: str) -> str:
    """A level's name at its shortest: its initials where it has them, else its first word
    ("PCIe" of "PCIe Gen3 x16", "NVLink" of "NVLink 3.0")."""
    level = _PARENTHESES.sub("", what).strip()
    return _initials(level) or (level.split() or [level])[0]


def _chip_tags(names: list[str]) -> list[str]:
    """Each chip's name as a line's shorter label names it: its words up to the first with a
    digit in it, three at most ("A100", "TPU v3", "Instinct MI300X", "EPYC 9654"); the whole
    name where that would read the same as another chip's (a copy, two A100s)."""
    tags = []
    for name in names:
        words = name.split()
        at = next((i for i, w in enumerate(words[:3]) if any(ch.isdigit() for ch in w)), 2)
        # without the comma that ends it there ("TPU v3, 2nd board" read "TPU v3," beside
        # "TPU v3": cut, and the same chip twice: the twenty-second tour)
        tags.append(" ".join(words[:at + 1]).rstrip(",;:") or name)
    # a copy's tag with what sets it apart from the names it shares its tag with ("H100" and
    # "H100 (copy)": both whole, "HBM3 3.35 TB/s: H100 SXM5 80GB, H100 SXM5 80GB (copy)" had
    # no spot in the Llama chart and the line went unnamed: the twenty-second tour)
    seen = Counter(tags)
    out = list(tags)
    for tag in (t for t, n in seen.items() if n > 1):
        same = [i for i, t in enumerate(tags) if t == tag]
        split = [names[i].split() for i in same]
        bare = [[word.rstrip(",;:") for word in w] for w in split]  # "80GB," is "80GB"
        common = next((k for k in range(min(map(len, bare)))
                       if len({tuple(w[:k + 1]) for w in bare}) > 1), min(map(len, bare)))
        for i, w in zip(same, split, strict=True):
            start = max(common, len(tag.split()), 1)
            rest = " ".join(w[start:])
            out[i] = (tag + (", " if w[start - 1].endswith(",") else " ") + rest if rest
                      else tag)
    seen = Counter(out)
    return [tag if seen[tag] == 1 else name for tag, name in zip(out, names, strict=True)]


def _levels_once(whats: list[str]) -> dict[str, str]:
    """Each level once, however it is capitalised, as first spelt: {casefolded: spelling}."""
    out: dict[str, str] = {}
    for what in whats:
        out.setdefault(what.casefold(), what)
    return out


def _merged_text(words: list[tuple[str, str]], value: str) -> str:
    """One label for lines drawn on each other: (chip, what) pairs and the shared value."""
    # one level spelt two ways is one ("B200 HBM3e, MI355X HBM3E": the thirteenth tour)
    whats = _levels_once([what for _chip, what in words])
    if len(words) == 1:
        return f"{words[0][1]} {value}".strip()
    if len({chip for chip, _what in words}) == 1:  # one chip's roofs, say its bf16 and int8
        levels = list(dict.fromkeys(what for _chip, what in words))
        if len(levels) < len(words):  # chips of one name (a preset added twice): named once
            # ("bf16, bf16 989.4 Top/s" had read as one chip's two roofs)
            return f"{_joined(levels)} {value}: {words[0][0]}"
        return f"{_joined(levels)} {value}"
    if len(whats) == 1:
        return f"{next(iter(whats.values()))} {value}: {_joined([chip for chip, _ in words])}".strip()
    return f"{value}: {_joined([f'{chip} {what}' for chip, what in words])}"


@dataclass(frozen=True)
class _RoofText:
    chip: int
    what: str  # "bf16", or "bf16 measured"
    value: float  # shown peak, or bandwidth
    ridge: float = 0.0
    top: float = 0.0  # for a diagonal: the highest roof of its chip
    low: bool = False  # a diagonal other than main memory's: labelled near the chart's bottom
    host: bool = False  # a host link: its figure is per direction ("each way")
    unused: bool = False  # a level no kernel moves bytes at (drawn faint): named where clear


def _labelled_chips(scene: ChartScene, selected_chip: str | None) -> list[int]:
    if len(scene.chips) <= LABEL_ALL_CHIPS:
        return list(scene.chips)
    return [c for c in scene.chips if scene.comparison.chips[c].id == selected_chip]


def _peak_texts(scene: ChartScene, chips: list[int]) -> list[_RoofText]:
    texts = []
    for c in chips:
        for roof in scene.spec.roofs_of(c):
            kind = "" if roof.kind == "datasheet" else f" {roof.kind}"
            texts.append(_RoofText(c, f"{roof.precision}{kind}", roof.peak, roof.ridge))
    return texts


def _diagonal_texts(scene: ChartScene, chips: list[int]) -> list[_RoofText]:
    texts, cmp = [], scene.comparison
    derated = cmp.result.derated
    for c in chips:
        roofs = scene.spec.roofs_of(c)
        if not roofs:
            continue
        top = roofs[0].peak
        texts.append(_RoofText(c, _main_memory_what(cmp.chips[c], derated), roofs[0].bandwidth,
                               top=top))
        for d in scene.spec.diagonals:
            if d.chip == c:
                texts.append(_RoofText(c, d.name, d.bandwidth, top=top, low=True,
                                       host=d.role == "host", unused=not d.used))
    return texts


def main_memory_text(scene: ChartScene, c: int) -> str:
    """Chip ``c``'s main memory at its shortest, as its line's label may name it ("HBM2 1.555
    TB/s", "DDR5-4800 307.2 GB/s", "HBM2 measured 1.3 TB/s"): the legend's row of the chip says
    it, so every chip's solid line is named where a crowded chart has no spot for its label
    (the twenty-fourth tour); "" for a chip the chart draws no roof of."""
    roofs = scene.spec.roofs_of(c)
    if not roofs:
        return ""
    what = _main_memory_what(scene.comparison.chips[c], scene.comparison.result.derated,
                             _level_word)
    return f"{what} {format_si(roofs[0].bandwidth, 'B/s')}"


def _main_memory_what(chip, derated: bool, name=lambda level: level) -> str:
    """A chip's main memory as its line's label names it: its ``name`` ("HBM2"), and the kind
    of figure where not the datasheet's ("HBM2 measured", "HBM2 derated")."""
    kind = chip.dram.provenance(derated).kind
    return name(chip.dram.name) + ("" if kind == "datasheet" else f" {kind}")


def unnamed_lines(scene: ChartScene, roof_labels) -> list[str]:
    """The lines of levels besides main memory (caches, host and chip-to-chip links) that no
    label along them names, each as its tooltip would ("H100 SXM5 80GB: L2 (50 MB) 5.5 TB/s",
    "…: PCIe 64 GB/s each way (faint: no kernel moves bytes there)"): an exported picture has no
    tooltips, and a crowded or small chart leaves some unnamed (the tours' "faint dashed roofs
    without a label"). Main memory's are named in the legend (main_memory_text)."""
    named = {line for label in roof_labels for line in label.lines}
    out = []
    for t in _diagonal_texts(scene, list(scene.chips)):
        if not t.low or (t.chip, t.what) in named:
            continue
        each_way = " " + _("each way") if t.host else ""
        faint = " " + _("(faint: no kernel moves bytes there)") if t.unused else ""
        out.append(_("{chip}: {memory}").format(
            chip=scene.comparison.chips[t.chip].name,
            memory=f"{t.what} {format_si(t.value, 'B/s')}{each_way}{faint}"))
    return out


def peak_key_texts(scene: ChartScene, chips: list[int], foreground: str
                   ) -> list[tuple[str, float, float, str, tuple[int, ...], str]]:
    """The peaks' labels of ``chips`` the key may show, whatever the view: (text, peak, ridge,
    colour, chips, short form), roofs drawn on each other merged."""
    cmp, units = scene.comparison, scene.spec.units
    rate_unit = f"{units.word}/s"
    texts = []
    for group in _groups(_peak_texts(scene, chips), lambda t: math.log10(t.value)):
        value = figure_of([t.value for t in group], rate_unit)
        text = _merged_text([(cmp.chips[t.chip].name, t.what) for t in group], value)
        on = tuple(sorted({t.chip for t in group}))
        # each chip's own roof, the same: "fp8 1.979 Pop/s: 2 chips" had read as a two-chip
        # system's peak (the twentieth tour)
        counted = ngettext("{n} chip each", "{n} chips each", len(on)).format(
            n=len(on))
        # (its precisions too where there are several: "1.979 Pop/s: 2 chips each" had said
        # of which roof nothing, the 38th tour)
        short = ("" if len(on) < 2 else
                 f"{', '.join(dict.fromkeys(t.what for t in group))} {value}: {counted}")
        texts.append((text, group[0].value, min(t.ridge for t in group),
                      _color(scene, group, foreground), on, short))
    return texts


def place_peak_key(scene: ChartScene, g: LabelGeometry, selected_chip: str | None,
                   texts: list[tuple[str, float, float, str, tuple[int, ...], str]]
                   ) -> tuple[KeyLabel, ...]:
    """The peaks' labels in the key at the chart's right: each beside where its roof meets the
    view's right edge (a roof whose flat part starts past that edge, or lies above or below the
    view, has none), a line apart from its neighbours; where the view's height holds fewer than
    there are, the selected chip's and then the highest peaks' are kept."""
    sy = g.px[1]
    x_lo, x_hi, y_lo, y_hi = g.view
    shown = [t for t in texts if t[2] < 10.0 ** x_hi and y_lo < math.log10(t[1]) < y_hi]
    room = int((y_hi - y_lo) * sy // g.line)
    if len(shown) > room:
        selected = {c for c, chip in enumerate(scene.comparison.chips) if chip.id == selected_chip}
        shown = sorted(shown, key=lambda t: (not selected & set(t[4]), -t[1]))[:max(room, 0)]
    shown.sort(key=lambda t: -t[1])  # top to bottom
    wanted = [-math.log10(t[1]) * sy for t in shown]
    spots = spread(wanted, -y_hi * sy + g.line / 2, -y_lo * sy - g.line / 2, g.line)
    return tuple(KeyLabel(text, math.log10(peak), -spot / sy, color, chips, short)
                 for (text, peak, _ridge, color, chips, short), spot in zip(shown, spots,
                                                                            strict=True))


def spread(wanted: list[float], lo: float, hi: float, step: float) -> list[float]:
    """Positions as near ``wanted`` (ascending) as they can be while ``step`` or more apart and
    within [lo, hi]: neighbours too close form a block, placed where its members' squared
    distances from where they want to be add up least (its mean), pushed inside the bounds."""
    blocks: list[list[float]] = []  # [count, sum of (wanted − index in block × step), start]
    for w in wanted:
        blocks.append([1, w, 0.0])
        while True:
            n, total, _start = blocks[-1]
            start = min(max(total / n, lo), hi - (n - 1) * step)
            blocks[-1][2] = start
            if len(blocks) > 1 and blocks[-2][2] + blocks[-2][0] * step > start:
                last = blocks.pop()
                first = blocks[-1]
                first[1] += last[1] - last[0] * first[0] * step
                first[0] += last[0]
                continue
            break
    return [start + i * step for n, _total, start in blocks for i in range(int(n))]


def place_roof_labels(scene: ChartScene, g: LabelGeometry, selected_chip: str | None,
                      foreground: str, *, faint: bool = False,
                      taken: tuple[tuple[float, float, float, float], ...] = ()
                      ) -> tuple[ChartLabel, ...]:
    """The diagonals' labels along them (the peaks' are in the key: place_peak_key); equal ones
    merged, none over another. ``faint``: instead, the labels of the levels no kernel uses
    (drawn faint), each only where a spot is clear of everything, ``taken`` included (the boxes
    of the other labels and the kernels' names, which go first)."""
    chips = _labelled_chips(scene, selected_chip)
    if g.bounds[3] - g.bounds[1] < MIN_LABELLED_PX:
        return ()  # a chart too small for them (eight side by side at 1280 × 800): tooltips only
    boxes: list[tuple] = [*g.avoid, *taken]
    markers = _marker_boxes(scene, g)
    lines = _line_segments(scene, g)
    # lines drawn within a few pixels of each other read as one: one label names each (the
    # H100's "L2 5.5 TB/s: H100" on the MI300X's HBM3 line at 5.3 TB/s read as that line's:
    # the thirteenth tour), a faint one with the solid one it lies on
    groups = [group for group in _groups(_diagonal_texts(scene, chips),
                                         lambda t: math.log10(t.value),
                                         max(SAME_LINE, NEAR_LINE_PX / g.px[1]))
              if all(t.unused for t in group) == faint]
    # Main memory's diagonals first (what the kernels' markers sit on), then the other levels';
    # in a crowded chart a level's label may then find no clear spot where the chips' order
    # had found one: both orders are tried there, and the one covering less is kept.
    main_first = sorted(groups, key=lambda group: all(t.low for t in group))
    # and the selected chip's main memory before every other line: a duplicated A100 typed to
    # 3.1 TB/s, selected, had its own roof left bare where the others' took the spots (the
    # twenty-third tour)
    selected = {c for c in chips if scene.comparison.chips[c].id == selected_chip}
    mine_first = sorted(main_first, key=lambda group: not (
        selected & {t.chip for t in group} and not all(t.low for t in group)))
    orders = list(dict.fromkeys(tuple(map(id, o)) for o in (mine_first, main_first, groups)))
    by_id = {id(group): group for group in groups}
    best, fewest = (), math.inf
    for order in ([by_id[i] for i in ids] for ids in orders):
        along, cost = _place_diagonals(order, scene, g, foreground, list(boxes), markers, lines,
                                       faint, frozenset(selected))
        if cost < fewest:
            best, fewest = along, cost
        if cost == 0:
            break
    return best


def _place_diagonals(groups: list[list[_RoofText]], scene: ChartScene, g: LabelGeometry,
                     foreground: str, boxes: list, markers: np.ndarray, lines: np.ndarray,
                     faint: bool, selected: frozenset[int] = frozenset()
                     ) -> tuple[tuple[ChartLabel, ...], float]:
    """The diagonals' labels, in the order of ``groups``, and what they cover: markers
    (MARKER_COST each), lines, and a label left out (LEFT_OUT; main memory's twice, the
    ``selected`` chip's main memory four times)."""
    cmp, placed, cost = scene.comparison, [], 0.0
    tags = _chip_tags([cmp.chips[c].name for c in range(len(cmp.chips))])
    near = max(SAME_LINE, NEAR_LINE_PX / g.px[1])
    diagonals = lines[lines[:, 4] == 1, 5]
    for group in groups:
        own = math.log10(group[0].value)
        chips = list(dict.fromkeys(t.chip for t in group))
        # A line lying on another chip's, or a few pixels from it, is not plainly its chip's:
        # its label names the chips in every form (the A100's "32 GB/s each way" on TPU v1's
        # DDR3 line at 34 GB/s, and a black "HBM2 900 GB/s" shared by two chips, read as
        # another line's or no chip's: the eleventh tour)
        apart = np.abs(diagonals - own)
        # a chart of one chip (each of side by side's) names none: its title says whose
        # ("…: Xeon Platinum 8480+" on the Xeon's own chart: the eighteenth tour)
        solo = len(scene.chips) == 1
        named = not solo and (len(chips) > 1 or bool(((apart >= SAME_LINE) & (apart < near)).any()))
        # lines a few pixels apart, grouped: each figure with its level and chips, "; " between
        # ("HBM3 5.3 TB/s: Instinct MI300X; L2 5.5 TB/s: H100 SXM5 80GB")
        pieces: dict[str, tuple] = {}  # a form's coloured pieces, where it names several
        # the lines a form names, where it names some of the group's only (main memory's
        # alone: the others are left to the key and their tooltips, not counted as named)
        names_lines: dict[str, set] = {}
        subs = sorted(_groups(group, lambda t: math.log10(t.value)),  # main memory's first
                      key=lambda sub: (all(t.low for t in sub), -sub[0].value))
        parts = [_line_forms(sub, cmp, tags, named) for sub in subs]
        if len(parts) == 1:
            forms = parts[0]
        else:  # one chip's lines (a CPU's DDR5 and PCIe 5.0): its name once, at the end
            one = len(chips) == 1
            joined = [_line_forms(sub, cmp, tags, False) for sub in subs] if one else parts
            forms = {}
            inks = [_color(scene, sub, foreground) for sub in subs]
            for i in range(max(len(p) for p in joined)):
                chosen = [list(p.items())[min(i, len(p) - 1)] for p in joined]
                if not one and len({lost >= 1.0 for _w, lost in chosen}) > 1:
                    # a line's words without its chips beside another's with them read as
                    # those chips' both: "HBM3 5.3 TB/s; L2 (50 MB) 5.5 TB/s: H100, H100
                    # (copy)" named the H100s for the MI300Xs' HBM3 (the twenty-eighth tour)
                    continue
                whose = (f": {cmp.chips[chips[0]].name if i == 0 else tags[chips[0]]}"
                         if one and not solo else "")
                words = "; ".join(w for w, _lost in chosen) + whose
                forms.setdefault(words, max(lost for _w, lost in chosen))
                if not one:  # each line's words in its chip's colour
                    pieces[words] = tuple(
                        piece for j, ((w, _lost), ink) in enumerate(zip(chosen, inks, strict=True))
                        for piece in ((("; ", foreground),) if j else ()) + ((w, ink),))
            # where none of those fits, main memory's line alone, its chip named (the solid
            # line the others lie on: TPU v1's DDR3 line, on which the A100's PCIe lies,
            # had gone unnamed in the article's chart)
            for sub, part, ink in zip(subs, joined, inks, strict=True):  # (one chip's: its
                # lines alone say whose)
                if not any(t.low for t in sub):
                    for words, lost in part.items():
                        if words not in forms:
                            names_lines[words] = {(t.chip, t.what) for t in sub}
                        forms.setdefault(words, 1.0 + lost)
                        pieces.setdefault(words, ((words, ink),))
        text = next(iter(forms))
        label, covered = None, math.inf  # math.inf ≥ MARKER_COST: the whole text is tried
        # where the whole text covers a marker (or has no spot), a shorter one; a label with
        # no spot is left out, its line's tooltip names it
        # and where it crosses a solid line, a shorter one that crosses none ("PCIe Gen4 x16 32
        # GB/s each way" ran across the A100's fp32 roof side by side where "PCIe 32 GB/s each
        # way" had room below it: the thirty-first tour)
        cut = 0.0
        for words, lost in forms.items():
            if covered < 1.0:
                break
            if covered < MARKER_COST and lost >= 1.0:
                continue  # (for a crossed line, no form that drops the chips' names)
            spot, cost_here = _place_diagonal(words, group[0].value, max(t.top for t in group),
                                              all(t.low for t in group),
                                              _color(scene, group, foreground), g, boxes,
                                              markers, lines, clear_only=faint,
                                              several=not solo)
            better = 0 if words is text else 1 if covered >= MARKER_COST else 0.5
            if spot is not None and cost_here < covered - better:
                label, covered, cut = spot, cost_here, lost
        if covered >= MARKER_COST:  # even its shortest form would hide a marker (a small
            label = None  # chart side by side: "7 TB/s" over five of the A100's): left out,
            # its line's tooltip names it
        elif label is not None and all(t.low for t in group) and _text_over_lines(
                [label], g, lines[lines[:, 6] >= 1], math.log10(group[0].value), near)[0] >= 1:
            # another level's label that crosses a solid line in every form and spot (the A100's
            # "L2 (40 MB) 7 TB/s" across its fp32 roof, side by side at 1240 × 940): left out,
            # its tooltip and an export's key name it (main memory's is kept: its line is the
            # one the kernels sit on)
            label = None
        if label is None:  # main memory's line left out costs twice another level's (the
            # article's chart named TPU v1's Unified Buffer and lost the HBM2 900 GB/s that
            # two chips' kernels sit on)
            main = not all(t.low for t in group)
            cost += 0.0 if faint else LEFT_OUT * (
                1 if not main else 4 if selected & {t.chip for t in group} else 2)
            continue
        # a shorter form costs the order a little: of two orders covering as much, the one that
        # names more (TPU v1's DDR3-2133 line whole, not shortened where PCIe had taken its spot)
        cost += covered + cut
        inked = pieces.get(label.text, ())
        lines_named = names_lines.get(label.text, {(t.chip, t.what) for t in group})
        placed.append(replace(label, chips=tuple(sorted({c for c, _w in lines_named})),
                              lines=tuple(sorted(lines_named)),
                              color=inked[0][1] if len(inked) == 1 else label.color,
                              pieces=inked if len(inked) > 1 else ()))
        boxes += label_footprint(label, g)
    return tuple(placed), cost


def figure_of(values: list[float], unit: str) -> str:
    """One figure for values drawn as one line (within SAME_LINE): the value, or where they
    read differently, their range ("448–450 GB/s": "450 GB/s" had named the MI300X's Infinity
    Fabric at 448 too, the twenty-ninth tour)."""
    lo, hi = format_si(min(values), unit), format_si(max(values), unit)
    if lo == hi:
        return lo
    lo_number, _sep, lo_unit = lo.rpartition(" ")
    hi_number, _sep, hi_unit = hi.rpartition(" ")
    return f"{lo_number}–{hi}" if lo_unit == hi_unit else f"{lo}–{hi}"


def _line_forms(group: list[_RoofText], cmp, tags: list[str], named: bool) -> dict[str, float]:
    """A label's texts for diagonals drawn on each other (one figure), longest first, and
    what each one's left-out words cost the order: the whole, then shorter ones (the chips
    by the start of their names, the level without its size or count, "Unified Buffer 179.2
    GB/s", its initials or first word); never the figure alone, which says neither what nor
    whose ("179.2 GB/s", "900 GB/s": the eleventh tour). ``named``: every form names the
    chips, but for the last of a line several chips share (its level and figure: with their
    names it may have no spot at all)."""
    # A host link's figure is per direction; the one often quoted counts both ways.
    each_way = " " + _("each way") if all(t.host for t in group) else ""
    figure = figure_of([t.value for t in group], "B/s")
    chips = list(dict.fromkeys(t.chip for t in group))
    text = _merged_text([(cmp.chips[t.chip].name, t.what) for t in group], figure + each_way)
    if named and len(chips) == 1:
        text = f"{text}: {cmp.chips[chips[0]].name}"
    whats = _levels_once([t.what for t in group])
    what = next(iter(whats.values())) if len(whats) == 1 else None
    brief = f"{_PARENTHESES.sub('', what).strip()} {figure}{each_way}" if what else None
    forms = {text: 0.0}
    if named:
        tagged = _joined([tags[c] for c in chips])
        shorter = ([f"{what} {figure}{each_way}: {tagged}"] if what else
                   [f"{figure}{each_way}: " + _joined([f"{tags[t.chip]} {t.what}"
                                                       for t in group])])
        if brief is not None:
            shorter.append(f"{brief}: {tagged}")
            # its first word ("PCIe 16 GB/s each way: TPU v3, V100": the figure and chips
            # alone did not say what the line was: the twelfth tour)
            shorter.append(f"{_level_word(what)} {figure}{each_way}: {tagged}")
        for words, lost in zip(shorter, (0.25, 0.5, 0.75), strict=False):
            forms.setdefault(words, lost)
        if brief is not None and len(chips) > 1:
            # last, its level and figure without the chips (its tooltip names them): with an
            # A100 duplicated, "L2 7 TB/s: A100, A100 (copy)" had no spot and the line went
            # unnamed (the twenty-third tour); one chip's line, named by its colour, keeps them
            forms.setdefault(brief, 1.0)
            forms.setdefault(f"{_level_word(what)} {figure}{each_way}", 1.25)
    elif brief is not None:
        forms.setdefault(brief, 0.5)
        # a level of capitalised words by their initials, as its makers write it ("UB
        # 179.2 GB/s", TPU v1's Unified Buffer), else its first word ("PCIe 16 GB/s")
        forms.setdefault(f"{_level_word(what)} {figure}{each_way}", 0.75)
    return forms


def _color(scene: ChartScene, group: list[_RoofText], foreground: str) -> str:
    colors = {scene.comparison.chips[t.chip].color or "#808080" for t in group}
    return colors.pop() if len(colors) == 1 else foreground


def _marker_boxes(scene: ChartScene, g: LabelGeometry) -> np.ndarray:
    """The shown chips' kernel markers and the workloads' marks as boxes (pixels), which the
    roofs' labels keep clear of where they can. No kernel markers in a chart of more than
    KERNEL_LABELS_MAX kernels, whose markers cover the roofs anyway."""
    spec = scene.spec
    xs, ys = _workload_obstacles(scene)
    if 0 < len(spec.marker_x) <= KERNEL_LABELS_MAX and spec.marker_y.size:
        with np.errstate(divide="ignore", invalid="ignore"):
            y = np.log10(spec.marker_y[:, list(scene.chips)])
            xs = np.concatenate([np.repeat(np.log10(spec.marker_x), y.shape[1]), xs])
            ys = np.concatenate([y.ravel(), ys])
        levels = spec.levels  # a point at each memory level (View → Memory levels): the host
        if levels is not None and len(levels):  # link's label covered one (the tour)
            on = among(levels.chip, scene.chips)
            with np.errstate(divide="ignore", invalid="ignore"):
                xs = np.concatenate([xs, np.log10(levels.x[on])])
                ys = np.concatenate([ys, np.log10(levels.y[on])])
    half = np.full(len(xs), 6.0)
    # a workload's big point is drawn 17 px across (21 hovered): as a kernel's marker, the
    # roof's label was written over half of it (the second tour, Llama-3-8B's prefill)
    with np.errstate(divide="ignore", invalid="ignore"):
        big_x = [np.full(len(m.point_y), np.log10(m.point_x)) for m in scene.workloads]
        big_y = [np.log10(m.point_y) for m in scene.workloads]
    if big_x:
        xs, ys = np.concatenate([xs, *big_x]), np.concatenate([ys, *big_y])
        half = np.concatenate([half, np.full(len(xs) - len(half), WORKLOAD_POINT_HALF)])
    # (not the selected kernel's ring: the roofs' labels then moved at every click, "L2 7 TB/s"
    # and "179.2 GB/s" jumping while the user compared kernels: the eleventh tour; its marker
    # keeps them a marker's half off its middle)
    xs, ys = xs * g.px[0], -ys * g.px[1]
    ok = np.isfinite(xs) & np.isfinite(ys)
    return np.column_stack([xs - half, ys - half, xs + half, ys + half])[ok]


def _line_segments(scene: ChartScene, g: LabelGeometry) -> np.ndarray:
    """Every line the shown chips' roofs draw, as segments in label pixels: each roof's flat
    part and its main-memory diagonal (and its datasheet roof's, where drawn), each other
    level's diagonal. Rows (x0, y0, x1, y1, kind,
    log10 value): kind 0 a flat part (value: its peak), 1 a diagonal (value: its bandwidth), so
    a label can tell its own line (which it sits on) from the others, 2 a kernel's dotted line
    between its memory levels (_connectors). A seventh column weighs
    what crossing it costs: 1 a line drawn solid, FAINT_LINE a faint level's dashed diagonal
    (drawn light and hidden by a label's backdrop; as much as a solid line, every spot of a
    crowded chart was crossed and the label fell on the kernels' markers instead)."""
    (sx, sy), (x_lo, x_hi, _y_lo, _y_hi) = g.px, g.view
    shown, rows = set(scene.chips), []
    # the datasheet roofs a what-if or achievable roof moved from too, drawn long-dashed (one
    # ran through the end of "HBM3 5.3 TB/s: Instinct MI300X": the seventeenth tour)
    for r in (*scene.spec.roofs, *scene.spec.datasheet_roofs):
        if r.chip not in shown or not (r.peak > 0 and r.ridge > 0 and r.bandwidth > 0):
            continue
        lp, lr, lb = math.log10(r.peak), math.log10(r.ridge), math.log10(r.bandwidth)
        if lr < x_hi:
            rows.append((max(lr, x_lo) * sx, -lp * sy, x_hi * sx, -lp * sy, 0, lp, 1.0))
        if lr > x_lo:
            rows.append((x_lo * sx, -(x_lo + lb) * sy, min(lr, x_hi) * sx,
                         -(min(lr, x_hi) + lb) * sy, 1, lb, 1.0))
    for d in scene.spec.diagonals:
        if d.chip not in shown or not (d.bandwidth > 0 and d.top > 0):
            continue
        lb, end = math.log10(d.bandwidth), math.log10(d.top / d.bandwidth)
        if end > x_lo:
            rows.append((x_lo * sx, -(x_lo + lb) * sy, min(end, x_hi) * sx,
                         -(min(end, x_hi) + lb) * sy, 1, lb, 1.0 if d.used else FAINT_LINE))
    out = np.array(rows, dtype=float).reshape(-1, 7)
    return np.concatenate([out, _connectors(scene, g)])


def _connectors(scene: ChartScene, g: LabelGeometry) -> np.ndarray:
    """The dotted lines joining each kernel's points at its memory levels (View → Memory
    levels), as _line_segments' rows of kind 2 (a roof's label had sat on one: the fifth tour);
    none in a chart of more than KERNEL_LABELS_MAX kernels, whose markers are no obstacle."""
    levels = scene.spec.levels
    if levels is None or not len(levels) or not 0 < len(scene.spec.marker_x) <= KERNEL_LABELS_MAX:
        return np.zeros((0, 7))
    on = among(levels.chip, scene.chips)
    with np.errstate(divide="ignore", invalid="ignore"):
        lx, ly = np.log10(levels.x[on]), np.log10(levels.y[on])
    group = levels.kernel[on].astype(np.int64) * (int(levels.chip.max()) + 1) + levels.chip[on]
    order = np.argsort(group, kind="stable")
    group, lx, ly = group[order], lx[order], ly[order]
    if not len(group):
        return np.zeros((0, 7))
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    lo, hi, y = np.minimum.reduceat(lx, starts), np.maximum.reduceat(lx, starts), ly[starts]
    keep = (hi > lo) & np.isfinite(lo) & np.isfinite(hi) & np.isfinite(y)
    lo, hi, y = lo[keep], hi[keep], y[keep]
    (sx, sy) = g.px
    return np.column_stack([lo * sx, -y * sy, hi * sx, -y * sy, np.full(len(y), 2.0), y,
                            np.ones(len(y))])


def _crossed(box, lines: np.ndarray, kind: int, value: float, near: float = SAME_LINE) -> float:
    """How many lines run through ``box`` (a pixel inside its edges), each by its weight, its
    own left out: those of ``kind`` at ``value`` (log10), which the label sits on."""
    return float(_crossed_each(np.asarray(box, dtype=float)[None, :], lines, kind, value, near)[0])


def _crossed_each(boxes: np.ndarray, lines: np.ndarray, kind: int, value: float,
                  near: float = SAME_LINE) -> np.ndarray:
    """_crossed for each row of ``boxes`` ([N, 4]) at once; lines of ``kind`` within ``near``
    decades of ``value`` count as the label's own (drawn on it: no spot can keep clear of
    them)."""
    if not len(lines) or not len(boxes):
        return np.zeros(len(boxes))
    x0, y0 = boxes[:, 0:1], boxes[:, 1:2] + 1
    x1, y1 = boxes[:, 2:3], boxes[:, 3:4] - 1
    ax, ay, bx, by = lines[:, 0], lines[:, 1], lines[:, 2], lines[:, 3]
    lo, hi = np.maximum(x0, np.minimum(ax, bx)), np.minimum(x1, np.maximum(ax, bx))
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = np.where(bx != ax, (by - ay) / (bx - ax), 0.0)
    ya, yb = ay + (lo - ax) * slope, ay + (hi - ax) * slope
    through = (lo < hi) & (np.maximum(ya, yb) > y0) & (np.minimum(ya, yb) < y1)
    own = (lines[:, 4] == kind) & (np.abs(lines[:, 5] - value) < near)
    # weights are 1 and FAINT_LINE (binary fractions): the sums are exact in any order
    return (through & ~own) @ lines[:, 6]


def _free(box, boxes: list, markers: np.ndarray | None = None) -> bool:
    b = np.asarray(box, dtype=float)[None, :]
    if boxes and overlaps_each(b, np.asarray(boxes, dtype=float))[0]:
        return False
    return markers is None or not overlaps_each(b, markers)[0]


def _place_diagonal(text: str, bw: float, top: float, low: bool, color: str, g: LabelGeometry,
                    boxes: list, markers: np.ndarray, lines: np.ndarray,
                    clear_only: bool = False, several: bool = False
                    ) -> tuple[ChartLabel | None, float]:
    """Along a bandwidth diagonal inside the view: main memory's a decade or so below its
    ridge, sliding down its diagonal a third of a decade at a time while it would cover
    another label or a marker, then up towards the ridge; other levels' near the chart's bottom,
    sliding up. Where every spot covers a marker, the one covering fewest (``clear_only``: a
    faint level's, none). None where nothing is free of labels (the line's tooltip names it).
    ``several``: a chart of several chips, where a text set off its line must have no other
    solid line beside it (it would read as that line's)."""
    x_lo, x_hi, y_lo, _y_hi = g.view
    bottom = max(x_lo + math.log10(1.5), y_lo + math.log10(2.5) - math.log10(bw))
    start = bottom if low else max(min(math.log10(top / bw / 20), x_hi - math.log10(8)), bottom)
    steps = [start + i / 3 for i in range(6)] if low else [start - i / 3 for i in range(6)
                                                            if start - i / 3 >= bottom]
    if not low:  # then up towards the ridge, while the whole text stays on the diagonal
        span = (text_width(text, g.text_px) + 8) / math.hypot(*g.px)  # decades of x it takes
        steps += [start + i / 3 for i in range(1, 6)
                  if start + i / 3 + span <= math.log10(top / bw)]
    # then, where each of those covers a marker (a kernel's point on this very line, held by
    # it: the tour's host link), every other spot along the visible diagonal, and under it
    end = min(x_hi, math.log10(top / bw)) if top > 0 else x_hi
    span = (text_width(text, g.text_px) + 8) / math.hypot(*g.px)
    more = [bottom + i / 6 for i in range(int(max(0.0, end - span - bottom) * 6) + 1)]
    labels = [ChartLabel(text, lx, lx + math.log10(bw), color, anchor=anchor, along=(1.0, 1.0))
              for anchor, spots in (((0.0, 1.0), steps), ((0.0, 1.0), more),
                                    ((0.0, 0.0), steps + more))
              for lx in spots]
    if not labels:
        return None, math.inf
    own, near_px = math.log10(bw), max(SAME_LINE, NEAR_LINE_PX / g.px[1])
    usable, costs = _weigh_spots(labels, g, boxes, markers, lines, own, near_px)
    if not (usable & (costs == 0)).any():
        # none clear by its staircase of boxes, which reaches past the text's edges: the lines
        # weighed through its text as drawn (a box turned along its line), each once. The
        # A100's HBM2 label, between the H100's HBM3 line 20 px above and the 900 GB/s line
        # 12 px below, was "crossed" by both at every spot, once per box, and left out (the
        # twenty-second tour)
        usable, costs = _weigh_spots(labels, g, boxes, markers, lines[:0], own, near_px)
        costs = costs + _text_over_lines(labels, g, lines, own, near_px)
    clear = np.flatnonzero(usable & (costs == 0)).tolist()
    if clear:
        offsets = lines[(lines[:, 4] == 1), 5] - own
        offsets = offsets[(np.abs(offsets) >= SAME_LINE) & (np.abs(offsets) < near_px)]
        # a near line above (more bandwidth): the text below its line, anchored at its top
        side = ((0.0, 0.0) if (offsets > 0).any() and not (offsets < 0).any() else
                (0.0, 1.0) if (offsets < 0).any() and not (offsets > 0).any() else None)
        away = next((i for i in clear if labels[i].anchor == side), clear[0])
        return labels[away], 0.0
    best, fewest = None, math.inf
    for label, ok, covered in zip(labels, usable, costs, strict=True):
        if ok and covered < fewest:  # no spot clear of every marker: the one covering fewest
            best, fewest = label, float(covered)
    if not clear_only and fewest > OFF_LINE:
        # none clear on its line: the text set a little off it, parallel, where that is clear
        # of everything (a small chart side by side: a marker at every spot of the A100's HBM2
        # diagonal, its label was left out: the tours)
        shift = OFF_LINE_PX / math.cos(math.atan2(g.px[1], g.px[0])) / g.px[1]  # decades of y
        off = [ChartLabel(text, lx, lx + own + side * shift, color, anchor=anchor, along=(1.0, 1.0))
               for side, anchor in ((-1, (0.0, 0.0)), (1, (0.0, 1.0)))
               for lx in dict.fromkeys(steps + more)]
        # markers and lines weighed against the text's own slanted box: its footprint's
        # upright boxes reach back towards the line, over the markers on it, at every spot,
        # and over the next level's diagonal (the A100's HBM2 label, off its line, was "crossed"
        # at every spot by the L2 diagonal its text kept clear of: the tenth tour)
        # (a faint level's diagonal may run under it, hidden by its backdrop: between the
        # A100's HBM2 and L2 diagonals, 25 px apart side by side, no spot is clear of both)
        usable, _ = _weigh_spots(off, g, boxes, np.zeros((0, 4)), lines[:0], own, near_px)
        crossed = _text_over_lines(off, g, lines, own, near_px)
        ok = usable & ~_text_over_markers(off, g, markers) & (crossed < 1)
        if several:  # where the lines are several chips', none drawn solid beside its text:
            # off its line by OFF_LINE_PX the H200's "HBM3e 4.8 TB/s" lay along the B200's
            # 8 TB/s line and read as its label (the thirtieth tour); left out, the legend
            # (main memory) or the key and the tooltips (other levels) name its line
            solid = lines[(lines[:, 4] == 1) & (lines[:, 6] >= 1)]  # diagonals drawn solid
            ok &= _text_over_lines(off, g, solid, own, near_px, pad=OFF_LINE_PX / 2) == 0
        # of those crossing least, one with no other line within OFF_LINE_PX of its text: set
        # just above another line, it read as that line's label (TPU v3's "HBM2 900 GB/s" over
        # its PCIe line, side by side: the twelfth tour)
        crowded = _text_over_lines(off, g, lines, own, near_px, pad=OFF_LINE_PX)
        rank = np.where(ok, crossed * 100 + crowded, np.inf)
        best_off = int(np.argmin(rank)) if ok.any() else -1
        if best_off >= 0 and OFF_LINE + crossed[best_off] < fewest:
            return off[best_off], OFF_LINE + float(crossed[best_off])
    return (None, math.inf) if clear_only or best is None else (best, fewest)


def _text_frame(label: ChartLabel, g: LabelGeometry) -> tuple[float, float, float]:
    """A slanted label's text frame: the cosine and sine of its turn on screen, and its text
    box's width (pixels)."""
    angle = math.atan2(-label.along[1] * g.px[1], label.along[0] * g.px[0])
    return math.cos(angle), math.sin(angle), text_width(label.text, g.text_px) + 4


def _text_over_markers(labels: list[ChartLabel], g: LabelGeometry, markers: np.ndarray
                       ) -> np.ndarray:
    """For slanted labels of one text and anchor direction: whether each one's text, as drawn
    (a box turned along its line), comes within a marker's half-width of a marker's middle."""
    if not len(markers) or not labels:
        return np.zeros(len(labels), dtype=bool)
    c, s, w = _text_frame(labels[0], g)
    out = np.zeros(len(labels), dtype=bool)
    mx, my = (markers[:, 0] + markers[:, 2]) / 2, (markers[:, 1] + markers[:, 3]) / 2
    half = (markers[:, 2] - markers[:, 0]) / 2
    for i, label in enumerate(labels):
        x0, y0 = label_text_origin(label, w, g.line)
        dx, dy = mx - label.x * g.px[0], my + label.y * g.px[1]
        u, v = dx * c + dy * s, -dx * s + dy * c  # the markers in the text's own frame
        gap = np.hypot(np.maximum(np.maximum(x0 - u, u - x0 - w), 0.0),
                       np.maximum(np.maximum(y0 - v, v - y0 - g.line), 0.0))
        out[i] = bool((gap < half).any())
    return out


def _text_over_lines(labels: list[ChartLabel], g: LabelGeometry, lines: np.ndarray, own: float,
                     near: float, pad: float = 0.0) -> np.ndarray:
    """For slanted labels of one text and anchor direction: the lines (_line_segments' rows)
    running through each one's text as drawn, a box turned along its line (each segment
    clipped to the box, Liang–Barsky), each by its weight; the label's own diagonal (``own``
    within ``near`` decades) left out. ``pad``: the box grown by that many pixels each way."""
    if not labels:
        return np.zeros(0)
    other = ~((lines[:, 4] == 1) & (np.abs(lines[:, 5] - own) < near))
    lines = lines[other]
    if not len(lines):
        return np.zeros(len(labels))
    c, s, w = _text_frame(labels[0], g)
    # every label against every segment at once ([N, 1] against [1, M]): one label at a time,
    # the article's chart spent 40 ms a draw here
    origin = np.array([label_text_origin(label, w, g.line) for label in labels]) - pad
    x0, y0 = origin[:, 0:1], origin[:, 1:2]
    px = np.array([[label.x * g.px[0]] for label in labels])
    py = np.array([[-label.y * g.px[1]] for label in labels])
    # the segments' ends in each text's own frame
    ax, ay = lines[None, :, 0] - px, lines[None, :, 1] - py
    bx, by = lines[None, :, 2] - px, lines[None, :, 3] - py
    au, av = ax * c + ay * s, -ax * s + ay * c
    du, dv = (bx * c + by * s) - au, (-bx * s + by * c) - av
    t0, t1 = np.zeros(au.shape), np.ones(au.shape)
    inside = np.ones(au.shape, dtype=bool)
    for d, lo, hi, a in ((du, x0, x0 + w + 2 * pad, au), (dv, y0, y0 + g.line + 2 * pad, av)):
        flat = np.abs(d) < 1e-12
        inside &= ~flat | ((a > lo) & (a < hi))
        with np.errstate(divide="ignore", invalid="ignore"):
            ta, tb = (lo - a) / d, (hi - a) / d
        t0 = np.where(flat, t0, np.maximum(t0, np.minimum(ta, tb)))
        t1 = np.where(flat, t1, np.minimum(t1, np.maximum(ta, tb)))
    return (inside & (t0 < t1)) @ lines[:, 6]


def _weigh_spots(labels: list[ChartLabel], g: LabelGeometry, boxes: list, markers: np.ndarray,
                 lines: np.ndarray, own: float, near_px: float) -> tuple[np.ndarray, np.ndarray]:
    """For slanted labels of one text at several spots: whether each is usable (inside the
    view, over no other label) and what it covers (MARKER_COST a marker, each line crossed by
    its weight; the lines of its own diagonal, ``own`` within ``near_px`` decades, not)."""
    # Every spot weighed at once (one spot at a time, the article's chart spent 0.4 s a draw
    # here): each spot's footprint is its anchor's shape moved to it.
    text, color = labels[0].text, labels[0].color
    shapes = {anchor: np.asarray(_footprint_shape(ChartLabel(text, 0.0, 0.0, color, anchor=anchor,
                                                             along=(1.0, 1.0)), g))
              for anchor in {label.anchor for label in labels}}
    pieces = np.array([len(shapes[label.anchor]) for label in labels])
    owner = np.repeat(np.arange(len(labels)), pieces)
    at = np.array([(label.x * g.px[0], -label.y * g.px[1]) for label in labels])
    feet = np.concatenate([shapes[label.anchor] for label in labels]) + np.tile(at[owner], 2)
    left, top, right, bottom = g.bounds
    bad = ~((left <= feet[:, 0]) & (feet[:, 2] <= right) & (top <= feet[:, 1])
            & (feet[:, 3] <= bottom))
    if boxes:
        bad |= overlaps_each(feet, np.asarray(boxes, dtype=float))
    usable = np.bincount(owner, weights=bad, minlength=len(labels)) == 0
    # a diagonal a few pixels from this one (TPU v1's DDR3 at 34 GB/s and the A100's PCIe
    # Gen4 at 32) runs under its label at every spot: as its own line, not a crossing; but of
    # the spots clear of everything else, one on the side of its line away from that diagonal
    # is taken first (above its line, the PCIe text sat on the red DDR3 line: the fifth tour)
    per_box = MARKER_COST * _covered_each(feet, markers) + _crossed_each(feet, lines, 1, own, near_px)
    return usable, np.bincount(owner, weights=per_box, minlength=len(labels))


def hidden_under(scene: ChartScene, g: LabelGeometry, boxes) -> np.ndarray:
    """What each box (label pixels) would hide: its markers (MARKER_COST each) and the lines
    through it; for the legend, which takes the corner hiding least."""
    boxes = np.asarray(boxes, dtype=float).reshape(-1, 4)
    return (MARKER_COST * _covered_each(boxes, _marker_boxes(scene, g))
            + _crossed_each(boxes, _line_segments(scene, g), -1, math.nan))


def _covered(box, markers: np.ndarray) -> int:
    """How many marker boxes ``box`` overlaps."""
    return int(_covered_each(np.asarray(box, dtype=float)[None, :], markers)[0])


def _covered_each(boxes: np.ndarray, markers: np.ndarray) -> np.ndarray:
    """_covered for each row of ``boxes`` ([N, 4]) at once."""
    if not len(markers) or not len(boxes):
        return np.zeros(len(boxes))
    c, b = boxes[:, None, :], markers[None, :, :]
    return np.count_nonzero((b[..., 0] < c[..., 2]) & (c[..., 0] < b[..., 2])
                            & (b[..., 1] < c[..., 3]) & (c[..., 1] < b[..., 3]), axis=1)


def _inside(box, g: LabelGeometry) -> bool:
    """Whether a box lies inside the view (a slanted label had run past the top, cut)."""
    left, top, right, bottom = g.bounds
    return left <= box[0] and box[2] <= right and top <= box[1] and box[3] <= bottom


# -- kernels' names --------------------------------------------------------------------------------
def _workload_obstacles(scene: ChartScene) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [np.zeros(0)], [np.zeros(0)]
    with np.errstate(divide="ignore", invalid="ignore"):
        for mark in scene.workloads:
            xs += [np.full(len(mark.point_y), np.log10(mark.point_x)),
                   np.repeat(np.log10(mark.entry_x), mark.entry_y.shape[1])]
            ys += [np.log10(mark.point_y), np.log10(mark.entry_y).ravel()]
    return np.concatenate(xs), np.concatenate(ys)


def place_kernel_names(scene: ChartScene, g: LabelGeometry, roof_labels,
                       tags_only: bool = False, selected_only: bool = False
                       ) -> tuple[ChartLabel, ...]:
    """Each kernel's name by its marker on the selected chip, else (or where that has no room)
    by its highest marker (the selected kernel's placed first) (display.place_kernel_labels),
    clear of the
    other names, the roof labels, every marker and the workloads' marks, and of the roofs (a
    name over a roof hid the line: the tours); the whole name, else shortened to 28, then 20
    characters; left out where none fits (the marker's tooltip names it). ``tags_only``: the
    tags alone ("4b"), for a view too small for names. ``selected_only``: the selected
    kernel's alone, as it is placed first."""
    spec, cmp = scene.spec, scene.comparison
    if not scene.chips or not 0 < len(cmp.kernels) <= KERNEL_LABELS_MAX:
        return ()
    shown = list(scene.chips)
    rates = spec.marker_y[:, shown]
    on = np.where(np.isfinite(rates), rates, -np.inf).argmax(axis=1)  # its highest marker's chip
    highest = np.asarray(shown)[on]
    # Every name by its marker on the selected chip, where it has one, the selected kernel's
    # placed first: by its highest marker, on another chip, the selected kernel's name sat far
    # from the bold ring or found no room (the sixth tour, eight chips), and the article's "4a ·
    # TPU v1 CNN layer" named the A100's marker while the user looked at TPU v1's (the
    # eleventh tour); a name with no room there, by its highest marker (the selected chip's
    # markers crowded on one line, six of the article's eight names had found none: the
    # twelfth tour)
    k_sel = cmp.kernel_index.get(scene.selection.item)
    c_sel = cmp.chip_index.get(scene.selection.chip)
    by_selected = highest.copy()
    if c_sel in scene.chips:
        on_selected = np.isfinite(spec.marker_y[:, c_sel]) & (spec.marker_y[:, c_sel] > 0)
        by_selected[on_selected] = c_sel
    order = np.arange(len(cmp.kernels))
    if k_sel is not None:
        order = np.concatenate([[k_sel], np.delete(order, k_sel)])
    rows = np.arange(len(cmp.kernels))

    def points(chip_of):
        top = spec.marker_y[rows, chip_of]
        with np.errstate(divide="ignore", invalid="ignore"):
            # by the point that says its limit there (a GEMM fed over PCIe: its filled point on
            # the PCIe line, not its hollow one at main memory's intensity)
            return (np.log10(spec.at_limit[rows, chip_of]),
                    np.where(top > 0, np.log10(np.where(top > 0, top, 1.0)), np.nan))

    def in_view(at):
        """The points outside the view dropped (NaN): a name whose marker the user panned or
        zoomed out of view was drawn at the plot's edge, its stem running off it (the 34th
        tour)."""
        xs, ys = at
        x_lo, x_hi, y_lo, y_hi = g.view
        with np.errstate(invalid="ignore"):
            inside = (x_lo <= xs) & (xs <= x_hi) & (y_lo <= ys) & (ys <= y_hi)
        return np.where(inside, xs, np.nan), np.where(inside, ys, np.nan)

    at_selected, at_highest = in_view(points(by_selected)), in_view(points(highest))
    (kx, ky, kernel_of), (wx, wy) = _kernel_points(scene), _workload_obstacles(scene)
    # each marker's kernel: a name is not set where another's marker is as near as its own
    # (a workload's points are no kernel's)
    others = (np.concatenate([kx, wx]), np.concatenate([ky, wy]),
              np.concatenate([kernel_of, np.full(len(wx), -1)]))
    taken = [*g.avoid, *(box for label in roof_labels for box in label_footprint(label, g)),
             *_big_points(scene, g)]
    names = [k.name for k in cmp.kernels]
    centres = np.column_stack([kx * g.px[0], -ky * g.px[1]])  # every kernel's markers (px)

    def nearer_other(box, label, kernels) -> bool:
        """Whether a marker of a kernel not among ``kernels`` is nearer ``box`` than the
        marker ``label`` stands by (the text reads as naming that one)."""
        mine = box_gaps(box, [label.x * g.px[0]], [-label.y * g.px[1]])[0, 0]
        with np.errstate(invalid="ignore"):
            theirs = box_gaps(box, centres[:, 0], centres[:, 1])[0]
            return bool((theirs[~np.isin(kernel_of, list(kernels))] < mine).any())

    texts = ([(tag,) for tag in kernel_tags(names)] if tags_only else
             [tuple(dict.fromkeys(forms)) for forms in zip(
                 names, short_names(names), short_names(names, SHORTEST_NAME), strict=True)])
    # the dotted lines joining a kernel's points at its levels kept off as the other levels'
    # diagonals are, where some spot allows ("2" and "5, 6" written on them in the article's
    # chart)
    roofs = _roof_polylines(scene, g)
    dots = _ridge_points(scene, g)
    soft = [*_level_polylines(scene, g),
            *(row[:4].reshape(2, 2) for row in _connectors(scene, g))]

    def place(rows, taken, forms=texts, at=at_selected, over_lines=False, crossing_soft=None,
              beside_others=True, names=None):
        if names is None:  # ``forms`` are names (not tags) unless told otherwise
            names = forms is texts and not tags_only
        xs, ys = at
        # the stems of the names placed so far, by the calls before (the selected kernel's ran
        # behind the next name placed: the twentieth tour); ``placed`` as bound now
        drawn = [_stem_segment(lb, g) for _k, lb in placed if lb.stem]
        # the selected kernel's markers are ringed: its name further out (RING_LABEL_SPOTS),
        # else touching its ring (before a roof's label left out for it, _selected_before_roofs)
        ringed = k_sel is not None and len(rows) == 1 and rows[0] == k_sel
        return [(int(rows[lb.kernel]), lb) for lb in place_kernel_labels(
            [forms[k] for k in rows], xs[rows], ys[rows], g.px, g.text_px, g.line, taken, others,
            g.bounds, RING_LABEL_SPOTS + LABEL_SPOTS if ringed else LABEL_SPOTS, lines=roofs,
            far_spots=FAR_LABEL_SPOTS, over_lines=over_lines, beside_others=beside_others,
            crossing_soft=crossing_soft, soft_lines=soft, owners=rows,
            stems_drawn=np.array(drawn).reshape(-1, 4),
            # (a tag kept from the ridge points' dots where it can be: a few characters by a
            # dot read as naming it; a name's words say what it names, and set off its marker
            # for a dot, a name took the room of the next, which went to another chip's)
            dots=None if names else dots)]

    def boxes(placed):
        return [offset_label_box(lb, g.px, g.text_px, g.line) for _k, lb in placed]

    # what names a kernel where no form of its name has room: the tag heading its table row
    tags = [(tag,) for tag in kernel_tags(names)]

    def stacked_on(k: int, placed: list) -> bool:
        """Whether one of kernel ``k``'s points (the selected chip's, its highest) lies within
        STACKED_PX of a point a name of ``placed`` stands by."""
        mine = [(xs[k], ys[k]) for xs, ys in (at_selected, at_highest)
                if np.isfinite(xs[k]) and np.isfinite(ys[k])]
        return any(math.hypot((lb.x - x) * g.px[0], (lb.y - y) * g.px[1]) < STACKED_PX
                   for _j, lb in placed for x, y in mine)

    def named_in(placed: list) -> set[int]:
        """The kernels ``placed`` names: by their names, and by their tags in joined tags
        ("1/7" names 1 and 7)."""
        return {k for k, _lb in placed} | _tagged([lb.text for _k, lb in placed],
                                                  [tag[0] for tag in tags])

    def touching_tags(k: int) -> list[tuple[str, ...]]:
        """``tags`` with kernel ``k``'s joined to those of the kernels whose markers (on the
        selected chip) touch its own (TOUCHING_PX), in the kernels' order ("1/7")."""
        xs, ys = at_selected
        with np.errstate(invalid="ignore"):
            near = np.hypot((xs - xs[k]) * g.px[0], (ys - ys[k]) * g.px[1]) < TOUCHING_PX
        forms = [*tags]
        forms[k] = (joined_tags([tags[j][0] for j in np.flatnonzero(near)]),)
        return forms

    rings = np.zeros((0, 4))  # the selected kernel's rings on every chip, as boxes
    if k_sel is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            rx = np.log10(spec.at_limit[k_sel, shown]) * g.px[0]
            ry = -np.log10(spec.marker_y[k_sel, shown]) * g.px[1]
        ok = np.isfinite(rx) & np.isfinite(ry)
        rings = np.column_stack([rx, ry, rx, ry])[ok] + RING_HALF_PX * np.array([-1, -1, 1, 1])
    placed, unringed = [], taken

    def besides(at) -> list:
        """What the selected kernel's name keeps off, by its point at ``at``: the obstacles
        and its rings round its markers on the other chips (the CNN layer's name, by the
        A100's marker, sat on the ring round TPU v3's: the 35th tour)."""
        x, y = (at[0][k_sel] * g.px[0], -at[1][k_sel] * g.px[1]) if k_sel is not None else (0, 0)
        middles = (rings[:, :2] + rings[:, 2:]) / 2
        far = np.hypot(middles[:, 0] - x, middles[:, 1] - y) > 1.0
        return [*unringed, *rings[far if np.isfinite(x + y) else slice(None)]]

    # Twice where the chart has other levels' lines: clear of every line, then crossing those
    # (crossing_soft); once during a drag step, as before (the names are placed again on
    # release: twice, a 40-kernel drag step took 1.25-1.45x as long)
    passes = (False, True) if soft and scene.selection.lifted is None else (None,)
    if k_sel is not None:  # the selected kernel's name first, beside its own ring; the other
        # names then keep off its rings on every chip, 22 px across (one struck through "CNN
        # layer 3×3, 256…": the ninth tour)
        # where every spot by its ring is crossed by a roof, by its highest marker (TPU v1's
        # CNN layer at its roof's end, by the key); else its tag (kernel_tags) by its ring;
        # only where none of those is clear, over a roof (its backdrop hides the line there:
        # "3 · GEMM… (bf16)" hid the V100's fp16 roof and ridge, the fourteenth tour): the
        # name the user clicked, left out, named nothing (the twelfth tour)
        first = order[:1]
        # (each clear of its rings on the other chips first; but the tag cutting one of those
        # is better than the name over a roof)
        # (clear of the other levels' lines as well first, as the others' below)
        # (by its ring, its tag before its name by another chip's marker: "4c · TPU v1 LSTM…"
        # with TPU v1 selected had its stem to the A100's marker, the 42nd tour, as "4a · TPU
        # v1 CNN layer" had named the A100's marker while the user looked at TPU v1's, the
        # eleventh)
        tries = [*(lambda s=s, forms=forms: place(first, besides(at_selected), forms,
                                                  crossing_soft=s)
                   for s in passes for forms in (texts, tags)),
                 *(lambda s=s: place(first, besides(at_highest), at=at_highest, crossing_soft=s)
                   for s in passes),
                 lambda: place(first, taken), lambda: place(first, taken, at=at_highest),
                 lambda: place(first, taken, tags),
                 *(lambda at=at: place(first, taken, at=at, over_lines=True, beside_others=False)
                   for at in (at_selected, at_highest)),
                 # (its tag joined to those of the kernels whose markers touch its own, "1/7",
                 # before a spot beside another's marker, which read as that one's)
                 lambda: place(first, taken, touching_tags(k_sel), over_lines=True,
                               beside_others=False),
                 lambda: place(first, taken, over_lines=True),
                 lambda: place(first, taken, at=at_highest, over_lines=True)]
        placed = next((got for attempt in tries if (got := attempt())), [])  # the first that
        # places it, the rest not tried
        if selected_only:  # (_selected_before_roofs: the others are not needed)
            return _as_chart_labels(placed)
        taken = [*taken, *rings, *boxes(placed)]
        order = order[1:]
    # Twice: first every name or tag clear of every line, the other levels' too; then, for
    # those still unnamed, clear of the roofs alone (crossing another level's line): a name
    # written across a level's line had been placed where its tag fitted clear of every line
    # ("4c · TPU v1 LSTM step…" over the A100's L2 line, "GEMM …bf16, inputs…" on the PCIe
    # lines: the 41st tour)
    for crossing_soft in passes:
        named = named_in(placed)
        todo = np.array([k for k in order if k not in named], dtype=np.intp)
        clear_of = [*taken, *boxes(placed)]
        rest = place(todo, clear_of, crossing_soft=crossing_soft)
        if len(rest) < len(todo):  # some left out: a long whole name had taken their room
            # (at 1280 × 800 the A100 against TPU v3 chart, 16 px shorter, named the CNN layer
            # whole and lost the GEMM's and the MLP's names); the others shortened, if more of
            # them fit
            shorter = [forms[1:] or forms for forms in texts]
            again = place(todo, clear_of, shorter, crossing_soft=crossing_soft, names=True)
            if len(again) > len(rest):
                rest = again
        placed += rest
        named = named_in(placed)
        # the names left out, by their highest markers where those are elsewhere
        moved = np.array([k for k in range(len(cmp.kernels))
                          if k not in named and by_selected[k] != highest[k]], dtype=np.intp)
        if len(moved):
            placed += place(moved, [*taken, *boxes(placed)], at=at_highest,
                            crossing_soft=crossing_soft)
        # the names still left out, by their tags alone ("4b", "3"), as the table's rows
        # begin: the article's chart at 1280 × 800 had named two of its eight kernels, its
        # bottom left all parallel diagonals (the thirteenth tour), and side by side the
        # A100's nine kernels none (the fourteenth)
        named = named_in(placed)
        for at in (at_selected, at_highest):
            if k_sel is not None and k_sel not in named:
                # the selected kernel's by its own ring, which the others' keep off
                # (over a line: beside another kernel's marker only where its tag joined to
                # those touching its own, "1/7", has no spot either)
                clear_of = [*unringed, *boxes(placed)]
                placed += (place(np.array([k_sel]), [*besides(at), *boxes(placed)], tags, at=at,
                                 crossing_soft=crossing_soft)
                           or (place(np.array([k_sel]), clear_of, tags, at=at, over_lines=True,
                                     beside_others=False)
                               or place(np.array([k_sel]), clear_of, touching_tags(k_sel),
                                        over_lines=True, beside_others=False)
                               or place(np.array([k_sel]), clear_of, tags, at=at,
                                        over_lines=True)
                               if crossing_soft is not False else []))
                named = named_in(placed)
            # (but those whose marker lies on a named one's: joined to its tag below, "4/5";
            # each alone, "4" by TPU v3's stacked markers of 4 and 5 and "5" by the A100's,
            # read as one tag for each marker: the twenty-first tour)
            left = np.array([k for k in range(len(names))
                             if k not in named and not stacked_on(k, placed)], dtype=np.intp)
            if len(left):
                placed += place(left, [*taken, *boxes(placed)], tags, at=at,
                                crossing_soft=crossing_soft)
                named = named_in(placed)
    # a kernel still left out whose marker lies on a named one's (stacked: the A100's MLP
    # layer at batch 64 and LSTM step, 62.06 and 61.59 op/B, where "4" alone was named: the
    # fifteenth tour), its tag joined to that one's ("4/5"), where the text is clear
    def elsewhere(k: int, text: str, point, clear_of: list):
        """``text`` naming kernel ``k`` at ``point`` (log10 x, y) in any spot clear of
        ``clear_of``, one clear of the lines first, else over one, another level's before a
        roof (its backdrop hides the line there, as little as it can: "4" alone by the
        stacked markers of 4 and 5 names one of them wrongly, worse than a piece of a line
        hidden), or None."""
        xs, ys = (np.full(len(names), np.nan) for _ in range(2))
        xs[k], ys[k] = point
        forms = [(text,)] * len(names)
        got = (place(np.array([k]), clear_of, forms, at=(xs, ys))
               or place(np.array([k]), clear_of, forms, at=(xs, ys), over_lines=True))
        return got[0][1] if got else None

    # a kernel named by nothing yet, by its tag over a line where no spot clear of the lines is
    # left (its backdrop hides a tag's width of the line), where it hides the least, over a
    # roof only where every spot crosses one: the article's "7 · MLP… (fp32)" went unnamed at
    # every size, and nothing said so (the 36th tour); the first spot that fitted had put "7"
    # on the A100's bf16 roof where a spot over a faint line was left (the 41st tour); one at a
    # time, those whose markers lie on its own named by the same tag, joined ("2 / 5, 6")
    # (beside another kernel's marker last: first, where its marker touches a named one's, its
    # tag joined to that one's ("1/7"): "7" under the A100's markers of 1 and 7, each tag
    # beside the other's marker, read as the neighbour's, the 42nd tour)
    def over_a_line(k: int, at, beside_others: bool) -> list:
        xs, ys = at
        if not np.isfinite(xs[k] + ys[k]):
            return []
        named = named_in(placed)
        with np.errstate(invalid="ignore"):
            near = np.hypot((xs - xs[k]) * g.px[0], (ys - ys[k]) * g.px[1]) < STACKED_PX
        group = [j for j in np.flatnonzero(near) if j not in named]
        forms = [*tags]
        forms[k] = tuple(dict.fromkeys((joined_tags([tags[j][0] for j in group]), tags[k][0])))
        return place(np.array([k]), [*taken, *boxes(placed)], forms, at=at, over_lines=True,
                     beside_others=beside_others)

    # (during a drag step, as before: beside another's marker where nothing else is left; the
    # names are placed again on release, and the tries cost a 40-kernel step 1.6x)
    dragging = scene.selection.lifted is not None
    segments = (polyline_segments(roofs), polyline_segments(soft))  # (once, for each join)
    for k in range(len(names)):
        if k in named_in(placed) or stacked_on(k, placed):
            continue
        got = (over_a_line(k, at_selected, dragging)
               or over_a_line(k, at_highest, dragging))
        if not got and not dragging:
            joined = _stacked_tags(placed, tags, (at_selected, at_highest), g,
                                   [*taken, *boxes(placed)], elsewhere,
                                   (k_sel, [*unringed, *boxes(placed)]),
                                   segments, near=TOUCHING_PX, only=k,
                                   nearer_other=nearer_other)
            if joined != placed:
                placed = joined
                continue
            got = over_a_line(k, at_selected, True) or over_a_line(k, at_highest, True)
        placed += got
    placed = _stacked_tags(placed, tags, (at_selected, at_highest), g, [*taken, *boxes(placed)],
                           elsewhere, (k_sel, [*unringed, *boxes(placed)]),
                           segments, nearer_other=nearer_other)
    return _as_chart_labels(placed)


def _as_chart_labels(placed: list) -> tuple[ChartLabel, ...]:
    """(kernel, KernelLabel) pairs as the chart's labels, in the kernels' order."""
    return tuple(sorted((ChartLabel(lb.text, lb.x, lb.y, "", lb.anchor, None, lb.offset, k,
                                    stem=lb.stem) for k, lb in placed), key=lambda lb: lb.item))


def joined_tags(tags: list[str]) -> str:
    """One text naming stacked kernels by their tags: "4/5", spaced where a tag has a space of
    its own ("2 / 5, 6": "2/5, 6" read as one number, the nineteenth tour)."""
    return (" / " if any(" " in t for t in tags) else "/").join(tags)


def stacked_tags(text: str) -> list[str]:
    """The tags a joined_tags text names (the text alone where it is one name)."""
    return [t.strip() for t in text.split("/")]


def tag_key(texts, names: list[str], cut=()) -> list[str]:
    """The kernels a chart names by their tags alone (``texts``: its names' texts, "4/5" among
    them) and those in ``cut`` (named in part: "4b · …MLP… (int8)"), each as its tag and whole
    name ("4 · MLP layer 4096×4096, batch 64 (bf16)"; a name that has its own numbering, as it
    is), in the tags' order: an exported picture has no table beside it to say what "4/5" is
    (the twenty-second tour)."""
    return tagged(names, sorted(_by_tags(texts, names) | set(cut)))


def _by_tags(texts, names: list[str]) -> set[int]:
    """The kernels ``texts`` name by their tags alone ("4/5": 4 and 5; a name: none)."""
    return _tagged(texts, kernel_tags(names))


def _tagged(texts, tags: list[str]) -> set[int]:
    """The kernels (indexes into ``tags``, each kernel's tag) ``texts`` name by tags alone."""
    at = {tag: k for k, tag in enumerate(tags)}
    return {at[t] for text in texts for t in stacked_tags(text)
            if all(part in at for part in stacked_tags(text))}


def unnamed_kernels(scene: ChartScene, names: tuple[ChartLabel, ...]) -> list[int]:
    """The kernels with a marker on the chart that none of its ``names`` names, by name or tag
    ("4/5" names 4 and 5): a crowded or short chart leaves some out (their tooltips name them),
    and an exported picture has no tooltips. None where the chart names no kernel at all for
    their number (more than KERNEL_LABELS_MAX)."""
    cmp = scene.comparison
    if not scene.chips or not 0 < len(cmp.kernels) <= KERNEL_LABELS_MAX:
        return []
    named = {label.item for label in names} | _by_tags(
        [label.text for label in names], [k.name for k in cmp.kernels])
    rates = scene.spec.marker_y[:, list(scene.chips)]
    shown = (np.isfinite(rates) & (rates > 0)).any(axis=1)
    return [int(k) for k in np.flatnonzero(shown) if k not in named]


def tagged(names: list[str], kernels) -> list[str]:
    """Each of ``kernels`` by its tag and whole name ("4 · MLP layer 4096×4096, batch 64
    (bf16)"), or as it is where the names have their own numbering."""
    headed = headed_names(names)
    return [headed[k] if headed is not None else f"{k + 1} · {names[k]}" for k in kernels]


def _stem_segment(label, g: LabelGeometry) -> tuple[float, float, float, float]:
    """A name's stem (set off its marker), from the marker to the text, in label pixels."""
    px, py = label.x * g.px[0], -label.y * g.px[1]
    return (px, py, px + label.offset[0], py + label.offset[1])


def _stem_boxes(label, g: LabelGeometry, step: float = 3.0) -> list[tuple]:
    """A name's stem as small boxes along it (STEM_CLEAR's margin about each point), for
    placements that keep clear of boxes: a text over one hid the line joining the name to its
    marker."""
    x0, y0, x1, y1 = _stem_segment(label, g)
    n = max(2, int(math.hypot(x1 - x0, y1 - y0) // step) + 1)
    (mx0, my0, mx1, my1) = STEM_CLEAR
    return [(x + mx0, y + my0, x + mx1, y + my1)
            for x, y in zip(np.linspace(x0, x1, n), np.linspace(y0, y1, n), strict=True)]


def _stacked_tags(placed: list, tags: list[tuple[str]], points, g: LabelGeometry,
                  taken: list, elsewhere=None, selected: tuple = (None, ()),
                  lines: tuple[np.ndarray, np.ndarray] | None = None,
                  near: float = STACKED_PX, only: int | None = None,
                  nearer_other=None) -> list:
    """``placed`` ((kernel, KernelLabel) pairs) with each kernel left out whose point (at the
    first of ``points``, (xs, ys) in log10, where it has one) lies within STACKED_PX of a
    named kernel's, its tag joined to that kernel's tag in place of its name ("4/5"), where the
    text overlaps no other box; else, where ``elsewhere(kernel, text, point, boxes)`` finds
    the joined text another spot clear of them (a "4" alone had named the A100's MLP layer at
    batch 64 over the LSTM step beneath it: the eighteenth tour). ``selected``: the selected
    kernel and what its joined tag keeps clear of in place of ``taken`` (not its own rings,
    which its tag by them had overlapped from the start: "4" by its ring, 5 under it, named
    nowhere, the twenty-first tour). ``lines``: the roofs and the other levels' lines as
    segments ([N, 4] each): a tag joined in place hides no more of them than the tag it
    replaces ("4" clear of the A100's HBM2 diagonal, "4/5" there across it: the 42nd tour).
    ``near``: px within which a point is on a named one's (STACKED_PX; TOUCHING_PX where the
    only other spot left is beside another's marker); ``only``: that kernel alone.
    ``nearer_other(box, label, kernels)``: whether a marker of a kernel not among ``kernels``
    is nearer the box than the label's own; a tag joined in place is not brought nearer
    another's marker than its own, as the tag it replaces was not ("4/5", widened from the
    selected "4" by its ring, reached towards kernel 9's marker: the 43rd tour)."""
    at = {tag[0]: k for k, tag in enumerate(tags)}
    named = {k for k, _lb in placed} | _tagged([lb.text for _k, lb in placed],
                                               [tag[0] for tag in tags])
    out = list(placed)

    def hidden(box) -> float:  # what a box hides of the lines, a roof's pixel 1
        if lines is None:
            return 0.0
        boxes = np.asarray(box, dtype=float).reshape(-1, 4) + LINE_CLEAR
        return float(crossed_length_each(boxes, lines[0])[0]
                     + SOFT_LINE * crossed_length_each(boxes, lines[1])[0])

    for k in range(len(tags)) if only is None else (only,):
        if k in named:
            continue
        # its point on the selected chip and its highest: a name set by the other kernel's
        # highest marker names both where that one's lies on it too (with TPU v3 selected,
        # "4" by the A100's markers of 4 and 5 had left 5 unnamed: the twentieth tour)
        mine = [(xs[k], ys[k]) for xs, ys in points if np.isfinite(xs[k]) and np.isfinite(ys[k])]
        if not mine:
            continue
        for i, (j, lb) in enumerate(out):
            if min(math.hypot((lb.x - x) * g.px[0], (lb.y - y) * g.px[1])
                   for x, y in mine) >= near:
                continue
            # a name gives way to the two tags (the MLP layer's whole name had hidden the LSTM
            # step under it in the overlay: the sixteenth tour)
            parts = stacked_tags(lb.text)
            said = (parts if tags[j][0] in parts and all(t in at for t in parts)
                    else [tags[j][0]])
            if tags[k][0] in said:  # already joined to it ("2 / 5, 6": its 5, 6)
                named.add(k)
                break
            # in the kernels' order, whichever was named first ("4/5" had read "5/4" with 5
            # selected, its tag placed first: the 44th tour)
            joined = replace(lb, text=joined_tags(sorted([*said, tags[k][0]], key=at.get)))
            box = np.array([offset_label_box(joined, g.px, g.text_px, g.line)])
            others = [offset_label_box(o, g.px, g.text_px, g.line)
                      for n, (_j, o) in enumerate(out) if n != i]
            was = offset_label_box(lb, g.px, g.text_px, g.line)
            clear_of = selected[1] if j == selected[0] else taken
            rest = np.array([b for b in [*clear_of, *others] if tuple(b) != tuple(was)],
                            dtype=float).reshape(-1, 4)
            # (inside the view: "1" joined in place to "1/7" by the V100's marker at its left
            # edge ran under the axis, "l/7", the 42nd tour)
            group = {j, k, *(at[t] for t in said if t in at)}
            if (not overlaps_each(box, rest + LABEL_GAP)[0] and _inside(box[0], g)
                    and hidden(box) <= hidden(was) + 0.5
                    and (nearer_other is None or not nearer_other(box[0], lb, group)
                         or nearer_other(was, lb, group))):
                out[i] = (j, joined)
                named.add(k)
            elif elsewhere is not None:
                moved = elsewhere(j, joined.text, (lb.x, lb.y), list(rest))
                if moved is not None:
                    out[i] = (j, moved)
                    named.add(k)
            break
    return out


def _big_points(scene: ChartScene, g: LabelGeometry) -> np.ndarray:
    """The workloads' big points as boxes (label pixels), WORKLOAD_POINT_HALF about each: as a
    marker's 10 px box, a workload's label was written over another chip's 17 px point (the
    tenth tour's "Llama-3-8B prefill")."""
    with np.errstate(divide="ignore", invalid="ignore"):
        xs = np.concatenate([np.full(len(m.point_y), np.log10(m.point_x)) for m in scene.workloads]
                            or [np.zeros(0)]) * g.px[0]
        ys = -np.concatenate([np.log10(m.point_y) for m in scene.workloads] or [np.zeros(0)]) * g.px[1]
    ok = np.isfinite(xs) & np.isfinite(ys)
    # the selected workload's points with their rings (a label by one of its points cut the
    # ring of another chip's: the 35th tour)
    half = np.concatenate([np.full(len(m.point_y), WORKLOAD_RING_HALF if m.workload_id
                                   == scene.selection.item else WORKLOAD_POINT_HALF)
                           for m in scene.workloads] or [np.zeros(0)])
    return np.column_stack([xs - half, ys - half, xs + half, ys + half])[ok]


def _ridge_points(scene: ChartScene, g: LabelGeometry) -> np.ndarray:
    """The shown chips' roofs' ridge points, each drawn as a filled dot, as [N, 2] label
    pixels."""
    roofs = [r for r in scene.spec.roofs if r.chip in scene.chips and r.ridge > 0 and r.peak > 0]
    return np.column_stack([np.log10([r.ridge for r in roofs]) * g.px[0],
                            -np.log10([r.peak for r in roofs]) * g.px[1]]).reshape(-1, 2)


def _roof_polylines(scene: ChartScene, g: LabelGeometry) -> list[np.ndarray]:
    """The shown chips' roofs (and the datasheet roofs drawn beside them) as polylines in label
    pixels, which names keep off."""
    return _polylines(g, [roof.points() for roof in (*scene.spec.roofs, *scene.spec.datasheet_roofs)
                          if roof.chip in scene.chips])


def _level_polylines(scene: ChartScene, g: LabelGeometry) -> list[np.ndarray]:
    """The diagonals of the other levels a kernel moves bytes at (drawn solid), which names keep
    off where they can ("GEMM …bf16, inputs…" had sat on the PCIe lines it is fed over: the
    tours); a faint level's is no obstacle."""
    return _polylines(g, [d.points() for d in scene.spec.diagonals
                          if d.chip in scene.chips and d.used and d.bandwidth > 0 and d.top > 0])


def _polylines(g: LabelGeometry, points) -> list[np.ndarray]:
    with np.errstate(divide="ignore", invalid="ignore"):
        return [np.column_stack([np.log10(rx) * g.px[0], -np.log10(ry) * g.px[1]])
                for rx, ry in points]


def _kernel_points(scene: ChartScene) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernels' markers on the shown chips (log10 x, y), and their points at the other
    memory levels where drawn, which names keep off (a name sat on a neighbour's point at
    another level: the fourth tour's "4a" above "4b"); and each one's kernel (its index)."""
    spec = scene.spec
    if not (0 < len(spec.marker_x) <= KERNEL_LABELS_MAX) or not spec.marker_y.size:
        return np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.intp)
    rates = spec.marker_y[:, list(scene.chips)]
    xs, ys = np.repeat(spec.marker_x, rates.shape[1]), rates.ravel()
    owners = np.repeat(np.arange(len(spec.marker_x)), rates.shape[1])
    levels = spec.levels
    if levels is not None and len(levels):
        on = among(levels.chip, scene.chips)
        xs, ys = np.concatenate([xs, levels.x[on]]), np.concatenate([ys, levels.y[on]])
        owners = np.concatenate([owners, levels.kernel[on]])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log10(xs), np.log10(ys), owners


# -- workloads' labels -----------------------------------------------------------------------------
def place_workload_labels(scene: ChartScene, g: LabelGeometry, taken_labels,
                          selected: str | None, held: tuple[ChartLabel | None, ...] | None = None,
                          moving: int | None = None) -> tuple[ChartLabel | None, ...]:
    """Each workload's label by its point on the selected chip (else its highest), clear of the
    roof labels, the kernels' names and each other; by its highest, then its lowest point where
    that has no room; else left out, unless
    it is the selected workload's (then on the side with more room, the name alone where the
    whole label does not fit). With ``held`` (the labels as placed before) and ``moving`` (the
    index of the workload being dragged) only that one is placed again, clear of the others
    where they stand: a drag step moves one label (placing all ten took 2.6 ms a step)."""
    marks = scene.workloads
    if not marks:
        return ()
    if held is not None and (moving is None or len(held) != len(marks)):
        held = None
    if held is not None:
        taken_labels = (*taken_labels, *(lb for n, lb in enumerate(held) if lb is not None
                                         and n != moving))

    item_px, line = _item_measure(g)
    taken = [*g.avoid, *(box for lb in taken_labels for box in label_footprint(lb, g)),
             *_big_points(scene, g)]
    xs = np.array([np.log10(m.point_x) for m in marks])
    tops = [m.point_y[np.isfinite(m.point_y)] for m in marks]
    highs = np.array([np.log10(t.max()) if len(t) else np.nan for t in tops])
    lows = np.array([np.log10(t.min()) if len(t) else np.nan for t in tops])
    # by the selected chip's point first, where it has one, as the kernels' names are (by its
    # highest, the label had named another chip's point: the nineteenth tour)
    ys = highs.copy()
    c_sel = scene.comparison.chip_index.get(scene.selection.chip)
    if c_sel in scene.chips:
        at = np.array([m.point_y[list(scene.chips).index(c_sel)] for m in marks], dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            ys = np.where(np.isfinite(at) & (at > 0), np.log10(np.where(at > 0, at, 1.0)), highs)
    # the label, the name, the name shortened (told apart from the others': two DeepSeek-R1
    # workloads' names had both been cut to "DeepSeek-R1" at a small chart's edge, the tour)
    shorts = short_names([m.name for m in marks], SHORTEST_NAME)
    texts = [tuple(dict.fromkeys((m.label, m.name, short)))
             for m, short in zip(marks, shorts, strict=True)]
    with np.errstate(divide="ignore", invalid="ignore"):
        ox = np.concatenate([np.repeat(np.log10(m.entry_x), m.entry_y.shape[1]) for m in marks]
                            + [np.repeat(xs, [len(t) for t in tops])])
        oy = np.concatenate([np.log10(m.entry_y).ravel() for m in marks] + [np.log10(t) for t in tops])
    # the kernels' markers and the roofs too (a selected workload's label had covered two of
    # the article's markers and crossed ten lines: the tour)
    kx, ky, _kernel = _kernel_points(scene)
    ox, oy = np.concatenate([ox, kx]), np.concatenate([oy, ky])
    roofs = _roof_polylines(scene, g)
    which = list(range(len(marks))) if held is None else [moving]
    # beside its point, else set off further with a stem, never over a roof (side by side the
    # selected workload's label, with no spot beside its point, had fallen back across the
    # A100's HBM2 diagonal, hiding it under its box: the thirty-first tour)
    placed = {which[lb.kernel]: replace(lb, kernel=which[lb.kernel]) for lb in place_kernel_labels(
        [texts[n] for n in which], xs[which], ys[which], g.px, item_px, line, taken, (ox, oy),
        g.bounds, WORKLOAD_LABEL_SPOTS, lines=roofs, over_lines=False, gap=NO_GAP,
        far_spots=FAR_LABEL_SPOTS)}
    for at in (highs, lows):  # where that has no room, by its highest point, then its lowest
        missing = [n for n in which if n not in placed and at[n] != ys[n]]
        if not missing:
            continue
        boxes = taken + [offset_label_box(lb, g.px, item_px, line) for lb in placed.values()]
        for lb in place_kernel_labels([texts[n] for n in missing], xs[missing], at[missing],
                                      g.px, item_px, line, boxes, (ox, oy), g.bounds,
                                      WORKLOAD_LABEL_SPOTS, lines=roofs, over_lines=False,
                                      gap=NO_GAP, far_spots=FAR_LABEL_SPOTS):
            placed[missing[lb.kernel]] = replace(lb, kernel=missing[lb.kernel])
    out: list[ChartLabel | None] = []
    for n, mark in enumerate(marks):
        if n not in which:
            out.append(held[n])
            continue
        lb = placed.get(n)
        if lb is not None:
            out.append(ChartLabel(lb.text, lb.x, lb.y, "", lb.anchor, None, lb.offset, n,
                                  stem=lb.stem))
        elif mark.workload_id == selected and np.isfinite(highs[n]):
            # clear of the other workloads' labels where it can be; those it still covers give
            # way below (two were printed over each other: the tenth tour); by its highest
            # point, above the others' (by the selected chip's, in a crowded chart, it had
            # covered another workload's big point)
            others = [offset_label_box(lb, g.px, item_px, line) for k, lb in placed.items()
                      if k != n]
            out.append(_fallback(mark, n, float(xs[n]), float(highs[n]), g, item_px, scene,
                                 [*taken, *others], texts[n]))
        else:
            out.append(None)
    chosen = next((n for n, m in enumerate(marks) if m.workload_id == selected), None)
    if chosen is not None and out[chosen] is not None and chosen in which and chosen not in placed:
        box = np.asarray([offset_label_box(out[chosen], g.px, item_px, line)], dtype=float)
        out = [lb if lb is None or n == chosen or not overlaps_each(
            box, np.asarray([offset_label_box(lb, g.px, item_px, line)], dtype=float)).any()
            else None for n, lb in enumerate(out)]
    return tuple(out)


def _fallback(mark, n: int, x: float, y: float, g: LabelGeometry, item_px,
              scene: ChartScene | None = None, taken=(), texts=None) -> ChartLabel | None:
    """The selected workload's label where no spot is free of the other texts: of the four
    corners about its point, whole or its name alone, the one inside the view covering fewest
    markers and lines (it had sat on a roof: "Llama-3-8B decode · B = 8, L = 2048", the tour),
    the whole label where that is no worse."""
    # the corners clear of its ring, then nearer, across it (weighed as a line crossed: the
    # 35th tour saw the ring cut; but a corner across it is better than a stem through a text)
    spots = [((r * sx, r * sy), ((1 - sx) / 2, (1 - sy) / 2)) for r in (13.0, 11.0)
             for sx, sy in ((1, -1), (-1, -1), (1, 1), (-1, 1))]
    texts = texts or (mark.label, mark.name)
    line = _item_measure(g)[1]
    markers = _marker_boxes(scene, g) if scene is not None else np.zeros((0, 4))
    lines = _line_segments(scene, g) if scene is not None else np.zeros((0, 7))
    px, py = x * g.px[0], -y * g.px[1]
    solid = lines[lines[:, 6] >= 1, :4]
    others = markers[~((markers[:, 0] <= px) & (px <= markers[:, 2])
                       & (markers[:, 1] <= py) & (py <= markers[:, 3]))]
    # its own point's box (its ring, weighed below as the corners nearer than its half) is
    # not a text in the way: counted as one, every corner cost as much as one under the legend,
    # and the label went there (a lone H100's Llama-3-8B at 1280 × 800: the 40th tour)
    taken = np.asarray(taken, dtype=float).reshape(-1, 4)
    centre = (taken[:, :2] + taken[:, 2:]) / 2
    taken = taken[~((np.abs(centre[:, 0] - px) < 0.5) & (np.abs(centre[:, 1] - py) < 0.5)
                    & (taken[:, 2] - taken[:, 0] <= 2 * WORKLOAD_RING_HALF + 1))]
    texts_in_way = taken + STEM_CLEAR
    alike: set[str] = set()  # shortened forms that would name another workload as well

    def candidates(texts: tuple[str, ...]):
        """Each text at each spot (the corners, and set off further, a stem joining it to its
        point: side by side, each corner of the A100's fp32 point crossed its HBM2 diagonal or
        covered markers, and the label hid a stretch of the line under its box: the
        thirty-first tour), what each costs and whether it lies inside the view."""
        labels = [ChartLabel(text, x, y, "", anchor, None, offset, n)
                  for text in texts for offset, anchor in spots] + [
            ChartLabel(text, x, y, "", anchor, None, offset, n, stem=True)
            for text in texts for offset, anchor in FAR_LABEL_SPOTS]
        boxes = np.array([offset_label_box(lb, g.px, item_px, line) for lb in labels])
        stems = [np.array([px, py, px + lb.offset[0], py + lb.offset[1]]) for lb in labels]
        cost = (MARKER_COST * _covered_each(boxes, markers)
                + _crossed_each(boxes, lines, -1, math.nan)
                + (overlaps_each(boxes, taken) * LEFT_OUT if len(taken) else 0.0)
                # (a corner across its ring, as a line crossed)
                + np.array([0.5 * texts.index(lb.text) + LEFT_OUT * (lb.text in alike)
                            + (not lb.stem and math.hypot(*lb.offset)
                                                          < WORKLOAD_RING_HALF) for lb in labels])
                # a stem costs a little (the name further from its point), more across a line
                # or through another marker (not its own point's, which it starts from)
                + np.array([(0.25 + stem_crosses(stem, solid)
                             + MARKER_COST / 2 * int(crosses_each(others, stem[None, :]).sum())
                             # nor through another text (one ended on "HBM3e 8 TB/s": the 32nd
                             # tour)
                             + LEFT_OUT * bool(crosses_each(texts_in_way, stem[None, :]).any()))
                            if lb.stem else 0.0 for lb, stem in zip(labels, stems, strict=True)]))
        return labels, cost, np.array([_inside(box, g) for box in boxes], dtype=bool)

    labels, cost, inside = candidates(texts)
    if not inside.any():
        # a view too small for either: shorter forms of the name, down to its first word or
        # so (cut at the view's edge it had read "DeepSeek-R1" for two workloads: the tour),
        # weighed as the others (set above a point near a small chart's top, where it had more
        # room, "Llama-3.3-70B…" had been cut by the view's edge; set below, it hid the
        # B200's "HBM3e 8 TB/s": side by side at 1280 × 800); else none
        word = mark.name.split()[0] if mark.name.split() else mark.name
        # told apart from the other workloads' where they share their first words (three
        # "ResNet-50…" for the fp32, tf32 and bf16 runs: the 42nd tour's second look)
        names = [m.name for m in scene.workloads] if scene is not None else [mark.name]
        mine = names.index(mark.name) if mark.name in names else 0
        shorter = tuple(dict.fromkeys(
            t for k in range(SHORTEST_NAME - 1, 7, -1)
            for t in (short_names(names, k)[mine], short_name(mark.name, k))
            if t.startswith(word) and t not in texts))  # its first word whole ("DeepSee…")
        # a form another workload's name also shortens to, only where none tells it apart
        # (weighed as a label left out)
        alike.update(short_name(other, k) for other in names if other != mark.name
                     for k in range(SHORTEST_NAME - 1, 7, -1))
        if not shorter:
            return None
        labels, cost, inside = candidates(shorter)
        if not inside.any():
            return None
    # the marker at its own point is under every corner's edge alike: only the others count
    return labels[int(np.argmin(np.where(inside, cost, np.inf)))]


def _item_measure(g: LabelGeometry) -> tuple[TextWidth, float]:
    """A workload's label (a text item) as drawn: the width of a text in it and its height, the
    text's with the item's margins (modelled as a bare text's while Qt drew 4 px margins, a
    label drawn above its point covered the roof's label over it: the label scan,
    benchmarks/scan_labels.py)."""
    return (lambda text: text_width(text, g.text_px) + 6), g.line + 2 * TEXT_ITEM_MARGIN


def workload_label_box(label: ChartLabel, g: LabelGeometry) -> tuple[float, float, float, float]:
    """A workload's label's box (label pixels) as its text item draws it."""
    item_px, line = _item_measure(g)
    return offset_label_box(label, g.px, item_px, line)


def _workload_boxes(workloads, g: LabelGeometry) -> list[tuple[float, float, float, float]]:
    """The shown workloads' labels as boxes (a text item: its text and margins)."""
    return [workload_label_box(lb, g) for lb in workloads if lb is not None]


def _clear_of_workloads(labels: tuple[ChartLabel, ...], boxes: list, g: LabelGeometry
                        ) -> tuple[ChartLabel, ...]:
    """The kernels' names (or roofs' labels) the workloads' labels (``boxes``) leave clear: the
    selected workload's label is shown where no spot is free, and a text under it gives way (the
    second tour read a kernel's name and the new workload's printed over each other); the
    tooltip of its marker (or line) still names it."""
    if not boxes or not labels:
        return labels
    taken = np.asarray(boxes, dtype=float)
    kept = tuple(lb for lb in labels
                 if not overlaps_each(np.asarray(label_footprint(lb, g), dtype=float), taken).any())
    return labels if len(kept) == len(labels) else kept  # the same (held) labels: no redraw


def _selected_before_roofs(scene: ChartScene, g: LabelGeometry, names: tuple[ChartLabel, ...],
                           roof_labels: tuple[ChartLabel, ...]
                           ) -> tuple[tuple[ChartLabel, ...], tuple[ChartLabel, ...]]:
    """(names, roof labels) with the selected kernel named where the roofs' labels had left it
    no spot: its name (or tag) as placed without them, clear of the other names, and the roof
    labels under it left out (the legend names main memory's lines; a line's tooltip names
    any). Kernel 1 of the article, clicked, had no name overlaid with Memory levels off, its
    spots taken by "L2 (40 MB) 7 TB/s" and "HBM2 900 GB/s: TPU v3, V100" (the 38th tour)."""
    k_sel = scene.comparison.kernel_index.get(scene.selection.item)
    if k_sel is None or not roof_labels or any(lb.item == k_sel for lb in names):
        return names, roof_labels
    alone = next(iter(place_kernel_names(scene, g, (), selected_only=True)), None)
    if alone is None:
        return names, roof_labels
    others = np.array([offset_label_box(lb, g.px, g.text_px, g.line) for lb in names],
                      dtype=float).reshape(-1, 4)
    tag = kernel_tags([k.name for k in scene.comparison.kernels])[k_sel]
    for label in (alone, replace(alone, text=tag)):  # its name, else its tag there
        box = np.array([offset_label_box(label, g.px, g.text_px, g.line)])
        if not overlaps_each(box, others + LABEL_GAP)[0]:
            alone = label
            break
    else:
        return names, roof_labels
    covered = np.array([*box, *(_stem_boxes(alone, g) if alone.stem else ())],
                       dtype=float).reshape(-1, 4)  # its text and its stem
    kept = tuple(lb for lb in roof_labels if not overlaps_each(
        covered, np.asarray(label_footprint(lb, g), dtype=float).reshape(-1, 4) + LABEL_GAP).any())
    return tuple(sorted((*names, alone), key=lambda lb: lb.item)), kept


def place_labels(scene: ChartScene, g: LabelGeometry, *, selected_chip: str | None,
                 foreground: str, roofs: bool = True, names: bool = True,
                 roof_labels: tuple[ChartLabel, ...] | None = None,
                 held: PlacedLabels | None = None,
                 key: tuple[tuple[KeyLabel, ...], tuple[str, ...]] | None = None) -> PlacedLabels:
    """Every text of the chart, in order: roofs' (they take their places first), kernels',
    workloads'. ``roof_labels``, when given, are the roofs' labels already placed (a drag step
    keeps them where they were and the kernels' names move). ``held``, during a workload's
    drag, are the labels as the last step placed them: the kernels' names and the other
    workloads' labels stay, and only the dragged workload's label is placed again. ``key``,
    when given, is the key's labels and texts already placed (a drag step: the roofs hold
    still; placing it again took 1 ms a step at 30 chips)."""
    fresh = roof_labels is None
    key = key if key is not None else _key(scene, g, selected_chip, foreground, roofs)
    if roof_labels is None:
        roof_labels = place_roof_labels(scene, g, selected_chip, foreground) if roofs else ()
    if g.bounds[3] - g.bounds[1] < MIN_LABELLED_PX:  # eight charts side by side at 1280 × 800:
        # names 50 px tall charts had no room for ran past their tops, over each other; a
        # view tall enough has its kernels' tags alone ("4b"), as the table's rows begin (the
        # article's four charts side by side at 1280 × 800, 85 px tall, named none of its
        # eight kernels: the 37th tour)
        tags = (place_kernel_names(scene, g, roof_labels, tags_only=True)
                if names and g.bounds[3] - g.bounds[1] >= MIN_TAGGED_PX else ())
        return PlacedLabels(roof_labels, tags, (None,) * len(scene.workloads), g.px, *key)
    lifted = scene.selection.lifted
    moving = next((n for n, m in enumerate(scene.workloads) if m.workload_id == lifted), None)
    if held is not None and moving is not None:
        kernel_names = held.names if names else ()
        workloads = place_workload_labels(scene, g, roof_labels + kernel_names,
                                          scene.selection.item, held.workloads, moving)
    else:
        kernel_names = place_kernel_names(scene, g, roof_labels) if names else ()
        if names:
            kernel_names, roof_labels = _selected_before_roofs(scene, g, kernel_names,
                                                               roof_labels)
        workloads = place_workload_labels(scene, g, roof_labels + kernel_names, scene.selection.item)
    workload_boxes = _workload_boxes(workloads, g)
    kernel_names = _clear_of_workloads(kernel_names, workload_boxes, g)
    roof_labels = _clear_of_workloads(roof_labels, workload_boxes, g)
    if fresh and roofs:  # the faint levels' names last, where everything else left room
        # (kept LABEL_GAP off the names: one touching "3" read as part of it; and off their
        # stems: "NVLink 3.0 300 GB/s" was written over the stem of "out = a + b (bf16)", the
        # twenty-first tour)
        taken = (*(b for lb in roof_labels for b in label_footprint(lb, g)),
                 *(np.add(offset_label_box(lb, g.px, g.text_px, g.line), LABEL_GAP)
                   for lb in kernel_names), *workload_boxes,
                 *(box for lb in kernel_names if lb.stem for box in _stem_boxes(lb, g)))
        roof_labels += place_roof_labels(scene, g, selected_chip, foreground, faint=True,
                                         taken=taken)
    return PlacedLabels(roof_labels, kernel_names, workloads, g.px, *key)


def key_only(scene: ChartScene, g: LabelGeometry, *, selected_chip: str | None,
             foreground: str, roofs: bool = True) -> PlacedLabels:
    """The peaks' key alone, no other text (a window being built: the key's width sizes the
    view the other labels wait for; without it the view was wider, and the labels were placed
    twice on the window's first turns)."""
    return PlacedLabels((), (), (None,) * len(scene.workloads), g.px,
                        *_key(scene, g, selected_chip, foreground, roofs))


def _key(scene: ChartScene, g: LabelGeometry, selected_chip: str | None, foreground: str,
         roofs: bool) -> tuple[tuple[KeyLabel, ...], tuple[str, ...]]:
    """The key's labels, and the texts its width fits: every chip's, so it holds still while
    the view is zoomed or another chip is selected (with more than LABEL_ALL_CHIPS, only the
    selected chip's are shown)."""
    if not roofs:
        return (), ()
    labelled = _labelled_chips(scene, selected_chip)
    texts = peak_key_texts(scene, labelled, foreground)
    every = texts if len(labelled) == len(scene.chips) else peak_key_texts(
        scene, list(scene.chips), foreground)
    return place_peak_key(scene, g, selected_chip, texts), tuple(t[0] for t in every)
