"""Reading JSON and writing files safely. Data only: no pickle, no eval, no code from files.

Every failure is a RooflineError whose message names the file and what is wrong, so callers
show it and keep the open document as it was.
"""

from __future__ import annotations

import importlib.resources
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from roofline_gui.core.errors import Problem, RooflineError, ValidationError
from roofline_gui.core.i18n import _
from roofline_gui.core.i18n import language as current_language

#: Larger files are refused before parsing: a session of 10,000 kernels is about 3 MB.
MAX_FILE_BYTES = 64 * 1024 * 1024


def resources_dir() -> Path:
    """The app's data folder (presets, examples, icons): the package ``roofline_gui.resources``
    through importlib.resources in any pip install (wheel, ``pip install .``, pipx, editable),
    the bundle's copy in a PyInstaller bundle, or the checkout's ``resources/`` when the package
    is run from a checkout without being installed. ``$ROOFLINE_RESOURCES`` overrides it."""
    override = os.environ.get("ROOFLINE_RESOURCES")
    if override:
        return Path(override)
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    try:
        installed = importlib.resources.files("roofline_gui.resources")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "resources"
    if not isinstance(installed, Path):  # e.g. a zip import: the app reads plain files
        raise RooflineError(_("the app's data must be unpacked on disk, not in {place}").format(
            place=installed))
    return installed


def user_guide_path(language: str | None = None) -> Path:
    """The user guide (Markdown), shipped with the app's data; Help → User guide shows it: in
    the interface's language (``user-guide.ja.md``) where there is one, else in English."""
    guide = resources_dir() / "guide"
    own = guide / f"user-guide.{language or current_language()}.md"
    return own if own.is_file() else guide / "user-guide.md"


def data_dir() -> Path:
    """Where the app keeps the user's data (crash journals, user presets):
    ``$ROOFLINE_DATA_DIR``, else the platform's per-user application-data folder."""
    override = os.environ.get("ROOFLINE_DATA_DIR")
    if override:
        return Path(override)
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", Path.home())) / "Roofline Explorer"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "Roofline Explorer"
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "roofline-explorer"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed (numbers must be finite)")


def read_json(path: str | os.PathLike) -> Any:
    """Parse a JSON file; raise ValidationError naming the line and column of a syntax error."""
    p = Path(path)
    try:
        if p.is_dir():
            raise RooflineError(_("{path}: is a folder, not a file").format(path=p))
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise RooflineError(_("{path}: {size} MB is larger than the 64 MB limit").format(
                path=p, size=f"{size / 1e6:.0f}"))
        raw = p.read_bytes()
    except OSError as exc:
        raise RooflineError(_("{path}: cannot read ({why})").format(
            path=p, why=exc.strerror or exc)) from None
    return parse_json_bytes(raw, str(p))


def parse_json_bytes(raw: bytes, source: str) -> Any:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValidationError(
            [Problem("", _("not UTF-8 text (byte {at} is 0x{value})").format(
                at=exc.start, value=f"{raw[exc.start]:02x}"))], source
        ) from None
    try:
        return loads_in_pieces(text, json.JSONDecoder(parse_constant=_reject_constant))
    except json.JSONDecodeError as exc:
        raise ValidationError([json_problem(exc)], source) from None
    except ValueError as exc:
        raise ValidationError([Problem("", str(exc))], source) from None
    except RecursionError:
        raise ValidationError([Problem("", _("nested too deeply to be a session"))], source) from None


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: temp file in the same folder, fsync, replace.

    The temp file is read back and compared before it replaces the target, so a write that
    the disk silently mangled never replaces a good file. On any failure the old file is left
    untouched and the temp file is removed.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise RooflineError(_("{path}: cannot write in {folder} ({why})").format(
            path=target, folder=folder, why=exc.strerror or exc)) from None
    try:
        os.chmod(tmp, _mode_for(target))
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if Path(tmp).read_bytes() != data:
            raise OSError(5, "the written file does not read back as written")
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise RooflineError(_("{path}: cannot write ({why})").format(
            path=target, why=exc.strerror or exc)) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _mode_for(target: Path) -> int:
    """Keep an existing file's permissions; a new file gets the usual 0666 minus the umask."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


_SPACE = re.compile(r"[ \t\n\r]*")


def json_problem(exc: json.JSONDecodeError) -> Problem:
    """The problem a JSON error is, by line and column. A trailing comma, the commonest slip in
    a hand-edited file, is named as such at the comma on every Python (3.13's json says so
    itself; older ones say "Expecting value" or "Expecting property name" after it)."""
    text, pos = exc.doc, exc.pos
    before = len(text[:pos].rstrip(" \t\n\r")) - 1
    comma = pos if text.startswith(",", pos) else before if text.startswith(",", before) else -1
    if comma >= 0:
        after = _SPACE.match(text, comma + 1).end()
        if text.startswith(("}", "]"), after):
            line = text.count("\n", 0, comma) + 1
            column = comma - text.rfind("\n", 0, comma)
            closing = "object" if text[after] == "}" else "array"
            return Problem(_("line {line}, column {column}").format(line=line, column=column),
                           (_("not valid JSON: a trailing comma before the end of an object; "
                              "remove the comma") if closing == "object" else
                            _("not valid JSON: a trailing comma before the end of an array; "
                              "remove the comma")))
    if not text[pos:].strip():  # the text ends where more was expected: a file cut short
        # ("Expecting ',' delimiter" did not say so: the nineteenth tour), or empty
        return Problem(_("line {line}, column {column}").format(line=exc.lineno, column=exc.colno),
                       _("not valid JSON: the file is empty") if not text.strip() else
                       _("not valid JSON: the file ends before its last object or array is "
                         "closed (cut short?)"))
    return Problem(_("line {line}, column {column}").format(line=exc.lineno, column=exc.colno),
                   _("not valid JSON: {why}").format(why=exc.msg))


def _trailing_comma_message(text: str) -> str | None:
    """What the running json module says about this trailing comma, if it names it (3.13+)."""
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return exc.msg if "trailing comma" in exc.msg else None
    return None


# json.loads' own messages for a trailing comma, so loads_in_pieces fails as it does.
_TRAILING_COMMA = {"}": _trailing_comma_message('{"a": 1,}'), "]": _trailing_comma_message("[1,]")}


def _check_trailing_comma(text: str, comma: int, after: int, closing: str) -> None:
    if _TRAILING_COMMA[closing] and text.startswith(closing, after):
        raise json.JSONDecodeError(_TRAILING_COMMA[closing], text, comma)


def loads_in_pieces(text: str, decoder: json.JSONDecoder) -> Any:
    """``decoder.decode(text)``, with the same result and the same errors, but a top-level
    object is decoded a member at a time and a member that is an array an element at a time.

    ``json.loads`` is one C call that holds the GIL throughout (tens of ms for a 4 MB session
    of 10,000 kernels: docs/performance.md), during which the window's thread cannot run while
    a worker reads the file. Decoding each kernel on its own lets the interpreter switch threads in between.
    """
    idx = _SPACE.match(text).end()
    if not text.startswith("{", idx):
        return decoder.decode(text)
    obj: dict[str, Any] = {}
    idx = _SPACE.match(text, idx + 1).end()
    if text.startswith("}", idx):
        idx += 1
    else:
        while True:
            if not text.startswith('"', idx):
                raise json.JSONDecodeError(
                    "Expecting property name enclosed in double quotes", text, idx)
            key, idx = decoder.raw_decode(text, idx)
            idx = _SPACE.match(text, idx).end()
            if not text.startswith(":", idx):
                raise json.JSONDecodeError("Expecting ':' delimiter", text, idx)
            idx = _SPACE.match(text, idx + 1).end()
            obj[key], idx = _value_in_pieces(text, idx, decoder)
            idx = _SPACE.match(text, idx).end()
            if text.startswith(",", idx):
                comma, idx = idx, _SPACE.match(text, idx + 1).end()
                _check_trailing_comma(text, comma, idx, "}")
                continue
            if text.startswith("}", idx):
                idx += 1
                break
            raise json.JSONDecodeError("Expecting ',' delimiter", text, idx)
    end = _SPACE.match(text, idx).end()
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return obj


def _value_in_pieces(text: str, idx: int, decoder: json.JSONDecoder) -> tuple[Any, int]:
    if not text.startswith("[", idx):
        return decoder.raw_decode(text, idx)
    items: list[Any] = []
    idx = _SPACE.match(text, idx + 1).end()
    if text.startswith("]", idx):
        return items, idx + 1
    while True:
        item, idx = decoder.raw_decode(text, idx)
        items.append(item)
        idx = _SPACE.match(text, idx).end()
        if text.startswith(",", idx):
            comma, idx = idx, _SPACE.match(text, idx + 1).end()
            _check_trailing_comma(text, comma, idx, "]")
            continue
        if text.startswith("]", idx):
            return items, idx + 1
        raise json.JSONDecodeError("Expecting ',' delimiter", text, idx)


def dumps(data: Any) -> bytes:
    return (json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False) + "\n").encode()
