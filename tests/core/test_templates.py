import math

import numpy as np
import pytest

from roofline_gui.core.kernel import Kernel
from roofline_gui.core.templates import TEMPLATES

REQUIRED = {"elementwise", "triad", "dot", "gemm", "mlp", "conv2d", "lstm", "attention_prefill",
            "attention_decode", "spmv", "stencil7", "fft3d"}


def test_all_required_templates_exist_with_a_formula():
    assert REQUIRED <= set(TEMPLATES)
    for template in TEMPLATES.values():
        assert "ops" in template.formula and "bytes" in template.formula, template.id
        assert template.main_param in {p.name for p in template.params}


@pytest.mark.parametrize(
    ("template", "params", "b", "ops", "nbytes"),
    [
        ("elementwise", {"n": 1000}, 1, 1000, 3000),
        ("elementwise", {"n": 1000, "fused_ops": 4}, 2, 4000, 6000),
        ("triad", {"n": 1000}, 8, 2000, 24000),
        ("dot", {"n": 1000}, 4, 2000, 8004),
        ("gemm", {"m": 4096, "n": 4096, "k": 4096}, 2, 2 * 4096**3, 3 * 4096**2 * 2),
        ("gemm", {"m": 10, "n": 20, "k": 30}, 4, 2 * 10 * 20 * 30, (300 + 600 + 200) * 4),
        ("mlp", {"batch": 8, "d_in": 100, "d_out": 50}, 2, 2 * 8 * 100 * 50, (5000 + 800 + 400) * 2),
        # 56x56 image, stride 2 -> 28x28 output.
        ("conv2d", {"batch": 2, "c_in": 3, "c_out": 4, "height": 56, "width": 56, "kernel": 3,
                    "stride": 2}, 1, 2 * 2 * 4 * 28 * 28 * 3 * 9,
         2 * 3 * 56 * 56 + 3 * 4 * 9 + 2 * 4 * 28 * 28),
        ("lstm", {"batch": 4, "input": 10, "hidden": 20}, 4, 2 * 4 * 80 * 30,
         (80 * 30 + 4 * 50 + 2 * 4 * 20) * 4),
        ("attention_prefill", {"batch": 1, "seq": 100, "heads": 2, "head_dim": 8}, 2,
         4 * 2 * 100 * 100 * 8, 4 * 2 * 100 * 8 * 2),
        ("attention_decode", {"batch": 2, "context": 100, "kv_heads": 2, "group": 4, "head_dim": 8},
         2, 4 * 2 * 2 * 4 * 100 * 8, (2 * 2 * 2 * 100 * 8 + 2 * 2 * 2 * 4 * 8) * 2),
        ("spmv", {"rows": 100, "nnz": 1000, "index_bytes": 4}, 8, 2000,
         1000 * 12 + 101 * 4 + 2 * 100 * 8),
        ("stencil7", {"nx": 10, "ny": 10, "nz": 10, "steps": 3}, 8, 8 * 1000 * 3, 2 * 1000 * 8),
        ("fft3d", {"n": 16}, 8, 5 * 4096 * 12, 4 * 4096 * 8),
    ],
)
def test_template_ops_and_bytes(template, params, b, ops, nbytes):
    t = TEMPLATES[template].traffic(params, b)
    assert t.ops == pytest.approx(ops)
    assert t.bytes["dram"] == pytest.approx(nbytes)
    assert 0 < t.writes["dram"] < t.bytes["dram"]
    assert t.steps, "the UI shows the formula with numbers filled in"


def test_bytes_follow_the_storage_precision():
    fp32 = Kernel("a", "a", "fp32", template="gemm", params={"m": 64, "n": 64, "k": 64})
    bf16 = Kernel("b", "b", "bf16", template="gemm", params={"m": 64, "n": 64, "k": 64})
    w8 = Kernel("c", "c", "bf16", storage_precision="int8", template="gemm",
                params={"m": 64, "n": 64, "k": 64})
    int4 = Kernel("d", "d", "int4", template="gemm", params={"m": 64, "n": 64, "k": 64})
    sizes = [k.traffic().bytes["dram"] for k in (fp32, bf16, w8, int4)]
    assert sizes == [3 * 64**2 * 4, 3 * 64**2 * 2, 3 * 64**2 * 1, 3 * 64**2 * 0.5]


def test_templates_accept_arrays_for_a_parameter_sweep():
    batches = np.array([1.0, 2.0, 4.0, 8.0])
    t = TEMPLATES["mlp"].traffic({"batch": batches}, 2)
    intensity = t.ops / t.bytes["dram"]
    assert intensity.shape == (4,)
    assert np.all(np.diff(intensity) > 0)


#: STREAM kernels have a fixed intensity by definition; dragging them changes only their size.
FIXED_INTENSITY = {"triad", "dot"}


@pytest.mark.parametrize("template_id", sorted(set(TEMPLATES) - FIXED_INTENSITY))
def test_main_parameter_moves_the_intensity(template_id):
    """Dragging a marker changes the main parameter, so it must move the point."""
    template = TEMPLATES[template_id]
    spec = template.param(template.main_param)
    lo = template.traffic({spec.name: max(spec.minimum, 2)}, 2)
    hi = template.traffic({spec.name: max(spec.minimum, 2) * 64}, 2)
    assert not math.isclose(lo.ops / lo.bytes["dram"], hi.ops / hi.bytes["dram"], rel_tol=1e-6)


# Each template's operands and their bytes per call, worked out by hand at b = 2 B per value
# from the formulas in the docstrings (not from the functions under test).
OPERAND_BYTES = {
    "elementwise": ({"n": 1000, "fused_ops": 1},
                    {"a": 2000, "b": 2000, "out": 2000}, {"out"}),
    "triad": ({"n": 1000}, {"b": 2000, "c": 2000, "a": 2000}, {"a"}),
    "dot": ({"n": 1000}, {"x": 2000, "y": 2000, "s": 2}, {"s"}),
    "gemm": ({"m": 10, "n": 20, "k": 30},
             {"A": 10 * 30 * 2, "B": 30 * 20 * 2, "C": 10 * 20 * 2}, {"C"}),
    "mlp": ({"batch": 8, "d_in": 100, "d_out": 50},
            {"W": 100 * 50 * 2, "x": 8 * 100 * 2, "y": 8 * 50 * 2}, {"y"}),
    "conv2d": ({"batch": 2, "c_in": 3, "c_out": 4, "height": 10, "width": 10, "kernel": 3,
                "stride": 2},
               {"input": 2 * 3 * 10 * 10 * 2, "weights": 3 * 4 * 3 * 3 * 2,
                "output": 2 * 4 * 5 * 5 * 2}, {"output"}),
    "lstm": ({"batch": 4, "input": 10, "hidden": 20},
             {"W": 4 * 20 * 30 * 2, "x": 4 * 10 * 2, "h, c": 2 * 4 * 20 * 2,
              "h', c'": 2 * 4 * 20 * 2}, {"h', c'"}),
    "attention_prefill": ({"batch": 2, "seq": 16, "heads": 4, "head_dim": 8},
                          {"Q": 2 * 4 * 16 * 8 * 2, "K": 2 * 4 * 16 * 8 * 2,
                           "V": 2 * 4 * 16 * 8 * 2, "O": 2 * 4 * 16 * 8 * 2}, {"O"}),
    "attention_decode": ({"batch": 2, "context": 100, "kv_heads": 4, "group": 3, "head_dim": 8},
                         {"KV cache": 2 * 2 * 4 * 100 * 8 * 2, "q": 2 * 4 * 3 * 8 * 2,
                          "o": 2 * 4 * 3 * 8 * 2}, {"o"}),
    "spmv": ({"rows": 100, "nnz": 1000, "index_bytes": 4},
             {"matrix": 1000 * (2 + 4) + 101 * 4, "x": 200, "y": 200}, {"y"}),
    "stencil7": ({"nx": 4, "ny": 5, "nz": 6, "steps": 3},
                 {"grid in": 120 * 2, "grid out": 120 * 2}, {"grid out"}),
    "fft3d": ({"n": 4}, {"x": 64 * 2 * 2, "X": 64 * 2 * 2}, {"X"}),
}


def test_every_template_lists_its_operands_in_formula_order_with_a_role():
    assert set(OPERAND_BYTES) == set(TEMPLATES)
    for tid, (_params, operands, outputs) in OPERAND_BYTES.items():
        template = TEMPLATES[tid]
        assert [op.name for op in template.operands] == list(operands), tid
        assert {op.name for op in template.operands if op.role == "output"} == outputs, tid
        assert all(op.role in ("input", "weight", "output") and op.label for op in template.operands)


@pytest.mark.parametrize("tid", sorted(OPERAND_BYTES))
def test_bytes_at_each_level_follow_where_each_operand_lives(tid):
    """Every operand moved to the cache, then to the host link, one at a time: its bytes leave
    main memory for that level, reads and writes alike; the ops do not change."""
    params, operands, outputs = OPERAND_BYTES[tid]
    template = TEMPLATES[tid]
    base = template.traffic(params, 2.0)
    total = sum(operands.values())
    assert base.bytes == pytest.approx({"dram": total})
    assert base.writes == pytest.approx({"dram": sum(operands[o] for o in outputs)})
    assert base.resident == 0 and base.placed == ()
    for name, size in operands.items():
        for level in ("cache", "host"):
            t = template.traffic(params, 2.0, {name: level})
            assert t.ops == base.ops
            expected = {level: size} if size == total else {"dram": total - size, level: size}
            assert t.bytes == pytest.approx(expected), (name, level)
            written = size if name in outputs else 0
            assert t.writes.get(level, 0) == pytest.approx(written)
            assert t.resident == (size if level == "cache" else 0)
            assert t.placed == ((name, level),)
            assert any(line.strip().startswith("on chip" if level == "cache" else "host link")
                       and name in line for line in t.steps)


def test_the_tpu_keeps_activations_on_chip_so_only_weight_bytes_reach_main_memory():
    """The TPU paper's axis is ops per weight byte: with input and output in the unified
    buffer, a conv layer's main-memory intensity grows with the batch without a limit."""
    conv = TEMPLATES["conv2d"]
    p = {"batch": 8, "c_in": 256, "c_out": 256, "height": 28, "width": 28, "kernel": 3, "stride": 1}
    t = conv.traffic(p, 1.0, {"input": "cache", "output": "cache"})
    weights = 256 * 256 * 9
    assert t.bytes["dram"] == weights
    assert t.ops / t.bytes["dram"] == pytest.approx(2 * 8 * 28 * 28)  # 12,544 op/B at batch 8
    assert t.resident == 2 * 8 * 256 * 28 * 28  # what the buffer must hold: 3.2 MB
