"""Writes resources/examples/serving-70b-and-r1-at-50-ms.roofline (Help → Examples): Llama-3.3-70B
(Llama-3-70B's architecture) and DeepSeek-R1 served on an H200, a B200 and an MI355X at 1,000
tokens in and 1,000 out with a 50 ms TPOT limit, each workload's source stating the best point of
each chip as tests/test_serving_example.py checks it.
Run it again after changing a preset or the model:  python docs/make_serving_example.py"""
from dataclasses import replace
from pathlib import Path

import roofline_gui.api as rf
from roofline_gui.core.serving import serve, spec_of
from roofline_gui.io.presets import default_presets
from roofline_gui.io.session import save_session

P = default_presets()
SERVE = {"input_tokens": 1000, "output_tokens": 1000, "tpot_limit": 0.05}
llama = rf.workload("llama-3-70b", name="Llama-3.3-70B FP8 on 1 chip", weights="fp8",
                    activations="fp8", kv_cache="fp8", **SERVE)
r1 = rf.workload("deepseek-v3", name="DeepSeek-R1 FP8 on 8 chips", weights="fp8",
                 activations="fp8", kv_cache="fp8", chips_per_model=8, expert_parallel=8,
                 attention_data_parallel=True, **SERVE)
chips = [P.chips[i] for i in ("nvidia-h200-sxm-141gb", "nvidia-b200", "amd-instinct-mi355x")]


def best_words(w) -> str:
    r = serve(w, chips, spec_of(w))
    parts = []
    for c, chip in enumerate(chips):
        k = r.best(c)
        parts.append(f"{chip.name} {r.tokens_per_chip[c, k]:,.0f} output tokens/s per chip at "
                     f"{int(r.concurrency[k]):,} users ({r.tokens_per_user[c, k]:,.1f} each)"
                     if k is not None else f"{chip.name} none")
    return ("Served at 1,000 tokens in and 1,000 out with a 50 ms TPOT limit, the best point of "
            "each chip (the Serving tab): " + "; ".join(parts) + ".")


def at_best(w):
    """The workload at the first chip's best point, decoding at the requests' mean context: the
    roofline then shows the point the Serving tab boxes (at B = 1, L = 2,048 it showed none of
    them, and nothing was boxed: the tour)."""
    r = serve(w, chips, spec_of(w))
    return replace(w, batch=int(r.concurrency[r.best(0)]), context=spec_of(w).mean_context)


workloads = [replace(at_best(w), source=f"{w.source}. {best_words(w)}") for w in (llama, r1)]
doc = rf.session(chips, workloads=workloads,
                 title="Serving: Llama-3.3-70B and DeepSeek-R1 at 50 ms per token")
save_session(doc, Path(__file__).resolve().parents[1] / "resources" / "examples"
             / "serving-70b-and-r1-at-50-ms.roofline")
for w in workloads:
    print(w.name, "—", w.source.rsplit(". ", 1)[-1])
