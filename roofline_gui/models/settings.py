"""UI preferences in QSettings, behind one module with its defaults. Document state never goes
here. Tests pass their own QSettings (an ini file in a temp folder)."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings

_DEFAULTS: dict[str, object] = {
    "recent_files": [],
    "window/geometry": QByteArray(),
    "window/state": QByteArray(),
    "window/front": [],  # the docks in front of their tab groups when the window closed
    "window/dock_sizes": [],  # "name:width:height" of each dock shown when the window closed
    "window/size": "",  # "width:height" of the window when it closed (its docks' sizes scale)
    "view/mode": "overlay",
    "view/mac_units": False,
    "view/derated": False,
    "view/kernel_labels": True,
    "view/memory_levels": True,  # a kernel drawn where a roof explains it, from the first start
    "view/same_width": True,  # V100 (fp16) against TPU v3 (bf16) compare, each cell saying so
    "view/bytes_per_op": "",  # intensity as B/F; "" (never set): on in Japanese, off in English
    "view/energy_axis": "energy",  # the Energy tab's y axis: "energy" (op/J) or "power" (op/s)
    "last_dir": "",
    "first_start_done": False,
    "last_example": "",  # the example shown when the app closed, reopened at start ("": none)
    "language": "",  # "en", "ja"; empty: the system's locale (View → Language)
}
MAX_RECENT = 8


class Settings:
    def __init__(self, store: QSettings | None = None) -> None:
        self._store = store or QSettings("RooflineExplorer", "Roofline Explorer")

    def get(self, key: str):
        default = _DEFAULTS[key]
        value = self._store.value(key, default)
        if isinstance(default, bool):
            return value in (True, "true", "1", 1)
        if isinstance(default, list):
            if value is None:
                return []
            return [str(v) for v in (value if isinstance(value, list) else [value])]
        if isinstance(default, QByteArray):
            return value if isinstance(value, QByteArray) else QByteArray()
        return type(default)(value)

    def set(self, key: str, value) -> None:
        if key not in _DEFAULTS:
            raise KeyError(key)
        self._store.setValue(key, value)

    def recent_files(self) -> list[str]:
        return self.get("recent_files")

    def add_recent(self, path: str) -> None:
        files = [path] + [f for f in self.recent_files() if f != path]
        self.set("recent_files", files[:MAX_RECENT])

    def remove_recent(self, path: str) -> None:
        self.set("recent_files", [f for f in self.recent_files() if f != path])

    def sync(self) -> None:
        self._store.sync()
