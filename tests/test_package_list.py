"""Every package of the source tree is in the wheel: pyproject.toml lists them one by one, and a
new folder left out of the list installs a wheel that cannot start (the chart's layers were)."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "roofline_gui").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)
