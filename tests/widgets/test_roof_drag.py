"""Drag a roof (issue 27): the A100's HBM slope dragged to 3.35 TB/s with the mouse; a
memory-bound Llama decode's step falls by exactly the ratio while a compute-bound GEMM does
not move; the drag is one undo step; the session keeps the what-if value and its datasheet
ghost; Shift snaps to a round factor and Ctrl moves every ceiling of the chip."""

import numpy as np
import pytest
from helpers import chart_mismatches, drag_mouse, settle
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication

from roofline_gui.core.document import Document

NONE = Qt.KeyboardModifier.NoModifier


def _session(window):
    import roofline_gui.api as rf

    model = window.model
    model.reset(Document())
    model.add_chips([window.presets.chips["nvidia-a100-sxm4-40gb"]])
    model.add_kernels([window.presets.kernels["gemm-4k-bf16"]])
    model.add_workloads([rf.workload("llama-3-8b", phase="decode", batch=1, context=2048)])
    model.undo_stack.clear()
    plot = window.canvas.overlay_plot
    settle(plot)
    return model, plot


def _to_view(window, lx, ly):
    vb = window.canvas.overlay_plot.plot.getViewBox()
    view = window.canvas.overlay
    return QPointF(view.mapFromScene(vb.mapViewToScene(QPointF(lx, ly))))


def test_dragging_the_hbm_slope_moves_main_memory_and_what_follows_it(window, tmp_path):
    model, plot = _session(window)
    chip = model.document.chips[0]
    before = model.workload_results[0].time[0]
    gemm = model.comparison.result.attainable[0, 0]
    # a point on the bf16 roof's slope (left of its 200 op/B ridge) and one on the 3.35 TB/s line
    start = _to_view(window, np.log10(4.0), np.log10(4.0 * 1.555e12))
    end = _to_view(window, np.log10(4.0), np.log10(4.0 * 3.35e12))
    drag_mouse(window.canvas.overlay.viewport(), start, end)
    moved = model.document.chips[0]
    assert moved.dram.what_if_of == 1.555e12
    assert moved.dram.bandwidth == pytest.approx(3.35e12, rel=0.03)  # where the pointer let go
    ratio = moved.dram.bandwidth / 1.555e12
    assert model.workload_results[0].time[0] == pytest.approx(before / ratio, rel=1e-3)
    assert model.comparison.result.attainable[0, 0] == gemm  # compute-bound: unmoved
    assert moved.dram.provenance().kind == "what-if"
    assert [r.bandwidth for r in plot.scene.spec.datasheet_roofs] == [1.555e12]  # the ghost
    assert plot.lifted is None and chart_mismatches(plot) == []
    assert model.undo_stack.count() == 1  # the whole drag, one step
    from roofline_gui.io.session import load_session, save_session

    save_session(model.document, tmp_path / "w.roofline")
    assert load_session(tmp_path / "w.roofline").chips[0].dram.what_if_of == 1.555e12
    model.undo_stack.undo()
    assert model.document.chips[0] == chip
    assert model.workload_results[0].time[0] == pytest.approx(before)


def test_shift_snaps_to_a_round_factor_and_ctrl_moves_every_ceiling(window):
    model, plot = _session(window)
    chip = model.document.chips[0]
    peak = chip.compute["bf16"]
    signal = plot.roofs.item.sig_roof_dragged
    # the flat part dragged to 1.9x its peak with Shift: 2x
    signal.emit(("peak", chip.id, "bf16"), 3.0, float(np.log10(1.9 * peak)), True,
                Qt.KeyboardModifier.ShiftModifier)
    assert model.document.chips[0].compute["bf16"] == 2 * peak
    assert model.document.chips[0].compute_what_if_of == {"bf16": peak}
    # with Ctrl, every ceiling moves by the same factor (a faster clock)
    signal.emit(("peak", chip.id, "fp32"), 3.0, float(np.log10(1.5 * chip.compute["fp32"])),
                True, Qt.KeyboardModifier.ControlModifier)
    faster = model.document.chips[0]
    assert faster.compute["fp32"] == pytest.approx(1.5 * chip.compute["fp32"])
    assert faster.dram.bandwidth == pytest.approx(1.5 * chip.dram.bandwidth)
    assert faster.compute["bf16"] == pytest.approx(3 * peak)  # 2x, then 1.5x
    assert faster.dram.what_if_of == chip.dram.bandwidth
    # dragged back to the datasheet figure, a ceiling is no longer a what-if
    signal.emit(("peak", chip.id, "bf16"), 3.0, float(np.log10(peak)), True, NONE)
    assert "bf16" not in model.document.chips[0].compute_what_if_of


def test_the_legend_names_the_chip_as_a_what_if_after_a_roof_drag(window):
    model, plot = _session(window)
    chip = model.document.chips[0]
    signal = plot.roofs.item.sig_roof_dragged
    signal.emit(("peak", chip.id, "bf16"), 3.0, float(np.log10(2 * chip.compute["bf16"])), False, NONE)
    signal.emit(("peak", chip.id, "bf16"), 3.0, float(np.log10(2 * chip.compute["bf16"])), True, NONE)
    QApplication.processEvents()
    names = [entry[0] for entry in plot.legend.legend.entries]
    assert f"{chip.name} (what-if): HBM2 1.555 TB/s" in names
    assert "datasheet roofs (long dashes)" in " ".join(names)
    assert model.undo_stack.undoText() == f"What-if {chip.name}: bf16 624 Top/s"


def test_during_a_roof_drag_only_the_moving_chip_is_redrawn_and_all_settles_on_release(window):
    """The other chips' roofs stay in their cached item, the labels and the legend hold still,
    the workloads' marks move in place; on release every chip's roofs are one item again, the
    labels are placed anew and the chart matches the document."""
    model, plot = _session(window)
    model.add_chips([window.presets.chips["google-tpu-v3"]])
    QApplication.processEvents()
    a100, tpu = model.document.chips
    signal = plot.roofs.item.sig_roof_dragged
    static_lines = len(plot.roofs.item.lines)
    dram = a100.memory.index(a100.dram)
    for factor in (1.2, 1.4):
        signal.emit(("level", a100.id, dram), 0.0, float(np.log10(factor * a100.dram.bandwidth)),
                    False, NONE)
        QApplication.processEvents()
        chips = {line.key[0] for line in plot.roofs.item.lines if line.key}
        lifted = {line.key[0] for line in plot.roofs.lifted_item.lines if line.key}
        assert chips == {tpu.id} and lifted == {a100.id} and plot.roofs.lifted_item.moving
        # the dragged chip's roof labels are hidden (they would name the old value), the
        # other chip's stay
        shown = {c for lb in plot.scene.labels.roofs for c in lb.chips
                 if lb.text in {label.text for label in plot.roof_labels.labels}}
        assert model.comparison.chip_index[a100.id] not in shown
        assert any(model.comparison.chip_index[a100.id] in lb.chips
                   for lb in plot.scene.labels.roofs)  # it has labels, held and hidden
        # and so are its peaks' in the key; the other chip's stay
        keyed = {c for lb in plot.key.labels for c in lb.chips}
        assert model.comparison.chip_index[a100.id] not in keyed
        assert model.comparison.chip_index[tpu.id] in keyed
        if factor == 1.2:
            held = plot.roofs.item.lines, plot.scene.labels, plot.legend._entries
        else:  # the second step redrew neither the other chip's roofs, the labels nor the legend
            assert (plot.roofs.item.lines, plot.scene.labels, plot.legend._entries) == held
            assert plot.roofs.item.lines is held[0] and plot.scene.labels is held[1]
        # each workload's items keep the other chips' marks; the moving chip's are lifted
        mark = plot.scene.workloads[0]
        _entries, point, _label = plot.workloads._items[mark.workload_id]
        j = next(j for j, c in enumerate(plot.scene.chips)
                 if plot.scene.comparison.chips[c].id == a100.id)
        others = np.delete(mark.point_y, j)
        assert np.allclose(np.asarray(point.getData()[1]), np.log10(others[np.isfinite(others)]))
        assert np.log10(mark.point_y[j]) in np.asarray(plot.workloads.lifted_points.getData()[1])
        assert len(plot.workloads.lifted_entries.getData()[1]) == sum(
            int((np.isfinite(m.entry_y[:, j]) & np.isfinite(m.entry_x)).sum())
            for m in plot.scene.workloads) > 0
    signal.emit(("level", a100.id, dram), 0.0, float(np.log10(1.5 * a100.dram.bandwidth)), True,
                NONE)
    QApplication.processEvents()
    assert plot.lifted is None and not plot.roofs.lifted_item.lines
    # on release its labels come back, with the new value
    assert len(plot.roof_labels.labels) == len(plot.scene.labels.roofs)
    assert any("what-if" in lb.text or "HBM" in lb.text for lb in plot.roof_labels.labels)
    assert plot.key.labels == plot.scene.labels.key
    assert model.comparison.chip_index[a100.id] in {c for lb in plot.key.labels for c in lb.chips}
    mark = plot.scene.workloads[0]  # on release every chip's marks are the workload's again
    _entries, point, _label = plot.workloads._items[mark.workload_id]
    assert np.allclose(np.asarray(point.getData()[1]),
                       np.log10(mark.point_y[np.isfinite(mark.point_y)]))
    assert len(plot.workloads.lifted_points.getData()[0]) == 0
    assert len(plot.roofs.item.lines) == static_lines + 1  # and the A100's datasheet ghost
    assert chart_mismatches(plot) == []
    assert any("what-if" in entry[0] for entry in plot.legend.legend.entries)


def test_a_roof_drag_side_by_side_with_eight_chips_then_an_open_leaves_nothing_stale(window):
    """Side by side, eight chips: a roof drag's steps and its release draw exactly each small
    chart's scene; opening another session then leaves no marker, ring, path, name or roof of
    the one before, and every kernel in view."""
    from roofline_gui.widgets.app.file_actions import examples

    model, _plot = _session(window)
    presets = window.presets.chips
    model.add_chips([presets[i] for i in ("nvidia-h100-sxm5-80gb", "amd-instinct-mi300x",
                                          "google-tpu-v3", "google-tpu-v5e", "nvidia-v100-sxm2-16gb",
                                          "nvidia-l4", "intel-gaudi-2")])
    window.set_mode("side_by_side")
    QApplication.processEvents()
    canvas = window.canvas
    assert len(canvas.grid_plots) == 8
    chip = model.document.chips[0]
    plot = next(p for p in canvas.grid_plots
                if chip.id in {p.scene.comparison.chips[c].id for c in p.scene.chips})
    dram = chip.memory.index(chip.dram)
    signal = plot.roofs.item.sig_roof_dragged
    for factor, last in ((1.3, False), (1.6, False), (2.0, True)):
        signal.emit(("level", chip.id, dram), 0.0, float(np.log10(factor * chip.dram.bandwidth)),
                    last, NONE)
        QApplication.processEvents()
        for p in canvas.grid_plots:
            assert chart_mismatches(p) == [], (factor, p.scene.chips)
    model.undo_stack.setClean()  # no "discard changes?" question
    window.files.open(str(next(p for p in examples() if p.stem == "h100-vs-mi300x-llm")))
    QApplication.processEvents()
    for p in canvas.plots:
        assert chart_mismatches(p) == []
        (x0, x1), (y0, y1) = p.plot.getViewBox().viewRange()
        shown = 0
        for scatter in p.markers.scatters.values():
            xs, ys = scatter.getData()
            for x, y in zip(np.ravel(xs), np.ravel(ys), strict=True):
                if np.isfinite(x) and np.isfinite(y):  # every kernel in view
                    assert x0 <= x <= x1 and y0 <= y <= y1
                    shown += 1
        assert shown == len(model.document.kernels) * len(p.scene.chips)  # one chart, its chips
    window.set_mode("overlay")


def test_a_roof_drag_moves_many_markers_in_place_and_draws_them_where_the_scene_has_them(window):
    """Every memory-bound kernel of the dragged chip moves at each step: its markers move in
    place (no refill), the moving chip's items keep no cached image meanwhile, and each step's
    chart is exactly its scene; on release the caches are back."""
    from dataclasses import replace

    from PySide6.QtWidgets import QGraphicsItem

    model, plot = _session(window)
    gemv = window.presets.kernels["gemm-4k-bf16"]
    model.add_kernels([replace(gemv, id=f"g{n}", name=f"GEMV {n}", params={**gemv.params, "n": 1 + n})
                       for n in range(40)])
    model.add_chips([window.presets.chips["google-tpu-v3"]])
    QApplication.processEvents()
    a100, tpu = model.document.chips
    dram = a100.memory.index(a100.dram)
    signal = plot.roofs.item.sig_roof_dragged
    cached = QGraphicsItem.CacheMode.DeviceCoordinateCache
    for n, factor in enumerate((1.2, 1.5, 1.8)):
        signal.emit(("level", a100.id, dram), 0.0, float(np.log10(factor * a100.dram.bandwidth)),
                    False, NONE)
        QApplication.processEvents()
        scatter = plot.markers.scatters[a100.id]
        if n == 0:
            data = scatter.data
        assert scatter.data is data  # moved in place, not refilled
        assert scatter.cacheMode() == QGraphicsItem.CacheMode.NoCache
        assert plot.markers.scatters[tpu.id].cacheMode() == cached
        assert plot.roofs.lifted_item.cacheMode() == QGraphicsItem.CacheMode.NoCache
        assert chart_mismatches(plot) == []
    signal.emit(("level", a100.id, dram), 0.0, float(np.log10(2.0 * a100.dram.bandwidth)), True,
                NONE)
    QApplication.processEvents()
    assert chart_mismatches(plot) == []
    assert {s.cacheMode() for s in plot.markers.scatters.values()} == {cached}


def test_a_mouse_drag_side_by_side_moves_the_roof_to_the_pointer(window):
    """From the what-if tour: side by side, each drag step made the grid's charts anew and fit
    them again, so the chart under the pointer went away and the same pointer meant another
    value: the HBM roof ran off to 1e-31 B/s (and a peak to 1e+70, which a saved session then
    could not hold). Now the grid's charts are drawn again in place and hold still."""
    model, _plot = _session(window)
    model.add_chips([window.presets.chips["google-tpu-v3"]])
    window.set_mode("side_by_side")
    QApplication.processEvents()
    canvas = window.canvas
    a100 = model.document.chips[0]
    plot = next(p for p in canvas.grid_plots
                if a100.id in {p.scene.comparison.chips[c].id for c in p.scene.chips})
    vb, view = plot.plot.getViewBox(), canvas.grid

    def at(lx, ly):
        return QPointF(view.mapFromScene(vb.mapViewToScene(QPointF(lx, ly))))

    plots_before, steps = list(canvas.grid_plots), model.undo_stack.count()
    start = at(np.log10(4.0), np.log10(4.0 * 1.555e12))
    end = at(np.log10(4.0), np.log10(4.0 * 2 * 1.555e12))
    drag_mouse(view.viewport(), start, end)
    moved = model.document.chips[0]
    assert moved.dram.bandwidth == pytest.approx(2 * 1.555e12, rel=0.05)
    assert moved.dram.what_if_of == 1.555e12 and model.undo_stack.count() == steps + 1
    assert canvas.grid_plots == plots_before  # drawn again in place, not made anew
    assert all(chart_mismatches(p) == [] for p in canvas.grid_plots)


def test_ctrl_pressed_partway_moves_every_ceiling_by_the_same_factor(window):
    """From the what-if tour: Ctrl pressed during a drag left bf16 at 0.25x and every other
    ceiling at 0.58x. Every step is worked out from the chip the drag began on."""
    model, plot = _session(window)
    chip = model.document.chips[0]
    signal = plot.roofs.item.sig_roof_dragged
    dram = chip.memory.index(chip.dram)
    ctrl = Qt.KeyboardModifier.ControlModifier
    for factor, mods, last in ((1.5, NONE, False), (1.8, ctrl, False), (2.0, ctrl, True)):
        signal.emit(("level", chip.id, dram), 0.0, float(np.log10(factor * chip.dram.bandwidth)),
                    last, mods)
        QApplication.processEvents()
    moved = model.document.chips[0]
    assert moved.dram.bandwidth == pytest.approx(2 * chip.dram.bandwidth)
    for p, peak in chip.compute.items():
        assert moved.compute[p] == pytest.approx(2 * peak), p
    for before, after in zip(chip.memory, moved.memory, strict=True):
        assert after.bandwidth == pytest.approx(2 * before.bandwidth), before.name
    # and a pointer far off the chart keeps the value within 1,000x of the datasheet
    signal.emit(("level", chip.id, dram), 0.0, 400.0, True, NONE)
    QApplication.processEvents()
    assert model.document.chips[0].dram.bandwidth == pytest.approx(1000 * chip.dram.bandwidth)


def test_main_memory_dragged_past_an_on_chip_level_is_said_where_it_shows(window):
    """A tour dragged HBM to 19 TB/s above the A100's L2 and nothing said so: on release the
    status bar says the on-chip level is now the slower, and the explanation says it too."""
    from roofline_gui.core.explain import explain

    model, plot = _session(window)
    chip = model.document.chips[0]
    l2 = next(level for level in chip.memory if level.role == "cache" and level.name.startswith("L2"))
    said = []
    model.sig_status.connect(said.append)
    dram = next(i for i, level in enumerate(chip.memory) if level.role == "dram")
    lx = 0.0  # the slope at 1 op/B: the pointer's rate is the bandwidth
    plot.roofs.item.sig_roof_dragged.emit(("level", chip.id, dram), lx,
                                          float(np.log10(2 * l2.bandwidth)), True, NONE)
    moved = model.document.chips[0]
    assert moved.slower_than_main_memory() and l2.name in said[-1]
    assert "slower than main memory" in said[-1]
    assert any("slower than main memory" in line for line in explain(model.comparison, 0, 0))
    model.undo_stack.undo()
    assert not model.document.chips[0].slower_than_main_memory()
    assert not any("slower than main memory" in line for line in explain(model.comparison, 0, 0))
