"""The comparison table: one row per kernel; per shown chip, attainable performance, time,
limiter and speedup against the baseline chip. Numbers come from the document model's
comparison (the same core evaluation the canvas and the CSV use)."""

from __future__ import annotations

import math

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from roofline_gui.core.roofline import BOUND_UNSUPPORTED
from roofline_gui.core.units import format_si, format_time
from roofline_gui.io.presets import Presets
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.models.item_models import ID_ROLE
from roofline_gui.models.mime import MIME_KERNELS, decode

Index = QModelIndex | QPersistentModelIndex
SORT_ROLE = Qt.ItemDataRole.UserRole + 3
FIXED_COLUMNS = ("Kernel", "Precision", "Intensity", "Measured")
CHIP_COLUMNS = ("attainable", "time", "limiter", "speedup")


class ComparisonTableModel(QAbstractTableModel):
    def __init__(self, model: DocumentModel, presets: Presets | None = None, parent=None) -> None:
        super().__init__(parent)
        self._model = model
        self._presets = presets
        self._ops_per_unit = 1.0  # 2.0 shows MAC/s instead of op/s
        self._shape = self._signature()
        model.sig_document_changed.connect(self._on_document_changed)

    # -- structure ----------------------------------------------------------------------------
    def _signature(self):
        doc = self._model.document
        return tuple(k.id for k in doc.kernels), tuple(c.id for c in doc.visible_chips)

    def _chip_columns(self) -> list[int]:
        """Indices (into the document's chips) of the shown chips, in order."""
        return [i for i, c in enumerate(self._model.document.chips) if c.visible]

    def _on_document_changed(self, doc, touched) -> None:
        shape = self._signature()
        if shape != self._shape:
            self.beginResetModel()
            self._shape = shape
            self.endResetModel()
            return
        kernel_rows = self._model.comparison.kernel_index
        if touched is not None and touched and all(t in kernel_rows for t in touched):
            last = self.columnCount() - 1
            for item_id in touched:
                row = kernel_rows[item_id]
                self.dataChanged.emit(self.index(row, 0), self.index(row, last))
        elif self.rowCount() and self.columnCount():
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(self.rowCount() - 1, self.columnCount() - 1))
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, self.columnCount() - 1)

    def set_mac_units(self, mac: bool) -> None:
        self._ops_per_unit = 2.0 if mac else 1.0
        if self.rowCount() and self.columnCount():
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(self.rowCount() - 1, self.columnCount() - 1))
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, max(0, self.columnCount() - 1))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._shape[0])

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(FIXED_COLUMNS) + len(CHIP_COLUMNS) * len(self._shape[1])

    def locate(self, column: int) -> tuple[int, str] | None:
        """(chip index in the document, field) for a chip column, None for a fixed one."""
        if column < len(FIXED_COLUMNS):
            return None
        offset = column - len(FIXED_COLUMNS)
        return self._chip_columns()[offset // len(CHIP_COLUMNS)], CHIP_COLUMNS[offset % len(CHIP_COLUMNS)]

    # -- data ---------------------------------------------------------------------------------
    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or role not in (
            Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        unit = "MAC" if self._ops_per_unit == 2 else "op"
        if section < len(FIXED_COLUMNS):
            return {2: f"Intensity ({unit}/B)", 3: f"Measured ({unit}/s)"}.get(
                section, FIXED_COLUMNS[section])
        located = self.locate(section)
        if located is None:
            return None
        chip = self._model.document.chips[located[0]]
        field = located[1]
        base = self._model.document.baseline_chip
        label = {"attainable": f"{unit}/s", "time": "time", "limiter": "limited by (bound)",
                 "speedup": f"× vs {base.name if base else '—'}"}[field]
        return f"{chip.name}\n{label}"

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        cmp = self._model.comparison
        if row >= len(cmp.kernels):
            return None
        kernel = cmp.kernels[row]
        if role == ID_ROLE:
            return kernel.id
        located = self.locate(column)
        if located is None:
            return self._fixed(cmp, row, column, role)
        c, field = located
        value = self._value(cmp, row, c, field)
        unsupported = int(cmp.result.bound[row, c]) == BOUND_UNSUPPORTED
        if role == SORT_ROLE:
            return value if isinstance(value, str) else (-math.inf if math.isnan(value) else value)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._format(field, value)
        if role == Qt.ItemDataRole.ToolTipRole:
            return (f"{kernel.name} on {cmp.chips[c].name}: {cmp.bound_name(row, c)}-bound, "
                    f"limited by {cmp.limiter_name(row, c)}")
        if role == Qt.ItemDataRole.ForegroundRole and unsupported:
            return QColor("#888888")
        if role == Qt.ItemDataRole.TextAlignmentRole and field != "limiter":
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _fixed(self, cmp, row: int, column: int, role: int):
        kernel = cmp.kernels[row]
        measured = cmp.measured_rate(row)
        values = (kernel.name, kernel.precision, float(cmp.dram_intensity[row]) / self._ops_per_unit,
                  (measured or math.nan) / self._ops_per_unit)
        if role == SORT_ROLE:
            value = values[column]
            return -math.inf if isinstance(value, float) and math.isnan(value) else value
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 2:
                return f"{values[2]:,.4g}"
            if column == 3:
                return format_si(values[3], "MAC/s" if self._ops_per_unit == 2 else "op/s")
            return values[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 3:
                return self._measured_tip(cmp, row)
            return kernel.source or kernel.name
        if role == Qt.ItemDataRole.TextAlignmentRole and column >= 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _measured_tip(self, cmp, row: int) -> str:
        lines = []
        for c in self._chip_columns():
            rate, percent = cmp.measured(row, c)
            if rate is not None and percent is not None:
                lines.append(f"{percent:.3g}% of the {cmp.chips[c].name} roof")
        return "\n".join(lines) or "No measurement: run it on this computer or import one"

    def _value(self, cmp, row: int, c: int, field: str):
        r = cmp.result
        if field == "attainable":
            return float(r.attainable[row, c]) / self._ops_per_unit
        if field == "time":
            return float(r.time[row, c])
        if field == "limiter":
            bound = cmp.bound_name(row, c)
            name = cmp.limiter_name(row, c)
            return name if bound == "unsupported" else f"{name} ({bound})"
        base = self._model.document.baseline_chip
        b = self._model.document.chips.index(base) if base else c
        return float(r.attainable[row, c] / r.attainable[row, b])

    def _format(self, field: str, value) -> str:
        if field == "attainable":
            return format_si(value, "MAC/s" if self._ops_per_unit == 2 else "op/s")
        if field == "time":
            return format_time(value)
        if field == "speedup":
            return "—" if math.isnan(value) else f"{value:.3g}×"
        return value

    # -- drops: a kernel dragged from the library is added to the session ---------------------------
    def flags(self, index: Index) -> Qt.ItemFlag:
        return super().flags(index) | Qt.ItemFlag.ItemIsDropEnabled

    def mimeTypes(self) -> list[str]:
        return [MIME_KERNELS]

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction | Qt.DropAction.MoveAction

    def canDropMimeData(self, data, action, row, column, parent) -> bool:
        decoded = decode(data, MIME_KERNELS)
        return decoded is not None and decoded[0] == "preset"

    def dropMimeData(self, data, action, row, column, parent) -> bool:
        decoded = decode(data, MIME_KERNELS)
        if decoded is None or decoded[0] != "preset" or self._presets is None:
            return False
        kernels = [self._presets.kernels[i] for i in decoded[1] if i in self._presets.kernels]
        at = row if row >= 0 else (parent.row() if parent.isValid() else None)
        return bool(self._model.add_kernels(kernels, at)) if kernels else False
