"""Help → Examples → "The article, claim by claim": every number its kernels' notes state, as
the app computes it (Williams, Waterman & Patterson's roofline; Jouppi et al. 2017 for the
TPU v1). If a preset or a formula changes, this says which claim no longer reads true."""

import re

import numpy as np
import pytest

from roofline_gui.core.comparison import compare
from roofline_gui.core.display import chart_spec
from roofline_gui.core.levels import ratio_to_main_memory
from roofline_gui.core.units import Units
from roofline_gui.io.files import resources_dir
from roofline_gui.io.session import load_session

PATH = resources_dir() / "examples" / "the-article-claim-by-claim.roofline"


@pytest.fixture(scope="module")
def article():
    doc = load_session(PATH)
    # by claim: "5, 6 · MLP…" answers claims 5 and 6
    kernels = {claim: i for i, k in enumerate(doc.kernels)
               for claim in k.name.split(" · ")[0].split(", ")}
    chips = {c.name: i for i, c in enumerate(doc.chips)}
    return doc, kernels, chips


def _rate(cmp, k, c):
    return float(cmp.result.attainable[k, c])


def test_the_example_is_in_help_examples_with_its_title():
    from roofline_gui.widgets.app.file_actions import example_title, examples

    assert PATH in examples() and example_title(PATH) == "The article, claim by claim"


def test_claim_1_a_plus_b_in_int8_on_an_a100_is_518_gops(article):
    doc, k, c = article
    cmp = compare(doc.kernels, doc.chips)
    a100 = c["A100 SXM4 40GB"]
    assert cmp.dram_intensity[k["1"]] == pytest.approx(1 / 3)
    assert _rate(cmp, k["1"], a100) == pytest.approx(518.3e9, rel=1e-3)
    assert "518 Gop/s" in doc.kernels[k["1"]].source


def test_claim_2_on_chip_operands_leave_only_the_write_to_hbm(article):
    doc, k, c = article
    cmp = compare(doc.kernels, doc.chips)
    a100 = c["A100 SXM4 40GB"]
    kernel = doc.kernels[k["2"]]
    assert kernel.traffic().bytes == {"cache": 2e7, "dram": 1e7}
    assert _rate(cmp, k["2"], a100) == pytest.approx(1.555e12)
    assert _rate(cmp, k["2"], a100) / _rate(cmp, k["1"], a100) == pytest.approx(3.0)
    assert cmp.limiter_name(k["2"], a100) == "HBM2"
    ratios = ratio_to_main_memory(doc.chips[a100])
    assert any("19.49 TB/s is 12.5×" in r for r in ratios) and any("7 TB/s is 4.5×" in r for r in ratios)
    levels = chart_spec(cmp, Units(), [a100], levels=True).levels
    mine = levels.kernel == k["2"]
    assert sorted(levels.x[mine]) == pytest.approx([0.5, 1.0])
    assert levels.filled[mine & (levels.x == 1.0)].all() and not levels.filled[mine & (levels.x == 0.5)].any()
    assert 0.5 * 7e12 == pytest.approx(3.5e12)  # the L2 roof its hollow point sits under
    text = kernel.source
    assert "1.555 Top/s" in text and "12.5×" in text and "4.5×" in text and "3.5 Top/s" in text
    assert kernel.traffic().resident <= 40e6  # a and b fit the 40 MB L2


def test_claim_3_the_host_link_limits_the_gemm(article):
    doc, k, c = article
    cmp = compare(doc.kernels, doc.chips)
    a100 = c["A100 SXM4 40GB"]
    assert cmp.limiter_name(k["3"], a100) == "PCIe Gen4 x16"
    assert cmp.limiting_level(k["3"], a100).role == "host"  # the level itself, for its role
    assert cmp.limiting_level(k["2"], a100).name == "HBM2"
    assert _rate(cmp, k["3"], a100) == pytest.approx(2048 * 32e9)
    assert "65.5 Top/s" in doc.kernels[k["3"]].source and "32 GB/s each way" in doc.kernels[k["3"]].source


def test_claim_4_the_tpu_v1s_cnn_at_its_compute_roof_its_mlp_and_lstm_memory_bound(article):
    doc, k, c = article
    cmp = compare(doc.kernels, doc.chips)
    tpu = c["TPU v1"]
    assert cmp.limiter_name(k["4a"], tpu) == "int8 peak" and _rate(cmp, k["4a"], tpu) == 92e12
    assert cmp.limiting_level(k["4a"], tpu) is None  # a compute peak is no memory level
    assert cmp.dram_intensity[k["4a"]] == pytest.approx(6272)  # ops per weight byte
    assert _rate(cmp, k["4b"], tpu) == pytest.approx(400 * 34e9)  # 13.6 Top/s
    assert _rate(cmp, k["4c"], tpu) == pytest.approx(128 * 34e9)  # 4.35 Top/s
    assert cmp.limiter_name(k["4b"], tpu) == cmp.limiter_name(k["4c"], tpu) == "DDR3-2133"
    # MAC mode: the paper's ridge of 1,350 MAC per weight byte
    mac = Units(mac=True)
    assert float(mac.intensity(92e12 / 34e9)) == pytest.approx(1353, abs=1)
    # the CNN layer's activations fit the 24 MiB Unified Buffer up to batch 62, as it says
    conv = doc.kernels[k["4a"]]
    assert conv.with_params(batch=62).traffic().resident <= 24 * 2**20
    assert conv.with_params(batch=63).traffic().resident > 24 * 2**20
    for claim, text in (("4a", "92 Top/s"), ("4b", "13.6 Top/s"), ("4c", "4.35 Top/s")):
        assert text in doc.kernels[k[claim]].source and "Claim 4" in doc.kernels[k[claim]].source
    # "a CNN around 1,000 ops/byte": the same layer at batch 1, every operand in main memory
    plain = conv.with_params(batch=1).with_resides({})
    assert plain.traffic().ops / plain.traffic().bytes["dram"] == pytest.approx(933, abs=0.5)
    assert "reads 933 op/B" in conv.source
    # and "Why it sits there" says so (the tour looked there for the article's ~1,000 and ~100)
    from roofline_gui.core.explain import explain

    said = explain(cmp, k["4a"], tpu)[-1]
    assert said.startswith("About this kernel:") and "the article's ~1,000" in said
    assert "about 100 in the article" in explain(cmp, k["4b"], tpu)[-1]


def test_claims_5_and_6_batching_raises_intensity_and_the_same_hbm_gives_the_same_speed(article):
    doc, k, c = article
    mlp = doc.kernels[k["5"]]
    batch64 = mlp.with_params(batch=64).traffic()
    assert batch64.ops / batch64.bytes["dram"] == pytest.approx(62, rel=0.01)
    plain = compare(doc.kernels, doc.chips)
    assert np.isnan(plain.result.attainable[k["5"], c["V100 SXM2 16GB"]])  # no bf16 on V100
    same = compare(doc.kernels, doc.chips, same_width=True)
    v100, tpu3, a100 = (_rate(same, k["5"], c[n]) for n in ("V100 SXM2 16GB", "TPU v3", "A100 SXM4 40GB"))
    assert v100 == pytest.approx(tpu3) and v100 == pytest.approx(900e9, rel=1e-3)
    assert a100 / tpu3 == pytest.approx(1.73, abs=0.005)
    text = mlp.source
    assert "62 op/B" in text and "1.00×" in text and "1.73×" in text and "900 Gop/s" in text
    # Why it sits there says so on either chip, not only the kernel's note (the tour)
    from roofline_gui.core.explain import explain

    on_tpu = "\n".join(explain(same, k["5"], c["TPU v3"]))
    assert ("V100 SXM2 16GB runs it at the same speed (899.6 Gop/s): both are memory-bound on "
            "main memories of 900 GB/s, the article's case: the same HBM" in on_tpu)
    on_v100 = "\n".join(explain(same, k["5"], c["V100 SXM2 16GB"]))
    assert "TPU v3 runs it at the same speed" in on_v100
    assert "same speed" not in "\n".join(explain(same, k["5"], c["A100 SXM4 40GB"]))


def test_the_same_hbm_sentence_names_the_bandwidth_the_roof_is_drawn_at():
    """Derated, the sentence had named the H100's datasheet 3.35 TB/s beside roofs drawn at 92 %
    of it (3.082 TB/s); it names the bandwidth the roofs are drawn at."""
    from dataclasses import replace

    from roofline_gui.core.explain import explain
    from roofline_gui.core.units import format_si
    from roofline_gui.io.presets import load_presets

    presets = load_presets()
    h100 = presets.chips["nvidia-h100-sxm5-80gb"]
    twin = replace(h100, id="twin", name="H100 twice the peak",
                   compute={p: 2 * v for p, v in h100.compute.items()})
    derated = compare([presets.kernels["add-fp32"]], [h100, twin], derated=True)
    dram = derated.chip_arrays.dram_bandwidth(True)[0]
    assert format_si(dram, "B/s") == "3.082 TB/s"
    said = "\n".join(explain(derated, 0, 0))
    assert "main memories of 3.082 TB/s, the article's case" in said, said


def test_claim_7_bf16_halves_the_bytes_and_doubles_the_rate(article):
    doc, k, c = article
    cmp = compare(doc.kernels, doc.chips)
    a100 = c["A100 SXM4 40GB"]
    assert _rate(cmp, k["5"], a100) / _rate(cmp, k["7"], a100) == pytest.approx(2.0)
    assert _rate(cmp, k["7"], a100) == pytest.approx(777.1e9, rel=1e-4)
    assert "777 Gop/s" in doc.kernels[k["7"]].source and "1.555 Top/s" in doc.kernels[k["7"]].source


def test_every_kernel_is_named_by_its_claim():
    doc = load_session(PATH)
    # every claim has its kernel: 6 (the same HBM) with 5's, as its note tells (the seventh
    # tour looked for a row of claim 6 and found none)
    assert [re.match(r"(\d\w?(?:, \d)?) · ", k.name).group(1) for k in doc.kernels] == [
        "1", "2", "3", "4a", "4b", "4c", "5, 6", "7"]


def test_the_japanese_version_tells_the_same_claims_with_the_same_numbers():
    """Help → Examples in Japanese offers the article's example in Japanese in its place: the
    same kernels and chips, each note with the English note's numbers (the TPU v1's preset
    citation aside), and only in Japanese."""
    from roofline_gui.io.translations import use_language
    from roofline_gui.widgets.app.file_actions import examples

    japanese = PATH.with_name("the-article-claim-by-claim.ja.roofline")
    en, ja = load_session(PATH), load_session(japanese)
    assert ja.title == "記事の主張をひとつずつ"
    assert [c.name for c in ja.chips] == [c.name for c in en.chips]
    number = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
    for a, b in zip(en.kernels, ja.kernels, strict=True):
        assert (a.params, a.precision, a.resides, a.template) == (b.params, b.precision, b.resides,
                                                                   b.template)
        english_note = a.source.split("Jouppi")[0]  # the preset's own citation stays English
        assert set(number.findall(english_note)) <= set(number.findall(b.source)), a.name
        assert re.search(r"[\u3040-\u30ff]", b.source) and re.search(r"[\u3040-\u30ff]", b.name)
    assert japanese not in examples() and PATH in examples()
    try:
        use_language("ja")
        assert japanese in examples() and PATH not in examples()
    finally:
        use_language("en")
