"""Before Qt starts a window on Linux: are the system libraries its X11 (xcb) platform plugin needs
there? Qt's own failure names none of them ("Reinstalling the application may fix this
problem"), so this finds the missing ones and says which packages bring them.

Qt-free on purpose: it runs before PySide6's GUI modules are imported, reads the plugin's ELF
dependency list itself and asks the dynamic loader for each library (``ctypes``), so it needs
neither ``ldd`` nor a working Qt.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import struct
import sys
from pathlib import Path

# Loaded by the xcb plugin at run time (dlopen), so no ELF file lists it.
RUNTIME_LOADED = ("libxcb-cursor.so.0",)

# soname -> (Debian/Ubuntu package, Fedora package)
PACKAGES = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libSM.so.6": ("libsm6", "libSM"),
    "libICE.so.6": ("libice6", "libICE"),
}
_FEDORA_XCB = "libxcb"  # Fedora ships every plain libxcb-*.so in one package


def packages_for(soname: str) -> tuple[str, str]:
    """(Debian package, Fedora package) that provide ``soname``; a guess from the name for
    plain xcb extensions (libxcb-shape.so.0 -> libxcb-shape0 / libxcb)."""
    if soname in PACKAGES:
        return PACKAGES[soname]
    stem, _, version = soname.partition(".so.")
    if stem.startswith("libxcb"):
        return f"{stem}{version}", _FEDORA_XCB
    return f"{stem}{version}", stem


def _qt_dir() -> Path | None:
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "Qt"


def needed_libraries(path: Path) -> list[str]:
    """The DT_NEEDED entries of an ELF shared object (its direct library dependencies)."""
    data = path.read_bytes()
    if data[:4] != b"\x7fELF":
        return []
    is64, little = data[4] == 2, data[5] == 1
    e = "<" if little else ">"
    if is64:
        shoff, = struct.unpack_from(e + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(e + "HH", data, 0x3A)
    else:
        shoff, = struct.unpack_from(e + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(e + "HH", data, 0x2E)
    sections = []
    for i in range(shnum):
        base = shoff + i * shentsize
        if is64:
            _n, kind, _f, _a, offset, size, link = struct.unpack_from(e + "IIQQQQI", data, base)
        else:
            _n, kind, _f, _a, offset, size, link = struct.unpack_from(e + "IIIIIII", data, base)
        sections.append((kind, offset, size, link))
    names = []
    for kind, offset, size, link in sections:
        if kind != 6:  # SHT_DYNAMIC
            continue
        strtab = sections[link][1]
        entry, fmt = (16, e + "qQ") if is64 else (8, e + "iI")
        for pos in range(offset, offset + size, entry):
            tag, value = struct.unpack_from(fmt, data, pos)
            if tag == 0:
                break
            if tag == 1:  # DT_NEEDED
                end = data.index(b"\0", strtab + value)
                names.append(data[strtab + value:end].decode())
    return names


def _loadable(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def missing_xcb_libraries(qt_dir: Path | None = None) -> list[str]:
    """System libraries that Qt's xcb plugin (or the Qt libraries under it) needs and the
    dynamic loader cannot find. Libraries that PySide6 ships itself are not checked."""
    qt_dir = qt_dir or _qt_dir()
    if qt_dir is None:
        return []
    files = [qt_dir / "plugins" / "platforms" / "libqxcb.so"]
    files += [qt_dir / "lib" / f"libQt6{m}.so.6" for m in ("XcbQpa", "Gui", "Widgets", "Core", "DBus")]
    wanted: list[str] = []
    for path in files:
        if path.is_file():
            wanted += [n for n in needed_libraries(path) if n not in wanted]
    wanted += [n for n in RUNTIME_LOADED if n not in wanted]
    shipped = ("libQt6", "libicu", "libpyside6", "libshiboken6")
    return [n for n in wanted if not n.startswith(shipped) and not _loadable(n)]


def _platform() -> str | None:
    """The platform Qt will try first on Linux: 'xcb', 'wayland', another, or None (no display)."""
    chosen = os.environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if chosen:
        return chosen
    if os.environ.get("WAYLAND_DISPLAY") and os.environ.get("XDG_SESSION_TYPE") == "wayland":
        return "wayland"
    if os.environ.get("DISPLAY"):
        return "xcb"
    if os.environ.get("WAYLAND_DISPLAY"):
        return "wayland"
    return None


def startup_problem() -> str | None:
    """A message for the user when a window cannot start on this Linux machine, else None."""
    if not sys.platform.startswith("linux"):
        return None
    platform = _platform()
    if platform is None:
        return ("no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set). "
                "Start it from a desktop session, or use the headless options "
                "(--export-csv, --export-png, --list-presets, --measure).")
    if platform != "xcb":
        return None
    missing = missing_xcb_libraries()
    if not missing:
        return None
    debian = sorted({packages_for(n)[0] for n in missing})
    fedora = sorted({packages_for(n)[1] for n in missing})
    return ("Qt cannot open a window: its X11 (xcb) platform plugin needs system libraries "
            "that are not installed:\n"
            + "".join(f"  {name}\n" for name in missing)
            + "Install them with\n"
            f"  Debian/Ubuntu: sudo apt-get install {' '.join(debian)}\n"
            f"  Fedora:        sudo dnf install {' '.join(fedora)}\n"
            "then start Roofline Explorer again.")
