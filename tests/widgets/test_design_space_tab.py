"""The Design space tab: the selected workload's throughput over compute and main-memory
bandwidth, the chip's own cell its throughput; dragging a chip's dot moves both its ceilings as
what-ifs, one undo step."""

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from roofline_gui.core.units import format_si, rate_count


def test_the_map_holds_the_workloads_throughput_and_a_dot_drag_is_a_what_if(window, qtbot):
    from roofline_gui.widgets.app.file_actions import examples

    window.files.open(str(next(p for p in examples() if p.stem == "llama-3-8b-on-three-chips")))
    QApplication.processEvents()
    model = window.model
    window.docks["design"].raise_()
    panel = window.design
    qtbot.waitUntil(lambda: not panel.pending and panel.grid is not None, timeout=3000)
    r = model.workload_results[0]
    c = next(i for i, chip in enumerate(r.chips) if chip.visible and np.isfinite(r.time[i]))
    chip = r.chips[c]
    own = panel.value_at(chip.compute["bf16"], chip.dram.bandwidth)
    assert own == pytest.approx(float(r.throughput[c]), rel=0.03)  # the cell nearest the chip
    assert "Drag a chip's dot" in panel.title.text()
    # the pointer on the chip's dot names the chip (the tour: the hover named no chip) and
    # reads its throughput at its own ceilings, about 1× its own
    vb = panel.plot.getViewBox()
    dot = panel.dot_position(chip.id)
    panel.plot.scene().sigMouseMoved.emit(vb.mapViewToScene(dot))
    text = panel.readout.text()
    assert text.startswith(f"{chip.name}: {format_si(chip.compute['bf16'], 'op/s')}") and "×" in text
    # its own throughput, as the explanation and the table give it (the nearest cell's had
    # read 1,545 against 1,557 tokens/s: the seventeenth tour)
    assert f" {rate_count(float(r.throughput[c]))} " in text
    assert text.split(", ")[-1].startswith("1× ")
    assert panel.plot.toolTip() == text  # beside the pointer too
    # off the dots, a point of the map
    away = vb.mapViewToScene(dot) + QPointF(40, -40)
    panel.plot.scene().sigMouseMoved.emit(away)
    assert panel.readout.text().startswith("At ")
    # a drag of the chip's dot to twice its bandwidth, same compute
    steps = [(0.0, np.log10(f)) for f in (1.3, 1.7, 2.0)]  # moved since the press
    for n, (x, y) in enumerate(steps):
        panel.dots.sig_dot_dragged.emit(chip.id, x, y, n == len(steps) - 1, False)
    moved = next(ch for ch in model.document.chips if ch.id == chip.id)
    assert moved.dram.bandwidth == pytest.approx(2 * chip.dram.bandwidth)
    assert moved.dram.what_if_of == chip.dram.bandwidth
    assert moved.compute["bf16"] == pytest.approx(chip.compute["bf16"])
    assert model.undo_stack.undoText().startswith("What-if")
    model.undo_stack.undo()
    assert next(ch for ch in model.document.chips if ch.id == chip.id) == chip


def test_a_new_map_leaves_no_line_of_the_one_before(window, qtbot):
    """Picking another workload redraws the map; the old map's iso-lines had stayed on it."""
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.file_actions import examples

    window.files.open(str(next(p for p in examples() if p.stem == "llama-3-8b-on-three-chips")))
    QApplication.processEvents()
    window.docks["design"].raise_()
    panel = window.design
    model = window.model
    counts = []
    for workload in (*model.document.workloads, model.document.workloads[0]):
        model.select(workload.id, None)
        panel.refresh()
        lines = [item for item in panel.plot.scene().items() if item in panel.isolines
                 or type(item).__name__ == "IsocurveItem"]
        counts.append(len(lines))
        assert len(lines) == len(panel.isolines)
    assert counts[0] == counts[-1]  # the same map again: the same lines, no more


def _llama_map(window, qtbot):
    """The Llama example's design space, drawn: (the panel, the model, the chip it maps)."""
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.file_actions import examples

    window.files.open(str(next(p for p in examples() if p.stem == "llama-3-8b-on-three-chips")))
    QApplication.processEvents()
    window.docks["design"].raise_()
    panel, model = window.design, window.model
    qtbot.waitUntil(lambda: not panel.pending and panel.grid is not None, timeout=3000)
    r = model.workload_results[0]
    c = next(i for i, ch in enumerate(r.chips) if ch.visible and np.isfinite(r.time[i]))
    chip = r.chips[c]
    return panel, model, chip


def test_a_dots_mouse_drag_moves_its_chip_by_the_pointers_travel_and_the_map_holds(window, qtbot):
    """From the what-if tour: the map re-centred on the dragged chip at each step, so the same
    pointer meant a new value and the chip ran away (10 px right took the peak 1.27x and moved
    its bandwidth too). Now the map holds still during the drag: 40 px right moves the compute
    by exactly the pointer's travel and leaves main memory alone."""
    from helpers import drag_mouse
    from PySide6.QtCore import QPointF

    panel, model, chip = _llama_map(window, qtbot)
    vb, view = panel.plot.getViewBox(), panel.plot
    start = QPointF(view.mapFromScene(vb.mapViewToScene(panel.dot_position(chip.id))))
    end = start + QPointF(40, 0)
    travel = (vb.mapSceneToView(view.mapToScene(end.toPoint())).x()
              - vb.mapSceneToView(view.mapToScene(start.toPoint())).x())
    axes = panel.axes
    drag_mouse(view.viewport(), start, end)
    moved = next(ch for ch in model.document.chips if ch.id == chip.id)
    assert moved.compute["bf16"] / chip.compute["bf16"] == pytest.approx(10 ** travel, rel=0.02)
    assert moved.dram.bandwidth == chip.dram.bandwidth
    assert model.undo_stack.count() == 1
    qtbot.waitUntil(lambda: not panel.pending, timeout=3000)
    assert not np.array_equal(panel.axes[0], axes[0])  # released: centred again, on the dots


def test_during_a_dots_drag_the_held_map_reads_the_moved_chip_right(window, qtbot):
    """From the second what-if tour: while the map held still under a dragged dot, its cells
    were worked out around the moved chip but drawn around the held centre, so the readout
    counted the move twice (37k tokens/s where 14.5k was right). A cell's value is the
    workload's throughput with the chip's ceilings at that cell, during a drag as after it."""
    from roofline_gui.core.workload_eval import evaluate_workloads

    panel, model, chip = _llama_map(window, qtbot)
    panel.dots.sig_dot_dragged.emit(chip.id, 0.0, np.log10(3.0), False, False)  # 3x HBM, held
    panel.refresh()
    moved = next(ch for ch in model.document.chips if ch.id == chip.id)
    assert moved.dram.bandwidth == pytest.approx(3 * chip.dram.bandwidth)
    # the cell at the moved chip's own ceilings reads its throughput
    w = model.document.workloads[0]
    own = evaluate_workloads([w], [moved])[0].throughput[0]
    assert panel.value_at(moved.compute["bf16"], moved.dram.bandwidth) == pytest.approx(
        own, rel=0.05)
    panel.dots.sig_dot_dragged.emit(chip.id, 0.0, np.log10(3.0), True, False)


def test_a_vertical_drag_with_a_sideways_slip_moves_main_memory_alone(window, qtbot):
    """The tour dragged a dot up with a 3 px slip sideways and the compute peak moved too
    (989.4 -> 1,008 TFLOP/s): under 8 px an axis's ceiling stays; a deliberate diagonal moves
    both."""
    from helpers import drag_mouse
    from PySide6.QtCore import QPointF

    panel, model, chip = _llama_map(window, qtbot)
    vb, view = panel.plot.getViewBox(), panel.plot
    start = QPointF(view.mapFromScene(vb.mapViewToScene(panel.dot_position(chip.id))))
    drag_mouse(view.viewport(), start, start + QPointF(3, -40))
    moved = next(ch for ch in model.document.chips if ch.id == chip.id)
    assert moved.compute == chip.compute and moved.dram.bandwidth > chip.dram.bandwidth
    model.undo_stack.undo()
    qtbot.waitUntil(lambda: not panel.pending, timeout=3000)
    start = QPointF(view.mapFromScene(vb.mapViewToScene(panel.dot_position(chip.id))))
    drag_mouse(view.viewport(), start, start + QPointF(30, -30))
    moved = next(ch for ch in model.document.chips if ch.id == chip.id)
    assert moved.compute["bf16"] > chip.compute["bf16"] and moved.dram.bandwidth > chip.dram.bandwidth


def test_a_dots_drag_past_an_on_chip_level_says_so(window, qtbot):
    """The thirtieth tour dragged Gaudi 3's HBM to 13 TB/s, past its 12.8 TB/s SRAM, and the
    design space said only the factors: the status says main memory now outruns the on-chip
    level, as a roof drag on the chart does (Chip.order_note)."""
    panel, model, chip = _llama_map(window, qtbot)
    h100 = next(ch for ch in model.document.chips if ch.name == "H100 SXM5 80GB")
    said = []
    model.sig_status.connect(said.append)
    panel._on_dot_dragged(h100.id, 0.0, np.log10(1.2), False)  # 4.02 TB/s: under the L2's 5.5
    assert said and "slower than main memory" not in said[-1]
    panel._on_dot_dragged(h100.id, 0.0, np.log10(2.0), True)  # 6.7 TB/s: past it
    assert said[-1].endswith("Compute ×1, main memory ×2 (Shift: round factors).")
    assert said[-1].startswith("On H100 SXM5 80GB the on-chip L2 (50 MB) (5.5 TB/s) is slower "
                               "than main memory (HBM3 6.7 TB/s)"), said[-1]  # first: not cut


def test_a_dots_drag_with_shift_moves_by_round_factors(window, qtbot):
    """On a small map a few pixels are a large factor (the tour: 30 px → 4.3×): with Shift
    each ceiling moves by a round factor of its datasheet value, and the status bar says the
    factors."""
    from helpers import drag_mouse
    from PySide6.QtCore import QPointF

    from roofline_gui.core.chip import ROUND_FACTORS

    panel, model, chip = _llama_map(window, qtbot)
    vb, view = panel.plot.getViewBox(), panel.plot
    start = QPointF(view.mapFromScene(vb.mapViewToScene(panel.dot_position(chip.id))))
    drag_mouse(view.viewport(), start, start + QPointF(23, -31),
               modifiers=Qt.KeyboardModifier.ShiftModifier)
    moved = next(ch for ch in model.document.chips if ch.id == chip.id)
    fx = moved.compute["bf16"] / chip.compute["bf16"]
    fy = moved.dram.bandwidth / chip.dram.bandwidth
    assert fx > 1 and fy > 1
    assert min(abs(fx - f) for f in ROUND_FACTORS) < 1e-9
    assert min(abs(fy - f) for f in ROUND_FACTORS) < 1e-9
    assert f"×{fx:.3g}" in window.statusBar().currentMessage()


def test_the_chips_names_keep_clear_of_each_other_and_of_the_dots(window, qtbot):
    """At 1280 x 800 two names 0.2 decades apart were drawn over each other (the tour): each
    name takes the side of its dot where it covers no other name and no other chip's dot, in
    the view's pixels, and again when the view is resized."""
    from PySide6.QtWidgets import QApplication

    panel, model, _chip = _llama_map(window, qtbot)
    # four, as the ninth tour had them, and the H20 close by the H100's dot (its name a line
    # off it then)
    model.add_chips([window.presets.chips[i] for i in ("nvidia-b200", "nvidia-h20-96gb")])
    model.select(model.document.workloads[0].id, model.document.chips[-2].id)
    qtbot.waitUntil(lambda: not panel.pending, timeout=3000)
    offs = 0
    for size in ((1500, 940), (1264, 752), (1280, 800)):
        window.resize(*size)
        for _ in range(5):
            QApplication.processEvents()
        names = [t.mapRectToScene(t.boundingRect()) for t in panel.names if t.isVisible()]
        assert len(names) >= 2 and panel.names[0].isVisible()  # the selected chip's, first
        for i, a in enumerate(names):
            assert not any(a.intersects(b) for b in names[i + 1:]), (size, names)
        vb = panel.plot.getViewBox()
        dots = [vb.mapViewToScene(panel.dot_position(cid)) for cid in panel.dots.data["data"]]
        assert len(dots) == len(panel.names)
        inside = vb.mapRectToScene(vb.boundingRect())  # the map as shown
        for text in (t for t in panel.names if t.isVisible()):
            own = vb.mapViewToScene(text.pos())  # its dot: a name is placed from its dot
            rect = text.mapRectToScene(text.boundingRect())
            assert not any(rect.contains(d) for d in dots if d != own)
            # and on the map where it is tall enough for four names: a name a line above its
            # dot was cut at the map's top edge (the ninth tour's "Instinct MI300X")
            if inside.height() > 4 * rect.height():
                assert inside.contains(rect), (text.toPlainText(), size, inside, rect)
        # a name placed a line off its dot has a leader from the dot to it (a bare name a line
        # away read as a nearer dot's); one beside its dot has none
        xs, ys = panel.leaders.getData()
        ends = [(vb.mapViewToScene(QPointF(xs[i], ys[i])), vb.mapViewToScene(
            QPointF(xs[i + 1], ys[i + 1]))) for i in range(0, len(xs if xs is not None else []), 2)]
        off = 0
        for text in (t for t in panel.names if t.isVisible()):
            own = vb.mapViewToScene(text.pos())
            rect = text.mapRectToScene(text.boundingRect()).adjusted(-1, -1, 1, 1)
            apart = min(abs(own.y() - rect.top()), abs(own.y() - rect.bottom())) > 3
            led = [e for a, e in ends if (a - own).manhattanLength() < 1 and rect.contains(e)]
            assert len(led) == (1 if apart else 0), (text.toPlainText(), size, rect, own, ends)
            off += apart
        assert len(ends) == off
        offs += off
    assert offs  # a name a line off its dot, led to it, at some size


def test_every_chips_dot_stays_on_the_map_after_one_chips_memory_grows(window, qtbot):
    """The second tour: a chip dragged to 9.22× its bandwidth re-centred the map on itself and
    the TPU v5e's dot fell off it. The map is centred on the middle of the dots where they fit
    in its span."""
    panel, model, chip = _llama_map(window, qtbot)
    for factor in (9.22, 114):  # and far past the map's own 3 decades: it reaches further
        moved = chip.with_ceiling(("level", chip.memory.index(chip.dram)),
                                  chip.dram.bandwidth * factor)
        model.push_what_if(moved, f"memory × {factor}")
        qtbot.waitUntil(lambda: not panel.pending, timeout=3000)
        lx, ly = panel.axes
        precision = "bf16"
        for c in (c for c in model.document.chips if c.visible and c.compute.get(precision)):
            x, y = np.log10(c.compute[precision]), np.log10(c.dram.bandwidth)
            assert lx[0] < x < lx[-1] and ly[0] < y < ly[-1], (factor, c.name, x, y)
        model.undo_stack.undo()


def test_without_a_workload_the_tab_says_what_to_do_and_draws_no_empty_map(window, qtbot):
    """The article's session has no workload: the tab had drawn empty axes from 0.5 to 2 and a
    colour bar from 0 to 1 (the third tour). It says how to make one, and shows the map once a
    workload exists."""
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.workloads import workload_from_config

    window.docks["design"].raise_()
    panel = window.design
    assert not window.model.document.workloads
    panel.refresh()
    assert "No workload to map" in panel.title.text()
    assert not panel.plot.isVisibleTo(panel) and not panel.readout.isVisibleTo(panel)
    window.model.add_workloads([workload_from_config(
        resources_dir() / "workloads" / "llama-3-8b.config.json", phase="decode", batch=8,
        context=2048)])
    qtbot.waitUntil(lambda: not panel.pending and panel.grid is not None, timeout=3000)
    assert panel.plot.isVisibleTo(panel) and panel.readout.isVisibleTo(panel)
    window.model.undo_stack.setClean()


def test_a_chip_without_the_precision_has_its_stand_ins_dot_and_names_keep_off_the_balance_line(
        window, qtbot):
    """The training example's bf16 map "on V100 SXM2 16GB" had no V100 dot (it has no bf16; its
    fp16 stands in, as the explanation says) and the dashed balance line ran through "A100 SXM4
    40GB" (the fifth tour): every chip that runs the workload has its dot, at the peak the
    evaluation takes, and no name is crossed by the line where another spot is free of it."""
    from roofline_gui.core.display import crosses_each
    from roofline_gui.widgets.app.file_actions import examples

    window.resize(1264, 752)
    window.files.open(str(next(p for p in examples() if p.stem == "training-fp32-against-bf16")))
    model = window.model
    bf16 = next(w for w in model.document.workloads if w.activations == "bf16")
    v100 = next(c for c in model.document.chips if c.name.startswith("V100"))
    model.select(bf16.id, v100.id)
    window.docks["design"].raise_()
    panel = window.design
    qtbot.waitUntil(lambda: not panel.pending and panel.grid is not None, timeout=3000)
    for _ in range(5):
        QApplication.processEvents()
    assert "V100 SXM2 16GB" in panel.title.text() and "bf16" not in v100.compute
    assert set(panel.dots.data["data"]) == {c.id for c in model.document.chips}
    assert panel.dot_position(v100.id).x() == pytest.approx(np.log10(v100.compute["fp16"]))
    vb = panel.plot.getViewBox()
    bx, by = panel.balance.getData()
    ends = [vb.mapViewToScene(QPointF(float(x), float(y))) for x, y in ((bx[0], by[0]), (bx[-1], by[-1]))]
    line = np.array([[ends[0].x(), ends[0].y(), ends[1].x(), ends[1].y()]])
    for text in panel.names:
        rect = text.mapRectToScene(text.boundingRect()).adjusted(5, 5, -5, -5)  # its glyphs
        box = np.array([[rect.left(), rect.top(), rect.right(), rect.bottom()]])
        assert not crosses_each(box, line)[0], text.toPlainText()
        # framed in its dot's colour on a backdrop: a name a line from its dot read as the
        # nearer dot's, and the throughput lines ran through it (the twenty-first tour)
        chip = next(c for c in model.document.chips if c.name == text.toPlainText())
        assert text.border.color().name() == QColor(chip.color).name()
        assert text.fill.color().alpha() >= 128
    assert "No dot for" not in panel.title.text()  # every chip has one here
    # the selected chip's dot drawn last, over another at its spot: TPU v3 (123 Top/s, 900
    # GB/s) lay under V100's (125, 900) on the map "on TPU v3" (the seventh tour)
    tpu3 = next(c for c in model.document.chips if c.name == "TPU v3")
    for chip in (tpu3, v100):
        model.select(bf16.id, chip.id)
        qtbot.waitUntil(lambda: not panel.pending, timeout=3000)
        QApplication.processEvents()
        assert list(panel.dots.data["data"])[-1] == chip.id
        assert panel.names[0].toPlainText() == chip.name
    # fp32: the TPU v3 has neither fp32 nor a same-width stand-in, so no dot, and the header says
    # so (the sixth tour found it missing and nothing saying why)
    fp32 = next(w for w in model.document.workloads if w.activations == "fp32")
    tpu = next(c for c in model.document.chips if c.name == "TPU v3")
    model.select(fp32.id, v100.id)
    qtbot.waitUntil(lambda: not panel.pending, timeout=3000)
    QApplication.processEvents()
    assert tpu.id not in set(panel.dots.data["data"])
    assert "No dot for TPU v3: it has no fp32 peak" in panel.title.text()
    model.undo_stack.setClean()
