"""The serving bound: output tokens/s per chip against tokens/s per user, checked by hand for a
dense and a mixture-of-experts model, its monotonicity, its memory limit, its limits, and
against published measurements it must never fall below."""

import csv
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from roofline_gui.core.build import build
from roofline_gui.core.errors import ValidationError
from roofline_gui.core.serving import ServingSpec, limit_problems, serve, serving_rows, spec_of
from roofline_gui.core.workload_eval import WORKLOAD_CSV_COLUMNS, evaluate_workloads
from roofline_gui.io.presets import default_presets
from roofline_gui.io.workloads import shipped_workloads

CHIPS = default_presets().chips
H100, B200 = CHIPS["nvidia-h100-sxm5-80gb"], CHIPS["nvidia-b200"]
H200, MI300X = CHIPS["nvidia-h200-sxm-141gb"], CHIPS["amd-instinct-mi300x"]
MEASURED = Path(__file__).resolve().parents[1] / "data" / "serving-measured.csv"


def test_a_dense_frontier_by_hand():
    """Llama-3-8B, 1,000 in and 1,000 out, bf16, on an H100: at c users a decode step at the
    mean context 1,500 and c prompts' prefill; TPOT = (prefill + 1,000 steps) / 1,000."""
    w = shipped_workloads()["llama-3-8b"].workload()
    spec = ServingSpec(1000, 1000, (1, 8, 64))
    r = serve(w, [H100], spec)
    decode = evaluate_workloads([replace(w, batch=c, context=1500) for c in (1, 8, 64)], [H100])
    prefill = evaluate_workloads([replace(w, phase="prefill", batch=c, sequence=1000)
                                  for c in (1, 8, 64)], [H100])
    for k, c in enumerate((1, 8, 64)):
        step, pre = float(decode[k].time[0]), float(prefill[k].time[0])
        assert r.tpot[0, k] == pytest.approx((pre + 1000 * step) / 1000, rel=1e-12)
        assert r.tokens_per_chip[0, k] == pytest.approx(c * 1000 / (pre + 1000 * step))
    # batch 1: a step reads every weight (of the embedding table one row) and the 1,500-token
    # cache at 3.35 TB/s
    weights = 2 * (8_030_261_248 - 128256 * 4096)
    cache = 2 * 32 * 8 * 1500 * 128 * 2
    assert r.step_time[0, 0] == pytest.approx((weights + cache) / 3.35e12, rel=0.002)
    assert r.ttft[0] == pytest.approx(float(prefill[0].time[0]), rel=1e-12)
    # the memory limit: 80 GB holds the weights and (80e9 − 16.06e9) / 196.6 MB users' caches
    per_user = 2 * 32 * 8 * 1500 * 128 * 2
    top = serve(w, [H100], ServingSpec(1000, 1000))
    most = int(1 + (80e9 - build(replace(w, batch=1, context=1500)).resident_bytes) // per_user)
    assert int(top.concurrency[-1]) == most and top.fits[0, -1]
    assert not serve(w, [H100], ServingSpec(1000, 1000, (most + 1,))).fits[0, 0]


def test_a_moe_frontier_by_hand():
    """DeepSeek-V3 in fp8 on 8 B200s, experts spread over the 8: the step reads the experts c
    tokens touch; the prefill share is the c prompts' prefill over the whole request time."""
    w = shipped_workloads()["deepseek-v3"].workload(weights="fp8", activations="fp8",
                                                    kv_cache="fp8", chips_per_model=8,
                                                    expert_parallel=8, attention_data_parallel=True)
    r = serve(w, [B200], ServingSpec(2000, 500, (1, 32, 256)))
    decode = evaluate_workloads([replace(w, batch=c, context=2250) for c in (1, 32, 256)], [B200])
    for k in range(3):
        assert r.step_time[0, k] == pytest.approx(float(decode[k].time[0]), rel=1e-12)
        shares = r.shares(0, k)
        assert sum(shares.values()) == pytest.approx(1.0, rel=1e-9)
        assert shares["prefill"] == pytest.approx(r.prefill_time[0, k] / r.request_time[0, k])
    assert r.tokens_per_chip[0, 2] == pytest.approx(r.tokens_total[0, 2] / 8)


@pytest.mark.parametrize("model", ["llama-3-8b", "qwen3-30b-a3b"])
def test_user_speed_never_rises_and_chip_throughput_never_falls_with_concurrency(model):
    w = shipped_workloads()[model].workload(weights="fp8", activations="fp8", kv_cache="fp8")
    r = serve(w, [H100, B200], ServingSpec(1000, 1000))
    for c in range(2):
        fits = r.fits[c]
        user, chip = r.tokens_per_user[c][fits], r.tokens_per_chip[c][fits]
        assert (np.diff(user) <= 1e-9 * user[:-1]).all()
        assert (np.diff(chip) >= -1e-9 * chip[:-1]).all()


def test_limits_pick_the_best_point_and_say_when_none_meets():
    w = shipped_workloads()["llama-3-8b"].workload(weights="fp8", activations="fp8",
                                                   kv_cache="fp8")
    r = serve(w, [H100, B200], ServingSpec(1000, 1000, tpot_limit=0.02))
    for c in range(2):
        best = r.best(c)
        assert r.tpot[c, best] <= 0.02 and r.meets[c, best] and r.searched[c, best]
        most = r.tokens_per_chip[c, best] * (1 + 1e-9)
        assert not (r.meets[c] & r.searched[c] & (r.tokens_per_chip[c] > most)).any()
        # the other chip's points, drawn on this one's curve, are within the search's step
        assert r.tokens_per_chip[c][r.meets[c]].max() <= r.tokens_per_chip[c, best] * 1.01
    assert r.tokens_per_chip[1, r.best(1)] > r.tokens_per_chip[0, r.best(0)]
    tight = serve(w, [H100], ServingSpec(1000, 1000, tpot_limit=0.001, ttft_limit=0.0001))
    problems = {p.path: p.message for p in limit_problems(tight)}
    assert "no chip meets a TPOT of 1 ms" in problems["tpot_limit"]
    assert "× the limit" in problems["ttft_limit"]


def test_a_chips_best_point_is_its_own_whichever_chips_stand_beside_it():
    """The MI300X's best at 50 ms had been 320 users alone and 268 beside an H200 (the same
    6,445 tokens/s per chip): the search ran on every chip's points and the flat part of the
    curve tied to whichever point came out a hair higher."""
    w = shipped_workloads()["llama-3-70b"].workload(weights="fp8", activations="fp8",
                                                    kv_cache="fp8")
    spec = ServingSpec(1000, 1000, tpot_limit=0.05)
    alone = serve(w, [MI300X], spec)
    k = alone.best(0)
    for others in ([H200], [B200, H200], [H100, B200]):
        r = serve(w, [MI300X, *others], spec)
        b = r.best(0)
        assert r.concurrency[b] == alone.concurrency[k]
        assert r.tokens_per_chip[0, b] == pytest.approx(alone.tokens_per_chip[0, k], rel=1e-12)
    # past the knee, where the step is compute-bound, the fewest users reaching the most
    flat = alone.meets[0] & (alone.tokens_per_chip[0] >= alone.tokens_per_chip[0, k] * (1 - 1e-9))
    assert alone.searched[0, k] and k == np.flatnonzero(flat & alone.searched[0])[0]
    assert flat.sum() > 1


def test_speculative_decoding_gives_more_tokens_a_step():
    w = shipped_workloads()["llama-3-8b"].workload()
    plain = serve(w, [H100], ServingSpec(1000, 1000, (1,)))
    spec = ServingSpec(1000, 1000, (1,), draft_tokens=3, acceptance=0.7)
    assert spec.tokens_per_step == pytest.approx((1 - 0.7**4) / (1 - 0.7))
    fast = serve(w, [H100], spec)
    # at batch 1 the verify step is memory-bound: about as long, for 2.53 tokens
    assert fast.tokens_per_user[0, 0] / plain.tokens_per_user[0, 0] == pytest.approx(
        spec.tokens_per_step, rel=0.05)


@pytest.mark.parametrize(("spec", "field"), [
    (ServingSpec(0, 100), "input_tokens"), (ServingSpec(100, -1), "output_tokens"),
    (ServingSpec(100, 100, acceptance=0.5), "acceptance"),
    (ServingSpec(100, 100, draft_tokens=2, acceptance=1.0), "acceptance"),
    (ServingSpec(100, 100, (0,)), "concurrency")])
def test_bad_serving_input_is_named(spec, field):
    with pytest.raises(ValidationError) as exc:
        serve(shipped_workloads()["llama-3-8b"].workload(), [H100], spec)
    assert exc.value.problems[0].path == field


def test_rows_follow_the_workloads_csv():
    w = shipped_workloads()["llama-3-8b"].workload()
    r = serve(w, [H100], ServingSpec(1000, 1000, (1, 4)))
    rows = serving_rows(r, WORKLOAD_CSV_COLUMNS)
    assert [row["concurrency"] for row in rows] == ["1", "4"]
    assert rows[0]["phase"] == "serve" and rows[0]["time_s"] == rows[0]["tpot_s"]
    assert float(rows[1]["throughput_per_s"]) == pytest.approx(float(r.tokens_total[0, 1]),
                                                                rel=1e-5)
    assert tuple(rows[0]) == WORKLOAD_CSV_COLUMNS


def _measured():
    with MEASURED.open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("row", _measured(), ids=lambda r: f"{r['model']}-{r['chip']}-"
                         f"{r['input_tokens']}-{r['output_tokens']}")
def test_no_published_measurement_beats_its_bound(row):
    """NVIDIA's TensorRT-LLM throughput tables (the most tokens/s at maximum load): the bound,
    the most output tokens/s over the concurrencies that fit, is never below them."""
    f = row["format"]
    w = shipped_workloads()[row["model"]].workload(
        weights=f, activations=f, kv_cache="fp8", chips_per_model=int(row["chips_per_model"]),
        expert_parallel=int(row["expert_parallel"]),
        attention_data_parallel=row["attention_data_parallel"] == "yes")
    r = serve(w, [CHIPS[row["chip"]]], ServingSpec(int(row["input_tokens"]),
                                                  int(row["output_tokens"])))
    bound = float(np.max(np.where(r.fits[0], r.tokens_total[0], 0)))
    measured = float(row["measured_total_tokens_per_s"])
    assert bound >= measured
    assert bound < 10 * measured  # a bound, but not a useless one


def test_the_best_point_under_a_tpot_limit_is_searched_between_the_doublings():
    """The tour: with the concurrencies doubling, the best point under a 33 ms limit was up to
    30 % short of the most the chip could give; the search between them finds it within 2 %."""
    w = shipped_workloads()["gpt-oss-120b"].workload(tpot_limit=1 / 30)
    r = serve(w, [B200], ServingSpec(1000, 1000, tpot_limit=1 / 30))
    k = r.best(0)
    assert r.tpot[0, k] <= 1 / 30 and r.tpot[0, k] > 0.98 / 30
    doublings = [i for i, c in enumerate(r.concurrency) if int(c) & (int(c) - 1) == 0]
    coarse = max(r.tokens_per_chip[0, i] for i in doublings if r.meets[0, i])
    assert r.tokens_per_chip[0, k] > 1.1 * coarse  # 54,769 against 46,461 at 1,024 users


def test_measured_points_against_the_bound(tmp_path):
    """A CSV of measured points: each against its chip's bound at its speed per user; one above
    it named with what to check; a bad line named."""
    from roofline_gui.core.serving import MeasuredServing, frontier_at, measured_lines
    from roofline_gui.io.imports import import_serving_csv

    w = shipped_workloads()["llama-3-8b"].workload(weights="fp8", activations="fp8",
                                                   kv_cache="fp8")
    r = serve(w, [H100], ServingSpec(1000, 1000))
    x, y = r.tokens_per_user[0], r.tokens_per_chip[0]
    k = 5  # a point of the frontier: the bound there is the point itself
    assert frontier_at(r, 0, float(x[k])) == pytest.approx(float(y[k]), rel=1e-9)
    assert np.isnan(frontier_at(r, 0, float(x.max()) * 2))  # faster than any point
    path = tmp_path / "m.csv"
    path.write_text("chip,tokens_per_s_per_user,tokens_per_s_per_chip,source\n"
                    f"H100 SXM5 80GB,{x[k]:.3f},{0.6 * y[k]:.1f},vendor table\n"
                    f"nvidia-h100-sxm5-80gb,{x[k]:.3f},{1.5 * y[k]:.1f},a blog\n")
    points = import_serving_csv(path)
    assert points[1] == MeasuredServing("nvidia-h100-sxm5-80gb", pytest.approx(x[k], rel=1e-3),
                                        pytest.approx(1.5 * y[k], rel=1e-3), "a blog")
    words = measured_lines(r, points)
    assert "60% of the bound" in words[0]
    assert "ABOVE the bound" in words[1] and "speculative decoding" in words[2]
    bad = tmp_path / "bad.csv"
    bad.write_text("chip,tokens_per_s_per_user,tokens_per_s_per_chip\nH100,fast,3\n")
    with pytest.raises(ValidationError) as exc:
        import_serving_csv(bad)
    assert exc.value.problems[0].path == "line 2"


def test_serving_only_tells_an_edit_of_the_serving_settings_from_any_other():
    from roofline_gui.core.workload import SERVING_FIELDS, serving_only, with_field

    w = shipped_workloads()["llama-3-8b"].workload("w1")
    other = shipped_workloads()["gpt2"].workload("w2")
    for name, value in zip(SERVING_FIELDS, (2000, 500, 0.05, 2.0, 3, 0.0, 4, 4), strict=True):
        assert serving_only((w, other), (with_field(w, name, value), other)), name
    assert not serving_only((w, other), (w, other))  # nothing changed
    assert not serving_only((w,), (with_field(w, "batch", 4),))
    assert not serving_only((w,), (with_field(with_field(w, "batch", 4), "input_tokens", 9),))
    assert not serving_only((w, other), (w,))  # one removed


def test_tokens_per_joule_and_per_dollar_follow_the_energy_model_and_the_price():
    """Per joule: a chip's share of the users' tokens over the energy its prefill and decode
    steps take in the workload views' energy model; per dollar: tokens/s per chip × 3,600 ÷ the
    price per chip-hour; NaN where the chip has no such figure."""
    chips = default_presets().chips
    h200 = chips["nvidia-h200-sxm-141gb"]
    priced = replace(h200, id="p", energy=replace(h200.energy, price_per_hour=4.0))
    bare = replace(h200, id="b", name="bare", energy=None)
    w = shipped_workloads()["llama-3-8b"].workload("w1", chips_per_model=2)
    r = serve(w, (priced, bare), ServingSpec(1000, 500, (1, 8, 64)))
    k = 1
    pre, dec = r.prefill[k].energy.per_step[0], r.decode[k].energy.per_step[0]
    assert r.tokens_per_joule[0, k] == pytest.approx(8 * 500 / 2 / (pre + 500 * dec))
    assert r.tokens_per_dollar[0, k] == pytest.approx(r.tokens_per_chip[0, k] * 3600 / 4.0)
    assert np.isnan(r.tokens_per_joule[1]).all() and np.isnan(r.tokens_per_dollar[1]).all()
    # energy per token falls as more users share each step's weights
    assert r.tokens_per_joule[0, 2] > r.tokens_per_joule[0, 1] > r.tokens_per_joule[0, 0]


def test_disaggregated_prefill_and_decode_by_hand():
    """x chips prefill, y decode: TPOT is the decode step's alone; TTFT adds the KV cache's
    move over the link level; output tokens/s per chip is the slowest of the decode pool, the
    prefill pool and the link, over x + y chips."""
    h200 = default_presets().chips["nvidia-h200-sxm-141gb"]
    w = shipped_workloads()["llama-3-8b"].workload("w1", weights="fp8", activations="fp8")
    together = serve(w, (h200,), ServingSpec(2000, 500, (8, 64)))
    apart = serve(w, (h200,), ServingSpec(2000, 500, (8, 64), prefill_chips=1, decode_chips=3))
    for k, users in enumerate((8, 64)):
        step = float(apart.decode[k].time[0])
        assert apart.tpot[0, k] == pytest.approx(step)
        assert apart.tpot[0, k] < together.tpot[0, k]  # no prompt's prefill mixed in
        # one 2,000-token prompt's cache: 32 layers × K and V × 8 heads × 128 × 2 B (bf16)
        kv = apart.first.built.kv_cache_bytes
        assert kv == 2000 * 32 * 2 * 8 * 128 * 2
        move = kv / float(apart.first.link_bandwidth[0])
        assert apart.ttft[0] == pytest.approx(float(apart.first.time[0]) + move)
        decode_rate = 3 * users / (500 * step)
        prefill_rate = 1 * users / float(apart.prefill[k].time[0])
        link_rate = 1 / move
        assert apart.tokens_per_chip[0, k] == pytest.approx(
            min(decode_rate, prefill_rate, link_rate) * 500 / 4)
    with pytest.raises(ValidationError, match="prefill_chips"):
        serve(replace(w, chips_per_model=2), (h200,),
              ServingSpec(100, 100, (1,), prefill_chips=3, decode_chips=2))
    with pytest.raises(ValidationError, match="decode_chips"):
        serve(w, (h200,), ServingSpec(100, 100, (1,), prefill_chips=2))


def test_the_words_of_a_disaggregated_bound_weigh_twice_the_chips_per_copy():
    """The variant "twice the chips" of a disaggregated bound doubles each pool with the copy
    (1 + 1 chips of one-chip copies become 2 + 2 of two-chip ones): it was refused, and the
    words were lost to a traceback."""
    from roofline_gui.core.serving import serving_lines

    h200 = default_presets().chips["nvidia-h200-sxm-141gb"]
    w = shipped_workloads()["llama-3-8b"].workload("w1", prefill_chips=1, decode_chips=1)
    r = serve(w, (h200,), spec_of(w, (1, 8, 64)))
    text = " ".join(serving_lines(r, 0))
    assert "disaggregated: 1 chip prefill and 1 decode" in text and "2 chips:" in text


def test_the_words_say_why_the_first_chip_leads_the_second():
    """A new user read the ranking but not why the winner wins: the words compare the first two
    at their best points and name the datasheet figures that differ."""
    from roofline_gui.core.serving import serving_lines

    chips = default_presets().chips
    pair = (chips["nvidia-b200"], chips["amd-instinct-mi355x"])
    w = shipped_workloads()["llama-3-70b"].workload("w1", weights="fp8", activations="fp8",
                                                   tpot_limit=0.05)
    r = serve(w, pair, spec_of(w))
    first, second = sorted((0, 1), key=lambda c: -r.tokens_per_chip[c, r.best(c)])
    lead = serving_lines(r, 0)[1]
    a, b = r.chips[first], r.chips[second]
    share = r.tokens_per_chip[first, r.best(first)] / r.tokens_per_chip[second, r.best(second)] - 1
    assert lead.startswith(f"{a.name} leads {b.name} by {share:.0%}")
    assert "the same main memory (8 TB/s)" in lead and "fp8 peak" in lead
    # a model over 8 chips: the link named first (a tour read every figure favour the second
    # chip, and the cause unnamed)
    wide = serve(replace(w, chips_per_model=8), pair, spec_of(w))
    words = serving_lines(wide, 0)[1]
    assert "chip-to-chip link" in words and words.index("chip-to-chip link") < words.index("main memory")
    assert "chip-to-chip link" not in lead
    rows = serving_rows(wide, WORKLOAD_CSV_COLUMNS)
    assert {r["chips_total"] for r in rows} == {"8"}
    # a chip added twice read "Instinct MI300X leads Instinct MI300X by 0%" (a screenshot)
    twice = serve(w, (pair[1], replace(pair[1], id="again")), spec_of(w))
    assert serving_lines(twice, 0)[1].startswith(
        "MI355X and MI355X tie (within 0.5%): at their best points")


def test_serve_rows_carry_an_output_tokens_energy_and_cost():
    chips = default_presets().chips
    b200 = chips["nvidia-b200"]
    priced = replace(b200, energy=replace(b200.energy, price_per_hour=3.5))
    w = shipped_workloads()["llama-3-8b"].workload("w1")
    r = serve(w, (priced, replace(b200, id="x", energy=None)), ServingSpec(1000, 1000, (1, 64)))
    rows = serving_rows(r, WORKLOAD_CSV_COLUMNS)
    assert float(rows[1]["joules_per_item"]) == pytest.approx(1 / r.tokens_per_joule[0, 1],
                                                              rel=1e-4)
    assert float(rows[1]["cost_per_million_items"]) == pytest.approx(
        1e6 / r.tokens_per_dollar[0, 1], rel=1e-4)
    assert rows[2]["joules_per_item"] == rows[2]["cost_per_million_items"] == ""


def test_the_point_the_roofline_shows_is_the_workloads_batch_at_the_mean_context():
    """ServingResult.shown: the frontier's point that is the workload itself (its batch, at the
    requests' mean context, as a click on a point sets it); where the workload is no point of
    the frontier, none, and a sentence says why no point is boxed."""
    w = shipped_workloads()["llama-3-8b"].workload()
    spec = ServingSpec(1000, 1000, (1, 8, 64))
    on = serve(replace(w, batch=8, context=1500), [H100], spec)
    assert on.shown() == 1 and on.not_shown_line() == ""
    for batch, context in ((8, 2048), (9, 1500)):
        off = serve(replace(w, batch=batch, context=context), [H100], spec)
        assert off.shown() is None
        line = off.not_shown_line()
        assert f"B = {batch}, L = {context:,}" in line and "L = 1,500" in line


def test_the_words_compare_chips_when_one_has_no_peak_at_the_workloads_precision():
    """DeepSeek-R1 in NVFP4 on an H200 (no fp4 peak: it runs at a stand-in) and a B200: the
    words had stopped with a TypeError, and the Serving tab kept the workload shown before (the
    eighteenth tour)."""
    from roofline_gui.core.serving import serving_lines
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "deepseek-r1-h200-fp8-vs-b200-nvfp4.roofline")
    nvfp4 = next(w for w in doc.workloads if "NVFP4" in w.name)
    r = serve(nvfp4, doc.chips, spec_of(nvfp4))
    assert {c.peak("fp4") is None for c in r.chips} == {True, False}
    for c in range(len(r.chips)):
        lines = serving_lines(r, c)
        assert lines and all(isinstance(line, str) for line in lines)
    lead = serving_lines(r, 0)[1]
    assert "fp4 peak" in lead and "none" in lead, lead
