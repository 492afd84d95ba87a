"""Measuring, running and importing from the window: off the UI thread, cancellable, undoable."""

from conftest import DATA

from roofline_gui.core.kernel import Kernel
from roofline_gui.widgets.app.measure_actions import ImportDialogs

SMALL = {"sizes": [64 * 1024, 512 * 1024, 8 * 1024**2], "gemm_sizes": {"fp64": 128, "fp32": 128},
         "threads": 1}


def test_measure_this_computer_adds_a_measured_chip(window, qtbot):
    before = len(window.model.document.chips)
    with qtbot.waitSignal(window.measure.sig_finished, timeout=60000) as blocker:
        window.measure.measure_computer(**SMALL)
    assert blocker.args == ["done"]
    chips = window.model.document.chips
    assert len(chips) == before + 1
    measured = chips[-1]
    assert measured.name.startswith("This computer, measured")
    assert measured.dram.bandwidth > 0 and measured.compute["fp64"] > 0
    assert window.model.selected_chip == measured.id
    window.model.undo_stack.undo()  # one undoable step
    assert len(window.model.document.chips) == before


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
