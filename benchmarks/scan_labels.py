"""Labels as a user sees them: for every shipped example, in overlay and side by side, at a
laptop's window (1280×800) and a desktop's (1920×1080), with Memory levels on and off, how many
of the chart's texts are drawn over a line, over a marker or over another text.

Measured in the pixels the window paints, not in the placement's own model of them: each
text's box as ``RoofLayer.paint`` fills it (its backdrop), against the chart drawn again with
one kind of item shown at a time. A line "under" a text is one whose strong pixels (not an
antialiased fringe) the box covers: the backdrop hides them, so the line looks cut there, or,
at the box's edge, grazes the glyphs. The tours found these one at a time (the 33rd: "DDR3-2133
34 GB/s …" on TPU v1's line, "HBM2 900 GB/s" grazed by a roof); this counts them all.

Run: python benchmarks/scan_labels.py [--shots DIR] [--only STEM] [--why]   (offscreen Qt; ~2 min)
Prints one line per chart with counts, then every text found over something.
"""

from __future__ import annotations

import argparse
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

STRONG = 90  # a pixel this far (0-255, the largest channel's difference) from the background
LINE_PIXELS = 3  # a text over at least this many strong pixels of a line is over it
SIZES = ((1280, 800), (1920, 1080))


def _image(widget) -> np.ndarray:
    from PySide6.QtGui import QImage

    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    w, h = image.width(), image.height()
    data = np.frombuffer(image.constBits(), np.uint8, count=image.sizeInBytes())
    return data.reshape(h, image.bytesPerLine() // 4, 4)[:, :w, :3].astype(np.int16)


def _strong(image: np.ndarray, background) -> np.ndarray:
    return np.abs(image - np.array(background, np.int16)[::-1]).max(axis=2) >= STRONG


def _mask(polygon, size) -> np.ndarray:
    """The pixels of ``polygon`` (view pixels) in a view of ``size``, as a boolean image."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QBrush, QColor, QImage, QPainter

    mask = QImage(size, QImage.Format.Format_Grayscale8)
    mask.fill(0)
    painter = QPainter(mask)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QBrush(QColor(255, 255, 255)))
    painter.drawPolygon(polygon)
    painter.end()
    bits = np.frombuffer(mask.constBits(), np.uint8, count=mask.sizeInBytes())
    return bits.reshape(mask.height(), mask.bytesPerLine())[:, :mask.width()] > 0


def _boxes(layer, view) -> list[tuple[str, np.ndarray]]:
    """Each text of ``layer`` and the mask of its backdrop, as RoofLayer.paint fills it."""
    from PySide6.QtGui import QFontMetricsF

    from roofline_gui.widgets.chart.plot_items import label_frame

    item = layer.item
    to_view = item.deviceTransform(view.viewportTransform())
    metrics = QFontMetricsF(view.font())
    size = view.viewport().size()
    return [(label.text, _mask(frame.map(backdrop), size))
            for label in item.labels
            for frame, _box, backdrop in [label_frame(label, to_view, metrics)]]


def _text_items(plot, view) -> list[tuple[str, np.ndarray]]:
    """The workloads' labels (text items) shown and the masks of their boxes."""
    size = view.viewport().size()
    return [(item.toPlainText(), _mask(view.mapFromScene(item.sceneBoundingRect()), size))
            for item in plot.workloads.label_items().values()
            if item.isVisible() and item.toPlainText()]


def _only(plot, shown) -> None:
    """Show the items of the layers ``shown`` only (the grid and the workloads' labels hidden
    too); None: all again (the workloads' labels as they were)."""
    from roofline_gui.widgets.chart.plot_items import GridLines

    labels = set(plot.workloads.label_items().values())
    for layer in plot.layers:
        for item in layer.items:
            if item not in labels:
                item.setVisible(shown is None or layer in shown)
            elif shown is not None:
                item.setVisible(False)
    for item in plot.plot.items:
        if isinstance(item, GridLines):
            item.setVisible(shown is None)


def _why(plot, where: str, found: list[tuple]) -> None:
    """For each kernel name found over a line, what its box holds of each kind of line by the
    placement's own model (chart_labels): the roofs, the other levels' lines it keeps off
    where it can, the faint lines it ignores; a text over a line none of these counts is
    one the model does not see."""
    from roofline_gui.core import chart_labels as cl
    from roofline_gui.core.display import crossed_length_each, offset_label_box
    from roofline_gui.core.display import polyline_segments as segments

    scene, g = plot.scene, plot.label_geometry()

    kinds = {"roofs": segments(cl._roof_polylines(scene, g)),
             "levels": segments(cl._level_polylines(scene, g)),
             "connectors": np.array([r[:4] for r in cl._connectors(scene, g)]).reshape(-1, 4),
             "faint": segments(cl._polylines(g, [d.points() for d in scene.spec.diagonals
                                                 if d.chip in scene.chips and not d.used]))}
    over = {text for _where, text, on_lines, *_rest in found if on_lines >= LINE_PIXELS}
    for label in scene.labels.names:
        if label.text in over:
            box = np.array([offset_label_box(label, g.px, g.text_px, g.line)])
            held = ", ".join(f"{kind} {crossed_length_each(box, lines)[0]:.0f} px"
                             for kind, lines in kinds.items())
            print(f"  why {where}: {label.text!r}{' (stem)' if label.stem else ''}: {held}")


def scan_plot(plot, where: str, shots: Path | None, why: bool = False
              ) -> tuple[list[tuple], int]:
    from PySide6.QtGui import QColor

    view = plot.plot.getViewWidget()
    bg = QColor(plot.options.background).getRgb()[:3]
    labels = plot.workloads.label_items().values()
    shown = [item.isVisible() for item in labels]
    _only(plot, [plot.roofs])
    lines = _strong(_image(view.viewport()), bg)
    _only(plot, [plot.markers, plot.levels, plot.workloads])
    marks = _strong(_image(view.viewport()), bg)
    _only(plot, None)
    for item, visible in zip(labels, shown, strict=True):
        item.setVisible(visible)
    texts = (_boxes(plot.roof_labels, view) + _boxes(plot.names, view) + _text_items(plot, view))
    found = []
    for i, (text, mask) in enumerate(texts):
        on_lines = int((lines & mask).sum())
        on_marks = int((marks & mask).sum())
        on_texts = [t for j, (t, m) in enumerate(texts) if j != i and (m & mask).any()]
        if on_lines >= LINE_PIXELS or on_marks or on_texts:
            found.append((where, text, on_lines, on_marks, on_texts))
    if why and found:
        _why(plot, where, found)
    if shots is not None and found:
        name = where.replace(" ", "_").replace("/", "-").replace("×", "x").replace("#", "")
        image = view.viewport().grab()
        image.save(str(shots / f"{name}.png"))
        for n, (_where, text, *_rest) in enumerate(found):  # each text found, 3× and its box
            mask = next(m for t, m in texts if t == text)
            ys, xs = np.nonzero(mask)
            x0, y0 = max(0, xs.min() - 30), max(0, ys.min() - 30)
            crop = image.copy(x0, y0, xs.max() + 30 - x0, ys.max() + 30 - y0)
            crop.scaled(crop.width() * 3, crop.height() * 3).save(str(shots / f"{name}-{n}.png"))
    return found, len(texts)


def example_windows(path: Path, ini: Path, sizes=SIZES, levels_on=(True, False),
                    modes=("overlay", "side_by_side")):
    """For each of ``sizes``, Memory levels on and off, overlay and side by side: (its words, a
    new main window with the example at ``path`` open in that state, its labels placed), as a
    user sees it after opening the example; the window closed after each. ``ini``: the
    settings file every window shares (its panels as the last one left them, as a user's)."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from roofline_gui.models.settings import Settings
    from roofline_gui.widgets.app.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    for size in sizes:
        for levels in levels_on:
            for mode in modes:
                window = MainWindow(settings=Settings(QSettings(str(ini),
                                                                QSettings.Format.IniFormat)))
                window.resize(*size)
                window.show()
                window.files.open_example(path)
                window.set_memory_levels(levels)
                window.set_mode(mode)
                for _ in range(3):
                    app.processEvents()
                for _ in range(40):
                    app.processEvents()
                    if not any(p.labels_pending for p in window.canvas.plots):
                        break
                yield (f"{path.stem} {size[0]}×{size[1]} levels={'on' if levels else 'off'}"
                       f" {mode}"), window
                window.model.undo_stack.setClean()
                window.close()
                window.deleteLater()
                app.processEvents()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=Path, help="save each chart with a text over something")
    parser.add_argument("--only", help="the examples whose file name contains this")
    parser.add_argument("--why", action="store_true",
                        help="for each name over a line, the lines of each kind its box holds")
    args = parser.parse_args()
    if args.shots:
        args.shots.mkdir(parents=True, exist_ok=True)
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.file_actions import examples

    app = QApplication.instance() or QApplication([])
    ini = Path(tempfile.mkdtemp()) / "scan.ini"
    start = time.perf_counter()
    every, texts = [], 0
    for path in examples():
        if args.only and args.only not in path.stem:
            continue
        for state, window in example_windows(path, ini):
            for n, plot in enumerate(window.canvas.plots):
                plot.finish_pending()
                app.processEvents()
                where = state + (f" #{n + 1}" if "side_by_side" in state else "")
                found, count = scan_plot(plot, where, args.shots, args.why)
                every += found
                texts += count
                print(f"{where}: {count} texts, {len(found)} over something", flush=True)
    print(f"\n{platform.processor() or platform.machine()}, Python {platform.python_version()}: "
          f"{texts} texts scanned in {time.perf_counter() - start:.0f} s, {len(every)} over something")
    for where, text, on_lines, on_marks, on_texts in every:
        what = []
        if on_lines >= LINE_PIXELS:
            what.append(f"{on_lines} px of lines")
        if on_marks:
            what.append(f"{on_marks} px of markers")
        if on_texts:
            what.append("texts " + " | ".join(on_texts))
        print(f"- {where}: {text!r}: " + ", ".join(what))


if __name__ == "__main__":
    main()
