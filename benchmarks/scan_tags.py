"""Which marker a kernel's name or tag reads as naming, with each kernel selected in turn: for a
shipped example, at a laptop's window (1280×800) and a desktop's (1920×1080), Memory levels on
and off, overlay and side by side, every kernel selected on every chip, how many names and tags
set by their markers (no stem) have another kernel's marker nearer than their own (a point's
distance to the text's box: read as that kernel's, the 42nd tour's "7" under the A100's
touching markers of 1 and 7), how many a roof's ridge point is nearer (the 44th tour's "6"
under TPU v3's bf16 ridge dot), and how many kernels with a marker in a chart are named nowhere
in it (their tooltips and an export's key name them).

In the placement's own model (chart_labels), not in painted pixels (scan_labels.py measures
those, for one selection). Markers on one point (0.5 px) count as one: their tags are joined.

Run: python benchmarks/scan_tags.py [STEM ...]   (offscreen Qt; the article alone ~1 min)
Prints one line per chart state with a finding, then the totals.
"""

from __future__ import annotations

import math
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from _scratch import scratch

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ROOFLINE_DATA_DIR", str(scratch()))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

SAME_POINT_PX = 0.5  # another kernel's marker this much nearer or less is on the same point


def read_as_anothers(plot) -> list[tuple[str, int, int, float]]:
    """(text, its kernel, the other kernel, px between the two kernels' markers) for each name
    or tag of ``plot`` set by its marker that another kernel's marker is nearer than its own
    (the nearest such one)."""
    from roofline_gui.core.chart_labels import _kernel_points, stacked_tags
    from roofline_gui.core.display import box_gaps, kernel_tags, offset_label_box

    scene, g = plot.scene, plot.label_geometry()
    kx, ky, owner = _kernel_points(scene)
    tags = kernel_tags([k.name for k in scene.comparison.kernels])
    found = []
    for label in scene.labels.names:
        if label.stem:
            continue
        box = offset_label_box(label, g.px, g.text_px, g.line)
        own = {label.item} | {tags.index(t) for t in stacked_tags(label.text) if t in tags}
        mine = box_gaps(box, [label.x * g.px[0]], [-label.y * g.px[1]])[0, 0]
        theirs = box_gaps(box, kx * g.px[0], -ky * g.px[1])[0]
        nearer = [(float(gap), int(o), math.hypot((x - label.x) * g.px[0], (y - label.y) * g.px[1]))
                  for x, y, o, gap in zip(kx, ky, owner, theirs, strict=True)
                  if o not in own and np.isfinite(x + y)]
        nearer = [n for n in nearer if n[0] < mine - SAME_POINT_PX]
        if nearer:
            _gap_px, other, apart = min(nearer)
            found.append((label.text, label.item, other, apart))
    return found


def read_as_ridges(plot) -> list[str]:
    """The names and tags of ``plot`` set by their markers (no stem) that a roof's ridge point
    (a filled dot like a streaming kernel's marker) is nearer than their own marker (the 44th
    tour's "6" under TPU v3's bf16 ridge dot)."""
    from roofline_gui.core.display import box_gaps, offset_label_box

    scene, g = plot.scene, plot.label_geometry()
    roofs = [r for r in scene.spec.roofs if r.chip in scene.chips and r.ridge > 0 and r.peak > 0]
    rx = np.log10([r.ridge for r in roofs]) * g.px[0]
    ry = -np.log10([r.peak for r in roofs]) * g.px[1]
    found = []
    for label in scene.labels.names:
        if label.stem or not len(roofs):
            continue
        box = offset_label_box(label, g.px, g.text_px, g.line)
        mine = box_gaps(box, [label.x * g.px[0]], [-label.y * g.px[1]])[0, 0]
        if (box_gaps(box, rx, ry)[0] < mine - SAME_POINT_PX).any():
            found.append(label.text)
    return found


def main() -> None:
    from PySide6.QtWidgets import QApplication
    from scan_labels import example_windows

    from roofline_gui.core.chart_labels import unnamed_kernels
    from roofline_gui.widgets.app.file_actions import examples

    stems = sys.argv[1:] or ["the-article-claim-by-claim"]
    app = QApplication.instance() or QApplication([])
    ini = Path(tempfile.mkdtemp()) / "scan.ini"
    start = time.perf_counter()
    names = misread = unnamed = ridged = 0
    for path in (p for p in examples() if p.stem in stems):
        for state, window in example_windows(path, ini):
            doc = window.model.document
            for k, kernel in enumerate(doc.kernels):
                for c, chip in enumerate(doc.chips):
                    window.model.select(kernel.id, chip.id)
                    for _ in range(3):
                        app.processEvents()
                    for n, plot in enumerate(window.canvas.plots):
                        plot.finish_pending()
                        app.processEvents()
                        where = (state + (f" #{n + 1}" if "side_by_side" in state else "")
                                 + f", {k + 1} on chip {c + 1} selected")
                        found = read_as_anothers(plot)
                        left = unnamed_kernels(plot.scene, plot.scene.labels.names)
                        names += len(plot.scene.labels.names)
                        misread += len(found)
                        unnamed += len(left)
                        by_ridges = read_as_ridges(plot)
                        ridged += len(by_ridges)
                        for text, _own, other, _apart in found:
                            print(f"{where}: {text!r} nearer kernel {other + 1}'s marker")
                        for text in by_ridges:
                            print(f"{where}: {text!r} nearer a ridge point")
                        if left:
                            print(f"{where}: unnamed {[u + 1 for u in left]}")
    print(f"\n{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"{' '.join(stems)}: {names} names and tags in {time.perf_counter() - start:.0f} s; "
          f"{misread} nearer another kernel's marker than their own; {ridged} nearer a ridge "
          f"point; {unnamed} kernels unnamed")


if __name__ == "__main__":
    main()
