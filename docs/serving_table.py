"""Prints the table of docs/serving.md: each published measurement of tests/data/serving-measured.csv
against its bound (the most output tokens/s over the concurrencies that fit).
Run:  python docs/serving_table.py"""
import csv
from pathlib import Path

import numpy as np

from roofline_gui.core.serving import ServingSpec, serve
from roofline_gui.io.presets import default_presets
from roofline_gui.io.workloads import shipped_workloads

ROOT = Path(__file__).resolve().parents[1]
CHIPS = default_presets().chips
print("| model | chips | format | I/O | measured (tokens/s, all chips) | bound | at c | bound ÷ measured |")
print("|---|---|---|---|---|---|---|---|")
with (ROOT / "tests" / "data" / "serving-measured.csv").open(encoding="utf-8") as f:
    for row in csv.DictReader(f):
        fmt, n = row["format"], int(row["chips_per_model"])
        w = shipped_workloads()[row["model"]].workload(
            weights=fmt, activations=fmt, kv_cache="fp8", chips_per_model=n,
            expert_parallel=int(row["expert_parallel"]),
            attention_data_parallel=row["attention_data_parallel"] == "yes")
        r = serve(w, [CHIPS[row["chip"]]], ServingSpec(int(row["input_tokens"]),
                                                      int(row["output_tokens"])))
        total = np.where(r.fits[0], r.tokens_total[0], 0)
        k = int(np.argmax(total))
        m = float(row["measured_total_tokens_per_s"])
        print(f"| {shipped_workloads()[row['model']].name} | {n} × {CHIPS[row['chip']].name}"
              f"{', EP ' + row['expert_parallel'] if row['expert_parallel'] != '1' else ''} | {fmt} | "
              f"{row['input_tokens']}/{row['output_tokens']} | {m:,.0f} | {total[k]:,.0f} | "
              f"{int(r.concurrency[k])} | {total[k] / m:.2f} |")
