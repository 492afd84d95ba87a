"""The core refuses an edit that would break a rule of the domain, whatever path it came from."""

from dataclasses import replace

import pytest

from roofline_gui.core.edits import Batch, Insert, Replace, SetField, apply
from roofline_gui.core.errors import EditRefused
from roofline_gui.io.files import resources_dir
from roofline_gui.io.session import load_session


@pytest.fixture
def doc():
    return load_session(resources_dir() / "examples" / "a100-vs-tpu-v3.roofline")


def test_a_chip_keeps_a_compute_ceiling(doc):
    chip = doc.chips[0]
    with pytest.raises(EditRefused, match="A100 SXM4 40GB: a chip needs at least one compute ceiling"):
        apply(Replace("chips", replace(chip, compute={})), doc)


def test_a_chip_keeps_its_main_memory(doc):
    chip = doc.chips[1]
    no_dram = replace(chip, memory=tuple(lv for lv in chip.memory if lv.role != "dram"))
    with pytest.raises(EditRefused, match="TPU v3: a chip needs its main-memory"):
        apply(Replace("chips", no_dram), doc)
    with pytest.raises(EditRefused):
        apply(Insert("chips", 0, replace(no_dram, id="c9")), doc)


def test_a_refused_step_refuses_the_whole_batch_and_the_document_stays(doc):
    before = doc
    bad = replace(doc.chips[0], compute={})
    with pytest.raises(EditRefused):
        apply(Batch((SetField("title", "renamed"), Replace("chips", bad))), doc)
    assert doc == before and doc.title != "renamed"
