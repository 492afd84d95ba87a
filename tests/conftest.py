"""Test set-up: Qt offscreen by default, settings redirected away from the user's."""

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if "ROOFLINE_DATA_DIR" not in os.environ:  # journals of the tests never reach the user's folder
    import tempfile

    os.environ["ROOFLINE_DATA_DIR"] = tempfile.mkdtemp(prefix="roofline-test-data-")

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


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
