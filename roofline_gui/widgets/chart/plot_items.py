"""Small pyqtgraph building blocks for the roofline canvas.

Coordinates: every item on the canvas is placed in log10 data space through :func:`log10`,
and the axes are only *labelled* logarithmically (``SIAxis``). pyqtgraph's PlotItem log mode
transforms PlotDataItems but not TextItems or ScatterPlotItems added directly; doing the
transform in one place keeps every item consistent.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
    QTransform,
)
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QSizePolicy

from roofline_gui.core.chart_labels import backdrop_inset, label_text_origin
from roofline_gui.core.i18n import ngettext
from roofline_gui.widgets.chart.pg_private import exporting as is_exporting
from roofline_gui.widgets.chart.pg_private import max_spot_width, uniform_fill
from roofline_gui.widgets.common.axes import SIAxis  # noqa: F401 (the chart's axes)
from roofline_gui.widgets.common.drag import drag_target


def log10(values) -> np.ndarray:
    """log10 of positive values; anything else becomes NaN (and is not drawn)."""
    arr = np.asarray(values, dtype=float)
    return np.log10(arr, out=np.full(arr.shape, np.nan), where=arr > 0)


def move_y(item: pg.ScatterPlotItem, y: np.ndarray) -> bool:
    """Give every spot of ``item`` a new y in place, x, brushes, pens, symbols and data kept (a
    roof's drag moves a workload's marks up or down, nothing else): setData rebuilt every spot's
    style through Python, 0.3 ms an item. False (and nothing done) when the count differs."""
    if len(item.data) != len(y):
        return False
    item.data["y"] = y
    _moved(item)
    return True


def _moved(item: pg.ScatterPlotItem) -> None:
    """After spots' places were set in ``item.data``: forget the cached bounds, repaint."""
    item.bounds = [None, None]  # pyqtgraph's cached data bounds
    item.prepareGeometryChange()
    item.update()



def joined_tips(tips: list[str]) -> str:
    """Several spots' tooltips in one, a last line they all end with (a hint in brackets, as
    stacked markers' "(… click again to select the next)") said once, at the end."""
    tips = [t for t in tips if t]
    last = {t.rpartition("\n")[2] for t in tips}
    if len(tips) > 1 and len(last) == 1 and (hint := last.pop()).startswith("("):
        return "\n\n".join(t.rpartition("\n")[0] for t in tips) + "\n" + hint
    return "\n\n".join(tips)

class CachedScatter(pg.ScatterPlotItem):
    """A scatter item whose bounding rect is kept while its inputs stay the same."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._rect: QRectF | None = None  # boundingRect, while its inputs stay the same
        self._rect_key: tuple = ()

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt API)
        """pyqtgraph's bounds (data bounds grown by the largest spot), kept while the data
        bounds and spot size are unchanged: Qt asks every item for it several times per
        repaint, and pyqtgraph works it out through Python each time (30 chips, ~95 calls, 2-4
        ms per drag step). pyqtgraph clears ``bounds`` on every change of data or view
        transform, which invalidates this too."""
        key = (self.bounds[0], self.bounds[1], max_spot_width(self))
        if self._rect is None or key != self._rect_key or key[0] is None or key[1] is None:
            self._rect = super().boundingRect()
            self._rect_key = (self.bounds[0], self.bounds[1], max_spot_width(self))
        return QRectF(self._rect)

    def hoverEvent(self, ev) -> None:  # noqa: N802 (pyqtgraph API)
        """The tooltip of the spots under the pointer, on this item: pyqtgraph puts it on the
        view box, the bottom-most item, so a roof or a sweep path under a marker or a
        workload's mark (drawn below them, above the view box) showed its own tooltip."""
        super().hoverEvent(ev)
        tip = self.opts.get("tip")
        points = [] if ev.exit or tip is None else list(self.pointsAt(ev.pos()))[::-1][:3]
        self.setToolTip(joined_tips([tip(x=p.pos().x(), y=p.pos().y(), data=p.data())
                                     for p in points]))
        view = self.getViewBox()
        if view is not None and view.toolTip():
            view.setToolTip("")


class MarkerScatter(CachedScatter):
    """Kernel markers for one chip. Dragging a marker emits the intensity under the cursor.

    ``data`` of each spot is the kernel id. A drag that does not start on a marker is left to
    the view box (pan), so the canvas still pans and zooms as usual.
    """

    #: (kernel id, target intensity in op/B, finished)
    sig_marker_dragged = Signal(str, float, bool)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._spot_of = np.zeros(0, dtype=np.intp)  # kernel row -> spot index, -1 if not drawn
        self.kernel_ids: np.ndarray | None = None  # the kernel set the spots were filled from

    def fill(self, x: np.ndarray, y: np.ndarray, ids: Sequence[str] | np.ndarray, brush, pen,
             rows: np.ndarray | None = None, n_kernels: int = 0, symbols=None,
             sizes: np.ndarray | None = None) -> None:
        """All spots at once, in one style; spot i is kernel row ``rows[i]`` (for
        ``move_spot``). pyqtgraph looks up every spot's symbol image by a Python tuple key
        (docs/performance.md); with one style, one lookup serves all. ``sizes``: each spot's,
        where some differ (a marker over another chip's, drawn smaller)."""
        self._uniform = symbols is None and sizes is None  # the one-lookup fill applies
        extra = {} if sizes is None else {"size": sizes}
        try:
            if symbols is None:
                self.setData(x=x, y=y, data=ids, brush=brush, pen=pen, symbol="o", **extra)
            else:
                self.setData(x=x, y=y, data=ids, brush=brush, pen=pen, symbol=list(symbols),
                             **extra)
        finally:
            self._uniform = False
        self._spot_of = np.full(max(n_kernels, len(ids)), -1, dtype=np.intp)
        if rows is not None:
            self._spot_of[rows] = np.arange(len(rows))

    def updateSpots(self, dataSet=None) -> None:  # noqa: N802, N803 (pyqtgraph API)
        data = self.data if dataSet is None else dataSet
        if not (getattr(self, "_uniform", False) and self.opts["pxMode"] and self.opts["useCache"]
                and len(data) > 1 and (data["sourceRect"]["w"] == 0).all()):
            super().updateSpots(dataSet)
            return
        uniform_fill(self, data)

    def move_spot(self, row: int, x: float, y: float, kernel_id: str) -> bool:
        """Move the spot of kernel ``row`` to (x, y) without rebuilding the item. False when
        that cannot be done in place (the kernel had no spot, or has no finite place now)."""
        if not 0 <= row < len(self._spot_of):
            return False
        spot = int(self._spot_of[row])
        placed = math.isfinite(x) and math.isfinite(y)
        if spot < 0:
            return not placed  # had no spot and still has none (say, no such precision here)
        if not placed or self.data["data"][spot] != kernel_id:
            return False
        self.data["x"][spot], self.data["y"][spot] = x, y
        _moved(self)
        return True

    def move_spots(self, rows: np.ndarray, x: np.ndarray, y: np.ndarray) -> bool:
        """Move the spots of kernel ``rows`` to (``x``, ``y``) in place, at once (a roof's drag
        moves every kernel of its chip: setData rebuilt 1,000 spots' styles through Python,
        1.2 ms a step). False, and nothing moved, when any of them has no spot."""
        if len(rows) and int(rows.max()) >= len(self._spot_of):
            return False
        spots = self._spot_of[rows]
        if (spots < 0).any():
            return False
        self.data["x"][spots], self.data["y"][spots] = x, y
        _moved(self)
        return True

    def show_spot(self, row: int, shown: bool) -> None:
        """Show or hide the spot of kernel ``row`` (if it has one), in place."""
        spot = int(self._spot_of[row]) if 0 <= row < len(self._spot_of) else -1
        if spot >= 0 and bool(self.data["visible"][spot]) != shown:
            self.data["visible"][spot] = shown
            self.update()

    def mouseDragEvent(self, ev) -> None:  # noqa: N802 (Qt API)
        item_id = drag_target(self, ev, self.spot_data_at)
        if item_id is not None:
            self._dragged(item_id, float(10 ** ev.pos().x()), bool(ev.isFinish()), ev)

    def spot_data_at(self, pos) -> str | None:
        """The data (an id) of the spot under ``pos``, or None."""
        spots = self.pointsAt(pos)
        return spots[0].data() if len(spots) else None

    def _dragged(self, kernel_id: str, x: float, finished: bool, ev) -> None:
        """One step of a drag of the spot whose data is ``kernel_id``, to intensity ``x``."""
        self.sig_marker_dragged.emit(kernel_id, x, finished)


class WorkloadScatter(MarkerScatter):
    """Workloads' aggregate points (one per workload and chip). Dragging one emits the
    intensity under the cursor and whether Shift is held (Shift: context or sequence, not
    batch)."""

    #: (workload id, target intensity in shown units, finished, Shift held)
    sig_workload_dragged = Signal(str, float, bool, bool)

    def _dragged(self, workload_id: str, x: float, finished: bool, ev) -> None:
        shift = bool(ev.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        self.sig_workload_dragged.emit(workload_id, x, finished, shift)


@dataclass
class _Line:
    """A polyline of a RoofLayer."""

    x: np.ndarray  # log10 data coordinates
    y: np.ndarray
    pen: QPen
    tip: str
    smooth: bool = False  # antialiased on screen even when there are many lines
    thin: QPen | None = None  # the pen at 1 px, for plain (not antialiased) strokes on screen
    #: what dragging it moves: (chip id, precision, ridge log10 x) for a roof (its flat part the
    #: peak, its slope main memory), (chip id, level index) for a diagonal; None: not draggable
    key: tuple | None = None
    #: the tip left of ``slope_until`` (log10 x): a roof's slope, its main memory's, is the same
    #: line for every precision's roof of the chip, and says so once
    slope_tip: str = ""
    slope_until: float = -math.inf

    def tip_at_x(self, x: float) -> str:
        return self.slope_tip if self.slope_tip and x < self.slope_until else self.tip

    def plain_pen(self) -> QPen:
        """The pen for a stroke that is not antialiased: thin lines (under 2 px) at 1 px, which
        Qt's rasterizer draws on its fast path; 1.2-1.5 px strokes without antialiasing look
        the same and cost it about three times as much (docs/performance.md)."""
        if self.pen.widthF() >= 2:
            return self.pen
        if self.thin is None:
            self.thin = QPen(self.pen)
            self.thin.setWidthF(1.0)
        return self.thin


@dataclass
class _Dot:
    """A ridge point of a RoofLayer."""

    x: float
    y: float
    color: QColor
    tip: str


@dataclass
class _Label:
    """A text of a RoofLayer."""

    text: str
    x: float
    y: float
    color: QColor
    anchor: tuple[float, float]  # (0, 1): the point is the text's bottom-left corner
    along: tuple[float, float] | None = None  # a data direction the text follows on screen
    offset: tuple[float, float] = (0.0, 0.0)  # pixels from the point (y down)
    stem: bool = False  # a thin line from the point to the text (a name set off its marker)
    pieces: tuple[tuple[str, QColor], ...] = ()  # the text in coloured pieces, where it has them


class GridLines(QGraphicsPathItem):
    """Line segments, from pairs of points in data coordinates, in a 1 px cosmetic pen and never
    antialiased: the chart's decade and minor grid. A plain Qt path item, painted in C++ (the
    two pyqtgraph curve items it replaces, each with its own scatter item, took about 6 ms of
    every start to build)."""

    def __init__(self, x: np.ndarray, y: np.ndarray, color: QColor) -> None:
        super().__init__(pg.arrayToQPath(np.asarray(x, float), np.asarray(y, float), connect="pairs"))
        pen = QPen(color, 1)
        pen.setCosmetic(True)
        self.setPen(pen)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # the view's is on
        super().paint(painter, option, widget)


def label_frame(label: _Label, transform: QTransform, metrics: QFontMetricsF
                ) -> tuple[QTransform, QRectF, QRectF]:
    """Where a RoofLayer's text is painted: its frame (device pixels from ``transform``, the
    item's, moved to its point and offset and turned along its line), its text box in that
    frame, and the box its backdrop fills (all of it but the row its own line reaches into:
    core.chart_labels.backdrop_inset). The label scan (benchmarks/scan_labels.py) measures
    the same boxes."""
    p = transform.map(QPointF(label.x, label.y))
    angle = 0.0
    if label.along is not None:
        d = transform.map(QPointF(label.x + label.along[0], label.y + label.along[1])) - p
        angle = math.degrees(math.atan2(d.y(), d.x()))
    w, h = metrics.boundingRect(label.text).width() + 4, metrics.height()
    frame = QTransform()
    frame.translate(*(p + QPointF(*label.offset)).toTuple())
    frame.rotate(angle)
    box = QRectF(*label_text_origin(label, w, h), w, h)
    return frame, box, box.adjusted(0, backdrop_inset(label), 0, 0)


class RoofLayer(pg.GraphicsObject):
    """Every roof, bandwidth diagonal, ridge point and label of a chart, painted by one item.

    With one pyqtgraph item per line (150 of them for 30 chips), every repaint near a moving
    marker replayed all of them through Python (docs/performance.md); this item
    paints them in one call, clipped to the exposed area. Tooltips come from the nearest line or
    point within a few pixels of the cursor.
    """

    DOT_SIZE = 7.0
    HIT_PX = 5.0
    SMOOTH_LINES = 60  # up to this many lines, every line is antialiased on screen
    SMOOTH_MARKED = 12  # beyond that, lines marked smooth are, while there are at most this many

    def __init__(self, smooth_lines: int = SMOOTH_LINES) -> None:
        super().__init__()
        self.smooth_lines = smooth_lines
        self.lines: list[_Line] = []
        self.dots: list[_Dot] = []
        self.labels: list[_Label] = []
        self._rect = QRectF()
        self.painted = False  # whether it has been on screen (or in an export) yet
        self.beneath: RoofLayer | None = None  # a layer under this one whose tooltips show too
        #: a texts' layer: each text on a backdrop of the chart's background, so a line or a
        #: grid line under it does not strike it through (None: bare text)
        self.backdrop: QColor | None = None
        #: while a roof is dragged the lines are redrawn every step: plain strokes then (an
        #: antialiased repaint of 8 chips' roofs was 7.6 ms a step); smooth again on release
        self.moving = False
        self.setZValue(1)
        # Painted once per view change into one image; a repaint near a moving marker blits it.
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def clear(self) -> None:
        """Forget every line, dot and label (call ``finish`` after adding new ones)."""
        self.lines, self.dots, self.labels = [], [], []

    def add_line(self, x, y, pen: QPen, tip: str = "", smooth: bool = False,
                 key: tuple | None = None, slope_tip: str = "",
                 slope_until: float = -math.inf) -> None:
        self.lines.append(_Line(np.asarray(x, float), np.asarray(y, float), pen, tip, smooth,
                                key=key, slope_tip=slope_tip, slope_until=slope_until))

    def add_dot(self, x: float, y: float, color: QColor, tip: str = "") -> None:
        self.dots.append(_Dot(float(x), float(y), QColor(color), tip))

    def add_label(self, text: str, x: float, y: float, color: QColor, anchor=(0, 1),
                  along: tuple[float, float] | None = None, offset=(0.0, 0.0),
                  stem: bool = False, pieces: tuple = ()) -> None:
        self.labels.append(_Label(text, float(x), float(y), QColor(color), tuple(anchor), along,
                                  tuple(offset), stem, tuple(pieces)))

    def finish(self, reach: tuple[float, float] | None = None) -> None:
        """Call after adding: recompute the bounds and repaint. ``reach``: how far (in data
        units, x and y) a text may run from its point; by default three decades, which a
        long name in a small chart outruns (Qt clips an item's painting to its bounds)."""
        xs = [line.x for line in self.lines] + [np.array([d.x for d in self.dots + self.labels])]
        ys = [line.y for line in self.lines] + [np.array([d.y for d in self.dots + self.labels])]
        x, y = np.concatenate(xs), np.concatenate(ys)
        x, y = x[np.isfinite(x)], y[np.isfinite(y)]
        self.prepareGeometryChange()
        if len(x) and len(y):
            # Margin for what is sized in pixels around its point: a decade for dots, more for
            # labels, whose text can reach further than a decade in a small chart.
            mx, my = (reach or (3.0, 3.0)) if self.labels else (1.0, 1.0)
            self._rect = QRectF(x.min() - mx, y.min() - my, np.ptp(x) + 2 * mx, np.ptp(y) + 2 * my)
        else:
            self._rect = QRectF()
        # New content: drop the device-coordinate cache outright. update() alone left the old
        # image up when the new content is the old one moved by exactly the shift the view's
        # range makes (Count MACs halves both axes: a pure translation on log axes), so the
        # chart kept the old roofs while the markers moved.
        self.invalidate()

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt API)
        return self._rect

    def invalidate(self) -> None:
        """Paint again from scratch (its cached image dropped): the same lines, other strokes.
        While its lines move at every step (``moving``) it keeps no image: rendering one and
        then blitting it was twice the work of drawing them."""
        self.setCacheMode(QGraphicsItem.CacheMode.NoCache)
        if not self.moving:
            self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.update()

    def paint(self, painter: QPainter, option, widget=None) -> None:
        self.painted = True
        view = self.viewRect()  # what is visible, in data coordinates (None before layout)
        exporting = is_exporting(self)
        # Antialiased strokes cost the software rasterizer several times plain ones
        # (docs/performance.md); with many lines, only those marked smooth (each chip's main
        # roof) are antialiased on screen, and only while they are few. Exports are always
        # smooth.
        smooth_all = exporting or (len(self.lines) <= self.smooth_lines and not self.moving)
        smooth_marked = sum(line.smooth for line in self.lines) <= self.SMOOTH_MARKED and (
            exporting or not self.moving)
        for line in self.lines:
            pieces = _clip_polyline(line.x, line.y, view)
            if not pieces:
                continue
            path = QPainterPath()
            for piece in pieces:
                path.addPolygon(QPolygonF([QPointF(a, b) for a, b in piece]))
            smooth = smooth_all or (line.smooth and smooth_marked)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, smooth)
            painter.setPen(line.pen if smooth else line.plain_pen())
            painter.setBrush(Qt.BrushStyle.NoBrush)  # an SVG reader fills a path left with a brush
            painter.drawPath(path)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        transform = painter.transform()
        painter.save()
        painter.resetTransform()
        r = self.DOT_SIZE / 2
        for dot in self.dots:
            p = transform.map(QPointF(dot.x, dot.y))
            painter.setPen(QPen(dot.color, 1))
            painter.setBrush(QBrush(dot.color))
            painter.drawEllipse(p, r, r)
        font = widget.font() if widget is not None else QFont()
        painter.setFont(font)
        metrics = QFontMetricsF(font)
        for label in self.labels:
            p = transform.map(QPointF(label.x, label.y))
            if label.stem:  # from the marker's edge to the text's near edge
                dx, dy = label.offset
                r = math.hypot(dx, dy) or 1.0
                painter.setPen(QPen(label.color, 1))
                painter.drawLine(p + QPointF(6 * dx / r, 6 * dy / r), p + QPointF(dx, dy))
            frame, box, backdrop = label_frame(label, transform, metrics)
            h = box.height()
            painter.save()
            painter.setTransform(frame, True)
            if self.backdrop is not None:  # the text's whole box: a line along its bottom edge
                painter.fillRect(backdrop, self.backdrop)  # cut the glyphs (the tour's "fp16 125")
            left = box.left()
            for piece, color in label.pieces or ((label.text, label.color),):
                painter.setPen(QPen(color))
                painter.drawText(QRectF(left, box.top(), box.right() - left, h),
                                 int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                                 piece)
                left += metrics.horizontalAdvance(piece)
            painter.restore()
        painter.restore()

    # -- dragging a roof ---------------------------------------------------------------------------
    #: (what it moves, log10 x, log10 y under the pointer, finished, modifiers): a roof's flat
    #: part moves its peak, its slope or a diagonal its memory level's bandwidth
    sig_roof_dragged = Signal(tuple, float, float, bool, object)

    def mouseDragEvent(self, ev) -> None:  # noqa: N802 (Qt API)
        what = drag_target(self, ev, self.key_at)
        if what is not None:
            self.sig_roof_dragged.emit(what, float(ev.pos().x()), float(ev.pos().y()),
                                       bool(ev.isFinish()), ev.modifiers())

    def key_at(self, pos: QPointF) -> tuple | None:
        """What a drag starting at ``pos`` moves: ("peak", chip, precision) on a roof's flat
        part, ("level", chip, index) on its slope (main memory) or on a diagonal; None off them."""
        line = self._nearest(pos, lambda ln: ln.key is not None)
        if line is None:
            return None
        if len(line.key) == 4:  # a roof: (chip id, precision, ridge log10 x, dram index)
            chip_id, precision, ridge = line.key[:3]
            return (("peak", chip_id, precision) if pos.x() >= ridge
                    else ("level", chip_id, line.key[3]))
        return ("level", *line.key)

    # -- tooltips ---------------------------------------------------------------------------------
    def hoverEvent(self, ev) -> None:  # noqa: N802 (pyqtgraph API)
        if ev.isExit():
            self.setToolTip("")
            return
        self.setToolTip(self.hover_tip(ev.pos()))

    def hover_tip(self, pos: QPointF) -> str:
        """The tooltip under the pointer: this layer's, and the one of the layer it lies over
        (``beneath``) too. The selected kernel's sweep path runs along the roofs, and its band
        would otherwise hide their sources and measurements."""
        tips = [self.tip_at(pos)] + ([self.beneath.tip_at(pos)] if self.beneath is not None else [])
        return "\n\n".join(tip for tip in tips if tip)

    #: pixels within which lines beside the nearest one are on it (a what-if roof over its
    #: datasheet ghost, two chips' equal roofs): their tooltips are shown together
    SAME_PX = 1.5

    def tip_at(self, pos: QPointF) -> str:
        """The tooltip of the ridge point nearest ``pos`` (data coordinates), else of the lines
        nearest it (every one drawn on the nearest), if within HIT_PX pixels on screen."""
        view = self.getViewWidget()
        if view is None:
            return ""
        transform = self.deviceTransform(view.viewportTransform())
        cursor = transform.map(pos)
        cx, cy = cursor.x(), cursor.y()
        for dot in self.dots:
            p = transform.map(QPointF(dot.x, dot.y))
            if dot.tip and math.hypot(p.x() - cx, p.y() - cy) <= self.DOT_SIZE / 2 + 2:
                return dot.tip
        near = self._near(pos, lambda ln: bool(ln.tip))
        if not near:
            return ""
        closest = near[0][0]
        # on a chip's slope its roofs of every precision are one line: one paragraph (the
        # twenty-second tour read three, int8's, fp64's and bf16's, near the same)
        tips = [line.tip_at_x(pos.x()) for d, line in near if d <= closest + self.SAME_PX]
        return "\n\n".join(dict.fromkeys(tips))

    def _nearest(self, pos: QPointF, wanted) -> _Line | None:
        """The line nearest ``pos`` (data coordinates) among those ``wanted``, if it is within
        HIT_PX pixels on screen."""
        near = self._near(pos, wanted)
        return near[0][1] if near else None

    def _near(self, pos: QPointF, wanted) -> list[tuple[float, _Line]]:
        """(distance in pixels, line) of the lines ``wanted`` within HIT_PX of ``pos``, the
        nearest first."""
        view = self.getViewWidget()
        if view is None:
            return []
        transform = self.deviceTransform(view.viewportTransform())
        cursor = transform.map(pos)
        cx, cy = cursor.x(), cursor.y()
        found = []
        for line in self.lines:
            if not wanted(line):
                continue
            ok = np.isfinite(line.x) & np.isfinite(line.y)
            pts = np.array([(q.x(), q.y()) for q in (transform.map(QPointF(float(a), float(b)))
                                                     for a, b in zip(line.x[ok], line.y[ok], strict=True))])
            if len(pts) < 2:
                continue
            a, b = pts[:-1], pts[1:]
            ab = b - a
            length2 = np.maximum((ab ** 2).sum(axis=1), 1e-12)
            t = np.clip(((np.array([cx, cy]) - a) * ab).sum(axis=1) / length2, 0, 1)
            nearest = a + ab * t[:, None]
            distance = float(np.hypot(nearest[:, 0] - cx, nearest[:, 1] - cy).min())
            if distance <= self.HIT_PX:
                found.append((distance, line))
        return sorted(found, key=lambda pair: pair[0])


class ChipLegend(pg.LegendItem):
    """The chart's legend, one entry per chip (a line in its roof's pen, and its name), painted
    by this one item. pyqtgraph's legend makes a sample item and a text item per entry and lays
    them out again after each (docs/performance.md); this keeps its frame, anchoring and
    dragging and paints the entries itself."""

    SAMPLE_W = 24.0
    PAD = 5.0
    # samples of the marks that are neither a line nor a kernel's shape (set_entries)
    LEVELS, MISFIT, MEASURED, STEP, UNFIT = "levels", "misfit", "measured", "step", "unfit"
    MARKS = (LEVELS, MISFIT, MEASURED, STEP, UNFIT)

    def __init__(self, text_color: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.entries: list[tuple[str, QPen]] = []
        self.corner = ((1, 1), kwargs.get("offset", (-10, -10)))  # where the chart anchored it
        self.user_placed = False  # dragged by the user: the chart moves it no more
        self.text_color = QColor(text_color)
        self.font = QFont()
        self.font.setPointSizeF(9)
        # Painted once into an image (its text antialiased was 0.6 ms a repaint, and a roof's
        # drag repaints the whole plot at each step); new entries invalidate it (update()).
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def mouseDragEvent(self, ev) -> None:  # noqa: N802 (pyqtgraph API)
        """Drag the legend aside, unless the drag starts on a marker, a workload's point or a
        roof it lies over: that drag is theirs (a legend over a small chart's points made them
        undraggable where they showed through it)."""
        if ev.isStart() and self._draggable_under(ev.buttonDownScenePos()):
            ev.ignore()
            return
        self.user_placed = True
        super().mouseDragEvent(ev)

    def hoverEvent(self, ev) -> None:  # noqa: N802 (pyqtgraph API)
        # pyqtgraph's legend claims every drag the pointer hovers it for; leave those that
        # start on something draggable beneath it to that item
        if not ev.isExit() and not self._draggable_under(ev.scenePos()):
            ev.acceptDrags(Qt.MouseButton.LeftButton)

    def _draggable_under(self, scene_pos: QPointF) -> bool:
        scene = self.scene()
        if scene is None:
            return False
        for item in scene.items(scene_pos):
            pick = getattr(item, "spot_data_at", None) or getattr(item, "key_at", None)
            if item is not self and pick is not None and item.isVisible() and \
                    pick(item.mapFromScene(scene_pos)) is not None:
                return True
        return False

    def set_entries(self, entries: list[tuple]) -> None:
        """(name, pen) per chip, drawn as a line; (category, pen, symbol) per kernel shape."""
        self.entries = list(entries)
        self.updateSize()
        self.update()

    def clear(self) -> None:  # pyqtgraph API
        self.set_entries([])

    def _row_height(self) -> float:
        return QFontMetricsF(self.font).height() + 2

    def updateSize(self) -> None:  # noqa: N802 (pyqtgraph API)
        if not getattr(self, "entries", None):
            self.setGeometry(0, 0, 0, 0)
            return
        metrics = QFontMetricsF(self.font)
        text_w = max(metrics.horizontalAdvance(entry[0]) for entry in self.entries)
        self.setGeometry(0, 0, 3 * self.PAD + self.SAMPLE_W + text_w + 4,
                         2 * self.PAD + self._row_height() * len(self.entries))

    def paint(self, painter: QPainter, *args) -> None:
        if not self.entries:
            return
        super().paint(painter, *args)  # the frame
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setFont(self.font)
        h, pad = self._row_height(), self.PAD
        text_x = 2 * pad + self.SAMPLE_W
        for i, entry in enumerate(self.entries):
            top = pad + i * h
            paint_sample(painter, entry, QPointF(pad, top + h / 2), self.SAMPLE_W)
            painter.setPen(QPen(self.text_color))
            painter.drawText(QRectF(text_x, top, self.width() - text_x, h),
                             int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                             entry[0])


def paint_sample(painter: QPainter, entry: tuple, left: QPointF, width: float) -> None:
    """A legend entry's sample, ``width`` wide from ``left`` (its middle height): a roof's
    line (name, pen); a kernel's or workload's shape (name, pen, symbol); or a mark (name,
    pen, ChipLegend.LEVELS, MISFIT or MEASURED): a filled and a hollow point joined by a dotted
    line (points per memory level), a hollow point struck through (a misfit), a hollow star
    with its dotted line (a measured point)."""
    _text, pen, *shape = entry

    def draw(painter, symbol, size, pen, brush) -> None:  # pyqtgraph's scales the painter
        painter.save()
        pg.graphicsItems.ScatterPlotItem.drawSymbol(painter, symbol, size, pen, brush)
        painter.restore()

    grey, hollow = QBrush(QColor("#d0d0d0")), QBrush(Qt.BrushStyle.NoBrush)
    dotted = QPen(pen)
    dotted.setStyle(Qt.PenStyle.DotLine)
    x, y = left.x(), left.y()
    painter.save()
    if not shape:
        painter.setPen(pen)
        painter.drawLine(QPointF(x, y), QPointF(x + width, y))
    elif shape[0] == ChipLegend.LEVELS:
        painter.setPen(dotted)
        painter.drawLine(QPointF(x + 4, y), QPointF(x + width - 4, y))
        for at, brush in ((x + 4, grey), (x + width - 4, hollow)):
            painter.save()
            painter.translate(QPointF(at, y))
            draw(painter, "o", 7, pen, brush)
            painter.restore()
    elif shape[0] in (ChipLegend.MISFIT, ChipLegend.MEASURED):
        misfit = shape[0] == ChipLegend.MISFIT
        painter.translate(QPointF(x + width / 2, y))
        draw(painter, "o" if misfit else "star", 9 if misfit else 11, pen, hollow)
        painter.setPen(pen if misfit else dotted)
        painter.drawLine(*((QPointF(-6, 6), QPointF(6, -6)) if misfit else
                           (QPointF(7, 0), QPointF(width / 2, 0))))
    elif shape[0] == ChipLegend.STEP:  # a large point and two small ones
        for at, size in ((x + 3, 5), (x + 9, 5), (x + width - 6, 12)):
            painter.save()
            painter.translate(QPointF(at, y))
            draw(painter, "o", size, pen, grey)
            painter.restore()
    elif shape[0] == ChipLegend.UNFIT:
        painter.translate(QPointF(x + width / 2, y))
        draw(painter, "o", 13, pen, hollow)
    else:  # a marker shape (kernel category or workload)
        painter.translate(QPointF(x + width / 2, y))
        draw(painter, shape[0], 9, pen, grey)
    painter.restore()


class GridKey(pg.GraphicsWidget):
    """A legend in rows across a width, each entry as ChipLegend paints it: side by side, one
    under the grid for what every chart shares (each chart's title names its chip; the second
    tour found no legend there); in one chart, the legend below it where every corner of the
    view would hide something (LegendLayer.set_outside)."""

    GAP = 16.0  # between entries in a row

    def __init__(self, text_color: str) -> None:
        super().__init__()
        self.entries: list[tuple] = []
        self.text_color = QColor(text_color)
        self.font = QFont()
        self.font.setPointSizeF(9)
        self._laid: list[tuple[float, float, tuple]] = []
        #: the most height it may take (None: any), and the leading entries that may give way
        #: to one row's "n more" when they need more (a chip's, not the marks' that follow)
        self.room: Callable[[], float] | None = None
        self.yielding = 0
        #: called when its height changes (its rows wrapped at another width)
        self.on_height: Callable[[], None] | None = None
        #: set over other items (the grid's key kept in sight as the grid scrolls): painted
        #: on this colour, a rule along its top, so the charts under it do not show through
        self.floating_on: QColor | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_entries(self, entries: list[tuple], yielding: int = 0) -> None:
        if entries != self.entries or yielding != self.yielding:
            self.entries, self.yielding = list(entries), yielding
            self._lay_out(self.size().width())
            self.update()

    def resizeEvent(self, ev) -> None:  # noqa: N802 (Qt API)
        super().resizeEvent(ev)
        self._lay_out(ev.newSize().width())

    def relayout(self) -> None:
        """Laid out again in its room (the chart it is under took another size)."""
        self._lay_out(self.size().width())
        self.update()

    def _row_height(self) -> float:
        return QFontMetricsF(self.font).height() + 2

    def _rows(self, entries, width: float, metrics) -> list[tuple[float, float, tuple]]:
        """Each entry's place, a row at a time (the next row where the width runs out)."""
        pad, sample = ChipLegend.PAD, ChipLegend.SAMPLE_W
        x, row, laid = 0.0, 0, []
        for entry in entries:
            w = sample + pad + metrics.horizontalAdvance(entry[0])
            if x > 0 and x + w > width:
                x, row = 0.0, row + 1
            laid.append((x, row * self._row_height(), entry))
            x += w + self.GAP
        return laid

    def _lay_out(self, width: float) -> None:
        """Each entry's place, a row at a time (the next row where the width runs out); the
        key's height follows."""
        metrics, pad, sample = QFontMetricsF(self.font), ChipLegend.PAD, ChipLegend.SAMPLE_W
        laid = self._rows(self.entries, width, metrics)
        room = self.room() if self.room is not None else math.inf
        if laid and laid[-1][1] + self._row_height() + 2 > room and self.yielding:
            # forty-two chips' rows had taken the whole chart, its view a 30 px strip (the
            # 40th tour): the last chips' rows give way to a count, the marks' rows stay
            head, tail = self.entries[:self.yielding], self.entries[self.yielding:]
            for kept in range(len(head) - 1, -1, -1):
                more = (ngettext("… {n} more chip (each line's tooltip names its chip)",
                                 "… {n} more chips (each line's tooltip names its chip)",
                                 len(head) - kept).format(n=len(head) - kept),
                        QPen(Qt.PenStyle.NoPen))
                laid = self._rows([*head[:kept], more, *tail], width, metrics)
                if laid[-1][1] + self._row_height() + 2 <= room:
                    break
        if laid:  # centred, as the x title above it
            rows = {}
            for lx, ly, entry in laid:
                rows.setdefault(ly, []).append((lx, entry))
            laid = []
            for ly, items in rows.items():
                last_x, last = items[-1]
                used = last_x + sample + pad + metrics.horizontalAdvance(last[0])
                shift = max(0.0, (width - used) / 2)
                laid += [(lx + shift, ly, entry) for lx, entry in items]
        self._laid = laid
        height = (max(ly for _x, ly, _e in laid) + self._row_height() + 2) if laid else 0.0
        if abs(self.minimumHeight() - height) > 0.5:
            self.setMinimumHeight(height)
            self.setMaximumHeight(height)
            if self.on_height is not None:
                self.on_height()

    def paint(self, painter: QPainter, *args) -> None:
        if self.floating_on is not None:
            painter.fillRect(self.rect(), self.floating_on)
            rule = QColor(self.text_color)
            rule.setAlpha(60)
            painter.setPen(QPen(rule))
            painter.drawLine(self.rect().topLeft(), self.rect().topRight())
        if not self._laid:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setFont(self.font)
        # inside its own box: painted at a new layout's size before the layout gave it that
        # size, a row had stood beyond it and stayed there, a ghost under the last (fifth tour)
        painter.setClipRect(self.rect())
        h, pad, sample = self._row_height(), ChipLegend.PAD, ChipLegend.SAMPLE_W
        for x, y, entry in self._laid:
            paint_sample(painter, entry, QPointF(x, y + h / 2), sample)
            painter.setPen(QPen(self.text_color))
            painter.drawText(QRectF(x + sample + pad, y, self.size().width(), h),
                             int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                             entry[0])


def _clip_polyline(x: np.ndarray, y: np.ndarray, rect: QRectF | None) -> list[list[tuple[float, float]]]:
    """The visible pieces of a polyline (finite points only), each a list of points, clipped to
    ``rect`` grown by a tenth on each side (Liang-Barsky per segment). Roof lines span nine
    decades; stroking only what is seen keeps the dash pattern and antialiasing cheap."""
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok].tolist(), y[ok].tolist()  # Python floats: a roof has 2-3 points, a path 80
    if len(x) < 2:
        return []
    if rect is None or not rect.isValid():
        return [list(zip(x, y, strict=True))]
    mx, my = rect.width() * 0.1, rect.height() * 0.1
    lo_x, hi_x = rect.left() - mx, rect.right() + mx
    lo_y, hi_y = min(rect.top(), rect.bottom()) - my, max(rect.top(), rect.bottom()) + my
    pieces: list[list[tuple[float, float]]] = []
    for x0, y0, x1, y1 in zip(x[:-1], y[:-1], x[1:], y[1:], strict=True):
        dx, dy = x1 - x0, y1 - y0
        t0, t1 = 0.0, 1.0
        visible = True
        for p, q in ((-dx, x0 - lo_x), (dx, hi_x - x0), (-dy, y0 - lo_y), (dy, hi_y - y0)):
            if p == 0:
                if q < 0:
                    visible = False
                    break
                continue
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
            if t0 > t1:
                visible = False
                break
        if not visible:
            continue
        a = (x0 + t0 * dx, y0 + t0 * dy)
        b = (x0 + t1 * dx, y0 + t1 * dy)
        if pieces and pieces[-1][-1] == a:
            pieces[-1].append(b)
        else:
            pieces.append([a, b])
    return pieces
