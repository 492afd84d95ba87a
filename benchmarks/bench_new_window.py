"""A new window: how long it takes to be built, shown and settled, and how often its chart's
labels are placed on the way, as the app does it (the labels wait while the window is built,
and while a grid of charts is laid out, and are placed once, in the view shown) against placing
them at every draw and for every chart, shown or not (the code before 2026-12-06, kept here as
the baseline), alternating in the same run.

A window being built drew its chart three times at sizes never shown (the canvas's first draw,
the view settings put back, their redraw) and placed every label each time (100-190 ms a time
for a shipped example on a 2-core AMD host): the tests' ``window`` fixture, built 400 times a
run, spent two thirds of its time there. Side by side, each chart of the grid placed its labels
at once in a grid not yet laid out, again for each size the layout gave it, and the closed
charts of a grid rebuilt for another count of columns and the overlay hidden behind the grid
placed theirs too: twelve placements for two charts.
Run: python benchmarks/bench_new_window.py [rounds]  (offscreen Qt)
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _scratch import scratch

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ROOFLINE_DATA_DIR", str(scratch()))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

EXAMPLES = ("a100-vs-tpu-v3", "the-article-claim-by-claim")


class NeverHeld:
    """RooflinePlot.labels_held as it was before the hold: never (the baseline)."""

    def __get__(self, obj, owner=None):
        return False

    def __set__(self, obj, value):
        pass


def one_window(stem: str, mode: str, baseline: bool) -> tuple[float, int]:
    """(seconds from the window's construction to its chart settled, labels placed)."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from roofline_gui.io.session import load_session
    from roofline_gui.models.document_model import DocumentModel
    from roofline_gui.models.settings import Settings
    from roofline_gui.widgets.app.file_actions import example_named
    from roofline_gui.widgets.app.main_window import MainWindow
    from roofline_gui.widgets.chart import roofline_plot

    app = QApplication.instance()
    plot_class = roofline_plot.RooflinePlot
    real, held = roofline_plot.place_labels, plot_class.__dict__.get("labels_held")
    nowhere = plot_class._shown_nowhere
    placed = []
    roofline_plot.place_labels = lambda *a, **kw: placed.append(1) or real(*a, **kw)
    if baseline:
        plot_class.labels_held = NeverHeld()
        plot_class._shown_nowhere = lambda self: False
    try:
        with tempfile.TemporaryDirectory() as folder:
            settings = Settings(QSettings(str(Path(folder) / "s.ini"), QSettings.Format.IniFormat))
            settings.set("view/mode", mode)
            model = DocumentModel()
            model.reset(load_session(example_named(stem)))
            start = time.perf_counter()
            window = MainWindow(settings=settings, model=model)
            window.resize(1280, 800)
            window.show()
            for _ in range(8):
                app.processEvents()
                if not any(p.labels_pending or p.drawing for p in window.canvas.plots):
                    break
            took = time.perf_counter() - start
            model.undo_stack.setClean()
            window.close()
            window.deleteLater()
            app.processEvents()
    finally:
        roofline_plot.place_labels = real
        if baseline:
            del plot_class.labels_held
            if held is not None:
                plot_class.labels_held = held
            plot_class._shown_nowhere = nowhere
    return took, len(placed)


def main() -> None:
    from PySide6.QtWidgets import QApplication

    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    _app = QApplication.instance() or QApplication([])
    one_window(EXAMPLES[0], "overlay", False)  # imports and caches warm
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; {rounds} rounds, the two ways alternating")
    print(f"{'example':32} {'mode':13} {'held (app)':>16} {'baseline':>16} {'ratio':>6}")
    for stem in EXAMPLES:
        for mode in ("overlay", "side_by_side"):
            times = {False: [], True: []}
            counts = {}
            for _round in range(rounds):
                for baseline in (False, True):
                    took, n = one_window(stem, mode, baseline)
                    times[baseline].append(took)
                    counts[baseline] = n
            app, base = (statistics.median(times[b]) for b in (False, True))
            print(f"{stem:32} {mode:13} {app * 1e3:7.0f} ms {counts[False]:2}× "
                  f"{base * 1e3:7.0f} ms {counts[True]:2}× {app / base:6.2f}")
    print("(ms: median from construction to the chart settled; ×: labels placed, all charts)")


if __name__ == "__main__":
    main()
