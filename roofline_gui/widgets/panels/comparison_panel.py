"""The comparison table (kernels × chips, speedup against a baseline chip) and the explanation
pane that says in words and numbers why the selected kernel sits where it does."""

from __future__ import annotations

import os

from PySide6.QtCore import QEvent, QSize, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QStyle,
    QStyleOptionHeader,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from roofline_gui.core.display import split_numbering
from roofline_gui.core.edits import SetField
from roofline_gui.core.explain import explain
from roofline_gui.core.i18n import _, tidy
from roofline_gui.io.presets import Presets
from roofline_gui.models.comparison_model import ComparisonTableModel
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.models.item_models import ID_ROLE
from roofline_gui.widgets.common.application import set_tip
from roofline_gui.widgets.common.text_keys import keep_text_keys
from roofline_gui.widgets.common.throttle import Throttle


def _escape(text: str) -> str:
    """``html.escape`` for element text, without importing ``html`` (and its table of 2,231
    named entities, a few ms) on the start-up path."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


#: what ends a word in a name: a space, a Japanese comma
WORD_BREAKS = (" ", "、")


class NameHeader(QHeaderView):
    """The rows' header (the kernels' names) at the width ``fit_columns`` measured: Qt's own
    size hint reads every row's name through the Python model again after each change of a
    name (a drag renames its kernel), which with 10,000 kernels blocked the window."""

    def __init__(self, parent=None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.fitted_width = 80
        self._elided_for: tuple = (None, {})  # ((names, width), {name: shown}) last worked out

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return QSize(self.fitted_width, self.defaultSectionSize())

    def shown_text(self, name: str, width: int, shown: tuple[str, ...] | None = None) -> str:
        """``name`` as it fits ``width``: elided in the middle, unless that would read the same
        as another shown row's (the tour saw three rows of "ResNet-50 …512, 8 chips": they
        differed in the middle); then the start it shares with its nearest row gives way to
        "…". ``shown``: the names in sight (default: the rows the header shows)."""
        if self.fontMetrics().horizontalAdvance(name) <= width:
            return name
        names = self._shown_names() if shown is None else shown
        return self._elided(names, width).get(name) or self._elided((*names, name), width)[name]

    def _elided(self, names: tuple[str, ...], width: int) -> dict[str, str]:
        """Every shown name as shown at ``width``, worked out once for the same rows and width
        (each section's paint asks, and a drag step repaints them all)."""
        key = (names, width)
        if self._elided_for[0] != key:
            self._elided_for = (key, self._elide(names, width))
        return self._elided_for[1]

    def _elide(self, names: tuple[str, ...], width: int) -> dict[str, str]:
        metrics = self.fontMetrics()

        def middle(text: str) -> str:
            return metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, width)

        first = {n: middle(n) for n in set(names)}
        # Past a numbering ("4a · "): "4a · TPU v1 …をチップ上に（int8）" and "4b · TPU v1
        # …をチップ上に（int8）" told apart by their numbers alone read alike (the Japanese
        # article's rows)
        split = {n: split_numbering(n) for n in first}
        out = {}
        for name, mine in first.items():
            others = [n for n in first if n != name]
            if metrics.horizontalAdvance(name) <= width or not others:
                out[name] = name if metrics.horizontalAdvance(name) <= width else mine
                continue
            lead, body = split[name]
            bodies = [split[n][1] for n in others if split[n][1] != body]
            if not bodies:  # the same but for the numbering: that tells them apart
                out[name] = mine
                continue
            cut = max(len(os.path.commonprefix([body, b])) for b in bodies)
            # the first differing word, between spaces or Japanese commas ("fp32" of "…の学習、
            # fp32 · …": the whole "の学習、fp32" had been cut in its middle, the 38th tour)
            start = len(lead) + max(body.rfind(sep, 0, cut) for sep in WORD_BREAKS) + 1
            ends = [i for i in (body.find(sep, cut) for sep in WORD_BREAKS) if i >= 0]
            end = len(lead) + min(ends) if ends else len(name)
            def keeping(text: str, room: float, word_there: str = name[start:end]) -> str:
                """``text`` cut in its middle to ``room``, else at its end where the middle
                cut takes the differing word."""
                cut_text = metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, room)
                return cut_text if word_there in cut_text else metrics.elidedText(
                    text, Qt.TextElideMode.ElideRight, room)
            # Kept where the elision left that word whole, at either end ("Llama-3… L = 2048"
            # and "Llama-3… S = 2048" had cut out "decode" and "prefill": the tour).
            head, _dots, tail = mine.partition("…")
            kept = end <= len(head) or start >= len(name) - len(tail)
            alike = any(split_numbering(first[n])[1] == split_numbering(mine)[1] for n in others)
            if not alike and (kept or start == len(lead)):
                out[name] = mine
                continue
            # its first word kept before the "…" where there is room: what kind of kernel it is
            # ("9 · …bf16, inputs over the host link" had lost "GEMM": the twentieth tour)
            # (a workload's "▣" with the word after it: "▣ …デコード · …L = 2048" had lost the
            # model, "Llama-3-8B", in the Japanese table: the 37th tour)
            words = body.split(" ")
            n = next((i for i, w in enumerate(words) if any(ch.isalnum() for ch in w)), 0)
            word = " ".join(words[:n + 1])
            heads = ([lead + word + " "] if start > len(lead) + len(word) else []) + [lead]
            # (cut at its end where nothing else fits: the word it differs in first; cut in
            # the middle, the three Japanese ResNet-50 rows had read "▣ ResNet-50 …の…ップ",
            # the 38th tour)
            out[name] = metrics.elidedText("…" + name[start:], Qt.TextElideMode.ElideRight,
                                           width)
            # else, where its first word leaves too little room, its start through the first
            # word it differs in ("▣ Llama-3-8B デコード…": the rest in the tooltip)
            upto = name[:end].rstrip(" ·,、")
            through = metrics.elidedText(upto, Qt.TextElideMode.ElideMiddle,
                                         width - metrics.horizontalAdvance("…")) + "…"
            if not through.removesuffix("…").endswith(name[start:end].rstrip(" ·,、")):
                through = name  # (no room for the word: never taken, wider than ``width``)
            for head in heads:
                room = width - metrics.horizontalAdvance(head)
                if room > width / 2:
                    out[name] = head + keeping("…" + name[start:], room)
                    break
                if head != lead and metrics.horizontalAdvance(through) <= width:
                    out[name] = through
                    break
        return out

    def _shown_names(self) -> tuple[str, ...]:
        """The names of the rows in sight. Only those are read: a drag renames its kernel at
        every step, and reading 10,000 names through Python each time blocked the window."""
        model = self.model()
        if model is None or not model.rowCount():
            return ()
        first = max(0, self.logicalIndexAt(0))
        last = self.logicalIndexAt(self.viewport().height() - 1)
        last = model.rowCount() - 1 if last < 0 else last
        return tuple(str(model.headerData(i, Qt.Orientation.Vertical) or "")
                     for i in range(first, last + 1))

    def paintSection(self, painter, rect, index: int) -> None:  # noqa: N802 (Qt API)
        model = self.model()
        name = model.headerData(index, Qt.Orientation.Vertical) if model is not None else None
        if not name:
            super().paintSection(painter, rect, index)
            return
        option = QStyleOptionHeader()
        self.initStyleOptionForIndex(option, index)
        option.rect = rect
        option.textAlignment = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        option.text = self.shown_text(str(name), rect.width() - 2 * self.style().pixelMetric(
            QStyle.PixelMetric.PM_HeaderMargin, option, self) - 2)
        painter.save()
        self.style().drawControl(QStyle.ControlElement.CE_Header, option, painter, self)
        painter.restore()


class ColumnHeader(QHeaderView):
    """The columns' header: each line of a label too wide for its column (a what-if's long
    name, after the user narrowed it) elided in the middle, so both its start and its end stay
    in sight (Qt clipped a centred two-line label at both ends: "uned (HBM 4 TB/s, 1.2 GHz)
    (w", the tour). The tooltip names the chip whole."""

    def __init__(self, parent=None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setSectionsClickable(True)  # as QTableView's own header (sorting by a column)
        self.setHighlightSections(True)

    def shown_text(self, text: str, width: int) -> str:
        """``text`` as it fits ``width``: each line too wide elided in the middle, measured in
        bold (the selected chip's header is drawn bold: measured in the plain font, it still
        ran past both ends, "nstinct MI…X (what-if": the second tour)."""
        bold = QFont(self.font())
        bold.setBold(True)
        metrics, lines = QFontMetrics(bold), text.split("\n")
        if all(metrics.horizontalAdvance(line) <= width for line in lines):
            return text
        return "\n".join(metrics.elidedText(line, Qt.TextElideMode.ElideMiddle, max(width, 0))
                         for line in lines)

    def paintSection(self, painter, rect, index: int) -> None:  # noqa: N802 (Qt API)
        option = QStyleOptionHeader()
        self.initStyleOptionForIndex(option, index)
        option.text = self.shown_text(option.text, rect.width() - 2 * self.style().pixelMetric(
            QStyle.PixelMetric.PM_HeaderMargin, option, self) - 2)
        option.rect = rect
        painter.save()
        self.style().drawControl(QStyle.ControlElement.CE_Header, option, painter, self)
        painter.restore()


class ComparisonTable(QWidget):
    FIT_ROWS = 25  # rows measured when the columns are fitted to their contents
    KERNEL_COLUMN_EM = 16  # the Kernel column's widest fit, in font heights; the rest is elided
    MEASURED_COLUMN = 3

    def __init__(self, model: DocumentModel, presets: Presets, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.table_model = ComparisonTableModel(model, presets, self)
        self.view = QTableView()
        self.view.setHorizontalHeader(ColumnHeader(self.view))
        self.view.setModel(self.table_model)  # the model sorts itself (numpy keys, no proxy)
        # Document order until the user clicks a header (setSortingEnabled would sort by the
        # header's current indicator, column 0, at once).
        self.view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.view.setSortingEnabled(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.DropOnly)
        self.view.setAcceptDrops(True)
        self.view.setWordWrap(False)
        # Columns are sized to their contents once per change of rows or chips (ResizeToContents
        # would re-measure every cell on every edit, drag steps included), from 25 rows at most.
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        # After a reset (a new document, chips added) on the next turn of the event loop: the
        # reset itself, the chart's redraw and the first paint come first.
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.timeout.connect(self.fit_columns)
        self.table_model.modelReset.connect(lambda: self._fit_timer.start(0))
        # Compact rows (text height plus a little air) so a laptop screen shows most kernels.
        # The kernel's name heads its row and stays in sight while the chips' columns scroll;
        # long names are elided in the middle (the batch or size and the precision are at the
        # end), whole in the tooltip.
        rows = NameHeader(self.view)
        self.view.setVerticalHeader(rows)
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.view.fontMetrics().height() + 6)
        rows.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        rows.setMaximumWidth(self.KERNEL_COLUMN_EM * self.view.fontMetrics().height())
        rows.setSectionsClickable(True)
        rows.sectionClicked.connect(self._on_row_header_clicked)
        self.view.setColumnHidden(0, True)
        self._names_width = 80  # the longest name's width, as fit_columns measured it
        self.view.installEventFilter(self)
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.view.clicked.connect(self._on_clicked)
        # the arrow keys move the current cell: it selects as a click does (the tour moved to
        # the TPU v3's column and "Why it sits there" still told of the A100)
        self.view.selectionModel().currentChanged.connect(
            lambda current, _previous: current.isValid() and self._on_clicked(current))
        self.baseline = QComboBox()
        set_tip(self.baseline, _("Speedups are attainable performance ÷ the baseline chip's"))
        self.baseline.activated.connect(self._on_baseline_chosen)
        # wide enough for a chip's name (it showed "A100 SX": the tour)
        self.baseline.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.baseline.setMinimumContentsLength(12)
        top = QHBoxLayout()
        top.addWidget(QLabel(_("Speedup against")))
        top.addWidget(self.baseline)
        top.addStretch()
        top.addWidget(QLabel(_("Drop kernels here to add them")))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(top)
        layout.addWidget(self.view)
        model.sig_document_changed.connect(self._fill_baseline)
        model.sig_document_changed.connect(self._show_measured)
        # Count MACs changes every value's width; a workload added or removed adds a row.
        model.sig_view_changed.connect(self._on_view_changed)
        model.sig_document_changed.connect(self._refit_for_workloads)
        model.sig_document_changed.connect(self._from_first_column)
        model.sig_selection_changed.connect(self._follow_selection)
        self._fill_baseline(model.document, None)
        self.fit_columns()
        self._follow_selection(model.selected_kernel, model.selected_chip)

    #: Up to this many chips each chip's columns are measured (values differ in width between
    #: chips); beyond, the first chip's widths serve for all.
    MEASURE_EACH_CHIP = 8

    def _from_first_column(self, _doc, touched) -> None:
        """Another document: from its first column (the tour found the last one's sideways
        scroll kept, the Precision and Intensity columns out of sight)."""
        if touched is None:
            self.view.horizontalScrollBar().setValue(0)

    def _refit_for_workloads(self, doc, _touched) -> None:
        if len(doc.workloads) != getattr(self, "_workload_rows", 0):
            self._workload_rows = len(doc.workloads)
            self._fit_timer.start(0)

    def fit_columns(self) -> None:
        """Size the columns to their contents: the widest of the first FIT_ROWS rows' texts or
        the header. The fixed columns and the first chip's are measured; every other chip's
        column takes the width of the first chip's column of the same kind or its own header's,
        whichever is wider. Texts are measured with the font's metrics, as the item delegate
        does, from one DisplayRole call per cell (``resizeColumnToContents`` asked the Python
        model for every role of every cell at each reset: docs/performance.md)."""
        table, view = self.table_model, self.view
        header = view.horizontalHeader()
        metrics = view.fontMetrics()
        # The delegate's text margins (focus frame + 1 on each side) and a little air.
        margin = 2 * (view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1) + 8
        kernels = len(self.model.document.kernels)
        # The first rows, and every workload row (after the kernels, a few).
        rows = [*range(min(self.FIT_ROWS, kernels)), *range(kernels, table.rowCount())]
        measured: dict[str, int] = {}
        each_chip = len(self.model.document.chips) <= self.MEASURE_EACH_CHIP
        self._show_measured()
        for column in range(table.columnCount()):
            located = table.locate(column)
            if located is not None and located[1] in measured and not each_chip:
                width = measured[located[1]]
            else:
                texts = (table.data(table.index(row, column)) for row in rows)
                width = max((metrics.horizontalAdvance(str(t)) for t in texts if t is not None),
                            default=0) + margin
                if located is not None:
                    measured[located[1]] = max(width, measured.get(located[1], 0))
            # The header decides where it names the chip (a chip's first column, see the model's
            # headerData); elsewhere a column is as wide as its values or its one-word label.
            width = max(width, header.sectionSizeHint(column))
            if column == 0:  # long names are elided (the tooltip has them whole)
                self._names_width = max(width, metrics.horizontalAdvance(_("Kernel")) + margin)
            view.setColumnWidth(column, width)
        self._fit_names()

    def _fit_names(self) -> None:
        """The names' header as wide as the longest name where the table has the room beside
        the chips' columns, else KERNEL_COLUMN_EM font heights (the rest elided: the tooltip
        has them whole). The tour saw workload names elided with the table half empty."""
        view = self.view
        whole = self._names_width
        columns = sum(view.columnWidth(c) for c in range(self.table_model.columnCount())
                      if not view.isColumnHidden(c))
        room = (view.width() - 2 * view.frameWidth() - columns
                - (view.verticalScrollBar().sizeHint().width()
                   if view.verticalScrollBar().isVisible() else 0))
        width = min(whole, max(self.KERNEL_COLUMN_EM * view.fontMetrics().height(), room))
        names = view.verticalHeader()
        if names.fitted_width != width:
            names.fitted_width = width
            names.setMaximumWidth(max(width, self.KERNEL_COLUMN_EM * view.fontMetrics().height()))
            names.updateGeometry()
            view.updateGeometries()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt API)
        if watched is self.view and event.type() == QEvent.Type.Resize:
            self._fit_names()  # wider: the names that were cut may fit whole now
        return super().eventFilter(watched, event)

    def _show_measured(self, doc=None, touched=None) -> None:
        """The Measured column only when some kernel carries a measurement. After an edit of a
        few kernels (a drag step) only those are looked at while the column is hidden."""
        hidden_now = self.view.isColumnHidden(self.MEASURED_COLUMN)
        if touched and hidden_now and doc is not None:
            cmp = self.model.comparison
            kernels = [cmp.kernels[cmp.kernel_index[i]] for i in touched if i in cmp.kernel_index]
            if not any(k.is_measured for k in kernels):
                return
        hidden = not self.table_model.has_measurements()
        if self.view.isColumnHidden(self.MEASURED_COLUMN) != hidden:
            self.view.setColumnHidden(self.MEASURED_COLUMN, hidden)

    def _fill_baseline(self, doc, _touched) -> None:
        self.baseline.blockSignals(True)
        self.baseline.clear()
        for chip in doc.chips:
            self.baseline.addItem(chip.name, chip.id)
        base = doc.baseline_chip
        self.baseline.setCurrentIndex(self.baseline.findData(base.id) if base else -1)
        self.baseline.blockSignals(False)

    def _on_baseline_chosen(self, index: int) -> None:
        chip_id = self.baseline.itemData(index)
        self.model.push(SetField("baseline", chip_id), _("Make {chip} the baseline").format(
            chip=self.baseline.itemText(index)))

    def _follow_selection(self, kernel_id, chip_id) -> None:
        """The selected kernel's row (at the selected chip's value) is highlighted and scrolled
        into view, wherever it was selected."""
        cmp, table = self.model.comparison, self.table_model
        if not table.rowCount():
            return
        if kernel_id in cmp.kernel_index:
            row = table.view_row(cmp.kernel_index[kernel_id])
        elif (row := table.workload_view_row(kernel_id)) is None:
            return
        chip = cmp.chip_index.get(chip_id, 0)
        current = self.view.currentIndex()
        located = table.locate(current.column()) if current.isValid() else None
        if current.row() == row and (located is None or located[0] == chip):
            # the current cell already stands for it (the arrow keys brought it to another of
            # the chip's columns, or to Precision: it stays there, not back to op/s)
            QTimer.singleShot(0, self.view, lambda: self.view.scrollTo(self.view.currentIndex()))
            return
        column = next((c for c in range(table.columnCount()) if table.locate(c) == (chip, "attainable")), 1)
        index = table.index(row, column)
        if self.view.currentIndex() != index:
            self.view.selectionModel().setCurrentIndex(
                index, self.view.selectionModel().SelectionFlag.ClearAndSelect)
        # After the view has laid out this change (rows or columns may just have come).
        QTimer.singleShot(0, self.view, lambda: self.view.scrollTo(self.view.currentIndex()))

    def _on_row_header_clicked(self, row: int) -> None:
        item_id = self.table_model.row_id(row)
        if item_id is not None:
            self.model.select(item_id, self.model.selected_chip)

    def _on_clicked(self, index) -> None:
        kernel_id = index.data(ID_ROLE)
        located = self.table_model.locate(index.column())
        chip_id = self.model.document.chips[located[0]].id if located else None
        self.model.select(kernel_id, chip_id)

    def _on_view_changed(self, _view, changed) -> None:
        if changed & {"mac", "bytes_per_op"}:  # the units in the headers: fit the columns again
            self._fit_timer.start(0)


class ExplanationPane(QTextBrowser):
    """Why the selected kernel (or workload) sits where it does on the selected chip, and what
    would move it."""

    def __init__(self, model: DocumentModel, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.setOpenExternalLinks(False)
        # A workload's explanation works out what batch and precision would do (three more
        # evaluations): during a drag of its point it follows at most every 40 ms.
        self._later = Throttle(self, self.refresh)
        model.sig_document_changed.connect(self._on_document_changed)
        model.sig_view_changed.connect(self._on_view_changed)
        model.sig_selection_changed.connect(self._on_selection)
        keep_text_keys(self)  # Ctrl+A and Ctrl+C select and copy the words, not kernels
        self.refresh()

    def _on_document_changed(self, doc, touched) -> None:
        if self.model.serving_only:  # the Serving view's settings alone: nothing here moved
            return
        # Edits of workloads or chips come at a drag's pace (a workload's point, a roof): the
        # words follow at most every 40 ms; anything else (a kernel, a new document) at once.
        if touched and touched <= {w.id for w in doc.workloads} | {c.id for c in doc.chips}:
            self._later.request()
            return
        self.refresh()

    @property
    def pending(self) -> bool:
        return self._later.pending

    def _on_view_changed(self, _view, changed) -> None:
        if changed & {"mac", "bytes_per_op"}:
            self.refresh()

    def _on_selection(self, *_args) -> None:
        self.refresh()

    def refresh(self) -> None:
        cmp = self.model.comparison
        selected = self.model.selected_kernel
        k = cmp.kernel_index.get(selected)
        c = cmp.chip_index.get(self.model.selected_chip)
        workload = self.model.workload_result(selected)
        if c is None and (k is not None or workload is not None):
            # No chip picked yet: the first shown chip, rather than an empty panel (a workload
            # picked in its list, or one chip in the session, says nothing of a chip).
            c = next((i for i, chip in enumerate(cmp.chips) if chip.visible), None)
        if selected in self.model.workload_problems:
            self.setHtml("<p><b>{}</b> {}</p>".format(
                _escape(_("This workload cannot be evaluated:")),
                _escape(self.model.workload_problems[selected])))
            return
        if (k is None and workload is None) or c is None:
            self.setHtml("<p>" + _escape(_("Select a kernel or a workload (click a marker or a "
                                           "table cell) and a chip.")) + "</p>")
            return
        if workload is not None:
            from roofline_gui.core.workload_view import explain_workload  # noqa: PLC0415

            lines = explain_workload(workload, c, self.model.units,
                                     self.model.document.kernels_by_id,
                                     self.model.document.carbon_intensity)
        else:
            lines = explain(cmp, k, c, self.model.units)
        lines = [tidy(line) for line in lines]
        body = [f"<p><b>{_escape(lines[0])}</b></p>"]
        bullets: list[str] = []  # a run of "• " lines is one list, where it stands in the text
        for line in [*lines[1:], ""]:
            if line.startswith("• "):
                bullets.append(f"<li>{_escape(line[2:])}</li>")
                continue
            if bullets:
                body.append("<ul>" + "".join(bullets) + "</ul>")
                bullets = []
            if line:
                body.append(f"<p>{_escape(line)}</p>")
        self.setHtml("".join(body))

    def plain_text(self) -> str:
        return self.toPlainText()


if __name__ == "__main__":
    import sys

    from roofline_gui.widgets.common.preview import preview

    sys.exit(preview(lambda model, presets: ComparisonTable(model, presets)))
