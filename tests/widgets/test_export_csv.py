"""File > Export CSV says what it wrote; a session of workloads alone exports their table (it
had written a header alone and said "Exported")."""

import csv
from dataclasses import replace
from pathlib import Path

import numpy as np

from roofline_gui.core.document import Document
from roofline_gui.io.presets import default_presets
from roofline_gui.io.workloads import shipped_workloads


def _exported(window, tmp_path, monkeypatch, action):
    said, path = [], tmp_path / "out.csv"
    monkeypatch.setattr(window.files, "_ask_export_path", lambda *_a: path)
    window.files.sig_message.connect(said.append)
    assert action()
    with open(path, newline="") as f:
        return list(csv.DictReader(f)), said[-1]


def test_a_session_of_workloads_alone_exports_their_table_and_says_so(window, tmp_path, monkeypatch):
    presets = default_presets().chips
    chips = tuple(replace(presets[p], id=f"c{i}") for i, p in enumerate(
        ("nvidia-h100-sxm5-80gb", "amd-instinct-mi300x")))
    workloads = tuple(shipped_workloads()[n].workload(f"w{i}") for i, n in enumerate(("llama-3-8b", "gpt2")))
    window.model.reset(Document(chips=chips, workloads=workloads))
    rows, said = _exported(window, tmp_path, monkeypatch, window.files.export_csv)
    assert len(rows) == 4 and {r["chip"] for r in rows} == {c.name for c in chips}
    assert {r["workload"] for r in rows} == {w.name for w in workloads}
    assert all(float(r["time_s"]) > 0 for r in rows)
    assert said.endswith(": the workloads' table, 4 rows (2 workloads on 2 chips); the session has "
                         "no kernels"), said


def test_the_kernels_table_says_its_rows(window, tmp_path, monkeypatch):
    doc = window.model.document
    rows, said = _exported(window, tmp_path, monkeypatch, window.files.export_csv)
    assert len(rows) == len(doc.kernels) * len(doc.chips) > 0
    assert f"{len(rows)} rows ({len(doc.kernels)} kernels on {len(doc.chips)} chips)" in said


def test_nothing_to_export_is_said_and_writes_nothing(window, tmp_path, monkeypatch):
    from roofline_gui.widgets.common.dialogs import Confirm

    errors = []
    monkeypatch.setattr(Confirm, "error", classmethod(lambda cls, _w, title, text: errors.append(text)))
    monkeypatch.setattr(window.files, "_ask_export_path", lambda *_a: tmp_path / "x.csv")
    window.model.reset(Document(chips=window.model.document.chips))
    assert not window.files.export_csv() and not window.files.export_workloads_csv()
    assert errors and "no kernels and no workloads" in errors[0] and not (tmp_path / "x.csv").exists()


def test_the_csv_reads_as_the_table_with_same_width_stand_ins(window, tmp_path, monkeypatch):
    """The V100 has no bf16: with View → Same-width precisions the table runs a bf16 GEMM at its
    fp16 peak; File → Export CSV wrote the kernel unsupported there (a tour found the file and
    the table disagreeing). Both CSVs now evaluate as the window does."""
    presets = default_presets()
    chip = presets.chips["nvidia-v100-sxm2-16gb"]
    window.model.reset(Document(chips=(chip,), kernels=(presets.kernels["gemm-4k-bf16"],)))
    for same_width in (True, False):
        window.model.set_view(same_width=same_width)
        table = window.model.comparison
        rows, _said = _exported(window, tmp_path, monkeypatch, window.files.export_csv)
        assert rows[0]["limiter"] == table.limiter_name(0, 0)
        np.testing.assert_allclose(float(rows[0]["attainable_flop_per_s"] or "nan"),
                                   table.result.attainable[0, 0], rtol=1e-14)  # empty where
        # unsupported; to 15 figures (float noise left out: core.units.format_plain)
    assert table.limiter_name(0, 0) == "no bf16 on this chip"
    window.model.set_view(same_width=True)
    assert window.model.comparison.limiter_name(0, 0) == "fp16 peak (for bf16)"


def test_the_next_export_dialog_starts_in_the_folder_the_last_export_went_to(window, tmp_path,
                                                                             monkeypatch):
    """The seventh tour: a CSV written to /tmp/tour7, then the PNG dialog offered the home
    folder. Every export remembers its folder, as Open and Save do."""
    from roofline_gui.widgets.app.file_actions import FileDialogs

    elsewhere = tmp_path / "reports"
    elsewhere.mkdir()
    offered = []

    def save_path(_parent, suggested, *_filter):
        offered.append(suggested)
        return str(elsewhere / "chart.csv") if len(offered) == 1 else ""

    monkeypatch.setattr(FileDialogs, "save_path", staticmethod(save_path))
    assert window.files.export_csv()
    assert (elsewhere / "chart.csv").exists()
    window.files.export_csv()  # asked again, and cancelled
    assert len(offered) == 2 and Path(offered[1]).parent == elsewhere


def test_the_table_says_a_host_link_limit_as_the_explanation_does(window):
    """The table read "PCIe Gen4 x16 (memory)" where the explanation says "(host link)" (the
    nineteenth tour); main memory stays "(memory)"."""
    from PySide6.QtCore import Qt

    presets = default_presets()
    kernels = (presets.kernels["gemm-4k-bf16-host"], presets.kernels["gemm-4k-bf16"],
               presets.kernels["mlp-bf16-b1"])
    window.model.reset(Document(chips=(presets.chips["nvidia-a100-sxm4-40gb"],), kernels=kernels))
    model = window.table.view.model()
    cells = [[model.data(model.index(row, col), Qt.ItemDataRole.DisplayRole)
              for col in range(model.columnCount())] for row in range(model.rowCount())]
    words = [next((c for c in row if isinstance(c, str) and c.endswith(("(host link)", "(memory)",
                                                                         "(compute)"))), None)
             for row in cells]
    assert words == ["PCIe Gen4 x16 (host link)", "bf16 peak (compute)", "HBM2 (memory)"], words
