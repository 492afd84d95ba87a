"""The shared transformer builder: any family's :class:`TransformerConfig` into entries (a
sized kernel per layer type, its count, and its formula with the numbers filled in).

What each kind of layer costs, per step and per chip (N chips share the model by tensor
parallelism; e of them also split the experts):
- attention as the config defines it: grouped-query heads, each layer over the whole context or
  a sliding window (min(L, window) tokens held and read); or DeepSeek's multi-head latent
  attention, its cache compressed to ``kv_lora_rank + qk_rope`` values per token and layer, run
  expanded in prefill and absorbed in decode (the key and value up-projections folded into the
  query and the output, so decode reads only the latent cache);
- dense MLPs; and mixture-of-experts layers: a router, the routed experts a step's tokens touch,
  E·(1 − (1 − k/E)^T) of E under uniform routing (the busiest chip × the imbalance factor), and
  shared experts every token uses;
- the link: tensor parallelism's all-reduces and expert parallelism's all-to-all.

Conventions, as the kernel templates have them: ops count every add and multiply (1 MAC = 2 ops);
bytes are compulsory main-memory traffic (every weight read once per step, activations read and
written once between kernels, as if each kernel were fused and caches were perfect).
"""

from __future__ import annotations

from roofline_gui.core.errors import Problem, ValidationError
from roofline_gui.core.families import read_config
from roofline_gui.core.i18n import N_, _, ngettext
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.model_config import TransformerConfig
from roofline_gui.core.units import BLOCK_FORMATS, BYTES_PER_VALUE, FORMAT_WORDS, compute_precision
from roofline_gui.core.units import format_bytes as _b  # short: formulas are full of them
from roofline_gui.core.units import format_count as _g
from roofline_gui.core.workload import ON_CHIP_KINDS, Built, Entry, Workload, parameters_text

#: the roles a block-scaled format can hold, translated where a note names them
PART_WORDS = {"attention": N_("attention"), "experts": N_("experts"), "mlp": N_("MLP"),
              "router": N_("router"), "embedding": N_("embedding"), "head": N_("LM head"),
              "norms": N_("norms")}
ROLE_WORDS = {"weights": N_("weights"), "activations": N_("activations"),
              "KV cache": N_("KV cache")}


def make_entry(workload: Workload, index: int, name: str, group: str, count: float, ops: float,
               reads: float, writes: float, steps: list[str], weight_bytes: float = 0.0,
               attention_core: bool = False) -> Entry:
    """One entry: a kernel of ``ops`` reading ``reads`` and writing ``writes`` bytes of main
    memory (activations on chip for the kinds that can keep them there)."""
    nbytes, written = {"dram": reads + writes}, {"dram": writes}
    if workload.activations_on_chip and workload.kind in ON_CHIP_KINDS:
        acts = reads - weight_bytes + writes  # activations read and written
        nbytes, written = {"dram": weight_bytes, "cache": acts}, {"cache": writes}
        steps = [*steps, _("activations on chip: {acts} read and written at the on-chip level, "
                           "only the weights ({weights}) cross main memory: {reuse} op per "
                           "weight byte").format(
            acts=_b(acts), weights=_b(weight_bytes),
            reuse=_g(ops / weight_bytes) if weight_bytes else "∞")]
    kernel = Kernel(
        id=f"{workload.id}/{index}", name=name,
        precision=compute_precision(workload.activations),
        category=f"workload: {workload.name}", flops=ops,
        bytes=nbytes, write_bytes=written, notes="\n".join(steps),
    )
    return Entry(kernel, count, group, tuple(steps), weight_bytes, attention_core)


def experts_touched(experts: int, per_token: int, tokens: float) -> float:
    """Expected distinct experts n tokens are routed to, k of E each, routing uniform:
    E·(1 − (1 − k/E)^n)."""
    return experts * (1 - (1 - per_token / experts) ** tokens)


def attended_pairs(length: int, window: int, full_square: bool) -> float:
    """Query-key pairs a sequence of ``length`` attends: causal, S²/2, or S·W − W²/2 with a
    window of W < S; the full square (training's count) S·min(S, W)."""
    w = min(window, length) if window else length
    if full_square:
        return float(length) * w
    if w >= length:
        return length * length / 2
    return length * w - w * w / 2


def _problems(w: Workload, cfg: TransformerConfig) -> list[Problem]:
    n, e = w.chips_per_model, w.expert_parallel
    out = []
    if cfg.heads % n:
        out.append(Problem("chips_per_model", _(
            "{n} chips cannot share {heads} attention heads evenly (tensor parallelism splits "
            "the heads): use a divisor of {heads}").format(n=n, heads=cfg.heads)))
    if w.mtp and not cfg.mtp_layers:
        out.append(Problem("mtp", _("{model} has no multi-token prediction module "
                                    "(num_nextn_predict_layers)").format(model=w.name)))
    if e > 1:
        if not cfg.moe:
            out.append(Problem("expert_parallel", _(
                "{model} has no experts to spread: expert parallelism is for a mixture of "
                "experts").format(model=w.name)))
        elif cfg.experts % e:
            out.append(Problem("expert_parallel", _(
                "{e} does not divide the {experts} experts: each chip holds E/e whole "
                "experts").format(e=e, experts=cfg.experts)))
        if n % e:
            out.append(Problem("expert_parallel", _(
                "{e} does not divide N = {n}, the chips that share the model (the experts are "
                "spread over e of them, each split N/e ways)").format(e=e, n=n)))
    return out


def build_transformer(w: Workload) -> Built:
    cfg = read_config(w.spec, "spec")
    problems = _problems(w, cfg)
    if problems:
        raise ValidationError(problems)
    return _Builder(w, cfg).built()


class _Builder:
    def __init__(self, w: Workload, cfg: TransformerConfig):
        self.w, self.cfg = w, cfg
        self.entries: list[Entry] = []
        self.n = w.chips_per_model
        self.ba = BYTES_PER_VALUE[w.activations]
        self.bkv = BYTES_PER_VALUE[w.kv_cache]
        self.decode = w.phase == "decode"
        self.train = w.phase == "train"
        self.T = w.batch if self.decode else w.batch * w.sequence
        self.share = (_(" ÷ N (N = {n} chips share every matrix)").format(n=self.n)
                      if self.n > 1 else "")
        # Attention data parallelism: each chip runs the attention of B/N sequences with all the
        # heads (its weights whole on every chip), instead of every sequence with H/N heads.
        self.dp = w.attention_data_parallel and self.n > 1
        self.an = 1 if self.dp else self.n
        self.aB = -(-w.batch // self.n) if self.dp else w.batch
        self.aT = self.aB if self.decode else self.aB * w.sequence
        self.ashare = (_(" (attention data parallel: each chip runs B/N = ⌈{batch}/{n}⌉ = "
                         "{per_chip} sequences with every head)").format(
            batch=w.batch, n=self.n, per_chip=self.aB) if self.dp else self.share)

    # -- helpers -------------------------------------------------------------------------
    def bw(self, part: str) -> float:
        """Bytes a weight of this part takes: the workload's weight format, but 16 bits for the
        parts the checkpoint keeps unconverted when the weights are block-scaled."""
        if self.w.weights in BLOCK_FORMATS and (part in self.cfg.not_converted or
                                                part == "norms"):
            return BYTES_PER_VALUE["bf16"]
        return BYTES_PER_VALUE[self.w.weights]

    def bw_text(self, part: str) -> str:
        b = self.bw(part)
        if part in self.cfg.not_converted and self.w.weights in BLOCK_FORMATS:
            return _("b_w = 2 B (bf16: the checkpoint keeps its {part} at 16 bits)").format(
                part=_(PART_WORDS.get(part, part)))
        if self.w.weights in BLOCK_FORMATS:
            return f"b_w = {b:g} B ({_(FORMAT_WORDS[self.w.weights])})"
        return f"b_w = {b:g} B ({self.w.weights})"

    def add(self, name, group, count, ops, reads, writes, steps, weight=0.0, core=False):
        if count:
            self.entries.append(make_entry(self.w, len(self.entries), name, group, count, ops,
                                           reads, writes, steps, weight, core))

    def tok(self, B: int) -> str:
        S = self.w.sequence
        return f"T = B = {_g(B)}" if self.decode else f"T = B·S = {_g(B)}·{_g(S)} = {_g(B * S)}"

    def held(self, window: int) -> int:
        length = self.w.context if self.decode else self.w.sequence
        return min(length, window) if window else length

    # -- attention -----------------------------------------------------------------------
    def gqa(self) -> None:
        cfg, w, n, T, ba, bkv = self.cfg, self.w, self.an, self.aT, self.ba, self.bkv
        h, hd, H, Hkv = cfg.hidden, cfg.head_dim, cfg.heads, cfg.kv_heads
        B, S, L = self.aB, w.sequence, w.context
        qkv = cfg.qkv_width
        bw = self.bw("attention")
        wq = h * qkv * bw / n
        self.add(_("QKV projection"), "attention", cfg.layers, 2 * T * h * qkv / n,
                 wq + T * h * ba, T * qkv * ba / n,
                 [self.tok(self.aB),
                  _("Q, K, V width = (H + 2·Hkv)·D = ({H} + 2·{Hkv})·{D} = {width}").format(
                      H=H, Hkv=Hkv, D=hd, width=_g(qkv)),
                  _("ops = 2·T·hidden·width{share} = 2·{T}·{hidden}·{width} / {n} = {ops}").format(
                      share=self.ashare, T=_g(T), hidden=_g(h), width=_g(qkv), n=n,
                      ops=_g(2 * T * h * qkv / n)),
                  _("weights = hidden·width·b_w{share} = {weights} (read once for the whole "
                    "batch; {b_w})").format(share=self.ashare, weights=_b(wq),
                                           b_w=self.bw_text("attention")),
                  _("activations: read T·hidden·b_a = {read}, write T·width·b_a / N = "
                    "{written}").format(read=_b(T * h * ba), written=_b(T * qkv * ba / n))], wq)
        # KV heads per chip: split N ways, but never below one whole head (with N > Hkv the
        # cache is replicated N / Hkv times, as Megatron-style tensor parallelism does).
        kvn = max(Hkv / n, 1.0)
        kv_split = (f"Hkv / N = {Hkv}/{n}" if n <= Hkv else _(
            "1 (N = {n} > Hkv = {Hkv}: each chip keeps one whole KV head)").format(
            n=n, Hkv=Hkv)) if n > 1 else f"Hkv = {Hkv}"
        groups = cfg.attention_groups
        for window, layers in groups:
            label = "" if len(groups) == 1 and not window else (
                f" ({_(cfg.window_kind)} {_g(window)})" if window else _(" (full)"))
            held = self.held(window)
            if self.decode:
                kv_read = 2 * B * kvn * held * hd * bkv
                kv_write = 2 * B * kvn * hd * bkv
                qo = B * H * hd * ba / n
                ops = 4 * B * H * held * hd / n
                seen = (_("L = {L} (attends the last {window}: {kind})").format(
                    L=_g(L), window=_g(window), kind=_(cfg.window_kind))
                    if window and L > window else f"L = {_g(L)}")
                self.add(_("Attention decode{label}, L = {L}").format(label=label, L=_g(L)),
                         "attention", layers, ops, kv_read + qo, kv_write + qo,
                         [_("{seen}; KV heads per chip = {split}").format(seen=seen,
                                                                          split=kv_split),
                          _("ops = 4·B·H·L·D{share} = 4·{B}·{H}·{L}·{D} / {n} = {ops}").format(
                              share=self.ashare, B=_g(B), H=H, L=_g(held), D=hd, n=n,
                              ops=_g(ops)),
                          _("KV cache read = 2·B·(KV heads per chip)·L·D·b_kv = 2·{B}·{kv}·{L}·"
                            "{D}·{b_kv} = {read} (each sequence has its own cache: batching "
                            "does not help)").format(B=_g(B), kv=f"{kvn:g}", L=_g(held), D=hd,
                                                     b_kv=f"{bkv:g}", read=_b(kv_read)),
                          _("new K, V written = {written}; q read and o written = B·H·D·b_a / N"
                            " = {qo} each").format(written=_b(kv_write), qo=_b(qo)),
                          *([_("grouped-query attention: {group} query heads share each KV "
                               "head").format(group=H // Hkv)] if H > Hkv else [])], core=True)
            else:
                # Training counts the full S×S square, as PaLM's model FLOPs (12·L·H·Q·T) and
                # Megatron's kernel do, so the hardware FLOPs never fall below the model FLOPs.
                pairs = attended_pairs(S, window, self.train)
                ops = 4 * B * H * pairs * hd / n
                reads = B * S * qkv * ba / n
                writes = B * S * H * hd * ba / n + 2 * B * held * kvn * hd * bkv
                why = (_("the full square, as PaLM's model FLOPs and Megatron's kernel count "
                         "it; a causal kernel could skip half") if self.train else
                       _("causal: S²/2") if not window or window >= S else
                       _("causal within the window: S·W − W²/2 with W = {W}").format(
                           W=_g(window)))
                name = (_("Attention forward{label}, S = {S}") if self.train else
                        _("Attention prefill{label}, S = {S}"))
                self.add(name.format(label=label, S=_g(S)),
                         "attention", layers, ops, reads, writes,
                         [_("query-key pairs per sequence and head = {pairs} ({why})").format(
                             pairs=_g(pairs), why=why),
                          _("ops = 4·B·H·pairs·D{share} = 4·{B}·{H}·{pairs}·{D} / {n} = {ops} "
                            "(Q·Kᵀ and P·V, 2·D each per pair; fused: the scores stay on "
                            "chip)").format(share=self.ashare, B=_g(B), H=H, pairs=_g(pairs),
                                            D=hd, n=n, ops=_g(ops)),
                          _("read Q, K, V = B·S·width·b_a / N = {read}").format(read=_b(reads)),
                          _("write O = B·S·H·D·b_a / N and the KV cache of {held} tokens "
                            "2·B·{held}·Hkv·D·b_kv / N: {written}").format(
                              held=_g(held), written=_b(writes))], core=True)
        wo = H * hd * h * bw / n
        self.add(_("Output projection"), "attention", cfg.layers, 2 * T * H * hd * h / n,
                 wo + T * H * hd * ba / n, T * h * ba,
                 [_("ops = 2·T·(H·D)·hidden{share} = {ops}").format(
                     share=self.ashare, ops=_g(2 * T * H * hd * h / n)),
                  _("weights = H·D·hidden·b_w{share} = {weights}").format(
                      share=self.ashare, weights=_b(wo))], wo)
        self.kv_per_token_layer = [(2 * kvn * hd, window, layers) for window, layers in groups]
        self.cache_formula = _("{layers_batch}·(KV heads per chip {kv})·{length}·D·b_kv").format(
            layers_batch="2·layers·⌈B/N⌉" if self.dp else "2·layers·B", kv=f"{kvn:g}",
            length="L" if self.decode else "S")

    def mla(self) -> None:
        cfg, w, n, T, ba, bkv = self.cfg, self.w, self.an, self.aT, self.ba, self.bkv
        m = cfg.mla
        h, H, r, rope = cfg.hidden, cfg.heads, m.kv_lora_rank, m.qk_rope
        B, S, L = self.aB, w.sequence, w.context
        bw = self.bw("attention")
        qk, v, c = m.qk_dim, m.v_head_dim, m.cache_values
        q_params = (h * m.q_lora_rank + m.q_lora_rank * H * qk) if m.q_lora_rank else h * H * qk
        down = q_params + h * c
        wd = down * bw / n
        q_text = (_("query down h·q_lora = {h}·{q_lora} and up q_lora·H·(nope + rope) = "
                    "{q_lora}·{H}·{qk}").format(h=_g(h), q_lora=m.q_lora_rank, H=H, qk=qk)
                  if m.q_lora_rank else
                  _("query h·H·(nope + rope) = {h}·{H}·{qk}").format(h=_g(h), H=H, qk=qk))
        self.add(_("MLA query and latent projections"), "MLA", cfg.layers, 2 * T * down / n,
                 wd + T * h * ba, T * (H * qk / n + c) * ba,
                 [self.tok(self.aB),
                  _("{query}; latent down h·(kv_lora + rope) = {h}·({r} + {rope})").format(
                      query=q_text, h=_g(h), r=r, rope=rope),
                  _("weights = {values} values·b_w{share} = {weights} ({b_w})").format(
                      values=_g(down), share=self.ashare, weights=_b(wd),
                      b_w=self.bw_text("attention")),
                  _("ops = 2·T·weights{share} = {ops}").format(share=self.ashare,
                                                              ops=_g(2 * T * down / n))], wd)
        up = r * H * (m.qk_nope + v)
        wu = up * bw / n
        self.kv_per_token_layer = []
        for window, layers in cfg.attention_groups:
            held = self.held(window)
            if self.decode:
                self.add(_("MLA absorbed key and value up-projections"), "MLA", layers,
                         2 * B * up / n, wu + B * H * (m.qk_nope + r) * ba / n,
                         B * H * (r + v) * ba / n,
                         [_("absorbed form (decode): each head's query is carried into the "
                            "latent space (q_nope·W_UK) and its output out of it (·W_UV), so the "
                            "cache is never expanded"),
                          _("weights = kv_lora·H·(nope + v)·b_w{share} = {r}·{H}·({nope} + {v}) "
                            "= {weights}").format(share=self.ashare, r=r, H=H, nope=m.qk_nope,
                                                  v=v, weights=_b(wu)),
                          _("ops = 2·B·kv_lora·H·(nope + v){share} = {ops}").format(
                              share=self.ashare, ops=_g(2 * B * up / n))],
                         wu)
                kv_read = B * held * c * bkv
                ops = 2 * B * H * held * (2 * r + rope) / n
                read = (_("latent cache read = B·L·{c}·b_kv = {B}·{L}·{c}·{b_kv} = {read} on "
                          "every chip: the latent is shared by all heads, so tensor parallelism "
                          "does not split it") if n > 1 else
                        _("latent cache read = B·L·{c}·b_kv = {B}·{L}·{c}·{b_kv} = {read}"))
                self.add(_("Attention decode (MLA, absorbed), L = {L}").format(L=_g(L)), "MLA",
                         layers, ops,
                         kv_read + B * H * c * ba / n, B * c * bkv + B * H * r * ba / n,
                         [_("L = {L}; the cache holds kv_lora + rope = {r} + {rope} = {c} values "
                            "per token and layer").format(L=_g(held), r=r, rope=rope, c=c),
                          _("ops = 2·B·H·L·(2·kv_lora + rope){share} = 2·{B}·{H}·{L}·(2·{r} + "
                            "{rope}) / {n} = {ops} (scores over the latent and the rotary key, "
                            "values over the latent)").format(
                              share=self.ashare, B=_g(B), H=H, L=_g(held), r=r, rope=rope, n=n,
                              ops=_g(ops)),
                          read.format(c=c, B=_g(B), L=_g(held), b_kv=f"{bkv:g}",
                                      read=_b(kv_read)),
                          _("new latent written = B·{c}·b_kv = {written}").format(
                              c=c, written=_b(B * c * bkv))], core=True)
            else:
                self.add(_("MLA key and value up-projection (expanded)"), "MLA", layers,
                         2 * T * up / n, wu + T * r * ba, T * H * (m.qk_nope + v) * ba / n,
                         [_("expanded form (prefill, training): the latent is multiplied out "
                            "into every head's keys and values"),
                          _("weights = kv_lora·H·(nope + v)·b_w{share} = {weights}").format(
                              share=self.ashare, weights=_b(wu)),
                          _("ops = 2·T·kv_lora·H·(nope + v){share} = {ops}").format(
                              share=self.ashare, ops=_g(2 * T * up / n))],
                         wu)
                pairs = attended_pairs(S, window, self.train)
                ops = 2 * B * H * pairs * (qk + v) / n
                reads = B * S * H * (2 * qk + v) * ba / n
                writes = B * S * H * v * ba / n + B * held * c * bkv
                name = (_("Attention forward (MLA), S = {S}") if self.train else
                        _("Attention prefill (MLA), S = {S}"))
                pairs_text = (_("query-key pairs per sequence and head = {pairs} (the full "
                                "square)") if self.train else
                              _("query-key pairs per sequence and head = {pairs} (causal: "
                                "S²/2)"))
                self.add(name.format(S=_g(S)), "MLA", layers, ops, reads, writes,
                         [pairs_text.format(pairs=_g(pairs)),
                          _("ops = 2·B·H·pairs·(qk + v){share} = 2·{B}·{H}·{pairs}·({qk} + {v}) "
                            "/ {n} = {ops}").format(share=self.ashare, B=_g(B), H=H,
                                                    pairs=_g(pairs), qk=qk, v=v, n=n,
                                                    ops=_g(ops)),
                          _("read Q, K, V = B·S·H·(2·{qk} + {v})·b_a / N = {read}").format(
                              qk=qk, v=v, read=_b(reads)),
                          _("write O and the latent cache B·S·{c}·b_kv: {written}").format(
                              c=c, written=_b(writes))], core=True)
            self.kv_per_token_layer.append((c, window, layers))  # whole, on every chip
        wo = H * v * h * bw / n
        self.add(_("Output projection"), "MLA", cfg.layers, 2 * T * H * v * h / n,
                 wo + T * H * v * ba / n, T * h * ba,
                 [_("ops = 2·T·(H·v)·hidden{share} = {ops}").format(
                     share=self.ashare, ops=_g(2 * T * H * v * h / n)),
                  _("weights = H·v·hidden·b_w{share} = {weights}").format(
                      share=self.ashare, weights=_b(wo))], wo)
        formula = (_("layers·{batch}·{length}·(kv_lora + rope = {c})·b_kv on every chip")
                   if n > 1 else _("layers·{batch}·{length}·(kv_lora + rope = {c})·b_kv"))
        self.cache_formula = formula.format(batch="⌈B/N⌉" if self.dp else "B",
                                            length="L" if self.decode else "S", c=c)

    # -- MLPs and experts ----------------------------------------------------------------
    def mlp(self, name: str, group: str, count: int, width: int, times: float, part: str,
            why: list[str], weight_share: float = 1.0, ops_share: float = 1.0) -> None:
        """Gate-and-up and down of ``times`` MLPs of ``width`` per token (k routed experts, s
        shared, or 1 dense); their weights read ``weight_share`` × (one MLP's) times."""
        cfg, n, T, ba = self.cfg, self.n, self.T, self.ba
        h = cfg.hidden
        mats = 2 if cfg.gated else 1
        bw = self.bw(part)
        gate = (_("{name} gate and up (gated, fused)") if cfg.gated else _("{name} up"))
        up_w = weight_share * mats * h * width * bw / n
        down_w = weight_share * width * h * bw / n
        rows = T * times * ops_share
        times_text = _g(times * ops_share) if times * ops_share != 1 else ""
        shared = _g(weight_share) + "·" if weight_share != 1 else ""
        self.add(gate.format(name=name), group, count, 2 * rows * h * width * mats / n,
                 up_w + rows * h * ba, rows * width * ba / n,
                 [*why, f"ops = 2·T{'·' + times_text if times_text else ''}"
                        f"·hidden·{mats}·width{self.share} = 2·{_g(T)}·{_g(h)}·{mats}·{_g(width)}"
                        + (f"·{times_text}" if times_text else "")
                        + f" / {n} = {_g(2 * rows * h * width * mats / n)}",
                  _("weights = {shared}{mats}·hidden·width·b_w{share} = {weights} "
                    "({b_w})").format(shared=shared, mats=mats, share=self.share,
                                      weights=_b(up_w), b_w=self.bw_text(part))], up_w)
        self.add(_("{name} down").format(name=name), group, count, 2 * rows * width * h / n,
                 down_w + rows * width * ba / n, rows * h * ba,
                 [_("ops = 2·T·width·hidden{share} = {ops}").format(
                     share=self.share, ops=_g(2 * rows * width * h / n)),
                  _("weights = {shared}width·hidden·b_w{share} = {weights}").format(
                      shared=shared, share=self.share, weights=_b(down_w))], down_w)

    def experts(self) -> None:
        cfg, w, n, T, ba = self.cfg, self.w, self.n, self.T, self.ba
        h, E, k, e = cfg.hidden, cfg.experts, cfg.experts_per_token, w.expert_parallel
        count = cfg.moe_layers
        bw = self.bw("router")
        router_w = h * E * bw
        self.add(_("MoE router"), "router", count, 2 * T * h * E, router_w + T * h * ba,
                 T * E * ba,
                 [_("ops = 2·T·hidden·E = {ops} (every chip routes its tokens)").format(
                     ops=_g(2 * T * h * E)),
                  _("weights = hidden·E·b_w = {weights}").format(weights=_b(router_w))],
                 router_w)
        touched = experts_touched(E, k, T)
        f = w.moe_imbalance if e > 1 else 1.0
        busy = min(E, f * touched)
        route = [_("{E} experts, {k} per token; T = {T} tokens route to {pairs} token-expert "
                   "pairs").format(E=E, k=k, T=_g(T), pairs=_g(T * k)),
                 _("experts whose weights a step reads = E·(1 − (1 − k/E)^T) = {E}·(1 − (1 − "
                   "{k}/{E})^{T}) = {touched} (routing spread evenly; at batch 1 in decode that "
                   "is k = {k}, and with enough tokens every expert)").format(
                     E=E, k=k, T=_g(T), touched=f"{touched:.4g}")]
        if e > 1:
            spread = (_("expert parallelism: the experts spread over e = {e} chips, E/e = {each} "
                        "each, each split N/e = {ways} ways") if n > e else
                      _("expert parallelism: the experts spread over e = {e} chips, E/e = {each} "
                        "each"))
            balance = (_("the busiest chip takes {f}× the mean (routing is never perfectly "
                         "even): {busy} experts' worth of weights and {f}× the mean ops").format(
                f=f"{f:g}", busy=_g(busy)) if f != 1 else
                _("routing taken as perfectly even (imbalance 1)"))
            route.append(_("{spread}; {balance}").format(
                spread=spread.format(e=e, each=E // e, ways=n // e), balance=balance))
        self.mlp(_("Routed experts"), "routed experts", count, cfg.expert_width, k, "experts",
                 route, weight_share=busy, ops_share=f)
        if cfg.shared_experts:
            s = cfg.shared_experts
            self.mlp(_("Shared experts") if s > 1 else _("Shared expert"), "shared experts", count,
                     cfg.shared_width, s, "experts",
                     [ngettext("{n} shared expert of width {width}: every token goes through, "
                               "so its weights are read every step",
                               "{n} shared experts of width {width}: every token goes through, "
                               "so their weights are read every step", s).format(
                         n=s, width=cfg.shared_width)],
                     weight_share=s)

    # -- the whole step ------------------------------------------------------------------
    def built(self) -> Built:
        cfg, w, n, T, ba = self.cfg, self.w, self.n, self.T, self.ba
        h = cfg.hidden
        B, S, L = w.batch, w.sequence, w.context
        if cfg.mla:
            self.mla()
        else:
            self.gqa()
        if cfg.dense_layers:
            self.mlp(_("MLP"), "MLP", cfg.dense_layers, cfg.intermediate, 1, "mlp",
                     [_("{layers} dense layers of width {width}").format(
                         layers=cfg.dense_layers, width=cfg.intermediate)]
                     if cfg.moe else [])
        if cfg.moe:
            self.experts()
        norm = "LayerNorm" if cfg.gpt2 else "RMSNorm"
        k = 4 if cfg.gpt2 else cfg.norms_per_layer
        ops_per, bytes_per = 4 * k + 2, 2 * k + 6
        self.add(_("{norm}s and residual adds").format(norm=norm), "norms", cfg.layers,
                 ops_per * T * h, (bytes_per - 2) * T * h * ba, 2 * T * h * ba,
                 [_("{k} {norm}s (about 4 ops per value: square, sum, scale, weight) and 2 "
                    "residual adds (1 op per value): ops = {per}·T·hidden = {ops}").format(
                     k=k, norm=norm, per=ops_per, ops=_g(ops_per * T * h)),
                  _("bytes: each norm reads and writes T·hidden values, each add reads 2 and "
                    "writes 1: {per}·T·hidden·b_a = {bytes} (not split over the N "
                    "chips)").format(per=bytes_per, bytes=_b(bytes_per * T * h * ba))])
        be = self.bw("embedding")
        emb = T * h * (be + ba) + 2 * T * h * ba
        self.add(_("Embedding lookup and final norm"), "head", 1, 4 * T * h, emb - T * h * ba,
                 T * h * ba,
                 [_("gather T rows of the embedding table: T·hidden·b_w = {bytes}, written as "
                    "activations; the final norm reads and writes them once more").format(
                     bytes=_b(T * h * be)),
                  _("ops = 4·T·hidden = {ops} (the norm; a lookup does no arithmetic)").format(
                      ops=_g(4 * T * h))],
                 T * h * be)
        V = cfg.vocab
        head_w = h * V * self.bw("head") / n
        R = T if self.train else B  # rows of logits
        rows = (_("logits for every token (the loss): T = {T}").format(T=_g(T)) if self.train
                else _("logits for the last token of each of the B = {B} sequences").format(
                    B=_g(B)))
        head_text = (_("weights = hidden·vocab·b_w{share} = {weights} (tied: the embedding "
                       "table read again)") if cfg.tied else
                     _("weights = hidden·vocab·b_w{share} = {weights}"))
        self.add(_("LM head (logits)"), "head", 1, 2 * R * h * V / n, head_w + R * h * ba,
                 R * V * ba / n,
                 [rows, f"ops = 2·{'T' if self.train else 'B'}·hidden·vocab{self.share} = "
                        f"2·{_g(R)}·{_g(h)}·{_g(V)} / {n} = {_g(2 * R * h * V / n)}",
                  head_text.format(share=self.share, weights=_b(head_w))], head_w)
        link, link_steps, parts = self.link()
        notes = list(cfg.notes)
        limit = w.spec.get("max_position_embeddings", w.spec.get("n_positions"))
        length = L if self.decode else S
        if isinstance(limit, int) and not isinstance(limit, bool) and length > limit:
            notes.append(_("{symbol} = {length} is beyond the model's {limit} positions "
                           "(max_position_embeddings): it would need a longer context than it "
                           "was trained for").format(symbol="L" if self.decode else "S",
                                                     length=length, limit=limit))
        for window, layers in cfg.windows:
            if window:
                notes.append(_("{kind} of {window} tokens in {layers} of {all} layers: their KV "
                               "cache keeps (and decode attends) the last {window} tokens "
                               "only").format(kind=_(cfg.window_kind), window=window,
                                              layers=layers, all=cfg.layers))
        if w.weights in BLOCK_FORMATS or w.activations in BLOCK_FORMATS or \
                w.kv_cache in BLOCK_FORMATS:
            for fmt in dict.fromkeys((w.weights, w.activations, w.kv_cache)):
                if fmt in BLOCK_FORMATS:
                    roles = [_(ROLE_WORDS[name]) for name, f in (
                        ("weights", w.weights), ("activations", w.activations),
                        ("KV cache", w.kv_cache)) if f == fmt]
                    stored = (_("{roles} stored as {format} = {bytes} bytes a value; the math "
                                "in {precision}") if fmt == w.activations else
                              _("{roles} stored as {format} = {bytes} bytes a value"))
                    notes.append(stored.format(roles=_(" and ").join(roles),
                                               format=_(FORMAT_WORDS[fmt]),
                                               bytes=f"{BYTES_PER_VALUE[fmt]:g}",
                                               precision=compute_precision(fmt)))
        weights_held, weight_text = self.weights_held()
        parameters = cfg.total_parameters()
        if w.mtp:  # the MTP module held beside the model, for speculative decoding
            extra = cfg.mtp_layers * cfg.mtp_parameters()
            parameters += extra
            weights_held += extra * self.bw("experts") / n
            weight_text += ngettext(
                "; and the multi-token prediction module {parameters} parameters · b_w{split} = "
                "{bytes}",
                "; and the multi-token prediction modules {parameters} parameters · b_w{split} = "
                "{bytes}", cfg.mtp_layers).format(
                parameters=parameters_text(extra), split=f" ÷ {n}" if n > 1 else "",
                bytes=_b(extra * self.bw("experts") / n))
            notes.append(_("the multi-token prediction module ({extra} parameters) is held "
                           "beside the model ({all} in all); its own work, as speculative "
                           "decoding's draft, is not counted").format(
                extra=parameters_text(extra), all=parameters_text(parameters)))
        cache = sum(per * self.aB * self.held(window) * layers * self.bkv
                    for per, window, layers in self.kv_per_token_layer)
        held_text = ", ".join(_("{layers} layers × {tokens} tokens").format(
            layers=layers, tokens=_g(self.held(window)))
            for _per, window, layers in self.kv_per_token_layer)
        cache_text = _("KV cache {formula} = {bytes}").format(formula=self.cache_formula,
                                                              bytes=_b(cache))
        resident = (weight_text,
                    cache_text + (f" ({held_text})" if len(self.kv_per_token_layer) > 1 else ""))
        return Built(tuple(self.entries), link, link_steps, tuple(notes),
                     parameters, cfg.card_active_parameters(), weights_held + cache,
                     resident, cfg.heads, weight_bytes=weights_held, kv_cache_bytes=cache,
                     link_parts=parts)

    def weights_held(self) -> tuple[float, str]:
        cfg, n = self.cfg, self.n
        p = cfg.parameters()
        # the experts' biases (gpt-oss) are kept at 16 bits with the norms
        mats = 3 if cfg.gated else 2
        biases = ((mats - 1) * cfg.expert_width + cfg.hidden) * cfg.experts * cfg.moe_layers \
            if cfg.expert_bias and cfg.moe else 0
        parts = {"attention": p["attention"], "experts": p["routed"] + p["shared"] - biases,
                 "mlp": p["mlp"] - p["routed"] - p["shared"] - p["router"],
                 "router": p["router"], "embedding": p["embedding"], "head": p["head"],
                 "norms": p["norms"] + biases}
        held = sum(v * self.bw(k) / (self.an if k == "attention" else n)
                   for k, v in parts.items())
        split = f" ÷ {n}" if n > 1 else ""
        by_bytes: dict[float, float] = {}
        for k, v in parts.items():
            if v:
                by_bytes[self.bw(k)] = by_bytes.get(self.bw(k), 0.0) + v
        if self.dp:
            split += _(" (the attention's weights whole on every chip: attention data parallel)")
        if len(by_bytes) > 1:  # say which parameters take how many bytes
            each = ", ".join(_("{parameters} parameters at {bytes} bytes").format(
                parameters=parameters_text(v), bytes=f"{b:g}") for b, v in sorted(by_bytes.items()))
            text = _("weights: {each}{split} = {bytes}").format(each=each, split=split,
                                                                bytes=_b(held))
        else:
            text = _("weights {parameters} parameters · b_w{split} = {bytes}").format(
                parameters=parameters_text(cfg.total_parameters()), split=split, bytes=_b(held))
        return held, text

    def link(self) -> tuple[float, tuple[str, ...], tuple[tuple[str, float], ...]]:
        cfg, w, n, T, ba = self.cfg, self.w, self.n, self.T, self.ba
        h, e = cfg.hidden, w.expert_parallel
        if n == 1:
            return 0.0, (), ()
        per = 2 * (n - 1) / n * T * h * ba
        moe = cfg.moe_layers
        reduces = (0 if self.dp else cfg.layers) + cfg.dense_layers + (moe if e == 1 else 0)
        mlp = e == 1 or cfg.dense_layers
        after = (_("each MLP") if self.dp else
                 _("attention in every layer and after each MLP") if mlp else
                 _("attention in every layer")) if mlp or not self.dp else _("nothing")
        reduce = (_("all-reduce of the activations after {after} (attention data parallel: the "
                    "attention needs none; gathering its tokens for a tensor-parallel MLP costs "
                    "as much as one), each sending 2·(N−1)/N·T·hidden·b_a = {formula} = {bytes} "
                    "per chip") if self.dp else
                  _("all-reduce of the activations after {after}, each sending "
                    "2·(N−1)/N·T·hidden·b_a = {formula} = {bytes} per chip"))
        steps = [reduce.format(after=after, formula=f"2·{n - 1}/{n}·{_g(T)}·{_g(h)}·{ba:g}",
                               bytes=_b(per)),
                 _("all-reduces per step: {count} · {each} = {bytes} per chip").format(
                     count=reduces, each=_b(per), bytes=_b(reduces * per))]
        all_reduce = reduces * per
        all_to_all = 0.0
        if e > 1 and moe:
            f = w.moe_imbalance
            k = cfg.experts_per_token
            one = 2 * (T * k * f / e) * (e - 1) / e * h * ba
            all_to_all = moe * one
            steps.append(_("all-to-all in each of the {layers} MoE layers: dispatch and combine, "
                           "each chip receiving T·k/e = {vectors} token vectors{busiest}, (e−1)/e "
                           "= {share} of them from other chips: {formula} = {layer} per layer, "
                           "{step} per step").format(
                layers=moe, vectors=_g(T * k / e),
                busiest=_(" (× {f}, the busiest)").format(f=f"{f:g}") if f != 1 else "",
                share=f"{e - 1}/{e}", formula=f"2·{_g(T * k * f / e)}·{e - 1}/{e}·{_g(h)}·{ba:g}",
                layer=_b(one), step=_b(all_to_all)))
            t = n // e
            if t > 1:
                inner = 2 * (t - 1) / t * T * h * ba * moe
                all_reduce += inner
                steps.append(_("each expert split N/e = {t} ways: an all-reduce over them per "
                               "MoE layer, {bytes} per step").format(t=t, bytes=_b(inner)))
        parts = tuple((name, v) for name, v in (("all-reduce", all_reduce),
                                                ("all-to-all", all_to_all)) if v)
        return all_reduce + all_to_all, tuple(steps), parts
