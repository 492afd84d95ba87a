"""The document model: the one place the session changes, through an undo stack.

Widgets and item models never assign to the document: they call :meth:`DocumentModel.push`
with an edit from ``core.edits``. Each push becomes an :class:`EditCommand` on the
``QUndoStack``; a stream of small edits with the same ``merge_key`` (a drag, a spin box) merges
into one undo step. After every change ``sig_document_changed`` says which ids changed (None:
everything), and ``comparison`` re-evaluates lazily, reusing whatever did not change.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from roofline_gui.core.chip import Chip
from roofline_gui.core.comparison import Comparison, Evaluator
from roofline_gui.core.display import View
from roofline_gui.core.document import Document, serving_only_change
from roofline_gui.core.edits import (
    Edit,
    Replace,
    apply,
    insert_new,
    next_color,
    removed_ids,
    touched_ids,
)
from roofline_gui.core.errors import EditRefused, ValidationError
from roofline_gui.core.i18n import _
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.levels import residency_note
from roofline_gui.core.sweep import describe_move, move_to_intensity
from roofline_gui.core.units import Units

if TYPE_CHECKING:  # the workload modules are imported on first use, off the start-up path
    from roofline_gui.core.workload import Workload
    from roofline_gui.core.workload_eval import WorkloadResult


class EditCommand(QUndoCommand):
    """A thin QUndoCommand over a pure edit: redo applies it, undo applies its inverse."""

    def __init__(self, model: DocumentModel, edit: Edit, text: str, merge_key=None,
                 applied: tuple[Document, Edit] | None = None) -> None:
        super().__init__(text)
        self._model, self._edit, self._inverse = model, edit, None
        self._merge_key = merge_key
        self._applied = applied  # the result push() already computed, used by the first redo

    def redo(self) -> None:
        applied, self._applied = self._applied, None
        self._inverse = self._model._apply(self._edit, applied)

    def undo(self) -> None:
        self._model._apply(self._inverse)

    def id(self) -> int:
        return -1 if self._merge_key is None else hash(self._merge_key) & 0x7FFFFFFF

    def mergeWith(self, other: QUndoCommand) -> bool:
        # Only commands that replace whole objects carry a merge key, so the later edit alone
        # gives the final state and the first inverse restores the state before the stream.
        if not isinstance(other, EditCommand) or other._merge_key != self._merge_key:
            return False
        self._edit = other._edit
        self.setText(other.text())
        return True


def _still_there(old: Document, new: Document, kernel_id: str | None,
                 chip_id: str | None, removed: set[str]) -> tuple[str | None, str | None]:
    """The selection in ``new``: as it was where its kernel (or workload) and chip are still
    there, else the one now at the place the gone one had in ``old`` (the last, where the list
    got shorter), else the first kernel, then workload. Where the edit removed neither
    (``removed``: the ids it removed; a drag step's Replace removes none) no list is searched
    (0.3 ms an edit at 10,000 kernels)."""
    if kernel_id not in removed and chip_id not in removed:
        return kernel_id, chip_id

    def nearest(items_old, items_new, item_id):
        ids = [i.id for i in items_new]
        if item_id in ids or not ids:
            return item_id if item_id in ids else None
        at = next((n for n, i in enumerate(items_old) if i.id == item_id), None)
        return ids[min(at, len(ids) - 1)] if at is not None else None

    chip = nearest(old.chips, new.chips, chip_id)
    if kernel_id is not None and any(w.id == kernel_id for w in old.workloads):
        kernel = nearest(old.workloads, new.workloads, kernel_id)
    else:
        kernel = nearest(old.kernels, new.kernels, kernel_id)
    if kernel is None and kernel_id is not None:
        kernel = (new.kernels[0].id if new.kernels else
                  new.workloads[0].id if new.workloads else None)
    return kernel, chip


class DocumentModel(QObject):
    #: (document, frozenset of touched chip/kernel ids, or None when everything may have changed)
    sig_document_changed = Signal(object, object)
    #: (kernel id or None, chip id or None)
    sig_selection_changed = Signal(object, object)
    #: the file path (or None) after open / save / new
    sig_path_changed = Signal(object)
    sig_derated_changed = Signal(bool)
    sig_refused = Signal(str)  # an edit the core refused, and why (last_refused: the refusal)
    sig_status = Signal(str)  # a word for the status bar: why a drag stopped where it did
    #: (View, names of the fields that changed): the one view state every view observes
    sig_view_changed = Signal(object, object)

    def __init__(self, document: Document | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._doc = document or Document()
        self.undo_stack = QUndoStack(self)
        #: the last edit the core refused (core.errors.EditRefused, with its problems by field)
        self.last_refused = None
        #: The last change touched workloads' serving settings alone (core.workload.
        #: serving_only): every view but the Serving view's may leave itself as it is.
        self.serving_only = False
        self._evaluator = Evaluator()
        self._comparison: Comparison | None = None
        self._workloads: tuple[list[WorkloadResult], dict[str, str]] | None = None
        self._built: dict = {}  # workload id -> (workload, kernels, its Built), reused
        self._view = View()
        self.path: Path | None = None
        self.selected_kernel: str | None = None
        self.selected_chip: str | None = None

    # -- state ------------------------------------------------------------------------------
    @property
    def document(self) -> Document:
        return self._doc

    @property
    def view(self) -> View:
        """How the session is looked at: mode, units, derating, kernel names on the chart."""
        return self._view

    def set_view(self, **changes) -> None:
        """Change the view state; every view follows (``sig_view_changed``). Derating changes
        the evaluation, so it also comes as a document change."""
        if "mode" in changes and changes["mode"] not in View.MODES:
            raise ValueError(f"view mode {changes['mode']!r}: one of {', '.join(View.MODES)}")
        new = replace(self._view, **changes)
        changed = {name for name in changes if getattr(new, name) != getattr(self._view, name)}
        if not changed:
            return
        self._view = new
        if changed & {"derated", "same_width"}:  # both change the evaluation
            self._comparison = self._workloads = None
            self.serving_only = False
            if "derated" in changed:
                self.sig_derated_changed.emit(new.derated)
            self.sig_document_changed.emit(self._doc, None)
        self.sig_view_changed.emit(new, frozenset(changed))

    @property
    def derated(self) -> bool:
        return self._view.derated

    @property
    def units(self) -> Units:
        """How every view shows rates and intensities (ops or MACs)."""
        return self._view.units

    def set_mac_units(self, mac: bool) -> None:
        self.set_view(mac=bool(mac))

    def set_derated(self, derated: bool) -> None:
        self.set_view(derated=bool(derated))

    @property
    def comparison(self) -> Comparison:
        """All kernels on all chips (shown or hidden), evaluated once per document state."""
        if self._comparison is None:
            self._comparison = self._evaluator.compare(
                self._doc.kernels, self._doc.chips, derated=self._view.derated,
                same_width=self._view.same_width)
        return self._comparison

    @property
    def workload_results(self) -> list[WorkloadResult]:
        """Every workload that builds, on every chip, in one evaluation per document state."""
        return self._evaluate_workloads()[0]

    @property
    def workload_problems(self) -> dict[str, str]:
        """Workload id -> why it cannot be evaluated (say, a kernel it names was removed)."""
        return self._evaluate_workloads()[1]

    def workload_result(self, workload_id: str | None) -> WorkloadResult | None:
        return next((r for r in self.workload_results if r.workload.id == workload_id), None)

    def _evaluate_workloads(self):
        if self._workloads is None and not self._doc.workloads:
            self._workloads = ([], {})
        if self._workloads is None:
            from roofline_gui.core.build import build  # noqa: PLC0415
            from roofline_gui.core.workload_eval import evaluate_workloads  # noqa: PLC0415

            doc, kernels = self._doc, self._doc.kernels_by_id
            good, built, problems = [], [], {}
            # A workload's entries are built again only when it (or, for a custom one, the
            # session's kernels) changed: a drag step of one of ten rebuilds one.
            cache, self._built = self._built, {}
            for w in doc.workloads:
                old = cache.get(w.id)
                if old is not None and old[0] is w and (w.kind != "custom"
                                                        or old[1] is doc.kernels):
                    self._built[w.id] = old
                    built.append(old[2])
                    good.append(w)
                    continue
                try:
                    b = build(w, kernels)
                except ValidationError as exc:
                    problems[w.id] = "; ".join(str(p) for p in exc.problems)
                    continue
                self._built[w.id] = (w, doc.kernels, b)
                built.append(b)
                good.append(w)
            results = evaluate_workloads(good, doc.chips, derated=self._view.derated,
                                         built=built, kernels=kernels,
                                         same_width=self._view.same_width) if good and doc.chips else []
            self._workloads = (results, problems)
        return self._workloads

    # -- changing the document ---------------------------------------------------------------
    def push(self, edit: Edit, text: str, merge_key=None) -> bool:
        """Apply ``edit`` as one undoable step. An edit that changes nothing is not pushed; one
        the core refuses (a domain rule) is not either, and ``sig_refused`` says why."""
        try:
            applied = apply(edit, self._doc)
        except EditRefused as exc:
            self.last_refused = exc
            self.sig_refused.emit(str(exc))
            return False
        if applied[0] == self._doc:
            return False
        self.undo_stack.push(EditCommand(self, edit, text, merge_key, applied))
        return True

    def _apply(self, edit: Edit, applied: tuple[Document, Edit] | None = None) -> Edit:
        old = self._doc
        self._doc, inverse = applied or apply(edit, self._doc)
        # A workload's edit (a drag of its batch, say) leaves the kernels' evaluation as it was.
        if self._doc.kernels is not old.kernels or self._doc.chips is not old.chips:
            self._comparison = None
        self.serving_only = serving_only_change(old, self._doc)
        if self.serving_only and self._workloads is not None:
            # the decode steps, prefills and training steps are the same: their results carry
            # the workloads as they are now
            now = {w.id: w for w in self._doc.workloads}
            results, problems = self._workloads
            self._workloads = ([replace(r, workload=now[r.workload.id]) for r in results],
                               problems)
            self._built = {i: (now[i], *rest) for i, (_w, *rest) in self._built.items()}
        else:
            self._workloads = None
        self.sig_document_changed.emit(self._doc, frozenset(touched_ids(edit)))
        kept = _still_there(old, self._doc, self.selected_kernel, self.selected_chip,
                            removed_ids(edit))
        if kept != (self.selected_kernel, self.selected_chip):
            # a chip or kernel the selection named is gone (Undo of an Add…): the one now in
            # its place, so every view names the same one (the hardware editor had said
            # "Select a chip" while the explanation described another: the twentieth tour)
            self.selected_kernel, self.selected_chip = kept
            self.sig_selection_changed.emit(*kept)
        return inverse

    def reset(self, document: Document, path: Path | None = None,
              prepared: tuple[Evaluator, Comparison] | None = None) -> None:
        """Replace the whole session (New, Open): a fresh undo history, a clean state.
        ``prepared``: an evaluator and its comparison of ``document`` (not derated), computed
        off the UI thread by ``prepare``."""
        self.undo_stack.clear()
        self._doc = document
        self.serving_only = False
        self._comparison = self._workloads = None
        if (prepared is not None and not self._view.derated and prepared[1].kernels is document.kernels
                and prepared[1].chips is document.chips):
            self._evaluator, self._comparison = prepared
        self.path = path
        self.undo_stack.setClean()
        # the first kernel, else the first workload: every view (the workloads' list, the
        # breakdown, the Serving view) then starts on the same one
        self.selected_kernel = (document.kernels[0].id if document.kernels else
                                document.workloads[0].id if document.workloads else None)
        self.selected_chip = document.chips[0].id if document.chips else None
        self.sig_document_changed.emit(self._doc, None)
        self.sig_path_changed.emit(path)
        self.sig_selection_changed.emit(self.selected_kernel, self.selected_chip)

    @staticmethod
    def prepare(document: Document) -> tuple[Evaluator, Comparison]:
        """The evaluation of a document about to be opened; safe on a worker thread (it
        touches no model state), and ``reset`` adopts it."""
        evaluator = Evaluator()
        comparison = evaluator.compare(document.kernels, document.chips)
        # The columns the table and chart read first, computed here rather than on the UI
        # thread at the first paint (a few ms each for 300,000 pairs).
        _ = comparison.result.time, comparison.result.bound, comparison.dram_intensity
        return evaluator, comparison

    def mark_saved(self, path: Path) -> None:
        self.path = path
        self.undo_stack.setClean()
        self.sig_path_changed.emit(path)

    # -- selection --------------------------------------------------------------------------
    def select(self, kernel_id: str | None = None, chip_id: str | None = None) -> None:
        """Select a kernel and/or chip (None keeps the current one)."""
        kernel_id = kernel_id if kernel_id is not None else self.selected_kernel
        chip_id = chip_id if chip_id is not None else self.selected_chip
        if (kernel_id, chip_id) != (self.selected_kernel, self.selected_chip):
            self.selected_kernel, self.selected_chip = kernel_id, chip_id
            self.sig_selection_changed.emit(kernel_id, chip_id)

    # -- moving kernels -------------------------------------------------------------------------
    def move_kernel_to_intensity(self, kernel_id: str, intensity: float, merge_key=None,
                                 chip_id: str | None = None) -> bool:
        """Change a kernel's main parameter (or its intensity) so it sits at ``intensity``.

        Each step of one drag shares ``merge_key`` and so becomes one undo step. ``chip_id``:
        the chip it is dragged on; where what the kernel keeps on chip stops fitting that
        chip's on-chip level, the status bar says so.
        """
        kernel = self._doc.kernel(kernel_id)
        move = move_to_intensity(kernel, intensity)
        moved = move.kernel
        chip = next((c for c in self._doc.chips if c.id == chip_id), None)
        self.say(move.note or (residency_note(moved, chip) if chip is not None else ""))
        if moved == kernel:
            return False
        # Named as it is after the step: the steps of a drag merge into one command that keeps
        # the last step's text, and a kernel's name can carry its batch ("…, batch 26" was
        # shown for a drag that ended at batch 29).
        return self.push(Replace("kernels", moved), _("Move {kernel}: {how}").format(
            kernel=moved.name, how=describe_move(moved)),
                         merge_key=None if merge_key is None else (*merge_key, kernel_id))

    def push_what_if(self, moved: Chip, what: str, merge_key=None) -> bool:
        """Replace a chip by ``moved``, its ceilings moved as what-ifs (a roof dragged, a dot of
        the design space, a reset): named "(what-if)" while any ceiling is moved, so every view
        and export says so; ``what`` says what moved, for the undo text."""
        return self.push(Replace("chips", moved.named_as_what_if()), _("What-if {chip}: {what}").format(
            chip=moved.base_name, what=what),
                         merge_key=merge_key)

    def say(self, note: str) -> None:
        """A word for the status bar (why a drag stopped where it did); nothing when empty."""
        if note:
            self.sig_status.emit(note)

    # -- common compound edits -----------------------------------------------------------------
    def next_color(self, taken: int = 0) -> str:
        return next_color(self._doc, taken)

    def add_chips(self, chips: list[Chip], index: int | None = None, text: str = "") -> list[str]:
        """Insert copies of ``chips`` with fresh ids and colours; returns the new ids."""
        edit, ids = insert_new(self._doc, "chips", chips, index)
        if ids:
            self.push(edit, text or _("Add chip {names}").format(names=", ".join(c.name for c in chips)))
        return ids

    def set_workload(self, workload: Workload, text: str = "", merge_key=None) -> bool:
        """Replace the workload that has ``workload.id`` (a field edit, a drag step)."""
        return self.push(Replace("workloads", workload), text or _("Change {workload}").format(
            workload=workload.name),
                         merge_key=None if merge_key is None else (*merge_key, workload.id))

    def add_workloads(self, workloads: list[Workload], text: str = "") -> list[str]:
        """Insert copies of ``workloads`` with fresh ids; returns the new ids."""
        edit, ids = insert_new(self._doc, "workloads", workloads)
        if ids:
            self.push(edit, text or _("Add workload {names}").format(
                names=", ".join(w.name for w in workloads)))
        return ids

    def add_kernels(self, kernels: list[Kernel], index: int | None = None, text: str = "") -> list[str]:
        """Insert copies of ``kernels`` with fresh ids; returns the new ids."""
        edit, ids = insert_new(self._doc, "kernels", kernels, index)
        if ids:
            self.push(edit, text or _("Add kernel {names}").format(names=", ".join(k.name for k in kernels)))
        return ids
