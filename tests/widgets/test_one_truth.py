"""Every view shows the same numbers in every mode: the chart's markers and roofs, the table's
cells, the explanation, the status-bar readout and the CSV, for derated on and off × Count MACs
on and off × each precision override, for every kernel × chip of the shipped examples."""

import csv
import io
import itertools

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication

from roofline_gui.core.edits import Batch, Replace
from roofline_gui.core.roofline import LIMITER_UNSUPPORTED
from roofline_gui.core.units import format_si
from roofline_gui.io.csv_export import comparison_csv
from roofline_gui.io.files import resources_dir
from roofline_gui.io.session import load_session

EXAMPLES = sorted((resources_dir() / "examples").glob("*.roofline"))


def sig4(x: float) -> float:
    return float(f"{x:.4g}")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_chart_table_explanation_readout_and_csv_agree_in_every_mode(window, qtbot, path):
    window.model.reset(load_session(path))
    base = window.model.document
    precisions = [None, *sorted({k.precision for k in base.kernels})[:2]]
    modes = itertools.product([False, True], [False, True], precisions)
    if path.name.endswith(".ja.roofline"):  # the English one's numbers under Japanese names
        # (test_every_example_has_a_japanese_version_with_the_same_numbers): one mode is enough
        modes = [(False, False, None)]
    for derated, mac, precision in modes:
        window.model.reset(base)
        if precision is not None:  # the toolbar's "All kernels at"
            window.model.push(Batch(tuple(Replace("kernels", k.with_precision(precision))
                                          for k in base.kernels)), "all")
        window.set_derated(derated)
        window.set_mac_units(mac)
        QApplication.processEvents()
        check_views_agree(window, qtbot, f"{path.stem} derated={derated} mac={mac} {precision}")


def check_views_agree(window, qtbot, mode: str) -> None:
    model, plot = window.model, window.canvas.overlay_plot
    plot.finish_pending()
    cmp, units = model.comparison, model.units
    table = window.table.table_model
    rows = list(csv.DictReader(io.StringIO(comparison_csv(cmp))))
    for c, chip in enumerate(cmp.chips):
        xs, ys, ids = plot.markers_of(chip.id)
        drawn = dict(zip(ids, zip(10 ** xs, 10 ** ys, strict=True), strict=True))
        column = next(col for col in range(table.columnCount()) if table.locate(col) == (c, "attainable"))
        roofs = {line.tip.split(" roof:")[0].split()[-1]: line for line in plot.roofs.item.lines
                 if line.tip.startswith(f"{chip.name} ") and " roof:" in line.tip}
        for k, kernel in enumerate(cmp.kernels):
            where = f"{mode}: {kernel.name} on {chip.name}"
            unsupported = int(cmp.result.limiter[k, c]) == LIMITER_UNSUPPORTED
            row = rows[c * len(cmp.kernels) + k]
            cell = table.index(table.view_row(k), column).data()
            if unsupported:
                assert kernel.id not in drawn and cell == "—", where
                continue
            rate = float(row["attainable_flop_per_s"]) / units.ops_per_unit  # the CSV, in ops
            intensity = float(row["intensity_flop_per_byte"]) / units.ops_per_unit
            x, y = drawn[kernel.id]  # the chart's marker
            assert sig4(x) == sig4(intensity) and sig4(y) == sig4(rate), where
            assert cell == format_si(rate, f"{units.word}/s"), where  # the table's cell
            # The marker's roof, as drawn: its bend is the CSV's ridge, its flat part the
            # ceiling applied, and the marker is on or under it.
            line = roofs[cmp.stand_in(k, c) or kernel.precision]  # the same width stands in
            ridge_x, peak_y = 10 ** line.x[1], 10 ** line.y[1]
            assert sig4(ridge_x) == sig4(float(row["ridge_flop_per_byte"]) / units.ops_per_unit), where
            assert np.log10(y) <= np.interp(np.log10(x), line.x, line.y) + 1e-9, where
            assert y <= peak_y * (1 + 1e-9), where
        # The explanation of one supported kernel on this chip names the marker's rate.
        k = next((k for k in range(len(cmp.kernels))
                  if int(cmp.result.limiter[k, c]) != LIMITER_UNSUPPORTED), None)
        if k is not None:
            model.select(cmp.kernels[k].id, chip.id)
            text = window.explanation.toPlainText()
            assert format_si(float(cmp.result.attainable[k, c]) / units.ops_per_unit,
                             f"{units.word}/s") in text, mode
            # and the CSV's energy efficiency, as the explanation gives it (op/J or MAC/J)
            energy = rows[c * len(cmp.kernels) + k]["flop_per_joule"]
            if energy:
                assert format_si(float(energy) / units.ops_per_unit, f"{units.word}/J") in text, mode
            # The readout under the pointer at that marker shows the same numbers.
            x, y = drawn[cmp.kernels[k].id]
            vb = plot.plot.getViewBox()
            window.cursor_label.clear()
            vb.scene().sigMouseMoved.emit(vb.mapViewToScene(QPointF(np.log10(x), np.log10(y))))
            qtbot.waitUntil(lambda: window.cursor_label.text() != "", timeout=2000)  # rate-limited
            readout = window.cursor_label.text()
            shown = f"{float(f'{x:.3g}'):,.0f}" if x >= 1000 else f"{x:,.3g}"  # no exponent
            assert f"{shown} {units.word}/B" in readout and "e+" not in readout, (mode, readout)
            assert format_si(y, f"{units.word}/s", 3) in readout, (mode, readout)


def test_roof_labels_and_readout_follow_count_macs_at_once(window):
    plot = window.canvas.overlay_plot

    def label_texts():
        plot.finish_pending()
        return [label.text for label in (*plot.roof_labels.labels, *plot.key.labels)]

    assert any(t.endswith("op/s") for t in label_texts())
    window.canvas.sig_cursor_moved.emit(10.0, 1e13)  # the pointer at 10 op/B, 10 Top/s
    assert "10 op/B" in window.cursor_label.text() and "10 Top/s" in window.cursor_label.text()
    window.set_mac_units(True)
    QApplication.processEvents()
    # The readout changes unit at once, before the pointer moves again.
    assert "5 MAC/B" in window.cursor_label.text() and "5 TMAC/s" in window.cursor_label.text()
    texts = label_texts()
    rate_labels = [t for t in texts if t.endswith("/s") and "B/s" not in t]
    assert rate_labels and all(t.endswith("MAC/s") for t in rate_labels), texts
    # A100 bf16: 312 Top/s is 156 TMAC/s.
    assert "bf16 156 TMAC/s" in texts
    assert plot.plot.getAxis("left").labelText.startswith("Attainable performance (MAC/s)")
    window.set_mac_units(False)
    QApplication.processEvents()
    assert "bf16 312 Top/s" in label_texts()


def test_kernels_are_named_on_the_chart_clear_of_each_other_and_the_roof_labels(window, qtbot):
    """Measured with the font's own widths, as the labels are painted: an estimate from the
    average character ran up to 13 % short, and at 1280×800 the attention kernel's name, placed
    left of its marker, was cut by the chart's left edge."""
    from PySide6.QtGui import QFont, QFontMetricsF

    from roofline_gui.core.chart_labels import label_footprint
    from roofline_gui.core.display import boxes_overlap as _overlap
    from roofline_gui.core.display import offset_label_box

    plot = window.canvas.overlay_plot
    # (placed in the view the window settles in: its legend is judged there, and may move)
    qtbot.waitUntil(lambda: not plot.labels_pending, timeout=3000)
    names = {label.text for label in plot.kernel_labels.labels}
    assert "out = a + b (int8)" in names and len(names) >= 5
    metrics = QFontMetricsF(QFont())
    text_px, line = metrics.horizontalAdvance, metrics.height()

    def check():
        g = plot.label_geometry()
        px, bounds = g.px, g.bounds

        kernel_boxes = [offset_label_box(label, px, text_px, line)
                        for label in plot.kernel_labels.labels]
        # A bandwidth's label along its diagonal covers a staircase of boxes, not its whole
        # enclosing box.
        roof_boxes = [box for label in plot.roof_labels.labels
                      for box in label_footprint(label, g)]
        for i, (a, label) in enumerate(zip(kernel_boxes, plot.kernel_labels.labels, strict=True)):
            inside = bounds[0] <= a[0] and a[2] <= bounds[2] and bounds[1] <= a[1] and a[3] <= bounds[3]
            assert inside, label.text
            assert not any(_overlap(a, b) for b in kernel_boxes[i + 1:])
            assert not any(_overlap(a, r) for r in roof_boxes)

    check()
    window.resize(1280, 800)
    QApplication.processEvents()  # laid out: the labels are placed in the new size (a turn
    # later again where the legend then goes below the chart: the view changes once more)
    qtbot.waitUntil(lambda: not plot.labels_pending, timeout=3000)
    # Most kernels keep a name there: the names shortened to 20 characters and the corners
    # beside a marker are tried too (only 4 of the 9 were named with the sides alone).
    assert len(plot.kernel_labels.labels) >= 6
    check()
    # The View menu's toggle hides them, and it is kept in the settings.
    window.set_kernel_labels(False)
    assert plot.kernel_labels.labels == []
    assert window.settings.get("view/kernel_labels") is False
    window.set_kernel_labels(True)
    assert plot.kernel_labels.labels


def test_one_view_state_in_the_model_observed_by_every_view_and_kept_in_the_settings(
        window, qtbot, settings, example_doc):
    from roofline_gui.models.document_model import DocumentModel
    from roofline_gui.widgets.app.main_window import MainWindow

    model = window.model
    # Set on the model directly (as a script would): the window's views all follow.
    model.set_view(mac=True, derated=True, mode="side_by_side", kernel_labels=False)
    QApplication.processEvents()
    assert window.act_mac.isChecked() and window.act_derated.isChecked()
    assert window.act_side.isChecked() and not window.act_kernel_labels.isChecked()
    assert window.canvas.mode == "side_by_side" and window.canvas.options.ops_per_unit == 2
    assert "MAC/s" in window.table.table_model.headerData(4, Qt.Orientation.Horizontal)
    assert model.comparison.result.derated
    assert all(not p.kernel_labels.labels for p in window.canvas.plots)
    # Kept in the settings: a new window starts with the same view.
    other_model = DocumentModel()
    other_model.reset(example_doc)
    other = MainWindow(settings=settings, model=other_model)
    qtbot.addWidget(other)
    other.settings_restore()
    assert other.model.view == model.view
    with pytest.raises(ValueError, match="view mode 'grid'"):
        model.set_view(mode="grid")


def test_side_by_side_charts_place_names_in_their_own_laid_out_views(window, qtbot):
    from PySide6.QtGui import QFont, QFontMetricsF

    from roofline_gui.core.chart_labels import label_footprint
    from roofline_gui.core.display import boxes_overlap as _overlap
    from roofline_gui.core.display import offset_label_box

    window.set_mode("side_by_side")
    qtbot.wait(200)  # laid out, then the names placed again in each chart's own size ...
    # ... which on a loaded machine can take longer than that
    qtbot.waitUntil(lambda: not any(p.labels_pending for p in window.canvas.plots), timeout=5000)
    metrics = QFontMetricsF(QFont())
    text_px, line = metrics.horizontalAdvance, metrics.height()
    for plot in window.canvas.plots:
        g = plot.label_geometry()
        px, bounds = g.px, g.bounds
        assert plot.kernel_labels.labels
        roofs = [box for r in plot.roof_labels.labels
                 for box in label_footprint(r, g)]
        for label in plot.kernel_labels.labels:
            box = offset_label_box(label, px, text_px, line)
            assert bounds[0] <= box[0] and box[2] <= bounds[2], label.text
            assert not any(_overlap(box, r) for r in roofs), label.text


def test_after_count_macs_the_painted_roofs_move_with_the_markers(window, qtbot):
    """The roof layer's cached image was kept when Count MACs shifted everything by the same
    amount as the axes (a pure translation on log axes): the painted roofs stayed put while the
    markers moved, 2× off their diagonal. Checked on the painted pixels."""
    from PySide6.QtGui import QColor

    def colour_near_diagonal(units_per_op):
        plot, view = window.canvas.overlay_plot, window.canvas.overlay
        plot.finish_pending()
        QApplication.processEvents()
        image = view.viewport().grab().toImage()
        a100 = window.model.document.chips[0]
        bw = a100.dram.bandwidth
        (x_lo, _x_hi), _ = plot.view_range
        x = x_lo * 3  # shown intensity, clear of every marker
        scene = plot.plot.getViewBox().mapViewToScene(QPointF(np.log10(x), np.log10(bw * x)))
        point = view.mapFromScene(scene)
        colours = {QColor(image.pixel(point.x() + dx, point.y() + dy)).name()
                   for dx in range(-2, 3) for dy in range(-2, 3)}
        return a100.color in colours

    assert colour_near_diagonal(1)
    window.set_mac_units(True)
    assert colour_near_diagonal(2)
    window.set_mac_units(False)
    assert colour_near_diagonal(1)


def test_markers_take_their_categorys_shape_and_the_legend_says_which(window):
    from roofline_gui.core.display import symbol_of
    from roofline_gui.widgets.chart.plot_items import ChipLegend

    plot = window.canvas.overlay_plot
    plot.finish_pending()
    cmp = window.model.comparison
    scatter = plot.markers.scatters[cmp.chips[0].id]
    drawn = dict(zip(scatter.data["data"], scatter.data["symbol"], strict=True))
    for kernel in cmp.kernels:
        if kernel.id in drawn:
            assert drawn[kernel.id] == symbol_of(kernel.category), kernel.name
    assert len(set(drawn.values())) >= 3  # the example's kernels are of several categories
    marks = ChipLegend.MARKS  # their own rows
    shapes = [e for e in plot.legend.legend.entries if len(e) == 3 and e[2] not in marks]
    assert {(e[0], e[2]) for e in shapes} == {(k.category, symbol_of(k.category)) for k in cmp.kernels}
    # The legend is painted with them: taller than the chips' lines alone.
    assert plot.legend.legend.height() > (len(cmp.chips) + len(shapes) - 1) * 12


def test_roof_labels_of_near_equal_peaks_do_not_overlap(window, qtbot):
    from roofline_gui.core.chart_labels import label_footprint
    from roofline_gui.core.display import boxes_overlap as _overlap

    presets = window.presets.chips
    window.model.add_chips([presets[i] for i in ("nvidia-h100-sxm5-80gb", "amd-instinct-mi300x")])
    qtbot.wait(200)  # laid out and placed again in the view's pixels
    plot = window.canvas.overlay_plot
    qtbot.waitUntil(lambda: not plot.labels_pending, timeout=5000)  # slower on a loaded machine
    g = plot.label_geometry()
    # The peaks' labels, in the key: a line apart, in their roofs' order, as drawn.
    spots = plot.key.axis.shown_spots()
    assert len(spots) >= 6
    assert [roof for _t, roof, _y in spots] == sorted(roof for _t, roof, _y in spots)
    middles = [y for _t, _roof, y in spots]
    assert all(b - a >= g.line - 0.5 for a, b in zip(middles, middles[1:], strict=False)), spots
    # Nor the main-memory diagonals' labels of near-equal bandwidths (HBM3 5.3 and 3.35 TB/s).
    drams = {chip.dram.name for chip in window.model.document.chips}
    diagonal = [label for label in plot.roof_labels.labels
                if label.along is not None and label.text.split(" ")[0] in drams]
    assert len(diagonal) == 4
    # Slanted texts: their footprints (a staircase along the text), not their enclosing boxes.
    footprints = [label_footprint(label, g) for label in plot.roof_labels.labels]
    for i, a in enumerate(footprints):
        for j, b in enumerate(footprints[i + 1:], i + 1):
            assert not any(_overlap(p, q) for p in a for q in b), (
                plot.roof_labels.labels[i].text, plot.roof_labels.labels[j].text)


def test_the_peaks_key_lies_outside_the_view_beside_each_roofs_end(window, qtbot):
    """In the H100 / MI300X example the MI300X's GEMM squares sat at the right end of its roofs,
    on their labels (and on the H100's fp8 label just below). The peaks' labels are now in the
    key right of the view: each text outside it, its elbow starting where its roof meets the
    view's right edge, so no marker, line or other label can lie under it."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QFont, QFontMetricsF

    from roofline_gui.widgets.app.file_actions import examples

    window.files.open(str(next(p for p in examples() if p.stem == "h100-vs-mi300x-llm")))
    plot = window.canvas.overlay_plot
    qtbot.waitUntil(lambda: not plot.labels_pending and not window.canvas.drawing, timeout=5000)
    axis, view = plot.key.axis, plot.plot.getViewBox()
    texts = [lb.text for lb in plot.key.labels]
    assert "fp8 2.615 Pop/s" in texts and "fp8 1.979 Pop/s" in texts, texts
    view_right = view.mapRectToScene(view.boundingRect()).right()
    assert abs(axis.mapToScene(QPointF(0.0, 0.0)).x() - view_right) < 1.0  # the key's left edge
    height = QFontMetricsF(QFont()).height()
    for label, (text, roof_y, text_y) in zip(plot.key.labels, axis.shown_spots(), strict=True):
        end = view.mapViewToScene(QPointF(view.viewRange()[0][1], label.y))
        assert abs(axis.mapToScene(QPointF(0.0, roof_y)).y() - end.y()) < 0.5, text
        assert abs(text_y - roof_y) < 4 * height, text  # spread, but beside its roof
        assert axis.width() >= QFontMetricsF(QFont()).horizontalAdvance(text), text
        chip = window.model.comparison.chips[label.chips[0]]  # hovered, it names its chip
        assert len(label.chips) == 1 and axis.tip_at(text_y) == f"{chip.name}: {text}"
    assert axis.tip_at(-1000.0) == ""


def test_roof_labels_keep_clear_of_the_points_per_memory_level(window, qtbot):
    """With View → Memory levels, "PCIe Gen3 x16 16 GB/s each way" sat on the TPU v3's point at
    the host link's intensity (the tour): the labels keep clear of every level's points too."""

    window.model.set_view(memory_levels=True)
    plot = window.canvas.overlay_plot
    for width, height in ((1264, 752), (1500, 940)):
        window.resize(width, height)
        qtbot.wait(50)
        qtbot.waitUntil(lambda: not plot.labels_pending and not window.canvas.drawing, timeout=5000)
        _labels_clear_of_level_points(plot)


def _labels_clear_of_level_points(plot):
    from roofline_gui.core.chart_labels import label_footprint
    from roofline_gui.core.display import boxes_overlap as _overlap

    levels = plot.scene.spec.levels
    assert levels is not None and len(levels)
    g = plot.label_geometry()
    with np.errstate(divide="ignore", invalid="ignore"):
        xs, ys = np.log10(levels.x) * g.px[0], -np.log10(levels.y) * g.px[1]
    points = [(x - 4, y - 4, x + 4, y + 4) for x, y in zip(xs, ys, strict=True)
              if np.isfinite(x) and np.isfinite(y)]
    labels = plot.roof_labels.labels
    assert any("each way" in label.text for label in labels), [la.text for la in labels]
    # a slanted label's footprint: the boxes along its text (its bounding box is mostly empty)
    covering = [label.text for label in labels
                if any(_overlap(box, p) for box in label_footprint(label, g) for p in points)]
    assert not covering, covering
