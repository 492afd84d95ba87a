"""File > Export CSV says what it wrote; a session of workloads alone exports their table (it
had written a header alone and said "Exported")."""

import csv
from dataclasses import replace

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
    assert said.endswith(": the workloads' table, 4 rows (2 workloads on 2 chips) (the session has "
                         "no kernels)"), said


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
