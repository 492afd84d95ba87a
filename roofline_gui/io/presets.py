"""Chip and kernel presets shipped in ``resources/presets/``.

Presets use the same JSON form as session chips and kernels, with a stable ``id`` each (for
example ``google-tpu-v3``), and a source for every value. They are validated like a session.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from roofline_gui.core.chip import Chip
from roofline_gui.core.errors import ValidationError
from roofline_gui.core.i18n import SOURCE_LANGUAGE, language
from roofline_gui.core.kernel import Kernel
from roofline_gui.io.files import data_dir, dumps, read_json, resources_dir, write_atomic
from roofline_gui.io.serialize import chip_to_dict
from roofline_gui.io.validate import Checker, read_chip, read_kernel


@dataclass(frozen=True)
class Presets:
    """Chip and kernel presets by id: the shipped ones, and the user's saved chips."""

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


USER_PRESETS = "user-chips.json"


def user_presets_path() -> Path:
    return data_dir() / USER_PRESETS


def load_presets(folder: Path | None = None, user_file: Path | None = None) -> Presets:
    """The shipped presets, plus the user's saved chips (measured machines) when that file
    exists. A damaged user file raises like any bad file; the shipped presets never change."""
    folder = folder or resources_dir() / "presets"
    chips = _read(folder / "chips.json", "chips", read_chip)
    user_file = user_file or user_presets_path()
    if user_file.is_file():
        chips.update(_read(user_file, "chips", read_chip))
    kernels = _read(folder / "kernels.json", "kernels", read_kernel)
    return Presets(chips=chips, kernels=_in_language(kernels, folder / f"kernels.{language()}.json"))


def _in_language(kernels: dict[str, Kernel], path: Path) -> dict[str, Kernel]:
    """The preset kernels with their names and notes in the interface's language where
    ``path`` (``kernels.ja.json``: id → name and source) gives them; as they are otherwise."""
    if language() == SOURCE_LANGUAGE or not path.is_file():
        return kernels
    words = read_json(path).get("kernels", {})
    out = {}
    for preset_id, kernel in kernels.items():
        said = words.get(preset_id)
        if isinstance(said, dict) and isinstance(said.get("name"), str):
            source = said.get("source")
            kernel = replace(kernel, name=said["name"],
                             source=source if isinstance(source, str) else kernel.source)
        out[preset_id] = kernel
    return out


def user_preset_id(name: str) -> str:
    """The id a chip saved as a user preset gets: ``user-`` and its name in lower case, each
    run of other characters a hyphen (``This computer, measured 2026-12-01`` →
    ``user-this-computer-measured-2026-12-01``)."""
    slug = "".join(ch if ch.isalnum() else "-" for ch in name.lower())
    return "user-" + "-".join(part for part in slug.split("-") if part)


def save_user_chip(chip: Chip, preset_id: str, user_file: Path | None = None) -> Path:
    """Add (or replace) ``chip`` in the user's preset file, atomically; returns the file."""
    user_file = user_file or user_presets_path()
    existing = read_json(user_file) if user_file.is_file() else {}
    chips = [c for c in existing.get("chips", []) if isinstance(c, dict) and c.get("id") != preset_id]
    chips.append({**chip_to_dict(chip), "id": preset_id, "preset": preset_id})
    user_file.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(user_file, dumps({"format": "roofline-chip-presets", "version": 1, "chips": chips}))
    default_presets.cache_clear()
    return user_file


@lru_cache(maxsize=1)
def default_presets() -> Presets:
    """The shipped presets, read once per process."""
    return load_presets()
