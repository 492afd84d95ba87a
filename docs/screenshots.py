"""Regenerate the README screenshots: python docs/screenshots.py (under Xvfb or a desktop).

Opens the real main window with the examples, as a user would see it, and grabs it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from roofline_gui.models.settings import Settings
    from roofline_gui.widgets.app.file_actions import examples
    from roofline_gui.widgets.app.main_window import MainWindow
    from roofline_gui.widgets.common.application import make_app

    app = make_app()
    ini = Path(tempfile.mkdtemp()) / "settings.ini"
    window = MainWindow(settings=Settings(QSettings(str(ini), QSettings.Format.IniFormat)))
    window.resize(1600, 1000)
    window.show()
    by_name = {p.stem: p for p in examples()}

    def shot(name: str) -> None:
        from PySide6.QtTest import QTest

        for _ in range(5):
            app.processEvents()
        QTest.qWait(200)  # laid out, and the kernels' names placed in each chart's own size
        window.grab().save(str(ROOT / "docs" / f"screenshot-{name}.png"))
        print("wrote", f"docs/screenshot-{name}.png")

    window.files.open_example(by_name["a100-vs-tpu-v3"])
    mlp = next(k for k in window.model.document.kernels if k.name.startswith("MLP layer 4096×4096, batch 1"))
    window.model.select(mlp.id, window.model.document.chips[1].id)
    shot("a100-vs-tpu-v3")
    window.set_mode("side_by_side")
    window.files.open_example(by_name["h100-vs-mi300x-llm"])
    window.model.select(window.model.document.kernels[0].id, window.model.document.chips[1].id)
    shot("side-by-side")
    window.set_mode("overlay")
    window.files.open_example(by_name["a100-vs-tpu-v3"])
    window.docks["hardware"].raise_()
    shot("hardware-editor")
    window.docks["kernels"].raise_()
    window.model.select(mlp.id, None)
    shot("kernel-library")
    # A 1280×800 laptop screen, four chips, the kernel form open.
    window.resize(1280, 800)
    window.files.open_example(by_name["a100-vs-tpu-v3"])
    presets = window.presets.chips
    window.model.add_chips([presets[i] for i in ("nvidia-h100-sxm5-80gb", "amd-instinct-mi300x")])
    window.docks["kernels"].raise_()
    window.model.select(mlp.id, None)
    shot("1280x800")
    window.resize(1600, 1000)
    # A real model on three chips, with its breakdown.
    window.model.undo_stack.setClean()  # the chips added above: no "discard changes?" question
    window.files.open_example(by_name["llama-3-8b-on-three-chips"])
    doc = window.model.document
    window.model.select(doc.workloads[0].id, doc.chips[0].id)
    window.docks["workloads"].raise_()
    window.docks["breakdown"].raise_()
    shot("workload-llama")
    window.docks["table"].raise_()
    window.docks["hardware"].raise_()
    # The article, claim by claim, with a point per memory level: a and b kept on chip.
    window.files.open_example(by_name["the-article-claim-by-claim"])
    window.set_memory_levels(True)
    doc = window.model.document
    window.model.select(doc.kernels[1].id, doc.chips[0].id)
    window.docks["kernels"].raise_()
    shot("article-memory-levels")
    window.set_memory_levels(False)
    window.docks["hardware"].raise_()
    # What if the hardware changed: a derived H100 with twice the HBM, and the design space of
    # Llama decode around it.
    window.model.undo_stack.setClean()
    window.files.open_example(by_name["llama-3-8b-on-three-chips"])
    from roofline_gui.core.chip import derive

    doc = window.model.document
    window.model.add_chips([derive(doc.chips[0], {"dram": 2})], 1)
    window.model.select(window.model.document.workloads[0].id, window.model.document.chips[1].id)
    window.set_memory_levels(True)
    window.docks["design"].raise_()
    window.design.refresh()
    shot("what-if-design-space")
    window.model.undo_stack.setClean()
    window.docks["table"].raise_()
    # Training: ResNet-50 in fp32, tf32 and bf16, its step by part, memory and scaling.
    window.files.open_example(by_name["training-fp32-against-bf16"])
    doc = window.model.document
    window.model.select(doc.workloads[2].id, doc.chips[0].id)
    window.docks["workloads"].raise_()
    window.docks["breakdown"].raise_()
    shot("training")
    window.model.undo_stack.setClean()
    window.docks["table"].raise_()
    window.docks["hardware"].raise_()
    # Energy: Llama-3-8B decode on three chips, its energy roofline and tokens per joule.
    window.files.open_example(by_name["llama-3-8b-on-three-chips"])
    doc = window.model.document
    window.model.select(doc.workloads[0].id, doc.chips[0].id)
    window.set_mode("energy")  # View → Energy (op/J): the chart's y axis in op per joule
    QApplication.processEvents()
    window.canvas.energy_chart.refresh()
    window.docks["workloads"].raise_()
    window.docks["table"].raise_()
    shot("energy")
    window.set_mode("overlay")
    window.model.undo_stack.setClean()
    window.docks["table"].raise_()
    # Today's models: DeepSeek-R1 on 8 H200s in FP8 against 4 B200s in NVFP4, the weights a
    # token costs as the batch grows.
    window.files.open_example(by_name["deepseek-r1-h200-fp8-vs-b200-nvfp4"])
    doc = window.model.document
    window.model.select(doc.workloads[0].id, doc.chips[0].id)
    window.docks["workloads"].raise_()
    window.docks["breakdown"].raise_()
    charts = window.breakdown
    charts.right.setCurrentIndex(charts.right.findData("weights"))
    shot("moe-deepseek")
    charts.right.setCurrentIndex(charts.right.findData("latency"))
    window.model.undo_stack.setClean()
    # Serving: Llama-3.3-70B and DeepSeek-R1 at 50 ms per token on three chips.
    window.files.open_example(by_name["serving-70b-and-r1-at-50-ms"])
    doc = window.model.document
    window.model.select(doc.workloads[0].id, doc.chips[1].id)
    window.docks["serving"].raise_()
    window.serving.refresh()
    window.serving._write_words()  # noqa: SLF001 (written once it holds still)
    shot("serving")
    window.model.undo_stack.setClean()
    window.docks["table"].raise_()
    if "--measured" in sys.argv:
        measured_shot(app, window, shot)
    window.model.undo_stack.setClean()
    window.close()
    QApplication.processEvents()
    japanese_shot(app, by_name)


def japanese_shot(app, by_name) -> None:
    """The window in Japanese at 1280 × 800 (View → Language → 日本語, B/F on as it starts in
    Japanese): the article's example in Japanese, claim 6's MLP selected on the TPU v3."""
    from PySide6.QtCore import QSettings
    from PySide6.QtTest import QTest

    from roofline_gui.io.translations import use_language
    from roofline_gui.models.settings import Settings
    from roofline_gui.widgets.app.main_window import MainWindow

    use_language("ja")
    try:
        ini = Path(tempfile.mkdtemp()) / "settings.ini"
        window = MainWindow(settings=Settings(QSettings(str(ini), QSettings.Format.IniFormat)))
        window.resize(1280, 800)
        window.show()
        from roofline_gui.widgets.app.file_actions import examples

        article = next(p for p in examples() if p.name == "the-article-claim-by-claim.ja.roofline")
        window.files.open_example(article)  # in Japanese, the Japanese version's place
        doc = window.model.document
        mlp = next(k for k in doc.kernels if k.name.startswith("5, 6 · "))
        window.model.select(mlp.id, next(c.id for c in doc.chips if c.name == "TPU v3"))
        def shot(name: str) -> None:
            for _i in range(5):
                app.processEvents()
            QTest.qWait(300)
            window.grab().save(str(ROOT / "docs" / f"screenshot-ja-{name}.png"))
            print(f"wrote docs/screenshot-ja-{name}.png")

        shot("1280x800")
        # a workload: Llama-3-8B decode on three chips, its breakdown and its words
        window.model.undo_stack.setClean()
        japanese = {p.name.removesuffix(".ja.roofline"): p for p in examples()}
        window.files.open_example(japanese["llama-3-8b-on-three-chips"])
        doc = window.model.document
        window.model.select(doc.workloads[0].id, doc.chips[0].id)
        window.docks["workloads"].raise_()
        window.docks["breakdown"].raise_()
        shot("workload-1280x800")
        # training: ResNet-50 in fp32, tf32 and bf16 (the article's claim 7 and claim 6)
        window.model.undo_stack.setClean()
        window.files.open_example(japanese["training-fp32-against-bf16"])
        doc = window.model.document
        window.model.select(doc.workloads[0].id, doc.chips[0].id)
        shot("training-1280x800")
        window.model.undo_stack.setClean()
        window.close()
    finally:
        use_language("en")


def measured_shot(app, window, shot) -> None:
    """This computer measured, with kernels run on it: measured stars beside modelled points."""
    from dataclasses import replace

    from roofline_gui.core.chip import attach_measured
    from roofline_gui.core.document import Document
    from roofline_gui.core.kernel import Kernel
    from roofline_gui.measure.kernels import run_kernel, with_measurement
    from roofline_gui.measure.machine import measure, to_chip

    chip = replace(to_chip(measure()), color="#1f77b4")
    kernels = [
        Kernel("k1", "STREAM triad 20M (fp64)", "fp64", template="triad", params={"n": 2e7}),
        Kernel("k2", "out = a + b 20M (fp32)", "fp32", template="elementwise", params={"n": 2e7}),
        Kernel("k3", "dot 20M (fp64)", "fp64", template="dot", params={"n": 2e7}),
        Kernel("k4", "7-point stencil 256³ (fp64)", "fp64", template="stencil7",
               params={"nx": 256, "ny": 256, "nz": 256, "steps": 1}),
        Kernel("k5", "DGEMM 2048³ (fp64)", "fp64", template="gemm",
               params={"m": 2048, "n": 2048, "k": 2048}),
        Kernel("k6", "SGEMM 512³ (fp32)", "fp32", template="gemm", params={"m": 512, "n": 512, "k": 512}),
    ]
    kernels = [with_measurement(k, run_kernel(k)) for k in kernels]
    window.model.reset(Document(chips=(chip,), kernels=tuple(kernels), title="This computer"))
    window.model.select("k4", chip.id)
    shot("this-computer-measured")
    # The same measurements beside the datasheet of the processor the machine is a slice of,
    # with View → Achievable roofs: measured roofs solid, datasheet roofs dashed.
    merged, _matched, _unmatched = attach_measured(milan_datasheet(), chip)
    window.model.reset(Document(chips=(merged,), kernels=tuple(kernels), title="Datasheet and measured"))
    window.set_derated(True)
    window.model.select("k5", merged.id)
    window.docks["hardware"].raise_()
    shot("datasheet-and-measured")
    window.set_derated(False)


def milan_datasheet():
    """Two cores of an AMD EPYC 7763 (Zen 3, what this machine's 2.45 GHz family 19h model 1
    processor is a slice of; the hypervisor masks the model name), from its datasheet and AMD's
    optimisation guide, for the measured values to stand beside."""
    from roofline_gui.core.chip import Chip, MemoryLevel

    guide = "AMD Software Optimization Guide for Family 19h (Zen 3), 56665 rev 3.00"
    boost = 3.5e9  # EPYC 7763 max boost (AMD product page)
    return Chip(
        "sheet", "2 cores of an AMD EPYC 7763 (datasheet)",
        {"fp64": 2 * boost * 16, "fp32": 2 * boost * 32},
        (MemoryLevel("cache", "L1", 2 * boost * 96,
                     source=f"2 cores × 3.5 GHz × (2 loads + 1 store of 32 B) per cycle; {guide}"),
         MemoryLevel("cache", "L2", 2 * boost * 64, source=f"2 cores × 3.5 GHz × 64 B per cycle; {guide}"),
         MemoryLevel("cache", "L3", 2 * boost * 32, source=f"2 cores × 3.5 GHz × 32 B per cycle; {guide}"),
         MemoryLevel("dram", "DRAM", 204.8e9,
                     source="the socket's 8 channels of DDR4-3200 × 8 B (EPYC 7763 product page)")),
        vendor="AMD", year=2021, color="#d62728",
        compute_sources={"fp64": "2 cores × 3.5 GHz max boost × 4 lanes × 2 FMA units × 2",
                         "fp32": "2 cores × 3.5 GHz max boost × 8 lanes × 2 FMA units × 2"},
        notes="EPYC 7763: 64 cores, 2.45 GHz base, 3.5 GHz max boost, 8 channels of DDR4-3200.")


if __name__ == "__main__":
    main()
