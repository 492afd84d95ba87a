"""The workloads: each one's kernels as small marks in its own shape, its aggregate point
(drag it to change the batch; Shift: the context or sequence) and its label, as that
workload's own three items, so a drag step of one workload sets that workload's items only.

While a chip's roof is dragged, every workload's marks on that chip are lifted into two items of
their own, drawn directly at each step; each workload's items keep the other chips' marks,
unchanged, in their cached images. (Moving one chip's spots inside every workload's items
re-rendered all twenty of those images, each as large as the chart, at every step.)"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsItem

from roofline_gui.core.chart_labels import TEXT_ITEM_MARGIN
from roofline_gui.core.chart_scene import ChartScene
from roofline_gui.core.i18n import _
from roofline_gui.core.units import format_time
from roofline_gui.widgets.chart.layers.base import ChartLayer
from roofline_gui.widgets.chart.plot_items import CachedScatter, WorkloadScatter, log10, move_y


class _OnChip(str):
    """A workload's id as its big point's spot data, with the column of the chip it stands on:
    a drag reads the id, a click the chip too."""

    column: int

    def __new__(cls, workload_id: str, column: int):
        made = super().__new__(cls, workload_id)
        made.column = column
        return made


class WorkloadsLayer(ChartLayer):
    Z = 9.0
    PARTS = frozenset({"workloads", "labels", "selection"})

    def __init__(self, plot, style, on_dragged: Callable[[str, float, bool, bool], None]) -> None:
        super().__init__(plot, style)
        self.on_dragged = on_dragged
        self.scene: ChartScene | None = None
        self._items: dict[str, tuple] = {}  # workload id -> (entries, point, label)
        self._drawn: dict[str, tuple] = {}  # workload id -> what its marks were drawn from
        self._styled: dict[str, tuple] = {}  # workload id -> (key, its marks' styles)
        # The marks on the chip whose roof is being dragged, every workload's (see the module)
        self.lifted_entries = self.add(pg.ScatterPlotItem(size=8), 9)
        self.lifted_points = self.add(pg.ScatterPlotItem(size=17), 14)
        self._lifted_key: tuple | None = None  # what the lifted items' styles were set from
        # from a point to its label where the label is set off further (a thin line, as a
        # kernel's name set off has)
        self.stems = self.add(pg.PlotCurveItem(pen=self.style.pen(self.style.foreground, 1),
                                               connect="pairs"), 11)
        self._stems_drawn: list[tuple[float, float]] = []

    def draw(self, scene: ChartScene) -> None:
        self.scene = scene
        colors = tuple(scene.comparison.chips[c].color or "#808080" for c in scene.chips)
        wanted = {m.workload_id for m in scene.workloads}
        for wid in [w for w in self._items if w not in wanted]:
            for item in self._items.pop(wid):
                self.remove(item)
            self._drawn.pop(wid, None)
            self._styled.pop(wid, None)
        moving = self._moving_column(scene)
        for mark in scene.workloads:
            if moving is not None:  # its marks on the moving chip are drawn lifted
                mark = _without_column(mark, moving)
            key = (mark.label, mark.symbol, colors, mark.point_x, mark.point_y.tobytes(),
                   mark.entry_y.tobytes(), mark.entry_x.tobytes(), mark.fits)
            if self._drawn.get(mark.workload_id) != key:
                self._draw_marks(mark, colors)
                self._drawn[mark.workload_id] = key
        self._draw_lifted(scene, moving, colors)
        self._place_labels(scene)

    @staticmethod
    def _moving_column(scene: ChartScene) -> int | None:
        """The column (among the shown chips) of the chip whose roof is being dragged."""
        c = scene.moving_chip
        return scene.chips.index(c) if c in scene.chips else None

    def _draw_lifted(self, scene: ChartScene, moving: int | None, colors: tuple[str, ...]) -> None:
        """Every workload's marks on the moving chip, in the two lifted items: styles set once
        per drag, the y moved in place at each step; emptied when the drag ends."""
        entries, points = self.lifted_entries, self.lifted_points
        if moving is None:
            if self._lifted_key is not None:
                entries.setData([], [])
                points.setData([], [])
                self._lifted_key = None
            return
        marks = scene.workloads
        ok = [np.isfinite(m.entry_y[:, moving]) & np.isfinite(m.entry_x) for m in marks]
        point_ok = [bool(np.isfinite(m.point_y[moving])) for m in marks]
        ey = np.concatenate([log10(m.entry_y[o, moving]) for m, o in zip(marks, ok, strict=True)]
                            or [np.zeros(0)])
        py = np.array([float(np.log10(m.point_y[moving])) for m, o in zip(marks, point_ok, strict=True)
                       if o])
        key = (moving, colors[moving], tuple((m.workload_id, m.symbol, m.entry_x.tobytes(),
                                              o.tobytes(), p, m.point_x,
                                              m.fits[moving] if m.fits else True)
                                             for m, o, p in zip(marks, ok, point_ok, strict=True)))
        if key == self._lifted_key and move_y(entries, ey) and move_y(points, py):
            return
        color = QColor(colors[moving])
        faint = QColor(color)
        faint.setAlpha(150)
        ex = np.concatenate([log10(m.entry_x[o]) for m, o in zip(marks, ok, strict=True)]
                            or [np.zeros(0)])
        symbols = [m.symbol for m, o in zip(marks, ok, strict=True) for _ in range(int(o.sum()))]
        entries.setData(x=ex, y=ey, symbol=symbols, brush=self.style.brush(faint),
                        pen=self.style.pen(self.style.foreground, 1))
        shown = [m for m, o in zip(marks, point_ok, strict=True) if o]
        fits = [not m.fits or m.fits[moving] for m in shown]
        points.setData(x=[float(np.log10(m.point_x)) for m in shown], y=py,
                       symbol=[m.symbol for m in shown],
                       brush=[self.style.brush(color if f else QColor("#ffffff")) for f in fits],
                       pen=[self.style.pen(QColor(self.style.foreground) if f else color.darker(130), 2)
                            for f in fits])
        self._lifted_key = key

    def _workload_items(self, wid: str) -> tuple:
        items = self._items.get(wid)
        if items is None:
            entries = self.add(CachedScatter(size=8, hoverable=True, tip=self._tip), 9,
                               pick=self._pick_entry)
            point = self.add(WorkloadScatter(size=17, hoverable=True, hoverSize=21, tip=self._tip), 14,
                             pick=self._pick_point)
            point.sig_workload_dragged.connect(self.on_dragged)
            # on a backdrop of the chart's background, as the names and roofs' labels are (the
            # faint levels' dashed lines ran through "ResNet-50 training, fp32": the
            # twenty-first tour)
            backdrop = QColor(self.style.background)
            backdrop.setAlpha(225)
            label = self.add(pg.TextItem(color=self.style.foreground, anchor=(0, 1),
                                         fill=backdrop), 12)
            # its box as the labels are placed (core.chart_labels): the text's and a pixel
            # about it (Qt's 4 px margin, unmodelled, drew it over the texts above it)
            label.textItem.document().setDocumentMargin(TEXT_ITEM_MARGIN)
            # A drag step repaints the bounding rect of what moved, often most of the chart:
            # the other workloads' marks are blitted from their images, not painted again.
            for item in (entries, point):
                item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            items = self._items[wid] = (entries, point, label)
        return items

    def _styles(self, mark, colors: tuple[str, ...], ok: np.ndarray, point_ok: np.ndarray):
        """What a workload's marks are drawn with besides their y: its entries' x, brushes and
        data, its points' brushes and pens. These change with the chips' colours, the entries'
        intensities and which chips can run it; a roof's drag moves only the y, so they are
        kept from step to step."""
        key = (colors, mark.symbol, mark.entry_x.tobytes(), ok.tobytes(), point_ok.tobytes(),
               mark.fits, mark.point_x)
        cached = self._styled.get(mark.workload_id)
        if cached is not None and cached[0] == key:
            return cached[1], True
        ex, eb, ed, pb, pp = [], [], [], [], []
        lx = log10(mark.entry_x)
        for j, name in enumerate(colors):
            color = QColor(name)
            faint = QColor(color)
            faint.setAlpha(150)
            rows = np.flatnonzero(ok[:, j])
            ex += lx[rows].tolist()
            eb += [self.style.brush(faint)] * len(rows)
            ed += [(mark.workload_id, int(e), j) for e in rows]
            if point_ok[j]:
                # Hollow where the model and its cache do not fit in the chip's memory.
                pb.append(self.style.brush(color if mark.fits[j] else QColor("#ffffff")))
                pp.append(self.style.pen(color.darker(130) if not mark.fits[j]
                                         else QColor(self.style.foreground), 2))
        px = [float(np.log10(mark.point_x))] * int(point_ok.sum())
        styled = (ex, eb, ed, px, pb, pp)
        self._styled[mark.workload_id] = (key, styled)
        return styled, False

    def _draw_marks(self, mark, colors: tuple[str, ...]) -> None:
        entries, point, _label = self._workload_items(mark.workload_id)
        ok = np.isfinite(mark.entry_y) & np.isfinite(mark.entry_x)[:, None]
        point_ok = np.isfinite(mark.point_y)
        (ex, eb, ed, px, pb, pp), same = self._styles(mark, colors, ok, point_ok)
        ey = log10(mark.entry_y.T[ok.T])  # chip by chip, as the styles are
        py = log10(mark.point_y[point_ok])
        if same and move_y(entries, ey) and move_y(point, py):
            return  # only the y moved (a roof's drag): the spots keep their styles
        pen = self.style.pen(self.style.foreground, 1)
        entries.setData(x=ex, y=ey, brush=eb, symbol=mark.symbol, data=ed, pen=pen)
        columns = np.flatnonzero(point_ok).tolist()
        point.setData(x=px, y=py, brush=pb, symbol=mark.symbol,
                      data=[_OnChip(mark.workload_id, j) for j in columns], pen=pp)

    def _place_labels(self, scene: ChartScene) -> None:
        """Each workload's label where the core placed it (core.chart_labels); hidden where it
        has no room and is not the selected workload's."""
        placed = scene.labels.workloads if scene.labels is not None else ()
        stems: list[tuple[float, float]] = []
        for n, mark in enumerate(scene.workloads):
            label = self._items[mark.workload_id][2]
            lb = placed[n] if n < len(placed) else None
            if lb is None:
                label.hide()
                continue
            if label.toPlainText() != lb.text:
                label.setText(lb.text)
            label.setAnchor(lb.anchor)
            # TextItem pads its text by a few pixels; the offsets are the text box's corner.
            px = scene.labels.px
            label.setPos(lb.x + lb.offset[0] / px[0], lb.y - lb.offset[1] / px[1])
            label.show()
            if lb.stem:  # from just outside its big point (17 px across) to the text's edge
                dx, dy = lb.offset
                f = 9.0 / (math.hypot(dx, dy) or 1.0)
                stems += [(lb.x + f * dx / px[0], lb.y - f * dy / px[1]),
                          (lb.x + dx / px[0], lb.y - dy / px[1])]
        if stems != self._stems_drawn:  # (a drag step moves one label, most often no stem)
            xy = np.array(stems, dtype=float).reshape(-1, 2)
            self.stems.setData(xy[:, 0], xy[:, 1])
            self._stems_drawn = stems

    def spots(self) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """((log10 x, log10 y) of the workloads' kernels, the same of their points) as drawn,
        the lifted ones (a roof's drag) included."""
        out = []
        for n, lifted in ((0, self.lifted_entries), (1, self.lifted_points)):
            data = [items[n].getData() for items in self._items.values()] + [lifted.getData()]
            out.append((np.concatenate([np.asarray(d[0]) for d in data] or [np.zeros(0)]),
                        np.concatenate([np.asarray(d[1]) for d in data] or [np.zeros(0)])))
        return out[0], out[1]

    def label_items(self) -> dict[str, pg.TextItem]:
        return {wid: items[2] for wid, items in self._items.items()}

    def _pick_point(self, data) -> tuple[str, str | None] | None:
        """A workload's big point stands for the workload on its chip (a click selects both)."""
        column = getattr(data, "column", None)
        if self.scene is None or column is None or column >= len(self.scene.chips):
            return (str(data), None) if data is not None else None
        return str(data), self.scene.comparison.chips[self.scene.chips[column]].id

    def _pick_entry(self, data) -> tuple[str, str] | None:
        """One of a workload's kernels stands for the workload, on that kernel's chip."""
        if self.scene is None or not isinstance(data, tuple):
            return None
        wid, _e, j = data
        if j >= len(self.scene.chips):
            return None
        return wid, self.scene.comparison.chips[self.scene.chips[j]].id

    def _tip(self, x, y, data) -> str:
        scene = self.scene
        results = {r.workload.id: r for r in scene.results}
        units = scene.spec.units
        if isinstance(data, tuple):  # one of the workload's kernels
            wid, e, j = data
            r = results.get(wid)
            if r is None or j >= len(scene.chips):
                return ""
            c = scene.chips[j]
            entry = r.entries[e]
            rate = float(r.evaluation.attainable[r.rows.start + e, c])
            return _("{kernel} × {count} in {workload} on {chip}\nattainable {rate}\n{time} of "
                     "{step} per step").format(
                kernel=entry.kernel.name, count=f"{entry.count:,.0f}", workload=r.workload.name,
                chip=r.chips[c].name, rate=units.format_rate(rate),
                time=format_time(float(r.entry_time[e, c])), step=format_time(float(r.time[c])))
        r = results.get(data)
        if r is None:
            return ""
        lines = [(_("{workload} (drag: batch; Shift+drag: context)")
                  if r.workload.phase == "decode" else
                  _("{workload} (drag: batch; Shift+drag: sequence)")).format(
                      workload=r.workload.name),
                 _("aggregate intensity {intensity}").format(
                     intensity=units.format_intensity(r.intensity))]
        for c in scene.chips:
            if np.isfinite(r.time[c]):
                lines.append(_("{chip}: {time} per step, {rate} {unit}").format(
                    chip=r.chips[c].name, time=format_time(float(r.time[c])),
                    rate=f"{r.throughput[c]:,.4g}", unit=_(r.workload.throughput_unit)))
        return "\n".join(lines)


def _without_column(mark, j: int):
    """``mark`` with nothing on the ``j``-th shown chip (its marks drawn lifted)."""
    entry_y, point_y = mark.entry_y.copy(), mark.point_y.copy()
    entry_y[:, j] = np.nan
    point_y[j] = np.nan
    return replace(mark, entry_y=entry_y, point_y=point_y)
