"""Derived what-if chips (Tools → Derive what-if chip…, --what-if, rf.derive): a copy with all
factors 1 gives every number of its original; twice the HBM halves a memory-bound workload's
step exactly and leaves a compute-bound GEMM where it was; every changed ceiling says what-if."""

import numpy as np
import pytest

import roofline_gui.api as rf
from roofline_gui.core.chip import derive
from roofline_gui.core.comparison import compare
from roofline_gui.core.workload_eval import evaluate_workloads

H100 = rf.chip("nvidia-h100-sxm5-80gb")


def test_a_copy_with_every_factor_one_gives_every_number_of_its_original():
    same = derive(H100, {k: 1.0 for k in ("compute", "dram", "cache", "host", "link", "capacity")})
    kernels = list(rf.preset_kernels().values())
    a, b = compare(kernels, [H100]).result, compare(kernels, [same]).result
    for name in ("attainable", "time_lower", "limiter"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert same.name == "H100 SXM5 80GB (what-if)" and same.memory == H100.memory


def test_twice_the_hbm_halves_decode_and_leaves_a_compute_bound_gemm():
    faster = derive(H100, {"dram": 2})
    assert faster.name == "H100 SXM5 80GB, HBM3 ×2" and faster.dram.bandwidth == 6.7e12
    said = faster.dram.provenance()
    assert said.kind == "what-if" and said.datasheet == 3.35e12 and faster.dram.what_if_of == 3.35e12
    assert said.text.startswith("what-if: 2× the datasheet's 3.35 TB/s (datasheet: NVIDIA H100")
    assert faster.dram.source == H100.dram.source  # the datasheet's source, kept as it was
    llama = rf.workload("llama-3-8b", phase="decode", batch=1, context=2048)
    before, after = (evaluate_workloads([llama], [c])[0] for c in (H100, faster))
    assert after.time[0] == pytest.approx(before.time[0] / 2, rel=1e-3)  # all memory-bound
    gemm = rf.preset_kernel("gemm-4k-bf16")
    r = compare([gemm], [H100, faster]).result
    assert r.attainable[0, 0] == r.attainable[0, 1]  # compute-bound: HBM is not what it pays for


def test_factors_by_precision_and_capacity_and_bad_ones_named():
    d = rf.derive(H100, compute=1.5, bf16=2, capacity=2)
    assert d.compute["bf16"] == pytest.approx(3 * H100.compute["bf16"])
    assert d.compute["fp8"] == pytest.approx(1.5 * H100.compute["fp8"])
    assert d.dram.capacity == 2 * H100.dram.capacity
    assert d.compute_provenance("fp8").kind == "what-if"
    for bad, text in (({"dram": -1}, "dram: the factor must be a positive number"),
                      ({"int4": 2}, "int4: H100 SXM5 80GB has no int4 peak"),
                      ({"hbm": 2}, "hbm: not a ceiling")):
        with pytest.raises(rf.RooflineError, match=text):
            rf.derive(H100, **bad)


def test_a_what_if_chip_keeps_its_datasheet_figures_saves_them_draws_them_and_resets(tmp_path):
    from roofline_gui.core.display import chart_spec
    from roofline_gui.core.units import Units
    from roofline_gui.io.session import load_session, save_session

    derived = derive(H100, {"dram": 2, "bf16": 3})
    assert derived.is_what_if and derived.compute_what_if_of == {"bf16": H100.compute["bf16"]}
    doc = rf.session([H100, derived])
    save_session(doc, tmp_path / "w.roofline")
    again = load_session(tmp_path / "w.roofline")
    assert again.chips[1].dram.what_if_of == 3.35e12
    assert again.chips[1].compute_what_if_of == {"bf16": H100.compute["bf16"]}
    # the chart draws the datasheet roof it moved from as a ghost, and none for the original
    spec = chart_spec(compare([rf.preset_kernel("gemm-4k-bf16")], again.chips), Units())
    ghosts = [(r.chip, r.peak, r.bandwidth) for r in spec.datasheet_roofs]
    assert ghosts == [(1, H100.compute["bf16"], 3.35e12)]
    back = again.chips[1].at_datasheet()
    assert back.compute == H100.compute and back.memory == H100.memory and not back.is_what_if


def test_a_moved_chip_is_named_what_if_until_every_ceiling_is_back():
    moved = H100.with_ceiling(("peak", "bf16"), 2 * H100.compute["bf16"]).named_as_what_if()
    assert moved.name == "H100 SXM5 80GB (what-if)"
    back = moved.with_ceiling(("peak", "bf16"), H100.compute["bf16"]).named_as_what_if()
    assert back == H100
    derived = derive(H100, {"dram": 2})
    assert derived.at_datasheet().name == "H100 SXM5 80GB (copy)"  # its factor gone, still apart
    assert "What-if" not in derived.at_datasheet().notes
    # a copy of a chip already moved says "what-if" once (the tour saw it twice)
    assert derive(moved, {}).name == "H100 SXM5 80GB (what-if)"
    assert derive(moved, {"dram": 2}).name == "H100 SXM5 80GB, HBM3 ×2"


@pytest.mark.parametrize("name", ["DGX node, 8×V100", "H100 ×2 (what-if)", "A100, HBM2e ×1.5"])
def test_a_chip_named_like_a_what_if_is_named_from_its_fields_not_its_words(name):
    """A name the user typed is theirs whatever it says: dragged, it gains "(what-if)"; back
    at its datasheet (or reset), it is its own name again, never "(copy)"."""
    from dataclasses import replace

    mine = replace(H100, name=name)
    hbm = H100.memory.index(H100.dram)
    moved = mine.with_ceiling(("level", hbm), 2 * H100.dram.bandwidth).named_as_what_if()
    assert moved.is_what_if and moved.name == f"{name} (what-if)"
    assert moved.with_ceiling(("level", hbm), H100.dram.bandwidth).named_as_what_if().name == name
    assert moved.at_datasheet().name == name and moved.at_datasheet() == mine
    # a copy derived from it names its changes after the user's name, and keeps where it came from
    derived = derive(mine, {"dram": 2})
    assert derived.name == f"{name}, HBM3 ×2" and derived.derived_from == name
    assert derived.derivation == f"What-if: {name} with HBM3 ×2."
    assert derived.at_datasheet().name == f"{name} (copy)" and derived.at_datasheet().derived_from is None
    # a what-if the user renamed is theirs too: reset keeps their name
    renamed = replace(derived, name="My design")
    assert renamed.at_datasheet().name == "My design"


def test_the_workload_explanation_says_a_bandwidth_is_a_what_if():
    from roofline_gui.core.workload_view import explain_workload

    llama = rf.workload("llama-3-8b", phase="decode", batch=1, context=2048)
    (r,) = evaluate_workloads([llama], [derive(H100, {"dram": 2})])
    text = "\n".join(explain_workload(r, 0))
    assert "HBM3 at 6.7 TB/s (what-if: 2× the datasheet's 3.35 TB/s)" in text
