"""Provenance of every roof: datasheet, measured or derated; measured values beside datasheet
ones, applied by View → Achievable roofs in every view (evaluation, chart, explanation)."""

from dataclasses import replace

import pytest

from roofline_gui.core.chip import Chip, Measured, MemoryLevel, attach_measured, ceiling_note
from roofline_gui.core.comparison import compare
from roofline_gui.core.display import chart_spec
from roofline_gui.core.explain import explain
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.roofline import LIMITER_COMPUTE
from roofline_gui.core.units import Units

WHEN, HOW, HOST = "2026-12-01 09:00", "STREAM triad, compiled, 2 threads", "test host"


def cpu(measured_dram=None, measured_fp64=None, achievable=None) -> Chip:
    dram = MemoryLevel("dram", "DRAM", 200e9, source="8 × DDR5-6400 × 8 B", achievable=achievable,
                       measured=None if measured_dram is None else Measured(measured_dram, WHEN, HOW, HOST))
    return Chip("c", "CPU", {"fp64": 2e12, "fp32": 4e12}, (MemoryLevel("cache", "L2", 2e12), dram),
                compute_sources={"fp64": "datasheet table 3"},
                compute_measured={} if measured_fp64 is None
                else {"fp64": Measured(measured_fp64, WHEN, "FMA kernel", HOST)})


def test_a_ceilings_provenance_is_datasheet_measured_or_derated():
    level = cpu(measured_dram=150e9).dram
    assert level.provenance(applied=False).kind == "datasheet"
    measured = level.provenance(applied=True)
    assert (measured.kind, measured.value, measured.datasheet) == ("measured", 150e9, 200e9)
    assert measured.of_datasheet == pytest.approx(0.75)
    assert WHEN in measured.text and HOST in measured.text and HOW in measured.text
    derated = cpu(achievable=0.8).dram.provenance(applied=True)
    assert (derated.kind, derated.value) == ("derated", pytest.approx(160e9))
    assert "80%" in derated.text and "DDR5" in derated.text
    # a measurement takes the place of the derating
    assert cpu(measured_dram=150e9, achievable=0.8).dram.provenance(True).kind == "measured"
    # a ceiling known only by measurement has no datasheet figure, in either mode
    only = MemoryLevel("dram", "DRAM", 25e9, measured=Measured(25e9, WHEN, HOW, HOST))
    for applied in (False, True):
        p = only.provenance(applied)
        assert p.kind == "measured" and p.datasheet is None and p.of_datasheet is None


def test_achievable_roofs_apply_the_measured_values_everywhere():
    chip = cpu(measured_dram=150e9, measured_fp64=1.5e12)
    add = Kernel("k1", "add", "fp64", flops=1e9, bytes={"dram": 24e9})  # 1/24 flop/B
    gemm = Kernel("k2", "gemm", "fp64", flops=1e15, bytes={"dram": 1e9})
    nominal = compare([add, gemm], [chip])
    achievable = compare([add, gemm], [chip], derated=True)
    assert nominal.result.attainable[0, 0] == pytest.approx(200e9 / 24)
    assert achievable.result.attainable[0, 0] == pytest.approx(150e9 / 24)
    assert achievable.result.attainable[1, 0] == pytest.approx(1.5e12)
    assert int(achievable.result.limiter[1, 0]) == LIMITER_COMPUTE
    # the chart: achievable roofs marked measured, the datasheet roofs beside them
    spec = chart_spec(achievable, Units())
    roof = next(r for r in spec.roofs if r.precision == "fp64")
    assert (roof.kind, roof.peak, roof.bandwidth) == ("measured", 1.5e12, 150e9)
    sheet = next(r for r in spec.datasheet_roofs if r.precision == "fp64")
    assert (sheet.peak, sheet.bandwidth) == (2e12, 200e9)
    assert chart_spec(nominal, Units()).datasheet_roofs == ()
    # the MAC units scale the datasheet roofs as they do the others
    assert chart_spec(achievable, Units(mac=True)).datasheet_roofs[0].peak == pytest.approx(1e12)
    # the explanation names the roof it runs against and the datasheet figure
    text = "\n".join(explain(achievable, 1, 0, Units()))
    assert "compute-bound at the fp64 peak (measured)" in text
    assert "the measured fp64 roof (1.5 Tflop/s, 75% of the 2 Tflop/s datasheet peak)" in text.replace(
        "TFLOP/s", "Tflop/s").replace("Top/s", "Tflop/s")
    text = "\n".join(explain(achievable, 0, 0, Units()))
    assert "150 GB/s (measured; the datasheet says 200 GB/s)" in text


def test_a_measured_precision_not_measured_stays_datasheet_in_achievable_mode():
    spec = chart_spec(compare([Kernel("k", "x", "fp32", flops=1e12, bytes={"dram": 1e6})],
                              [cpu(measured_fp64=1.5e12)], derated=True), Units())
    fp32 = next(r for r in spec.roofs if r.precision == "fp32")
    assert fp32.kind == "datasheet" and fp32.peak == 4e12
    assert not any(r.precision == "fp32" for r in spec.datasheet_roofs)


def test_measured_values_are_attached_by_level_name_and_precision():
    measured = Chip("m", "This computer", {"fp64": 80e9, "fp16": 1e9}, (
        MemoryLevel("cache", "L2", 190e9, measured=Measured(190e9, WHEN, HOW, HOST)),
        MemoryLevel("cache", "L3", 150e9, measured=Measured(150e9, WHEN, HOW, HOST)),
        MemoryLevel("dram", "DRAM", 25e9, measured=Measured(25e9, WHEN, HOW, HOST))),
        compute_measured={"fp64": Measured(80e9, WHEN, "FMA", HOST),
                          "fp16": Measured(1e9, WHEN, "FMA", HOST)})
    target = replace(cpu(), memory=(MemoryLevel("cache", "L2", 2e12),
                                    MemoryLevel("dram", "DDR5", 200e9)))
    merged, matched, unmatched = attach_measured(target, measured)
    assert merged.memory[0].measured.value == 190e9
    assert merged.memory[1].measured.value == 25e9  # DRAM goes to main memory, by role
    assert merged.memory[1].bandwidth == 200e9  # the datasheet value stays
    assert merged.compute_measured["fp64"].value == 80e9
    assert matched == ["L2", "DRAM → DDR5", "fp64"] and unmatched == ["L3", "fp16"]
    # "L2" is the A100's "L2 (40 MB)"
    a100ish = replace(target, memory=(MemoryLevel("cache", "L2 (40 MB)", 5e12),
                                      MemoryLevel("dram", "HBM2", 1.5e12)))
    assert attach_measured(a100ish, measured)[1] == ["L2 → L2 (40 MB)", "DRAM → HBM2", "fp64"]


def test_the_editors_note_says_how_much_of_the_datasheet_a_measurement_reaches():
    short, full = ceiling_note(200e9, "8 × DDR5-6400", Measured(150e9, WHEN, HOW, HOST), "B/s")
    assert short == "measured 75%: 150 GB/s"
    assert "datasheet: 8 × DDR5-6400" in full and HOW in full and HOST in full
    above, _ = ceiling_note(78e9, "cores × clock", Measured(92e9, WHEN, "FMA", HOST), "FLOP/s")
    assert above == "measured 118%: 92 GFLOP/s ⚠ above the datasheet"
    assert ceiling_note(25e9, "", Measured(25e9, WHEN, HOW, HOST), "B/s")[0] == f"measured {WHEN}"
    assert ceiling_note(1e12, "", None, "B/s") == ("no source given", "no source given")


def test_a_chip_lists_its_measured_ceilings_with_their_share_of_the_datasheet():
    chip = cpu(measured_dram=150e9, measured_fp64=1.5e12)
    assert chip.measured_notes() == ["fp64: measured 75%: 1.5 Top/s", "DRAM: measured 75%: 150 GB/s"]
    assert cpu().measured_notes() == []
