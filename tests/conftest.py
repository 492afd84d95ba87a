"""Test set-up: Qt offscreen by default, settings redirected away from the user's."""

import os
import sys
from pathlib import Path

# Qt's offscreen platform, on a desktop-sized screen (its own default is 800 x 800, where the
# window would start smaller than a user's first window); tests of a laptop's screen start a
# process of their own on tests/data/offscreen-1280x800.json.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen:configfile="
                      + str(Path(__file__).resolve().parent / "data" / "offscreen-1920x1080.json"))
if "ROOFLINE_DATA_DIR" not in os.environ:  # journals of the tests never reach the user's folder
    import atexit
    import shutil
    import tempfile

    os.environ["ROOFLINE_DATA_DIR"] = tempfile.mkdtemp(prefix="roofline-test-data-")
    # The folder is the run's own (processes the tests start inherit it): gone when the run is.
    atexit.register(shutil.rmtree, os.environ["ROOFLINE_DATA_DIR"], ignore_errors=True)

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def bench(name):
    """A script of benchmarks/ as a module (they import each other by bare name)."""
    import importlib  # noqa: PLC0415

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def synthetic_measurement():
    """A Measurement as the compiled sweep of a 2-thread machine gives it, without running it:
    L1 300 GB/s, L2 150 GB/s, DRAM 25 GB/s; an fp64 FMA peak of 80 GFLOP/s beside a GEMM."""
    from roofline_gui.measure.compute import ComputePoint
    from roofline_gui.measure.machine import Measurement
    from roofline_gui.measure.stream import Plateau
    from roofline_gui.measure.timing import Timing

    kib = 1024
    m = Measurement(2, "2026-12-01 09:00", "Test CPU", {"L1": 64 * kib, "L2": 1024 * kib},
                    method="compiled loops (numba), one slice per core, numba 0.68.1")
    m.plateaus = [Plateau(16 * kib, 48 * kib, 300e9, 4), Plateau(128 * kib, 768 * kib, 150e9, 6),
                  Plateau(512 * kib**2, 1024 * kib**2, 25e9, 4)]
    m.compute = [ComputePoint("gemm", "fp64", 2048, 2 * 2048**3, Timing(0.25, 0.25, 0.26, 5)),
                 ComputePoint("fma", "fp64", 8, 80e9, Timing(1.0, 1.0, 1.0, 3))]
    return m


def _qt_fixtures():
    """Qt fixtures, defined only when pytest-qt is importable (the core tests never need Qt)."""
    import pytest

    @pytest.fixture
    def settings(tmp_path):
        from PySide6.QtCore import QSettings

        from roofline_gui.models.settings import Settings

        return Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))

    @pytest.fixture
    def example_doc():
        from roofline_gui.io.files import resources_dir
        from roofline_gui.io.session import load_session

        return load_session(resources_dir() / "examples" / "a100-vs-tpu-v3.roofline")

    @pytest.fixture
    def model(qtbot, example_doc):
        from roofline_gui.models.document_model import DocumentModel

        m = DocumentModel()
        m.reset(example_doc)
        return m

    @pytest.fixture
    def window(qtbot, settings, model):
        from roofline_gui.widgets.app.main_window import MainWindow

        w = MainWindow(settings=settings, model=model)
        w.show()
        qtbot.waitExposed(w)
        yield w
        # Closed here rather than by qtbot.addWidget (which closes before fixtures finish), so
        # the window is marked clean first and closing never asks about unsaved work.
        w.model.undo_stack.setClean()
        w.close()
        w.deleteLater()

    return settings, example_doc, model, window


settings, example_doc, model, window = _qt_fixtures()
