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
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.model_config import TransformerConfig
from roofline_gui.core.units import BLOCK_FORMATS, BYTES_PER_VALUE, FORMAT_WORDS, compute_precision
from roofline_gui.core.units import format_bytes as _b  # short: formulas are full of them
from roofline_gui.core.units import format_count as _g
from roofline_gui.core.workload import ON_CHIP_KINDS, Built, Entry, Workload, parameters_text


def make_entry(workload: Workload, index: int, name: str, group: str, count: float, ops: float,
               reads: float, writes: float, steps: list[str], weight_bytes: float = 0.0,
               attention_core: bool = False) -> Entry:
    """One entry: a kernel of ``ops`` reading ``reads`` and writing ``writes`` bytes of main
    memory (activations on chip for the kinds that can keep them there)."""
    nbytes, written = {"dram": reads + writes}, {"dram": writes}
    if workload.activations_on_chip and workload.kind in ON_CHIP_KINDS:
        acts = reads - weight_bytes + writes  # activations read and written
        nbytes, written = {"dram": weight_bytes, "cache": acts}, {"cache": writes}
        steps = [*steps, f"activations on chip: {_b(acts)} read and written at the on-chip "
                         f"level, only the weights ({_b(weight_bytes)}) cross main memory: "
                         f"{_g(ops / weight_bytes) if weight_bytes else '∞'} op per weight byte"]
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
        out.append(Problem("chips_per_model", f"{n} chips cannot share {cfg.heads} attention "
                                              f"heads evenly (tensor parallelism splits the "
                                              f"heads): use a divisor of {cfg.heads}"))
    if w.mtp and not cfg.mtp_layers:
        out.append(Problem("mtp", f"{w.name} has no multi-token prediction module "
                                  "(num_nextn_predict_layers)"))
    if e > 1:
        if not cfg.moe:
            out.append(Problem("expert_parallel", f"{w.name} has no experts to spread: expert "
                                                  "parallelism is for a mixture of experts"))
        elif cfg.experts % e:
            out.append(Problem("expert_parallel", f"{e} does not divide the {cfg.experts} "
                                                  f"experts: each chip holds E/e whole experts"))
        if n % e:
            out.append(Problem("expert_parallel", f"{e} does not divide N = {n}, the chips that "
                                                  f"share the model (the experts are spread "
                                                  f"over e of them, each split N/e ways)"))
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
        self.share = f" ÷ N (N = {self.n} chips share every matrix)" if self.n > 1 else ""
        # Attention data parallelism: each chip runs the attention of B/N sequences with all the
        # heads (its weights whole on every chip), instead of every sequence with H/N heads.
        self.dp = w.attention_data_parallel and self.n > 1
        self.an = 1 if self.dp else self.n
        self.aB = -(-w.batch // self.n) if self.dp else w.batch
        self.aT = self.aB if self.decode else self.aB * w.sequence
        self.ashare = (f" (attention data parallel: each chip runs B/N = ⌈{w.batch}/{self.n}⌉ = "
                       f"{self.aB} sequences with every head)" if self.dp else self.share)

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
            return f"b_w = 2 B (bf16: the checkpoint keeps its {part} at 16 bits)"
        if self.w.weights in BLOCK_FORMATS:
            return f"b_w = {b:g} B ({FORMAT_WORDS[self.w.weights]})"
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
        self.add("QKV projection", "attention", cfg.layers, 2 * T * h * qkv / n,
                 wq + T * h * ba, T * qkv * ba / n,
                 [self.tok(self.aB), f"Q, K, V width = (H + 2·Hkv)·D = ({H} + 2·{Hkv})·{hd} = {_g(qkv)}",
                  f"ops = 2·T·hidden·width{self.ashare} = 2·{_g(T)}·{_g(h)}·{_g(qkv)} / {n} = "
                  f"{_g(2 * T * h * qkv / n)}",
                  f"weights = hidden·width·b_w{self.ashare} = {_b(wq)} (read once for the whole "
                  f"batch; {self.bw_text('attention')})",
                  f"activations: read T·hidden·b_a = {_b(T * h * ba)}, write T·width·b_a / N = "
                  f"{_b(T * qkv * ba / n)}"], wq)
        # KV heads per chip: split N ways, but never below one whole head (with N > Hkv the
        # cache is replicated N / Hkv times, as Megatron-style tensor parallelism does).
        kvn = max(Hkv / n, 1.0)
        kv_split = (f"Hkv / N = {Hkv}/{n}" if n <= Hkv else f"1 (N = {n} > Hkv = {Hkv}: each "
                    f"chip keeps one whole KV head)") if n > 1 else f"Hkv = {Hkv}"
        groups = cfg.attention_groups
        for window, layers in groups:
            label = "" if len(groups) == 1 and not window else (
                f" ({cfg.window_kind} {_g(window)})" if window else " (full)")
            held = self.held(window)
            if self.decode:
                kv_read = 2 * B * kvn * held * hd * bkv
                kv_write = 2 * B * kvn * hd * bkv
                qo = B * H * hd * ba / n
                ops = 4 * B * H * held * hd / n
                seen = f"L = {_g(L)}" + (f" (attends the last {_g(window)}: {cfg.window_kind})"
                                         if window and L > window else "")
                self.add(f"Attention decode{label}, L = {_g(L)}", "attention", layers, ops,
                         kv_read + qo, kv_write + qo,
                         [f"{seen}; KV heads per chip = {kv_split}",
                          f"ops = 4·B·H·L·D{self.ashare} = 4·{_g(B)}·{H}·{_g(held)}·{hd} / {n} = "
                          f"{_g(ops)}",
                          f"KV cache read = 2·B·(KV heads per chip)·L·D·b_kv = 2·{_g(B)}·{kvn:g}·"
                          f"{_g(held)}·{hd}·{bkv:g} = {_b(kv_read)} (each sequence has its own "
                          "cache: batching does not help)",
                          f"new K, V written = {_b(kv_write)}; q read and o written = B·H·D·b_a / N"
                          f" = {_b(qo)} each",
                          *([f"grouped-query attention: {H // Hkv} query heads share each KV head"]
                            if H > Hkv else [])], core=True)
            else:
                # Training counts the full S×S square, as PaLM's model FLOPs (12·L·H·Q·T) and
                # Megatron's kernel do, so the hardware FLOPs never fall below the model FLOPs.
                pairs = attended_pairs(S, window, self.train)
                ops = 4 * B * H * pairs * hd / n
                reads = B * S * qkv * ba / n
                writes = B * S * H * hd * ba / n + 2 * B * held * kvn * hd * bkv
                why = ("the full square, as PaLM's model FLOPs and Megatron's kernel count it; a "
                       "causal kernel could skip half" if self.train else
                       "causal: S²/2" if not window or window >= S else
                       f"causal within the window: S·W − W²/2 with W = {_g(window)}")
                self.add(f"Attention {'forward' if self.train else 'prefill'}{label}, S = {_g(S)}",
                         "attention", layers, ops, reads, writes,
                         [f"query-key pairs per sequence and head = {_g(pairs)} ({why})",
                          f"ops = 4·B·H·pairs·D{self.ashare} = 4·{_g(B)}·{H}·{_g(pairs)}·{hd} / {n}"
                          f" = {_g(ops)} (Q·Kᵀ and P·V, 2·D each per pair; fused: the scores stay "
                          "on chip)",
                          f"read Q, K, V = B·S·width·b_a / N = {_b(reads)}",
                          f"write O = B·S·H·D·b_a / N and the KV cache of {_g(held)} tokens "
                          f"2·B·{_g(held)}·Hkv·D·b_kv / N: {_b(writes)}"], core=True)
        wo = H * hd * h * bw / n
        self.add("Output projection", "attention", cfg.layers, 2 * T * H * hd * h / n,
                 wo + T * H * hd * ba / n, T * h * ba,
                 [f"ops = 2·T·(H·D)·hidden{self.ashare} = {_g(2 * T * H * hd * h / n)}",
                  f"weights = H·D·hidden·b_w{self.ashare} = {_b(wo)}"], wo)
        self.kv_per_token_layer = [(2 * kvn * hd, window, layers) for window, layers in groups]
        self.cache_formula = (("2·layers·⌈B/N⌉" if self.dp else "2·layers·B")
                              + f"·(KV heads per chip {kvn:g})·{'L' if self.decode else 'S'}·D·b_kv")

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
        q_text = (f"query down h·q_lora = {_g(h)}·{m.q_lora_rank} and up q_lora·H·(nope + rope) = "
                  f"{m.q_lora_rank}·{H}·{qk}" if m.q_lora_rank else
                  f"query h·H·(nope + rope) = {_g(h)}·{H}·{qk}")
        self.add("MLA query and latent projections", "MLA", cfg.layers, 2 * T * down / n,
                 wd + T * h * ba, T * (H * qk / n + c) * ba,
                 [self.tok(self.aB), f"{q_text}; latent down h·(kv_lora + rope) = {_g(h)}·({r} + {rope})",
                  f"weights = {_g(down)} values·b_w{self.ashare} = {_b(wd)} "
                  f"({self.bw_text('attention')})",
                  f"ops = 2·T·weights{self.ashare} = {_g(2 * T * down / n)}"], wd)
        up = r * H * (m.qk_nope + v)
        wu = up * bw / n
        self.kv_per_token_layer = []
        for window, layers in cfg.attention_groups:
            held = self.held(window)
            if self.decode:
                self.add("MLA absorbed key and value up-projections", "MLA", layers,
                         2 * B * up / n, wu + B * H * (m.qk_nope + r) * ba / n,
                         B * H * (r + v) * ba / n,
                         ["absorbed form (decode): each head's query is carried into the latent "
                          "space (q_nope·W_UK) and its output out of it (·W_UV), so the cache is "
                          "never expanded",
                          f"weights = kv_lora·H·(nope + v)·b_w{self.ashare} = {r}·{H}·"
                          f"({m.qk_nope} + {v}) = {_b(wu)}",
                          f"ops = 2·B·kv_lora·H·(nope + v){self.ashare} = {_g(2 * B * up / n)}"],
                         wu)
                kv_read = B * held * c * bkv
                ops = 2 * B * H * held * (2 * r + rope) / n
                self.add(f"Attention decode (MLA, absorbed), L = {_g(L)}", "MLA", layers, ops,
                         kv_read + B * H * c * ba / n, B * c * bkv + B * H * r * ba / n,
                         [f"L = {_g(held)}; the cache holds kv_lora + rope = {r} + {rope} = {c} "
                          "values per token and layer",
                          f"ops = 2·B·H·L·(2·kv_lora + rope){self.ashare} = 2·{_g(B)}·{H}·"
                          f"{_g(held)}·(2·{r} + {rope}) / {n} = {_g(ops)} (scores over the "
                          "latent and the rotary key, values over the latent)",
                          f"latent cache read = B·L·{c}·b_kv = {_g(B)}·{_g(held)}·{c}·{bkv:g} = "
                          f"{_b(kv_read)}" + (" on every chip: the latent is shared by all heads, "
                                              "so tensor parallelism does not split it"
                                              if n > 1 else ""),
                          f"new latent written = B·{c}·b_kv = {_b(B * c * bkv)}"], core=True)
            else:
                self.add("MLA key and value up-projection (expanded)", "MLA", layers,
                         2 * T * up / n, wu + T * r * ba, T * H * (m.qk_nope + v) * ba / n,
                         ["expanded form (prefill, training): the latent is multiplied out into "
                          "every head's keys and values",
                          f"weights = kv_lora·H·(nope + v)·b_w{self.ashare} = {_b(wu)}",
                          f"ops = 2·T·kv_lora·H·(nope + v){self.ashare} = {_g(2 * T * up / n)}"],
                         wu)
                pairs = attended_pairs(S, window, self.train)
                ops = 2 * B * H * pairs * (qk + v) / n
                reads = B * S * H * (2 * qk + v) * ba / n
                writes = B * S * H * v * ba / n + B * held * c * bkv
                self.add(f"Attention {'forward' if self.train else 'prefill'} (MLA), S = {_g(S)}",
                         "MLA", layers, ops, reads, writes,
                         [f"query-key pairs per sequence and head = {_g(pairs)}"
                          + (" (the full square)" if self.train else " (causal: S²/2)"),
                          f"ops = 2·B·H·pairs·(qk + v){self.ashare} = 2·{_g(B)}·{H}·{_g(pairs)}·"
                          f"({qk} + {v}) / {n} = {_g(ops)}",
                          f"read Q, K, V = B·S·H·(2·{qk} + {v})·b_a / N = {_b(reads)}",
                          f"write O and the latent cache B·S·{c}·b_kv: {_b(writes)}"], core=True)
            self.kv_per_token_layer.append((c, window, layers))  # whole, on every chip
        wo = H * v * h * bw / n
        self.add("Output projection", "MLA", cfg.layers, 2 * T * H * v * h / n,
                 wo + T * H * v * ba / n, T * h * ba,
                 [f"ops = 2·T·(H·v)·hidden{self.ashare} = {_g(2 * T * H * v * h / n)}",
                  f"weights = H·v·hidden·b_w{self.ashare} = {_b(wo)}"], wo)
        self.cache_formula = (f"layers·{'⌈B/N⌉' if self.dp else 'B'}·"
                              f"{'L' if self.decode else 'S'}·(kv_lora + rope = {c})·b_kv"
                              + (" on every chip" if n > 1 else ""))

    # -- MLPs and experts ----------------------------------------------------------------
    def mlp(self, name: str, group: str, count: int, width: int, times: float, part: str,
            why: list[str], weight_share: float = 1.0, ops_share: float = 1.0) -> None:
        """Gate-and-up and down of ``times`` MLPs of ``width`` per token (k routed experts, s
        shared, or 1 dense); their weights read ``weight_share`` × (one MLP's) times."""
        cfg, n, T, ba = self.cfg, self.n, self.T, self.ba
        h = cfg.hidden
        mats = 2 if cfg.gated else 1
        bw = self.bw(part)
        gate = "gate and up (gated, fused)" if cfg.gated else "up"
        up_w = weight_share * mats * h * width * bw / n
        down_w = weight_share * width * h * bw / n
        rows = T * times * ops_share
        self.add(f"{name} {gate}", group, count, 2 * rows * h * width * mats / n,
                 up_w + rows * h * ba, rows * width * ba / n,
                 [*why, f"ops = 2·T{'·' + _g(times * ops_share) if times * ops_share != 1 else ''}"
                        f"·hidden·{mats}·width{self.share} = 2·{_g(T)}·{_g(h)}·{mats}·{_g(width)}"
                        + (f"·{_g(times * ops_share)}" if times * ops_share != 1 else "")
                        + f" / {n} = {_g(2 * rows * h * width * mats / n)}",
                  f"weights = {_g(weight_share) + '·' if weight_share != 1 else ''}{mats}·hidden·"
                  f"width·b_w{self.share} = {_b(up_w)} ({self.bw_text(part)})"], up_w)
        self.add(f"{name} down", group, count, 2 * rows * width * h / n,
                 down_w + rows * width * ba / n, rows * h * ba,
                 [f"ops = 2·T·width·hidden{self.share} = {_g(2 * rows * width * h / n)}",
                  f"weights = {_g(weight_share) + '·' if weight_share != 1 else ''}width·hidden·"
                  f"b_w{self.share} = {_b(down_w)}"], down_w)

    def experts(self) -> None:
        cfg, w, n, T, ba = self.cfg, self.w, self.n, self.T, self.ba
        h, E, k, e = cfg.hidden, cfg.experts, cfg.experts_per_token, w.expert_parallel
        count = cfg.moe_layers
        bw = self.bw("router")
        router_w = h * E * bw
        self.add("MoE router", "router", count, 2 * T * h * E, router_w + T * h * ba, T * E * ba,
                 [f"ops = 2·T·hidden·E = {_g(2 * T * h * E)} (every chip routes its tokens)",
                  f"weights = hidden·E·b_w = {_b(router_w)}"], router_w)
        touched = experts_touched(E, k, T)
        f = w.moe_imbalance if e > 1 else 1.0
        busy = min(E, f * touched)
        route = [f"{E} experts, {k} per token; T = {_g(T)} tokens route to {_g(T * k)} "
                 f"token-expert pairs",
                 f"experts whose weights a step reads = E·(1 − (1 − k/E)^T) = {E}·(1 − (1 − {k}/"
                 f"{E})^{_g(T)}) = {touched:.4g} (routing spread evenly; at batch 1 in decode that "
                 f"is k = {k}, and with enough tokens every expert)"]
        if e > 1:
            route.append(f"expert parallelism: the experts spread over e = {e} chips, E/e = "
                         f"{E // e} each" + (f", each split N/e = {n // e} ways" if n > e else "")
                         + (f"; the busiest chip takes {f:g}× the mean (routing is never "
                            f"perfectly even): {_g(busy)} experts' worth of weights and {f:g}× "
                            "the mean ops" if f != 1 else "; routing taken as perfectly even "
                                                          "(imbalance 1)"))
        self.mlp("Routed experts", "routed experts", count, cfg.expert_width, k, "experts", route,
                 weight_share=busy, ops_share=f)
        if cfg.shared_experts:
            s = cfg.shared_experts
            self.mlp("Shared experts" if s > 1 else "Shared expert", "shared experts", count,
                     cfg.shared_width, s, "experts",
                     [f"{s} shared expert{'s' if s > 1 else ''} of width {cfg.shared_width}: every "
                      "token goes through, so their weights are read every step"],
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
            self.mlp("MLP", "MLP", cfg.dense_layers, cfg.intermediate, 1, "mlp",
                     [f"{cfg.dense_layers} dense layers of width {cfg.intermediate}"]
                     if cfg.moe else [])
        if cfg.moe:
            self.experts()
        norm = "LayerNorm" if cfg.gpt2 else "RMSNorm"
        k = 4 if cfg.gpt2 else cfg.norms_per_layer
        ops_per, bytes_per = 4 * k + 2, 2 * k + 6
        self.add(f"{norm}s and residual adds", "norms", cfg.layers, ops_per * T * h,
                 (bytes_per - 2) * T * h * ba, 2 * T * h * ba,
                 [f"{k} {norm}s (about 4 ops per value: square, sum, scale, weight) and 2 residual "
                  f"adds (1 op per value): ops = {ops_per}·T·hidden = {_g(ops_per * T * h)}",
                  f"bytes: each norm reads and writes T·hidden values, each add reads 2 and writes "
                  f"1: {bytes_per}·T·hidden·b_a = {_b(bytes_per * T * h * ba)} (not split over the "
                  "N chips)"])
        be = self.bw("embedding")
        emb = T * h * (be + ba) + 2 * T * h * ba
        self.add("Embedding lookup and final norm", "head", 1, 4 * T * h, emb - T * h * ba,
                 T * h * ba,
                 [f"gather T rows of the embedding table: T·hidden·b_w = {_b(T * h * be)}, "
                  "written as activations; the final norm reads and writes them once more",
                  f"ops = 4·T·hidden = {_g(4 * T * h)} (the norm; a lookup does no arithmetic)"],
                 T * h * be)
        V = cfg.vocab
        head_w = h * V * self.bw("head") / n
        R = T if self.train else B  # rows of logits
        rows = (f"logits for every token (the loss): T = {_g(T)}" if self.train else
                f"logits for the last token of each of the B = {_g(B)} sequences")
        self.add("LM head (logits)", "head", 1, 2 * R * h * V / n, head_w + R * h * ba,
                 R * V * ba / n,
                 [rows, f"ops = 2·{'T' if self.train else 'B'}·hidden·vocab{self.share} = "
                        f"2·{_g(R)}·{_g(h)}·{_g(V)} / {n} = {_g(2 * R * h * V / n)}",
                  f"weights = hidden·vocab·b_w{self.share} = {_b(head_w)}"
                  + (" (tied: the embedding table read again)" if cfg.tied else "")], head_w)
        link, link_steps, parts = self.link()
        notes = list(cfg.notes)
        limit = w.spec.get("max_position_embeddings", w.spec.get("n_positions"))
        length = L if self.decode else S
        if isinstance(limit, int) and not isinstance(limit, bool) and length > limit:
            notes.append(f"{'L' if self.decode else 'S'} = {length} is beyond the model's "
                         f"{limit} positions (max_position_embeddings): it would need a longer "
                         "context than it was trained for")
        for window, layers in cfg.windows:
            if window:
                notes.append(f"{cfg.window_kind} of {window} tokens in {layers} of {cfg.layers} "
                             "layers: their KV cache keeps (and decode attends) the last "
                             f"{window} tokens only")
        if w.weights in BLOCK_FORMATS or w.activations in BLOCK_FORMATS or \
                w.kv_cache in BLOCK_FORMATS:
            for fmt in dict.fromkeys((w.weights, w.activations, w.kv_cache)):
                if fmt in BLOCK_FORMATS:
                    roles = [name for name, f in (("weights", w.weights), ("activations",
                             w.activations), ("KV cache", w.kv_cache)) if f == fmt]
                    notes.append(f"{' and '.join(roles)} stored as {FORMAT_WORDS[fmt]} = "
                                 f"{BYTES_PER_VALUE[fmt]:g} bytes a value"
                                 + (f"; the math in {compute_precision(fmt)}"
                                    if fmt == w.activations else ""))
        weights_held, weight_text = self.weights_held()
        parameters = cfg.total_parameters()
        if w.mtp:  # the MTP module held beside the model, for speculative decoding
            extra = cfg.mtp_layers * cfg.mtp_parameters()
            parameters += extra
            weights_held += extra * self.bw("experts") / n
            weight_text += (f"; and the multi-token prediction module{'s' if cfg.mtp_layers > 1 else ''}"
                            f" {parameters_text(extra)} parameters · b_w"
                            + (f" ÷ {n}" if n > 1 else "") + f" = {_b(extra * self.bw('experts') / n)}")
            notes.append(f"the multi-token prediction module ({parameters_text(extra)} "
                         f"parameters) is held beside the model ({parameters_text(parameters)} in "
                         "all); its own work, as speculative decoding's draft, is not counted")
        cache = sum(per * self.aB * self.held(window) * layers * self.bkv
                    for per, window, layers in self.kv_per_token_layer)
        held_text = ", ".join(f"{layers} layers × {_g(self.held(window))} tokens"
                              for _, window, layers in self.kv_per_token_layer)
        resident = (weight_text,
                    f"KV cache {self.cache_formula} = {_b(cache)}"
                    + (f" ({held_text})" if len(self.kv_per_token_layer) > 1 else ""))
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
            split += " (the attention's weights whole on every chip: attention data parallel)"
        if len(by_bytes) > 1:  # say which parameters take how many bytes
            each = ", ".join(f"{parameters_text(v)} parameters at {b:g} bytes"
                             for b, v in sorted(by_bytes.items()))
            text = f"weights: {each}{split} = {_b(held)}"
        else:
            text = (f"weights {parameters_text(cfg.total_parameters())} parameters · b_w{split} = "
                    f"{_b(held)}")
        return held, text

    def link(self) -> tuple[float, tuple[str, ...], tuple[tuple[str, float], ...]]:
        cfg, w, n, T, ba = self.cfg, self.w, self.n, self.T, self.ba
        h, e = cfg.hidden, w.expert_parallel
        if n == 1:
            return 0.0, (), ()
        per = 2 * (n - 1) / n * T * h * ba
        moe = cfg.moe_layers
        reduces = (0 if self.dp else cfg.layers) + cfg.dense_layers + (moe if e == 1 else 0)
        after = [*([] if self.dp else ["attention in every layer"]),
                 *(["each MLP"] if e == 1 or cfg.dense_layers else [])]
        steps = [f"all-reduce of the activations after {' and after '.join(after) or 'nothing'}"
                 + (" (attention data parallel: the attention needs none; gathering its tokens "
                    "for a tensor-parallel MLP costs as much as one)" if self.dp else "")
                 + f", each sending 2·(N−1)/N·T·hidden·b_a = 2·{n - 1}/{n}·{_g(T)}·{_g(h)}·"
                   f"{ba:g} = {_b(per)} per chip",
                 f"all-reduces per step: {reduces} · {_b(per)} = {_b(reduces * per)} per chip"]
        all_reduce = reduces * per
        all_to_all = 0.0
        if e > 1 and moe:
            f = w.moe_imbalance
            k = cfg.experts_per_token
            one = 2 * (T * k * f / e) * (e - 1) / e * h * ba
            all_to_all = moe * one
            steps.append(f"all-to-all in each of the {moe} MoE layers: dispatch and combine, each "
                         f"chip receiving T·k/e = {_g(T * k / e)} token vectors"
                         + (f" (× {f:g}, the busiest)" if f != 1 else "")
                         + f", (e−1)/e = {e - 1}/{e} of them from other chips: 2·{_g(T * k * f / e)}·"
                           f"{e - 1}/{e}·{_g(h)}·{ba:g} = {_b(one)} per layer, {_b(all_to_all)} per "
                           "step")
            t = n // e
            if t > 1:
                inner = 2 * (t - 1) / t * T * h * ba * moe
                all_reduce += inner
                steps.append(f"each expert split N/e = {t} ways: an all-reduce over them per MoE "
                             f"layer, {_b(inner)} per step")
        parts = tuple((name, v) for name, v in (("all-reduce", all_reduce),
                                                ("all-to-all", all_to_all)) if v)
        return all_reduce + all_to_all, tuple(steps), parts
