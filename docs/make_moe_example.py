"""Writes resources/examples/deepseek-r1-h200-fp8-vs-b200-nvfp4.roofline (Help → Examples): the
question a buyer of inference hardware asks today, DeepSeek-R1 (DeepSeek-V3's architecture)
decoding on 8 H200s in FP8 against 4 B200s in NVFP4, experts spread over the chips and attention
data parallel, each workload's source stating the numbers tests/test_moe_example.py checks.
Run it again after changing a preset or the model:  python docs/make_moe_example.py"""
from dataclasses import replace
from pathlib import Path

import roofline_gui.api as rf
from roofline_gui.core.transformer import experts_touched
from roofline_gui.core.workload_eval import evaluate_workloads
from roofline_gui.io.presets import default_presets
from roofline_gui.io.session import save_session

P = default_presets()
SETTINGS = {"phase": "decode", "batch": 64, "context": 4096, "kv_cache": "fp8",
            "attention_data_parallel": True}
fp8 = rf.workload("deepseek-v3", name="DeepSeek-R1 FP8 on 8 chips", weights="fp8",
                  activations="fp8", chips_per_model=8, expert_parallel=8, **SETTINGS)
nvfp4 = rf.workload("deepseek-v3", name="DeepSeek-R1 NVFP4 on 4 chips", weights="nvfp4",
                    activations="nvfp4", chips_per_model=4, expert_parallel=4, **SETTINGS)
chips = [P.chips[i] for i in ("nvidia-h200-sxm-141gb", "nvidia-b200")]
a, b = evaluate_workloads([fp8, nvfp4], chips)
CLAIM = (f"At batch 64 and 4,096 tokens of context, 8 H200s in FP8 decode at most "
         f"{a.throughput[0]:,.0f} tokens/s ({a.throughput[0] / 8:,.0f} per chip) and 4 B200s in "
         f"NVFP4 at most {b.throughput[1]:,.0f} ({b.throughput[1] / 4:,.0f} per chip): "
         f"{b.throughput[1] / 4 / (a.throughput[0] / 8):.2f}× per chip. Both are memory-bound: a "
         f"step at batch 64 reads the weights of about {experts_touched(256, 8, 64):.0f} of each "
         "layer's 256 experts. DeepSeek-R1 "
         "is DeepSeek-V3's architecture (the same config.json fields).")
doc = rf.session(chips, workloads=[replace(w, source=f"{w.source}. {CLAIM}")
                                   for w in (fp8, nvfp4)],
                 title="DeepSeek-R1 decode: 8 H200s in FP8 against 4 B200s in NVFP4")
save_session(doc, Path(__file__).resolve().parents[1] / "resources" / "examples"
             / "deepseek-r1-h200-fp8-vs-b200-nvfp4.roofline")
print(CLAIM)
