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
