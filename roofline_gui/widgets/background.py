"""Long file work (opening or saving a session of thousands of kernels) on a worker thread.

The caller still gets a plain result or exception, in order, as with a direct call; meanwhile
the UI thread runs a local event loop behind a modal busy dialog, so the window keeps painting
and cannot be edited while the document is read or written. Documents are immutable, so a
worker can serialise one safely.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import QEventLoop, QObject, Qt, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

T = TypeVar("T")


class _Done(QObject):
    finished = Signal()  # emitted from the worker; delivered queued on the UI thread


def run_in_background(parent: QWidget | None, text: str, work: Callable[[], T]) -> T:
    """Run ``work()`` on a worker thread; return its result or raise its exception."""
    outcome: dict[str, object] = {}
    done = _Done()
    loop = QEventLoop()
    done.finished.connect(loop.quit, Qt.ConnectionType.QueuedConnection)

    def target() -> None:
        try:
            outcome["result"] = work()
        except BaseException as exc:  # noqa: BLE001 (re-raised on the UI thread)
            outcome["error"] = exc
        finally:
            done.finished.emit()

    dialog = QProgressDialog(text, "", 0, 0, parent)
    dialog.setWindowTitle("Roofline Explorer")
    dialog.setCancelButton(None)  # a half-written file is never left behind, but cannot be stopped
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(0)
    dialog.show()
    worker = threading.Thread(target=target, name="roofline-file-io", daemon=True)
    worker.start()
    loop.exec()  # the queued "finished" ends it, even if the worker was already done
    worker.join()
    dialog.close()
    dialog.deleteLater()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["result"]  # type: ignore[return-value]
