"""A transformer language model as its ``config.json`` describes it, read into one shape that
the shared builder (:mod:`roofline_gui.core.build`) turns into kernels.

Every family's reader (:mod:`roofline_gui.core.families`) fills a :class:`TransformerConfig`:
the layers' attention (grouped-query heads, or DeepSeek's multi-head latent attention), which
layers attend a sliding window and how wide, which layers are dense and which a mixture of
experts (routed and shared), and the small parts the parameter count needs (biases, norms,
attention sinks). :class:`Fields` is what every reader reads with: it names each missing or bad
field, and each field it was not told about (in a note, never silently).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from roofline_gui.core.errors import Problem
from roofline_gui.core.i18n import N_, _

#: Fields that never change what a model computes or stores per token: tokenizer ids, dtypes,
#: initialisation, dropout, positional-encoding details, bookkeeping. Read silently.
SILENT = frozenset({
    "architectures", "auto_map", "bos_token_id", "eos_token_id", "pad_token_id", "torch_dtype",
    "transformers_version", "use_cache", "initializer_range", "rms_norm_eps", "layer_norm_eps",
    "layer_norm_epsilon", "rope_theta", "rope_scaling", "rope_type", "attention_dropout",
    "hidden_dropout", "resid_pdrop", "embd_pdrop", "attn_pdrop", "summary_type",
    "summary_use_proj", "summary_activation", "summary_proj_to_labels", "summary_first_dropout",
    "task_specific_params", "_name_or_path", "model_type", "hidden_act", "activation_function",
    "tie_word_embeddings", "pretraining_tp", "router_aux_loss_coef", "output_router_logits",
    "router_jitter_noise", "norm_topk_prob", "scoring_func", "topk_method", "aux_loss_alpha",
    "seq_aux", "routed_scaling_factor", "n_group", "topk_group", "ep_size",
    "num_nextn_predict_layers", "max_window_layers", "use_sliding_window", "bias",
    "scale_attn_weights", "reorder_and_upcast_attn", "scale_attn_by_inverse_layer_idx",
    "n_ctx", "swiglu_limit", "initial_context_length", "query_pre_attn_scalar",
    "final_logit_softcapping", "attn_logit_softcapping", "cache_implementation",
    "rope_local_base_freq", "attn_implementation", "attention_chunk_size", "use_qk_norm",
    "attn_temperature_tuning", "attn_scale", "floor_scale", "output_attentions",
    "output_hidden_states", "for_llm_compressor", "moe_layers", "router_dtype", "dtype",
    "head_dim", "quantization_config", "sliding_window", "layer_types", "no_rope_layers",
    "vocab_size", "max_position_embeddings", "n_positions",
})


@dataclass(frozen=True)
class MLA:
    """Multi-head latent attention (DeepSeek-V2/V3): keys and values are stored compressed, one
    latent of ``kv_lora_rank`` values and one shared rotary key of ``qk_rope`` values per token
    and layer, and expanded per head by up-projections."""

    q_lora_rank: int  # 0: the queries are projected directly (DeepSeek-V2-Lite)
    kv_lora_rank: int
    qk_nope: int
    qk_rope: int
    v_head_dim: int

    @property
    def cache_values(self) -> int:
        """Values cached per token and layer: the latent and the rotary key."""
        return self.kv_lora_rank + self.qk_rope

    @property
    def qk_dim(self) -> int:
        return self.qk_nope + self.qk_rope


@dataclass(frozen=True)
class TransformerConfig:
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int  # a dense layer's MLP width
    gated: bool
    vocab: int
    tied: bool
    experts: int = 1  # routed experts per MoE layer (1: a dense model)
    experts_per_token: int = 1
    attention_bias: bool = False  # biases on Q, K and V
    gpt2: bool = False  # LayerNorm with bias, biases on every matrix, learned positions
    positions: int = 0  # learned position embeddings (GPT-2)
    model_type: str = ""
    notes: tuple[str, ...] = field(default=())
    family: str = ""
    expert_intermediate: int = 0  # a routed expert's width (0: ``intermediate``)
    shared_experts: int = 0  # experts every token goes through, per MoE layer
    shared_intermediate: int = 0  # one shared expert's width (0: ``expert_intermediate``)
    moe_layer_count: int = -1  # layers with experts (-1: all of them when experts > 1)
    #: (window, layers) per kind of attention layer; window 0 attends the whole context
    windows: tuple[tuple[int, int], ...] = ()
    window_kind: str = N_("sliding window")  # or "chunk" (Llama 4's chunked attention)
    mla: MLA | None = None
    o_bias: bool = False  # a bias on the output projection (gpt-oss)
    qk_norm: bool = False  # RMSNorm on each head's query and key (Qwen3, Gemma 3)
    sinks: bool = False  # one learned attention sink per head and layer (gpt-oss)
    expert_bias: bool = False  # biases on the experts' matrices (gpt-oss)
    router_bias: bool = False
    norms_per_layer: int = 2  # Gemma 2 and 3 norm before and after each block: 4
    #: parts the checkpoint keeps at 16 bits when its weights are block-scaled
    #: ("attention", "router", "embedding", "head"; gpt-oss's modules_to_not_convert)
    not_converted: frozenset[str] = frozenset()
    quantized: str = ""  # the checkpoint's own weight format ("mxfp4", "fp8"), "" if none
    #: whether the model card's active count includes the input embedding (a lookup)
    card_counts_embedding: bool = True
    #: DeepSeek's multi-token prediction modules (num_nextn_predict_layers), beside the model
    mtp_layers: int = 0

    # -- the layers ------------------------------------------------------------------------
    @property
    def moe(self) -> bool:
        return self.experts > 1

    @property
    def moe_layers(self) -> int:
        if not self.moe:
            return 0
        return self.layers if self.moe_layer_count < 0 else self.moe_layer_count

    @property
    def dense_layers(self) -> int:
        return self.layers - self.moe_layers

    @property
    def expert_width(self) -> int:
        return self.expert_intermediate or self.intermediate

    @property
    def shared_width(self) -> int:
        return self.shared_intermediate or self.expert_width

    @property
    def attention_groups(self) -> tuple[tuple[int, int], ...]:
        """(window, layers) for each kind of attention layer, window 0 for full attention."""
        return self.windows or ((0, self.layers),)

    @property
    def qkv_width(self) -> int:
        return (self.heads + 2 * self.kv_heads) * self.head_dim

    # -- parameters ------------------------------------------------------------------------
    def attention_parameters(self) -> float:
        """One layer's attention weights."""
        h, H = self.hidden, self.heads
        if self.mla:
            m = self.mla
            q = (h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * H * m.qk_dim
                 if m.q_lora_rank else h * H * m.qk_dim)
            kv = h * m.cache_values + m.kv_lora_rank + m.kv_lora_rank * H * (m.qk_nope + m.v_head_dim)
            return q + kv + H * m.v_head_dim * h
        q, width = H * self.head_dim, self.qkv_width
        out = h * width + q * h
        if self.attention_bias or self.gpt2:
            out += width
        if self.o_bias or self.gpt2:
            out += h
        if self.qk_norm:
            out += 2 * self.head_dim
        if self.sinks:
            out += H
        return out

    def mlp_parameters(self, width: int, routed: bool = False) -> float:
        """One MLP (a dense layer's, or one expert's) of the given width."""
        h = self.hidden
        matrices = 3 if self.gated else 2
        out = matrices * h * width
        if self.gpt2:
            out += width + h
        if routed and self.expert_bias:
            out += (matrices - 1) * width + h
        return out

    def router_parameters(self) -> float:
        return self.hidden * self.experts + (self.experts if self.router_bias else 0)

    def parameters(self) -> dict[str, float]:
        """Weights by part, as the model's checkpoint holds them."""
        return dict(self._parts)

    @cached_property
    def _parts(self) -> dict[str, float]:
        """Counted once per config: every build of a workload asks again (a serving bound
        builds 33 variants of one model)."""
        h = self.hidden
        expert = self.mlp_parameters(self.expert_width, routed=True)
        shared = self.shared_experts * self.mlp_parameters(self.shared_width)
        routed = self.experts * expert * self.moe_layers
        mlp = (self.mlp_parameters(self.intermediate) * self.dense_layers
               + (routed + shared * self.moe_layers + self.router_parameters() * self.moe_layers
                  if self.moe else 0))
        norms = (4 if self.gpt2 else self.norms_per_layer) * h
        embed = self.vocab * h + self.positions * h
        head = 0 if self.tied else self.vocab * h
        final = (2 if self.gpt2 else 1) * h
        return {"attention": self.attention_parameters() * self.layers, "mlp": mlp,
                "norms": norms * self.layers + final, "embedding": embed, "head": head,
                "expert": expert, "routed": routed, "shared": shared * self.moe_layers,
                "router": self.router_parameters() * self.moe_layers if self.moe else 0}

    def total_parameters(self) -> float:
        p = self._parts
        return p["attention"] + p["mlp"] + p["norms"] + p["embedding"] + p["head"]

    def active_parameters(self) -> float:
        """Weights one token uses: all but the routed experts it is not sent to (the input
        embedding's table counted whole, as the dense models' cards count it)."""
        p = self._parts
        idle = (self.experts - self.experts_per_token) * p["expert"] * self.moe_layers
        return self.total_parameters() - idle

    def card_active_parameters(self) -> float:
        """Active parameters as the model card counts them: some cards leave out the input
        embedding (a lookup, not a matmul)."""
        lookup = 0 if self.card_counts_embedding else self.vocab * self.hidden
        return self.active_parameters() - lookup

    def mtp_parameters(self) -> float:
        """One multi-token prediction module as the checkpoint holds it (DeepSeek-V3): a
        projection of the embedding and the hidden state (2·h·h) with a norm for each, one
        more transformer block (an MoE layer), and its own copy of the embedding and the head."""
        h = self.hidden
        block = (self.attention_parameters() + self.experts * self.mlp_parameters(
            self.expert_width, routed=True) + self.shared_experts * self.mlp_parameters(
            self.shared_width) + self.router_parameters() + self.norms_per_layer * h)
        return 2 * h * h + 2 * h + block + 2 * self.vocab * h + h


class Fields:
    """Reading one config: each missing or bad field becomes a Problem naming it; each field the
    reader was not told about becomes a note."""

    def __init__(self, raw: Mapping[str, Any], path: str = "config"):
        self.raw, self.path = raw, path
        self.problems: list[Problem] = []
        self.notes: list[str] = []
        self.read: set[str] = set()

    def has(self, name: str) -> bool:
        return name in self.raw and self.raw[name] is not None

    def get(self, name: str, default: Any = None) -> Any:
        self.read.add(name)
        value = self.raw.get(name)
        return default if value is None else value

    def whole(self, *names: str, default: Any = None, required: bool = True,
              minimum: int = 1) -> int | None:
        """The first of ``names`` present, a whole number of at least ``minimum``."""
        self.read.update(names)
        for name in names:
            if self.has(name):
                value = self.raw[name]
                if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                        value != int(value) or value < minimum or value > 10**9:
                    self.fail(name, _("must be a whole number from {minimum} up, not "
                                      "{value}").format(minimum=minimum, value=repr(value)))
                    return None
                return int(value)
        if default is not None:
            return default
        if required:
            self.fail(names[0], _("is required"))
        return None

    def flag(self, name: str, default: bool = False) -> bool:
        self.read.add(name)
        value = self.raw.get(name)
        return default if value is None else bool(value)

    def strings(self, name: str) -> list[str] | None:
        """A list of strings, or None where the field is absent."""
        self.read.add(name)
        value = self.raw.get(name)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(name, _("must be a list of names, not {value}").format(value=repr(value)))
            return None
        return value

    def fail(self, name: str, message: str) -> None:
        self.problems.append(Problem(f"{self.path}.{name}", message))

    def refuse(self, name: str, why: str) -> None:
        """A field that changes the count and is not modelled: refused by name."""
        self.fail(name, _("is not modelled: {why}").format(why=why))

    def note_unknown(self, also_known: Iterable[str] = ()) -> None:
        """Name, in a note, each field neither read nor known to change nothing."""
        known = SILENT | self.read | set(also_known)
        unknown = sorted(k for k in self.raw if k not in known and not k.startswith("_"))
        if unknown:
            self.notes.append(_("fields not read (they do not change the count as far as this "
                                "reader knows): {fields}").format(fields=", ".join(unknown)))


def windows_from_layer_types(fields: Fields, layers: int, window: int | None,
                             sliding: str = "sliding_attention") -> tuple[tuple[int, int], ...]:
    """(window, layers) groups from a ``layer_types`` list ("sliding_attention" and
    "full_attention" per layer), as gpt-oss and newer Gemma configs give it."""
    types = fields.strings("layer_types")
    if types is None:
        return ()
    if len(types) != layers:
        fields.fail("layer_types", _("names {n} layers; the model has {layers}").format(
            n=len(types), layers=layers))
        return ()
    odd = sorted({t for t in types if t not in (sliding, "full_attention")})
    if odd:
        fields.refuse("layer_types", _("layer kinds {kinds} (known: {sliding}, "
                                       "full_attention)").format(kinds=", ".join(odd),
                                                                 sliding=sliding))
        return ()
    n_sliding = sum(t == sliding for t in types)
    if n_sliding and not window:
        fields.fail("sliding_window", _("{n} layers are sliding_attention but no window is "
                                        "given").format(n=n_sliding))
        return ()
    return tuple((w, n) for w, n in ((window or 0, n_sliding), (0, layers - n_sliding)) if n)


def check_window(fields: Fields, window: Any, positions: int | None) -> int | None:
    """A sliding window: a whole number of tokens from 1 to the model's positions."""
    if window is None:
        return None
    if isinstance(window, bool) or not isinstance(window, (int, float)) or window != int(window) \
            or window < 1:
        fields.fail("sliding_window", _("must be a whole number of tokens from 1 up, not "
                                        "{value}").format(value=repr(window)))
        return None
    if positions and window > positions:
        fields.fail("sliding_window", _("{window} tokens is beyond the model's {positions} "
                                        "positions (max_position_embeddings)").format(
            window=int(window), positions=positions))
        return None
    return int(window)
