"""The chart's scene and labels, without Qt: the range holds every kernel and keeps outliers
out; equal roofs share a label; no label is placed over another."""

from dataclasses import replace

import numpy as np
import pytest

from roofline_gui.core.chart_labels import (
    geometry_for,
    joined_tags,
    label_footprint,
    place_roof_labels,
    stacked_tags,
)
from roofline_gui.core.chart_scene import (
    ChartScene,
    changed_parts,
    kernels_outside,
    measured_points,
    with_edge_room,
)
from roofline_gui.core.comparison import compare
from roofline_gui.core.display import boxes_overlap, chart_spec
from roofline_gui.core.units import Units
from roofline_gui.io.presets import load_presets

PRESETS = load_presets()


def _scene(chip_ids, kernels):
    chips = tuple(replace(PRESETS.chips[c], id=c) for c in chip_ids)
    cmp = compare(tuple(kernels), chips)
    spec = chart_spec(cmp, Units())
    shown = tuple(range(len(chips)))
    measured = measured_points(cmp, spec, shown)
    return ChartScene(spec, cmp, shown, measured=measured)


def _kernel(preset_id, **changes):
    return replace(PRESETS.kernels[preset_id], id=preset_id, **changes)


def test_the_fit_holds_every_marker_on_every_shown_chip():
    scene = _scene(["google-tpu-v1"], [_kernel(k) for k in ("cnn-int8", "mlp-int8", "lstm-int8")])
    (x_lo, x_hi), (y_lo, y_hi) = scene.fit.range
    y = scene.spec.marker_y[:, 0]
    assert (x_lo < scene.spec.marker_x).all() and (scene.spec.marker_x < x_hi).all()
    assert (y_lo < y).all() and (y < y_hi).all()
    assert kernels_outside(scene, scene.fit.range) == 0
    # A view of the CNN alone leaves the MLP and the LSTM outside: two kernels.
    assert kernels_outside(scene, ((500.0, 2000.0), (1e13, 1e14))) == 2


def test_a_kernel_with_a_marker_in_sight_is_counted_partly_outside_not_outside():
    """A zoom to one chip's marker of a kernel leaves its other chips' markers outside: the note
    had read "8 kernels outside the view" with that kernel in sight (the tour)."""
    from roofline_gui.core.chart_scene import kernels_out

    scene = _scene(["google-tpu-v1", "nvidia-a100-sxm4-40gb"], [_kernel("mlp-int8"), _kernel("cnn-int8")])
    x, (tpu, a100) = scene.spec.marker_x[0], scene.spec.marker_y[0]
    assert tpu < a100 / 2
    around_tpu = ((x / 1.5, x * 1.5), (tpu / 1.5, tpu * 1.5))
    assert kernels_out(scene, around_tpu) == (1, 1)  # the CNN wholly, the MLP partly
    assert kernels_outside(scene, around_tpu) == 2
    assert kernels_out(scene, scene.fit.range) == (0, 0)


def test_a_measured_point_far_above_every_roof_is_an_outlier_kept_out_of_the_fit():
    mlp = _kernel("mlp-int8")
    roof = float(_scene(["google-tpu-v1"], [mlp]).spec.marker_y[0, 0])
    far = _scene(["google-tpu-v1"], [replace(mlp, measured_flops=roof * 1000), _kernel("cnn-int8")])
    (point,) = far.measured
    assert point.outlier and point.above == ("TPU v1",)
    assert far.fit.outliers == (0,) and far.fit.range[1][1] < roof * 1000
    near = _scene(["google-tpu-v1"], [replace(mlp, measured_flops=roof * 2), _kernel("cnn-int8")])
    assert not near.measured[0].outlier and near.fit.range[1][1] > roof * 2


def test_a_part_that_did_not_change_is_the_same_object():
    scene = _scene(["google-tpu-v1"], [_kernel("cnn-int8")])
    assert changed_parts(scene, replace(scene, labels=())) == {"labels"}
    assert changed_parts(None, scene) >= {"spec", "selection"}


def _geometry(scene, size=(900.0, 560.0)):
    (x_lo, x_hi), (y_lo, y_hi) = scene.fit.range
    return geometry_for(tuple(np.log10([x_lo, x_hi, y_lo, y_hi])), size, 7.0, 14.0)


def test_roofs_of_several_chips_on_each_other_share_one_label():
    scene = _scene(["nvidia-v100-sxm2-16gb", "google-tpu-v3"], [_kernel("add-fp32")])
    texts = [lb.text for lb in place_roof_labels(scene, _geometry(scene), None, "#202020")]
    assert "HBM2 900 GB/s: V100 SXM2 16GB, TPU v3" in texts
    assert not any(t.startswith("HBM2 900 GB/s") and ":" not in t for t in texts)


def test_no_roof_label_is_placed_over_another_even_in_a_small_chart():
    scene = _scene(["nvidia-a100-sxm4-40gb", "google-tpu-v3", "nvidia-h100-sxm5-80gb",
                    "amd-instinct-mi300x"], [_kernel(k) for k in ("gemm-4k-bf16", "add-int8", "mlp-bf16-b1")])
    for size in ((900.0, 560.0), (420.0, 260.0)):
        g = _geometry(scene, size)
        feet = [label_footprint(lb, g) for lb in place_roof_labels(scene, g, None, "#202020")]
        for i, a in enumerate(feet):
            for b in feet[i + 1:]:
                assert not any(boxes_overlap(p, q) for p in a for q in b), size


def test_an_edit_updates_the_measured_rows_the_evaluator_carries_over():
    """The evaluator carries measured_rows to the next comparison, looking again only at the
    changed rows: the result is the same as looking at every kernel."""
    from roofline_gui.core.comparison import Evaluator

    chips = (replace(PRESETS.chips["google-tpu-v1"], id="t"),)
    kernels = [_kernel(k) for k in ("cnn-int8", "mlp-int8", "lstm-int8")]
    kernels[2] = replace(kernels[2], measured_flops=1e12)
    evaluator = Evaluator()
    assert evaluator.compare(kernels, chips).measured_rows == [2]
    for changed in ([replace(kernels[0], measured_flops=5e12), kernels[1], kernels[2]],
                    [kernels[0], kernels[1], replace(kernels[2], measured_flops=None)]):
        cmp = evaluator.compare(changed, chips)
        assert "measured_rows" in cmp.__dict__  # carried over, not worked out from scratch
        assert cmp.measured_rows == [k for k, kernel in enumerate(changed) if kernel.is_measured]


def test_labels_stay_whole_inside_the_view_and_leave_a_tiny_chart_alone():
    from roofline_gui.core.chart_labels import MIN_LABELLED_PX, label_box

    scene = _scene(["nvidia-a100-sxm4-40gb", "google-tpu-v4"],
                   [_kernel(k) for k in ("gemm-4k-bf16", "add-int8")])
    g = _geometry(scene, (300.0, 180.0))
    left, top, right, bottom = g.bounds
    labels = place_roof_labels(scene, g, None, "#202020")
    assert labels
    for lb in labels:  # no text cut by an edge of the view
        for box in label_footprint(lb, g) + [label_box(lb, g)] * (lb.along is None):
            assert top <= box[1] and box[3] <= bottom and left <= box[0] and box[2] <= right, lb.text
    assert place_roof_labels(scene, _geometry(scene, (300.0, MIN_LABELLED_PX - 10)), None, "#202020") == ()


def _key(scene, g, selected=None):
    from roofline_gui.core.chart_labels import peak_key_texts, place_peak_key

    return place_peak_key(scene, g, selected, peak_key_texts(scene, list(scene.chips), "#202020"))


def test_the_peaks_are_named_in_the_key_a_line_apart_beside_their_roofs_ends():
    """The key at the chart's right holds every peak whose roof reaches the view's right edge:
    roofs drawn on each other share one label, roofs a few pixels apart are spread a line apart
    (in order, none past the view's top or bottom), and a lone roof's label is level with it."""
    scene = _scene(["nvidia-a100-sxm4-40gb", "google-tpu-v4"],
                   [_kernel(k) for k in ("gemm-4k-bf16", "add-int8")])
    g = _geometry(scene, (300.0, 180.0))
    key = _key(scene, g)
    # One chip's bf16 and int8 roofs at the same 275 Top/s: one label naming both precisions.
    assert [lb.text for lb in key] == ["int8 624 Top/s", "bf16 312 Top/s", "bf16, int8 275 Top/s"]
    _x_lo, _x_hi, y_lo, y_hi = g.view
    spots = [-lb.shown_y * g.px[1] for lb in key]
    assert spots == sorted(spots)  # top to bottom, as their roofs
    assert all(b - a >= g.line - 1e-9 for a, b in zip(spots, spots[1:], strict=False))
    assert all(-y_hi * g.px[1] <= s - g.line / 2 and s + g.line / 2 <= -y_lo * g.px[1] + 1e-9
               for s in spots)
    v3 = _scene(["google-tpu-v3"], [_kernel("gemm-4k-bf16")])
    (alone,) = _key(v3, _geometry(v3))
    assert alone.text == "bf16 123 Top/s" and np.isclose(alone.shown_y, alone.y)
    assert np.isclose(alone.y, np.log10(123e12))


def test_near_equal_roofs_are_spread_apart_and_a_key_too_tall_keeps_the_selected_chips():
    """TPU v3's 123 and V100's 125 Top/s lie 1 px apart: their labels a line apart, each on
    its side of the pair. A view too short for every label keeps the selected chip's, then the
    highest."""
    scene = _scene(["google-tpu-v3", "nvidia-v100-sxm2-16gb"],
                   [_kernel("gemm-4k-bf16"), replace(_kernel("gemm-4k-bf16"), id="h", precision="fp16")])
    g = _geometry(scene)
    key = {lb.text: lb for lb in _key(scene, g)}
    high, low = key["fp16 125 Top/s"], key["bf16 123 Top/s"]
    assert (low.shown_y - high.shown_y) * -g.px[1] >= g.line - 1e-9
    assert high.shown_y > high.y and low.shown_y < low.y  # spread about the pair's middle
    short = geometry_for(g.view, (900.0, 1.6 * g.line), 7.0, 14.0)
    (kept,) = _key(scene, short, selected=scene.comparison.chips[0].id)
    assert kept.text == "bf16 123 Top/s"  # TPU v3's, selected, though V100's 125 is higher
    (highest,) = _key(scene, short)
    assert highest.text == "fp16 125 Top/s"


def test_spread_moves_labels_only_as_far_as_they_must():
    from roofline_gui.core.chart_labels import spread

    assert spread([10.0, 50.0], 0.0, 100.0, 14.0) == [10.0, 50.0]  # apart already: in place
    assert spread([40.0, 42.0], 0.0, 100.0, 14.0) == [34.0, 48.0]  # about their middle
    assert spread([1.0, 2.0, 3.0], 0.0, 100.0, 14.0) == [0.0, 14.0, 28.0]  # held by the top
    assert spread([95.0, 99.0], 0.0, 100.0, 14.0) == [86.0, 100.0]  # and by the bottom
    # a block that grows into its neighbour takes it in: 40 and 42 push 30 up, one block of
    # three placed where their squared moves add up least: 30 − 6.67, 40 − 2.67, 42 + 9.33
    assert np.allclose(spread([30.0, 40.0, 42.0], 0.0, 100.0, 14.0), [70 / 3, 112 / 3, 154 / 3])


def test_roofs_alone_are_framed_with_their_diagonals():
    """TPU v1 with no kernel: the range spans three decades below its peak (it had spanned one
    around the peak, the roof a short stub at the right)."""
    scene = _scene(["google-tpu-v1"], [])
    (x_lo, x_hi), (y_lo, y_hi) = scene.fit.range
    peak = scene.spec.roofs[0].peak
    assert y_hi / y_lo >= 1e3 and y_lo < peak / 100 < peak < y_hi
    assert x_lo <= 0.05 and x_hi >= 1e3


def test_a_spec_reuses_its_roofs_while_what_they_depend_on_is_the_same():
    """A drag step rebuilds the markers only; other chips, units or precisions rebuild the roofs."""
    from roofline_gui.core.comparison import Evaluator

    chips = (replace(PRESETS.chips["nvidia-a100-sxm4-40gb"], id="a"),)
    mlp = _kernel("mlp-bf16-b1")
    evaluator = Evaluator()
    first = chart_spec(evaluator.compare([mlp], chips), Units())
    moved = chart_spec(evaluator.compare([mlp.with_params(batch=8)], chips), Units(), reuse=first)
    assert moved.roofs is first.roofs and moved.diagonals is first.diagonals
    assert moved.marker_x[0] > first.marker_x[0]  # the markers are the new ones
    assert chart_spec(evaluator.compare([mlp], chips), Units(mac=True), reuse=first).roofs != first.roofs
    int8 = chart_spec(evaluator.compare([_kernel("add-int8")], chips), Units(), reuse=first)
    assert [r.precision for r in int8.roofs] == ["int8"]  # another precision: other roofs
    other = (replace(PRESETS.chips["google-tpu-v3"], id="t"),)
    assert chart_spec(evaluator.compare([mlp], other), Units(), reuse=first).roofs != first.roofs


def test_a_workload_drag_step_moves_its_own_label_and_holds_the_others():
    """During a workload's drag only its label is placed again, clear of the others where they
    stand; on release every label is placed afresh (then as a fresh placement places them)."""
    from roofline_gui.core.chart_labels import place_labels
    from roofline_gui.core.chart_scene import Selection
    from roofline_gui.core.workload_eval import evaluate_workloads
    from roofline_gui.core.workload_view import workload_marks
    from roofline_gui.io.workloads import shipped_workloads

    chips = tuple(replace(PRESETS.chips[c], id=c) for c in ("nvidia-h100-sxm5-80gb", "amd-instinct-mi300x"))
    shipped = shipped_workloads()
    workloads = [shipped[n].workload(f"w{i}") for i, n in enumerate(
        ("llama-3-8b", "gpt2", "mistral-7b", "resnet-50", "mlp-tpu"))]

    def scene_of(ws, lifted=None):
        cmp = compare((), chips)
        results = evaluate_workloads(ws, chips)
        marks = tuple(workload_marks(results, Units(), [0, 1]))
        spec = chart_spec(cmp, Units(), [0, 1], None, frozenset(), tuple(
            p for r in results for p in r.precisions))
        return ChartScene(spec, cmp, (0, 1), marks, tuple(results), (),
                          Selection("w0", None, lifted))

    before = scene_of(workloads)
    g = _geometry(before)
    first = place_labels(before, g, selected_chip=None, foreground="#202020")
    moved = [replace(workloads[0], batch=64), *workloads[1:]]
    step = scene_of(moved, lifted="w0")
    held = place_labels(step, g, selected_chip=None, foreground="#202020",
                        roof_labels=first.roofs, held=first, key=(first.key, first.key_texts))
    assert held.workloads[1:] == first.workloads[1:]  # the others hold still
    assert first.key and held.key is first.key  # the key as placed, not placed again
    assert held.workloads[0] is not None and held.workloads[0].x != first.workloads[0].x
    mine = label_footprint(held.workloads[0], g)
    for other in held.workloads[1:]:
        if other is not None:
            assert not any(boxes_overlap(a, b) for a in mine for b in label_footprint(other, g))
    # released (nothing lifted), what was held is not kept: every label is placed afresh
    released = scene_of(moved)
    fresh = place_labels(released, g, selected_chip=None, foreground="#202020")
    assert place_labels(released, g, selected_chip=None, foreground="#202020", held=held) == fresh


def test_a_shared_roof_label_keeps_chip_names_with_commas_whole():
    """'HBM2 900 GB/s: DGX node, 8×V100, TPU v3' read as three chips: where a name holds a
    comma, the names are joined by semicolons."""
    from roofline_gui.core.chart_labels import _merged_text

    assert _merged_text([("V100 SXM2 16GB", "HBM2"), ("TPU v3", "HBM2")], "900 GB/s") == (
        "HBM2 900 GB/s: V100 SXM2 16GB, TPU v3")
    assert _merged_text([("DGX node, 8×V100", "HBM2"), ("TPU v3", "HBM2")], "900 GB/s") == (
        "HBM2 900 GB/s: DGX node, 8×V100; TPU v3")


def test_roofs_of_chips_of_one_name_are_named_once_not_listed_as_one_chips_roofs():
    """An H100 preset added twice: its roofs merged read "bf16, bf16 989.4 Top/s" in the key
    and "HBM3, HBM3 3.35 TB/s" on the chart, as if one chip had two such roofs."""
    from roofline_gui.core.chart_labels import _merged_text

    h100 = "H100 SXM5 80GB"
    assert _merged_text([(h100, "bf16"), (h100, "bf16")], "989.4 Top/s") == (
        "bf16 989.4 Top/s: H100 SXM5 80GB")
    assert _merged_text([(h100, "HBM3"), (h100, "HBM3")], "3.35 TB/s") == (
        "HBM3 3.35 TB/s: H100 SXM5 80GB")
    # one chip's two roofs at one height still read as its own
    assert _merged_text([(h100, "bf16"), (h100, "fp16")], "989.4 Top/s") == "bf16, fp16 989.4 Top/s"


def test_markers_drawn_on_each_other_are_named_together():
    """Two chips with the same memory: a memory-bound kernel's markers lie on each other, so
    the one on top names the one under it; a chip with faster memory is apart."""
    from roofline_gui.core.display import same_point

    v100 = replace(PRESETS.chips["nvidia-v100-sxm2-16gb"], id="v")
    twin = replace(v100, id="t", name="V100 twice the compute",
                   compute={p: 2 * v for p, v in v100.compute.items()})
    a100 = replace(PRESETS.chips["nvidia-a100-sxm4-40gb"], id="a")
    cmp = compare((_kernel("add-fp32"),), (v100, twin, a100))
    att = cmp.result.attainable
    assert same_point(att, 0, 1, (0, 1, 2)) == [0]
    assert same_point(att, 0, 2, (0, 1, 2)) == []
    assert same_point(att, 0, 1, (1, 2)) == []  # the V100 not shown


def test_levels_no_kernel_uses_are_named_only_where_everything_else_left_room():
    """A faint level (a cache no kernel's bytes are counted at) was drawn without a name, which
    an exported picture cannot hover; it is named last, clear of every other text and marker."""
    from roofline_gui.core.chart_labels import place_labels

    scene = _scene(["nvidia-a100-sxm4-40gb", "google-tpu-v3"],
                   [_kernel(k) for k in ("add-fp32", "gemm-4k-bf16")])
    assert any(not d.used for d in scene.spec.diagonals)
    g = _geometry(scene)
    placed = place_labels(scene, g, selected_chip=None, foreground="#202020")
    names = {d.name for d in scene.spec.diagonals if not d.used}
    faint = [lb for lb in placed.roofs if any(lb.text.startswith(n) for n in names)]
    assert faint  # at least one is named in a chart with room
    from roofline_gui.core.display import offset_label_box

    feet = [label_footprint(lb, g) for lb in placed.roofs] + [
        [offset_label_box(lb, g.px, g.text_px, g.line)] for lb in placed.names]
    for i, a in enumerate(feet):
        for b in feet[i + 1:]:
            assert not any(boxes_overlap(p, q) for p in a for q in b)
    bare = place_roof_labels(scene, g, None, "#202020")
    assert placed.names == place_labels(scene, g, selected_chip=None, foreground="#202020",
                                        roof_labels=bare).names  # the names go first


def test_a_shared_diagonal_with_no_clear_spot_for_its_chips_names_keeps_its_figure():
    """A merged label names the chips whose lines lie on each other; where that long text would
    cover a marker or find no spot (a small chart), the level and its figure with the chips'
    names shortened ("HBM2 900 GB/s: V100, TPU v3") are placed instead, not nothing (the
    article's chart at 1280 × 800 had lost it), nor without the chips (a black "HBM2 900 GB/s"
    named no chip: the eleventh tour)."""
    from roofline_gui.core.chart_labels import _merged_text

    scene = _scene(["nvidia-v100-sxm2-16gb", "google-tpu-v3", "nvidia-a100-sxm4-40gb"],
                   [_kernel("add-fp32")])
    whole = _merged_text([("V100 SXM2 16GB", "HBM2"), ("TPU v3", "HBM2")], "900 GB/s")
    texts = [lb.text for lb in place_roof_labels(scene, _geometry(scene, (900.0, 560.0)), None, "#202020")]
    assert whole in texts
    for size in ((400.0, 260.0), (260.0, 200.0)):
        placed = place_roof_labels(scene, _geometry(scene, size), None, "#202020")
        texts = [lb.text for lb in placed]
        # its chips' names, set off the line where no spot on it is clear (400 × 260), or the
        # level and figure with the chips' names shortened, never without them
        assert "HBM2 900 GB/s: V100, TPU v3" in texts or whole in texts, (size, texts)
        on_line = [lb for lb in placed if lb.text == whole and np.isclose(lb.y - lb.x, np.log10(9e11))]
        assert not on_line, size  # the whole text on its line covers a marker there


def test_what_a_box_would_hide_counts_its_markers_and_lines():
    from roofline_gui.core.chart_labels import MARKER_COST, hidden_under

    scene = _scene(["google-tpu-v1"], [_kernel("mlp-int8")])
    g = _geometry(scene)
    x, y = np.log10(scene.spec.marker_x[0]) * g.px[0], -np.log10(scene.spec.marker_y[0, 0]) * g.px[1]
    on_marker, far = (x - 3, y - 3, x + 3, y + 3), (x - 3, y - 400, x + 3, y - 394)
    costs = hidden_under(scene, g, [on_marker, far])
    assert costs[0] >= MARKER_COST and costs[1] < MARKER_COST


def test_a_small_view_gets_room_for_a_ring_at_its_edges_a_tall_one_keeps_the_fit():
    """The automatic range's margins (4x below, 3x above the outermost points) are 30 px in a
    400 px view but 9 px in a 100 px one, where a selected kernel's ring (24 px) was cut at
    the top: there the range grows until the margin below takes EDGE_ROOM_PX pixels and the
    one above TOP_ROOM_PX (a tag above a marker on the highest roof: the 40th tour's "4a" had
    no room there and was written over the int8 roof)."""
    import math

    from roofline_gui.core.chart_scene import (
        EDGE_ROOM_PX,
        TOP_ROOM_PX,
        Y_HIGH_MARGIN,
        Y_LOW_MARGIN,
    )

    fit = ((0.1, 1e3), (1e10, 1e16))
    assert with_edge_room(fit, 600.0) == fit
    for height in (100.0, 150.0, 280.0):
        (xs, (lo, hi)) = with_edge_room(fit, height)
        assert xs == fit[0]
        span = math.log10(hi / lo)
        top_px = math.log10(hi / (1e16 / Y_HIGH_MARGIN)) / span * height
        low_px = math.log10(1e10 * Y_LOW_MARGIN / lo) / span * height
        assert top_px >= TOP_ROOM_PX - 1e-6 and low_px >= EDGE_ROOM_PX - 1e-6
        # no more than it needs: each end at its least, or as fitted
        assert top_px <= TOP_ROOM_PX + 1e-6 or hi == fit[1][1]
        assert low_px <= EDGE_ROOM_PX + 1e-6 or lo == fit[1][0]


def test_kernel_names_keep_off_every_kernels_points_at_the_other_memory_levels():
    """With Memory levels on, a kernel's points at its cache and HBM levels are markers too: a
    long name had sat on a neighbour's hollow point (the fourth tour's "4a" above "4b")."""
    from roofline_gui.core.chart_labels import place_labels
    from roofline_gui.core.display import offset_label_box
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "the-article-claim-by-claim.roofline")
    cmp = compare(doc.kernels, doc.chips)
    spec = chart_spec(cmp, Units(), levels=True)
    scene = ChartScene(spec, cmp, tuple(range(len(doc.chips))))
    assert spec.levels is not None and len(spec.levels)
    for size in ((900.0, 560.0), (560.0, 330.0), (400.0, 400.0), (460.0, 300.0)):
        g = _geometry(scene, size)  # the last two had put "3 · GEMM…" and "4c" on one
        placed = place_labels(scene, g, selected_chip=None, foreground="#202020")
        assert placed.names
        lx, ly = np.log10(spec.levels.x) * g.px[0], -np.log10(spec.levels.y) * g.px[1]
        points = np.column_stack([lx - 5, ly - 5, lx + 5, ly + 5])
        for label in placed.names:
            box = offset_label_box(label, g.px, g.text_px, g.line)
            assert not any(boxes_overlap(box, p) for p in points), (size, label.text)


def test_lines_a_few_pixels_apart_share_one_label_naming_each():
    """The A100's PCIe Gen4 (32 GB/s) runs 5 px under TPU v1's DDR3 (34 GB/s), and the H100's L2
    (5.5 TB/s) on the MI300X's HBM3 (5.3 TB/s): a label of one, on the line drawn over it, read
    as that line's (the fifth, eleventh and thirteenth tours). Lines so near share one label
    naming each line's level, figure and chip, main memory's first; one chip's two lines (a
    CPU's DDR5 and its PCIe 5.0) name the chip once."""
    from roofline_gui.core import chart_labels
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    placed = {}

    def roofs(stem, size=(1200.0, 700.0)):
        doc = load_session(resources_dir() / "examples" / f"{stem}.roofline")
        cmp = compare(doc.kernels, doc.chips)
        scene = ChartScene(chart_spec(cmp, Units(), levels=True), cmp,
                           tuple(range(len(doc.chips))))
        g = _geometry(scene, size)
        placed[stem] = (doc, chart_labels.place_labels(scene, g, selected_chip=None,
                                                       foreground="#202020").roofs)
        return [lb.text for lb in placed[stem][1]]

    article = roofs("the-article-claim-by-claim")
    assert "DDR3-2133 34 GB/s: TPU v1; PCIe Gen4 x16 32 GB/s each way: A100 SXM4 40GB" in article
    assert not any(t.startswith(("PCIe Gen4", "DDR3-2133 34 GB/s: TPU v1,")) for t in article)
    mi300x = roofs("h100-vs-mi300x-llm")
    assert "HBM3 5.3 TB/s: Instinct MI300X; L2 (50 MB) 5.5 TB/s: H100 SXM5 80GB" in mi300x
    # each line's words in its chip's colour (in the foreground alone, which was whose did not
    # read: the fourteenth tour)
    doc, labels = placed["h100-vs-mi300x-llm"]
    (both,) = [lb for lb in labels if "; " in lb.text]
    h100, mi = doc.chips
    assert both.pieces == (("HBM3 5.3 TB/s: Instinct MI300X", mi.color), ("; ", "#202020"),
                           ("L2 (50 MB) 5.5 TB/s: H100 SXM5 80GB", h100.color))
    assert "".join(text for text, _ink in both.pieces) == both.text
    cpus = roofs("williams-cpus")
    (xeon,) = [t for t in cpus if "307.2 GB/s" in t]
    assert xeon.count("Xeon") == 1 and "320 GB/s each way" in xeon, xeon
    # where the joined label has no room, main memory's alone, its chip named
    small = roofs("the-article-claim-by-claim", (640.0, 320.0))
    assert "DDR3-2133 34 GB/s: TPU v1" in small, small
    doc, labels = placed["the-article-claim-by-claim"]
    (ddr3,) = [lb for lb in labels if lb.text == "DDR3-2133 34 GB/s: TPU v1"]
    assert ddr3.color == next(c.color for c in doc.chips if c.name == "TPU v1")  # its chip's


def test_the_names_sit_by_their_markers_on_the_selected_chip():
    """The sixth tour, eight chips: the selected kernel's name sat by its highest marker on
    another chip, far from the bold ring, or found no room and was left out; the eleventh, the
    article's "4a · TPU v1 CNN layer" named the A100's marker while TPU v1 was selected. The
    selected kernel's name is placed first, and every name by its selected chip's marker; with
    no chip selected, by its highest."""
    from roofline_gui.core.chart_labels import place_labels
    from roofline_gui.core.chart_scene import Selection

    chips = ["nvidia-h100-sxm5-80gb", "amd-instinct-mi300x", "nvidia-b200", "google-tpu-v5e",
             "nvidia-a100-sxm4-80gb", "nvidia-h200-sxm-141gb", "amd-instinct-mi355x",
             "google-tpu-v6e-trillium"]
    kernels = [_kernel(k) for k in ("llm-decode-gemv-bf16", "mlp-bf16-b64", "attn-decode-bf16",
                                    "attn-prefill-bf16", "gemm-4k-bf16")]
    scene = _scene(chips, kernels)
    spec = scene.spec
    tpu = chips.index("google-tpu-v5e")
    for k in range(len(kernels)):
        assert spec.marker_y[k, tpu] < np.nanmax(spec.marker_y[k])  # never its highest here
        chosen = replace(scene, selection=Selection(kernels[k].id, "google-tpu-v5e"))
        g = _geometry(chosen, (1100.0, 640.0))
        names = {lb.item: lb for lb in place_labels(chosen, g, selected_chip="google-tpu-v5e",
                                                    foreground="#202020").names}
        assert k in names, (kernels[k].name, [lb.text for lb in names.values()])
        assert names[k].y == np.log10(spec.marker_y[k, tpu])
        for n, lb in names.items():
            assert lb.y == np.log10(spec.marker_y[n, tpu])
        assert [lb.item for lb in names.values()] == sorted(names)
    g = _geometry(scene, (1100.0, 640.0))
    names = place_labels(scene, g, selected_chip=None, foreground="#202020").names
    assert names and all(lb.y == np.log10(np.nanmax(spec.marker_y[lb.item])) for lb in names)


def test_a_diagonal_with_a_marker_at_every_spot_has_its_label_set_off_the_line_parallel():
    """Every spot along a diagonal covers a marker (a small chart side by side: the A100's and
    the TPU v3's HBM2 lines had no label): the label is set a few pixels off its line, parallel
    to it, clear of every marker, not left out; with room on the line it stays on it."""
    import math

    from roofline_gui.core.chart_labels import (
        MARKER_COST,
        OFF_LINE,
        OFF_LINE_PX,
        _place_diagonal,
        _text_over_markers,
    )

    g = geometry_for((-1.0, 3.0, 9.0, 15.0), (300.0, 300.0), 7.0, 14.0)
    bw = 1e12  # y = x + 12 in decades: a 45° line on screen
    none = np.zeros((0, 7))
    xs = np.arange(-1.0, 3.0, 0.5)  # a marker every 53 px along the line: the text is longer
    px, py = xs * g.px[0], -(xs + 12) * g.px[1]
    markers = np.column_stack([px - 6, py - 6, px + 6, py + 6])
    on, cost = _place_diagonal("HBM2 900 GB/s", bw, 1e15, False, "#2ca02c", g, [],
                               np.zeros((0, 4)), none)
    assert cost == 0 and math.isclose(on.y, on.x + 12)  # on its line
    off, cost = _place_diagonal("HBM2 900 GB/s", bw, 1e15, False, "#2ca02c", g, [], markers, none)
    assert off is not None and cost == OFF_LINE < MARKER_COST
    apart = abs(off.y - (off.x + 12)) * g.px[1] * math.cos(math.atan2(g.px[1], g.px[0]))
    assert math.isclose(apart, OFF_LINE_PX)  # perpendicular to its line, in pixels
    assert not _text_over_markers([off], g, markers)[0]  # its slanted text clear of them
    # (its footprint's upright boxes reach back over them: the markers were weighed exactly)
    assert _text_over_markers([replace(off, y=off.x + 12, anchor=(0.0, 1.0))], g, markers)[0]
    assert off.along == (1.0, 1.0)  # parallel
    # a faint level's label is named only where it is clear on its line: none here
    assert _place_diagonal("L2 7 TB/s", bw, 1e15, False, "#2ca02c", g, [], markers, none,
                           clear_only=True) == (None, math.inf)


def test_a_label_set_off_its_line_is_weighed_against_the_lines_its_text_crosses_as_drawn():
    """Off its line, a diagonal's label is checked against the other lines by its slanted text,
    not by its footprint's upright boxes (which reach over the next diagonal at every spot: the
    A100's HBM2 label, between its L2 and NVLink diagonals side by side, was left out: the
    tenth tour); a faint level's diagonal may run under it, a solid line may not."""
    import math

    from roofline_gui.core.chart_labels import (
        FAINT_LINE,
        OFF_LINE,
        _crossed_each,
        _place_diagonal,
        _text_over_lines,
        label_footprint,
    )

    g = geometry_for((-1.0, 3.0, 9.0, 15.0), (300.0, 300.0), 7.0, 14.0)
    bw, own = 1e12, 12.0
    xs = np.arange(-1.0, 3.0, 0.5)
    px, py = xs * g.px[0], -(xs + 12) * g.px[1]
    markers = np.column_stack([px - 6, py - 6, px + 6, py + 6])  # at every spot on its line

    def parallel(apart_px: float, weight: float) -> list:
        """A diagonal ``apart_px`` pixels above (negative: below) the label's own."""
        d = apart_px / (g.px[1] * math.cos(math.atan2(g.px[1], g.px[0])))  # decades of y
        return [-1 * g.px[0], -(11 + d) * g.px[1], 3 * g.px[0], -(15 + d) * g.px[1], 1,
                own + d, weight]

    # a faint diagonal through the text's band above, a solid one through the band below
    lines = np.array([parallel(15, FAINT_LINE), parallel(-15, 1.0)])
    off, cost = _place_diagonal("HBM2 1.555 TB/s", bw, 1e15, False, "#1f77b4", g, [], markers,
                                lines)
    assert off is not None and off.y > off.x + 12  # above: over the faint line only
    assert cost == OFF_LINE + FAINT_LINE
    assert _text_over_lines([off], g, lines[:1], own, 1e-3)[0] == FAINT_LINE
    assert _text_over_lines([off], g, lines[1:], own, 1e-3)[0] == 0
    # solid lines on both sides: no spot off the line either; the label is left out
    solid = np.array([parallel(15, 1.0), parallel(-15, 1.0)])
    _label, cost = _place_diagonal("HBM2 1.555 TB/s", bw, 1e15, False, "#1f77b4", g, [],
                                   markers, solid)
    assert cost >= 1
    # a line a few pixels past the text below: the text goes above, where it does not read as
    # that line's label (TPU v3's HBM2 over its PCIe line side by side: the twelfth tour)
    for below in (-24, -27):
        near_one = np.array([parallel(below, 1.0)])
        off2, _cost = _place_diagonal("HBM2 900 GB/s", bw, 1e15, False, "#2ca02c", g, [],
                                      markers, near_one)
        assert off2 is not None and off2.y > off2.x + 12, below
    # a line just beyond the text as drawn: clear of it, though inside its upright boxes
    beyond = np.array([parallel(27, 1.0)])
    assert _text_over_lines([off], g, beyond, own, 1e-3)[0] == 0
    assert _crossed_each(np.asarray(label_footprint(off, g)), beyond, 1, own).sum() > 0


def _example_scenes(levels=True):
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    for path in sorted((resources_dir() / "examples").glob("*.roofline")):
        if path.name.endswith(".ja.roofline"):
            continue
        doc = load_session(path)
        if not doc.chips:
            continue
        cmp = compare(doc.kernels, doc.chips)
        yield path.stem, doc, ChartScene(chart_spec(cmp, Units(), levels=levels), cmp,
                                         tuple(range(len(doc.chips))))


def test_a_diagonals_label_says_what_the_line_is_never_its_figure_alone():
    """The eleventh tour read "179.2 GB/s", "900 GB/s", "450 GB/s" on the charts and could not
    tell what they were: every diagonal's label names its level (or its chips), in every example
    and at every size, down to a small chart side by side."""
    import re

    from roofline_gui.core.chart_labels import place_labels

    bare = re.compile(r"^[\d.,]+ ?[kMGTPE]?B/s( each way)?$")
    seen = 0
    for stem, _doc, scene in _example_scenes():
        for size in ((1200.0, 700.0), (640.0, 320.0), (300.0, 200.0)):
            placed = place_labels(scene, _geometry(scene, size), selected_chip=None,
                                  foreground="#202020")
            for lb in placed.roofs:
                seen += 1
                assert not bare.match(lb.text), (stem, size, lb.text)
                # a link's label starts with what it is ("PCIe 16 GB/s each way: TPU v3,
                # V100"; "16 GB/s each way: TPU v3, V100" said whose but not what: the twelfth
                # tour)
                for part in lb.text.split("; "):  # lines a few pixels apart: each one's
                    if "each way" in part:
                        assert part.startswith(("PCIe", "NVLink", "ICI", "Infinity")), (
                            stem, size, lb.text)
    assert seen > 40


def test_a_levels_initials_and_a_chips_short_name():
    from roofline_gui.core.chart_labels import _chip_tags, _initials

    assert _initials("Unified Buffer") == "UB" and _initials("Infinity Cache") == "IC"
    assert _initials("PCIe Gen4 x16") == _initials("HBM2") == _initials("NVLink 3.0") == ""
    assert _chip_tags(["A100 SXM4 40GB", "TPU v3", "Instinct MI300X", "EPYC 9654 (Genoa)",
                       "B200"]) == ["A100", "TPU v3", "Instinct MI300X", "EPYC 9654", "B200"]
    # a copy's short name would read as the original's: what sets it apart is kept
    assert _chip_tags(["A100 SXM4 40GB", "A100 SXM4 40GB (copy)", "TPU v3"]) == [
        "A100", "A100 (copy)", "TPU v3"]
    assert _chip_tags(["A100 SXM4 40GB", "A100 SXM4 80GB"]) == ["A100 40GB", "A100 80GB"]
    assert _chip_tags(["A100 SXM4 40GB", "A100 SXM4 40GB"]) == ["A100 SXM4 40GB"] * 2
    assert _chip_tags(["H100 SXM5 80GB", "H100 SXM5 80GB, HBM3 ×2"]) == ["H100", "H100, HBM3 ×2"]
    # a name with a comma after its number: not cut at the comma ("HBM2 900 GB/s: TPU v3; TPU
    # v3," read as cut, and as the same chip twice: the twenty-second tour)
    assert _chip_tags(["TPU v3", "TPU v3, 2nd board"]) == ["TPU v3", "TPU v3, 2nd board"]
    assert _chip_tags(["A100 SXM4 40GB", "DGX node, 8×V100"]) == ["A100", "DGX node, 8×V100"]


def test_the_roofs_labels_stay_where_they_are_whichever_kernel_is_selected():
    """The eleventh tour: "L2 7 TB/s" and "179.2 GB/s" moved at every click on a marker while
    the user compared kernels. The labels of the levels kernels use do not depend on the
    selected kernel (the faint levels' are named only where clear of the kernels' names, which
    follow the selection)."""
    from roofline_gui.core.chart_scene import Selection

    moved = 0
    for stem, doc, scene in _example_scenes():
        if not doc.kernels:
            continue
        g = _geometry(scene, (640.0, 320.0))
        chip = doc.chips[0].id
        first = place_roof_labels(scene, g, chip, "#202020")
        for kernel in doc.kernels:
            chosen = replace(scene, selection=Selection(kernel.id, chip))
            assert place_roof_labels(chosen, g, chip, "#202020") == first, (stem, kernel.name)
            moved += 1
    assert moved > 10


def test_names_crowded_out_by_a_long_one_are_placed_with_the_others_shortened():
    """A whole long name can take the room two others needed (the A100 against TPU v3 chart at
    1280 × 800, 16 px shorter, named "CNN layer 3×3, 256 ch, 28×28 (bf16, batch 4)" and lost the
    GEMM's and the MLP's names). Where names are left out, the others are placed shortened too,
    and that is kept where more fit: the article's chart at 640 × 320 names three, not two."""
    from roofline_gui.core.chart_labels import place_kernel_names

    scenes = {stem: scene for stem, _doc, scene in _example_scenes()}
    scene = scenes["the-article-claim-by-claim"]
    g = _geometry(scene, (640.0, 320.0))
    names = place_kernel_names(scene, g, place_roof_labels(scene, g, None, "#202020"))
    assert len(names) >= 3, [lb.text for lb in names]


def test_the_selected_kernels_name_is_on_the_chart_where_any_spot_has_room():
    """The twelfth tour selected the article's 4a on TPU v1 and the chart named 4b, not 4a:
    no spot by its ring on TPU v1 was clear of the roofs. The selected kernel's name goes over
    a roof there, else by its highest marker; in a chart with room (1200 × 700) every selected
    kernel is named, and in a small one (640 × 320) those whose points are not in the crowd."""
    from roofline_gui.core.chart_labels import place_labels
    from roofline_gui.core.chart_scene import Selection

    stem, doc, scene = next(s for s in _example_scenes() if s[0] == "the-article-claim-by-claim")
    tpu = next(c for c in doc.chips if c.name == "TPU v1")
    for size, kernels in (((1200.0, 700.0), doc.kernels),
                          ((640.0, 320.0), [k for k in doc.kernels if k.name[:2] in ("3 ", "4a",
                                                                                    "4b", "4c")])):
        g = _geometry(scene, size)
        for kernel in kernels:
            chosen = replace(scene, selection=Selection(kernel.id, tpu.id))
            named = {doc.kernels[lb.item].id for lb in place_labels(
                chosen, g, selected_chip=tpu.id, foreground="#202020").names}
            assert kernel.id in named, (size, kernel.name)


def test_one_level_spelt_two_ways_is_one_in_a_merged_label():
    """The thirteenth tour read "8 TB/s: B200 HBM3e, MI355X HBM3E" (NVIDIA writes HBM3e, AMD
    HBM3E): one level, named once."""
    from roofline_gui.core.chart_labels import _merged_text

    assert _merged_text([("B200", "HBM3e"), ("MI355X", "HBM3E")], "8 TB/s") == \
        "HBM3e 8 TB/s: B200, MI355X"
    assert _merged_text([("B200", "HBM3e"), ("TPU v3", "HBM2")], "8 TB/s") == \
        "8 TB/s: B200 HBM3e, TPU v3 HBM2"


def test_names_with_no_room_keep_their_numbering():
    """The article's chart at 1280 × 800 named two of its eight kernels (the thirteenth tour):
    its bottom left is all parallel diagonals. A numbered name with no room for any of its
    forms is named by its numbering alone ("4b", as the table's row begins), the selected
    kernel's by its own ring."""
    from roofline_gui.core.chart_labels import place_labels
    from roofline_gui.core.chart_scene import Selection
    from roofline_gui.core.display import split_numbering
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "the-article-claim-by-claim.roofline")
    cmp = compare(doc.kernels, doc.chips)
    scene = ChartScene(chart_spec(cmp, Units(), levels=True), cmp, tuple(range(len(doc.chips))))
    first, a100 = doc.kernels[0], doc.chips[0]
    scene = replace(scene, selection=Selection(first.id, a100.id))
    names = place_labels(scene, _geometry(scene, (600.0, 380.0)), selected_chip=a100.id,
                         foreground="#202020").names
    tags = [split_numbering(k.name)[0].rstrip(" ·") for k in doc.kernels]
    by = {lb.item: lb.text for lb in names}
    assert 0 in by and len(by) >= 7, by  # the selected one among them (two of eight, before)
    bare = [k for k, text in by.items() if text == tags[k]]
    assert bare and all(tags[k] for k in by), by  # some by their numbering alone
    for k, text in by.items():  # or with a stacked neighbour's ("2/5, 6": _stacked_tags)
        head, *stacked = stacked_tags(text)
        assert head == tags[k] or text.startswith(tags[k] + " · "), (k, text)
        assert all(t in tags and t != tags[k] for t in stacked), (k, text)


def test_in_a_small_chart_every_kernel_is_named_or_numbered_as_its_table_row():
    """The fourteenth tour, A100 against TPU v3 side by side at 1280 × 800 (charts about 190 ×
    275 px): the A100's nine kernels had no name at all. A kernel whose name has no room there
    is named by its place in the session, as the table heads its row ("3 · MLP layer…")."""
    from roofline_gui.core.chart_labels import place_labels
    from roofline_gui.core.display import kernel_tags
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "a100-vs-tpu-v3.roofline")
    cmp = compare(doc.kernels, doc.chips)
    scene = ChartScene(chart_spec(cmp, Units(), [0], levels=True), cmp, (0,))
    names = place_labels(scene, _geometry(scene, (190.0, 275.0)), selected_chip=None,
                         foreground="#202020").names
    tags = kernel_tags([k.name for k in doc.kernels])
    assert tags == [str(k + 1) for k in range(len(doc.kernels))]
    by = {lb.item: lb.text for lb in names}
    assert any(text == tags[k] for k, text in by.items()), by
    assert all(stacked_tags(text)[0] == tags[k] or text.startswith(doc.kernels[k].name.split()[0])
               for k, text in by.items()), by
    # every kernel named: a tag of one whose marker lies on another's joins that one's ("4/5":
    # the MLP layer at batch 64 and the LSTM step, 62.06 and 61.59 op/B, stacked)
    said = {tag for text in by.values() for tag in stacked_tags(text)}
    assert all(k in by or tags[k] in said for k in range(len(doc.kernels))), by
    assert "4/5" in by.values(), by
    # the same in the overlay, where the MLP layer's whole name had hidden the LSTM step (the
    # sixteenth tour): the two tags in place of the one name
    both = ChartScene(chart_spec(cmp, Units(), levels=True), cmp, (0, 1))
    texts = [lb.text for lb in place_labels(both, _geometry(both, (570.0, 330.0)),
                                            selected_chip=None, foreground="#202020").names]
    assert "4/5" in texts and not any(t.startswith(("MLP layer 4096×4096, batch 64", "LSTM"))
                                      for t in texts), texts


def test_a_selected_name_with_no_clear_spot_takes_its_tag_before_a_roof():
    """The fourteenth tour: the selected "3 · GEMM… (bf16)", with no clear spot by its ring or
    its highest marker, was written over the V100's fp16 roof, hiding it and its ridge. Its tag
    by its ring comes first where that is clear; over a roof only where nothing is."""
    from roofline_gui.core.chart_labels import place_labels
    from roofline_gui.core.chart_scene import Selection
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "the-article-claim-by-claim.roofline")
    cmp = compare(doc.kernels, doc.chips)
    scene = ChartScene(chart_spec(cmp, Units(), levels=True), cmp, tuple(range(len(doc.chips))))
    gemm = doc.kernels[2]
    assert gemm.name.startswith("3 · GEMM")
    for chip in doc.chips:
        chosen = replace(scene, selection=Selection(gemm.id, chip.id))
        names = place_labels(chosen, _geometry(chosen, (570.0, 350.0)), selected_chip=chip.id,
                             foreground="#202020").names
        assert [lb.text for lb in names if lb.item == 2] == ["3"], chip.name


def test_a_what_ifs_datasheet_roof_is_a_line_labels_keep_off():
    """Drawn long-dashed beside the what-if's roof, it had run through the end of a neighbour's
    "HBM3 5.3 TB/s: Instinct MI300X" (the seventeenth tour): names keep off it as off a roof."""
    from roofline_gui.core.chart_labels import _line_segments, _roof_polylines

    base = PRESETS.chips["nvidia-b200"]
    j = next(i for i, level in enumerate(base.memory) if level.role == "dram")
    what_if = replace(base, id="b200").with_level(j, replace(
        base.dram, bandwidth=3 * base.dram.bandwidth, what_if_of=base.dram.bandwidth))
    cmp = compare((_kernel("add-fp32"),), (what_if,))
    scene = ChartScene(chart_spec(cmp, Units()), cmp, (0,))
    (sheet,) = {r.bandwidth for r in scene.spec.datasheet_roofs}
    assert sheet == base.dram.bandwidth
    g = _geometry(scene)
    rows = _line_segments(scene, g)
    assert np.isclose(rows[rows[:, 4] == 1, 5], np.log10(sheet)).any()  # its diagonal
    assert len(_roof_polylines(scene, g)) == len(scene.spec.roofs) + len(scene.spec.datasheet_roofs)


def test_two_stacked_kernels_share_one_tag_moved_where_the_joined_tag_fits():
    """The A100's MLP layer at batch 64 and LSTM step (62.06 and 61.59 op/B) lie on one spot;
    where "4/5" had no room at "4"'s spot, "4" alone named the pair and the LSTM step was hidden
    (the eighteenth tour): the joined tag goes where it fits."""
    from roofline_gui.core.chart_labels import _stacked_tags
    from roofline_gui.core.display import KernelLabel, offset_label_box

    g = geometry_for((-1.0, 4.0, 10.0, 16.0), (600.0, 400.0), 7.0, 14.0)
    four = KernelLabel(3, "4", 1.79, 13.98, (0.0, -8.0), (0.5, 1.0))
    x, y, w = offset_label_box(four, g.px, g.text_px, g.line)[:3]
    wall = (w + 1, y - 5, w + 60, y + 20)  # right of "4": "4/5" there would overlap it
    tags = [(str(n + 1),) for n in range(6)]
    points = [(np.array([np.nan] * 4 + [1.7895, np.nan]), np.array([np.nan] * 4 + [13.981, np.nan]))]
    alone = _stacked_tags([(3, four)], tags, points, g, [wall])
    assert alone == [(3, four)]  # nowhere else to try: "4" stays
    moved = KernelLabel(3, "4/5", 1.79, 13.98, (-8.0, 0.0), (1.0, 0.5))
    asked = []

    def elsewhere(k, text, point, clear_of):
        asked.append((k, text, point))
        return moved

    assert _stacked_tags([(3, four)], tags, points, g, [wall], elsewhere) == [(3, moved)]
    assert asked == [(3, "4/5", (1.79, 13.98))]


def test_a_chart_of_one_chip_names_no_chip_on_its_lines():
    """Each of side by side's charts is one chip's, its title its name: the Xeon's grouped
    "DDR5-4800 1DPC 307.2 GB/s; PCIe 5.0 320 GB/s each way" had ended ": Xeon Platinum 8480+"
    there (the eighteenth tour). In a chart of two chips, the same lines name it."""
    xeon = "intel-xeon-platinum-8480-sapphire-rapids"
    alone = _scene([xeon], [_kernel("triad-fp64")])
    texts = [lb.text for lb in place_roof_labels(alone, _geometry(alone), None, "#202020")]
    assert any("307.2 GB/s" in t for t in texts) and not any("Xeon" in t for t in texts), texts
    two = _scene([xeon, "nvidia-a100-sxm4-40gb"], [_kernel("triad-fp64")])
    texts = [lb.text for lb in place_roof_labels(two, _geometry(two), None, "#202020")]
    assert any("307.2 GB/s" in t and "Xeon" in t for t in texts), texts


def test_names_keep_a_gap_from_every_other_text_whatever_is_selected():
    """The nineteenth tour: the tag "8" set just under the name "MLP layer…, batch 8 (bf16)"
    read as part of it. Every name and tag keeps LABEL_GAP (3 px) from every other one and
    from the roofs' labels, and sits on no other name's stem, in a small chart and a large
    one, whichever kernel and chip are selected (the placement follows the selection)."""
    from roofline_gui.core.chart_labels import _stem_segment, place_labels
    from roofline_gui.core.chart_scene import Selection
    from roofline_gui.core.display import STEM_CLEAR, crosses_each, offset_label_box
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    def gap(a, b):
        dx, dy = max(a[0] - b[2], b[0] - a[2], 0.0), max(a[1] - b[3], b[1] - a[3], 0.0)
        return float(np.hypot(dx, dy))

    doc = load_session(resources_dir() / "examples" / "a100-vs-tpu-v3.roofline")
    cmp = compare(doc.kernels, doc.chips)
    scene = ChartScene(chart_spec(cmp, Units(), levels=True), cmp, (0, 1))
    checked = 0
    for size in ((570.0, 330.0), (900.0, 560.0)):
        for kernel in (None, *doc.kernels):
            for chip in (doc.chips if kernel else (None,)):
                chosen = replace(scene, selection=Selection(kernel and kernel.id,
                                                            chip and chip.id))
                g = _geometry(chosen, size)
                placed = place_labels(chosen, g, selected_chip=chip and chip.id,
                                      foreground="#202020")
                names = [offset_label_box(lb, g.px, g.text_px, g.line) for lb in placed.names]
                roofs = [b for lb in placed.roofs for b in label_footprint(lb, g)]
                for i, box in enumerate(names):
                    near = [gap(box, other) for other in (*names[i + 1:], *roofs)]
                    assert min(near, default=9.0) >= 3.0 - 1e-6, (size, kernel, chip, i)
                # nor on another's stem, whichever pass placed it (the selected kernel's, placed
                # first, ran behind the next name: the twentieth tour)
                for i, lb in enumerate(placed.names):
                    stems = np.array([_stem_segment(other, g) for other in placed.names
                                      if other.stem and other is not lb]).reshape(-1, 4)
                    assert not crosses_each(np.array([names[i]]) + STEM_CLEAR, stems).any(), (
                        size, kernel, chip, lb.text)
                # and no roof's label on a stem (a faint level's, placed last, had been written
                # over one: the twenty-first tour)
                stems = np.array([_stem_segment(lb, g) for lb in placed.names
                                  if lb.stem]).reshape(-1, 4)
                assert not crosses_each(np.array(roofs).reshape(-1, 4), stems).any(), (
                    size, kernel, chip)
                checked += len(names)
    assert checked > 200


def test_stacked_tags_are_spaced_where_a_tag_has_a_space():
    """"2/5, 6" (the tag "2" and the tag "5, 6" of one kernel of two claims) read as one
    number to the nineteenth tour."""
    assert joined_tags(["4", "5"]) == "4/5"
    assert joined_tags(["2", "5, 6"]) == "2 / 5, 6"
    assert stacked_tags("2 / 5, 6") == ["2", "5, 6"] and stacked_tags("4/5") == ["4", "5"]


def test_a_tag_set_by_a_kernels_highest_marker_names_the_kernel_stacked_there_too():
    """The twentieth tour, TPU v3 selected: "4" stood by the A100's markers of the MLP layer at
    batch 64 and the LSTM step (stacked), and the LSTM step, whose point on TPU v3 is
    elsewhere, was named nowhere. A kernel left out whose marker on any chip lies on a named
    one's is named with it ("4/5")."""
    from roofline_gui.core.chart_labels import place_labels
    from roofline_gui.core.chart_scene import Selection
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "a100-vs-tpu-v3.roofline")
    cmp = compare(doc.kernels, doc.chips)
    scene = ChartScene(chart_spec(cmp, Units(), levels=True), cmp, (0, 1))
    cnn, tpu = doc.kernels[5], doc.chips[1]
    assert cnn.name.startswith("CNN") and tpu.name == "TPU v3"
    chosen = replace(scene, selection=Selection(cnn.id, tpu.id))
    names = place_labels(chosen, _geometry(chosen, (760.0, 330.0)), selected_chip=tpu.id,
                         foreground="#202020").names
    said = {tag for lb in names for tag in stacked_tags(lb.text)}
    assert 4 in {lb.item for lb in names} or "5" in said, [lb.text for lb in names]


def test_a_tag_by_stacked_markers_names_every_kernel_there_whatever_is_selected():
    """The twenty-first tour: "4" by TPU v3's stacked markers of 4 and 5 and "5" by the A100's
    read as one tag for each marker, and with 4 selected, 5 was named nowhere (its joined tag
    had been refused for overlapping 4's own rings). A tag by markers stacked on one spot
    names every kernel there ("4/5", in the kernels' order), whichever kernel and chip are
    selected."""
    from roofline_gui.core.chart_labels import place_labels
    from roofline_gui.core.chart_scene import Selection
    from roofline_gui.core.display import kernel_tags
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "a100-vs-tpu-v3.roofline")
    cmp = compare(doc.kernels, doc.chips)
    scene = ChartScene(chart_spec(cmp, Units(), levels=True), cmp, (0, 1))
    tags = kernel_tags([k.name for k in doc.kernels])
    with np.errstate(divide="ignore", invalid="ignore"):
        mx, my = np.log10(scene.spec.at_limit), np.log10(scene.spec.marker_y)
    for kernel in doc.kernels:
        for chip in doc.chips:
            chosen = replace(scene, selection=Selection(kernel.id, chip.id))
            g = _geometry(chosen, (570.0, 330.0))
            for lb in place_labels(chosen, g, selected_chip=chip.id,
                                   foreground="#202020").names:
                said = stacked_tags(lb.text)
                if not set(said) <= set(tags):
                    continue  # a name, not tags
                d = np.hypot((mx - lb.x) * g.px[0], (my - lb.y) * g.px[1])
                there = {tags[j] for j in np.nonzero((d < 6).any(axis=1))[0]}
                assert there <= set(said), (kernel.name, chip.name, lb.text, there)
                # in the kernels' order, whichever is selected ("5/4" with 5 selected: the
                # 44th tour)
                assert said == sorted(said, key=tags.index), (kernel.name, chip.name, lb.text)



def test_a_chip_with_nothing_to_place_shows_every_precisions_roof():
    """The 41st tour added an H100 to a new session and saw its fp32 roof alone, 67 Top/s of
    the 989.4 it has in bf16: with no kernel and no workload, each chip's every precision is
    drawn (none named off its kernels' precisions); a kernel then brings its own precision's."""
    from roofline_gui.core.display import shown_precisions

    h100 = next(c for c in load_presets().chips.values() if c.name == "H100 SXM5 80GB")
    empty = compare((), (h100,))
    assert shown_precisions(empty) == ()
    spec = chart_spec(empty, Units())
    assert {r.precision for r in spec.roofs} == set(h100.precisions)
    assert not spec.off_precision
    bf16 = next(r for r in spec.roofs if r.precision == "bf16")
    assert bf16.peak == 989.4e12
    one = compare((_kernel("add-int8"),), (h100,))
    assert {r.precision for r in chart_spec(one, Units()).roofs} == {"int8"}


@pytest.mark.parametrize("stem", ["a100-vs-tpu-v3", "the-article-claim-by-claim"])
def test_a_name_crosses_another_levels_line_only_where_no_tag_would_be_clear(stem):
    """The 41st tour read "GEMM …bf16, inputs…" across the PCIe lines it is fed over and "4c ·
    TPU v1 LSTM…" over the A100's L2 line: a name took the first spot clear of the roofs alone
    where its tag had a spot clear of every line. Every name and tag is first placed clear of
    every line, the other levels' too; only those still unnamed then cross another level's
    line, a tag alone before a name (charts of each chip alone and of all, small to large)."""
    from roofline_gui.core.chart_labels import _level_polylines, place_labels
    from roofline_gui.core.display import (
        crosses_each,
        kernel_tags,
        offset_label_box,
        polyline_segments,
    )
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / f"{stem}.roofline")
    cmp = compare(doc.kernels, doc.chips)
    tags = set(kernel_tags([k.name for k in doc.kernels]))
    checked = 0
    for chips in [(c,) for c in range(len(doc.chips))] + [tuple(range(len(doc.chips)))]:
        scene = ChartScene(chart_spec(cmp, Units(), list(chips), levels=True), cmp, chips)
        for size in ((300.0, 250.0), (400.0, 300.0), (570.0, 330.0), (900.0, 560.0)):
            g = _geometry(scene, size)
            levels = polyline_segments(_level_polylines(scene, g))
            for label in place_labels(scene, g, selected_chip=None, foreground="#202020").names:
                box = np.array([offset_label_box(label, g.px, g.text_px, g.line)])
                if crosses_each(box, levels)[0]:
                    assert set(stacked_tags(label.text)) <= tags, (chips, size, label.text)
                checked += 1
    assert checked > 40


def test_a_tag_joined_in_place_stays_inside_the_view():
    """The 42nd tour read "l/7" at the V100's chart's left edge: "1", by its marker there,
    had been joined in place to "1/7" (kernel 7's marker lies on it) and the longer text ran
    under the axis. Joined in place only where it fits inside the view; else set elsewhere
    (here, clear of nothing more: right of the marker)."""
    from roofline_gui.core.chart_labels import LabelGeometry, _stacked_tags
    from roofline_gui.core.display import KernelLabel, offset_label_box

    g = LabelGeometry((100.0, 100.0), (0.0, 4.0, 0.0, 3.0), lambda text: 7.0 * len(text), 14.0)
    left = g.bounds[0]
    # "1" left of its marker at the view's left edge, its box just inside: "1/7" there is not
    one = KernelLabel(0, "1", 0.3, 1.5, (-8.0, 0.0), (1.0, 0.5))
    assert offset_label_box(one, g.px, g.text_px, g.line)[0] >= left
    points = [(np.array([0.3, 0.3]), np.array([1.5, 1.5]))]
    tags = [("1",), ("7",)]
    moved = []

    def elsewhere(k, text, point, clear_of):
        moved.append(text)
        return KernelLabel(k, text, point[0], point[1], (8.0, 0.0), (0.0, 0.5))

    ((k, label),) = _stacked_tags([(0, one)], tags, points, g, [], elsewhere)
    assert (k, label.text) == (0, "1/7") and moved == ["1/7"]
    assert offset_label_box(label, g.px, g.text_px, g.line)[0] >= left
    # with room in place, it stays where it was
    room = KernelLabel(0, "1", 1.0, 1.5, (-8.0, 0.0), (1.0, 0.5))
    ((_k, label),) = _stacked_tags([(0, room)], tags, [(np.array([1.0, 1.0]),
                                                       np.array([1.5, 1.5]))], g, [], elsewhere)
    assert label.text == "1/7" and label.offset == (-8.0, 0.0) and moved == ["1/7"]


def test_a_tag_joined_in_place_hides_no_more_of_the_lines():
    """The 42nd tour's second look, A100 against TPU v3 overlaid at 1280 × 800: "4", clear of
    the A100's HBM2 diagonal, was joined in place to "4/5" (kernel 5's marker lies on 4's), and
    the longer box lay across the line. Joined in place only where it hides no more of the
    roofs and the other levels' lines than the tag it replaces; else set elsewhere."""
    from roofline_gui.core.chart_labels import LabelGeometry, _stacked_tags
    from roofline_gui.core.display import KernelLabel, offset_label_box

    g = LabelGeometry((100.0, 100.0), (0.0, 4.0, 0.0, 3.0), lambda text: 7.0 * len(text), 14.0)
    four = KernelLabel(0, "4", 2.0, 1.5, (8.0, 0.0), (0.0, 0.5))  # right of its marker
    right = offset_label_box(four, g.px, g.text_px, g.line)[2]
    roof = np.array([[right + 6.0, -300.0, right + 6.0, 0.0]])  # just past "4", not "4/5"
    points = [(np.array([2.0, 2.0]), np.array([1.5, 1.5]))]
    tags = [("4",), ("5",)]
    moved = []

    def elsewhere(k, text, point, clear_of):
        moved.append(text)
        return KernelLabel(k, text, point[0], point[1], (-8.0, 0.0), (1.0, 0.5))

    for lines, expected in (((roof, np.zeros((0, 4))), (-8.0, 0.0)),  # across a roof: moved
                            ((np.zeros((0, 4)), roof), (-8.0, 0.0)),  # another level's line
                            (None, (8.0, 0.0))):  # none: in place
        moved.clear()
        ((_k, label),) = _stacked_tags([(0, four)], tags, points, g, [], elsewhere, lines=lines)
        assert label.text == "4/5" and label.offset == expected, lines
        assert moved == ([] if lines is None else ["4/5"])


@pytest.mark.parametrize("stem", ["a100-vs-tpu-v3", "the-article-claim-by-claim",
                                  "h100-vs-mi300x-llm"])
def test_every_kernel_name_and_tag_lies_inside_its_view(stem):
    """The 42nd tour read "l/7" at the V100's chart's left edge: "1" by its marker there had
    been joined in place to "1/7" (a stacked kernel's tag) and ran under the axis. Every name,
    tag and joined tag lies inside the view (charts of each chip alone and of all, small to
    large, with the selected kernel ringed)."""
    from roofline_gui.core.chart_labels import place_labels
    from roofline_gui.core.chart_scene import Selection
    from roofline_gui.core.display import offset_label_box
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / f"{stem}.roofline")
    cmp = compare(doc.kernels, doc.chips)
    every = tuple(range(len(doc.chips)))
    # side by side the charts share one range, every chip's (a chip's markers at its edge)
    shared = ChartScene(chart_spec(cmp, Units(), list(every), levels=True), cmp, every)
    checked = 0
    for chips in [(c,) for c in every] + [every]:
        base = ChartScene(chart_spec(cmp, Units(), list(chips), levels=True), cmp, chips)
        for kernel in (None, doc.kernels[0].id):
            scene = replace(base, selection=Selection(kernel, doc.chips[chips[0]].id))
            for size in ((190.0, 110.0), (250.0, 150.0), (300.0, 250.0), (570.0, 330.0)):
                g = _geometry(shared, size)
                left, top, right, bottom = g.bounds
                for label in place_labels(scene, g, selected_chip=doc.chips[chips[0]].id,
                                          foreground="#202020").names:
                    x0, y0, x1, y1 = offset_label_box(label, g.px, g.text_px, g.line)
                    assert (left - 0.5 <= x0 and x1 <= right + 0.5 and top - 0.5 <= y0
                            and y1 <= bottom + 0.5), (chips, size, label.text)
                    checked += 1
    assert checked > 30


def test_the_selected_kernel_is_named_by_the_selected_chips_marker():
    """The 42nd tour selected "4c · TPU v1 LSTM step" on TPU v1 in the article's chart: its
    name stood by the A100's marker of it, its stem to that one, the ring on TPU v1's bare
    (the eleventh tour had met it for "4a · TPU v1 CNN layer"). Where the whole name has no
    spot by the ring, its tag stands there; by another chip's marker only where neither does."""
    from roofline_gui.core.chart_labels import place_labels
    from roofline_gui.core.chart_scene import Selection
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "the-article-claim-by-claim.roofline")
    cmp = compare(doc.kernels, doc.chips)
    every = tuple(range(len(doc.chips)))
    base = ChartScene(chart_spec(cmp, Units(), list(every), levels=True), cmp, every)
    checked, elsewhere = 0, []
    for k, kernel in enumerate(doc.kernels):
        for c, chip in enumerate(doc.chips):
            y = base.spec.marker_y[k, c]
            if not (np.isfinite(y) and y > 0):
                continue
            scene = replace(base, selection=Selection(kernel.id, chip.id))
            for size in ((570.0, 330.0), (760.0, 420.0)):
                names = place_labels(scene, _geometry(scene, size), selected_chip=chip.id,
                                     foreground="#202020").names
                (label,) = [lb for lb in names if lb.item == k]
                if (label.x, label.y) != pytest.approx((np.log10(base.spec.at_limit[k, c]),
                                                        np.log10(y))):
                    elsewhere.append((kernel.name.split()[0], chip.name, size, label.text))
                checked += 1
    assert checked > 40
    assert not [e for e in elsewhere if e[:2] == ("4c", "TPU v1")], elsewhere
    # the rest by another marker: stacked kernels' joined tags ("2 / 5, 6") and TPU v1's CNN
    # layer at its roof's end by the key, where neither its name nor its tag has a spot (11
    # of the 62 before)
    assert len(elsewhere) <= 4, elsewhere


def test_a_selected_workloads_label_cut_short_still_says_which_run_it_is():
    """The 42nd tour's second look, the training example side by side with ten chips: the
    selected workload's label, cut to fit a small chart, read "ResNet-50…" for the fp32, tf32
    and bf16 runs alike. Cut short, it keeps what tells it from the others ("ResNet-50…
    fp32")."""
    from roofline_gui.core.chart_labels import _fallback, _item_measure, geometry_for
    from roofline_gui.core.chart_scene import Selection
    from roofline_gui.core.workload_eval import evaluate_workloads
    from roofline_gui.core.workload_view import workload_marks
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "training-fp32-against-bf16.roofline")
    shown = list(range(len(doc.chips)))
    results = evaluate_workloads(list(doc.workloads), list(doc.chips))
    marks = tuple(workload_marks(results, Units(), shown))
    cmp = compare((), tuple(doc.chips))
    spec = chart_spec(cmp, Units(), shown, None, frozenset(),
                      tuple(p for r in results for p in r.precisions))
    said = []
    for n, (workload, mark) in enumerate(zip(doc.workloads, marks, strict=True)):
        scene = ChartScene(spec, cmp, tuple(shown), marks, tuple(results), (),
                           Selection(workload.id, None))
        (x_lo, x_hi), (y_lo, y_hi) = scene.fit.range
        g = geometry_for(tuple(np.log10([x_lo, x_hi, y_lo, y_hi])), (240.0, 150.0), 7.0, 14.0)
        top = mark.point_y[np.isfinite(mark.point_y)].max()
        label = _fallback(mark, n, float(np.log10(mark.point_x)), float(np.log10(top)), g,
                          _item_measure(g)[0], scene, [], (mark.label, mark.name))
        assert label is not None and label.text not in (mark.label, mark.name)  # cut short
        said.append(label.text)
    assert len(set(said)) == len(said), said  # told apart
    assert all(text.endswith(w.name.split()[-1]) for text, w in zip(said, doc.workloads,
                                                                     strict=True)), said


def test_a_tag_by_its_marker_is_no_nearer_a_ridge_dot_than_its_marker():
    """The 44th tour: "6" under TPU v3's bf16 ridge dot, side by side, read as naming the dot
    (a roof's ridge point is a filled dot, as a streaming kernel's marker). TPU v3's chart of
    the A100 against TPU v3, at two small sizes, every kernel selected on every chip: no tag
    set by its marker (no stem) has a ridge dot nearer than its marker (two and four did)."""
    from roofline_gui.core.chart_labels import place_labels
    from roofline_gui.core.chart_scene import Selection
    from roofline_gui.core.display import box_gaps, kernel_tags, offset_label_box
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "a100-vs-tpu-v3.roofline")
    cmp = compare(doc.kernels, doc.chips)
    tpu = [c.name for c in doc.chips].index("TPU v3")
    scene = ChartScene(chart_spec(cmp, Units(), levels=True), cmp, (tpu,))
    tags = set(kernel_tags([k.name for k in doc.kernels]))
    for size in ((196.0, 346.0), (300.0, 200.0)):
        for kernel in doc.kernels:
            for chip in doc.chips:
                chosen = replace(scene, selection=Selection(kernel.id, chip.id))
                g = _geometry(chosen, size)
                dots = np.array([[np.log10(r.ridge) * g.px[0], -np.log10(r.peak) * g.px[1]]
                                 for r in chosen.spec.roofs if r.chip in chosen.chips])
                assert len(dots)
                for lb in place_labels(chosen, g, selected_chip=chip.id,
                                       foreground="#202020").names:
                    if lb.stem or not set(stacked_tags(lb.text)) <= tags:
                        continue
                    box = offset_label_box(lb, g.px, g.text_px, g.line)
                    mine = box_gaps(box, [lb.x * g.px[0]], [-lb.y * g.px[1]])[0, 0]
                    nearest = box_gaps(box, dots[:, 0], dots[:, 1])[0].min()
                    assert nearest >= mine - 0.5, (size, kernel.name, chip.name, lb.text)
