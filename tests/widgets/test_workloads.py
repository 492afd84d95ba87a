"""Workloads in the window, as a user drives them: a model from a shipped config through the New
Workload dialog, its point dragged on the chart from batch 1 to 64 with every kernel, the table
row and the explanation following, one undo back, and the session saved and opened again."""

import numpy as np
import pytest
from helpers import chart_mismatches, drag_mouse, mouse
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialog

from roofline_gui.core.units import format_time, rate_count
from roofline_gui.core.workload_eval import evaluate_workloads
from roofline_gui.core.workload_view import drag_ladder
from roofline_gui.io.session import load_session, save_session
from roofline_gui.widgets.panels.workloads.dialog import WorkloadDialog


@pytest.fixture
def with_llama(window, qtbot, monkeypatch):
    """Llama-3-8B, decode at batch 1 against 2,048 cached tokens, made through the dialog."""
    def fill_in(dialog):
        dialog.source.setCurrentIndex(dialog.source.findData("llama-3-8b"))
        dialog.fields.spins["batch"].setValue(1)
        dialog.fields.spins["context"].setValue(2048)
        assert dialog.ok.isEnabled()
        assert "QKV projection" in dialog.preview.toPlainText()  # the live preview
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(WorkloadDialog, "exec", fill_in)
    ids = window.workloads.new_workload()
    assert len(ids) == 1
    qtbot.waitUntil(lambda: not window.canvas.drawing)
    window.breakdown  # noqa: B018 (built on first use)
    return ids[0]


def _workload_row(window, wid):
    table = window.table.table_model
    row = table.workload_view_row(wid)
    column = next(c for c in range(table.columnCount()) if table.locate(c) == (0, "time"))
    return table.index(row, column)


def _point_pos(window, x, y):
    vb = window.canvas.overlay_plot.plot.getViewBox()
    return QPointF(window.canvas.overlay.mapFromScene(vb.mapViewToScene(QPointF(x, y))))


def test_drag_a_workload_from_batch_1_to_64_undo_and_reload(window, with_llama, qtbot, tmp_path):
    model, wid = window.model, with_llama
    workload = model.document.workload(wid)
    assert (workload.name, workload.batch, workload.context) == ("Llama-3-8B", 1, 2048)
    chip = model.document.chips[0]
    before = model.workload_result(wid)
    assert _workload_row(window, wid).data().startswith(format_time(float(before.time[0])))

    plot = window.canvas.overlay_plot
    mark = next(m for m in plot.marks if m.workload_id == wid)
    start = _point_pos(window, np.log10(mark.point_x), np.log10(mark.point_y[0]))
    values, intensity = drag_ladder(workload, "batch")
    target = float(intensity[list(values).index(64)])
    end = _point_pos(window, np.log10(target), np.log10(mark.point_y[0]))
    drag_mouse(window.canvas.overlay.viewport(), start, end)
    qtbot.waitUntil(lambda: model.document.workload(wid).batch != 1)

    moved = model.document.workload(wid)
    assert moved.batch == 64 and model.selected_kernel == wid
    expected, = evaluate_workloads([moved], model.document.chips)
    # Every kernel of the workload moved with it, on every chip, as drawn.
    mark = next(m for m in plot.marks if m.workload_id == wid)
    np.testing.assert_allclose(mark.entry_y, expected.evaluation.attainable[expected.rows])
    (x, y), _points = plot.workload_spots()
    assert len(x) == len(expected.entries) * len(model.document.chips)
    np.testing.assert_allclose(sorted(10 ** np.asarray(y)), sorted(
        expected.evaluation.attainable[expected.rows].ravel()), rtol=1e-9)
    # The table's row and the explanation follow (a drag's stream: within 40 ms).
    qtbot.waitUntil(lambda: not window.explanation.pending)
    assert _workload_row(window, wid).data() == (
        f"{format_time(float(expected.time[0]))} · {rate_count(float(expected.throughput[0]))} "
        "tokens/s")
    text = window.explanation.toPlainText()
    assert "B = 64" in text and f"{rate_count(float(expected.throughput[0]))} tokens/s" in text
    assert chip.name in text
    # The breakdown shows the new step, kernel by kernel, adding up to the time.
    qtbot.waitUntil(lambda: not window.breakdown.pending)
    segments = [s for s in window.breakdown.segments if s.chip == 0]
    assert sum(s.width for s in segments) == pytest.approx(float(expected.time[0]))

    # The whole drag is one undo step.
    model.undo_stack.undo()
    assert model.document.workload(wid).batch == 1
    assert _workload_row(window, wid).data().startswith(format_time(float(before.time[0])))
    qtbot.waitUntil(lambda: not window.explanation.pending)
    assert "B = 1," in window.explanation.toPlainText()
    model.undo_stack.redo()
    assert model.document.workload(wid).batch == 64

    # Saved and opened again, the workload is the same.
    path = tmp_path / "llama.roofline"
    save_session(model.document, path)
    assert load_session(path).workloads == model.document.workloads


def test_fields_edit_the_workload_and_shift_drag_changes_the_context(window, with_llama, qtbot):
    model, wid = window.model, with_llama
    panel = window.workloads
    panel.fields.combos["weights"].setCurrentText("int8")
    assert model.document.workload(wid).weights == "int8"
    panel.fields.spins["chips_per_model"].setValue(2)
    w = model.document.workload(wid)
    assert w.chips_per_model == 2
    qtbot.waitUntil(lambda: not (window.explanation.pending or panel.pending))
    assert "Link" in window.explanation.toPlainText()
    assert "KV cache 2·layers·B·(KV heads per chip 4)·L·D·b_kv" in panel.formulas.toPlainText()
    model.undo_stack.undo()
    model.undo_stack.undo()
    assert model.document.workload(wid).weights == "bf16"
    # Shift+drag: the context, not the batch. At batch 1 a longer cache raises the intensity
    # (attention does 2·G op per cached byte, the weights' matrices 1), so: to the right.
    qtbot.waitUntil(lambda: not window.canvas.drawing)
    plot = window.canvas.overlay_plot
    mark = next(m for m in plot.marks if m.workload_id == wid)
    start = _point_pos(window, np.log10(mark.point_x), np.log10(mark.point_y[0]))
    end = start + QPointF(40, 0)  # pixels, past Qt's drag distance on a chart of any width
    drag_mouse(window.canvas.overlay.viewport(), start, end,
               modifiers=Qt.KeyboardModifier.ShiftModifier)
    w = model.document.workload(wid)
    assert w.batch == 1 and w.context > 2048


def test_delete_duplicate_rename_and_refused_chip_counts(window, with_llama, qtbot, monkeypatch):
    model, wid = window.model, with_llama
    panel = window.workloads
    # Rename through the panel's Name field.
    panel.name.setText("Llama decode")
    panel.name.editingFinished.emit()
    assert model.document.workload(wid).name == "Llama decode"
    # The chips spin box doubles and halves; 3 (which does not divide 32 heads) is refused by
    # the core, and the status bar says why.
    spin = panel.fields.spins["chips_per_model"]
    spin.stepBy(1)
    assert model.document.workload(wid).chips_per_model == 2
    spin.stepBy(1)
    assert model.document.workload(wid).chips_per_model == 4
    refused = []
    model.sig_refused.connect(refused.append)
    spin.setValue(3)
    assert model.document.workload(wid).chips_per_model == 4
    assert refused and "32 attention heads" in refused[0]
    # Edit → Duplicate and Delete act on the selected workload.
    model.select(wid, None)
    window.act_duplicate.trigger()
    copy = model.document.workloads[-1]
    assert copy.id != wid and copy.name == "Llama decode (copy)" and model.selected_kernel == copy.id
    window.act_delete.trigger()
    assert [w.id for w in model.document.workloads] == [wid]
    # Open Model config.json… on a file that is not a model's config says what is wrong.
    from roofline_gui.widgets.common.dialogs import Confirm

    errors = []
    monkeypatch.setattr(Confirm, "error", classmethod(lambda cls, parent, title, message:
                                                      errors.append(message)))
    from pathlib import Path

    from roofline_gui.io.files import resources_dir
    from roofline_gui.widgets.panels.workloads.dialog import WorkloadDialog

    cnn = Path(resources_dir()) / "workloads" / "resnet-50.layers.json"
    monkeypatch.setattr(WorkloadDialog, "open_config",
                        lambda self, path=None, _o=WorkloadDialog.open_config: _o(self, str(cnn)))
    window.open_model_config()
    assert errors and "not a transformer's config.json" in errors[0]


def test_edits_of_one_field_merge_only_while_they_stream(window, with_llama, monkeypatch):
    """Held arrows make one undo step; the same field edited again later is a step of its own
    (the second tour found Batch 64, then 3, undone straight back to 1)."""
    from roofline_gui.widgets.panels.workloads import panel

    clock = [100.0]
    monkeypatch.setattr(panel.time, "monotonic", lambda: clock[0])
    model, wid, spin = window.model, with_llama, window.workloads.fields.spins["batch"]
    for value in (2, 3, 4):  # a stream: one step
        spin.setValue(value)
        clock[0] += 0.1
    clock[0] += 5.0
    spin.setValue(64)
    assert model.undo_stack.undoText().endswith("Batch B 64")
    model.undo_stack.undo()
    assert model.document.workload(wid).batch == 4
    model.undo_stack.undo()
    assert model.document.workload(wid).batch == 1


def test_a_workload_drag_past_its_ladder_stops_at_its_end_and_says_why(window, with_llama):
    """Decode's intensity levels off as the batch grows: a drag far to the right stops at the
    batch that reaches the furthest, and the status bar says why (it had stopped silently)."""
    model, wid = window.model, with_llama
    notes = []
    model.sig_status.connect(notes.append)
    window.canvas._on_workload_dragged(wid, 1e6, False, False)
    window.canvas._on_workload_dragged(wid, 1e6, True, False)
    values, intensity = drag_ladder(model.document.workload(wid), "batch")
    assert model.document.workload(wid).batch == int(values[int(np.nanargmax(intensity))])
    assert notes and "cannot pass" in notes[-1] and "by changing its batch" in notes[-1]
    assert window.statusBar().currentMessage() == notes[-1]
    notes.clear()
    window.canvas._on_workload_dragged(wid, float(intensity[3]), True, False)
    assert notes == []  # inside the ladder: nothing to say


def test_another_document_leaves_no_workload_behind_in_the_panels(window, with_llama):
    """After opening a document without workloads, the Workloads panel shows no greyed fields
    of the last one, and the breakdown no chip names of the last document (fresh-eyes tour)."""
    from roofline_gui.widgets.app.file_actions import examples

    window.model.select(with_llama, None)
    charts, panel = window.breakdown, window.workloads
    assert panel.name.text() == "Llama-3-8B" and charts.bars.getAxis("left")._tickLevels
    window.model.undo_stack.setClean()
    window.files.open(str(next(p for p in examples() if p.stem == "williams-cpus")))
    assert not panel.fields.isVisibleTo(panel) and panel.name.text() == ""
    assert charts.bars.getAxis("left")._tickLevels in ([[]], [])


def test_ctrl_z_in_a_spin_box_after_enter_undoes_the_document(window, with_llama, qtbot):
    """Batch B typed, Enter, Ctrl+Z: the document's undo, as Edit > Undo does (the tour found
    the keys did nothing in a spin box); while typing, the keys are the box's own."""
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    model = window.model
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=2000)
    spin = window.workloads.fields.spins["batch"]
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus, timeout=2000)
    before = model.document.workload(with_llama).batch
    spin.selectAll()
    QTest.keyClicks(spin, "48")
    QTest.keyClick(spin, Qt.Key.Key_Return)
    assert model.document.workload(with_llama).batch == 48
    QTest.keyClick(spin, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    QApplication.processEvents()
    assert model.document.workload(with_llama).batch == before
    qtbot.waitUntil(lambda: spin.value() == before, timeout=2000)  # the box follows the document
    spin.selectAll()
    QTest.keyClicks(spin, "7")  # typing of its own: the keys undo that, not the document
    steps = model.undo_stack.index()
    QTest.keyClick(spin, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert model.undo_stack.index() == steps


def test_ctrl_e_in_a_spin_box_is_left_to_the_windows_export(window, with_llama):
    """The 41st tour pressed Ctrl+E (Export PNG) with the cursor in a spin box and nothing
    happened: on X11 a line edit takes Ctrl+E to move to the line's end (a key binding the
    offscreen platform of the tests lacks, so the shortcut's override is asked here as Qt asks
    it). The field declines it; other keys stay the field's."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QKeyEvent

    spin = window.workloads.fields.spins["batch"]

    def override(key, modifiers=Qt.KeyboardModifier.ControlModifier):
        event = QKeyEvent(QEvent.Type.ShortcutOverride, key, modifiers)
        event.accept()
        taken = window._undo_keys.eventFilter(spin, event)
        return taken, event.isAccepted()

    assert override(Qt.Key.Key_E) == (True, False)  # not the field's: the window's shortcut
    assert override(Qt.Key.Key_A) == (False, True)  # select all: the field's own


def test_the_link_field_says_what_joins_the_chips(window, with_llama):
    """'Link: link / host' told a new user nothing: the field reads 'Chips joined by' with the
    levels' kinds, and choosing one sets the workload's link role."""
    fields = window.workloads.fields
    combo = fields.link
    assert [combo.itemText(i) for i in range(combo.count())] == ["chip-to-chip", "host (PCIe)"]
    # short in the box (it read "chip-to-chip (NVLi" at 1280×800), each choice's links named
    # in its tooltip
    tips = [combo.itemData(i, Qt.ItemDataRole.ToolTipRole) for i in range(combo.count())]
    assert "NVLink" in tips[0] and "PCIe" in tips[1]
    assert combo.width() >= combo.fontMetrics().horizontalAdvance("chip-to-chip")
    assert fields.label_of("link") == "Chips joined by"
    # the label, hovered, says what the field is (only the list had a tooltip, in jargon)
    tip = fields._labels[combo].toolTip()
    assert tip == combo.toolTip() and "all-reduce" in tip and "PCIe" in tip
    combo.activated.emit(combo.findData("host"))
    assert window.model.document.workload(with_llama).link == "host"
    window.model.undo_stack.undo()
    assert window.model.document.workload(with_llama).link == "link"


def test_a_mixture_of_experts_shows_its_fields_and_the_weights_a_token_costs(qtbot):
    """DeepSeek-V3: the experts' fields appear (and a dense model's do not); setting them edits
    the workload; the right-hand chart can show the weight bytes per token against the batch,
    falling slower than a dense model's until every expert is read."""
    from roofline_gui.core.workload_eval import weights_sweep
    from roofline_gui.io.workloads import shipped_workloads
    from roofline_gui.models.document_model import DocumentModel
    from roofline_gui.widgets.panels.workloads.charts import WorkloadCharts
    from roofline_gui.widgets.panels.workloads.fields import WorkloadFields

    fields = WorkloadFields()
    qtbot.addWidget(fields)
    fields.show()
    ds = shipped_workloads()["deepseek-v3"].workload("w1", chips_per_model=8)
    fields.show_workload(ds)
    assert fields.spins["expert_parallel"].isVisible() and fields.imbalance.isVisible()
    assert fields.attention_dp.isVisible()
    assert fields.combos["weights"].findText("nvfp4") >= 0
    seen = []
    fields.sig_changed.connect(lambda name, value: seen.append((name, value)))
    fields.spins["expert_parallel"].stepBy(3)  # doubling: 1 → 8
    fields.imbalance.setValue(1.25)
    fields.attention_dp.setChecked(True)
    assert seen == [("expert_parallel", 8), ("moe_imbalance", 1.25),
                    ("attention_data_parallel", True)]
    fields.show_workload(shipped_workloads()["llama-3-8b"].workload("w2"))
    assert not fields.spins["expert_parallel"].isVisible() and not fields.attention_dp.isVisible()

    sweep = weights_sweep(shipped_workloads()["deepseek-v3"].workload("w1"))
    assert sweep.per_token[0] == sweep.dense_active[0] < sweep.dense_all[0]
    # a dense model's bytes per token halve as the batch doubles; the MoE's fall slower at first
    assert sweep.per_token[1] / sweep.per_token[0] > 0.75  # a dense model: 0.5
    assert sweep.per_token[-1] == pytest.approx(sweep.dense_all[-1], rel=5e-3)  # all experts read

    model = DocumentModel()
    from roofline_gui.io.presets import default_presets
    model.add_chips([default_presets().chips["nvidia-h200-sxm-141gb"]])
    ids = model.add_workloads([ds])
    model.select(ids[0], None)
    charts = WorkloadCharts(model)
    qtbot.addWidget(charts)
    charts.show()
    charts.right.setCurrentIndex(charts.right.findData("weights"))
    assert charts.right.isVisible()
    assert "a dense model reading all" in charts.title.text()
    assert charts.sweep.getAxis("bottom").labelText == "batch B"


def test_a_point_under_the_legend_still_drags_and_the_legend_drags_elsewhere(window, with_llama,
                                                                             qtbot):
    """The legend lies over the chart's data on a small chart: a drag that starts on a
    workload's point beneath it moves the point (the legend took it: the tour's "drag does
    nothing"); a drag that starts on the legend away from any point moves the legend."""
    model, wid = window.model, with_llama
    qtbot.waitUntil(lambda: not window.canvas.drawing)
    plot = window.canvas.overlay_plot
    view = window.canvas.overlay
    plot._legend_outside(False)  # in the view (it stands below a chart it would hide lines in)
    QTest.qWait(50)
    mark = next(m for m in plot.marks if m.workload_id == wid)
    start = _point_pos(window, np.log10(mark.point_x), np.log10(mark.point_y[0]))
    legend = plot.legend.legend
    # the legend's top-left corner a few pixels up and left of the point: it covers it
    corner = legend.parentItem().mapFromScene(view.mapToScene(start.toPoint()))
    legend.anchor(itemPos=(0, 0), parentPos=(0, 0), offset=(corner.x() - 6, corner.y() - 6))
    QTest.qWait(50)
    assert legend.sceneBoundingRect().contains(view.mapToScene(start.toPoint()))
    # the pointer comes to rest on the point first, as a hand's does (pyqtgraph's legend
    # claimed the drag while hovered)
    for dx in (12, 6, 0):
        mouse(view.viewport(), QEvent.Type.MouseMove, start + QPointF(dx, 0),
              Qt.MouseButton.NoButton)
        QTest.qWait(40)
    drag_mouse(view.viewport(), start, start + QPointF(60, 0))
    qtbot.waitUntil(lambda: model.document.workload(wid).batch != 1)
    # on the legend, away from the point: the legend moves, the workload does not
    batch = model.document.workload(wid).batch
    # (its corner within the view box: a legend of more rows runs past the view's bottom, over
    # the axis, which takes the press there)
    shown = legend.sceneBoundingRect() & legend.parentItem().sceneBoundingRect()
    inside = view.mapFromScene(shown.bottomRight()) - QPoint(4, 4)
    before = legend.pos()
    drag_mouse(view.viewport(), QPointF(inside), QPointF(inside) + QPointF(-30, -20))
    assert model.document.workload(wid).batch == batch and legend.pos() != before


@pytest.mark.parametrize("size", [(1280, 800), (1280, 770), (1600, 1000), (1920, 1050), (1400, 900)])
def test_no_roof_label_is_written_over_a_workloads_point(window, qtbot, size):
    """The second tour: "bf16 2.25 Pop/s" and "bf16 1.307 Pop/s" were written over the prefill
    points on their roofs (each point 17 px across, counted as a kernel's 12 px marker, and
    every spot on the roof covered one): the labels go off their roofs, with a leader, crossed
    by a line where they must be, never over a workload's point."""
    import numpy as np

    from roofline_gui.core.chart_labels import _text_over_markers, label_footprint
    from roofline_gui.widgets.app.file_actions import examples

    window.resize(*size)
    window.files.open(str(next(p for p in examples() if p.stem == "llama-3-8b-on-three-chips")))
    qtbot.wait(100)
    plot = window.canvas.overlay_plot
    plot.finish_pending()
    g = plot.label_geometry()
    points = []
    for mark in plot.scene.workloads:
        for y in mark.point_y[np.isfinite(mark.point_y)]:
            x, yy = np.log10(mark.point_x) * g.px[0], -np.log10(y) * g.px[1]
            points.append((x - 8.5, yy - 8.5, x + 8.5, yy + 8.5))
    assert len(points) == 6
    for label in plot.roof_labels.labels:
        if label.along is not None:  # a slanted text: its own turned box against each point's
            # circle (its footprint's upright boxes reach past the text, towards its line)
            assert not _text_over_markers([label], g, np.array(points))[0], label.text
            continue
        for box in label_footprint(label, g):
            for p in points:
                assert not (box[0] < p[2] and p[0] < box[2] and box[1] < p[3] and p[1] < box[3]), (
                    label.text, box, p)


def test_a_click_on_the_workload_row_already_current_selects_it_again(window, qtbot, with_llama):
    """A kernel selected since (its marker, the table): a click on the workload's row, still
    the list's current one, selects the workload again, and "Why it sits there" follows (it
    stayed on the kernel: the ninth tour)."""
    model, panel = window.model, window.workloads
    wid = model.document.workloads[0].id
    model.select(wid, None)
    kernel = model.document.kernels[0]
    model.select(kernel.id, None)
    assert panel.list.currentItem().data(Qt.ItemDataRole.UserRole) == wid  # still current
    rect = panel.list.visualItemRect(panel.list.currentItem())
    qtbot.mouseClick(panel.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert model.selected_kernel == wid
    qtbot.waitUntil(lambda: model.document.workloads[0].name.split(" ·")[0]
                    in window.explanation.plain_text().split("\n")[0], timeout=3000)


@pytest.mark.parametrize("example", ["serving-70b-and-r1-at-50-ms", "llama-3-8b-on-three-chips"])
def test_no_workloads_label_lies_over_another_or_over_a_big_point(window, qtbot, example):
    """Each workload selected in turn (a training one added): its label, placed even where no
    spot is free, never over another workload's label (two were printed over each other: the
    tenth tour), and no label over another's big point, 17 px across (nor over one of another
    chip: "Llama-3-8B prefill" lay over the B200's)."""
    from dataclasses import replace

    from roofline_gui.core.chart_labels import WORKLOAD_POINT_HALF, _workload_boxes
    from roofline_gui.core.display import boxes_overlap
    from roofline_gui.io.workloads import shipped_workloads
    from roofline_gui.widgets.app.file_actions import examples

    window.resize(1280, 800)
    window.files.open(str(next(p for p in examples() if p.stem == example)))
    model = window.model
    model.add_chips([window.presets.chips["nvidia-b200"]])
    model.add_workloads([replace(shipped_workloads()["llama-3-70b"].workload(), phase="train",
                                 name="Llama-3-70B · train")])
    plot = window.canvas.overlay_plot
    for w in model.document.workloads:
        model.select(w.id, None)
        qtbot.wait(50)
        plot.finish_pending()
        g, scene = plot.label_geometry(), plot.scene
        labels = [lb for lb in scene.labels.workloads if lb is not None]
        boxes = _workload_boxes(labels, g)
        assert any(lb.item == next(n for n, m in enumerate(scene.workloads)
                                   if m.workload_id == w.id) for lb in labels), w.name
        for i, a in enumerate(boxes):
            assert not any(boxes_overlap(a, b) for b in boxes[i + 1:]), (w.name, labels[i].text)
        for n, mark in enumerate(scene.workloads):
            for y in mark.point_y[np.isfinite(mark.point_y)]:
                px, py = np.log10(mark.point_x) * g.px[0], -np.log10(y) * g.px[1]
                h = WORKLOAD_POINT_HALF - 2  # the point drawn, 17 px across
                point = (px - h, py - h, px + h, py + h)
                for lb, box in zip(labels, boxes, strict=True):
                    if lb.item != n:
                        assert not boxes_overlap(box, point), (w.name, lb.text, mark.name)


def test_a_selected_workloads_big_points_are_ringed_the_selected_chips_bold(window):
    """The thirteenth tour clicked DeepSeek-R1's big point: the list, the breakdown and "Why it
    sits there" followed, but the chart marked nothing (a kernel's markers are ringed)."""
    from roofline_gui.widgets.app.file_actions import example_named

    assert window.files.open_example(example_named("deepseek-r1-h200-fp8-vs-b200-nvfp4"))
    model = window.model
    workload, chip = model.document.workloads[0], model.document.chips[1]
    model.select(workload.id, chip.id)
    plot = window.canvas.overlay_plot
    plot.finish_pending()
    mark = next(m for m in plot.scene.workloads if m.workload_id == workload.id)
    xs, ys = (np.asarray(a, float) for a in plot.ring.getData())
    want = sorted(zip([np.log10(mark.point_x)] * len(mark.point_y), np.log10(mark.point_y),
                      strict=True))
    assert np.allclose(sorted(zip(xs, ys, strict=True)), want)
    widths = [spot.pen().widthF() for spot in plot.ring.points()]
    bold = [d[1] for d, w in zip(plot.ring.data["data"], widths, strict=True) if w == 3]
    assert bold == [1]  # the selected chip's (index 1)
    assert chart_mismatches(plot) == []
    model.undo_stack.setClean()


def test_a_workloads_label_is_by_the_selected_chips_point(window, qtbot):
    """As a kernel's name is by its marker on the selected chip, a workload's label is by its
    big point on the selected chip where that has room (by its highest point on any chip it had
    named another chip's point: the nineteenth tour)."""
    from roofline_gui.widgets.app.file_actions import example_named

    window.resize(1600, 1000)
    window.files.open(str(example_named("llama-3-8b-on-three-chips")))
    model, plot = window.model, window.canvas.overlay_plot
    workload = model.document.workloads[1]  # prefill: its points on the flat roofs
    assert workload.phase == "prefill"
    at = set()
    for chip in model.document.chips:
        model.select(workload.id, chip.id)
        qtbot.wait(20)
        plot.finish_pending()
        scene = plot.scene
        n = next(i for i, m in enumerate(scene.workloads) if m.workload_id == workload.id)
        c = list(scene.chips).index(scene.comparison.chip_index[chip.id])
        label = scene.labels.workloads[n]
        assert label is not None, chip.name
        assert label.y == pytest.approx(np.log10(scene.workloads[n].point_y[c])), chip.name
        at.add(round(label.y, 6))
    assert len(at) == len(model.document.chips)  # three chips, three points, three places


def test_a_workloads_label_is_written_on_a_backdrop(window, qtbot):
    """The twenty-first tour: faint levels' dashed lines ran through "ResNet-50 training,
    fp32", whose label had no background, where the kernels' names and the roofs' labels
    have one. A workload's label is on a backdrop of the chart's background."""
    from PySide6.QtGui import QColor

    from roofline_gui.widgets.app.file_actions import example_named

    window.files.open(str(example_named("llama-3-8b-on-three-chips")))
    plot = window.canvas.overlay_plot
    plot.finish_pending()
    items = plot.workloads.label_items()
    assert items
    for item in items.values():
        fill = item.fill.color()
        assert fill.alpha() > 200 and fill.rgb() == QColor(plot.options.background).rgb()


@pytest.mark.parametrize("example", ["serving-70b-and-r1-at-50-ms", "training-fp32-against-bf16",
                                     "deepseek-r1-h200-fp8-vs-b200-nvfp4"])
def test_a_selected_workloads_label_leaves_its_rings_whole(window, example):
    """The 35th tour clicked a workload: its label's box, 13 px off the point, cut the ring
    round that point (30 px across) and the ring round another chip's. Measured as drawn: the
    text item's box against each ring's outer edge, in the view's pixels."""
    from PySide6.QtCore import QPointF
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.file_actions import examples

    window.resize(1280, 800)
    window.files.open_example(next(p for p in examples() if p.stem == example))
    plot = window.canvas.overlay_plot
    view, box = plot.plot.getViewWidget(), plot.plot.getViewBox()
    checked = 0
    for w in window.model.document.workloads:
        window.model.select(w.id, None)
        for _ in range(3):
            QApplication.processEvents()
        plot.finish_pending()
        QApplication.processEvents()
        n = next(n for n, m in enumerate(plot.scene.workloads) if m.workload_id == w.id)
        label = plot.scene.labels.workloads[n]
        if label is None:
            continue
        rect = view.mapFromScene(plot.workloads.label_items()[w.id].sceneBoundingRect()).boundingRect()
        xs, ys = plot.ring.getData()
        for x, y, spot in zip(xs, ys, plot.ring.points(), strict=True):
            centre = view.mapFromScene(box.mapViewToScene(QPointF(x, y)))
            r = spot.size() / 2 + spot.pen().widthF() / 2
            dx = max(rect.left() - centre.x(), 0, centre.x() - rect.right() - 1)
            dy = max(rect.top() - centre.y(), 0, centre.y() - rect.bottom() - 1)
            assert np.hypot(dx, dy) >= r - 1, (example, label.text, label.offset, r)
        checked += 1
    assert checked


@pytest.mark.parametrize("example", ["serving-70b-and-r1-at-50-ms",
                                     "deepseek-r1-h200-fp8-vs-b200-nvfp4"])
def test_a_workloads_label_in_a_small_chart_is_drawn_whole_inside_its_view(window, example):
    """Side by side at 1280 × 800 no spot by the selected workload's point was free and its label,
    set above a point near a small chart's top, was cut by the view's edge ("Llama-3.3-70B…" on
    the B200 and the MI355X): each label's text item, as drawn, lies inside its view, at window
    heights down to where the charts' views are about 110 px tall."""
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.file_actions import examples

    window.files.open_example(next(p for p in examples() if p.stem == example))
    window.set_mode("side_by_side")
    checked = 0
    for height in (800, 760, 720):
        window.resize(1280, height)
        for plot in window.canvas.plots:
            for _ in range(3):
                QApplication.processEvents()
            plot.finish_pending()
            QApplication.processEvents()
            view, box = plot.plot.getViewWidget(), plot.plot.getViewBox()
            inner = view.mapFromScene(box.sceneBoundingRect()).boundingRect()
            for mark in plot.scene.workloads:
                item = plot.workloads.label_items().get(mark.workload_id)
                if item is None or not item.isVisible():
                    continue
                rect = view.mapFromScene(item.sceneBoundingRect()).boundingRect()
                where = (example, height, inner.height(), item.toPlainText())
                assert inner.top() - 1 <= rect.top() and rect.bottom() <= inner.bottom() + 1, where
                assert inner.left() - 1 <= rect.left() and rect.right() <= inner.right() + 1, where
                checked += 1
    assert checked >= 6


def test_the_breakdown_of_every_preset_scrolls_and_keeps_the_window_on_the_screen(window, qtbot):
    """The 41st tour added every preset to the training example at 1280 × 800: the breakdown's
    chip names were printed over each other, its notes listed 30 chips, and the memory chart's
    rows of names grew the window to 875 px, past the screen. The bars keep a row a chip and
    scroll; the notes name a few chips (the tooltip every one); the key names a few."""
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.file_actions import examples
    from roofline_gui.widgets.panels.workloads.charts import FEW_CHIPS

    window.resize(1280, 770)
    window.files.open(str(next(p for p in examples() if p.stem == "training-fp32-against-bf16")))
    shown = {c.name for c in window.model.document.chips}
    window.model.add_chips([c for c in window.presets.chips.values() if c.name not in shown])
    window.docks["breakdown"].raise_()
    charts = window.workloads.charts if hasattr(window.workloads, "charts") else \
        window.docks["breakdown"].widget()
    for _ in range(10):
        QApplication.processEvents()
    qtbot.wait(100)
    charts.refresh()
    QApplication.processEvents()
    n = len(window.model.document.chips)
    assert window.minimumSizeHint().height() <= 770
    line = charts.fontMetrics().lineSpacing()
    assert charts.bars.minimumHeight() >= n * line  # a row a chip, scrolled
    assert charts.bars_area.verticalScrollBar().maximum() > 0
    text = charts.title.text()
    assert "more" in text and text.count(",") < 3 * FEW_CHIPS + 6, text
    tip = charts.title.toolTip()
    named = [c.name for c in window.model.document.chips if c.name in tip]
    assert len(named) > len([c for c in window.model.document.chips if c.name in text]) + 5
