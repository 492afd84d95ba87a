"""The Energy tab (issue 28): the energy chart (widgets.common.energy_chart) in its own dock,
beside Design space, to read beside the performance roofline."""

from __future__ import annotations

from roofline_gui.widgets.common.energy_chart import EnergyChart


class EnergyPanel(EnergyChart):
    """The Energy dock's chart."""
