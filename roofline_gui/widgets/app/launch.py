"""Start the desktop app: the application object, the main window with the session, the loop."""

from __future__ import annotations

import sys
from collections.abc import Callable

from PySide6.QtCore import QTimer

from roofline_gui.models.settings import Settings
from roofline_gui.widgets.app.main_window import MainWindow
from roofline_gui.widgets.common.application import RooflineApplication, freeze_startup_heap, make_app
from roofline_gui.widgets.common.language import apply_language, chosen_language

# If the window is never painted (started minimized, say), its panels wait; the collector that
# start-up switched off must not wait with them.
FREEZE_AT_LATEST_MS = 10_000


def run_app(session: str | None = None,
            on_shown: Callable[[MainWindow], None] | None = None, language: str | None = None,
            document=None) -> int:
    """The application and its window with ``session`` (None: the example), until it closes.
    ``on_shown`` is called with the window just after it is shown, before the event loop runs
    (benchmarks/bench_gui.py watches the first paints from there). ``language``: the command
    line's --lang (else the saved choice, else the system's locale). ``document``: (a
    Document, the file it came from) opened in place of ``session``, untitled."""
    app = make_app()
    settings = Settings()
    _language, note = apply_language(chosen_language(language, settings.get("language")))
    window = MainWindow(settings=settings)
    if note:  # no font draws the language: said on the console and in the window
        print(f"roofline-explorer: {note}", file=sys.stderr)
        window.statusBar().showMessage(note, 60_000)
    if isinstance(app, RooflineApplication):  # a file opened while running asks about unsaved work
        app.sig_file_open.connect(window.files.open)
    window.open_initial(session, document)  # before show(): one layout pass with the session in place
    window.sig_panels_built.connect(freeze_startup_heap)
    QTimer.singleShot(FREEZE_AT_LATEST_MS, freeze_startup_heap)
    window.show()
    if on_shown is not None:
        on_shown(window)
    return app.exec()
