"""Undo always holds: random sequences of edits through the document model, then undo all,
redo all, and save/load in between. Hypothesis drives a few hundred sequences per run."""

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roofline_gui.core.edits import Move, Remove, Replace, SetField
from roofline_gui.io.presets import default_presets
from roofline_gui.io.session import dump_session, loads_session
from roofline_gui.models.document_model import DocumentModel

PRESETS = default_presets()
CHIP_IDS = list(PRESETS.chips)
KERNEL_IDS = list(PRESETS.kernels)

ops = st.one_of(
    st.tuples(st.just("add_chip"), st.sampled_from(CHIP_IDS)),
    st.tuples(st.just("add_kernel"), st.sampled_from(KERNEL_IDS)),
    st.tuples(st.just("remove_chip"), st.integers(0, 50)),
    st.tuples(st.just("remove_kernel"), st.integers(0, 50)),
    st.tuples(st.just("bandwidth"), st.integers(0, 50), st.floats(0.1, 10)),
    st.tuples(st.just("peak"), st.integers(0, 50), st.floats(0.1, 10)),
    st.tuples(st.just("param"), st.integers(0, 50), st.integers(1, 100_000)),
    st.tuples(st.just("drag"), st.integers(0, 50), st.lists(st.floats(0.01, 5000), min_size=1,
                                                            max_size=6)),
    st.tuples(st.just("precision"), st.integers(0, 50), st.sampled_from(["fp32", "bf16", "int8", "fp8"])),
    st.tuples(st.just("move_chip"), st.integers(0, 50), st.integers(0, 50)),
    st.tuples(st.just("baseline"), st.integers(0, 50)),
    st.tuples(st.just("hide"), st.integers(0, 50)),
)


def run(model: DocumentModel, op, drag_serial: int) -> None:
    doc = model.document
    kind = op[0]
    chips, kernels = doc.chips, doc.kernels
    pick = (lambda items, i: items[i % len(items)] if items else None)
    if kind == "add_chip":
        model.add_chips([PRESETS.chips[op[1]]])
    elif kind == "add_kernel":
        model.add_kernels([PRESETS.kernels[op[1]]])
    elif kind == "remove_chip" and chips:
        model.push(Remove("chips", pick(chips, op[1]).id), "remove chip")
    elif kind == "remove_kernel" and kernels:
        model.push(Remove("kernels", pick(kernels, op[1]).id), "remove kernel")
    elif kind == "bandwidth" and chips:
        chip = pick(chips, op[1])
        i = chip.memory.index(chip.dram)
        level = replace(chip.dram, bandwidth=chip.dram.bandwidth * op[2])
        model.push(Replace("chips", chip.with_level(i, level)), "bandwidth",
                   merge_key=("chip-field", chip.id, "bw"))
    elif kind == "peak" and chips:
        chip = pick(chips, op[1])
        p = chip.precisions[0]
        model.push(Replace("chips", chip.with_compute(p, chip.compute[p] * op[2])), "peak")
    elif kind == "param" and kernels:
        kernel = pick(kernels, op[1])
        if kernel.template:
            from roofline_gui.core.templates import TEMPLATES

            name = TEMPLATES[kernel.template].main_param
            spec = TEMPLATES[kernel.template].param(name)
            value = float(min(max(op[2], spec.minimum), spec.maximum))
            model.push(Replace("kernels", replace(kernel, params={**kernel.params, name: value})),
                       "param", merge_key=("param", kernel.id, name))
    elif kind == "drag" and kernels:
        kernel = pick(kernels, op[1])
        for target in op[2]:
            model.move_kernel_to_intensity(kernel.id, target, merge_key=("drag", drag_serial))
    elif kind == "precision" and kernels:
        kernel = pick(kernels, op[1])
        model.push(Replace("kernels", kernel.with_precision(op[2])), "precision")
    elif kind == "move_chip" and chips:
        model.push(Move("chips", pick(chips, op[1]).id, op[2] % len(chips)), "move")
    elif kind == "baseline" and chips:
        model.push(SetField("baseline", pick(chips, op[1]).id), "baseline")
    elif kind == "hide" and chips:
        chip = pick(chips, op[1])
        model.push(Replace("chips", replace(chip, visible=not chip.visible)), "toggle")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(ops, max_size=25))
def test_undo_all_redo_all_and_save_load_in_between(qapp, example_doc, sequence):
    model = DocumentModel()
    model.reset(example_doc)
    first = model.document
    for serial, op in enumerate(sequence):
        run(model, op, serial)
        # Saving and loading at any point gives back the same document.
        assert loads_session(dump_session(model.document)) == model.document
    last = model.document
    stack = model.undo_stack
    while stack.canUndo():
        stack.undo()
    assert model.document == first
    while stack.canRedo():
        stack.redo()
    assert model.document == last
    # and the comparison follows the document (no stale cache)
    assert model.comparison.kernels == model.document.kernels
