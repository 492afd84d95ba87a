"""The DeepSeek-R1 example (Help → Examples): 8 H200s in FP8 against 4 B200s in NVFP4, its
numbers as its source states them and as the roofline gives them by hand."""

from pathlib import Path

import pytest

from roofline_gui.core.workload_eval import evaluate_workloads
from roofline_gui.io.session import load_session

EXAMPLE = (Path(__file__).resolve().parents[1] / "resources" / "examples"
           / "deepseek-r1-h200-fp8-vs-b200-nvfp4.roofline")


def test_the_example_says_what_the_roofline_gives():
    doc = load_session(EXAMPLE)
    fp8, nvfp4 = doc.workloads
    assert (fp8.chips_per_model, fp8.expert_parallel, fp8.weights) == (8, 8, "fp8")
    assert (nvfp4.chips_per_model, nvfp4.expert_parallel, nvfp4.weights) == (4, 4, "nvfp4")
    a, b = evaluate_workloads(doc.workloads, doc.chips)
    h200, b200 = (c.name for c in doc.chips)
    assert h200.startswith("H200") and b200 == "B200"
    assert f"{a.throughput[0]:,.0f} tokens/s" in fp8.source
    assert f"{b.throughput[1]:,.0f}" in nvfp4.source
    # by hand: memory-bound, so the step is at least main-memory bytes ÷ bandwidth, and the
    # kernels' times add up to the step with the link
    for r, c, bw in ((a, 0, 4.8e12), (b, 1, 8e12)):
        assert r.memory_bound_share[c] > 0.95
        assert r.time[c] >= r.dram_bytes / bw * (1 - 1e-9)
        assert r.kernel_time[c] == pytest.approx(r.dram_bytes / bw, rel=0.05)
    assert b.throughput[1] / 4 > 2.5 * a.throughput[0] / 8  # per chip
