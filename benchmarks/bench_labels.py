"""Placing the chart's labels: every shipped example's overlay chart at 1280 x 800, the labels
placed as the app places them (every spot along a diagonal weighed at once) against the same
placement weighing one spot at a time (the code before 2026-12-03, kept here as the baseline),
in the same minutes; both must place the same labels.

The article's chart placed its labels in about 0.4 s on a 2-core AMD host before: a click on a
marker (which places them again for the selected chip) waited for it.
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
from roofline_gui.core.chart_labels import (  # noqa: E402
    MARKER_COST,
    NEAR_LINE_PX,
    OFF_LINE,
    OFF_LINE_PX,
    SAME_LINE,
    ChartLabel,
    _covered,
    _crossed,
    _free,
    _inside,
    _text_over_lines,
    _text_over_markers,
    label_footprint,
    text_width,
)


def one_spot_at_a_time(text, bw, top, low, color, g, boxes, markers, lines, clear_only=False):
    """_place_diagonal as it was: each spot's footprint built and weighed on its own."""
    x_lo, x_hi, y_lo, _y_hi = g.view
    bottom = max(x_lo + math.log10(1.5), y_lo + math.log10(2.5) - math.log10(bw))
    start = bottom if low else max(min(math.log10(top / bw / 20), x_hi - math.log10(8)), bottom)
    steps = [start + i / 3 for i in range(6)] if low else [start - i / 3 for i in range(6)
                                                            if start - i / 3 >= bottom]
    if not low:
        span = (text_width(text, g.text_px) + 8) / math.hypot(*g.px)
        steps += [start + i / 3 for i in range(1, 6)
                  if start + i / 3 + span <= math.log10(top / bw)]
    end = min(x_hi, math.log10(top / bw)) if top > 0 else x_hi
    span = (text_width(text, g.text_px) + 8) / math.hypot(*g.px)
    more = [bottom + i / 6 for i in range(int(max(0.0, end - span - bottom) * 6) + 1)]
    best, fewest, first_clear = None, math.inf, None
    # the side of its line away from a near parallel diagonal, as _place_diagonal takes it
    near = max(SAME_LINE, NEAR_LINE_PX / g.px[1])
    offsets = [v - math.log10(bw) for v in lines[lines[:, 4] == 1, 5]
               if SAME_LINE <= abs(v - math.log10(bw)) < near]
    side = ((0.0, 0.0) if offsets and all(o > 0 for o in offsets) else
            (0.0, 1.0) if offsets and all(o < 0 for o in offsets) else None)
    def weighed(exact: bool) -> list:
        """(label, what it covers) of each usable spot: lines by the staircase's boxes, or
        (``exact``, where none is clear so) through the text as drawn, as _place_diagonal."""
        out = []
        for anchor, spots in (((0.0, 1.0), steps), ((0.0, 1.0), more),
                              ((0.0, 0.0), steps + more)):
            for lx in spots:
                label = ChartLabel(text, lx, lx + math.log10(bw), color, anchor=anchor,
                                   along=(1.0, 1.0))
                footprint = label_footprint(label, g)
                if all(_inside(b, g) and _free(b, boxes) for b in footprint):
                    covered = sum(MARKER_COST * _covered(b, markers) + (
                        0 if exact else _crossed(b, lines, 1, math.log10(bw), near))
                        for b in footprint)
                    if exact:
                        covered += _text_over_lines([label], g, lines, math.log10(bw), near)[0]
                    out.append((label, covered))
        return out

    spots = weighed(False)
    if not any(covered == 0 for _label, covered in spots):
        spots = weighed(True)
    for label, covered in spots:
        if covered == 0:
            if side is None or label.anchor == side:
                return label, 0.0
            first_clear = first_clear or label
        elif covered < fewest:
            best, fewest = label, covered
    if first_clear is not None:
        return first_clear, 0.0
    if not clear_only and fewest > OFF_LINE:  # set off its line, as _place_diagonal does
        shift = OFF_LINE_PX / math.cos(math.atan2(g.px[1], g.px[0])) / g.px[1]
        off, least = None, math.inf
        for side, anchor in ((-1, (0.0, 0.0)), (1, (0.0, 1.0))):
            for lx in dict.fromkeys(steps + more):
                label = ChartLabel(text, lx, lx + math.log10(bw) + side * shift, color,
                                   anchor=anchor, along=(1.0, 1.0))
                footprint = label_footprint(label, g)
                if not all(_inside(b, g) and _free(b, boxes) for b in footprint):
                    continue
                crossed = _text_over_lines([label], g, lines, math.log10(bw), near)[0]
                crowded = _text_over_lines([label], g, lines, math.log10(bw), near,
                                           pad=OFF_LINE_PX)[0]
                if (crossed < 1 and crossed * 100 + crowded < least
                        and not _text_over_markers([label], g, markers)[0]):
                    off, least, off_crossed = label, crossed * 100 + crowded, crossed
        if off is not None and OFF_LINE + off_crossed < fewest:
            return off, OFF_LINE + float(off_crossed)
    return (None, math.inf) if clear_only or best is None else (best, fewest)


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
    print(f"{'example':40s} {'labels':>6s} {'at once':>9s} {'one by one':>11s} {'ratio':>6s}")
    fast = chart_labels._place_diagonal
    for path in examples():
        window.files.open(str(path))
        for _ in range(5):
            app.processEvents()
        plot = window.canvas.overlay_plot
        plot.finish_pending()
        scene, g = plot.scene, plot.label_geometry()

        def place(scene=scene, g=g, chip=plot.selected_chip):
            return chart_labels.place_labels(scene, g, selected_chip=chip, foreground="#202020")

        times, placed = {}, {}
        for name, fn in (("fast", fast), ("slow", one_spot_at_a_time)) * 3:  # interleaved
            chart_labels._place_diagonal = fn
            start = time.perf_counter()
            placed[name] = place()
            took = time.perf_counter() - start
            times[name] = min(times.get(name, math.inf), took)
        chart_labels._place_diagonal = fast
        assert placed["fast"] == placed["slow"], f"{path.stem}: the two placements differ"
        n = len(placed["fast"].roofs) + len(placed["fast"].names)
        print(f"{path.stem:40s} {n:6d} {times['fast'] * 1e3:7.1f} ms {times['slow'] * 1e3:8.1f} ms "
              f"{times['slow'] / times['fast']:5.1f}x")
        window.model.undo_stack.setClean()
    window.close()


if __name__ == "__main__":
    main()
