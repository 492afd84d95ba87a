"""The roofs: per chip a compute roof per shown precision on its main-memory diagonal, the
ridge points, the other memory levels' diagonals and, with achievable roofs, the datasheet
roofs they moved from. One painted item (plot_items.RoofLayer) holds all of them."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPen

from roofline_gui.core.chart_scene import ChartScene
from roofline_gui.core.units import format_si
from roofline_gui.widgets.chart.layers.base import ChartLayer
from roofline_gui.widgets.chart.plot_items import RoofLayer, log10

DATASHEET_LEGEND = "datasheet roofs (long dashes)"
DATASHEET_DASHES = [9.0, 5.0]  # in pen widths: longer than the cache diagonals' dashes
LEVEL_STYLE = {
    "dram": Qt.PenStyle.SolidLine,
    "cache": Qt.PenStyle.DashLine,
    "host": Qt.PenStyle.DotLine,
    "link": Qt.PenStyle.DashDotLine,
}


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

    def update(self, scene: ChartScene, changed: frozenset[str]) -> None:
        moving = (scene.selection.lifted or "").startswith("roof:")
        if moving != self.item.moving:  # a roof drag began or ended: plain or smooth strokes
            self.item.moving = moving
            self.item.invalidate()
        super().update(scene, changed)

    def draw(self, scene: ChartScene) -> None:
        self.item.moving = (scene.selection.lifted or "").startswith("roof:")
        self.item.clear()
        for c in scene.chips:
            self._draw_chip(scene, c)
        self.item.finish()

    def _draw_chip(self, scene: ChartScene, c: int) -> None:
        spec, units, cmp = scene.spec, scene.spec.units, scene.comparison
        chip, color = cmp.chips[c], self.style.chip_color(scene, c)
        derated = cmp.result.derated
        rate_unit = f"{units.word}/s"
        dram_said = f"{chip.dram.name} {chip.dram.provenance(derated).text}"
        for n, roof in enumerate(spec.roofs_of(c)):
            xs, ys = roof.points()
            said = chip.compute_provenance(roof.precision, derated).text
            dram = chip.memory.index(chip.dram)
            self.item.add_line(log10(xs), log10(ys), roof_pen(color, n == 0, c in spec.off_precision),
                               tip=f"{chip.name} {roof.precision} roof: "
                                   f"{format_si(roof.peak, rate_unit)}, {said}; {dram_said}"
                                   "\n(drag its flat part to move the peak, its slope the "
                                   "bandwidth: a what-if)",
                               smooth=n == 0,
                               key=(chip.id, roof.precision, float(np.log10(roof.ridge)), dram))
            # The ridge's derivation, so the number can be checked: peak ÷ bandwidth.
            self.item.add_dot(np.log10(roof.ridge), np.log10(roof.peak), color,
                              tip=f"{chip.name} {roof.precision} ridge point: "
                                  f"{roof.ridge:,.4g} {units.word}/B = "
                                  f"{format_si(roof.peak, rate_unit)} ÷ "
                                  f"{format_si(roof.bandwidth, 'B/s')} ({chip.dram.name}). "
                                  f"Left of it the {chip.dram.name} diagonal is the roof, "
                                  f"right of it the {roof.precision} peak.")
        self._draw_datasheet_roofs(scene, c, color, rate_unit)
        for diagonal in (d for d in spec.diagonals if d.chip == c):
            xs, ys = diagonal.points()
            faint = QColor(color)
            faint.setAlpha(255 if diagonal.used else 60)
            self.item.add_line(
                log10(xs), log10(ys), pg.mkPen(faint, width=1.2, style=LEVEL_STYLE[diagonal.role]),
                tip=f"{chip.name} {diagonal.name}: {format_si(diagonal.bandwidth, 'B/s')} "
                    f"({diagonal.role})" + ("" if diagonal.used else "; no kernel moves bytes at this level"),
                key=(chip.id, diagonal.level))

    def _draw_datasheet_roofs(self, scene: ChartScene, c: int, color: QColor, rate_unit: str) -> None:
        """With achievable roofs: the datasheet roofs they stand below (or above), thin, faint
        and in long dashes (short dashes are cache diagonals)."""
        chip = scene.comparison.chips[c]
        for roof in (r for r in scene.spec.datasheet_roofs if r.chip == c):
            faint = QColor(color)
            faint.setAlpha(150)
            xs, ys = roof.points()
            self.item.add_line(
                log10(xs), log10(ys), datasheet_pen(faint),
                tip=f"{chip.name} {roof.precision} datasheet roof: "
                    f"{format_si(roof.peak, rate_unit)}, {chip.dram.name} "
                    f"{format_si(roof.bandwidth, 'B/s')} "
                    f"({chip.compute_provenance(roof.precision).text})")
