"""The comparison table: one row per kernel, then one per workload; per shown chip,
attainable performance, time, limiter and speedup against the baseline chip. Numbers come from
the document model's comparison (the same core evaluation the canvas and the CSV use).

The model sorts itself (``sort``): the keys of a column come from the comparison's arrays in
one numpy call, so sorting 10,000 rows takes milliseconds, where a QSortFilterProxyModel asks
``data()`` for every cell of the column through Python (about 2 s at that size). Rows keep
their place while values change (a drag, an edit) and are sorted again when the user asks,
when kernels are added or removed, or when the chips change.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QColor

from roofline_gui.core.comparison import changed_rows
from roofline_gui.core.display import headed_names
from roofline_gui.core.energy import ITEM_WORDS, bound_signs
from roofline_gui.core.i18n import N_, _, ngettext
from roofline_gui.core.levels import (
    NO_LEVEL,
    ROLE_SHORT,
    intensity_text,
    residency_problem,
    role_intensities,
)
from roofline_gui.core.roofline import LIMITER_UNSUPPORTED
from roofline_gui.core.units import format_si, format_time
from roofline_gui.io.presets import Presets
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.models.item_models import ID_ROLE
from roofline_gui.models.mime import MIME_KERNELS, decode

Index = QModelIndex | QPersistentModelIndex
FIXED_COLUMNS = (N_("Kernel"), N_("Precision"), N_("Intensity"), N_("Measured"))
_DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole.value)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole.value)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole.value)
_ROLES_USED = frozenset((_DISPLAY, _TOOLTIP, _FOREGROUND, _ALIGNMENT, int(ID_ROLE)))
_HEADER_ROLES = frozenset((_DISPLAY, _TOOLTIP, _ALIGNMENT))
_RIGHT = int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)
_LEFT = int((Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter).value)
_GREY = QColor("#888888")
_RED = QColor("#b00020")  # a workload that does not fit in the chip's memory
CHIP_COLUMNS = ("attainable", "time", "limiter", "speedup", "energy")


class ComparisonTableModel(QAbstractTableModel):
    def __init__(self, model: DocumentModel, presets: Presets | None = None, parent=None) -> None:
        super().__init__(parent)
        self._model = model
        self._presets = presets
        #: the document the rows and columns were laid out for: between another document's
        #: arrival and this model's turn at the signal, a slot before it (the window's, clearing
        #: the status bar) could lay the table out, and the header asked for an old column's
        #: chip in the new document (IndexError, and shiboken crashed reporting it)
        self._doc = model.document
        self._shape = self._signature()
        base = model.document.baseline_chip
        self._baseline_index = model.document.chips.index(base) if base else None
        # Rows whose name changed, shown in the rows' header after a short pause: its update
        # repaints the whole table, which a drag (renaming its kernel at each step) cannot afford.
        self._renamed: set[int] = set()
        self._numbered: tuple = (None, None)  # (comparison, its rows' names headed: headed_names)
        self._rename_timer = QTimer(self)
        self._rename_timer.setSingleShot(True)
        self._rename_timer.setInterval(150)
        self._rename_timer.timeout.connect(self._show_renamed)
        self._sort: tuple[int, Qt.SortOrder] = (-1, Qt.SortOrder.AscendingOrder)
        self._order = np.arange(len(self._shape[0]))  # view row -> kernel index
        self._rank = self._order.copy()  # kernel index -> view row
        model.sig_document_changed.connect(self._on_document_changed)
        model.sig_view_changed.connect(self._on_view_changed)

    # -- structure ----------------------------------------------------------------------------
    def _signature(self):
        """(kernels, visible chip ids, their indices in the document): the rows and column
        groups. Kept as the kernel objects themselves so that an edit of one kernel of 10,000 is
        told from a change of rows by identity for all the others (see ``_same_rows``)."""
        doc = self._model.document
        shown = tuple(i for i, c in enumerate(doc.chips) if c.visible)
        return (doc.kernels, tuple(doc.chips[i].id for i in shown), shown,
                tuple(w.id for w in doc.workloads))

    @staticmethod
    def _same_rows(a, b) -> bool:
        if len(a[0]) != len(b[0]) or a[1] != b[1] or a[3] != b[3]:
            return False
        return all(a[0][i].id == b[0][i].id for i in changed_rows(a[0], b[0]))

    def _chip_columns(self) -> tuple[int, ...]:
        """Indices (into the document's chips) of the shown chips, in order: taken once per
        document change, not on each of the hundreds of data() calls of a repaint."""
        return self._shape[2]

    def _laid_out(self) -> bool:
        """Whether the rows and columns are the document's (not between its change and this
        model's turn at the signal, when every cell and header reads None)."""
        return self._model.document is self._doc

    def _on_document_changed(self, doc, touched) -> None:
        self._doc = doc
        base = doc.baseline_chip
        self._baseline_index = doc.chips.index(base) if base else None
        old_kernels = self._shape[0]
        shape = self._signature()
        same = self._same_rows(shape, self._shape)
        self._shape = shape
        if not same:
            self.beginResetModel()
            self._set_order(self._sort_keys(*self._sort))
            self.endResetModel()
            return
        kernel_rows = self._model.comparison.kernel_index
        workloads = self._shape[3]
        if touched and all(t in workloads for t in touched):  # a workload's edit or drag step
            last = self.columnCount() - 1
            for item_id in touched:
                row = len(self._shape[0]) + workloads.index(item_id)
                self.dataChanged.emit(self.index(row, 0), self.index(row, last))
                self.headerDataChanged.emit(Qt.Orientation.Vertical, row, row)
            return
        if touched is not None and touched and all(t in kernel_rows for t in touched):
            last = self.columnCount() - 1
            for item_id in touched:
                k = kernel_rows[item_id]
                row = int(self._rank[k])
                self.dataChanged.emit(self.index(row, 0), self.index(row, last))
                if k >= len(old_kernels) or old_kernels[k].name != self._shape[0][k].name:
                    self._renamed.add(row)
            if self._renamed and not self._rename_timer.isActive():
                self._rename_timer.start()
        elif self.rowCount() and self.columnCount():
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(self.rowCount() - 1, self.columnCount() - 1))
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, self.columnCount() - 1)
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, self.rowCount() - 1)

    def _show_renamed(self) -> None:
        rows, self._renamed = self._renamed, set()
        if rows and self.rowCount():
            self.headerDataChanged.emit(Qt.Orientation.Vertical, min(rows),
                                        min(max(rows), self.rowCount() - 1))

    def _on_view_changed(self, _view, changed) -> None:
        """Count MACs changes every rate and intensity shown (the model's units); B/F the
        intensities."""
        if not changed & {"mac", "bytes_per_op"}:
            return
        if self.rowCount() and self.columnCount():
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(self.rowCount() - 1, self.columnCount() - 1))
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, max(0, self.columnCount() - 1))

    def has_measurements(self) -> bool:
        """Whether any kernel carries a measurement (the view hides an all-empty Measured column)."""
        return bool(self._model.comparison.measured_rows)  # cached on the comparison

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        """One row per kernel (sortable), then one per workload (always last, in order)."""
        return 0 if parent.isValid() else len(self._shape[0]) + len(self._shape[3])

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(FIXED_COLUMNS) + len(CHIP_COLUMNS) * len(self._shape[1])

    def locate(self, column: int) -> tuple[int, str] | None:
        """(chip index in the document, field) for a chip column, None for a fixed one."""
        if column < len(FIXED_COLUMNS):
            return None
        offset = column - len(FIXED_COLUMNS)
        return self._chip_columns()[offset // len(CHIP_COLUMNS)], CHIP_COLUMNS[offset % len(CHIP_COLUMNS)]

    # -- sorting ------------------------------------------------------------------------------
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the rows by ``column`` (-1: the document's order), keeping the selection."""
        self._sort = (column, order)
        order_now = self._sort_keys(column, order)
        if np.array_equal(order_now, self._order):
            return
        self.layoutAboutToBeChanged.emit()
        old_order = self._order
        self._set_order(order_now)
        persistent = self.persistentIndexList()
        moved = [self.index(int(self._rank[old_order[p.row()]]), p.column()) for p in persistent]
        self.changePersistentIndexList(persistent, moved)
        self.layoutChanged.emit()

    def sort_column(self) -> tuple[int, Qt.SortOrder]:
        return self._sort

    def kernel_row(self, view_row: int) -> int:
        """The kernel index (into the document) shown at ``view_row`` (-1: a workload's row)."""
        return int(self._order[view_row]) if view_row < len(self._order) else -1

    def row_id(self, view_row: int) -> str | None:
        """The id of the kernel or workload at ``view_row``."""
        if view_row < len(self._order):
            return self._shape[0][int(self._order[view_row])].id
        w = view_row - len(self._order)
        return self._shape[3][w] if 0 <= w < len(self._shape[3]) else None

    def workload_view_row(self, workload_id: str) -> int | None:
        workloads = self._shape[3]
        return len(self._order) + workloads.index(workload_id) if workload_id in workloads else None

    def view_row(self, kernel_row: int) -> int:
        return int(self._rank[kernel_row])

    def _set_order(self, order: np.ndarray) -> None:
        self._order = order
        self._rank = np.empty_like(order)
        self._rank[order] = np.arange(len(order))

    def _sort_keys(self, column: int, order: Qt.SortOrder) -> np.ndarray:
        """The permutation (view row -> kernel index) that sorts by ``column``; stable, NaN last."""
        cmp = self._model.comparison
        n = len(cmp.kernels)
        descending = order == Qt.SortOrder.DescendingOrder
        if column < 0 or column >= self.columnCount() or n == 0:
            return np.arange(n)
        located = self.locate(column)
        if located is None and column < 2:
            texts = [k.name.casefold() if column == 0 else k.precision for k in cmp.kernels]
            return np.array(sorted(range(n), key=texts.__getitem__, reverse=descending), dtype=int)
        if located is not None and located[1] == "limiter":
            texts = [self._value(cmp, k, located[0], "limiter") for k in range(n)]
            return np.array(sorted(range(n), key=texts.__getitem__, reverse=descending), dtype=int)
        if located is None:
            key = (cmp.dram_intensity if column == 2 else
                   np.array([cmp.measured_rate(k) or math.nan for k in range(n)]))
        else:
            c, field = located
            r = cmp.result
            if field == "attainable":
                key = r.attainable[:, c]
            elif field == "time":
                key = r.time[:, c]
            elif field == "energy":
                key = cmp.energy.ops_per_joule[:, c]
            else:
                base = self._model.document.baseline_chip
                b = self._model.document.chips.index(base) if base else c
                with np.errstate(divide="ignore", invalid="ignore"):
                    key = r.attainable[:, c] / r.attainable[:, b]
        key = np.asarray(key, dtype=float)
        missing = ~np.isfinite(key)
        key = np.where(missing, 0.0, -key if descending else key)
        # Missing values (unsupported precision, no measurement) go last either way.
        return np.lexsort((key, missing))

    # -- data ---------------------------------------------------------------------------------
    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):
        role = int(role)
        if role not in _HEADER_ROLES or not self._laid_out():
            return None
        if orientation == Qt.Orientation.Vertical:
            return self._row_header(section, role)
        if role == _ALIGNMENT:
            return None
        unit = self._model.units.word
        if section < len(FIXED_COLUMNS):
            bf = self._model.view.bytes_per_op
            return (_("B/F\n(B/{unit})") if section == 2 and bf else
                    _("Intensity\n({unit}/B)") if section == 2 else
                    _("Measured\n({unit}/s)") if section == 3 else
                    _(FIXED_COLUMNS[section])).format(unit=unit)
        located = self.locate(section)
        if located is None:
            return None
        chip = self._model.document.chips[located[0]]
        field = located[1]
        base = self._model.document.baseline_chip
        if role == _TOOLTIP:
            tip = chip.name + ": " + {
                "attainable": _("attainable performance ({unit}/s)"),
                "time": _("time for the kernel's work at the attainable rate"),
                "limiter": _("the roof that limits the kernel (memory level or compute precision)"),
                "speedup": _("attainable performance ÷ {baseline}'s"),
                "energy": _("energy efficiency ({unit}/J) and average power at the operating "
                            "point; a workload's items per joule. ≥ and ≤: the chip's energies "
                            "are estimates from its board power, upper bounds on the joules, so "
                            "the efficiency is at least and the power at most the figure (Help → "
                            "User guide, Energy)")}[
                field].format(unit=unit, baseline=base.name if base else _("the baseline"))
            measured = chip.measured_notes() if field == "attainable" else []
            return "\n".join([tip, *measured])
        # The chip's whole name heads its first column; its other columns carry a short name
        # that tells the chips apart (the shortest start of each name that no other chip's
        # shares), so a table scrolled sideways still names the chip of every column, and the
        # columns stay about as narrow as their values. The tooltip gives the whole name.
        if field == "attainable":
            return f"{chip.name}\n{unit}/s"
        short = short_names(tuple(c.name for c in self._model.document.chips))[located[0]]
        return f"{short}\n" + {"time": _("time"), "limiter": _("limited by"),
                               "speedup": _("× baseline"), "energy": _("energy")}[field]

    def _row_header(self, section: int, role: int):
        """Each row is headed by its kernel's name, so the name stays in sight while the
        chips' columns scroll sideways (the Kernel column holds it too, for sorting and CSV)."""
        cmp = self._model.comparison
        if section >= len(cmp.kernels):
            return self._workload_header(section - len(cmp.kernels), role)
        if not 0 <= section < len(cmp.kernels):
            return None
        k = int(self._order[section])
        kernel = cmp.kernels[k]
        if role == _DISPLAY:
            # headed by its place in the session where the names carry no numbering of their
            # own: the chart names a kernel by it where its name has no room (kernel_tags)
            if self._numbered[0] is not cmp:
                self._numbered = (cmp, headed_names(k.name for k in cmp.kernels))
            headed = self._numbered[1]
            return headed[k] if headed is not None else f"{k + 1} · {kernel.name}"
        if role == _TOOLTIP:
            return f"{kernel.name}\n{kernel.source}" if kernel.source else kernel.name
        if role == _ALIGNMENT:
            return _LEFT
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        # A view asks each cell for a dozen roles on every repaint (a repaint while a worker
        # holds the GIL waits for it at each call): the unused ones return at once, compared
        # as plain ints.
        role = int(role)
        if role not in _ROLES_USED:
            return None
        if not index.isValid() or not self._laid_out():
            return None
        column = index.column()
        cmp = self._model.comparison
        if index.row() >= len(cmp.kernels):
            return self._workload_data(index.row() - len(cmp.kernels), column, role)
        row = int(self._order[index.row()])
        kernel = cmp.kernels[row]
        if role == ID_ROLE:
            return kernel.id
        located = self.locate(column)
        if located is None:
            return self._fixed(cmp, row, column, role)
        c, field = located
        if role == _DISPLAY:
            return self._format(field, self._value(cmp, row, c, field))
        if role == _TOOLTIP and field == "energy":
            from roofline_gui.core.energy import kernel_lines  # noqa: PLC0415

            return "\n".join(kernel_lines(cmp, row, c, self._model.units))
        if role == _TOOLTIP:
            bound = cmp.bound_name(row, c)
            return ((_("{kernel} on {chip}: memory-bound, limited by {limiter}") if bound == "memory"
                     else _("{kernel} on {chip}: compute-bound, limited by {limiter}")
                     if bound == "compute" else
                     _("{kernel} on {chip}: unsupported ({limiter})")).format(
                kernel=kernel.name, chip=cmp.chips[c].name, limiter=limiter_words(cmp, row, c)))
        if role == _FOREGROUND and int(cmp.result.limiter[row, c]) == LIMITER_UNSUPPORTED:
            return _GREY
        if role == _ALIGNMENT and field != "limiter":
            return _RIGHT
        return None

    # -- workload rows ---------------------------------------------------------------------------
    def _workload_header(self, w: int, role: int):
        from roofline_gui.core.workload import label_of  # noqa: PLC0415

        doc = self._model.document
        if not 0 <= w < len(doc.workloads):
            return None
        workload = doc.workloads[w]
        if role == _DISPLAY:
            return f"▣ {label_of(workload)}"
        if role == _TOOLTIP:
            return (_("Workload: {workload}").format(workload=label_of(workload))
                    + f"\n{workload.source}").strip()
        if role == _ALIGNMENT:
            return _LEFT
        return None

    def _workload_data(self, w: int, column: int, role: int):
        from roofline_gui.core.units import rate_count, share_text  # noqa: PLC0415
        from roofline_gui.core.workload import label_of  # noqa: PLC0415
        from roofline_gui.core.workload_view import fit_line  # noqa: PLC0415

        doc = self._model.document
        if not 0 <= w < len(doc.workloads):
            return None
        workload = doc.workloads[w]
        if role == ID_ROLE:
            return workload.id
        result = self._model.workload_result(workload.id)
        units = self._model.units
        located = self.locate(column)
        if result is None:  # it does not build (a kernel it names was removed, say)
            if role == _DISPLAY and column == 0:
                return f"▣ {workload.name}"
            if role == _TOOLTIP:
                return self._model.workload_problems.get(workload.id, "")
            return _GREY if role == _FOREGROUND else None
        if located is None:
            if role == _DISPLAY:
                if column == 0:
                    return f"▣ {workload.name}"
                if column == 1:
                    return (workload.activations if workload.weights == workload.activations
                            else f"{workload.weights} weights, {workload.activations}")
                if column == 2:
                    return self._intensity_cell(float(result.intensity))
                return ""
            if role == _TOOLTIP:
                return ("Aggregate intensity: total ops ÷ total main-memory bytes of a step"
                        if column == 2 else label_of(workload))
            return _RIGHT if role == _ALIGNMENT and column >= 2 else None
        c, field = located
        t = float(result.time[c])
        if role == _FOREGROUND and not np.isfinite(t):
            return _GREY
        if role == _ALIGNMENT and field != "limiter":
            return _RIGHT
        fits = bool(result.fits[c]) or not np.isfinite(result.built.resident_bytes)
        if role == _TOOLTIP and field == "energy":
            from roofline_gui.core.energy import workload_lines  # noqa: PLC0415

            return "\n".join(workload_lines(result, c, doc.carbon_intensity))
        if role == _TOOLTIP:
            fit = fit_line(result, c)
            return _("{workload} on {chip}: {rate} {unit}, {time} per step; aggregate rate = "
                     "total ops ÷ time; {share} of the time memory-bound").format(
                workload=label_of(workload), chip=doc.chips[c].name,
                rate=rate_count(float(result.throughput[c])), unit=_(workload.throughput_unit),
                time=format_time(t), share=share_text(float(result.memory_bound_share[c]))) + (
                f"\n{fit}" if fit else "")
        if role == _FOREGROUND and not fits:
            return _RED
        if role != _DISPLAY:
            return None
        if not np.isfinite(t):
            return "—" if field != "limiter" else _("unsupported")
        if field == "attainable":
            return format_si(units.rate(float(result.attainable[c])), f"{units.word}/s")
        if field == "time":  # a step's time, and what it gives per second
            return (f"{format_time(t)} · {rate_count(float(result.throughput[c]))} "
                    f"{_(workload.throughput_unit)}")
        if field == "limiter":
            return result.limiter_name(c, shown=True) + ("" if fits else " · " + _("does not fit"))
        if field == "energy":
            e = result.energy
            if not np.isfinite(e.per_item[c]):
                return _("no data")
            item = workload.throughput_unit.removesuffix("/s").rstrip("s")  # "token"
            items = _(ITEM_WORDS.get(item, item))
            at_least, at_most = bound_signs(doc.chips[c], workload.activations)
            text = _("{count} {items}/J · {power}").format(
                count=f"{at_least}{float(e.items_per_joule[c]):,.4g}", items=items,
                power=at_most + format_si(float(e.average_power[c]), "W"))
            if np.isfinite(e.cost_per_million[c]):  # ("per M tokenss": the tour's table)
                text += " · " + _("${cost} per million {items}").format(
                    cost=f"{float(e.cost_per_million[c]):,.3g}", items=items)
            return text
        b = self._baseline_index if self._baseline_index is not None else c
        speedup = float(result.time[b] / t)
        return "—" if math.isnan(speedup) else f"{speedup:.3g}×"

    def _fixed(self, cmp, row: int, column: int, role: int):
        kernel = cmp.kernels[row]
        if role == _DISPLAY:
            if column == 2:
                text = self._intensity_cell(float(cmp.dram_intensity[row]))
                levels = len(role_intensities(cmp, row))
                return text if levels <= 1 else ngettext(
                    "{value} (+{n} level)", "{value} (+{n} levels)", levels - 1).format(
                    value=text, n=levels - 1)
            if column == 3:
                measured = cmp.measured_rate(row)
                text = format_si((measured or math.nan) / self._model.units.ops_per_unit,
                                 f"{self._model.units.word}/s")
                return f"⚠ {text}" if self._above_roof(cmp, row) else text
            return kernel.name if column == 0 else kernel.precision
        if role == _FOREGROUND and column == 3 and self._above_roof(cmp, row):
            return _RED
        if role == _TOOLTIP:
            if column == 3:
                return self._measured_tip(cmp, row)
            if column == 2:
                return self._intensity_tip(cmp, row)
            return f"{kernel.name}\n{kernel.source}" if kernel.source else kernel.name
        if role == _ALIGNMENT and column >= 2:
            return _RIGHT
        return None

    def _intensity_cell(self, ops_per_byte: float) -> str:
        """An intensity in the shown units, or read as bytes per op (View → Intensity as B/F)."""
        x = ops_per_byte / self._model.units.ops_per_unit
        if self._model.view.bytes_per_op:
            return f"{1 / x:,.4g}" if x > 0 else "∞"
        return f"{x:,.4g}"

    def _above_roof(self, cmp, row: int) -> list[str]:
        """The shown chips whose roof the kernel's measured point is above."""
        if cmp.measured_rate(row) is None:
            return []
        from roofline_gui.core.diagnose import above_roof  # noqa: PLC0415

        return [cmp.chips[c].name for c in self._chip_columns() if above_roof(cmp, row, c)]

    def _intensity_tip(self, cmp, row: int) -> str:
        """Every level's intensity, and on each shown chip the level (or peak) that limits."""
        units = self._model.units
        lines = [intensity_text(cmp, row, units)]
        lines += [_("{chip}: limited by {limiter}").format(chip=cmp.chips[c].name,
                                                           limiter=limiter_words(cmp, row, c))
                  for c in self._chip_columns()]
        return "\n".join(lines)

    def _measured_tip(self, cmp, row: int) -> str:
        above = self._above_roof(cmp, row)
        lines = ([f"Above its roof on {', '.join(above)}: a figure is wrong; the explanation "
                  "checks the usual causes"] if above else [])
        for c in self._chip_columns():
            rate, percent = cmp.measured(row, c)
            if rate is not None and percent is not None:
                lines.append(f"{percent:.3g}% of the {cmp.chips[c].name} roof")
        return "\n".join(lines) or "No measurement: run it on this computer or import one"

    def _value(self, cmp, row: int, c: int, field: str):
        r = cmp.result
        if field == "attainable":
            return float(r.attainable[row, c]) / self._model.units.ops_per_unit
        if field == "time":
            return r.cell("time", row, c)
        if field == "energy":
            if not np.isfinite(r.attainable[row, c]):  # it cannot run there: no energy either,
                return (math.nan, math.nan, False, True, ("", ""))  # not missing energy data
            e = cmp.energy_of(row)
            return (float(e.ops_per_joule[0, c]) / self._model.units.ops_per_unit,
                    float(e.capped_power[0, c]), bool(e.capped[0, c]), False,
                    bound_signs(cmp.chips[c], cmp.stand_in(row, c) or cmp.kernels[row].precision))
        if field == "limiter":
            bound = cmp.bound_name(row, c)
            name = limiter_words(cmp, row, c)
            stand_in = cmp.stand_in(row, c)
            note = (" · " + _("{stand_in} for {precision}").format(
                stand_in=stand_in, precision=cmp.kernels[row].precision)
                if stand_in and bound == "memory" else "")
            # a chip with no on-chip level holds nothing there: not "does not fit" (the sixth
            # tour read that of the V100 and the B200)
            problem = residency_problem(cmp.kernels[row], cmp.chips[c])
            if problem:
                note += " · " + (_("no on-chip level") if problem == NO_LEVEL else
                                 _("does not fit on chip"))
            if bound == "unsupported":
                return name
            if bound != "memory":
                return _("{limiter} (compute)").format(limiter=name) + note
            # a link said as the explanation says it ("PCIe Gen4 x16 (host link)": the table's
            # "(memory)" there had read as another answer: the nineteenth tour)
            role = cmp.limiting_level(row, c).role
            return (_("{limiter} ({role})").format(limiter=name, role=_(ROLE_SHORT[role]))
                    if role in ("host", "link") else
                    _("{limiter} (memory)").format(limiter=name)) + note
        b = self._baseline_index if self._baseline_index is not None else c
        return float(r.attainable[row, c] / r.attainable[row, b])

    def _format(self, field: str, value) -> str:
        if field == "attainable":
            return format_si(value, f"{self._model.units.word}/s")
        if field == "time":
            return format_time(value)
        if field == "speedup":
            return "—" if math.isnan(value) else f"{value:.3g}×"
        if field == "energy":
            per_joule, power, capped, unsupported, (at_least, at_most) = value
            if unsupported:
                return "—"  # the tour read "no data" beside "unsupported", as if data were missing
            if not math.isfinite(per_joule):
                return _("no data")
            return (f"{at_least}{format_si(per_joule, f'{self._model.units.word}/J')} · "
                    f"{at_most}{format_si(power, 'W')}" + (" · " + _("capped") if capped else ""))
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
        view_row = row if row >= 0 else (parent.row() if parent.isValid() else -1)
        at = self.kernel_row(view_row) if 0 <= view_row < self.rowCount() else None
        at = None if at is not None and at < 0 else at  # dropped on a workload's row: the end
        return bool(self._model.add_kernels(kernels, at)) if kernels else False


def limiter_words(cmp, k: int, c: int) -> str:
    """What limits kernel ``k`` on chip ``c`` as the table says it in the interface's language
    (Comparison.limiter_name's English words are the CSV's, the same in every language)."""
    code = int(cmp.result.limiter[k, c])
    precision = cmp.kernels[k].precision
    if code == LIMITER_UNSUPPORTED:
        return _("no {precision} on this chip").format(precision=precision)
    if code < 0:  # compute
        stand_in = cmp.stand_in(k, c)
        return (_("{stand_in} peak (for {precision})") if stand_in else
                _("{precision} peak")).format(stand_in=stand_in, precision=precision)
    return cmp.limiting_level(k, c).name


@functools.lru_cache(maxsize=8)  # asked for every header of every repaint
def short_names(names: tuple[str, ...]) -> tuple[str, ...]:
    """Each name's shortest start of two words or more that no other name starts with the same:
    "A100 SXM4", "TPU v3", "V100 SXM2 16GB" and "V100 SXM2 32GB" (a name that is the start of
    another stays whole)."""
    words = [n.split() for n in names]

    def start(w: list[str], k: int) -> str:  # a what-if's "H100 SXM5 80GB, HBM3 ×2" read
        return " ".join(w[:k]).rstrip(",;:")  # "H100 SXM5 80GB," beside the H100 itself

    out = []
    for i, w in enumerate(words):
        for k in range(min(2, len(w)), len(w) + 1):
            cut = start(w, k)
            if cut.count("(") > cut.count(")") or cut.count("（") > cut.count("）"):
                continue  # not inside a parenthesis ("M2 (10-core" of "M2 (10-core GPU)":
                # the twenty-fourth tour)
            if not any(start(o, k) == cut for j, o in enumerate(words) if j != i):
                # past a comma (a what-if's "…, HBM2 ×2"): whole, or it reads as the chip it
                # came from, its factor cut off (the second tour)
                comma = any(word.endswith(",") for word in w[:k - 1])
                out.append(names[i] if comma else cut)
                break
        else:
            out.append(names[i])
    return tuple(out)
