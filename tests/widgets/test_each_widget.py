"""Every panel builds alone offscreen with the example session and renders something."""

import pytest

from roofline_gui.widgets.chart.canvas_panel import CanvasPanel
from roofline_gui.widgets.common.dialogs import ChipPresetDialog
from roofline_gui.widgets.common.guide_dialog import UserGuideDialog
from roofline_gui.widgets.panels.comparison_panel import ComparisonTable, ExplanationPane
from roofline_gui.widgets.panels.hardware_editor import HardwareEditor
from roofline_gui.widgets.panels.kernel_library import KernelLibrary, TemplateDialog

FACTORIES = {
    "hardware editor": lambda m, p: HardwareEditor(m, p),
    "kernel library": lambda m, p: KernelLibrary(m, p),
    "canvas": lambda m, p: CanvasPanel(m, p),
    "comparison table": lambda m, p: ComparisonTable(m, p),
    "explanation": lambda m, p: ExplanationPane(m),
    "template dialog": lambda m, p: TemplateDialog(),
    "chip preset dialog": lambda m, p: ChipPresetDialog(p),
    "user guide": lambda m, p: UserGuideDialog(),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_widget_builds_and_grabs(qtbot, model, name):
    from roofline_gui.io.presets import default_presets

    widget = FACTORIES[name](model, default_presets())
    qtbot.addWidget(widget)
    widget.resize(800, 600)
    widget.show()
    image = widget.grab().toImage()
    assert image.width() == 800 and image.height() == 600
    # Not a blank widget: more than a handful of distinct colours were painted.
    colors = {image.pixel(x, y) for x in range(0, 800, 10) for y in range(0, 600, 10)}
    assert len(colors) > 3


def test_template_dialog_makes_the_kernel_it_shows(qtbot):
    dialog = TemplateDialog()
    qtbot.addWidget(dialog)
    dialog.template.setCurrentIndex(dialog.template.findData("mlp"))
    dialog.params.fields["batch"].setText("64")
    dialog.params.fields["batch"].editingFinished.emit()
    kernel = dialog.kernel()
    assert kernel.template == "mlp" and kernel.params["batch"] == 64
    assert "ops = 2·B·d_in·d_out = 2·64·4,096·4,096" in dialog.formula.toPlainText()
    dialog.params.fields["batch"].setText("1.5")
    dialog.params.fields["batch"].editingFinished.emit()
    assert "whole number" in dialog.params.fields["batch"].error
