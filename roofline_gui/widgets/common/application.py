"""Starting the Qt application (called from ``__main__`` only when a window is wanted)."""

from __future__ import annotations

import gc
import html
import sys

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPoint, Signal
from PySide6.QtGui import QIcon, QPixmapCache, Qt
from PySide6.QtWidgets import QApplication, QMenu, QToolTip, QWidget

from roofline_gui import __version__
from roofline_gui.io.files import resources_dir


class RooflineApplication(QApplication):
    """Forwards macOS file-open events (a double-clicked session) as ``sig_file_open``."""

    sig_file_open = Signal(str)

    def event(self, event) -> bool:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.FileOpen:
            self.sig_file_open.emit(event.file())
            return True
        return super().event(event)


#: a plain tooltip longer than this is shown wrapped (Qt wraps only rich text)
TIP_WRAP = 60


class WrappedTips(QObject):
    """Shows a widget's long plain tooltip as rich text, which Qt wraps: plain, "All kernels
    at"'s ran 1,280 px wide in one line (the fourteenth tour), while the actions' (set as
    rich text) wrapped. Installed on the widgets that have one (wrap_long_tips), not on the
    application: there, every event of the app passed through Python, and the first window
    took 12 % longer to paint."""

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.ToolTip and isinstance(watched, QWidget):
            tip = watched.toolTip()
            if len(tip) > TIP_WRAP and not Qt.mightBeRichText(tip):
                QToolTip.showText(event.globalPos(), wrapped_tip(tip), watched)
                return True
        return False


class MenuTipsBeside(QObject):
    """A menu entry's tooltip (its whole hint, where the status bar cuts it) shown beside the
    menu, level with the entry, not under the pointer: there it covered the entries below
    (Help → User guide's, the 44th tour). Installed on each menu of the window's menu bar, with
    its tooltips on."""

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt API)
        if event.type() != QEvent.Type.ToolTip or not isinstance(watched, QMenu):
            return False
        action = watched.actionAt(event.pos())
        tip = action.toolTip() if action is not None else ""
        if not tip or tip == action.text().replace("&", "").rstrip("…"):
            QToolTip.hideText()
            return True  # an entry with no hint of its own: none (Qt shows its text again)
        row = watched.actionGeometry(action)
        QToolTip.showText(watched.mapToGlobal(QPoint(watched.width() + 2, row.top())), tip,
                          watched, row)
        return True


def wrapped_tip(tip: str) -> str:
    """A plain tooltip as rich text Qt wraps, its line breaks kept."""
    return "<p>" + html.escape(tip).replace("\n", "<br>") + "</p>"


def fitted_tip(tip: str) -> str:
    """A tooltip to set on a widget that may get it after wrap_long_tips swept its window (a
    field's error, a hint set later): wrapped when long and plain, else as it is."""
    return wrapped_tip(tip) if len(tip) > TIP_WRAP and not Qt.mightBeRichText(tip) else tip


def wrap_long_tips(root: QWidget) -> None:
    """WrappedTips on ``root`` and each widget in it whose tooltip is long and plain (call once
    it is built: a panel built later, when it is)."""
    for widget in (root, *root.findChildren(QWidget)):
        _wrap_if_long(widget)


def set_tip(target, tip: str) -> None:
    """Give ``target`` its tooltip, shown wrapped when long and plain, whenever it is set: a
    widget keeps the plain text (what it says, for checks and copies) with WrappedTips on it;
    anything else (a graphics item, a list item, an action) gets the wrapped rich text. The
    window's one sweep (wrap_long_tips) missed tooltips set later and widgets made later: a
    hardware row's source, the training precision's, the breakdown's (one line as wide as the
    screen in Japanese: the twenty-fifth tour)."""
    if isinstance(target, QWidget):
        target.setToolTip(tip)
        _wrap_if_long(target)
    else:
        target.setToolTip(fitted_tip(tip))


def _wrap_if_long(widget: QWidget) -> None:
    """The app's one WrappedTips on ``widget`` if its tooltip is long and plain."""
    tip = widget.toolTip()
    if len(tip) > TIP_WRAP and not Qt.mightBeRichText(tip):
        app = QApplication.instance()
        shared = app.findChild(WrappedTips) or WrappedTips(app)
        widget.removeEventFilter(shared)  # once, however often it is set or swept
        widget.installEventFilter(shared)


def make_app() -> QApplication:
    app = QApplication.instance() or RooflineApplication(sys.argv)
    app.setApplicationName("Roofline Explorer")
    app.setOrganizationName("RooflineExplorer")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("roofline-explorer")
    icon = resources_dir() / "icons" / "roofline-explorer.svg"
    if icon.is_file():
        app.setWindowIcon(QIcon(str(icon)))
    pg.setConfigOptions(antialias=True)
    # Each chip's marker scatter is cached as a window-sized image (DeviceCoordinateCache), so a
    # drag repaints a few spots instead of every marker; Qt's default 10 MB pixmap cache holds
    # about three of those images, so allow room for thirty.
    QPixmapCache.setCacheLimit(max(QPixmapCache.cacheLimit(), 256 * 1024))
    return app


def freeze_startup_heap() -> None:
    """Exempt what start-up made (modules, classes, the window's widgets: ~70,000 objects)
    from the cyclic garbage collector's full collections, which otherwise walk all of it
    every time: most of a full collection's time after opening 10,000 kernels (docs/performance.md),
    with the GIL held. Those objects live as long as the app; a cycle among them that becomes
    garbage later is not freed, which start-up's few short-lived objects can afford.

    Then the collector is switched on again (``roofline_gui.__main__.start_window`` switches it
    off for start-up). Only the first call does anything: a later one would freeze what the
    user has opened since, which must stay collectable."""
    global _heap_frozen
    if _heap_frozen:
        return
    _heap_frozen = True
    gc.freeze()
    gc.enable()


_heap_frozen = False
