"""Workload timings, printed (issue 12's aims, and issue 37's for DeepSeek-V3):

1. Evaluating a 100-entry workload on 30 chips over a 13-point batch sweep (aim: under 20 ms):
   the 1,300 kernels built and evaluated in one roofline call.
2. One workload drag step with 10 workloads x 8 chips on screen (aim: under 16 ms, as kernel
   drags): the edit, the re-evaluation of every workload, and the canvas's redraw of the
   workloads' marks and repaint, through the real window.

3. DeepSeek-V3 (61 layers, 256 experts) built and evaluated over 30 chips x 13 batches (aim:
   50 ms), its config read afresh each time and read once; and a batch drag step of it on 8
   chips with the whole window following (aim: 16 ms).

Run: python benchmarks/bench_workloads.py   (offscreen by default)
"""

from __future__ import annotations

import math
import os
import platform
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from _scratch import scratch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from roofline_gui.core.workload import Workload  # noqa: E402
from roofline_gui.core.workload_eval import SWEEP_BATCHES, batch_sweep  # noqa: E402
from roofline_gui.io.presets import default_presets  # noqa: E402
from roofline_gui.io.workloads import shipped_workloads  # noqa: E402


def hundred_entry_workload() -> Workload:
    """A CNN of 100 distinct conv layers (so 100 entries, none merged by a count)."""
    layers = [{"name": f"conv {i}", "c_in": 64 + i, "c_out": 128 + 2 * i, "height": 56,
               "width": 56, "kernel": 3, "stride": 1} for i in range(100)]
    return Workload("w1", "100 layers", "cnn", {"layers": layers})


def median_ms(fn, repeat: int = 15) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def bench_sweep() -> float:
    presets = list(default_presets().chips.values())
    chips = [replace(presets[i % len(presets)], id=f"c{i}") for i in range(30)]  # 29 presets
    w = hundred_entry_workload()
    results = batch_sweep(w, chips, SWEEP_BATCHES)
    assert len(results) == 13 and len(results[0].entries) == 100 and len(chips) == 30
    return median_ms(lambda: batch_sweep(w, chips, SWEEP_BATCHES))


def bench_deepseek_sweep() -> tuple[float, float]:
    """DeepSeek-V3 over 30 chips x 13 batches: (config read afresh every time, read once)."""
    presets = list(default_presets().chips.values())
    chips = [replace(presets[i % len(presets)], id=f"c{i}") for i in range(30)]
    w = shipped_workloads()["deepseek-v3"].workload(weights="fp8", activations="fp8",
                                                    chips_per_model=8, expert_parallel=8)
    results = batch_sweep(w, chips, SWEEP_BATCHES)
    assert len(results) == 13 and len(results[0].chips) == 30
    cold = median_ms(lambda: batch_sweep(replace(w, spec=dict(w.spec)), chips, SWEEP_BATCHES))
    warm = median_ms(lambda: batch_sweep(w, chips, SWEEP_BATCHES))
    return cold, warm


def bench_serving() -> float:
    """Issue 38's aim: 30 chips x 10 workloads x 16 concurrencies in 50 ms (about 10 us a point)."""
    from roofline_gui.core.serving import ServingSpec, serve

    presets = list(default_presets().chips.values())
    chips = [replace(presets[i % len(presets)], id=f"c{i}") for i in range(30)]
    names = ["llama-3-8b", "llama-2-7b", "mistral-7b", "qwen2-7b", "gpt2", "llama-3-70b",
             "mixtral-8x7b", "qwen3-30b-a3b", "gpt-oss-20b", "deepseek-v3"]
    workloads = [shipped_workloads()[n].workload(weights="fp8", activations="fp8") for n in names]
    spec = ServingSpec(1000, 1000, tuple(2**i for i in range(16)))
    results = [serve(w, chips, spec) for w in workloads]
    assert sum(r.tokens_per_chip.size for r in results) == 30 * 10 * 16
    return median_ms(lambda: [serve(w, chips, spec) for w in workloads], repeat=7)


def bench_serving_view(steps: int = 15, field: str = "tpot") -> float:
    """Dragging the TPOT line (or typing an input length): the Serving view redrawn, with the
    workload's edit, on 8 chips."""
    from PySide6.QtCore import QSettings

    from roofline_gui.core.document import Document
    from roofline_gui.models.settings import Settings
    from roofline_gui.widgets.app.main_window import MainWindow
    from roofline_gui.widgets.common.application import make_app

    app = make_app()

    ini = scratch() / "s.ini"
    window = MainWindow(settings=Settings(QSettings(str(ini), QSettings.Format.IniFormat)))
    chips = tuple(replace(c, id=f"c{i + 1}") for i, c in
                  enumerate(list(default_presets().chips.values())[8:16]))
    w = shipped_workloads()["llama-3-70b"].workload("w1", weights="fp8", activations="fp8",
                                                    tpot_limit=0.05)
    window.model.reset(Document(chips=chips, workloads=(w,)))
    window.resize(1500, 940)
    window.show()
    window.docks["serving"].raise_()
    for _ in range(30):
        app.processEvents()
    panel = window.serving
    times = []
    for i in range(steps):
        start = time.perf_counter()
        if field == "tpot":
            panel.tpot_line.setValue(math.log10(20 + i))
            panel._on_line_dragged()  # noqa: SLF001 (the drag's end: the workload's edit)
        else:  # the input length typed: a new frontier
            panel.edits["input_tokens"].setValue(1000 + 100 * (i + 1))
        panel.refresh()  # what the throttle calls next
        app.processEvents()
        times.append((time.perf_counter() - start) * 1e3)
    window.model.undo_stack.setClean()
    window.close()
    return statistics.median(times[1:])


def bench_drag_step(panels: bool = True, names: list[str] | None = None) -> tuple[float, float]:
    from PySide6.QtCore import QSettings

    from roofline_gui.core.document import Document
    from roofline_gui.models.settings import Settings
    from roofline_gui.widgets.app.main_window import MainWindow
    from roofline_gui.widgets.common.application import make_app

    app = make_app()

    ini = scratch() / "s.ini"
    window = MainWindow(settings=Settings(QSettings(str(ini), QSettings.Format.IniFormat)))
    chips = tuple(replace(c, id=f"c{i + 1}") for i, c in
                  enumerate(list(default_presets().chips.values())[:8]))
    names = names or ["llama-3-8b", "llama-2-7b", "mistral-7b", "qwen2-7b", "gpt2", "llama-3-70b",
                      "mixtral-8x7b", "resnet-50", "mlp-tpu", "lstm"]
    workloads = tuple(shipped_workloads()[n].workload(f"w{i + 1}") for i, n in enumerate(names))
    window.model.reset(Document(chips=chips, workloads=workloads))
    if not panels:  # the chart alone, as bench_gui.py times a kernel's drag
        for dock in window.docks.values():
            dock.hide()
    window.resize(1500, 940)
    window.show()
    for _ in range(30):
        app.processEvents()
    canvas = window.canvas
    wid = "w1"
    r = window.model.workload_result(wid)
    targets = [r.intensity * f for f in (2, 4, 8, 16, 8, 4, 2, 1)] * 3

    steps = []
    model_only = []
    for n, x in enumerate(targets):
        t = time.perf_counter()
        canvas._on_workload_dragged(wid, x, n == len(targets) - 1, False)  # noqa: SLF001
        model_only.append((time.perf_counter() - t) * 1e3)
        app.processEvents()  # Qt repaints what changed, as between two mouse moves
        steps.append((time.perf_counter() - t) * 1e3)
    window.model.undo_stack.setClean()
    window.close()
    return statistics.median(steps[1:]), statistics.median(model_only[1:])


def main() -> None:
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}")
    sweep = bench_sweep()
    print(f"100-entry workload x 30 chips x 13 batches: {sweep:.1f} ms (aim < 20 ms)")
    print("one workload drag step, 10 workloads x 8 chips on screen (aim < 16 ms):")
    step, model = bench_drag_step(panels=False)
    print(f"  chart alone (as bench_gui.py times kernel drags): {step:.1f} ms, of which the "
          f"edit, evaluation and marks {model:.1f} ms")
    step, model = bench_drag_step(panels=True)
    print(f"  whole window (table row, explanation, breakdown following): {step:.1f} ms, of "
          f"which the edit, evaluation and marks {model:.1f} ms")
    print(f"a roof drag step, 1,000 kernels x 8 chips and 10 workloads, whole window: "
          f"{bench_roof_drag():.1f} ms (aim < 16 ms)")
    print(f"design-space map, 100-entry workload, 200 x 200 cells: {bench_design_space():.1f} ms "
          "(aim < 100 ms)")
    cold, warm = bench_deepseek_sweep()
    print(f"DeepSeek-V3 x 30 chips x 13 batches: {cold:.1f} ms with its config read afresh, "
          f"{warm:.1f} ms read once (aim < 50 ms)")
    print(f"serving bound, 30 chips x 10 workloads x 16 concurrencies: {bench_serving():.1f} ms "
          "(aim < 50 ms)")
    print(f"the Serving view, 8 chips: a TPOT line drag step {bench_serving_view():.1f} ms, an "
          f"input length typed {bench_serving_view(field='input'):.1f} ms (aim < 16 ms)")
    step, model = bench_drag_step(panels=True, names=["deepseek-v3"])
    print(f"a DeepSeek-V3 batch drag step on 8 chips, whole window: {step:.1f} ms, of which the "
          f"edit, evaluation and marks {model:.1f} ms (aim < 16 ms)")



def bench_roof_drag(steps: int = 20) -> float:
    """A roof drag step (issue 27's aim: 16 ms): 1,000 kernels x 8 chips and 10 workloads on
    screen, the whole window following, the first chip's HBM slope dragged as a what-if."""
    import sys as _sys

    from PySide6.QtCore import QSettings
    from PySide6.QtCore import Qt as _Qt

    _sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_gui import big_document

    from roofline_gui.models.settings import Settings
    from roofline_gui.widgets.app.main_window import MainWindow
    from roofline_gui.widgets.common.application import make_app

    app = make_app()

    ini = scratch() / "s.ini"
    window = MainWindow(settings=Settings(QSettings(str(ini), QSettings.Format.IniFormat)))
    doc = big_document(1000, 8)
    names = ["llama-3-8b", "llama-2-7b", "mistral-7b", "qwen2-7b", "gpt2", "llama-3-70b",
             "mixtral-8x7b", "resnet-50", "mlp-tpu", "lstm"]
    workloads = tuple(shipped_workloads()[n].workload(f"w{i + 1}") for i, n in enumerate(names))
    window.model.reset(replace(doc, workloads=workloads))
    window.resize(1500, 940)
    window.show()
    for _ in range(30):
        app.processEvents()
    chip = window.model.document.chips[0]
    dram = chip.memory.index(chip.dram)
    signal = window.canvas.overlay_plot.roofs.item.sig_roof_dragged
    times = []
    for i in range(steps):
        bw = chip.dram.bandwidth * (1 + 0.05 * (i + 1))
        start = time.perf_counter()
        signal.emit(("level", chip.id, dram), 0.0, float(math.log10(bw)), False,
                    _Qt.KeyboardModifier.NoModifier)
        app.processEvents()
        times.append((time.perf_counter() - start) * 1e3)
    signal.emit(("level", chip.id, dram), 0.0, float(math.log10(chip.dram.bandwidth * 2)), True,
                _Qt.KeyboardModifier.NoModifier)
    window.model.undo_stack.setClean()
    window.close()
    return statistics.median(times[1:])


def bench_design_space(rounds: int = 7) -> float:
    """The design-space map of a 100-entry workload, 200 x 200 cells (issue 27's aim: 100 ms)."""
    from roofline_gui.core.design_space import design_space
    from roofline_gui.core.workload_eval import evaluate_workloads

    chips = [default_presets().chips["nvidia-h100-sxm5-80gb"]]
    (r,) = evaluate_workloads([hundred_entry_workload()], chips)
    assert len(r.entries) == 100
    factors = [10 ** (i / 50 - 2) for i in range(200)]  # 0.01x to about 100x
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        design_space(r, 0, factors, factors)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


if __name__ == "__main__":
    main()
