"""A measured point above its roof is flagged in the table and on the chart, and explained."""

from roofline_gui.core.kernel import Kernel


def test_a_point_above_its_roof_is_flagged_and_diagnosed(window, qtbot):
    model = window.model
    a100 = next(c for c in model.document.chips if c.name.startswith("A100"))
    gemm = Kernel("x", "GEMM 8192³ (fp32), measured", "fp32", template="gemm",
                  params={"m": 8192, "n": 8192, "k": 8192}, measured_flops=66.7e12)
    kid, = model.add_kernels([gemm])
    model.select(kid, a100.id)
    qtbot.waitUntil(lambda: not window.canvas.drawing)
    table = window.table.table_model
    row = table.view_row(model.comparison.kernel_index[kid])
    cell = table.index(row, 3)  # Measured
    assert cell.data().startswith("⚠")
    assert "Above its roof on A100" in cell.data(3)  # tooltip
    text = window.explanation.toPlainText()
    assert "ABOVE its roof" in text and "342% of it" in text
    assert "Most likely: a precision mismatch." in text
