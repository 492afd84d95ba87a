"""The Serving view: the selected transformer's frontier on every shown chip, its fields editing
the workload (one undo step each), the TPOT line dragged, a point clicked."""

from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from roofline_gui.core.edits import Replace
from roofline_gui.core.workload_eval import communication_dominates_at, evaluate_workloads
from roofline_gui.core.workload_view import explain_workload
from roofline_gui.io.presets import default_presets
from roofline_gui.io.workloads import shipped_workloads
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.widgets.panels.serving_panel import ServingPanel


@pytest.fixture
def panel(qtbot):
    model = DocumentModel()
    chips = default_presets().chips
    model.add_chips([chips["nvidia-h200-sxm-141gb"], chips["nvidia-b200"]])
    wid, = model.add_workloads([shipped_workloads()["llama-3-70b"].workload(
        "w1", weights="fp8", activations="fp8", kv_cache="fp8", tpot_limit=0.05)])
    model.select(wid, model.document.chips[1].id)
    view = ServingPanel(model)
    qtbot.addWidget(view)
    view.show()
    view.refresh()
    view._write_words()  # written once the view holds still
    return view


def _settle(view):
    for _ in range(5):
        QApplication.processEvents()
    view.refresh()
    view._write_words()


def test_the_view_draws_each_chips_frontier_and_says_the_best_point(panel):
    r = panel.result
    assert r is not None and [c.name for c in r.chips] == ["H200 SXM 141GB", "B200"]
    assert panel.edits["tpot_limit"].value() == pytest.approx(50.0)
    best = r.best(1)
    text = panel.words.text()
    assert "served on B200" in text and f"{r.tokens_per_chip[1, best]:,.0f}" in text
    assert "What would move it" in text
    assert np.isclose(10 ** panel.tpot_line.value(), 20.0)  # 1 / 50 ms


def test_a_zero_says_what_it_means(panel):
    """"Prefill chips x = 0" read as no chips (the eighteenth tour): 0 is a shared pool, no
    drafting, no limit, each said in words."""
    edits = panel.edits
    assert edits["prefill_chips"].value() == 0 and edits["prefill_chips"].text() == "shared (0)"
    assert edits["decode_chips"].text() == "shared (0)"
    assert edits["draft_tokens"].value() == 0 and edits["draft_tokens"].text() == "off (0)"
    edits["draft_tokens"].setValue(2)
    assert edits["draft_tokens"].text() == "2"


def test_fields_edit_the_workload_and_undo_puts_it_back(panel):
    model = panel.model
    panel.edits["input_tokens"].setValue(2000)
    assert model.document.workloads[0].input_tokens == 2000
    panel.edits["tpot_limit"].setValue(20.0)
    assert model.document.workloads[0].tpot_limit == pytest.approx(0.02)
    model.undo_stack.undo()
    model.undo_stack.undo()
    assert model.document.workloads[0].input_tokens == 1000
    panel.edits["acceptance"].setValue(0.5)  # without draft tokens: refused, said so
    _settle(panel)
    assert model.document.workloads[0].acceptance == 0.0 and "refused" in panel.refused.text()
    assert panel.edits["acceptance"].value() == 0.0  # the field shows the workload's own again
    panel.edits["draft_tokens"].setValue(3)
    panel.edits["acceptance"].setValue(0.7)
    assert (model.document.workloads[0].draft_tokens, model.document.workloads[0].acceptance) == (
        3, 0.7)


def test_dragging_the_tpot_line_sets_the_limit(panel):
    panel.tpot_line.setValue(np.log10(40.0))  # 40 tokens/s per user: 25 ms
    panel.tpot_line.sigPositionChangeFinished.emit(panel.tpot_line)
    assert panel.model.document.workloads[0].tpot_limit == pytest.approx(0.025)


def test_a_click_on_a_point_selects_its_chip_and_serves_its_users(panel):
    model = panel.model
    r = panel.result
    scatter = next(item for item in panel.plot.getPlotItem().items
                   if hasattr(item, "points") and len(item.points())
                   and item.points()[0].data() == (0, 0))
    spot = next(p for p in scatter.points() if p.data() == (0, 2))
    said = []
    model.sig_status.connect(said.append)
    panel._on_click(scatter, [spot])
    assert "decode step alone" in said[-1] and f"{r.tokens_per_chip[0, 2]:,.0f}" in said[-1]
    w = model.document.workloads[0]
    assert model.selected_chip == model.document.chips[0].id
    assert (w.batch, w.context) == (int(r.concurrency[2]), 1500)


def _laid_out(panel):
    """The panel at a size with room, its range fitted now (the clicks need it): the model,
    the chart, its view box and the view that takes the mouse."""
    panel.resize(1100, 420)
    _settle(panel)
    vb = panel.chart.plot.getPlotItem().getViewBox()
    vb.updateAutoRange()
    return panel.model, panel.chart, vb, panel.chart.plot


def test_a_mouse_click_on_a_ringed_best_point_selects_it(panel):
    """The best point's ring lies over its point and took the click (nothing happened): the
    mouse on a ringed point sets the workload to its users, as on any other point."""
    from helpers import mouse
    from PySide6.QtCore import QEvent, QPointF, Qt

    model, chart, vb, view = _laid_out(panel)
    ring = chart.rings.points()[0]
    c, k = ring.data()
    pos = QPointF(view.mapFromScene(vb.mapViewToScene(ring.pos())))
    model.select(model.document.workloads[0].id, model.document.chips[1 - c].id)
    mouse(view.viewport(), QEvent.Type.MouseButtonPress, pos)
    mouse(view.viewport(), QEvent.Type.MouseButtonRelease, pos, Qt.MouseButton.NoButton)
    QApplication.processEvents()
    assert model.selected_chip == model.document.chips[c].id
    assert model.document.workloads[0].batch == int(panel.result.concurrency[k])


def test_a_click_in_a_best_points_ring_chooses_it_and_the_chosen_point_is_boxed(panel):
    """The sixth tour clicked a ringed best point (448 users on the B200) and got its neighbour,
    449, whose caches do not fit: a click went to the point nearest the pointer, and at the top
    of a curve they lie a pixel or two apart. A click anywhere in the ring chooses its point; the
    point the roofline then shows is boxed, on the selected chip's curve."""
    from helpers import mouse
    from PySide6.QtCore import QEvent, QPointF, Qt

    model, chart, vb, view = _laid_out(panel)
    for ring in chart.rings.points():
        c, k = ring.data()
        centre = QPointF(view.mapFromScene(vb.mapViewToScene(ring.pos())))
        for dx, dy in ((5, 0), (-5, 3), (0, -6)):  # off its centre, inside the 16 px ring
            model.select(model.document.workloads[0].id, model.document.chips[1 - c].id)
            pos = centre + QPointF(dx, dy)
            mouse(view.viewport(), QEvent.Type.MouseButtonPress, pos)
            mouse(view.viewport(), QEvent.Type.MouseButtonRelease, pos, Qt.MouseButton.NoButton)
            _settle(panel)
            w = model.document.workloads[0]
            assert model.selected_chip == model.document.chips[c].id
            assert w.batch == int(panel.result.concurrency[k]), (c, dx, dy, w.batch)
            (box,) = chart.current.points()
            assert (box.pos().x(), box.pos().y()) == pytest.approx(
                (ring.pos().x(), ring.pos().y()))
    # another chip selected: the box on its curve at the same users, or none where they are
    # not on it
    c = 1 - chart.rings.points()[-1].data()[0]
    model.select(model.document.workloads[0].id, model.document.chips[c].id)
    _settle(panel)
    r, w = panel.result, model.document.workloads[0]
    at = np.flatnonzero(r.concurrency == w.batch)
    boxes = chart.current.points()
    if len(at) and np.isfinite(r.tokens_per_chip[c, at[0]]):
        assert len(boxes) == 1
        assert boxes[0].pos().x() == pytest.approx(np.log10(r.tokens_per_user[c, at[0]]))
    else:
        assert len(boxes) == 0


def test_measured_points_are_drawn_and_weighed_against_the_bound(panel, tmp_path):
    r = panel.result
    k = 3
    path = tmp_path / "m.csv"
    path.write_text("chip,tokens_per_s_per_user,tokens_per_s_per_chip,source\n"
                    f"B200,{r.tokens_per_user[1, k]:.3f},{0.5 * r.tokens_per_chip[1, k]:.1f},"
                    "a vendor table\n")
    assert panel.import_measured(str(path))
    panel._write_words()
    assert "Measured points" in panel.words.text() and "50% of the bound" in panel.words.text()
    stars = [item for item in panel.plot.getPlotItem().items
             if hasattr(item, "points") and len(item.points())
             and item.points()[0].symbol() == "star"]
    assert len(stars) == 1
    bad = tmp_path / "bad.csv"
    bad.write_text("chip,speed\nB200,3\n")
    assert not panel.import_measured(str(bad))
    assert "lacks tokens_per_s_per_user" in panel.refused.text()
    assert len(panel.measured) == 1  # the points before stay


def test_the_chips_are_named_and_a_small_move_keeps_the_axes(panel):
    assert [label.text for _sample, label in panel.chart.legend.items] == ["H200 SXM 141GB", "B200"]
    vb = panel.plot.getPlotItem().getViewBox()
    before = vb.viewRange()
    panel.edits["input_tokens"].setValue(1100)  # a step of the field: the frontier moves a little
    panel.refresh()
    assert vb.viewRange() == before
    panel.edits["output_tokens"].setValue(20)  # far fewer tokens a request: refitted
    panel.refresh()
    (x0, x1), (y0, y1) = vb.viewRange()
    xs, ys = panel.chart.points.getData()
    assert vb.viewRange() != before and x0 < xs.min() and xs.max() < x1
    assert y0 < ys.min() and ys.max() < y1


def test_the_side_charts_grid_is_drawn_opaque():
    """Translucent grid lines are blended pixel by pixel by Qt's raster engine (8 of the 14 ms
    of a Serving view repaint): the side charts draw them in the colour they make on white."""
    from PySide6.QtGui import QImage, QPainter

    from roofline_gui.widgets.common.axes import log_plot

    plot = log_plot()
    plot.resize(400, 300)
    plot.showGrid(True, True, 0.25)
    plot.getPlotItem().setRange(xRange=(0, 3), yRange=(0, 3))
    image = QImage(400, 300, QImage.Format.Format_ARGB32)
    axis = plot.getAxis("left")
    painter = QPainter(image)
    try:
        _axis, ticks, _texts = axis.generateDrawSpecs(painter)
        axis.background = None  # as pyqtgraph draws them
        _axis, translucent, _texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    assert any(pen.color().alpha() < 255 for pen, _a, _b in translucent)
    assert len(ticks) == len(translucent)
    for (pen, _a, _b), (seen, _c, _d) in zip(ticks, translucent, strict=True):
        share, c = seen.color().alphaF(), seen.color()
        assert pen.color().alpha() == 255
        assert abs(pen.color().red() - (share * c.red() + (1 - share) * 255)) <= 1


def test_measured_points_are_the_sessions_and_undo_takes_them_back(panel, tmp_path):
    model = panel.model
    r = panel.result
    path = tmp_path / "m.csv"
    path.write_text("chip,tokens_per_s_per_user,tokens_per_s_per_chip\n"
                    f"H200 SXM 141GB,{r.tokens_per_user[0, 2]:.3f},100\n")
    assert panel.import_measured(str(path))
    assert panel.import_measured(str(path))  # the same file again adds nothing
    assert len(model.document.serving_measured) == 1
    assert model.serving_only  # no other view moves for it
    panel.refresh()
    assert len(panel.chart.stars.points()) == 1
    model.undo_stack.undo()
    _settle(panel)
    assert model.document.serving_measured == () and len(panel.chart.stars.points()) == 0
    model.undo_stack.redo()
    panel.remove_measured()
    assert model.document.serving_measured == ()


def test_the_window_exports_the_serving_view(window, tmp_path, monkeypatch):
    """File → Export Serving View: the chart titled with its workload, requests and limits as
    PNG, SVG and PDF; its points as the workloads CSV's columns, one row per chip and
    concurrency, the same rows the command line writes."""
    import csv

    from PySide6.QtGui import QImage

    from roofline_gui.core.serving import serving_rows
    from roofline_gui.core.workload_eval import WORKLOAD_CSV_COLUMNS
    from roofline_gui.widgets.app.file_actions import FileDialogs

    monkeypatch.setattr(FileDialogs, "png_width", classmethod(lambda cls, *a, **k: 1000))
    monkeypatch.setattr("roofline_gui.widgets.common.dialogs.Confirm.error",
                        classmethod(lambda cls, parent, title, text: errors.append(text)))
    errors: list[str] = []
    target = tmp_path / "none.png"
    monkeypatch.setattr(FileDialogs, "save_path", classmethod(lambda cls, *a, **k: str(target)))
    assert not window.files.export_serving("png")  # the session has no workload yet
    assert "transformer workload" in errors[0] and not target.exists()
    window.model.add_workloads([shipped_workloads()["llama-3-8b"].workload(
        "w1", tpot_limit=0.02)])
    for kind in ("png", "svg", "pdf", "csv"):
        target = tmp_path / f"serving.{kind}"
        assert window.files.export_serving(kind), kind
    assert QImage(str(tmp_path / "serving.png")).width() == 1000
    assert "Llama-3-8B" in (tmp_path / "serving.svg").read_text()  # the title, as text
    assert (tmp_path / "serving.pdf").read_bytes().startswith(b"%PDF")
    with (tmp_path / "serving.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    result = window.serving.result
    assert rows == serving_rows(result, WORKLOAD_CSV_COLUMNS)
    assert len(rows) == len(result.chips) * len(result.concurrency)
    assert [a.text() for a in window.serving.export_button.menu().actions()] == [
        "&PNG…", "&SVG…", "&PDF…", "&CSV…"]
    w = window.model.document.workloads[0]
    window.model.set_workload(replace(w, prefill_chips=2, decode_chips=6))
    target = tmp_path / "split.svg"
    assert window.files.export_serving("svg")
    assert "disaggregated: prefill on 2, decode on 6 chips" in target.read_text()


def test_the_y_axis_reads_tokens_per_joule_or_per_dollar(panel):
    """Per joule: the chips with energy data; per dollar: only those with a price per
    chip-hour, the others named; hover and the words give the same figure as the core."""
    from roofline_gui.core.units import rate_count
    from roofline_gui.widgets.panels.serving_chart import measure_values

    model = panel.model
    b200 = model.document.chips[1]
    model.push(Replace("chips", replace(b200, energy=replace(b200.energy, price_per_hour=6.0))),
               "price")
    _settle(panel)
    panel.measure_box.setCurrentIndex(panel.measure_box.findData("dollar"))
    r = panel.result
    assert panel.plot.getPlotItem().getAxis("left").labelText == "tokens per dollar"
    assert [label.text for _s, label in panel.chart.legend.items] == ["B200"]
    text = panel.words.text()
    best = r.best(1)
    assert f"B200 {rate_count(r.tokens_per_dollar[1, best])}" in text
    assert "Not drawn, for want of a price per chip-hour: H200 SXM 141GB (the hardware" in text
    _xs, ys = panel.chart.points.getData()  # B200's points alone, at their tokens per dollar
    assert np.allclose(np.sort(10 ** ys), np.sort(measure_values(r, "dollar")[1]))
    assert f"{rate_count(r.tokens_per_dollar[1, best])} tokens per dollar" in panel._tip(
        0, 0, (1, best))
    panel.measure_box.setCurrentIndex(panel.measure_box.findData("joule"))
    assert [label.text for _s, label in panel.chart.legend.items] == ["H200 SXM 141GB", "B200"]
    assert f"{rate_count(r.tokens_per_joule[0, r.best(0)])}" in panel.words.text()


def test_disaggregated_pools_from_the_fields(panel):
    """Setting the prefill chips from 0 sets the decode chips too (1:1), setting one to 0 turns
    both off; a pool that is not a multiple of the chips sharing the model is refused, said."""
    model = panel.model
    panel.edits["prefill_chips"].setValue(2)
    w = model.document.workloads[0]
    assert (w.prefill_chips, w.decode_chips) == (2, 2)
    panel.edits["decode_chips"].setValue(6)
    _settle(panel)
    r = panel.result
    assert r.spec.disaggregated and r.chips_serving == 8
    assert "disaggregated: 2 chips prefill and 6 decode" in panel.words.text()
    assert "sets the pace" in panel.words.text()
    panel.edits["prefill_chips"].setValue(0)
    w = model.document.workloads[0]
    assert (w.prefill_chips, w.decode_chips) == (0, 0)
    model.set_workload(replace(w, chips_per_model=2))
    panel.edits["prefill_chips"].setValue(3)
    assert model.document.workloads[0].prefill_chips == 0
    assert "multiple of the 2 chips" in panel.refused.text()
    panel.edits["prefill_chips"].setValue(4)
    assert model.document.workloads[0].prefill_chips == 4
    assert panel.refused.isHidden()  # the refusal of 3 is not left standing


def test_pools_that_a_wider_model_no_longer_divides_are_said_not_a_traceback(panel):
    """A tour's traceback: with pools of 2 and 4, a what-would-help search that tries more chips
    per model (8) built variants the workload's own rules refused. The pools are checked where
    the workload is served: the search runs, the Serving view says why it cannot serve."""
    model = panel.model
    w = replace(model.document.workloads[0], prefill_chips=2, decode_chips=4)
    assert model.set_workload(w)
    chips = tuple(model.document.chips)
    result = evaluate_workloads([w], chips)[0]
    assert len(communication_dominates_at(w, chips)) == 2
    assert explain_workload(result, 0)
    assert model.set_workload(replace(w, chips_per_model=8))
    _settle(panel)
    assert panel.result is None
    assert "cannot be served" in panel.title.text()
    assert "multiple of the 8 chips" in panel.title.text()
    # said with the fields' own names, each pool mended on its own (the tour: a good value of
    # one was refused for the other's, until one was set to 0)
    assert "Prefill chips x: 2 chips" in panel.title.text()
    assert "Decode chips y: 4 chips" in panel.title.text() and "prefill_chips" not in panel.title.text()
    panel.edits["prefill_chips"].setValue(8)
    assert model.document.workloads[0].prefill_chips == 8 and panel.refused.isHidden()
    _settle(panel)
    assert "Decode chips y: 4 chips" in panel.title.text() and "Prefill" not in panel.title.text()
    panel.edits["decode_chips"].setValue(16)
    _settle(panel)
    assert panel.result is not None and panel.result.chips_serving == 24
    assert panel.edits["tpot_limit"].specialValueText() == "none"  # 0: no limit, said


def test_a_bad_value_in_a_field_is_refused_and_said(panel):
    """A spin box's own range put 0 or 1.5 back silently (or kept a keystroke of it): the
    workload's rules refuse them now, and the view says why."""
    model = panel.model
    panel.edits["input_tokens"].setValue(0)
    assert model.document.workloads[0].input_tokens == 1000
    assert "Input I 0 refused" in panel.refused.text() and "from 1" in panel.refused.text()
    panel.edits["draft_tokens"].setValue(3)
    panel.edits["acceptance"].setValue(1.5)
    assert model.document.workloads[0].acceptance == 0.0
    assert "[0, 1)" in panel.refused.text()
    _settle(panel)
    assert panel.edits["acceptance"].value() == 0.0 and panel.edits["input_tokens"].value() == 1000


def test_a_best_points_ring_tells_its_figures_on_hover(panel):
    r = panel.result
    ring = panel.chart.rings.points()[0]
    c, k = ring.data()
    assert k == r.best(c)
    tip = panel._tip(0, 0, ring.data())
    assert f"{r.tokens_per_chip[c, k]:,.0f} output tokens/s per chip" in tip


def test_the_serving_example_opens_on_the_serving_view(window):
    """A session whose workloads carry a serving limit opens with the Serving view in front
    (the tour found the serving example on the breakdown)."""
    from pathlib import Path

    from roofline_gui.io.files import resources_dir

    window.files.open_example(Path(resources_dir()) / "examples"
                              / "serving-70b-and-r1-at-50-ms.roofline")
    QApplication.processEvents()
    assert not window.docks["serving"].visibleRegion().isEmpty()
    assert window.docks["breakdown"].visibleRegion().isEmpty()


def test_the_users_numbers_never_print_over_each_other(panel):
    """In a chart of 580 × 230 px the numbers over the top points ran together ("4,8023,010",
    the tour): a number that would touch another is left out, at the chart's size in pixels."""
    panel.resize(1100, 260)
    _settle(panel)
    chart = panel.chart
    chart._place_labels(chart._marks)
    def glyphs(label):  # the text's box without the margin a text item keeps round it
        m = label.textItem.document().documentMargin()
        return label.sceneBoundingRect().adjusted(m, m, -m, -m)

    shown = [glyphs(label) for label in chart.labels if label.isVisible()]
    assert len(shown) >= 3
    for i, a in enumerate(shown):
        for b in shown[i + 1:]:
            assert not a.intersects(b), (a, b)


def test_with_no_workload_left_a_resize_draws_no_old_numbers(panel):
    """The tour opened an example without workloads after the serving one: the chart said no
    transformer workload but its users' numbers came back on the next resize."""
    from roofline_gui.core.document import Document

    assert any(label.isVisible() for label in panel.chart.labels)
    panel.model.reset(Document())
    panel.refresh()
    panel.resize(panel.width() + 40, panel.height() + 30)
    for _ in range(5):
        QApplication.processEvents()
    assert not any(label.isVisible() for label in panel.chart.labels)


def test_with_no_workload_the_fields_are_greyed_at_a_new_workloads_values(window, qtbot):
    """The second tour: after a restart into the classic example (no workload) the serving
    fields read Input I = 0 and Output O = 0, as if they were the session's."""
    from roofline_gui.core.workload import Workload

    window.docks["serving"].raise_()
    panel = window.serving
    panel.refresh()
    assert not window.model.document.workloads
    for name, edit in panel.edits.items():
        assert not edit.isEnabled(), name
    assert panel.edits["input_tokens"].value() == Workload.__dataclass_fields__[
        "input_tokens"].default == 1000


def test_the_users_numbers_keep_off_every_point_and_curve(panel):
    """Over other chips' lines and points the numbers were partly hidden (the third tour):
    each number shown covers no point drawn and no chip's curve crosses it."""
    from roofline_gui.core.display import crosses_each, overlaps_each

    panel.resize(1100, 320)
    _settle(panel)
    chart = panel.chart
    chart._place_labels(chart._marks)
    vb = chart.plot.getPlotItem().getViewBox()
    sx, sy = (1 / v for v in vb.viewPixelSize())
    px, py = chart.points.getData()
    points = np.column_stack([px * sx - 4, -py * sy - 4, px * sx + 4, -py * sy + 4])
    segments = []
    for fit, every in chart.lines:
        for item in (fit, every):
            x, y = item.getData()
            if item.isVisible() and x is not None and len(x) > 1:
                xy = np.column_stack([np.asarray(x) * sx, -np.asarray(y) * sy])
                segments.append(np.column_stack([xy[:-1], xy[1:]]))
    if chart.tpot_line.isVisible():  # and the TPOT limit's line
        (_x0, _x1), (y0, y1) = vb.viewRange()
        at = float(chart.tpot_line.value()) * sx
        segments.append(np.array([[at, -y1 * sy, at, -y0 * sy]]))
    segments = np.concatenate(segments)
    shown = [label for label in chart.labels if label.isVisible()]
    assert len(shown) >= 3
    for label in shown:
        m = label.textItem.document().documentMargin()
        inner = label.sceneBoundingRect().adjusted(m + 1, m + 1, -m - 1, -m - 1)  # its glyphs
        rect = vb.mapSceneToView(inner).boundingRect()
        box = np.array([[rect.left() * sx, -rect.bottom() * sy, rect.right() * sx, -rect.top() * sy]])
        assert not overlaps_each(box, points).any(), label.textItem.toPlainText()
        assert not crosses_each(box, segments).any(), label.textItem.toPlainText()


@pytest.mark.parametrize("size", [(800, 300), (1000, 330), (1280, 330), (1280, 400)])
def test_a_best_points_ring_carries_its_own_number(qtbot, size):
    """The seventh tour, Serving example at 1280 x 800: the ring round the MI355X's best point
    (448 users) had "445" beside it in the MI355X's colour, a neighbour's number a pixel away
    that took the spot first. The ringed points' numbers are placed first: the number nearest
    each ring is a ringed point's own (its chip's colour and users), never a neighbour's."""
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    model = DocumentModel()
    model.reset(load_session(resources_dir() / "examples" / "serving-70b-and-r1-at-50-ms.roofline"))
    model.select(model.document.workloads[0].id, model.document.chips[0].id)
    panel = ServingPanel(model)
    qtbot.addWidget(panel)
    panel.resize(*size)
    panel.show()
    _settle(panel)
    chart, r = panel.chart, panel.result
    # (rings that touch have their numbers as one, "302 / 342", each in its colour)
    shown = [(text, QColor(colour).name(), lb.pos())
             for lb in chart.labels if lb.isVisible() for text, colour in lb.numbers]
    rings = chart.rings.points()
    assert len(rings) >= 2
    own = {(f"{int(r.concurrency[k]):,}", r.chips[c].color.lower())
           for c, k in (ring.data() for ring in rings)}
    # every ring's number is written: the MI355X's, by the B200's, had none (the 41st tour)
    assert own <= {(t, colour) for t, colour, _p in shown}, (size, shown)
    for ring in rings:
        at = ring.pos()
        text, colour, _pos = min(shown, key=lambda s: (s[2].x() - at.x()) ** 2
                                 + (s[2].y() - at.y()) ** 2)
        assert (text, colour) in own, (size, r.chips[ring.data()[0]].name, text, colour)


def _serving_example(qtbot):
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    model = DocumentModel()
    model.reset(load_session(resources_dir() / "examples" / "serving-70b-and-r1-at-50-ms.roofline"))
    model.select(model.document.workloads[0].id, model.document.chips[0].id)
    panel = ServingPanel(model)
    qtbot.addWidget(panel)
    return panel


def test_every_best_point_chosen_is_boxed_the_searched_ones_too(qtbot):
    """The eighth tour: the MI355X's best point (448 users, found by the search between the
    doublings) got no box when chosen, the B200's 445 and the H200's 256 did: the frontier
    served again after the click had not searched yet, and the search's redraw left the box
    out."""
    panel = _serving_example(qtbot)
    model, chart = _laid_out(panel)[:2]
    for ring in list(chart.rings.points()):
        c, k = ring.data()
        users, chip = int(panel.result.concurrency[k]), panel.result.chips[c]
        panel._on_click(chart.rings, [ring])
        _settle(panel)
        r = panel.result
        assert model.document.workloads[0].batch == users and model.selected_chip == chip.id
        (box,) = chart.current.points()
        at = int(np.flatnonzero(r.concurrency == users)[0])
        assert box.pos().x() == pytest.approx(np.log10(r.tokens_per_user[c, at])), chip.name
        ring = next(p for p in chart.rings.points() if p.data()[0] == c)  # drawn anew


def test_a_click_on_two_chips_points_on_each_other_chooses_the_one_in_sight(qtbot):
    """The eighth tour clicked the MI355X's green dot where its curve lies on the B200's and
    got the B200 (drawn under it): of points as near the pointer, the one drawn last."""

    panel = _serving_example(qtbot)
    _model, chart, vb, _view = _laid_out(panel)
    spots = chart.points.points()
    sx, sy = vb.viewPixelSize()
    pairs = [(a, b) for i, a in enumerate(spots) for b in spots[i + 1:]
             if a.data()[0] != b.data()[0]
             and abs(a.pos().x() - b.pos().x()) / sx < 0.5
             and abs(a.pos().y() - b.pos().y()) / sy < 0.5]
    assert pairs  # the B200's and the MI355X's curves share points at small batches

    class Click:  # what sigClicked's event gives nearest(): the pointer in the points' frame
        def __init__(self, at):
            self._at = at

        def pos(self):
            return self._at

    for a, b in pairs:
        on_top = max((a, b), key=lambda p: p.index())
        at = (a.pos() + b.pos()) / 2  # as near to both
        assert chart.nearest([a, b], Click(at)) is on_top
        assert chart.nearest([b, a], Click(at)) is on_top


def test_the_serving_example_opens_with_the_roofline_s_point_boxed(window):
    """Help → Examples → the serving example: the workload is its first chip's best point at the
    requests' mean context, so the Serving tab boxes the point the roofline shows (it opened at
    B = 1, L = 2,048, no point of the frontier: nothing boxed, no word why, the tour); a
    workload off the frontier says why no point is boxed."""
    from roofline_gui.widgets.app.file_actions import examples

    path = next(p for p in examples() if p.name == "serving-70b-and-r1-at-50-ms.roofline")
    assert window.files.open_example(path)
    view = window.docks["serving"].widget()
    _settle(view)
    chart = view.chart
    assert view.result.shown() is not None
    (box,) = chart.current.points()
    c = view._chip_index(view.result.chips)
    k = view.result.shown()
    assert np.isclose(box.pos().x(), np.log10(view.result.tokens_per_user[c, k]))
    assert "No point is boxed" not in view.words.text()
    w = window.model.document.workloads[0]
    window.model.select(w.id, window.model.selected_chip)
    window.workloads.fields.sig_changed.emit("context", 2048)  # the Context L field
    _settle(view)
    assert window.model.document.workloads[0].context == 2048
    assert len(chart.current.points()) == 0
    assert (f"No point is boxed: the roofline shows the workload at B = {w.batch:,}, L = 2,048"
            in view.words.text())


def test_a_chip_whose_curve_lies_under_anothers_says_so(window):
    """The serving example's B200 points lie under the MI355X's (both 8 TB/s of HBM), their
    users' numbers beside green markers, and nothing said so (the 37th tour): the legend and
    the title name the chip hidden and the one over it; a chip apart from both stays its name."""
    from pathlib import Path

    from roofline_gui.io.files import resources_dir
    from roofline_gui.widgets.panels.serving_chart import hidden_chips

    window.files.open_example(Path(resources_dir()) / "examples"
                              / "serving-70b-and-r1-at-50-ms.roofline")
    QApplication.processEvents()
    panel = window.serving
    panel.refresh()
    result = panel.result
    names = [chip.name for chip in result.chips]
    under = hidden_chips(result, panel.measure)
    assert {names[c]: [names[d] for d in on] for c, on in under.items()} == {"B200": ["MI355X"]}
    legend = [label.text for _sample, label in panel.chart.legend.items]
    assert "B200 (under MI355X)" in legend and "H200 SXM 141GB" in legend
    assert "B200 (under MI355X)" in panel.title.text()
    # the two curves do lie on each other: within 0.04 decades (under 5 px here) in tokens/s
    # per user at every concurrency; the H200's is apart
    b, m, h = (names.index(n) for n in ("B200", "MI355X", "H200 SXM 141GB"))
    tpu = np.log10(result.tokens_per_user)
    assert np.nanmax(np.abs(tpu[b] - tpu[m])) < 0.04 < np.nanmin(np.abs(tpu[h] - tpu[m]))
