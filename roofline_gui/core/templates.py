"""Kernel templates: ops and compulsory bytes derived from a kernel's parameters.

Each template is a function ``f(p, b) -> Traffic`` where ``p`` maps parameter names to numbers
(or numpy arrays of equal shape, so a parameter sweep is one call) and ``b`` is the bytes per
stored value of the kernel's storage precision (fp32 4, bf16 2, int8 1, int4 0.5). Its docstring
states the formula with units; the UI shows it, and ``steps`` fills the numbers in.

Conventions: ops count every add and every multiply (one MAC = 2 ops); bytes are compulsory
traffic: each operand read once (inputs, weights) or written once (outputs), as if caches were
perfect. Real kernels move at least this much.

Where each operand lives (``Template.operands``, a kernel's ``resides``): ``dram`` (the default)
puts its bytes on main memory; ``cache`` keeps it in the chip's on-chip level across calls (the
article's fixed ``a`` and ``b``, the TPU's activations in its unified buffer): no main-memory
bytes, its reads and writes at that level, and it must fit there; ``host`` brings it over the
host link every call (and its bytes are counted there only).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from roofline_gui.core.i18n import N_, _


@dataclass(frozen=True)
class Traffic:
    """Ops and bytes of one kernel call. ``bytes`` and ``writes`` map memory role -> bytes;
    ``writes`` is the part of ``bytes`` that is written (for chips with a write bandwidth)."""

    ops: float
    bytes: dict[str, float]
    writes: dict[str, float] = field(default_factory=dict)
    steps: tuple[str, ...] = ()
    #: bytes that must stay in the on-chip level across calls (operands that live in ``cache``)
    resident: float = 0.0
    #: (operand name, residence) of those not in main memory, in formula order
    placed: tuple[tuple[str, str], ...] = ()


#: Where an operand may live, and how the formula says it.
RESIDENCES: tuple[str, ...] = ("dram", "cache", "host")
RESIDENCE_LABELS: dict[str, str] = {
    "dram": N_("main memory"),
    "cache": N_("on chip (kept across calls)"),
    "host": N_("host link (every call)"),
}
#: An operand's role in the kernel.
OPERAND_ROLES: tuple[str, ...] = ("input", "weight", "output")


@dataclass(frozen=True)
class Operand:
    """One array a kernel reads (an input or a weight) or writes (an output)."""

    name: str
    role: str
    label: str = ""  # what it is, for the form: "the weights W"


@dataclass(frozen=True)
class Counted:
    """What a template function gives: ops, each operand's bytes per call (in
    ``Template.operands`` order) and the formula's steps with the numbers filled in."""

    ops: float
    operands: dict[str, float]
    steps: tuple[str, ...] = ()


def place(operands: tuple[Operand, ...], counted: Counted,
          resides: Mapping[str, str] | None = None) -> Traffic:
    """The bytes of each memory role from where each operand lives: reads of inputs and weights,
    writes of outputs, at the operand's level. The steps gain a line per level the bytes go to
    when not every operand is in main memory."""
    resides = resides or {}
    nbytes: dict[str, float] = {}
    writes: dict[str, float] = {}
    names: dict[str, list[str]] = {}
    resident = 0.0
    for op in operands:
        value = counted.operands[op.name]
        level = resides.get(op.name, "dram")
        nbytes[level] = nbytes.get(level, 0.0) + value
        if op.role == "output":
            writes[level] = writes.get(level, 0.0) + value
        if level == "cache":
            resident = resident + value
        names.setdefault(level, []).append(op.name)
    steps = counted.steps
    placed = tuple((op.name, resides[op.name]) for op in operands
                   if resides.get(op.name, "dram") != "dram")
    if placed:
        lines = []
        for level in RESIDENCES:
            if level not in names:
                continue
            parts = [f"{name} {_g(counted.operands[name])}" for name in names[level]]
            total = f" = {_g(nbytes[level])} B" if len(parts) > 1 else " B"
            lines.append(f"{_(RESIDENCE_LABELS[level])}: {' + '.join(parts)}{total}")
        if "dram" not in names:
            lines.append(_("no main-memory bytes: every operand stays off main memory"))
        steps = (*steps, _("bytes by where each operand lives:"),
                 *(f"  {line}" for line in lines))
    return Traffic(counted.ops, nbytes, writes, tuple(steps), resident, placed)


@dataclass(frozen=True)
class Param:
    """One parameter of a template (a matrix size, a batch): its label, default and range."""

    name: str
    label: str
    default: float
    minimum: float = 1
    maximum: float = 1e9
    integer: bool = True


@dataclass(frozen=True)
class Template:
    """A kernel formula: ``function(params, bytes per value)`` gives the ops and bytes of one
    call; ``main_param`` is what dragging the kernel on the chart changes."""

    id: str
    name: str
    category: str
    params: tuple[Param, ...]
    main_param: str
    function: Callable[[Mapping[str, float], float], Counted]
    # What sets a kernel apart from others of its template, for its name: "4096×4096, batch 8".
    title: Callable[[Mapping[str, float]], str] = lambda p: ""
    #: the arrays it reads and writes, in formula order (each can live elsewhere: ``resides``)
    operands: tuple[Operand, ...] = ()

    @property
    def formula(self) -> str:
        """The formula text (``FORMULAS``), in the interface's language."""
        return _(FORMULAS[self.id])

    def defaults(self) -> dict[str, float]:
        return {p.name: p.default for p in self.params}

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def describe(self, params: Mapping[str, float]) -> str:
        """A name from the parameters, as the presets are named: 'MLP layer 4096×4096, batch 8'."""
        return self.title({**self.defaults(), **params})

    def phrase(self, params: Mapping[str, float], translated: bool = False) -> str:
        """How the main parameter reads inside a name: 'batch 8', 'S = 2048'; ``translated``,
        as a name in the interface's language says it ('バッチ 8')."""
        value = {**self.defaults(), **params}[self.main_param]
        text = _PHRASES.get(self.main_param, self.main_param + " = {}")
        return (_(text) if translated else text).format(_count(value))

    def operand(self, name: str) -> Operand:
        return next(op for op in self.operands if op.name == name)

    def traffic(self, params: Mapping[str, float], bytes_per_value: float,
                resides: Mapping[str, str] | None = None) -> Traffic:
        merged = {**self.defaults(), **params}
        return place(self.operands, self.function(merged, bytes_per_value), resides)


def _g(x: float) -> str:
    """Numbers in formula steps: exact integers up to 1e6, else 4 significant digits."""
    if np.ndim(x):  # a parameter sweep: the steps are not shown, only the numbers are used
        return "…"
    x = float(x)
    return f"{x:,.0f}" if x.is_integer() and abs(x) < 1e6 else f"{x:.4g}"


def _count(x: float) -> str:
    """Counts in names: 100M and 2k where exact; 4096 stays 4096, as people write it."""
    x = float(x)
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale and (x / scale).is_integer():
            return f"{x / scale:.0f}{suffix}"
    return f"{x:.0f}" if x.is_integer() else f"{x:g}"


# The main parameter's phrase inside a name (Template.phrase); others read "name = value".
#: the main parameter's phrase in a kernel's name (marked: a name in Japanese says 'バッチ 8')
_PHRASES = {"batch": N_("batch {}"), "seq": "S = {}", "group": "GQA {}",
            "fused_ops": N_("{} fused ops"), "n": "n = {}", "nnz": N_("{} non-zeros"),
            "steps": "T = {}"}


def _edges(*dims: float) -> str:
    """'4096³' when the edges are equal, else '4096×1024×512'."""
    if len(set(dims)) == 1:
        return _count(dims[0]) + "³"
    return "×".join(_count(d) for d in dims)


#: Each template's formula as the kernel form shows it (translated where shown): what it
#: counts, with units, and why; its function below fills the numbers in.
FORMULAS: dict[str, str] = {
    "elementwise": N_(
        "out[i] = a[i] + b[i] over n elements, f ops fused per element (f = 1: a plain add).\n"
        "ops   = f·n                    (1 add per element; fusing a chain of f ops raises it)\n"
        "bytes = 3·n·b                  (read a, read b, write out; b = bytes per value)\n"
        "intensity = f / (3·b) op/B     (a plain add: int8 1/3 op/B, fp32 1/12 op/B)"),
    "triad": N_(
        "STREAM triad a[i] = b[i] + s·c[i] over n elements.\n"
        "ops   = 2·n                    (1 multiply + 1 add per element)\n"
        "bytes = 3·n·b                  (read b and c, write a; STREAM's count. A cache with\n"
        "                                write-allocate also reads a first: 4·n·b on the bus)"),
    "dot": N_(
        "Dot product / reduction s = Σ x[i]·y[i] over n elements.\n"
        "ops   = 2·n                    (1 multiply + 1 add per element)\n"
        "bytes = 2·n·b + b              (read x and y, write the scalar s)"),
    "gemm": N_(
        "Matrix multiply C[m×n] = A[m×k] · B[k×n].\n"
        "ops   = 2·m·n·k                (one MAC = 2 ops per m·n·k)\n"
        "bytes = (m·k + k·n + m·n)·b    (read A and B once, write C once)\n"
        "intensity → (2·m·n·k) / ((m·k + k·n + m·n)·b); for m = n = k: 2n / (3b)"),
    "mlp": N_(
        "Dense (fully connected / MLP) layer y[B×d_out] = x[B×d_in] · W[d_in×d_out].\n"
        "ops   = 2·B·d_in·d_out               (B = batch size)\n"
        "bytes = (d_in·d_out + B·d_in + B·d_out)·b\n"
        "        (weights read once and reused by every row of the batch; activations in and out)\n"
        "intensity ≈ 2·B / b for B ≪ d: doubling the batch doubles the intensity"),
    "conv2d": N_(
        "2-D convolution, 'same' padding: batch B, C_in → C_out channels, H×W image,\n"
        "K×K filter, stride s; output Ho = ⌈H/s⌉, Wo = ⌈W/s⌉.\n"
        "ops   = 2·B·C_out·Ho·Wo·C_in·K·K\n"
        "bytes = (B·C_in·H·W + C_in·C_out·K·K + B·C_out·Ho·Wo)·b\n"
        "        (input image, weights and output each moved once; the weights slide over every\n"
        "         pixel and every image of the batch, which is the reuse that makes CNNs compute-bound)"),
    "lstm": N_(
        "One LSTM time step, batch B, input size x, hidden size h (4 gates).\n"
        "ops   = 2·B·4h·(x + h)             (the gate matrix multiplies; pointwise work, about\n"
        "                                    10·B·h, is left out as it is ≪ 1%)\n"
        "bytes = (4h·(x + h) + B·(x + 2h) + 2·B·h)·b\n"
        "        (weights once per step, reused across the batch; read input, h and c; write h and c)\n"
        "intensity ≈ 2·B / b: at batch 1 every weight byte serves 2 ops, so it is memory-bound"),
    "attention_prefill": N_(
        "Self-attention over a prompt (prefill), fused (FlashAttention-style: the S×S score\n"
        "matrix stays on chip). Batch B, sequence S, H heads of dimension D.\n"
        "ops   = 4·B·H·S²·D                 (Q·Kᵀ and P·V, 2·S²·D each per head)\n"
        "bytes = 4·B·H·S·D·b                (read Q, K, V; write O)\n"
        "intensity = S / b: longer prompts are more compute-bound"),
    "attention_decode": N_(
        "Attention for one new token per sequence (decode) against a KV cache of L tokens.\n"
        "Batch B, KV heads Hkv, G query heads per KV head (grouped-query attention), head dim D.\n"
        "ops   = 4·B·Hkv·G·L·D              (q·Kᵀ and p·V for each query head)\n"
        "bytes = 2·B·Hkv·L·D·b + 2·B·Hkv·G·D·b\n"
        "        (read the K and V caches; read q, write o)\n"
        "intensity ≈ 2·G / b: each sequence has its own cache, so batching does not help;\n"
        "sharing a KV head among G query heads does"),
    "spmv": N_(
        "Sparse matrix × vector, CSR, square n×n with nnz non-zeros, index width i bytes.\n"
        "ops   = 2·nnz                            (1 multiply + 1 add per non-zero)\n"
        "bytes = nnz·(b + i) + (n + 1)·i + 2·n·b  (values and column indices, row pointers,\n"
        "                                          x read once (ideal cache), y written)\n"
        "intensity ≈ 2 / (b + i): fp64 with 4-byte indices gives 1/6 op/B"),
    "stencil7": N_(
        "7-point 3-D stencil on an nx×ny×nz grid, T time steps fused per sweep (temporal blocking).\n"
        "ops   = 8·N·T                  (N = nx·ny·nz; 7 multiply-adds ≈ 8 ops per point per step)\n"
        "bytes = 2·N·b                  (read the grid once, write it once per fused sweep;\n"
        "                                write-allocate caches add N·b more)\n"
        "intensity = 4·T / b: fusing steps is how a stencil climbs the roof"),
    "fft3d": N_(
        "Complex 3-D FFT of an n×n×n grid, N = n³ points (b = bytes per real component).\n"
        "ops   = 5·N·log2(N)            (the standard radix-2 count)\n"
        "bytes = 2·N·2b                 (read and write N complex values once; an out-of-cache\n"
        "                                FFT makes several passes and moves more)\n"
        "intensity = 5·log2(N) / (4b)"),
}


def _c(ops, operands: dict, *steps: str) -> Counted:
    return Counted(ops, operands, tuple(steps))


def elementwise(p, b):
    """The counts of ``FORMULAS["elementwise"]``, its steps with the numbers filled in."""
    n, f = p["n"], p["fused_ops"]
    return _c(f * n, {"a": n * b, "b": n * b, "out": n * b},
              f"ops = f·n = {_g(f)}·{_g(n)} = {_g(f * n)}",
              f"bytes = 3·n·b = 3·{_g(n)}·{_g(b)} = {_g(3 * n * b)} B")


def triad(p, b):
    """The counts of ``FORMULAS["triad"]``, its steps with the numbers filled in."""
    n = p["n"]
    return _c(2 * n, {"b": n * b, "c": n * b, "a": n * b},
              f"ops = 2·n = 2·{_g(n)} = {_g(2 * n)}",
              f"bytes = 3·n·b = 3·{_g(n)}·{_g(b)} = {_g(3 * n * b)} B")


def dot(p, b):
    """The counts of ``FORMULAS["dot"]``, its steps with the numbers filled in."""
    n = p["n"]
    return _c(2 * n, {"x": n * b, "y": n * b, "s": b + 0 * n},
              f"ops = 2·n = {_g(2 * n)}",
              f"bytes = 2·n·b + b = {_g(2 * n * b + b)} B")


def gemm(p, b):
    """The counts of ``FORMULAS["gemm"]``, its steps with the numbers filled in."""
    m, n, k = p["m"], p["n"], p["k"]
    ops = 2 * m * n * k
    reads = (m * k + k * n) * b
    writes = m * n * b
    return _c(ops, {"A": m * k * b, "B": k * n * b, "C": writes},
              f"ops = 2·m·n·k = 2·{_g(m)}·{_g(n)}·{_g(k)} = {_g(ops)}",
              f"bytes = (m·k + k·n + m·n)·b = ({_g(m * k)} + {_g(k * n)} + {_g(m * n)})·{_g(b)}"
              f" = {_g(reads + writes)} B")


def mlp(p, b):
    """The counts of ``FORMULAS["mlp"]``, its steps with the numbers filled in."""
    bs, di, do = p["batch"], p["d_in"], p["d_out"]
    ops = 2 * bs * di * do
    weights = di * do * b
    acts = bs * (di + do) * b
    return _c(ops, {"W": weights, "x": bs * di * b, "y": bs * do * b},
              f"ops = 2·B·d_in·d_out = 2·{_g(bs)}·{_g(di)}·{_g(do)} = {_g(ops)}",
              _("weights = d_in·d_out·b = {bytes} B (read once for the whole batch)").format(
                  bytes=_g(weights)),
              _("activations = B·(d_in + d_out)·b = {bytes} B").format(bytes=_g(acts)),
              f"bytes = {_g(weights + acts)} B")


def conv2d(p, b):
    """The counts of ``FORMULAS["conv2d"]``, its steps with the numbers filled in."""
    bs, ci, co = p["batch"], p["c_in"], p["c_out"]
    h, w, k, s = p["height"], p["width"], p["kernel"], p["stride"]
    ho, wo = np.ceil(h / s), np.ceil(w / s)
    ops = 2 * bs * co * ho * wo * ci * k * k
    inp, wts, out = bs * ci * h * w * b, ci * co * k * k * b, bs * co * ho * wo * b
    return _c(ops, {"input": inp, "weights": wts, "output": out},
              _("output = {ho}×{wo}").format(ho=_g(ho), wo=_g(wo)),
              f"ops = 2·B·C_out·Ho·Wo·C_in·K² = {_g(ops)}",
              _("bytes = input {input} + weights {weights} + output {output} = {bytes} B").format(
                  input=_g(inp), weights=_g(wts), output=_g(out), bytes=_g(inp + wts + out)))


def lstm(p, b):
    """The counts of ``FORMULAS["lstm"]``, its steps with the numbers filled in."""
    bs, x, h = p["batch"], p["input"], p["hidden"]
    ops = 2 * bs * 4 * h * (x + h)
    weights = 4 * h * (x + h) * b
    acts = bs * (x + 2 * h) * b + 2 * bs * h * b
    return _c(ops, {"W": weights, "x": bs * x * b, "h, c": 2 * bs * h * b, "h', c'": 2 * bs * h * b},
              f"ops = 2·B·4h·(x+h) = 2·{_g(bs)}·4·{_g(h)}·({_g(x)}+{_g(h)}) = {_g(ops)}",
              _("weights = 4h·(x+h)·b = {bytes} B").format(bytes=_g(weights)),
              _("activations = {bytes} B").format(bytes=_g(acts)),
              f"bytes = {_g(weights + acts)} B")


def attention_prefill(p, b):
    """The counts of ``FORMULAS["attention_prefill"]``, its steps with the numbers filled in."""
    bs, s, h, d = p["batch"], p["seq"], p["heads"], p["head_dim"]
    ops = 4 * bs * h * s * s * d
    io = 4 * bs * h * s * d * b
    return _c(ops, {"Q": io / 4, "K": io / 4, "V": io / 4, "O": io / 4},
              f"ops = 4·B·H·S²·D = 4·{_g(bs)}·{_g(h)}·{_g(s)}²·{_g(d)} = {_g(ops)}",
              f"bytes = 4·B·H·S·D·b = {_g(io)} B")


def attention_decode(p, b):
    """The counts of ``FORMULAS["attention_decode"]``, its steps with the numbers filled in."""
    bs, ctx, hkv, g, d = p["batch"], p["context"], p["kv_heads"], p["group"], p["head_dim"]
    ops = 4 * bs * hkv * g * ctx * d
    kv = 2 * bs * hkv * ctx * d * b
    qo = 2 * bs * hkv * g * d * b
    return _c(ops, {"KV cache": kv, "q": qo / 2, "o": qo / 2},
              f"ops = 4·B·Hkv·G·L·D = {_g(ops)}",
              _("KV cache = 2·B·Hkv·L·D·b = {bytes} B").format(bytes=_g(kv)),
              f"bytes = {_g(kv + qo)} B")


def spmv(p, b):
    """The counts of ``FORMULAS["spmv"]``, its steps with the numbers filled in."""
    n, nnz, i = p["rows"], p["nnz"], p["index_bytes"]
    ops = 2 * nnz
    mat = nnz * (b + i) + (n + 1) * i
    vec = 2 * n * b
    return _c(ops, {"matrix": mat, "x": n * b, "y": n * b},
              f"ops = 2·nnz = {_g(ops)}",
              _("matrix = nnz·(b+i) + (n+1)·i = {bytes} B").format(bytes=_g(mat)),
              _("vectors = 2·n·b = {bytes} B").format(bytes=_g(vec)),
              f"bytes = {_g(mat + vec)} B")


def stencil7(p, b):
    """The counts of ``FORMULAS["stencil7"]``, its steps with the numbers filled in."""
    n = p["nx"] * p["ny"] * p["nz"]
    t = p["steps"]
    return _c(8 * n * t, {"grid in": n * b, "grid out": n * b},
              _("N = {n} points").format(n=_g(n)),
              f"ops = 8·N·T = {_g(8 * n * t)}",
              f"bytes = 2·N·b = {_g(2 * n * b)} B")


def fft3d(p, b):
    """The counts of ``FORMULAS["fft3d"]``, its steps with the numbers filled in."""
    n = p["n"] ** 3
    ops = 5 * n * np.log2(n)
    io = 4 * n * b
    return _c(ops, {"x": io / 2, "X": io / 2},
              f"N = n³ = {_g(n)}",
              f"ops = 5·N·log2 N = {_g(ops)}",
              f"bytes = 4·N·b = {_g(io)} B")


def _p(name, label, default, minimum=1, maximum=1e9):
    return Param(name, label, default, minimum, maximum)


def _o(name, role, label):
    return Operand(name, role, label)


def _title_elementwise(p):
    return "out = a + b" + (f", {_count(p['fused_ops'])} fused ops" if p["fused_ops"] != 1 else "")


def _title_conv(p):
    k = _count(p["kernel"])
    stride = f", stride {_count(p['stride'])}" if p["stride"] != 1 else ""
    return (f"Conv {k}×{k}, {_count(p['c_in'])}→{_count(p['c_out'])} ch, "
            f"{_count(p['height'])}×{_count(p['width'])}{stride}, batch {_count(p['batch'])}")


def _title_stencil(p):
    steps = f", T = {_count(p['steps'])}" if p["steps"] != 1 else ""
    return f"7-point stencil {_edges(p['nx'], p['ny'], p['nz'])}{steps}"


TEMPLATES: dict[str, Template] = {
    t.id: t
    for t in (
        Template("elementwise", N_("Elementwise out = a + b"), N_("streaming"),
                 (_p("n", N_("elements n"), 1e8), _p("fused_ops", N_("fused ops per element f"), 1, 1, 1e6)),
                 "fused_ops", elementwise, _title_elementwise,
                 operands=(_o("a", "input", N_("input a")),
                           _o("b", "input", N_("input b")),
                           _o("out", "output", N_("the result out")))),
        Template("triad", N_("STREAM triad"), N_("streaming"),
                 (_p("n", N_("elements n"), 1e8),), "n", triad,
                 lambda p: f"STREAM triad, n = {_count(p['n'])}",
                 operands=(_o("b", "input", N_("input b")),
                           _o("c", "input", N_("input c")),
                           _o("a", "output", N_("the result a")))),
        Template("dot", N_("Dot product / reduction"), N_("streaming"),
                 (_p("n", N_("elements n"), 1e8),), "n", dot,
                 lambda p: f"Dot product, n = {_count(p['n'])}",
                 operands=(_o("x", "input", N_("vector x")),
                           _o("y", "input", N_("vector y")),
                           _o("s", "output", N_("the scalar s")))),
        Template("gemm", N_("GEMM (m, n, k)"), N_("dense linear algebra"),
                 (_p("m", N_("rows m"), 4096, 1, 1e7), _p("n", N_("columns n"), 4096, 1, 1e7),
                  _p("k", N_("inner k"), 4096, 1, 1e7)),
                 "m", gemm, lambda p: f"GEMM {_edges(p['m'], p['n'], p['k'])}",
                 operands=(_o("A", "input", N_("matrix A (m×k)")),
                           _o("B", "weight", N_("matrix B (k×n)")),
                           _o("C", "output", N_("the result C (m×n)")))),
        Template("mlp", N_("Dense / MLP layer"), N_("neural network"),
                 (_p("batch", N_("batch B"), 1, 1, 1e6), _p("d_in", N_("inputs d_in"), 4096),
                  _p("d_out", N_("outputs d_out"), 4096)), "batch", mlp,
                 lambda p: f"MLP layer {_count(p['d_in'])}×{_count(p['d_out'])}, batch {_count(p['batch'])}",
                 operands=(_o("W", "weight", N_("the weights W")),
                           _o("x", "input", N_("activations in x")),
                           _o("y", "output", N_("activations out y")))),
        Template("conv2d", N_("Conv2D layer"), N_("neural network"),
                 (_p("batch", N_("batch B"), 1, 1, 1e6), _p("c_in", N_("input channels"), 256),
                  _p("c_out", N_("output channels"), 256), _p("height", N_("height H"), 56),
                  _p("width", N_("width W"), 56), _p("kernel", N_("filter K"), 3, 1, 31),
                  _p("stride", N_("stride s"), 1, 1, 16)), "batch", conv2d, _title_conv,
                 operands=(_o("input", "input", N_("the input image")),
                           _o("weights", "weight", N_("the filter weights")),
                           _o("output", "output", N_("the output image")))),
        Template("lstm", N_("LSTM step"), N_("neural network"),
                 (_p("batch", N_("batch B"), 1, 1, 1e6), _p("input", N_("input size x"), 1024),
                  _p("hidden", N_("hidden size h"), 1024)), "batch", lstm,
                 lambda p: f"LSTM step, h = {_count(p['hidden'])}, batch {_count(p['batch'])}",
                 operands=(_o("W", "weight", N_("the gate weights W")),
                           _o("x", "input", N_("the input x")),
                           _o("h, c", "input", N_("the state h and c read")),
                           _o("h', c'", "output", N_("the state h and c written")))),
        Template("attention_prefill", N_("Attention, prefill"), N_("transformer"),
                 (_p("batch", N_("batch B"), 1), _p("seq", N_("sequence S"), 2048, 1, 1e7),
                  _p("heads", N_("heads H"), 32), _p("head_dim", N_("head dim D"), 128)),
                 "seq", attention_prefill,
                 lambda p: f"Attention prefill, S = {_count(p['seq'])}, batch {_count(p['batch'])}",
                 operands=(_o("Q", "input", N_("queries Q")),
                           _o("K", "input", N_("keys K")),
                           _o("V", "input", N_("values V")),
                           _o("O", "output", N_("the output O")))),
        Template("attention_decode", N_("Attention, decode (KV cache)"), N_("transformer"),
                 (_p("batch", N_("batch B"), 16), _p("context", N_("KV cache length L"), 4096),
                  _p("kv_heads", N_("KV heads Hkv"), 8),
                  _p("group", N_("query heads per KV head G"), 4, 1, 128),
                  _p("head_dim", N_("head dim D"), 128)), "group", attention_decode,
                 lambda p: (f"Attention decode, L = {_count(p['context'])}, GQA {_count(p['group'])}, "
                            f"batch {_count(p['batch'])}"),
                 operands=(_o("KV cache", "input", N_("the K and V caches")),
                           _o("q", "input", N_("the new queries q")),
                           _o("o", "output", N_("the output o")))),
        Template("spmv", N_("SpMV (CSR)"), N_("sparse"),
                 (_p("rows", N_("rows n"), 1e6), _p("nnz", N_("non-zeros"), 2.7e7, 1, 1e12),
                  _p("index_bytes", N_("index width i (B)"), 4, 1, 8)), "nnz", spmv,
                 lambda p: f"SpMV CSR, {_count(p['rows'])} rows, {_count(p['nnz'])} non-zeros",
                 operands=(_o("matrix", "weight", N_("the CSR matrix (values, indices, row pointers)")),
                           _o("x", "input", N_("vector x")),
                           _o("y", "output", N_("vector y")))),
        Template("stencil7", N_("7-point stencil"), N_("structured grid"),
                 (_p("nx", N_("nx"), 512), _p("ny", N_("ny"), 512), _p("nz", N_("nz"), 512),
                  _p("steps", N_("fused steps T"), 1, 1, 1000)), "steps", stencil7, _title_stencil,
                 operands=(_o("grid in", "input", N_("the grid read")),
                           _o("grid out", "output", N_("the grid written")))),
        Template("fft3d", N_("3-D FFT"), N_("spectral"),
                 (_p("n", N_("edge n"), 256, 2, 1e4),), "n", fft3d, lambda p: f"3-D FFT {_count(p['n'])}³",
                 operands=(_o("x", "input", N_("the input grid")),
                           _o("X", "output", N_("the transformed grid")),)),
    )
}
