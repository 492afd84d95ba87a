"""Autosave: unsaved work is journaled a few seconds after each change, off the UI thread.

Each window owns one journal file and holds a ``QLockFile`` beside it while it runs. A journal
whose lock can be taken belongs to a process that is gone (crashed or killed): that is what the
next start offers to recover. A clean exit, or saving, removes the journal.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QLockFile, QObject, Qt, QTimer, Signal

from roofline_gui.core.errors import RooflineError
from roofline_gui.io.files import data_dir
from roofline_gui.io.journal import journals_in, new_journal_path, remove_journal, write_journal
from roofline_gui.models.document_model import DocumentModel

if TYPE_CHECKING:  # the executor's module is imported on the first write, off the start-up path
    from concurrent.futures import Future

DELAY_MS = 3000


def journal_folder() -> Path:
    """``journals/`` in the user's data folder (``$ROOFLINE_DATA_DIR`` when set)."""
    return data_dir() / "journals"


def _lock_path(journal: Path) -> str:
    return str(journal) + ".lock"


def orphaned_journals(folder: Path | None = None) -> list[Path]:
    """Journals whose writer is no longer running (its lock is free or stale)."""
    orphans = []
    for path in journals_in(folder or journal_folder()):
        lock = QLockFile(_lock_path(path))
        lock.setStaleLockTime(0)
        if lock.tryLock(0):
            lock.unlock()
            orphans.append(path)
    return orphans


def discard_journal(path: Path) -> None:
    remove_journal(path)
    Path(_lock_path(path)).unlink(missing_ok=True)


class Autosave(QObject):
    sig_journaled = Signal(str)  # journal path, after each write
    sig_failed = Signal(str)  # message, when a write fails (the document is untouched)
    _sig_written = Signal(object)  # the write's future; crosses from the worker thread

    def __init__(self, model: DocumentModel, folder: Path | None = None,
                 delay_ms: int = DELAY_MS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.folder = folder or journal_folder()
        self.path = new_journal_path(self.folder)
        self._lock: QLockFile | None = None
        self._executor = None  # a one-thread pool, made on the first journal write
        self._pending: Future | None = None
        self._remove_when_written = False  # set when the document became clean mid-write
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self.write_now)
        self._sig_written.connect(self._on_written, Qt.ConnectionType.QueuedConnection)
        # indexChanged comes after the stack has settled (the document signal comes from inside
        # redo(), before the stack knows whether it is clean).
        model.undo_stack.indexChanged.connect(self._on_changed)
        model.undo_stack.cleanChanged.connect(self._on_clean_changed)

    def _ensure_lock(self) -> None:
        if self._lock is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._lock = QLockFile(_lock_path(self.path))
            self._lock.tryLock(0)

    def _on_changed(self, _index: int) -> None:
        try:
            dirty = not self.model.undo_stack.isClean()
        except RuntimeError:  # the stack is being destroyed with its model: nothing to journal
            return
        if dirty:
            self._timer.start()

    def _on_clean_changed(self, clean: bool) -> None:
        if clean:  # what is on disk is the document: nothing to recover
            self._timer.stop()
            if self._pending is not None and not self._pending.done():
                # Not waited for here (a journal of 10,000 kernels takes a third of a second):
                # the journal is removed when that write finishes, if still clean then.
                self._remove_when_written = True
            else:
                self._remove()

    def write_now(self) -> Future | None:
        """Journal the current document in the background; returns the write's future."""
        if self.model.undo_stack.isClean():
            return None
        self._ensure_lock()
        doc, source = self.model.document, str(self.model.path) if self.model.path else None
        self._remove_when_written = False
        if self._executor is None:
            from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="autosave")
        # One worker: writes happen in order, a newer one after an older one, never waiting here.
        self._pending = self._executor.submit(write_journal, self.path, doc, source)
        self._pending.add_done_callback(self._sig_written.emit)  # runs in the worker thread
        return self._pending

    def _on_written(self, future: Future) -> None:
        """In the UI thread, after a write."""
        error = future.exception()
        if error is None:
            self.sig_journaled.emit(str(self.path))
        else:
            self.sig_failed.emit(str(error) if isinstance(error, RooflineError) else repr(error))
        if self._remove_when_written and future is self._pending:
            self._remove_when_written = False
            try:
                clean = self.model.undo_stack.isClean()
            except RuntimeError:  # the model is being destroyed; close() removes the journal
                return
            if clean:
                self._remove()

    def _wait(self) -> None:
        if self._pending is not None:
            self._pending.exception()  # waits; errors were reported by the callback
            self._pending = None

    def _remove(self) -> None:
        try:
            remove_journal(self.path)
        except RooflineError as exc:
            self.sig_failed.emit(str(exc))

    def close(self) -> None:
        """A clean exit: no journal left behind."""
        self._timer.stop()
        self._wait()
        self._remove()
        if self._lock is not None:
            self._lock.unlock()
            self._lock = None
        if self._executor is not None:
            self._executor.shutdown(wait=True)
