from dataclasses import replace

import pytest

from roofline_gui.core.edits import Remove, Replace, SetField
from roofline_gui.models.comparison_model import ComparisonTableModel
from roofline_gui.models.document_model import DocumentModel
from roofline_gui.models.item_models import ChipListModel, KernelListModel, PresetKernelModel
from roofline_gui.models.mime import MIME_KERNELS, decode, encode


def test_edits_are_undoable_and_named(qtbot, model):
    first = model.document
    chip = model.document.chips[0]
    with qtbot.waitSignal(model.sig_document_changed) as blocker:
        model.push(Replace("chips", replace(chip, name="Renamed")), "Rename A100")
    assert blocker.args == [model.document, frozenset({chip.id})]
    assert model.undo_stack.undoText() == "Rename A100"
    model.undo_stack.undo()
    assert model.document == first


def test_a_no_op_edit_is_not_pushed(qtbot, model):
    chip = model.document.chips[0]
    with qtbot.assertNotEmitted(model.sig_document_changed):
        assert not model.push(Replace("chips", chip), "nothing")
    assert model.undo_stack.count() == 0


def test_drag_steps_merge_into_one_undo_step(qtbot, model):
    kernel = next(k for k in model.document.kernels if k.template == "mlp")
    first = model.document
    for target in (2.0, 8.0, 32.0, 64.0):
        model.move_kernel_to_intensity(kernel.id, target, merge_key=("drag", 0))
    assert model.undo_stack.count() == 1
    assert model.document.kernel(kernel.id).params["batch"] == pytest.approx(64, rel=0.1)
    assert "batch B" in model.undo_stack.undoText()
    model.undo_stack.undo()
    assert model.document == first
    model.undo_stack.redo()
    assert model.document.kernel(kernel.id).params["batch"] == pytest.approx(64, rel=0.1)


def test_separate_drags_are_separate_steps(model):
    kernel = next(k for k in model.document.kernels if k.template == "mlp")
    model.move_kernel_to_intensity(kernel.id, 8.0, merge_key=("drag", 0))
    model.move_kernel_to_intensity(kernel.id, 16.0, merge_key=("drag", 1))
    assert model.undo_stack.count() == 2


def test_comparison_is_reevaluated_after_an_edit(model):
    chip = model.document.chips[0]
    before = model.comparison.result.attainable[0, 0]
    level = replace(chip.dram, bandwidth=chip.dram.bandwidth * 2)
    model.push(Replace("chips", chip.with_level(chip.memory.index(chip.dram), level)), "faster HBM")
    assert model.comparison.result.attainable[0, 0] == pytest.approx(2 * before)


def test_add_chips_gets_fresh_ids_and_unused_colours(model):
    chip = model.document.chips[0]
    ids = model.add_chips([chip, chip])
    assert len(set(ids)) == 2 and not set(ids) & {"c1", "c2"}
    colors = [c.color for c in model.document.chips]
    assert len(set(colors)) == len(colors)
    assert model.undo_stack.count() == 1  # one step for the whole batch


@pytest.mark.parametrize("factory", [ChipListModel, KernelListModel, ComparisonTableModel])
def test_item_models_pass_the_model_tester(qtmodeltester, model, factory):
    item_model = factory(model)
    qtmodeltester.check(item_model)
    # and after edits that change rows, columns and data
    model.push(Remove("kernels", model.document.kernels[0].id), "remove")
    model.push(Replace("chips", replace(model.document.chips[1], visible=False)), "hide")
    model.push(SetField("baseline", model.document.chips[1].id), "baseline")
    qtmodeltester.check(item_model)


def test_preset_model_passes_the_model_tester(qtmodeltester):
    from roofline_gui.io.presets import default_presets

    qtmodeltester.check(PresetKernelModel(default_presets()))


def test_mime_payload_round_trips_and_rejects_junk(qtbot):
    data = encode(MIME_KERNELS, "preset", ["add-int8", "cnn-int8"], ["a", "b"])
    assert decode(data, MIME_KERNELS) == ("preset", ["add-int8", "cnn-int8"])
    assert data.text() == "a\nb"
    from PySide6.QtCore import QMimeData

    junk = QMimeData()
    junk.setData(MIME_KERNELS, b"{not json")
    assert decode(junk, MIME_KERNELS) is None
    junk.setData(MIME_KERNELS, b'{"version": 99, "source": "preset", "ids": []}')
    assert decode(junk, MIME_KERNELS) is None


def test_dropping_presets_on_the_session_list_adds_them(model):
    from roofline_gui.io.presets import default_presets

    presets = default_presets()
    kernels = KernelListModel(model, presets)
    preset_model = PresetKernelModel(presets)
    index = preset_model.index_of("spmv-fp64")
    n = len(model.document.kernels)
    mime = preset_model.mimeData([index])
    from PySide6.QtCore import QModelIndex, Qt

    assert kernels.dropMimeData(mime, Qt.DropAction.CopyAction, 0, 0, QModelIndex())
    assert len(model.document.kernels) == n + 1
    assert model.document.kernels[0].preset == "spmv-fp64"


def test_reordering_chips_by_drag_and_drop(model):
    chips = ChipListModel(model)
    from PySide6.QtCore import QModelIndex, Qt

    mime = chips.mimeData([chips.index(1)])
    assert chips.dropMimeData(mime, Qt.DropAction.MoveAction, 0, 0, QModelIndex())
    assert [c.name for c in model.document.chips] == ["TPU v3", "A100 SXM4 40GB"]


def test_settings_defaults_and_recent_files(settings):
    assert settings.recent_files() == []
    assert settings.get("view/mode") == "overlay"
    for i in range(12):
        settings.add_recent(f"/tmp/f{i}.roofline")
    settings.add_recent("/tmp/f5.roofline")
    recent = settings.recent_files()
    assert recent[0] == "/tmp/f5.roofline" and len(recent) == 8 and len(set(recent)) == 8


def test_document_model_without_a_document_is_empty(qtbot):
    m = DocumentModel()
    assert m.comparison.result.attainable.shape == (0, 0)


def test_every_chip_column_of_the_table_names_its_chip(qtbot, example_doc):
    """Scrolled sideways the table named no chip: only a chip's first column carried its name.
    Each column now starts with a short name that tells the chips apart."""
    from PySide6.QtCore import Qt

    from roofline_gui.models.comparison_model import short_names

    assert short_names(("A100 SXM4 40GB", "TPU v3", "V100 SXM2 16GB", "V100 SXM2 32GB")) == (
        "A100 SXM4", "TPU v3", "V100 SXM2 16GB", "V100 SXM2 32GB")
    assert short_names(("H100", "H100 (what-if)")) == ("H100", "H100 (what-if)")
    # a what-if's name, the datasheet chip's and more after a comma: its columns read
    # "H100 SXM5 80GB," (the tour took them for the H100's own)
    assert short_names(("H100 SXM5 80GB", "H100 SXM5 80GB, HBM3 ×2")) == (
        "H100 SXM5 80GB", "H100 SXM5 80GB, HBM3 ×2")
    # never cut inside a parenthesis ("M2 (10-core 24 GB: does not fit": the twenty-fourth
    # tour)
    assert short_names(("M2 (10-core GPU)", "TPU v5e", "EPYC 9654 (Genoa)")) == (
        "M2 (10-core GPU)", "TPU v5e", "EPYC 9654")
    model = DocumentModel()
    model.reset(example_doc)
    table = ComparisonTableModel(model)
    chips = model.document.chips
    assert len(chips) >= 2
    shorts = short_names(tuple(c.name for c in chips))
    for column in range(table.columnCount()):
        located = table.locate(column)
        if located is None:
            continue
        header = table.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
        first = header.split("\n")[0]
        assert first in (chips[located[0]].name, shorts[located[0]]), header


def test_an_edit_of_serving_settings_alone_keeps_every_other_evaluation():
    """The Serving view's fields (input length, limits, drafts) change no decode step, prefill
    or training step: the workloads' evaluation is kept, carrying the edited workload, and
    ``serving_only`` tells the other views so; any other field is evaluated afresh."""
    from roofline_gui.core.workload import with_field
    from roofline_gui.io.presets import default_presets
    from roofline_gui.io.workloads import shipped_workloads

    model = DocumentModel()
    model.add_chips([default_presets().chips["nvidia-h100-sxm5-80gb"]])
    wid, = model.add_workloads([shipped_workloads()["llama-3-8b"].workload("w1")])
    before = model.workload_results[0]
    w = model.document.workload(wid)
    assert model.set_workload(with_field(w, "input_tokens", 4000))
    assert model.serving_only
    after = model.workload_results[0]
    assert after.evaluation is before.evaluation and after.workload.input_tokens == 4000
    assert model.set_workload(with_field(model.document.workload(wid), "batch", 8))
    assert not model.serving_only
    assert model.workload_results[0].evaluation is not before.evaluation
    model.undo_stack.undo()  # the batch back: evaluated afresh
    assert not model.serving_only and model.workload_results[0].workload.batch == w.batch
    model.undo_stack.undo()  # the input length back: serving settings alone again
    assert model.serving_only and model.workload_results[0].workload.input_tokens == 1000


def test_a_session_of_workloads_alone_opens_with_its_first_workload_selected():
    """Every view then starts on the same workload (the list, the breakdown, the Serving view
    each fell back to its own choice)."""
    from roofline_gui.core.document import Document
    from roofline_gui.io.workloads import shipped_workloads

    ws = tuple(shipped_workloads()[n].workload(f"w{i}") for i, n in
               enumerate(("llama-3-8b", "gpt2")))
    model = DocumentModel()
    model.reset(Document(workloads=ws))
    assert model.selected_kernel == "w0"


def test_a_batch_that_removes_the_selected_kernel_and_inserts_another_moves_the_selection(model):
    """The same number of kernels before and after (a recovered journal's ``transform``): the
    selected kernel is gone all the same, and the selection goes to the one in its place."""
    from roofline_gui.core.edits import transform  # noqa: PLC0415

    old = model.document
    gone = old.kernels[1]
    model.select(gone.id, old.chips[0].id)
    stranger = replace(gone, id="k-stranger", name="Another kernel")
    new = replace(old, kernels=(old.kernels[0], stranger, *old.kernels[2:]))
    assert len(new.kernels) == len(old.kernels)
    model.push(transform(old, new), "Recover")
    assert (model.selected_kernel, model.selected_chip) == ("k-stranger", old.chips[0].id)
    model.undo_stack.undo()  # the stranger removed, the old one back in its place
    assert model.selected_kernel == gone.id


def test_the_table_reads_nothing_stale_while_another_document_arrives(qtbot, example_doc):
    """The window's slot for a new document ran before the table's and laid the table out
    (clearing the status bar resized it): the header asked for the old columns' chips in the
    new document, an IndexError shiboken crashed reporting (opening an example after a resize).
    Until the table's own turn every cell and header reads None; then the new document's."""
    from PySide6.QtCore import Qt

    model = DocumentModel()
    model.reset(example_doc)
    read, errors = [], []

    def read_everything(_doc, _touched):  # connected before the table: called first
        try:
            read.append([table.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
                         for c in range(table.columnCount())]
                        + [table.headerData(r, Qt.Orientation.Vertical, Qt.ItemDataRole.DisplayRole)
                           for r in range(table.rowCount())]
                        + [table.data(table.index(r, c)) for r in range(table.rowCount())
                           for c in range(table.columnCount())])
        except Exception as error:  # noqa: BLE001 (a slot's exception is only printed)
            errors.append(error)

    model.sig_document_changed.connect(read_everything)
    table = ComparisonTableModel(model)
    assert table.columnCount() > 5 + 5  # two chips' columns
    fewer = replace(example_doc, chips=example_doc.chips[1:], kernels=example_doc.kernels[:2])
    model.reset(fewer)
    assert not errors and read and all(value is None for value in read[-1])
    # and once it has had its turn, the new document's
    header = table.headerData(table.columnCount() - 1, Qt.Orientation.Horizontal)
    assert table.rowCount() == 2 and fewer.chips[0].name.split()[0] in header
    assert table.data(table.index(0, 0)) == fewer.kernels[0].name
