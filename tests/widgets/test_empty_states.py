"""What the side views say with nothing to draw (a tour read "No workload" beside a workload,
and an Energy tab text that began with a colon)."""

from PySide6.QtWidgets import QApplication

from roofline_gui.core.document import Document
from roofline_gui.io.workloads import shipped_workloads


def test_a_workload_without_chips_asks_for_a_chip_not_a_workload(window):
    model = window.model
    model.reset(Document())
    wid, = model.add_workloads([shipped_workloads()["llama-3-8b"].workload("w1")])
    model.select(wid, None)
    charts = window.breakdown
    charts.refresh()
    assert "No chip shown" in charts.title.text() and "No workload" not in charts.title.text()
    model.reset(Document())
    charts.refresh()
    assert "No workload" in charts.title.text()


def test_the_energy_view_of_an_empty_session_says_what_is_missing(window):
    window.model.reset(Document())
    window.set_mode("energy")
    for _i in range(3):
        QApplication.processEvents()
    chart = window.canvas.energy_chart
    chart.refresh()
    text = chart.title.text()
    assert text.startswith("No chip shown") and not text.startswith(":")
