"""Today's open models as their configs define them: one reader per family through the registry,
parameter counts against the model cards (by hand, formula by formula), multi-head latent
attention's cache, sliding windows, block-scaled formats, and the experts a batch touches."""

import json

import numpy as np
import pytest

from roofline_gui.core.build import build
from roofline_gui.core.errors import ValidationError
from roofline_gui.core.families import FAMILIES, family_of, read_config
from roofline_gui.core.transformer import attended_pairs, experts_touched
from roofline_gui.core.units import BYTES_PER_VALUE
from roofline_gui.core.workload_eval import evaluate_workloads
from roofline_gui.io.presets import default_presets
from roofline_gui.io.workloads import shipped_workloads

CHIPS = default_presets().chips
MOE = ["deepseek-v3", "qwen3-235b-a22b", "qwen3-30b-a3b", "gpt-oss-120b", "gpt-oss-20b",
       "llama-4-scout"]


def spec(model):
    return shipped_workloads()[model].spec


def weight_bytes(built):
    return sum(e.weight_bytes * e.count for e in built.entries)


@pytest.mark.parametrize("model", MOE)
def test_shipped_configs_match_their_model_cards(model):
    """Total within 1.5 %, active within 5 % (cards round: 671 B, 37 B; 22 B; 5.1 B)."""
    shipped = shipped_workloads()[model]
    built = build(shipped.workload())
    assert built.parameters == pytest.approx(shipped.published_parameters, rel=0.015)
    assert built.active_parameters == pytest.approx(shipped.published_active_parameters, rel=0.05)
    assert "huggingface.co" in shipped.source


def test_each_family_reads_its_own_configs():
    names = {m: family_of(spec(m)).name for m in [*MOE, "llama-3-8b", "gpt2", "mixtral-8x7b"]}
    assert names["deepseek-v3"].startswith("DeepSeek")
    assert names["qwen3-235b-a22b"].startswith("Qwen3") and names["gpt-oss-20b"].startswith("gpt-oss")
    assert names["llama-4-scout"].startswith("Llama 4") and names["gpt2"] == "GPT-2"
    assert names["llama-3-8b"] == names["mixtral-8x7b"] == FAMILIES[-1].name  # Llama-style
    # each family names the fields its dialog shows, and they are fields of its configs
    for model in MOE:
        family = family_of(spec(model))
        raw = spec(model).get("text_config", spec(model))
        assert family.dialog_fields and set(family.dialog_fields) <= set(raw) | {"sliding_window"}


def test_deepseek_v3_counted_by_hand():
    h, H, vocab = 7168, 128, 129280
    attention = (h * 1536 + 1536  # q down-projection and its norm
                 + 1536 * H * (128 + 64)  # q up-projection: nope + rope per head
                 + h * (512 + 64) + 512  # latent and rotary key down-projection, latent norm
                 + 512 * H * (128 + 128)  # key (nope) and value up-projections
                 + H * 128 * h)  # output projection
    assert attention == 187_107_328
    expert = 3 * h * 2048
    moe_layer = (256 + 1) * expert + h * 256  # routed and shared experts, router
    dense_layer = 3 * h * 18432
    total = (61 * attention + 58 * moe_layer + 3 * dense_layer + 61 * 2 * h + h
             + 2 * vocab * h)
    cfg = read_config(spec("deepseek-v3"))
    assert cfg.total_parameters() == total == pytest.approx(671e9, rel=0.001)
    active = total - 58 * (256 - 8) * expert
    assert cfg.active_parameters() == active == pytest.approx(37e9, rel=0.015)
    assert (cfg.moe_layers, cfg.dense_layers, cfg.shared_experts) == (58, 3, 1)


def test_qwen3_235b_counted_by_hand():
    h, vocab = 4096, 151936
    attention = h * (64 + 2 * 4) * 128 + 64 * 128 * h + 2 * 128  # q, k, v; o; q and k norms
    moe = 128 * 3 * h * 1536 + h * 128
    total = 94 * (attention + moe + 2 * h) + h + 2 * vocab * h
    cfg = read_config(spec("qwen3-235b-a22b"))
    assert cfg.total_parameters() == total == pytest.approx(235e9, rel=0.001)
    assert cfg.active_parameters() == total - 94 * 120 * 3 * h * 1536
    assert cfg.active_parameters() == pytest.approx(22e9, rel=0.01)


def test_gpt_oss_120b_counted_by_hand_and_its_mxfp4_weights():
    h, vocab, layers = 2880, 201088, 36
    attention = (h * (64 + 16) * 64 + (64 + 16) * 64  # q, k, v and their biases
                 + 64 * 64 * h + h  # o and its bias
                 + 64)  # one sink per head
    expert_matrices = 3 * h * 2880
    expert = expert_matrices + 2 * 2880 + h  # gate_up and down biases
    moe = 128 * expert + h * 128 + 128  # router with its bias
    total = layers * (attention + moe + 2 * h) + h + 2 * vocab * h
    cfg = read_config(spec("gpt-oss-120b"))
    assert cfg.total_parameters() == total == pytest.approx(116.8e9, rel=0.001)
    # OpenAI's card counts active parameters without the input embedding
    active = total - layers * (128 - 4) * expert - vocab * h
    assert cfg.card_active_parameters() == active == pytest.approx(5.13e9, rel=0.002)
    # MXFP4: the experts' matrices at 4.25 bits a value; attention, router, embedding, head,
    # norms and biases at 16 bits, as the checkpoint keeps them (65 GB on its model page)
    built = build(shipped_workloads()["gpt-oss-120b"].workload(weights="mxfp4"))
    matrices = layers * 128 * expert_matrices
    assert BYTES_PER_VALUE["mxfp4"] == 4.25 / 8 and BYTES_PER_VALUE["nvfp4"] == 4.5 / 8
    assert built.weight_bytes == pytest.approx(matrices * 4.25 / 8 + (total - matrices) * 2,
                                               rel=1e-12)
    assert built.weight_bytes == pytest.approx(65.25e9, rel=0.001)


def test_mla_caches_the_latent_not_the_heads():
    """DeepSeek-V3 at 32,768 tokens, bf16: 61 layers × 32,768 × (512 + 64) values × 2 B."""
    w = shipped_workloads()["deepseek-v3"].workload(batch=1, context=32768, kv_cache="bf16")
    built = build(w)
    assert built.kv_cache_bytes == 61 * 32768 * 576 * 2 == 2_302_672_896
    plain = 61 * 32768 * 2 * 128 * 192 * 2  # 128 heads' keys (192) and values... as if GQA
    assert plain / built.kv_cache_bytes > 70  # what a plain-attention reader over-counts
    # decode reads the latent cache in the absorbed form, on every chip of a tensor-parallel group
    decode = next(e for e in built.entries if e.kernel.name.startswith("Attention decode (MLA"))
    read = decode.kernel.bytes["dram"] - decode.kernel.write_bytes["dram"]
    assert read * decode.count == built.kv_cache_bytes + 61 * 128 * 576 * 1  # and fp8 queries
    assert decode.kernel.flops == 2 * 128 * 32768 * (2 * 512 + 64)
    on8 = build(w.__class__(**{**w.__dict__, "chips_per_model": 8}))
    assert on8.kv_cache_bytes == built.kv_cache_bytes  # the latent is not split by heads


def test_gpt_oss_sliding_layers_hold_their_window():
    """gpt-oss-120b at 131,072 tokens: 18 full layers hold them all, 18 sliding ones 128."""
    w = shipped_workloads()["gpt-oss-120b"].workload(batch=1, context=131072, kv_cache="bf16")
    per_token_layer = 2 * 8 * 64 * 2  # K and V, 8 KV heads, head_dim 64, 2 B
    built = build(w)
    assert built.kv_cache_bytes == 18 * 131072 * per_token_layer + 18 * 128 * per_token_layer
    full = [e for e in built.entries if e.kernel.name.startswith("Attention decode")]
    assert sorted(e.kernel.flops for e in full) == [4 * 64 * 128 * 64, 4 * 64 * 131072 * 64]
    # prefill: a window of W attends S·W − W²/2 pairs, the whole prompt S²/2
    assert attended_pairs(8192, 128, False) == 8192 * 128 - 128 * 128 / 2
    assert attended_pairs(8192, 0, False) == 8192**2 / 2 and attended_pairs(100, 128, False) == 5000


def test_experts_touched_and_the_bytes_a_batch_reads():
    """DeepSeek-V3 (256 routed experts, 8 per token): 8 at batch 1, about 102 at 16, all but a
    tenth of one at 256; the step reads 18× the weights at batch 256 that it reads at 1."""
    assert experts_touched(256, 8, 1) == pytest.approx(8)
    assert experts_touched(256, 8, 16) == pytest.approx(256 * (1 - (248 / 256) ** 16))
    assert experts_touched(256, 8, 16) == pytest.approx(101.96, abs=0.01)
    assert experts_touched(256, 8, 256) == pytest.approx(255.92, abs=0.01)
    ds = shipped_workloads()["deepseek-v3"]
    one = weight_bytes(build(ds.workload(batch=1, weights="bf16")))
    many = weight_bytes(build(ds.workload(batch=256, weights="bf16")))
    assert many / one == pytest.approx(18.3, abs=0.1)
    routed = [e for e in build(ds.workload(batch=1, weights="bf16")).entries
              if e.group == "routed experts"]
    assert sum(e.weight_bytes for e in routed) == pytest.approx(8 * 3 * 7168 * 2048 * 2)


def test_fp4_prefill_on_a_b200_is_nearly_twice_fp8_and_a_chip_without_fp4_runs_fp8():
    ds = shipped_workloads()["deepseek-v3"]
    b200, h200 = CHIPS["nvidia-b200"], CHIPS["nvidia-h200-sxm-141gb"]
    assert b200.compute["fp4"] == 2 * b200.compute["fp8"] == 9e15
    fp8, fp4 = evaluate_workloads(
        [ds.workload(phase="prefill", batch=1, sequence=8192, weights=f, activations=f,
                     kv_cache="fp8") for f in ("fp8", "nvfp4")], [b200, h200])
    assert 1.8 < fp8.time[0] / fp4.time[0] < 2.0  # the matmuls twice as fast; the rest not
    # the H200 has no fp4: its fp8 stands in (the NVFP4 values are smaller, not faster to compute)
    assert fp4.time[1] == pytest.approx(fp8.time[1], rel=0.02)
    assert fp4.evaluation.chip_arrays.stand_in_for(1, 7) == 5  # fp4 → fp8


def test_expert_parallelism_moves_tokens_all_to_all():
    ds = shipped_workloads()["deepseek-v3"]
    w = ds.workload(batch=64, context=4096, weights="fp8", activations="fp8", chips_per_model=8,
                    expert_parallel=8)
    built = build(w)
    parts = dict(built.link_parts)
    # dispatch and combine in 58 layers: 2·(T·k/e)·(e−1)/e·hidden·b_a
    assert parts["all-to-all"] == pytest.approx(58 * 2 * (64 * 8 / 8) * 7 / 8 * 7168 * 1)
    # all-reduces after attention in 61 layers and after the 3 dense MLPs
    assert parts["all-reduce"] == pytest.approx((61 + 3) * 2 * 7 / 8 * 64 * 7168)
    # the busiest chip under uneven routing: more ops and more experts' weights
    skewed = build(w.__class__(**{**w.__dict__, "moe_imbalance": 1.5}))
    routed = [e for e in built.entries if e.group == "routed experts"]
    routed2 = [e for e in skewed.entries if e.group == "routed experts"]
    assert routed2[0].kernel.flops == pytest.approx(1.5 * routed[0].kernel.flops)
    r, = evaluate_workloads([w], [CHIPS["nvidia-h200-sxm-141gb"]])
    assert r.fits[0] and np.isfinite(r.time[0])


@pytest.mark.parametrize(("change", "field", "words"), [
    ({"num_experts_per_tok": 300}, "num_experts_per_tok", "more than the 256 experts"),
    ({"kv_lora_rank": 0}, "kv_lora_rank", "whole number"),
])
def test_bad_deepseek_fields_are_named(change, field, words):
    with pytest.raises(ValidationError) as exc:
        read_config({**spec("deepseek-v3"), **change})
    assert any(p.path == f"config.{field}" and words in p.message for p in exc.value.problems)


@pytest.mark.parametrize(("window", "words"), [(0, "from 1 up"), (10**6, "beyond the model's")])
def test_a_sliding_window_of_zero_or_beyond_the_positions_is_refused(window, words):
    with pytest.raises(ValidationError) as exc:
        read_config({**spec("gpt-oss-20b"), "sliding_window": window})
    assert any(p.path == "config.sliding_window" and words in p.message
               for p in exc.value.problems)


def test_expert_parallel_must_divide_the_experts_and_the_chips():
    ds = shipped_workloads()["deepseek-v3"]
    for kw, words in (({"chips_per_model": 6, "expert_parallel": 3}, "6 chips cannot share"),
                      ({"chips_per_model": 8, "expert_parallel": 3}, "does not divide the 256"),
                      ({"chips_per_model": 4, "expert_parallel": 8}, "does not divide N = 4")):
        with pytest.raises(ValidationError) as exc:
            build(ds.workload(**kw))
        assert any(words in p.message for p in exc.value.problems), kw
    with pytest.raises(ValidationError) as exc:
        build(shipped_workloads()["llama-3-8b"].workload(chips_per_model=2, expert_parallel=2))
    assert exc.value.problems[0].path == "expert_parallel"


def test_unknown_fields_are_noted_and_unmodelled_ones_refused_by_name():
    cfg = read_config({**spec("qwen3-30b-a3b"), "brand_new_field": 3})
    assert any("brand_new_field" in note for note in cfg.notes)
    with pytest.raises(ValidationError) as exc:
        read_config({**spec("llama-3-8b"), "moe_intermediate_size": 1024})
    assert exc.value.problems[0].path == "config.moe_intermediate_size"
    with pytest.raises(ValidationError) as exc:
        read_config({**spec("gpt-oss-20b"), "layer_types": ["linear_attention"] * 24})
    assert "not modelled" in exc.value.problems[0].message


def test_gemma_local_and_global_layers():
    gemma2 = {"model_type": "gemma2", "hidden_size": 3584, "intermediate_size": 14336,
              "num_hidden_layers": 42, "num_attention_heads": 16, "num_key_value_heads": 8,
              "head_dim": 256, "vocab_size": 256000, "sliding_window": 4096,
              "max_position_embeddings": 8192, "hidden_activation": "gelu_pytorch_tanh"}
    cfg = read_config(gemma2)
    assert cfg.windows == ((4096, 21), (0, 21))
    assert cfg.total_parameters() == pytest.approx(9.24e9, rel=0.002)  # the model card's 9.24 B
    gemma3 = {"model_type": "gemma3", "text_config": {
        "model_type": "gemma3_text", "hidden_size": 3840, "intermediate_size": 15360,
        "num_hidden_layers": 48, "num_attention_heads": 16, "num_key_value_heads": 8,
        "sliding_window": 1024}}
    cfg = read_config(gemma3)
    assert cfg.windows == ((1024, 40), (0, 8)) and cfg.vocab == 262208
    assert any("transformers' defaults" in n for n in cfg.notes)


def test_a_config_read_from_disk_is_the_shipped_one(tmp_path):
    from roofline_gui.io.workloads import workload_from_config

    path = tmp_path / "config.json"
    path.write_text(json.dumps(spec("qwen3-30b-a3b")))
    w = workload_from_config(path, expert_parallel=4, chips_per_model=4)
    assert build(w).parameters == build(shipped_workloads()["qwen3-30b-a3b"].workload()).parameters


def test_deepseeks_multi_token_prediction_module_is_an_option():
    """Off by default (671 B, as the card counts); on, the module is held beside the model: its
    projection, one more MoE block and its own embedding and head, 685 B as the checkpoint."""
    ds = shipped_workloads()["deepseek-v3"]
    off, on = build(ds.workload()), build(ds.workload(mtp=True))
    h, vocab = 7168, 129280
    cfg = read_config(spec("deepseek-v3"))
    block = (cfg.attention_parameters() + 257 * 3 * h * 2048 + h * 256 + 2 * h)
    module = 2 * h * h + 2 * h + block + 2 * vocab * h + h
    assert on.parameters - off.parameters == module == pytest.approx(13.5e9, rel=0.01)
    assert on.parameters == pytest.approx(685e9, rel=0.002)
    assert on.weight_bytes - off.weight_bytes == module * 1  # fp8, as the example ships
    with pytest.raises(ValidationError) as exc:
        build(shipped_workloads()["qwen3-30b-a3b"].workload(mtp=True))
    assert exc.value.problems[0].path == "mtp"
