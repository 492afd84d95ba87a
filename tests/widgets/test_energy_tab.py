"""The Energy tab (issue 28): a new user finds how many tokens per joule Llama-3-8B decodes at
batch 1 and at batch 64 on an H100 and an MI300X, and the y axis switches between op per joule
(the energy roofline) and op/s under the board power (the power-capped roof)."""

import re

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

import roofline_gui.api as rf
from roofline_gui.core.document import Document
from roofline_gui.core.units import format_si


def test_tokens_per_joule_at_batch_1_and_64_on_an_h100_and_an_mi300x(window, qtbot):
    model = window.model
    model.reset(Document())
    model.add_chips([window.presets.chips[i] for i in ("nvidia-h100-sxm5-80gb",
                                                       "amd-instinct-mi300x")])
    model.add_workloads([rf.workload("llama-3-8b", name=f"decode B = {b}", phase="decode",
                                     batch=b, context=2048) for b in (1, 64)])
    QApplication.processEvents()
    window.docks["energy"].raise_()
    panel = window.energy
    qtbot.waitUntil(lambda: not panel.pending)
    panel.refresh()
    one, many = model.workload_results
    for j, chip in enumerate(model.document.chips):
        # the explanation says it in words
        model.select(one.workload.id, chip.id)
        qtbot.waitUntil(lambda: not window.explanation.pending)
        text = window.explanation.toPlainText()
        assert f"{float(one.energy.items_per_joule[j]):,.4g} tokens per joule" in text
        # and the tab places each workload at its op per joule
        _x, y = panel.points[f"{one.workload.id}@{chip.id}"]
        assert y == pytest.approx(one.ops / float(one.energy.per_step[j]))
    # batching: each weight byte serves 64 tokens, so many more tokens per joule on both chips
    assert (many.energy.items_per_joule > 10 * one.energy.items_per_joule).all()
    # MI300X: more bandwidth per watt, so more tokens per joule at batch 1
    assert one.energy.items_per_joule[1] > one.energy.items_per_joule[0]
    assert "estimated from the board power (upper bounds)" in panel.title.text()
    assert "no cap claimed" in panel.title.text() and not one.energy.capped.any()
    # and says per token where the joules go: main memory's bytes, the weights shared by the batch
    model.select(many.workload.id, model.document.chips[0].id)
    qtbot.waitUntil(lambda: not window.explanation.pending)
    assert "of it weights, read once per step and shared by the step's 64 tokens" in \
        window.explanation.toPlainText()
    # no energy data, no point (a chip without a board power is named, not drawn)
    model.add_chips([window.presets.chips["google-tpu-v5e"]])
    QApplication.processEvents()
    panel.refresh()
    v5e = model.document.chips[-1].id
    assert not any(key.endswith(f"@{v5e}") for key in panel.points)
    assert "No published board power, so no curve: TPU v5e" in panel.title.text()
    # the y axis switched: op/s under the board power, never above the roofline
    panel.mode.setCurrentIndex(1)
    assert not panel.energy_mode
    for name, (_xs, ys) in panel.curves.items():
        assert np.all(np.isfinite(ys)) and name in ("H100 SXM5 80GB", "Instinct MI300X")
    _x, y = panel.points[f"{many.workload.id}@{model.document.chips[0].id}"]
    assert y <= float(many.attainable[0]) * (1 + 1e-9)


def test_the_table_and_the_breakdown_show_energy(window, qtbot):
    """The Comparison table's energy column (op per joule and power; tokens per joule and $ per
    million for a workload) and the breakdown coloured by where a step's energy goes."""
    from roofline_gui.core.energy import energy_parts
    from roofline_gui.widgets.app.file_actions import examples

    window.files.open(str(next(p for p in examples() if p.stem == "llama-3-8b-on-three-chips")))
    QApplication.processEvents()
    model = window.model
    table = window.table.table_model
    h100 = next(c for c, chip in enumerate(model.document.chips) if chip.name.startswith("H100"))
    v5e = next(c for c, chip in enumerate(model.document.chips) if chip.name == "TPU v5e")
    column = {table.locate(i): i for i in range(table.columnCount())}
    w = model.document.workloads[0]
    row = table.workload_view_row(w.id)
    r = model.workload_result(w.id)
    text = table.index(row, column[(h100, "energy")]).data()
    # the H100's energies are estimates from its board power: a floor on tokens/J, a ceiling
    # on the power (read as "what the H100 draws": the 36th tour)
    assert text.startswith(f"≥ {float(r.energy.items_per_joule[h100]):,.4g} tokens/J · ≤ ")
    assert table.index(row, column[(v5e, "energy")]).data() == "no data"
    # the breakdown, switched to energy: each chip's parts add up to its energy per step
    charts = window.breakdown
    model.select(w.id, None)
    charts.measure.setCurrentIndex(1)
    qtbot.waitUntil(lambda: not charts.pending)
    mine = [s for s in charts.segments if s.chip == h100]
    assert {s.kind for s in mine} <= {"e:compute", "e:dram", "e:cache", "e:link", "e:idle"}
    assert sum(s.width for s in mine) == pytest.approx(float(r.energy.per_step[h100]))
    parts = {name: j for _kind, name, j in energy_parts(r, h100)}
    assert parts[model.document.chips[h100].dram.name] > parts["compute"]
    assert not [s for s in charts.segments if s.chip == v5e]  # no energy data: no bar
    tip = charts.bars.toolTip()
    assert "TPU v5e: no energy data" in tip and "—" not in tip
    assert f"{model.document.chips[h100].name}: " in tip and "compute" in tip  # its small share
    assert "where it goes" in charts.title.text()


def test_the_charts_energy_mode_puts_the_energy_roofline_in_the_charts_place(window, qtbot):
    """View → Energy (op/J) (Ctrl+3): the chart's y axis in op per joule, the energy chart where
    the roofline was, its own switch to op/s under the board power; Overlay brings the roofline
    back, as it was."""
    from roofline_gui.widgets.app.file_actions import examples

    window.files.open(str(next(p for p in examples() if p.stem == "h100-vs-mi300x-llm")))
    QApplication.processEvents()
    canvas = window.canvas
    window.act_energy.trigger()
    assert window.model.view.mode == "energy" and window.act_energy.isChecked()
    chart = canvas.energy_chart
    assert canvas.stack.currentWidget() is chart
    qtbot.waitUntil(lambda: not chart.pending)
    chart.refresh()
    cmp = window.model.comparison
    k, c = 0, 0
    _x, y = chart.points[f"{cmp.kernels[k].id}@{cmp.chips[c].id}"]
    assert y == pytest.approx(float(cmp.energy.ops_per_joule[k, c]))
    assert "op/J" in chart.plot.getAxis("left").labelText and "(op/J)" in chart.mode.itemText(0)
    window.set_mac_units(True)  # the selector follows the axis into MAC/J (the tour)
    qtbot.waitUntil(lambda: not chart.pending)
    chart.refresh()
    assert "MAC/J" in chart.plot.getAxis("left").labelText and "(MAC/J)" in chart.mode.itemText(0)
    assert "(MAC/s)" in chart.mode.itemText(1)
    window.set_mac_units(False)
    qtbot.waitUntil(lambda: not chart.pending)
    chart.refresh()
    # a click on a point selects it, as on the roofline
    scatter = chart.marks  # the kernels', workloads' and energy-balance points
    assert len(scatter.points()) > len(chart.points)
    point = next(p for p in scatter.points() if p.data()[0] == (cmp.kernels[1].id,
                                                                 cmp.chips[1].id))
    scatter.sigClicked.emit(scatter, [point], None)
    assert (window.model.selected_kernel, window.model.selected_chip) == (
        cmp.kernels[1].id, cmp.chips[1].id)
    # View → B/F: its x axis reads bytes per op, as the roofline's does (the tour: B/F on the
    # roofline, op/B on the energy chart)
    axis = chart.plot.getAxis("bottom")
    assert not axis.inverted and "op/B" in axis.labelText
    window.act_bytes_per_op.trigger()
    qtbot.waitUntil(lambda: not chart.pending)
    chart.refresh()
    assert axis.inverted and "B/F" in axis.labelText
    window.act_bytes_per_op.trigger()
    window.act_overlay.trigger()
    assert canvas.stack.currentWidget() is canvas.overlay and window.model.view.mode == "overlay"


def test_a_training_runs_energy_and_its_co2_at_the_users_grid(window, qtbot, tmp_path,
                                                               monkeypatch):
    """Tools → Grid carbon intensity… (kept in the session): a training run's MWh and tonnes of
    CO2 at the user's grid; without it, no figure is assumed."""
    from roofline_gui.io.session import load_session, save_session

    model = window.model
    model.reset(Document())
    model.add_chips([window.presets.chips["nvidia-a100-sxm4-80gb"]])
    model.add_workloads([rf.workload("llama-2-7b", phase="train", batch=1, sequence=4096,
                                     data_parallel=1024, global_batch=1024, zero=1,
                                     recompute="selective", train_tokens=2e12)])
    w, chip = model.document.workloads[0], model.document.chips[0]
    model.select(w.id, chip.id)
    qtbot.waitUntil(lambda: not window.explanation.pending)
    assert "Tools → Grid carbon intensity…" in window.explanation.toPlainText()
    from PySide6.QtWidgets import QInputDialog

    asked = []

    def dialog(*args):
        asked.append(args)
        return 0.4, True

    monkeypatch.setattr(QInputDialog, "getDouble", dialog)
    window.act_carbon.trigger()  # the menu item asks (its triggered(bool) once set it to 0)
    assert asked and model.document.carbon_intensity == 0.4
    qtbot.waitUntil(lambda: not window.explanation.pending)
    window.explanation.refresh()
    r = model.workload_result(w.id)
    mwh = float(r.energy.per_item[0]) * 2e12 / 3.6e9
    assert mwh * 1e3 < 184_320 * 0.4  # at most the published run's GPU-hours at 400 W
    text = window.explanation.toPlainText()
    assert f"{format_si(mwh * 1e6, 'Wh')} for" in text and f"{mwh * 0.4:,.4g} t CO2" in text
    assert format_si(mwh * 1e6, "Wh").endswith(" MWh")  # 2 T tokens: megawatt-hours
    save_session(model.document, tmp_path / "c.roofline")
    assert load_session(tmp_path / "c.roofline").carbon_intensity == 0.4
    model.undo_stack.undo()
    assert model.document.carbon_intensity is None


def test_a_star_on_a_knee_says_its_own_words_not_the_energy_balance_bars(window, qtbot):
    """The eleventh tour, training example: hovering the A100's bf16 workload star on its knee
    showed TPU v3's energy-balance bar's tooltip: the bar had a tooltip of its own, which Qt
    prefers to the points' hover words (pyqtgraph sets them on the view). The bars are spots of
    the points' scatter now: one hover, the points' words first where they lie on a bar."""
    from helpers import mouse
    from PySide6.QtCore import QEvent, QPointF, Qt

    from roofline_gui.widgets.app.file_actions import example_named

    assert window.files.open_example(example_named("training-fp32-against-bf16"))
    window.docks["energy"].raise_()
    chart = window.energy
    qtbot.waitUntil(lambda: not chart.pending)
    chart.refresh()
    vb = chart.plot.getPlotItem().vb
    qtbot.wait(100)  # the view takes its range on its next turns
    scene = vb.scene()
    assert not [item for item in scene.items() if item is not vb and item.toolTip()]
    view = chart.plot

    def hover(x, y) -> str:
        at = QPointF(view.mapFromScene(vb.mapViewToScene(QPointF(x, y))))
        vb.setToolTip("")
        for step in (QPointF(3, 0), QPointF(0, 0)):
            qtbot.wait(40)  # pyqtgraph passes on a move per 1/60 s
            mouse(view.viewport(), QEvent.Type.MouseMove, at + step, Qt.MouseButton.NoButton)
        qtbot.waitUntil(lambda: vb.toolTip() != "", timeout=2000)
        return vb.toolTip()

    spots = chart.marks.getData()
    tips = [d[1] for d in chart.marks.data["data"]]
    bar = next(i for i, d in enumerate(chart.marks.data["data"]) if d[0] is None)
    assert "energy-balance point" in hover(spots[0][bar], spots[1][bar])
    # the workload star nearest a bar, hovered at its middle: its own words, before any bar's
    data = chart.marks.data["data"]
    bars = [i for i, d in enumerate(data) if d[0] is None]
    stars = [i for i, d in enumerate(data) if d[0] is not None
             and d[0][0] in {w.id for w in window.model.document.workloads}]

    def px(i):
        return vb.mapViewToScene(QPointF(spots[0][i], spots[1][i]))

    star = min(stars, key=lambda i: min((px(i) - px(b)).manhattanLength() for b in bars))
    words = hover(spots[0][star], spots[1][star])
    assert tips[star] in words, words
    assert "energy-balance" not in words or words.index(tips[star]) < words.index("energy-balance")
    # a click on a bar selects nothing
    before = (window.model.selected_kernel, window.model.selected_chip)
    chart.marks.sigClicked.emit(chart.marks, [chart.marks.points()[bars[0]]], None)
    assert (window.model.selected_kernel, window.model.selected_chip) == before
    window.model.undo_stack.setClean()


def test_the_energy_charts_words_give_each_roofs_value_at_the_right(window, qtbot):
    """The thirteenth tour: the energy chart's roofs carried no numbers. Beside it, each chip's
    curves' values at the chart's right, where compute alone sets them: the A100's int8 at its
    board power over its peak (estimated energies claim no more), 400 W / 624 Top/s."""
    from roofline_gui.widgets.app.file_actions import examples

    window.files.open(str(next(p for p in examples() if p.stem == "a100-vs-tpu-v3")))
    QApplication.processEvents()
    window.act_energy.trigger()
    chart = window.canvas.energy_chart
    qtbot.waitUntil(lambda: not chart.pending)
    chart.refresh()
    words = chart.title.text()
    assert "At the right, where compute alone sets it:" in words
    _xs, ys = chart.curves["A100 SXM4 40GB"]
    assert ys[-1] == pytest.approx(624e12 / 400.0)
    assert f"A100 SXM4 40GB: int8 {format_si(624e12 / 400.0, 'op/J')}" in words
    _xs, ys = chart.curves["TPU v3"]
    assert f"TPU v3: bf16 {format_si(float(ys[-1]), 'op/J')}" in words
    # under the board power: op/s
    chart.mode.setCurrentIndex(1)
    chart.refresh()
    assert "At the right, held to the board power:" in chart.title.text()
    assert "A100 SXM4 40GB: int8 624 Top/s" in chart.title.text()
    window.act_overlay.trigger()


def test_the_energy_charts_words_name_the_precision_a_chip_runs_anothers_at(window, qtbot):
    """The 37th tour: the article's V100 runs its bf16 kernels at its fp16 (it has no bf16),
    yet the energy chart drew and named its int8 and fp32 curves alone. The curve of the
    precision standing in is drawn and said as such, at the V100's fp16 peak over its 300 W."""
    from roofline_gui.widgets.app.file_actions import example_named

    assert window.files.open_example(example_named("the-article-claim-by-claim"))
    QApplication.processEvents()
    cmp = window.model.comparison
    v100 = next(c for c, chip in enumerate(cmp.chips) if chip.name == "V100 SXM2 16GB")
    k = next(i for i, kernel in enumerate(cmp.kernels) if kernel.precision == "bf16")
    assert cmp.stand_in(k, v100) == "fp16"  # as the table and the explanation say
    window.act_energy.trigger()
    chart = window.canvas.energy_chart
    qtbot.waitUntil(lambda: not chart.pending)
    chart.refresh()
    words = re.sub("<[^>]+>", "", chart.title.text())
    fp16 = format_si(cmp.chips[v100].compute["fp16"] / 300.0, "op/J")
    assert f"fp16 (for bf16) {fp16}" in words.split("V100 SXM2 16GB:")[-1]
    window.act_overlay.trigger()


def test_a_chip_whose_energy_curve_lies_under_others_says_so(window, qtbot):
    """The twenty-fifth tour: the Llama example with an A100 80GB and an H200 added showed two
    of four curves, and nothing said the H100's lay under the A100's slope (196 and 209 pJ/B
    from their board powers) and the H200's flat part (the same 700 W and bf16 peak)."""
    from roofline_gui.core.display import hidden_under
    from roofline_gui.widgets.app.file_actions import example_named

    assert window.files.open_example(example_named("llama-3-8b-on-three-chips"))
    window.model.add_chips([window.presets.chips["nvidia-a100-sxm4-80gb"],
                            window.presets.chips["nvidia-h200-sxm-141gb"]])
    QApplication.processEvents()
    from roofline_gui.widgets.panels.energy_panel import EnergyPanel

    window.docks["energy"].raise_()
    QApplication.processEvents()
    chart = window.findChild(EnergyPanel)
    qtbot.waitUntil(lambda: not chart.pending)
    chart.refresh()
    words = chart.title.text()
    assert "H100 SXM5 80GB: bf16 1.413 Top/J (hidden under H200 SXM 141GB, A100 SXM4 80GB)" in words
    # the MI300X's flat part is in sight (its slope under the H200's): not said hidden
    mi300x = words.split("Instinct MI300X: ")[-1].split("<br>")[0]
    assert mi300x.startswith("bf16 1.743 Top/J") and "hidden" not in mi300x
    # the rule itself: covered at every point, by the curves drawn later, topmost first
    grid = np.linspace(0.0, 1.0, 5)
    assert hidden_under([(0, grid), (1, grid + 0.01), (2, grid + 1.0)]) == {0: [1]}
    assert hidden_under([(0, grid), (1, np.where(grid < 0.5, grid, 9.0)),
                         (2, np.where(grid >= 0.5, grid, 9.0))]) == {0: [2, 1]}
    assert hidden_under([(0, grid), (1, np.where(grid < 0.5, grid, 9.0))]) == {}


def test_an_energy_cell_bounds_only_what_the_board_power_estimates(window):
    """A chip whose energies are estimated from its board power has its op/J as a floor and
    its power as a ceiling ("≥ 3.886 Gop/J · ≤ 400 W"); the same chip given its energies per
    op and per byte (Given pJ) has figures, not bounds, and the same op/J the explanation
    gives."""
    from dataclasses import replace

    from roofline_gui.core.document import Document
    from roofline_gui.core.energy import Energy, kernel_lines
    from roofline_gui.core.units import format_si

    model, presets = window.model, window.presets
    a100 = presets.chips["nvidia-a100-sxm4-40gb"]
    given = replace(a100, id="given", name="A100 given pJ", energy=Energy(
        board_power=400.0, op_pj={"bf16": 0.5}, byte_pj={"dram": 20.0}))
    model.reset(Document())
    model.add_chips([a100, given])
    model.add_kernels([presets.kernels["mlp-bf16-b1"]])
    QApplication.processEvents()
    table, cmp = window.table.table_model, model.comparison
    column = {table.locate(i): i for i in range(table.columnCount())}
    row = next(r for r in range(table.rowCount()) if table.kernel_row(r) == 0)
    guessed, exact = (table.index(row, column[(c, "energy")]).data() for c in (0, 1))
    e = cmp.energy_of(0)
    assert guessed == (f"≥ {format_si(float(e.ops_per_joule[0, 0]), 'op/J')} · "
                       f"≤ {format_si(float(e.capped_power[0, 0]), 'W')}")
    assert exact == (f"{format_si(float(e.ops_per_joule[0, 1]), 'op/J')} · "
                     f"{format_si(float(e.capped_power[0, 1]), 'W')}")
    # 0.5 pJ/op + 20 pJ/B at about 1 op/B: about 20.5 pJ an op, some 49 Gop/J
    assert 1 / float(e.ops_per_joule[0, 1]) == pytest.approx(20.5e-12, rel=0.01)
    assert format_si(float(e.ops_per_joule[0, 1]), "op/J") in "\n".join(kernel_lines(cmp, 0, 1))
    # the explanation's first line with the cell's signs, a bound where the cell has one (the
    # 42nd tour read "≥ 123.2 Gop/J · ≤ 450 W" in the table and "123.2 Gop/J, at an average
    # 450 W" in the explanation)
    first = [kernel_lines(cmp, 0, c)[0] for c in (0, 1)]
    op_j, watts = guessed.split(" · ")
    assert op_j in first[0] and f"average {watts}" in first[0] and " pJ, ≥ " in first[0]
    op_j, watts = exact.split(" · ")
    assert op_j in first[1] and f"average {watts}" in first[1] and "≥" not in first[1]
    # the Energy tab's points say it as the cell does (the 37th tour read them without signs)
    window.docks["energy"].raise_()
    chart = window.energy
    chart.refresh()
    tips = {d[1].split(": ")[0]: d[1] for d in chart.marks.data["data"] if d[0] is not None}
    name = model.document.kernels[0].name
    assert tips[f"{name} on {a100.name}"].endswith(guessed.replace(" · ", ", "))
    assert tips[f"{name} on A100 given pJ"].endswith(exact.replace(" · ", ", "))


def test_the_energy_tabs_y_axis_comes_back_as_the_user_left_it(window, qtbot, settings, model):
    """The 45th tour chose op/s under the board power, restarted and found op/J again: the y
    axis is kept in the settings."""
    from roofline_gui.widgets.app.main_window import MainWindow

    window.docks["energy"].raise_()
    combo = window.energy.mode
    assert combo.currentData() == "energy"  # the first start's
    combo.setCurrentIndex(combo.findData("power"))
    assert settings.get("view/energy_axis") == "power"
    again = MainWindow(settings=settings, model=model)
    again.show()
    qtbot.waitExposed(again)
    again.docks["energy"].raise_()
    qtbot.waitUntil(lambda: again.energy is not None, timeout=3000)
    assert again.energy.mode.currentData() == "power"
    again.model.undo_stack.setClean()
    again.close()
    again.deleteLater()
