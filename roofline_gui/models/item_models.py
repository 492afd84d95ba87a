"""Qt item models: adapters over the document (session chips and kernels) and the presets.

They never hold their own copy of the truth: rows are read from the document model, and every
change a view asks for (rename, show/hide, reorder, drop) is pushed as an edit.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from PySide6.QtCore import (
    QAbstractListModel,
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor, QIcon, QPixmap, QStandardItem, QStandardItemModel

from roofline_gui.core.edits import Move, Replace
from roofline_gui.core.i18n import _
from roofline_gui.core.units import format_si
from roofline_gui.io.presets import Presets
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.models.mime import MIME_CHIPS, MIME_KERNELS, decode, encode

ID_ROLE = Qt.ItemDataRole.UserRole + 1
SOURCE_ROLE = Qt.ItemDataRole.UserRole + 2
IN_SESSION_ROLE = Qt.ItemDataRole.UserRole + 3  # a preset chip the session already holds
Index = QModelIndex | QPersistentModelIndex


class _SessionListModel(QAbstractListModel):
    """Rows = one collection of the document, in document order."""

    collection = ""
    mime_type = ""

    def __init__(self, model: DocumentModel, presets: Presets | None = None, parent=None) -> None:
        super().__init__(parent)
        self._model = model
        self._presets = presets  # where dropped preset ids are looked up
        self._items = model.document.items(self.collection)
        model.sig_document_changed.connect(self._on_document_changed)

    def _on_document_changed(self, doc, _touched) -> None:
        new = doc.items(self.collection)
        old, self._items = self._items, new
        if [i.id for i in old] != [i.id for i in new]:
            self.beginResetModel()
            self.endResetModel()
            return
        for row, (a, b) in enumerate(zip(old, new, strict=True)):
            if a is not b:
                self.dataChanged.emit(self.index(row), self.index(row))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items)

    def item_id(self, row: int) -> str:
        return self._items[row].id

    def row_of(self, item_id: str) -> int:
        return next((i for i, item in enumerate(self._items) if item.id == item_id), -1)

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = super().flags(index)
        if not index.isValid():
            return base | Qt.ItemFlag.ItemIsDropEnabled
        return base | Qt.ItemFlag.ItemIsDragEnabled | Qt.ItemFlag.ItemIsEditable

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction | Qt.DropAction.CopyAction

    def mimeTypes(self) -> list[str]:
        return [self.mime_type]

    def mimeData(self, indexes) -> QMimeData:
        rows = sorted({i.row() for i in indexes if i.isValid()})
        return encode(self.mime_type, "session", [self._items[r].id for r in rows],
                      [self._items[r].name for r in rows])

    def setData(self, index: Index, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid():
            return False
        item = self._items[index.row()]
        if role == Qt.ItemDataRole.EditRole:
            name = str(value).strip()
            if not name or name == item.name:
                return False
            return self._model.push(Replace(self.collection, replace(item, name=name)),
                                    _("Rename {old} to {new}").format(old=item.name, new=name))
        return False

    def dropMimeData(self, data, action, row, column, parent) -> bool:
        decoded = decode(data, self.mime_type)
        if decoded is None:
            return False
        source, ids = decoded
        target = row if row >= 0 else (parent.row() if parent.isValid() else len(self._items))
        if source == "session":
            # Reorder: move each dragged item to the drop row, in order.
            known = [i for i in ids if self.row_of(i) >= 0]
            for offset, item_id in enumerate(known):
                current = self.row_of(item_id)
                dest = target + offset - (1 if current < target else 0)
                self._model.push(Move(self.collection, item_id, dest), "Reorder")
            return bool(known)
        return self._drop_presets(ids, target)

    def _drop_presets(self, ids: list[str], row: int) -> bool:
        library = getattr(self._presets, self.collection, {}) if self._presets else {}
        items = [library[i] for i in ids if i in library]
        add = self._model.add_chips if self.collection == "chips" else self._model.add_kernels
        return bool(add(items, row)) if items else False

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        item = self._items[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return item.name
        if role == ID_ROLE:
            return item.id
        return self._item_data(item, role)

    def _item_data(self, item, role: int):
        """Roles beyond the name and the id, per collection."""
        return None


@lru_cache(maxsize=256)
def _swatch(color: str) -> QIcon:
    """A chip's colour as an icon drawn the same when its row is selected: a bare colour took
    the selection's tint, and B200's pink read as V100's lavender (the third tour)."""
    pixmap = QPixmap(16, 16)
    pixmap.fill(QColor(color))
    icon = QIcon()
    for mode in (QIcon.Mode.Normal, QIcon.Mode.Selected, QIcon.Mode.Active):
        icon.addPixmap(pixmap, mode)
    return icon


class ChipListModel(_SessionListModel):
    """The session's chips: name, colour swatch, and a check box for shown/hidden."""

    collection = "chips"
    mime_type = MIME_CHIPS

    def _item_data(self, chip, role: int):
        if role == Qt.ItemDataRole.DecorationRole:
            return _swatch(chip.color or "#808080")
        if role == Qt.ItemDataRole.CheckStateRole:
            return Qt.CheckState.Checked if chip.visible else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            return (f"{chip.vendor} {chip.name}\nDRAM {format_si(chip.dram.bandwidth, 'B/s')}; "
                    + ", ".join(f"{p} {format_si(v, 'op/s')}" for p, v in chip.compute.items()))
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        return flags | Qt.ItemFlag.ItemIsUserCheckable if index.isValid() else flags

    def setData(self, index: Index, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if index.isValid() and role == Qt.ItemDataRole.CheckStateRole:
            chip = self._items[index.row()]
            visible = Qt.CheckState(value) == Qt.CheckState.Checked
            return self._model.push(Replace("chips", replace(chip, visible=visible)),
                                    (_("Show {chip}") if visible else _("Hide {chip}")).format(
                                        chip=chip.name))
        return super().setData(index, value, role)


class KernelListModel(_SessionListModel):
    """The session's kernels, in document order."""

    collection = "kernels"
    mime_type = MIME_KERNELS

    def _item_data(self, kernel, role: int):
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{kernel.name}\n[{_(kernel.category)}] {kernel.precision}\n{kernel.source}"
        return None


class PresetKernelModel(QStandardItemModel):
    """Preset kernels grouped by category: a read-only tree that is a drag source."""

    def __init__(self, presets: Presets, parent=None) -> None:
        super().__init__(parent)
        self.setHorizontalHeaderLabels(["Preset kernels"])
        groups: dict[str, QStandardItem] = {}
        for preset_id, kernel in presets.kernels.items():
            group = groups.get(kernel.category)
            if group is None:
                group = QStandardItem(_(kernel.category))
                group.setFlags(Qt.ItemFlag.ItemIsEnabled)
                groups[kernel.category] = group
                self.appendRow(group)
            item = QStandardItem(kernel.name)
            item.setData(preset_id, ID_ROLE)
            item.setToolTip(f"{kernel.name} ({kernel.precision})\n{kernel.source}")
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                          | Qt.ItemFlag.ItemIsDragEnabled)
            group.appendRow(item)

    def index_of(self, preset_id: str) -> QModelIndex:
        """The index of a preset kernel in its category group (invalid if unknown)."""
        for g in range(self.rowCount()):
            group = self.index(g, 0)
            for r in range(self.rowCount(group)):
                if self.index(r, 0, group).data(ID_ROLE) == preset_id:
                    return self.index(r, 0, group)
        return QModelIndex()

    def mimeTypes(self) -> list[str]:
        return [MIME_KERNELS]

    def mimeData(self, indexes) -> QMimeData:
        ids, names = [], []
        for index in indexes:
            preset_id = index.data(ID_ROLE)
            if preset_id and preset_id not in ids:
                ids.append(preset_id)
                names.append(index.data(Qt.ItemDataRole.DisplayRole))
        return encode(MIME_KERNELS, "preset", ids, names)


class PresetChipModel(QStandardItemModel):
    """All chip presets, one row each: 'Vendor Name' with the id; filter it by text."""

    def __init__(self, presets: Presets, parent=None, in_session: set[str] = frozenset()) -> None:
        """``in_session``: names of chips the session has already (marked, still addable)."""
        super().__init__(parent)
        for preset_id, chip in presets.chips.items():
            mark = "   " + _("(in this session)") if chip.name in in_session else ""
            item = QStandardItem(f"{chip.vendor} {chip.name}".strip() + mark)
            item.setData(preset_id, ID_ROLE)
            item.setData(bool(mark), IN_SESSION_ROLE)
            item.setToolTip(
                f"{chip.name} ({chip.year})\nDRAM {format_si(chip.dram.bandwidth, 'B/s')}\n"
                + "\n".join(f"{p}: {format_si(v, 'op/s')}" for p, v in chip.compute.items())
            )
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                          | Qt.ItemFlag.ItemIsDragEnabled)
            self.appendRow(item)

    def mimeTypes(self) -> list[str]:
        return [MIME_CHIPS]

    def mimeData(self, indexes) -> QMimeData:
        ids = [i.data(ID_ROLE) for i in indexes if i.data(ID_ROLE)]
        return encode(MIME_CHIPS, "preset", ids, [i.data() for i in indexes])
