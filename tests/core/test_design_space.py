"""The design-space map's numbers: at the chip's own ceilings it is the workload's step time;
a memory-bound decode scales with main memory alone; a compute-bound prefill with compute."""

import numpy as np
import pytest

import roofline_gui.api as rf
from roofline_gui.core.design_space import balance_ratio, design_space
from roofline_gui.core.workload_eval import evaluate_workloads

H100 = rf.chip("nvidia-h100-sxm5-80gb")


def test_the_map_at_the_chips_own_ceilings_is_the_step_time_and_scales_by_what_bounds_it():
    decode = rf.workload("llama-3-8b", phase="decode", batch=1, context=2048)
    cnn = rf.workload("llama-3-8b", phase="prefill", batch=8, sequence=2048)
    d, c = evaluate_workloads([decode, cnn], [H100])
    factors = np.array([0.5, 1.0, 2.0])
    for r in (d, c):
        grid = design_space(r, 0, factors, factors)
        assert grid[1, 1] == pytest.approx(r.time[0])
    dmap = design_space(d, 0, factors, factors)
    assert dmap[1, 2] == pytest.approx(d.time[0] / 2, rel=0.01)  # twice the HBM: half the step
    assert dmap[2, 1] == pytest.approx(d.time[0], rel=0.01)  # twice the compute: nothing
    cmap = design_space(c, 0, factors, factors)
    assert cmap[2, 1] < 0.6 * cmap[1, 1] and cmap[1, 2] == pytest.approx(cmap[1, 1], rel=0.05)
    assert balance_ratio(d, 0) > 1 > balance_ratio(c, 0)  # decode memory-heavy, prefill not


def test_a_training_steps_map_at_the_chips_own_ceilings_is_its_step_time():
    """Composed as the step is (communication hidden behind the kernels, the bubble added): the
    map's own point had summed them, 1-4 % slower than the workload's table."""
    train = rf.workload("llama-2-7b", phase="train", batch=1, sequence=4096, data_parallel=8,
                        global_batch=64, pipeline_parallel=2, activations="bf16")
    (r,) = evaluate_workloads([train], [H100])
    assert r.link_time[0] > 0  # the gradients' all-reduce, hidden behind the kernels
    factors = np.array([0.5, 1.0, 2.0])
    grid = design_space(r, 0, factors, factors)
    assert grid[1, 1] == pytest.approx(r.time[0], rel=1e-12)
    assert grid[1, 1] < r.kernel_time[0] + r.link_time[0] + r.bubble_time[0]
