"""GUI timings, printed: launch to first drawn chart, one drag step, a matplotlib baseline.

Run: python benchmarks/bench_gui.py   (offscreen by default; needs matplotlib for the baseline)

1. Launch to the first drawn chart: a fresh process each time, from spawn until the chart has
   been painted, for (a) a bare PySide6 window, (b) a minimal pyqtgraph plot window and (c) the
   app with its example session, interleaved in the same run, median of several launches.
2. One drag step with 1,000 kernels x 8 chips: model update (edit, re-evaluation) plus redraw
   and repaint of the canvas, against the naive full setData of all 8,000 markers.
3. The same 8-chip, 8,000-marker chart redrawn by matplotlib (Agg) as a baseline.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from _scratch import scratch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Each candidate prints "painted" once its chart (or label) has been painted: the filter posts
# a zero-delay timer from the first paint event, which runs as soon as that paint (and the
# window's flush) has returned. It then prints "complete" once the whole window is built; only
# the app has work left at that point (its side panels, built on the following turns of the
# event loop), so for the two baselines both lines come together.
PAINTED = """
import time
from PySide6.QtCore import QObject, QEvent, QTimer
def _complete():
    print("complete", time.process_time(), flush=True)
    app.quit()
class _Painted(QObject):
    \"\"\"On the watched widget's first paint: print ``label`` from a zero-delay timer (after the
    paint and the window's flush have returned), then call ``then``.\"\"\"
    def __init__(self, then=_complete, label="painted"):
        super().__init__()
        self.then, self.label = then, label
    def eventFilter(self, obj, ev):
        if ev.type() == QEvent.Type.Paint:
            QTimer.singleShot(0, lambda: (print(self.label, time.process_time(), flush=True),
                                          self.then()))
            obj.removeEventFilter(self)
        return False
"""

# The app starts as `roofline-explorer` starts it (roofline_gui.__main__.start_window), with a
# fresh settings folder per launch; the filters are installed when the window has been shown.
APP_LAUNCH = textwrap.dedent("""
    import os, tempfile
    # no saved window state; inside the benchmark's scratch folder, removed when it ends
    os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(dir=os.environ["ROOFLINE_DATA_DIR"])
    from roofline_gui.__main__ import start_window
    def _on_shown(w):
        from PySide6.QtWidgets import QApplication
        app = QApplication.instance()
        # Complete = the side panels built (on the turn after the chart's first paint) and
        # painted: the comparison table's first paint, which comes with the window's repaint.
        def _panels_painted():
            w._panels_filter = _Painted(app.quit, "complete")
            w.table.view.viewport().installEventFilter(w._panels_filter)
        def _wait_for_panels():
            if w.panels_built:
                _panels_painted()
            else:
                w.sig_panels_built.connect(_panels_painted)
        # Installed after show(), so it sees the chart's first paint before the window's own
        # filter does, and its timer runs before the side panels are built.
        w._chart_filter = _Painted(_wait_for_panels)
        w.canvas.overlay.viewport().installEventFilter(w._chart_filter)
    start_window(None, on_shown=_on_shown)
""")

LAUNCHERS = {
    "bare PySide6 window": PAINTED + textwrap.dedent("""
        from PySide6.QtWidgets import QApplication, QMainWindow, QLabel
        app = QApplication([])
        w = QMainWindow(); w.setCentralWidget(QLabel("hello")); w.resize(800, 600)
        _filter = _Painted(_complete)
        w.centralWidget().installEventFilter(_filter); w.show(); app.exec()
    """),
    "minimal pyqtgraph plot window": PAINTED + textwrap.dedent("""
        from PySide6.QtWidgets import QApplication
        import pyqtgraph as pg
        app = QApplication([])
        w = pg.PlotWidget(); w.plot([1, 2, 3], [1, 4, 9], symbol="o"); w.resize(800, 600)
        _filter = _Painted(_complete)
        w.viewport().installEventFilter(_filter); w.show(); app.exec()
    """),
    "Roofline Explorer, example session": PAINTED + APP_LAUNCH,
    # The same start in Japanese (--lang ja: the catalog read, Qt's own Japanese texts, a font
    # with Japanese glyphs): aim within 1.1x of the English start.
    "Roofline Explorer, in Japanese": PAINTED + APP_LAUNCH.replace(
        "start_window(None, on_shown=_on_shown)",
        "start_window(None, on_shown=_on_shown, language='ja')"),
    # The same start with Python's and PySide6's defaults (the collector on, PySide6 reading
    # every module's source as it is imported), as the app started before start_window
    # prepared it: how much of the ratio is those two, how much the app's own work.
    "Roofline Explorer, default start": PAINTED + textwrap.dedent("""
        import roofline_gui.widgets.app.startup as _startup
        _startup.prepare_start = lambda: None
    """) + APP_LAUNCH,
}

# This machine sets PYTHONDONTWRITEBYTECODE=1, so without care every launch would compile the
# app's ~60 modules from source (about 80 ms), which no installed copy does: pip compiles a
# wheel's modules at install time and Python caches an editable install's bytecode on its first
# run. The children may write bytecode, and one launch of each candidate before the timed rounds
# fills the cache.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
# Crash journals of earlier runs would open the recovery dialog and stall the launch.
CHILD_ENV["ROOFLINE_DATA_DIR"] = str(scratch())


def launch_once(code: str) -> tuple[float, float, float, float]:
    """Seconds from spawn until the chart was painted and until the window was complete, then
    the child's own CPU seconds (all its threads) at those two moments."""
    start = time.perf_counter()
    with subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True, env=CHILD_ENV) as proc:
        painted_line = proc.stdout.readline()
        painted = time.perf_counter() - start
        complete_line = proc.stdout.readline()
        complete = time.perf_counter() - start
        proc.wait(timeout=60)
    if not painted_line.startswith("painted") or not complete_line.startswith("complete"):
        raise RuntimeError(f"launch did not paint: {painted_line!r} {complete_line!r}")
    return painted, complete, float(painted_line.split()[1]), float(complete_line.split()[1])


APP, PG = "Roofline Explorer, example session", "minimal pyqtgraph plot window"
JA = "Roofline Explorer, in Japanese"
APPS = (APP, "Roofline Explorer, default start", JA)
MOMENTS = ("painted", "complete", "cpu painted", "cpu complete")


def bench_launch(rounds: int = 15) -> tuple[dict[str, tuple[float, ...]],
                                            dict[str, dict[str, list[float]]],
                                            dict[str, list[tuple[float, ...]]]]:
    """Median (painted, complete, CPU at painted, CPU at complete) per candidate, and for each
    app candidate its / the pyqtgraph window's ratios of each round for each of the four (the
    candidates run back to back in a round, so a ratio compares like with like); and every
    round's times, by candidate."""
    for code in LAUNCHERS.values():
        launch_once(code)  # fills the bytecode cache; not timed
    times: dict[str, list[tuple[float, ...]]] = {name: [] for name in LAUNCHERS}
    for _ in range(rounds):  # interleaved, so drift in machine load hits all of them alike
        for name, code in LAUNCHERS.items():
            times[name].append(launch_once(code))
    ratios = {app: {what: sorted(a[i] / p[i] for a, p in zip(times[app], times[PG], strict=True))
                    for i, what in enumerate(MOMENTS)}
              for app in APPS}
    medians = {name: tuple(statistics.median(t[i] for t in v) for i in range(4))
               for name, v in times.items()}
    return medians, ratios, times


def big_document(n_kernels: int = 1000, n_chips: int = 8, on_chip: bool = False):
    """``on_chip``: the MLP layers keep their input activations on chip, so they move bytes
    through two levels (a point each with View -> Memory levels)."""
    from dataclasses import replace

    from roofline_gui.core.document import Document
    from roofline_gui.io.presets import default_presets

    presets = default_presets()
    chip_ids = ["nvidia-a100-sxm4-40gb", "google-tpu-v3", "nvidia-h100-sxm5-80gb",
                "amd-instinct-mi300x", "google-tpu-v5e", "intel-gaudi-3", "nvidia-l4", "nvidia-b200"]
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
    chips = tuple(replace(presets.chips[c], id=f"c{i}", color=palette[i])
                  for i, c in enumerate(chip_ids[:n_chips]))
    base = [k for k in presets.kernels.values() if k.precision == "bf16"]
    kernels = []
    for i in range(n_kernels):
        k = base[i % len(base)]
        if k.template == "mlp":
            k = replace(k, params={**k.params, "batch": 1 + i % 512},
                        resides={"x": "cache"} if on_chip else {})
        kernels.append(replace(k, id=f"k{i}", name=f"{k.name} #{i}"))
    return Document(chips=chips, kernels=tuple(kernels))


def bench_drag(steps: int = 40, n_kernels: int = 1000, levels: bool = False) -> tuple[float, float]:
    """``levels``: with View -> Memory levels on, and a point per level for the MLP layers."""
    from roofline_gui.io.presets import default_presets
    from roofline_gui.models.document_model import DocumentModel
    from roofline_gui.widgets.chart.canvas_panel import CanvasPanel
    from roofline_gui.widgets.common.application import make_app

    app = make_app()  # the app's own settings (pixmap cache size included)
    model = DocumentModel()
    model.reset(big_document(n_kernels, on_chip=levels))
    model.set_view(memory_levels=levels)
    panel = CanvasPanel(model, default_presets())
    panel.resize(1200, 800)
    panel.show()
    app.processEvents()
    kernel = next(k for k in model.document.kernels if k.template == "mlp")
    # The first drag event lifts the kernel out of the big scatters (once per drag).
    panel._on_marker_dragged(kernel.id, "c0", 2.0, False)
    app.processEvents()
    # A step is timed until Qt has repainted what changed, as it would between two mouse moves.
    step_times = []
    for i in range(steps):
        start = time.perf_counter()
        panel._on_marker_dragged(kernel.id, "c0", 2.0 + i * 3.0, False)
        app.processEvents()
        step_times.append(time.perf_counter() - start)
    panel._on_marker_dragged(kernel.id, "c0", 200.0, True)
    app.processEvents()
    naive_times = []
    for _ in range(10):
        start = time.perf_counter()
        for plot in panel.plots:  # every marker set again, as a chart without diffs would
            for scatter in plot.markers.scatters.values():
                x, y = scatter.getData()
                scatter.setData(x=x.copy(), y=y.copy(), data=scatter.data["data"].copy())
        app.processEvents()
        naive_times.append(time.perf_counter() - start)
    panel.close()
    return statistics.median(step_times), statistics.median(naive_times)


def bench_matplotlib(rounds: int = 5) -> float | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    from roofline_gui.core.comparison import compare

    doc = big_document()
    cmp = compare(doc.kernels, doc.chips)
    fig, ax = plt.subplots(figsize=(12, 8), dpi=100)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        ax.clear()
        ax.set_xscale("log")
        ax.set_yscale("log")
        for c, chip in enumerate(doc.chips):
            peak, bw = chip.compute["bf16"], chip.dram.bandwidth
            ax.plot([1e-3, peak / bw, 1e6], [bw * 1e-3, peak, peak], color=chip.color)
            ax.scatter(cmp.dram_intensity, cmp.result.attainable[:, c], s=12, color=chip.color)
        fig.canvas.draw()
        times.append(time.perf_counter() - start)
    plt.close(fig)
    return statistics.median(times)


def main() -> None:
    import numpy as np
    import pyqtgraph
    import PySide6

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"PySide6 {PySide6.__version__}, pyqtgraph {pyqtgraph.__version__}, numpy {np.__version__}, "
          f"QT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM')}")
    launch, ratios, launch_rounds = bench_launch()
    rounds = len(ratios[APP]["painted"])
    print(f"\nlaunch, median of {rounds} fresh processes each:"
          "   chart painted   window complete   (CPU time at each)")
    for name, (t_paint, t_done, c_paint, c_done) in launch.items():
        print(f"  {name:38s} {t_paint * 1e3:9.0f} ms {t_done * 1e3:13.0f} ms"
              f"   ({c_paint * 1e3:.0f} / {c_done * 1e3:.0f} ms)")
    aims = {"painted": "  (aim: within 1.3x)", "complete": "  (aim: within 1.2x)"}
    for app in APPS:
        print(f"  {app} / minimal pyqtgraph window:")
        for label, values in ratios[app].items():
            q1, med, q3 = (values[int(len(values) * f)] for f in (0.25, 0.5, 0.75))
            print(f"    {label:12s}: per-round median {med:.2f}x (quartiles {q1:.2f}-{q3:.2f})"
                  + (aims.get(label, "") if app == APP else ""))
    japanese = {what: sorted(j[i] / e[i] for j, e in zip(launch_rounds[JA], launch_rounds[APP],
                                                           strict=True))
                for i, what in enumerate(MOMENTS)}
    print("  in Japanese / in English, round by round:")
    for label, values in japanese.items():
        q1, med, q3 = (values[int(len(values) * f)] for f in (0.25, 0.5, 0.75))
        print(f"    {label:12s}: per-round median {med:.2f}x (quartiles {q1:.2f}-{q3:.2f})"
              + ("  (aim: within 1.1x)" if label in ("painted", "complete") else ""))
    step, naive = bench_drag()
    print("\none drag step, 1,000 kernels x 8 chips (edit + re-evaluation + redraw + repaint):")
    print(f"  drag step (lifted kernel only)         {step * 1e3:7.1f} ms  (aim: under 16 ms)")
    print(f"  naive: setData on all 8 scatters       {naive * 1e3:7.1f} ms  (same repaint rule)")
    step, _naive = bench_drag(levels=True)
    print(f"  the same with a point per memory level {step * 1e3:7.1f} ms  (aim: under 8 ms)")
    mpl = bench_matplotlib()
    if mpl is None:
        print("\nmatplotlib not installed: pip install matplotlib for the baseline")
    else:
        print(f"\nsame chart redrawn by matplotlib (Agg)  {mpl * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()
