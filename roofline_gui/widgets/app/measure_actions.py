"""Measuring this computer, running kernels on it, importing profiler results, saving a chip as
a user preset. Long work runs on a worker thread behind a progress dialog with Cancel; a
cancelled or failed run changes nothing, and each result is one undoable edit."""

from __future__ import annotations

import threading
from dataclasses import replace

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog, QWidget

from roofline_gui.core.edits import Batch, Replace
from roofline_gui.core.errors import RooflineError
from roofline_gui.core.i18n import _, ngettext
from roofline_gui.io.presets import Presets, save_user_chip, user_preset_id
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.widgets.common.dialogs import Confirm

# The measurement and import modules are imported where they are used: they are not needed to
# draw the first chart, and start-up time is measured against a bare pyqtgraph window.


class ImportDialogs:
    @classmethod
    def csv_path(cls, parent: QWidget, title: str) -> str:
        return QFileDialog.getOpenFileName(parent, title, "", _("CSV files (*.csv);;All files (*)"))[0]

    @classmethod
    def chips_path(cls, parent: QWidget, title: str) -> str:
        return QFileDialog.getOpenFileName(
            parent, title, "", _("Measurements and sessions (*.json *.roofline);;All files (*)"))[0]

    @classmethod
    def report(cls, parent: QWidget, title: str, text: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Information, title, title, parent=parent)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setInformativeText(text)
        box.exec()


class MeasureDialogs:
    @classmethod
    def ask(cls, parent: QWidget, chip, measurement, selected) -> tuple | None:
        """What to do with a measured chip: (None, keep) adds it as a new chip, (selected,
        keep) adds its measured values to the selected chip; ``keep`` also keeps it as a user
        preset. None: discard."""
        from roofline_gui.widgets.common.measured_dialog import MeasuredDialog  # noqa: PLC0415

        dialog = MeasuredDialog(chip, measurement, selected, parent)
        if not dialog.exec():
            return None
        return dialog.answer()


class _Worker(QObject):
    """Runs ``job(progress, cancel)`` on a thread; results come back as queued signals."""

    sig_progress = Signal(float, str)
    sig_done = Signal(object)
    sig_failed = Signal(str)
    sig_cancelled = Signal()

    def __init__(self, job, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.job, self.cancel = job, threading.Event()
        self.thread = threading.Thread(target=self._run, name="roofline-worker", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        from roofline_gui.measure.timing import Cancelled  # noqa: PLC0415 (off the start-up path)

        try:
            result = self.job(lambda f, m: self.sig_progress.emit(f, m), self.cancel)
        except Cancelled:
            self.sig_cancelled.emit()
        except (RooflineError, ValueError, MemoryError, OSError) as exc:
            self.sig_failed.emit(str(exc))
        else:
            self.sig_done.emit(result)


class MeasureActions(QObject):
    sig_message = Signal(str)
    sig_finished = Signal(str)  # "done", "cancelled" or "failed" (for tests and the status bar)

    def __init__(self, model: DocumentModel, presets: Presets, window: QWidget) -> None:
        super().__init__(window)
        self.model, self.presets, self.window = model, presets, window
        self.worker: _Worker | None = None
        self.dialog: QProgressDialog | None = None

    # -- background jobs with a progress dialog ---------------------------------------------------
    def _start(self, title: str, job, on_done) -> None:
        if self.worker is not None:
            return  # one job at a time
        self.dialog = QProgressDialog(title, _("Cancel"), 0, 1000, self.window)
        self.dialog.setWindowTitle(title)
        self.dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.dialog.setMinimumDuration(0)
        self.dialog.setAutoClose(False)
        self.dialog.setAutoReset(False)
        worker = _Worker(job, self)
        worker.sig_progress.connect(self._on_progress, Qt.ConnectionType.QueuedConnection)
        worker.sig_done.connect(lambda r: self._finish("done", on_done, r),
                                Qt.ConnectionType.QueuedConnection)
        worker.sig_failed.connect(lambda m: self._finish("failed", None, m),
                                  Qt.ConnectionType.QueuedConnection)
        worker.sig_cancelled.connect(lambda: self._finish("cancelled", None, None),
                                     Qt.ConnectionType.QueuedConnection)
        self.dialog.canceled.connect(worker.cancel.set)
        self.worker = worker
        self.dialog.show()
        worker.start()

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel.set()

    def _on_progress(self, fraction: float, message: str) -> None:
        dialog = self.dialog  # setValue() of a modal progress dialog processes events, which
        if dialog is not None:  # may finish the job and clear self.dialog meanwhile
            dialog.setLabelText(message)
            dialog.setValue(int(fraction * 1000))

    def _finish(self, outcome: str, on_done, payload) -> None:
        if self.dialog is not None:
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None
        self.worker = None
        if outcome == "done":
            on_done(payload)
        elif outcome == "failed":
            Confirm.error(self.window, _("Measurement failed"), str(payload))
        else:
            self.sig_message.emit(_("Cancelled: nothing was changed"))
        self.sig_finished.emit(outcome)

    # -- measure this computer ------------------------------------------------------------------------
    def measure_computer(self, **options) -> None:
        """Measure bandwidth per level and peak compute; the result becomes a chip, or the
        selected chip's measured values, and may be kept as a user preset."""
        from roofline_gui.measure.machine import measure, to_chip  # noqa: PLC0415

        def job(progress, cancel):
            result = measure(progress, cancel, **options)
            return to_chip(result), result

        def done(payload):
            chip, result = payload
            selected = next((c for c in self.model.document.chips
                             if c.id == self.model.selected_chip), None)
            answer = MeasureDialogs.ask(self.window, chip, result, selected)
            if answer is None:
                self.sig_message.emit(_("Measurement discarded: nothing was changed"))
                return
            target, keep = answer
            if keep:
                self._keep_as_preset(chip)
            if target is None:
                new = self.model.add_chips([chip], text=_("Add {chip}").format(chip=chip.name))
                if new:
                    self.model.select(None, new[-1])
            else:
                from roofline_gui.core.chip import attach_measured  # noqa: PLC0415

                merged, matched, unmatched = attach_measured(target, chip)
                self.model.push(Replace("chips", merged),
                                _("Add measured values to {chip}").format(chip=target.name))
                message = _("Measured values added to {chip}: {which}").format(
                    chip=target.name, which=", ".join(matched) or _("none"))
                if unmatched:
                    message += "; " + _("it has no ceiling for {which}, so those were not "
                                        "added").format(which=", ".join(unmatched))
                self.sig_message.emit(message)
                return
            levels = ", ".join(f"{lv.name} {lv.bandwidth / 1e9:.1f} GB/s" for lv in chip.memory)
            self.sig_message.emit(f"Measured: {levels}")

        self._start(_("Measuring this computer…"), job, done)

    def _keep_as_preset(self, chip) -> str | None:
        preset_id = user_preset_id(chip.name)
        try:
            path = save_user_chip(replace(chip, visible=True), preset_id)
        except RooflineError as exc:
            Confirm.error(self.window, _("Could not save the preset"), str(exc))
            return None
        # The preset library object is shared by every panel: the saved chip joins it at once.
        self.presets.chips[preset_id] = replace(chip, id=preset_id, preset=preset_id)
        self.sig_message.emit(f"Saved {chip.name} as preset {preset_id} in {path}")
        return preset_id

    # -- run kernels on this computer ------------------------------------------------------------------
    def run_selected_kernel(self) -> None:
        from roofline_gui.measure.kernels import (  # noqa: PLC0415
            run_kernel,
            why_not_runnable,
            with_measurement,
        )

        kernel_id = self.model.selected_kernel
        kernel = next((k for k in self.model.document.kernels if k.id == kernel_id), None)
        if kernel is None:
            return
        reason = why_not_runnable(kernel)
        if reason:
            Confirm.error(self.window, _("Cannot run {kernel} here").format(kernel=kernel.name),
                          reason)
            self.sig_finished.emit("failed")
            return

        def job(progress, cancel):
            progress(0.1, f"running {kernel.name}")
            return run_kernel(kernel, cancel=cancel)

        def done(run):
            current = next((k for k in self.model.document.kernels if k.id == kernel.id), None)
            if current is not None:
                self.model.push(Replace("kernels", with_measurement(current, run)),
                                _("Measure {kernel} on this computer").format(kernel=kernel.name))
                self.sig_message.emit(f"{kernel.name}: {run.rate / 1e9:.3g} Gop/s measured")

        self._start(f"Running {kernel.name}…", job, done)

    # -- imports ----------------------------------------------------------------------------------------
    def import_ncu(self) -> bool:
        from roofline_gui.io.imports import import_ncu_csv  # noqa: PLC0415

        return self._import(_("Import Nsight Compute CSV"), import_ncu_csv)

    def import_plain(self) -> bool:
        from roofline_gui.io.imports import import_plain_csv  # noqa: PLC0415

        return self._import(_("Import measurements (CSV)"), import_plain_csv)

    def import_chips(self) -> bool:
        """Add the chip of a measurement file (``--measure --json``) or the chips of a session
        to this session, as one undoable step."""
        from roofline_gui.io.session import open_document  # noqa: PLC0415

        title = _("Import chips from a file")
        path = ImportDialogs.chips_path(self.window, title)
        if not path:
            return False
        try:
            doc, _is_session = open_document(path)
        except RooflineError as exc:
            Confirm.error(self.window, _("Could not import {path}").format(path=path), str(exc))
            return False
        if not doc.chips:
            Confirm.error(self.window, title, _("{path} holds no chip").format(path=path))
            return False
        names = ", ".join(c.name for c in doc.chips)
        new = self.model.add_chips(list(doc.chips), text=_("Import {names}").format(names=names))
        if new:
            self.model.select(None, new[-1])
        self.sig_message.emit(f"Imported {names}")
        return bool(new)

    def _import(self, title: str, importer) -> bool:
        path = ImportDialogs.csv_path(self.window, title)
        if not path:
            return False
        try:
            result = importer(path)
        except RooflineError as exc:
            Confirm.error(self.window, _("Could not import {path}").format(path=path), str(exc))
            return False
        ids = []
        if result.kernels:
            ids = self.model.add_kernels(list(result.kernels),
                                         text=ngettext("Import {n} kernel", "Import {n} kernels",
                                                       len(result.kernels)).format(
                                             n=len(result.kernels)))
        above = self._above_roofs(ids)  # read from the rows, not from the words (translated)
        summary = result.summary() + above
        if result.skipped or not result.kernels or above:
            ImportDialogs.report(self.window, title, summary)
        self.sig_message.emit(summary.splitlines()[0])
        return bool(result.kernels)

    def _above_roofs(self, ids: list[str]) -> str:
        """The import summary's word on the imported rows measured above every roof."""
        from roofline_gui.core.chart_scene import OUTLIER_FACTOR  # noqa: PLC0415
        from roofline_gui.core.diagnose import above_every_roof  # noqa: PLC0415

        cmp = self.model.comparison
        above, far = above_every_roof(cmp, [cmp.kernel_index[i] for i in ids if i in cmp.kernel_index],
                                      OUTLIER_FACTOR)
        if not above:
            return ""
        text = "\n" + ngettext(
            "{n} row measured above every roof: a figure is wrong (select one: the explanation "
            "checks the usual causes)",
            "{n} rows measured above every roof: a figure is wrong (select one: the explanation "
            "checks the usual causes)", above).format(n=above)
        if far:
            text += "; " + _("{n} more than {factor}× above, left out of the chart's automatic "
                             "range").format(n=far, factor=f"{OUTLIER_FACTOR:g}")
        return text

    # -- user presets -----------------------------------------------------------------------------------
    def save_chip_as_preset(self) -> None:
        chip = next((c for c in self.model.document.chips if c.id == self.model.selected_chip), None)
        if chip is None:
            return
        preset_id = self._keep_as_preset(chip)
        if preset_id is not None:
            self.model.push(Batch((Replace("chips", replace(chip, preset=preset_id)),)),
                            _("{chip} is preset {preset}").format(chip=chip.name, preset=preset_id))
