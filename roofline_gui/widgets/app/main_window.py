"""The main window: wires the document model to the panels, menus, toolbar and status bar.
No computation and no file I/O here: those live in the core, the models and FileActions."""

from __future__ import annotations

import math
import re
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path

import shiboken6
from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDockWidget,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QToolBar,
    QWidget,
)

from roofline_gui.core.display import level_points_toggled
from roofline_gui.core.document import Document, copy_name
from roofline_gui.core.edits import Batch, Replace, transform
from roofline_gui.core.errors import RooflineError
from roofline_gui.core.i18n import LANGUAGES, _, language, ngettext
from roofline_gui.core.units import PRECISIONS
from roofline_gui.io.journal import read_journal
from roofline_gui.io.presets import Presets, default_presets
from roofline_gui.io.session import load_session
from roofline_gui.io.translations import translated
from roofline_gui.models.autosave import Autosave, discard_journal, orphaned_journals
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.models.settings import Settings
from roofline_gui.widgets.app.dock_shares import DockShares
from roofline_gui.widgets.app.file_actions import FileActions, example_named, example_title, examples
from roofline_gui.widgets.app.measure_actions import MeasureActions
from roofline_gui.widgets.app.views import (
    BOTTOM,
    BY_NAME,
    VIEWS,
    View,
    first_length,
    layout_version,
    object_name,
)
from roofline_gui.widgets.chart.canvas_panel import CanvasPanel
from roofline_gui.widgets.common import background
from roofline_gui.widgets.common.application import (
    TIP_WRAP,
    MenuTipsBeside,
    fitted_tip,
    wrap_long_tips,
)
from roofline_gui.widgets.common.dialogs import RecoveryDialog, about_text
from roofline_gui.widgets.common.wheel import guard_wheel

#: "All kernels at" a width: the precision the kernels take; chips lacking it run at their own
#: of the same width (core.units.SAME_WIDTH).
WIDTHS = {"16-bit": "bf16", "8-bit": "int8"}

class StackAction(QAction):
    """The toolbar's Undo or Redo: a short fixed text, so the toolbar never reflows; the
    command it would undo goes into the tooltip ('Undo Move MLP layer… (Ctrl+Z)')."""

    def __init__(self, stack, kind: str, keys: QKeySequence, parent) -> None:
        super().__init__(_("Undo") if kind == "undo" else _("Redo"), parent)
        self.kind, self.keys = kind, keys.toString(QKeySequence.SequenceFormat.NativeText)
        self.triggered.connect(getattr(stack, kind))
        getattr(stack, f"can{kind.capitalize()}Changed").connect(self.setEnabled)
        getattr(stack, f"{kind}TextChanged").connect(self._on_text)
        self.setEnabled(getattr(stack, f"can{kind.capitalize()}")())
        self._on_text(getattr(stack, f"{kind}Text")())

    def _on_text(self, command: str) -> None:
        name = ((_("Undo {command}") if self.kind == "undo" else _("Redo {command}"))
                .format(command=command) if command else
                _("Undo") if self.kind == "undo" else _("Redo"))
        self.setToolTip(f"{name} ({self.keys})" if self.keys else name)
        self.setStatusTip(name)


class DocumentUndoKeys(QObject):
    """Ctrl+Z (and Redo's keys) in a text field or a spin box with nothing typed since its
    value was taken undo the document, as the Edit menu does: a line edit keeps its own history
    of what was typed and took the keys, so after Enter they only rewound its text (the what-if
    tour), and a spin box's did nothing at all (Batch B, the new-user tour). While the field
    holds typing of its own, the keys undo the typing."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        # on each line edit as it takes the focus: a filter on the whole application would run
        # Python for every event of every drag step
        QApplication.instance().focusChanged.connect(self._on_focus)

    def _on_focus(self, _old, new) -> None:
        if isinstance(new, (QLineEdit, QAbstractSpinBox)) and new.window() is self.window:
            new.installEventFilter(self)  # (once: Qt drops the filter before adding it again)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt API)
        if event.type() != QEvent.Type.ShortcutOverride or not isinstance(
                watched, (QLineEdit, QAbstractSpinBox)):
            return False
        if (event.keyCombination().toCombined() in _WINDOW_KEYS
                and watched.window() is self.window):
            # Ctrl+E, Export PNG: a line edit on Linux takes it to move to the line's end (the
            # End key does that), and the export did nothing from a field (the 41st tour)
            event.ignore()
            return True
        if not (event.matches(QKeySequence.StandardKey.Undo)
                or event.matches(QKeySequence.StandardKey.Redo)
                or event.keyCombination().toCombined() == QKeySequence("Ctrl+Y")[0].toCombined()):
            return False
        if _typed(watched) or watched.window() is not self.window:
            return False
        event.ignore()  # not the field's: the window's Undo or Redo shortcut takes the keys
        return True


#: keys a field would take that are the window's own shortcuts
_WINDOW_KEYS = frozenset({QKeySequence("Ctrl+E")[0].toCombined()})


def _typed(field) -> bool:
    """Whether ``field`` holds typing of its own, not yet taken as its value: a line edit's
    modified flag; a spin box's text other than its value's (its line edit's flag stays set
    after Enter)."""
    if not isinstance(field, QAbstractSpinBox):
        return field.isModified()
    if not hasattr(field, "textFromValue"):
        return field.lineEdit().isModified()
    if field.specialValueText() and field.value() == field.minimum():
        shown = field.specialValueText()
    else:
        shown = field.prefix() + field.textFromValue(field.value()) + field.suffix()
    return field.text() != shown


def memory_levels_message(model, shown: bool) -> str:
    """What View → Memory levels changed on the chart: how many points it added or took away,
    or that no kernel here moves bytes through a level it changes (the 36th tour toggled it on
    the classic example, saw the same chart and took the toggle for broken)."""
    n = level_points_toggled(model.comparison,
                             [c for c, chip in enumerate(model.document.chips) if chip.visible])
    if n == 0:
        return _("Memory levels: no kernel here moves bytes through a level besides main memory "
                 "and the one limiting it, so the chart is the same on and off")
    if shown:
        return ngettext("Memory levels on: {n} more point, each kernel at every level it moves "
                        "bytes through", "Memory levels on: {n} more points, each kernel at "
                        "every level it moves bytes through", n).format(n=n)
    return ngettext("Memory levels off: {n} point fewer, each kernel at main memory and at the "
                    "level limiting it", "Memory levels off: {n} points fewer, each kernel at "
                    "main memory and at the level limiting it", n).format(n=n)


class MainWindow(QMainWindow):
    # Built right after the chart's first paint, one per turn of the event loop; the Kernels
    # tab is built when it is first shown.
    EAGER_PANELS = tuple(view.name for view in VIEWS if view.eager)
    sig_panels_built = Signal()  # the eager panels exist (emitted once)
    #: The docks' arrangement saved in the settings (widgets.app.views.layout_version).
    LAYOUT_VERSION = layout_version()

    def __init__(self, settings: Settings | None = None, presets: Presets | None = None,
                 model: DocumentModel | None = None) -> None:
        super().__init__()
        self.settings = settings or Settings()
        self.presets = presets or default_presets()
        self.model = model or DocumentModel()
        self.language_note: QMessageBox | None = None  # View → Language's word, while open
        self._restoring_view = False  # the view settings being put back at start (not saved)
        palette = QApplication.palette()
        self.canvas = CanvasPanel(self.model, self.presets,
                                  background=palette.color(QPalette.ColorRole.Base).name(),
                                  foreground=palette.color(QPalette.ColorRole.Text).name(),
                                  hold_labels=True)  # until the window is built
        self.setCentralWidget(self.canvas)
        self._holding = 0  # nested _docks_held
        self._docks_again: QSize | None = None  # the restored size, until the docks are back
        self._panels: dict[str, QWidget] = {}  # built on first use or just after the first paint
        self._panels_started = False  # the chain of _build_next_panel calls
        self._panels_announced = False
        self.guide = None  # Help → User guide's window, built on first use
        self.files = FileActions(self.model, self.settings, self, self.canvas)
        self.measure = MeasureActions(self.model, self.presets, self)
        self.measure.sig_message.connect(lambda m: self.statusBar().showMessage(m, 8000))
        self.autosave = Autosave(self.model, parent=self)
        self.autosave.sig_failed.connect(self._on_autosave_failed)
        self.docks = {view.name: self._dock(view) for view in VIEWS}
        self._place_docks()
        # A session with workloads shows them: their panels come forward when one is added.
        self._links: list[tuple] = []  # (model signal, slot): dropped when the window closes
        self._link(self.model.sig_document_changed, self._on_workloads_changed)
        self._workload_count = 0
        # every dock of each side: the tab in front of each group is the one measured
        self.dock_shares = DockShares(
            self, [self.docks[n] for n in ("hardware", "kernels", "workloads")],
            [self.docks[n] for n in ("table", "breakdown", "design", "energy", "serving",
                                     "explanation")])
        self._build_actions()
        self._undo_keys = DocumentUndoKeys(self)
        self._build_menus()
        self._menu_tips = MenuTipsBeside(self)
        for menu in self.menuBar().findChildren(QMenu):  # a hint cut in the status bar: whole
            menu.setToolTipsVisible(True)                # in the entry's tooltip (the tour),
            menu.installEventFilter(self._menu_tips)     # beside the menu
        self._build_toolbar()
        self.cursor_label = QLabel()
        self.statusBar().addPermanentWidget(self.cursor_label)
        # A message (a menu entry's hint, "Opened …") takes the whole bar while it shows: the
        # pointer's readout beside it cut it short (the tour)
        self.statusBar().messageChanged.connect(
            lambda message: self.cursor_label.setVisible(not message))
        self._cursor: tuple[float, float] | None = None
        self.canvas.sig_cursor_moved.connect(self._on_cursor_moved)
        self.files.sig_message.connect(lambda m: self.statusBar().showMessage(m, 5000))
        # The model outlives the window, or goes first at exit: its signals go to the window's
        # methods through _link, and are dropped when the window closes (a slot that ran after
        # Quit printed "Internal C++ object (MainWindow / QUndoStack) already deleted").
        self._link(self.model.sig_refused, self._say_long)
        self._link(self.model.sig_status, self._say_long)
        self._said_at = -1  # the history's step a status word describes (-1: none)
        self._last_index = self.model.undo_stack.index()
        self._link(self.model.undo_stack.indexChanged, self._unsay_on_undo)
        self._link(self.model.sig_document_changed, self._forget_on_open)
        self._link(self.model.sig_view_changed, self._on_view_changed)
        self._link(self.model.undo_stack.cleanChanged, self._update_title)
        self._link(self.model.sig_path_changed, self._update_title)
        self._link(self.model.sig_document_changed, self._update_title)
        self.resize(self.first_size())
        self.settings_restore()
        self._update_title()
        wrap_long_tips(self)  # the long plain tooltips shown wrapped (the panels', as built)
        self.canvas.release_labels()  # placed once, in the view first shown

    # -- panels -----------------------------------------------------------------------------------
    # The chart is what a user looks at first, so the window paints it before building the side
    # panels: each panel is built on first use, and the eager ones right after the first paint,
    # one per turn of the event loop (showEvent schedules it), the Kernels tab when first shown.
    def _panel(self, name: str) -> QWidget:
        panel = self._panels.get(name)
        if panel is None:
            panel = self._make_panel(name)
            self._panels[name] = panel
            wrap_long_tips(panel)  # its long tooltips shown wrapped
            with self._docks_held():
                self.docks[name].setWidget(panel)
        return panel

    @contextmanager
    def _docks_held(self):
        """The shown docks keep their sizes through what is done inside. A panel built into a
        shown dock (a tab first raised, a workload's panels brought forward) made the main
        window lay its docks out again from the panels' size hints: at 1280 x 800 adding a
        workload squeezed the bottom panels to 150 px (the tour), and the layout was saved so.
        The sizes are put back once the layout has moved them; a dock that went behind its tab
        gives its size to the tab in front. Nested holds leave it to the outermost."""
        self._holding += 1
        held = self._dock_sizes()
        try:
            yield
        finally:
            self._holding -= 1
        if self._holding == 0 and held:
            QTimer.singleShot(0, self, lambda: self._put_back(held))

    def _dock_sizes(self) -> list[tuple[QDockWidget, Qt.Orientation, int]]:
        """The shown docks' sizes across their areas: width on the left, width and height at
        the bottom."""
        out = []
        for view in VIEWS:
            dock = self.docks[view.name]
            # on screen (laid out), not merely visible: the placeholders before the first
            # layout have sizes that are nobody's to keep
            if dock.isVisible() and not dock.isFloating() and not dock.visibleRegion().isEmpty():
                out.append((dock, Qt.Orientation.Horizontal, dock.width()))
                if view.area == BOTTOM:
                    out.append((dock, Qt.Orientation.Vertical, dock.height()))
        return out

    def _put_back(self, held) -> None:
        if not self.isVisible():
            return
        by_orientation: dict = {}
        for dock, orientation, size in held:
            front = next((d for d in [dock, *self.tabifiedDockWidgets(dock)]
                          if not d.visibleRegion().isEmpty()), dock)
            by_orientation.setdefault(orientation, []).append((front, size))
        for orientation, pairs in by_orientation.items():
            self.resizeDocks([d for d, _s in pairs], [s for _d, s in pairs], orientation)

    def _make_panel(self, name: str) -> QWidget:
        return BY_NAME[name].make(self)

    def _build_next_panel(self) -> None:
        """Build the side panels, together, on the turn after the chart's first paint (one
        block, so the window lays out and repaints once, not once per panel)."""
        for name in self.EAGER_PANELS:
            self._panel(name)
        self._announce_panels()

    @property
    def panels_built(self) -> bool:
        return self._panels_announced

    def _announce_panels(self) -> None:
        if not self._panels_announced:
            self._panels_announced = True
            self.sig_panels_built.emit()

    def _on_workloads_changed(self, doc, _touched) -> None:
        """When workloads come (added, or a session with some opened), their panel and their
        breakdown come to the front; the Serving view instead when one of them carries a
        serving limit (a session saved while serving it, as the serving example)."""
        count = len(doc.workloads)
        opened = _touched is None  # a whole document: opened, an example, File → New
        if count > self._workload_count or (opened and count):
            serving = any(w.tpot_limit or w.ttft_limit for w in doc.workloads)
            with self._docks_held():
                self.docks["workloads"].raise_()
                self.docks["serving" if serving else "breakdown"].raise_()
        elif opened and not count:
            def in_front(name: str) -> bool:
                dock = self.docks[name]
                return dock.isVisible() and not dock.visibleRegion().isEmpty()

            # a document of kernels alone: not an empty breakdown or serving view (the tour
            # opened the CPU example on the last example's breakdown), the comparison instead;
            # nor an empty list of workloads, its kernels instead (the article's example opened
            # on the Llama example's Workloads tab: the seventeenth tour)
            with self._docks_held():
                if any(in_front(name) for name in ("breakdown", "serving")):
                    self.docks["table"].raise_()
                if in_front("workloads"):
                    self.docks["kernels"].raise_()
        self._workload_count = count

    def new_workload(self) -> None:
        self.docks["workloads"].raise_()
        self.workloads.new_workload()

    def open_model_config(self) -> None:
        from roofline_gui.widgets.panels.workloads.dialog import WorkloadDialog  # noqa: PLC0415

        dialog = WorkloadDialog(self.model, self)
        if not dialog.open_config():
            if dialog.error.text():  # not a cancelled file dialog: say what is wrong with it
                from roofline_gui.widgets.common.dialogs import Confirm  # noqa: PLC0415

                Confirm.error(self, "Could not open the model's config", dialog.error.text())
            return
        if dialog.exec() and dialog.workload is not None:
            ids = self.model.add_workloads([dialog.workload])
            if ids:
                self.model.select(ids[0], None)

    def _start_panels(self) -> None:
        if not self._panels_started:
            self._panels_started = True
            QTimer.singleShot(0, self, self._build_next_panel)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt API)
        super().showEvent(event)
        if not self._panels_started:
            if self._restored:  # the window manager may still take it to its saved (maximised)
                self.dock_shares.hold_next_resize()  # size: the docks keep their restored sizes
                # and their saved layout is put back once shown, and in that size if it comes
                # soon; a resize later is the user's
                QTimer.singleShot(0, self, self._put_docks_back)
                QTimer.singleShot(1000, self, self._forget_docks_again)
            self.canvas.overlay.viewport().installEventFilter(self)
            QTimer.singleShot(400, self, self._start_panels)  # in case no paint comes (minimised)

    def event(self, event) -> bool:  # noqa: D102 (Qt API)
        if event.type() == QEvent.Type.StatusTip:
            # a menu entry's or button's hint, fitted to the bar with "…" (the tour read the
            # Memory levels hint cut mid-word at 1280 px); the button's tooltip has it whole
            bar = self.statusBar()
            room = max(100, bar.width() - 24)
            bar.showMessage(bar.fontMetrics().elidedText(event.tip(), Qt.TextElideMode.ElideRight,
                                                         room))
            return True
        return super().event(event)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt API)
        """After the chart's first paint, build the panels from the next turn of the loop."""
        if event.type() == QEvent.Type.Paint and watched is self.canvas.overlay.viewport():
            watched.removeEventFilter(self)
            self._start_panels()
        return False

    # -- construction ---------------------------------------------------------------------------------
    def _dock(self, view: View) -> QDockWidget:
        dock = QDockWidget(_(view.title), self)
        dock.setObjectName(object_name(view))  # stable: the saved layout refers to it
        dock.setWidget(QWidget())  # the panel comes later (see _panel)
        self.addDockWidget(view.area, dock)
        if not view.eager:  # built when its tab is first shown
            dock.visibilityChanged.connect(lambda shown, name=view.name: shown and self._panel(name))
        return dock

    def _place_docks(self) -> None:
        """Each view where the table puts it: tabbed with another, or split beside it; the
        first of each tab group in front; first sizes where a view gives them."""
        # Splits first: a dock split beside one already in a tab group would join the tabs.
        for view in VIEWS:
            if view.beside is not None:
                self.splitDockWidget(self.docks[view.beside], self.docks[view.name],
                                     Qt.Orientation.Horizontal)
        for view in VIEWS:
            if view.tab_with is not None:
                self.tabifyDockWidget(self.docks[view.tab_with], self.docks[view.name])
        for view in VIEWS:
            if view.tab_with is None and view.beside is None:
                self.docks[view.name].raise_()
        row = [self.docks[v.name] for v in VIEWS if v.width is not None and v.area == BOTTOM]
        self.resizeDocks(row, [v.width for v in VIEWS if v.width is not None and v.area == BOTTOM],
                         Qt.Orientation.Horizontal)
        for view in VIEWS:
            if view.width is not None and view.area != BOTTOM:
                self.resizeDocks([self.docks[view.name]], [view.width], Qt.Orientation.Horizontal)
            if view.height is not None:  # (the window's first size is set after this)
                self.resizeDocks([self.docks[view.name]],
                                 [first_length(view.name, "height", self.first_size().height())],
                                 Qt.Orientation.Vertical)

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        action = QAction(self)
        _set_texts(action, text, tip)
        action.triggered.connect(slot)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        return action

    def _build_actions(self) -> None:
        key = QKeySequence.StandardKey
        files = self.files
        self.act_new = self._action(_("&New"), files.new, key.New)
        self.act_open = self._action(_("&Open…"), lambda: files.open(), key.Open)
        self.act_save = self._action(_("&Save"), files.save, key.Save)
        self.act_save_as = self._action(_("Save &As…"), files.save_as, key.SaveAs)
        self.act_png = self._action(_("Export &PNG…"), files.export_png, "Ctrl+E",
                                    _("Save the chart as a PNG image, legend included"))
        self.act_svg = self._action(_("Export S&VG…"), files.export_svg)
        self.act_pdf = self._action(_("Export P&DF…"), files.export_pdf)
        self.act_csv = self._action(_("Export &CSV…"), files.export_csv,
                                    tip=_("Save the comparison table (one row per chip and kernel)"))
        self.act_workloads_csv = self._action(
            _("Export &Workloads CSV…"), files.export_workloads_csv,
            tip=_("Save every workload on every chip: time, throughput, shares, dominant kernel"))
        self.serving_exports = [self._action(
            f"&{kind.upper()}…", lambda _=False, k=kind: files.export_serving(k),
            tip=(_("The Serving view's points: one row per chip and concurrency") if kind == "csv"
                 else _("The Serving view's chart, titled with its workload, requests and limits")))
            for kind in ("png", "svg", "pdf", "csv")]
        self.act_new_workload = self._action(
            _("&New Workload…"), self.new_workload, "Ctrl+Shift+W",
            _("A whole model as a workload: from an example, a config.json or the session's kernels"))
        self.act_open_config = self._action(
            _("&Open Model config.json…"), self.open_model_config,
            tip=_("A Hugging Face-style config.json on disk becomes a workload (nothing is downloaded)"))
        self.act_quit = self._action(_("&Quit"), self.close, key.Quit)
        stack = self.model.undo_stack
        # The menu's Undo/Redo name the command; the toolbar's keep a short, fixed text (so the
        # toolbar does not reflow at every edit) and name it in their tooltips.
        self.act_undo = stack.createUndoAction(self, _("&Undo"))
        self.act_undo.setShortcuts(QKeySequence.keyBindings(key.Undo))
        self.act_redo = stack.createRedoAction(self, _("&Redo"))
        redo_keys = QKeySequence.keyBindings(key.Redo)
        for extra in ("Ctrl+Y", "Ctrl+Shift+Z"):  # both, whichever the platform's standard is
            if QKeySequence(extra) not in redo_keys:
                redo_keys.append(QKeySequence(extra))
        self.act_redo.setShortcuts(redo_keys)
        self.tool_undo = StackAction(stack, "undo", self.act_undo.shortcut(), self)
        self.tool_redo = StackAction(stack, "redo", self.act_redo.shortcut(), self)
        self.act_delete = self._action(_("&Delete"), self.delete_selected, key.Delete,
                                       _("Delete the selected kernels, or the selected chip when "
                                       "the Hardware panel has the focus"))
        self.act_duplicate = self._action(_("D&uplicate"), self.duplicate_selected, "Ctrl+D",
                                          _("Duplicate the selected kernels, or the selected chip "
                                          "when the Hardware panel has the focus"))
        self.act_select_all = self._action(_("Select &All Kernels"), self.select_all_kernels,
                                           key.SelectAll, _("Select every kernel of the session"))
        self.act_find = self._action(_("&Find Chip or Kernel…"), self.find, key.Find,
                                     _("Find a chip or kernel of the session by name"))
        self.act_overlay = self._action(_("&Overlay"), partial(self.set_mode, "overlay"), "Ctrl+1",
                                        _("All chips on one chart"))
        self.act_side = self._action(_("&Side by side"), partial(self.set_mode, "side_by_side"),
                                     "Ctrl+2", _("One chart per chip, axes linked (View → Chart "
                                                 "only gives them the whole window)"))
        self.act_energy = self._action(_("&Energy (op/J)"), partial(self.set_mode, "energy"),
                                       "Ctrl+3", "")
        self._energy_texts(self.model.units.mac)
        group = QActionGroup(self)
        for action in (self.act_overlay, self.act_side, self.act_energy):
            action.setCheckable(True)
            group.addAction(action)
        self.act_overlay.setChecked(True)
        self.act_mac = self._action(_("Count &MACs (1 MAC = 2 ops)"), self.set_mac_units,
                                    tip=_("Show performance in MAC/s and intensity in MAC/B: every op counts "
                                          "as half a MAC, so an add (one op) reads as 0.5 MAC"))
        self.act_mac.setCheckable(True)
        self.act_mac.setIconText(_("Count MACs"))  # the toolbar's shorter name
        self.act_derated = self._action(
            _("&Achievable roofs (measured, else derated)"), self.set_derated,
            tip=_("Each ceiling's measured value where it has one, else its datasheet value × its "
                "achievable fraction; the datasheet roofs stay on the chart in long dashes"))
        self.act_derated.setCheckable(True)
        self.act_derated.setIconText(_("Achievable roofs"))  # the toolbar's shorter name
        # the chart alone in the window: at 1280 × 800 four charts side by side were 190 × 110
        # px each beside the panels (the eleventh tour)
        self.act_chart_only = self._action(
            _("C&hart only (hide the panels)"), self.set_chart_only, "Ctrl+Shift+H",
            tip=_("The chart takes the whole window; again (or Ctrl+Shift+H) brings the panels "
                  "back as they were"))
        self.act_chart_only.setCheckable(True)
        self._panels_state = None  # the layout before Chart only, which brings it back
        self.act_kernel_labels = self._action(_("&Kernel names on the chart"), self.set_kernel_labels,
                                              "Ctrl+L", tip=_("Each kernel's name beside its marker"))
        self.act_kernel_labels.setCheckable(True)
        self.act_kernel_labels.setChecked(True)
        self.act_levels = self._action(
            _("&Memory levels (a point per level)"), self.set_memory_levels, "Ctrl+Shift+L",
            tip=_("The hierarchical roofline: a kernel that moves bytes through several memory levels "
                "(on chip, main memory, the host link) gets a point at each level's intensity, "
                "joined by a line; the limiting level's point is filled and lies on its roof. "
                "Off: main memory, and the limiting level where that is another"))
        self.act_levels.setCheckable(True)
        self.act_levels.setIconText(_("Memory levels"))
        self.act_same_width = self._action(
            _("&Same-width precisions stand in"), self.set_same_width,
            tip=_("A chip without a kernel's precision runs it at its own precision of the same "
                "width: fp16 for bf16 (V100 against TPU v3), fp8 for int8, and back; each such "
                "cell says so"))
        self.act_same_width.setCheckable(True)
        self.act_bytes_per_op = self._action(
            _("Intensity as &B/F (bytes per op)"),
            lambda on: self.model.set_view(bytes_per_op=bool(on)), "Ctrl+Shift+B",
            _("Read intensity as bytes per op, B/F, as Japanese HPC courses do: the chart's x axis "
              "labelled with 1/intensity (the roofs stay where they are), the table's column and "
              "the explanation's machine B/F (bandwidth ÷ peak, the inverse of the ridge)"))
        self.act_bytes_per_op.setCheckable(True)
        self.act_about = self._action(_("&About Roofline Explorer"), self.show_about)
        self.act_guide = self._action(_("&User guide"), self.show_user_guide, key.HelpContents,
                                      _("The panels, the chart, sessions and exports explained "
                                      "(opens inside the app, offline)"))
        m = self.measure
        self.act_derive = self._action(
            _("&Derive what-if chip…"), self.derive_chip,
            tip=_("A copy of a chip with a factor per ceiling (compute, each precision, each memory "
                "level, capacity), named from its changes and added beside the original"))
        self.act_carbon = self._action(
            _("Grid &carbon intensity…"), lambda: self.set_carbon_intensity(),  # not triggered's bool
            tip=_("Your grid's kg CO2 per kWh, kept in the session: a training run's emissions "
                "(none is assumed)"))
        self.act_reset_what_if = self._action(
            _("Reset chip to &datasheet"), self.reset_chip_to_datasheet,
            tip=_("Every what-if ceiling of the selected chip back at its datasheet figure"))
        self.act_reset_what_if.setEnabled(False)  # until a chip with what-if ceilings is selected
        for signal in (self.model.sig_selection_changed, self.model.sig_document_changed):
            self._link(signal, self._update_reset_what_if)
        self.act_measure = self._action(_("&Measure this computer…"), lambda: m.measure_computer(),
                                        tip=_("Memory bandwidth per level and peak compute of this "
                                            "machine (about 30 s); the result becomes a chip, or "
                                            "the selected chip's measured values"))
        self.act_run = self._action(_("&Run selected kernel on this computer"), m.run_selected_kernel,
                                    "Ctrl+R", _("Time the selected kernel through numpy and draw "
                                              "its measured point beside its roof"))
        self.act_save_preset = self._action(_("Save selected chip as my &preset"), m.save_chip_as_preset,
                                            tip=_("Keep the chip (e.g. a measured machine) in the "
                                                "preset library for later sessions"))
        self.act_import_ncu = self._action(_("Import Nsight Compute CSV…"), m.import_ncu,
                                           tip=_("Kernels measured by ncu --csv --page raw"))
        self.act_import_csv = self._action(
            _("Import measurements CSV…"), m.import_plain,
            tip=_("name, precision, flops, bytes, time_s (Help → User guide, Measuring and importing)"))
        self.act_import_chips = self._action(
            _("Import chips from a file…"), m.import_chips,
            tip=_("The chip of a measurement (--measure --json) or the chips of a session"))

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu(_("&File"))
        for action in (self.act_new, self.act_open):
            file_menu.addAction(action)
        self.recent_menu = file_menu.addMenu(_("Open &Recent"))
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file_menu.addSeparator()
        for action in (self.act_save, self.act_save_as):
            file_menu.addAction(action)
        file_menu.addSeparator()
        import_menu = file_menu.addMenu(_("&Import"))
        import_menu.addAction(self.act_import_ncu)
        import_menu.addAction(self.act_import_csv)
        import_menu.addAction(self.act_import_chips)
        for action in (self.act_png, self.act_svg, self.act_pdf, self.act_csv,
                       self.act_workloads_csv):
            file_menu.addAction(action)
        serving_menu = file_menu.addMenu(_("Export Ser&ving View"))
        for action in self.serving_exports:
            serving_menu.addAction(action)
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        edit = bar.addMenu(_("&Edit"))
        edit.addAction(self.act_undo)
        edit.addAction(self.act_redo)
        edit.addSeparator()
        for action in (self.act_delete, self.act_duplicate, self.act_select_all):
            edit.addAction(action)
        edit.addSeparator()
        edit.addAction(self.act_find)
        view = bar.addMenu(_("&View"))
        for action in (self.act_overlay, self.act_side, self.act_energy):
            view.addAction(action)
        view.addSeparator()
        view.addAction(self.act_mac)
        view.addAction(self.act_derated)
        view.addAction(self.act_levels)
        view.addAction(self.act_same_width)
        view.addAction(self.act_bytes_per_op)
        view.addAction(self.act_kernel_labels)
        view.addSeparator()
        view.addAction(self.act_chart_only)
        for dock in self.docks.values():
            view.addAction(dock.toggleViewAction())
        view.addSeparator()
        self.language_menu = view.addMenu(_("&Language"))
        group = QActionGroup(self)
        self.language_actions = {}
        for code, name in LANGUAGES.items():
            action = self.language_menu.addAction(name)  # each in its own language
            action.setCheckable(True)
            action.setChecked(code == language())
            action.triggered.connect(partial(self.set_language, code))
            group.addAction(action)
            self.language_actions[code] = action
        workloads = bar.addMenu(_("&Workloads"))
        workloads.addAction(self.act_new_workload)
        workloads.addAction(self.act_open_config)
        workloads.addAction(self.act_workloads_csv)
        tools = bar.addMenu(_("&Tools"))
        for action in (self.act_measure, self.act_run, self.act_save_preset):
            tools.addAction(action)
        tools.addSeparator()
        tools.addAction(self.act_derive)
        tools.addAction(self.act_reset_what_if)
        tools.addSeparator()
        tools.addAction(self.act_carbon)
        help_menu = bar.addMenu(_("&Help"))
        help_menu.addAction(self.act_guide)
        examples_menu = help_menu.addMenu(_("&Examples"))
        # Filled when first opened (titles are read from the files, off the start-up path).
        examples_menu.aboutToShow.connect(partial(self._fill_examples, examples_menu))
        help_menu.addAction(self.act_about)

    def _fill_examples(self, menu) -> None:
        """Help → Examples: each example by its title, as its window title reads."""
        if menu.actions():
            return
        for path in examples():
            menu.addAction(_(example_title(path)), partial(self.files.open_example, path))

    def _build_toolbar(self) -> None:
        bar = QToolBar(_("Main"))
        bar.setObjectName("toolbar-main")
        self.addToolBar(bar)
        for action in (self.act_open, self.act_save, self.tool_undo, self.tool_redo):
            bar.addAction(action)
        bar.addSeparator()
        for action in (self.act_overlay, self.act_side, self.act_energy, self.act_mac,
                       self.act_derated, self.act_levels):
            bar.addAction(action)
        bar.addSeparator()
        bar.addWidget(QLabel(_(" All kernels at ")))
        self.precision_combo = QComboBox()
        self.precision_combo.addItem(_("(precision…)"), None)
        for p in PRECISIONS:
            self.precision_combo.addItem(p, p)
        # Each chip's own precision of a width: V100 (fp16) against TPU v3 (bf16) at 16 bits.
        self.precision_combo.addItem(_("16-bit, each chip's own (bf16 or fp16)"), "16-bit")
        self.precision_combo.addItem(_("8-bit, each chip's own (int8 or fp8)"), "8-bit")
        self.precision_combo.setToolTip(_("Switch every kernel to this precision: the roof used "
                                        "and the bytes moved both change, as mixed precision "
                                        "does. 16-bit and 8-bit run each chip at its own "
                                        "precision of that width (View → Same-width precisions stand "
                                        "in)"))
        self.precision_combo.activated.connect(self._on_all_precision)
        guard_wheel(self.precision_combo)  # a wheel passing over it changed every kernel
        bar.addWidget(self.precision_combo)

    # -- edit menu --------------------------------------------------------------------------------
    def _chips_have_focus(self) -> bool:
        focus = QApplication.focusWidget()
        dock = self.docks["hardware"]
        return focus is not None and (focus is dock or dock.isAncestorOf(focus))

    def _selected_workload(self):
        """The selected workload, when the selection is one (not a kernel)."""
        doc, selected = self.model.document, self.model.selected_kernel
        return next((w for w in doc.workloads if w.id == selected), None)

    def delete_selected(self) -> None:
        if self._chips_have_focus():
            self.hardware.delete()
        elif self._selected_workload() is not None:
            self.workloads.remove_selected(self._selected_workload())
        else:
            self.kernels.delete()

    def duplicate_selected(self) -> None:
        if self._chips_have_focus():
            self.hardware.duplicate()
        elif (workload := self._selected_workload()) is not None:
            copy = replace(workload, name=copy_name(
                workload.name, (w.name for w in self.model.document.workloads)))
            ids = self.model.add_workloads([copy], _("Duplicate {name}").format(name=workload.name))
            if ids:
                self.model.select(ids[0], None)
        else:
            self.kernels.duplicate()

    def select_all_kernels(self) -> None:
        self.docks["kernels"].show()
        self.docks["kernels"].raise_()
        self.kernels.select_all()

    def find(self) -> None:
        from roofline_gui.widgets.common.dialogs import FindDialog  # noqa: PLC0415

        found = FindDialog.ask(self.model.document, self)
        if found is None:
            return
        kind, item_id = found
        dock = self.docks["hardware" if kind == "chip" else "kernels"]
        dock.show()
        dock.raise_()
        if kind == "chip":
            self.model.select(None, item_id)
            self.hardware.view.setFocus()
        else:
            self.model.select(item_id, None)
            self.kernels.list.setFocus()

    # -- view state ---------------------------------------------------------------------------------
    # The view state is the model's (``model.view``): these set it, and _on_view_changed makes
    # the actions, the readout and the settings follow; the canvas, table and explanation
    # observe it themselves.
    def set_mode(self, mode: str) -> None:
        self.model.set_view(mode=mode)

    def set_mac_units(self, mac: bool) -> None:
        self.model.set_view(mac=bool(mac))

    def set_chart_only(self, on: bool) -> None:
        """Hide every panel so the chart takes the window (on), or bring the panels back as
        they were (off)."""
        on = bool(on)
        if on and self._panels_state is None:
            self._panels_state = (self.saveState(self.LAYOUT_VERSION), self._dock_sizes())
            for dock in self.docks.values():
                dock.hide()
        elif not on and self._panels_state is not None:
            state, held = self._panels_state
            self._panels_state = None
            self.restoreState(state, self.LAYOUT_VERSION)
            self._put_back(held)  # Qt's restored sizes drift a few pixels a time
        self.act_chart_only.setChecked(self._panels_state is not None)

    def set_kernel_labels(self, shown: bool) -> None:
        self.model.set_view(kernel_labels=bool(shown))

    def set_carbon_intensity(self, value: float | None = None) -> None:
        """Tools → Grid carbon intensity…: kg CO2 per kWh of the user's grid (0 to 10, 0 for a
        carbon-free supply), one undo step; kept in the session."""
        from PySide6.QtWidgets import QInputDialog  # noqa: PLC0415

        from roofline_gui.core.edits import SetField  # noqa: PLC0415

        if value is None:
            now = self.model.document.carbon_intensity
            value, ok = QInputDialog.getDouble(
                self, _("Grid carbon intensity"), _("kg CO2 per kWh of your grid (a training run's "
                "emissions are its MWh × this):"), now if now is not None else 0.4, 0.0, 10.0, 3)
            if not ok:
                return
        self.model.push(SetField("carbon_intensity", float(value)),
                        _("Set the grid's carbon intensity to {value} kg CO2/kWh").format(value=f"{value:g}"))

    def derive_chip(self) -> None:
        """Tools → Derive what-if chip…: the copy goes right after its original."""
        from roofline_gui.widgets.common.derive_dialog import DeriveDialog  # noqa: PLC0415

        chips = self.model.document.chips
        if not chips:
            self.statusBar().showMessage(_("Add a chip first: a what-if chip is derived from one"),
                                         5000)
            return
        dialog = DeriveDialog(chips, self.model.selected_chip, self)
        if dialog.exec() != DeriveDialog.DialogCode.Accepted:
            return
        derived = dialog.derived()
        if derived is None:
            return
        index = chips.index(dialog.original()) + 1
        new = self.model.add_chips([derived], index,
                                   text=_("Add what-if chip {name}").format(name=derived.name))
        if new:
            self.model.select(None, new[-1])

    def reset_chip_to_datasheet(self) -> None:
        chip = next((c for c in self.model.document.chips if c.id == self.model.selected_chip), None)
        if chip is None or not chip.is_what_if:
            self.statusBar().showMessage(
                _("Select a chip with what-if ceilings (a derived chip) to reset it"), 5000)
            return
        self.model.push(Replace("chips", chip.at_datasheet()),
                        _("Reset {name} to datasheet").format(name=chip.name))

    def set_language(self, code: str, _checked: bool = True) -> None:
        """View → Language: kept for the next start, and said so in both languages (the open
        views keep theirs until then)."""
        self.settings.set("language", code)
        if code == language():
            return
        note = _("The interface will be in {language} from the next start of Roofline "
                 "Explorer.").format(language=LANGUAGES[code])
        theirs = translated(code, "The interface will be in {language} from the next start of "
                                  "Roofline Explorer.").format(language=LANGUAGES[code])
        if self.settings.get("view/bytes_per_op") == "":  # B/F never set: it follows the
            # language, which the switch did not say (the tour found B/F on, unasked)
            bf = (_("Intensity will then read as B/F (bytes per op), as Japanese HPC courses "
                    "read it; View → Intensity as B/F turns it off.") if code == "ja" else
                  _("Intensity will then read as op/B, not B/F; View → Intensity as B/F turns "
                    "B/F back on."))
            note += " " + bf
            theirs += " " + translated(code, (
                "Intensity will then read as B/F (bytes per op), as Japanese HPC courses read "
                "it; View → Intensity as B/F turns it off.") if code == "ja" else (
                "Intensity will then read as op/B, not B/F; View → Intensity as B/F turns B/F "
                "back on."))
        # said in a box, each language in a paragraph of its own: in the status bar the two ran
        # past its right edge at 1280 px (the seventeenth tour)
        self.statusBar().showMessage(re.split(r"(?<=[.。])\s+|(?<=。)", note)[0], 15000)
        if self.language_note is not None:
            self.language_note.close()
        box = QMessageBox(QMessageBox.Icon.Information, _("Language"),
                          note if theirs == note else f"{note}\n\n{theirs}",
                          QMessageBox.StandardButton.Ok, self)
        box.setWindowModality(Qt.WindowModality.NonModal)  # nothing waits on it
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.finished.connect(lambda _result: setattr(self, "language_note", None))
        box.show()
        self.language_note = box

    def set_same_width(self, on: bool) -> None:
        self.model.set_view(same_width=bool(on))

    def set_memory_levels(self, shown: bool) -> None:
        self.model.set_view(memory_levels=bool(shown))
        self.statusBar().showMessage(memory_levels_message(self.model, bool(shown)), 10000)

    def set_derated(self, derated: bool) -> None:
        self.model.set_view(derated=bool(derated))

    def _energy_texts(self, mac: bool) -> None:
        """The Energy mode's name and hint in the unit the chart counts (with Count MACs the
        button said op/J over a MAC/J axis: the tour)."""
        _set_texts(self.act_energy, _("&Energy (MAC/J)") if mac else _("&Energy (op/J)"),
                   _("The chart's y axis in MAC per joule: each chip's energy roofline, or "
                     "switched, its roof under the board power (Help → User guide, Energy)")
                   if mac else
                   _("The chart's y axis in op per joule: each chip's energy roofline, or "
                     "switched, its roof under the board power (Help → User guide, Energy)"))

    def _on_view_changed(self, view, changed) -> None:
        {"overlay": self.act_overlay, "side_by_side": self.act_side,
         "energy": self.act_energy}[view.mode].setChecked(True)
        self.act_mac.setChecked(view.mac)
        if "mac" in changed:
            self._energy_texts(view.mac)
        self.act_derated.setChecked(view.derated)
        self.act_kernel_labels.setChecked(view.kernel_labels)
        self.act_levels.setChecked(view.memory_levels)
        self.act_same_width.setChecked(view.same_width)
        self.act_bytes_per_op.setChecked(view.bytes_per_op)
        if changed & {"mac", "bytes_per_op"} and self._cursor is not None:  # the readout follows
            self._on_cursor_moved(*self._cursor)
        if self._restoring_view:  # the settings' own values coming back: nothing to keep
            return
        for name, key in (("mode", "view/mode"), ("mac", "view/mac_units"), ("derated", "view/derated"),
                          ("kernel_labels", "view/kernel_labels"),
                          ("memory_levels", "view/memory_levels"),
                          ("same_width", "view/same_width"),
                          ("bytes_per_op", "view/bytes_per_op")):
            if name in changed:
                self.settings.set(key, getattr(view, name))

    def _on_all_precision(self, index: int) -> None:
        precision = self.precision_combo.itemData(index)
        self.precision_combo.setCurrentIndex(0)
        if precision is None:
            return
        if precision in WIDTHS:  # each chip's own precision of that width stands in
            precision = WIDTHS[precision]
            self.model.set_view(same_width=True)
        edits = tuple(Replace("kernels", k.with_precision(precision)) for k in self.model.document.kernels
                      if k.precision != precision or k.storage_precision)
        if edits:
            self.model.push(Batch(edits), _("All kernels to {precision}").format(precision=precision))

    def _on_cursor_moved(self, intensity: float, performance: float) -> None:
        """The pointer's place on the chart, in op/B and op/s (shown in the model's units);
        NaN: the pointer is off the charts, and the readout goes."""
        if math.isnan(intensity) or math.isnan(performance):
            self._cursor = None
            self.cursor_label.clear()
            return
        self._cursor = (intensity, performance)
        units = self.model.units
        shown = units.intensity(intensity)
        text = (_("B/F {bf} B/{unit}   performance {rate}") if self.model.view.bytes_per_op else
                _("intensity {intensity} {unit}/B   performance {rate}"))
        self.cursor_label.setText(text.format(
            intensity=_three_figures(shown), bf=_three_figures(1 / shown) if shown > 0 else "∞",
            unit=units.word, rate=units.format_rate(performance, 3)))

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.recent_files():
            self.recent_menu.addAction(path, partial(self.files.open, path))
        if not self.settings.recent_files():
            self.recent_menu.addAction(_("(none)")).setEnabled(False)

    def _link(self, signal, slot) -> None:
        signal.connect(slot)
        self._links.append((signal, slot))

    def _unlink(self) -> None:
        """Drop every connection from the model to this window (it is closing)."""
        for signal, slot in self._links:
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):  # already gone with its sender
                pass
        self._links.clear()

    def _say_long(self, message: str) -> None:
        self.statusBar().showMessage(message, 8000)
        # said of the edit at this step of the history: an undo past it takes it away (the
        # tour: "compute ×1, main memory ×9.22" stayed after Ctrl+Z of the drag it described)
        self._said_at = self.model.undo_stack.index()

    def _unsay_on_undo(self, index: int) -> None:
        said_at, last = self._said_at, self._last_index
        self._last_index = index
        if said_at < 0:
            return
        if index > last:  # the edit the word describes is pushed after it is said
            self._said_at = index
        elif index < said_at:
            self._said_at = -1
            self.statusBar().clearMessage()

    def _forget_on_open(self, doc, touched) -> None:
        """Another document: the last one's word and the pointer's readout go; the readout
        goes too when the last chip does (it read on under an empty chart: the tour)."""
        if touched is None:
            self._said_at = -1
            self.statusBar().clearMessage()
        if touched is None or not doc.chips:
            self._on_cursor_moved(math.nan, math.nan)

    def _update_reset_what_if(self, *_args) -> None:
        self.act_reset_what_if.setEnabled(any(c.id == self.model.selected_chip and c.is_what_if
                                              for c in self.model.document.chips))

    def _update_title(self, *_args) -> None:
        if not shiboken6.isValid(self.model.undo_stack) or not shiboken6.isValid(self):
            return  # a script's window never closed: Python's exit deletes the stack first
        title = f"{self.files.display_name()}[*] — Roofline Explorer"
        if title != self.windowTitle():
            self.setWindowTitle(title)
        self.setWindowModified(not self.model.undo_stack.isClean())

    def show_about(self) -> None:
        QMessageBox.about(self, _("About Roofline Explorer"), about_text())

    def show_user_guide(self) -> None:
        """The guide's window (one, built on first use), brought to the front."""
        if self.guide is None:
            from roofline_gui.widgets.common.guide_dialog import UserGuideDialog  # noqa: PLC0415

            self.guide = UserGuideDialog(self)
        self.guide.show()
        self.guide.raise_()
        self.guide.activateWindow()

    # -- settings and closing ----------------------------------------------------------------------------
    #: The window's first size where the screen has room for it; on a smaller screen (a
    #: 1280 x 800 laptop) the screen's available area less room for the title bar and frame.
    FIRST_SIZE = (1500, 940)
    FRAME = (16, 48)

    def first_size(self) -> QSize:
        screen = self.screen() or QApplication.primaryScreen()
        if screen is None:
            return QSize(*self.FIRST_SIZE)
        room = screen.availableGeometry()
        return QSize(min(self.FIRST_SIZE[0], room.width() - self.FRAME[0]),
                     min(self.FIRST_SIZE[1], room.height() - self.FRAME[1]))

    def settings_restore(self) -> None:
        geometry, state = self.settings.get("window/geometry"), self.settings.get("window/state")
        if not geometry.isEmpty():
            self.restoreGeometry(geometry)
        if not state.isEmpty() and self.restoreState(state, self.LAYOUT_VERSION):
            # the tabs in front when it closed, once the window is laid out (raised before,
            # a later tab's group came back a tab bar shorter: the same 26 px a start)
            front = [n for n in self.settings.get("window/front") if n in self.docks]
            QTimer.singleShot(0, self, lambda: self._bring_forward(front))
            # The docks put back at the sizes they were left at once the window is shown, and
            # again in its final size: restored before the show, the docks were laid out
            # before their panels (the Kernels tab in front came back 4 to 50 px taller, the
            # bottom panels that much shorter: the seventh tour at 1280 x 800); and a window
            # saved maximised is restored at its normal size, then maximised, the step's
            # height going to one dock.
            self._docks_again = self.size()
        self._restored = not geometry.isEmpty()
        mode = self.settings.get("view/mode")
        # kept as they are: B/F never set follows the language at each start, and saving the
        # start's own value made it the user's choice (on after switching to English: the tour)
        self._restoring_view = True
        self.model.set_view(mode=mode if mode in ("overlay", "side_by_side", "energy") else "overlay",
                            mac=bool(self.settings.get("view/mac_units")),
                            derated=bool(self.settings.get("view/derated")),
                            kernel_labels=bool(self.settings.get("view/kernel_labels")),
                            memory_levels=bool(self.settings.get("view/memory_levels")),
                            same_width=bool(self.settings.get("view/same_width")),
                            bytes_per_op=self._bytes_per_op_setting())
        self._restoring_view = False

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt API)
        super().resizeEvent(event)
        if (self._docks_again is not None and self.isVisible()
                and event.size() != self._docks_again):  # the restored size to the saved one
            QTimer.singleShot(0, self, self._put_docks_back)

    def _forget_docks_again(self) -> None:
        self._docks_again = None  # a resize from now on is the user's

    def _put_docks_back(self) -> None:
        """The docks shown when the window closed, at the sizes they had (Qt's restoreState,
        called again here once the panels are in, crashed in a panel's first build)."""
        if self._docks_again is None:
            return
        sizes = {}
        for entry in self.settings.get("window/dock_sizes"):
            name, _sep, rest = entry.partition(":")
            try:
                width, height = (int(v) for v in rest.split(":"))
            except ValueError:
                continue
            if name in self.docks and width > 0 and height > 0:
                sizes[name] = (width, height)
        # on a smaller window than the one they were left in (a start at 1280 × 800 after one
        # at 1920 × 1080), each size shrunk with the window: kept as they were, the left panel
        # took 650 px and left the chart 440 × 170, its titles cut (the 39th tour)
        try:
            was_w, was_h = (int(v) for v in str(self.settings.get("window/size")).split(":"))
        except ValueError:
            was_w = was_h = 0
        fx = min(1.0, self.width() / was_w) if was_w > 0 else 1.0
        fy = min(1.0, self.height() / was_h) if was_h > 0 else 1.0
        shrunk = {name: (round(w * fx), round(h * fy)) for name, (w, h) in sizes.items()}
        shown = [name for name in sizes if self.docks[name].isVisible()
                 and not self.docks[name].isFloating()
                 and not self.docks[name].visibleRegion().isEmpty()]
        for area, across in ((Qt.DockWidgetArea.LeftDockWidgetArea, Qt.Orientation.Horizontal),
                             (Qt.DockWidgetArea.BottomDockWidgetArea, Qt.Orientation.Vertical)):
            docks = [self.docks[n] for n in shown if self.dockWidgetArea(self.docks[n]) == area]
            if not docks:
                continue
            # the area's depth (the left's width, the bottom's height) from its first dock,
            # then its docks' lengths along it (the bottom's table and explanation widths)
            # (a height with the tab bar under a tabified dock: resizeDocks sizes the area)
            # (the area's depth no less than a first start gives it in this window, where it
            # was left deeper: shrunk in proportion from 1920 × 1080, the bottom panels came
            # back 210 px tall at 1280 × 800, the table 3½ rows, where a first start there
            # gives them 290: the 44th tour)
            def length(dock, orientation, floor=False):
                name = dock.objectName().removeprefix("dock-")
                (width, height), (small_w, small_h) = sizes[name], shrunk[name]
                least = dock.minimumSizeHint()  # (never asked below its least)
                bar = self.dock_shares.tab_bar(dock)
                if orientation == Qt.Orientation.Horizontal:
                    if floor:
                        small_w = min(width, max(small_w, first_length(name, "width")))
                    return max(small_w, least.width())
                if floor:
                    small_h = min(height, max(small_h, first_length(name, "height", self.height())
                                                   - bar))
                return max(small_h, least.height()) + bar

            self.resizeDocks([docks[0]], [length(docks[0], across, floor=True)], across)
            if len(docks) > 1:
                along = (Qt.Orientation.Vertical if across == Qt.Orientation.Horizontal
                         else Qt.Orientation.Horizontal)
                self.resizeDocks(docks, [length(d, along) for d in docks], along)

    def _bring_forward(self, names: list[str]) -> None:
        """Raise the docks ``names`` (the tabs in front when the window closed), each panel
        built first: raised unbuilt, a tab built its panel from inside Qt's raise, which, the
        window maximised with the Workload breakdown in front, crashed every later start
        (a segmentation fault at the restore, until the settings were deleted: the tour)."""
        if not self.model.document.workloads:  # the session opened has none: not their
            # empty list (a restart after a session of workloads brought it to the front over
            # the example's kernels: the third tour), the kernels instead; nor their empty
            # breakdown or serving view, the comparison instead (a restart in Japanese on the
            # classic kernels opened on an empty breakdown: the 36th tour)
            instead = {"workloads": "kernels", "breakdown": "table", "serving": "table"}
            names = list(dict.fromkeys(instead.get(name, name) for name in names))
        for name in names:
            self._panel(name)
        for name in names:
            self.docks[name].raise_()
        if self._docks_again is not None:  # the panels just built: their docks put back again
            QTimer.singleShot(0, self, self._put_docks_back)

    def _bytes_per_op_setting(self) -> bool:
        """View → Intensity as B/F as the user left it; never set, on in Japanese (as Japanese
        HPC courses read intensity), off in English."""
        saved = self.settings.get("view/bytes_per_op")
        return language() == "ja" if saved == "" else str(saved).lower() in ("true", "1")

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt API)
        if background.busy():  # a file is being read or written: close once it is done
            self.statusBar().showMessage(
                _("Still reading or writing a file; close again when it is done."), 5000)
            event.ignore()
            return
        if not self.files.maybe_save():
            event.ignore()
            return
        if self._panels_state is not None:  # the panels come back at the next start as they were
            self.set_chart_only(False)
            QApplication.processEvents()  # laid out: which tab is in front is read next
        self.settings.set("window/geometry", self.saveGeometry())
        # Qt's saved layout of a tab group whose later tab is in front comes back a tab bar
        # shorter (26 px a start, until the panels reached their minimum: the tour); saved with
        # each group's first tab in front it comes back whole, and the tabs in front are
        # brought forward again at the next start.
        front = [name for name, dock in self.docks.items()
                 if dock.isVisible() and not dock.visibleRegion().isEmpty()]
        self.settings.set("window/front", front)
        self.settings.set("window/size", f"{self.width()}:{self.height()}")
        self.settings.set("window/dock_sizes", [
            f"{name}:{self.docks[name].width()}:{self.docks[name].height()}" for name in front
            if not self.docks[name].isFloating()])
        for view in VIEWS:
            if view.tab_with is None and view.beside is None:
                self.docks[view.name].raise_()
        self.settings.set("window/state", self.saveState(self.LAYOUT_VERSION))
        self.settings.sync()
        self.autosave.close()
        self._unlink()
        event.accept()

    def _on_autosave_failed(self, message: str) -> None:
        self.statusBar().showMessage(_("Autosave failed: {message}").format(message=message), 10000)

    def offer_recovery(self) -> bool:
        """Offer sessions journaled by windows that crashed; True if one was recovered."""
        journals = []
        for path in orphaned_journals(self.autosave.folder):
            try:
                journals.append(read_journal(path))
            except RooflineError:
                continue  # unreadable (e.g. cut short by the crash): left for the user to inspect
        if not journals:
            return False
        choice, index = RecoveryDialog.ask([j.describe() for j in journals], self)
        if choice == "discard":
            for journal in journals:
                discard_journal(journal.path)
            return False
        if choice != "recover":
            return False
        journal = journals[index]
        source = Path(journal.source_path) if journal.source_path else None
        # The file as last saved (or an empty session) becomes the clean state and the recovered
        # edits one undo step on top of it: undoable, and unsaved work until saved.
        base = Document()
        if source is not None and source.is_file():
            try:
                base = load_session(source)
            except RooflineError:
                base = Document()
        self.model.reset(base, source)
        self.model.push(transform(base, journal.document), _("Recover unsaved work"))
        discard_journal(journal.path)
        self.statusBar().showMessage(_("Recovered {what}").format(what=journal.describe()), 10000)
        return True

    def open_initial(self, path: str | None, document=None) -> None:
        """Recovery first; then a session from the command line (``document``: one made there,
        with the file it came from, ``--model``), else the example on first start, else the
        example shown when the app last closed, else the last file."""
        if self.offer_recovery():
            return
        if document is not None:
            self.files.adopt(*document)
            return
        if path:
            self.files.open(path)
            return
        recent = [p for p in self.settings.recent_files() if Path(p).exists()]
        stem = self.settings.get("last_example")
        last = example_named(stem) if stem else None
        if self.settings.get("first_start_done") and last:
            self.files.open_example(last)
            return
        if self.settings.get("first_start_done") and recent:
            self.files.open(recent[0])
            return
        self.settings.set("first_start_done", True)
        example = example_named("a100-vs-tpu-v3")
        if example:
            self.files.open_example(example)


def _panel_property(name: str) -> property:
    return property(lambda window: window._panel(name), doc=f"The {name} view's panel (built on first use).")


for _view in VIEWS:  # window.hardware, window.energy, ...: each view's panel, by its stable name
    setattr(MainWindow, _view.name, _panel_property(_view.name))


def _three_figures(x: float) -> str:
    """A readout's number: three figures, without an exponent from 1,000 up ("1,890 op/B", not
    "1.89e+03": the second tour)."""
    return f"{float(f'{x:.3g}'):,.0f}" if abs(x) >= 1000 else f"{x:,.3g}"


def _set_texts(action: QAction, text: str, tip: str = "") -> None:
    """An action's text, its toolbar button's and its hints."""
    action.setText(text)
    action.setIconText(re.sub(r"\s*\(&.\)", "", text).replace("&", "").rstrip("…")
                       if "(&" in text else "")  # a Japanese "開く(&O)": the button "開く"
    action.setStatusTip(tip or text.replace("&", "").rstrip("…"))
    # a toolbar button's tooltip: the whole hint, wrapped (rich text)
    action.setToolTip(fitted_tip(tip) if len(tip) > TIP_WRAP else "")
