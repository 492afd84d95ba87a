"""Small pyqtgraph building blocks for the roofline canvas.

Coordinates: every item on the canvas is placed in log10 data space through :func:`log10`,
and the axes are only *labelled* logarithmically (``SIAxis``). pyqtgraph's PlotItem log mode
transforms PlotDataItems but not TextItems or ScatterPlotItems added directly; doing the
transform in one place keeps every item consistent.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal

from roofline_gui.core.units import format_si


def log10(values) -> np.ndarray:
    """log10 of positive values; anything else becomes NaN (and is not drawn)."""
    arr = np.asarray(values, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(arr > 0, np.log10(arr), np.nan)


class SIAxis(pg.AxisItem):
    """A log-labelled axis whose ticks read 1 T, 100 G, 0.1 rather than 10¹²."""

    def __init__(self, orientation: str, **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        self.setLogMode(True)
        self.enableAutoSIPrefix(False)  # the tick labels carry the SI prefix themselves

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 (pyqtgraph API)
        out = []
        for v in values:
            x = 10 ** float(v) * scale
            # Label whole decades only; minor ticks stay unlabelled to avoid clutter.
            out.append(format_si(x, digits=3).strip() if abs(v - round(v)) < 1e-6 else "")
        return out


class MarkerScatter(pg.ScatterPlotItem):
    """Kernel markers for one chip. Dragging a marker emits the intensity under the cursor.

    ``data`` of each spot is the kernel id. A drag that does not start on a marker is left to
    the view box (pan), so the canvas still pans and zooms as usual.
    """

    #: (kernel id, target intensity in op/B, finished)
    sig_marker_dragged = Signal(str, float, bool)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._dragging: str | None = None

    def mouseDragEvent(self, ev) -> None:  # noqa: N802 (Qt API)
        if ev.button() != Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        if ev.isStart():
            spots = self.pointsAt(ev.buttonDownPos())
            self._dragging = spots[0].data() if len(spots) else None
        if self._dragging is None:
            ev.ignore()
            return
        ev.accept()
        kernel_id = self._dragging
        if ev.isFinish():
            self._dragging = None
        self.sig_marker_dragged.emit(kernel_id, float(10 ** ev.pos().x()), bool(ev.isFinish()))
