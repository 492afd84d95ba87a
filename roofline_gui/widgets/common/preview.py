"""Show one widget alone with the A100-vs-TPU v3 example: ``python -m roofline_gui.widgets.X``."""

from __future__ import annotations


def sample_model():
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session
    from roofline_gui.models.document_model import DocumentModel

    model = DocumentModel()
    model.reset(load_session(resources_dir() / "examples" / "a100-vs-tpu-v3.roofline"))
    return model


def preview(factory) -> int:
    """``factory(model, presets) -> QWidget``; shows it and runs the event loop."""
    from roofline_gui.io.presets import default_presets
    from roofline_gui.widgets.common.application import make_app

    app = make_app()
    widget = factory(sample_model(), default_presets())
    widget.resize(900, 700)
    widget.show()
    return app.exec()

