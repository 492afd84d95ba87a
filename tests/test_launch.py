"""The real start of the desktop app (``start_window``, what ``roofline-explorer`` runs), in a
child process: the window is completed; the garbage collector that start-up switches off is
on again, with start-up's objects frozen; PySide6 read no module's source on the way."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = textwrap.dedent("""
    import gc, inspect, json
    from roofline_gui.__main__ import start_window
    seen = {"sources read": []}
    _getsource = inspect.getsource
    def getsource(obj):
        seen["sources read"].append(getattr(obj, "__name__", "?"))
        return _getsource(obj)
    inspect.getsource = getsource
    def on_shown(window):
        from PySide6.QtWidgets import QApplication
        seen["collector on while starting"] = gc.isenabled()
        seen["chips"] = [c.name for c in window.model.document.chips]
        def complete():
            seen["collector on once complete"] = gc.isenabled()
            seen["frozen objects"] = gc.get_freeze_count()
            seen["table rows"] = window.table.view.model().rowCount()
            QApplication.instance().quit()
        window.sig_panels_built.connect(complete)
    code = start_window(None, on_shown=on_shown)
    print(json.dumps(seen))
    raise SystemExit(code)
""")


def test_start_window_completes_the_window_collects_again_and_reads_no_sources(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path),
           "ROOFLINE_DATA_DIR": str(tmp_path / "data")}
    run = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["collector on while starting"] is False
    assert seen["collector on once complete"] is True
    # Modules, classes and widgets: tens of thousands of objects, exempt from full collections.
    assert seen["frozen objects"] > 20_000
    assert len(seen["chips"]) >= 2 and seen["table rows"] > 0
    # PySide6's import hook would read ~350 (pyqtgraph's, numpy's, the app's) to look for
    # "PySide6" in them (widgets/app/startup.py); only its own first few remain.
    assert len(seen["sources read"]) <= 5, seen["sources read"]
    assert not [n for n in seen["sources read"] if n.startswith(("roofline_gui", "pyqtgraph", "numpy"))]


def test_self_test_passes_and_leaves_nothing_in_the_temporary_folder(tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path),
           "TMPDIR": str(scratch)}
    run = subprocess.run([sys.executable, "-m", "roofline_gui", "--self-test"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("self-test passed in ")
    assert list(scratch.iterdir()) == []
