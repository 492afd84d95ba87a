"""The serving example (Help → Examples): Llama-3.3-70B and DeepSeek-R1 on an H200, a B200 and
an MI355X at 1,000 in and 1,000 out, 50 ms per token; its sources say what the bound gives."""

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
