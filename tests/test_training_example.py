"""Help → Examples → "Training: fp32 against bf16, an A100 against a TPU v3 and a V100": the numbers its
workloads' source states, as the app computes them (same-width precisions on, as the window
starts), and the article's two training claims: lower precision (up to ~2× where memory binds)
and the same HBM giving the same speed."""

import re

import numpy as np
import pytest

from roofline_gui.core.workload_eval import evaluate_workloads
from roofline_gui.io.files import resources_dir
from roofline_gui.io.session import load_session

PATH = resources_dir() / "examples" / "training-fp32-against-bf16.roofline"


@pytest.fixture(scope="module")
def results():
    doc = load_session(PATH)
    return doc, evaluate_workloads(doc.workloads, doc.chips, same_width=True)


def test_the_example_is_in_help_examples_with_its_title():
    from roofline_gui.widgets.app.file_actions import example_title, examples

    assert PATH in examples()
    assert example_title(PATH) == "Training: fp32 against bf16, an A100 against a TPU v3 and a V100"


def test_bf16_trains_about_twice_as_fast_as_tf32_and_the_same_hbm_gives_the_same_speed(results):
    doc, (fp32, tf32, bf16) = results
    names = [c.name for c in doc.chips]
    assert names == ["A100 SXM4 40GB", "TPU v3", "V100 SXM2 16GB"]
    text = doc.workloads[0].source
    gain = float(bf16.throughput[0] / tf32.throughput[0])
    assert 1.8 < gain <= 2.0 and f"{gain:.2f}× the images/s of tf32" in text
    assert f"{bf16.throughput[0] / fp32.throughput[0]:.1f}× those of fp32" in text
    assert not np.isfinite(fp32.time[1]) and not np.isfinite(tf32.time[1])  # TPU v3: no fp32
    tpu, v100 = float(bf16.throughput[1]), float(bf16.throughput[2])
    assert f"at {tpu:,.0f} and {v100:,.0f} images/s" in text
    assert v100 / tpu == pytest.approx(1.0, abs=0.02)
    # every workload is a training step that fits, and its run is 90 epochs of ImageNet-1k
    for r in results[1]:
        assert r.training is not None and r.training.train_items == 90 * 1_281_167
        assert all(r.fits[np.isfinite(r.time)])
    # the bound beats NVIDIA's published ~1,400 images/s per V100 in mixed precision
    assert v100 / 8 > 1400
    assert re.search(r"micro-batch 64 on 8 chips", text)


def test_the_note_and_why_it_sits_there_give_one_reason_for_the_same_speed(results):
    """The note said "the same HBM, the same speed" while Why it sits there said the step is
    about 60 % compute-bound (a tour found them disagreeing): both now say the compute share,
    the roofs' ratio, and that the same HBM is half the reason."""
    from roofline_gui.core.training_view import same_time_lines

    doc, (_fp32, _tf32, bf16) = results
    text = doc.workloads[0].source
    shares = [f"{float(bf16.compute_share[c]):.0%}" for c in (1, 2)]
    assert 0.5 < float(bf16.compute_share[1]) < 0.7
    assert f"{shares[0]} and {shares[1]} compute-bound" in text and "only half for its reason" in text
    ratio = float(max(bf16.peak[1:]) / min(bf16.peak[1:]))
    assert f"{ratio:.2f}× apart" in text
    why = " ".join(same_time_lines(bf16, 1))
    assert "V100 SXM2 16GB" in why and "compute-bound" in why and "half the reason" in why


def test_a_step_held_by_a_stand_in_peak_names_the_precision_it_runs_at(results):
    """The third tour: the table read "bf16 peak 59.8%" for the V100, which has no bf16 (its
    editor says so) and trains at its fp16 roof; the words name the roof: "fp16 peak (for
    bf16)". The TPU v3, which has bf16, keeps "bf16 peak"."""
    doc, (_fp32, _tf32, bf16) = results
    v100 = [c.name for c in doc.chips].index("V100 SXM2 16GB")
    assert "bf16" not in doc.chips[v100].compute
    assert bf16.limiter_name(v100).startswith("fp16 peak (for bf16) ")
    assert bf16.limiter_name(v100, shown=True).startswith("fp16 peak (for bf16) ")
    tpu = [c.name for c in doc.chips].index("TPU v3")
    assert bf16.limiter_name(tpu).startswith("bf16 peak "), bf16.limiter_name(tpu)


def test_the_explanation_names_the_roof_the_v100_trains_at(results):
    """The fourth tour read "the bf16 roof of 125 Top/s" for the V100 beside the table's "fp16
    peak (for bf16)": the explanation names the fp16 roof it runs at, and says it stands in."""
    from roofline_gui.core.training_view import explain_training

    doc, (_fp32, _tf32, bf16) = results
    v100 = [c.name for c in doc.chips].index("V100 SXM2 16GB")
    text = "\n".join(explain_training(bf16, v100))
    assert "at the fp16 roof of 125 Top/s" in text and "the bf16 roof of" not in text
    assert "its fp16 stands in: it has no bf16" in text
