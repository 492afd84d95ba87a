"""View → Intensity as B/F: intensity read as bytes per op, as Japanese HPC courses read it
(要求B/F against マシンB/F): the chart's x axis labelled 1/intensity with the roofs where they
were, the table's column in B/op, the explanation's required and machine B/F at each level. On
by default in Japanese, off in English, kept in the settings."""

import pytest
from PySide6.QtCore import Qt

from roofline_gui.core.comparison import compare
from roofline_gui.core.explain import explain
from roofline_gui.core.units import Units
from roofline_gui.io.presets import default_presets


def test_the_explanation_gives_the_required_and_the_machines_b_per_f():
    p = default_presets()
    a100 = p.chips["nvidia-a100-sxm4-40gb"]
    cmp = compare((p.kernels["add-int8"],), (a100,))
    plain = "\n".join(explain(cmp, 0, 0))
    text = "\n".join(explain(cmp, 0, 0, Units(bytes_per_op=True)))
    assert "B/F" not in plain
    # out = a + b in int8: 3 bytes per op against the A100's 1.555 TB/s ÷ 624 Top/s
    machine = 1.555e12 / 624e12
    assert "the kernel's required B/F is 3 B/op at HBM2" in text
    assert f"the machine's B/F there {machine:,.3g} B/op" in text
    assert "memory-bound" in text and f"HBM2 {machine:,.3g}" in text


def test_every_sentence_giving_an_intensity_gives_it_in_b_per_f_too():
    """The Japanese chart read B/F while the Llama workload's explanation said "7.475 op/B"
    alone (the thirtieth tour): with B/F on, an intensity in a sentence reads both ways, the
    kernel's "3 B/op (0.3333 op/B)" not twice."""
    from roofline_gui.core.workload_view import explain_workload
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session
    from roofline_gui.models.document_model import DocumentModel

    assert Units(bytes_per_op=True).format_intensity(8.0) == "8 op/B (0.125 B/op)"
    assert Units().format_intensity(8.0) == "8 op/B"
    model = DocumentModel()
    model.reset(load_session(resources_dir() / "examples" / "llama-3-8b-on-three-chips.roofline"))
    result = model.workload_results[0]
    plain = "\n".join(explain_workload(result, 0, Units()))
    both = "\n".join(explain_workload(result, 0, Units(bytes_per_op=True)))
    x = result.intensity
    assert f"{x:,.4g} op/B" in plain and "B/op" not in plain
    assert f"{x:,.4g} op/B ({1 / x:,.4g} B/op)" in both
    p = default_presets()
    cmp = compare((p.kernels["add-int8"],), (p.chips["nvidia-a100-sxm4-40gb"],))
    text = "\n".join(explain(cmp, 0, 0, Units(bytes_per_op=True)))
    assert "3 B/op (0.3333 op/B) at 1.555 TB/s" in text, text


@pytest.fixture
def with_bf(window):
    window.model.set_view(bytes_per_op=True)
    return window


def test_the_table_and_the_chart_read_b_per_f(with_bf):
    window = with_bf
    table = window.table.table_model
    assert table.headerData(2, Qt.Orientation.Horizontal) == "B/F\n(B/op)"
    cmp = window.model.comparison
    row = next(i for i, k in enumerate(cmp.kernels) if k.name == "out = a + b (int8)")
    view_row = next(r for r in range(table.rowCount())
                    if table.data(table.index(r, 0)) == "out = a + b (int8)")
    assert table.data(table.index(view_row, 2)) == "3"
    assert float(cmp.dram_intensity[row]) == pytest.approx(1 / 3)
    plot = window.canvas.plots[0].plot
    axis = plot.getAxis("bottom")
    assert axis.inverted and "B/F" in axis.labelText
    window.model.set_view(bytes_per_op=False)
    assert not axis.inverted and table.headerData(2, Qt.Orientation.Horizontal) == "Intensity\n(op/B)"
    assert window._bytes_per_op_setting() is False  # kept: the next start reads it


def test_the_axis_labels_each_decade_with_its_inverse(qtbot):
    from roofline_gui.widgets.common.axes import SIAxis

    axis = SIAxis("bottom")
    plain = axis.logTickStrings([-2.0, 0.0, 2.0], 1, 1)
    axis.set_inverted(True)
    assert axis.logTickStrings([-2.0, 0.0, 2.0], 1, 1) == plain[::-1]


def test_on_by_default_in_japanese_off_in_english(qtbot, settings, model):
    from roofline_gui.io.translations import use_language
    from roofline_gui.widgets.app.main_window import MainWindow

    english = MainWindow(settings=settings, model=model)
    qtbot.addWidget(english)
    assert not model.view.bytes_per_op
    use_language("ja")
    try:
        model.set_view(bytes_per_op=False)
        japanese = MainWindow(settings=settings, model=model)
        qtbot.addWidget(japanese)
        assert model.view.bytes_per_op and japanese.act_bytes_per_op.isChecked()
        settings.set("view/bytes_per_op", False)  # the user's own choice wins
        again = MainWindow(settings=settings, model=model)
        qtbot.addWidget(again)
        assert not model.view.bytes_per_op
    finally:
        use_language("en")


def test_the_japanese_default_is_not_kept_as_the_users_choice(qtbot, settings, model):
    """A start in Japanese turned B/F on and saved it: switched to English it stayed on (the
    tour). Only the user's own choice is kept."""
    from roofline_gui.io.translations import use_language
    from roofline_gui.widgets.app.main_window import MainWindow

    use_language("ja")
    try:
        japanese = MainWindow(settings=settings, model=model)
        qtbot.addWidget(japanese)
        assert model.view.bytes_per_op
        assert settings.get("view/bytes_per_op") == ""  # never set by the user
    finally:
        use_language("en")
    model.set_view(bytes_per_op=False)
    english = MainWindow(settings=settings, model=model)
    qtbot.addWidget(english)
    assert not model.view.bytes_per_op
