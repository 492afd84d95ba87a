"""What the side views say with nothing to draw (a tour read "No workload" beside a workload,
and an Energy tab text that began with a colon)."""

from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QApplication

from roofline_gui.core.document import Document
from roofline_gui.io.workloads import shipped_workloads


def test_a_workload_without_chips_asks_for_a_chip_not_a_workload(window):
    model = window.model
    model.reset(Document())
    wid, = model.add_workloads([shipped_workloads()["llama-3-8b"].workload("w1")])
    model.select(wid, None)
    # the breakdown, the design space and the serving view alike (the last two said "No
    # workload" beside two workloads: the ninth tour)
    views = [window.breakdown, window.design, window.serving]
    for view in views:
        view.refresh()
        text = view.title.text()
        assert "No chip shown" in text and "No workload" not in text and "No transformer" not in text
    model.reset(Document())
    for view in views:
        view.refresh()
        assert "workload" in view.title.text() and "No chip" not in view.title.text()


def test_the_energy_view_of_an_empty_session_says_what_is_missing(window):
    window.model.reset(Document())
    window.set_mode("energy")
    for _i in range(3):
        QApplication.processEvents()
    chart = window.canvas.energy_chart
    chart.refresh()
    text = chart.title.text()
    assert text.startswith("No chip shown") and not text.startswith(":")


def test_a_training_steps_memory_is_one_bar_with_each_chips_capacity_named(window):
    """A row per chip, a few pixels high at 1280 × 800, printed the chips' names over each
    other (the tour): one bar (every chip holds the same share), each capacity marked and
    named, none over another; a chip that cannot run the step gets no mark."""
    import pyqtgraph as pg

    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "training-fp32-against-bf16.roofline")
    model = window.model
    model.reset(doc)
    charts = window.breakdown
    for name, runs_on in (("bf16", 3), ("fp32", 2)):
        w = next(w for w in doc.workloads if w.name.endswith(name))
        model.select(w.id, None)
        charts.refresh()
        items = charts.memory.getPlotItem().items
        bars = [i for i in items if isinstance(i, pg.BarGraphItem)]
        assert {float(y) for b in bars for y in b.opts["y"]} == {0.0}
        texts = [i for i in items if isinstance(i, pg.TextItem)]
        labels = [t for t in texts if " GB" in t.toPlainText() and not t.toPlainText()[0].isdigit()]
        assert len(labels) == runs_on, [t.toPlainText() for t in texts]
        assert len(texts) == runs_on + 1  # and the total at the bar's end
        assert any("TPU v3" in t.toPlainText() for t in labels) == (runs_on == 3)
        rects = [t.mapRectToScene(t.boundingRect()) for t in texts]
        assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])


def test_a_status_message_is_not_cut_short_by_the_pointers_readout(window):
    """A menu entry's long hint was cut by the pointer's readout beside it (the tour): while a
    message shows, the readout steps aside."""
    window.cursor_label.setText("intensity 1 op/B   performance 1 Top/s")
    window.statusBar().showMessage("A long hint " * 20)
    assert window.cursor_label.isHidden()
    window.statusBar().clearMessage()
    assert not window.cursor_label.isHidden()


def test_the_breakdown_of_no_workload_keeps_no_axes_of_the_last_one(window):
    """After New, the empty breakdown still showed the last workload's axes ("images/s", "chips,
    d doubling") under "No workload" (the tour): its charts go, and come back with a workload."""
    from roofline_gui.io.presets import default_presets

    model = window.model
    model.reset(Document(chips=(default_presets().chips["nvidia-h100-sxm5-80gb"],)))
    wid, = model.add_workloads([shipped_workloads()["llama-3-8b"].workload("w1")])
    model.select(wid, None)
    window.docks["breakdown"].raise_()
    charts = window.breakdown
    charts.refresh()
    QApplication.processEvents()
    assert charts.bars.isVisible() and charts.sweep.isVisible()
    model.reset(Document())
    charts.refresh()
    QApplication.processEvents()
    assert "No workload" in charts.title.text()
    assert not charts.bars.isVisible() and not charts.sweep.isVisible()


def test_an_empty_chart_shows_whole_decades_of_intensity_and_rate(window, qtbot):
    """With no chip the chart's axes span 0.01 to 10,000 op/B and 1 G to 1 P op/s (a tour saw
    pyqtgraph's 1 to 10 as ticks 0.5 … 0.111 run together), read as B/F too."""
    import numpy as np

    model = window.model
    model.reset(Document())
    plot = window.canvas.overlay_plot
    qtbot.waitUntil(lambda: not window.canvas.drawing)
    (x0, x1), (y0, y1) = plot.plot.getViewBox().viewRange()
    np.testing.assert_allclose([x0, x1, y0, y1], [-2, 4, 9, 15], atol=0.01)
    window.act_bytes_per_op.trigger()  # B/F: the same decades, labelled 100 to 0.0001 B/op
    qtbot.waitUntil(lambda: not window.canvas.drawing)
    np.testing.assert_allclose(plot.plot.getViewBox().viewRange()[0], [-2, 4], atol=0.01)
    window.act_bytes_per_op.trigger()


def test_a_new_session_says_on_the_chart_where_to_begin(window):
    """The third tour: File → New showed an empty grid and nothing said what to do; the chart's
    note says how to add a chip or open an example, and goes once a chip is there."""
    window.model.reset(Document())
    QApplication.processEvents()
    note = window.canvas.overlay_plot.note
    assert note.text.startswith("No chip yet: the Hardware panel's Add…")
    assert "Help → Examples" in note.text
    # wrapped within a narrow chart (at 1280 × 800 with the panels it ran off the right edge:
    # the ninth tour)
    window.resize(900, 650)
    QApplication.processEvents()
    vb = window.canvas.overlay_plot.plot.getViewBox()
    shown = note.item.mapRectToScene(note.item.boundingRect())
    assert vb.mapRectToScene(vb.boundingRect()).contains(shown), (shown, vb.width())
    window.model.add_chips([window.presets.chips["nvidia-a100-sxm4-40gb"]])
    QApplication.processEvents()
    assert "No chip yet" not in note.text


def test_no_capacity_mark_runs_through_the_memory_total(window):
    """The V100's 16 GB mark ran through "3.152 GB", the total beside the bar, in a narrow
    panel (the 42nd tour): where a mark falls there, the total goes above the bar's end, in a
    row of names, clear of every mark and name."""
    import pyqtgraph as pg

    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "training-fp32-against-bf16.roofline")
    window.model.reset(doc)
    charts = window.breakdown
    moved = 0
    for w in doc.workloads:
        window.model.select(w.id, None)
        for width in (200, 240, 280, 600):
            charts.memory.setFixedWidth(width)
            for _i in range(3):
                QApplication.processEvents()
            charts.refresh()
            QApplication.processEvents()
            items = charts.memory.getPlotItem().items
            texts = [t for t in items if isinstance(t, pg.TextItem)]
            (total,) = [t for t in texts if t.toPlainText()[0].isdigit()]
            box = total.mapRectToScene(total.boundingRect())
            vb = charts.memory.getViewBox()
            marks = [vb.mapViewToScene(pg.Point(float(p.pos().x()), 0.0))
                     for s in items if isinstance(s, pg.ScatterPlotItem) for p in s.points()]
            assert marks
            for mark in marks:  # 14 px tall, 3 px wide
                tick = QRectF(mark.x() - 1.5, mark.y() - 7, 3, 14)
                assert not tick.intersects(box), (w.name, width, total.toPlainText())
            rects = [t.mapRectToScene(t.boundingRect()) for t in texts]
            assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])
            moved += box.bottom() < marks[0].y() - 7  # above the bar
    assert moved  # (the case the test is for happened)
