import numpy as np
import pytest

from roofline_gui.core.kernel import Kernel
from roofline_gui.core.sweep import can_move, sweep, with_intensity
from roofline_gui.core.units import ROLE_INDEX


def mlp(batch=1):
    return Kernel("m", "mlp", "bf16", template="mlp", params={"batch": batch, "d_in": 4096, "d_out": 4096})


def test_dragging_an_mlp_to_an_intensity_sets_the_batch():
    # Intensity ≈ batch for bf16 (2·B ops per 2-byte weight): 64 op/B needs a batch near 64.
    moved = with_intensity(mlp(), 64.0)
    assert 60 <= moved.params["batch"] <= 70
    assert moved.params["d_in"] == 4096
    intensity = moved.traffic().ops / moved.traffic().bytes["dram"]
    assert intensity == pytest.approx(64, rel=0.05)


def test_plain_kernels_move_by_intensity_or_ops():
    assert with_intensity(Kernel("s", "s", "fp64", intensity=0.25), 2.0).intensity == 2.0
    sized = Kernel("z", "z", "fp32", flops=1e9, bytes={"dram": 4e9})
    moved = with_intensity(sized, 1.0)
    assert moved.flops == 4e9 and moved.bytes == {"dram": 4e9}


def test_stream_kernels_do_not_move_and_bad_targets_change_nothing():
    triad = Kernel("t", "t", "fp64", template="triad", params={"n": 1e6})
    assert not can_move(triad)
    assert with_intensity(triad, 10.0) is triad
    assert with_intensity(mlp(), float("nan")) == mlp()
    assert with_intensity(mlp(), -1.0) == mlp()


def test_sweep_is_monotonic_and_matches_single_evaluations():
    values, ka = sweep(mlp())
    intensity = ka.intensity()[:, ROLE_INDEX["dram"]]
    assert np.all(np.diff(intensity) > 0)
    i = len(values) // 2
    single = mlp(values[i]).traffic()
    assert ka.ops[i] == pytest.approx(single.ops)
    assert ka.bytes[i, ROLE_INDEX["dram"]] == pytest.approx(single.bytes["dram"])


def test_a_move_past_the_end_of_the_path_stops_where_the_intensity_stops_growing():
    """The int8 CNN layer's intensity creeps towards 2,304 op/B as its batch grows: a drag to
    3,000 op/B stops at the batch that comes within 1 % of it, not at the range's 1,000,000."""
    from roofline_gui.core.sweep import REACH_TOLERANCE, move_to_intensity
    from roofline_gui.core.templates import TEMPLATES

    cnn = Kernel("c", "CNN", "int8", template="conv2d", params=dict(TEMPLATES["conv2d"].defaults()))
    move = move_to_intensity(cnn, 3000.0)
    batch = move.kernel.params["batch"]
    traffic = move.kernel.traffic()
    reached = traffic.ops / traffic.bytes["dram"]
    assert batch < 1000 and reached >= 2304 * (1 - REACH_TOLERANCE) * 0.99
    assert "cannot pass 2,304 op/B" in move.note and f"= {batch:,.0f}" in move.note
    # One step less reaches less: it is the end of the path, not beyond it.
    before = move.kernel.with_params(batch=batch - 1).traffic()
    assert before.ops / before.bytes["dram"] < 2304 * (1 - REACH_TOLERANCE)
    # Inside the path, no note.
    assert move_to_intensity(cnn, 2000.0).note == ""
