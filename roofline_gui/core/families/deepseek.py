"""DeepSeek-V2 and V3 (and R1, which is V3's architecture): multi-head latent attention, and a
mixture of many small routed experts plus shared experts every token uses, after a few dense
layers."""

from __future__ import annotations

from roofline_gui.core.families.common import Family, dense_fields, experts_fields, note_mlp
from roofline_gui.core.i18n import N_, _
from roofline_gui.core.model_config import MLA, Fields, TransformerConfig


def read(raw, path):
    f = Fields(raw, path)
    base = dense_fields(f, gated=True)
    experts, k = experts_fields(f, "n_routed_experts")
    shared = f.whole("n_shared_experts", default=0, minimum=0) or 0
    width = f.whole("moe_intermediate_size", default=base["intermediate"])
    first_dense = f.whole("first_k_dense_replace", default=0, minimum=0) or 0
    freq = f.whole("moe_layer_freq", default=1) or 1
    layers = base["layers"]
    if first_dense > layers:
        f.fail("first_k_dense_replace", _("{dense} dense layers of {layers}").format(
            dense=first_dense, layers=layers))
    moe_layers = sum(1 for i in range(layers) if i >= first_dense and i % freq == 0) \
        if experts > 1 else 0
    q_rank = f.whole("q_lora_rank", default=0, minimum=0) or 0
    mla = MLA(q_rank, f.whole("kv_lora_rank") or 1, f.whole("qk_nope_head_dim") or 1,
              f.whole("qk_rope_head_dim") or 1, f.whole("v_head_dim") or 1)
    mtp = f.whole("num_nextn_predict_layers", default=0, minimum=0) or 0
    quant = f.get("quantization_config", {})
    method = str(quant.get("quant_method", "")) if isinstance(quant, dict) else ""
    f.note_unknown()
    notes = [note_mlp(True, f"model_type {raw.get('model_type')!r}"),
             _("multi-head latent attention: {rank} + {rope} = {values} values cached per token "
               "and layer (a latent and a shared rotary key), where plain attention over {heads} "
               "heads would cache 2·{heads}·{qk} = {plain}").format(
                 rank=mla.kv_lora_rank, rope=mla.qk_rope, values=mla.cache_values,
                 heads=base["heads"], qk=mla.qk_dim, plain=2 * base["heads"] * mla.qk_dim),
             _("{moe} of {layers} layers have experts ({experts} routed, {k} per token, {shared} "
               "shared, width {width}); the other {dense} are dense (width {dense_width})").format(
                 moe=moe_layers, layers=layers, experts=experts, k=k, shared=shared, width=width,
                 dense=layers - moe_layers, dense_width=base["intermediate"])]
    if mtp:
        notes.append(_("num_nextn_predict_layers {mtp}: the multi-token prediction module is in "
                       "the checkpoint; counted and held only with the workload's MTP option "
                       "(off by default, as the published parameter count leaves it "
                       "out)").format(mtp=mtp))
    if method:
        notes.append((_("the checkpoint ships its weights in {method} (blocks of 128×128 with a "
                        "scale each): give weights {method} to read them as published")
                      if method == "fp8" else
                      _("the checkpoint ships its weights in {method}: give weights {method} to "
                        "read them as published")).format(method=method))
    # head_dim stands for the attention's width per head where a formula needs one number (the
    # training FLOPs' 12·L·H·Q·T): the mean of the query-key and the value widths.
    base = {**base, "kv_heads": base["heads"], "head_dim": (mla.qk_dim + mla.v_head_dim) // 2}
    cfg = TransformerConfig(**base, experts=experts, experts_per_token=k,
                            model_type=str(raw.get("model_type", "")), family="deepseek",
                            expert_intermediate=width, shared_experts=shared,
                            moe_layer_count=moe_layers, mla=mla,
                            quantized=method, mtp_layers=mtp, notes=(*notes, *f.notes))
    return cfg, f.problems


FAMILY = Family(N_("DeepSeek-V2/V3 (latent attention, routed and shared experts)"),
                ("deepseek_v2", "deepseek_v3", "kimi_k2"), read,
                dialog_fields=("hidden_size", "num_hidden_layers", "first_k_dense_replace",
                               "n_routed_experts", "n_shared_experts", "num_experts_per_tok",
                               "moe_intermediate_size", "kv_lora_rank", "qk_rope_head_dim"))
