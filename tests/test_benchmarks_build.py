"""The benchmark scripts still build their inputs with the app's current API (they run by hand,
not in CI, so an API change would otherwise break them unnoticed). No timing here."""

from conftest import ROOT, bench


def test_the_benchmarks_build_their_sessions():
    scale = bench("bench_scale").big_session(n_kernels=20, n_chips=3)
    assert len(scale.kernels) == 20 and len(scale.chips) == 3
    gui = bench("bench_gui").big_document(n_kernels=20, n_chips=3)
    assert len(gui.kernels) == 20 and len(gui.chips) == 3
    for name in ("bench_core", "bench_measure", "bench_training", "bench_side_by_side"):
        assert callable(bench(name).main)


def test_the_label_benchmark_still_makes_its_baseline_from_the_source():
    """bench_labels.py's baseline is place_kernel_names in one pass, made from its source by
    replacing its passes: a rewording that loses the mark it replaces would stop it (it
    asserts it is there)."""
    labels = bench("bench_labels")
    before = labels.one_pass()
    assert callable(before) and before is not labels.chart_labels.place_kernel_names


def test_the_launch_benchmark_starts_each_candidate():
    """Each launcher of bench_gui.py paints and completes its window (the app through
    start_window, as roofline-explorer starts it); the seconds are not checked."""
    gui = bench("bench_gui")
    for name, code in gui.LAUNCHERS.items():
        painted, complete, cpu_painted, cpu_complete = gui.launch_once(code)
        assert 0 < painted <= complete and 0 < cpu_painted <= cpu_complete, name


def test_the_drag_benchmark_drags_with_the_charts_current_api(qtbot):
    """bench_gui.bench_drag runs a drag and its naive comparison on a small chart (the chart's
    rebuild as layers had left it calling a method that is gone)."""
    step, naive = bench("bench_gui").bench_drag(steps=2, n_kernels=20)
    assert step > 0 and naive > 0


def test_each_benchmark_runs_its_main_after_defining_everything():
    """A script whose ``if __name__ == "__main__"`` guard sits above later definitions stops
    with a NameError when run by hand (bench_workloads.py did, at the roof drag)."""
    import ast

    for path in sorted((ROOT / "benchmarks").glob("*.py")):
        body = ast.parse(path.read_text(encoding="utf-8")).body
        guards = [i for i, node in enumerate(body) if isinstance(node, ast.If)
                  and "__main__" in ast.unparse(node.test)]
        assert guards in ([], [len(body) - 1]), path.name


def test_the_tag_scan_reads_a_chart_with_the_current_api(window):
    """scan_tags.py's measure runs on a chart as the app places it (the article's overlay, its
    first kernel selected): each finding its text, its kernel, the other and the markers' px
    apart. No figure is checked here."""
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.file_actions import example_named

    assert window.files.open_example(example_named("the-article-claim-by-claim"))
    QApplication.processEvents()
    plot = window.canvas.overlay_plot
    plot.finish_pending()
    found = bench("scan_tags").read_as_anothers(plot)
    assert isinstance(found, list) and all(len(f) == 4 for f in found)
    assert len(plot.scene.labels.names) >= 5


def test_the_new_window_benchmark_counts_its_baseline_placements(qtbot):
    """bench_new_window.py's baseline (labels never held, as before 2026-12-06) still places
    them at every draw of a window being built, and the app's way once. No timing here."""
    from roofline_gui.widgets.chart.roofline_plot import RooflinePlot

    new_window = bench("bench_new_window")
    _took, held = new_window.one_window("a100-vs-tpu-v3", "overlay", baseline=False)
    _took, before = new_window.one_window("a100-vs-tpu-v3", "overlay", baseline=True)
    assert held == 1 and before > held
    assert "labels_held" not in RooflinePlot.__dict__  # the baseline's stand-in is gone
