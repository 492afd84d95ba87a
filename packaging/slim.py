"""What the bundle leaves out, and why (used by roofline-explorer.spec; figures in
docs/packaging.md).

- Qt's translations, but for Qt's own texts in the languages the app speaks (qtbase_ja.qm: its
  file dialogs and message boxes in Japanese, 0.2 MB); the app's own catalogs are the .po files
  under resources/locale, read as they are.
- Platform plugins for embedded displays (eglfs, linuxfb, vnc, vkkhrdisplay) and the evdev/tuio
  input plugins they use, Wayland's compositor-side buffer plugins and embedded shells, and
  QtNetwork's library (nothing links it); xcb, wayland (xdg-shell, decorations, wayland-egl),
  offscreen and minimal stay, as do the image formats, SVG and the input contexts (compose key,
  IBus).
- Qt's GTK 3 platform theme (platformthemes/libqgtk3.so) and the system libraries only it links
  (GTK 3, GDK, cairo, pango, atk, gdk-pixbuf and their kin: about 12 MB where they are
  installed). PyInstaller carries whatever the build machine has, so a machine with GTK 3 built
  a bundle 12 MB larger than one without, with other contents. The XDG desktop portal theme
  stays: it needs no GTK, and on GNOME and KDE it gives the desktop's file dialogs, colour
  scheme and fonts over D-Bus through xdg-desktop-portal. Without a portal Qt's own Fusion look
  and file dialog are used, the same on every desktop.
- Any system library that nothing kept links (ldd's closure of every kept binary): what a
  dropped plugin alone needed goes with it, on every build machine alike.
- PySide6's QtOpenGL binding (8.9 MB), which pyqtgraph imports but uses only to draw with
  OpenGL, never enabled here: rthook_qtopengl.py puts an empty module in its place. TLS
  (libcrypto, 5 MB) and the East Asian legacy codecs go too (see the spec's EXCLUDES).
- ICU's data (libicudata, 31 MB): Qt Core links ICU, but uses it only for locale-aware collation,
  locale-specific case mapping and legacy text codecs, none of which the app calls (sorting is
  numeric or case-folded, files are UTF-8, case folding is Qt's own). The library is replaced by
  an empty ICU data package of the same name and version: ICU then reports "missing resource"
  to those calls, and Qt falls back to its own tables. Case properties and normalisation are
  compiled into libicuuc, not this data. Built with the system C compiler; without one, the real
  data is kept and the build says so.
- Debug symbols of Python's own libraries (libpython: 23 MB with them, 6 MB without; its
  extension modules 12 MB, 4.5 MB). Only those: the libraries wheels bring (numpy's OpenBLAS,
  Qt) were repaired by auditwheel and stop loading when stripped ("ELF load command address/
  offset not page-aligned").
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DROP_PLUGINS = ("platforms/libqeglfs", "platforms/libqlinuxfb", "platforms/libqvnc",
                "platforms/libqvkkhrdisplay", "platforms/libqminimalegl", "egldeviceintegrations/",
                "generic/",
                # a compositor's buffer sharing and embedded shells, not a desktop client's
                "wayland-graphics-integration-client/libdmabuf-server",
                "wayland-graphics-integration-client/libdrm-egl-server",
                "wayland-graphics-integration-client/libshm-emulation-server",
                "wayland-graphics-integration-client/libvulkan-server",
                "wayland-shell-integration/libivi-shell", "wayland-shell-integration/libqt-shell",
                "wayland-shell-integration/libfullscreen-shell-v1",
                # GTK 3's theme: on a build machine with GTK it brought 12 MB of GTK's libraries
                # (see the docstring); the portal theme stays
                "platformthemes/libqgtk3")
# QtNetwork's library comes with PySide6's hooks, but nothing bundled links or loads it.
DROP_LIBS = ("libQt6EglFSDeviceIntegration", "libQt6EglFsKmsSupport", "libQt6EglFsKmsGbmSupport",
             "libQt6Network")

_STUB_C = """\
/* An empty ICU common-data package (format CmnD 1, no entries): see packaging/slim.py. */
#include <stdint.h>
struct empty_icu_data {
    uint16_t header_size; uint8_t magic1, magic2;                /* MappedData */
    uint16_t size, reserved_word;                                /* UDataInfo */
    uint8_t big_endian, charset_family, sizeof_uchar, reserved_byte;
    uint8_t data_format[4], format_version[4], data_version[4];
    uint8_t padding[8];                                          /* header to 32 bytes */
    uint32_t count, unused;                                      /* table of contents */
};
__attribute__((visibility("default"), aligned(16)))
const struct empty_icu_data icudt%(version)s_dat = {
    32, 0xda, 0x27, 20, 0,
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    1,
#else
    0,
#endif
    0, 2, 0, {'C', 'm', 'n', 'D'}, {1, 0, 0, 0}, {%(version)s, 0, 0, 0}, {0}, 0, 0,
};
"""


def _dest(entry) -> str:
    return str(entry[0]).replace("\\", "/")


#: Qt's own catalogs the bundle keeps: its dialogs in each language the interface speaks
QT_CATALOGS = tuple(f"/qtbase_{code}.qm" for code in ("ja",))


def keep_data(entry) -> bool:
    """Not Qt's translations (but its own texts in the app's languages), nor bytecode left in the
    source tree by a run of the checkout."""
    dest = f"/{_dest(entry)}"
    if "/Qt/translations/" in dest:
        return dest.endswith(QT_CATALOGS)
    return "/__pycache__/" not in dest


def keep_binary(entry) -> bool:
    dest = _dest(entry)
    if "/Qt/plugins/" in f"/{dest}":
        plugin = dest.split("Qt/plugins/", 1)[1]
        return not plugin.startswith(DROP_PLUGINS)
    return not Path(dest).name.startswith(DROP_LIBS)


def _system_library(source: str) -> bool:
    """A library the build machine's system provides (not a wheel's, not Python's own)."""
    path = Path(source).resolve()
    return (sys.platform.startswith("linux") and path.suffix != ".py" and ".so" in path.name
            and "site-packages" not in path.parts and not _python_own(source)
            and not path.name.startswith("libpython"))


def _ldd_imports(source: str) -> set[str]:
    """The libraries ``source`` loads (on Linux ldd's whole closure), resolved to paths."""
    from PyInstaller.depend.bindepend import get_imports  # only inside a PyInstaller build

    return {path for _, path in get_imports(source) if path}


def unlinked_system_libraries(binaries: list, imports=_ldd_imports) -> set[str]:
    """Destinations of the system libraries in ``binaries`` that no other entry links (directly
    or through others): carried only because a plugin that was left out needed them."""
    system = {str(Path(b[1]).resolve()): _dest(b) for b in binaries if _system_library(b[1])}
    reached: set[str] = set()
    todo = [str(Path(b[1]).resolve()) for b in binaries if not _system_library(b[1])]
    seen = set(todo)
    while todo:
        for path in map(lambda p: str(Path(p).resolve()), imports(todo.pop())):
            if path in system and path not in reached:
                reached.add(path)
            if path not in seen:
                seen.add(path)
                todo.append(path)
    return {dest for path, dest in system.items() if path not in reached}


def empty_icu_data(version: str, folder: Path) -> Path | None:
    """Compile the empty data library libicudata.so.<version>; None without a C compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    source = folder / "icudata_empty.c"
    source.write_text(_STUB_C % {"version": version})
    out = folder / f"libicudata.so.{version}"
    subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-s", f"-Wl,-soname,libicudata.so.{version}",
                    "-o", str(out), str(source)], check=True)
    return out


def _python_own(source: str) -> bool:
    path = Path(source).resolve()
    base = Path(sys.base_prefix).resolve()
    return path.is_relative_to(base) and "site-packages" not in path.parts


def stripped_copy(source: str, folder: Path) -> str:
    strip = shutil.which("strip")
    if strip is None or sys.platform in ("win32", "darwin"):
        return source
    out = folder / "stripped" / Path(source).name
    out.parent.mkdir(exist_ok=True)
    shutil.copy2(source, out)
    subprocess.run([strip, "--strip-unneeded", str(out)], check=True)
    return str(out)


def slim(binaries: list, datas: list, work: Path | None = None) -> tuple[list, list, list[str]]:
    """The bundle's binaries and data without what the app never loads; and notes for the log.
    The stripped copies are written under ``work`` (the build's work folder, cleaned with it),
    else in a new temporary folder."""
    notes = []
    kept = [b for b in binaries if keep_binary(b)]
    unlinked = unlinked_system_libraries(kept)
    kept = [b for b in kept if _dest(b) not in unlinked]
    if unlinked:
        notes.append(f"left out {len(unlinked)} system libraries nothing kept links: "
                     + ", ".join(sorted(Path(d).name for d in unlinked)))
    if work is not None:
        folder = Path(work) / "slim"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    else:
        folder = Path(tempfile.mkdtemp(prefix="roofline-slim-"))
    before = sum(Path(b[1]).stat().st_size for b in kept if Path(b[1]).is_file())
    for i, entry in enumerate(kept):
        if _python_own(entry[1]):
            kept[i] = entry = (entry[0], stripped_copy(entry[1], folder), *entry[2:])
        match = re.fullmatch(r"libicudata\.so\.(\d+)", Path(_dest(entry)).name)
        if not match:
            continue
        stub = empty_icu_data(match[1], folder)
        if stub is None:
            notes.append("no C compiler: ICU's data (31 MB) is kept")
            continue
        kept[i] = (entry[0], str(stub), *entry[2:])
        notes.append(f"ICU data {_dest(entry)} replaced by an empty package")
    after = sum(Path(b[1]).stat().st_size for b in kept if Path(b[1]).is_file())
    notes.append(f"left out {len(binaries) - len(kept)} binaries (plugins and what only they linked); "
                 f"Python's own stripped; binaries {before / 1e6:.0f} MB -> {after / 1e6:.0f} MB")
    data = [d for d in datas if keep_data(d)]
    notes.append(f"left out {len(datas) - len(data)} data files (Qt translations but "
                 f"{', '.join(c.strip('/') for c in QT_CATALOGS)})")
    return kept, data, notes
