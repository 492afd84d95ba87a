"""GPT-2: LayerNorm with a bias, biases on every matrix, learned positions, a plain MLP (up and
down), and its own field names (n_embd, n_layer, n_head, n_positions, n_inner)."""

from __future__ import annotations

from roofline_gui.core.families.common import Family, dense_fields, note_mlp
from roofline_gui.core.i18n import N_
from roofline_gui.core.model_config import Fields, TransformerConfig


def read(raw, path):
    f = Fields(raw, path)
    base = dense_fields(f, gated=False)
    positions = f.whole("n_positions", "max_position_embeddings", default=0) or 0
    f.note_unknown()
    cfg = TransformerConfig(**base, gpt2=True, positions=positions, model_type="gpt2",
                            family="gpt2",
                            notes=(note_mlp(False, "model_type 'gpt2'"), *f.notes))
    return cfg, f.problems


FAMILY = Family(N_("GPT-2"), ("gpt2",), read,
                dialog_fields=("n_embd", "n_layer", "n_head", "n_positions", "vocab_size"),
                recognise=lambda raw: raw.get("model_type") == "gpt2" or "n_embd" in raw)
