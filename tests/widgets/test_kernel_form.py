"""The kernel form after File → New: a fresh form, not the previous kernel's name greyed."""

from roofline_gui.core.edits import Replace


def select_mlp_at_bf16_stored_int8(window):
    kernel = next(k for k in window.model.document.kernels if k.template == "mlp")
    window.model.push(Replace("kernels", kernel.with_precision("bf16", "int8")), "int8 weights")
    window.model.select(kernel.id, None)
    return window.model.document.kernel(kernel.id)


def test_file_new_leaves_a_fresh_kernel_form(window):
    form = window.kernels.form
    kernel = select_mlp_at_bf16_stored_int8(window)
    assert form.name_edit.text() == kernel.name and form.params is not None
    assert form.storage.currentData() == "int8"
    window.model.undo_stack.setClean()  # New asks nothing
    window.act_new.trigger()
    assert window.model.document.kernels == ()
    assert not form.isEnabled()
    assert form.name_edit.text() == ""
    assert form.params is None
    assert form.precision.currentData() == "fp32"
    assert form.storage.currentData() is None  # same as compute
    assert form.formula.toPlainText() == "Select a kernel to see its formula."


def test_a_kernel_added_after_new_fills_the_form_with_its_own_values(window):
    select_mlp_at_bf16_stored_int8(window)
    window.model.undo_stack.setClean()
    window.act_new.trigger()
    preset = window.presets.kernels["mlp-int8"]  # the same template, perhaps the same id
    ids = window.model.add_kernels([preset])
    window.model.select(ids[0], None)
    form = window.kernels.form
    assert form.isEnabled()
    assert form.name_edit.text() == window.model.document.kernels[0].name
    assert form.precision.currentData() == "int8"
    assert form.params.fields["batch"].value() == 50


def test_the_form_says_where_each_operand_lives_and_a_choice_is_one_undoable_edit(window):
    """The article's add with a and b kept on chip, chosen in the form: the bytes move to the
    on-chip level, the name and the formula follow, Undo puts them back; 100 MB each do not
    fit in the A100's 40 MB L2, and the form says so."""
    from roofline_gui.core.document import Document

    model, form = window.model, window.kernels.form
    model.reset(Document())
    model.add_chips([window.presets.chips["nvidia-a100-sxm4-40gb"]])
    ids = model.add_kernels([window.presets.kernels["add-int8"]])
    model.select(ids[0], None)
    places = form.places
    assert list(places.combos) == ["a", "b", "out"]
    assert all(c.currentData() == "dram" for c in places.combos.values())
    for name in ("a", "b"):
        combo = places.combos[name]
        combo.setCurrentIndex(combo.findData("cache"))
        combo.activated.emit(combo.currentIndex())
    kernel = model.document.kernel(ids[0])
    assert kernel.resides == {"a": "cache", "b": "cache"}
    assert kernel.traffic().bytes == {"cache": 2e8, "dram": 1e8}
    assert "a and b on chip" in form.name_edit.text()
    text = form.formula.toPlainText()
    assert "on chip (kept across calls): a 1e+08 + b 1e+08 = 2e+08 B" in text
    assert "main memory: out 1e+08 B" in text
    assert "main memory (DRAM/HBM) 1 op/B, on-chip cache / SRAM 0.5 op/B" in text
    assert "do not fit in A100 SXM4 40GB's L2 (40 MB)" in places.warning.text()
    assert not places.warning.isHidden()
    model.undo_stack.undo()
    assert model.document.kernel(ids[0]).resides == {"a": "cache"}
    assert places.combos["b"].currentData() == "dram"


def test_all_kernels_at_16_bit_runs_each_chip_at_its_own_and_each_cell_says_so(window):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from roofline_gui.core.document import Document

    model = window.model
    model.reset(Document())
    model.add_chips([window.presets.chips[i] for i in ("nvidia-v100-sxm2-16gb", "google-tpu-v3")])
    model.add_kernels([window.presets.kernels["mlp-bf16-b1"]])
    combo = window.precision_combo
    combo.setCurrentIndex(combo.findData("16-bit"))
    combo.activated.emit(combo.currentIndex())
    QApplication.processEvents()
    assert model.view.same_width and window.act_same_width.isChecked()
    cmp = model.comparison
    assert cmp.kernels[0].precision == "bf16" and cmp.speedup(0)[0, 1] == 1.0
    table = window.table.table_model
    texts = [table.index(0, col).data(Qt.ItemDataRole.DisplayRole) for col in range(table.columnCount())]
    assert any("fp16 for bf16" in str(t) for t in texts)
    assert any(str(t) == "1×" for t in texts)
    window.act_same_width.trigger()  # off: V100 has no bf16 again
    assert model.comparison.limiter_name(0, 0) == "no bf16 on this chip"


def test_ctrl_z_after_enter_in_a_kernels_batch_undoes_the_document(window, qtbot):
    """The tour: a kernel's Batch typed, Enter, Ctrl+Z: the field went back to 1 but the kernel
    stayed at batch 8 and Redo stayed off (the field, shown the same text by the document,
    still counted as typed, so the keys rewound its own text); leaving it then made a new step.
    Now the keys undo the document's step and the field follows it."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    model = window.model
    ids = model.add_kernels([window.presets.kernels["mlp-bf16-b1"]])
    model.select(ids[0], None)
    window.docks["kernels"].raise_()
    QApplication.processEvents()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=2000)
    field = window.kernels.form.params.fields["batch"]
    field.setFocus()
    qtbot.waitUntil(field.hasFocus, timeout=2000)
    before = model.document.kernel(ids[0]).params["batch"]
    field.selectAll()
    QTest.keyClicks(field, "8")
    QTest.keyClick(field, Qt.Key.Key_Return)
    assert model.document.kernel(ids[0]).params["batch"] == 8
    QTest.keyClick(field, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    QApplication.processEvents()
    assert model.document.kernel(ids[0]).params["batch"] == before
    assert model.undo_stack.canRedo()
    qtbot.waitUntil(lambda: field.value() == before, timeout=2000)
    steps = model.undo_stack.index()
    field.clearFocus()  # leaving the field makes no new step
    QApplication.processEvents()
    assert model.undo_stack.index() == steps and model.undo_stack.canRedo()


def test_on_a_short_dock_the_preset_library_folds_and_the_form_has_room(window, qtbot):
    """At 1280 x 800 the kernels dock is about 370 px tall and the form showed three fields
    (the tour): there the preset library starts folded to its title, which unfolds it on a
    click (and stays as the user left it); on a tall dock it starts unfolded."""
    from PySide6.QtWidgets import QApplication

    library = window.kernels
    window.docks["kernels"].raise_()
    for height, shown in ((752, False), (1080, True)):
        window.resize(1264, height)
        for _ in range(5):
            QApplication.processEvents()
        assert (library.height() >= library.FOLD_BELOW) == shown, library.height()
        assert library.tree.isVisible() == shown
    window.resize(1264, 752)
    for _ in range(5):
        QApplication.processEvents()
    assert not library.tree.isVisible() and library.form.isVisible()
    library.presets_toggle.click()  # the user unfolds it: it stays so
    window.resize(1264, 740)
    for _ in range(5):
        QApplication.processEvents()
    assert library.tree.isVisible()
    # unfolded on the short dock, the form keeps twice the library's room (by the stretches it
    # had three eighths of the dock: two fields, the 37th tour)
    tree, _session, form = library.splitter.sizes()
    assert form >= 2 * tree - 2 and tree > 0
    library.presets_toggle.click()
    assert not library.tree.isVisible()


def test_the_wheel_over_the_formulas_scrolls_the_form_until_they_are_clicked(window, qtbot):
    """The twentieth tour: at 1280 × 800 the kernel form's formula box caught the wheel, which
    scrolled the formulas for fourteen notches before the form moved. Unfocused, it passes the
    wheel on (to the form's scroll area); clicked into, it scrolls its own text."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    form = window.kernels.form
    box = form.formula
    box.setPlainText("\n".join(f"line {i}" for i in range(200)))
    viewport = box.viewport()

    def wheel() -> QWheelEvent:
        centre = QPointF(viewport.rect().center())
        event = QWheelEvent(centre, QPointF(viewport.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                            QPoint(0, -120), Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(viewport, event)
        return event

    window.kernels.setFocus()
    before = box.verticalScrollBar().value()
    event = wheel()
    assert not event.isAccepted() and box.verticalScrollBar().value() == before
    box.setFocus()
    qtbot.waitUntil(box.hasFocus, timeout=1000)
    wheel()
    assert box.verticalScrollBar().value() > before
