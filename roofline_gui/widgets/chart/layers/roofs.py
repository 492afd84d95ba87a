"""The roofs: per chip a compute roof per shown precision on its main-memory diagonal, the
ridge points, the other memory levels' diagonals and, with achievable roofs, the datasheet
roofs they moved from. One painted item (plot_items.RoofLayer) holds all of them."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPen

from roofline_gui.core.chart_scene import ChartScene
from roofline_gui.core.i18n import N_, _
from roofline_gui.core.levels import ROLE_SHORT
from roofline_gui.core.units import format_si
from roofline_gui.widgets.chart.layers.base import ChartLayer
from roofline_gui.widgets.chart.plot_items import RoofLayer, log10

DATASHEET_LEGEND = N_("datasheet roofs (long dashes)")
DATASHEET_DASHES = [9.0, 5.0]  # in pen widths: longer than the cache diagonals' dashes
LEVEL_STYLE = {
    "dram": Qt.PenStyle.SolidLine,
    "cache": Qt.PenStyle.DashLine,
    "host": Qt.PenStyle.DotLine,
    "link": Qt.PenStyle.DashDotLine,
}


#: characters of a source said in a roof's tooltip: several lines meet where the pointer is, and
#: their tooltips, each with its sources whole, covered half the window (the seventeenth tour)
SOURCE_CHARS = 110


def brief(source: str) -> str:
    """A source cut at a word to about SOURCE_CHARS (…): whole in the hardware editor."""
    if len(source) <= SOURCE_CHARS:
        return source
    cut = source[:SOURCE_CHARS].rsplit(" ", 1)[0].rstrip(",;:(")
    return cut + _("… (in full: the hardware editor)")


def datasheet_pen(color: QColor) -> QPen:
    pen = pg.mkPen(color, width=1.2)
    pen.setDashPattern(DATASHEET_DASHES)
    return pen


def roof_pen(color: QColor, first: bool, dashed: bool) -> QPen:
    """A compute roof's pen: the chip's highest roof thicker; dashed where the chip has none of
    the kernels' precisions."""
    return pg.mkPen(color, width=2.5 if first else 1.5,
                    style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)


class RoofsLayer(ChartLayer):
    Z = 1.0
    PARTS = frozenset({"roofs"})

    def __init__(self, plot, style) -> None:
        super().__init__(plot, style)
        self.item = self.add(RoofLayer())
        # While one chip's roof is dragged its lines are drawn here, step by step in plain
        # strokes, and the other chips' stay in ``item``, painted once into its cached image
        # (repainting every chip's roofs each step was 5 ms of a 1,000 x 8 drag step).
        self.lifted_item = self.add(RoofLayer())
        self._static = None  # (lifted chip index, what the other chips' lines were drawn from)

    @staticmethod
    def _moving_chip(scene: ChartScene) -> int | None:
        """The chip whose roof is being dragged, where this chart shows it."""
        c = scene.moving_chip
        return c if c in scene.chips else None

    def _drawn_from(self, scene: ChartScene, chips) -> tuple:
        spec = scene.spec
        return (tuple(chips), tuple(self.style.chip_color(scene, c).name() for c in chips),
                tuple(r for r in spec.roofs if r.chip in chips),
                tuple(d for d in spec.diagonals if d.chip in chips),
                tuple(r for r in spec.datasheet_roofs if r.chip in chips), spec.units,
                frozenset(spec.off_precision), tuple(scene.comparison.chips[c] for c in chips))

    def update(self, scene: ChartScene, changed: frozenset[str]) -> None:
        was = self._static[0] if self._static is not None else None
        if changed & self.PARTS or self._moving_chip(scene) != was:  # a roof drag began or ended
            self.draw(scene)

    def draw(self, scene: ChartScene) -> None:
        moving = self._moving_chip(scene)
        others = [c for c in scene.chips if c != moving]
        drawn = (moving, self._drawn_from(scene, others))
        if drawn != self._static:
            self.item.clear()
            for c in others:
                self._draw_chip(scene, c, self.item)
            self.item.finish()
            self._static = drawn
        self.lifted_item.moving = moving is not None
        self.lifted_item.clear()
        if moving is not None:
            self._draw_chip(scene, moving, self.lifted_item)
        self.lifted_item.finish()

    def _draw_chip(self, scene: ChartScene, c: int, item: RoofLayer) -> None:
        spec, units, cmp = scene.spec, scene.spec.units, scene.comparison
        chip, color = cmp.chips[c], self.style.chip_color(scene, c)
        derated = cmp.result.derated
        rate_unit = f"{units.word}/s"
        dram_said = f"{chip.dram.name} {brief(chip.dram.provenance(derated).text)}"
        roofs = spec.roofs_of(c)
        peaks = ", ".join(f"{r.precision} {format_si(r.peak, rate_unit)}" for r in roofs)
        slope = _("{chip} main-memory roof: {level} {bandwidth}, {source}; left of each ridge "
                  "it is the roof for every precision ({peaks})\n(drag it to move the "
                  "bandwidth: a what-if)").format(
            chip=chip.name, level=chip.dram.name, bandwidth=format_si(roofs[0].bandwidth, "B/s"),
            source=brief(chip.dram.provenance(derated).text), peaks=peaks) if roofs else ""
        for n, roof in enumerate(roofs):
            xs, ys = roof.points()
            said = brief(chip.compute_provenance(roof.precision, derated).text)
            dram = chip.memory.index(chip.dram)
            item.add_line(log10(xs), log10(ys), roof_pen(color, n == 0, c in spec.off_precision),
                               tip=_("{chip} {precision} roof: {peak}, {source}; {memory}\n"
                                     "(drag its flat part to move the peak, its slope the "
                                     "bandwidth: a what-if)").format(
                                   chip=chip.name, precision=roof.precision,
                                   peak=format_si(roof.peak, rate_unit), source=said,
                                   memory=dram_said),
                               smooth=n == 0,
                               key=(chip.id, roof.precision, float(np.log10(roof.ridge)), dram),
                               slope_tip=slope, slope_until=float(np.log10(roof.ridge)))
            # The ridge's derivation, so the number can be checked: peak ÷ bandwidth.
            item.add_dot(np.log10(roof.ridge), np.log10(roof.peak), color,
                              tip=_("{chip} {precision} ridge point: {ridge} {word}/B = "
                                    "{peak} ÷ {bandwidth} ({memory}). Left of it the {memory} "
                                    "diagonal is the roof, right of it the {precision} "
                                    "peak.").format(
                                  chip=chip.name, precision=roof.precision,
                                  ridge=f"{roof.ridge:,.4g}", word=units.word,
                                  peak=format_si(roof.peak, rate_unit),
                                  bandwidth=format_si(roof.bandwidth, "B/s"),
                                  memory=chip.dram.name))
        self._draw_datasheet_roofs(scene, c, color, rate_unit, item)
        for diagonal in (d for d in spec.diagonals if d.chip == c):
            xs, ys = diagonal.points()
            faint = QColor(color)
            faint.setAlpha(255 if diagonal.used else 60)
            item.add_line(
                log10(xs), log10(ys), pg.mkPen(faint, width=1.2, style=LEVEL_STYLE[diagonal.role]),
                tip=_("{chip} {level}: {bandwidth} ({role})").format(
                    chip=chip.name, level=diagonal.name,
                    bandwidth=format_si(diagonal.bandwidth, "B/s"),
                    role=_(ROLE_SHORT.get(diagonal.role, diagonal.role)))
                + ("" if diagonal.used else _("; no kernel moves bytes at this level")),
                key=(chip.id, diagonal.level))

    def _draw_datasheet_roofs(self, scene: ChartScene, c: int, color: QColor, rate_unit: str,
                              item: RoofLayer) -> None:
        """With achievable roofs: the datasheet roofs they stand below (or above), thin, faint
        and in long dashes (short dashes are cache diagonals)."""
        chip = scene.comparison.chips[c]
        for roof in (r for r in scene.spec.datasheet_roofs if r.chip == c):
            faint = QColor(color)
            faint.setAlpha(150)
            xs, ys = roof.points()
            item.add_line(
                log10(xs), log10(ys), datasheet_pen(faint),
                tip=_("{chip} {precision} datasheet roof: {peak}, {memory} {bandwidth} "
                      "({source})").format(
                    chip=chip.name, precision=roof.precision,
                    peak=format_si(roof.peak, rate_unit), memory=chip.dram.name,
                    bandwidth=format_si(roof.bandwidth, "B/s"),
                    source=brief(chip.compute_provenance(roof.precision).text)))
