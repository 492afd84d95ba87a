"""The hardware editor never shows what the document does not hold once a field is left:
emptying a peak removes the precision only when confirmed (Enter, or the row's ✕), and text
that is refused gives way to the chip's value on leaving the field."""

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import QApplication

from roofline_gui.io.presets import load_presets
from roofline_gui.widgets.panels.hardware_editor import HardwareEditor


@pytest.fixture
def editor(qtbot, model):
    widget = HardwareEditor(model, load_presets())
    qtbot.addWidget(widget)
    widget.resize(700, 900)
    widget.show()
    widget.activateWindow()
    qtbot.waitActive(widget)
    model.select(None, model.document.chips[0].id)  # the A100: six precisions
    return widget


def a100(editor):
    return editor.model.document.chips[0]


def typed_in(editor, qtbot, precision: str, text: str):
    """The peak field of ``precision`` with its text replaced by ``text``, as typed, focused."""
    field = editor.form.compute_fields[precision]
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    field.selectAll()
    qtbot.keyClick(field, Qt.Key.Key_Delete)
    qtbot.keyClicks(field, text)
    return field


def test_an_emptied_peak_left_with_tab_keeps_the_precision_and_shows_it_again(editor, qtbot):
    before = a100(editor)
    field = typed_in(editor, qtbot, "bf16", "")
    with qtbot.waitSignal(editor.model.sig_refused) as blocker:
        qtbot.keyClick(field, Qt.Key.Key_Tab)
    assert not field.hasFocus()
    assert a100(editor) == before
    assert field.text() == "312 Top/s" and field.value() == 312e12
    assert blocker.args == ["A100 SXM4 40GB bf16 peak kept (press Enter in the emptied field to remove it)"]
    assert editor.model.undo_stack.count() == 0


def test_an_emptied_peak_confirmed_with_enter_removes_the_precision_undoably(editor, qtbot):
    field = typed_in(editor, qtbot, "bf16", "")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert "bf16" not in a100(editor).compute
    assert field.text() == "" and not editor.form.remove_buttons["bf16"].isEnabled()
    assert editor.model.undo_stack.undoText() == "Remove A100 SXM4 40GB bf16 peak"
    editor.model.undo_stack.undo()
    assert a100(editor).compute["bf16"] == 312e12
    assert field.text() == "312 Top/s"


def test_a_removal_is_its_own_undo_step_after_a_change_of_the_same_peak(editor, qtbot):
    field = typed_in(editor, qtbot, "bf16", "400T")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    field = typed_in(editor, qtbot, "bf16", "")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    editor.model.undo_stack.undo()
    assert a100(editor).compute["bf16"] == 400e12


def test_a_refused_value_is_shown_then_gives_way_to_the_chips_value_on_leaving(editor, qtbot):
    before = a100(editor)
    field = typed_in(editor, qtbot, "bf16", "-5")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert field.error == "must be greater than zero" and field.text() == "-5"
    with qtbot.waitSignal(editor.model.sig_refused) as blocker:
        qtbot.keyClick(field, Qt.Key.Key_Tab)
    assert field.text() == "312 Top/s" and field.error == ""
    assert a100(editor) == before
    assert blocker.args == ["A100 SXM4 40GB bf16 peak: “-5” not taken (must be greater than zero)"]


def test_a_refused_value_left_by_a_click_elsewhere_gives_way_too(editor, qtbot):
    field = typed_in(editor, qtbot, "fp32", "-5")
    editor.form.name_edit.setFocus()
    qtbot.waitUntil(lambda: not field.hasFocus())
    assert field.text() == "19.5 Top/s"
    assert a100(editor).compute["fp32"] == 19.5e12


def test_a_valid_value_left_with_tab_is_taken(editor, qtbot):
    field = typed_in(editor, qtbot, "fp32", "20T")
    qtbot.keyClick(field, Qt.Key.Key_Tab)
    assert a100(editor).compute["fp32"] == 20e12
    assert field.text() == "20 Top/s"


def test_focus_going_to_another_window_leaves_the_typed_text_alone(editor, qtbot):
    field = typed_in(editor, qtbot, "bf16", "")
    QApplication.sendEvent(field, QFocusEvent(QEvent.Type.FocusOut, Qt.FocusReason.ActiveWindowFocusReason))
    assert field.text() == ""
    assert a100(editor).compute["bf16"] == 312e12


def test_a_refused_bandwidth_gives_way_to_the_chips_value_on_leaving(editor, qtbot):
    field = editor.form.level_fields[-1]["bandwidth"]
    shown = field.text()
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    field.selectAll()
    qtbot.keyClicks(field, "fast")
    qtbot.keyClick(field, Qt.Key.Key_Tab)
    assert field.text() == shown
    assert field.error == ""


def test_the_remove_button_removes_the_precision_undoably(editor, qtbot):
    qtbot.mouseClick(editor.form.remove_buttons["int8"], Qt.MouseButton.LeftButton)
    assert "int8" not in a100(editor).compute
    assert editor.form.compute_fields["int8"].text() == ""
    editor.model.undo_stack.undo()
    assert a100(editor).compute["int8"] == 624e12
    assert editor.form.remove_buttons["int8"].isEnabled()


def test_the_remove_button_of_the_last_precision_is_refused_with_the_reason(editor, qtbot):
    chip = editor.model.document.chips[1]  # TPU v3: bf16 only
    editor.model.select(None, chip.id)
    assert not editor.form.remove_buttons["fp32"].isEnabled()
    with qtbot.waitSignal(editor.model.sig_refused) as blocker:
        qtbot.mouseClick(editor.form.remove_buttons["bf16"], Qt.MouseButton.LeftButton)
    assert "at least one compute ceiling" in blocker.args[0]
    assert editor.model.document.chips[1] == chip


def test_derive_a_what_if_chip_from_the_tools_menu(window, monkeypatch):
    """Tools → Derive what-if chip…: HBM ×2 of the selected chip, added right after it, named
    from its change; one undo takes it away."""
    from roofline_gui.widgets.common.derive_dialog import DeriveDialog

    model = window.model
    original = model.document.chips[0]
    model.select(None, original.id)

    def run(dialog):
        assert dialog.original().id == original.id
        dialog.fields["dram"].setValue(2.0)
        assert dialog.ok.isEnabled() and "HBM2 ×2" in dialog.name.text()
        return DeriveDialog.DialogCode.Accepted

    monkeypatch.setattr(DeriveDialog, "exec", run)
    count = len(model.document.chips)
    window.act_derive.trigger()
    chips = model.document.chips
    assert len(chips) == count + 1 and chips[1].name == f"{original.name}, HBM2 ×2"
    assert chips[1].dram.bandwidth == 2 * original.dram.bandwidth
    assert chips[1].dram.provenance().kind == "what-if" and model.selected_chip == chips[1].id
    model.undo_stack.undo()
    assert len(model.document.chips) == count


def test_reset_a_what_if_chip_to_its_datasheet(window):
    """A derived chip's HBM says what-if in the hardware editor; Tools → Reset chip to
    datasheet puts its figure back, one undo step."""
    from roofline_gui.core.chip import derive

    model = window.model
    original = model.document.chips[0]
    (new,) = model.add_chips([derive(original, {"dram": 2})])
    model.select(None, new)
    QApplication.processEvents()

    def chip():
        return next(c for c in model.document.chips if c.id == new)

    assert chip().dram.what_if_of == original.dram.bandwidth
    window.act_reset_what_if.trigger()
    assert chip().dram.bandwidth == original.dram.bandwidth and not chip().is_what_if
    model.undo_stack.undo()
    assert chip().dram.bandwidth == 2 * original.dram.bandwidth and chip().is_what_if


def test_the_editor_says_a_what_if_ceiling_moved_from_its_datasheet_figure(editor):
    from roofline_gui.core.chip import derive
    from roofline_gui.core.edits import Replace

    model = editor.model
    a100 = model.document.chips[0]
    model.push(Replace("chips", derive(a100, {"dram": 2}, chip_id=a100.id)), "what-if")
    QApplication.processEvents()
    note = editor.form.level_fields[[lv.role for lv in a100.memory].index("dram")]["note"]
    assert "what-if: 2× of 1.555 TB/s" in note.text() and note.text().startswith("<a href")


def test_a_what_if_ceilings_reset_link_puts_its_datasheet_value_back(editor):
    from roofline_gui.core.edits import Replace

    model = editor.model
    a100 = model.document.chips[0]
    dram = a100.memory.index(a100.dram)
    moved = a100.with_ceiling(("level", dram), 2e12).named_as_what_if()
    model.push(Replace("chips", moved), "what-if")
    QApplication.processEvents()
    note = editor.form.level_fields[dram]["note"]
    assert "reset" in note.text() and model.document.chips[0].name.endswith("(what-if)")
    note.linkActivated.emit("reset")
    assert model.document.chips[0] == a100


def test_reset_to_datasheet_is_offered_only_for_a_chip_with_what_if_ceilings(window):
    from roofline_gui.core.chip import derive

    model = window.model
    original = model.document.chips[0]
    model.select(None, original.id)
    assert not window.act_reset_what_if.isEnabled()
    (new,) = model.add_chips([derive(original, {"dram": 2})])
    model.select(None, new)
    assert window.act_reset_what_if.isEnabled()
    window.act_reset_what_if.trigger()
    assert not window.act_reset_what_if.isEnabled()  # nothing left to reset


def test_energy_fields_set_the_board_power_idle_power_and_price_undoably(editor, qtbot):
    """Issue 28: the chip's board power, idle power and price per chip-hour, as typed; an idle
    power at or above the board power is refused in its field; undo restores each."""
    form, model = editor.form, editor.model
    chip = a100(editor)
    fields = form.energy_fields
    start = chip.energy
    for name, text in (("board_power", "350 W"), ("idle_power", "60"), ("price_per_hour", "2.5")):
        field = fields[name]
        field.setFocus()
        qtbot.waitUntil(field.hasFocus)
        field.selectAll()
        qtbot.keyClick(field, Qt.Key.Key_Delete)
        qtbot.keyClicks(field, text)
        qtbot.keyClick(field, Qt.Key.Key_Return)
    e = a100(editor).energy
    assert (e.board_power, e.idle_power, e.price_per_hour) == (350.0, 60.0, 2.5)
    assert e.sources["board_power"] == "entered by hand"
    assert "pJ per op" in form.energy_note.text() and "upper bounds" in form.energy_note.text()
    field = fields["idle_power"]
    field.setFocus()
    field.selectAll()
    qtbot.keyClick(field, Qt.Key.Key_Delete)
    qtbot.keyClicks(field, "400")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert a100(editor).energy.idle_power == 60.0  # refused: not below the board power
    for _ in range(3):
        model.undo_stack.undo()
    assert a100(editor).energy == start


def test_given_energies_replace_the_estimates_and_a_bad_entry_is_named(editor, qtbot):
    from roofline_gui.core.energy import constants

    form, model = editor.form, editor.model
    field = form.energy_given
    field.setText("bf16=0.5, dram=60")
    field.editingFinished.emit()
    k = constants(a100(editor))
    assert k.op_j["bf16"] == pytest.approx(0.5e-12) and k.byte_j["dram"] == pytest.approx(60e-12)
    hbm = a100(editor).dram.name
    assert not k.is_estimate("op:bf16") and k.said[f"byte:{hbm}"].startswith("entered by hand")
    assert k.is_estimate("op:fp32")  # the others stay estimates
    # per level, by its name (any case): the L2 alone, the note says so level by level
    l2 = next(lv.name for lv in a100(editor).memory if lv.name.startswith("L2"))
    field.setText(f"bf16=0.5, dram=60, {l2.lower()}=5")
    field.editingFinished.emit()
    k = constants(a100(editor))
    assert a100(editor).energy.byte_pj == {"dram": 60.0, l2: 5.0}
    assert dict((n, j) for n, _r, j in k.levels)[l2] == pytest.approx(5e-12)
    assert f"{l2} 5 (given)" in form.energy_note.text()
    field.setText("bf16=0.5, dram=60")
    field.editingFinished.emit()
    field.setText("bf17=1, dram=-3")
    field.editingFinished.emit()
    assert "“bf17” is not a precision" in form.energy_note.text()
    assert "dram: “-3” is not a number of pJ above 0" in form.energy_note.text()
    assert constants(a100(editor)).byte_j["dram"] == pytest.approx(60e-12)  # unchanged
    model.undo_stack.undo()  # each entry taken is an undo step of its own
    assert a100(editor).energy.byte_pj == {"dram": 60.0, l2: 5.0}
    model.undo_stack.undo()
    assert a100(editor).energy.byte_pj == {"dram": 60.0}
    model.undo_stack.undo()
    assert constants(a100(editor)).dram_estimated
    # an undo with the cursor in the field shows the chip's text again, not the undone one;
    # a level written short reads as the chip has it
    field.setFocus()
    field.setText("bf16=0.7, l2=5")
    field.editingFinished.emit()
    assert a100(editor).energy.op_pj == {"bf16": 0.7}
    assert field.text() == f"bf16=0.7, {l2}=5"
    model.undo_stack.undo()
    assert field.text() == ""


def test_the_wheel_scrolls_past_a_level_role_it_has_not_been_given(editor, qtbot):
    """From the energy tour: scrolling the editor over a memory level's role turned an L2 into a
    link. A role box takes the wheel only once it has the focus."""
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent

    role = editor.form.level_fields[0]["role"]
    before = a100(editor).memory[0].role
    centre = QPointF(role.rect().center())
    event = QWheelEvent(centre, QPointF(role.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                        QPoint(0, -120), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    editor.setFocus()
    QApplication.sendEvent(role, event)
    assert a100(editor).memory[0].role == before and not event.isAccepted()


def test_ctrl_z_in_a_field_whose_value_was_taken_undoes_the_document(window, qtbot):
    """From the what-if tour: after Enter, Ctrl+Z in the field only rewound its own text (a line
    edit keeps a history of what was typed). With nothing typed since its value was taken, the
    keys undo the document, as Edit → Undo does; while typing, they undo the typing."""
    from PySide6.QtTest import QTest

    model = window.model
    chip = model.document.chips[0]
    model.select(None, chip.id)
    window.docks["hardware"].raise_()
    QApplication.processEvents()
    window.activateWindow()  # shortcuts go to the active window
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=2000)
    field = window.hardware.form.energy_given
    field.setFocus()
    qtbot.waitUntil(field.hasFocus, timeout=2000)
    before = model.document.chips[0].energy
    field.selectAll()
    QTest.keyClicks(field, "bf16=0.5")
    QTest.keyClick(field, Qt.Key.Key_Return)
    assert model.document.chips[0].energy.op_pj == {"bf16": 0.5}
    QTest.keyClick(field, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    QApplication.processEvents()
    assert model.document.chips[0].energy == before  # the document's undo
    QTest.keyClicks(field, "x")  # typing of its own: Ctrl+Z undoes that, not the document
    QTest.keyClick(field, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert model.document.chips[0].energy == before and "x" not in field.text()


def test_the_chips_list_shows_four_chips_at_a_laptops_size(window, qtbot, monkeypatch):
    """With four chips the list showed three at 1280 x 800 (the tour): it is as tall as its chips
    up to five, the form below taking the rest."""
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.panels.hardware_editor import ChipPresetDialog

    window.resize(1264, 752)
    monkeypatch.setattr(ChipPresetDialog, "ask", classmethod(
        lambda cls, p, parent=None, in_session=(): ["google-tpu-v5e", "nvidia-h100-sxm5-80gb"]))
    window.hardware.add_from_presets()
    for _ in range(5):
        QApplication.processEvents()
    qtbot.wait(50)
    view = window.hardware.view
    assert window.hardware.list_model.rowCount() == 4
    assert view.viewport().height() >= 4 * view.sizeHintForRow(0)


def test_a_chips_swatch_keeps_its_colour_when_its_row_is_selected(window):
    """B200's pink read as V100's lavender once selected (the third tour): the swatch is drawn
    the same in the selected state."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor, QIcon

    model = window.hardware.list_model
    index = model.index(0, 0)
    icon = index.data(Qt.ItemDataRole.DecorationRole)
    assert isinstance(icon, QIcon)
    colour = QColor(window.model.document.chips[0].color).name()
    for mode in (QIcon.Mode.Normal, QIcon.Mode.Selected):
        image = icon.pixmap(16, 16, mode).toImage()
        assert QColor(image.pixel(8, 8)).name() == colour


def test_a_fields_message_is_scrolled_into_sight(editor, qtbot):
    """The twentieth tour: "'abc' is not a number…" under a peak at the bottom of the scrolled
    form was cut off until the user scrolled. The form scrolls to show it whole."""
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtWidgets import QLabel, QScrollArea

    editor.resize(700, 420)
    QApplication.processEvents()
    fields = editor.form.compute_fields
    area = next(w for w in _ancestors(next(iter(fields.values()))) if isinstance(w, QScrollArea))
    view = area.viewport()
    # the lowest peak still (partly) in sight, its message's room below the viewport's bottom
    field = max((f for f in fields.values()
                 if f.mapTo(view, QPoint(0, f.height())).y() <= view.height()),
                key=lambda f: f.mapTo(view, QPoint(0, 0)).y())
    field.setFocus()
    field.setText("abc")
    field.editingFinished.emit()
    assert field.error
    message = next(lb for lb in area.widget().findChildren(QLabel)
                   if lb.isVisible() and lb.text() == field.error)
    shown = QRect(message.mapTo(view, QPoint(0, 0)), message.size())
    assert view.rect().contains(shown), (shown, view.rect())


def _ancestors(widget):
    while widget is not None:
        yield widget
        widget = widget.parentWidget()


def test_an_achievable_fraction_says_what_it_is_when_hovered(editor):
    """The twenty-first tour hovered the H100's "0.78" in the achievable column and read
    nothing: the field's tooltip had been cleared by the first value it showed. A field keeps
    what it is beside its exact value and its errors."""
    model = editor.model
    model.add_chips([load_presets().chips["nvidia-h100-sxm5-80gb"]])
    model.select(None, model.document.chips[-1].id)
    frac = editor.form.fraction_fields["bf16"]
    assert frac.text() == "0.78"
    assert "fraction of the peak reached in practice" in frac.toolTip()
    frac.setText("2")
    frac.editingFinished.emit()
    assert frac.error and frac.error in frac.toolTip()
    frac.set_value(0.78)  # the document's value again: the hint again
    assert "fraction of the peak reached in practice" in frac.toolTip()
    bandwidth = editor.form.level_fields[0]["bandwidth"]
    assert "Bandwidth, e.g." in bandwidth.toolTip()


def test_two_renames_are_two_undo_steps(editor, qtbot):
    """Renamed twice, each with Enter: Ctrl+Z had gone past the first name back to the one
    before, while Redo offered the second rename (the twenty-fourth tour). Each rename is its
    own step, as a kernel's and a workload's are."""
    first = a100(editor).name
    for name in ("TPU v3, 2nd board", "Board B"):
        field = editor.form.name_edit
        field.setFocus()
        field.selectAll()
        qtbot.keyClicks(field, name)
        qtbot.keyClick(field, Qt.Key.Key_Return)
    stack = editor.model.undo_stack
    assert editor.model.document.chips[0].name == "Board B"
    stack.undo()
    assert editor.model.document.chips[0].name == "TPU v3, 2nd board"
    assert stack.redoText() == "Rename TPU v3, 2nd board to Board B"
    stack.undo()
    assert editor.model.document.chips[0].name == first


def test_several_chips_picked_skip_those_in_the_session_one_alone_is_a_copy(window, monkeypatch):
    """The 40th tour picked every preset (Ctrl+A) and got "H100 SXM5 80GB (copy)" beside the
    session's H100: of several picked, those in the session are not added again; one picked
    alone is a copy asked for."""
    from roofline_gui.widgets.panels.hardware_editor import ChipPresetDialog

    names = lambda: [c.name for c in window.model.document.chips]  # noqa: E731
    before = names()
    shown_id = next(i for i, c in window.hardware.presets.chips.items() if c.name == before[0])
    picks = [[shown_id, "google-tpu-v5e"], [shown_id]]
    monkeypatch.setattr(ChipPresetDialog, "ask", classmethod(
        lambda cls, p, parent=None, in_session=(): picks.pop(0)))
    window.hardware.add_from_presets()
    assert names() == [*before, "TPU v5e"]
    window.hardware.add_from_presets()
    assert names() == [*before, "TPU v5e", f"{before[0]} (copy)"]
