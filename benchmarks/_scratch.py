"""Scratch folders for the benchmarks: each removed when the script ends, so repeated runs
leave nothing behind in the system's temporary folder."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path


def scratch(prefix: str = "roofline-bench-") -> Path:
    """A new empty folder, removed with everything in it when the process exits."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder
