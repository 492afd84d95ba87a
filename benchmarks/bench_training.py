"""The training scaling sweep's cost: a 70B model (Llama 3 70B) on 30 chips, data parallel d
from 1 to 4,096 (13 points), every step bounded with its formulas (core/training.py).
Aim (issue 26): under 50 ms. Run: python benchmarks/bench_training.py"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from roofline_gui.core.training import TrainingSetup, scaling_sweep  # noqa: E402
from roofline_gui.core.workload import TransformerConfig  # noqa: E402
from roofline_gui.io.presets import default_presets  # noqa: E402
from roofline_gui.io.workloads import shipped_workloads  # noqa: E402


def main() -> None:
    cfg = TransformerConfig.from_config(shipped_workloads()["llama-3-70b"].workload("w").spec)
    library = list(default_presets().chips.values())
    chips = [replace(library[i % len(library)], id=f"c{i}") for i in range(30)]
    setup = TrainingSetup(micro_batch=1, sequence=8192, tensor_parallel=8, pipeline_parallel=4,
                          zero=1, recompute="selective", tokens=15e12)
    times = []
    for _ in range(7):
        start = time.perf_counter()
        sweep = scaling_sweep(cfg, setup, chips)
        times.append(time.perf_counter() - start)
    ran = sum(step is not None for row in sweep for step in row)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"70B model x 30 chips x 13 data-parallel degrees ({ran} steps bounded): "
          f"{statistics.median(times) * 1e3:.1f} ms median of 7 (aim < 50 ms)")


if __name__ == "__main__":
    main()
