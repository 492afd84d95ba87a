"""`--export-png` without a window: the PNG is written and stderr says only that (no message
from Qt's offscreen platform, such as "This plugin does not support propagateSizeHints()")."""

import os
import subprocess
import sys

import pytest
from conftest import ROOT


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    """One headless export of the example, run as a user runs it: no QT_QPA_PLATFORM set."""
    out = tmp_path_factory.mktemp("png") / "chart.png"
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "app.py"), str(ROOT / "resources/examples/a100-vs-tpu-v3.roofline"),
         "--export-png", str(out), "--width", "800"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    return proc, out


def test_a_headless_png_export_writes_the_png(export):
    proc, out = export
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_a_headless_png_export_says_only_what_it_wrote(export):
    proc, out = export
    assert "propagateSizeHints" not in proc.stderr
    assert proc.stderr == f"wrote {out}\n"
