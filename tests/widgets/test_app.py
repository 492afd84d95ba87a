"""The real widgets driven offscreen, as a user would drive them."""

from dataclasses import replace

import numpy as np
import pytest
from helpers import chart_mismatches, drag_mouse, drop_on
from PySide6.QtCore import QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication

from roofline_gui.core.comparison import compare
from roofline_gui.core.edits import Replace
from roofline_gui.core.units import format_si
from roofline_gui.io.session import load_session
from roofline_gui.widgets.chart.pg_private import atlas_entries, max_spot_width
from roofline_gui.widgets.common.dialogs import ChipPresetDialog


def roof_ys(window, chip_color):
    """The y data (log10 op/s) of every roof line drawn for the chip with ``chip_color``."""
    plot = window.canvas.overlay_plot
    return [tuple(np.round(line.y, 6)) for line in plot.roofs.item.lines
            if QColor(line.pen.color()).name() == chip_color and "roof" in line.tip]


def test_add_a_chip_from_the_presets(window, monkeypatch):
    monkeypatch.setattr(ChipPresetDialog, "ask", classmethod(lambda cls, presets, parent=None, in_session=():
                                                            ["nvidia-h100-sxm5-80gb"]))
    window.hardware.add_from_presets()
    names = [c.name for c in window.model.document.chips]
    assert names[-1] == "H100 SXM5 80GB"
    assert window.hardware.list_model.rowCount() == 3
    assert window.model.selected_chip == window.model.document.chips[-1].id
    assert len(window.canvas.overlay_plot.markers.scatters) == 3


def test_preset_dialog_searches_by_name_and_vendor(qtbot):
    from roofline_gui.io.presets import default_presets

    dialog = ChipPresetDialog(default_presets())
    qtbot.addWidget(dialog)
    dialog.search.setText("google")
    assert dialog.proxy.rowCount() == 8  # TPU v1, v2, v3, v4, v5e, v5p, v6e, v7
    dialog.search.setText("h100")
    assert dialog.proxy.rowCount() == 2
    # the highlighted match, which Enter takes, is one the session does not hold yet (the
    # second tour's Enter would have added its V100 again)
    presets = default_presets()
    v100 = presets.chips["nvidia-v100-sxm2-16gb"]
    dialog = ChipPresetDialog(presets, in_session={v100.name})
    qtbot.addWidget(dialog)
    dialog.search.setText("v100")
    assert dialog.proxy.rowCount() >= 2
    assert dialog.selected_ids() != ["nvidia-v100-sxm2-16gb"]
    assert "(in this session)" not in dialog.view.currentIndex().data()


def test_edit_a_bandwidth_and_see_the_roof_move(window, qtbot):
    chip = window.model.document.chips[0]
    before = roof_ys(window, chip.color)
    form = window.hardware.form
    dram_row = next(i for i, lv in enumerate(chip.memory) if lv.role == "dram")
    field = form.level_fields[dram_row]["bandwidth"]
    field.setText("2 TB/s")
    field.editingFinished.emit()
    assert window.model.document.chips[0].dram.bandwidth == 2e12
    after = roof_ys(window, chip.color)
    assert before != after
    # The int8 add is memory-bound: it now runs at 2e12 / 3 op/s.
    assert window.model.comparison.result.attainable[0, 0] == pytest.approx(2e12 / 3)
    assert window.model.undo_stack.undoText().startswith("Set A100 SXM4 40GB HBM2 bandwidth")


def test_invalid_input_is_refused_in_place_and_never_stored(window):
    before = window.model.document
    field = window.hardware.form.compute_fields["bf16"]
    for bad in ("fast", "-5 TFLOPS", "1.5 TB/s", "nan"):
        field.setText(bad)
        field.editingFinished.emit()
        assert field.error, bad
        assert window.model.document == before
    field.setText("300T")
    field.editingFinished.emit()
    assert field.error == ""
    assert window.model.document.chips[0].compute["bf16"] == 300e12


def test_drag_a_kernel_from_the_library_onto_the_canvas(window, qtbot):
    library = window.kernels
    preset_model = library.preset_model
    index = preset_model.index_of("spmv-fp64")
    mime = preset_model.mimeData([index])
    n = len(window.model.document.kernels)
    view = window.canvas.overlay.viewport()
    assert drop_on(view, mime, QPointF(200, 150))
    assert len(window.model.document.kernels) == n + 1
    assert window.model.document.kernels[-1].preset == "spmv-fp64"
    assert window.model.selected_kernel == window.model.document.kernels[-1].id
    # ... and onto the comparison table
    assert drop_on(window.table.view.viewport(), mime, QPointF(40, 40))
    assert len(window.model.document.kernels) == n + 2


def _marker_viewport_pos(window, kernel_id, chip_index=0):
    cmp = window.model.comparison
    k = [kk.id for kk in cmp.kernels].index(kernel_id)
    x = np.log10(cmp.dram_intensity[k])
    y = np.log10(cmp.result.attainable[k, chip_index])
    vb = window.canvas.overlay_plot.plot.getViewBox()
    scene = vb.mapViewToScene(QPointF(x, y))
    return QPointF(window.canvas.overlay.mapFromScene(scene)), vb


def test_drag_a_marker_and_see_the_batch_and_table_change(window, qtbot):
    model = window.model
    kernel = next(k for k in model.document.kernels if k.template == "mlp" and k.params["batch"] == 1)
    start, vb = _marker_viewport_pos(window, kernel.id)
    # Target: one decade to the right in intensity (batch ~1 -> ~10).
    end_scene = vb.mapViewToScene(QPointF(np.log10(10.0), np.log10(1e13)))
    end = QPointF(window.canvas.overlay.mapFromScene(end_scene))
    row = [k.id for k in model.document.kernels].index(kernel.id)
    table = window.table.table_model
    attainable_col = next(c for c in range(table.columnCount()) if table.locate(c) == (0, "attainable"))
    cell_before = table.index(row, attainable_col).data()
    drag_mouse(window.canvas.overlay.viewport(), start, end)
    batch = model.document.kernel(kernel.id).params["batch"]
    assert 8 <= batch <= 12
    assert table.index(row, attainable_col).data() != cell_before
    assert model.undo_stack.count() == 1  # the whole drag is one undo step
    assert "batch B" in model.undo_stack.undoText()
    assert window.canvas._lifted is None  # the drag finished and the kernel went back


def test_undo_everything_back_to_the_first_document(window, monkeypatch):
    first = window.model.document
    monkeypatch.setattr(ChipPresetDialog, "ask",
                        classmethod(lambda cls, p, parent=None, in_session=(): ["google-tpu-v5e"]))
    window.hardware.add_from_presets()
    window.hardware.form.compute_fields["bf16"].setText("200T")
    window.hardware.form.compute_fields["bf16"].editingFinished.emit()
    window.model.move_kernel_to_intensity(window.model.document.kernels[2].id, 50.0, ("drag", 9))
    window.set_mac_units(True)
    window.kernels.delete()
    window.hardware.move(-1)
    assert window.model.document != first
    while window.model.undo_stack.canUndo():
        window.model.undo_stack.undo()
    assert window.model.document == first


def test_save_and_reload_an_identical_document(window, tmp_path, monkeypatch):
    from roofline_gui.widgets.app.file_actions import FileDialogs

    window.model.move_kernel_to_intensity(window.model.document.kernels[2].id, 20.0)
    path = tmp_path / "mine.roofline"
    monkeypatch.setattr(FileDialogs, "save_path", classmethod(lambda cls, *a, **k: str(path)))
    assert window.files.save()
    assert window.model.undo_stack.isClean()
    assert "mine.roofline" in window.windowTitle()
    assert load_session(path) == window.model.document
    assert str(path.resolve()) in window.settings.recent_files()


def test_export_a_png_and_check_its_pixels(window, tmp_path, monkeypatch):
    from roofline_gui.widgets.app.file_actions import FileDialogs

    out = tmp_path / "chart.png"
    monkeypatch.setattr(FileDialogs, "save_path", classmethod(lambda cls, *a, **k: str(out)))
    monkeypatch.setattr(FileDialogs, "png_width", classmethod(lambda cls, *a, **k: 1200))
    assert window.files.export_png()
    image = QImage(str(out))
    assert image.width() == 1200
    colors = {QColor(image.pixel(x, y)).name() for x in range(0, 1200, 3)
              for y in range(0, image.height(), 3)}
    for chip in window.model.document.chips:  # both chips' roofs and markers are drawn
        assert chip.color in colors


def test_vector_exports_are_valid_files(window, tmp_path, monkeypatch):
    from roofline_gui.widgets.app.file_actions import FileDialogs

    for name, action in (("c.svg", window.files.export_svg), ("c.pdf", window.files.export_pdf)):
        target = tmp_path / name
        monkeypatch.setattr(FileDialogs, "save_path", classmethod(lambda cls, *a, t=target, **k: str(t)))
        assert action()
        head = target.read_bytes()[:200]
        assert (b"<svg" in head or b"<?xml" in head) if name.endswith("svg") else head.startswith(b"%PDF")
        if name.endswith("svg"):
            text = target.read_text()
            assert "HBM2" in text and "TPU v3" in text  # labels and legend as text
            assert "<image" not in text  # roofs and markers as vector shapes, not bitmaps


def test_compare_two_chips_and_check_a_speedup_cell_against_the_core(window):
    doc = window.model.document
    table = window.table.table_model
    cmp = compare(doc.kernels, doc.chips)
    k = next(i for i, kk in enumerate(doc.kernels) if kk.name.startswith("MLP layer 4096×4096, batch 1"))
    speedup_col = next(c for c in range(table.columnCount())
                       if table.locate(c) == (1, "speedup"))
    expected = cmp.result.attainable[k, 1] / cmp.result.attainable[k, 0]
    assert expected == pytest.approx(900e9 / 1.555e12, rel=1e-3)  # both on HBM: bandwidth ratio
    assert table.index(k, speedup_col).data() == f"{expected:.3g}×"
    # Switching the baseline flips the ratio.
    window.table._on_baseline_chosen(1)
    speedup_a100 = next(c for c in range(table.columnCount()) if table.locate(c) == (0, "speedup"))
    assert table.index(k, speedup_a100).data() == f"{1 / expected:.3g}×"


def test_side_by_side_mode_draws_one_linked_plot_per_chip(window):
    window.set_mode("side_by_side")
    plots = window.canvas.grid_plots
    assert len(plots) == 2
    first, second = plots[0].plot, plots[1].plot
    assert second.getViewBox().linkedView(0) is first.getViewBox()
    window.model.push(__import__("roofline_gui.core.edits", fromlist=["Replace"]).Replace(
        "chips", replace(window.model.document.chips[1], visible=False)), "hide")
    assert len(window.canvas.grid_plots) == 1


def test_selection_follows_clicks_in_the_table_and_the_explanation_explains(window):
    table = window.table
    source = table.table_model
    col = next(c for c in range(source.columnCount()) if source.locate(c) == (0, "attainable"))
    table._on_clicked(source.index(0, col))
    assert window.model.selected_kernel == window.model.document.kernels[0].id
    text = window.explanation.plain_text()
    assert "memory-bound on HBM2" in text
    assert "518.3 Gop/s" in text and "0.083%" in text and "1,204×" in text
    assert "int4" in text  # packing the data as int4 would halve the bytes


def test_precision_switch_changes_the_roof_and_the_bytes(window):
    model = window.model
    kernel = model.document.kernels[2]  # MLP batch 1, bf16
    window.kernels.form.show_kernel(kernel.id)
    combo = window.kernels.form.precision
    combo.setCurrentIndex(combo.findData("fp32"))
    combo.activated.emit(combo.currentIndex())
    changed = model.document.kernel(kernel.id)
    assert changed.precision == "fp32"
    assert changed.traffic().bytes["dram"] == pytest.approx(2 * kernel.traffic().bytes["dram"])


def test_mac_unit_switch_halves_the_numbers_shown(window):
    table = window.table.table_model
    col = next(c for c in range(table.columnCount()) if table.locate(c) == (0, "attainable"))
    assert table.index(0, col).data() == "518.3 Gop/s"
    window.set_mac_units(True)
    assert table.index(0, col).data() == "259.2 GMAC/s"
    assert "MAC/s" in window.canvas.overlay_plot.plot.getAxis("left").labelText


def test_kernel_names_are_shown_as_text_not_markup(window):
    kernel = window.model.document.kernels[0]
    window.model.push(__import__("roofline_gui.core.edits", fromlist=["Replace"]).Replace(
        "kernels", replace(kernel, name="<b>x</b>")), "rename")
    window.model.select(kernel.id, window.model.document.chips[0].id)
    assert "<b>x</b>" in window.explanation.plain_text()


def test_title_shows_the_file_and_an_unsaved_mark(window):
    assert not window.isWindowModified()
    window.model.move_kernel_to_intensity(window.model.document.kernels[2].id, 30.0)
    assert window.isWindowModified()
    # An unsaved session goes by its title (the example's), else "Untitled".
    assert window.windowTitle().startswith(f"{window.model.document.title or 'Untitled'}[*]")


def test_closing_with_unsaved_work_asks_first(window, monkeypatch):
    from roofline_gui.widgets.common.dialogs import Confirm

    window.model.move_kernel_to_intensity(window.model.document.kernels[2].id, 30.0)
    asked = []
    monkeypatch.setattr(Confirm, "unsaved_changes",
                        classmethod(lambda cls, parent, name: asked.append(name) or "cancel"))
    assert not window.close()
    assert asked == [window.model.document.title]  # the unsaved example goes by its title
    assert window.isVisible()


def test_opening_a_bad_file_keeps_the_current_session(window, tmp_path, monkeypatch):
    from roofline_gui.widgets.common.dialogs import Confirm

    bad = tmp_path / "bad.roofline"
    bad.write_text('{"format": "roofline-session", "version": 1, "chips": [{"name": 3}]}')
    errors = []
    monkeypatch.setattr(Confirm, "error", classmethod(lambda cls, parent, title, msg: errors.append(msg)))
    before = window.model.document
    assert not window.files.open(bad)
    assert window.model.document is before
    assert "chips[0].name" in errors[0]


def test_table_sorts_by_a_chip_column_and_keeps_rows_in_place_while_values_change(window):
    from PySide6.QtCore import Qt

    from roofline_gui.models.item_models import ID_ROLE

    table = window.table.table_model
    view = window.table.view
    cmp = window.model.comparison
    col = next(c for c in range(table.columnCount()) if table.locate(c) == (0, "attainable"))
    assert [table.index(r, 0).data(ID_ROLE) for r in range(table.rowCount())] == [
        k.id for k in window.model.document.kernels]  # document order until asked
    view.sortByColumn(col, Qt.SortOrder.DescendingOrder)
    ids = [table.index(r, 0).data(ID_ROLE) for r in range(table.rowCount())]
    values = [cmp.result.attainable[cmp.kernel_index[i], 0] for i in ids]
    finite = [v for v in values if np.isfinite(v)]
    assert finite == sorted(finite, reverse=True) and len(finite) >= 3
    assert values[len(finite):] == [] or not np.isfinite(values[-1])  # unsupported last
    # Each displayed cell belongs to the kernel in its own row.
    top = cmp.kernel_index[ids[0]]
    assert table.index(0, 0).data() == cmp.kernels[top].name
    # Clicking a sorted row selects that row's kernel.
    window.table._on_clicked(table.index(1, col))
    assert window.model.selected_kernel == ids[1]
    # An edit changes values but not the order; the edited kernel's row shows the new value.
    bottom = ids[-1]
    window.model.push(__import__("roofline_gui.core.edits", fromlist=["Rename"]).SetField(
        "title", "renamed"), "title")
    assert [table.index(r, 0).data(ID_ROLE) for r in range(table.rowCount())] == ids
    assert table.index(table.rowCount() - 1, 0).data(ID_ROLE) == bottom
    view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    names = [table.index(r, 0).data() for r in range(table.rowCount())]
    assert names == sorted(names, key=str.casefold)


def test_roof_layer_tooltips_name_the_nearest_ridge_or_line(window):
    plot = window.canvas.overlay_plot
    layer = plot.roofs.item
    a100 = window.model.document.chips[0]
    ridge = next(d for d in layer.dots if d.tip.startswith(f"{a100.name} bf16 ridge"))
    assert "200.6 op/B" in ridge.tip  # 312 T / 1.555 TB/s
    assert layer.tip_at(QPointF(ridge.x, ridge.y)) == ridge.tip
    # A point on the PCIe diagonal, half a decade left of its top end, away from other lines.
    host = next(line for line in layer.lines if "PCIe" in line.tip and a100.name in line.tip)
    x = (host.x[0] + host.x[1]) / 2
    y = host.y[0] + (x - host.x[0]) * (host.y[1] - host.y[0]) / (host.x[1] - host.x[0])
    assert layer.tip_at(QPointF(x, y)) == host.tip
    assert "32 GB/s" in host.tip
    assert layer.tip_at(QPointF(x + 1.5, y - 1.5)) == ""  # far from everything
    # A line drawn on another (a what-if roof over its datasheet ghost): both are named.
    layer.add_line(host.x.copy(), host.y.copy(), host.pen, "the datasheet's PCIe, before the what-if")
    layer.finish()
    assert layer.tip_at(QPointF(x, y)) == f"{host.tip}\n\nthe datasheet's PCIe, before the what-if"


def test_a_chips_main_memory_slope_has_one_tooltip_for_all_its_roofs(window):
    """The A100's roofs (int8, bf16 here) share their HBM2 slope: hovered there, the tooltip
    was three near-identical paragraphs (the twenty-second tour); it is one, naming the
    bandwidth and every precision's peak. On a flat part, that roof alone."""
    plot = window.canvas.overlay_plot
    layer = plot.roofs.item
    a100 = window.model.document.chips[0]
    roofs = [line for line in layer.lines if line.tip.startswith(f"{a100.name} ")
             and " roof: " in line.tip and line.slope_tip]
    assert len(roofs) >= 2
    low = min(roofs, key=lambda line: line.slope_until)  # the slope they all share, left of
    x = low.slope_until - 0.5  # the lowest ridge
    y = float(np.interp(x, low.x, low.y))
    tip = layer.tip_at(QPointF(x, y))
    assert tip.count(f"{a100.name} main-memory roof") == 1 and "\n\n" not in tip
    assert "1.555 TB/s" in tip and all(p in tip for p in ("int8 624 Top/s", "bf16 312 Top/s"))
    bf16 = next(line for line in roofs if " bf16 roof" in line.tip)
    flat = QPointF(bf16.slope_until + 0.5, float(bf16.y[-1]))
    assert layer.tip_at(flat).startswith(f"{a100.name} bf16 roof: 312 Top/s")


def test_selected_kernel_shows_its_sweep_path_on_every_chip_also_while_dragged(window):
    model, plot = window.model, window.canvas.overlay_plot
    kernel = next(k for k in model.document.kernels if k.template == "mlp")
    model.select(kernel.id, None)
    cmp = model.comparison
    k = cmp.kernel_index[kernel.id]
    assert len(plot.paths.lines) == 2  # one per chip
    x_k = np.log10(cmp.dram_intensity[k])
    for line, c in zip(plot.paths.lines, (0, 1), strict=True):
        assert kernel.name in line.tip
        assert np.all(np.diff(line.x) > 0)  # intensity grows with the batch
        # The kernel's own marker lies on its path.
        assert np.interp(x_k, line.x, line.y) == pytest.approx(
            np.log10(cmp.result.attainable[k, c]), abs=0.02)
    # The path runs along the A100's main-memory roof: hovering it there names both.
    on_both = QPointF(x_k, float(np.interp(x_k, plot.paths.lines[0].x, plot.paths.lines[0].y)))
    roof_tip = plot.roofs.item.tip_at(on_both)
    assert "A100" in roof_tip and kernel.name not in roof_tip
    tip = plot.paths.hover_tip(on_both)
    assert kernel.name in tip and roof_tip in tip
    paths = [(line.x.copy(), line.y.copy()) for line in plot.paths.lines]
    window.canvas._on_marker_dragged(kernel.id, model.document.chips[0].id, 50.0, False)
    assert len(plot.paths.lines) == len(paths)
    for line, (x, y) in zip(plot.paths.lines, paths, strict=True):  # the route stays put
        np.testing.assert_array_equal(line.x, x)
        np.testing.assert_array_equal(line.y, y)
    assert plot.lifted == kernel.id
    window.canvas._on_marker_dragged(kernel.id, model.document.chips[0].id, 60.0, True)
    assert len(plot.paths.lines) == 2


def test_drag_end_moves_the_kernels_spots_in_place_to_where_a_full_redraw_puts_them(window):
    model, canvas = window.model, window.canvas
    plot = canvas.overlay_plot
    kernel = next(k for k in model.document.kernels if k.template == "mlp")
    chip_id = model.document.chips[0].id
    before = {cid: s.data.copy() for cid, s in plot.markers.scatters.items()}
    canvas._on_marker_dragged(kernel.id, chip_id, 30.0, False)
    canvas._on_marker_dragged(kernel.id, chip_id, 40.0, True)
    moved = {cid: (s.data["x"].copy(), s.data["y"].copy(), list(s.data["data"]))
             for cid, s in plot.markers.scatters.items()}
    assert all(plot.markers.scatters[cid].data is not None for cid in moved)
    assert chart_mismatches(plot) == []  # every item where the scene has it
    for cid in plot.markers.scatters:
        x, y, ids = moved[cid]
        i = ids.index(kernel.id)
        assert x[i] != before[cid]["x"][i]  # it did move
        others = np.arange(len(ids)) != i
        np.testing.assert_array_equal(x[others], before[cid]["x"][others])


def test_uniform_marker_fill_gives_every_spot_the_symbol_pyqtgraph_would(qtbot):
    import pyqtgraph as pg

    from roofline_gui.widgets.chart.plot_items import MarkerScatter

    x, y = np.linspace(0, 1, 50), np.linspace(1, 2, 50)
    brush, pen = pg.mkBrush("#1f77b4"), pg.mkPen("#104060", width=1)
    ours, reference = MarkerScatter(size=10), pg.ScatterPlotItem(size=10)
    ours.fill(x, y, [f"k{i}" for i in range(50)], brush=brush, pen=pen)
    reference.setData(x=x, y=y, data=[f"k{i}" for i in range(50)], brush=brush, pen=pen)
    for field in ("x", "y", "data", "size"):
        assert list(ours.data[field]) == list(reference.data[field])
    w, h = reference.data["sourceRect"]["w"], reference.data["sourceRect"]["h"]
    assert (ours.data["sourceRect"]["w"] == w).all() and (ours.data["sourceRect"]["h"] == h).all()
    assert w.min() > 0 and max_spot_width(ours) == max_spot_width(reference)
    # Hovering a spot still re-renders just that spot (the general path).
    ours.data["sourceRect"][3] = 0
    ours.updateSpots()
    assert ours.data["sourceRect"]["w"][3] == w[3]


def test_side_panels_come_together_after_the_charts_first_paint(qtbot, settings, model):
    from PySide6.QtCore import QEvent, QObject

    from roofline_gui.widgets.app.main_window import MainWindow

    w = MainWindow(settings=settings, model=model)
    qtbot.addWidget(w)
    built_at_paint: list[set[str]] = []

    class Spy(QObject):
        def eventFilter(self, obj, ev):  # noqa: N802 (Qt API)
            if ev.type() == QEvent.Type.Paint and not built_at_paint:
                built_at_paint.append(set(w._panels))
            return False

    spy = Spy()
    w.canvas.overlay.viewport().installEventFilter(spy)
    built_per_turn = []
    w.show()
    with qtbot.waitSignal(w.sig_panels_built, timeout=5000):
        while not w.panels_built:  # one pass of the event loop at a time
            QApplication.processEvents()
            built_per_turn.append(len(w._panels))
    assert built_at_paint == [set()]  # the chart was painted before any side panel existed
    # All three in one later turn (one relayout and repaint of the window, not three).
    assert built_per_turn[-1] == 3 and all(n in (0, 3) for n in built_per_turn)
    assert w.panels_built and set(w._panels) == {"hardware", "table", "explanation"}
    # The panels show the document once built.
    assert w.table.table_model.rowCount() == len(model.document.kernels)
    w.model.undo_stack.setClean()


def test_legend_names_each_shown_chip_in_its_colour_and_follows_edits(window, tmp_path):
    from roofline_gui.core.edits import Replace
    from roofline_gui.widgets.chart.layers.legend import LINE_LEGEND, UNUSED_LEGEND

    def entries():
        entries = window.canvas.overlay_plot.legend.legend.entries
        return [(text, pen.color().name()) for text, pen, *shape in entries
                if not shape and text not in (UNUSED_LEGEND, *LINE_LEGEND.values())]

    chips = window.model.document.chips
    # each chip by its name and its main memory (its solid line's slope, whose label a crowded
    # chart may have no spot for)
    assert entries() == [("A100 SXM4 40GB: HBM2 1.555 TB/s", chips[0].color),
                         ("TPU v3: HBM2 900 GB/s", chips[1].color)]
    named = [(f"{c.name}: {c.dram.name} {format_si(c.dram.bandwidth, 'B/s')}", c.color)
             for c in chips]
    assert entries() == named
    # the levels no kernel uses, drawn faint and named only where there is room, are explained
    spec = window.canvas.overlay_plot.scene.spec
    faint = [text for text, *_rest in window.canvas.overlay_plot.legend.legend.entries
             if text == UNUSED_LEGEND]
    assert any(not d.used for d in spec.diagonals) and faint == [UNUSED_LEGEND]
    legend = window.canvas.overlay_plot.legend.legend
    assert legend.width() > 60 and legend.height() > 2 * 14  # sized to its two entries
    window.model.push(Replace("chips", replace(chips[0], name="Renamed", color="#123456")), "rename")
    assert entries()[0] == ("Renamed: HBM2 1.555 TB/s", "#123456")
    window.model.undo_stack.undo()
    assert entries() == named
    # The legend is painted: its box holds each chip's colour (the sample line) and text.
    image = window.canvas.overlay.grab().toImage()
    top_left = legend.mapToScene(legend.boundingRect().topLeft())
    origin = window.canvas.overlay.mapFromScene(top_left)
    colours = {QColor(image.pixel(origin.x() + x, origin.y() + y)).name()
               for x in range(int(legend.width())) for y in range(int(legend.height()))}
    assert {c.color for c in chips} <= colours


def test_table_rows_are_headed_by_kernel_names_that_fit_up_to_a_cap(window, example_doc):
    view = window.table.view
    names = view.verticalHeader()
    metrics = view.fontMetrics()
    cap = window.table.KERNEL_COLUMN_EM * metrics.height()
    shortest = min(example_doc.kernels, key=lambda k: len(k.name))
    window.model.reset(replace(example_doc, kernels=(shortest,)))
    QApplication.processEvents()
    assert names.isVisible() and view.isColumnHidden(0)  # the name heads the row instead
    assert metrics.horizontalAdvance(shortest.name) <= names.width() < cap
    # A long name widens the header up to a cap; beyond it the name is elided and whole in
    # the tooltip. The header stays when the chips' columns scroll sideways.
    long_name = "A kernel with a rather long name, to widen the column past its cap"
    doc = replace(example_doc, kernels=(replace(example_doc.kernels[0], name=long_name),
                                       *example_doc.kernels[1:]))
    window.model.reset(doc)
    QApplication.processEvents()
    assert metrics.horizontalAdvance(long_name) > cap
    assert names.width() == cap
    # Where the table has room beside the chips' columns, the name is whole (the tour saw
    # workload names cut with half the table empty); narrowed again, it is cut at the cap.
    over = next(long_name[:n] for n in range(len(long_name))
                if metrics.horizontalAdvance(long_name[:n]) > cap + 20)  # a little past the cap
    window.model.reset(replace(doc, chips=doc.chips[:1], baseline=None,
                               kernels=(replace(doc.kernels[0], name=over), *doc.kernels[1:])))
    QApplication.processEvents()
    columns = sum(view.columnWidth(c) for c in range(window.table.table_model.columnCount())
                  if not view.isColumnHidden(c))
    whole = metrics.horizontalAdvance(over)
    window.resize(window.width() + 2 * (columns + whole - view.width()) + 200, window.height())
    QApplication.processEvents()
    assert view.width() > columns + whole + 40
    assert names.width() > whole  # with the header's margins
    assert names.shown_text(over, names.width() - 10) == over
    window.resize(window.width() - (view.width() - columns) - 100, window.height())
    QApplication.processEvents()
    assert names.width() == cap
    window.model.reset(doc)
    QApplication.processEvents()
    model = window.table.table_model
    # headed by its place in the session (the chart names it so where its name has no room)
    assert model.headerData(0, Qt.Orientation.Vertical) == f"1 · {long_name}"
    assert long_name in model.headerData(0, Qt.Orientation.Vertical, Qt.ItemDataRole.ToolTipRole)
    # A rename reaches the header at once.
    window.model.push(Replace("kernels", replace(doc.kernels[0], name="short")), "rename")
    assert model.headerData(0, Qt.Orientation.Vertical) == "1 · short"


def test_a_big_document_shows_in_the_panels_then_roofs_then_a_chip_per_turn(window, example_doc,
                                                                          monkeypatch):
    from roofline_gui.widgets.chart.layers import markers

    monkeypatch.setattr(markers, "SYNC_SPOTS", 100)
    monkeypatch.setattr(markers, "TURN_BUDGET_S", 0.0)  # one chip per turn
    chips = tuple(replace(example_doc.chips[i % 2], id=f"c{i}", color=f"#{i:02x}80c0")
                  for i in range(6))
    kernels = tuple(replace(example_doc.kernels[i % len(example_doc.kernels)], id=f"k{i}")
                    for i in range(60))
    canvas, plot = window.canvas, window.canvas.overlay_plot
    old = plot.markers.scatters[example_doc.chips[0].id]
    old_roofs = list(plot.roofs.item.lines)
    window.model.reset(replace(example_doc, chips=chips, kernels=kernels, baseline=None))
    # Right after the reset: the panels show the new document; the chart is still the old one.
    assert window.table.table_model.rowCount() == 60 and canvas.drawing
    assert plot.roofs.item.lines == old_roofs
    QApplication.processEvents()
    # Next turn: the new roofs; no markers or sweep paths yet, and the old document's markers
    # are hidden rather than shown at the new chips.
    assert len(plot.roofs.item.lines) >= 6 and plot.roofs.item.lines != old_roofs
    assert plot.pending == [c.id for c in chips] and not old.isVisible()
    turns = []
    while canvas.drawing:
        QApplication.processEvents()
        turns.append(len(plot.pending))
    assert turns == [5, 4, 3, 2, 1, 0]  # a chip per turn (the paths came with the roofs)
    cmp = window.model.comparison
    for c, chip in enumerate(chips):
        scatter = plot.markers.scatters[chip.id]
        assert scatter.isVisible()
        ok = np.isfinite(cmp.result.attainable[:, c])
        assert len(scatter.data) == ok.sum()
        np.testing.assert_allclose(scatter.data["y"], np.log10(cmp.result.attainable[ok, c]))
    assert plot.paths.lines  # the selected kernel's sweep paths came too
    # An export completes the chart at once, whatever is still to come.
    window.canvas.redraw()
    assert canvas.drawing
    window.canvas.render_plot_item()
    assert not canvas.drawing and all(len(s.data) for s in plot.markers.scatters.values())


def test_with_many_chips_only_the_selected_chips_roofs_are_labelled(window, example_doc):
    from roofline_gui.widgets.chart.roofline_plot import LABEL_ALL_CHIPS

    plot = window.canvas.overlay_plot
    two = {QColor(label.color).name() for label in plot.roof_labels.labels}
    assert two == {c.color for c in example_doc.chips}  # a few chips: every chip is labelled
    colours = [f"#{i:02x}{i:02x}a0" for i in range(LABEL_ALL_CHIPS + 2)]
    chips = tuple(replace(example_doc.chips[i % 2], id=f"c{i}", color=col)
                  for i, col in enumerate(colours))
    window.model.reset(replace(example_doc, chips=chips, baseline=None))
    assert {QColor(label.color).name() for label in plot.roof_labels.labels} == {colours[0]}
    lines_before = len(plot.roofs.item.lines)
    window.model.select(None, "c3")
    assert {QColor(label.color).name() for label in plot.roof_labels.labels} == {colours[3]}
    assert len(plot.roofs.item.lines) == lines_before  # every chip's roofs are still drawn
    from roofline_gui.widgets.chart.layers.legend import LINE_LEGEND, UNUSED_LEGEND

    assert [e[0] for e in plot.legend.legend.entries
            if len(e) == 2 and e[0] not in (UNUSED_LEGEND, *LINE_LEGEND.values())] == [
        f"{c.name}: {c.dram.name} {format_si(c.dram.bandwidth, 'B/s')}" for c in chips]


def test_marker_bounds_are_kept_only_while_data_and_view_are_unchanged(window):
    import pyqtgraph as pg

    plot = window.canvas.overlay_plot
    scatter = next(iter(plot.markers.scatters.values()))

    def fresh():
        return pg.ScatterPlotItem.boundingRect(scatter)

    assert scatter.boundingRect() == fresh()
    k = int(np.flatnonzero(scatter._spot_of >= 0)[0])
    kernel_id = scatter.data["data"][scatter._spot_of[k]]
    assert scatter.move_spot(k, 9.0, 20.0, kernel_id)  # far outside the old bounds
    assert scatter.boundingRect() == fresh() and scatter.boundingRect().right() > 8.9
    window.canvas.overlay_plot.plot.setRange(xRange=(-3, 3), yRange=(8, 16), padding=0)
    QApplication.processEvents()
    assert scatter.boundingRect() == fresh()  # pixel padding follows the new zoom


def test_redraws_and_drag_steps_reuse_the_marker_symbols(window):
    """pyqtgraph's symbol atlas keys a style by its pen and brush objects; fresh ones on every
    redraw or drag step rendered the symbol again and grew the atlas without bound."""
    plot = window.canvas.overlay_plot
    scatter = next(iter(plot.markers.scatters.values()))
    kernel = next(k for k in window.model.document.kernels if k.template == "mlp")
    window.canvas._on_marker_dragged(kernel.id, window.model.document.chips[0].id, 2.0, False)
    QApplication.processEvents()
    sizes = (atlas_entries(scatter), atlas_entries(plot.overlays.lifted))
    for i in range(5):
        window.canvas._on_marker_dragged(kernel.id, window.model.document.chips[0].id,
                                         3.0 + i, False)
        window.canvas.redraw()
        QApplication.processEvents()
    assert (atlas_entries(scatter), atlas_entries(plot.overlays.lifted)) == sizes


def test_plain_strokes_of_thin_lines_use_one_pixel_pens_and_keep_the_style(qtbot):
    import pyqtgraph as pg
    from PySide6.QtCore import Qt

    from roofline_gui.widgets.chart.plot_items import _Line

    dashed = _Line(np.zeros(2), np.ones(2), pg.mkPen("#123456", width=1.2,
                                                     style=Qt.PenStyle.DashLine), "")
    thin = dashed.plain_pen()
    assert thin.widthF() == 1.0 and thin.style() == Qt.PenStyle.DashLine
    assert thin.color().name() == "#123456" and dashed.pen.widthF() == 1.2  # the line keeps its pen
    assert dashed.plain_pen() is thin  # made once
    wide = _Line(np.zeros(2), np.ones(2), pg.mkPen("#123456", width=2.5), "")
    assert wide.plain_pen() is wide.pen


def test_help_examples_lists_each_example_by_its_title(window):
    from roofline_gui.widgets.app.file_actions import examples

    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    menu = next(a.menu() for a in help_menu.actions() if a.menu() is not None)
    menu.aboutToShow.emit()
    titles = [a.text() for a in menu.actions()]
    assert "A100 against TPU v3: the classic kernels" in titles and len(titles) == len(examples())
    menu.aboutToShow.emit()
    assert len(menu.actions()) == len(titles)  # filled once


def test_row_names_that_differ_in_the_middle_stay_apart_when_elided(window):
    """Three workloads' rows read "ResNet-50 …512, 8 chips" at 1280 x 800 (the tour): a name
    whose middle elision reads as another shown row's keeps the part that tells it apart;
    names the middle elision already tells apart are elided as before."""
    header = window.table.view.verticalHeader()
    metrics = header.fontMetrics()
    names = tuple(f"ResNet-50 training, {p} · train b = 32, G = 512, 8 chips"
                  for p in ("fp32", "tf32", "bf16"))
    width = metrics.horizontalAdvance("ResNet-50 training, fp32 · tr")
    shown = [header.shown_text(n, width, names) for n in names]
    assert len(set(shown)) == 3, shown
    assert all(p in s for p, s in zip(("fp32", "tf32", "bf16"), shown, strict=True)), shown
    assert header.shown_text("short", width, names) == "short"
    plain = ("MLP layer 4096×4096, batch 1 (bf16)", "MLP layer 4096×4096, batch 64 (bf16)")
    narrow = metrics.horizontalAdvance("MLP layer 4096×40")
    # told apart by Qt's own middle elision with the word that differs whole: left as it is
    assert header.shown_text(plain[0], narrow, plain) == metrics.elidedText(
        plain[0], Qt.TextElideMode.ElideMiddle, narrow)
    # "MLP laye…4 (bf16)" had cut batch 64 to its last digit: the word whole
    batch64 = header.shown_text(plain[1], narrow, plain)
    assert batch64.endswith(" 64 (bf16)") or "…64" in batch64, batch64
    # Told apart by the middle elision, but not by the word that differs: "Llama-3… L = 2048"
    # and "Llama-3… S = 2048" hid decode and prefill (the second tour).
    steps = ("▣ Llama-3-8B decode, batch 1, L = 2048 (bf16)",
             "▣ Llama-3-8B prefill, batch 1, S = 2048 (bf16)")
    narrow = metrics.horizontalAdvance("▣ Llama-3-8B prefill, b")
    shown = [header.shown_text(n, narrow, steps) for n in steps]
    assert "decode" in shown[0] and "prefill" in shown[1], shown
    # the part that tells it apart after its first word: "9 · …bf16, inputs over the host
    # link" had lost "GEMM" (the twentieth tour)
    gemms = ("7 · GEMM 4096³ (bf16)", "9 · GEMM 4096³ bf16, inputs over the host link")
    narrow = metrics.horizontalAdvance("9 · GEMM 4096³ bf16, inputs over")
    shown = [header.shown_text(n, narrow, gemms) for n in gemms]
    assert shown[0] == gemms[0] and shown[1].startswith("9 · GEMM …bf16,"), shown
    # a workload's rows keep their model past the "▣" where the rows differ in the word after
    # it: the Japanese table read "▣ …デコード · …L = 2048", the model dropped (the 37th tour)
    steps = ("▣ Llama-3-8B デコード · B = 8、L = 2048", "▣ Llama-3-8B プリフィル · S = 2048")
    narrow = metrics.horizontalAdvance("▣ Llama-3-8B デコード・B")
    shown = [header.shown_text(n, narrow, steps) for n in steps]
    assert all(s.startswith("▣ Llama") for s in shown), shown
    assert "デコード" in shown[0] and "プリフィル" in shown[1], shown
    assert all(metrics.horizontalAdvance(s) <= narrow for s in shown), shown
    # rows differing in a word after a Japanese comma keep it, at every width: the training
    # example's three read "▣ ResNet-50 …の…ップ" (the 38th tour)
    runs = tuple(f"▣ ResNet-50 の学習、{p} · b = 64、G = 512、8 チップ"
                 for p in ("fp32", "tf32", "bf16"))
    for chars in ("▣ ResNet-50 の学習、fp32 · b", "▣ ResNet-50 の学", "▣ ResNet"):
        narrow = metrics.horizontalAdvance(chars)
        shown = [header.shown_text(n, narrow, runs) for n in runs]
        assert all(p in s for p, s in zip(("fp32", "tf32", "bf16"), shown, strict=True)), shown


def test_a_long_hint_fits_the_status_bar_and_the_button_has_it_whole(window):
    """The tour read the Memory levels hint cut mid-word at 1280 px ("…the limiting level's
    point is fille"): a hint wider than the bar ends in "…" within it, and the toolbar button's
    tooltip holds the whole of it."""
    from PySide6.QtGui import QStatusTipEvent

    window.resize(1280, 800)
    QApplication.processEvents()
    tip = window.act_levels.statusTip()
    bar = window.statusBar()
    assert bar.fontMetrics().horizontalAdvance(tip) > bar.width()  # the case the tour saw
    QApplication.sendEvent(window, QStatusTipEvent(tip))
    shown = bar.currentMessage()
    assert shown.endswith("…") and tip.startswith(shown[:-1])
    assert bar.fontMetrics().horizontalAdvance(shown) <= bar.width()
    assert tip.replace("'", "&#x27;") in window.act_levels.toolTip()
    menu = next(m for m in window.menuBar().findChildren(type(window.menuBar().actions()[0].menu()))
                if window.act_levels in m.actions())  # the View menu shows it too
    assert menu.toolTipsVisible()
    QApplication.sendEvent(window, QStatusTipEvent("Open a session"))  # a short one: whole
    assert bar.currentMessage() == "Open a session"


def test_a_long_chip_name_in_a_narrow_column_header_keeps_its_start_and_end(window):
    """A what-if's long name in a column the user narrowed: Qt clipped the centred label at both
    ends ("uned (HBM 4 TB/s, 1.2 GHz) (w", the tour); each line is elided in the middle, so the
    chip it starts with and the "(what-if)" it ends with both show."""
    from roofline_gui.widgets.panels.comparison_panel import ColumnHeader

    header = window.table.view.horizontalHeader()
    assert isinstance(header, ColumnHeader) and header.sectionsClickable()
    name = "A100 SXM4 40GB tuned (HBM 4 TB/s, 1.2 GHz) (what-if)"
    shown = header.shown_text(f"{name}\nop/s", 120).split("\n")
    assert shown[1] == "op/s"
    assert shown[0].startswith("A100") and shown[0].endswith(")") and "…" in shown[0]
    from PySide6.QtGui import QFont, QFontMetrics

    bold = QFont(header.font())
    bold.setBold(True)  # the selected chip's header is bold
    assert QFontMetrics(bold).horizontalAdvance(shown[0]) <= 120
    assert header.shown_text("TPU v1\nop/s", 120) == "TPU v1\nop/s"


def test_the_legend_names_the_marks_the_chart_draws_and_only_those(window):
    """The second tour met hollow points joined by dotted lines, struck-through points and
    measured stars the legend never explained: each kind has its row, painted, while the chart
    shows it, and none when it does not."""
    from roofline_gui.core.edits import Batch, Remove, Replace
    from roofline_gui.widgets.app.file_actions import example_named
    from roofline_gui.widgets.chart.layers.legend import (
        LEVELS_LEGEND,
        MEASURED_LEGEND,
        MISFIT_LEGEND,
    )
    from roofline_gui.widgets.chart.plot_items import ChipLegend

    legend = window.canvas.overlay_plot.legend.legend

    def marks():
        return {e[0]: e[2] for e in legend.entries
                if len(e) == 3 and e[2] in ChipLegend.MARKS}

    assert window.files.open_example(example_named("the-article-claim-by-claim"))
    window.set_mode("overlay")
    window.set_memory_levels(True)
    scene = window.canvas.overlay_plot.scene
    assert len(scene.spec.misfits) and not scene.spec.levels.filled.all()
    assert marks() == {LEVELS_LEGEND: ChipLegend.LEVELS, MISFIT_LEGEND: ChipLegend.MISFIT}
    rows = len(legend.entries)
    assert legend.height() > rows * 14  # each row has its height
    # a measured time on a sized kernel: its star, and the legend's row for it
    kernels = window.model.document.kernels
    sized = next(k for k in kernels if k.has_size)
    window.model.push(Replace("kernels", replace(sized, measured_time=1.0)), "measure")
    assert MEASURED_LEGEND in marks()
    window.model.undo_stack.undo()
    assert MEASURED_LEGEND not in marks()
    # the elementwise kernel in main memory alone, levels off: no marks to explain
    window.set_memory_levels(False)
    window.model.push(Batch(tuple(Remove("kernels", k.id) for k in kernels[1:])), "keep one")
    assert [k.name for k in window.model.document.kernels] == ["1 · out = a + b, all in HBM (int8)"]
    assert marks() == {} and len(legend.entries) < rows
    window.model.undo_stack.setClean()


def test_side_by_side_has_one_key_for_what_the_charts_share(window):
    """Each chart's title names its chip, and the shapes and marks had no legend at all side by
    side (the second tour): one key under the grid lists them, each once, painted inside the
    window, and follows the chart (the marks' rows come and go with Memory levels)."""
    from PySide6.QtGui import QColor

    from roofline_gui.widgets.app.file_actions import example_named
    from roofline_gui.widgets.chart.layers.legend import HELD_LEGEND, LEVELS_LEGEND, MISFIT_LEGEND

    assert window.files.open_example(example_named("the-article-claim-by-claim"))
    window.set_memory_levels(True)
    window.set_mode("side_by_side")
    canvas = window.canvas
    key = canvas._grid_key
    texts = [e[0] for e in key.entries]
    chips = [c.name for c in window.model.document.chips]
    assert {"streaming", "host transfer", "neural network", LEVELS_LEGEND, MISFIT_LEGEND} <= set(texts)
    assert len(texts) == len(set(texts)) and not set(chips) & set(texts)
    assert all(not p.legend.legend.entries for p in canvas.grid_plots)  # no legend in a chart
    # laid out in rows inside the grid's width, below the charts, and painted there
    assert key._laid and key.size().width() <= canvas.grid.width()
    grid_bottom = max(p.plot.mapRectToScene(p.plot.boundingRect()).bottom() for p in canvas.grid_plots)
    top = key.mapRectToScene(key.boundingRect()).top()
    assert top >= grid_bottom - 1
    image = canvas.grid.grab().toImage()
    box = key.mapRectToScene(key.boundingRect()).toRect()
    dark = sum(QColor(image.pixel(x, y)).lightness() < 128
               for x in range(box.left(), box.right(), 2) for y in range(box.top(), box.bottom(), 2))
    assert dark > 50
    window.set_memory_levels(False)  # only the GEMM fed over PCIe keeps a point per level

    def hollow(plot) -> bool:
        marks = plot.scene.spec.levels
        return marks is not None and len(marks) > 0 and not marks.filled.all()

    assert sum(hollow(p) for p in canvas.grid_plots) < 4
    # with levels off the row says what the two points are, not "at each level" (the
    # eleventh tour read that on a chart drawing no level's points)
    texts = [e[0] for e in key.entries]
    assert LEVELS_LEGEND not in texts
    assert (HELD_LEGEND in texts) == any(hollow(p) for p in canvas.grid_plots)
    window.model.undo_stack.setClean()


def test_numbered_row_names_are_told_apart_past_their_numbers(window):
    """The Japanese article's rows read "4a · TPU v1 …をチップ上に（int8）" and "4b · TPU v1
    …をチップ上に（int8）": told apart by their numbers alone. Past the numbering each shows
    the word that differs; English rows the middle elision already tells apart stay as Qt
    elides them."""
    header = window.table.view.verticalHeader()
    metrics = header.fontMetrics()
    names = ("4a · TPU v1 の CNN 層、活性化をチップ上に（int8）",
             "4b · TPU v1 の MLP 層、活性化をチップ上に（int8）",
             "4c · TPU v1 の LSTM の 1 ステップ、活性化をチップ上に（int8）")
    width = metrics.horizontalAdvance("4a · TPU v1 の CNN 層、活")
    shown = [header.shown_text(n, width, names) for n in names]
    for name, text, word in zip(names, shown, ("CNN", "MLP", "LSTM"), strict=True):
        assert text.startswith(name[:5]) and word in text, shown
        assert metrics.horizontalAdvance(text) <= width
    english = ("4a · TPU v1 CNN layer, activations on chip (int8)",
               "4b · TPU v1 MLP layer, activations on chip (int8)")
    width = metrics.horizontalAdvance("4a · TPU v1 CNN layer, activations o")
    assert [header.shown_text(n, width, english) for n in english] == [
        metrics.elidedText(n, Qt.TextElideMode.ElideMiddle, width) for n in english]
    width = metrics.horizontalAdvance("4a · TPU v1 CNN layer, ac")  # Qt's: "4a · TPU v1 … chip"
    shown = [header.shown_text(n, width, english) for n in english]
    assert "CNN" in shown[0] and "MLP" in shown[1] and shown[0].startswith("4a · "), shown


def test_the_energy_mode_is_named_in_the_unit_the_chart_counts(window):
    """With Count MACs the chart's axis read MAC/J under a button "Energy (op/J)" and a hint "in
    op per joule" (the tour): both follow the unit, and back."""
    act = window.act_energy
    assert "op/J" in act.text() and "op per joule" in act.statusTip()
    window.set_mac_units(True)
    assert "MAC/J" in act.text() and "MAC per joule" in act.statusTip()
    assert "op/J" not in act.text() and "MAC per joule" in act.toolTip()
    window.set_mac_units(False)
    assert "op/J" in act.text() and "op per joule" in act.statusTip()


def test_a_legend_that_would_hide_markers_or_lines_goes_below_the_chart(window):
    """The tours read markers and the host links through the legend in crowded charts: where
    every corner of the view would hide a marker or a solid line (four faint ones), the same rows
    go below the chart (the view gives up their height), and back into the corner for a chart
    where it hides nothing (a fourth tour saw the serving example's H200 diagonal under it)."""
    from roofline_gui.core import chart_labels
    from roofline_gui.widgets.app.file_actions import example_named

    window.resize(1280, 800)
    plot = window.canvas.overlay_plot
    layer = plot.legend
    assert window.files.open_example(example_named("williams-cpus"))
    QApplication.processEvents()
    assert not layer.outside and layer.legend.isVisible()
    window.model.undo_stack.setClean()
    assert window.files.open_example(example_named("the-article-claim-by-claim"))
    QApplication.processEvents()
    assert layer.outside and not layer.legend.isVisible()
    below = layer.below
    assert [e[0] for e in below.entries] == [e[0] for e in layer.legend.entries]
    key = below.mapRectToScene(below.boundingRect())
    view = plot.plot.getViewBox().mapRectToScene(plot.plot.getViewBox().boundingRect())
    axis = plot.plot.getAxis("bottom")
    assert key.top() >= axis.mapRectToScene(axis.boundingRect()).bottom() - 1
    assert key.top() > view.bottom() and key.height() > 20
    # in the corner it would have hidden something: each corner's box, the legend's size
    g, scene = plot.label_geometry(), plot.scene
    w, h = layer.legend.width(), layer.legend.height()
    left, top = g.view[0] * g.px[0], -g.view[3] * g.px[1]
    box = plot.plot.getViewBox().boundingRect()
    rects = [(left + (box.width() - 10 - w if cx else 10), top + (box.height() - 10 - h if cy else 10))
             for cx, cy in plot.LEGEND_CORNERS]
    cost = chart_labels.hidden_under(scene, g, [(x, y, x + w, y + h) for x, y in rects])
    assert cost.min() >= plot.LEGEND_LINES_MAX
    # a resize it causes itself keeps it there; a chart that it hides nothing in takes it back
    window.resize(1280, 760)
    QApplication.processEvents()
    assert layer.outside
    window.resize(1280, 800)
    QApplication.processEvents()
    assert layer.outside
    window.model.undo_stack.setClean()
    assert window.files.open_example(example_named("williams-cpus"))
    QApplication.processEvents()
    assert not layer.outside and layer.legend.isVisible() and below.height() == 0
    window.model.undo_stack.setClean()


def test_the_legend_tells_a_workloads_step_from_its_kernels_and_a_model_that_does_not_fit(window):
    """The third tour read TPU v5e's hollow large point (the model does not fit) as the hollow
    of a memory level, and the large and small marks unexplained: rows for each, while shown."""
    from roofline_gui.widgets.app.file_actions import example_named
    from roofline_gui.widgets.chart.layers.legend import STEP_LEGEND, UNFIT_LEGEND

    window.resize(1280, 800)
    assert window.files.open_example(example_named("llama-3-8b-on-three-chips"))
    QApplication.processEvents()
    plot = window.canvas.overlay_plot
    texts = [e[0] for e in plot.legend.legend.entries]
    assert STEP_LEGEND in texts
    unfit = any(not all(m.fits) for m in plot.scene.workloads)
    assert (UNFIT_LEGEND in texts) == unfit
    window.model.add_chips([window.presets.chips["google-tpu-v5e"]])
    QApplication.processEvents()
    assert any(not all(m.fits) for m in plot.scene.workloads)
    assert UNFIT_LEGEND in [e[0] for e in plot.legend.legend.entries]
    window.model.undo_stack.setClean()


def test_a_menu_entrys_hint_is_shown_beside_the_menu_not_over_the_entries_below(window, qtbot):
    """The 44th tour: Help → User guide's tooltip, shown under the pointer, covered the entries
    below it. An entry's whole hint is shown beside the menu, level with the entry; an entry
    with no hint of its own shows none."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QMenu, QToolTip

    menu = next(m for m in window.menuBar().findChildren(QMenu)
                if window.act_guide in m.actions())
    window.menuBar().setActiveAction(menu.menuAction())
    qtbot.waitUntil(menu.isVisible, timeout=2000)
    row = menu.actionGeometry(window.act_guide)
    QApplication.sendEvent(menu, QHelpEvent(QEvent.Type.ToolTip, row.center(),
                                            menu.mapToGlobal(row.center())))
    qtbot.waitUntil(QToolTip.isVisible, timeout=2000)
    assert "explained" in QToolTip.text()
    tip = next(w for w in QApplication.topLevelWidgets()
               if w.metaObject().className() == "QTipLabel" and w.isVisible())
    right = menu.mapToGlobal(menu.rect().topRight()).x()
    assert tip.geometry().left() >= right, (tip.geometry(), right)  # beside the menu
    assert abs(tip.geometry().top() - menu.mapToGlobal(row.topLeft()).y()) <= 30
    plain = next(a for a in menu.actions() if a.menu() is not None)  # "Examples": no hint
    QToolTip.hideText()
    qtbot.waitUntil(lambda: not QToolTip.isVisible(), timeout=2000)
    at = menu.actionGeometry(plain).center()
    QApplication.sendEvent(menu, QHelpEvent(QEvent.Type.ToolTip, at, menu.mapToGlobal(at)))
    qtbot.wait(100)
    assert not QToolTip.isVisible()
    menu.close()


def test_a_long_plain_tooltip_is_shown_wrapped(window, qtbot):
    """The fourteenth tour: "All kernels at"'s tooltip, plain text, ran 1,280 px wide in one
    line while the actions' (rich text) wrapped. Every widget's long plain tooltip is shown as
    rich text, which Qt wraps; a short one as it is."""
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QComboBox, QToolTip

    # the toolbar's, and a panel's built after the window (the Energy tab's y axis)
    window.docks["energy"].raise_()
    energy_combo = window.energy.findChild(QComboBox)
    for combo, words in ((window.precision_combo, "Switch every kernel"),
                         (energy_combo, "The y axis")):
        assert len(combo.toolTip()) > 60 and not combo.toolTip().startswith("<")
        at = combo.mapToGlobal(QPoint(5, 5))
        QApplication.sendEvent(combo, QHelpEvent(QEvent.Type.ToolTip, QPoint(5, 5), at))
        qtbot.waitUntil(QToolTip.isVisible, timeout=2000)
        assert QToolTip.text().startswith("<p>") and words in QToolTip.text()
        QToolTip.hideText()
        qtbot.waitUntil(lambda: not QToolTip.isVisible(), timeout=2000)


def test_a_tables_rows_are_headed_by_the_tags_the_chart_names_kernels_by(window):
    """The chart names a kernel with no room for its name by its tag (kernel_tags): the table's
    rows carry the same, the names' own numbering where they all have one (the article's "4b ·
    TPU v1 MLP…"), else the place in the session ("3 · MLP layer…")."""
    from roofline_gui.core.display import kernel_tags
    from roofline_gui.widgets.app.file_actions import example_named

    model = window.table.table_model
    for stem, numbered in (("the-article-claim-by-claim", True), ("a100-vs-tpu-v3", False)):
        window.files.open(str(example_named(stem)))
        QApplication.processEvents()
        kernels = window.model.comparison.kernels
        tags = kernel_tags([k.name for k in kernels])
        for row in range(len(kernels)):
            k = model.kernel_row(row)
            head = model.headerData(row, Qt.Orientation.Vertical)
            name = kernels[k].name
            assert head == (name if numbered else f"{tags[k]} · {name}"), (stem, head)
            assert head.startswith(f"{tags[k]} · ")


def test_opening_a_session_of_workloads_says_it_holds_them(window):
    """The fifteenth tour: the Llama example opened with "3 chips, 0 kernels" in the status bar
    beside its two workloads' charts. A session with workloads counts them too."""
    from roofline_gui.widgets.app.file_actions import example_named

    window.files.open(str(example_named("llama-3-8b-on-three-chips")))
    said = window.statusBar().currentMessage()
    assert "3 chips, 0 kernels, 2 workloads" in said, said
    window.files.open(str(example_named("williams-cpus")))
    assert "workload" not in window.statusBar().currentMessage()


def test_a_model_from_the_command_line_opens_as_an_untitled_session(window):
    """``roofline-explorer --model CONFIG ...`` without an export (the nineteenth tour had
    looked for the window): the window opens its workload on its chips, untitled, and says
    where it came from; Save then asks where (nothing is written over the config)."""
    from roofline_gui.core.document import Document
    from roofline_gui.core.workload import Workload

    chip = window.presets.chips["nvidia-h100-sxm5-80gb"]
    workload = Workload("w1", "Llama-3-8B decode", "transformer", {}, batch=8)
    doc = Document(chips=(chip,), workloads=(workload,))
    window.open_initial(None, (doc, "llama-3-8b.config.json"))
    assert window.model.document == doc and window.model.path is None
    said = window.statusBar().currentMessage()
    assert said.startswith("Opened llama-3-8b.config.json: 1 chip, 0 kernels, 1 workload"), said
    assert "Save asks where" in said


def test_a_datasheet_figure_typed_over_is_a_what_if_as_a_dragged_one_is(window):
    """The nineteenth tour: a peak typed on a preset chip kept "NVIDIA A100 datasheet" as the
    source of the new number, where dragging the same roof made a what-if. Typed over, a
    datasheet figure is a what-if too: the datasheet's figure kept (its reset, its ghost roof,
    its energies), the chip named so; typed back, the chip is its datasheet again. A value
    the user gave (no datasheet source) is edited plainly."""
    from dataclasses import replace

    from roofline_gui.core.energy import constants

    model, form = window.model, window.hardware.form
    chip = model.document.chips[0]
    assert chip.name == "A100 SXM4 40GB" and "datasheet" in chip.compute_sources["bf16"]
    form.compute_fields["bf16"].setText("400 TFLOPS")
    form.compute_fields["bf16"].editingFinished.emit()
    moved = model.document.chips[0]
    assert moved.compute["bf16"] == 400e12 and moved.compute_what_if_of == {"bf16": 312e12}
    assert moved.name == "A100 SXM4 40GB (what-if)"
    assert moved.compute_sources["bf16"] == chip.compute_sources["bf16"]  # the datasheet's
    dram = next(i for i, lv in enumerate(chip.memory) if lv.role == "dram")
    form.level_fields[dram]["bandwidth"].setText("3.11 TB/s")
    form.level_fields[dram]["bandwidth"].editingFinished.emit()
    both = model.document.chips[0]
    assert both.memory[dram].bandwidth == 3.11e12 and both.memory[dram].what_if_of == 1.555e12
    # the energy per byte the datasheet's bandwidth gives, not half of it
    assert constants(both).byte_j["dram"] == pytest.approx(constants(chip).byte_j["dram"])
    form.compute_fields["bf16"].setText("312T")
    form.compute_fields["bf16"].editingFinished.emit()
    form.level_fields[dram]["bandwidth"].setText("1.555 TB/s")
    form.level_fields[dram]["bandwidth"].editingFinished.emit()
    back = model.document.chips[0]
    assert back.name == chip.name and not back.is_what_if
    model.undo_stack.undo()
    assert model.document.chips[0].memory[dram].what_if_of == 1.555e12
    # a chip of the user's own figures: typing edits it
    own = replace(chip, id="mine", name="My chip", compute_sources={}, compute_what_if_of={},
                  memory=tuple(replace(lv, source="") for lv in chip.memory))
    model.add_chips([own])
    model.select(None, model.document.chips[-1].id)
    form = window.hardware.form
    form.compute_fields["bf16"].setText("400T")
    form.compute_fields["bf16"].editingFinished.emit()
    mine = model.document.chips[-1]
    assert mine.compute["bf16"] == 400e12 and not mine.is_what_if and mine.name == "My chip"


def test_undoing_an_added_chip_selects_one_still_there_in_every_view(window, qtbot, monkeypatch):
    """The twentieth tour: after Undo of Add…, the hardware editor said "Select a chip to edit
    its ceilings." while the explanation described the A100: the selection still named the
    chip the undo removed. It moves to the chip now in its place, and every view follows."""
    monkeypatch.setattr(ChipPresetDialog, "ask",
                        classmethod(lambda cls, p, parent=None, in_session=(): ["nvidia-h100-sxm5-80gb"]))
    model = window.model
    window.hardware.add_from_presets()
    added = model.document.chips[-1]
    assert added.name == "H100 SXM5 80GB" and model.selected_chip == added.id
    model.undo_stack.undo()
    ids = [c.id for c in model.document.chips]
    assert added.id not in ids and model.selected_chip == ids[-1]
    assert window.hardware.form.chip_id == model.selected_chip
    chip = model.document.chip(model.selected_chip)
    qtbot.waitUntil(lambda: chip.name in window.explanation.plain_text().split("\n")[0],
                    timeout=3000)
    model.undo_stack.redo()  # the chip back: the selection stays where it is
    assert model.selected_chip == ids[-1]


def test_a_shipped_example_opened_with_file_open_is_an_untitled_copy(window, monkeypatch):
    """File → Open on a file of the app's examples folder opens it as Help → Examples does, an
    untitled copy: Save in the unsaved-changes prompt had written over the shipped example (the
    twenty-second tour)."""
    from roofline_gui.core.edits import SetField
    from roofline_gui.widgets.app import file_actions
    from roofline_gui.widgets.app.file_actions import example_named

    path = example_named("a100-vs-tpu-v3")
    before = path.read_bytes()
    assert window.files.open(str(path))
    assert window.model.path is None
    window.model.push(SetField("title", "changed"), "Rename")
    asked = []
    monkeypatch.setattr(file_actions.FileDialogs, "save_path",
                        staticmethod(lambda _parent, suggested, *_a: asked.append(suggested) or ""))
    assert not window.files.save()  # Save asks where (cancelled here), never the example
    assert asked and path.read_bytes() == before


@pytest.mark.parametrize("mode", ["overlay", "side_by_side"])
def test_a_new_window_places_its_labels_once_in_the_view_it_shows(qtbot, settings, model,
                                                                  monkeypatch, mode):
    """A window being built drew its chart three times at sizes never shown (the panel's first
    draw, the view settings put back, their redraw), placing every label each time, then again
    in the view it was shown in: a third of a new window's time. Now none while it is built,
    and each chart's once, for the view shown; the names and key are all there."""
    from roofline_gui.widgets.app.main_window import MainWindow
    from roofline_gui.widgets.chart import roofline_plot

    settings.set("view/mode", mode)  # as the last session left it
    placed = []
    real = roofline_plot.place_labels
    monkeypatch.setattr(roofline_plot, "place_labels",
                        lambda scene, g, **kw: placed.append(g.px) or real(scene, g, **kw))
    w = MainWindow(settings=settings, model=model)
    assert placed == []  # nothing placed while the window is built
    w.resize(1280, 800)
    # and each chart is named from its first paint on (a grid placed on the next turn was
    # painted without names for 0.2 s)
    painted = []

    class FirstPaint(QObject):
        def eventFilter(self, _watched, event):  # noqa: N802 (Qt API)
            if event.type() == QEvent.Type.Paint and not painted:
                painted.append([bool(p.scene and p.scene.labels.names) for p in w.canvas.plots])
            return False

    first_paint = FirstPaint()
    view = w.canvas.overlay if mode == "overlay" else w.canvas.grid
    view.viewport().installEventFilter(first_paint)
    w.show()
    qtbot.waitExposed(w)
    for _ in range(5):
        QApplication.processEvents()
    plots = w.canvas.plots
    assert len(plots) == (1 if mode == "overlay" else len(model.document.chips))
    # (side by side, the grid's charts had placed theirs at once into a grid not yet laid out,
    # again for each size its layout gave them, and the closed charts of a grid rebuilt for
    # another count of columns, and the overlay hidden behind it, on the next turn: 12 times)
    assert len(placed) == len(plots)
    assert painted == [[True] * len(plots)]
    for plot in plots:
        view = plot.plot.getViewBox()
        labels = plot.scene.labels
        assert labels.names and labels.key and labels.px == plot.label_geometry(plot.scene).px
        assert view.width() > 100 and not plot.labels_pending
    w.model.undo_stack.setClean()
    w.close()
    w.deleteLater()
