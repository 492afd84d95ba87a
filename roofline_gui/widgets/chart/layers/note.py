"""The view's note: what the view leaves out ("3 kernels outside the view · click to fit"),
in the top-left corner of the view box, over the chart. A click on it fits the view."""

from __future__ import annotations

from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from roofline_gui.core.i18n import _
from roofline_gui.widgets.chart.layers.base import Style


class _ClickableText(pg.TextItem):
    def __init__(self, on_click: Callable[[], None], **kwargs) -> None:
        super().__init__(**kwargs)
        self.on_click = on_click
        self.clickable = False

    def mouseClickEvent(self, ev) -> None:  # noqa: N802 (pyqtgraph API)
        if self.clickable and ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self.on_click()
        else:
            ev.ignore()


class ViewNote:
    """One text item on the view box (not in data coordinates: it stays in its corner)."""

    def __init__(self, view_box: pg.ViewBox, style: Style, on_click: Callable[[], None]) -> None:
        fill = QColor("#fff4c2")
        fill.setAlpha(235)
        self.item = _ClickableText(on_click, color=style.foreground, anchor=(0, 0), fill=fill,
                                   border=pg.mkPen("#c8a400"))
        self.item.setParentItem(view_box)
        self.item.setPos(6, 4)
        self.item.setZValue(30)
        self.item.hide()
        self._exporting = False
        self._shown = False
        self.view_box = view_box
        view_box.sigResized.connect(self._fit)

    def _fit(self, *_args) -> None:
        """Wrapped to the view's width where it is wider ("No chip yet: … Help → Examples
        opens" ran off the chart's right edge: the ninth tour)."""
        self.item.setTextWidth(-1)
        natural = self.item.textItem.boundingRect().width()
        room = self.view_box.width() - 12
        if room > 60 and natural > room:
            self.item.setTextWidth(room)

    @property
    def text(self) -> str:
        """The note as shown ('' when hidden)."""
        return self.item.toPlainText() if self._shown else ""

    def show_text(self, text: str, clickable: bool, tip: str = "") -> None:
        """``tip``: more than the text says, in its tooltip (with the click's hint)."""
        if self.item.toPlainText() != text:
            self.item.setText(text)
            self._fit()
        self.item.clickable = clickable
        self.item.setCursor(Qt.CursorShape.PointingHandCursor if clickable else Qt.CursorShape.ArrowCursor)
        hint = _("Click to show every kernel and workload (automatic range)") if clickable else ""
        self.item.setToolTip("\n".join(t for t in (tip, hint) if t))
        self._shown = bool(text)
        self.item.setVisible(self._shown and not self._exporting)

    def click(self) -> None:
        """What a click on the note does (for keyboard users and tests)."""
        if self.item.clickable:
            self.item.on_click()

    def set_exporting(self, exporting: bool) -> None:
        self._exporting = exporting
        self.item.setVisible(self._shown and not exporting)
