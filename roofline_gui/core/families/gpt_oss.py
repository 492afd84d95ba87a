"""gpt-oss: a mixture of experts with biases, attention sinks, and layers that alternate a
sliding window of 128 tokens with full attention; the experts ship in MXFP4 while the attention,
router, embedding and head stay at 16 bits (``quantization_config.modules_to_not_convert``)."""

from __future__ import annotations

from roofline_gui.core.families.common import Family, dense_fields, experts_fields, note_mlp
from roofline_gui.core.i18n import N_, _
from roofline_gui.core.model_config import (
    Fields,
    TransformerConfig,
    check_window,
    windows_from_layer_types,
)

#: modules_to_not_convert patterns, by the part of the model they name.
_PARTS = {"self_attn": "attention", "router": "router", "embed_tokens": "embedding",
          "lm_head": "head"}


def read(raw, path):
    f = Fields(raw, path)
    base = dense_fields(f, gated=True)
    experts, k = experts_fields(f, "num_local_experts", ("num_experts_per_tok",
                                                          "experts_per_token"))
    f.read.add("experts_per_token")
    positions = f.whole("max_position_embeddings", required=False)
    window = check_window(f, f.get("sliding_window"), positions)
    windows = windows_from_layer_types(f, base["layers"], window)
    quant = f.get("quantization_config", {})
    method, kept = "", frozenset()
    if isinstance(quant, dict) and quant:
        method = str(quant.get("quant_method", ""))
        patterns = quant.get("modules_to_not_convert", [])
        kept = frozenset(part for pattern in patterns if isinstance(pattern, str)
                         for key, part in _PARTS.items() if key in pattern)
    f.note_unknown()
    notes = [note_mlp(True, "model_type 'gpt_oss'"),
             _("attention sinks (one learned value per head and layer) and biases on Q, K, V, "
               "the output projection, the router and the experts are counted"),
             _("active parameters as OpenAI's model card counts them: without the input "
               "embedding (a lookup), with the unembedding")]
    if method:
        notes.append(_("the checkpoint ships its experts in {method}; {parts} stay at 16 bits "
                       "(modules_to_not_convert): with weights in a block format, those parts "
                       "are read at bf16").format(method=method, parts=", ".join(sorted(kept))))
    cfg = TransformerConfig(**base, experts=experts, experts_per_token=k, attention_bias=True,
                            o_bias=True, sinks=True, expert_bias=True, router_bias=True,
                            model_type="gpt_oss", family="gpt_oss", windows=windows,
                            not_converted=kept, quantized=method, card_counts_embedding=False,
                            notes=(*notes, *f.notes))
    return cfg, f.problems


FAMILY = Family(N_("gpt-oss (sliding windows, MXFP4 experts)"), ("gpt_oss",), read,
                dialog_fields=("hidden_size", "num_hidden_layers", "num_local_experts",
                               "num_experts_per_tok", "sliding_window", "head_dim"))
