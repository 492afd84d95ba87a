"""Derived what-if chips (Tools → Derive what-if chip…, --what-if, rf.derive): a copy with all
factors 1 gives every number of its original; twice the HBM halves a memory-bound workload's
step exactly and leaves a compute-bound GEMM where it was; every changed ceiling says what-if."""

import numpy as np
import pytest

import roofline_gui.api as rf
from roofline_gui.core.chip import WHAT_IF, derive
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
    assert faster.dram.source.startswith(WHAT_IF) and faster.dram.provenance().kind == "what-if"
    assert "3.35 TB/s" in faster.dram.source
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
