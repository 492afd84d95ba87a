"""Autosave and recovery: a killed process loses at most the last few seconds of work."""

import os
import signal
import subprocess
import sys
import textwrap
from dataclasses import replace

from conftest import ROOT

from roofline_gui.core.edits import Replace
from roofline_gui.io.journal import read_journal
from roofline_gui.models.autosave import Autosave, orphaned_journals
from roofline_gui.widgets.common.dialogs import RecoveryDialog

CHILD = textwrap.dedent("""
    import os, sys, time
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from dataclasses import replace
    from roofline_gui.widgets.common.application import make_app
    from roofline_gui.widgets.app.main_window import MainWindow
    from roofline_gui.core.edits import Replace
    app = make_app()
    w = MainWindow()
    w.open_initial(None)           # the A100 vs TPU v3 example
    m = w.model
    chip = m.document.chips[0]
    m.push(Replace("chips", replace(chip, name="Edited A100")), "rename")
    mlp = next(k for k in m.document.kernels if k.template == "mlp")
    for target in (4.0, 16.0, 64.0):
        m.move_kernel_to_intensity(mlp.id, target, merge_key=("drag", 0))
    w.autosave.write_now().result()  # what the 3-second timer would do
    print("journaled", mlp.id, m.document.kernel(mlp.id).params["batch"], flush=True)
    time.sleep(60)
""")


def test_a_killed_app_is_recovered_at_the_next_start(tmp_path, qtbot, settings, monkeypatch):
    env = {**os.environ, "ROOFLINE_DATA_DIR": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    child = subprocess.Popen([sys.executable, "-c", CHILD], cwd=ROOT, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = child.stdout.readline().split()
    if not line or line[0] != "journaled":
        child.kill()
        raise AssertionError(child.communicate()[1])
    kernel_id, batch = line[1], float(line[2])
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    child.stdout.close()
    child.stderr.close()
    assert child.returncode == -signal.SIGKILL

    orphans = orphaned_journals(tmp_path / "journals")
    assert len(orphans) == 1
    journal = read_journal(orphans[0])
    assert journal.document.chips[0].name == "Edited A100"
    assert journal.document.kernel(kernel_id).params["batch"] == batch

    # The next start offers it, shows what it is, and recovers it when asked.
    shown = []
    monkeypatch.setenv("ROOFLINE_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(RecoveryDialog, "ask", classmethod(
        lambda cls, descriptions, parent=None: shown.extend(descriptions) or ("recover", 0)))
    from roofline_gui.widgets.app.main_window import MainWindow

    window = MainWindow(settings=settings)
    window.open_initial(None)
    assert "2 chips, 9 kernels" in shown[0]
    assert window.model.document.chips[0].name == "Edited A100"
    assert window.model.document.kernel(kernel_id).params["batch"] == batch
    assert not window.model.undo_stack.isClean()  # recovered work is still unsaved
    assert orphaned_journals(tmp_path / "journals") == []
    # The recovery is one undo step on top of the session as last saved (here: never saved).
    assert window.model.undo_stack.count() == 1
    assert window.model.undo_stack.undoText() == "Recover unsaved work"
    recovered = window.model.document
    window.model.undo_stack.undo()
    assert window.model.document.chips == ()
    window.model.undo_stack.redo()
    assert window.model.document == recovered
    window.model.undo_stack.setClean()
    window.close()


def test_later_keeps_the_journal_and_discard_removes_it(tmp_path, qtbot, model, monkeypatch):
    autosave = Autosave(model, folder=tmp_path)
    model.push(Replace("chips", replace(model.document.chips[0], name="X")), "rename")
    autosave.write_now().result()
    autosave._lock.unlock()  # as if the process had died
    autosave._lock = None
    from roofline_gui.widgets.app.main_window import MainWindow

    monkeypatch.setenv("ROOFLINE_DATA_DIR", str(tmp_path.parent / "other"))
    window = MainWindow(model=model)
    window.autosave.folder = tmp_path
    monkeypatch.setattr(RecoveryDialog, "ask", classmethod(lambda cls, d, parent=None: ("later", -1)))
    assert not window.offer_recovery()
    assert len(orphaned_journals(tmp_path)) == 1
    monkeypatch.setattr(RecoveryDialog, "ask", classmethod(lambda cls, d, parent=None: ("discard", -1)))
    assert not window.offer_recovery()
    assert orphaned_journals(tmp_path) == []
    window.model.undo_stack.setClean()
    window.close()


def test_two_windows_keep_separate_journals_and_a_clean_exit_leaves_none(tmp_path, qtbot, model):
    from roofline_gui.models.document_model import DocumentModel

    other = DocumentModel()
    other.reset(model.document)
    first, second = Autosave(model, folder=tmp_path), Autosave(other, folder=tmp_path)
    model.push(Replace("chips", replace(model.document.chips[0], name="one")), "a")
    other.push(Replace("chips", replace(other.document.chips[0], name="two")), "b")
    first.write_now().result()
    second.write_now().result()
    assert first.path != second.path
    assert {read_journal(p).document.chips[0].name for p in (first.path, second.path)} == {"one", "two"}
    assert orphaned_journals(tmp_path) == []  # both writers are alive
    first.close()
    second.close()
    assert list(tmp_path.glob("*.journal")) == []


def test_saving_removes_the_journal(tmp_path, qtbot, model):
    autosave = Autosave(model, folder=tmp_path)
    model.push(Replace("chips", replace(model.document.chips[0], name="one")), "a")
    autosave.write_now().result()
    assert autosave.path.exists()
    model.mark_saved(tmp_path / "saved.roofline")
    assert not autosave.path.exists()
    autosave.close()


def test_autosave_waits_for_a_pause_in_the_edits(tmp_path, qtbot, model):
    autosave = Autosave(model, folder=tmp_path, delay_ms=200)
    with qtbot.waitSignal(autosave.sig_journaled, timeout=5000) as blocker:
        model.push(Replace("chips", replace(model.document.chips[0], name="one")), "a")
    assert blocker.args == [str(autosave.path)]
    assert read_journal(autosave.path).document == model.document
    autosave.close()


def test_saving_during_a_journal_write_does_not_wait_and_still_removes_the_journal(tmp_path, qtbot, model):
    import threading

    from roofline_gui.models import autosave as autosave_module
    from roofline_gui.models.autosave import Autosave

    release = threading.Event()
    real_write = autosave_module.write_journal

    def slow_write(*args):
        release.wait(5)  # a big journal still being written when the user saves
        return real_write(*args)

    autosave = Autosave(model, folder=tmp_path, delay_ms=10)
    try:
        autosave_module.write_journal = slow_write
        model.move_kernel_to_intensity(model.document.kernels[2].id, 20.0)
        future = autosave.write_now()
        model.undo_stack.setClean()  # a save finished: must not block on the write
        assert not future.done()
        release.set()
        qtbot.waitUntil(lambda: future.done() and not autosave.path.exists(), timeout=5000)
    finally:
        autosave_module.write_journal = real_write
        release.set()
        autosave.close()
