"""Opening and saving big sessions on a worker thread: the same results, the same error
messages, the same guarantees (old file intact, document unchanged) as the direct path."""

from __future__ import annotations

import threading

import pytest

from roofline_gui.io import session as session_io
from roofline_gui.io.session import load_session, save_session
from roofline_gui.widgets import file_actions
from roofline_gui.widgets.dialogs import Confirm
from roofline_gui.widgets.file_actions import FileDialogs


@pytest.fixture
def always_background(monkeypatch):
    """Every open and save takes the worker path; records the threads the work ran on."""
    monkeypatch.setattr(file_actions, "BACKGROUND_BYTES", -1)
    monkeypatch.setattr(file_actions, "BACKGROUND_ITEMS", -1)
    threads = []
    real_load, real_save = session_io.load_session, session_io.save_session

    def load(path):
        threads.append(threading.current_thread().name)
        return real_load(path)

    def save(doc, path):
        threads.append(threading.current_thread().name)
        return real_save(doc, path)

    monkeypatch.setattr(file_actions, "load_session", load)
    monkeypatch.setattr(file_actions, "save_session", save)
    return threads


def test_open_and_save_on_a_worker_give_the_same_documents(window, tmp_path, monkeypatch,
                                                           always_background):
    path = tmp_path / "copy.roofline"
    save_session(window.model.document, path)
    expected = load_session(path)
    assert window.files.open(path)
    assert window.model.document == expected
    assert window.model.path == path and window.model.undo_stack.isClean()
    # The comparison computed on the worker is the one the views use, and it is right.
    cmp = window.model.comparison
    assert cmp.kernels is window.model.document.kernels
    table = window.table.table_model
    col = next(c for c in range(table.columnCount()) if table.locate(c) == (0, "attainable"))
    assert table.index(0, col).data() == "518.3 Gop/s"
    window.model.move_kernel_to_intensity(window.model.document.kernels[2].id, 20.0)
    target = tmp_path / "saved.roofline"
    monkeypatch.setattr(FileDialogs, "save_path", classmethod(lambda cls, *a, **k: str(target)))
    assert window.files.save_as()
    assert load_session(target) == window.model.document
    assert window.model.undo_stack.isClean()
    assert always_background == ["roofline-file-io", "roofline-file-io"]


def test_errors_on_the_worker_are_reported_and_change_nothing(window, tmp_path, monkeypatch,
                                                               always_background):
    errors = []
    monkeypatch.setattr(Confirm, "error", classmethod(lambda cls, parent, title, msg: errors.append(msg)))
    bad = tmp_path / "bad.roofline"
    bad.write_text('{"format": "roofline-session", "version": 2, "chips": [{"name": 3}]}')
    before = window.model.document
    assert not window.files.open(bad)
    assert window.model.document is before and "chips[0].id" in errors[-1]
    # A save that fails after the temporary file is written keeps the old file and the edits.
    target = tmp_path / "kept.roofline"
    save_session(before, target)
    old_bytes = target.read_bytes()
    window.model.move_kernel_to_intensity(before.kernels[2].id, 20.0)
    edited = window.model.document

    def fail(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("roofline_gui.io.files.os.replace", fail)
    monkeypatch.setattr(FileDialogs, "save_path", classmethod(lambda cls, *a, **k: str(target)))
    assert not window.files.save_as()
    assert target.read_bytes() == old_bytes
    assert window.model.document is edited and not window.model.undo_stack.isClean()
    assert "No space left" in errors[-1] or "space" in errors[-1].lower()
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["bad.roofline", "kept.roofline", "settings.ini"]  # no temporary file
