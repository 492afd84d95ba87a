import pytest

from roofline_gui.core.comparison import compare
from roofline_gui.core.kernel import Kernel
from roofline_gui.measure.kernels import run_kernel, why_not_runnable, with_measurement


@pytest.mark.parametrize(
    ("template", "params", "precision"),
    [
        ("elementwise", {"n": 200_000}, "fp32"),
        ("elementwise", {"n": 200_000}, "int8"),
        ("triad", {"n": 200_000}, "fp64"),
        ("dot", {"n": 200_000}, "fp64"),
        ("gemm", {"m": 128, "n": 128, "k": 128}, "fp32"),
        ("stencil7", {"nx": 32, "ny": 32, "nz": 32, "steps": 2}, "fp64"),
    ],
)
def test_runnable_kernels_are_timed_and_keep_their_modelled_ops(template, params, precision):
    kernel = Kernel("k", "k", precision, template=template, params=params)
    assert why_not_runnable(kernel) is None
    run = run_kernel(kernel, repeats=2, threads=2)
    assert 0 < run.timing.best <= run.timing.median <= run.timing.worst
    assert run.ops == kernel.traffic().ops
    measured = with_measurement(kernel, run)
    assert measured.measured_time == run.timing.best
    assert measured.measured_performance() == pytest.approx(run.rate)
    assert "Measured on this computer" in measured.notes and "median" in measured.notes
    # Measuring again replaces the note instead of piling them up.
    again = with_measurement(measured, run)
    assert again.notes.count("Measured on this computer") == 1


@pytest.mark.parametrize(
    ("kernel", "reason"),
    [
        (Kernel("a", "a", "bf16", template="gemm", params={"m": 8, "n": 8, "k": 8}), "no bf16"),
        (Kernel("b", "b", "fp32", template="conv2d", params={}), "only"),
        (Kernel("c", "c", "fp64", template="triad", params={"n": 1e9}), "exceed"),
        (Kernel("d", "d", "fp32", intensity=1.0), "only"),
        (Kernel("e", "e", "fp32", template="elementwise", params={"n": 10, "fused_ops": 4}), "plain add"),
    ],
)
def test_kernels_that_cannot_run_say_why(kernel, reason):
    assert reason in why_not_runnable(kernel)
    with pytest.raises(ValueError, match=reason):
        run_kernel(kernel)


def test_measured_point_has_a_gap_to_its_roof():
    from roofline_gui.io.presets import default_presets

    kernel = Kernel("k", "k", "fp64", template="triad", params={"n": 500_000})
    measured = with_measurement(kernel, run_kernel(kernel, repeats=2, threads=1))
    cmp = compare([measured], [default_presets().chips["amd-epyc-9654-genoa"]])
    roof = cmp.result.attainable[0, 0]
    assert 0 < measured.measured_performance() / roof
