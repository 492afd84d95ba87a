"""Llama 4 (Scout, Maverick): experts in every ``interleave_moe_layer_step``-th layer, each MoE
layer with one shared expert beside the routed ones; dense layers of ``intermediate_size_mlp``;
chunked attention (``attention_chunk_size``) in the layers with rotary positions, full attention
in every fourth (no_rope_layers). The language model is the config's ``text_config``."""

from __future__ import annotations

from roofline_gui.core.families.common import Family, dense_fields, experts_fields, note_mlp, text_part
from roofline_gui.core.i18n import N_, _
from roofline_gui.core.model_config import Fields, TransformerConfig


def read(raw, path):
    text, prefix = text_part(raw)
    f = Fields(text, path + ("." + prefix.rstrip(".") if prefix else ""))
    # transformers' Llama4Config: an untied head unless the file says otherwise
    tied = raw.get("tie_word_embeddings", text.get("tie_word_embeddings", False))
    base = dense_fields(f, gated=True, tied=bool(tied))
    layers = base["layers"]
    experts, k = experts_fields(f, "num_local_experts")
    step = f.whole("interleave_moe_layer_step", default=1) or 1
    moe_layers = sum(1 for i in range(layers) if (i + 1) % step == 0) if experts > 1 else 0
    dense_width = f.whole("intermediate_size_mlp", default=base["intermediate"])
    chunk = f.whole("attention_chunk_size", required=False)
    rope = f.get("no_rope_layers")
    if not (isinstance(rope, list) and len(rope) == layers):
        rope = [int((i + 1) % 4 != 0) for i in range(layers)]  # transformers' default
    chunked = sum(1 for r in rope if r) if chunk else 0
    windows = tuple((w, n) for w, n in ((chunk or 0, chunked), (0, layers - chunked)) if n)
    f.note_unknown()
    notes = [note_mlp(True, "model_type 'llama4'"),
             _("{moe} of {layers} layers have experts ({experts} routed, {k} per token, and one "
               "shared expert, width {width}); dense layers have width {dense_width}").format(
                 moe=moe_layers, layers=layers, experts=experts, k=k, width=base["intermediate"],
                 dense_width=dense_width)]
    if chunked:
        notes.append(_("{chunked} layers attend within chunks of {chunk} tokens (counted as a "
                       "window of {chunk}: at most that many; fewer early in each chunk), {full} "
                       "attend the whole context").format(chunked=chunked, chunk=chunk,
                                                          full=layers - chunked))
    if prefix:
        notes.append(_("the language model of a multimodal config (text_config); the vision "
                       "encoder is not counted"))
    base = {**base, "intermediate": dense_width}
    cfg = TransformerConfig(**base, experts=experts, experts_per_token=k, model_type="llama4",
                            family="llama4", expert_intermediate=f.raw.get("intermediate_size")
                            or dense_width, shared_experts=1 if experts > 1 else 0,
                            moe_layer_count=moe_layers, windows=windows, window_kind=N_("chunk"),
                            notes=(*notes, *f.notes))
    return cfg, f.problems


FAMILY = Family(N_("Llama 4 (interleaved experts with a shared expert, chunked attention)"),
                ("llama4", "llama4_text"), read,
                dialog_fields=("hidden_size", "num_hidden_layers", "num_local_experts",
                               "num_experts_per_tok", "interleave_moe_layer_step",
                               "attention_chunk_size"))
