"""pyqtgraph's private API the charts use (roofline_gui/widgets/chart/pg_private.py) is still
there and behaves as it did: a pyqtgraph release that changes it fails here, loudly, first."""

import inspect

import numpy as np
import pyqtgraph as pg

from roofline_gui.widgets.chart import pg_private


def test_the_private_methods_and_attributes_exist_with_the_signatures_used(qtbot):
    for cls, names in pg_private.USED_METHODS.items():
        for name in names:
            assert callable(getattr(cls, name, None)), f"pyqtgraph {pg.__version__}: {cls.__name__}.{name}"
    assert "data" in inspect.signature(pg.ScatterPlotItem._style).parameters
    assert "kwargs" in inspect.signature(pg.ScatterPlotItem._updateMaxSpotSizes).parameters  # data=...
    scatter = pg.ScatterPlotItem(x=[0.0, 1.0], y=[0.0, 1.0], size=10)
    for name in pg_private.USED_ATTRIBUTES:
        assert hasattr(scatter, name), f"pyqtgraph {pg.__version__}: ScatterPlotItem().{name}"
    assert pg_private.exporting(scatter) is False
    assert pg_private.max_spot_width(scatter) >= 10


def test_uniform_fill_gives_every_spot_the_image_pyqtgraph_gives(qtbot):
    x = np.arange(5.0)
    ours = pg.ScatterPlotItem(x=x, y=x, size=10, brush="r", pen="k")
    theirs = pg.ScatterPlotItem(x=x, y=x, size=10, brush="r", pen="k")
    ours.data["sourceRect"]["w"] = 0
    pg_private.uniform_fill(ours, ours.data)
    theirs.data["sourceRect"]["w"] = 0
    theirs.updateSpots()
    assert (ours.data["sourceRect"] == theirs.data["sourceRect"]).all()
    assert pg_private.max_spot_width(ours) == pg_private.max_spot_width(theirs)


def test_a_label_let_shrink_asks_for_no_width_and_keeps_its_height(qtbot):
    from PySide6.QtCore import QSizeF, Qt

    for name in pg_private.USED_LABEL_ATTRIBUTES:
        assert hasattr(pg.LabelItem("x"), name), f"pyqtgraph {pg.__version__}: LabelItem().{name}"
    label = pg.LabelItem()
    label.setText("A chip's long name that would widen its chart", size="10pt")
    smallest = label.sizeHint(Qt.SizeHint.MinimumSize, QSizeF())
    assert smallest.width() > 100
    pg_private.let_label_shrink(label)
    assert label.sizeHint(Qt.SizeHint.MinimumSize, QSizeF()) == QSizeF(0, smallest.height())
