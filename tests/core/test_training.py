"""The training step's formulas, checked by hand against the published conventions: PaLM's model
FLOPs per token, ZeRO's bytes per parameter at each stage, Korthikanti's activation bytes, the
backward as twice the forward, and a published run the bound must never be slower than (Llama 2
7B: 184,320 A100-80GB hours)."""

from dataclasses import replace

import numpy as np
import pytest

import roofline_gui.api as rf
from roofline_gui.core.build import build
from roofline_gui.core.errors import ValidationError
from roofline_gui.core.families import read_config
from roofline_gui.core.training import (
    implied_mfu,
    matmul_parameters,
    model_flops_per_token,
    state_bytes_per_parameter,
)
from roofline_gui.core.training_view import breakdown, fit_changes, scaling
from roofline_gui.core.units import format_time
from roofline_gui.core.workload import Workload
from roofline_gui.core.workload_eval import evaluate_workloads
from roofline_gui.io.workloads import shipped_workloads

GPT_SPEC = {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
            "intermediate_size": 4096, "vocab_size": 50_000, "model_type": "gpt_neox",
            "hidden_act": "gelu", "tie_word_embeddings": True}
GPT = read_config(GPT_SPEC)


def gpt(**params) -> Workload:
    return Workload("g", "GPT", "transformer", GPT_SPEC, phase="train", **params)


def llama2_7b(**params) -> Workload:
    return shipped_workloads()["llama-2-7b"].workload("w", phase="train", **params)


def chip(preset):
    return rf.chip(preset)


def test_model_flops_per_token_are_palms_6n_plus_12lhqt():
    n = GPT.total_parameters()  # tied: the embedding table is the LM head's matrix, counted once
    assert matmul_parameters(GPT) == n
    assert model_flops_per_token(GPT, 2048) == 6 * n + 12 * 24 * 16 * 64 * 2048
    # Korthikanti et al. 2022, eq. 7, per iteration for B sequences, for this GPT's shape
    # (N ≈ 12·L·h² + V·h: the check holds to the norms' few parameters)
    b, s, h, L, v = 8, 2048, 1024, 24, 50_000
    eq7 = 72 * b * L * s * h**2 * (1 + s / (6 * h) + v / (12 * h * L))
    assert model_flops_per_token(GPT, s) * b * s == pytest.approx(eq7, rel=1e-3)
    # an untied input table is a lookup, not a matmul: Llama 2's 32,000 × 4,096 left out once
    cfg = read_config(llama2_7b().spec)
    assert matmul_parameters(cfg) == cfg.total_parameters() - 32_000 * 4096


def test_the_entries_add_up_to_the_model_flops_and_recomputation_adds_hardware_flops():
    """Forward + backward (2×) of every matmul, attention over the full square: the entries'
    ops are the model FLOPs and the norms' few; selective adds the attention core once more
    (Korthikanti eq. 8's doubled attention term is one more forward of it: 4·L·H·Q·T of 12),
    full one more forward of every layer."""
    results = evaluate_workloads([gpt(sequence=2048, recompute=r) for r in
                                  ("none", "selective", "full")], [chip("nvidia-a100-sxm4-80gb")])
    none, selective, full = (r.training for r in results)
    model = model_flops_per_token(GPT, 2048)
    assert none.model_flops_per_item == model
    assert none.hardware_flops_per_item == pytest.approx(model, rel=2e-3)
    assert none.hardware_flops_per_item >= model  # the MFU at the bound is never above 100 %
    attention = 4 * 24 * 16 * 64 * 2048
    assert selective.hardware_flops_per_item - none.hardware_flops_per_item == pytest.approx(attention)
    layers = [e for e in build(gpt(sequence=2048)).entries
              if e.group == "forward" and e.kernel.name not in ("LM head (logits)",
                                                                "Embedding lookup and final norm")]
    again = sum(e.kernel.flops * e.count for e in layers) / 2048  # one more forward of the layers
    assert full.hardware_flops_per_item - none.hardware_flops_per_item == pytest.approx(again)
    assert 1.25 < full.hardware_flops_per_item / none.hardware_flops_per_item < 4 / 3
    assert all(0 < r.mfu_at_bound[0] <= r.hfu_at_bound[0] <= 1 for r in results)


def test_backward_is_twice_the_forward_in_ops_and_bytes():
    built = build(gpt(sequence=1024, batch=2))
    forward = [e for e in built.entries if e.group == "forward"]
    backward = [e for e in built.entries if e.group == "backward"]
    assert len(forward) == len(backward)
    for f, b in zip(forward, backward, strict=True):
        assert b.kernel.flops == 2 * f.kernel.flops and b.count == f.count
        assert b.kernel.bytes["dram"] == 2 * f.kernel.bytes["dram"]
        assert b.kernel.name == f"{f.kernel.name} (backward)"


@pytest.mark.parametrize(("stage", "per_parameter"), [
    (0, lambda d: 16), (1, lambda d: 4 + 12 / d), (2, lambda d: 2 + 14 / d), (3, lambda d: 16 / d)])
def test_zero_stages_divide_the_model_states_as_the_zero_paper_counts_them(stage, per_parameter):
    d = 64
    facts = build(gpt(data_parallel=d, zero=stage)).training
    assert facts.state_bytes == pytest.approx(per_parameter(d) * GPT.total_parameters())
    assert state_bytes_per_parameter("bf16", "adam") == (2, 2, 12)
    assert state_bytes_per_parameter("fp32", "adam") == (4, 4, 8)  # no master copy in fp32
    assert state_bytes_per_parameter("bf16", "sgd") == (2, 2, 8)


def test_zero_3_communicates_one_and_a_half_times_data_parallel():
    d = 8
    plain = build(gpt(data_parallel=d, zero=2)).link_bytes
    assert plain == pytest.approx(2 * (d - 1) / d * 2 * GPT.total_parameters())
    assert build(gpt(data_parallel=d, zero=3)).link_bytes == pytest.approx(1.5 * plain)


@pytest.mark.parametrize(("recompute", "t", "per_layer"), [
    ("none", 1, lambda s, b, h, a, t: s * b * h * (34 + 5 * a * s / h)),
    ("none", 8, lambda s, b, h, a, t: s * b * h * (34 + 5 * a * s / h) / t),  # with sequence parallel
    ("selective", 8, lambda s, b, h, a, t: s * b * h * 34 / t),
    ("full", 8, lambda s, b, h, a, t: 2 * s * b * h),
])
def test_activation_bytes_are_korthikantis_table_2(recompute, t, per_layer):
    s, b = 2048, 4
    facts = build(gpt(batch=b, sequence=s, chips_per_model=t, recompute=recompute)).training
    assert facts.activation_bytes == pytest.approx(per_layer(s, b, 1024, 16, t) * 24)


def test_activation_bytes_of_fp32_values_say_their_factor_over_the_tables_16_bit_ones():
    """Korthikanti's Table 2 counts 2-byte values: in fp32 the bytes are twice, and the formula
    says so (34·s·b·h/t gave 570 MB where the text said 1.141 GB: the twenty-second tour)."""
    s, b = 2048, 4
    half = build(gpt(batch=b, sequence=s, recompute="selective", activations="bf16")).training
    full = build(gpt(batch=b, sequence=s, recompute="selective", activations="fp32")).training
    assert full.activation_bytes == pytest.approx(2 * half.activation_bytes)
    assert "34·s·b·h/t × 4 B/2 B" in full.activation_text
    assert "34·s·b·h/t per layer" in half.activation_text and "B/2 B" not in half.activation_text


def test_a_pipeline_idles_p_minus_1_over_m_of_the_step_and_holds_l_layers_of_activations():
    one = evaluate_workloads([gpt(sequence=1024, batch=1, global_batch=8)],
                             [chip("nvidia-a100-sxm4-80gb")])[0]
    piped = evaluate_workloads([gpt(sequence=1024, batch=1, global_batch=8, pipeline_parallel=4)],
                               [chip("nvidia-a100-sxm4-80gb")])[0]
    assert piped.training.bubble_fraction == 3 / 8
    busy = sum(piped.group_time(g) for g in ("forward", "backward", "recompute"))
    assert piped.bubble_time[0] == pytest.approx(3 / 8 * busy[0])
    assert piped.kernel_time[0] == pytest.approx(one.kernel_time[0] / 4, rel=1e-9)
    assert piped.training.activation_bytes == pytest.approx(one.training.activation_bytes)
    # each entry's derivation counts the stages in words that agree with their number
    steps = {s for e in one.entries for s in e.steps if "micro-batches" in s}
    assert steps and all(s.endswith("p = 1 stage)") for s in steps), steps
    steps = {s for e in piped.entries for s in e.steps if "micro-batches" in s}
    assert steps and all(s.endswith("p = 4 stages)") for s in steps), steps


def test_the_bound_is_never_slower_than_llama_2_7b_on_a100s_and_its_mfu_is_what_the_run_implies():
    """Touvron et al. 2023 (Llama 2), Table 2: the 7B model took 184,320 A100-80GB hours for
    2 T tokens at sequence 4,096 (global batch 4 M tokens). The bound's chip-hours must be
    fewer, and the run's implied MFU is model FLOPs per token × tokens ÷ (hours × 312 TFLOP/s).
    Selective recomputation: Table 2's no-recomputation activations (the S² scores kept) do not
    fit 80 GB; FlashAttention, which the run used, keeps no scores either."""
    w = llama2_7b(batch=1, sequence=4096, global_batch=1024, data_parallel=1024, zero=1,
                  recompute="selective", train_tokens=2e12)
    r = evaluate_workloads([w], [chip("nvidia-a100-sxm4-80gb")])[0]
    assert r.chip_hours[0] < 184_320 and r.fits[0]
    assert 0 < r.mfu_at_bound[0] <= 1
    hours = 184_320
    tokens_per_second = 2e12 / (hours * 3600 / 1024)  # all 1,024 chips together
    cfg = read_config(w.spec)
    mfu = implied_mfu(cfg, 4096, tokens_per_second, 1024, 312e12)
    n = cfg.total_parameters() - 32_000 * 4096
    by_hand = (6 * n + 12 * 32 * 32 * 128 * 4096) * 2e12 / (hours * 3600 * 312e12)
    assert mfu == pytest.approx(by_hand) and 0.44 < mfu < 0.45  # 44.6 %, attention included
    # a step's tokens per second at the bound is the CSV's throughput: all chips together
    assert r.throughput[0] == pytest.approx(1024 * 4096 / r.time[0])


def test_bad_settings_are_named_by_their_field():
    with pytest.raises(ValidationError) as exc:
        build(gpt(batch=2, data_parallel=4, global_batch=10, zero=4, recompute="half"))
    fields = {p.path: p.message for p in exc.value.problems}
    assert "not a multiple of micro-batch × data parallel = 2·4 = 8" in fields["global_batch"]
    assert fields["zero"].startswith("ZeRO stage 4") and "half" in fields["recompute"]
    with pytest.raises(ValidationError, match="99 pipeline stages for 24 layers"):
        build(gpt(pipeline_parallel=99))
    with pytest.raises(ValidationError, match="cannot share 16 attention heads"):
        build(gpt(chips_per_model=5))
    lstm = shipped_workloads()["lstm"].workload("l", phase="train")
    with pytest.raises(ValidationError, match="cannot be trained here"):
        build(lstm)
    resnet = shipped_workloads()["resnet-50"].workload("r", phase="train")
    with pytest.raises(ValidationError, match="selective recomputation recomputes a transformer"):
        build(replace(resnet, recompute="selective"))


def test_a_cnn_trains_at_three_times_its_forward_flops_and_holds_every_layers_output():
    w = shipped_workloads()["resnet-50"].workload("r", phase="train", batch=32, activations="fp16")
    forward = build(replace(w, phase="decode"))
    fwd_ops = sum(e.kernel.flops * e.count for e in forward.entries)
    facts = build(w).training
    assert facts.unit == "image" and facts.model_flops_per_item == pytest.approx(3 * fwd_ops / 32)
    assert 3 * 7.5e9 < facts.model_flops_per_item < 3 * 8.5e9  # ResNet-50: ~4.1 GMAC per image
    outputs = sum(e.kernel.write_bytes["dram"] * e.count for e in forward.entries)
    assert facts.activation_bytes == pytest.approx(outputs * 2 / 2)  # fp16, as the forward's


def test_the_worked_example_in_docs_workloads_is_what_the_api_gives():
    import re
    from pathlib import Path

    step = rf.training("llama-2-7b", rf.chip("nvidia-a100-sxm4-80gb"), sequence=4096,
                       global_batch=1024, data_parallel=1024, zero=1, recompute="selective",
                       tokens=2e12)
    doc = (Path(__file__).resolve().parents[2] / "docs" / "workloads.md").read_text()
    example = doc[doc.index("A worked example"):doc.index("Llama 2's paper reports")]
    text = "\n".join(step.steps)
    for figure in ("4.609e+10", "4.824e+10", "4,194,304", "649.3 ms", "27.03 GB", "18.25 GB",
                   "26.93 GB", "739.1 ms", "93.2%"):
        assert figure in text and figure in example, figure
    assert f"{step.train_days:.3g} days, {step.chip_hours:,.0f} chip-hours" in example
    assert re.search(r"44\.6 % MFU", doc)
    with pytest.raises(rf.RooflineError, match="zero: ZeRO stage 5"):
        rf.training("llama-2-7b", rf.chip("nvidia-a100-sxm4-80gb"), zero=5)
    with pytest.raises(rf.RooflineError, match="TPU v3 has no fp8 ceiling"):
        rf.training("llama-2-7b", rf.chip("google-tpu-v3"), precision="fp8")


def test_a_scaling_sweep_grows_the_global_batch_with_the_data_parallel_degree():
    w = gpt(batch=2, sequence=1024)
    sweep = scaling(w, [chip("nvidia-a100-sxm4-80gb"), chip("google-tpu-v1")])
    assert [r.training.items_per_step for r in sweep[:3]] == [2 * 1024 * d for d in (1, 2, 4)]
    assert all(not np.isfinite(r.time[1]) for r in sweep)  # TPU v1: no bf16 roof
    kernels = [r.kernel_time[0] for r in sweep]
    assert kernels[0] == pytest.approx(kernels[-1])  # the same work per chip at every d
    assert sweep[0].link_time[0] == 0 < sweep[3].link_time[0]


def test_the_breakdown_and_what_would_make_it_fit():
    w = llama2_7b(batch=1, sequence=4096, global_batch=1024, data_parallel=1024, zero=1,
                  recompute="selective")
    r = evaluate_workloads([w], [chip("nvidia-a100-sxm4-80gb")])[0]
    parts = breakdown(r, [0])
    assert [p.kind for p in parts] == ["forward", "backward", "recompute", "optimizer",
                                       "communication"]
    assert sum(p.share for p in parts) == pytest.approx(1)
    assert parts[1].width == pytest.approx(2 * parts[0].width, rel=0.05)
    fixes = fit_changes(w, 32e9)  # a TPU v3's 32 GB
    assert fixes[0].startswith("ZeRO stage 2") and any("full recomputation" in f for f in fixes)


PALM_540B = {"hidden_size": 18432, "num_hidden_layers": 118, "num_attention_heads": 48,
             "num_key_value_heads": 1, "head_dim": 256, "intermediate_size": 73728,
             "hidden_act": "swiglu", "vocab_size": 256_000, "tie_word_embeddings": True}


def test_palm_540b_on_6144_tpu_v4_the_bound_beats_the_run_and_its_mfu_is_46_2_percent():
    """Chowdhery et al. 2022 (PaLM), section 4 and appendix B: 540 B parameters (118 layers,
    48 heads of 256, multi-query, SwiGLU, shared embeddings), 6,144 TPU v4 chips (12-way model
    parallel, 512-way fully sharded data parallel), batch 2,048 sequences of 2,048 tokens,
    238.3 k tokens/s, 46.2 % MFU by 6·N + 12·L·H·Q·T against 275 TFLOP/s bf16 per chip."""
    cfg = read_config(PALM_540B)
    assert cfg.total_parameters() == pytest.approx(540e9, rel=0.01)
    mfu = implied_mfu(cfg, 2048, 238.3e3, 6144, 275e12)
    assert mfu == pytest.approx(0.462, abs=0.005)
    w = Workload("p", "PaLM 540B", "transformer", PALM_540B, phase="train", batch=4,
                 sequence=2048, data_parallel=512, chips_per_model=12, zero=3,
                 train_tokens=780e9)
    r = evaluate_workloads([w], [chip("google-tpu-v4")])[0]
    assert r.training.chips == 6144
    assert r.throughput[0] > 238.3e3  # the bound is never slower than the run
    assert mfu < r.mfu_at_bound[0] <= 1
    # its model FLOPs per token are the paper's count, to the norms' few parameters
    assert r.training.model_flops_per_item == pytest.approx(
        6 * 540.35e9 + 12 * 118 * 48 * 256 * 2048, rel=0.002)


def test_the_explanation_offers_only_precisions_the_chip_has_and_names_a_stand_in():
    """From the training tour: the A100 was offered fp8 training at its int8 roof (a same-width
    stand-in); the V100's fp16 stood in for bf16 unnamed; the shares had three totals."""
    from roofline_gui.core.training_view import explain_training, report

    w = llama2_7b(batch=1, sequence=4096, global_batch=1024, data_parallel=1024, zero=1,
                  recompute="selective", train_tokens=2e12)
    r = evaluate_workloads([w], [chip("nvidia-a100-sxm4-80gb"), chip("nvidia-v100-sxm2-32gb")],
                           same_width=True)[0]
    a100, v100 = explain_training(r, 0), explain_training(r, 1)
    assert not any("fp8" in line for line in a100) and any("fp32 instead" in x for x in a100)
    assert any("(its fp16 stands in: it has no bf16)" in line for line in v100)
    rep = report(r, 0)
    parts = (rep.forward_time + rep.backward_time + rep.recompute_time + rep.optimizer_time
             + rep.communication_time + rep.bubble_time)
    assert parts == pytest.approx(rep.time_upper)  # the bar's, the CSV's and the words' total
    assert r.communication_share[0] == pytest.approx(rep.communication_time / rep.time_upper)
    assert rep.hfu_at_bound >= rep.mfu_at_bound  # "compute is busy" is never below the MFU
    assert any("network of about PCIe Gen4 x16's 32 GB/s" in line for line in a100)


def test_a_micro_batch_drag_keeps_the_global_batch_and_steps_through_its_divisors():
    from roofline_gui.core.workload_view import drag_ladder

    w = llama2_7b(batch=1, sequence=1024, global_batch=96, data_parallel=8)
    values, intensity = drag_ladder(w, "batch")
    assert list(values) == [1, 2, 3, 4, 6, 12]  # the divisors of G/d = 12
    assert np.all(np.diff(intensity) >= 0)


def test_the_training_example_ties_precision_and_equal_times_to_the_article():
    """Claims 6 and 7 as the tour read them: fp32 is 11x slower than bf16 on the A100, not the
    article's 2x, because its fp32 runs on CUDA cores (19.5 against 312 Top/s), while tf32 to
    bf16 is the article's 2x; the V100 and the TPU v3 take the same bf16 step, mostly because
    their peaks are near each other, their shared 900 GB/s half the reason."""
    from roofline_gui.core.training_view import explain_training
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "training-fp32-against-bf16.roofline")
    results = evaluate_workloads(doc.workloads, doc.chips, kernels=doc.kernels_by_id, same_width=True)
    fp32, bf16 = results[0], results[2]
    text = "\n".join(explain_training(fp32, 0, kernels=doc.kernels_by_id))
    t32, t16 = float(fp32.time[0]), float(bf16.time[0])
    assert 10 < t32 / t16 < 12
    assert f"bf16 {format_time(t16)} ({t32 / t16:.3g}×)" in text
    assert "19.5 Top/s" in text and "312 Top/s (16×)" in text and "compute-bound" in text
    # and why the step gains 11×, not the peaks' 16× (the second tour asked)
    assert f"is held by its bytes before it gets there: {t32 / t16:.3g}× rather than 16×" in text
    assert "the article's 2× comes from both" in text and "1.95×" in text
    text = "\n".join(explain_training(bf16, 1, kernels=doc.kernels_by_id))
    assert "TPU v3 and V100 SXM2 16GB take the same time within 1%" in text
    assert "the same main-memory bandwidth (900 GB/s)" in text and "1.02× apart" in text
    # the roof each runs at, by name: the V100 has no bf16, its fp16 stands in (it read "their
    # bf16 roofs": the ninth tour)
    assert "their bf16 and fp16 roofs (123 Top/s and 125 Top/s)" in text
    # each chip's compute share as its own "Where the time goes" gives it (an "up to 59.3%"
    # had stood beside the V100's 57.6%: the twenty-first tour)
    for c, d in ((1, 2), (2, 1)):
        mine = "\n".join(explain_training(bf16, c, kernels=doc.kernels_by_id))
        own = f"{float(bf16.compute_share[c]):.1%}"
        assert f"{own} of the time in compute-bound kernels" in mine
        assert (f"({own} on {doc.chips[c].name}, {float(bf16.compute_share[d]):.1%} on "
                f"{doc.chips[d].name})") in mine
        assert "up to" not in mine
    # the run's chip-hours read the same in its line and in How it is counted (7.93 and 8)
    v100 = "\n".join(explain_training(bf16, 2, kernels=doc.kernels_by_id))
    hours = f"{float(bf16.chip_hours[2]):.3g}"
    assert hours == "7.93" and v100.count(f"{hours} chip-hours") == 2
