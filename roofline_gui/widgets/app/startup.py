"""What the desktop app's start does before the window's modules (pyqtgraph, the app's own)
are imported: two costs of loading them that buy this app nothing. Measured under callgrind on
the whole launch to the complete window (docs/performance.md): 2.70 G instructions with both,
2.37 G without them; the minimal pyqtgraph window that bench_gui.py compares with runs 2.12 G.

Only ``roofline_gui.__main__.start_window`` calls this: scripts and notebooks that use the
Python API keep Python's and PySide6's defaults.
"""

from __future__ import annotations

import gc
import sys


def prepare_start() -> None:
    """Switch the cyclic garbage collector off until the window is complete, then load Qt
    without PySide6's source scan of every later import."""
    # Start-up makes ~70,000 objects that live as long as the app and ~450 that are cyclic
    # garbage; the collector's passes over them find next to nothing. They are frozen once the
    # window is complete, and the collector switched on again (freeze_startup_heap).
    gc.disable()
    skip_pyside_source_scan()


def skip_pyside_source_scan() -> bool:
    """PySide6 replaces ``__import__`` (for its opt-in ``from __feature__ import snake_case``)
    and, for each module imported after it, reads the module's whole source file
    (``inspect.getsource``) to see whether it mentions PySide6, which decides whether that
    module's Qt calls switch between feature sets. For this app's start that is ~350 files
    (pyqtgraph's, numpy's, the app's own), about 70 ms here. The app selects no feature, so
    every module sees the default API whatever the answer: the scan is answered "no" (the
    module is left alone, as PySide6 leaves any module that does not mention it) without
    reading the file.

    It changes a function of PySide6's internal feature module, so it only does so where that
    function exists as it is in PySide6 6.7-6.12; elsewhere it leaves PySide6 as it is.
    Returns whether the scan was replaced."""
    import PySide6.QtCore  # noqa: F401, PLC0415 (installs the import hook and its module)

    feature = sys.modules.get("shibokensupport.feature")
    scan = getattr(feature, "_mod_uses_pyside", None)
    if not callable(scan) or not isinstance(getattr(feature, "pyside_feature_dict", None), dict):
        return False
    feature._mod_uses_pyside = _no_feature_switching
    return True


def _no_feature_switching(module) -> bool:
    return False
