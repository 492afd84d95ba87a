"""``roofline-explorer --self-test``: prove that an installed copy or a bundle works.

Starts the full main window offscreen, opens the bundled example, draws the chart, exports a
PNG and a CSV to a temporary folder and checks them against the core. Returns 0, or prints the
reason and returns 1.
"""

from __future__ import annotations

import csv
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path


def _check(condition: bool, reason: str) -> None:
    if not condition:
        raise AssertionError(reason)


def run_self_test() -> int:
    window_check = _window_platform()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    start = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="roofline-self-test-"))
    os.environ["ROOFLINE_DATA_DIR"] = str(folder / "data")
    try:
        _run(folder)
    except Exception as exc:  # noqa: BLE001 -- the self-test reports any failure as its result
        # The files it wrote stay for a look at what went wrong.
        print(f"self-test FAILED: {type(exc).__name__}: {exc} (its files: {folder})", file=sys.stderr)
        return 1
    shutil.rmtree(folder, ignore_errors=True)
    if window_check:
        print(f"self-test FAILED: {window_check}", file=sys.stderr)
        return 1
    print(f"self-test passed in {time.perf_counter() - start:.2f} s")
    return 0


def _window_platform() -> str | None:
    """The check a real start makes (platform_check), for the platform a window would use here:
    the self-test itself runs offscreen, which needs none of the X11 libraries."""
    from roofline_gui.platform_check import missing_xcb_libraries, startup_problem

    if not sys.platform.startswith("linux"):
        return None
    if os.environ.get("QT_QPA_PLATFORM") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return startup_problem()
    # No display here (a build machine): still check what a desktop's X11 session would need.
    missing = missing_xcb_libraries()
    return f"a window on X11 would need {', '.join(missing)} (see the README)" if missing else None


def _run(folder: Path) -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QColor, QImage

    from roofline_gui.core.comparison import CSV_COLUMNS, compare
    from roofline_gui.io.csv_export import export_csv
    from roofline_gui.io.files import resources_dir, write_atomic
    from roofline_gui.models.settings import Settings
    from roofline_gui.widgets.app.file_actions import example_named
    from roofline_gui.widgets.app.main_window import MainWindow
    from roofline_gui.widgets.chart.export import export_pdf, export_svg, render_canvas_png
    from roofline_gui.widgets.common.application import make_app

    app = make_app()
    _check((resources_dir() / "presets" / "chips.json").is_file(),
           f"resources not found at {resources_dir()}")
    example = example_named("a100-vs-tpu-v3")
    _check(example is not None, "the bundled example session is missing")
    settings = Settings(QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat))
    window = MainWindow(settings=settings)
    window.show()
    _check(window.files.open_example(example), f"could not open {example}")
    app.processEvents()
    doc = window.model.document
    _check(len(doc.chips) == 2 and len(doc.kernels) >= 5, "the example did not load whole")
    png, table = folder / "chart.png", folder / "table.csv"
    write_atomic(png, render_canvas_png(window.model, window.presets, width=1200))
    image = QImage(str(png))
    _check(image.width() == 1200, f"PNG is {image.width()} px wide, not 1200")
    colors = {QColor(image.pixel(x, y)).name() for x in range(0, 1200, 4)
              for y in range(0, image.height(), 4)}
    for chip in doc.chips:
        _check(chip.color in colors, f"{chip.name}'s colour {chip.color} is not in the PNG")
    # The vector exports: SVG (QtSvg) and PDF (QPdfWriter).
    item = window.canvas.render_plot_item()
    svg, pdf = folder / "chart.svg", folder / "chart.pdf"
    export_svg(item, svg)
    export_pdf(item, pdf)
    _check(svg.read_text(encoding="utf-8").lstrip().startswith("<?xml") and "<svg" in svg.read_text(
        encoding="utf-8"), "the SVG export is not an SVG")
    _check(pdf.read_bytes().startswith(b"%PDF-") and pdf.stat().st_size > 2000,
           "the PDF export is not a PDF")
    export_csv(doc, table)
    with open(table, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    _check(tuple(rows[0]) == CSV_COLUMNS, "CSV columns differ")
    _check(len(rows) == len(doc.chips) * len(doc.kernels), "CSV row count differs")
    expected = compare(doc.kernels, doc.chips).result.attainable[0, 0]
    _check(abs(float(rows[0]["attainable_flop_per_s"]) - expected) <= 1e-9 * expected,
           "CSV attainable differs from the core")
    window.model.undo_stack.setClean()
    window.close()
