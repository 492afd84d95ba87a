"""The start-up check: a window that cannot start says which system libraries to install."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from roofline_gui import platform_check
from roofline_gui.platform_check import missing_xcb_libraries, needed_libraries, packages_for

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xcb is Linux's")


def test_reads_the_elf_dependencies_of_qts_xcb_plugin():
    plugin = platform_check._qt_dir() / "plugins" / "platforms" / "libqxcb.so"
    needed = needed_libraries(plugin)
    assert "libQt6XcbQpa.so.6" in needed and "libc.so.6" in needed


def test_packages_are_named_for_debian_and_fedora():
    assert packages_for("libxcb-icccm.so.4") == ("libxcb-icccm4", "xcb-util-wm")
    assert packages_for("libxcb-shape.so.0") == ("libxcb-shape0", "libxcb")


def test_libraries_the_loader_cannot_find_are_reported(monkeypatch):
    hidden = {"libxcb-icccm.so.4", "libxcb-cursor.so.0"}
    monkeypatch.setattr(platform_check, "_loadable", lambda name: name not in hidden)
    assert set(missing_xcb_libraries()) == hidden


def test_starting_with_the_plugins_libraries_hidden_names_them_and_exits_non_zero(tmp_path):
    """A real start in a child process whose dynamic loader cannot see two of the libraries."""
    (tmp_path / "sitecustomize.py").write_text(textwrap.dedent("""
        import ctypes
        _real = ctypes.CDLL
        class CDLL(_real):
            def __init__(self, name, *args, **kwargs):
                if str(name) in ("libxcb-keysyms.so.1", "libxcb-cursor.so.0"):
                    raise OSError(f"{name}: cannot open shared object file")
                super().__init__(name, *args, **kwargs)
        ctypes.CDLL = CDLL
    """))
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", "QT_QPA_PLATFORM": "xcb",
           "DISPLAY": ":97"}
    run = subprocess.run([sys.executable, "-m", "roofline_gui"], env=env, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 3, run.stderr
    assert "libxcb-keysyms.so.1" in run.stderr and "libxcb-cursor.so.0" in run.stderr
    assert "apt-get install" in run.stderr and "libxcb-keysyms1" in run.stderr
    assert "dnf install" in run.stderr and "xcb-util-cursor" in run.stderr
    assert "Traceback" not in run.stderr


def test_no_display_at_all_is_said_plainly():
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(ROOT)
    run = subprocess.run([sys.executable, "-m", "roofline_gui"], env=env, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 3
    assert "no display" in run.stderr and "--export-csv" in run.stderr
