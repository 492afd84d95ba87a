"""Modal dialogs. Each exposes a classmethod ``ask`` so tests can replace it."""

from __future__ import annotations

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
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
from roofline_gui.io.presets import Presets
from roofline_gui.models.item_models import ID_ROLE, PresetChipModel


class ChipPresetDialog(QDialog):
    """Pick chips from the preset library, searchable by name and vendor."""

    def __init__(self, presets: Presets, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add chips from the presets")
        self.resize(420, 520)
        self.source = PresetChipModel(presets, self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.source)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.search = QLineEdit(placeholderText="Search by name or vendor, e.g. 'H100' or 'Google'")
        self.search.textChanged.connect(self.proxy.setFilterFixedString)
        self.view = QListView()
        self.view.setModel(self.proxy)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.doubleClicked.connect(self.accept)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.view)
        layout.addWidget(QLabel("Peaks are dense, per chip; hover a chip for its numbers."))
        layout.addWidget(buttons)

    def selected_ids(self) -> list[str]:
        return [i.data(ID_ROLE) for i in self.view.selectionModel().selectedRows()]

    @classmethod
    def ask(cls, presets: Presets, parent=None) -> list[str]:
        dialog = cls(presets, parent)
        return dialog.selected_ids() if dialog.exec() == QDialog.DialogCode.Accepted else []


class ColorDialog:
    @classmethod
    def ask(cls, current: str, parent=None) -> str | None:
        color = QColorDialog.getColor(QColor(current), parent, "Chip colour")
        return color.name() if color.isValid() else None


class Confirm:
    """Yes/No/Cancel-style questions, replaceable in tests."""

    @classmethod
    def unsaved_changes(cls, parent, name: str) -> str:
        """'save', 'discard' or 'cancel'."""
        box = QMessageBox(parent)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Unsaved changes")
        box.setText(f"Save the changes to {name}?")
        box.setInformativeText("Your changes will be lost if you don't save them.")
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
        box.exec()


def about_text() -> str:
    return (f"Roofline Explorer {__version__}\n\n"
            "How fast can a kernel run on a chip, and what holds it back?\n"
            "Attainable = min(peak compute, intensity × bandwidth) for every memory level "
            "(Williams, Waterman & Patterson, CACM 2009).\n\n"
            "Chip presets: dense peaks per chip, decimal units, a source for every value.")


class RecoveryDialog(QDialog):
    """Offers the sessions journaled by windows that did not close cleanly."""

    def __init__(self, descriptions: list[str], parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Recover unsaved work")
        self.choice = "later"
        self.list = QListView()
        from PySide6.QtCore import QStringListModel  # noqa: PLC0415

        self.list.setModel(QStringListModel(descriptions, self))
        self.list.setCurrentIndex(self.list.model().index(0, 0))
        text = QLabel("Roofline Explorer did not close cleanly last time. This unsaved work can "
                      "be recovered; nothing is discarded unless you choose Discard.")
        text.setWordWrap(True)
        buttons = QDialogButtonBox()
        recover = buttons.addButton("Recover", QDialogButtonBox.ButtonRole.AcceptRole)
        discard = buttons.addButton("Discard all", QDialogButtonBox.ButtonRole.DestructiveRole)
        later = buttons.addButton("Decide later", QDialogButtonBox.ButtonRole.RejectRole)
        recover.clicked.connect(lambda: self._done("recover"))
        discard.clicked.connect(lambda: self._done("discard"))
        later.clicked.connect(lambda: self._done("later"))
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.list)
        layout.addWidget(buttons)
        self.resize(560, 300)

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
