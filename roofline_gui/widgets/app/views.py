"""The window's views (its docks), declared once: the main window makes each dock, its place,
the View menu's entries and the saved layout's version from this table, so a new view is a row
here and the panel's own module.

``name`` is the view's stable name: the dock's object name (``dock-<name>``, what Qt's saved
layout refers to) and the window's attribute for the panel (``window.energy``). It never changes
with the title's language. Each panel's module is imported when the panel is first built, off
the start-up path (importing them all at start cost about 18 ms).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from roofline_gui.core.i18n import N_

LEFT, BOTTOM = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.BottomDockWidgetArea


@dataclass(frozen=True)
class View:
    """One dock of the window."""

    name: str  # stable: the object name and the window's attribute; never translated
    title: str  # what the dock's title bar and the View menu show (translated there)
    area: Qt.DockWidgetArea
    make: Callable[..., QWidget]  # (window) -> the panel
    #: the view whose tab it joins (None: a place of its own in its area)
    tab_with: str | None = None
    #: the view it sits beside, split left and right (None: not split)
    beside: str | None = None
    #: built right after the chart's first paint (else when its tab is first shown)
    eager: bool = False
    width: int | None = None  # its first width (px), where it starts a column
    height: int | None = None  # its first height (px)


def _hardware(window) -> QWidget:
    from roofline_gui.widgets.panels.hardware_editor import HardwareEditor  # noqa: PLC0415

    return HardwareEditor(window.model, window.presets)


def _kernels(window) -> QWidget:
    from roofline_gui.widgets.panels.kernel_library import KernelLibrary  # noqa: PLC0415

    return KernelLibrary(window.model, window.presets)


def _workloads(window) -> QWidget:
    from roofline_gui.widgets.panels.workloads.panel import WorkloadsPanel  # noqa: PLC0415

    return WorkloadsPanel(window.model)


def _table(window) -> QWidget:
    from roofline_gui.widgets.panels.comparison_panel import ComparisonTable  # noqa: PLC0415

    return ComparisonTable(window.model, window.presets)


def _explanation(window) -> QWidget:
    from roofline_gui.widgets.panels.comparison_panel import ExplanationPane  # noqa: PLC0415

    return ExplanationPane(window.model)


def _breakdown(window) -> QWidget:
    from roofline_gui.widgets.panels.workloads.charts import WorkloadCharts  # noqa: PLC0415

    return WorkloadCharts(window.model)


def _design(window) -> QWidget:
    from roofline_gui.widgets.panels.design_space_panel import DesignSpacePanel  # noqa: PLC0415

    return DesignSpacePanel(window.model)


def _serving(window) -> QWidget:
    from roofline_gui.widgets.panels.serving_panel import ServingPanel  # noqa: PLC0415

    panel = ServingPanel(window.model)
    panel.set_export_actions(window.serving_exports)
    return panel


def _energy(window) -> QWidget:
    from roofline_gui.widgets.panels.energy_panel import EnergyPanel  # noqa: PLC0415

    panel = EnergyPanel(window.model)
    # its y axis as the user left it (the 45th tour chose op/s and found op/J after a restart)
    at = panel.mode.findData(window.settings.get("view/energy_axis"))
    if at >= 0:
        panel.mode.setCurrentIndex(at)
    panel.mode.currentIndexChanged.connect(
        lambda _i: window.settings.set("view/energy_axis", panel.mode.currentData()))
    return panel


#: In the order the View menu lists them. Hardware, kernels and workloads share the left side as
#: tabs, so the chart gets the width; the workload views are tabs beside the comparison table.
VIEWS: tuple[View, ...] = (
    View("hardware", N_("Hardware"), LEFT, _hardware, eager=True, width=500),
    View("kernels", N_("Kernels"), LEFT, _kernels, tab_with="hardware"),
    View("workloads", N_("Workloads"), LEFT, _workloads, tab_with="kernels"),
    View("table", N_("Comparison"), BOTTOM, _table, eager=True, width=800, height=290),
    View("breakdown", N_("Workload breakdown"), BOTTOM, _breakdown, tab_with="table"),
    View("design", N_("Design space"), BOTTOM, _design, tab_with="breakdown"),
    View("energy", N_("Energy"), BOTTOM, _energy, tab_with="design"),
    View("serving", N_("Serving"), BOTTOM, _serving, tab_with="energy"),
    View("explanation", N_("Why it sits there"), BOTTOM, _explanation, beside="table", eager=True,
         width=460),
)
BY_NAME = {view.name: view for view in VIEWS}


#: The most of the window's height a first start gives a view's height: on a 1280 × 800 screen
#: the bottom panels' 290 px of a 752 px window left the chart 385 px, and side by side four
#: charts scrolled, their key cut at the edge (the 44th tour)
HEIGHT_SHARE = 1 / 3


def first_length(name: str, across: str, window_height: int | None = None) -> int:
    """The size a first start gives view ``name``'s place, ``across`` "width" or "height" (a
    height with the tab bar under a tab group): its own, else its tab group's first view's; 0
    where no view of the group gives one. A height no more than HEIGHT_SHARE of
    ``window_height``, where given."""
    view = BY_NAME[name]
    while getattr(view, across) is None and view.tab_with is not None:
        view = BY_NAME[view.tab_with]
    length = getattr(view, across) or 0
    if across == "height" and window_height is not None and length:
        length = min(length, round(window_height * HEIGHT_SHARE))
    return length


def object_name(view: View) -> str:
    return f"dock-{view.name}"


def layout_version(views: tuple[View, ...] = VIEWS) -> int:
    """The saved layout's version: a layout saved with other views (or other names) is not
    restored, the default is (Qt would leave a new dock wherever it could). It follows the
    table, so adding a view needs no bump by hand."""
    key = ";".join(f"{v.name}:{v.area.value}:{v.tab_with}:{v.beside}" for v in views)
    return zlib.crc32(key.encode()) & 0x7FFFFFFF
