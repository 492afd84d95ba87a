"""Eight charts side by side: how often their labels are placed, and how long an edit and a
resize of the window take, as the app does it (a view's change places its labels once, on the
event loop's next turn) against placing them at every change of every view (the code before
2026-12-05, kept here as the baseline), in the same run.

Side by side every chart's range follows the others': one refresh of eight charts changed each
view seven times, and each change placed that chart's labels again (0.2 s a time on a 2-core
Intel host), all but the last thrown away. The edit here (the document again, a kernel
selected) leaves every range as it was: it places each chart's labels twice either way.
Run: python benchmarks/bench_side_by_side.py  (offscreen Qt)
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


def placing_at_every_change(self) -> None:
    """RooflinePlot._on_view_changed as it was: every change of the view placed the labels."""
    if self._applying_range or self.scene is None:
        return
    if self.scene.selection.lifted is None:
        self._update_note()
    self._push(self._with_labels(self.scene), note=False)


def run(baseline: bool, rounds: int = 4) -> tuple[list[float], list[float], int, int]:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from roofline_gui.models.settings import Settings
    from roofline_gui.widgets.app.file_actions import examples
    from roofline_gui.widgets.app.main_window import MainWindow
    from roofline_gui.widgets.chart import roofline_plot

    app = QApplication.instance()
    ours = roofline_plot.RooflinePlot._on_view_changed
    placed = [0]
    place = roofline_plot.place_labels

    def counted(*args, **kwargs):
        placed[0] += 1
        return place(*args, **kwargs)

    roofline_plot.place_labels = counted
    if baseline:
        roofline_plot.RooflinePlot._on_view_changed = placing_at_every_change
    try:
        ini = Path(tempfile.mkdtemp(dir=os.environ["ROOFLINE_DATA_DIR"])) / "settings.ini"
        window = MainWindow(settings=Settings(QSettings(str(ini), QSettings.Format.IniFormat)))
        window.resize(1600, 1000)
        window.show()
        window.files.open(str(next(p for p in examples() if p.stem == "a100-vs-tpu-v3")))
        model = window.model
        model.add_chips(list(window.presets.chips.values())[:6])
        window.set_mode("side_by_side")

        def settle() -> None:
            for _ in range(4):
                app.processEvents()
            for plot in window.canvas.plots:
                plot.finish_pending()

        settle()
        base = model.document
        edits, resizes = [], []
        placed[0] = 0
        for i in range(rounds):
            kernel = base.kernels[i % len(base.kernels)]
            t = time.perf_counter()
            model.reset(base)  # an edit: every chart's scene anew
            model.select(kernel.id, base.chips[i % len(base.chips)].id)
            settle()
            edits.append(time.perf_counter() - t)
            t = time.perf_counter()
            window.resize(1500 if i % 2 == 0 else 1600, 1000)
            settle()
            resizes.append(time.perf_counter() - t)
        count, charts = placed[0], len(window.canvas.plots)
        model.undo_stack.setClean()
        window.close()
        app.processEvents()
        return edits, resizes, count, charts
    finally:
        roofline_plot.place_labels = place
        roofline_plot.RooflinePlot._on_view_changed = ours


def main() -> None:
    from roofline_gui.widgets.common.application import make_app

    _app = make_app()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}")
    rows = {}
    for name, baseline in (("placing at every change (before)", True),
                           ("changes placed once (now)", False),
                           ("placing at every change (before), again", True),
                           ("changes placed once (now), again", False)):
        edits, resizes, count, charts = run(baseline)
        rows[name] = (edits, resizes, count)
        print(f"{name:42s} {charts} charts: edit {statistics.median(edits) * 1e3:7.0f} ms, "
              f"resize {statistics.median(resizes) * 1e3:7.0f} ms (medians of {len(edits)}); "
              f"labels placed {count} times")
    before = [rows[k] for k in rows if "before" in k]
    now = [rows[k] for k in rows if "now" in k]
    edit = statistics.median([e for r in before for e in r[0]]) / statistics.median(
        [e for r in now for e in r[0]])
    resize = statistics.median([e for r in before for e in r[1]]) / statistics.median(
        [e for r in now for e in r[1]])
    print(f"before / now: an edit {edit:.2f}x, a resize {resize:.2f}x")


if __name__ == "__main__":
    main()
