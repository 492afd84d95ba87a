"""Exports of the canvas: PNG at a chosen width (pyqtgraph's ImageExporter, legend included),
SVG and PDF rendered through Qt (pyqtgraph 0.14's SVGExporter is broken, issue 3485). Files are
written atomically; the CSV export lives in ``io.csv_export``."""

from __future__ import annotations

import os
from pathlib import Path

import pyqtgraph as pg
import pyqtgraph.exporters  # noqa: F401  (registers pg.exporters)
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, QSize
from PySide6.QtGui import QImage, QPageSize, QPainter, QPdfWriter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication, QGraphicsItem

from roofline_gui.core.document import Document
from roofline_gui.core.errors import RooflineError
from roofline_gui.io.files import write_atomic


def png_bytes(image: QImage) -> bytes:
    """``image`` encoded as PNG."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise RooflineError("could not encode the PNG image")
    buffer.close()
    return bytes(data)


def render_png(item, width: int) -> bytes:
    """PNG bytes of a plot item (or layout) at ``width`` pixels, aspect kept."""
    exporter = pg.exporters.ImageExporter(item)
    exporter.parameters()["width"] = int(width)
    image: QImage = exporter.export(toBytes=True)
    return png_bytes(image)


def _render_scene(item, painter: QPainter, target: QRectF) -> None:
    """Render through Qt with every item's image cache off and pyqtgraph's export mode on, so
    a vector file gets vector lines, markers and real text rather than the screen's bitmaps
    (cached item images, scatter symbols stamped from a pixmap atlas)."""
    scene = item.scene()
    items = scene.items()
    cached = [(i, i.cacheMode()) for i in items if i.cacheMode() != QGraphicsItem.CacheMode.NoCache]
    exporting = [i for i in items if hasattr(i, "setExportMode")]
    for i, _mode in cached:
        i.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    for i in exporting:
        i.setExportMode(True, {"antialias": True, "painter": painter})
    try:
        scene.render(painter, target, item.sceneBoundingRect())
    finally:
        for i in exporting:
            i.setExportMode(False)
        for i, mode in cached:
            i.setCacheMode(mode)


def export_svg(item, path: str | os.PathLike) -> None:
    rect = item.sceneBoundingRect()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(QSize(int(rect.width()), int(rect.height())))
    generator.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
    generator.setTitle("Roofline")
    # The screen's 96 dpi, as the PDF's: at the generator's default 72, pyqtgraph's axes (sized
    # in device pixels) came out at three quarters of the plot, their ticks off the data.
    generator.setResolution(96)
    painter = QPainter(generator)
    _render_scene(item, painter, QRectF(0, 0, rect.width(), rect.height()))
    painter.end()
    buffer.close()
    write_atomic(path, bytes(data))


def export_pdf(item, path: str | os.PathLike) -> None:
    rect = item.sceneBoundingRect()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setPageSize(QPageSize(rect.size() * 0.75, QPageSize.Unit.Point))  # 96 dpi -> points
    writer.setPageMargins(QMarginsF(0, 0, 0, 0))
    writer.setResolution(96)
    painter = QPainter(writer)
    _render_scene(item, painter, QRectF(0, 0, rect.width(), rect.height()))
    painter.end()
    buffer.close()
    write_atomic(path, bytes(data))


def render_canvas_png(model, presets, *, width: int, height: int | None = None,
                      mode: str = "overlay", options=None, view_range=None) -> bytes:
    """PNG bytes of the roofline drawn afresh, offscreen, at exactly ``width`` × ``height``.

    The chart is laid out at the target size and exported at scale 1, so labels and the legend
    keep their places (scaling a laid-out chart clips text that was measured for another size).
    ``view_range``: the range the user zoomed to (CanvasPanel.user_range), else the fit.
    Where the chart names kernels by their numbers alone ("4/5"), or draws lines no label
    names, a key of those is added under it (with_keys), the image that much taller.
    """
    from dataclasses import replace  # noqa: PLC0415

    from PySide6.QtCore import Qt  # noqa: PLC0415

    from roofline_gui.widgets.chart.canvas_panel import CanvasPanel  # noqa: PLC0415

    height = height or round(width * 2 / 3)
    panel = CanvasPanel(model, presets, background="#ffffff", foreground="#202020")
    if options is not None:
        panel.options.__dict__.update(replace(options, foreground="#202020").__dict__)
    panel.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    panel.resize(width, height)
    # Laid out before it is shown: the layout's minimum size reaching the offscreen window after
    # it exists made Qt print "This plugin does not support propagateSizeHints()".
    panel.layout().activate()
    panel.show()
    panel.set_mode(mode)
    panel.redraw()
    if view_range is not None:
        panel.show_range(view_range)
    _settle(panel)
    try:
        with panel.exporting() as item:
            png = render_png(item, width)
            keys = _keys(panel)
        return with_keys(png, keys) if keys else png
    finally:
        panel.close()
        panel.deleteLater()


def _settle(panel, turns: int = 10) -> None:
    """The panel laid out as it will stay, its labels placed for that: a grid of charts lays
    itself out over a few turns of the event loop (titles, the keys' widths, the columns'
    share), and an export rendered at once drew side by side's last chart half laid out, its
    peaks' key over its y axis and its view past the picture's edge (the twenty-eighth tour)."""
    def geometry():
        return [(p.plot.sceneBoundingRect().getRect(), p.key.axis.sceneBoundingRect().getRect(),
                 None if p.scene is None or p.scene.labels is None else p.scene.labels.px)
                for p in panel.plots]

    last = None
    for _turn in range(turns):
        QApplication.processEvents()
        for plot in panel.plots:
            plot.finish_pending()
        now = geometry()
        if now == last:
            return
        last = now


def _keys(panel) -> list[tuple[str, list[str]]]:
    """What the panel's charts draw without saying it on the picture, as (title, rows): the
    kernels they name by their tags alone, tag and name (tag_key), the peaks their keys do not
    write whole, and the lines of levels besides main memory no label names (unnamed_lines): a
    report has neither the table that numbers the kernels nor the lines' tooltips beside it."""
    from roofline_gui.core.chart_labels import (  # noqa: PLC0415
        peak_key_texts,
        tag_key,
        tagged,
        unnamed_kernels,
        unnamed_lines,
    )
    from roofline_gui.core.i18n import _  # noqa: PLC0415

    texts, names, lines, peaks, unnamed, cut = [], [], [], [], set(), set()
    for plot in panel.plots:
        scene = plot.scene
        if scene is None or scene.labels is None:
            continue
        names = [k.name for k in scene.comparison.kernels]
        texts += [label.text for label in scene.labels.names]
        # a name cut to fit ("4b · …MLP… (int8)") is keyed whole, as a tag alone is
        cut.update(label.item for label in scene.labels.names
                   if 0 <= label.item < len(names) and label.text != names[label.item])
        lines += unnamed_lines(scene, scene.labels.roofs)
        # the peaks the key shortens ("bf16 989.4 Top/s: 2 chips each"), folds away (small
        # charts side by side) or leaves out (with many chips, the selected chip's only)
        whole = set(plot.key.axis.drawn_texts())
        chips = scene.comparison.chips
        peaks += [text if len(on) > 1 else _("{chip}: {peak}").format(
                      chip=chips[on[0]].name, peak=text)
                  for text, _peak, _ridge, _colour, on, _short in peak_key_texts(
                      scene, list(scene.chips), "#000000") if text not in whole]
        unnamed.update(unnamed_kernels(scene, scene.labels.names))
    tags = tag_key(texts, names, cut) if names else []
    # the title says which: a name cut to fit ("CNN 層 3×3、256…") is not a number (the key had
    # said "named by their numbers" of one: the 33rd tour)
    in_part = names and len(tags) > len(tag_key(texts, names))
    # a kernel named by its number in one chart of a grid and left out in another is keyed
    # once, by its number (listed under both, the key read as contradicting itself: the
    # twenty-ninth tour)
    keyed = set(tags)
    unnamed = {k for k in unnamed if tagged(names, [k])[0] not in keyed}
    lines = list(dict.fromkeys(lines))  # (one chip's, side by side, in one chart only)
    peaks = list(dict.fromkeys(peaks))
    return [section for section in (
        (_("Kernels named on the chart by their numbers or in part, in full:") if in_part
         else _("Kernels named by their numbers on the chart:"), tags),
        (_("Kernels the chart shows without a name (a marker only):"),
         tagged(names, sorted(unnamed))),
        (_("Peaks not named in full on the chart:"), peaks),
        (_("Lines not named on the chart:"), lines)) if section[1]]


def with_keys(png: bytes, keys: list[tuple[str, list[str]]], foreground: str = "#202020") -> bytes:
    """``png`` with keys under it, each a title and its rows in columns across the width: the
    kernels its chart names by their tags alone ("4/5"), the lines no label names (_keys)."""
    from PySide6.QtCore import Qt  # noqa: PLC0415
    from PySide6.QtGui import QColor, QFont, QFontMetrics  # noqa: PLC0415

    chart = QImage.fromData(png, "PNG")
    font = QFont()
    metrics = QFontMetrics(font)
    line, pad = metrics.height() + 2, 12
    width = chart.width()
    laid = []  # (title, rows, column width, rows per column)
    for title, key in keys:
        column = min(max(metrics.horizontalAdvance(text) for text in key) + 24, width - 2 * pad)
        columns = max(1, (width - 2 * pad) // column)
        laid.append((title, key, column, -(-len(key) // columns)))
    height = chart.height() + sum(pad + line * (rows + 1) for *_k, rows in laid) + pad
    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(QColor("#ffffff"))
    painter = QPainter(image)
    left = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    try:
        painter.drawImage(0, 0, chart)
        painter.setFont(font)
        painter.setPen(QColor(foreground))
        top = chart.height()
        for title, key, column, rows in laid:
            top += pad
            painter.drawText(QRectF(pad, top, width - 2 * pad, line), left, title)
            for n, text in enumerate(key):
                x, y = pad + (n // rows) * column, top + line * (1 + n % rows)
                shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, column - 12)
                painter.drawText(QRectF(x, y, column - 12, line), left, shown)
            top += line * (rows + 1)
    finally:
        painter.end()
    return png_bytes(image)


def export_png_headless(doc: Document, path: Path, width: int, *, derated: bool = False,
                        same_width: bool = True) -> None:
    """``--export-png``: draw the session offscreen, as the app would (``same_width``: View →
    Same-width precisions stand in, on as the window's default), and save a PNG."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication  # noqa: PLC0415

    from roofline_gui.io.presets import default_presets  # noqa: PLC0415
    from roofline_gui.models.document_model import DocumentModel  # noqa: PLC0415

    _app = QApplication.instance() or QApplication([])
    model = DocumentModel(doc)
    model.set_derated(derated)
    model.set_view(same_width=same_width)
    write_atomic(path, render_canvas_png(model, default_presets(), width=width))
