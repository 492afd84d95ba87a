"""What every family's reader shares: the :class:`Family` record and the fields of a plain
decoder (hidden size, layers, heads, grouped KV heads, MLP width, vocabulary)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from roofline_gui.core.errors import Problem
from roofline_gui.core.i18n import _
from roofline_gui.core.model_config import Fields, TransformerConfig

Reader = Callable[[Mapping[str, Any], str], tuple[TransformerConfig, list[Problem]]]

#: The fields the New Workload dialog shows for a plain decoder.
DENSE_FIELDS = ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
                "intermediate_size", "vocab_size")


@dataclass(frozen=True)
class Family:
    name: str  # what the user reads: "DeepSeek-V3 (MLA, routed and shared experts)"
    model_types: tuple[str, ...]  # the config's model_type values it reads ("" : any other)
    read: Reader
    dialog_fields: tuple[str, ...] = DENSE_FIELDS
    unit: str = "tokens"
    recognise: Callable[[Mapping[str, Any]], bool] | None = None

    def recognises(self, raw: Mapping[str, Any]) -> bool:
        if self.recognise is not None:
            return self.recognise(raw)
        return str(raw.get("model_type", "")) in self.model_types or not self.model_types


def text_part(raw: Mapping[str, Any]) -> tuple[Mapping[str, Any], str]:
    """A multimodal config's language model (``text_config``), or the config itself; and the
    path prefix its fields are named by."""
    inner = raw.get("text_config")
    if isinstance(inner, Mapping):
        return inner, "text_config."
    return raw, ""


def dense_fields(f: Fields, gated: bool, tied: bool = True) -> dict[str, Any]:
    """The fields every decoder has, checked: hidden, layers, heads, KV heads, head_dim,
    intermediate, vocabulary, tied head (``tied``: where the config does not say)."""
    f.read.add("attention_bias")  # each family says what its attention biases are
    hidden = f.whole("hidden_size", "n_embd", "d_model")
    layers = f.whole("num_hidden_layers", "n_layer", "num_layers")
    heads = f.whole("num_attention_heads", "n_head")
    kv_heads = f.whole("num_key_value_heads", default=heads or 1)
    vocab = f.whole("vocab_size")
    intermediate = f.whole("intermediate_size", "n_inner", "ffn_dim",
                           default=4 * hidden if hidden else None)
    head_dim = f.whole("head_dim", required=False)
    if hidden and heads and head_dim is None:
        if hidden % heads:
            f.fail("num_attention_heads", _("{heads} heads do not divide hidden_size {hidden} "
                                            "(give head_dim if the model sets it)").format(
                heads=heads, hidden=hidden))
        head_dim = hidden // heads
    if heads and kv_heads and heads % kv_heads:
        f.fail("num_key_value_heads", _("{kv_heads} KV heads do not divide {heads} query "
                                        "heads").format(kv_heads=kv_heads, heads=heads))
    return dict(hidden=hidden or 1, layers=layers or 1, heads=heads or 1, kv_heads=kv_heads or 1,
                head_dim=head_dim or 1, intermediate=intermediate or 1, gated=gated,
                vocab=vocab or 1, tied=f.flag("tie_word_embeddings", tied))


def experts_fields(f: Fields, experts_key: str | tuple[str, ...],
                   per_token_key: str | tuple[str, ...] = "num_experts_per_tok") -> tuple[int, int]:
    """Routed experts E and experts per token k, checked (k ≤ E)."""
    keys = (experts_key,) if isinstance(experts_key, str) else experts_key
    per = (per_token_key,) if isinstance(per_token_key, str) else per_token_key
    experts = f.whole(*keys, default=1) or 1
    k = f.whole(*per, default=1) or 1
    if k > experts:
        f.fail(per[0], _("{k} experts per token is more than the {experts} experts").format(
            k=k, experts=experts))
    return experts, k


def note_mlp(gated: bool, why: str) -> str:
    return (_("MLP: gated (gate, up, down: 3 matrices) from {why}") if gated else
            _("MLP: plain (up, down) from {why}")).format(why=why)
