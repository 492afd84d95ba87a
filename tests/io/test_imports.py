import pytest
from conftest import DATA

from roofline_gui.core.comparison import compare
from roofline_gui.core.errors import RooflineError, ValidationError
from roofline_gui.io.imports import import_ncu_csv, import_plain_csv, parse_number


def test_nsight_compute_raw_csv_with_units_and_thousands_separators():
    result = import_ncu_csv(DATA / "ncu_raw.csv")
    names = [k.name.split("(")[0].strip() for k in result.kernels]
    assert names == ["triad_kernel", "sgemm_128x64_nn", "half_axpy"]
    triad, sgemm, half = result.kernels
    # triad: 16,777,216 DFMA = 2 ops each; 402.65 MB of DRAM traffic; 271.36 µs.
    assert triad.precision == "fp64"
    assert triad.flops == 2 * 16_777_216
    assert triad.bytes["dram"] == pytest.approx(402.65e6)
    assert triad.bytes["cache"] == pytest.approx(402.70e6)
    assert triad.measured_time == pytest.approx(271.36e-6)
    assert sgemm.precision == "fp32"
    assert sgemm.flops == 1_048_576 + 524_288 + 2 * 68_719_476_736
    assert sgemm.measured_time == pytest.approx(7432.90e-6)
    assert half.precision == "fp16" and half.flops == 2_097_152 + 2 * 2_097_152
    assert "L1 intensity" in triad.notes
    # Skipped rows say why (file line numbers): memset has no FP work, broken_row no DRAM bytes.
    reasons = {p.path.split(" ")[1]: p.message for p in result.skipped}
    assert "no floating-point operations" in reasons["5"]
    assert "dram__bytes.sum: 'n/a' is not a number" in reasons["7"]
    # Measured points meet the model: achieved op/s = ops / time.
    assert triad.measured_performance() == pytest.approx(2 * 16_777_216 / 271.36e-6)


def test_imported_kernels_evaluate_like_any_other():
    kernels = import_ncu_csv(DATA / "ncu_raw.csv").kernels
    from roofline_gui.io.presets import default_presets

    cmp = compare(kernels, [default_presets().chips["nvidia-h100-sxm5-80gb"]])
    assert cmp.dram_intensity[0] == pytest.approx(2 * 16_777_216 / 402.65e6)
    assert cmp.bound_name(0, 0) == "memory"


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ('"ID","Kernel Name"\n"0","k"\n', "gpu__time_duration.sum"),
        ('"a","b"\n"1","2"\n', "Kernel Name"),
        ("", "no header"),
        ('"ID","Kernel Name","gpu__time_duration.sum","dram__bytes.sum"\n"0","k","1","2"\n',
         "floating-point instruction counters"),
    ],
)
def test_ncu_files_missing_what_is_needed_are_refused_whole(tmp_path, content, fragment):
    path = tmp_path / "x.csv"
    path.write_text(content)
    with pytest.raises(ValidationError, match=fragment):
        import_ncu_csv(path)


def test_plain_csv_reads_good_rows_and_names_the_bad_ones():
    result = import_plain_csv(DATA / "measured.csv")
    assert [k.name for k in result.kernels] == ["STREAM triad (likwid)", "dgemm 8192 (rocprof)"]
    triad, dgemm = result.kernels
    assert triad.bytes == {"dram": 2.4e10} and triad.measured_time == 1.05
    assert dgemm.bytes == {"dram": 1.61e9, "cache": 3.2e10} and dgemm.measured_flops == 4.1e13
    messages = [str(p) for p in result.skipped]
    assert any("row 5" in m and "unknown precision 'fp99'" in m for m in messages)
    assert any("row 6" in m and "bytes_dram is empty" in m for m in messages)
    assert any("row 7" in m and "greater than zero" in m for m in messages)


def test_plain_csv_header_problems_and_unreadable_files(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("name,flops\nx,1\n")
    with pytest.raises(ValidationError) as info:
        import_plain_csv(bad)
    assert "missing column 'precision'" in str(info.value) and "bytes" in str(info.value)
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"\x00\x01\x02name")
    with pytest.raises(RooflineError):
        import_plain_csv(binary)
    with pytest.raises(RooflineError, match="cannot read"):
        import_plain_csv(tmp_path / "missing.csv")


def test_number_parsing_with_units():
    assert parse_number("1,234,567") == 1234567
    assert parse_number("7,432.90", "usecond") == pytest.approx(7432.90e-6)
    assert parse_number("1.5", "Gbyte") == 1.5e9
    with pytest.raises(ValueError):
        parse_number("n/a")
