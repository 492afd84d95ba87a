"""Render the application icon from resources/icons/roofline-explorer.svg into the PNG sizes
Linux wants, an .ico for Windows and an .icns for macOS (Pillow). Run after editing the SVG:

    python packaging/make_icons.py
"""

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def main() -> int:
    from PIL import Image
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv)
    renderer = QSvgRenderer(str(ICONS / "roofline-explorer.svg"))
    pngs = []
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        path = ICONS / f"roofline-explorer-{size}.png"
        image.save(str(path))
        pngs.append(path)
    big = Image.open(ICONS / "roofline-explorer-512.png")
    big.save(ICONS / "roofline-explorer.ico", sizes=[(s, s) for s in (16, 24, 32, 48, 64, 128, 256)])
    big.save(ICONS / "roofline-explorer.icns")
    print("wrote", ", ".join(p.name for p in pngs), "roofline-explorer.ico, roofline-explorer.icns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
