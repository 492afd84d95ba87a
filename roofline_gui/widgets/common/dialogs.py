"""Modal dialogs. Each exposes a classmethod ``ask`` so tests can replace it."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QColorDialog,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QListView,
    QMessageBox,
    QVBoxLayout,
)

from roofline_gui import __version__
from roofline_gui.core.i18n import _
from roofline_gui.io.presets import Presets
from roofline_gui.models.item_models import ID_ROLE, IN_SESSION_ROLE, PresetChipModel


class SearchListDialog(QDialog):
    """A search field over a list, as a launcher works: typing filters and highlights the first
    match, Down and Up move through the list from the field, Enter takes the highlighted rows
    (or the first match), Ctrl/Shift-click picks several."""

    def __init__(self, source, title: str, placeholder: str, multiple: bool, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(460, 520)
        self.source = source
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(source)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.search = QLineEdit(placeholderText=placeholder)
        self.search.textChanged.connect(self._on_search)
        self.search.installEventFilter(self)
        self.view = QListView()
        self.view.setModel(self.proxy)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection if multiple
                                   else QAbstractItemView.SelectionMode.SingleSelection)
        self.view.doubleClicked.connect(self.accept)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.view)
        self.note = QLabel()
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        layout.addWidget(self.buttons)
        self._on_search("")

    def _on_search(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)
        if self.proxy.rowCount():
            self.view.setCurrentIndex(self.proxy.index(self._first_row(), 0))  # Enter takes it
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(self.proxy.rowCount() > 0)

    def _first_row(self) -> int:
        """The match highlighted as the search changes: the first one that is not already in
        the session, else the first (the second tour's Enter would have added its V100 again)."""
        return next((r for r in range(self.proxy.rowCount())
                     if not self.proxy.index(r, 0).data(IN_SESSION_ROLE)), 0)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt API)
        """Down/Up/Page keys typed in the search field move through the list."""
        if watched is self.search and event.type() == QEvent.Type.KeyPress and event.key() in (
                Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
            self.view.setFocus()
            QApplication.sendEvent(self.view, event)
            return True
        return False

    def picked(self) -> list:
        """Source-model indexes of the rows taken: the selected ones, else the highlighted one,
        else the first match."""
        rows = sorted(self.view.selectionModel().selectedRows(), key=lambda i: i.row())
        if not rows and self.view.currentIndex().isValid():
            rows = [self.view.currentIndex()]
        if not rows and self.proxy.rowCount():
            rows = [self.proxy.index(0, 0)]
        return [self.proxy.mapToSource(i) for i in rows]


class ChipPresetDialog(SearchListDialog):
    """Pick chips from the preset library, searchable by name and vendor."""

    def __init__(self, presets: Presets, parent=None, in_session: set[str] = frozenset()) -> None:
        super().__init__(PresetChipModel(presets, in_session=in_session), _("Add chips from the presets"),
                         _("Search by name or vendor, e.g. 'H100' or 'Google'"), True, parent)
        self.source.setParent(self)
        self.note.setText(_("Enter adds the highlighted chips; Ctrl-click picks several (of "
                            "several, those in this session are not added again; one alone is "
                            "added as a copy). Peaks are dense, per chip; hover a chip for its "
                            "numbers."))

    def selected_ids(self) -> list[str]:
        return [i.data(ID_ROLE) for i in self.picked()]

    @classmethod
    def ask(cls, presets: Presets, parent=None, in_session: set[str] = frozenset()) -> list[str]:
        dialog = cls(presets, parent, in_session)
        return dialog.selected_ids() if dialog.exec() == QDialog.DialogCode.Accepted else []


KIND_ROLE = Qt.ItemDataRole.UserRole + 7


class FindDialog(SearchListDialog):
    """Find a chip or a kernel of the session by name."""

    def __init__(self, doc, parent=None) -> None:
        source = QStandardItemModel()
        for kind, items in (("chip", doc.chips), ("kernel", doc.kernels)):
            for item in items:
                row = QStandardItem(f"{item.name}   ({kind})")
                row.setData(item.id, ID_ROLE)
                row.setData(kind, KIND_ROLE)
                row.setEditable(False)
                source.appendRow(row)
        super().__init__(source, _("Find a chip or kernel"), _("Type part of a name"), False, parent)
        source.setParent(self)
        self.note.setText(_("Enter selects it: its form opens and it is highlighted on the chart."))

    @classmethod
    def ask(cls, doc, parent=None) -> tuple[str, str] | None:
        """('chip' | 'kernel', id), or None."""
        dialog = cls(doc, parent)
        if dialog.exec() != QDialog.DialogCode.Accepted or not dialog.picked():
            return None
        index = dialog.picked()[0]
        return index.data(KIND_ROLE), index.data(ID_ROLE)


class ColorDialog:
    @classmethod
    def ask(cls, current: str, parent=None) -> str | None:
        color = QColorDialog.getColor(QColor(current), parent, _("Chip colour"))
        return color.name() if color.isValid() else None


class Confirm:
    """Yes/No/Cancel-style questions, replaceable in tests."""

    @classmethod
    def unsaved_changes(cls, parent, name: str) -> str:
        """'save', 'discard' or 'cancel'."""
        box = QMessageBox(parent)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(_("Unsaved changes"))
        box.setText(_("Save the changes to {name}?").format(name=name))
        box.setInformativeText(_("Your changes will be lost if you don't save them."))
        box.setStandardButtons(QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                               | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        return {QMessageBox.StandardButton.Save: "save",
                QMessageBox.StandardButton.Discard: "discard"}.get(
                    QMessageBox.StandardButton(answer), "cancel")

    @classmethod
    def error(cls, parent, title: str, message: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Critical, title, title, parent=parent)
        box.setInformativeText(message)  # plain text: names from files are never interpreted
        box.setTextFormat(Qt.TextFormat.PlainText)
        # wide enough for a path and a reason, and for its title (a box 270 px wide cut "Could
        # not o… ken.roofline": the nineteenth tour)
        box.setStyleSheet("QLabel#qt_msgbox_informativelabel { min-width: 30em; }")
        box.exec()


def about_text() -> str:
    return (f"Roofline Explorer {__version__}\n\n"
            + _("How fast can a kernel run on a chip, and what holds it back?\nAttainable = "
                "min(peak compute, intensity × bandwidth) for every memory level (Williams, "
                "Waterman & Patterson, CACM 2009).\n\nChip presets: dense peaks per chip, "
                "decimal units, a source for every value."))


class RecoveryDialog(QDialog):
    """Offers the sessions journaled by windows that did not close cleanly."""

    def __init__(self, descriptions: list[str], parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("Recover unsaved work"))
        self.choice = "later"
        self.list = QListView()
        from PySide6.QtCore import QStringListModel  # noqa: PLC0415

        self.list.setModel(QStringListModel(descriptions, self))
        self.list.setWordWrap(True)  # a long entry wraps instead of being cut off
        self.list.setCurrentIndex(self.list.model().index(0, 0))
        text = QLabel(_("Roofline Explorer did not close cleanly last time. This unsaved work can "
                      "be recovered; nothing is discarded unless you choose Discard."))
        text.setWordWrap(True)
        buttons = QDialogButtonBox()
        recover = buttons.addButton(_("Recover"), QDialogButtonBox.ButtonRole.AcceptRole)
        discard = buttons.addButton(_("Discard all"), QDialogButtonBox.ButtonRole.DestructiveRole)
        later = buttons.addButton(_("Decide later"), QDialogButtonBox.ButtonRole.RejectRole)
        recover.clicked.connect(lambda: self._done("recover"))
        discard.clicked.connect(lambda: self._done("discard"))
        later.clicked.connect(lambda: self._done("later"))
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.list)
        layout.addWidget(buttons)
        widest = max((self.fontMetrics().horizontalAdvance(d) for d in descriptions), default=0)
        self.resize(min(max(560, widest + 80), 980), 300)

    def _done(self, choice: str) -> None:
        self.choice = choice
        self.accept()

    @classmethod
    def ask(cls, descriptions: list[str], parent=None) -> tuple[str, int]:
        """('recover', index) | ('discard', -1) | ('later', -1)."""
        dialog = cls(descriptions, parent)
        dialog.exec()
        row = dialog.list.currentIndex().row()
        return dialog.choice, (row if dialog.choice == "recover" else -1)
