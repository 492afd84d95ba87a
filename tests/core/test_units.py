import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roofline_gui.core.errors import UnitError
from roofline_gui.core.units import BYTES_PER_VALUE, OPS_PER_MAC, format_si, parse_quantity


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("1.5 TB/s", "bandwidth", 1.5e12),
        ("1555 GB/s", "bandwidth", 1.555e12),
        ("900G", "bandwidth", 900e9),
        ("2 TB/s", "bandwidth", 2e12),
        ("1,555 GB/s", "bandwidth", 1.555e12),
        ("19.5 TFLOPS", "compute", 19.5e12),
        ("312T", "compute", 312e12),
        ("624 TOPS", "compute", 624e12),
        ("2e12", "compute", 2e12),
        ("989.4 TFLOP/s", "compute", 989.4e12),
        ("32 GiB", "bytes", 32 * 2**30),
        ("40 MB", "bytes", 40e6),
        ("4k", "count", 4000),
        ("0.25", "intensity", 0.25),
    ],
)
def test_parse_what_people_type(text, kind, expected):
    assert parse_quantity(text, kind) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("text", "kind", "reason"),
    [
        ("", "bandwidth", "empty"),
        ("fast", "bandwidth", "not a number"),
        ("-3 TB/s", "bandwidth", "greater than zero"),
        ("0", "compute", "greater than zero"),
        ("19.5 TFLOPS", "bandwidth", "not a unit for a bandwidth"),
        ("1.5 TB/s", "compute", "not a unit for a compute"),
        ("nan", "compute", "not a number"),
        ("1e400", "compute", "finite"),
    ],
)
def test_parse_refuses_with_a_reason(text, kind, reason):
    with pytest.raises(UnitError, match=reason):
        parse_quantity(text, kind)


def test_format_uses_decimal_si_prefixes():
    assert format_si(1.555e12 / 3, "op/s") == "518.3 Gop/s"
    assert format_si(312e12, "FLOP/s") == "312 TFLOP/s"
    assert format_si(0.25, "op/B") == "0.25 op/B"
    assert format_si(float("nan"), "s") == "—"
    assert format_si(999.99e9, "B/s") == "1 TB/s"


@given(st.floats(min_value=1e-3, max_value=1e19, allow_nan=False))
def test_units_round_trip_through_format_and_parse(value):
    text = format_si(value, "B/s", digits=12)
    assert math.isclose(parse_quantity(text, "bandwidth"), value, rel_tol=1e-9)


def test_bytes_per_value_and_mac():
    assert BYTES_PER_VALUE["fp32"] == 4
    assert BYTES_PER_VALUE["bf16"] == BYTES_PER_VALUE["fp16"] == 2
    assert BYTES_PER_VALUE["fp8"] == BYTES_PER_VALUE["int8"] == 1
    assert BYTES_PER_VALUE["int4"] == 0.5
    assert OPS_PER_MAC == 2


def test_intensities_in_sentences_carry_no_exponent():
    """The tour read "The ridge point is 2.043e+04 op/B" beside "9,750 op/B" elsewhere."""
    from roofline_gui.core.units import Units

    assert Units().format_intensity(20430.4) == "20,430 op/B"
    assert Units().format_intensity(9750) == "9,750 op/B"
    assert Units().format_intensity(0.3333333) == "0.3333 op/B"
    assert Units(mac=True).format_intensity(40861) == "20,430 MAC/B"


@pytest.mark.parametrize(("value", "text"), [
    (4499999999999999.5, "4500000000000000"),  # 4.5 Pop/s after a product: the sixth tour's CSV
    (449.99999999999994, "450"),
    (0.1 + 0.2, "0.3"),
    (312e12, "312000000000000"),
    (1.936952888888889e-05, "1.93695288888889e-05"),
    (2.5e16, "2.5e+16"),
    (-3.0, "-3"),
    (float("nan"), ""),
    (None, ""),
])
def test_csv_numbers_are_plain_and_free_of_float_noise(value, text):
    from roofline_gui.core.units import format_plain

    assert format_plain(value) == text
    if text:
        assert float(text) == pytest.approx(value, rel=1e-14)
