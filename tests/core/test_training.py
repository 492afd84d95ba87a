"""The training step's formulas, checked by hand against the published conventions: PaLM's model
FLOPs per token, ZeRO's bytes per parameter at each stage, Korthikanti's activation bytes, and a
published run the bound must never be slower than (Llama 2 7B: 184,320 A100-80GB hours)."""

import pytest

from roofline_gui.core.training import (
    TrainingSetup,
    hardware_flops_per_token,
    implied_mfu,
    model_flops_per_token,
    state_bytes_per_parameter,
    training_step,
)
from roofline_gui.core.workload import TransformerConfig
from roofline_gui.io.workloads import shipped_workloads

GPT = TransformerConfig(hidden=1024, layers=24, heads=16, kv_heads=16, head_dim=64,
                        intermediate=4096, gated=False, vocab=50_000, tied=True)


def llama2_7b() -> TransformerConfig:
    return TransformerConfig.from_config(shipped_workloads()["llama-2-7b"].workload("w").spec)


def test_model_flops_per_token_are_palms_6n_plus_12lhqt():
    n = GPT.total_parameters()
    assert model_flops_per_token(GPT, 2048) == 6 * n + 12 * 24 * 16 * 64 * 2048
    # Korthikanti et al. 2022, eq. 7, per iteration for B sequences, for this GPT's shape
    # (N ≈ 12·L·h² + V·h: the check holds to the norms' and biases' few parameters)
    b, s, h, L, v = 8, 2048, 1024, 24, 50_000
    eq7 = 72 * b * L * s * h**2 * (1 + s / (6 * h) + v / (12 * h * L))
    assert model_flops_per_token(GPT, s) * b * s == pytest.approx(eq7, rel=1e-3)


def test_recomputation_adds_hardware_flops_but_not_model_flops():
    model = model_flops_per_token(GPT, 2048)
    attention = 12 * 24 * 16 * 64 * 2048
    assert hardware_flops_per_token(GPT, 2048, "none") == model
    assert hardware_flops_per_token(GPT, 2048, "selective") == model + attention  # eq. 8
    full = hardware_flops_per_token(GPT, 2048, "full")
    assert full == pytest.approx(model + 2 * GPT.total_parameters() + attention / 3)
    assert full / model == pytest.approx(4 / 3, rel=0.01)  # one more forward of three


@pytest.mark.parametrize(("stage", "per_parameter"), [
    (0, lambda d: 16), (1, lambda d: 4 + 12 / d), (2, lambda d: 2 + 14 / d), (3, lambda d: 16 / d)])
def test_zero_stages_divide_the_model_states_as_the_zero_paper_counts_them(stage, per_parameter):
    d = 64
    step = training_step(GPT, TrainingSetup(data_parallel=d, zero=stage), peak=312e12,
                         bandwidth=2e12, link=300e9)
    assert step.state_bytes == pytest.approx(per_parameter(d) * GPT.total_parameters())
    assert state_bytes_per_parameter("bf16", "adam") == (2, 2, 12)
    assert state_bytes_per_parameter("fp32", "adam") == (4, 4, 8)  # no master copy in fp32
    assert state_bytes_per_parameter("bf16", "sgd") == (2, 2, 8)


@pytest.mark.parametrize(("recompute", "t", "per_layer"), [
    ("none", 1, lambda s, b, h, a, t: s * b * h * (34 + 5 * a * s / h)),
    ("none", 8, lambda s, b, h, a, t: s * b * h * (34 + 5 * a * s / h) / t),  # with sequence parallel
    ("selective", 8, lambda s, b, h, a, t: s * b * h * 34 / t),
    ("full", 8, lambda s, b, h, a, t: 2 * s * b * h),
])
def test_activation_bytes_are_korthikantis_table_2(recompute, t, per_layer):
    s, b = 2048, 4
    step = training_step(GPT, TrainingSetup(micro_batch=b, sequence=s, tensor_parallel=t,
                                            recompute=recompute),
                         peak=312e12, bandwidth=2e12, link=300e9)
    assert step.activation_bytes == pytest.approx(per_layer(s, b, 1024, 16, t) * 24)


def test_the_bound_is_never_slower_than_llama_2_7b_on_a100s_and_its_mfu_is_what_the_run_implies():
    """Touvron et al. 2023 (Llama 2), Table 2: the 7B model took 184,320 A100-80GB hours for
    2 T tokens at sequence 4,096 (global batch 4 M tokens). The bound's chip-hours must be
    fewer, and the run's implied MFU is model FLOPs per token × tokens ÷ (hours × 312 TFLOP/s).
    Selective recomputation: Table 2's no-recomputation activations (104 GB here, the S² scores
    kept) do not fit 80 GB; FlashAttention, which the run used, keeps no scores either."""
    cfg = llama2_7b()
    setup = TrainingSetup(micro_batch=1, sequence=4096, global_batch=1024, data_parallel=1024,
                          zero=1, recompute="selective", tokens=2e12)
    step = training_step(cfg, setup, peak=312e12, bandwidth=2.039e12, link=300e9, capacity=80e9)
    assert step.chip_hours < 184_320
    assert 0 < step.mfu_at_bound <= 1
    hours = 184_320
    tokens_per_second = 2e12 / (hours * 3600 / 1024)  # all 1,024 chips together
    mfu = implied_mfu(cfg, 4096, tokens_per_second, 1024, 312e12)
    by_hand = (6 * cfg.total_parameters() + 12 * 32 * 32 * 128 * 4096) * 2e12 / (hours * 3600 * 312e12)
    assert mfu == pytest.approx(by_hand) and 0.44 < mfu < 0.46  # 45.3 %, attention included
    assert step.fits


def test_bad_settings_are_named_by_their_field():
    bad = TrainingSetup(micro_batch=2, data_parallel=4, global_batch=10, pipeline_parallel=99,
                        tensor_parallel=5, zero=4, recompute="half")
    fields = dict(bad.problems(GPT))
    assert "not a multiple of micro-batch × data parallel = 8" in fields["global_batch"]
    assert "99 pipeline stages for 24 layers" in fields["pipeline_parallel"]
    assert "cannot share 16 attention heads" in fields["tensor_parallel"]
    assert fields["zero"].startswith("ZeRO stage 4") and "half" in fields["recompute"]


def test_the_worked_example_in_docs_workloads_is_what_the_api_gives():
    import re
    from pathlib import Path

    import roofline_gui.api as rf

    step = rf.training("llama-2-7b", rf.chip("nvidia-a100-sxm4-80gb"), sequence=4096,
                       global_batch=1024, data_parallel=1024, zero=1, recompute="selective",
                       tokens=2e12)
    doc = (Path(__file__).resolve().parents[2] / "docs" / "workloads.md").read_text()
    example = doc[doc.index("A worked example"):doc.index("Llama 2's paper reports")]
    text = "\n".join(step.steps)
    for figure in ("4.687e+10", "5.332e+10", "4,194,304", "699.9 ms", "27.03 GB", "18.25 GB",
                   "13.48 GB", "809.6 ms", "87.9%"):
        assert figure in text and figure.replace("87.9%", "87.9 %") in example, figure
    assert f"{step.train_days:.2f} days, {step.chip_hours:,.0f} chip-hours" in example
    assert re.search(r"45\.3 % MFU", doc)
    with pytest.raises(rf.RooflineError, match="zero: ZeRO stage 5"):
        rf.training("llama-2-7b", rf.chip("nvidia-a100-sxm4-80gb"), zero=5)
    with pytest.raises(rf.RooflineError, match="TPU v3 has no fp8 peak"):
        rf.training("llama-2-7b", rf.chip("google-tpu-v3"), precision="fp8")


def test_a_scaling_sweep_grows_the_global_batch_with_the_data_parallel_degree():
    from roofline_gui.core.training import scaling_sweep
    from roofline_gui.io.presets import default_presets

    chips = [default_presets().chips[i] for i in ("nvidia-a100-sxm4-80gb", "google-tpu-v1")]
    sweep = scaling_sweep(GPT, TrainingSetup(micro_batch=2, sequence=1024), chips, (1, 8, 64))
    assert [row[0].tokens_per_step for row in sweep] == [2 * 1024 * d for d in (1, 8, 64)]
    assert all(row[1] is None for row in sweep[1:])  # TPU v1: no bf16, no link to join chips
    compute = [row[0].compute_time for row in sweep]
    assert compute[0] == pytest.approx(compute[2])  # the same work per chip at every d
    assert sweep[0][0].communication_time == 0 < sweep[2][0].communication_time
