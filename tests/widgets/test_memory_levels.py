"""View → Memory levels (the hierarchical roofline): a kernel that moves bytes through several
levels gets a point at each level's intensity, at its attainable rate; the limiting level's
point is filled and lies on that level's roof, the others are hollow and under their roofs. In
overlay and side by side, in ops and MACs, with datasheet and achievable roofs."""

import numpy as np
import pytest
from helpers import chart_mismatches
from PySide6.QtWidgets import QApplication

from roofline_gui.core.document import Document
from roofline_gui.core.units import MEMORY_ROLES


def _session(window):
    model, presets = window.model, window.presets
    model.reset(Document())
    model.add_chips([presets.chips[i] for i in ("nvidia-a100-sxm4-40gb", "google-tpu-v1",
                                                  "nvidia-h100-sxm5-80gb")])
    add = presets.kernels["add-int8"]
    model.add_kernels([add.with_params(n=1e7).with_resides({"a": "cache", "b": "cache"}),
                       presets.kernels["gemm-4k-bf16-host"], presets.kernels["gemm-4k-tf32-l2"],
                       presets.kernels["cnn-int8-tpu"], presets.kernels["mlp-bf16-b1"]])
    QApplication.processEvents()


def _level_roof(chip, role, derated):
    levels = [lv for lv in chip.memory if lv.role == role]
    bw = [lv.bandwidth * (lv.applied_fraction if derated else 1.0) for lv in levels]
    return min(bw)  # levels of one role carry the same bytes: the slowest limits


@pytest.mark.parametrize("mode", ["overlay", "side_by_side"])
@pytest.mark.parametrize("mac", [False, True])
@pytest.mark.parametrize("derated", [False, True])
def test_each_level_point_sits_on_or_under_its_roof_and_the_limiting_one_on_it(window, mode, mac,
                                                                                derated):
    _session(window)
    window.model.set_view(mode=mode, mac=mac, derated=derated, memory_levels=True)
    QApplication.processEvents()
    cmp = window.model.comparison
    plots = window.canvas.plots
    seen_filled = seen_hollow = 0
    for plot in plots:
        assert chart_mismatches(plot) == []
        units = plot.scene.spec.units
        x, y, data = plot.levels.spots()
        for (k, c, role), lx, ly in zip(data, x, y, strict=True):
            intensity, rate = units.ops_per_unit * 10 ** lx, units.ops_per_unit * 10 ** ly
            role_name = MEMORY_ROLES[role]
            ka = cmp.kernel_arrays
            assert intensity == pytest.approx(ka.ops[k] / ka.bytes[k, role])
            assert rate == pytest.approx(cmp.result.attainable[k, c])
            roof = intensity * _level_roof(cmp.chips[c], role_name, derated)
            filled = cmp.limiter_name(k, c) in [lv.name for lv in cmp.chips[c].memory
                                                 if lv.role == role_name]
            color = plot.levels.brush_of((k, c, role))
            if filled:
                assert rate == pytest.approx(roof), (cmp.kernels[k].name, role_name)
                assert color.name() == plot.scene.comparison.chips[c].color.lower()
                seen_filled += 1
            else:
                assert rate <= roof * (1 + 1e-9)
                assert color.name() == "#ffffff"
                seen_hollow += 1
    assert seen_filled and seen_hollow
    # the axis says what x is now (side by side, the grid's one x title does)
    shown = (window.canvas._grid_titles[1].text if mode == "side_by_side"
             else plots[0].plot.getAxis("bottom").labelText)
    assert "each memory level" in shown  # whole or narrow


def test_main_memory_only_has_points_only_where_another_level_holds_and_the_cnn_on_its_roof(
        window):
    """Memory levels off: the classic chart, each kernel at its main-memory intensity; only a
    kernel another level holds (the GEMM fed over PCIe) keeps two points, its filled one on that
    level's line and a hollow one at main memory (drawn alone it sat below every roof)."""
    _session(window)
    window.model.set_view(mode="overlay", memory_levels=False)
    QApplication.processEvents()
    plot = window.canvas.overlay_plot
    assert chart_mismatches(plot) == []
    cmp = window.model.comparison
    marks = plot.scene.spec.levels
    held = {(int(k), int(c)) for k, c in zip(marks.kernel, marks.chip, strict=True)}
    assert held and all(cmp.chips[c].memory[int(cmp.result.limiter[k, c])].role
                        not in ("dram",) for k, c in held)
    assert len(marks) == 2 * len(held) and marks.filled.sum() == len(held)
    assert len(plot.levels.spots()[0]) == len(marks)
    k = next(i for i, kernel in enumerate(cmp.kernels) if kernel.template == "conv2d")
    c = next(i for i, chip in enumerate(cmp.chips) if chip.name == "TPU v1")
    assert cmp.limiter_name(k, c) == "int8 peak" and cmp.result.attainable[k, c] == 92e12
    assert np.isclose(cmp.dram_intensity[k], 2 * 4 * 28 * 28)  # ops per weight byte: 6,272


def test_switching_memory_levels_says_what_it_changed_on_the_chart(window):
    """The 36th tour switched Memory levels off on the classic example, saw the same chart (no
    kernel there moves bytes through a level besides main memory and its limit) and took the
    switch for broken: the status bar says what it added or took away, or that nothing."""
    from roofline_gui.widgets.app.file_actions import examples

    def points():
        QApplication.processEvents()
        window.canvas.overlay_plot.finish_pending()
        return len(window.canvas.overlay_plot.scene.spec.levels)

    window.files.open_example(next(p for p in examples() if p.stem == "a100-vs-tpu-v3"))
    window.set_mode("overlay")
    window.set_memory_levels(True)
    on = points()
    window.set_memory_levels(False)
    assert points() == on
    assert "the chart is the same on and off" in window.statusBar().currentMessage()
    _session(window)  # kernels kept on chip: their cache points come and go
    window.set_memory_levels(True)
    on = points()
    window.set_memory_levels(False)
    fewer = on - points()
    assert fewer > 0
    assert window.statusBar().currentMessage().startswith(f"Memory levels off: {fewer} points fewer")
    window.set_memory_levels(True)
    assert points() == on
    assert window.statusBar().currentMessage().startswith(f"Memory levels on: {fewer} more points")


@pytest.mark.parametrize("levels", [False, True])
def test_the_ring_and_the_name_of_a_gemm_fed_over_pcie_mark_its_filled_point(window, levels):
    """The selected GEMM fed over PCIe: the bold ring is round its filled point on the PCIe
    line (what limits it), not its hollow one at main memory's intensity, and its name is by
    that point too (the tour found the ring on the hollow point), Memory levels on or off."""
    _session(window)
    window.model.set_view(mode="overlay", memory_levels=levels)
    cmp = window.model.comparison
    k = 1  # _session's second kernel: gemm-4k-bf16-host
    c = next(i for i, chip in enumerate(cmp.chips) if chip.name.startswith("A100"))
    assert cmp.chips[c].memory[int(cmp.result.limiter[k, c])].role == "host"
    window.model.select(cmp.kernels[k].id, cmp.chips[c].id)
    QApplication.processEvents()
    plot = window.canvas.overlay_plot
    assert chart_mismatches(plot) == []
    marks = plot.scene.spec.levels
    filled = (marks.kernel == k) & (marks.chip == c) & marks.filled
    hollow = (marks.kernel == k) & (marks.chip == c) & ~marks.filled
    assert filled.sum() == 1 and hollow.any()
    x_limit = np.log10(marks.x[filled][0])
    assert not np.isclose(x_limit, np.log10(plot.scene.spec.marker_x[k]))  # two spots apart
    ring = plot.overlays.ring.points()
    bold = [p for p in ring if p.pen().widthF() == 3]
    assert len(bold) == 1 and np.isclose(bold[0].pos().x(), x_limit)
    assert not any(np.isclose(p.pos().x(), np.log10(marks.x[hollow][0])) for p in bold)
    name = next(lb for lb in plot.scene.labels.names if lb.item == k)
    assert np.isclose(name.x, x_limit)


def test_dragging_the_tpu_cnn_past_what_its_buffer_holds_says_so(window, qtbot):
    """The CNN layer's activations fit the 24 MiB Unified Buffer up to batch 62: a drag past
    that goes on (the bound assumes they fit) and the status bar says they no longer do."""
    model, presets = window.model, window.presets
    model.reset(Document())
    model.add_chips([presets.chips["google-tpu-v1"]])
    (kid,) = model.add_kernels([presets.kernels["cnn-int8-tpu"]])
    chip = model.document.chips[0].id
    said = []
    model.sig_status.connect(said.append)
    window.canvas._on_marker_dragged(kid, chip, 6272 * 10, False)  # to about batch 40: fits
    assert 30 < model.document.kernel(kid).params["batch"] <= 62 and said == []
    window.canvas._on_marker_dragged(kid, chip, 6272 * 25, True)  # batch 100: it does not
    assert model.document.kernel(kid).params["batch"] > 62
    assert said and "do not fit in TPU v1's Unified Buffer (24 MiB)" in said[-1]


def test_a_kernel_whose_on_chip_operands_do_not_fit_is_hollow_and_its_cell_says_so(window):
    from PySide6.QtCore import Qt

    model, presets = window.model, window.presets
    model.reset(Document())
    model.add_chips([presets.chips[i] for i in ("google-tpu-v1", "google-tpu-v3")])
    (kid,) = model.add_kernels([presets.kernels["cnn-int8-tpu"].with_params(batch=100)])
    QApplication.processEvents()
    plot, cmp = window.canvas.overlay_plot, model.comparison
    # batch 100 does not fit TPU v1's 24 MiB buffer; TPU v3 has no on-chip level here (and no
    # int8: unsupported, so nothing is drawn for it)
    assert plot.scene.spec.misfits.tolist() == [[0, 0], [0, 1]]
    x, y = plot.overlays.misfit.getData()
    assert len(x) == 1 and plot.overlays.misfit.data["brush"][0].color().name() == "#ffffff"
    # struck through, so it does not read as a level's hollow point (not the limiting level)
    np.testing.assert_array_equal(plot.overlays.misfit_strike.getData()[0], x)
    assert np.isclose(10 ** x[0], cmp.dram_intensity[0])
    assert np.isclose(10 ** y[0], cmp.result.attainable[0, 0])
    table = window.table.table_model
    texts = [str(table.index(0, col).data(Qt.ItemDataRole.DisplayRole))
             for col in range(table.columnCount())]
    assert any("int8 peak (compute) · does not fit on chip" in t for t in texts)
    fits = model.document.kernel(kid).with_params(batch=8)
    from roofline_gui.core.edits import Replace

    model.push(Replace("kernels", fits), "batch 8")
    QApplication.processEvents()
    assert plot.scene.spec.misfits.tolist() == [[0, 1]] and len(plot.overlays.misfit.getData()[0]) == 0
    assert len(plot.overlays.misfit_strike.getData()[0]) == 0


def test_a_chip_with_no_on_chip_level_is_said_to_have_none_not_that_it_does_not_fit(window):
    """The sixth tour read "does not fit on chip" of the V100 and the B200, which have no on-chip
    level in their presets: their cell, the marker's tip and the legend say what is so."""
    from PySide6.QtCore import Qt

    from roofline_gui.widgets.chart.layers.legend import MISFIT_LEGEND

    model, presets = window.model, window.presets
    model.reset(Document())
    model.add_chips([presets.chips[i] for i in ("google-tpu-v1", "nvidia-b200")])
    (kid,) = model.add_kernels([presets.kernels["cnn-int8-tpu"].with_params(batch=8)])
    QApplication.processEvents()
    plot = window.canvas.overlay_plot
    assert plot.scene.spec.misfits.tolist() == [[0, 1]]  # fits TPU v1's buffer; B200 has none
    table = window.table.table_model
    texts = [str(table.index(0, col).data(Qt.ItemDataRole.DisplayRole))
             for col in range(table.columnCount())]
    assert any(t.endswith("· no on-chip level") for t in texts), texts
    assert not any("does not fit on chip" in t for t in texts)
    tip = plot.overlays._misfit_tip(0, 0, (0, 1))
    assert tip.startswith(f"{model.document.kernel(kid).name} on B200: no on-chip level")
    assert "has no on-chip level in this session" in tip
    assert "cannot hold it" in MISFIT_LEGEND


def test_the_wheel_scrolls_the_form_past_an_operand_choice_without_changing_it(window, qtbot):
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent

    model = window.model
    model.reset(Document())
    model.add_chips([window.presets.chips["nvidia-a100-sxm4-40gb"]])
    (kid,) = model.add_kernels([window.presets.kernels["add-int8"]])
    model.select(kid, None)
    combo = window.kernels.form.places.combos["out"]
    event = QWheelEvent(QPointF(5, 5), QPointF(5, 5), QPoint(0, 0), QPoint(0, -120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(combo, event)
    assert combo.currentData() == "dram" and model.document.kernel(kid).resides == {}


def test_the_wheel_scrolls_past_the_kernels_precision_and_the_workloads_fields(window, qtbot):
    """A tour's wheel over the kernel form turned its precision from int8 to int4, unnoticed:
    the precision, the stored-as and the workload's spin boxes take the wheel only once
    clicked into, as the operand choices do."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent

    from roofline_gui.io.workloads import shipped_workloads

    def wheel(widget):
        event = QWheelEvent(QPointF(5, 5), QPointF(5, 5), QPoint(0, 0), QPoint(0, -120),
                            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                            Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(widget, event)

    model = window.model
    (kid,) = model.add_kernels([window.presets.kernels["add-int8"]])
    model.select(kid, None)
    form = window.kernels.form
    for combo in (form.precision, form.storage, window.precision_combo):
        before = combo.currentIndex()
        wheel(combo)
        assert combo.currentIndex() == before
    assert model.document.kernel(kid).precision == "int8"
    wid, = model.add_workloads([shipped_workloads()["llama-3-8b"].workload("w1")])
    model.select(wid, None)
    spin = window.workloads.fields.spins["batch"]
    before = spin.value()
    wheel(spin)
    assert spin.value() == before and model.document.workload(wid).batch == before


def test_a_copys_points_per_level_lie_nested_on_the_originals(window):
    """A what-if copy of a chip puts its points per level on the original's: its host-link
    triangles had hidden TPU v3's exactly, where the kernels' markers were nested (the 37th
    tour). Each point drawn over another on the same spot is smaller, the one beneath a ring
    round it."""
    from dataclasses import replace

    _session(window)
    window.model.set_view(mode="overlay", memory_levels=True)
    h100 = next(chip for chip in window.model.document.chips if chip.name.startswith("H100"))
    (copy,) = window.model.add_chips([replace(h100, name="H100 what-if")])
    QApplication.processEvents()
    plot = window.canvas.overlay_plot
    assert chart_mismatches(plot) == []
    cmp = window.model.comparison
    c0, c1 = cmp.chip_index[h100.id], cmp.chip_index[copy]
    xs, ys, data = plot.levels.spots()
    sizes = np.broadcast_to(plot.levels.points.data["size"], len(data))
    pairs = 0
    for i, (k, c, role) in enumerate(data):
        if c != c1:
            continue
        j = data.index((k, c0, role))
        assert (xs[i], ys[i]) == (xs[j], ys[j])
        assert sizes[i] < sizes[j], (cmp.kernels[k].name, role, sizes[i], sizes[j])
        pairs += 1
    assert pairs >= 3  # the GEMM over PCIe's host and main-memory points among them
    assert any(cmp.chips[c0].memory[int(cmp.result.limiter[k, c0])].role == "host"
               for k, _c, _r in data if _c == c0)
