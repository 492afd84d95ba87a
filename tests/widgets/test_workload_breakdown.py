"""The workload breakdown names its segments after a stream of batch edits (a drag of the
workload's point) as it does when drawn afresh."""

from dataclasses import replace

import pytest

from roofline_gui.io.files import resources_dir
from roofline_gui.io.session import load_session
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.widgets.panels.workloads.charts import WorkloadCharts


@pytest.fixture
def charts(qtbot):
    """Llama-3-8B decode on three chips, its breakdown shown at a fixed size."""
    model = DocumentModel()
    model.reset(load_session(resources_dir() / "examples" / "llama-3-8b-on-three-chips.roofline"))
    widget = WorkloadCharts(model)
    qtbot.addWidget(widget)
    widget.resize(950, 250)
    widget.show()
    qtbot.waitExposed(widget)
    model.select(model.document.workloads[0].id, None)
    qtbot.waitUntil(lambda: not widget.pending)
    return widget


def drag_batch(charts, qtbot, batches) -> None:
    """Batch edits as a drag of the workload's point makes them: one merging stream."""
    model = charts.model
    wid = model.document.workloads[0].id
    for batch in batches:
        model.set_workload(replace(model.document.workload(wid), batch=batch), "drag",
                           merge_key=("drag",))
    qtbot.waitUntil(lambda: not charts.pending)


def test_a_batch_drag_down_keeps_the_segment_names_that_fit(charts, qtbot):
    drag_batch(charts, qtbot, [16, 32, 64])
    assert charts.label_texts()
    drag_batch(charts, qtbot, [32, 8, 1])  # the bars shrink: the axis follows them
    shown = charts.label_texts()
    assert shown
    charts.refresh()
    assert charts.label_texts() == shown  # the same as the same state drawn again


def test_a_batch_drag_up_names_the_segments_as_a_fresh_drawing_does(charts, qtbot):
    drag_batch(charts, qtbot, [2, 4, 8, 16, 32, 64])
    shown = charts.label_texts()
    assert shown
    charts.refresh()
    assert charts.label_texts() == shown


def test_the_names_follow_the_width_of_the_bars(charts, qtbot):
    narrow = charts.label_texts()
    charts.resize(1900, 250)
    qtbot.waitUntil(lambda: len(charts.label_texts()) > len(narrow))


def test_an_undo_draws_the_breakdown_as_it_was(charts, qtbot):
    """Batch 8 → 32 (an edit, Enter), then Ctrl+Z: the time axis had kept batch 32's range and
    "MLP gate and up 44%" no longer fitted its bar (the third tour). After the undo the axis
    and the names are as before the edit; a drag's merged steps still hold the axis."""
    model = charts.model
    wid = model.document.workloads[0].id
    before_range = charts.bars.getViewBox().viewRange()[0]
    before = charts.label_texts()
    assert before
    model.set_workload(replace(model.document.workload(wid), batch=32), "batch")
    qtbot.waitUntil(lambda: not charts.pending)
    assert charts.bars.getViewBox().viewRange()[0] != before_range
    model.undo_stack.undo()
    qtbot.waitUntil(lambda: not charts.pending)
    assert charts.bars.getViewBox().viewRange()[0] == pytest.approx(before_range)
    assert charts.label_texts() == before


def test_the_sweep_keeps_its_x_title_through_a_resize(charts, qtbot):
    """The sixth tour: the Llama breakdown's right-hand chart had no x title at 1280×800 (its
    title was set once and blanked by the chart's resize), so its axis read as bare numbers."""
    from PySide6.QtWidgets import QApplication

    axis = charts.sweep.getAxis("bottom")
    assert axis.labelText == "tokens/s (dashed: does not fit)"
    for width in (700, 480, 950):
        charts.resize(width, 250)
        QApplication.processEvents()
        assert axis.labelText.startswith("tokens/s"), (width, axis.labelText)
        assert axis.label.isVisible()
    # the weights' view, then back: each with its own title
    charts.right.setCurrentIndex(1)
    qtbot.waitUntil(lambda: not charts.pending)
    charts.resize(700, 250)
    QApplication.processEvents()
    assert axis.labelText == "batch B"
    charts.right.setCurrentIndex(0)
    qtbot.waitUntil(lambda: not charts.pending)
    assert axis.labelText.startswith("tokens/s")


def test_the_latency_chart_names_each_chips_curve_in_its_colour(charts):
    """The bars' blue is memory-bound time; the right-hand chart's blue was the H100, and it
    had no key, where the training chart has one (the 38th tour): each chip's name, in its
    colour, at the chart's top left."""
    import pyqtgraph as pg

    notes = [i for i in charts.sweep.getPlotItem().items if isinstance(i, pg.TextItem)]
    assert len(notes) == 1
    text = notes[0].toPlainText().replace("\xa0", " ")
    for chip in charts.model.document.chips:
        assert chip.name in text and chip.color in notes[0].toHtml()


def test_the_energy_bars_say_why_a_chip_has_none(charts, qtbot):
    """The energy measure drew the TPU v5e's row empty with only the memory note beside it
    (the thirtieth tour): Google publishes no board power for it, so there is nothing to
    estimate its energy from. The title says so, naming the chip; the others have bars."""
    import re

    charts.measure.setCurrentIndex(charts.measure.findData("energy"))
    qtbot.waitUntil(lambda: not charts.pending)
    said = re.sub(r"<[^>]+>", "", charts.title.text())
    assert ("No energy bar for TPU v5e: no board power published or given to estimate it from"
            in said), said
    with_bars = {charts.model.workload_results[0].chips[s.chip].name for s in charts.segments}
    assert "TPU v5e" not in with_bars and len(with_bars) == 2, with_bars


def test_four_chips_in_a_short_dock_keep_their_segment_names(charts, qtbot):
    """The 37th tour added a fourth chip to a breakdown at 1280 × 800 and every name inside the
    bars ("forward 33%") went: the bars, a quarter of the height each, were thinner than the
    text. Written smaller there (not under 7 pt), no taller than their bars allow, they stay."""
    from roofline_gui.io.presets import default_presets

    charts.resize(760, 190)
    qtbot.waitUntil(lambda: not charts.pending)
    charts.model.add_chips([default_presets().chips["nvidia-b200"]])
    qtbot.waitUntil(lambda: not charts.pending)
    charts.refresh()
    assert len({s.chip for s in charts.segments}) == 4
    texts = charts._segment_labels
    assert texts and all(t.textItem.font().pointSizeF() >= 7.0 for t in texts)
    from PySide6.QtGui import QFont, QFontMetricsF

    from roofline_gui.widgets.panels.workloads.charts import BAR_HEIGHT

    bar_px = BAR_HEIGHT * charts.bars.getViewBox().height() / 4
    assert QFontMetricsF(QFont()).capHeight() + 2 > bar_px  # the usual font would overrun
    for t in texts:  # each as tall as its bar, a little over at most, its capitals inside
        assert 0.75 * QFontMetricsF(t.textItem.font()).height() <= bar_px
        assert QFontMetricsF(t.textItem.font()).capHeight() + 2 <= bar_px


def test_four_chips_bars_hold_their_names_and_their_step_ticks_keep_to_their_rows(qtbot):
    """The 42nd tour, the training example and an H100 at 1280 × 800: in 9 px bars "backward
    61%" had lost its letters' tops on the white above the bar, and the 22 px ticks at each
    step's bound ran into the next rows. The bars take more of their rows, their names'
    capitals inside them; a tick is a little taller than its bar, within its row."""
    from PySide6.QtGui import QFontMetricsF

    from roofline_gui.io.presets import default_presets
    from roofline_gui.widgets.panels.workloads.charts import BAR_HEIGHT, STEP_MARK_PX

    model = DocumentModel()
    model.reset(load_session(resources_dir() / "examples" / "training-fp32-against-bf16.roofline"))
    model.add_chips([default_presets().chips["nvidia-h100-sxm5-80gb"]])
    widget = WorkloadCharts(model)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    model.select(next(w for w in model.document.workloads if "bf16" in w.name).id, None)
    for height in (420, 150):  # tall rows, and the shortest the bars' view allows (as there)
        widget.resize(760, height)
        qtbot.waitUntil(lambda: not widget.pending)
        widget.refresh()
        row_px = widget.bars.getViewBox().height() / 4
        bar_px = BAR_HEIGHT * row_px
        size = widget._step_marks.opts["size"]
        assert len(widget._step_marks.data) >= 2
        # (3 px short of its row: two ticks a pixel apart read as one across both rows)
        assert min(bar_px, STEP_MARK_PX - 1) < size <= min(STEP_MARK_PX, row_px - 3), (height,
                                                                                      size)
        assert len(widget._segment_labels) >= 2, height
        for t in widget._segment_labels:
            assert QFontMetricsF(t.textItem.font()).capHeight() + 2 <= bar_px, height
