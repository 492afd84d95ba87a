"""Hovering a marker shows that kernel's numbers, even where it sits on a roof or on the
selected kernel's sweep path (both drawn under the markers)."""

import numpy as np
import pytest
from helpers import settle
from PySide6.QtCore import QPoint, QPointF
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


def tooltip_at(window, qtbot, kernel_prefix: str, chip: int = 0) -> str:
    plot, cmp = window.canvas.overlay_plot, window.model.comparison
    k = next(i for i, kk in enumerate(cmp.kernels) if kk.name.startswith(kernel_prefix))
    vb = plot.plot.getViewBox()
    x, y = np.log10(cmp.dram_intensity[k]), np.log10(cmp.result.attainable[k, chip])
    scene = vb.mapViewToScene(QPointF(x, y))
    view = window.canvas.overlay
    QTest.mouseMove(view.viewport(), view.mapFromScene(scene))
    QApplication.processEvents()
    qtbot.wait(40)
    tips = [item.toolTip() for item in view.scene().items(scene) if item.toolTip()]  # topmost first
    return tips[0] if tips else ""


def test_a_marker_on_a_roof_shows_its_kernel_not_the_roof(window, qtbot):
    tip = tooltip_at(window, qtbot, "GEMM 4096³ (bf16)")  # compute-bound: on the bf16 roof
    assert tip.startswith("GEMM 4096³ (bf16) on A100 SXM4 40GB"), tip
    assert "attainable 312 Top/s" in tip and "compute-bound" in tip


def test_a_marker_on_the_selected_kernels_path_shows_the_marker_under_the_pointer(window, qtbot):
    model = window.model
    batch1 = next(k for k in model.document.kernels if k.name.startswith("MLP layer 4096×4096, batch 1 "))
    model.select(batch1.id, None)  # its sweep path passes under the batch-64 marker
    QApplication.processEvents()
    tip = tooltip_at(window, qtbot, "MLP layer 4096×4096, batch 64")
    assert tip.startswith("MLP layer 4096×4096, batch 64 (bf16) on A100"), tip


def test_a_ridge_point_says_how_it_is_derived(window):
    """The ridge is peak ÷ bandwidth; its tooltip gives both, so the number can be checked
    (A100 SXM4 40GB, int8: 624 Top/s ÷ 1.555 TB/s = 401.3 op/B)."""
    roofs = window.canvas.overlay_plot.roofs.item
    tips = [d.tip for d in roofs.dots if d.tip.startswith("A100 SXM4 40GB int8 ridge point")]
    assert tips == ["A100 SXM4 40GB int8 ridge point: 401.3 op/B = 624 Top/s ÷ 1.555 TB/s (HBM2). "
                    "Left of it the HBM2 diagonal is the roof, right of it the int8 peak."], tips
    # The dot sits where the tooltip says: x = log10(401.3), y = log10(624e12).
    dot = next(d for d in roofs.dots if d.tip == tips[0])
    assert np.isclose(10 ** dot.x, 624e12 / 1.555e12) and np.isclose(10 ** dot.y, 624e12)


def test_a_workloads_small_mark_on_a_roof_shows_its_kernel_not_the_roof(window, qtbot):
    """From the what-if tour: hovering a workload's small mark that sits on a roof showed the
    roof's tooltip; it names the workload's kernel, as a kernel's marker does."""
    import roofline_gui.api as rf
    from roofline_gui.core.document import Document

    model = window.model
    model.reset(Document())
    model.add_chips([window.presets.chips["nvidia-a100-sxm4-40gb"]])
    model.add_workloads([rf.workload("llama-3-8b", phase="decode", batch=1, context=2048)])
    QApplication.processEvents()
    plot = window.canvas.overlay_plot
    settle(plot)
    mark = plot.scene.workloads[0]
    e = int(np.nanargmax(mark.entry_y[:, 0]))  # a memory-bound entry: on the HBM diagonal
    vb, view = plot.plot.getViewBox(), window.canvas.overlay
    scene = vb.mapViewToScene(QPointF(np.log10(mark.entry_x[e]), np.log10(mark.entry_y[e, 0])))
    QTest.mouseMove(view.viewport(), view.mapFromScene(scene))
    QApplication.processEvents()
    qtbot.wait(40)
    tips = [item.toolTip() for item in view.scene().items(scene) if item.toolTip()]
    assert tips and " in Llama-3-8B" in tips[0] and "on A100 SXM4 40GB" in tips[0], tips[:2]


def _host_link_gemm(window, levels: bool):
    """The classic example with View → Memory levels ``levels``: the overlay plot, the
    comparison, the level points drawn and the host-link GEMM's kernel index."""
    window.set_memory_levels(levels)
    QApplication.processEvents()
    plot = window.canvas.overlay_plot
    plot.finish_pending()
    cmp = window.model.comparison
    gemm = next(k for k, kernel in enumerate(cmp.kernels)
                if kernel.name == "GEMM 4096³ bf16, inputs over the host link")
    return plot, cmp, plot.scene.spec.levels, gemm


def test_a_marker_a_host_link_holds_has_its_point_on_that_links_line(window, qtbot):
    """With View → Memory levels off, the host-link GEMM's marker at its main-memory intensity
    sat below every roof drawn there (the tour: it "floats off every roof"). Its point on the
    host link's line is drawn too, filled, joined to the marker, and the marker's tooltip says
    which level holds it; a kernel main memory or compute holds gets no second point."""
    plot, cmp, marks, gemm = _host_link_gemm(window, levels=False)
    for c, chip in enumerate(cmp.chips):
        mine = (marks.kernel == gemm) & (marks.chip == c)
        host = next(level for level in chip.memory if level.role == "host")
        held = mine & marks.filled
        assert held.sum() == 1 and (~marks.filled[mine]).sum() == 1, chip.name
        x, y = float(marks.x[held][0]), float(marks.y[held][0])
        assert y == pytest.approx(host.bandwidth * x, rel=1e-9), chip.name  # on the link's line
        assert y == pytest.approx(float(cmp.result.attainable[gemm, c]), rel=1e-9)
    assert set(marks.kernel.tolist()) == {gemm}  # no other kernel of the example is held so
    # and the axis says that x is main memory's but for it (the second tour read it so)
    title = plot.plot.getAxis("bottom").labelText
    assert "main memory; a kernel another level holds, also at that level" in title, title
    window.model.set_view(bytes_per_op=True)  # read as B/F, the same words
    QApplication.processEvents()
    title = plot.plot.getAxis("bottom").labelText
    assert title.startswith("Bytes per op, B/F") and "also at that level" in title, title
    window.model.set_view(bytes_per_op=False)
    QApplication.processEvents()
    tip = tooltip_at(window, qtbot, "GEMM 4096³ bf16, inputs over the host link")
    assert tip.startswith("GEMM 4096³ bf16, inputs over the host link on A100"), tip
    assert "below the roofs: the host link (PCIe" in tip and "filled point" in tip
    assert "below the roofs" not in tooltip_at(window, qtbot, "GEMM 4096³ (bf16)")


def test_a_roofs_tooltip_says_its_sources_briefly(window, qtbot):
    """Where lines meet, their tooltips come together; each source whole (URLs, notes) covered
    half the window (the seventeenth tour): cut, and whole in the hardware editor."""
    from roofline_gui.widgets.chart.layers.roofs import SOURCE_CHARS, brief

    roofs = window.canvas.overlay_plot.roofs.item
    tips = [line.tip for line in roofs.lines if " roof: " in line.tip]
    assert tips
    for tip in tips:
        said = tip.split("\n")[0]
        assert len(said) < 80 + 2 * (SOURCE_CHARS + len("… (in full: the hardware editor)")), said
    long = "datasheet: " + "word " * 60
    assert len(brief(long)) <= SOURCE_CHARS + len("… (in full: the hardware editor)")
    assert brief(long).endswith("… (in full: the hardware editor)") and brief("short") == "short"


def test_stacked_markers_tooltip_says_click_again_once(window, qtbot):
    """The article's V100 point at 1 op/B holds three markers: their tooltip said "(the markers
    are stacked…: click again to select the next)" after each of them (the twenty-fourth tour).
    It says it once, at the end; each marker's lines still name the others on the point."""
    from roofline_gui.widgets.app.file_actions import examples
    from roofline_gui.widgets.chart.plot_items import joined_tips

    model = window.model
    window.files.open(str(next(p for p in examples() if p.stem == "the-article-claim-by-claim")))
    model.set_view(mode="overlay", memory_levels=False)
    qtbot.waitUntil(lambda: not window.canvas.drawing)
    v100 = [c.name for c in model.document.chips].index("V100 SXM2 16GB")
    tip = tooltip_at(window, qtbot, "2 · out = a + b", chip=v100)
    assert tip.count("click again to select the next") == 1, tip
    assert tip.rstrip().endswith("click again to select the next)")
    assert "on the same point: 5, 6 · MLP" in tip
    assert joined_tips(["a\n(hint)", "b\n(hint)"]) == "a\n\nb\n(hint)"
    assert joined_tips(["a\n(one)", "b\n(two)"]) == "a\n(one)\n\nb\n(two)"


@pytest.mark.parametrize("levels", [False, True])
def test_a_point_at_another_level_shows_its_kernel_not_the_roof_under_it(window, qtbot, levels):
    """The 40th tour hovered the host-link GEMM's filled point on the A100's PCIe line and read
    the line's tooltip: the level points' tooltips went to the view box, under the roofs. The
    topmost tooltip under the pointer is the kernel's, Memory levels on and off."""
    plot, _cmp, marks, gemm = _host_link_gemm(window, levels)
    held = (marks.kernel == gemm) & (marks.chip == 0) & marks.filled
    x, y = float(marks.x[held][0]), float(marks.y[held][0])
    vb, view = plot.plot.getViewBox(), window.canvas.overlay
    scene = vb.mapViewToScene(QPointF(np.log10(x), np.log10(y)))
    at = view.mapFromScene(scene)
    QTest.mouseMove(view.viewport(), at + QPoint(30, 30))  # a move, wherever the pointer was
    QApplication.processEvents()
    qtbot.wait(60)  # (pyqtgraph's scene sends hover events at most so often)
    QTest.mouseMove(view.viewport(), at)
    QApplication.processEvents()
    qtbot.wait(40)
    tips = [item.toolTip() for item in view.scene().items(scene) if item.toolTip()]
    assert tips and tips[0].startswith("GEMM 4096³ bf16, inputs over the host link on A100"), \
        tips[:2]
