"""Writes resources/examples/training-fp32-against-bf16.roofline (Help → Examples): ResNet-50, the
article's CNN, trained in fp32, tf32 and bf16 on an A100 against a TPU v3 and a V100 (the TPU v3's
HBM bandwidth), each workload's source stating the numbers tests/test_training_example.py checks.
Run it again after changing a preset or the training model:  python docs/make_training_example.py"""
from dataclasses import replace
from pathlib import Path

import roofline_gui.api as rf
from roofline_gui.core.units import format_si
from roofline_gui.core.workload_eval import evaluate_workloads
from roofline_gui.io.presets import default_presets
from roofline_gui.io.session import save_session

P = default_presets()
SETTINGS = {"batch": 64, "data_parallel": 8, "zero": 0, "optimizer": "sgd",
            "train_tokens": 90 * 1_281_167}  # 90 epochs of ImageNet-1k
workloads = [rf.workload("resnet-50", name=f"ResNet-50 training, {p}", phase="train",
                         activations=p, weights=p, **SETTINGS) for p in ("fp32", "tf32", "bf16")]
chips = [P.chips[i] for i in ("nvidia-a100-sxm4-40gb", "google-tpu-v3", "nvidia-v100-sxm2-16gb")]
# As the window shows them: Same-width precisions is on from the first start.
results = evaluate_workloads(workloads, chips, same_width=True)
fp32, tf32, bf16 = (r.throughput for r in results)
compute = results[2].compute_share  # of the bf16 step's time, compute-bound kernels
peak = results[2].peak
CLAIMS = (
    "The article's claims in training. Lower precision: on the A100, bf16 trains "
    f"{bf16[0] / tf32[0]:.2f}× the images/s of tf32 (4-byte values, half the roof) and "
    f"{bf16[0] / fp32[0]:.1f}× those of fp32 without tensor cores; the TPU v3 has no fp32 roof "
    "at all (bf16 is its training precision). The same HBM: the TPU v3 and the V100 (900 GB/s "
    f"each) train it in bf16 at {bf16[1]:,.0f} and {bf16[2]:,.0f} images/s on 8 chips "
    f"({bf16[2] / bf16[1]:.2f}×; the V100's fp16 stands in, View → Same-width precisions), "
    "the same speed as the article says, but only half for its reason: a training step of a "
    f"CNN is {compute[1]:.0%} and {compute[2]:.0%} compute-bound on them, and their 16-bit "
    f"roofs ({format_si(peak[1], 'op/s')} and {format_si(peak[2], 'op/s')}) are "
    f"{max(peak[1:]) / min(peak[1:]):.2f}× apart; the memory-bound rest runs as fast because "
    "the HBM is the same (select a chip: Why it sits there says the same). "
    "90 epochs of ImageNet-1k, micro-batch 64 on 8 chips, SGD with momentum.")
workloads = [replace(w, source=f"{w.source}. {CLAIMS}") for w in workloads]
doc = rf.session(chips, workloads=workloads,
                 title="Training: fp32 against bf16, an A100 against a TPU v3 and a V100")
save_session(doc, Path(__file__).resolve().parents[1] / "resources" / "examples"
             / "training-fp32-against-bf16.roofline")
print(CLAIMS)
