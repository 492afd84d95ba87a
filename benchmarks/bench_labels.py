"""Placing the chart's labels, as the app places them, against the same placement in one pass
(2026-12-06: the kernels' names and tags are now placed clear of every line first, the other
memory levels' too, and only those still unnamed again where they may cross another level's
line; the one-pass code before, as a drag step still places them, made from
place_kernel_names' source here), in the same run:

1. every shipped example's overlay chart at 1280 x 800, all its labels (roofs, names,
   workloads);
2. 40 kernels (the most a chart names) on the article's chips at 1280 x 800, overlay and side by
   side, the kernels' names alone.

(Until 2026-12-06 the baseline was the placement without the pass that names a kernel left out
by its tag over a line, 2026-12-05: it cost 1.0-1.4x. Until 2026-12-05 the first part weighed
the diagonal labels' spots all at once against one at a time, the code before 2026-12-03. The
article's chart placed its labels in about 0.4 s on a 2-core AMD host before that: a click on a
marker, which places them again for the selected chip, waited for it.)
Run: python benchmarks/bench_labels.py  (offscreen Qt: the fonts' own widths, as the app)
"""

from __future__ import annotations

import math
import os
import platform
import sys
import time
from pathlib import Path

from _scratch import scratch

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ROOFLINE_DATA_DIR", str(scratch()))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from roofline_gui.core import chart_labels  # noqa: E402


def main() -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from roofline_gui.models.settings import Settings
    from roofline_gui.widgets.app.file_actions import examples
    from roofline_gui.widgets.app.main_window import MainWindow

    app = QApplication([])
    ini = scratch() / "settings.ini"
    window = MainWindow(settings=Settings(QSettings(str(ini), QSettings.Format.IniFormat)))
    window.resize(1280, 800)
    window.show()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}")
    with_pass, before = chart_labels.place_kernel_names, one_pass()
    print(f"{'example (overlay, 1280 x 800)':40s} {'labels':>9s} {'clear first':>18s} "
          f"{'one pass':>9s} {'ratio':>6s}")
    for path in examples():
        window.files.open(str(path))
        for _ in range(5):
            app.processEvents()
        plot = window.canvas.overlay_plot
        plot.finish_pending()
        scene, g = plot.scene, plot.label_geometry()
        times, placed = {}, {}
        for name, fn in (("with", with_pass), ("before", before)) * 3:  # interleaved
            chart_labels.place_kernel_names = fn
            start = time.perf_counter()
            placed[name] = chart_labels.place_labels(scene, g, selected_chip=plot.selected_chip,
                                                     foreground="#202020")
            times[name] = min(times.get(name, math.inf), time.perf_counter() - start)
        chart_labels.place_kernel_names = with_pass
        n = {k: len(p.roofs) + len(p.names) for k, p in placed.items()}
        print(f"{path.stem:40s} {n['with']:4d}/{n['before']:<4d} {times['with'] * 1e3:15.1f} ms "
              f"{times['before'] * 1e3:6.1f} ms {times['with'] / times['before']:5.2f}x")
        window.model.undo_stack.setClean()
    forty_kernels(app, window, with_pass, before)
    window.close()


def one_pass():
    """place_kernel_names as it was before the pass clear of every line: the names and tags
    placed once, crossing another level's line where the roofs alone are clear."""
    import inspect
    import textwrap as tw

    source = tw.dedent(inspect.getsource(chart_labels.place_kernel_names))
    # one pass, as a drag step places them (both tiers each try)
    twice = "passes = (False, True) if soft and scene.selection.lifted is None else (None,)"
    assert twice in source
    source = source.replace(twice, "passes = (None,)")
    namespace = dict(vars(chart_labels))
    exec(source, namespace)  # noqa: S102 - the baseline, from the source
    return namespace["place_kernel_names"]


def forty_kernels(app, window, with_pass, before) -> None:
    from dataclasses import replace

    from roofline_gui.widgets.app.file_actions import example_named

    window.files.open_example(example_named("the-article-claim-by-claim"))
    kernels = window.model.document.kernels
    more = [replace(k, id=f"{k.id}-{i}", name=f"{k.name} #{i}",
                    params={**k.params, **({"batch": float(2 + i)} if "batch" in k.params else {})})
            for i in range(5) for k in kernels][:chart_labels.KERNEL_LABELS_MAX - len(kernels)]
    window.model.add_kernels(more)
    print(f"\n{len(window.model.document.kernels)} kernels, the article's chips, 1280 x 800: "
          "the kernels' names placed")
    print(f"{'chart':28s} {'named':>9s} {'clear first':>18s} {'one pass':>9s} {'ratio':>6s}")
    for mode in ("overlay", "side_by_side"):
        window.set_mode(mode)
        for _ in range(5):
            app.processEvents()
        for plot in window.canvas.plots:
            plot.finish_pending()
            scene, g = plot.scene, plot.label_geometry()
            roofs = chart_labels.place_roof_labels(scene, g, plot.selected_chip, "#202020")
            times, named = {}, {}
            for name, fn in (("with", with_pass), ("before", before)) * 3:  # interleaved
                start = time.perf_counter()
                named[name] = fn(scene, g, roofs)
                times[name] = min(times.get(name, math.inf), time.perf_counter() - start)
            title = f"{mode} {plot.selected_chip or ''}"[:28]
            print(f"{title:28s} {len(named['with']):4d}/{len(named['before']):<4d} "
                  f"{times['with'] * 1e3:15.1f} ms {times['before'] * 1e3:6.1f} ms "
                  f"{times['with'] / times['before']:5.2f}x")
    window.model.undo_stack.setClean()


if __name__ == "__main__":
    main()
