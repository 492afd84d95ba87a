"""Regenerate the README screenshots: python docs/screenshots.py (under Xvfb or a desktop).

Opens the real main window with the examples, as a user would see it, and grabs it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from roofline_gui.models.settings import Settings
    from roofline_gui.widgets.application import make_app
    from roofline_gui.widgets.file_actions import examples
    from roofline_gui.widgets.main_window import MainWindow

    app = make_app()
    ini = Path(tempfile.mkdtemp()) / "settings.ini"
    window = MainWindow(settings=Settings(QSettings(str(ini), QSettings.Format.IniFormat)))
    window.resize(1600, 1000)
    window.show()
    by_name = {p.stem: p for p in examples()}

    def shot(name: str) -> None:
        for _ in range(5):
            app.processEvents()
        window.grab().save(str(ROOT / "docs" / f"screenshot-{name}.png"))
        print("wrote", f"docs/screenshot-{name}.png")

    window.files.open_example(by_name["a100-vs-tpu-v3"])
    mlp = next(k for k in window.model.document.kernels if k.name.startswith("MLP layer 4096×4096, batch 1"))
    window.model.select(mlp.id, window.model.document.chips[1].id)
    shot("a100-vs-tpu-v3")
    window.set_mode("side_by_side")
    window.files.open_example(by_name["h100-vs-mi300x-llm"])
    window.model.select(window.model.document.kernels[0].id, window.model.document.chips[1].id)
    shot("side-by-side")
    window.set_mode("overlay")
    window.files.open_example(by_name["a100-vs-tpu-v3"])
    window.docks["hardware"].raise_()
    shot("hardware-editor")
    window.docks["kernels"].raise_()
    window.model.select(mlp.id, None)
    shot("kernel-library")
    window.model.undo_stack.setClean()
    window.close()
    QApplication.processEvents()


if __name__ == "__main__":
    main()
