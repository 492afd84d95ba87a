"""The core and io layers are Qt-free; the layer contracts in pyproject.toml hold."""

import subprocess
import sys

from conftest import ROOT


def test_core_and_io_import_without_qt_or_pyqtgraph():
    code = (
        "import sys; import roofline_gui.core.comparison, roofline_gui.io.session, "
        "roofline_gui.io.csv_export, roofline_gui.__main__; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_import_linter_contracts_hold():
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
         "sys.exit(lint_imports_command())"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 4 kept, 0 broken." in result.stdout
