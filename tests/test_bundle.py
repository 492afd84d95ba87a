"""Builds the PyInstaller bundle from this checkout and runs its self-test (slow: minutes).

Run by .ci/run beside the other Pythons' suites: python -m pytest -m slow
"""

import importlib.util
import os
import subprocess
import sys

import pytest
from conftest import ROOT


def _slim():
    spec = importlib.util.spec_from_file_location("slim", ROOT / "packaging" / "slim.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def decided_system_libraries() -> set[str]:
    """packaging/linux/system-libraries.txt: the system libraries the bundle carries, by name."""
    text = (ROOT / "packaging" / "linux" / "system-libraries.txt").read_text()
    return {line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="system libraries are Linux's")
def test_a_system_library_goes_when_only_a_left_out_plugin_linked_it():
    """GTK 3's libraries come in with Qt's GTK theme on a machine that has them: once the theme
    is left out nothing kept links them, and they go; what a kept plugin links stays."""
    slim = _slim()
    site = "/venv/lib/python3.11/site-packages/PySide6/Qt"
    binaries = [
        ("PySide6/Qt/plugins/platforms/libqxcb.so", f"{site}/plugins/platforms/libqxcb.so", "BINARY"),
        ("libxcb-cursor.so.0", "/nowhere/usr/lib/libxcb-cursor.so.0", "BINARY"),
        ("libxcb-util.so.1", "/nowhere/usr/lib/libxcb-util.so.1", "BINARY"),
        ("libgtk-3.so.0", "/nowhere/usr/lib/libgtk-3.so.0", "BINARY"),
        ("libcairo.so.2", "/nowhere/usr/lib/libcairo.so.2", "BINARY"),
    ]
    links = {f"{site}/plugins/platforms/libqxcb.so": {"/nowhere/usr/lib/libxcb-cursor.so.0"},
             "/nowhere/usr/lib/libxcb-cursor.so.0": {"/nowhere/usr/lib/libxcb-util.so.1"},
             "/nowhere/usr/lib/libgtk-3.so.0": {"/nowhere/usr/lib/libcairo.so.2"}}
    unlinked = slim.unlinked_system_libraries(binaries, lambda path: links.get(path, set()))
    assert unlinked == {"libgtk-3.so.0", "libcairo.so.2"}
    assert not slim.keep_binary(("PySide6/Qt/plugins/platformthemes/libqgtk3.so", "x", "BINARY"))
    assert slim.keep_binary(("PySide6/Qt/plugins/platformthemes/libqxdgdesktopportal.so", "x", "BINARY"))
    assert not slim.keep_data(("resources/__pycache__/__init__.cpython-311.pyc", "x", "DATA"))
    # Qt's own texts only in the languages the app speaks (its dialogs in Japanese)
    assert slim.keep_data(("PySide6/Qt/translations/qtbase_ja.qm", "x", "DATA"))
    assert not slim.keep_data(("PySide6/Qt/translations/qtbase_de.qm", "x", "DATA"))
    assert not slim.keep_data(("PySide6/Qt/translations/qt_ja.qm", "x", "DATA"))
    assert slim.keep_data(("resources/locale/ja/LC_MESSAGES/roofline_gui.po", "x", "DATA"))


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="packaging/build_linux.sh is for Linux")
def test_linux_bundle_builds_and_passes_its_self_test():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(["bash", "packaging/build_linux.sh"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=1500)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "self-test passed" in result.stdout
    executable = ROOT / "dist" / "roofline-explorer" / "roofline-explorer"
    assert executable.is_file()
    # The bundle carries its resources and not the Qt modules the app never uses.
    internal = ROOT / "dist" / "roofline-explorer" / "_internal"
    assert (internal / "resources" / "presets" / "chips.json").is_file()
    names = {p.name for p in internal.rglob("*")}
    assert not any(n.startswith(("QtWebEngine", "QtQuick", "libQt6Quick", "libQt6WebEngine")) for n in names)
    # What slim.py leaves out is out, and the whole stays within its size aim.
    # Qt's translations, but its own texts in Japanese; the app's catalog as written
    assert {n for n in names if n.endswith(".qm")} == {"qtbase_ja.qm"}
    assert (internal / "resources" / "locale" / "ja" / "LC_MESSAGES" / "roofline_gui.po").is_file()
    assert not {"numba", "llvmlite"} & names  # the JIT: the bundle measures with numpy's kernels
    assert not any(n.startswith(("libqeglfs", "libqlinuxfb", "libqvnc", "libcrypto")) for n in names)
    assert {"libqxcb.so", "libqwayland.so", "libqoffscreen.so", "libqsvg.so"} <= names  # kept
    assert "libqxdgdesktopportal.so" in names and "libqgtk3.so" not in names  # the themes decided
    # The same system libraries whatever else the build machine has installed (GTK 3 or not).
    system = {p.name.split(".so")[0] for p in internal.glob("*.so*")
              if not p.is_symlink() and not p.name.startswith("libpython")}
    assert system == decided_system_libraries(), (
        f"carried but not decided: {sorted(system - decided_system_libraries())}; "
        f"decided but missing: {sorted(decided_system_libraries() - system)}")
    assert not any("__pycache__" in p.parts for p in internal.rglob("*"))
    icu = next(internal.rglob("libicudata.so.*"))
    assert icu.stat().st_size < 100_000  # the empty ICU data package, not the 31 MB one
    files = (ROOT / "dist" / "roofline-explorer").rglob("*")
    size = sum(p.stat().st_size for p in files if p.is_file() and not p.is_symlink())
    assert size <= 150e6, f"bundle is {size / 1e6:.0f} MB"  # decimal MB, as du -sb counts
    # A start that shows a window (Xvfb when there is one): it stays up until it is closed.
    if os.environ.get("DISPLAY"):
        window = subprocess.Popen([str(executable)], env={**os.environ, "QT_QPA_PLATFORM": "xcb"},
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            with pytest.raises(subprocess.TimeoutExpired):
                window.wait(timeout=8)
        finally:
            window.terminate()
            window.communicate(timeout=10)
