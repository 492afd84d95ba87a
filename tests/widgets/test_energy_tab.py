"""The Energy tab (issue 28): a new user finds how many tokens per joule Llama-3-8B decodes at
batch 1 and at batch 64 on an H100 and an MI300X, and the y axis switches between op per joule
(the energy roofline) and op/s under the board power (the power-capped roof)."""

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

import roofline_gui.api as rf
from roofline_gui.core.document import Document


def test_tokens_per_joule_at_batch_1_and_64_on_an_h100_and_an_mi300x(window, qtbot):
    model = window.model
    model.reset(Document())
    model.add_chips([window.presets.chips[i] for i in ("nvidia-h100-sxm5-80gb",
                                                       "amd-instinct-mi300x")])
    model.add_workloads([rf.workload("llama-3-8b", name=f"decode B = {b}", phase="decode",
                                     batch=b, context=2048) for b in (1, 64)])
    QApplication.processEvents()
    window.docks["energy"].raise_()
    panel = window.energy
    qtbot.waitUntil(lambda: not panel.pending)
    panel.refresh()
    one, many = model.workload_results
    for j, chip in enumerate(model.document.chips):
        # the explanation says it in words
        model.select(one.workload.id, chip.id)
        qtbot.waitUntil(lambda: not window.explanation.pending)
        text = window.explanation.toPlainText()
        assert f"{float(one.energy.items_per_joule[j]):,.4g} tokens per joule" in text
        # and the tab places each workload at its op per joule
        _x, y = panel.points[f"{one.workload.id}@{chip.id}"]
        assert y == pytest.approx(one.ops / float(one.energy.per_step[j]))
    # batching: each weight byte serves 64 tokens, so many more tokens per joule on both chips
    assert (many.energy.items_per_joule > 10 * one.energy.items_per_joule).all()
    # MI300X: more bandwidth per watt, so more tokens per joule at batch 1
    assert one.energy.items_per_joule[1] > one.energy.items_per_joule[0]
    assert "estimated from the board power (upper bounds)" in panel.title.text()
    assert "no cap claimed" in panel.title.text() and not one.energy.capped.any()
    # and says per token where the joules go: main memory's bytes, the weights shared by the batch
    model.select(many.workload.id, model.document.chips[0].id)
    qtbot.waitUntil(lambda: not window.explanation.pending)
    assert "of it weights, read once per step and shared by its 64 tokens" in \
        window.explanation.toPlainText()
    # no energy data, no point (a chip without a board power is named, not drawn)
    model.add_chips([window.presets.chips["google-tpu-v5e"]])
    QApplication.processEvents()
    panel.refresh()
    v5e = model.document.chips[-1].id
    assert not any(key.endswith(f"@{v5e}") for key in panel.points)
    assert "No energy data: TPU v5e" in panel.title.text()
    # the y axis switched: op/s under the board power, never above the roofline
    panel.mode.setCurrentIndex(1)
    assert not panel.energy_mode
    for name, (_xs, ys) in panel.curves.items():
        assert np.all(np.isfinite(ys)) and name in ("H100 SXM5 80GB", "Instinct MI300X")
    _x, y = panel.points[f"{many.workload.id}@{model.document.chips[0].id}"]
    assert y <= float(many.attainable[0]) * (1 + 1e-9)
