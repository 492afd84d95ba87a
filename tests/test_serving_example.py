"""The serving example (Help → Examples): Llama-3.3-70B and DeepSeek-R1 on an H200, a B200 and
an MI355X at 1,000 in and 1,000 out, 50 ms per token; its sources say what the bound gives."""

from dataclasses import replace
from pathlib import Path

from roofline_gui.core.serving import serve, spec_of
from roofline_gui.io.session import load_session

EXAMPLE = (Path(__file__).resolve().parents[1] / "resources" / "examples"
           / "serving-70b-and-r1-at-50-ms.roofline")


def test_the_example_states_each_chips_best_point():
    doc = load_session(EXAMPLE)
    assert [c.name for c in doc.chips] == ["H200 SXM 141GB", "B200", "MI355X"]
    for w in doc.workloads:
        assert (w.input_tokens, w.output_tokens, w.tpot_limit) == (1000, 1000, 0.05)
        r = serve(w, doc.chips, spec_of(w))
        for c, chip in enumerate(doc.chips):
            k = r.best(c)
            assert k is not None and r.tpot[c, k] <= 0.05
            assert (f"{chip.name} {r.tokens_per_chip[c, k]:,.0f} output tokens/s per chip at "
                    f"{int(r.concurrency[k]):,} users") in w.source


def test_a_served_workloads_explanation_says_its_step_is_not_the_serving_bound():
    """"Why it sits there" read 8,122 tokens/s for B = 256 and the Serving tab 5,146 at 256
    users (the eighteenth tour): the explanation says which is which."""
    from roofline_gui.core.workload_eval import evaluate_workloads
    from roofline_gui.core.workload_view import explain_workload

    doc = load_session(EXAMPLE)
    w = doc.workloads[0]
    (r,) = evaluate_workloads([w], doc.chips)
    text = "\n".join(explain_workload(r, 0))
    assert f"one decode step of {w.batch:,} sequences alone" in text
    assert "Serving tab's bound" in text
    unserved = evaluate_workloads([replace(w, tpot_limit=0.0, ttft_limit=0.0)], doc.chips)[0]
    assert "Serving tab" not in "\n".join(explain_workload(unserved, 0))
