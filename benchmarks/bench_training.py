"""The training scaling sweep's cost: a 70B model (Llama 3 70B) on 30 chips, data parallel d
from 1 to 4,096 (13 points), every step's entries evaluated on the roofline as the window's
scaling view does (core/training_view.scaling). Aim (issue 26): under 50 ms.
Run: python benchmarks/bench_training.py"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from roofline_gui.core.training_view import scaling  # noqa: E402
from roofline_gui.io.presets import default_presets  # noqa: E402
from roofline_gui.io.workloads import shipped_workloads  # noqa: E402


def main() -> None:
    w = shipped_workloads()["llama-3-70b"].workload(
        "w", phase="train", batch=1, sequence=8192, chips_per_model=8, pipeline_parallel=4,
        global_batch=16, zero=1, recompute="selective", train_tokens=15e12)
    library = list(default_presets().chips.values())
    chips = [replace(library[i % len(library)], id=f"c{i}") for i in range(30)]
    times = []
    for _ in range(7):
        start = time.perf_counter()
        sweep = scaling(w, chips, same_width=True)
        times.append(time.perf_counter() - start)
    ran = sum(int(np.isfinite(r.time).sum()) for r in sweep)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"70B model x 30 chips x {len(sweep)} data-parallel degrees ({ran} steps bounded, "
          f"{len(sweep[0].entries)} entries each): {statistics.median(times) * 1e3:.1f} ms median "
          "of 7 (aim < 50 ms)")


if __name__ == "__main__":
    main()
