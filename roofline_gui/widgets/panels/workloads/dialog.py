"""New Workload: from a shipped example, a ``config.json`` opened from disk (nothing is
downloaded) or the session's own kernels, with a live preview of its kernels."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from roofline_gui.core.build import build
from roofline_gui.core.errors import RooflineError, ValidationError
from roofline_gui.core.i18n import _
from roofline_gui.core.workload import (
    Workload,
    with_field,
)
from roofline_gui.io.workloads import shipped_folder, shipped_workloads, workload_from_config
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.widgets.common.application import set_tip
from roofline_gui.widgets.panels.workloads.fields import WorkloadFields
from roofline_gui.widgets.panels.workloads.formulas import entries_html


class ConfigDialogs:
    """The file dialog of Open config.json…, replaceable in tests."""

    @classmethod
    def open_path(cls, parent: QWidget, folder: str) -> str:
        return QFileDialog.getOpenFileName(parent, _("Open a model's config.json"), folder,
                                           _("Model config (*.json);;All files (*)"))[0]


class WorkloadDialog(QDialog):
    """A new workload, previewed live as its source and fields change."""

    CUSTOM = "The session's kernels (counts below)"
    last_folder: Path | None = None  # where a config.json was picked last in this run

    def __init__(self, model: DocumentModel, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("New workload"))
        self.model = model
        self.workload: Workload | None = None
        self._opened: Workload | None = None  # a config.json read from disk
        self.source = QComboBox()
        for shipped in shipped_workloads().values():
            self.source.addItem(shipped.name, shipped.id)
        self.source.addItem(self.CUSTOM, "custom")
        self.source.currentIndexChanged.connect(self._on_source)
        self.open_button = QPushButton(_("Open config.json…"))
        set_tip(self.open_button, _("A Hugging Face-style config.json on disk (nothing is "
                                    "downloaded)"))
        self.open_button.clicked.connect(self.open_config)
        top = QHBoxLayout()
        top.addWidget(QLabel(_("Model")))
        top.addWidget(self.source, 1)
        top.addWidget(self.open_button)
        self.fields = WorkloadFields()
        self.fields.sig_changed.connect(lambda name, value: self._set(**{name: value}))
        self.kernel_counts = QTableWidget(0, 2)
        self.kernel_counts.setHorizontalHeaderLabels([_("Kernel"), _("Count")])
        self.kernel_counts.horizontalHeader().setStretchLastSection(True)
        self.kernel_counts.itemChanged.connect(lambda _i: self._preview())
        self.preview = QTextBrowser()
        self.error = QLabel()
        self.error.setStyleSheet("color: #b00020")
        self.error.setWordWrap(True)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                               | QDialogButtonBox.StandardButton.Cancel)
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        self.ok = box.button(QDialogButtonBox.StandardButton.Ok)
        left = QVBoxLayout()
        left.addLayout(top)
        left.addWidget(self.fields)
        left.addWidget(self.kernel_counts, 10)
        left.addStretch(1)  # the fields stay at the top when the kernel table is hidden
        right = QVBoxLayout()
        right.addWidget(QLabel(_("Its kernels, with their formulas")))
        right.addWidget(self.preview, 1)
        body = QHBoxLayout()
        body.addLayout(left, 2)
        body.addLayout(right, 3)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(self.error)
        layout.addWidget(box)
        self.resize(1000, 640)
        self._draft: Workload | None = None
        self._on_source()

    def _on_source(self) -> None:
        key = self.source.currentData()
        custom = key == "custom"
        self.kernel_counts.setVisible(custom)
        if custom:
            self._fill_kernels()
            self._draft = Workload("w0", _("My workload"), "custom", {"entries": []},
                                   source=_("the session's kernels"))
        elif key == "opened" and self._opened is not None:
            self._draft = self._opened
        else:
            self._draft = shipped_workloads()[key].workload("w0")
        self.fields.show_workload(self._draft)
        self._preview()

    def _fill_kernels(self) -> None:
        self.kernel_counts.blockSignals(True)
        self.kernel_counts.setRowCount(0)
        for kernel in self.model.document.kernels:
            if not kernel.has_size:
                continue
            row = self.kernel_counts.rowCount()
            self.kernel_counts.insertRow(row)
            name = QTableWidgetItem(kernel.name)
            name.setData(Qt.ItemDataRole.UserRole, kernel.id)
            name.setFlags(name.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.kernel_counts.setItem(row, 0, name)
            self.kernel_counts.setItem(row, 1, QTableWidgetItem("0"))
            set_tip(name, kernel.name)
        self.kernel_counts.resizeColumnToContents(0)  # whole names: "batch 1" from "batch 64"
        self.kernel_counts.blockSignals(False)

    @classmethod
    def config_folder(cls) -> Path:
        """Where Open config.json… starts: the folder of the one picked last in this run, else
        beside the model configs that ship with the app (not the folder it was started from)."""
        if cls.last_folder is not None and cls.last_folder.is_dir():
            return cls.last_folder
        return shipped_folder()

    def open_config(self, path: str | None = None) -> bool:
        if not path:
            path = ConfigDialogs.open_path(self, str(self.config_folder()))
            if not path:
                return False
            WorkloadDialog.last_folder = Path(path).parent
        try:
            workload = workload_from_config(path, "w0")
        except RooflineError as exc:
            self.error.setText(str(exc))
            return False
        self._opened = workload
        index = self.source.findData("opened")
        if index < 0:
            self.source.addItem("", "opened")
            index = self.source.count() - 1
        self.source.setItemText(index, f"{workload.name} (opened)")
        self.source.setCurrentIndex(index)
        self._on_source()
        return True

    def _set(self, **changes) -> None:
        if self._draft is not None:
            (name, value), = changes.items()
            self._draft = with_field(self._draft, name, value)
            self.fields.show_workload(self._draft)
            self._preview()

    def _custom_entries(self) -> list[dict] | None:
        """The counts typed, or None (with the reason shown) when one is not a whole number
        from 0 up."""
        entries = []
        for row in range(self.kernel_counts.rowCount()):
            text = self.kernel_counts.item(row, 1).text().strip() or "0"
            name = self.kernel_counts.item(row, 0).text()
            try:
                count = float(text)
            except ValueError:
                count = -1.0
            if count < 0 or count != int(count):
                self.error.setText(f"{name}: the count {text!r} must be a whole number, 0 or more")
                return None
            count = int(count)
            if count > 0:
                entries.append({"kernel": self.kernel_counts.item(row, 0).data(
                    Qt.ItemDataRole.UserRole), "count": count})
        return entries

    def _preview(self) -> None:
        self.error.setText("")
        if self._draft is None:
            return
        if self._draft.kind == "custom":
            entries = self._custom_entries()
            if entries is None:
                self.ok.setEnabled(False)
                self.workload = None
                return
            self._draft = replace(self._draft, spec={"entries": entries})
            if not entries:  # nothing chosen yet: a hint, not an error
                self.ok.setEnabled(False)
                self.workload = None
                self.preview.setHtml("<p>Give a count to one or more of the session's kernels "
                                     "(how many times a step runs each). Template kernels with a "
                                     "batch take the workload's batch.</p>")
                return
        kernels = self.model.document.kernels_by_id
        try:
            build(self._draft, kernels)
        except ValidationError as exc:
            self.error.setText("; ".join(str(p) for p in exc.problems))
            self.ok.setEnabled(False)
            self.preview.setHtml("")
            self.workload = None
            return
        self.ok.setEnabled(True)
        self.workload = self._draft
        self.preview.setHtml(entries_html(self._draft, kernels))


#: A bar's height, in rows of the breakdown's charts (one row per chip).
