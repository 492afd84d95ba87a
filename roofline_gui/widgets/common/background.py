"""Long file work (opening or saving a session of thousands of kernels) on a worker thread.

The caller still gets a plain result or exception, in order, as with a direct call; meanwhile
the UI thread runs a local event loop that keeps painting and holds the user's input back until
the work is done, so the document cannot change while it is read or written. Documents are
immutable, so a worker can serialise one safely.

Why not a modal progress dialog from the start: a modal dialog deactivates the main window,
which then repaints every view in its inactive colours. Painting the comparison table calls
the Python model once per cell, and each call has to take the GIL back from the worker (up to
a switch interval each), so the window froze for a noticeable time during a save. The
window stays active instead: a busy cursor at once, and a small progress window that does not
take focus only if the work lasts longer than SHOW_AFTER_MS.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from PySide6.QtCore import QEventLoop, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QProgressDialog, QWidget

T = TypeVar("T")

SHOW_AFTER_MS = 800  # a progress window for work the user would otherwise wonder about
LEFT_FOR_COLLECTION = 10_000  # objects a job leaves behind beyond which it collects at its end
# While a job runs, every Python call the UI thread makes (a slot, a table cell, an item's
# paint) waits for the worker to hand over the GIL, up to the interpreter's switch interval
# (the switch interval) each time; a repaint makes hundreds. A shorter interval for the job's duration keeps
# the window's own work close to its usual speed and costs the worker little.
JOB_SWITCH_INTERVAL_S = 0.0005

_running = 0  # background jobs in progress (nested event loops on the UI thread)


def busy() -> bool:
    """True while a background job runs: the window should not close or start another."""
    return _running > 0


class _Done(QObject):
    finished = Signal()  # emitted from the worker; delivered queued on the UI thread


def run_in_background(parent: QWidget | None, text: str, work: Callable[[], T]) -> T:
    """Run ``work()`` on a worker thread; return its result or raise its exception."""
    global _running
    outcome: dict[str, object] = {}
    done = _Done()
    loop = QEventLoop()
    done.finished.connect(loop.quit, Qt.ConnectionType.QueuedConnection)

    def target() -> None:
        try:
            with collection_paused():
                outcome["result"] = work()
        except BaseException as exc:  # noqa: BLE001 (re-raised on the UI thread)
            outcome["error"] = exc
        finally:
            done.finished.emit()

    # Paint what is pending now (the edit just made, say): a repaint while the worker runs
    # would wait for the GIL at every Python call it makes (one per table cell).
    QApplication.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
    progress: list[QProgressDialog] = []
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(lambda: progress.append(_show_progress(parent, text)))
    timer.start(SHOW_AFTER_MS)
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    worker = threading.Thread(target=target, name="roofline-file-io", daemon=True)
    _running += 1
    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, JOB_SWITCH_INTERVAL_S))
    try:
        worker.start()
        # Paints and timers run; clicks and keys wait until the work is done.
        loop.exec(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
        worker.join()
    finally:
        _running -= 1
        sys.setswitchinterval(interval)
        timer.stop()
        QApplication.restoreOverrideCursor()
        for dialog in progress:
            dialog.close()
            dialog.deleteLater()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["result"]  # type: ignore[return-value]


def _show_progress(parent: QWidget | None, text: str) -> QProgressDialog:
    dialog = QProgressDialog(text, "", 0, 0, parent)
    dialog.setWindowTitle("Roofline Explorer")
    dialog.setCancelButton(None)  # a half-written file is never left behind, but cannot be stopped
    dialog.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
    dialog.setWindowFlag(Qt.WindowType.WindowDoesNotAcceptFocus)
    dialog.setMinimumDuration(0)
    dialog.show()
    return dialog


@contextmanager
def collection_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a file job runs, and collect on the worker
    at its end if the job left many new objects (a document just read).

    Reading or writing 10,000 kernels allocates millions of small objects, which triggers full
    collections of the whole heap (docs/performance.md) as it goes; the collector holds the GIL
    throughout, so the window stalls with it. The parsed and serialised structures form no
    cycles, so reference counting frees them all the same. A document just read stays, so the
    collector's count is high when it resumes: collecting here, while the window waits for the
    job anyway, spares the UI thread that full collection at its next allocation."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
            if gc.get_count()[0] > LEFT_FOR_COLLECTION:
                gc.collect()
