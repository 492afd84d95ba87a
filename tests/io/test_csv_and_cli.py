import csv
import io
import json
import subprocess
import sys

import pytest
from conftest import DATA, ROOT

from roofline_gui.core.comparison import CSV_COLUMNS
from roofline_gui.io.csv_export import export_csv
from roofline_gui.io.session import load_session


def run_app(*args):
    return subprocess.run([sys.executable, str(ROOT / "app.py"), *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


def test_csv_has_the_columns_in_order_and_the_core_numbers(tmp_path):
    out = tmp_path / "out.csv"
    assert export_csv(load_session(DATA / "session_v1.json"), out) == 6
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert tuple(rows[0]) == CSV_COLUMNS
    gemm_a100 = next(r for r in rows if r["chip"] == "A100 40GB" and r["kernel"] == "GEMM 4k")
    assert float(gemm_a100["attainable_flop_per_s"]) == 312e12
    assert gemm_a100["bound"] == "compute" and gemm_a100["limiter"] == "bf16 peak"
    assert float(gemm_a100["ridge_flop_per_byte"]) == pytest.approx(312e12 / 1.555e12)
    assert float(gemm_a100["time_s"]) == pytest.approx(2 * 4096**3 / 312e12)
    spmv_tpu = next(r for r in rows if r["chip"] == "TPU v3" and r["kernel"] == "SpMV")
    assert spmv_tpu["bound"] == "unsupported" and spmv_tpu["time_s"] == ""
    assert spmv_tpu["runs_at_precision"] == "" and gemm_a100["runs_at_precision"] == "bf16"


def test_csv_says_the_precision_a_chip_runs_anothers_at(tmp_path):
    """The article's V100 runs its bf16 kernels at its fp16: its rows said bf16 beside fp16's
    roof and ridge (125 Top/s over 900 GB/s), which read as a disagreement (the 38th tour)."""
    from roofline_gui.io.files import resources_dir

    out = tmp_path / "out.csv"
    export_csv(load_session(resources_dir() / "examples" / "the-article-claim-by-claim.roofline"),
               out, same_width=True)  # (as the example's window has it: fp16 for bf16)
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    v100 = next(r for r in rows if r["chip"].startswith("V100") and r["precision"] == "bf16")
    assert v100["runs_at_precision"] == "fp16"
    assert float(v100["ridge_flop_per_byte"]) == pytest.approx(125e12 / 900e9, rel=1e-3)


def test_csv_gives_each_kernels_bytes_per_call_at_each_level(tmp_path):
    out = tmp_path / "out.csv"
    export_csv(load_session(DATA / "session_v5.json"), out)
    rows = {r["kernel"]: r for r in csv.DictReader(io.StringIO(out.read_text()))}
    assert CSV_COLUMNS[-14:-10] == ("dram_bytes", "cache_bytes", "host_bytes", "link_bytes")
    add = rows["out = a + b, a and b on chip (int8)"]
    assert (add["dram_bytes"], add["cache_bytes"], add["host_bytes"], add["link_bytes"]) == (
        "100000000", "200000000", "", "")
    gemm = rows["GEMM 4096³, A and B over the host link (bf16)"]
    assert int(gemm["host_bytes"]) == 2 * 4096**2 * 2 and int(gemm["dram_bytes"]) == 4096**2 * 2
    assert gemm["limiter"] == "PCIe Gen4 x16"  # 67 MB at 32 GB/s: 2.1 ms, the slowest ceiling
    # what each ceiling is worth: twice the host link halves its 2.1 ms to 1.05 ms, still above
    # compute (0.44 ms): exactly 2x; twice anything else changes nothing
    assert CSV_COLUMNS[-10:-5] == ("speedup_if_2x_compute", "speedup_if_2x_dram",
                                  "speedup_if_2x_cache", "speedup_if_2x_host", "speedup_if_2x_link")
    # then energy (issue 28), from the A100 preset's 400 W board power: the host link has no
    # energy figure of its own, so a kernel that crosses it counts the board power over its time
    # (the bound that holds); estimates claim no cap, and the row says what its energy counts
    assert CSV_COLUMNS[-5:] == ("energy_j", "flop_per_joule", "average_power_w", "power_capped",
                                "energy_basis")
    assert float(gemm["energy_j"]) == pytest.approx(400 * float(gemm["time_s"]))
    # the table's op/J: the kernel's ops over its joules
    ops = float(gemm["attainable_flop_per_s"]) * float(gemm["time_s"])
    assert float(gemm["flop_per_joule"]) == pytest.approx(ops / float(gemm["energy_j"]))
    assert float(gemm["average_power_w"]) == pytest.approx(400)
    assert gemm["power_capped"] == "no" and gemm["energy_basis"] == "board power x time"
    # the add's a and b in the L2, whose energy has no figure: at its own upper bound (the
    # board's power over its bandwidth) the sum passes the board power too
    assert add["energy_basis"] == "board power x time"
    assert (gemm["speedup_if_2x_host"], gemm["speedup_if_2x_compute"], gemm["speedup_if_2x_dram"],
            gemm["speedup_if_2x_link"]) == ("2", "1", "1", "1")
    # the add with a and b on chip: HBM (the write) limits; twice HBM 2x, twice the L2 nothing
    assert (add["speedup_if_2x_dram"], add["speedup_if_2x_cache"]) == ("2", "1")


def test_headless_csv_export_opens_no_window(tmp_path):
    out = tmp_path / "out.csv"
    result = run_app(DATA / "session_v1.json", "--export-csv", out)
    assert result.returncode == 0, result.stderr
    assert out.read_text().splitlines()[0] == ",".join(CSV_COLUMNS)


def test_bad_session_prints_every_problem_and_exits_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "roofline-session", "version": 1, "chips": [{"name": "X", '
                   '"compute": {"fp32": -1}, "memory": [{"role": "hbm", "bandwidth": 1}]}], '
                   '"kernels": [{"name": "G", "template": "gemm", "precision": "bf16", '
                   '"params": {"m": 1.5}}]}')
    result = run_app(bad, "--export-csv", tmp_path / "out.csv")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    for path in ("chips[0].compute.fp32", "chips[0].memory[0].role", "chips[0].memory[0].name",
                 "kernels[0].params.m"):
        assert path in result.stderr
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize(
    "args",
    [
        ("{missing}", "--export-csv", "{out}"),
        ("{bad_json}", "--export-csv", "{out}"),
        (str(DATA / "session_v1.json"), "--export-csv", "{unwritable}"),
    ],
)
def test_bad_input_exits_2_without_traceback(tmp_path, args):
    (tmp_path / "bad.json").write_text("{not json")
    values = {"missing": tmp_path / "nope.json", "bad_json": tmp_path / "bad.json",
              "out": tmp_path / "o.csv", "unwritable": tmp_path / "no" / "dir" / "o.csv"}
    result = run_app(*(a.format(**values) for a in args))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and result.stderr.strip()


def test_help_and_list_presets():
    help_text = run_app("--help").stdout
    assert "--export-csv" in help_text and "percent_of_peak" in help_text
    listing = run_app("--list-presets")
    assert listing.returncode == 0
    assert "google-tpu-v3" in listing.stdout and "add-int8" in listing.stdout


# -- workloads ---------------------------------------------------------------------------------

from roofline_gui.core.workload_eval import WORKLOAD_CSV_COLUMNS  # noqa: E402

LLAMA3 = ROOT / "resources" / "workloads" / "llama-3-8b.config.json"


def test_model_straight_from_its_config(tmp_path):
    """The issue's command line: columns in its order, and the numbers the core gives."""
    out = tmp_path / "w.csv"
    result = run_app("--model", LLAMA3, "--phase", "decode", "--batch", 1, "--context", 2048,
                     "--chips", "nvidia-h100-sxm5-80gb,amd-instinct-mi300x,google-tpu-v5e",
                     "--export-workloads", out)
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert tuple(rows[0]) == WORKLOAD_CSV_COLUMNS == (
        "chip", "workload", "phase", "batch", "sequence", "context", "chips_per_model",
        # the precisions it runs at (the defaults here)
        "weights", "activations", "kv_cache", "time_s", "time_no_overlap_s", "throughput_per_s",
        "throughput_unit", "memory_bound_time_share",
        "communication_time_share", "dominant_kernel", "unsupported_reason",
        # the training columns, in its order, after them (empty on inference rows)
        "data_parallel", "pipeline_parallel", "global_batch", "chips_total",
        "model_flops_per_token", "mfu_at_bound", "state_bytes_per_chip",
        "activation_bytes_per_chip", "fits", "train_days", "chip_hours",
        # then what each ceiling is worth (issue 27)
        "speedup_if_2x_compute", "speedup_if_2x_dram", "speedup_if_2x_cache",
        "speedup_if_2x_host", "speedup_if_2x_link",
        # then energy and cost (issue 28)
        "energy_per_step_j", "joules_per_item", "average_power_w", "power_capped", "energy_basis",
        "cost_per_million_items",
        # then the model's size and what each chip holds (issue 37), filled for every phase
        "parameters", "active_parameters", "weight_bytes_per_chip", "kv_cache_bytes_per_chip",
        # then a serving row's (issue 38), empty for the other phases
        "concurrency", "input_tokens", "output_tokens", "ttft_s", "tpot_s",
        "tokens_per_s_per_user", "tokens_per_s_per_chip", "meets_slo")
    # a training step's columns are empty but fits, which every row with a size fills
    first, last = WORKLOAD_CSV_COLUMNS.index("data_parallel"), WORKLOAD_CSV_COLUMNS.index("chip_hours")
    assert all(rows[0][k] == "" for k in WORKLOAD_CSV_COLUMNS[first:last + 1] if k != "fits")
    assert [(r["weights"], r["activations"], r["kv_cache"]) for r in rows] == [("bf16",) * 3] * 3
    assert [r["fits"] for r in rows] == ["yes", "yes", "no"]  # 16 GB TPU v5e: 18 GB do not fit
    assert all(rows[0][k] == "" for k in WORKLOAD_CSV_COLUMNS[-8:])
    # Llama-3-8B: 8.03 B parameters, 16.06 GB of bf16 weights, 2·32·8·2048·128·2 B of cache
    assert rows[0]["parameters"] == "8.03026e+09" == rows[0]["active_parameters"]
    assert float(rows[0]["weight_bytes_per_chip"]) == pytest.approx(2 * 8_030_261_248, rel=1e-5)
    assert float(rows[0]["kv_cache_bytes_per_chip"]) == pytest.approx(2 * 32 * 8 * 2048 * 128 * 2,
                                                                      rel=1e-5)
    # the H100 preset's 700 W board power: at most that, J per token and no price (empty)
    assert float(rows[0]["average_power_w"]) <= 700 and float(rows[0]["joules_per_item"]) > 0
    assert rows[0]["cost_per_million_items"] == "" and rows[2]["energy_per_step_j"] == ""
    # decode at batch 1 on H100: all memory-bound, so twice the HBM halves the step
    assert float(rows[0]["speedup_if_2x_dram"]) == pytest.approx(2.0, rel=0.01)
    assert float(rows[0]["speedup_if_2x_compute"]) == pytest.approx(1.0, abs=0.01)
    h100 = rows[0]
    assert (h100["chip"], h100["phase"], h100["batch"], h100["context"]) == (
        "H100 SXM5 80GB", "decode", "1", "2048")
    # 15.28 GB per token at 3.35 TB/s: 4.563 ms, 219.2 tokens/s, all memory-bound
    assert float(h100["time_s"]) == pytest.approx(4.5627e-3, rel=1e-4)
    assert float(h100["throughput_per_s"]) == pytest.approx(219.17, rel=1e-4)
    assert h100["throughput_unit"] == "tokens/s" and h100["memory_bound_time_share"] == "1"
    assert float(rows[1]["throughput_per_s"]) > float(h100["throughput_per_s"])  # MI300X 5.3 TB/s


def test_a_model_that_does_not_fit_is_said_to(tmp_path):
    result = run_app("--model", ROOT / "resources" / "workloads" / "llama-3-70b.config.json",
                     "--context", 2048, "--chips", "nvidia-h100-sxm5-80gb,amd-instinct-mi300x",
                     "--export-workloads", tmp_path / "w.csv")
    assert result.returncode == 0, result.stderr
    assert "on H100 SXM5 80GB does not fit" in result.stderr and "at least 2 chips" in result.stderr
    assert "MI300X does not fit" not in result.stderr  # 192 GB holds 141 GB


def test_empty_rows_say_why_and_model_options_need_model(tmp_path):
    result = run_app("--model", LLAMA3, "--context", 8, "--chips", "google-tpu-v1",
                     "--export-workloads", tmp_path / "w.csv")
    assert result.returncode == 0 and "TPU v1 has no bf16 ceiling" in result.stderr
    result = run_app(DATA / "session_v3.json", "--batch", 4, "--export-workloads",
                     tmp_path / "w.csv")
    assert result.returncode == 2 and "--batch: only with --model" in result.stderr


def test_session_workloads_export(tmp_path):
    out = tmp_path / "w.csv"
    result = run_app(DATA / "session_v3.json", "--export-workloads", out)
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == 5 * 2  # five workloads on two chips
    assert {r["throughput_unit"] for r in rows} == {"tokens/s", "images/s", "samples/s", "runs/s"}


@pytest.mark.parametrize(("args", "named"), [
    (("--batch", "0", "--context", "8"), "--batch"),
    (("--batch", "-3", "--context", "8"), "--batch"),
    (("--phase", "prefill"), "--sequence"),
    (("--phase", "decode"), "--context"),
    (("--context", "8", "--weights", "fp7"), "--weights"),
    (("--context", "8", "--chips", "nvidia-h100-sxm5-80gb,no-such-chip"), "no-such-chip"),
    (("--context", "8", "--config", "no_hidden"), "hidden_size"),
    (("--context", "8", "--config", "bad_heads"), "num_attention_heads"),
    (("--context", "8", "--chips", "nvidia-h100-sxm5-80gb,nvidia-h100-sxm5-80gb"), "given twice"),
    (("--context", "8", "--config", "cnn"), "not a transformer's config.json"),
    (("--context", "8", "--chips-per-model", "3"), "32 attention heads"),
    (("--phase", "decode", "--batch", "0", "--chips", "no-such-chip"), "--context"),
])
def test_bad_model_input_exits_2_naming_the_field(tmp_path, args, named):
    import json

    configs = {"no_hidden": {"num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 9},
               "bad_heads": {"hidden_size": 100, "num_hidden_layers": 2,
                             "num_attention_heads": 3, "vocab_size": 9},
               "cnn": {"layers": [{"c_in": 3, "c_out": 8, "height": 8, "width": 8, "kernel": 3,
                                   "stride": 1}]}}
    args = list(args)
    config = LLAMA3
    if "--config" in args:
        i = args.index("--config")
        config = tmp_path / "config.json"
        config.write_text(json.dumps(configs[args[i + 1]]))
        del args[i:i + 2]
    if "--chips" not in args:
        args += ["--chips", "nvidia-h100-sxm5-80gb"]
    out = tmp_path / "w.csv"
    result = run_app("--model", config, *args, "--export-workloads", out)
    assert result.returncode == 2, result.stderr
    assert named in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()


def test_list_presets_into_a_reader_that_stops_early():
    """`roofline-explorer --list-presets | head -1` (or grep -q): no traceback, status 0."""
    proc = subprocess.Popen([sys.executable, str(ROOT / "app.py"), "--list-presets"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    proc.stdout.close()  # the reader goes away before the list is written, as grep -q does
    with proc.stderr:
        err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert "Traceback" not in err and "Exception ignored" not in err


def test_a_training_step_from_the_command_line(tmp_path):
    out = tmp_path / "train.csv"
    result = run_app("--model", ROOT / "resources" / "workloads" / "llama-2-7b.config.json",
                     "--phase", "train", "--batch", "1", "--sequence", "4096", "--global-batch",
                     "1024", "--data-parallel", "1024", "--zero", "1", "--recompute", "selective",
                     "--tokens", "2e12", "--chips", "nvidia-a100-sxm4-80gb,google-tpu-v3",
                     "--export-workloads", out)
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert tuple(rows[0]) == WORKLOAD_CSV_COLUMNS
    a100, tpu = rows
    assert a100["phase"] == "train" and a100["chips_total"] == "1024" and a100["fits"] == "yes"
    assert float(a100["chip_hours"]) < 184_320  # Llama 2's published A100 hours for this run
    assert float(a100["train_days"]) == pytest.approx(3.58, abs=0.01)
    assert float(a100["time_s"]) == pytest.approx(0.6493, rel=1e-3)
    assert float(a100["throughput_per_s"]) == pytest.approx(1024 * 4096 / 0.6493, rel=1e-3)
    assert float(a100["mfu_at_bound"]) == pytest.approx(0.932, abs=1e-3)
    assert a100["dominant_kernel"] == "MLP gate and up (gated, fused) (backward)"
    assert tpu["fits"] == "no" and "TPU v3 does not fit" in result.stderr


def test_training_options_are_refused_with_another_phase_and_bad_ones_by_name(tmp_path):
    config = ROOT / "resources" / "workloads" / "llama-2-7b.config.json"
    result = run_app("--model", config, "--phase", "decode", "--context", "100", "--zero", "1",
                     "--chips", "nvidia-a100-sxm4-80gb", "--export-workloads", tmp_path / "x.csv")
    assert result.returncode == 2 and "--zero: a training option, for --phase train only" in result.stderr
    result = run_app("--model", config, "--phase", "train", "--zero", "5", "--pipeline-parallel",
                     "99", "--chips", "nvidia-a100-sxm4-80gb", "--export-workloads", tmp_path / "y.csv")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    for text in ("--sequence: training a transformer needs the sequence length S",
                 "--zero: ZeRO stage 5: one of 0, 1, 2, 3",
                 "--pipeline-parallel: 99 pipeline stages for 32 layers"):
        assert text in result.stderr
    assert not (tmp_path / "y.csv").exists()


def test_a_training_precision_is_given_by_activations_not_silently_by_weights(tmp_path):
    """The tour gave --weights fp32 to train in fp32 and got the bf16 step: a training step has
    one precision, --activations; another --weights or --kv-cache is refused by name."""
    config = ROOT / "resources" / "workloads" / "llama-2-7b.config.json"
    common = ("--model", config, "--phase", "train", "--sequence", "2048", "--chips",
              "nvidia-a100-sxm4-80gb")
    result = run_app(*common, "--weights", "fp32", "--export-workloads", tmp_path / "x.csv")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "--weights: a training step's precision is --activations" in result.stderr
    assert "give --activations fp32 to train in fp32" in result.stderr
    assert not (tmp_path / "x.csv").exists()
    result = run_app(*common, "--weights", "fp32", "--activations", "fp32", "--export-workloads",
                     tmp_path / "y.csv")
    assert result.returncode == 0, result.stderr
    bf16 = run_app(*common, "--export-workloads", tmp_path / "z.csv")
    assert bf16.returncode == 0
    with open(tmp_path / "y.csv") as a, open(tmp_path / "z.csv") as b:
        fp32_row, bf16_row = next(csv.DictReader(a)), next(csv.DictReader(b))
    fp32_time, bf16_time = float(fp32_row["time_s"]), float(bf16_row["time_s"])
    assert (fp32_row["activations"], bf16_row["activations"]) == ("fp32", "bf16")
    assert fp32_time > 8 * bf16_time  # the A100's fp32 runs on its CUDA cores
    # fp32 weights with tf32 math are a tf32 step (tf32 is fp32 values on the tensor cores):
    # taken, not refused with "give --activations fp32" (the twenty-third tour)
    tf32 = run_app(*common, "--weights", "fp32", "--activations", "tf32", "--export-workloads",
                   tmp_path / "t.csv")
    assert tf32.returncode == 0, tf32.stderr
    with open(tmp_path / "t.csv") as t:
        assert bf16_time < float(next(csv.DictReader(t))["time_s"]) < fp32_time


def test_a_cnn_trains_from_its_layer_list_on_the_command_line(tmp_path):
    """ResNet-50 in mixed precision on 8 V100s (micro-batch 256): the bound must beat NVIDIA's
    published ~1,400 images/s per V100 (MLPerf-era DeepLearningExamples, AMP), and does."""
    out = tmp_path / "resnet.csv"
    result = run_app("--model", ROOT / "resources" / "workloads" / "resnet-50.layers.json",
                     "--phase", "train", "--batch", "256", "--data-parallel", "8",
                     "--activations", "fp16", "--tokens", "1.28e8", "--chips",
                     "nvidia-v100-sxm2-16gb", "--export-workloads", out)
    assert result.returncode == 0, result.stderr
    (row,) = csv.DictReader(io.StringIO(out.read_text()))
    assert row["throughput_unit"] == "images/s" and row["chips_total"] == "8"
    assert float(row["throughput_per_s"]) / 8 > 1400
    assert float(row["model_flops_per_token"]) == pytest.approx(3 * 8.18e9, rel=0.02)


def test_what_if_chips_follow_their_originals_in_an_export(tmp_path):
    out = tmp_path / "wi.csv"
    result = run_app(ROOT / "resources" / "examples" / "a100-vs-tpu-v3.roofline",
                     "--what-if", "A100 SXM4 40GB:dram=2", "--what-if", "c2:compute=2,dram=0.5",
                     "--export-csv", out)
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    chips = list(dict.fromkeys(r["chip"] for r in rows))
    assert chips == ["A100 SXM4 40GB", "A100 SXM4 40GB, HBM2 ×2", "TPU v3",
                     "TPU v3, compute ×2, HBM2 ×0.5"]
    mlp = {r["chip"]: float(r["attainable_flop_per_s"]) for r in rows
           if r["kernel"].startswith("MLP layer 4096×4096, batch 1")}
    assert mlp["A100 SXM4 40GB, HBM2 ×2"] == pytest.approx(2 * mlp["A100 SXM4 40GB"])
    assert mlp["TPU v3, compute ×2, HBM2 ×0.5"] == pytest.approx(mlp["TPU v3"] / 2)
    bad = run_app(ROOT / "resources" / "examples" / "a100-vs-tpu-v3.roofline", "--what-if",
                  "zzz:dram=2", "--export-csv", tmp_path / "x.csv")
    assert bad.returncode == 2 and "--what-if: 'zzz:dram=2': no chip 'zzz' here" in bad.stderr


def test_training_tokens_take_si_prefixes_and_a_zero_degree_is_refused(tmp_path):
    config = ROOT / "resources" / "workloads" / "gpt2.config.json"
    out = tmp_path / "g.csv"
    result = run_app("--model", config, "--phase", "train", "--sequence", "1024", "--tokens", "9B",
                     "--chips", "nvidia-a100-sxm4-80gb", "--export-workloads", out)
    assert result.returncode == 0, result.stderr
    (row,) = csv.DictReader(io.StringIO(out.read_text()))
    assert float(row["train_days"]) > 0
    result = run_app("--model", config, "--phase", "train", "--sequence", "1024",
                     "--data-parallel", "0", "--chips", "nvidia-a100-sxm4-80gb",
                     "--export-workloads", tmp_path / "z.csv")
    assert result.returncode == 2 and "--data-parallel: must be a whole number from 1" in result.stderr


# -- today's models (issue 37) ------------------------------------------------------------------

DEEPSEEK = ROOT / "resources" / "workloads" / "deepseek-v3.config.json"


def test_deepseek_on_h200s_in_fp8_against_b200s_in_nvfp4(tmp_path):
    """The issue's question from the command line: expert parallelism, formats, the new columns."""
    rows = {}
    for chips, fmt, n in (("nvidia-h200-sxm-141gb", "fp8", 8), ("nvidia-b200", "nvfp4", 4)):
        out = tmp_path / f"{fmt}.csv"
        result = run_app("--model", DEEPSEEK, "--context", 4096, "--batch", 64, "--weights", fmt,
                         "--activations", fmt, "--kv-cache", "fp8", "--chips-per-model", n,
                         "--expert-parallel", n, "--moe-imbalance", 1.2, "--chips", chips,
                         "--export-workloads", out)
        assert result.returncode == 0, result.stderr
        rows[fmt], = csv.DictReader(io.StringIO(out.read_text()))
    h200, b200 = rows["fp8"], rows["nvfp4"]
    # each row says the formats it was asked at (the CSV had no precision: the 34th tour)
    assert [(r["weights"], r["activations"], r["kv_cache"]) for r in (h200, b200)] == [
        ("fp8", "fp8", "fp8"), ("nvfp4", "nvfp4", "fp8")]
    assert h200["parameters"] == b200["parameters"] == "6.71026e+11"
    # weights per chip: 671 GB / 8 in fp8; NVFP4's 4.5 bits for most of them over 4 chips
    assert float(h200["weight_bytes_per_chip"]) == pytest.approx(671.03e9 / 8, rel=1e-4)
    assert float(b200["weight_bytes_per_chip"]) == pytest.approx(671.03e9 * 4.5 / 8 / 4, rel=1e-3)
    # the latent cache, whole on every chip: 61·64·4096·576 B
    assert float(h200["kv_cache_bytes_per_chip"]) == pytest.approx(61 * 64 * 4096 * 576, rel=1e-5)
    assert float(b200["throughput_per_s"]) > float(h200["throughput_per_s"])


@pytest.mark.parametrize(("args", "flag", "words"), [
    (("--expert-parallel", 3, "--chips-per-model", 3), "--expert-parallel", "256 experts"),
    (("--moe-imbalance", 0.5), "--moe-imbalance", "from 1"),
    (("--activations", "nvfp4", "--chips", "google-tpu-v1"), "--activations",
     "computes in none of fp4, fp6, fp8, bf16, fp16"),
    (("--weights", "fp3"), "--weights", "unknown precision or format 'fp3'"),
])
def test_bad_model_options_exit_2_naming_the_option(tmp_path, args, flag, words):
    base = {"--context": 1024, "--chips": "nvidia-b200"}
    given = dict(zip(args[::2], args[1::2], strict=True))
    merged = [str(x) for k, v in {**base, **given}.items() for x in (k, v)]
    result = run_app("--model", DEEPSEEK, *merged, "--export-workloads", tmp_path / "w.csv")
    assert result.returncode == 2, result.stderr
    assert f"{flag}: " in result.stderr and words in result.stderr
    assert not (tmp_path / "w.csv").exists()


def test_a_bad_config_field_is_named_with_its_file(tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps({**json.loads(DEEPSEEK.read_text()), "num_experts_per_tok": 512}))
    result = run_app("--model", bad, "--context", 1024, "--chips", "nvidia-b200",
                     "--export-workloads", tmp_path / "w.csv")
    assert result.returncode == 2
    assert "num_experts_per_tok: 512 experts per token is more than the 256" in result.stderr


# -- serving (issue 38) ----------------------------------------------------------------------------

def test_serving_from_the_command_line(tmp_path):
    out = tmp_path / "s.csv"
    result = run_app("--model", LLAMA3, "--phase", "serve", "--input-tokens", 1000,
                     "--output-tokens", 1000, "--weights", "fp8", "--activations", "fp8",
                     "--kv-cache", "fp8", "--concurrency", "1,64,256", "--tpot-ms", 20,
                     "--chips", "nvidia-h100-sxm5-80gb,nvidia-b200", "--export-workloads", out)
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert tuple(rows[0]) == WORKLOAD_CSV_COLUMNS and len(rows) == 6
    assert [r["concurrency"] for r in rows] == ["1", "64", "256"] * 2
    for r in rows:
        assert r["phase"] == "serve" and r["time_s"] == r["tpot_s"]
        assert (r["weights"], r["activations"], r["kv_cache"]) == ("fp8", "fp8", "fp8")
        assert float(r["tokens_per_s_per_chip"]) == pytest.approx(
            int(r["concurrency"]) * float(r["tokens_per_s_per_user"]), rel=1e-4)
        assert r["meets_slo"] == ("yes" if float(r["tpot_s"]) <= 0.02 else "no")
    assert "best within the limits at concurrency" in result.stderr
    import roofline_gui.api as rf  # the API gives the same rows

    same = rf.serving("llama-3-8b", [rf.chip("nvidia-h100-sxm5-80gb")], input_tokens=1000,
                      output_tokens=1000, concurrency=[1, 64, 256], tpot_ms=20, weights="fp8",
                      activations="fp8", kv_cache="fp8")
    assert [r["tokens_per_s_per_chip"] for r in same] == [r["tokens_per_s_per_chip"]
                                                          for r in rows[:3]]
    apart = rf.serving("llama-3-8b", [rf.chip("nvidia-h100-sxm5-80gb")], input_tokens=1000,
                       output_tokens=1000, concurrency=[64], weights="fp8", activations="fp8",
                       kv_cache="fp8", prefill_chips=1, decode_chips=3)
    # disaggregated: no prompt's prefill mixed into the decode steps, so each user is faster
    assert float(apart[0]["tokens_per_s_per_user"]) > float(same[1]["tokens_per_s_per_user"])


@pytest.mark.parametrize(("args", "flag", "words"), [
    (("--input-tokens", 0, "--output-tokens", 100), "--input-tokens", "from 1"),
    (("--input-tokens", 100), "--output-tokens", "needs the mean prompt and output"),
    (("--input-tokens", 100, "--output-tokens", 100, "--draft-tokens", 2, "--acceptance", 1),
     "--acceptance", "[0, 1)"),
    (("--input-tokens", 100, "--output-tokens", 100, "--concurrency", "100000"), "--concurrency",
     "do not fit on any chip"),
    (("--input-tokens", 1000, "--output-tokens", 1000, "--tpot-ms", 0.5), "--tpot-ms",
     "no chip meets a TPOT of 0.5 ms"),
    (("--input-tokens", 100, "--output-tokens", 100, "--context", 5), "--context",
     "serving takes --input-tokens"),
    (("--input-tokens", 100, "--output-tokens", 100, "--disaggregate", "2"), "--disaggregate",
     "as X:Y"),
    (("--input-tokens", 100, "--output-tokens", 100, "--disaggregate", "2:0"), "--disaggregate",
     "needs chips for both"),
    (("--input-tokens", 100, "--output-tokens", 100, "--disaggregate", "3:2",
      "--chips-per-model", 2), "--disaggregate", "multiple of the 2 chips"),
])
def test_bad_serving_options_exit_2_naming_the_option(tmp_path, args, flag, words):
    result = run_app("--model", LLAMA3, "--phase", "serve", *args, "--chips",
                     "nvidia-h100-sxm5-80gb", "--export-workloads", tmp_path / "s.csv")
    assert result.returncode == 2, result.stderr
    assert f"{flag}: " in result.stderr and words in result.stderr, result.stderr
    assert not (tmp_path / "s.csv").exists()


def test_a_checkpoint_shipped_in_a_block_format_is_read_in_it_unless_told(tmp_path):
    """gpt-oss ships its experts in MXFP4 (quantization_config): the command line reads them so,
    as the window's dialog does, and says so; --weights chooses another format."""
    from roofline_gui.io.files import resources_dir

    config = resources_dir() / "workloads" / "gpt-oss-120b.config.json"
    out = tmp_path / "g.csv"
    args = ("--model", config, "--phase", "prefill", "--sequence", 1000,
            "--chips", "nvidia-b200", "--export-workloads", out)
    result = run_app(*args)
    assert result.returncode == 0, result.stderr
    assert "weights in mxfp4, as the checkpoint ships them" in result.stderr
    native = next(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    result = run_app(*args, "--weights", "bf16")
    assert result.returncode == 0 and "checkpoint ships" not in result.stderr
    wide = next(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert float(native["weight_bytes_per_chip"]) < 0.3 * float(wide["weight_bytes_per_chip"])


def test_a_chip_that_cannot_run_a_workload_says_why_in_the_workloads_csv(tmp_path):
    """The training example's TPU v3 has no fp32 ceiling: its row had "fits = yes" and empty
    times with no word why (the fourth tour); the reason column names the missing ceiling, the
    window's explanation names the same, and a chip that runs it leaves the column empty."""
    from roofline_gui.core.workload_view import explain_workload
    from roofline_gui.io.csv_export import export_workloads_csv
    from roofline_gui.io.files import resources_dir

    doc = load_session(resources_dir() / "examples" / "training-fp32-against-bf16.roofline")
    out = tmp_path / "w.csv"
    export_workloads_csv(doc, out)
    rows = {(r["chip"], r["workload"]): r for r in csv.DictReader(io.StringIO(out.read_text()))}
    tpu = rows["TPU v3", "ResNet-50 training, fp32"]
    assert tpu["time_s"] == "" and tpu["unsupported_reason"] == "TPU v3 has no fp32 ceiling"
    assert rows["TPU v3", "ResNet-50 training, bf16"]["unsupported_reason"] == ""
    assert float(rows["TPU v3", "ResNet-50 training, bf16"]["time_s"]) > 0
    from roofline_gui.core.workload_eval import evaluate_workloads

    results = evaluate_workloads(doc.workloads, doc.chips, kernels=doc.kernels_by_id)
    fp32 = next(r for r in results if r.workload.name == "ResNet-50 training, fp32")
    c = [chip.name for chip in doc.chips].index("TPU v3")
    assert "TPU v3 has no fp32 ceiling" in explain_workload(fp32, c)[0]


def test_a_model_without_an_export_opens_in_the_window(monkeypatch, capsys):
    """The README's training command had only written a CSV, and the nineteenth tour looked for
    the window: without --export-workloads, --model opens its workload on its chips in the
    window, as an untitled session; serving, whose limits the window sets on its Serving tab,
    still needs an output, and says so."""
    import roofline_gui.__main__ as cli
    from roofline_gui import platform_check

    opened = {}
    monkeypatch.setattr(platform_check, "startup_problem", lambda: None)
    monkeypatch.setattr(cli, "start_window", lambda **kw: opened.update(kw) or 0)
    args = ["--model", str(ROOT / "resources/workloads/llama-2-7b.config.json"), "--phase",
            "train", "--batch", "1", "--sequence", "4096", "--global-batch", "1024",
            "--data-parallel", "1024", "--zero", "1", "--recompute", "selective", "--tokens",
            "2e12", "--chips", "nvidia-a100-sxm4-80gb,google-tpu-v3"]
    assert cli.main(args) == 0
    doc, source = opened["document"]
    assert source == "llama-2-7b.config.json"
    assert [c.preset for c in doc.chips] == ["nvidia-a100-sxm4-80gb", "google-tpu-v3"]
    # each in a colour of its own (every line had been drawn grey: the twenty-first tour)
    assert all(c.color for c in doc.chips) and len({c.color for c in doc.chips}) == 2
    (workload,) = doc.workloads
    assert (workload.phase, workload.sequence, workload.global_batch, workload.zero) == (
        "train", 4096, 1024, 1)
    opened.clear()
    decode = ["--model", str(LLAMA3), "--phase", "decode", "--batch", "8", "--context", "2048",
              "--chips", "nvidia-h100-sxm5-80gb"]
    assert cli.main(decode) == 0 and opened["document"][0].workloads[0].batch == 8
    opened.clear()
    serve = ["--model", str(LLAMA3), "--phase", "serve", "--chips", "nvidia-h100-sxm5-80gb"]
    assert cli.main(serve) == 2 and not opened
    assert "--export-workloads: --phase serve needs an output" in capsys.readouterr().err


def test_the_command_line_and_the_api_export_as_the_window_does_by_default(tmp_path):
    """The article's V100 bf16 rows read "fp16" from the window's Export CSV and "unsupported"
    from --export-csv and api.write_csv, which evaluated without the window's default
    same-width stand-ins. Both stand in by default now; --no-same-width (same_width=False)
    leaves a chip without the precision unsupported."""
    from roofline_gui import api
    from roofline_gui.io.files import resources_dir

    example = resources_dir() / "examples" / "the-article-claim-by-claim.roofline"

    def v100_bf16(path):
        rows = list(csv.DictReader(io.StringIO(path.read_text())))
        return [r for r in rows if r["chip"].startswith("V100") and r["precision"] == "bf16"]

    cli, bare = tmp_path / "cli.csv", tmp_path / "bare.csv"
    assert run_app(example, "--export-csv", cli).returncode == 0
    assert run_app(example, "--export-csv", bare, "--no-same-width").returncode == 0
    assert v100_bf16(cli) and all(r["runs_at_precision"] == "fp16" and r["time_s"]
                                  for r in v100_bf16(cli))
    assert all(r["bound"] == "unsupported" for r in v100_bf16(bare))
    doc = api.load_session(example)
    out = tmp_path / "api.csv"
    api.write_csv(doc, out)
    assert out.read_text() == cli.read_text()
    api.write_csv(doc, out, same_width=False)
    assert out.read_text() == bare.read_text()
    v100 = [c.name for c in doc.chips].index(next(c.name for c in doc.chips
                                                  if c.name.startswith("V100")))
    bf16 = [k for k, kernel in enumerate(doc.kernels) if kernel.precision == "bf16"]
    assert all(api.evaluate(doc).time[k, v100] > 0 for k in bf16)
    assert all(api.evaluate(doc, same_width=False).bound[k, v100] == "unsupported" for k in bf16)
