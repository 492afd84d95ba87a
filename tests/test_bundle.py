"""Builds the PyInstaller bundle from this checkout and runs its self-test (slow: minutes).

Run by .ci/run after the unit tests: python -m pytest -m slow
"""

import os
import subprocess
import sys

import pytest
from conftest import ROOT


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
    assert not any(n.endswith(".qm") for n in names)  # Qt's translations
    assert not {"numba", "llvmlite"} & names  # the JIT: the bundle measures with numpy's kernels
    assert not any(n.startswith(("libqeglfs", "libqlinuxfb", "libqvnc", "libcrypto")) for n in names)
    assert {"libqxcb.so", "libqwayland.so", "libqoffscreen.so", "libqsvg.so"} <= names  # kept
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
