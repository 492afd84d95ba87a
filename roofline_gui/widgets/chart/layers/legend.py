"""The legend: chips by the colour of their roof, kernel categories by marker shape, then each
workload by its shape."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor

from roofline_gui.core.chart_labels import SAME_LINE, main_memory_text
from roofline_gui.core.chart_scene import ChartScene
from roofline_gui.core.display import shape_legend
from roofline_gui.core.i18n import N_, _
from roofline_gui.widgets.chart.layers.base import ChartLayer
from roofline_gui.widgets.chart.layers.roofs import (
    DATASHEET_LEGEND,
    LEVEL_STYLE,
    datasheet_pen,
    roof_pen,
)
from roofline_gui.widgets.chart.plot_items import ChipLegend, GridKey

#: (links too: a faint dash-dot line, TPU v3's ICI, read as nothing the legend said: the
#: twenty-eighth tour)
UNUSED_LEGEND = N_("faint: levels and links no kernel uses")
#: Each kind of line a kernel moves bytes at besides main memory, by its dashes, where the chart
#: draws one: a crowded or small chart leaves some without a label (their tooltips name them),
#: and the tours met dashed lines nothing on the chart explained
LINE_LEGEND = {"cache": N_("on-chip memory"), "host": N_("host link"),
               "link": N_("chip-to-chip link")}
#: The marks besides the kernels' shapes, each named where the chart shows it (the second tour
#: met hollow points, struck-through points and dotted connectors the legend never explained)
LEVELS_LEGEND = N_("a kernel at each level (filled: its limit)")
#: with Memory levels off, only the kernels another level holds have two points (the tour read
#: "at each level" on a chart that drew no level's points)
HELD_LEGEND = N_("a kernel at its limit (filled) and main memory")
MISFIT_LEGEND = N_("struck through: kept on chip, which cannot hold it")
MEASURED_LEGEND = N_("measured (dotted: to its bound)")
STEP_LEGEND = N_("large: a workload's step; small: its kernels")
UNFIT_LEGEND = N_("hollow large: does not fit in the chip's memory")


#: The share of the chart's height the legend below it may take.
BELOW_ROOM = 1 / 3


class LegendLayer(ChartLayer):
    PARTS = frozenset({"spec", "workloads", "selection", "measured"})

    def __init__(self, plot, style) -> None:
        super().__init__(plot, style)
        backdrop = QColor(style.background)
        backdrop.setAlpha(210)  # readable over the grid and roofs, which still show through
        self.legend = ChipLegend(style.foreground, offset=(-10, -10), brush=backdrop)
        self.legend.setParentItem(plot.vb)
        self.shown = True  # False in a grid of charts: each chart's title names its chip
        self._entries: list | None = None
        #: In a grid (not shown): what this chart would list besides its chip, for the grid's
        #: one key (canvas_panel), and the call that tells the grid it changed
        self.shared: list[tuple] = []
        self.on_shared: Callable[[], None] | None = None
        #: Below the chart instead (RooflinePlot.place_legend), where every corner of the view
        #: would hide markers or cross lines: the same rows, in rows across the chart's width
        #: (the tours read markers and host links through it in crowded charts)
        self.below: GridKey | None = None
        self.outside = False
        self.chip_rows = 0

    def entries(self, scene: ChartScene, chips: bool = True) -> list[tuple]:
        """The legend's rows: with ``chips`` False, only those every chart of a grid shares
        (the grid's key: shapes, marks, workloads, the datasheet's and the faint lines)."""
        spec, cmp = scene.spec, scene.comparison
        pen = self.style.pen(self.style.foreground, 1)
        out: list[tuple] = []
        for n, c in enumerate(scene.chips if chips else ()):
            if spec.roofs_of(c):
                dashed = c in spec.off_precision
                # the chip's solid line, named: its slope's label may find no spot in a
                # crowded chart (its peaks are in the key at the right)
                name = _("{chip}: {memory}").format(chip=cmp.chips[c].name,
                                                    memory=main_memory_text(scene, c))
                if dashed:
                    name = _("{chip} (none of the kernels' precisions)").format(chip=name)
                under = _drawn_over(scene, c, scene.chips[n + 1:])
                if under is not None:  # the tour saw TPU v3 in the legend and nowhere else
                    name = _("{chip} (under {other}'s line)").format(
                        chip=name, other=cmp.chips[under].name)
                out.append((name, roof_pen(self.style.chip_color(scene, c), True, dashed)))
        if chips:
            self.chip_rows = len(out)  # the rows that may give way below the chart
        used = {d.role for d in spec.diagonals if d.chip in scene.chips and d.used}
        ink = QColor(self.style.foreground)
        out += [(_(text), _line_pen(ink, role)) for role, text in LINE_LEGEND.items() if role in used]
        if any(r.chip in scene.chips for r in spec.datasheet_roofs):
            out.append((_(DATASHEET_LEGEND), datasheet_pen(QColor(self.style.foreground))))
        if any(d.chip in scene.chips and not d.used for d in spec.diagonals):
            # drawn faint and named only where a spot is clear: an exported picture showed
            # lines nothing explained (the tours)
            faint = QColor(self.style.foreground)
            faint.setAlpha(60)
            out.append((_(UNUSED_LEGEND), self.style.pen(faint, 1.2)))
        out += [(_(category), pen, symbol) for category, symbol in shape_legend(cmp)]
        out += [(_(text), pen, sample) for text, sample in _mark_entries(scene)]
        out += [(mark.name, pen, mark.symbol) for mark in scene.workloads]
        return out

    def draw(self, scene: ChartScene) -> None:
        lifted = scene.selection.lifted
        if lifted is not None and self._entries is not None:
            # A kernel's drag changes no chip, shape or precision; a roof's drag renames its chip
            # ("HBM3 ×1.5") step by step: the legend follows on release (1.3 ms a step).
            return
        entries = self.entries(scene) if self.shown else []
        if not self.shown:
            shared = self.entries(scene, chips=False)
            if _keys(shared) != _keys(self.shared):
                self.shared = shared
                if self.on_shared is not None:
                    self.on_shared()
        key = _keys(entries)
        if key != self._entries:  # each set_entries lays the legend out again
            self._entries = key
            self.legend.set_entries(entries)
            if self.outside and self.below is not None:
                self.below.set_entries(entries, self.chip_rows)

    def set_outside(self, outside: bool) -> None:
        """The legend below the chart (True) or in the view's corner."""
        if outside and self.below is None:
            self.below = GridKey(self.style.foreground)
            # across the whole chart, the axis and the peaks' key too: under the view alone,
            # eight chips' rows took seven lines and left the view 230 px (the fifth tour);
            # no more than a third of the chart's height (42 chips' rows had taken it all)
            self.below.room = lambda: self.plot.size().height() * BELOW_ROOM
            self.plot.geometryChanged.connect(self.below.relayout)
            self.plot.layout.addItem(self.below, 4, 0, 1, 3)
        self.outside = outside
        self.legend.setVisible(not outside)
        if self.below is not None:
            self.below.set_entries(self.legend.entries if outside else [], self.chip_rows)
            self.plot.layout.activate()  # the view takes its new size now, not a turn later

    def close(self) -> None:
        scene = self.legend.scene()  # PySide leaks an item left in a cleared scene
        if scene is not None:
            scene.removeItem(self.legend)


def _line_pen(color: QColor, role: str):
    """The legend's sample of a level's line: its dashes in ``color``, as the roofs draw it."""
    return pg.mkPen(color, width=1.2, style=LEVEL_STYLE[role])


def _keys(entries: list[tuple]) -> list[tuple]:
    """Entries as comparable values (a pen compares by identity)."""
    return [(e[0], e[1].color().name(), e[1].style(), *e[2:]) for e in entries]


def _mark_entries(scene: ChartScene) -> list[tuple[str, str]]:
    """(text, ChipLegend sample) for each kind of mark the shown chips have: points per memory
    level joined by a dotted line (some hollow), struck-through misfits, measured stars."""
    out = []
    marks = scene.spec.levels
    if marks is not None and len(marks) and not marks.filled[np.isin(marks.chip, scene.chips)].all():
        out.append((HELD_LEGEND if scene.spec.held_only else LEVELS_LEGEND, ChipLegend.LEVELS))
    misfit = scene.spec.misfits
    if len(misfit) and np.isin(misfit[:, 1], scene.chips).any():
        out.append((MISFIT_LEGEND, ChipLegend.MISFIT))
    if scene.measured:
        out.append((MEASURED_LEGEND, ChipLegend.MEASURED))
    if scene.workloads:  # (a hollow large point is not a level's: the third tour read both)
        out.append((STEP_LEGEND, ChipLegend.STEP))
        if any(not all(mark.fits) for mark in scene.workloads if mark.fits):
            out.append((UNFIT_LEGEND, ChipLegend.UNFIT))
    return out


def _drawn_over(scene: ChartScene, c: int, later) -> int | None:
    """The first chip drawn after ``c`` whose main-memory line lies on ``c``'s (the same
    bandwidth), hiding it: V100 and TPU v3 at 900 GB/s."""
    bandwidth = scene.spec.roofs_of(c)[0].bandwidth
    name = scene.comparison.chips[c].name
    for d in later:
        roofs = scene.spec.roofs_of(d)
        if roofs and abs(math.log10(roofs[0].bandwidth / bandwidth)) < SAME_LINE and \
                scene.comparison.chips[d].name != name:  # a copy of itself says nothing new
            return d
    return None
