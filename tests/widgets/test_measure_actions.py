"""Measuring, running and importing from the window: off the UI thread, cancellable, undoable."""

import pytest
from conftest import DATA, synthetic_measurement

from roofline_gui.core.kernel import Kernel
from roofline_gui.widgets.app.measure_actions import ImportDialogs, MeasureDialogs

SMALL = {"sizes": [64 * 1024, 512 * 1024, 8 * 1024**2], "gemm_sizes": {"fp64": 128, "fp32": 128},
         "threads": 1}


def _answer(monkeypatch, answer, seen=None):
    def ask(cls, parent, chip, measurement, selected):
        if seen is not None:
            seen.append((chip, measurement, selected))
        return answer(selected) if callable(answer) else answer

    monkeypatch.setattr(MeasureDialogs, "ask", classmethod(ask))


def test_measure_this_computer_adds_a_measured_chip(window, qtbot, monkeypatch):
    seen = []
    _answer(monkeypatch, (None, False), seen)
    before = len(window.model.document.chips)
    with qtbot.waitSignal(window.measure.sig_finished, timeout=60000) as blocker:
        window.measure.measure_computer(**SMALL)
    assert blocker.args == ["done"]
    assert seen[0][1].fallback is None  # the compiled kernels measured: no fallback to report
    chips = window.model.document.chips
    assert len(chips) == before + 1
    measured = chips[-1]
    assert measured.name.startswith("This computer, measured")
    assert measured.dram.bandwidth > 0 and measured.compute["fp64"] > 0
    assert measured.dram.measured is not None and "fp64" in measured.compute_measured
    assert window.model.selected_chip == measured.id
    window.model.undo_stack.undo()  # one undoable step
    assert len(window.model.document.chips) == before


def test_measured_values_go_beside_the_selected_chips_datasheet_and_into_my_presets(
        window, qtbot, monkeypatch, tmp_path):
    monkeypatch.setenv("ROOFLINE_DATA_DIR", str(tmp_path))
    target = window.model.document.chips[0]
    window.model.select(None, target.id)
    _answer(monkeypatch, lambda selected: (selected, True))
    before = len(window.model.document.chips)
    messages = []
    window.measure.sig_message.connect(messages.append)
    with qtbot.waitSignal(window.measure.sig_finished, timeout=60000):
        window.measure.measure_computer(**SMALL)
    assert len(window.model.document.chips) == before  # no new chip
    dram = target.dram.name
    assert any(m.startswith(f"Measured values added to {target.name}: ") and f"DRAM → {dram}" in m
               for m in messages), messages
    merged = window.model.document.chip(target.id)
    assert merged.dram.bandwidth == target.dram.bandwidth  # the datasheet value stays
    assert merged.dram.measured is not None and merged.dram.provenance(True).kind == "measured"
    assert merged.dram.provenance(False).kind == "datasheet"
    assert window.model.undo_stack.undoText() == f"Add measured values to {target.name}"
    from roofline_gui.io.presets import load_presets

    kept = [c for c in load_presets().chips.values() if c.name.startswith("This computer")]
    assert len(kept) == 1 and kept[0].dram.measured is not None
    window.model.undo_stack.undo()
    assert window.model.document.chip(target.id) == target


def test_a_discarded_measurement_changes_nothing(window, qtbot, monkeypatch):
    _answer(monkeypatch, None)
    first = window.model.document
    with qtbot.waitSignal(window.measure.sig_finished, timeout=60000):
        window.measure.measure_computer(**SMALL)
    assert window.model.document is first


def test_import_the_chip_of_a_measurement_file(window, monkeypatch, tmp_path):
    from roofline_gui.io.files import dumps
    from roofline_gui.measure.machine import measurement_file

    out = tmp_path / "m.json"
    out.write_bytes(dumps(measurement_file(synthetic_measurement())))
    monkeypatch.setattr(ImportDialogs, "chips_path", classmethod(lambda cls, p, t: str(out)))
    before = len(window.model.document.chips)
    assert window.measure.import_chips()
    chips = window.model.document.chips
    assert len(chips) == before + 1 and chips[-1].name == "This computer, measured 2026-12-01 09:00"
    assert chips[-1].dram.measured.value == 25e9 and chips[-1].memory[0].name == "L1"
    # File → Open of the same file: a new untitled session with that chip; Save asks a name
    monkeypatch.setattr(window.files, "maybe_save", lambda: True)
    assert window.files.open(out)
    assert [c.name for c in window.model.document.chips] == [chips[-1].name]
    assert window.model.path is None


def test_a_cancelled_measurement_changes_nothing(window, qtbot):
    first = window.model.document
    with qtbot.waitSignal(window.measure.sig_finished, timeout=60000) as blocker:
        window.measure.measure_computer(sizes=[64 * 1024] * 40, gemm_sizes={"fp64": 64}, threads=1)
        window.measure.cancel()
    assert blocker.args == ["cancelled"]
    assert window.model.document is first


def test_run_a_kernel_on_this_computer(window, qtbot):
    kernel = Kernel("t", "triad", "fp64", template="triad", params={"n": 300_000})
    new_id = window.model.add_kernels([kernel])[0]
    window.model.select(new_id, None)
    with qtbot.waitSignal(window.measure.sig_finished, timeout=60000) as blocker:
        window.measure.run_selected_kernel()
    assert blocker.args == ["done"]
    measured = window.model.document.kernel(new_id)
    assert measured.measured_time > 0
    # The table's measured column and the canvas's measured star follow.
    table = window.table.table_model
    row = [k.id for k in window.model.document.kernels].index(new_id)
    assert table.index(row, 3).data().endswith("op/s")
    assert "% of the" in table.index(row, 3).data(3)  # ToolTipRole


def test_import_nsight_compute_from_the_menu(window, monkeypatch):
    reports = []
    monkeypatch.setattr(ImportDialogs, "csv_path", classmethod(lambda cls, p, t: str(DATA / "ncu_raw.csv")))
    monkeypatch.setattr(ImportDialogs, "report", classmethod(lambda cls, p, t, text: reports.append(text)))
    before = len(window.model.document.kernels)
    assert window.measure.import_ncu()
    assert len(window.model.document.kernels) == before + 3
    assert window.model.undo_stack.undoText() == "Import 3 kernels"
    assert "2 rows skipped" in reports[0] and "row 5" in reports[0]


def test_a_bad_import_file_imports_nothing(window, monkeypatch, tmp_path):
    from roofline_gui.widgets.common.dialogs import Confirm

    bad = tmp_path / "bad.csv"
    bad.write_text("name,flops\nx,1\n")
    errors = []
    monkeypatch.setattr(ImportDialogs, "csv_path", classmethod(lambda cls, p, t: str(bad)))
    monkeypatch.setattr(Confirm, "error", classmethod(lambda cls, p, t, m: errors.append(m)))
    first = window.model.document
    assert not window.measure.import_plain()
    assert window.model.document is first and "missing column 'precision'" in errors[0]


def test_save_a_chip_as_a_user_preset(window, tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_DATA_DIR", str(tmp_path))
    window.model.select(None, window.model.document.chips[1].id)
    window.measure.save_chip_as_preset()
    from roofline_gui.io.presets import load_presets

    reloaded = load_presets()
    assert "user-tpu-v3" in reloaded.chips
    assert reloaded.chips["user-tpu-v3"].compute == window.model.document.chips[1].compute


def test_achievable_roofs_draw_measured_roofs_solid_and_the_datasheet_roofs_dashed(window):
    from dataclasses import replace

    from PySide6.QtCore import Qt

    from roofline_gui.core.chip import Measured
    from roofline_gui.widgets.chart.roofline_plot import DATASHEET_LEGEND

    doc = window.model.document
    a100 = doc.chips[0]
    dram = next(i for i, lv in enumerate(a100.memory) if lv.role == "dram")
    measured = a100.with_level(dram, replace(a100.memory[dram], measured=Measured(
        1.3e12, "2026-12-01 09:00", "BabelStream triad", "dgx-7")))
    window.model.reset(replace(doc, chips=(measured, *doc.chips[1:])))
    plot = window.canvas.overlay_plot

    def dashed_tips():
        return [line.tip for line in plot.roofs.item.lines
                if line.pen.style() == Qt.PenStyle.CustomDashLine and "datasheet roof" in line.tip]

    assert dashed_tips() == [] and DATASHEET_LEGEND not in [e[0] for e in plot.legend.legend.entries]
    window.set_derated(True)
    tips = dashed_tips()
    assert tips and all(t.startswith(a100.name) for t in tips)  # only the measured chip's
    assert DATASHEET_LEGEND in [e[0] for e in plot.legend.legend.entries]
    solid = [line.tip for line in plot.roofs.item.lines if "roof:" in line.tip and a100.name in line.tip
             and "datasheet roof" not in line.tip]
    assert solid and all("measured 2026-12-01 09:00 on dgx-7: BabelStream triad" in t for t in solid)
    # the table and the explanation run against the measured bandwidth too
    cmp = window.model.comparison
    k = next(i for i, kern in enumerate(cmp.kernels) if kern.name.startswith("out = a + b"))
    assert cmp.result.attainable[k, 0] == pytest.approx(1.3e12 / 3)
    window.set_derated(False)
    assert dashed_tips() == []
    # the table's header says how much of the datasheet the measurement reaches
    table = window.table.table_model
    tips = [table.headerData(i, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
            for i in range(table.columnCount())]
    header = next(t for t in tips if t and t.startswith(f"{a100.name}: attainable"))
    assert f"{a100.dram.name}: measured 84%: 1.3 TB/s" in header


def test_the_measured_dialog_says_what_measured_and_warns_in_words(qtbot, example_doc):
    from roofline_gui.measure.machine import to_chip
    from roofline_gui.widgets.common.measured_dialog import MeasuredDialog

    m = synthetic_measurement()
    m.fallback = "numba could not be used (ModuleNotFoundError: No module named 'numba')"
    m.notes = ["the fp32 vector peak came out below the BLAS matrix multiply; measure again"]
    chip = to_chip(m)
    dialog = MeasuredDialog(chip, m, example_doc.chips[0])
    qtbot.addWidget(dialog)
    from PySide6.QtWidgets import QLabel

    texts = [label.text() for label in dialog.findChildren(QLabel)]
    assert any("Test CPU, 2 threads" in t and "compiled loops (numba)" in t for t in texts)
    assert any(t.startswith("Measured with numpy's kernels, not the compiled ones: numba could")
               for t in texts)
    assert "The fp32 vector peak came out below the BLAS matrix multiply; measure again" in texts
    assert any(t.startswith("DRAM: 25 GB/s") for t in "\n".join(texts).splitlines())
    assert dialog.answer() == (None, False)  # a new chip, not kept: the default
    assert f"only if {example_doc.chips[0].name} is this computer's datasheet" in dialog.onto_selected.text()
    dialog.onto_selected.setChecked(True)
    dialog.keep.setChecked(True)
    assert dialog.answer() == (example_doc.chips[0], True)
    nothing_selected = MeasuredDialog(chip, m, None)
    qtbot.addWidget(nothing_selected)
    assert not nothing_selected.onto_selected.isEnabled()


def test_the_import_summary_counts_rows_measured_above_every_roof(window, monkeypatch, tmp_path):
    """One row 1,000× above every roof: the summary says so, and the chart keeps it out of its
    automatic range (a note says it), so the real points are not squashed into a thin band."""
    from PySide6.QtWidgets import QApplication

    rows = tmp_path / "rows.csv"
    rows.write_text("name,precision,flops,bytes_dram,bytes_cache,time_s,measured_flops_per_s\n"
                    "fine,fp32,1e9,1e9,,,1e9\n"
                    "typo,fp32,1e9,1e9,,,1e18\n")
    reports = []
    monkeypatch.setattr(ImportDialogs, "csv_path", classmethod(lambda cls, p, t: str(rows)))
    monkeypatch.setattr(ImportDialogs, "report", classmethod(lambda cls, p, t, text: reports.append(text)))
    plot = window.canvas.overlay_plot
    assert window.measure.import_plain()
    QApplication.processEvents()
    assert "1 row measured above every roof" in reports[0]
    assert "1 more than 10× above, left out of the chart's automatic range" in reports[0]
    assert "1 measured point far above every roof (typo)" in plot.note.text
    assert plot.scene.fit.range[1][1] < 1e17
