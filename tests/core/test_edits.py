from dataclasses import replace

import pytest

from roofline_gui.core.chip import Chip, MemoryLevel
from roofline_gui.core.document import Document
from roofline_gui.core.edits import (
    Batch,
    Insert,
    Move,
    Remove,
    Replace,
    SetField,
    apply,
    touched_ids,
)
from roofline_gui.core.kernel import Kernel


def doc():
    chips = tuple(
        Chip(f"c{i}", f"chip {i}", {"fp32": 1e12 * i}, (MemoryLevel("dram", "M", 1e11),))
        for i in (1, 2, 3)
    )
    kernels = (Kernel("k1", "a", "fp32", intensity=1.0), Kernel("k2", "b", "fp32", intensity=2.0))
    return Document(chips=chips, kernels=kernels, baseline="c1", title="t")


EDITS = [
    Insert("chips", 1, Chip("c9", "new", {"bf16": 1e14}, (MemoryLevel("dram", "HBM", 1e12),))),
    Remove("chips", "c2"),
    Replace("kernels", Kernel("k2", "renamed", "bf16", intensity=5.0)),
    Move("chips", "c3", 0),
    Move("kernels", "k1", 5),
    SetField("baseline", "c3"),
    SetField("title", "new title"),
    Batch((Remove("kernels", "k1"), Remove("chips", "c1"), SetField("baseline", None))),
]


@pytest.mark.parametrize("edit", EDITS, ids=lambda e: type(e).__name__)
def test_inverse_restores_the_document(edit):
    before = doc()
    after, inverse = apply(edit, before)
    assert after != before
    restored, redo = apply(inverse, after)
    assert restored == before
    assert apply(redo, restored)[0] == after


def test_edits_name_objects_by_id_and_report_what_they_touch():
    d, _ = apply(Move("chips", "c3", 0), doc())
    assert [c.id for c in d.chips] == ["c3", "c1", "c2"]
    d2, _ = apply(Replace("chips", replace(d.chip("c2"), name="renamed")), d)
    assert d2.chips[2].name == "renamed"
    assert touched_ids(Batch((Remove("chips", "c1"), Move("kernels", "k2", 0)))) == {"c1", "k2"}


def test_bad_edits_raise_and_leave_nothing_changed():
    d = doc()
    with pytest.raises(KeyError):
        apply(Remove("chips", "nope"), d)
    with pytest.raises(KeyError):
        apply(Insert("chips", 0, d.chips[0]), d)  # duplicate id
    assert d == doc()


def test_new_ids_never_collide():
    d = doc()
    assert d.new_id("c") == "c4"
    assert d.new_id("k") == "k3"
    assert d.baseline_chip.id == "c1"
    assert replace(d, baseline="gone").baseline_chip.id == "c1"


def test_removing_the_baseline_chip_clears_the_baseline_and_undo_restores_it():
    d = doc()
    after, inverse = apply(Remove("chips", "c1"), d)
    assert after.baseline is None
    assert apply(inverse, after)[0] == d


def test_a_chip_added_again_is_named_as_a_copy():
    """The twenty-sixth tour added the H100 preset twice: two chips of one name, which the
    legend, the table's columns and the explanation ("runs it at the same speed" as itself)
    could not tell apart. A chip inserted under a name in use is named as a copy; a kernel's
    name is left alone (a session may well run one kernel twice)."""
    from roofline_gui.core.edits import insert_new

    d = doc()
    edit, ids = insert_new(d, "chips", [d.chips[0], d.chips[0], d.chips[1]])
    added, _undo = apply(edit, d)
    assert [c.name for c in added.chips] == [
        "chip 1", "chip 2", "chip 3", "chip 1 (copy)", "chip 1 (copy 2)", "chip 2 (copy)"]
    assert len(set(ids)) == 3
    fresh = Chip("cx", "H100", {"bf16": 1e15}, (MemoryLevel("dram", "HBM3", 3.35e12),))
    assert apply(insert_new(d, "chips", [fresh])[0], d)[0].chips[-1].name == "H100"
    edit, _ids = insert_new(d, "kernels", [d.kernels[0]])
    assert apply(edit, d)[0].kernels[-1].name == "a"
