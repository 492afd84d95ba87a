"""Quitting after an edit and choosing Discard prints nothing (the tour saw "Internal C++ object
(MainWindow) already deleted" on the console every time)."""

import subprocess
import sys
import textwrap

from conftest import ROOT

QUIT_DISCARDING = textwrap.dedent("""
    import os, tempfile
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp()
    os.environ["ROOFLINE_DATA_DIR"] = tempfile.mkdtemp()
    from PySide6.QtCore import QTimer
    from roofline_gui.widgets.common.dialogs import Confirm
    Confirm.unsaved_changes = classmethod(lambda cls, *a, **k: "discard")
    from roofline_gui.__main__ import start_window
    def on_shown(window):
        def edit_and_quit():
            kernel = window.model.document.kernels[0]
            window.model.move_kernel_to_intensity(kernel.id, 5.0)
            window.model.select(kernel.id, window.model.document.chips[0].id)
            window.act_quit.trigger()
        QTimer.singleShot(300, edit_and_quit)
    start_window(None, on_shown=on_shown)
    print("quit", flush=True)
""")


def test_quit_after_an_edit_with_discard_prints_nothing():
    """Three times: what is deleted first at exit varies from run to run (the window, or the
    model's undo stack), and a slot of the window ran after either."""
    for _ in range(3):
        result = subprocess.run([sys.executable, "-c", QUIT_DISCARDING], cwd=ROOT,
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0 and "quit" in result.stdout
        output = result.stdout + result.stderr
        assert "Traceback" not in output and "already deleted" not in output, output


LEFT_OPEN = textwrap.dedent("""
    import os, tempfile
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp()
    os.environ["ROOFLINE_DATA_DIR"] = tempfile.mkdtemp()
    from PySide6.QtCore import QSettings
    from roofline_gui.models.settings import Settings
    from roofline_gui.widgets.app.file_actions import examples
    from roofline_gui.widgets.app.main_window import MainWindow
    from roofline_gui.widgets.common.application import make_app
    app = make_app()
    ini = os.path.join(tempfile.mkdtemp(), "s.ini")
    window = MainWindow(settings=Settings(QSettings(ini, QSettings.Format.IniFormat)))
    window.show()
    window.files.open_example(next(p for p in examples() if p.stem == "h100-vs-mi300x-llm"))
    window.model.add_chips([window.presets.chips["nvidia-b200"]])
    app.processEvents()
    print("left open", flush=True)
""")


def test_a_script_that_leaves_the_window_open_exits_without_a_traceback():
    """A script (the screenshots', a user's own) that ends with the window open and edited: at
    Python's exit the undo stack went first and the window's title slot printed "Internal C++
    object (QUndoStack) already deleted"."""
    for _ in range(2):
        result = subprocess.run([sys.executable, "-c", LEFT_OPEN], cwd=ROOT,
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0 and "left open" in result.stdout
        output = result.stdout + result.stderr
        assert "Traceback" not in output and "already deleted" not in output, output


def test_a_selection_just_before_the_window_goes_leaves_nothing_to_run_after(qtbot, settings, model):
    """The comparison table scrolls to a newly selected row on the next turn of the event loop:
    a timer with no owner ran after the window and its table were gone (a test that closed its
    window on the turn of a selection failed with "Internal C++ object (QTableView) already
    deleted"). Each such call is now dropped with the widget it belongs to."""
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.main_window import MainWindow

    w = MainWindow(settings=settings, model=model)
    w.show()
    qtbot.waitExposed(w)
    for _ in range(5):
        QApplication.processEvents()
    assert w.table.view is not None  # (the comparison table is built)
    kernel, chip = model.document.kernels[-1].id, model.document.chips[-1].id
    model.select(kernel, chip)  # the table's scroll to it waits for the next turn
    model.undo_stack.setClean()
    w.close()
    w.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # gone before that turn
    for _ in range(3):
        QApplication.processEvents()  # (pytest-qt fails the test on an exception raised here)


def test_a_window_gone_before_its_side_panels_are_built_leaves_nothing_to_run(qtbot, settings,
                                                                             model):
    """The side panels are built on a turn after the chart's first paint (and at the latest
    400 ms after the show): a window closed and deleted before then left those calls to run on
    its deleted docks ("Internal C++ object (QDockWidget) already deleted", in a CI run)."""
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.main_window import MainWindow

    w = MainWindow(settings=settings, model=model)
    w.show()
    w._start_panels()  # (as the first paint does) the panels' build waits for the next turn
    model.undo_stack.setClean()
    w.close()
    w.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qtbot.wait(450)  # past the 400 ms fallback too (pytest-qt fails on an exception in it)
    for _ in range(3):
        QApplication.processEvents()
