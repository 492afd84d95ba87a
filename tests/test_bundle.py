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
