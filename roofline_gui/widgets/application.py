"""Starting the Qt application (called from ``__main__`` only when a window is wanted)."""

from __future__ import annotations

import sys

import pyqtgraph as pg
from PySide6.QtWidgets import QApplication

from roofline_gui import __version__


def make_app() -> QApplication:
    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("Roofline Explorer")
    app.setOrganizationName("RooflineExplorer")
    app.setApplicationVersion(__version__)
    pg.setConfigOptions(antialias=True)
    return app


def run_app(session: str | None = None) -> int:
    app = make_app()
    from roofline_gui.widgets.main_window import MainWindow  # noqa: PLC0415

    window = MainWindow()
    window.open_initial(session)  # before show(): one layout pass with the session in place
    window.show()
    return app.exec()
