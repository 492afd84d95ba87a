"""Chip and kernel presets shipped in ``resources/presets/``.

Presets use the same JSON form as session chips and kernels, with a stable ``id`` each (for
example ``google-tpu-v3``), and a source for every value. They are validated like a session.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from roofline_gui.core.chip import Chip
from roofline_gui.core.errors import ValidationError
from roofline_gui.core.kernel import Kernel
from roofline_gui.io.files import read_json, resources_dir
from roofline_gui.io.validate import Checker, read_chip, read_kernel


@dataclass(frozen=True)
class Presets:
    chips: dict[str, Chip]
    kernels: dict[str, Kernel]


def _read(path: Path, key: str, reader) -> dict:
    data = read_json(path)
    ck = Checker()
    root = ck.obj(data, "")
    items = ck.array((root or {}).get(key), key) or []
    out = {}
    for i, raw in enumerate(items):
        d = ck.obj(raw, f"{key}[{i}]")
        if d is None:
            continue
        preset_id = d.get("id")
        if not isinstance(preset_id, str) or not preset_id:
            ck.fail(f"{key}[{i}].id", "is required")
            continue
        if preset_id in out:
            ck.fail(f"{key}[{i}].id", f"duplicate preset id {preset_id!r}")
        item = reader(ck, {**d, "preset": preset_id}, f"{key}[{i}]", preset_id)
        if item is not None:
            out[preset_id] = item
    if ck.problems:
        raise ValidationError(ck.problems, str(path))
    return out


def load_presets(folder: Path | None = None) -> Presets:
    folder = folder or resources_dir() / "presets"
    return Presets(
        chips=_read(folder / "chips.json", "chips", read_chip),
        kernels=_read(folder / "kernels.json", "kernels", read_kernel),
    )


@lru_cache(maxsize=1)
def default_presets() -> Presets:
    """The shipped presets, read once per process."""
    return load_presets()
