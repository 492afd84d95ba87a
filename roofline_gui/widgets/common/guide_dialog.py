"""The user guide in a read-only window of its own: the Markdown shipped with the app's data,
shown by Qt's own renderer, so it opens offline and without a browser."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout

from roofline_gui.core.i18n import _
from roofline_gui.io.files import user_guide_path


def guide_markdown() -> str:
    """The guide's text, or a note saying where it should have been."""
    path = user_guide_path()
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        return _("# User guide missing\n\nThis installation has no user guide at `{path}` "
                 "({why}).").format(path=path, why=exc.strerror)


class UserGuideDialog(QDialog):
    """Help → User guide: not modal, so the guide stays open beside the window it describes."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("Roofline Explorer user guide"))
        room = (parent.screen() if parent is not None else self.screen()).availableGeometry()
        self.resize(min(760, room.width() - 16), min(820, room.height() - 48))  # a laptop's too
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)  # a web link goes to the system's browser
        self.browser.setMarkdown(guide_markdown())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
