"""Crash journals: the unsaved session of one running window, for recovery after a crash.

A journal is a JSON file ``{"format": "roofline-journal", "version": 1, "source_path": ...,
"written_at": ..., "session": <a session dict>}`` in the user's data folder. Each window writes
its own journal (a unique name), so several windows or instances never overwrite each other.
Which journals are orphaned (their writer died) is decided by the caller through a lock file.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from roofline_gui.core.document import Document
from roofline_gui.core.errors import Problem, RooflineError, ValidationError
from roofline_gui.io.files import dumps, read_json, write_atomic
from roofline_gui.io.session import parse_session, session_to_dict

FORMAT = "roofline-journal"
SUFFIX = ".journal"


def new_journal_path(folder: Path) -> Path:
    return folder / f"session-{os.getpid()}-{os.urandom(6).hex()}{SUFFIX}"


def write_journal(path: Path, doc: Document, source_path: str | None) -> None:
    data = {"format": FORMAT, "version": 1, "source_path": source_path,
            "written_at": time.time(), "session": session_to_dict(doc)}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, dumps(data))


@dataclass(frozen=True)
class Journal:
    """A crash journal found at start: the session as it was last autosaved, and from where."""

    path: Path
    document: Document
    source_path: str | None
    written_at: float

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.written_at))
        name = Path(self.source_path).name if self.source_path else "an untitled session"
        title = f" “{self.document.title}”" if self.document.title else ""
        return (f"{name}{title}: {len(self.document.chips)} chips, "
                f"{len(self.document.kernels)} kernels, last change {when}")


def read_journal(path: Path) -> Journal:
    """Parse a journal; raise RooflineError if it is not a readable journal."""
    data = read_json(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValidationError([Problem("format", "not a Roofline Explorer journal")], str(path))
    doc = parse_session(data.get("session"), source=str(path))
    source = data.get("source_path")
    written = data.get("written_at")
    return Journal(path, doc, source if isinstance(source, str) else None,
                   float(written) if isinstance(written, (int, float)) else path.stat().st_mtime)


def journals_in(folder: Path) -> list[Path]:
    try:
        return sorted(folder.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return []


def remove_journal(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise RooflineError(f"{path}: cannot remove ({exc.strerror or exc})") from None
