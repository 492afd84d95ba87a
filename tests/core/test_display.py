"""The chart's geometry without Qt: markers on or under their own chip's roof, memory-bound
markers on their diagonal, in every mode (ops or MACs, nominal or derated)."""

import itertools

import numpy as np
import pytest

from roofline_gui.core.comparison import compare
from roofline_gui.core.display import chart_spec
from roofline_gui.core.explain import explain
from roofline_gui.core.roofline import LIMITER_COMPUTE, LIMITER_UNSUPPORTED
from roofline_gui.core.units import PRECISIONS, ROLE_INDEX, Units, compute_precision, format_si
from roofline_gui.io.files import resources_dir
from roofline_gui.io.session import load_session

EXAMPLES = sorted((resources_dir() / "examples").glob("*.roofline"))
MODES = list(itertools.product([False, True], [False, True]))  # (mac, derated)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
@pytest.mark.parametrize(("mac", "derated"), MODES)
def test_every_marker_is_on_or_under_its_own_roof_and_memory_bound_ones_on_the_diagonal(
        path, mac, derated):
    doc = load_session(path)
    cmp = compare(doc.kernels, doc.chips, derated=derated)
    also = tuple(compute_precision(w.activations) for w in doc.workloads)
    spec = chart_spec(cmp, Units(mac=mac), also=also)
    checked = _check_workload_marks(doc, spec, mac, derated)
    for k, kernel in enumerate(cmp.kernels):
        for c, chip in enumerate(cmp.chips):
            code = int(cmp.result.limiter[k, c])
            if code == LIMITER_UNSUPPORTED:
                assert np.isnan(spec.marker_y[k, c])
                continue
            roof = next(r for r in spec.roofs_of(c) if r.precision == kernel.precision)
            x, y = spec.marker_x[k], spec.marker_y[k, c]
            on_roof = min(roof.peak, roof.bandwidth * x)
            assert y <= on_roof * (1 + 1e-9), (kernel.name, chip.name)
            if code == LIMITER_COMPUTE:
                assert y == pytest.approx(roof.peak, rel=1e-9)
            elif chip.memory[code].role == "dram":
                assert y == pytest.approx(roof.bandwidth * x, rel=1e-9)  # on the diagonal
                assert x <= roof.ridge * (1 + 1e-9)
            checked += 1
    assert checked > 0


def _check_workload_marks(doc, spec, mac, derated) -> int:
    """Workloads' kernels drawn through the same roofs: on or under, on the diagonal when
    bound by main memory; the workload's point under its chip's roof too."""
    from roofline_gui.core.workload_eval import evaluate_workloads
    from roofline_gui.core.workload_view import workload_marks

    results = evaluate_workloads(doc.workloads, doc.chips, derated=derated)
    checked = 0
    for mark, r in zip(workload_marks(results, Units(mac=mac), list(range(len(doc.chips)))),
                       results, strict=True):
        for c in range(len(doc.chips)):
            # the math's precision (a block format's elements'), or the one standing in for it
            precision = compute_precision(r.workload.activations)
            stand_in = r.evaluation.chip_arrays.stand_in_for(c, PRECISIONS.index(precision))
            if stand_in >= 0:
                precision = PRECISIONS[stand_in]
            roof = next((rf for rf in spec.roofs_of(c) if rf.precision == precision), None)
            if roof is None:  # a chip without the precision (TPU v3, fp32) cannot run it
                assert not np.isfinite(r.time[c]) and np.isnan(mark.entry_y[:, c]).all()
                continue
            for e in range(len(r.entries)):
                x, y = mark.entry_x[e], mark.entry_y[e, c]
                assert y <= min(roof.peak, roof.bandwidth * x) * (1 + 1e-9)
                code = int(r.evaluation.limiter[r.rows][e, c])
                if code >= 0 and doc.chips[c].memory[code].role == "dram":
                    assert y == pytest.approx(roof.bandwidth * x, rel=1e-9)
                checked += 1
            assert mark.point_y[c] <= min(roof.peak, roof.bandwidth * mark.point_x) * (1 + 1e-9)
    return checked


def test_count_macs_moves_the_ridge_and_keeps_the_diagonal():
    doc = load_session(resources_dir() / "examples" / "h100-vs-mi300x-llm.roofline")
    cmp = compare(doc.kernels, doc.chips)
    ops, macs = chart_spec(cmp, Units()), chart_spec(cmp, Units(mac=True))
    for a, b in zip(ops.roofs, macs.roofs, strict=True):
        assert b.peak == pytest.approx(a.peak / 2) and b.ridge == pytest.approx(a.ridge / 2)
        assert b.bandwidth == a.bandwidth
        xs, ys = b.points()
        assert ys[0] == pytest.approx(b.bandwidth * xs[0])  # y = bandwidth × x, as in op units
    np.testing.assert_allclose(macs.marker_y, ops.marker_y / 2)
    np.testing.assert_allclose(macs.marker_x, ops.marker_x / 2)


def test_derated_ridge_is_the_derated_roof_over_the_derated_bandwidth_everywhere():
    doc = load_session(resources_dir() / "examples" / "h100-vs-mi300x-llm.roofline")
    cmp = compare(doc.kernels, doc.chips, derated=True)
    spec = chart_spec(cmp, Units())
    rows = cmp.rows()
    for k, kernel in enumerate(cmp.kernels):
        for c, chip in enumerate(cmp.chips):
            roof = next(r for r in spec.roofs_of(c) if r.precision == kernel.precision)
            fraction = chip.compute_achievable.get(kernel.precision, 1.0)
            dram_fraction = chip.dram.achievable or 1.0
            expected = chip.compute[kernel.precision] * fraction / (chip.dram.bandwidth * dram_fraction)
            assert roof.ridge == pytest.approx(expected)
            assert float(cmp.result.ridge_dram[k, c]) == pytest.approx(expected)
            row = rows[c * len(cmp.kernels) + k]
            assert float(row["ridge_flop_per_byte"]) == pytest.approx(expected, rel=1e-6)
            # The CSV's bound agrees with intensity against that ridge for dram-limited kernels.
            code = int(cmp.result.limiter[k, c])
            intensity = float(row["intensity_flop_per_byte"])
            if code == LIMITER_COMPUTE:
                assert intensity >= expected * (1 - 1e-6)
            elif chip.memory[code].role == "dram":
                assert intensity <= expected * (1 + 1e-6)


@pytest.mark.parametrize(("mac", "derated"), MODES)
def test_the_explanations_numbers_are_the_charts_and_add_up(mac, derated):
    doc = load_session(resources_dir() / "examples" / "h100-vs-mi300x-llm.roofline")
    cmp = compare(doc.kernels, doc.chips, derated=derated)
    units = Units(mac=mac)
    spec = chart_spec(cmp, units)
    for k, c in itertools.product(range(len(cmp.kernels)), range(len(cmp.chips))):
        code = int(cmp.result.limiter[k, c])
        if code == LIMITER_UNSUPPORTED:
            continue
        text = "\n".join(explain(cmp, k, c, units))
        rate = format_si(float(spec.marker_y[k, c]), f"{units.word}/s")
        assert rate in text  # the attainable rate the marker sits at
        kernel, chip = cmp.kernels[k], cmp.chips[c]
        roof = next(r for r in spec.roofs_of(c) if r.precision == kernel.precision)
        if code >= 0:
            level = chip.memory[code]
            bandwidth = float(cmp.chip_arrays.read_bandwidth(derated)[c, code])
            assert format_si(bandwidth, "B/s") in text  # the bandwidth applied
            level_intensity = float(cmp.result.intensity[k, ROLE_INDEX[level.role]])
            # intensity × bandwidth gives the rate said
            assert units.rate(level_intensity * bandwidth) == pytest.approx(float(spec.marker_y[k, c]),
                                                                         rel=1e-9)
            if level.role == "dram":
                assert f"{roof.ridge:,.4g} {units.word}/B" in text
        else:
            assert f"{roof.ridge:,.4g} {units.word}/B" in text
        # The time breakdown adds up: the slowest part is the lower bound, the sum the upper.
        if kernel.has_size:
            r = cmp.result
            parts = [float(r.kernel_arrays.ops[k] / r.ceiling[k, c])]
            parts += [t for _, t in r.level_times(k, c)]
            assert max(parts) == pytest.approx(float(r.time_lower[k, c]), rel=1e-9)
            assert sum(parts) == pytest.approx(float(r.pair(k, c).time_upper[0, 0]), rel=1e-9)


def _box(label, char, line):
    w = len(label.text) * char + 4
    (sx, sy), (dx, dy), (ax, ay) = PX, label.offset, label.anchor
    left, top = label.x * sx + dx - ax * w, -label.y * sy + dy - ay * line
    return (left, top, left + w, top + line)


PX = (120.0, 90.0)


def test_kernel_labels_are_placed_by_the_width_the_text_is_measured_at():
    """A label is boxed at its measured width, not len × the average character: a name of wide
    glyphs left of a marker near the view's left edge is moved to where it fits whole."""
    from roofline_gui.core.display import offset_label_box, place_kernel_labels

    name = "WWWW MMMM attention (bf16)"  # 26 characters, far wider than 26 × 7 px

    def wide(text):
        return len(text) * 11.0

    xs, ys = np.array([2.0]), np.array([12.0])
    # The view: from 240 px left of the marker (room for 26 × 7 + 4 px, not for 26 × 11 + 4) to
    # 20 px right of it (no room on the right, nor above or below, centred on the marker).
    bounds = (2.0 * PX[0] - 240, -13 * PX[1], 2.0 * PX[0] + 20, -11 * PX[1])
    (estimated,) = place_kernel_labels([name], xs, ys, PX, 7.0, 14.0, [], bounds=bounds)
    # By the estimate it goes left of the marker, where its real width reaches past the edge ...
    assert estimated.anchor == (1.0, 0.5)
    assert offset_label_box(estimated, PX, wide, 14.0)[0] < bounds[0]
    # ... measured, it fits nowhere, and is left out rather than cut (the tooltip names it).
    assert place_kernel_labels([name], xs, ys, PX, wide, 14.0, [], bounds=bounds) == []
    # With room, the measured label is placed inside the view.
    roomy = (bounds[0] - 100, bounds[1], bounds[2], bounds[3])
    (measured,) = place_kernel_labels([name], xs, ys, PX, wide, 14.0, [], bounds=roomy)
    box = offset_label_box(measured, PX, wide, 14.0)
    assert roomy[0] <= box[0] and box[2] <= roomy[2]


def test_a_label_is_not_written_over_a_roof_where_another_spot_is_free_of_it():
    """A marker on a flat roof: the spot right of it, centred on the line, is crossed by the
    roof; the name goes to the first spot the line does not cross (above it). Where every spot
    is crossed, it stays where it first fits, so no name is lost to a line."""
    from roofline_gui.core.display import (
        LABEL_SPOTS,
        crosses_any,
        offset_label_box,
        place_kernel_labels,
    )

    xs, ys = np.array([1.0]), np.array([12.0])
    mx, my = 1.0 * PX[0], -12.0 * PX[1]
    flat = np.array([[mx - 500, my], [mx + 500, my]])  # the roof through the marker, in pixels
    (free,) = place_kernel_labels(["GEMM 4096³ (bf16)"], xs, ys, PX, 7.0, 14.0, [], lines=[flat])
    (first,) = place_kernel_labels(["GEMM 4096³ (bf16)"], xs, ys, PX, 7.0, 14.0, [])
    assert first.anchor == LABEL_SPOTS[0][1]  # without lines: right of the marker, on the roof
    segment = np.array([[*flat[0], *flat[1]]])
    assert crosses_any(offset_label_box(first, PX, 7.0, 14.0), segment)
    assert free.offset == LABEL_SPOTS[2][0]  # above the marker, the first spot clear of it
    assert not crosses_any(offset_label_box(free, PX, 7.0, 14.0), segment)
    # Lines through every spot (a vertical one too): it keeps the first spot it fits in.
    upright = np.array([[mx, my - 500], [mx, my + 500]])
    diagonal = np.array([[mx - 500, my + 500], [mx + 500, my - 500]])
    slope = np.array([[mx - 500, my - 500], [mx + 500, my + 500]])
    (crossed,) = place_kernel_labels(["GEMM 4096³ (bf16)"], xs, ys, PX, 7.0, 14.0, [],
                                     lines=[flat, upright, diagonal, slope,
                                            flat + [0, -16], flat + [0, 16]])
    assert crossed == first


def test_a_name_keeps_two_pixels_from_a_roof_not_just_off_it():
    """A roof a pixel above the spot right of a marker does not cross the text's box, but a
    name touching the line reads as written on it (the fourth tour's "4b" on the bf16 roof):
    the name takes the next spot, at least LINE_CLEAR away."""
    from roofline_gui.core.display import LABEL_SPOTS, LINE_CLEAR, offset_label_box, place_kernel_labels

    xs, ys = np.array([1.0]), np.array([12.0])
    mx = 1.0 * PX[0]
    (first,) = place_kernel_labels(["GEMM"], xs, ys, PX, 7.0, 14.0, [])
    box = offset_label_box(first, PX, 7.0, 14.0)
    for gap, moved in ((1.0, True), (LINE_CLEAR[3] + 0.5, False)):
        y = box[3] + gap  # a roof just under the text's box, the marker's own spot right of it
        line = np.array([[mx - 500, y], [mx + 500, y]])
        (label,) = place_kernel_labels(["GEMM"], xs, ys, PX, 7.0, 14.0, [], lines=[line])
        assert (label.offset != LABEL_SPOTS[0][0]) is moved, gap


def test_crossing_a_box():
    from roofline_gui.core.display import crosses_any

    segments = np.array([[0.0, 0.0, 10.0, 10.0]])
    assert crosses_any((4, 4, 6, 6), segments)        # through it
    assert not crosses_any((6, 0, 10, 3), segments)   # beside it
    assert not crosses_any((11, 11, 12, 12), segments)  # past its end
    assert crosses_any((0, 4, 3, 6), np.array([[1.0, 0.0, 1.0, 10.0]]))  # upright, through it
    assert not crosses_any((2, 4, 3, 6), np.array([[1.0, 0.0, 1.0, 10.0]]))  # upright, beside it
    assert not crosses_any((0, 0, 1, 1), np.zeros((0, 4)))


@pytest.mark.parametrize("seed", range(5))
def test_kernel_labels_never_overlap_each_other_the_roof_labels_or_a_marker(seed):
    from roofline_gui.core.display import boxes_overlap as _overlap
    from roofline_gui.core.display import place_kernel_labels, short_name

    rng = np.random.default_rng(seed)
    n = 30
    xs, ys = rng.uniform(-1, 3, n), rng.uniform(11, 15, n)
    texts = [short_name(f"kernel number {i} with a long name, batch {i} (bf16)") for i in range(n)]
    taken = [(100.0, -1300.0, 260.0, -1286.0), (0.0, -1100.0, 90.0, -1086.0)]
    bounds = (-1 * PX[0], -15 * PX[1], 3 * PX[0], -11 * PX[1])
    placed = place_kernel_labels(texts, xs, ys, PX, 7.0, 14.0, taken, bounds=bounds)
    assert placed, "some labels fit"
    boxes = [_box(label, 7.0, 14.0) for label in placed]
    for i, a in enumerate(boxes):
        assert bounds[0] <= a[0] and a[2] <= bounds[2] and bounds[1] <= a[1] and a[3] <= bounds[3]
        assert not any(_overlap(a, t) for t in taken)
        assert not any(_overlap(a, b) for b in boxes[i + 1:])
        for x, y in zip(xs, ys, strict=True):
            if (x, y) != (placed[i].x, placed[i].y):
                assert not _overlap(a, (x * PX[0] - 5, -y * PX[1] - 5, x * PX[0] + 5, -y * PX[1] + 5))
    assert all(len(label.text) <= 28 for label in placed)
    assert short_name("out = a + b (int8)") == "out = a + b (int8)"


def test_a_derated_explanation_gives_the_share_of_the_roof_it_names():
    doc = load_session(resources_dir() / "examples" / "h100-vs-mi300x-llm.roofline")
    cmp = compare(doc.kernels, doc.chips, derated=True)
    k = next(i for i, kk in enumerate(cmp.kernels) if kk.name.startswith("GEMM 4096³ (bf16)"))
    c = next(i for i, ch in enumerate(cmp.chips) if ch.name.startswith("H100"))
    text = "\n".join(explain(cmp, k, c, Units()))
    # Compute-bound on the derated roof: all of that roof, which is a share of the peak.
    assert "100% of the derated bf16 roof (771.7 Top/s, 78% of the 989.4 Top/s datasheet peak)" in text, text
    text = "\n".join(explain(cmp, k, c, Units(mac=True)))
    assert "MACs per byte" in text or "past the ridge point" in text


def test_a_label_takes_the_whole_name_where_it_fits_and_the_short_one_where_only_that_fits():
    from roofline_gui.core.display import place_kernel_labels, short_name

    name = "MLP layer 4096×4096, batch 64 (bf16) of a long experiment"
    options = (name, short_name(name))
    xs, ys = np.array([0.0]), np.array([12.0])
    roomy = (-10 * PX[0], -20 * PX[1], 10 * PX[0], 0.0)
    assert place_kernel_labels([options], xs, ys, PX, 7.0, 14.0, [], bounds=roomy)[0].text == name
    # A view only wide enough for the short name on either side of the marker.
    tight = (-1.3 * PX[0], -20 * PX[1], 1.3 * PX[0], 0.0)
    placed = place_kernel_labels([options], xs, ys, PX, 7.0, 14.0, [], bounds=tight)
    assert placed and placed[0].text == short_name(name)


def test_a_drag_steps_points_per_level_are_patched_and_equal_a_fresh_count():
    """Where the evaluator patched one kernel's row (a drag step), the chart's points per memory
    level keep the other kernels' and work out that kernel's alone: the same points as counting
    every kernel again, in any order."""
    from dataclasses import replace as swap

    from roofline_gui.core.comparison import Evaluator
    from roofline_gui.core.display import level_marks
    from roofline_gui.io.presets import default_presets

    presets = default_presets()
    chips = tuple(swap(c, id=f"c{i}") for i, c in enumerate(list(presets.chips.values())[:6]))
    kernels = [swap(k, id=f"k{i}") for i, k in enumerate(presets.kernels.values())]
    evaluator = Evaluator()
    first = evaluator.compare(kernels, chips)
    spec = chart_spec(first, Units(), levels=True)
    assert len(spec.levels) > 0
    moved = next(i for i, k in enumerate(kernels) if k.template == "mlp" and k.resides)
    kernels[moved] = swap(kernels[moved], params={**kernels[moved].params, "batch": 37.0})
    second = evaluator.compare(kernels, chips)
    assert second.patched_from is not None and second.patched_from[1] == (moved,)
    patched = chart_spec(second, Units(), reuse=spec, levels=True).levels
    fresh = level_marks(second, Units(), list(range(len(chips))))

    def rows(m):
        return sorted(zip(m.kernel.tolist(), m.chip.tolist(), m.role.tolist(), m.x.tolist(),
                          m.y.tolist(), m.filled.tolist(), strict=True))

    assert rows(patched) == rows(fresh)
    assert rows(patched) != rows(spec.levels)  # the dragged kernel's points did move


def test_among_and_distinct_are_isin_and_unique_without_numpy_ma():
    import subprocess
    import sys

    from roofline_gui.core.arrays import among, distinct

    values = np.array([3, 0, 7, 3, 1], dtype=np.intp)
    assert among(values, (3, 1)).tolist() == np.isin(values, (3, 1)).tolist()
    assert among(values, ()).tolist() == [False] * 5 and among(values[:0], (2,)).tolist() == []
    assert among(values, (9,)).tolist() == [False] * 5  # a chosen index beyond every value
    assert distinct(values) == np.unique(values).tolist() and distinct(values[:0]) == []
    code = ("import sys, numpy as np; from roofline_gui.core.arrays import among, distinct; "
            "among(np.arange(4), (1, 2)); distinct(np.arange(4)); print('numpy.ma' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "False"


def test_a_shorter_name_clear_of_the_roofs_comes_before_the_whole_name_over_one():
    """The second tour: kernels' names written across roofs where a shorter form of the name
    had a clear spot. A marker between two upright lines 30 px either side: the whole name
    (100 px) crosses one wherever it fits; its short form fits beside the marker, clear."""
    from roofline_gui.core.display import place_kernel_labels

    lines = [np.array([[30.0, -100.0], [30.0, 100.0]]), np.array([[-30.0, -100.0], [-30.0, 100.0]])]
    (label,) = place_kernel_labels([("a" * 20, "bbb")], np.array([0.0]), np.array([0.0]),
                                   (100.0, 100.0), 5.0, 12.0, [], lines=lines)
    assert label.text == "bbb" and label.offset == (8.0, 0.0)
    # with no line in the way, the whole name
    (label,) = place_kernel_labels([("a" * 20, "bbb")], np.array([0.0]), np.array([0.0]),
                                   (100.0, 100.0), 5.0, 12.0, [], lines=[])
    assert label.text == "a" * 20


def test_a_name_crossed_at_every_spot_beside_its_marker_is_set_off_with_a_stem():
    """The tours: a kernel's name written across a roof where no spot beside its marker was
    clear. Lines through every near spot (the marker where roofs cross): with the far spots, the
    name goes to the nearest one no line crosses, a stem joining it to its marker; without
    them (or where no far spot is clear either), as before, over a line in the first spot."""
    from roofline_gui.core import display as d

    mx, my = 1.0 * PX[0], -12.0 * PX[1]  # a marker at 10 op/B, 1 Top/s, in pixels
    # lines through every spot beside it, 40 px each way: level ones, and a slant through the
    # marker itself, which no stem may run along (the CNN layer's ran on the bf16 roof: the
    # thirteenth tour)
    cross = [np.array([[mx - 40, my + dy], [mx + 40, my + dy]]) for dy in (-12, -4, 4, 12)] + [
        np.array([[mx - 40, my - 40], [mx + 40, my + 40]])]
    segments = np.array([[*line[0], *line[1]] for line in cross])
    name = "GEMM 4096³ (bf16)"

    def place(taken=(), far=()):
        (label,) = d.place_kernel_labels([name], np.array([1.0]), np.array([12.0]), PX, 7.0, 14.0,
                                         list(taken), lines=cross, far_spots=far)
        return label, d.offset_label_box(label, PX, 7.0, 14.0)

    near, box = place()
    assert not near.stem and d.crosses_any(box, segments)
    far, box = place(far=d.FAR_LABEL_SPOTS)
    assert far.stem and far.text == name and (far.offset, far.anchor) in d.FAR_LABEL_SPOTS
    assert not d.crosses_any(box, segments)
    stem = np.array([mx, my, mx + far.offset[0], my + far.offset[1]])
    assert not d._runs_along(stem, segments)
    # the nearest clear one: every far spot nearer to the marker is crossed by a line, or its
    # stem would run along one
    alongs = 0
    for offset, anchor in d.FAR_LABEL_SPOTS[:d.FAR_LABEL_SPOTS.index((far.offset, far.anchor))]:
        nearer = d.KernelLabel(0, name, 1.0, 12.0, offset, anchor)
        along = d._runs_along(np.array([mx, my, mx + offset[0], my + offset[1]]), segments)
        alongs += along
        assert along or d.crosses_any(d.offset_label_box(nearer, PX, 7.0, 14.0), segments), offset
    assert alongs  # the slant through the marker kept one nearer spot from being taken
    # a stem never crosses another label: with a label's box on the way, another spot
    other, _box = place(taken=[box], far=d.FAR_LABEL_SPOTS)
    stem = np.array([[mx, my, mx + other.offset[0], my + other.offset[1]]])
    assert other.stem and other.offset != far.offset and not d.crosses_any(box, stem)


@pytest.mark.parametrize("seed", range(6))
def test_no_name_lies_over_a_stem_and_no_two_stems_cross(seed):
    """The fourth tour: a stem ran behind another name, and two stems crossed in an X. Crowded
    markers among roofs: every name set off its marker has a stem no other name's box lies on,
    and no two stems cross."""
    from roofline_gui.core import display as d

    rng = np.random.default_rng(seed)
    n = 14
    xs, ys = rng.uniform(0.0, 2.0, n), rng.uniform(11.0, 13.0, n)
    # roofs (pixels): level, rising and falling, through the markers' region
    lines = [np.array([[x0, -y0], [x0 + 400, -y0 - 400 * s]])
             for x0, y0, s in zip(rng.uniform(-100, 400, 8), rng.uniform(1000, 1200, 8),
                                  rng.choice([0.0, 1.0, -1.0], 8), strict=True)]
    placed = d.place_kernel_labels([f"kernel number {k}" for k in range(n)], xs, ys, PX, 7.0, 14.0,
                                   [], lines=lines, far_spots=d.FAR_LABEL_SPOTS)
    stemmed = [lb for lb in placed if lb.stem]
    assert stemmed or seed in (1, 3)  # crowded enough that most seeds set names off
    stems = np.array([[lb.x * PX[0], -lb.y * PX[1], lb.x * PX[0] + lb.offset[0],
                       -lb.y * PX[1] + lb.offset[1]] for lb in stemmed]).reshape(-1, 4)
    for lb in placed:
        others = stems[[other is not lb for other in stemmed]] if len(stems) else stems
        # clear by a margin: a stem a pixel from "GEMM…" read as its (the third tour)
        box = np.asarray(d.offset_label_box(lb, PX, 7.0, 14.0)) + d.STEM_CLEAR
        assert not d.crosses_any(tuple(box), others), lb.text
    for i, s in enumerate(stems):
        assert not d._crosses_a_segment(s, np.delete(stems, i, axis=0))


def test_a_long_kernel_name_is_shortened_between_words_keeping_its_precision():
    """The tours read "4b · TPU v…ip (int8)" (cut in the middle of the characters): the first
    words, "…" and the precision, within the limit; a first word too long to keep whole is cut
    in its characters."""
    from roofline_gui.core.display import short_name

    name = "4b · TPU v1 MLP layer, activations on chip (int8)"
    assert short_name(name) == "4b · TPU v1 MLP… (int8)"
    assert short_name(name, 20) == "4b · TPU v1… (int8)"
    assert short_name("Llama-3-8B decode · B = 8, L = 2048") == "Llama-3-8B decode · B = 8…"
    long_word = "Supercalifragilisticexpialidocious_kernel (bf16)"
    assert len(short_name(long_word, 20)) == 20 and short_name(long_word, 20).endswith("(bf16)")
    # a Japanese name: its full-width bracket, attached, and few spaces
    assert short_name("5 · MLP 4096×4096、バッチ 1（bf16）", 20) == "5 · MLP…（bf16）"
    assert short_name("4a · TPU v1 の CNN 層、活性化をチップ上に（int8）") == "4a · TPU v1 の CNN…（int8）"
    for n in (name, long_word, "kernel number 7 with a long name, batch 7 (bf16)"):
        for limit in (20, 28):
            assert len(short_name(n, limit)) <= limit


def test_names_the_same_in_their_first_words_are_told_apart_on_the_chart():
    """Two batches of one layer shortened to their first words read alike ("MLP layer
    4096×4096… (bf16)" twice): cut in the middle of the characters instead, each keeps its
    batch."""
    from roofline_gui.core.display import short_names

    names = ["MLP layer 4096×4096, batch 1 (bf16)", "MLP layer 4096×4096, batch 26 (bf16)",
             "4b · TPU v1 MLP layer, activations on chip (int8)", "out = a + b (int8)"]
    shown = short_names(names)
    assert len(set(shown)) == 4
    assert shown[0].endswith("batch 1 (bf16)") and shown[1].endswith("batch 26 (bf16)")
    assert shown[2] == "4b · TPU v1 MLP… (int8)" and shown[3] == names[3]


def test_names_sharing_their_first_words_show_where_they_differ():
    """The article's kernels 1 and 2 read "1 · out = a… (int8)" and "2 · out = a… (int8)" at
    20 characters (the second tour): past their numbering they leave out the words they share
    and show the first that differ; names that differ only in a last word keep the last words,
    and a name sharing nothing is shortened as before."""
    from roofline_gui.core.display import short_names

    names = ["1 · out = a + b, all in HBM (int8)", "2 · out = a + b, a and b kept on chip (int8)",
             "4a · TPU v1 CNN layer, activations on chip (int8)",
             "4b · TPU v1 MLP layer, activations on chip (int8)",
             "5, 6 · MLP 4096×4096, batch 1 (bf16)", "7 · MLP 4096×4096, batch 1 (fp32)",
             "3 · GEMM 4096³, A and B over PCIe every call (bf16)"]
    # at 28 characters a word that differs shows: as short_name has them
    assert short_names(names) == [
        "1 · out = a + b, all… (int8)", "2 · out = a + b, a… (int8)", "4a · TPU v1 CNN… (int8)",
        "4b · TPU v1 MLP… (int8)", "5, 6 · MLP… (bf16)", "7 · MLP 4096×4096… (fp32)",
        "3 · GEMM 4096³, A… (bf16)"]
    assert short_names(names, 20)[:4] == [
        "1 · …all in… (int8)", "2 · …a and b… (int8)", "4a · …CNN… (int8)", "4b · …MLP… (int8)"]
    # where the room holds it, the first word too, as the table's rows keep it ("1 · …all in…
    # (int8)" had said nothing of what kernel 1 is: the twenty-second tour)
    assert short_names(names, 24)[:2] == ["1 · out …all in… (int8)", "2 · out …a and b… (int8)"]
    for limit in (20, 24, 28):
        assert all(len(s) <= limit for s in short_names(names, limit))
    # unnumbered: its first word names it
    gemms = ["GEMM 4096³ (bf16)", "GEMM 4096³ bf16, inputs over the host link"]
    assert short_names(gemms, 20) == ["GEMM 4096³ (bf16)", "GEMM …bf16, inputs…"]
    batches = ["MLP layer 4096×4096, batch 1 (bf16)", "MLP layer 4096×4096, batch 26 (bf16)"]
    assert short_names(batches) == ["MLP layer… batch 1 (bf16)", "MLP layer… batch 26 (bf16)"]


def test_a_levels_line_above_the_compute_roof_is_said_to_be_no_limit():
    """The seventh tour read "HBM2 1,365 op/B → 2.123 Pop/s" for the GEMM fed over PCIe as a
    rate above the A100's 312 Top/s bf16 peak: a level whose line passes the compute roof at the
    kernel's intensity there is said to be no limit; the limiting level is said to limit."""
    from roofline_gui.core.comparison import compare
    from roofline_gui.core.explain import explain
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "a100-vs-tpu-v3.roofline")
    cmp = compare(tuple(doc.kernels), tuple(doc.chips))
    k = next(i for i, kernel in enumerate(doc.kernels) if "host link" in kernel.name)
    (line,) = [t for t in explain(cmp, k, 0) if t.startswith("Level by level")]
    assert "HBM2 1,365 op/B → 2.123 Pop/s (above the 312 Top/s compute roof: no limit)" in line
    assert "PCIe Gen4 x16 2,048 op/B → 65.54 Top/s (limits)" in line


def test_markers_on_one_point_count_those_drawn_beneath_them():
    """earlier_on_point: for each marker, how many earlier ones lie on its point (to within
    SAME_POINT); kernels_on_point names the others there. NaN (no marker) counts nowhere."""
    from roofline_gui.core.display import SAME_POINT, earlier_on_point, kernels_on_point

    x = np.array([0.0, 1.0, 0.0, 0.0 + SAME_POINT / 10, np.nan, 1.0, 2.0])
    y = np.array([1.0, 2.0, 1.0, 1.0, 1.0, 2.0, 1.0])
    assert earlier_on_point(x, y).tolist() == [0, 0, 1, 2, 0, 1, 0]
    assert kernels_on_point(x, y, 2) == [0, 3]
    assert kernels_on_point(x, y, 6) == [] and kernels_on_point(x, y, 4) == []
    assert earlier_on_point(x[:1], y[:1]).tolist() == [0]


def test_a_name_keeps_off_another_levels_line_where_it_can_and_crosses_it_rather_than_vanish():
    """place_kernel_labels' soft lines (the diagonals of levels kernels use): the name takes the
    first spot clear of them as of the roofs; where every spot crosses one, it is still named
    (over the line, on its backdrop), where a roof would have left it out."""
    from roofline_gui.core.display import FAR_LABEL_SPOTS, place_kernel_labels

    xs, ys = np.array([0.0]), np.array([0.0])
    args = ((100.0, 100.0), 7.0, 14.0, [])
    right = [np.array([[12.0, -60.0], [12.0, 60.0]])]  # through the spot right of the marker
    (free,) = place_kernel_labels(["GEMM"], xs, ys, *args)
    assert free.anchor == (0.0, 0.5)  # the first spot: right of its marker
    (moved,) = place_kernel_labels(["GEMM"], xs, ys, *args, soft_lines=right)
    assert moved.anchor != (0.0, 0.5)
    # a line through every spot, near and far: as a roof it leaves the name out, as another
    # level's line it is crossed
    everywhere = [np.array([[x, -200.0], [x, 200.0]]) for x in range(-200, 201, 6)]
    everywhere += [np.array([[-200.0, y], [200.0, y]]) for y in range(-200, 201, 6)]
    assert place_kernel_labels(["GEMM"], xs, ys, *args, lines=everywhere,
                               far_spots=FAR_LABEL_SPOTS, over_lines=False) == []
    (crossed,) = place_kernel_labels(["GEMM"], xs, ys, *args, soft_lines=everywhere,
                                     far_spots=FAR_LABEL_SPOTS, over_lines=False)
    assert crossed.anchor == (0.0, 0.5) and not crossed.stem


def test_a_names_stem_runs_through_no_other_marker():
    """A name set off its marker (every near spot crossed by a roof) takes a far spot whose
    stem passes no other marker: one ran through the hollow host-transfer points beside the
    GEMM's (the ninth tour)."""
    from roofline_gui.core.display import FAR_LABEL_SPOTS, crosses_each, place_kernel_labels

    # a roof round the marker: no near spot is clear (its corners off the far spots' diagonals,
    # which would pass through them exactly)
    square = [np.array([[-12.0, -14.0], [12.0, -14.0], [12.0, 14.0], [-12.0, 14.0],
                        [-12.0, -14.0]])]
    args = ((100.0, 100.0), 7.0, 14.0, [])
    (free,) = place_kernel_labels(["GEMM"], np.array([0.0]), np.array([0.0]), *args,
                                  lines=square, far_spots=FAR_LABEL_SPOTS, over_lines=False)
    assert free.stem and free.offset == FAR_LABEL_SPOTS[0][0]  # the nearest far spot, right
    other = (np.array([0.19]), np.array([0.0]))  # a marker 19 px right: on that stem
    (moved,) = place_kernel_labels(["GEMM"], np.array([0.0]), np.array([0.0]), *args,
                                   others=other, lines=square, far_spots=FAR_LABEL_SPOTS,
                                   over_lines=False)
    assert moved.stem and moved.offset != FAR_LABEL_SPOTS[0][0]
    stem = np.array([[0.0, 0.0, *moved.offset]])
    assert not crosses_each(np.array([[14.0, -5.0, 24.0, 5.0]]), stem).any()


def test_names_alike_but_for_a_middle_word_keep_that_word_where_the_precision_is_shared():
    """The thirteenth tour read "Attention… 4 (bf16)" and "Attention… (bf16)" on the H100
    against MI300X chart and could not tell decode from prefill: where the first and last words
    leave one name with no word of its own and they share their precision, the shortened names
    are their first words ("Attention decode…", "Attention prefill…"); names told apart by
    their last words keep them and the precision ("MLP… batch 1 (bf16)")."""
    from roofline_gui.core.display import short_names

    names = ["Attention decode, 4k KV cache, GQA 4 (bf16)", "Attention prefill, S = 2048 (bf16)",
             "LLM decode GEMV, batch 1 (bf16)", "LLM decode GEMV, batch 64 (bf16)"]
    assert short_names(names, 20) == ["Attention decode…", "Attention prefill…",
                                      "LLM… batch 1 (bf16)", "LLM… batch 64 (bf16)"]


def test_kernel_tags_are_the_names_own_numbering_else_their_places():
    from roofline_gui.core.display import headed_names, kernel_tags, own_numbering

    article = ["1 · out = a + b (int8)", "4a · TPU v1 CNN layer (int8)", "5, 6 · MLP (bf16)"]
    assert own_numbering(article) == ["1", "4a", "5, 6"]
    assert kernel_tags(article) == ["1", "4a", "5, 6"]
    # one unnumbered, or two the same: the numbers kept (by places they had turned "4a" into
    # "2", and the article's numbering read scrambled after a duplicate: the 38th tour), the
    # unnumbered by its place, a repeat primed; with no numbering at all, their places
    assert own_numbering([*article, "GEMM 4096³ (bf16)"]) is None
    assert kernel_tags([*article, "GEMM 4096³ (bf16)"]) == ["1", "4a", "5, 6", "#4"]
    assert kernel_tags(["1 · a", "1 · a (copy)", "1 · a (copy 2)"]) == ["1", "1′", "1′′"]
    # by name, not place: a second copy put under the original keeps "1′′" (the 39th tour)
    assert kernel_tags(["1 · a", "1 · a (copy 2)", "1 · a (copy)"]) == ["1", "1′′", "1′"]
    assert kernel_tags(["GEMM", "MLP"]) == ["1", "2"]
    assert kernel_tags([]) == []
    assert headed_names([*article[:1], "1 · out = a + b (int8) (copy)", "GEMM"]) == [
        "1 · out = a + b (int8)", "1′ · out = a + b (int8) (copy)", "#3 · GEMM"]
    assert headed_names(["GEMM", "MLP"]) is None  # (headed by their places where shown)


def test_the_tag_key_lists_the_kernels_a_chart_names_by_their_tags_alone():
    """An exported picture has no table beside it: "4/5" on it said nothing (the twenty-second
    tour). The key under it lists the kernels named by tags alone, tag and whole name."""
    from roofline_gui.core.chart_labels import tag_key

    names = ["out = a + b (int8)", "GEMM 4096³ (bf16)", "MLP layer, batch 64 (bf16)",
             "LSTM step (bf16)"]
    texts = ["out = a + b (int8)", "GEMM 4096³ (bf16)", "3/4"]
    assert tag_key(texts, names) == ["3 · MLP layer, batch 64 (bf16)", "4 · LSTM step (bf16)"]
    assert tag_key(["2", "out = a + b (int8)"], names) == ["2 · GEMM 4096³ (bf16)"]
    assert tag_key(names, names) == []  # every kernel named: no key
    # names with their own numbering (the article's) are listed as they are
    article = ["1 · out = a + b (int8)", "4a · TPU v1 CNN layer (int8)", "5, 6 · MLP (bf16)"]
    assert tag_key(["4a / 5, 6"], article) == article[1:]


def test_a_name_is_not_set_where_another_kernels_marker_is_as_near_as_its_own():
    """The tours read a tag "7" set under kernel 2's marker as kernel 2's: a spot where another
    kernel's marker is about as near the text as its own is taken only where none other is."""
    from roofline_gui.core.display import (
        AMBIGUOUS_PX,
        LABEL_SPOTS,
        STACKED_PX,
        ambiguous_each,
        offset_label_box,
        place_kernel_labels,
    )

    xs, ys = np.array([0.0]), np.array([0.0])
    # kernel 1's marker 14 px right of and 14 px below kernel 0's: the right spot's text box
    # (8 px off) is 8 px from each
    other = (np.array([14.0 / PX[0]]), np.array([-14.0 / PX[1]]))
    (plain,) = place_kernel_labels(["7"], xs, ys, PX, 7.0, 12.0, [], other)
    assert plain.anchor == LABEL_SPOTS[0][1]  # without knowing whose: the first spot, right
    (kept,) = place_kernel_labels(["7"], xs, ys, PX, 7.0, 12.0, [], (*other, np.array([1])),
                                  owners=np.array([0]))
    assert kept.anchor == LABEL_SPOTS[1][1]  # left of its marker, away from kernel 1's
    box = np.array([offset_label_box(kept, PX, 7.0, 12.0)])
    assert not ambiguous_each(box, 0.0, 0.0, np.array([[14.0, 14.0]]))[0]
    assert ambiguous_each(np.array([offset_label_box(plain, PX, 7.0, 12.0)]), 0.0, 0.0,
                          np.array([[14.0, 14.0]]))[0]
    # the same kernel's marker on another chip there names no other: the first spot stays
    (own,) = place_kernel_labels(["7"], xs, ys, PX, 7.0, 12.0, [], (*other, np.array([0])),
                                 owners=np.array([0]))
    assert own.anchor == LABEL_SPOTS[0][1]
    assert AMBIGUOUS_PX > 0 and STACKED_PX < 10


def test_a_names_stem_crosses_no_roof_where_another_spot_allows():
    """The nineteenth tour: stems ran across roofs between a name and its marker, reading as
    joining the name to the roof. Of the far spots clear of every text, one whose stem crosses
    no roof comes first (the first, right, is taken where no line is in its way)."""
    from roofline_gui.core import display as d

    xs, ys = np.array([1.0]), np.array([12.0])
    px, py = xs[0] * PX[0], -ys[0] * PX[1]
    args = (["GEMM 4096³"], xs, ys, PX, 7.0, 14.0, [])
    free = d.place_kernel_labels(*args, spots=(), far_spots=d.FAR_LABEL_SPOTS)
    assert free[0].stem and free[0].offset == (26.0, 0.0)
    roof = np.array([[px + 15, py - 300], [px + 15, py + 300]])  # between it and the first
    placed = d.place_kernel_labels(*args, spots=(), lines=[roof], far_spots=d.FAR_LABEL_SPOTS)
    (lb,) = placed
    stem = np.array([px, py, px + lb.offset[0], py + lb.offset[1]])
    assert lb.stem and not d.stem_crosses(stem, roof.reshape(1, 4)), lb.offset
    # where every far spot's stem crosses one, a crossing stem is still better than no name
    walls = [np.array([[px + dx, py - 300], [px + dx, py + 300]]) for dx in (-15, 15)]
    walls += [np.array([[px - 300, py + dy], [px + 300, py + dy]]) for dy in (-15, 15)]
    (boxed,) = d.place_kernel_labels(*args, spots=(), lines=walls, far_spots=d.FAR_LABEL_SPOTS)
    assert boxed.stem


def test_packing_advice_names_the_precision_the_chip_computes_in():
    """The twentieth tour: on the V100, which has no bf16 and runs the article's bf16 MLP layer
    in fp16, "What would move it" said "math still bf16"."""
    doc = load_session(resources_dir() / "examples" / "the-article-claim-by-claim.roofline")
    cmp = compare(doc.kernels, doc.chips, same_width=True)  # as View → Same-width precisions
    k = next(i for i, kk in enumerate(cmp.kernels) if kk.name.startswith("5, 6 · MLP"))
    v100 = next(i for i, ch in enumerate(cmp.chips) if ch.name.startswith("V100"))
    a100 = next(i for i, ch in enumerate(cmp.chips) if ch.name.startswith("A100"))
    assert cmp.stand_in(k, v100) == "fp16"
    assert "(1 B per value, math still fp16)" in "\n".join(explain(cmp, k, v100, Units()))
    assert "(1 B per value, math still bf16)" in "\n".join(explain(cmp, k, a100, Units()))


def test_crossed_length_each_measures_the_lines_inside_each_box():
    """What a text's backdrop would hide: the length of every segment inside the box."""
    from roofline_gui.core.display import crossed_length_each

    boxes = np.array([[0.0, 0.0, 10.0, 10.0], [100.0, 100.0, 110.0, 110.0]])
    segments = np.array([[-5.0, 5.0, 20.0, 5.0],  # across the first: 10 px inside
                         [0.0, 0.0, 10.0, 10.0],  # its diagonal: 14.1 px
                         [50.0, 0.0, 50.0, 60.0]])  # near neither
    assert crossed_length_each(boxes, segments) == pytest.approx([10.0 + 200 ** 0.5, 0.0])
    assert crossed_length_each(boxes, np.zeros((0, 4))).tolist() == [0.0, 0.0]


def test_a_text_with_no_clear_spot_hides_the_least_and_a_roof_only_where_every_spot_does():
    """The last resort of place_kernel_labels (every spot over a line): the spot whose backdrop
    hides the least of the other levels' lines where some spot crosses no roof; only where every
    spot crosses a roof, the one hiding the least of all, a roof's pixel 1 and another's
    SOFT_LINE (the first spot that fitted had put "7" on the A100's bf16 roof where a spot over
    a faint line was left: the 41st tour)."""
    from roofline_gui.core.display import SOFT_LINE, _least_crossed, place_kernel_labels

    boxes = [np.array([0.0, 0.0, 10.0, 10.0]), np.array([20.0, 0.0, 30.0, 10.0]),
             np.array([40.0, 0.0, 50.0, 10.0])]
    spots = [("7", box, (n, n)) for n, box in enumerate(boxes)]
    roof = np.array([[5.0, -20.0, 5.0, 30.0]])  # through the first box, 14 px with its margin
    soft = np.array([[25.0, -20.0, 25.0, 30.0],  # through the second
                     [42.0, -20.0, 48.0, 30.0]])  # and the third, a little longer
    assert 0 < SOFT_LINE < 1
    assert _least_crossed(spots, roof, soft)[2] == (1, 1)
    assert _least_crossed(spots[:1] + spots[2:], roof, soft)[2] == (2, 2)
    # a spot over a roof is not taken while one crosses another level's line alone, however
    # long: three of them through the second box
    three = np.array([[21.0, -20.0, 21.0, 30.0], [25.0, -20.0, 25.0, 30.0],
                      [29.0, -20.0, 29.0, 30.0]])
    assert _least_crossed(spots[:2], roof * [1, 1, 1, 0.1], three)[2] == (1, 1)
    # every spot over a roof: the least hidden, a roof's pixel weighing more than another's
    roofs = np.array([[5.0, -20.0, 5.0, 30.0], [25.0, -20.0, 25.0, 30.0]])
    assert _least_crossed(spots[:2], roofs, soft[:0])[2] == (0, 0)  # (the first of equals)
    assert _least_crossed(spots[:2], roofs, np.array([[0.0, 5.0, 10.0, 5.0]]))[2] == (1, 1)
    assert _least_crossed([], roof, soft) is None
    # through place_kernel_labels: roofs through every spot, near and far
    xs, ys = np.array([0.0]), np.array([0.0])
    args = ((100.0, 100.0), 7.0, 14.0, [])
    everywhere = [np.array([[x, -200.0], [x, 200.0]]) for x in range(-200, 201, 6)]
    assert place_kernel_labels(["7"], xs, ys, *args, lines=everywhere, over_lines=False) == []
    (over,) = place_kernel_labels(["7"], xs, ys, *args, lines=everywhere)
    assert over.text == "7" and not over.stem


def test_a_tag_keeps_away_from_a_ridge_dot_where_it_can_and_stays_by_its_marker_where_not():
    """The 44th tour: "6" under TPU v3's bf16 ridge dot (a filled dot, like a streaming
    kernel's marker) read as naming it. A tag is set where no dot is about as near as its own
    marker (AMBIGUOUS_PX) and it covers none, else with a stem clear of the roofs; only where
    neither is left, by the dot, never left out for it. Without dots, as before."""
    from roofline_gui.core.display import (
        FAR_LABEL_SPOTS,
        LABEL_SPOTS,
        ambiguous_each,
        offset_label_box,
        place_kernel_labels,
    )

    xs, ys = np.array([1.0]), np.array([12.0])
    mx, my = 1.0 * PX[0], -12.0 * PX[1]
    dot = np.array([[mx + 22.0, my]])  # right of the marker, where the first spot's tag ends
    (plain,) = place_kernel_labels(["6"], xs, ys, PX, 7.0, 14.0, [])
    assert plain.offset == LABEL_SPOTS[0][0]
    box = np.asarray(offset_label_box(plain, PX, 7.0, 14.0))
    assert ambiguous_each(box[None, :], mx, my, dot)[0]  # there it reads as the dot's
    (apart,) = place_kernel_labels(["6"], xs, ys, PX, 7.0, 14.0, [], dots=dot)
    assert apart.offset == LABEL_SPOTS[1][0] and not apart.stem  # left of its marker
    assert not ambiguous_each(np.asarray(offset_label_box(apart, PX, 7.0, 14.0))[None, :], mx,
                              my, dot)[0]
    # a dot on every side: with a stem where one is clear, else by its marker all the same
    ring = np.array([[mx + dx, my + dy] for dx in (-16.0, 0.0, 16.0) for dy in (-14.0, 0.0, 14.0)
                     if dx or dy])
    (stemmed,) = place_kernel_labels(["6"], xs, ys, PX, 7.0, 14.0, [], dots=ring,
                                     far_spots=FAR_LABEL_SPOTS)
    assert stemmed.stem
    (kept,) = place_kernel_labels(["6"], xs, ys, PX, 7.0, 14.0, [], dots=ring, over_lines=False)
    assert not kept.stem and kept.offset == LABEL_SPOTS[0][0]
