"""Start the desktop app: the application object, the main window with the session, the loop."""

from __future__ import annotations

from roofline_gui.widgets.app.main_window import MainWindow
from roofline_gui.widgets.common.application import RooflineApplication, freeze_startup_heap, make_app


def run_app(session: str | None = None) -> int:
    app = make_app()
    window = MainWindow()
    if isinstance(app, RooflineApplication):  # a file opened while running asks about unsaved work
        app.sig_file_open.connect(window.files.open)
    window.open_initial(session)  # before show(): one layout pass with the session in place
    window.sig_panels_built.connect(freeze_startup_heap)
    window.show()
    return app.exec()
