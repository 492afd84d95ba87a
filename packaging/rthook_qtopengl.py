"""PyInstaller runtime hook: the bundle leaves out PySide6's QtOpenGL binding (8.9 MB).

pyqtgraph imports PySide6.QtOpenGL when its curve and mesh modules load, but touches it only
to draw with OpenGL, which the app never enables (useOpenGL stays off). An empty module stands
in, so the import succeeds and any real use names what is missing. The bundle's self-test draws
every kind of item the app uses, so a pyqtgraph that needed more would fail the build.
"""

import sys
import types


def _missing(name: str):
    raise AttributeError(f"PySide6.QtOpenGL.{name}: left out of this bundle (the app draws "
                         "without OpenGL; see packaging/slim.py)")


try:
    import PySide6.QtOpenGL  # noqa: F401 -- a bundle built with it keeps it
except ImportError:
    import PySide6

    stub = types.ModuleType("PySide6.QtOpenGL", __doc__)
    stub.__getattr__ = _missing
    sys.modules["PySide6.QtOpenGL"] = stub
    PySide6.QtOpenGL = stub
