"""Llama-style decoders: Llama 2 and 3, Mistral (a sliding window on every layer), Mixtral (a
few large experts), Qwen2, Phi-3; and any model_type no other family claims, read the same way."""

from __future__ import annotations

from dataclasses import replace

from roofline_gui.core.families.common import Family, dense_fields, experts_fields, note_mlp
from roofline_gui.core.i18n import N_, _
from roofline_gui.core.model_config import Fields, TransformerConfig, check_window

#: Architectures whose MLP is gated (three matrices: gate, up, down).
GATED_TYPES = {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "gemma", "gemma2", "phi3"}
#: Fields of fine-grained or shared experts, read by the DeepSeek and Qwen families only.
FINE_GRAINED = ("moe_intermediate_size", "shared_expert_intermediate_size", "n_routed_experts",
                "n_shared_experts", "first_k_dense_replace", "kv_lora_rank")


def read(raw, path):
    f = Fields(raw, path)
    model_type = str(raw.get("model_type", ""))
    act = str(f.get("hidden_act", ""))
    gated = model_type in GATED_TYPES or act in ("silu", "swiglu")
    base = dense_fields(f, gated)
    experts, k = experts_fields(f, ("num_local_experts", "num_experts"))
    for key in FINE_GRAINED:
        if f.has(key):
            f.refuse(key, _("shared or fine-grained experts and latent attention are read for "
                            "model_type deepseek_v2, deepseek_v3, qwen2_moe and qwen3_moe; this "
                            "config's model_type is {model_type}").format(
                model_type=repr(model_type) if model_type else _("not given")))
    positions = f.whole("max_position_embeddings", required=False)
    window = check_window(f, f.get("sliding_window"), positions)
    windowed = window is not None and f.get("use_sliding_window", True) is not False
    layers = base["layers"]
    f.note_unknown()
    why = f"model_type {model_type!r}" if model_type else f"hidden_act {act!r}"
    cfg = TransformerConfig(**base, experts=experts, experts_per_token=k,
                            attention_bias=bool(raw.get("attention_bias", model_type == "qwen2")),
                            model_type=model_type, family="llama",
                            windows=((window, layers),) if windowed else ())
    notes = [note_mlp(gated, why), *f.notes]
    return replace(cfg, notes=tuple(notes)), f.problems


FAMILY = Family(N_("Llama-style decoder (Llama, Mistral, Mixtral, Qwen2, Phi-3)"), (), read)
