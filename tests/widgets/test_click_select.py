"""A click on a marker selects its kernel and its chip, whatever layer is drawn over it: the
points per memory level, the selection ring, another chip's marker. One hit test serves every
layer (RooflinePlot.pick_at); these tests click with the mouse, in overlay and side by side."""

import numpy as np
import pytest
from helpers import mouse
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication


def _spots(window):
    """{(kernel id, chip id): (viewport widget, point in it)} of every drawn marker."""
    cmp, out = window.model.comparison, {}
    for plot in window.canvas.plots:
        vb = plot.plot.getViewBox()
        view = plot.plot.scene().views()[0]
        for c in plot._chip_indices:
            for k, kernel in enumerate(cmp.kernels):
                x, y = np.log10(cmp.dram_intensity[k]), np.log10(cmp.result.attainable[k, c])
                if np.isfinite(x) and np.isfinite(y):
                    pos = QPointF(view.mapFromScene(vb.mapViewToScene(QPointF(x, y))))
                    out[kernel.id, cmp.chips[c].id] = (view.viewport(), pos)
    return out


def _sizes(scatter) -> dict:
    """{kernel id: its marker's size in px} of a chip's marker item (-1: the item's own)."""
    return {kid: (s if s >= 0 else scatter.opts["size"])
            for kid, s in zip(scatter.data["data"], scatter.data["size"].tolist(), strict=True)}


def _click(widget, pos):
    mouse(widget, QEvent.Type.MouseButtonPress, pos)
    mouse(widget, QEvent.Type.MouseButtonRelease, pos, Qt.MouseButton.NoButton)
    QApplication.processEvents()


@pytest.mark.parametrize("mode", ["overlay", "side_by_side"])
@pytest.mark.parametrize("levels", [True, False])
def test_a_click_on_a_marker_selects_its_kernel_and_its_chip(window, mode, levels):
    model = window.model
    model.set_view(mode=mode, memory_levels=levels)
    for _ in range(5):
        QApplication.processEvents()
    spots = _spots(window)
    # markers alone on their spot (no other marker within 12 px in the same chart)
    alone = [key for key, (w, p) in spots.items()
             if not any(w2 is w and o != key and (p2 - p).manhattanLength() < 12
                        for o, (w2, p2) in spots.items())]
    kernels = {k for k, _c in alone}
    both = [k for k in kernels if all((k, c.id) in alone for c in model.document.chips)]
    assert len(both) >= 2, alone
    if levels and mode == "overlay":  # the case the tour met: points per level over the markers
        assert len(window.canvas.plots[0].levels.spots()[0]) > 0
    for kernel_id in both:
        for chip in (*model.document.chips, *reversed(model.document.chips)):
            widget, pos = spots[kernel_id, chip.id]
            _click(widget, pos)
            assert (model.selected_kernel, model.selected_chip) == (kernel_id, chip.id), (
                kernel_id, chip.id)


def test_the_selected_chips_ring_is_the_bold_one(window):
    """Rings of one weight round the selected kernel on every chip did not say which chip was
    selected (the tour): the selected chip's is bold and larger."""
    model = window.model
    cmp = model.comparison
    k = next(k for k in range(len(cmp.kernels))
             if all(np.isfinite(cmp.result.attainable[k, c]) for c in range(len(cmp.chips))))
    for chip in model.document.chips:
        model.select(cmp.kernels[k].id, chip.id)
        QApplication.processEvents()
        ring = window.canvas.plots[0].overlays.ring
        pens = zip(ring.data["data"], ring.data["pen"], strict=True)
        widths = {data[1]: pen.widthF() for data, pen in pens}
        chosen = [c.id for c in model.document.chips].index(chip.id)
        assert widths[chosen] == 3 and all(w == 1 for c, w in widths.items() if c != chosen)
    # side by side each chart rings its own chip: the selected chip's chart alone bold (all were
    # bold there, so the charts did not say which chip was selected: the sixth tour)
    model.set_view(mode="side_by_side")
    for chip in model.document.chips:
        model.select(cmp.kernels[k].id, chip.id)
        QApplication.processEvents()
        chosen = [c.id for c in model.document.chips].index(chip.id)
        for plot in window.canvas.plots:
            ring = plot.overlays.ring
            ((data, pen),) = zip(ring.data["data"], ring.data["pen"], strict=True)
            assert data[1] in plot._chip_indices
            assert pen.widthF() == (3 if data[1] == chosen else 1), (chip.name, data)
            title = plot.plot.titleLabel  # and its chip's name in bold over the chart
            assert bool(title.opts.get("bold")) == (data[1] == chosen), (chip.name, title.text)


def test_a_click_on_a_workloads_point_selects_the_workload_and_that_chip(window, qtbot):
    """The tour: with B200 selected, a click on the workload's point on the H200 went on
    explaining the B200. The point stands for the workload on its chip."""
    from roofline_gui.io.presets import default_presets
    from roofline_gui.io.workloads import shipped_workloads

    model = window.model
    presets = default_presets().chips
    model.add_chips([presets["nvidia-h200-sxm-141gb"], presets["nvidia-b200"]])
    wid, = model.add_workloads([shipped_workloads()["llama-3-8b"].workload("w1")])
    for _ in range(5):
        QApplication.processEvents()
    plot = window.canvas.plots[0]
    vb = plot.plot.getViewBox()
    view = plot.plot.scene().views()[0]
    r = model.workload_result(wid)
    chips = model.document.chips
    for target in (chips[-2], chips[-1], chips[-2]):
        other = chips[-1] if target is chips[-2] else chips[-2]
        model.select(wid, other.id)
        c = chips.index(target)
        x, y = np.log10(r.intensity), np.log10(r.attainable[c])
        pos = QPointF(view.mapFromScene(vb.mapViewToScene(QPointF(x, y))))
        _click(view.viewport(), pos)
        assert (model.selected_kernel, model.selected_chip) == (wid, target.id)


def test_a_click_on_a_chips_bar_in_the_breakdown_selects_that_chip(window, qtbot):
    """The breakdown's bars selected nothing (the tour): a click on a chip's bar, or on its
    name beside it, selects that chip and keeps the workload; a band marks it; a click in the
    empty space below the bars changes nothing."""
    from roofline_gui.io.workloads import shipped_workloads

    model = window.model
    wid, = model.add_workloads([shipped_workloads()["llama-3-8b"].workload("w1")])
    chips = [c for c in model.document.chips if c.visible]
    assert len(chips) >= 2
    model.select(wid, chips[0].id)
    charts = window.breakdown
    charts.show()
    charts.resize(700, 400)
    charts.refresh()
    QApplication.processEvents()
    vb = charts.bars.getViewBox()
    view = charts.bars
    assert charts._row_chips == [c.id for c in chips]
    for row in (1, 0, len(chips) - 1):
        x = 0.3 * charts._x_top
        pos = QPointF(view.mapFromScene(vb.mapViewToScene(QPointF(x, row))))
        _click(view.viewport(), pos)
        assert (model.selected_kernel, model.selected_chip) == (wid, chips[row].id)
        assert list(charts._chosen_band.opts["y"]) == [row]
    axis = charts.bars.getAxis("left")  # the chip's name beside its bar
    name = QPointF(view.mapFromScene(axis.mapToScene(axis.boundingRect().center().x(), 0)))
    name.setY(view.mapFromScene(vb.mapViewToScene(QPointF(0, 1))).y())
    _click(view.viewport(), name)
    assert model.selected_chip == chips[1].id


def test_ctrl_a_and_ctrl_c_in_why_it_sits_there_are_the_texts_own(window, qtbot):
    """Ctrl+A in the explanation selected every kernel (Edit → Select All Kernels) and Ctrl+C
    then copied a kernel's name (the tour): with the text in focus they select and copy it."""
    from PySide6.QtTest import QTest

    pane = window.explanation
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=2000)
    pane.setFocus()
    qtbot.waitUntil(pane.hasFocus, timeout=2000)
    selected = window.model.selected_kernel
    QTest.keyClick(pane, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert pane.textCursor().selectedText() and window.model.selected_kernel == selected
    QApplication.clipboard().clear()
    QTest.keyClick(pane, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    copied = QApplication.clipboard().text()
    assert "memory-bound" in copied or "compute-bound" in copied, copied[:80]


def test_ctrl_a_in_a_kernels_formula_selects_the_formula_not_every_kernel(window, qtbot):
    """The same for every read-only text of the window's panels: one mechanism
    (widgets.common.text_keys), here the kernel form's formula."""
    from PySide6.QtTest import QTest

    model = window.model
    model.select(model.document.kernels[0].id, None)
    window.docks["kernels"].raise_()
    box = window.kernels.form.formula
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=2000)
    box.setFocus()
    qtbot.waitUntil(box.hasFocus, timeout=2000)
    QTest.keyClick(box, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert box.textCursor().selectedText()
    assert len(window.kernels.list.selectionModel().selectedRows()) <= 1  # not every kernel


def test_a_marker_on_another_chips_is_drawn_smaller_and_both_can_be_clicked(window, qtbot):
    """Two chips with the same roofs put every kernel's markers on one point: the chip drawn
    on top draws its marker smaller, so the one beneath shows as a ring round it (the tour saw
    the V100's markers hide under the TPU v3's with no sign); a click selects the chip on top,
    a click again on the same point the chip beneath, and so on round the stack."""
    from roofline_gui.core.document import Document

    model = window.model
    model.reset(Document())
    a100 = window.presets.chips["nvidia-a100-sxm4-40gb"]
    model.add_chips([a100, a100])
    model.add_kernels([window.presets.kernels["add-int8"], window.presets.kernels["gemm-4k-bf16"]])
    model.set_view(mode="overlay", memory_levels=False)
    qtbot.waitUntil(lambda: not window.canvas.drawing)
    for _ in range(5):
        QApplication.processEvents()
    below, above = model.document.chips
    markers = window.canvas.overlay_plot.markers.scatters
    sizes = {chip.id: sorted(set(_sizes(markers[chip.id]).values())) for chip in (below, above)}
    assert sizes[below.id] == [10.0] and max(sizes[above.id]) < 10.0, sizes
    spots = _spots(window)
    for kernel in model.document.kernels:
        widget, pos = spots[kernel.id, above.id]
        assert (pos - spots[kernel.id, below.id][1]).manhattanLength() < 1  # one point
        model.select(None, None)
        for chip in (above, below, above):
            _click(widget, pos)
            assert (model.selected_kernel, model.selected_chip) == (kernel.id, chip.id)


def test_a_click_near_a_stacks_edge_goes_through_the_smaller_marker_too(window, qtbot):
    """The twenty-first tour clicked again and again a few pixels off the centre of the V100's
    marker of "5, 6", which the TPU v3's smaller one lies on: the clicks went between the
    V100's two kernels there, never to the TPU v3, which the tooltip named. A click reaches
    every marker on the centre of the one it hit."""
    from roofline_gui.core.document import Document

    model = window.model
    model.reset(Document())
    a100 = window.presets.chips["nvidia-a100-sxm4-40gb"]
    model.add_chips([a100, a100])
    model.add_kernels([window.presets.kernels["add-int8"]])
    model.set_view(mode="overlay", memory_levels=False)
    qtbot.waitUntil(lambda: not window.canvas.drawing)
    for _ in range(5):
        QApplication.processEvents()
    below, above = model.document.chips
    kernel = model.document.kernels[0]
    markers = window.canvas.overlay_plot.markers.scatters
    small = min(_sizes(markers[above.id]).values())
    assert small < 10.0
    widget, pos = _spots(window)[kernel.id, below.id]
    edge = pos + QPointF(4.5, 0.0)  # inside the big one (10 px across), off the small one
    plot = window.canvas.overlay_plot
    at = plot.plot.scene().views()[0].mapToScene(edge.toPoint())
    hit = markers[above.id].pointsAt(markers[above.id].mapFromScene(at))
    assert not len(hit)  # the case: the click is off the smaller marker
    assert set(plot.stack_at(at)) == {(kernel.id, below.id), (kernel.id, above.id)}
    chosen = set()
    for _ in range(3):
        _click(widget, edge)
        assert model.selected_kernel == kernel.id
        chosen.add(model.selected_chip)
    assert chosen == {below.id, above.id}


def test_two_kernels_on_one_point_of_a_chip_show_both_and_a_click_goes_through_them(window,
                                                                                   qtbot):
    """Two kernels at the same intensity and rate on one chip (the article's 2 and 5 on the
    A100: one marker hid the other, the ninth tour): the one drawn on top is smaller, so the
    one beneath shows as a ring; its tooltip names the other; a click selects the top one, a
    click again the one beneath, and round again."""
    from roofline_gui.core.document import Document

    model = window.model
    model.reset(Document())
    model.add_chips([window.presets.chips["nvidia-a100-sxm4-40gb"]])
    from dataclasses import replace

    add = window.presets.kernels["add-int8"]
    model.add_kernels([add, replace(add.with_params(n=2 * add.params["n"]), name="twice as long"),
                       window.presets.kernels["gemm-4k-bf16"]])
    model.set_view(mode="overlay", memory_levels=False)
    qtbot.waitUntil(lambda: not window.canvas.drawing)
    for _ in range(5):
        QApplication.processEvents()
    chip = model.document.chips[0]
    first, second, gemm = model.document.kernels
    scatter = window.canvas.overlay_plot.markers.scatters[chip.id]
    size = _sizes(scatter)
    assert size[first.id] == size[gemm.id] == 10.0 and size[second.id] < 10.0
    # in the same colour, the upper marker is edged in the background's: the ring beneath
    # reads apart from it (the tenth tour saw one marker)
    pens = {kid: scatter.data["pen"][i] for i, kid in enumerate(scatter.data["data"])}
    background = QColor(window.canvas.overlay_plot.options.background)
    assert pens[second.id].color() == background and pens[first.id].color() != background
    tip = scatter.opts["tip"](0.0, 0.0, second.id)
    assert "on the same point: " + first.name in tip
    assert "on the same point" not in scatter.opts["tip"](0.0, 0.0, gemm.id)
    spots = _spots(window)
    widget, pos = spots[second.id, chip.id]
    assert (pos - spots[first.id, chip.id][1]).manhattanLength() < 1  # one point
    model.select(None, None)
    for kernel in (second, first, second):
        _click(widget, pos)
        assert (model.selected_kernel, model.selected_chip) == (kernel.id, chip.id)


def test_the_arrow_keys_in_the_table_select_as_a_click_does(window, qtbot):
    """The tour moved the table's current cell with the arrow keys to the TPU v3's column and
    the explanation still told of the A100: a move of the current cell selects its kernel and
    its chip, as a click does."""
    from PySide6.QtTest import QTest

    model, table = window.model, window.table
    view, cells = table.view, table.table_model
    cmp = model.comparison
    first, second = cmp.chips[0], cmp.chips[1]
    model.select(cmp.kernels[0].id, first.id)
    QApplication.processEvents()
    view.setFocus()
    start = view.currentIndex()
    assert cells.locate(start.column()) == (0, "attainable")
    while cells.locate(view.currentIndex().column()) != (1, "attainable"):
        QTest.keyClick(view, Qt.Key.Key_Right)
        assert view.currentIndex().column() > start.column()
    assert (model.selected_kernel, model.selected_chip) == (cmp.kernels[0].id, second.id)
    assert f"on {second.name}" in window.explanation.toPlainText().splitlines()[0]
    QTest.keyClick(view, Qt.Key.Key_Down)
    assert model.selected_kernel == cells.row_id(view.currentIndex().row()) != cmp.kernels[0].id
    assert model.selected_chip == second.id
    # in another of the chip's columns, Down stays in it (it jumped back to op/s: the tour)
    QTest.keyClick(view, Qt.Key.Key_Right)
    column = view.currentIndex().column()
    assert cells.locate(column)[0] == 1 and cells.locate(column)[1] != "attainable"
    QTest.keyClick(view, Qt.Key.Key_Down)
    QApplication.processEvents()
    assert view.currentIndex().column() == column
    assert model.selected_kernel == cells.row_id(view.currentIndex().row())


def test_the_energy_chart_rings_the_selected_kernel_and_a_click_through_the_ring_selects(window, qtbot):
    """The Energy view marked nothing selected (the fourth tour): the selected kernel is ringed
    on every chip, the ring follows the selection, and a click on its point on another chip,
    through the ring, selects that chip."""
    model = window.model
    window.act_energy.trigger()
    chart = window.canvas.energy_chart
    qtbot.waitUntil(lambda: not chart.pending)
    chart.refresh()
    cmp = model.comparison
    vb = chart.plot.getPlotItem().getViewBox()
    view = chart.plot

    def spot(kernel, chip):
        x, y = chart.points[f"{kernel.id}@{chip.id}"]
        return QPointF(view.mapFromScene(vb.mapViewToScene(QPointF(np.log10(x), np.log10(y)))))

    on_all = [k for k in cmp.kernels
              if all(f"{k.id}@{chip.id}" in chart.points for chip in cmp.chips)]
    assert len(on_all) >= 2
    for kernel in on_all[:2]:
        model.select(kernel.id, cmp.chips[0].id)
        ringed = {(round(x, 9), round(y, 9)) for x, y in zip(*chart.ring.getData(), strict=True)}
        want = {(round(float(np.log10(x)), 9), round(float(np.log10(y)), 9))
                for key, (x, y) in chart.points.items() if key.startswith(kernel.id + "@")}
        assert ringed == want
        bold = [spot.pen().widthF() for spot in chart.ring.points()]
        assert sorted(bold)[-1] == 3 and bold.count(3) == 1  # the selected chip's, alone
    kernel = on_all[1]
    vb.updateAutoRange()  # pyqtgraph fits the range at the next paint; the clicks need it now
    spots = {chip.id: spot(kernel, chip) for chip in cmp.chips}
    for chip in cmp.chips[1:]:  # a point alone on its spot, under the ring
        if all((spots[chip.id] - p).manhattanLength() >= 12 for c, p in spots.items() if c != chip.id):
            _click(view.viewport(), spots[chip.id])
            assert (model.selected_kernel, model.selected_chip) == (kernel.id, chip.id)
            break
    else:
        pytest.fail("no point of the kernel alone on its spot")
    window.act_overlay.trigger()


def test_the_energy_charts_selected_point_is_drawn_over_another_chips_at_its_spot(window, qtbot):
    """The sixth tour: with eight chips the MI300X's pink dot lay over the B200's under the
    B200's bold ring. The selected chip's point is drawn again on top, and a click on the stack
    keeps the selection rather than jumping to the dot beneath."""
    model = window.model
    first = model.document.chips[0]
    (twin_id,) = model.add_chips([first])  # the same figures: every point on first's spot
    twin = model.document.chip(twin_id)
    assert twin.color != first.color
    window.act_energy.trigger()
    chart = window.canvas.energy_chart
    qtbot.waitUntil(lambda: not chart.pending)
    chart.refresh()
    kernel = next(k for k in model.comparison.kernels
                  if f"{k.id}@{first.id}" in chart.points and f"{k.id}@{twin_id}" in chart.points)
    assert chart.points[f"{kernel.id}@{first.id}"] == chart.points[f"{kernel.id}@{twin_id}"]
    vb = chart.plot.getPlotItem().getViewBox()
    vb.updateAutoRange()
    x, y = chart.points[f"{kernel.id}@{first.id}"]
    at = QPointF(chart.plot.mapFromScene(vb.mapViewToScene(QPointF(np.log10(x), np.log10(y)))))
    for chip in (first, twin, first):
        model.select(kernel.id, chip.id)
        QApplication.processEvents()
        (top,) = chart.lifted.points()
        assert top.brush().color().name() == chip.color.lower(), chip.name
        others = [it for it in chart.plot.getPlotItem().items if it is not chart.lifted]
        assert all(chart.lifted.zValue() > it.zValue() for it in others)  # over every item
        _click(chart.plot.viewport(), at)  # on the stack: the one on top stays selected
        assert (model.selected_kernel, model.selected_chip) == (kernel.id, chip.id)
    window.act_overlay.trigger()


def test_clicks_again_on_a_stack_of_three_go_round_all_three(window, qtbot):
    """The article's V100 point at 1 op/B holds kernel 2 on the V100 and "5, 6" on the V100 and
    on the TPU v3 (the tooltip names all three). Clicks went between the V100's two and never
    to the TPU v3: the stack's order, by distance, changed with the selection (the selected
    marker is drawn on top). Clicks on one spot go round every marker there, in turn."""
    from roofline_gui.widgets.app.file_actions import examples

    model = window.model
    window.files.open(str(next(p for p in examples() if p.stem == "the-article-claim-by-claim")))
    qtbot.waitUntil(lambda: model.document.kernels and not window.canvas.drawing, timeout=5000)
    model.set_view(mode="overlay", memory_levels=False)
    qtbot.waitUntil(lambda: not window.canvas.drawing)
    for _ in range(5):
        QApplication.processEvents()
    chips = {c.name: c.id for c in model.document.chips}
    kernels = {k.name.split(" · ")[0]: k.id for k in model.comparison.kernels}
    widget, pos = _spots(window)[kernels["2"], chips["V100 SXM2 16GB"]]
    stack = {(kernels["2"], chips["V100 SXM2 16GB"]), (kernels["5, 6"], chips["V100 SXM2 16GB"]),
             (kernels["5, 6"], chips["TPU v3"])}
    chosen = []
    for _ in range(6):
        _click(widget, pos)
        chosen.append((model.selected_kernel, model.selected_chip))
    assert set(chosen[:3]) == stack and chosen[3:] == chosen[:3]  # each once, then round again
