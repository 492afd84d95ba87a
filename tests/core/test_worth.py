"""What each ceiling is worth (core.worth), checked by hand: a memory-bound, a compute-bound and
a near-the-ridge kernel, and a mixed workload whose time splits between the two."""

import pytest

from roofline_gui.core.comparison import compare
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.workload import Workload
from roofline_gui.core.workload_eval import evaluate_workloads
from roofline_gui.core.worth import speedups, workload_speedups
from roofline_gui.io.presets import default_presets

A100 = default_presets().chips["nvidia-a100-sxm4-40gb"]  # bf16 312 Top/s, HBM2 1.555 TB/s


def sized(kid: str, ops: float, dram: float) -> Kernel:
    return Kernel(kid, kid, "bf16", flops=ops, bytes={"dram": dram})


def test_a_memory_bound_a_compute_bound_and_a_near_ridge_kernel():
    memory = sized("m", 1e9, 1e9)  # 1 op/B: HBM 643 µs, compute 3.2 µs
    compute = sized("c", 312e12, 1e9)  # compute 1 s, HBM 643 µs
    # compute 0.8 × the HBM time: intensity 0.8 × the ridge (312e12 / 1.555e12 = 200.6 op/B)
    near = sized("n", 0.8 * 312e12 / 1.555e12 * 1e9, 1e9)
    worth = speedups(compare([memory, compute, near], [A100]).result)
    assert worth["dram"][0, 0] == pytest.approx(2.0) and worth["compute"][0, 0] == pytest.approx(1.0)
    assert worth["compute"][1, 0] == pytest.approx(2.0) and worth["dram"][1, 0] == pytest.approx(1.0)
    # twice the bandwidth: HBM time halves to 0.5 of it, below compute's 0.8: 1 / 0.8 = 1.25×
    assert worth["dram"][2, 0] == pytest.approx(1.25) and worth["compute"][2, 0] == pytest.approx(1.0)
    for role in ("cache", "host", "link"):
        assert (worth[role] == 1.0).all()  # unused ceilings are worth nothing


def test_a_mixed_workload_gains_from_each_ceiling_in_proportion_to_its_share():
    memory = sized("m", 1.555e12, 1.555e12)  # 1 s on HBM
    compute = sized("c", 312e12 * 3, 1e9)  # 3 s of compute
    w = Workload("w", "mixed", "custom", {"entries": [{"kernel": "m", "count": 2},
                                                       {"kernel": "c", "count": 1}]})
    (result,) = evaluate_workloads([w], [A100], kernels={"m": memory, "c": compute})
    assert result.time[0] == pytest.approx(5.0)  # 2 × 1 s + 3 s
    worth = workload_speedups(result)
    assert worth["dram"][0] == pytest.approx(5.0 / (2 * 0.5 + 3))  # 1.25×
    assert worth["compute"][0] == pytest.approx(5.0 / (2 + 1.5))  # 1.43×
    assert worth["link"][0] == pytest.approx(1.0)
