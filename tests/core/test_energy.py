"""The energy roofline (Choi, Bedard, Fowler and Vuduc, IPDPS 2013) and its power cap (Choi et
al., IPDPS 2014), checked by hand on a chip of round numbers; the estimates from a board power;
dollars per million tokens; and no exported power above a chip's board power."""

import csv
import io
from dataclasses import replace

import numpy as np
import pytest

import roofline_gui.api as rf
from roofline_gui.core.chip import Chip, MemoryLevel
from roofline_gui.core.comparison import compare
from roofline_gui.core.energy import Energy, balance_point, constants, kernel_lines
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.workload_eval import evaluate_workloads
from roofline_gui.io.files import resources_dir
from roofline_gui.io.session import load_session


def round_chip(board=300.0, **energy) -> Chip:
    """100 Top/s bf16, 1 TB/s: ridge 100 op/B; 1 pJ per op, 100 pJ per byte, π0 50 W."""
    e = Energy(board_power=board, idle_power=50.0, op_pj={"bf16": 1.0}, byte_pj={"dram": 100.0},
               sources={"board_power": "a round number"}, **energy)
    return Chip("c1", "Round", {"bf16": 100e12}, (MemoryLevel("dram", "HBM", 1e12),), energy=e)


def kernel(intensity: float) -> Kernel:
    ops = 1e12
    return Kernel(f"k{intensity}", f"I = {intensity}", "bf16", flops=ops,
                  bytes={"dram": ops / intensity})


def test_a_memory_bound_and_a_compute_bound_kernel_by_hand():
    cmp = compare([kernel(1.0), kernel(1000.0)], [round_chip()])
    e = cmp.energy
    # memory-bound, 1 op/B at 1 Top/s: 1 pJ + 100 pJ/1 + 50 W / 1e12 op/s = 151 pJ, 151 W
    assert e.per_op[0, 0] == pytest.approx(151e-12)
    assert e.power[0, 0] == pytest.approx(151.0) and not e.capped[0, 0]
    # compute-bound, 1,000 op/B at 100 Top/s: 1 + 0.1 + 0.5 = 1.6 pJ, 160 W
    assert e.per_op[1, 0] == pytest.approx(1.6e-12)
    assert e.power[1, 0] == pytest.approx(160.0) and not e.capped[1, 0]
    assert e.ops_per_joule[1, 0] == pytest.approx(1 / 1.6e-12)
    rows = {r["kernel"]: r for r in cmp.rows()}
    assert float(rows["I = 1.0"]["energy_j"]) == pytest.approx(151.0)  # 1e12 ops × 151 pJ
    assert rows["I = 1.0"]["power_capped"] == "no"
    # the energy-balance point: ε_dram / ε_op = 100 op/B
    assert balance_point(round_chip(), "bf16") == pytest.approx(100.0)


def test_the_power_cap_bites_at_the_ridge_and_not_far_from_it():
    """At the ridge (100 op/B) both units run flat out: 1 + 1 pJ of work per op at 100 Top/s is
    200 W, with π0 250 W; under a 200 W cap the rate falls to (200 − 50) W / 2 pJ = 75 Top/s."""
    chip = round_chip(board=200.0)
    cmp = compare([kernel(100.0), kernel(1.0)], [chip])
    e = cmp.energy
    assert e.power[0, 0] == pytest.approx(250.0) and e.capped[0, 0]
    assert e.capped_rate[0, 0] == pytest.approx(75e12)
    assert e.capped_power[0, 0] == pytest.approx(200.0)
    assert not e.capped[1, 0] and e.capped_rate[1, 0] == cmp.result.attainable[1, 0]
    text = "\n".join(kernel_lines(cmp, 0, 0))
    assert "Power-capped: held to 200 W its rate falls to 75 Top/s (75%" in text


@pytest.mark.parametrize("words", ["estimated from the die area (Smith 2024)", "Estimate, vendor"])
def test_a_given_figure_whose_source_says_estimated_is_still_given(words):
    """Whether a figure is an estimate is the model's own fact, not its source's words: a
    source the user typed that begins with "estimated" keeps the power cap as given."""
    from dataclasses import replace

    plain = round_chip(board=200.0)
    worded = replace(plain, energy=replace(plain.energy, sources={
        "board_power": words, "op:bf16": words, "byte:dram": words}))
    k = constants(worded)
    assert not k.is_estimate("op:bf16") and not k.is_estimate("byte:HBM")
    ks = [kernel(100.0), kernel(30.0), kernel(300.0)]
    a, b = compare(ks, [plain]).energy, compare(ks, [worded]).energy
    assert a.capped.any() and (a.capped == b.capped).all()
    assert np.array_equal(a.capped_rate, b.capped_rate) and (b.capped_rate > 0).all()
    # an estimate the model makes is one, whatever the words around it
    bare = replace(plain, energy=Energy(board_power=200.0, sources={"board_power": words}))
    assert constants(bare).is_estimate("op:bf16") and constants(bare).is_estimate("byte:HBM")


def test_estimates_from_the_board_power_are_said_to_be_upper_bounds():
    h100 = rf.chip("nvidia-h100-sxm5-80gb")
    k = constants(h100)
    assert k.board_power == 700 and k.idle_power == 0
    assert k.op_j["bf16"] == pytest.approx(700 / 989.4e12)  # the board's power at the peak
    assert k.byte_j["dram"] == pytest.approx(700 / 3.35e12)
    assert k.is_estimate("op:bf16") and "upper bound" in k.said["byte:HBM3"] and k.dram_estimated
    # the on-chip levels have no figure: not counted, and said so level by level
    assert [(name, j) for name, _r, j in k.levels if _r == "cache"] == [
        ("L1/shared (132 SMs)", 0.0), ("L2 (50 MB)", 0.0)]
    assert k.said["byte:L2 (50 MB)"] == "not given: not counted"
    assert "H100 Tensor Core GPU datasheet" in k.said["board_power"]
    # a chip without a board power has no energy data: said so, never a zero
    no_power = Chip("x", "No power", {"bf16": 1e12}, (MemoryLevel("dram", "DDR", 1e11),))
    assert constants(no_power) is None
    cmp = compare([kernel(1.0)], [no_power])
    assert cmp.rows()[0]["energy_j"] == "" and cmp.rows()[0]["average_power_w"] == ""
    assert "no energy data" in kernel_lines(cmp, 0, 0)[0]


def two_caches(byte_pj: dict) -> Chip:
    """Round's compute and HBM below an L1 (20 TB/s) and an L2 (5 TB/s), both on chip."""
    e = Energy(board_power=1000.0, idle_power=50.0, op_pj={"bf16": 1.0}, byte_pj=byte_pj,
               sources={"byte:L2": "a round number"})
    return Chip("c2", "Two caches", {"bf16": 100e12},
                (MemoryLevel("cache", "L1", 20e12), MemoryLevel("cache", "L2", 5e12),
                 MemoryLevel("dram", "HBM", 1e12)), energy=e)


def test_energy_per_byte_is_per_memory_level():
    """A kernel's on-chip bytes pass through L1 and L2 (each level's roof meets them, as its
    time has it), so each level's energy per byte counts: 10 op/B on chip and 100 op/B of HBM,
    compute-bound at 100 Top/s: 1 pJ + (2 + 5) pJ/10 + 100 pJ/100 + 50 W/100 Top/s = 3.2 pJ."""
    ops = 1e12
    k = Kernel("k", "reuse", "bf16", flops=ops, bytes={"cache": ops / 10, "dram": ops / 100})
    chip = two_caches({"L1": 2.0, "L2": 5.0, "dram": 100.0})
    cmp = compare([k], [chip])
    assert cmp.result.attainable[0, 0] == pytest.approx(50e12)  # L2: 10 op/B × 5 TB/s
    # at 50 Top/s: 1 + 0.7 + 1 + 50/50 = 3.7 pJ
    assert cmp.energy.per_op[0, 0] == pytest.approx(3.7e-12)
    text = "\n".join(kernel_lines(cmp, 0, 0))
    assert "ε_L1 2 pJ/B ÷ 10 op/B + ε_L2 5 pJ/B ÷ 10 op/B + ε_HBM 100 pJ/B ÷ 100 op/B" in text
    assert "ε_bf16 1 pJ/op" in text
    partly = compare([k], [two_caches({"L1": 2.0, "dram": 100.0})])
    assert "Not counted (no figure given for its bytes): L2" in "\n".join(kernel_lines(partly, 0, 0))
    consts = constants(chip)
    assert consts.said["byte:L2"] == "a round number"
    assert consts.said["byte:HBM"].endswith("(given for every dram level)")
    # a role's figure gives every level of it not named: cache=3 with L2 named 5 → L1 3, L2 5
    mixed = constants(two_caches({"cache": 3.0, "L2": 5.0, "dram": 100.0}))
    assert [j / 1e-12 for _n, _r, j in mixed.levels] == pytest.approx([3.0, 5.0, 100.0])
    assert mixed.byte_j["cache"] == pytest.approx(8e-12)
    # a level's figure follows it when renamed, and goes with it
    renamed = chip.with_level(1, MemoryLevel("cache", "L2 (40 MB)", 5e12))
    assert renamed.energy.byte_pj == {"L1": 2.0, "L2 (40 MB)": 5.0, "dram": 100.0}
    assert renamed.energy.sources["byte:L2 (40 MB)"] == "a round number"
    assert chip.without_level(0).energy.byte_pj == {"L2": 5.0, "dram": 100.0}
    # a figure for a level the chip does not have is named
    assert Energy(byte_pj={"L3": 1.0}).problems(["L1", "L2", "HBM"]) == [
        ("byte_pj.L3", "unknown memory level or role 'L3'; use one of L1, L2, HBM, dram, cache, "
                       "host, link")]


def test_given_energies_are_read_by_level_name_or_role_and_mistakes_are_named():
    from dataclasses import replace

    from roofline_gui.core.energy import parse_given

    h100 = rf.chip("nvidia-h100-sxm5-80gb")  # L1/shared (132 SMs), L2 (50 MB), HBM3, ...
    op, byte, bad = parse_given("BF16=0.5, hbm3=60, L2=5, cache=2", h100)
    assert (op, byte, bad) == ({"bf16": 0.5}, {"HBM3": 60.0, "L2 (50 MB)": 5.0, "cache": 2.0}, [])
    _op, _byte, bad = parse_given("HMB3=60", h100)
    assert bad[0].startswith("“HMB3” is not a precision, a memory level of H100 SXM5 80GB or a "
                             "memory role (did you mean HBM3?)")
    assert parse_given("HBM3=60, hbm3=70", h100)[2] == ["HBM3 is given twice"]
    assert parse_given("dram=50, HBM3=60", h100)[2] == ["dram=50 applies to no level: HBM3 is "
                                                        "named"]
    assert parse_given("L2=-1", h100)[2] == ["L2: “-1” is not a number of pJ above 0"]
    assert parse_given("60", h100)[2] == ["“60”: write name=pJ, e.g. “bf16=0.5, HBM3=60”"]
    # a level whose name holds a comma: each value is a number, so an entry ends at its comma
    comma = h100.with_level(1, replace(h100.memory[1], name="L2, 50 MB"))
    assert parse_given("bf16=0.5, L2, 50 MB=5, HBM3=60", comma)[1] == {"L2, 50 MB": 5.0,
                                                                        "HBM3": 60.0}


def test_dollars_per_million_tokens_from_a_price_and_a_throughput():
    chip = rf.chip("nvidia-h100-sxm5-80gb")
    priced = Chip(**{**chip.__dict__, "energy": Energy(
        board_power=700.0, price_per_hour=2.5, sources={"price_per_hour": "the user's"})})
    w = rf.workload("llama-3-8b", phase="decode", batch=64, context=2048)
    r = evaluate_workloads([w], [priced, chip])[0]
    seconds_per_million = 1e6 * float(r.energy.time[0]) / w.per_step_items()
    assert r.energy.cost_per_million[0] == pytest.approx(2.5 / 3600 * seconds_per_million)
    assert np.isnan(r.energy.cost_per_million[1])  # no price: empty, not zero
    row = r.csv_row(1)
    assert row["cost_per_million_items"] == "" and row["energy_per_step_j"] != ""
    # batching: each weight byte read serves more tokens, so more tokens per joule
    one = evaluate_workloads([rf.workload("llama-3-8b", phase="decode", batch=1, context=2048)],
                             [chip])[0]
    assert r.energy.items_per_joule[1] > 10 * one.energy.items_per_joule[0]


def test_no_exported_row_draws_more_than_its_chips_board_power():
    from roofline_gui.io.csv_export import comparison_csv, workloads_csv

    checked = 0
    for path in sorted((resources_dir() / "examples").glob("*.roofline")):
        doc = load_session(path)
        board = {c.name: c.energy.board_power for c in doc.chips if c.energy is not None}
        cmp = compare(doc.kernels, doc.chips)
        rows = list(csv.DictReader(io.StringIO(comparison_csv(cmp))))
        if doc.workloads:
            rows += list(csv.DictReader(io.StringIO(workloads_csv(
                evaluate_workloads(doc.workloads, doc.chips, kernels=doc.kernels_by_id)))))
        for row in rows:
            if row["average_power_w"]:
                assert float(row["average_power_w"]) <= board[row["chip"]] * (1 + 1e-9), row
                checked += 1
    assert checked > 50


def test_one_kernels_energy_is_the_whole_models_row():
    """A table row and the explanation take one kernel's energy (energy_of) rather than every
    kernel's on a drag step: the same numbers, before and after the whole model is worked out."""
    cmp = compare([kernel(1.0), kernel(100.0), kernel(1000.0)],
                  [round_chip(board=200.0), rf.chip("nvidia-h100-sxm5-80gb")])
    alone = [cmp.energy_of(k) for k in range(3)]
    for k, e in enumerate(alone):
        for name in ("per_op", "capped", "capped_rate", "capped_power", "ops_per_joule"):
            np.testing.assert_array_equal(getattr(e, name)[0], getattr(cmp.energy, name)[k])
    assert cmp.energy_of(1).capped[0, 0]  # the ridge kernel under the 200 W cap, as by hand


def test_energy_reads_the_same_in_every_view_in_mac_mode_too():
    """In MAC units the explanation's op/J is the table's MAC/J: half the op/J; derated, every
    view takes the derated rate the evaluation holds."""
    from roofline_gui.core.units import Units, format_si

    for derated in (False, True):
        cmp = compare([kernel(100.0)], [round_chip(board=200.0)], derated=derated)
        mac = Units(mac=True)
        text = "\n".join(kernel_lines(cmp, 0, 0, mac))
        per_mac = float(cmp.energy.ops_per_joule[0, 0]) / 2
        assert format_si(per_mac, "MAC/J") in text
        assert mac.format_rate(float(cmp.energy.capped_rate[0, 0])) in text
        assert float(cmp.energy_of(0).ops_per_joule[0, 0]) == per_mac * 2
        # per MAC beside MAC/J (the tour read "772 pJ, 647.9 MMAC/J"): twice the op's joules
        per_op = float(cmp.energy.capped_per_op[0, 0]) * 1e12
        first = text.splitlines()[0]
        assert first.startswith("Energy per MAC (the energy roofline, Choi et al. 2013): "
                                f"{2 * per_op:.3g} pJ (two ops of {per_op:.3g} pJ")
        assert "Energy per op (" not in text and "Energy per op (" in kernel_lines(cmp, 0, 0)[0]
        # and its formula per MAC too: two ops' energy, the bytes over MAC/B (the tour read
        # "÷ 61.59 op/B" under the sentence per MAC), summing to twice the op's
        formula = next(line for line in text.splitlines() if "Energy per MAC =" in line)
        assert "op/B" not in formula and "÷ 50 MAC/B" in formula and " 2 × ε_" in formula
        per_op_sum = float(cmp.energy.per_op[0, 0]) * 1e12
        assert f"= {2 * per_op_sum:.3g} pJ" in formula
        assert "Energy per op =" in "\n".join(kernel_lines(cmp, 0, 0))


def test_a_workloads_explanation_shares_its_energy_as_the_breakdown_does():
    """Why it sits there gives where a step's energy goes part by part, the same parts and
    shares as the breakdown's bars (each memory level, compute, idle), and names what it
    estimated and what it did not count."""
    from dataclasses import replace

    from roofline_gui.core.energy import energy_parts, workload_lines

    h100 = rf.chip("nvidia-h100-sxm5-80gb")
    given = replace(h100, energy=replace(h100.energy, idle_power=100.0, op_pj={"bf16": 0.5},
                                         byte_pj={"HBM3": 60.0}))
    w = rf.workload("llama-3-8b", phase="decode", batch=8, context=2048)
    r = evaluate_workloads([w], [given])[0]
    text = "\n".join(workload_lines(r, 0))
    parts = energy_parts(r, 0)
    total = sum(j for _k, _n, j in parts)
    assert {name for _k, name, _j in parts} == {"compute", "HBM3", "idle"}
    for _kind, name, joules in parts:
        assert f"{name} {joules / total:.0%}" in text
    assert "Estimated from the board power" not in text  # bf16 and HBM3 are given
    estimated = "\n".join(workload_lines(evaluate_workloads([w], [h100])[0], 0))
    assert "Estimated from the board power (upper bounds): bf16 per op, HBM3 per byte" in estimated


def test_the_explanation_leads_with_the_energy_every_view_counts():
    """TPU v1's MLP on the A100, as the tour read it: the explanation's op/J and J per call are
    the table's and the CSV's (the estimates' sum, above the board power, is said to be an
    overlap of upper bounds, not given as the figure)."""
    doc = load_session(resources_dir() / "examples" / "a100-vs-tpu-v3.roofline")
    cmp = compare(doc.kernels, doc.chips)
    rows = {(r["kernel"], r["chip"]): r for r in cmp.rows()}
    for k, kernel in enumerate(cmp.kernels):
        for c, chip in enumerate(cmp.chips):
            text = "\n".join(kernel_lines(cmp, k, c))
            e = cmp.energy
            if not np.isfinite(e.capped_per_op[k, c]):
                continue
            counted = float(e.capped_per_op[k, c])
            first = text.splitlines()[0]
            from roofline_gui.core.units import format_si

            assert format_si(1 / counted, "op/J") in first, (kernel.name, chip.name, first)
            row = rows[kernel.name, chip.name]
            if kernel.has_size:
                assert float(row["energy_j"]) == pytest.approx(counted * cmp.kernel_arrays.ops[k], rel=1e-3)
            if float(e.power[k, c]) > chip.energy.board_power and not e.capped[k, c]:
                assert "count the same watts twice" in text and "upper bound" in text
                # 75.03 W against 75 W read "more than the board can draw" (the tour)
                just = float(e.power[k, c]) < 1.01 * chip.energy.board_power
                assert ("), just above the " in text) == just and "can draw" not in text
                assert float(row["average_power_w"]) <= chip.energy.board_power + 1e-6


def test_a_what_if_chip_keeps_its_datasheet_energies():
    """Twice the HBM bandwidth or the peak does not halve the energy per byte or per op: the
    estimates come from the datasheet's figures, as the user would expect of a what-if."""
    from roofline_gui.core.chip import derive

    h100 = rf.chip("nvidia-h100-sxm5-80gb")
    base = constants(h100)
    for factors in ({"dram": 2}, {"compute": 3}, {"bf16": 0.5, "dram": 0.25}):
        moved = constants(derive(h100, factors))
        assert moved.op_j == base.op_j and moved.byte_j == base.byte_j, factors
    dragged = h100.with_ceiling(("level", h100.memory.index(h100.dram)), 2 * h100.dram.bandwidth)
    assert constants(dragged).byte_j == base.byte_j


def test_every_preset_with_a_published_board_power_carries_it():
    """Gaudi 2 and 3 have one (600 W, 900 W); TPU v5e, v5p, v6e and v7, Trainium2 and the M2
    have none published, and their notes say so."""
    from roofline_gui.io.presets import default_presets

    chips = default_presets().chips
    assert chips["intel-gaudi-2"].energy.board_power == 600.0
    assert chips["intel-gaudi-3"].energy.board_power == 900.0
    none = ["google-tpu-v5e", "google-tpu-v5p", "google-tpu-v6e-trillium", "apple-m2-10-core-gpu",
            "google-tpu-v7-ironwood", "aws-trainium2"]
    for preset in none:
        chip = chips[preset]
        assert chip.energy is None
        assert "TDP not published" in chip.notes or "does not publish a TDP" in chip.notes
    missing = [p for p, c in chips.items() if c.energy is None]
    assert sorted(missing) == sorted(none)


def test_a_what_if_with_faster_memory_says_why_its_energy_per_op_falls():
    """The tour: an A100 with HBM2 × 2 keeps ε_HBM2 (257 pJ) but its energy per op halved (386
    against 772 pJ), and the explanation blamed "both busy, the same watts counted twice" with
    compute 0.17 % busy. It says the real cause: the datasheet's ε at twice the bytes per
    second would pass the board power kept from the datasheet."""
    from roofline_gui.core.chip import derive

    a100 = rf.chip("nvidia-a100-sxm4-40gb")
    from roofline_gui.io.presets import default_presets

    add = replace(default_presets().kernels["add-int8"], id="add")
    fast = derive(a100, {"dram": 2})
    cmp = compare((add,), (a100, fast))
    datasheet, what_if = (" ".join(kernel_lines(cmp, 0, c)) for c in (0, 1))
    assert "this what-if moves bytes 2× as fast at the same ε" in what_if
    assert "same watts twice" not in what_if
    assert "what-if" not in datasheet


def test_a_what_if_workloads_energy_says_the_board_power_holds_it_and_the_csv_agrees():
    """The tour: Llama-3-8B decoding on an H100 with HBM3 × 2 read 1.798 J per step (half the
    H100's 3.597 J) with ε_HBM3 kept at the datasheet's 209 pJ/B and power_capped "no", and
    nothing said why. By the figures alone the step would draw twice the board power: the
    explanation says so with its numbers, and the CSV row says its energy is the board power
    over the time."""
    from roofline_gui.core.chip import derive
    from roofline_gui.core.energy import workload_lines
    from roofline_gui.core.units import format_si
    from roofline_gui.io.csv_export import workloads_csv
    from roofline_gui.io.workloads import workload_from_config

    h100 = rf.chip("nvidia-h100-sxm5-80gb")
    fast = derive(h100, {"dram": 2})
    w = workload_from_config(resources_dir() / "workloads" / "llama-3-8b.config.json",
                             phase="decode", batch=1, context=2048)
    (result,) = evaluate_workloads((w,), (h100, fast))
    e = result.energy
    assert e.per_step[1] == pytest.approx(e.per_step[0] / 2, rel=0.02)  # board power × time
    assert e.by_figures[1] == pytest.approx(e.by_figures[0], rel=0.02)  # the same bytes, same ε
    assert e.held[1] and not e.capped[1]
    text = " ".join(workload_lines(result, 1))
    assert "this what-if moves bytes 2× as fast at the same ε" in text
    watts = float(e.by_figures[1] / e.time[1])
    assert watts > 1.9 * 700
    assert f"({format_si(watts, 'W')})" in text
    assert "what-if" not in " ".join(workload_lines(result, 0))
    rows = list(csv.DictReader(io.StringIO(workloads_csv((result,)))))
    fast_row = next(r for r in rows if r["chip"] == fast.name)
    assert fast_row["energy_basis"] == "board power x time" and fast_row["power_capped"] == "no"


def test_energies_in_the_formula_carry_no_exponent():
    """The tour read "ε_DDR3-2133 2.21e+03 pJ" in TPU v1's sentence: pJ as 2,206, not 2.21e+03."""
    from roofline_gui.io.presets import load_presets

    tpu = load_presets().chips["google-tpu-v1"]
    from dataclasses import replace

    cmp = compare([replace(kernel(0.5), precision="int8")], [tpu])
    text = "\n".join(kernel_lines(cmp, 0, 0))
    assert "e+0" not in text and "ε_DDR3-2133" in text, text


def test_the_board_power_reads_in_the_units_of_the_average_beside_it():
    """"an average 1 kW of the 1000 W board power" (the tour): both in SI prefixes."""
    cmp = compare([kernel(100.0)], [round_chip(board=1000.0)])
    first = kernel_lines(cmp, 0, 0)[0]
    assert "of the 1 kW board power" in first and "1000 W" not in first
