"""Regression: PySide6 6.12.0 on Python 3.11 over-releases None on every pyqtgraph redraw and
aborts the process after ~90 of them (docs/dependencies.md). The dependency markers keep that
pair out; this test fails loudly if it ever comes back."""

import gc
import sys

import numpy as np
import pyqtgraph as pg


def test_repeated_redraws_do_not_leak_references_to_none_or_bools(qtbot):
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(400, 300)
    items = [widget.plot([], [], pen=None, symbol="o") for _ in range(4)]
    rng = np.random.default_rng(0)

    def cycle():
        for item in items:
            item.setData(rng.uniform(1, 2, 200), rng.uniform(1, 2, 200))
        widget.grab()

    for _ in range(5):  # warm caches so only a leak can move the counts
        cycle()
    # No collection of earlier tests' objects in between: freeing them drops the counts too
    # (seen once in a full run: a window's worth of references, not an over-release)
    gc.collect()
    gc.disable()
    try:
        before = (sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False))
        for _ in range(300):
            cycle()
        after = (sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False))
    finally:
        gc.enable()
    # A healthy build keeps the counts steady (small drift from caches); the broken one drops
    # None by hundreds per cycle, i.e. by about 190,000 here.
    for b, a in zip(before, after, strict=True):
        assert a > b - 2000, (before, after)
