"""Points above their roof get a diagnosis: each usual cause checked against the numbers."""

from dataclasses import replace

import pytest

from roofline_gui.core.comparison import compare
from roofline_gui.core.diagnose import above_roof, diagnose, diagnosis_lines
from roofline_gui.core.kernel import Kernel
from roofline_gui.io.presets import default_presets

A100 = replace(default_presets().chips["nvidia-a100-sxm4-40gb"], id="c1")


def fitting(kernel: Kernel) -> list[str]:
    cmp = compare((kernel,), (A100,))
    return [c.name for c in diagnose(cmp, 0, 0) if c.fits]


def gemm(precision: str, measured: float) -> Kernel:
    return Kernel("k1", "GEMM 8192³", precision, template="gemm",
                  params={"m": 8192, "n": 8192, "k": 8192}, measured_flops=measured)


def test_an_imported_point_at_342_percent_of_its_roof():
    """An "fp32" GEMM measured at 66.7 TFLOP/s on an A100 whose fp32 peak is 19.5: 342 %. Only a
    precision mismatch fits (it ran on the tf32 tensor cores, 156 TFLOP/s)."""
    kernel = gemm("fp32", 66.7e12)
    cmp = compare((kernel,), (A100,))
    assert above_roof(cmp, 0, 0) == pytest.approx(66.7 / 19.5)
    assert fitting(kernel) == ["a precision mismatch"]
    text = "\n".join(diagnosis_lines(cmp, 0, 0))
    assert "342% of it" in text and "tf32 roof (156 Top/s)" in text
    assert "Most likely: a precision mismatch." in text


@pytest.mark.parametrize(("precision", "ratio", "expected"), [
    # 562 TFLOP/s against 312: sparse 2:4, or int8 (624) run under a bf16 label
    ("bf16", 1.8, ["sparse peak counted as dense", "a precision mismatch"]),
    ("fp32", 1.2, ["boost clock against a base-clock peak", "a precision mismatch"]),
    ("fp64", 2.0, ["a MAC counted as one op (or two)", "a precision mismatch"]),
    ("fp64", 1000.0, ["a unit prefix off by 1,000"]),
])
def test_each_compute_cause_by_its_fingerprint(precision, ratio, expected):
    peak = A100.compute[precision]
    assert fitting(gemm(precision, ratio * peak)) == expected


def test_cache_bytes_counted_as_main_memory():
    """A bf16 STREAM triad whose arrays stayed in the 40 MB L2 (7 TB/s) but whose bytes were
    counted at HBM (1.555 TB/s): 3× above the HBM diagonal, under the L2's (4.5×). int4 values
    (the A100 has an int4 roof) would be 4× fewer bytes, so a precision mismatch fits too."""
    triad = Kernel("k1", "triad 1M", "bf16", template="triad", params={"n": 1e6})
    ops, dram = triad.traffic().ops, triad.traffic().bytes["dram"]
    measured = replace(triad, measured_flops=3 * ops / dram * 1.555e12)
    assert fitting(measured) == ["cache traffic counted as main-memory bytes", "a precision mismatch"]
    # In fp64, fp16 values would be 4× fewer bytes: a precision mismatch fits as well.
    fp64 = replace(measured, precision="fp64")
    ops64, dram64 = fp64.traffic().ops, fp64.traffic().bytes["dram"]
    fp64 = replace(fp64, measured_flops=3 * ops64 / dram64 * 1.555e12)
    assert fitting(fp64) == ["cache traffic counted as main-memory bytes", "a precision mismatch"]
    # Above the L2's diagonal (5×) but under L1/shared's (12.5×): still cache bytes; above
    # every on-chip diagonal (15×): not.
    assert "cache traffic counted as main-memory bytes" in fitting(
        replace(measured, measured_flops=5 * ops / dram * 1.555e12))
    assert "cache traffic counted as main-memory bytes" not in fitting(
        replace(measured, measured_flops=15 * ops / dram * 1.555e12))


def test_a_point_on_or_under_its_roof_has_no_diagnosis():
    for rate in (10e12, 19.5e12, 19.6e12):  # under, on, within 1 % of the fp32 roof
        cmp = compare((gemm("fp32", rate),), (A100,))
        assert above_roof(cmp, 0, 0) is None and diagnose(cmp, 0, 0) == []
