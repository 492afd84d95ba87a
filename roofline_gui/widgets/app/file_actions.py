"""File actions: New, Open, Save, Save As, recent files, examples and exports, with the prompt
before unsaved work is lost. Errors are shown as messages; the open document stays as it was."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QInputDialog, QWidget

from roofline_gui.core.document import Document
from roofline_gui.core.edits import SetField
from roofline_gui.core.errors import RooflineError
from roofline_gui.core.i18n import LANGUAGES, N_, _, language, ngettext
from roofline_gui.io.csv_export import export_csv, export_workloads_csv
from roofline_gui.io.files import resources_dir, write_atomic
from roofline_gui.io.session import open_document, save_session
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.models.settings import Settings
from roofline_gui.widgets.common.background import run_in_background
from roofline_gui.widgets.common.dialogs import Confirm

SESSION_FILTER = N_("Roofline sessions (*.roofline *.json);;All files (*)")  # translated at use
EXTENSION = ".roofline"


# Above these sizes (a few frames of work: docs/performance.md), opening and saving run on a worker thread.
BACKGROUND_BYTES = 1_000_000
BACKGROUND_ITEMS = 2_000


def _size(path: Path) -> int:
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0  # open_document reports the problem


def _load_prepared(path: Path):
    doc, is_session = open_document(path)
    return doc, is_session, DocumentModel.prepare(doc)


def examples() -> list[Path]:
    """The shipped examples; in a language with its own version of one (``name.ja.roofline``:
    the article's readers' words, the same kernels and numbers), that version in its place."""
    every = sorted((resources_dir() / "examples").glob(f"*{EXTENSION}"))
    own = f".{language()}{EXTENSION}"
    translated = {p.name.removesuffix(own) for p in every if p.name.endswith(own)}
    out = []
    for path in every:
        stem, _dot, code = path.name.removesuffix(EXTENSION).rpartition(".")
        if stem and code in LANGUAGES:  # a version in a language: shown in that language only
            if code == language():
                out.append(path)
        elif path.name.removesuffix(EXTENSION) not in translated:
            out.append(path)
    return out


def example_named(stem: str) -> Path | None:
    """The shipped example ``stem`` ("a100-vs-tpu-v3"), in the interface's language where it
    has a version in it (``a100-vs-tpu-v3.ja.roofline``), else None."""
    for path in examples():
        name = path.name.removesuffix(EXTENSION)
        if stem in (name, name.rpartition(".")[0]):
            return path
    return None


#: the examples' titles as the Help → Examples menu says them in another language (each file
#: keeps its own, English, title: the session's word)
EXAMPLE_TITLES = (
    N_("A100 against TPU v3: the classic kernels"),
    N_("DeepSeek-R1 decode: 8 H200s in FP8 against 4 B200s in NVFP4"),
    N_("H100 against MI300X for LLM inference"),
    N_("Llama-3-8B on H100, MI300X and TPU v5e: decode and prefill"),
    N_("Serving: Llama-3.3-70B and DeepSeek-R1 at 50 ms per token"),
    N_("The article, claim by claim"),
    N_("Training: fp32 against bf16, an A100 against a TPU v3 and a V100"),
    N_("Williams-style CPU set: STREAM, SpMV, stencil, FFT, DGEMM"),
)


def example_title(path: Path) -> str:
    """An example's title as its session gives it ("A100 against TPU v3: the classic
    kernels"), else its file name in words."""
    try:
        title = json.loads(path.read_text(encoding="utf-8")).get("title")
    except (OSError, ValueError, AttributeError):
        title = None
    return title if isinstance(title, str) and title.strip() else path.stem.replace("-", " ")


#: what an export of a session without chips says (a line long enough that the dialog's title,
#: "Nothing to export", is not cut to "Nothi...export": the tour)
NO_CHIPS = N_("The session has no chips: add one with the Hardware panel's Add…, or open one "
              "of Help → Examples.")

class FileDialogs:
    """Thin wrappers over QFileDialog, replaceable in tests."""

    @classmethod
    def open_path(cls, parent: QWidget, folder: str) -> str:
        return QFileDialog.getOpenFileName(parent, _("Open session"), folder, _(SESSION_FILTER))[0]

    @classmethod
    def save_path(cls, parent: QWidget, suggested: str, file_filter: str = SESSION_FILTER) -> str:
        return QFileDialog.getSaveFileName(parent, _("Save as"), suggested, _(file_filter))[0]

    @classmethod
    def png_width(cls, parent: QWidget, width: int) -> int | None:
        dialog = QInputDialog(parent)
        dialog.setWindowTitle(_("Export PNG"))
        dialog.setLabelText(_("Width in pixels"))
        dialog.setIntRange(200, 10000)
        dialog.setIntStep(100)
        dialog.setIntValue(width)
        # as wide as its title beside the title bar's buttons, set once it is shown (it sizes
        # itself as it shows): narrower, the window manager cut it ("PNG を…ポート": 33rd tour)
        title = dialog.fontMetrics().horizontalAdvance(dialog.windowTitle())
        QTimer.singleShot(0, dialog, lambda: dialog.setMinimumWidth(title + 160))
        ok = dialog.exec() == QInputDialog.DialogCode.Accepted
        value = dialog.intValue()
        dialog.deleteLater()
        return value if ok else None


def _opened(name: str, doc: Document) -> str:
    """What the status bar says of a session just opened from the file ``name``."""
    chips, kernels = len(doc.chips), len(doc.kernels)
    if doc.workloads:  # "3 chips, 0 kernels" beside two workloads' charts (the fifteenth tour)
        return _("Opened {file}: {chips}, {kernels}, {workloads}").format(
            file=name, chips=_count(chips, "chip"), kernels=_count(kernels, "kernel"),
            workloads=_count(len(doc.workloads), "workload"))
    return _("Opened {file}: {chips}, {kernels}").format(
        file=name, chips=_count(chips, "chip"), kernels=_count(kernels, "kernel"))


class FileActions(QObject):
    sig_message = Signal(str)  # for the status bar

    def __init__(self, model: DocumentModel, settings: Settings, window: QWidget, canvas) -> None:
        super().__init__(window)
        self.model, self.settings, self.window, self.canvas = model, settings, window, canvas

    # -- documents ------------------------------------------------------------------------------------
    def display_name(self) -> str:
        """The file's name; an unsaved session (an example opened as a copy) goes by its title."""
        if self.model.path:
            return self.model.path.name
        title = self.model.document.title
        # an example's title as Help → Examples names it, in the interface's language
        return (_(title) if title in EXAMPLE_TITLES else title) or _("Untitled")

    def maybe_save(self) -> bool:
        """True when it is fine to drop the current document (saved, discarded, or clean)."""
        if self.model.undo_stack.isClean():
            return True
        answer = Confirm.unsaved_changes(self.window, self.display_name())
        if answer == "save":
            return self.save()
        return answer == "discard"

    def new(self) -> None:
        if self.maybe_save():
            self.model.reset(Document(), None)
            self.settings.set("last_example", "")

    def open(self, path: str | Path | None = None, *, as_template: bool = False) -> bool:
        """Open ``path`` (or ask). On an error the current session is left untouched. A
        measurement file (``--measure --json``) opens as an untitled session with its chip, so
        saving never writes a session over it."""
        if not self.maybe_save():
            return False
        if path is None:
            path = FileDialogs.open_path(self.window, self._folder())
            if not path:
                return False
        path = Path(path)
        prepared = None
        try:
            if _size(path) > BACKGROUND_BYTES:  # read, check and evaluate off the UI thread
                doc, is_session, prepared = run_in_background(
                    self.window, _("Opening {file}…").format(file=path.name), lambda: _load_prepared(path))
            else:
                doc, is_session = open_document(path)
        except RooflineError as exc:
            Confirm.error(self.window, _("Could not open {file}").format(file=path.name), str(exc))
            if not path.exists():
                self.settings.remove_recent(str(path))
            return False
        # a file of the app's own (an example opened by File → Open): an untitled copy, as
        # Help → Examples opens it (Save in the unsaved-changes prompt wrote over the shipped
        # example: the twenty-second tour)
        shipped = path.resolve().parent == (resources_dir() / "examples").resolve()
        as_template = as_template or not is_session or shipped
        self.model.reset(doc, None if as_template else path, prepared)
        self.settings.set("last_example", "")  # (open_example sets it again)
        if not as_template:
            self.settings.add_recent(str(path.resolve()))
            self.settings.set("last_dir", str(path.resolve().parent))
        self.sig_message.emit(_opened(path.name, doc) + (
            "" if is_session else _(" (a new untitled session: Save asks where)")))
        return True

    def adopt(self, doc: Document, source: str) -> None:
        """``doc``, made from the file named ``source`` (a model's config on the command line),
        as a new untitled session: Save asks where."""
        self.model.reset(doc, None)
        self.settings.set("last_example", "")
        self.sig_message.emit(_opened(source, doc) + _(" (a new untitled session: Save asks where)"))

    def open_example(self, path: Path) -> bool:
        """Examples open as untitled copies, so saving never writes into the app's resources;
        the next start reopens the one shown last (it had opened the first example again: the
        eleventh tour), until a session file is opened or saved."""
        if not self.open(path, as_template=True):
            return False
        name = path.name.removesuffix(EXTENSION)
        self.settings.set("last_example", name.removesuffix(".ja"))
        return True

    def save(self) -> bool:
        if self.model.path is None:
            return self.save_as()
        return self._save_to(self.model.path)

    def _folder(self) -> str:
        """Where file dialogs start: the folder used last, else the user's documents folder
        (not the folder the app happened to be started from)."""
        last = self.settings.get("last_dir")
        if last and Path(last).is_dir():
            return last
        documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        return documents if documents and Path(documents).is_dir() else str(Path.home())

    def save_as(self) -> bool:
        suggested = str(self.model.path or Path(self._folder())
                        / f"{safe_file_stem(self.model.document.title)}{EXTENSION}")
        path = FileDialogs.save_path(self.window, suggested)
        if not path:
            return False
        path = Path(path)
        if not path.suffix:
            path = path.with_suffix(EXTENSION)
        title = self.model.document.title
        # Saved under another name: the file's name leads, and the title follows it.
        return self._save_to(path, path.stem if title and safe_file_stem(title) != path.stem else None)

    def _save_to(self, path: Path, title: str | None = None) -> bool:
        """Write the session; with ``title``, under that title (one undo step, only once the
        file is written: a failed save leaves the document as it was)."""
        doc = self.model.document
        if title is not None:
            doc = replace(doc, title=title)
        try:
            if len(doc.kernels) + len(doc.chips) > BACKGROUND_ITEMS:
                run_in_background(self.window, _("Saving {file}…").format(file=path.name),
                                  lambda: save_session(doc, path))
            else:
                save_session(doc, path)
        except RooflineError as exc:
            Confirm.error(self.window, _("Could not save {file}").format(file=path.name),
                          _("{problem}\n\nYour session is still open and unchanged; try another "
                            "folder.").format(problem=exc))
            return False
        if title is not None:
            self.model.push(SetField("title", title), _("Title {title}").format(title=title))
        self.model.mark_saved(path)
        self.settings.set("last_example", "")  # a file of its own now
        self.settings.add_recent(str(path.resolve()))
        self.settings.set("last_dir", str(path.resolve().parent))
        self.sig_message.emit(_("Saved {path}").format(path=path))
        return True

    # -- exports ------------------------------------------------------------------------------------
    def _ask_export_path(self, suffix: str, file_filter: str) -> Path | None:
        stem = self.model.path.stem if self.model.path else safe_file_stem(self.model.document.title,
                                                                           "roofline")
        folder = Path(self._folder())
        path = FileDialogs.save_path(self.window, str(folder / f"{stem}{suffix}"), file_filter)
        return Path(path) if path else None

    def _export(self, label: str, suffix: str, file_filter: str, write) -> bool:
        """Ask where, then ``write(path)``; it may return what it wrote, in words, for the
        status bar ("8 rows: 4 kernels on 2 chips")."""
        path = self._ask_export_path(suffix, file_filter)
        if path is None:
            return False
        try:
            said = write(path)
        except RooflineError as exc:
            Confirm.error(self.window, _("Could not export {what}").format(what=label), str(exc))
            return False
        # the next dialog starts where this file went (a PNG's started in the home folder just
        # after a CSV was written elsewhere: the seventh tour)
        self.settings.set("last_dir", str(path.resolve().parent))
        self.sig_message.emit(_("Exported {path}: {what}").format(path=path, what=said)
                              if isinstance(said, str) else _("Exported {path}").format(path=path))
        return True

    # The export module (pyqtgraph's exporters, QtSvg) is imported on first use, off start-up.
    def export_png(self) -> bool:
        from roofline_gui.widgets.chart import export  # noqa: PLC0415

        width = FileDialogs.png_width(self.window, 1600)
        if width is None:
            return False
        canvas = self.canvas
        return self._export("PNG", ".png", _("PNG image (*.png)"), lambda p: write_atomic(
            p, export.render_canvas_png(self.model, canvas.presets, width=width,
                                        mode=canvas.mode, options=canvas.options,
                                        view_range=canvas.user_range())))

    def export_svg(self) -> bool:
        from roofline_gui.widgets.chart import export  # noqa: PLC0415

        return self._export("SVG", ".svg", _("SVG image (*.svg)"),
                            lambda p: self._render(export.export_svg, p))

    def export_pdf(self) -> bool:
        from roofline_gui.widgets.chart import export  # noqa: PLC0415

        return self._export("PDF", ".pdf", _("PDF document (*.pdf)"),
                            lambda p: self._render(export.export_pdf, p))

    def _render(self, export_to, path) -> None:
        """Export the live chart as a document shows it (no selection, drag or note)."""
        with self.canvas.exporting() as item:
            export_to(item, path)

    def export_csv(self) -> bool:
        """The kernels' table; a session of workloads alone exports its workloads' table (an
        empty kernels' table with its header alone helped nobody), and says so."""
        doc = self.model.document
        if not doc.chips or not (doc.kernels or doc.workloads):
            Confirm.error(self.window, _("Nothing to export"),
                          _(NO_CHIPS) if not doc.chips else
                          _("The session has no kernels and no workloads: add some first."))
            return False
        if not doc.kernels:
            return self._export("CSV", ".csv", _("CSV table (*.csv)"), self._write_workloads)

        def write(path) -> str:
            rows = export_csv(doc, path, derated=self.model.derated,
                              same_width=self.model.view.same_width)  # as the table reads
            said = _("{rows} ({kernels} on {chips})").format(
                rows=_count(rows, "row"), kernels=_count(len(doc.kernels), "kernel"),
                chips=_count(len(doc.chips), "chip"))
            return said + (_("; the workloads go to File → Export workloads CSV")
                           if doc.workloads else "")

        return self._export("CSV", ".csv", _("CSV table (*.csv)"), write)

    def export_workloads_csv(self) -> bool:
        doc = self.model.document
        if not doc.workloads or not doc.chips:
            Confirm.error(self.window, _("Nothing to export"), _("The session has no workloads.")
                          if not doc.workloads else _(NO_CHIPS))
            return False
        return self._export(_("workloads CSV"), "-workloads.csv", _("CSV table (*.csv)"),
                            self._write_workloads)

    def export_serving(self, kind: str) -> bool:
        """The Serving view as ``kind``: "png", "svg" or "pdf" (the chart, titled with its
        workload, requests and limits) or "csv" (its points: one row per chip and concurrency,
        in the workloads CSV's columns, as ``--phase serve`` writes them)."""
        panel = self.window.serving
        result = panel.settled()
        if result is None:
            Confirm.error(self.window, _("Nothing to export"),
                          _("The Serving view shows nothing: it needs a transformer workload and a "
                          "shown chip."))
            return False
        if kind == "csv":
            from roofline_gui.core.serving import serving_rows  # noqa: PLC0415
            from roofline_gui.core.workload_eval import WORKLOAD_CSV_COLUMNS  # noqa: PLC0415
            from roofline_gui.io.csv_export import write_rows_csv  # noqa: PLC0415

            def write(path) -> str:
                rows = write_rows_csv(serving_rows(result, WORKLOAD_CSV_COLUMNS),
                                      WORKLOAD_CSV_COLUMNS, path)
                return _("{rows}: {workload} served on {chips} at {levels}").format(
                    rows=_count(rows, "row"), workload=result.workload.name,
                    chips=_count(len(result.chips), "chip"),
                    levels=_count(len(result.concurrency), "concurrency"))

            return self._export(_("serving CSV"), "-serving.csv", _("CSV table (*.csv)"), write)
        from roofline_gui.widgets.chart import export  # noqa: PLC0415
        from roofline_gui.widgets.panels.serving_chart import offscreen_chart  # noqa: PLC0415

        measured = self.model.document.serving_measured
        if kind == "png":
            width = FileDialogs.png_width(self.window, 1600)
            if width is None:
                return False

            def write_png(path) -> None:
                with offscreen_chart(result, measured, width, round(width * 5 / 8),
                                     panel.measure) as item:
                    write_atomic(path, export.render_png(item, width))

            return self._export("PNG", "-serving.png", _("PNG image (*.png)"), write_png)
        to, label = {"svg": (export.export_svg, _("SVG image (*.svg)")),
                     "pdf": (export.export_pdf, _("PDF document (*.pdf)"))}[kind]

        def write_vector(path) -> None:
            with offscreen_chart(result, measured, 960, 600, panel.measure) as item:
                to(item, path)

        return self._export(kind.upper(), f"-serving.{kind}", label, write_vector)

    def _write_workloads(self, path) -> str:
        doc = self.model.document
        rows = export_workloads_csv(doc, path, derated=self.model.derated,
                                    same_width=self.model.view.same_width)
        what = _("the workloads' table, {rows} ({workloads} on {chips})").format(
            rows=_count(rows, "row"), workloads=_count(len(doc.workloads), "workload"),
            chips=_count(len(doc.chips), "chip"))
        # (not a second parenthesis after the first: "(3 workloads on 3 chips) (the session has
        # no kernels)" read clumsily, the 43rd tour)
        return what + (_("; the session has no kernels") if not doc.kernels else "")


def _count(n: int, what: str) -> str:
    """'1 row', '8 rows' (in the interface's language: Japanese counts '8 行')."""
    forms = {"row": ngettext("{n} row", "{n} rows", n),
             "chip": ngettext("{n} chip", "{n} chips", n),
             "kernel": ngettext("{n} kernel", "{n} kernels", n),
             "workload": ngettext("{n} workload", "{n} workloads", n),
             "concurrency": ngettext("{n} concurrency", "{n} concurrencies", n)}
    return forms[what].format(n=f"{n:,}")


def safe_file_stem(title: str, default: str = "session") -> str:
    """A file name from a session title that every platform and shell accepts: no colons,
    slashes or other reserved characters ('A100 against TPU v3: the classic kernels' ->
    'A100 against TPU v3 - the classic kernels')."""
    stem = re.sub(r"\s*[:/\\|]\s*", " - ", title or "")
    stem = re.sub(r'[<>"?*\x00-\x1f]', "", stem).strip(" .-")
    return stem[:120] or default
