"""Every use of pyqtgraph's private API, in one place, each for speed (figures in
docs/performance.md) but the last, for layout. ``tests/widgets/test_pg_private.py`` fails
loudly when a pyqtgraph release changes any of them; pyproject.toml pins the pyqtgraph versions
that test passes on.

- ``uniform_fill``: ScatterPlotItem.updateSpots looks up every spot's symbol image by a Python
  tuple key; with one style for all spots, one lookup serves all (``_style``,
  ``fragmentAtlas``, ``_maybeRebuildAtlas``, ``_updateMaxSpotSizes``).
- ``max_spot_width``: the largest spot in pixels (``_maxSpotPxWidth``), part of the key under
  which a scatter keeps its bounding rectangle between repaints.
- ``atlas_entries``: how many symbol images a scatter has rendered (tests check reuse).
- ``exporting``: whether an item is being painted for an export (``_exportOpts``).
- ``let_label_shrink``: a LabelItem whose text no longer sets its smallest width
  (``_sizeHint``, which ``setText`` fills with the text's size and ``sizeHint`` returns).
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt

#: The private methods used, by class, and the private attributes read on instances.
USED_METHODS = {pg.ScatterPlotItem: ("_style", "_maybeRebuildAtlas", "_updateMaxSpotSizes")}
USED_ATTRIBUTES = ("fragmentAtlas", "_maxSpotPxWidth", "_exportOpts")
USED_LABEL_ATTRIBUTES = ("_sizeHint",)


def uniform_fill(scatter: pg.ScatterPlotItem, data) -> None:
    """pyqtgraph's updateSpots for spots that all share the first spot's style."""
    style = tuple(col[0] for col in scatter._style(["symbol", "size", "pen", "brush"], data=data[:1]))
    data["sourceRect"] = scatter.fragmentAtlas[[style]][0]  # the same image for every spot
    scatter._maybeRebuildAtlas()
    scatter._updateMaxSpotSizes(data=data[:1])
    scatter.invalidate()


def max_spot_width(scatter: pg.ScatterPlotItem) -> float:
    return scatter._maxSpotPxWidth


def atlas_entries(scatter: pg.ScatterPlotItem) -> int:
    """How many symbol images the scatter's atlas holds (a redraw that reuses them adds none)."""
    return len(scatter.fragmentAtlas._coords)


def exporting(item: pg.GraphicsObject) -> bool:
    """True while pyqtgraph's exporters paint ``item`` (its export options are set)."""
    return item._exportOpts is not False


def let_label_shrink(label: pg.LabelItem) -> None:
    """Let ``label`` be laid out narrower than its text (call after each setText, which asks
    for the text's width again); its height is kept."""
    label.setMinimumWidth(0)
    label._sizeHint[Qt.SizeHint.MinimumSize] = (0, label._sizeHint[Qt.SizeHint.MinimumSize][1])
