"""The kernels' markers: one scatter item per shown chip, at (main-memory intensity,
attainable rate) of every kernel that chip supports.

``draw`` compares what each scatter shows with the scene, kernel by kernel: a few moved
kernels (a drag's end, an edit) are moved in place, anything else refills the chip's item, so
no marker can stay where the scene no longer has it. The kernel being dragged (the selection's
``lifted``) is drawn by the overlays; here its spot is hidden until the drag ends.

A chart of more than SYNC_SPOTS markers is filled a chip per event-loop turn (TURN_BUDGET_S of
work per turn), so the window keeps painting while 30 chips of 10,000 markers appear; a chip
whose old markers show other kernels is hidden until refilled; ``finish_pending`` completes it
at once (before an export, say).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsItem

from roofline_gui.core.chart_scene import ChartScene
from roofline_gui.core.display import (
    SAME_POINT,
    earlier_on_point,
    kernels_on_point,
    marker_symbols,
    same_point,
)
from roofline_gui.core.i18n import N_, _
from roofline_gui.core.levels import ROLE_SHORT, intensity_text
from roofline_gui.core.units import format_time
from roofline_gui.models.comparison_model import limiter_words
from roofline_gui.widgets.chart.layers.base import ChartLayer
from roofline_gui.widgets.chart.plot_items import MarkerScatter, log10
from roofline_gui.widgets.common import background

SYNC_SPOTS = 20_000  # a chart with more markers draws them a chip per event-loop turn
TURN_BUDGET_S = 0.002  # filling per turn, in s (about a chip of 10,000: docs/performance.md)
BUSY_RETRY_MS = 30  # while a file job runs on a worker, the chart waits (widgets/common/background.py)
MOVE_MAX = 16  # up to this many changed kernels per chip are moved in place; more refill it


def _key(sizes: np.ndarray | None) -> bytes | None:
    return None if sizes is None else sizes.tobytes()


def drawn_in_turns(n_kernels: int, n_chips: int) -> bool:
    """Whether a chart of this size is drawn over several turns of the event loop."""
    return n_kernels * n_chips > SYNC_SPOTS


@dataclass
class _Drawn:
    """What one chip's scatter shows: per kernel row its (log10) place, NaN where none."""

    ids: np.ndarray
    x: np.ndarray
    y: np.ndarray
    style: tuple  # colour and shapes
    hidden: int | None = None  # the row of the kernel being dragged, whose spot is hidden
    stacked: bytes | None = None  # the sizes of markers drawn over another chip's (None: none)


#: the end of a stacked marker's tooltip (once in a tooltip of several: see plot_items)
STACKED_HINT = N_("(the markers are stacked, the upper ones smaller: click again to select the "
                  "next)")


class KernelMarkersLayer(ChartLayer):
    Z = 10.0
    PARTS = frozenset({"spec", "selection"})

    def __init__(self, plot, style, on_dragged: Callable[[str, str, float, bool], None]) -> None:
        super().__init__(plot, style)
        self.on_dragged = on_dragged
        self.scatters: dict[str, MarkerScatter] = {}  # chip id -> its markers
        self._drawn: dict[str, _Drawn] = {}
        self.scene: ChartScene | None = None
        self._pending: list[str] = []
        self._timer = QTimer()
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timer)
        self._ids: tuple = (None, np.zeros(0, dtype=object))
        self._symbols: tuple = (None, None, None)  # kernels -> (their shapes, the shapes as a key)
        self._categories: tuple | None = None  # the kernels' categories the shapes were made for

    # -- drawing --------------------------------------------------------------------------------
    def update(self, scene: ChartScene, changed: frozenset[str]) -> None:
        if changed & self.PARTS and not self._only_lifted_moved(scene):
            self.draw(scene)
        self.scene = scene

    def _only_lifted_moved(self, scene: ChartScene) -> bool:
        """A drag step: the dragged kernel alone moved, and it stays where the drag started
        here (the overlays draw it), so there is nothing to do. Compared on the scene's own
        arrays, before any logarithm: a millisecond for 30 chips of 10,000 markers."""
        old, lifted = self.scene, scene.selection.lifted
        if old is None or self._pending or lifted is None or lifted != old.selection.lifted:
            return False
        k = scene.comparison.kernel_index.get(lifted)
        a, b = old.spec, scene.spec
        if (k is None or old.chips != scene.chips or a.marker_y.shape != b.marker_y.shape
                or old.comparison.chips != scene.comparison.chips
                or old.comparison.kernel_index.get(lifted) != k):
            return False
        with np.errstate(invalid="ignore"):
            same_x = (a.marker_x == b.marker_x) | (np.isnan(a.marker_x) & np.isnan(b.marker_x))
            same_y = ((a.marker_y == b.marker_y) | (np.isnan(a.marker_y) & np.isnan(b.marker_y))).all(axis=1)
        moved = np.flatnonzero(~(same_x & same_y))
        return bool(np.all(moved == k))

    def draw(self, scene: ChartScene) -> None:
        self.scene = scene
        cmp = scene.comparison
        wanted = [cmp.chips[c].id for c in scene.chips]
        for chip_id in [cid for cid in self.scatters if cid not in wanted]:
            self.remove(self.scatters.pop(chip_id))
            self._drawn.pop(chip_id, None)
        big = drawn_in_turns(len(cmp.kernels), len(wanted))
        ids = self._kernel_ids(scene)
        self._pending = []
        for chip_id in wanted:
            if not self._sync_in_place(chip_id, ids):
                self._pending.append(chip_id)
                drawn = self._drawn.get(chip_id)
                if big and chip_id in self.scatters and (drawn is None or not np.array_equal(drawn.ids, ids)):
                    self.scatters[chip_id].hide()  # another document's markers: hidden until refilled
        if big:
            self._timer.start(0)
        else:
            self._fill_pending()
        self._cache_all_but(scene.selection.roof_chip)

    def _cache_all_but(self, moving: str | None) -> None:
        """Every chip's markers kept in a cached image but the chip whose roof is being
        dragged: its markers change at every step, and rendering them into the cache and then
        blitting it was twice the work of drawing them."""
        for chip_id, scatter in self.scatters.items():
            mode = (QGraphicsItem.CacheMode.NoCache if chip_id == moving
                    else QGraphicsItem.CacheMode.DeviceCoordinateCache)
            if scatter.cacheMode() != mode:
                scatter.setCacheMode(mode)

    def _target(self, c: int) -> tuple[np.ndarray, np.ndarray]:
        """(log10 x, log10 y) of every kernel on chip ``c`` as the scene has them."""
        spec = self.scene.spec
        return log10(spec.marker_x), log10(spec.marker_y[:, c])

    def _lifted_row(self) -> int | None:
        return self.scene.comparison.kernel_index.get(self.scene.selection.lifted)

    def _style_key(self, c: int) -> tuple:
        """The chip's colour and every kernel's shape (a new kernel set with the same shapes,
        as after each drag step, keeps the markers)."""
        self._symbol_array()
        return (self.scene.comparison.chips[c].color, self._symbols[2])

    def _sync_in_place(self, chip_id: str, ids: np.ndarray) -> bool:
        """Bring a chip's markers to the scene by moving the kernels that changed; False when
        it needs a refill (other kernels, another style, or many changes)."""
        drawn, scatter = self._drawn.get(chip_id), self.scatters.get(chip_id)
        c = self.scene.comparison.chip_index[chip_id]
        if drawn is None or scatter is None or len(drawn.ids) != len(ids):
            return False
        if drawn.style != self._style_key(c) or not (drawn.ids is ids or np.array_equal(drawn.ids, ids)):
            return False
        x, y = self._target(c)
        selection = self.scene.selection
        if selection.lifted is None and selection.roof_chip is None and \
                _key(self._stacked_sizes(c, x, y)) != drawn.stacked:
            return False  # a marker now over another chip's, or no longer (none while dragging)
        shown = np.isfinite(x) & np.isfinite(y)  # a marker where the scene has a place for it
        same = np.where(shown, (x == drawn.x) & (y == drawn.y), np.isnan(drawn.x))
        lifted = self._lifted_row()
        if lifted is not None:
            same[lifted] = True  # hidden while dragged (the overlays draw it): moved on release
        rows = np.flatnonzero(~same)
        if len(rows) > MOVE_MAX:
            # Many moved (a roof's drag moves every kernel of its chip): all at once in place,
            # where each had a spot and still has a place; else a refill.
            if not (shown[rows].all() and np.isfinite(drawn.x[rows]).all()
                    and scatter.move_spots(rows, x[rows], y[rows])):
                return False
            drawn.x[rows], drawn.y[rows] = x[rows], y[rows]
        for k in rows if len(rows) <= MOVE_MAX else ():
            if not scatter.move_spot(int(k), float(x[k]), float(y[k]), str(ids[k])):
                return False
            drawn.x[k], drawn.y[k] = x[k], y[k]
        drawn.ids = ids
        self._hide_lifted(scatter, drawn, lifted)
        scatter.show()
        return True

    @staticmethod
    def _hide_lifted(scatter: MarkerScatter, drawn: _Drawn, lifted: int | None) -> None:
        """The dragged kernel's spot is hidden for the drag (one image re-rendered at its start
        and at its end, none per step); a copy left at the drag's start looked like a second
        kernel."""
        if drawn.hidden == lifted:
            return
        if drawn.hidden is not None:
            scatter.show_spot(drawn.hidden, True)
        if lifted is not None:
            scatter.show_spot(lifted, False)
        drawn.hidden = lifted

    def _fill_pending(self, max_seconds: float | None = None) -> None:
        start = time.perf_counter()
        while self._pending:
            self._fill_chip(self._pending.pop(0))
            if max_seconds is not None and time.perf_counter() - start >= max_seconds:
                break
        if self._pending:
            self._timer.start(0)

    def _on_timer(self) -> None:
        if background.busy():  # a file is being read or written: finish the chart after it
            self._timer.start(BUSY_RETRY_MS)
            return
        self._fill_pending(max_seconds=TURN_BUDGET_S)

    def finish_pending(self) -> None:
        """Fill every chip still waiting for its markers, at once."""
        self._fill_pending()
        self._timer.stop()

    @property
    def pending(self) -> list[str]:
        return list(self._pending)

    def _scatter(self, chip_id: str) -> MarkerScatter:
        scatter = self.scatters.get(chip_id)
        if scatter is None:
            scatter = MarkerScatter(hoverable=True, tip=self._tip(chip_id), size=10, hoverSize=14)
            # Repaints around a moving marker blit the cached image of the still ones.
            scatter.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            scatter.sig_marker_dragged.connect(
                lambda k, x, f, cid=chip_id: self.on_dragged(k, cid, x, f))
            self.scatters[chip_id] = self.add(scatter, pick=lambda kernel_id, cid=chip_id: (kernel_id, cid))
        return scatter

    def _fill_chip(self, chip_id: str) -> None:
        """Set one chip's markers from the scene."""
        cmp = self.scene.comparison
        c = cmp.chip_index.get(chip_id)
        if c is None:
            return
        ids = self._kernel_ids(self.scene)
        x, y = self._target(c)
        ok = np.isfinite(x) & np.isfinite(y)
        rows = np.flatnonzero(ok)
        color = QColor(cmp.chips[c].color or "#808080")
        scatter = self._scatter(chip_id)
        scatter.kernel_ids = ids
        symbols = self._symbol_array()
        # its sizes and its edges, worked out once (none in a chart drawn in turns: one size)
        kernels_beneath = (None if drawn_in_turns(len(y), len(self.scene.chips))
                           else earlier_on_point(x, y))
        sizes = self._stacked_sizes(c, x, y, kernels_beneath)
        scatter.setZValue(self.Z + 1e-3 * self.scene.chips.index(c) if c in self.scene.chips
                          else self.Z)
        pen = self.style.pen(color.darker(150), 1)
        if sizes is not None and kernels_beneath is not None:
            # a kernel's marker over another kernel's of this chip, in the same colour: edged
            # in the background's, so the ring beneath reads apart from it (as one marker with
            # a dark edge, the tenth tour saw one kernel)
            over = kernels_beneath[ok] > 0
            if over.any():
                halo = self.style.pen(self.style.background, 1.5)
                pen = [halo if o else pen for o in over.tolist()]
        scatter.fill(x[ok], y[ok], ids[rows], brush=self.style.brush(color),
                     pen=pen, rows=rows, n_kernels=len(ids),
                     symbols=None if symbols is None else symbols[rows],
                     sizes=None if sizes is None else sizes[ok])
        scatter.show()
        drawn = self._drawn[chip_id] = _Drawn(ids, np.where(ok, x, np.nan), np.where(ok, y, np.nan),
                                              self._style_key(c), stacked=_key(sizes))
        self._hide_lifted(scatter, drawn, self._lifted_row())

    #: a marker's size (px), and how much smaller for each chip's marker it lies on
    SIZE, STACK_STEP, SMALLEST = 10.0, 5.0, 3.0

    def _stacked_sizes(self, c: int, x: np.ndarray, y: np.ndarray,
                       kernels_beneath: np.ndarray | None = None) -> np.ndarray | None:
        """Each kernel's marker size on chip ``c``: smaller by STACK_STEP for each marker drawn
        beneath it on the same point, so the one beneath shows as a ring around it: the same
        kernel's on a chip earlier in the chart's order (the tour: "the V100's markers hide
        exactly under the TPU v3's"), and an earlier kernel's on this chip (the article's 2 and
        5 on the A100: the ninth tour saw one; ``kernels_beneath``: those counts, where
        already worked out); None where no marker lies on another."""
        chips = self.scene.chips
        if c not in chips or drawn_in_turns(len(y), len(chips)):
            return None  # (a chart of tens of thousands of markers: one size, drawn fast)
        marker_y = self.scene.spec.marker_y
        beneath = (earlier_on_point(x, y) if kernels_beneath is None
                   else kernels_beneath.astype(float))
        for o in chips[:chips.index(c)]:
            with np.errstate(divide="ignore", invalid="ignore"):
                beneath += np.abs(log10(marker_y[:, o]) - y) < SAME_POINT
        if not beneath.any():
            return None
        return np.maximum(self.SIZE - self.STACK_STEP * beneath, self.SMALLEST)

    def _kernel_ids(self, scene: ChartScene) -> np.ndarray:
        """The kernels' ids as an object array (the markers' data), made once per kernel set."""
        kernels = scene.comparison.kernels
        if self._ids[0] is not kernels:
            self._ids = (kernels, np.array([k.id for k in kernels], dtype=object))
        return self._ids[1]

    def _symbol_array(self) -> np.ndarray | None:
        """Each kernel's marker shape (display.marker_symbols), made once per kernel set."""
        cmp = self.scene.comparison
        if self._symbols[0] is not cmp.kernels:
            # a drag step makes a new kernel set of the same categories: the shapes are kept
            # (made again, 1,000 kernels took about 1 ms of each step with Memory levels on)
            categories = tuple(k.category for k in cmp.kernels)
            if categories != self._categories:
                symbols = marker_symbols(cmp)
                self._categories = categories
                self._symbols = (cmp.kernels, symbols,
                                 None if symbols is None else "\0".join(symbols))
            else:
                self._symbols = (cmp.kernels, *self._symbols[1:])
        return self._symbols[1]

    def symbol_of(self, k: int) -> str:
        symbols = self._symbol_array()
        return "o" if symbols is None else str(symbols[k])

    # -- reading back ---------------------------------------------------------------------------
    def markers_of(self, chip_id: str) -> tuple[np.ndarray, np.ndarray, list]:
        """(log10 x, log10 y, kernel ids) of the markers shown for a chip: what the chart shows."""
        scatter = self.scatters.get(chip_id)
        if scatter is None or not scatter.isVisible():
            return np.zeros(0), np.zeros(0), []
        shown = scatter.data["visible"]
        return (np.asarray(scatter.data["x"][shown]), np.asarray(scatter.data["y"][shown]),
                list(scatter.data["data"][shown]))

    def _tip(self, chip_id: str):
        def tip(x, y, data):
            scene = self.scene
            cmp = scene.comparison
            k, c = cmp.kernel_index.get(data), cmp.chip_index.get(chip_id)
            if k is None or c is None:
                return ""
            units = scene.spec.units
            hidden = same_point(cmp.result.attainable, k, c, scene.chips)
            also = ("\n" + _("the same point on {chips}").format(
                chips=", ".join(cmp.chips[o].name for o in hidden)) if hidden else "")
            here = kernels_on_point(*self._target(c), k)
            also += ("\n" + _("on the same point: {kernels}").format(
                kernels=", ".join(cmp.kernels[o].name for o in here)) if here else "")
            # said once, at the end (each stacked marker's tip had said it: the twenty-fourth
            # tour read it three times over in one tooltip)
            stacked = ("\n" + _(STACKED_HINT)) if hidden or here else ""
            off = ""
            level = cmp.limiting_level(k, c)
            if level is not None and level.role != "dram":
                off = "\n" + _("at its main-memory intensity, below the roofs: the {role} "
                                "({level}) holds it, at the filled point on that level's line "
                                "(joined to this one)").format(role=_(ROLE_SHORT[level.role]),
                                                               level=level.name)
            bound = (_("memory-bound, limited by {limiter}") if cmp.bound_name(k, c) == "memory"
                     else _("compute-bound, limited by {limiter}"))
            return "\n".join((
                _("{kernel} on {chip}").format(kernel=cmp.kernels[k].name, chip=cmp.chips[c].name)
                + also + off,
                intensity_text(cmp, k, units),
                _("attainable {rate}").format(
                    rate=units.format_rate(float(cmp.result.attainable[k, c]))),
                bound.format(limiter=limiter_words(cmp, k, c)),
                _("time {time}").format(time=format_time(cmp.result.cell("time", k, c))))) \
                + stacked
        return tip

    def close(self) -> None:
        self._timer.stop()
        super().close()
        self.scatters.clear()
        self._drawn.clear()

