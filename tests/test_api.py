"""The Python API: docs/api.md's example runs as written and gives the app's numbers."""

import os
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from roofline_gui import api as rf
from roofline_gui.core.comparison import compare
from roofline_gui.core.errors import RooflineError
from roofline_gui.io.files import resources_dir
from roofline_gui.io.session import load_session

DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def test_the_documented_example_runs_and_its_comments_are_true(tmp_path, monkeypatch, capsys):
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    monkeypatch.chdir(tmp_path)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    ns: dict = {}
    exec(compile(code, str(DOC), "exec"), ns)  # noqa: S102 -- the documented example itself
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "MLP layer 4096×4096, batch 8 (bf16)"
    assert printed[1] == "('A100 SXM4 40GB', 'TPU v3')"
    assert float(printed[2]) == pytest.approx(1.555e12 / 3 / 1e9)
    assert printed[3] == "['memory' 'memory']"
    assert printed[4] == "['bf16 peak' 'bf16 peak']"
    assert float(printed[5]) == pytest.approx(900 / 1555, rel=1e-3)
    assert float(printed[6]) == pytest.approx(2 * 4096**3 / 312e12, rel=1e-3)
    result = ns["result"]
    assert np.isnan(result.attainable[0, 1])  # TPU v3 has no int8
    rates = ns["rates"]
    assert rates.shape == (11, 2)
    assert np.all(np.diff(rates[:, 0]) >= 0)  # batching raises the rate, up to the compute roof
    assert rates[0, 0] == pytest.approx(1.555e12 * 1.0, rel=0.01)  # batch 1: ~1 op/B
    assert rates[-1, 0] == 312e12 and rates[-1, 1] == 123e12
    assert (tmp_path / "table.csv").read_text().count("\n") == 1 + 3 * 2
    assert float(printed[7]) == pytest.approx(219.17, rel=1e-4)
    assert printed[8] == "[ True  True]"
    tokens = ns["tokens"]
    assert tokens.shape == (13,) and tokens[0] == pytest.approx(float(printed[7]))
    assert np.all(np.diff(tokens) >= -1e-9)  # batching never lowers the throughput
    assert (tmp_path / "workloads.csv").read_text().count("\n") == 1 + 2
    assert (tmp_path / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert ns["again"] == ns["doc"]


def test_the_api_gives_the_numbers_the_app_gives_for_a_session():
    doc = load_session(resources_dir() / "examples" / "a100-vs-tpu-v3.roofline")
    ours = rf.evaluate(doc)
    app = compare(doc.kernels, doc.chips)
    np.testing.assert_array_equal(ours.attainable, app.result.attainable)
    assert ours.rows() == app.rows()
    derated = rf.evaluate(doc, derated=True)
    np.testing.assert_array_equal(derated.attainable, compare(doc.kernels, doc.chips, derated=True)
                                  .result.attainable)


def test_bad_requests_name_what_is_wrong():
    with pytest.raises(RooflineError, match="did you mean 'H100 SXM5 80GB'"):
        rf.chip("H100 SXM")
    with pytest.raises(RooflineError, match="mlp has no parameter 'batchx'; it has batch"):
        rf.kernel("mlp", "bf16", batchx=3)
    with pytest.raises(RooflineError, match=r"mlp.batch = 2.5: must be a whole number"):
        rf.kernel("mlp", "bf16", batch=2.5)
    with pytest.raises(RooflineError, match="precision 'bf17'"):
        rf.kernel("mlp", "bf17")
    with pytest.raises(RooflineError, match="no template 'mpl'"):
        rf.kernel("mpl", "bf16")


def test_a_session_gets_fresh_ids_and_distinct_colours_like_the_apps_add():
    h100 = rf.chip("nvidia-h100-sxm5-80gb")
    doc = rf.session([h100, h100, h100], [rf.kernel("gemm", "bf16")] * 2, baseline=1)
    assert [c.id for c in doc.chips] == ["c1", "c2", "c3"]
    assert [k.id for k in doc.kernels] == ["k1", "k2"]
    assert len({c.color for c in doc.chips}) == 3
    assert doc.baseline == "c2"


def test_workload_api_names_bad_parameters_and_gives_the_apps_numbers(tmp_path):
    from roofline_gui.core.workload_eval import evaluate_workloads

    with pytest.raises(RooflineError, match="batch"):
        rf.workload("llama-3-8b", batch=0)
    with pytest.raises(RooflineError, match="no parameter 'batchh'"):
        rf.workload("llama-3-8b", batchh=2)
    with pytest.raises(RooflineError, match="did you mean 'llama-3-8b'"):
        rf.workload("lama-3-8b")
    config = tmp_path / "tiny.json"
    config.write_text('{"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, '
                      '"vocab_size": 100}')
    tiny = rf.workload(config, name="tiny", batch=4, context=16)
    assert tiny.name == "tiny" and tiny.batch == 4
    chips = [rf.chip("nvidia-h100-sxm5-80gb")]
    ours = rf.evaluate_workloads(chips=chips, workloads=[tiny])
    app, = evaluate_workloads([tiny], chips)
    assert ours.time[0, 0] == app.time[0] and ours.rows() == [app.csv_row(0)]


def test_measured_values_beside_a_datasheet_from_python():
    from conftest import synthetic_measurement

    from roofline_gui.core.errors import ValidationError
    from roofline_gui.measure.machine import to_chip

    measured = to_chip(synthetic_measurement())  # L1 300, L2 150, DRAM 25 GB/s; fp64 80 GFLOP/s
    cpu = rf.chip("amd-epyc-9654-genoa")
    with pytest.raises(ValidationError, match="L1: .* has no such ceiling"):
        rf.with_measured(cpu, measured)
    cpu = rf.with_measured(replace(cpu, compute={"fp64": cpu.compute["fp64"]}),
                           replace(measured, memory=measured.memory[2:]))
    add = rf.kernel("elementwise", "fp64", n=1e8)
    assert rf.evaluate(chips=[cpu], kernels=[add]).attainable[0, 0] == pytest.approx(
        cpu.dram.bandwidth / 24)
    assert rf.evaluate(chips=[cpu], kernels=[add], derated=True).attainable[0, 0] == pytest.approx(
        25e9 / 24)


def test_measure_this_computer_from_python():
    chip = rf.measure_this_computer(sizes=[64 * 1024, 512 * 1024, 8 * 1024**2],
                                    gemm_sizes={"fp64": 64}, threads=1)
    assert chip.dram.measured is not None and "fp64" in chip.compute_measured


def test_a_kernel_says_where_its_operands_live():
    """The article's add with a and b kept on chip: two reads at the cache, one write to HBM;
    the A100 runs it against the HBM roof at 1 op/B (1.555 Top/s), three times the 518 Gop/s
    of the same add with every operand in HBM."""

    on_chip = rf.kernel("elementwise", "int8", resides={"b": "cache", "a": "cache"})
    assert on_chip.name == "out = a + b, a and b on chip (int8)"
    assert on_chip.traffic().bytes == {"cache": 2e8, "dram": 1e8}
    a100 = rf.chip("nvidia-a100-sxm4-40gb")
    plain = rf.kernel("elementwise", "int8")
    r = rf.evaluate(kernels=[plain, on_chip], chips=[a100])
    assert r.attainable[0, 0] == pytest.approx(1.555e12 / 3)
    assert r.attainable[1, 0] == pytest.approx(1.555e12)
    assert [name for name, *_ in rf.operands("mlp")] == ["W", "x", "y"]
    with pytest.raises(RooflineError, match="elementwise has no operand 'z'; it has a, b, out"):
        rf.kernel("elementwise", "int8", resides={"z": "cache"})
    with pytest.raises(RooflineError, match="one of dram, cache, host"):
        rf.kernel("elementwise", "int8", resides={"a": "l1"})
