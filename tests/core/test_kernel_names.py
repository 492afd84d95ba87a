"""Template kernels are named from their parameters, and the name follows a drag or an edit."""

from dataclasses import replace

from roofline_gui.core.kernel import Kernel
from roofline_gui.core.sweep import with_intensity


def mlp(batch, name=None):
    k = Kernel("k", "", "bf16", template="mlp", params={"batch": batch, "d_in": 4096, "d_out": 4096})
    return replace(k, name=name if name is not None else k.auto_name())


def test_two_batches_get_two_names():
    assert mlp(8).name == "MLP layer 4096×4096, batch 8 (bf16)"
    assert mlp(48).name == "MLP layer 4096×4096, batch 48 (bf16)"


def test_an_automatic_name_follows_a_drag_and_a_precision_switch():
    moved = with_intensity(mlp(8), 60.0)
    assert moved.params["batch"] != 8
    assert moved.name == f"MLP layer 4096×4096, batch {moved.params['batch']:.0f} (bf16)"
    assert mlp(8).with_precision("bf16", "int8").name == \
        "MLP layer 4096×4096, batch 8 (int8 storage, bf16 math)"


def test_a_presets_phrase_follows_and_a_users_own_name_stays():
    preset = mlp(1, "LLM decode projection 8192×8192, batch 1 (bf16)")
    assert preset.with_params(batch=64).name == "LLM decode projection 8192×8192, batch 64 (bf16)"
    assert preset.with_precision("fp8").name == "LLM decode projection 8192×8192, batch 1 (fp8)"
    assert mlp(16, "my batch 16 run").with_params(batch=1).name == "my batch 1 run"
    assert mlp(16, "Projection").with_params(batch=2).name == "Projection"
    # 'batch 1' is not found inside 'batch 16'
    assert mlp(1, "x batch 16").with_params(batch=2).name == "x batch 16"
