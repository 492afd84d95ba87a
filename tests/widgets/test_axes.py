"""The log axes' tick labels: decades read 1 T, 100 G; a zoomed-in view reads more."""

import numpy as np


def _labels(qtbot, values):
    from roofline_gui.widgets.common.axes import SIAxis

    return SIAxis("left").logTickStrings(list(np.log10(values)), 1, 1)


def test_a_wide_view_labels_its_decades_only(qtbot):
    assert _labels(qtbot, [1e9, 1e10, 1e11, 2e11, 5e11, 1e12]) == ["1G", "10G", "100G", "", "", "1T"]


def test_a_zoomed_view_labels_its_2s_and_5s_too(qtbot):
    """Zoomed to a decade or two, the axis had read only '10T' (fresh-eyes tour)."""
    assert _labels(qtbot, [1e12, 2e12, 3e12, 5e12, 1e13, 2e13]) == ["1T", "2T", "", "5T", "10T", "20T"]
    assert _labels(qtbot, [2e12, 3e12, 5e12]) == ["2T", "3T", "5T"]  # within a decade: every tick
    # but all eight of a decade, on a short axis, were printed over each other (the empty
    # Serving chart): the 2 and the 5
    assert _labels(qtbot, [k * 1e12 for k in range(2, 10)]) == [
        "2T", "", "", "5T", "", "", "", ""]


def test_the_grid_is_drawn_in_opaque_colours_mixed_over_the_background(qtbot):
    """Translucent lines are blended pixel by pixel in Qt's raster engine (the minor grid's
    first paint was 18-21 ms of the start on an Intel host); the grid's colours are the same
    shade mixed opaque over the chart's background."""
    from roofline_gui.widgets.chart.plot_items import GridLines
    from roofline_gui.widgets.chart.roofline_plot import mixed

    assert mixed("#202020", "#ffffff", 0.0).name() == "#ffffff"
    assert mixed("#202020", "#ffffff", 1.0).name() == "#202020"
    assert mixed("#000000", "#ffffff", 45 / 255).name() == "#d2d2d2"  # 255 - 45
    import pyqtgraph as pg

    from roofline_gui.widgets.chart.roofline_plot import RooflinePlot

    plot = RooflinePlot(pg.PlotItem())
    grids = [i for i in plot.plot.items if isinstance(i, GridLines)]
    assert len(grids) == 2 and all(g.pen().color().alpha() == 255 for g in grids)


def test_a_short_axis_labels_every_other_decade_evenly_and_has_room_for_each(qtbot):
    """Four charts side by side read "1P, 10T, 1T, 10G" (pyqtgraph dropped the labels of the
    decades between that would touch, and "100T" did not fit the untitled axis): the labelled
    decades come at an even step, each drawn."""
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.common.axes import log_plot

    def drawn(height: int) -> list[str]:
        widget.resize(320, height)
        QApplication.processEvents()
        axis = widget.getPlotItem().getAxis("left")
        image = QImage(200, 200, QImage.Format.Format_ARGB32)
        painter = QPainter(image)
        specs = axis.generateDrawSpecs(painter)
        painter.end()
        return [spec[2] for spec in specs[2] if spec[2]]

    widget = log_plot()
    qtbot.addWidget(widget)
    widget.show()
    widget.getPlotItem().setLogMode(True, True)
    widget.setYRange(9.45, 15.27, padding=0)
    short = drawn(150)
    assert short == ["10G", "1T", "100T"], short
    tall = drawn(700)
    assert tall == ["10G", "100G", "1T", "10T", "100T", "1P"], tall


def test_an_x_title_takes_the_longest_form_that_fits_and_follows_resizes(qtbot):
    """The training scaling chart cut "chips, d doubling (hollow: link-bound" at its edge (the
    fifth tour): the title is the longest of its forms that fits the axis, at every width."""
    from PySide6.QtGui import QFont, QFontMetricsF
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.common.axes import BottomTitle, log_plot

    plot = log_plot()
    qtbot.addWidget(plot)
    title = BottomTitle(plot.getPlotItem())
    forms = ("chips, d doubling (hollow: link-bound)", "chips (hollow: link-bound)", "chips")
    width = QFontMetricsF(QFont()).horizontalAdvance
    plot.show()
    for size, want in ((700, forms[0]), (260, None), (120, forms[2])):
        plot.resize(size, 200)
        QApplication.processEvents()
        title.set(forms)
        room = plot.getPlotItem().getViewBox().width() - BottomTitle.SLACK
        axis = plot.getPlotItem().getAxis("bottom")
        text = axis.labelText
        assert text == want if want else text in forms
        assert width(text) + 16 <= room or text == forms[-1]
        longer = forms[:forms.index(text)]
        assert all(width(f) + 16 > room for f in longer)  # nothing longer would have fitted
        # and drawn inside the chart: it had lost its last ")" at the edge (the thirteenth tour)
        drawn = axis.label.mapRectToScene(axis.label.boundingRect())
        assert text == forms[-1] or drawn.right() <= plot.width(), (size, drawn.right())
    plot.resize(700, 200)  # a resize alone fits it again
    QApplication.processEvents()
    assert plot.getPlotItem().getAxis("bottom").labelText == forms[0]


def test_a_longer_title_is_centred_again_on_an_axis_of_the_same_size(qtbot):
    """pyqtgraph centres an axis title only when the axis is resized: the training sweep's
    longer title (a step that does not fit) started where the shorter one had and ran past
    the chart's right edge (the eighteenth tour)."""
    from roofline_gui.widgets.common.axes import log_plot

    plot = log_plot()
    qtbot.addWidget(plot)
    plot.resize(500, 300)
    plot.show()
    qtbot.waitExposed(plot)
    axis = plot.getPlotItem().getAxis("bottom")
    plot.setLabel("bottom", "chips")
    plot.setLabel("bottom", "chips, d doubling (hollow: link-bound; ×, dashed: does not fit)")
    width = axis.label.boundingRect().width()
    assert width > 200
    assert abs(axis.label.pos().x() - (axis.size().width() - width) / 2) <= 1
    assert axis.label.pos().x() + width <= axis.size().width()
