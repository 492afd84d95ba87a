"""Scale: a session of 10,000 kernels and 30 chips. Prints how long each user-visible step takes.

Run: python benchmarks/bench_scale.py   (offscreen)
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from _scratch import scratch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


ROUNDS = 3  # each GUI step is measured this many times (the host's load varies by +-30 %)


def big_session(n_kernels: int = 10_000, n_chips: int = 30):
    from roofline_gui.core.document import Document
    from roofline_gui.core.edits import PALETTE
    from roofline_gui.io.presets import default_presets

    presets = default_presets()
    chip_list = list(presets.chips.values())
    chips = tuple(
        replace(chip := chip_list[i % len(chip_list)], id=f"c{i}", name=f"{chip.name} #{i}",
                color=PALETTE[i % len(PALETTE)])
        for i in range(n_chips)
    )
    base = list(presets.kernels.values())
    kernels = []
    for i in range(n_kernels):
        k = base[i % len(base)]
        if k.template == "mlp":
            k = replace(k, params={**k.params, "batch": float(1 + i % 999)})
        kernels.append(replace(k, id=f"k{i}", name=f"{k.name} #{i}"))
    return Document(chips=chips, kernels=tuple(kernels), title="scale test")


def timed(fn, repeat: int = 1):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def run_watched(app, start, done, timeout: float = 30.0):
    """Call ``start()``, then run the event loop until ``done()``. Returns (seconds to done,
    the longest stretch the event loop was blocked): a 1 ms heartbeat timer records the gaps
    between its ticks, so a gap is how long the window could not paint or answer input."""
    from PySide6.QtCore import QTimer

    ticks = []
    heartbeat = QTimer()
    heartbeat.setInterval(1)
    heartbeat.timeout.connect(lambda: ticks.append(time.perf_counter()))
    begin = time.perf_counter()
    ticks.append(begin)
    heartbeat.start()
    start()
    while not done() and time.perf_counter() - begin < timeout:
        app.processEvents()
    app.processEvents()
    end = time.perf_counter()
    ticks.append(end)
    heartbeat.stop()
    gaps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)]
    return end - begin, max(gaps)


def main() -> None:
    from PySide6.QtCore import QSettings

    from roofline_gui.io.session import dump_session, load_session, save_session
    from roofline_gui.models.document_model import DocumentModel
    from roofline_gui.models.settings import Settings
    from roofline_gui.widgets.app.main_window import MainWindow
    from roofline_gui.widgets.common.application import freeze_startup_heap, make_app

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    doc = big_session()
    folder = scratch()
    path = folder / "big.roofline"
    t_save, _ = timed(lambda d=doc: save_session(d, path), 3)
    print(f"session: {len(doc.kernels):,} kernels x {len(doc.chips)} chips, "
          f"{path.stat().st_size / 1e6:.1f} MB on disk")
    print(f"save (serialise + atomic write + read-back)   {t_save * 1e3:8.0f} ms")
    t_load, loaded = timed(lambda: load_session(path), 3)
    assert loaded == doc
    print(f"load (parse + validate every field)           {t_load * 1e3:8.0f} ms")
    # From here on the benchmark keeps its copy of the session as bytes, not as objects: the
    # garbage collector's full passes walk every live object, so extra copies of 10,000
    # kernels held by the script would slow the app's collections below as they would not
    # slow a real session's.
    saved = path.read_bytes()
    del doc, loaded

    app = make_app()
    os.environ["ROOFLINE_DATA_DIR"] = str(folder)
    window = MainWindow(settings=Settings(QSettings(str(folder / "s.ini"), QSettings.Format.IniFormat)))
    window.resize(1600, 1000)
    window.show()
    # As a user would: the window is complete (side panels built) before File > Open.
    run_watched(app, lambda: None, lambda: window.panels_built)
    freeze_startup_heap()  # as run_app does once the window is complete
    canvas = window.canvas
    results: dict[str, list[tuple[float, float]]] = {}

    def record(name: str, watched: tuple[float, float]) -> None:
        results.setdefault(name, []).append(watched)

    for _ in range(ROUNDS):  # the first round opens into an empty window, later ones reopen
        path.write_bytes(saved)  # the last round's save wrote an edited copy
        record("File > Open until every marker is drawn",
               run_watched(app, lambda: window.files.open(path), lambda: not canvas.drawing))
        assert dump_session(window.model.document) == saved
        # The same document again, evaluated beforehand as File > Open does on its worker:
        # only what the window does with it (panels, roofs, every marker).
        loaded = load_session(path)
        prepared = DocumentModel.prepare(loaded)
        record("  of which showing it (panels, every marker)",
               run_watched(app, lambda d=loaded, p=prepared: window.model.reset(d, path, p),
                           lambda: not canvas.drawing))
        del loaded, prepared
        kernel = next(k for k in window.model.document.kernels if k.template == "mlp")
        canvas._on_marker_dragged(kernel.id, "c0", 2.0, False)
        app.processEvents()
        steps = []
        for i in range(20):
            start = time.perf_counter()
            canvas._on_marker_dragged(kernel.id, "c0", 2.0 + 7 * i, False)
            app.processEvents()
            steps.append(time.perf_counter() - start)
        step = statistics.median(steps)
        record("drag step (median of 20 steps)", (step, step))
        record("drag end (the kernel's spot moved in 30 chips)",
               run_watched(app, lambda k=kernel.id: canvas._on_marker_dragged(k, "c0", 300.0, True),
                           lambda: not canvas.drawing))
        record("full redraw (roofs, 300,000 markers)",
               run_watched(app, canvas.redraw, lambda: not canvas.drawing))
        window.model.move_kernel_to_intensity(kernel.id, 50.0)
        record("File > Save right after an edit", run_watched(app, window.files.save, lambda: True))
        assert window.model.undo_stack.isClean()
    print(f"\n{ROUNDS} rounds; total time (median) and the longest block (median, worst):")
    for name, runs in results.items():
        total = statistics.median(t for t, _ in runs)
        gaps = [g for _, g in runs]
        print(f"{name:48s} {total * 1e3:7.0f} ms   block {statistics.median(gaps) * 1e3:5.0f} ms "
              f"(worst {max(gaps) * 1e3:.0f})")
    t_eval, _ = timed(lambda: (setattr(window.model, "_comparison", None), window.model.comparison), 5)
    print(f"re-evaluate 300,000 pairs (patched evaluator)    {t_eval * 1e3:7.0f} ms")
    window.close()


if __name__ == "__main__":
    main()
