"""Qwen3 (dense, with per-head query and key norms) and Qwen3-MoE / Qwen2-MoE: many small routed
experts in every ``decoder_sparse_step``-th layer not listed in ``mlp_only_layers`` (Qwen2-MoE
adds a shared expert behind a gate)."""

from __future__ import annotations

from roofline_gui.core.families.common import Family, dense_fields, experts_fields, note_mlp
from roofline_gui.core.i18n import N_, _
from roofline_gui.core.model_config import Fields, TransformerConfig, check_window


def read(raw, path):
    f = Fields(raw, path)
    model_type = str(raw.get("model_type", ""))
    base = dense_fields(f, gated=True)
    layers = base["layers"]
    experts, k = experts_fields(f, "num_experts")
    width = f.whole("moe_intermediate_size", default=base["intermediate"])
    step = f.whole("decoder_sparse_step", default=1) or 1
    only = f.get("mlp_only_layers", [])
    if not isinstance(only, list) or not all(isinstance(i, int) and 0 <= i < layers for i in only):
        f.fail("mlp_only_layers", _("must list layer numbers from 0 to {last}").format(
            last=layers - 1))
        only = []
    moe_layers = (sum(1 for i in range(layers) if i not in only and (i + 1) % step == 0)
                  if experts > 1 else 0)
    shared_width = f.whole("shared_expert_intermediate_size", default=0, minimum=0) or 0
    positions = f.whole("max_position_embeddings", required=False)
    window = check_window(f, f.get("sliding_window"), positions)
    windowed = window is not None and f.get("use_sliding_window", False) is True
    f.note_unknown()
    notes = [note_mlp(True, f"model_type {model_type!r}")]
    if experts > 1:
        notes.append((_("{moe} of {layers} layers have experts ({experts} routed, {k} per "
                        "token, width {width}, one shared of width {shared})") if shared_width
                      else _("{moe} of {layers} layers have experts ({experts} routed, {k} per "
                             "token, width {width})")).format(
            moe=moe_layers, layers=layers, experts=experts, k=k, width=width,
            shared=shared_width))
    if shared_width:
        notes.append(_("the shared expert's gate (hidden values per layer) is left out of the "
                       "count"))
    cfg = TransformerConfig(**base, experts=experts, experts_per_token=k,
                            attention_bias=f.flag("attention_bias", model_type == "qwen2_moe"),
                            model_type=model_type,
                            family="qwen3", expert_intermediate=width,
                            shared_experts=1 if shared_width else 0,
                            shared_intermediate=shared_width, moe_layer_count=moe_layers,
                            qk_norm=model_type.startswith("qwen3"),
                            windows=((window, layers),) if windowed else (),
                            notes=(*notes, *f.notes))
    return cfg, f.problems


FAMILY = Family(N_("Qwen3 / Qwen3-MoE / Qwen2-MoE (fine-grained experts)"),
                ("qwen3", "qwen3_moe", "qwen2_moe"), read,
                dialog_fields=("hidden_size", "num_hidden_layers", "num_experts",
                               "num_experts_per_tok", "moe_intermediate_size",
                               "num_key_value_heads", "head_dim"))
