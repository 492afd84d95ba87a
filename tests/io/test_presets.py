"""The shipped presets: enough chips, dense per-chip values, a source for every value."""

import pytest

from roofline_gui.io.presets import default_presets

REQUIRED_CHIPS = {
    "nvidia-v100-sxm2-16gb", "nvidia-t4", "nvidia-a100-sxm4-40gb", "nvidia-a100-sxm4-80gb",
    "nvidia-l4", "nvidia-h100-sxm5-80gb", "nvidia-h200-sxm-141gb", "nvidia-b200",
    "amd-instinct-mi250x", "amd-instinct-mi300x", "google-tpu-v1", "google-tpu-v2",
    "google-tpu-v3", "google-tpu-v4", "google-tpu-v5e", "google-tpu-v5p",
    "google-tpu-v6e-trillium", "intel-gaudi-3", "amd-epyc-9654-genoa",
}


@pytest.fixture(scope="module")
def presets():
    return default_presets()


def test_at_least_25_chips_including_the_required_ones(presets):
    assert len(presets.chips) >= 25
    assert REQUIRED_CHIPS <= set(presets.chips)


def test_every_value_has_a_source(presets):
    for chip in presets.chips.values():
        assert set(chip.compute_sources) == set(chip.compute), chip.id
        assert all(s.strip() for s in chip.compute_sources.values()), chip.id
        assert all(level.source.strip() for level in chip.memory), chip.id
        assert chip.dram.bandwidth > 0


@pytest.mark.parametrize(
    ("chip", "precision", "dense"),
    [
        ("nvidia-h100-sxm5-80gb", "bf16", 989.4e12),  # datasheet 1979 is with 2:4 sparsity
        ("nvidia-h100-sxm5-80gb", "fp8", 1978.9e12),
        ("nvidia-b200", "bf16", 2250e12),
        ("amd-instinct-mi300x", "fp16", 1307.4e12),  # 2614.9 is the sparse figure
        ("nvidia-a100-sxm4-40gb", "bf16", 312e12),  # 624 is sparse
        ("google-tpu-v3", "bf16", 123e12),  # per chip; "420 TFLOPS" is a 4-chip board
        ("google-tpu-v1", "int8", 92e12),
        ("intel-gaudi-3", "fp8", 1835e12),  # FP8 = BF16 on Gaudi 3
    ],
)
def test_peaks_are_dense_per_chip(presets, chip, precision, dense):
    assert presets.chips[chip].compute[precision] == pytest.approx(dense)


@pytest.mark.parametrize(
    ("chip", "bandwidth"),
    [("nvidia-a100-sxm4-40gb", 1555e9), ("nvidia-h100-sxm5-80gb", 3350e9),
     ("google-tpu-v3", 900e9), ("google-tpu-v5e", 819e9), ("amd-instinct-mi300x", 5300e9)],
)
def test_decimal_bandwidths_from_the_datasheets(presets, chip, bandwidth):
    assert presets.chips[chip].dram.bandwidth == pytest.approx(bandwidth)


def test_modes_the_hardware_lacks_are_absent_not_zero(presets):
    assert "fp8" not in presets.chips["nvidia-a100-sxm4-40gb"].compute
    assert "tf32" not in presets.chips["nvidia-v100-sxm2-16gb"].compute
    for chip in presets.chips.values():
        assert all(v > 0 for v in chip.compute.values())


def test_host_links_are_per_direction(presets):
    a100 = presets.chips["nvidia-a100-sxm4-40gb"]
    assert a100.levels("host")[0].bandwidth == pytest.approx(32e9)
    assert presets.chips["nvidia-v100-sxm2-16gb"].levels("host")[0].bandwidth == pytest.approx(16e9)


def test_kernel_presets_cover_the_classic_classes(presets):
    from roofline_gui.core.comparison import compare

    kernels = presets.kernels
    for required in ("add-int8", "cnn-int8", "mlp-int8", "lstm-int8", "spmv-fp64",
                     "stencil7-fp64", "fft3d-fp64", "gemm-4k-bf16", "attn-prefill-bf16",
                     "attn-decode-bf16"):
        assert required in kernels
    assert all(k.category and k.source for k in kernels.values())
    c = compare(list(kernels.values()), [presets.chips["google-tpu-v1"]])
    intensity = dict(zip(kernels, c.dram_intensity, strict=True))
    assert 800 < intensity["cnn-int8"] < 1200  # "a CNN around 1,000 ops/byte"
    assert 80 < intensity["mlp-int8"] < 120  # "RNNs and MLPs around 100"
    assert 80 < intensity["lstm-int8"] < 120
    # The first TPU (ridge 92e12 / 34e9 = 2,706 op/B) is memory-bound on MLP and LSTM.
    ids = list(kernels)
    assert c.bound_name(ids.index("mlp-int8"), 0) == "memory"
    assert c.bound_name(ids.index("lstm-int8"), 0) == "memory"
