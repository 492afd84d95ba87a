"""Opening and saving big sessions on a worker thread: the same results, the same error
messages, the same guarantees (old file intact, document unchanged) as the direct path."""

from __future__ import annotations

import threading

import pytest

from roofline_gui.io import session as session_io
from roofline_gui.io.session import load_session, save_session
from roofline_gui.widgets.app import file_actions
from roofline_gui.widgets.app.file_actions import FileDialogs
from roofline_gui.widgets.common.dialogs import Confirm


@pytest.fixture
def always_background(monkeypatch):
    """Every open and save takes the worker path; records the threads the work ran on."""
    monkeypatch.setattr(file_actions, "BACKGROUND_BYTES", -1)
    monkeypatch.setattr(file_actions, "BACKGROUND_ITEMS", -1)
    threads = []
    real_load, real_save = session_io.open_document, session_io.save_session

    def load(path):
        threads.append(threading.current_thread().name)
        return real_load(path)

    def save(doc, path):
        threads.append(threading.current_thread().name)
        return real_save(doc, path)

    monkeypatch.setattr(file_actions, "open_document", load)
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
    left = sorted(p.name for p in tmp_path.iterdir() if p.name != "settings.ini")
    assert left == ["bad.roofline", "kept.roofline"]  # no temporary file


def test_a_worker_job_keeps_the_window_active_and_refuses_to_close_until_done(window, qtbot,
                                                                              monkeypatch):
    """A short job shows only a busy cursor; a long one also a progress window that does not
    take focus from the main window (a deactivated window repaints every view, and each
    table cell's Python call then waits for the worker's GIL). Closing waits for the job."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QProgressDialog

    from roofline_gui.widgets.common import background

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    monkeypatch.setattr(background, "SHOW_AFTER_MS", 50)
    seen = {}

    waited = [0]

    def look():
        cursor = QApplication.overrideCursor()
        seen["cursor"] = cursor.shape() if cursor else None
        seen["dialogs"] = [w for w in QApplication.topLevelWidgets()
                           if isinstance(w, QProgressDialog) and w.isVisible()]
        if not seen["dialogs"] and waited[0] < 50:  # a loaded machine: look again, not fail
            waited[0] += 1
            QTimer.singleShot(100, look)
            return
        seen["active"] = window.isActiveWindow()
        closed = window.close()
        seen["closed"] = closed
        release.set()

    release = threading.Event()
    QTimer.singleShot(300, look)  # timers run during the job; the job waits for this look
    assert background.run_in_background(window, "Working…", lambda: release.wait(10) and 42) == 42
    assert seen["cursor"] == background.Qt.CursorShape.WaitCursor
    assert len(seen["dialogs"]) == 1 and seen["dialogs"][0].labelText() == "Working…"
    dialog = seen["dialogs"][0]
    assert dialog.testAttribute(background.Qt.WidgetAttribute.WA_ShowWithoutActivating)
    assert dialog.windowFlags() & background.Qt.WindowType.WindowDoesNotAcceptFocus
    if QApplication.platformName() != "offscreen":  # offscreen activates every shown window
        assert seen["active"]  # checked under Xvfb (xcb)
    assert not seen["closed"]  # the close was refused while the job ran
    assert window.isVisible() and not background.busy()
    assert QApplication.overrideCursor() is None  # restored
    qtbot.waitUntil(lambda: not any(isinstance(w, QProgressDialog) and w.isVisible()
                                    for w in QApplication.topLevelWidgets()))
    # A job shorter than SHOW_AFTER_MS shows no window at all.
    monkeypatch.setattr(background, "SHOW_AFTER_MS", 10_000)
    assert background.run_in_background(window, "Quick", lambda: 7) == 7
    assert not any(isinstance(w, QProgressDialog) for w in QApplication.topLevelWidgets()
                   if w.isVisible())


def test_a_big_charts_drawing_waits_for_a_file_job_and_finishes_after_it(window, monkeypatch):
    """Python work on the UI thread during a job waits for the worker's GIL at every call, so
    the chart's remaining turns wait for the job; the job's switch interval is undone."""
    import sys
    from dataclasses import replace

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.chart.layers import markers
    from roofline_gui.widgets.common import background

    monkeypatch.setattr(markers, "SYNC_SPOTS", 1)  # every chart is "big"
    plot = window.canvas.overlay_plot
    interval = sys.getswitchinterval()
    seen = {}
    release = threading.Event()

    def during():
        if not background._running:  # fired before the job began (a slow, loaded machine: the
            QTimer.singleShot(20, during)  # paint before the job took the 150 ms): once it runs
            return
        seen["pending"] = list(plot.pending)
        seen["interval"] = sys.getswitchinterval()
        release.set()

    doc = window.model.document  # other kernels (the same, reversed): every chip refills
    window.model.reset(replace(doc, kernels=doc.kernels[::-1], baseline=None))
    assert window.canvas.drawing
    QTimer.singleShot(150, during)
    background.run_in_background(window, "Saving…", lambda: release.wait(10))
    assert seen["pending"] == [c.id for c in window.model.document.chips]  # nothing drawn yet
    assert seen["interval"] <= background.JOB_SWITCH_INTERVAL_S
    assert sys.getswitchinterval() == interval
    while window.canvas.drawing:
        QApplication.processEvents()
    assert all(s.isVisible() and len(s.data) for s in plot.markers.scatters.values())


def test_an_error_box_is_wide_enough_for_a_path_and_its_reason(qtbot, monkeypatch):
    """A box 270 px wide had cut its title to "Could not o… ken.roofline" and wrapped the path
    (the nineteenth tour)."""
    from PySide6.QtWidgets import QMessageBox

    from roofline_gui.widgets.common.dialogs import Confirm

    shown = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append(box) or 0)
    Confirm.error(None, "Could not open broken.roofline", "/tmp/x/broken.roofline: 1 problem")
    (box,) = shown
    box.show()
    qtbot.addWidget(box)
    from PySide6.QtWidgets import QLabel

    label = box.findChild(QLabel, "qt_msgbox_informativelabel")
    qtbot.waitUntil(lambda: label.width() > 0)
    assert label.width() >= 30 * label.fontInfo().pixelSize()  # 30 em, a short message too
