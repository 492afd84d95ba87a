"""Everyday use, as a person drives the window all day: keys, search dialogs, names that say what a
kernel is, a formula that follows the typing, a layout that fits a 1280×800 laptop."""

from dataclasses import replace

import numpy as np
import pytest
from helpers import drag_mouse, mouse
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtWidgets import QApplication, QDialog, QToolBar, QToolButton

from roofline_gui.core.edits import Replace
from roofline_gui.core.kernel import Kernel
from roofline_gui.io.presets import default_presets
from roofline_gui.models.item_models import ID_ROLE
from roofline_gui.widgets.common.dialogs import ChipPresetDialog, FindDialog, RecoveryDialog
from roofline_gui.widgets.panels.kernel_library import TemplateDialog, formula_text

CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier


def focus(qtbot, widget):
    widget.window().activateWindow()
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus, timeout=2000)


def select_kernel(window, qtbot, kernel_id):
    window.docks["kernels"].raise_()
    window.model.select(kernel_id, None)
    QApplication.processEvents()  # a new form's fields are shown on the next turn of the loop
    focus(qtbot, window.kernels.list)


# -- 1. keyboard ----------------------------------------------------------------------------------
def test_ctrl_y_and_ctrl_shift_z_both_redo_and_the_menu_lists_them(window, qtbot):
    model = window.model
    model.move_kernel_to_intensity(model.document.kernels[2].id, 30.0)
    edited = model.document
    focus(qtbot, window.canvas)
    for keys in ((Qt.Key.Key_Y, CTRL), (Qt.Key.Key_Z, CTRL | SHIFT)):
        qtbot.keyClick(window.canvas, Qt.Key.Key_Z, CTRL)
        assert model.document != edited
        qtbot.keyClick(window.canvas, *keys)
        assert model.document == edited
    shortcuts = {s.toString() for s in window.act_redo.shortcuts()}
    assert {"Ctrl+Y", "Ctrl+Shift+Z"} <= shortcuts
    edit_menu = next(m for m in window.menuBar().actions() if m.text() == "&Edit").menu()
    listed = {a.text().replace("&", ""): a.shortcut().toString() for a in edit_menu.actions()}
    assert listed["Delete"] == "Del"
    assert listed["Duplicate"] == "Ctrl+D"
    assert listed["Select All Kernels"] == "Ctrl+A"
    assert listed["Find Chip or Kernel…"] == "Ctrl+F"


def test_delete_key_removes_the_selected_kernel_or_the_focused_chip(window, qtbot):
    model = window.model
    victim = model.document.kernels[3]
    select_kernel(window, qtbot, victim.id)
    qtbot.keyClick(window.kernels.list, Qt.Key.Key_Delete)
    assert victim.id not in [k.id for k in model.document.kernels]
    assert model.undo_stack.count() == 1
    # In a text field the key edits the text and deletes nothing.
    kernels = model.document.kernels
    model.select(kernels[0].id, None)
    focus(qtbot, window.kernels.form.name_edit)
    window.kernels.form.name_edit.setCursorPosition(0)
    qtbot.keyClick(window.kernels.form.name_edit, Qt.Key.Key_Delete)
    assert model.document.kernels == kernels
    # With the chip list focused, Delete removes the chip.
    window.docks["hardware"].raise_()
    chip = model.document.chips[1]
    model.select(None, chip.id)
    focus(qtbot, window.hardware.view)
    qtbot.keyClick(window.hardware.view, Qt.Key.Key_Delete)
    assert [c.id for c in model.document.chips] == [model.document.chips[0].id]
    assert chip.id not in [c.id for c in model.document.chips]


def test_duplicate_and_select_all_kernels_from_the_keyboard(window, qtbot):
    model = window.model
    n = len(model.document.kernels)
    select_kernel(window, qtbot, model.document.kernels[0].id)
    qtbot.keyClick(window.kernels.list, Qt.Key.Key_D, CTRL)
    assert len(model.document.kernels) == n + 1
    qtbot.keyClick(window.kernels.list, Qt.Key.Key_A, CTRL)
    assert sorted(window.kernels.selected_ids()) == sorted(k.id for k in model.document.kernels)
    qtbot.keyClick(window.kernels.list, Qt.Key.Key_Delete)  # several at once, one undo step
    assert model.document.kernels == ()
    model.undo_stack.undo()
    assert len(model.document.kernels) == n + 1


def test_find_dialog_takes_enter_and_selects_what_it_found(window, qtbot, monkeypatch):
    dialog = FindDialog(window.model.document)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.keyClicks(dialog.search, "tpu")
    qtbot.keyClick(dialog.search, Qt.Key.Key_Return)
    assert dialog.result() == QDialog.DialogCode.Accepted
    tpu = next(c for c in window.model.document.chips if "TPU" in c.name)
    assert [(i.data(Qt.ItemDataRole.UserRole + 7), i.data(Qt.ItemDataRole.UserRole + 1))
            for i in dialog.picked()][0][0] == "chip"
    monkeypatch.setattr(FindDialog, "ask", classmethod(lambda cls, doc, parent=None: ("chip", tpu.id)))
    qtbot.keyClick(window.canvas, Qt.Key.Key_F, CTRL)
    assert window.model.selected_chip == tpu.id
    assert window.hardware.view.hasFocus()


# -- 2. add chips dialog ------------------------------------------------------------------------------
def test_add_chips_dialog_enter_takes_the_first_match_and_arrows_move(qtbot):
    presets = default_presets()
    dialog = ChipPresetDialog(presets)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.keyClicks(dialog.search, "H100")
    first, second = (dialog.proxy.index(r, 0).data(ID_ROLE) for r in range(2))
    assert "H100" in presets.chips[first].name and "H100" in presets.chips[second].name
    qtbot.keyClick(dialog.search, Qt.Key.Key_Return)
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert dialog.selected_ids() == [first]

    dialog = ChipPresetDialog(presets)
    qtbot.addWidget(dialog)
    dialog.show()
    focus(qtbot, dialog.search)
    qtbot.keyClicks(dialog.search, "H100")
    qtbot.keyClick(dialog.search, Qt.Key.Key_Down)  # from the field into the list
    assert dialog.view.hasFocus()
    assert dialog.view.currentIndex().data(ID_ROLE) == second
    qtbot.keyClick(dialog.view, Qt.Key.Key_Up, SHIFT)  # several: Shift+arrow extends
    assert sorted(dialog.selected_ids()) == sorted([first, second])


# -- 3. names ------------------------------------------------------------------------------------------
def test_template_kernels_are_named_from_their_parameters_and_follow_a_drag(window, qtbot):
    dialog = TemplateDialog()
    qtbot.addWidget(dialog)
    dialog.template.setCurrentIndex(dialog.template.findData("mlp"))
    names = []
    for batch in (8, 48):
        field = dialog.params.fields["batch"]
        field.setText(str(batch))
        field.editingFinished.emit()
        names.append(dialog.kernel().name)
    assert names[0] != names[1]
    assert "batch 8" in names[0] and "batch 48" in names[1]

    # A drag moves the batch and the name keeps in step (the table shows the same name).
    from test_app import _marker_viewport_pos

    model = window.model
    kernel = next(k for k in model.document.kernels if k.template == "mlp" and k.params["batch"] == 1)
    assert "batch 1 " in kernel.name
    start, vb = _marker_viewport_pos(window, kernel.id)
    end = QPointF(window.canvas.overlay.mapFromScene(vb.mapViewToScene(QPointF(np.log10(10.0), 13.0))))
    drag_mouse(window.canvas.overlay.viewport(), start, end)
    moved = model.document.kernel(kernel.id)
    batch = moved.params["batch"]
    assert batch != 1 and f"batch {batch:g} " in moved.name
    row = [k.id for k in model.document.kernels].index(kernel.id)
    table = window.table.table_model
    assert table.index(table.view_row(row), 0).data() == moved.name
    # A name the user chose is kept.
    model.push(Replace("kernels", replace(moved, name="my layer")), "rename")
    model.move_kernel_to_intensity(kernel.id, 3.0)
    assert model.document.kernel(kernel.id).name == "my layer"


# -- 4. live formula ------------------------------------------------------------------------------------
def test_formula_follows_one_keystroke_and_the_kernel_changes_on_enter(window, qtbot):
    model = window.model
    kernel = next(k for k in model.document.kernels if k.template == "mlp" and k.params["batch"] == 1)
    select_kernel(window, qtbot, kernel.id)
    form = window.kernels.form
    field = form.params.fields["batch"]
    focus(qtbot, field)
    field.selectAll()
    before = form.formula.toPlainText()
    qtbot.keyClicks(field, "7")
    after = form.formula.toPlainText()
    assert after != before
    assert after == formula_text(kernel.with_params(batch=7))
    assert model.document.kernel(kernel.id).params["batch"] == 1  # not committed yet
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert model.document.kernel(kernel.id).params["batch"] == 7
    assert model.undo_stack.count() == 1


# -- 5. layout at 1280×800 ------------------------------------------------------------------------------
def _settle(qtbot):
    for _ in range(5):
        QApplication.processEvents()
    qtbot.wait(20)


def test_at_1280_by_800_the_table_shows_its_units_and_the_toolbar_fits(window, qtbot):
    window.resize(1280, 800)
    _settle(qtbot)
    view, table = window.table.view, window.table.table_model
    metrics = view.fontMetrics()
    rows = table.rowCount()
    assert rows == 9
    # Compact rows: most of them on screen, not 3 of 10.
    assert view.rowHeight(0) <= metrics.height() + 6
    assert view.viewport().height() >= 5 * view.rowHeight(0)
    # Every chip's values fit their columns, units included.
    for column in range(table.columnCount()):
        located = table.locate(column)
        if located is None or located[1] == "limiter":
            continue
        for row in range(rows):
            text = table.index(row, column).data()
            assert metrics.horizontalAdvance(text) < view.columnWidth(column), (column, text)
        if located[1] in ("attainable", "time"):
            unit = "op/s" if located[1] == "attainable" else "s"
            assert any(table.index(row, column).data().endswith(unit) for row in range(rows))
    # The first chip's value and time are on screen without scrolling.
    first_time = next(c for c in range(table.columnCount()) if table.locate(c) == (0, "time"))
    assert view.columnViewportPosition(first_time) + view.columnWidth(first_time) <= view.viewport().width()
    # No measurement in this session: no empty Measured column.
    assert view.isColumnHidden(window.table.MEASURED_COLUMN)
    # The toolbar fits: nothing in the overflow, and an edit does not change it.
    bar = window.findChild(QToolBar, "toolbar-main")
    extension = [b for b in bar.findChildren(QToolButton) if b.objectName() == "qt_toolbar_ext_button"]
    assert not any(b.isVisible() for b in extension)
    width_before = bar.sizeHint().width()
    window.model.move_kernel_to_intensity(window.model.document.kernels[2].id, 30.0)
    assert bar.sizeHint().width() == width_before
    assert window.act_undo.text().startswith("&Undo Move")  # the menu names the command
    toolbar_undo = next(a for a in bar.actions() if a.text() == "Undo")
    assert "Ctrl+Z" in toolbar_undo.toolTip() and len(toolbar_undo.toolTip()) > len("Undo (Ctrl+Z)")


def test_an_inline_error_does_not_move_the_panel(window, qtbot):
    kernel = next(k for k in window.model.document.kernels if k.template == "mlp")
    select_kernel(window, qtbot, kernel.id)
    fields = window.kernels.form.params.fields
    batch, other = fields["batch"], next(f for n, f in fields.items() if n != "batch")
    _settle(qtbot)
    where = other.mapTo(window, other.rect().topLeft())
    focus(qtbot, batch)
    batch.selectAll()
    qtbot.keyClicks(batch, "x")
    qtbot.keyClick(batch, Qt.Key.Key_Return)
    _settle(qtbot)
    message = batch.parentWidget().message
    assert message.isVisible() and message.text()
    assert other.mapTo(window, other.rect().topLeft()) == where
    batch.setText("4")
    qtbot.keyClick(batch, Qt.Key.Key_Return)
    _settle(qtbot)
    assert not message.isVisible()
    assert other.mapTo(window, other.rect().topLeft()) == where


def test_resizing_back_to_the_default_size_restores_the_proportions(window, qtbot):
    window.resize(1500, 940)
    _settle(qtbot)
    docks = window.docks

    def sizes():
        return (docks["hardware"].width(), docks["table"].width(), docks["table"].height(),
                docks["explanation"].width())

    before = sizes()
    for size in ((1280, 800), (1000, 650), (1500, 940)):
        window.resize(*size)
        _settle(qtbot)
        if size == (1280, 800):
            # Each dock keeps its share of the window (the left one may stop at its minimum).
            assert docks["table"].height() == pytest.approx(before[2] * 800 / 940, abs=3)
    assert sizes() == pytest.approx(before, abs=3)


# -- 6. smaller things -------------------------------------------------------------------------------
def test_save_as_under_another_name_takes_the_file_name_and_suggests_no_colon(window, tmp_path,
                                                                                monkeypatch):
    from roofline_gui.widgets.app.file_actions import FileDialogs

    assert ":" in window.model.document.title
    assert window.windowTitle().startswith(window.model.document.title)  # not "Untitled"
    suggested = []
    monkeypatch.setattr(FileDialogs, "save_path", classmethod(
        lambda cls, parent, s: suggested.append(s) or str(tmp_path / "h100 study.roofline")))
    assert window.files.save_as()
    assert ":" not in suggested[0].rsplit("/", 1)[-1]
    assert window.model.document.title == "h100 study"
    assert window.windowTitle().startswith("h100 study.roofline")
    assert window.model.undo_stack.isClean()


def test_selection_rings_follow_a_dragged_kernel(window, qtbot):
    from test_app import _marker_viewport_pos

    model = window.model
    kernel = next(k for k in model.document.kernels if k.template == "mlp" and k.params["batch"] == 1)
    model.select(kernel.id, None)
    plot = window.canvas.overlay_plot
    ring_x = plot.ring.data["x"].copy()
    start, vb = _marker_viewport_pos(window, kernel.id)
    end = QPointF(window.canvas.overlay.mapFromScene(vb.mapViewToScene(QPointF(np.log10(10.0), 13.0))))
    viewport = window.canvas.overlay.viewport()
    mouse(viewport, QEvent.Type.MouseButtonPress, start)
    for t in np.linspace(0.1, 1.0, 6):
        mouse(viewport, QEvent.Type.MouseMove, start + (end - start) * float(t))
        qtbot.wait(20)  # pyqtgraph drops mouse moves closer together than its rate limit
    # About a decade to the right, on every chip, while the button is still held.
    qtbot.waitUntil(lambda: np.all(plot.ring.data["x"] > ring_x + 0.5), timeout=2000)
    assert window.canvas._lifted == kernel.id
    mouse(viewport, QEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton)


def test_the_editor_shows_the_charts_four_digits_and_keeps_the_exact_value(window):
    chip = window.model.document.chips[0]
    window.model.push(Replace("chips", replace(chip, compute={**chip.compute, "int8": 1.9789e15})), "set")
    field = window.hardware.form.compute_fields["int8"]
    assert field.text() == "1.979 Pop/s"
    assert field.value() == 1.9789e15
    assert "1.9789" in field.toolTip()


def test_recovery_entries_wrap(qtbot):
    long = "An unsaved session with a long title that would be clipped, 4 chips, 12 kernels, " * 2
    dialog = RecoveryDialog([long])
    qtbot.addWidget(dialog)
    assert dialog.list.wordWrap()


def test_a_kernel_is_named_as_the_table_shows_it():
    k = Kernel("k", "", "bf16", template="mlp", params={"batch": 8, "d_in": 4096, "d_out": 4096})
    assert k.auto_name() == "MLP layer 4096×4096, batch 8 (bf16)"


# -- from a new user's tour ------------------------------------------------------------------------
def test_delete_right_after_duplicate_removes_only_the_copy(window, qtbot):
    model = window.model
    original = model.document.kernels[0]
    select_kernel(window, qtbot, original.id)
    qtbot.keyClick(window.kernels.list, Qt.Key.Key_D, CTRL)
    copy = model.document.kernels[1]
    assert copy.name == f"{original.name} (copy)"
    assert window.kernels.selected_ids() == [copy.id]
    qtbot.keyClick(window.kernels.list, Qt.Key.Key_Delete)
    assert model.document.kernels[0] == original
    assert copy.id not in [k.id for k in model.document.kernels]


def test_escape_puts_back_the_documents_value(window, qtbot):
    kernel = next(k for k in window.model.document.kernels if k.template == "mlp")
    select_kernel(window, qtbot, kernel.id)
    field = window.kernels.form.params.fields["batch"]
    shown = field.text()
    focus(qtbot, field)
    field.selectAll()
    qtbot.keyClicks(field, "abc")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert field.error
    qtbot.keyClick(field, Qt.Key.Key_Escape)
    assert field.text() == shown and not field.error
    assert not field.parentWidget().message.isVisible()


def test_the_formula_stays_scrolled_where_the_reader_is_while_typing(window, qtbot):
    kernel = next(k for k in window.model.document.kernels if k.template == "mlp")
    select_kernel(window, qtbot, kernel.id)
    form = window.kernels.form
    form.formula.setFixedHeight(60)  # a few lines, as at 1280×800
    _settle(qtbot)
    bar = form.formula.verticalScrollBar()
    assert bar.maximum() > 2
    bar.setValue(bar.maximum())
    field = form.params.fields["batch"]
    focus(qtbot, field)
    field.selectAll()
    qtbot.keyClicks(field, "16")
    assert "16" in form.formula.toPlainText()
    assert bar.value() == bar.maximum()
    # Another kernel starts at the top of its formula.
    other = next(k for k in window.model.document.kernels if k.id != kernel.id)
    window.model.select(other.id, None)
    assert bar.value() == 0


def test_the_template_dialog_opens_on_the_template_used_last(qtbot, monkeypatch):
    monkeypatch.setattr(TemplateDialog, "last_used", None)
    dialog = TemplateDialog()
    qtbot.addWidget(dialog)
    dialog.template.setCurrentIndex(dialog.template.findData("mlp"))
    dialog.precision.setCurrentIndex(dialog.precision.findData("fp8"))
    dialog.accept()
    again = TemplateDialog()
    qtbot.addWidget(again)
    assert again.template.currentData() == "mlp" and again.precision.currentData() == "fp8"
    assert again.kernel().template == "mlp"


def test_the_table_shows_and_highlights_the_kernel_selected_elsewhere(window, qtbot):
    window.resize(1280, 800)
    _settle(qtbot)
    model, view, table = window.model, window.table.view, window.table.table_model
    last = model.document.kernels[-1]
    chip = model.document.chips[1]
    model.select(last.id, chip.id)  # as a click on the chart does
    _settle(qtbot)
    current = view.currentIndex()
    assert table.kernel_row(current.row()) == len(model.document.kernels) - 1
    assert table.locate(current.column()) == (1, "attainable")
    assert view.visualRect(current).intersects(view.viewport().rect())  # scrolled into view
    # The row's name stays in sight whatever the horizontal scroll.
    assert view.verticalHeader().isVisible()


def test_a_value_being_typed_goes_to_its_own_kernel_when_another_is_selected(window, qtbot):
    model = window.model
    first, second = [k for k in model.document.kernels if k.template == "mlp"][:2]
    select_kernel(window, qtbot, first.id)
    field = window.kernels.form.params.fields["batch"]
    focus(qtbot, field)
    field.selectAll()
    qtbot.keyClicks(field, "5")
    model.select(second.id, None)  # a click on another kernel's marker, mid-typing
    _settle(qtbot)
    assert model.document.kernel(first.id).params["batch"] == 5
    assert model.document.kernel(second.id).params == second.params
    assert window.kernels.form.params.fields["batch"].value() == second.params["batch"]


def test_the_add_chips_dialog_marks_chips_already_in_the_session(window, qtbot):
    dialog = ChipPresetDialog(default_presets(), in_session={c.name for c in window.model.document.chips})
    qtbot.addWidget(dialog)
    rows = [dialog.proxy.index(r, 0).data() for r in range(dialog.proxy.rowCount())]
    marked = [r for r in rows if r.endswith("(in this session)")]
    assert len(marked) == 2 and any("A100 SXM4 40GB" in r for r in marked)


def test_the_domain_rules_come_from_the_core_whatever_the_path(window, qtbot):
    from roofline_gui.core.edits import Replace as ReplaceEdit

    model = window.model
    chip = model.document.chips[1]  # TPU v3: bf16 only
    refused = []
    model.sig_refused.connect(refused.append)
    # Straight to the model (as a script or an import would): refused, nothing pushed.
    assert not model.push(ReplaceEdit("chips", replace(chip, compute={})), "clear")
    assert refused and "at least one compute ceiling" in refused[-1]
    assert model.undo_stack.count() == 0 and model.document.chips[1] == chip
    # Through the editor: clearing the only ceiling is refused at the field.
    model.select(None, chip.id)
    field = window.hardware.form.compute_fields["bf16"]
    field.setText("")
    field.editingFinished.emit()
    assert "at least one compute ceiling" in field.error
    assert model.document.chips[1] == chip
    # Removing the only main-memory level: refused, and the status bar says why.
    dram = next(i for i, lv in enumerate(chip.memory) if lv.role == "dram")
    window.hardware.form._on_remove_level(dram)
    assert model.document.chips[1] == chip
    assert "main-memory" in window.statusBar().currentMessage()


def test_another_document_shows_the_table_from_its_first_column(window, qtbot):
    """The tour: after opening another session the table kept the last one's sideways scroll,
    its first header cut to ".100 SXM4 40GB" and the Precision and Intensity columns hidden."""
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    view = window.table.view
    window.resize(1280, 800)
    QApplication.processEvents()
    bar = view.horizontalScrollBar()
    assert bar.maximum() > 0  # the example's columns are wider than the table at this size
    bar.setValue(bar.maximum())
    window.model.reset(load_session(resources_dir() / "examples" / "h100-vs-mi300x-llm.roofline"))
    qtbot.wait(50)  # the columns fitted and the selection followed, each on a later turn
    assert view.columnViewportPosition(1) >= 0  # Precision in sight


def test_a_drags_word_goes_with_its_undo_and_another_document_clears_the_readout(window, qtbot):
    """The tour: after Ctrl+Z of a design-space drag the status bar still said "compute ×1,
    main memory ×9.22", and the pointer's readout stayed across opening another session."""
    from roofline_gui.core.edits import SetField

    bar = window.statusBar()
    model = window.model
    model.say("compute ×1, main memory ×9.22 (Shift: round factors)")
    model.push(SetField("baseline", model.document.chips[1].id), "baseline")
    assert bar.currentMessage().startswith("compute ×1")  # the edit it describes: kept
    model.undo_stack.undo()
    assert bar.currentMessage() == ""
    window.cursor_label.setText("intensity 1 op/B   performance 1 Top/s")
    from roofline_gui.io.files import resources_dir

    assert window.files.open(resources_dir() / "examples" / "williams-cpus.roofline")
    assert window.cursor_label.text() == ""
    assert bar.currentMessage().startswith("Opened")  # the open's own word comes after


def test_each_duplicate_of_a_chip_has_a_name_of_its_own(window):
    """Duplicate twice on one chip made two chips both "A100 SXM4 40GB (copy)": the table's
    columns, the legend and the explanation could not tell them apart (the ninth tour). Each
    copy is named apart, a copy's copy counting on from the original's name."""
    from roofline_gui.core.document import copy_name

    model = window.model
    a100 = next(c for c in model.document.chips if c.name == "A100 SXM4 40GB")
    for _ in range(2):
        model.select(None, a100.id)
        window.hardware.duplicate()
    copy = model.document.chips[-1]
    model.select(None, next(c.id for c in model.document.chips if c.name.endswith("(copy)")))
    window.hardware.duplicate()
    names = [c.name for c in model.document.chips]
    assert len(names) == len(set(names)), names
    assert {"A100 SXM4 40GB (copy)", "A100 SXM4 40GB (copy 2)", "A100 SXM4 40GB (copy 3)"} <= set(names)
    assert copy.name in names
    assert copy_name("x (copy 9)", ["x", "x (copy)"]) == "x (copy 2)"


def test_the_pointers_readout_goes_off_the_charts_and_with_the_last_chip(window, qtbot):
    """The tour: after deleting every chip the status bar still read the last place the pointer
    had been over the chart; it goes when the pointer leaves the charts, and with the last chip."""
    from roofline_gui.core.edits import Batch, Remove

    plot = window.canvas.overlay_plot
    vb = plot.plot.getViewBox()
    scene = vb.scene()
    scene.sigMouseMoved.emit(vb.mapViewToScene(QPointF(1.0, 13.0)))  # 10 op/B, 10 Top/s
    qtbot.waitUntil(lambda: "op/B" in window.cursor_label.text(), timeout=2000)  # rate-limited
    scene.sigMouseMoved.emit(vb.sceneBoundingRect().bottomRight() + QPointF(5, 5))
    qtbot.waitUntil(lambda: window.cursor_label.text() == "", timeout=2000)  # off the charts
    # a quick flick off the chart: no move at its edge, the view's Leave; a move the rate
    # limit held back, delivered after it, is not read (the twelfth tour)
    scene.sigMouseMoved.emit(vb.mapViewToScene(QPointF(1.0, 13.0)))
    QApplication.sendEvent(window.canvas.overlay, QEvent(QEvent.Type.Leave))
    assert window.cursor_label.text() == ""
    qtbot.wait(100)  # the held-back move
    assert window.cursor_label.text() == ""
    window.canvas.sig_cursor_moved.emit(10.0, 1e13)
    assert "10 op/B" in window.cursor_label.text()
    model = window.model
    model.push(Batch(tuple(Remove("chips", c.id) for c in model.document.chips)), "delete")
    assert window.cursor_label.text() == ""
    model.undo_stack.undo()  # chips back: the readout waits for the pointer
    assert window.cursor_label.text() == ""


def test_the_next_start_reopens_the_example_or_the_file_shown_last(qtbot, settings, tmp_path):
    """The eleventh tour quit from the Training example and every start opened the first
    example again. The next start reopens the example shown when the app closed, until a
    session file is opened or saved; then that file."""
    from roofline_gui.core.document import Document
    from roofline_gui.widgets.app.file_actions import example_named
    from roofline_gui.widgets.app.main_window import MainWindow

    def start() -> MainWindow:
        w = MainWindow(settings=settings)
        w.open_initial(None)
        return w

    def done(w) -> None:
        w.model.undo_stack.setClean()
        w.close()

    first = start()  # the first start: the classic example
    assert [c.name for c in first.model.document.chips] == ["A100 SXM4 40GB", "TPU v3"]
    training = example_named("training-fp32-against-bf16")
    assert first.files.open_example(training)
    shown = first.model.document
    done(first)
    again = start()
    assert again.model.document.title == shown.title and again.model.path is None
    saved = tmp_path / "mine.roofline"
    assert again.files._save_to(saved)
    done(again)
    third = start()
    assert third.model.path is not None and third.model.path.name == "mine.roofline"
    third.files.new()
    assert third.model.document == Document()
    done(third)
    fourth = start()
    assert fourth.model.path.name == "mine.roofline"  # after a new untitled session: the file
    done(fourth)


def test_chart_only_gives_the_chart_the_window_and_brings_the_panels_back(window, qtbot,
                                                                          settings):
    """The eleventh tour: four charts side by side at 1280 × 800 were 190 × 110 px beside the
    panels. View → Chart only hides every panel, the chart takes the window; again brings the
    panels back as they were, and a window closed in Chart only starts with its panels."""
    from roofline_gui.widgets.app.main_window import MainWindow

    window.resize(1280, 800)
    window.set_mode("side_by_side")
    qtbot.wait(50)
    shown = {name for name, dock in window.docks.items() if dock.isVisible()}
    assert shown
    width, height = window.canvas.width(), window.canvas.height()
    window.act_chart_only.trigger()
    qtbot.wait(50)
    assert window.act_chart_only.isChecked()
    assert not any(dock.isVisible() for dock in window.docks.values())
    assert window.canvas.width() > width + 200 and window.canvas.height() > height + 150
    window.act_chart_only.trigger()
    qtbot.wait(50)
    assert not window.act_chart_only.isChecked()
    assert {name for name, dock in window.docks.items() if dock.isVisible()} == shown
    assert abs(window.canvas.width() - width) <= 2 and abs(window.canvas.height() - height) <= 2
    for _ in range(3):  # on and off again: the panels do not creep
        window.act_chart_only.trigger()
        qtbot.wait(20)
        window.act_chart_only.trigger()
        qtbot.wait(20)
    assert abs(window.canvas.width() - width) <= 2 and abs(window.canvas.height() - height) <= 2
    # closed in Chart only: the next window has its panels
    window.act_chart_only.trigger()
    window.model.undo_stack.setClean()
    window.close()
    again = MainWindow(settings=settings)
    again.show()
    qtbot.waitExposed(again)
    assert {name for name, dock in again.docks.items() if dock.isVisible()} == shown
    again.model.undo_stack.setClean()
    again.close()


def test_a_long_error_set_after_the_window_was_built_shows_wrapped(qtbot):
    """Qt wraps only rich text: a field's error comes after wrap_long_tips swept the window."""
    from roofline_gui.widgets.common.fields import QuantityEdit

    field = QuantityEdit("bandwidth")
    qtbot.addWidget(field)
    long = "the bandwidth must be a positive number with a unit, such as 2 TB/s, 900 GB/s or 1.5e12"
    field.show_error(long)
    assert field.toolTip().startswith("<p>") and "such as 2 TB/s" in field.toolTip()
    field.show_error("too small")
    assert field.toolTip() == "too small"


def test_a_value_out_of_range_is_said_as_people_write_numbers(qtbot):
    """"must be between 1 and 1e+06" (the nineteenth tour)."""
    from roofline_gui.core.errors import UnitError
    from roofline_gui.widgets.common.fields import QuantityEdit

    field = QuantityEdit("count", integer=True, minimum=1, maximum=1e6)
    qtbot.addWidget(field)
    with pytest.raises(UnitError, match="must be between 1 and 1,000,000"):
        field.parse("2e6")
    unbounded = QuantityEdit("count", minimum=1)
    qtbot.addWidget(unbounded)
    with pytest.raises(UnitError, match="must be at least 1$"):
        unbounded.parse("0.5")


def test_an_emptied_name_is_put_back_and_said(window, qtbot):
    """Enter on an emptied kernel name left the field blank and said nothing (the nineteenth
    tour); a chip's the same. The name is put back, the status bar says why, nothing is undone."""
    said = []
    window.model.sig_refused.connect(said.append)
    kernel = window.model.document.kernels[0]
    select_kernel(window, qtbot, kernel.id)
    name = window.kernels.form.name_edit
    depth = window.model.undo_stack.count()
    focus(qtbot, name)
    name.selectAll()
    qtbot.keyClick(name, Qt.Key.Key_Delete)
    qtbot.keyClick(name, Qt.Key.Key_Return)
    assert name.text() == kernel.name and window.model.document.kernels[0].name == kernel.name
    assert said and "needs a name" in said[-1] and kernel.name in said[-1]
    chip = window.model.document.chips[0]
    window.model.select(None, chip.id)
    window.hardware.form.name_edit.setText("  ")
    window.hardware.form.name_edit.editingFinished.emit()
    assert window.hardware.form.name_edit.text() == chip.name and "needs a name" in said[-1]
    assert window.model.undo_stack.count() == depth
