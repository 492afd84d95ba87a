"""Gemma 2 and 3: a gated GELU MLP, a norm before and after each block, and local layers with a
sliding window beside global ones (Gemma 2: every other layer, 4,096 tokens; Gemma 3: five of
every six, 1,024). A Gemma 3 config's language model is its ``text_config``; fields it leaves
out take transformers' defaults for the model type, named in a note."""

from __future__ import annotations

from roofline_gui.core.families.common import Family, dense_fields, note_mlp, text_part
from roofline_gui.core.i18n import N_, _
from roofline_gui.core.model_config import (
    Fields,
    TransformerConfig,
    check_window,
    windows_from_layer_types,
)

#: transformers' defaults where a Gemma 3 file leaves a field out (Gemma3TextConfig).
_DEFAULTS = {"gemma3_text": {"vocab_size": 262208, "head_dim": 256,
                             "sliding_window_pattern": 6, "max_position_embeddings": 131072},
             "gemma2": {"head_dim": 256}}


def read(raw, path):
    text, prefix = text_part(raw)
    model_type = str(text.get("model_type", raw.get("model_type", "")))
    if model_type == "gemma3":
        model_type = "gemma3_text"
    defaults = {k: v for k, v in _DEFAULTS.get(model_type, {}).items() if k not in text}
    f = Fields({**defaults, **text}, path + ("." + prefix.rstrip(".") if prefix else ""))
    base = dense_fields(f, gated=True)
    layers = base["layers"]
    positions = f.whole("max_position_embeddings", required=False)
    window = check_window(f, f.get("sliding_window"), positions)
    windows = windows_from_layer_types(f, layers, window)
    if not windows and window:
        if model_type == "gemma2":
            local = sum(1 for i in range(layers) if i % 2 == 0)
        else:
            pattern = f.whole("sliding_window_pattern", default=6) or 6
            local = sum(1 for i in range(layers) if (i + 1) % pattern != 0)
        windows = tuple((w, n) for w, n in ((window, local), (0, layers - local)) if n)
    f.read.add("sliding_window_pattern")
    f.note_unknown({"mm_tokens_per_image"})
    notes = [note_mlp(True, f"model_type {model_type!r}"),
             _("four norms a layer (before and after attention and the MLP)")]
    if defaults:
        notes.append(_("not in the file, taken from transformers' defaults for {model}: "
                       "{fields}").format(model=model_type, fields=", ".join(
                           f"{k} {v}" for k, v in defaults.items())))
    if prefix:
        notes.append(_("the language model of a multimodal config (text_config); the vision "
                       "encoder is not counted"))
    cfg = TransformerConfig(**base, model_type=model_type, family="gemma", windows=windows,
                            norms_per_layer=4, qk_norm=model_type == "gemma3_text",
                            notes=(*notes, *f.notes))
    return cfg, f.problems


FAMILY = Family(N_("Gemma 2 / 3 (local and global layers)"), ("gemma2", "gemma3", "gemma3_text"),
                read, dialog_fields=("hidden_size", "num_hidden_layers", "sliding_window",
                                     "head_dim", "vocab_size"))
