"""Training in the window, as a new user drives it: "Llama-2-7B trained on 2 T tokens on 1,024
A100s" built through the New Workload dialog, its days and chip-hours read, bf16 switched to
fp32 and what changes (and why) read; a bad global batch refused in its field; the micro-batch
dragged on the chart; the breakdown's parts, memory bar and scaling view."""

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication, QDialog

from roofline_gui.core.training_view import memory_parts
from roofline_gui.core.units import format_si
from roofline_gui.core.workload_eval import evaluate_workloads
from roofline_gui.io.presets import default_presets
from roofline_gui.widgets.panels.workloads.dialog import WorkloadDialog


@pytest.fixture
def llama_training(window, qtbot, monkeypatch):
    a100 = default_presets().chips["nvidia-a100-sxm4-80gb"]
    window.model.add_chips([a100])

    def fill_in(dialog):
        dialog.source.setCurrentIndex(dialog.source.findData("llama-2-7b"))
        fields = dialog.fields
        fields.phase.setCurrentIndex(fields.phase.findData("train"))
        fields.phase.activated.emit(fields.phase.currentIndex())
        assert not fields.spins["global_batch"].isHidden() and fields.combos["kv_cache"].isHidden()
        fields.spins["sequence"].setValue(4096)
        fields.spins["data_parallel"].setValue(1024)
        fields.spins["global_batch"].setValue(1024)
        zero = fields.combos["zero"]
        zero.setCurrentIndex(zero.findData(1))
        zero.activated.emit(zero.currentIndex())
        recompute = fields.combos["recompute"]
        recompute.setCurrentIndex(recompute.findData("selective"))
        recompute.activated.emit(recompute.currentIndex())
        fields.tokens.setText("2T")
        fields.tokens.editingFinished.emit()
        assert dialog.ok.isEnabled(), dialog.error.text()
        assert "(backward)" in dialog.preview.toPlainText()
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(WorkloadDialog, "exec", fill_in)
    ids = window.workloads.new_workload()
    qtbot.waitUntil(lambda: not window.canvas.drawing)
    window.breakdown  # noqa: B018 (built on first use)
    return ids[0]


def _a100(model):
    return next(i for i, c in enumerate(model.document.chips) if c.name == "A100 SXM4 80GB")


def test_a_new_user_builds_llama_2_7b_on_1024_a100s_and_switches_bf16_to_fp32(window, llama_training,
                                                                           qtbot):
    model, wid = window.model, llama_training
    w = model.document.workload(wid)
    assert (w.phase, w.sequence, w.data_parallel, w.global_batch, w.zero, w.recompute,
            w.train_tokens) == ("train", 4096, 1024, 1024, 1, "selective", 2e12)
    c = _a100(model)
    chip_id = model.document.chips[c].id
    model.select(wid, chip_id)
    qtbot.waitUntil(lambda: not window.explanation.pending)
    text = window.explanation.toPlainText()
    r = model.workload_result(wid)
    days, hours = float(r.train_days[c]), float(r.chip_hours[c])
    assert f"take {days:,.3g} days on 1,024 chips, {hours:,.0f} chip-hours" in text
    assert hours < 184_320  # Llama 2's published A100 hours for this run
    assert "MFU at the bound" in text and "PaLM's appendix B" in text
    assert "fp32 instead (no mixed precision)" in text
    # bf16 → fp32: the step slows by the roofs' ratio and the states grow to 16 B per parameter
    panel = window.workloads
    combo = panel.fields.combos["activations"]
    combo.setCurrentText("fp32")
    qtbot.waitUntil(lambda: not (window.explanation.pending or panel.pending))
    w32 = model.document.workload(wid)
    assert w32.activations == "fp32"
    r32 = model.workload_result(wid)
    assert r32.time[c] / r.time[c] > 10  # 19.5 Top/s fp32 against 312 Top/s bf16
    text = window.explanation.toPlainText()
    assert "Does NOT fit" in text and "bf16 instead of fp32 (mixed precision)" in text
    assert "weights 4 + gradients 4 + optimizer 8 B per parameter" in text
    model.undo_stack.undo()
    assert model.document.workload(wid).activations == "bf16"


def test_a_bad_global_batch_is_refused_in_its_field_and_the_micro_batch_drags(window,
                                                                             llama_training, qtbot):
    model, wid = window.model, llama_training
    panel = window.workloads
    spin = panel.fields.spins["global_batch"]
    spin.setValue(1000)
    assert model.document.workload(wid).global_batch == 1024
    assert spin.value() == 1024  # the field shows the workload's own value again
    assert "not a multiple of micro-batch × data parallel" in panel.refused.text()
    # the micro-batch field keeps the global batch a multiple of b·d: 2 × 1,024 = 2,048
    panel.fields.spins["batch"].setValue(2)
    w = model.document.workload(wid)
    assert (w.batch, w.global_batch) == (2, 2048) and panel.refused.text() == ""
    assert "Micro-batch b" in panel.fields._labels[panel.fields.spins["batch"]].text()


def test_the_breakdown_shows_parts_memory_and_scaling(window, llama_training, qtbot):
    model, wid = window.model, llama_training
    charts = window.breakdown
    model.select(wid, None)
    qtbot.waitUntil(lambda: not charts.pending)
    kinds = {s.kind for s in charts.segments}
    assert {"forward", "backward", "recompute", "optimizer", "communication"} <= kinds
    assert charts.memory.isVisible()
    r = model.workload_result(wid)
    assert len(charts._sweep) == 13 and charts._sweep[-1].training.chips == 4096
    ours = next(s for s in charts._sweep if s.training.chips == r.training.chips)
    c = _a100(model)
    assert ours.throughput[[i for i, ch in enumerate(r.chips) if ch.visible].index(c)] == \
        pytest.approx(r.throughput[c])
    # an inference workload's breakdown has no memory bar
    panel = window.workloads
    combo = panel.fields.phase
    combo.setCurrentIndex(combo.findData("prefill"))
    combo.activated.emit(combo.currentIndex())
    qtbot.waitUntil(lambda: not charts.pending)
    assert not charts.memory.isVisible() and model.document.workload(wid).phase == "prefill"
    assert np.isfinite(evaluate_workloads([model.document.workload(wid)],
                                          model.document.chips)[0].time).any()


def test_refusals_use_the_fields_words_and_a_new_document_leaves_no_memory_bar(window,
                                                                              llama_training,
                                                                              qtbot):
    model, panel = window.model, window.workloads
    panel.fields.spins["chips_per_model"].setValue(5)
    assert panel.refused.text().startswith("Tensor par. t 5 refused:")
    assert "Tensor par. t: 5 chips cannot share 32 attention heads" in panel.refused.text()
    assert "chips_per_model" not in panel.refused.text()
    panel.fields.tokens.setText("2 trillion")
    panel.fields.tokens.editingFinished.emit()
    assert panel.refused.text().startswith("Tokens D:")
    assert model.document.workload(llama_training).train_tokens == 2e12
    charts = window.breakdown
    qtbot.waitUntil(lambda: not charts.pending)
    assert charts.memory.isVisible()
    from roofline_gui.core.document import Document

    model.reset(Document())
    qtbot.waitUntil(lambda: not charts.pending)
    assert not charts.memory.isVisible()


def test_the_memory_bars_chip_names_never_print_over_each_other(window, llama_training, qtbot):
    """The second tour: in fp32 two chips' "… does not fit" printed over each other above the
    memory bar (rows of names a fixed share of a short chart apart), and its axis title read
    "169 GB (hover for its parts) (GB)"."""
    model, wid = window.model, llama_training
    charts = window.breakdown
    window.resize(1280, 800)
    model.select(wid, None)
    combo = window.workloads.fields.combos["activations"]
    combo.setCurrentText("fp32")
    qtbot.waitUntil(lambda: not charts.pending)
    QApplication.processEvents()
    qtbot.waitUntil(lambda: not charts.pending)
    texts = [item for item in charts.memory.getPlotItem().items if isinstance(item, pg.TextItem)]
    words = [t.textItem.toPlainText() for t in texts]
    r = model.workload_result(wid)
    assert format_si(sum(size for _n, size in memory_parts(r)), "B") in words  # the total
    assert sum("does not fit" in w for w in words) >= 2, words
    boxes = [t.mapRectToScene(t.boundingRect()) for t in texts]
    for i, a in enumerate(boxes):
        assert not any(a.intersects(b) for b in boxes[i + 1:]), words
    view = charts.memory.getViewBox().sceneBoundingRect()
    assert all(view.contains(b) for b in boxes), (view, boxes)
    axis = charts.memory.getAxis("bottom")
    assert axis.labelString().count("GB") == 1, axis.labelString()
    # and the chart whole in its panel, its axis title in sight (the colours' key, six lines
    # above the charts, had pushed it out: the key is the title's tooltip now)
    # (in the scroll area of many chips' bars, not scrolled with two)
    bottom = charts.memory.mapTo(charts, QPoint(0, charts.memory.height())).y()
    assert bottom <= charts.height(), (bottom, charts.height())
    assert charts.bars_area.verticalScrollBar().maximum() == 0
    assert "blue forward, orange backward" in charts.title.toolTip()


def test_at_1280_by_800_the_training_fields_fit_the_panel_beside_the_chart(window, qtbot):
    """The sixth tour: at 1280×800 the training form's second column was cut off on the right
    (Micro-batch's arrows, the ZeRO and Optimizer boxes): the longest choices ("chip-to-chip
    (NVLink, ICI)", "SGD, momentum") had set the form's width, wider than the panel."""
    from roofline_gui.widgets.app.file_actions import examples

    window.resize(1280, 800)
    window.files.open_example(next(p for p in examples()
                                   if p.stem == "training-fp32-against-bf16"))
    window.docks["workloads"].raise_()
    QApplication.processEvents()
    panel = window.workloads
    fields = panel.fields
    viewport = panel.scroll.viewport()
    assert fields.minimumSizeHint().width() <= viewport.width(), (
        fields.minimumSizeHint().width(), viewport.width())
    # every field whole within what the panel shows, the right column's included
    for widget in (fields.combos["zero"], fields.combos["optimizer"], fields.link,
                   fields.spins["data_parallel"], fields.spins["batch"]):
        assert widget.isVisible()
        right = widget.mapTo(viewport, widget.rect().topRight()).x()
        assert right < viewport.width(), (widget, right, viewport.width())
    # a narrowed box still holds its whole choice, in its list and as its text
    link = fields.link
    assert link.currentText() == link.itemText(link.currentIndex())
    assert link.currentText() == "chip-to-chip"  # short, its links in its choice's tooltip
    assert link.fontMetrics().horizontalAdvance(link.currentText()) < link.width()


def test_the_scaling_chart_marks_a_step_that_does_not_fit(window, llama_training, qtbot):
    """fp32 training (16 B a parameter and fp32 activations) does not fit an A100's 40 GB: the
    scaling chart's points there are crosses on a dashed line, and its title says what they
    mean (filled points had climbed on where every chip said "does not fit": the ninth tour)."""
    from PySide6.QtCore import Qt

    from roofline_gui.core import training_view

    model, wid = window.model, llama_training
    charts = window.breakdown
    model.select(wid, None)
    qtbot.waitUntil(lambda: not charts.pending)

    def drawn():
        items = charts.sweep.listDataItems()
        crosses = [i for i in items if i.opts["symbol"] == "x"]
        dashed = [i for i in items if i.opts["pen"] is not None and not isinstance(
            i.opts["pen"], str) and pg.mkPen(i.opts["pen"]).style() == Qt.PenStyle.DashLine]
        return crosses, dashed

    import pyqtgraph as pg

    fits = np.array([training_view.fits_in_memory(s) for s in charts._sweep])
    crosses, dashed = drawn()
    assert len(crosses) == int((~fits.all(axis=0)).sum())  # none where every step fits
    window.workloads.fields.combos["activations"].setCurrentText("fp32")
    qtbot.waitUntil(lambda: not charts.pending and model.document.workload(wid).activations == "fp32")
    charts.refresh()
    fits = np.array([training_view.fits_in_memory(s) for s in charts._sweep])
    assert not fits.all()
    crosses, dashed = drawn()
    assert crosses and dashed
    shown = sum(len(i.getData()[0]) for i in crosses)
    assert shown == int(sum((~fits[:, j] & np.isfinite([s.throughput[j] for s in charts._sweep])
                             ).sum() for j in range(fits.shape[1])))
    assert "does not fit" in charts.sweep.getAxis("bottom").labelText


def test_a_chip_whose_scaling_line_lies_under_anothers_says_so(window, qtbot):
    """The twenty-fifth tour: the training example's scaling chart drew two lines for three
    chips, TPU v3's (16 ms a step) under the V100's (15.85 ms), and nothing said so: a note in
    the chip's colour at the chart's top left names whose line it lies under, and each other
    chip's line."""
    import pyqtgraph as pg

    from roofline_gui.widgets.app.file_actions import example_named

    assert window.files.open_example(example_named("training-fp32-against-bf16"))
    bf16 = next(w for w in window.model.document.workloads if "bf16" in w.name)
    window.model.select(bf16.id, None)
    charts = window.breakdown
    qtbot.waitUntil(lambda: not charts.pending)
    charts.refresh()
    assert charts.hidden_note == "TPU v3 (hidden under V100 SXM2 16GB)"
    notes = [i for i in charts.sweep.getPlotItem().items if isinstance(i, pg.TextItem)]
    # (each chip's name kept whole on its line: its spaces unbreakable)
    text = notes[0].toPlainText().replace("\xa0", " ")
    assert len(notes) == 1 and "TPU v3 (hidden under V100 SXM2 16GB)" in text
    # the A100's line is apart from both: named nowhere as hidden, but named as every line is,
    # in its colour (two lines, nothing said whose: the 36th tour)
    assert "A100" not in charts.hidden_note
    for chip in window.model.document.chips:
        assert chip.name in text and chip.color in notes[0].toHtml()
    # on a backdrop over the lines (with many chips the key grew over them, and they ran
    # through its words: the 42nd tour's second look)
    assert notes[0].fill.color().alpha() >= 200
    curves = [i for i in charts.sweep.getPlotItem().items if not isinstance(i, pg.TextItem)]
    assert all(notes[0].zValue() > c.zValue() for c in curves)


def test_the_bottom_panels_hold_still_as_the_workload_changes(window, qtbot):
    """The twenty-fifth tour: selecting the training example's bf16 workload moved the bottom
    panels up by 15 px, and back for fp32: the memory bar's least height followed the rows its
    chips' names took. For up to three chips it keeps a row for each."""
    from roofline_gui.widgets.app.file_actions import example_named

    window.resize(1280, 800)
    assert window.files.open_example(example_named("training-fp32-against-bf16"))
    window.docks["breakdown"].raise_()
    charts = window.breakdown
    heights, tops = set(), set()
    for _ in range(2):
        for workload in window.model.document.workloads:
            window.model.select(workload.id, None)
            qtbot.waitUntil(lambda: not charts.pending)
            for _ in range(5):
                QApplication.processEvents()
            heights.add(charts.memory.minimumHeight())
            tops.add(window.docks["breakdown"].geometry().top())
    assert len(heights) == 1 and len(tops) == 1, (heights, tops)
