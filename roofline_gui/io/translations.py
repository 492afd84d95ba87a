"""The translation catalogs: ``resources/locale/<lang>/LC_MESSAGES/roofline_gui.po``, read as
they are written (no compiled ``.mo`` to keep in step with them: a catalog of a few thousand
messages reads in a few milliseconds), and installed into ``core.i18n``.

The ``.po`` files are gettext's own, written and updated with Babel (docs/translating.md). A
fuzzy (unchecked) or empty translation is left out, so the English text shows instead of a
guess; the tests fail on either before a release.
"""

from __future__ import annotations

import os
from pathlib import Path

from roofline_gui.core import i18n
from roofline_gui.io.files import resources_dir

DOMAIN = "roofline_gui"

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}


def catalog_path(language: str) -> Path:
    return resources_dir() / "locale" / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def _unquote(text: str) -> str:
    """A .po string's contents: ``"a\\"b"`` -> ``a"b``."""
    body, out, i = text.strip()[1:-1], [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def read_po(path: str | os.PathLike) -> dict[str, str | tuple[str, ...]]:
    """{source text: translation} of a .po file (its entries apart by blank lines, as Babel
    and msgmerge write them): the finished messages, not fuzzy, not empty, not obsolete; the
    header entry (msgid "") left out. A plural message maps its singular to its forms."""
    messages: dict[str, str | tuple[str, ...]] = {}
    with open(path, encoding="utf-8") as f:
        blocks = f.read().split("\n\n")
    for block in blocks:
        parts: dict[str, list[str]] = {}
        target: list[str] | None = None
        fuzzy = False
        for line in block.splitlines():
            line = line.strip()
            if line.startswith("#,"):
                fuzzy = fuzzy or "fuzzy" in line
            elif line.startswith("#"):
                continue  # comments; obsolete entries (#~) have no msgid line of their own
            elif line.startswith(("msgid ", "msgid_plural ", "msgstr ", "msgstr[", "msgctxt ")):
                key, _space, rest = line.partition(" ")
                target = parts.setdefault(key, [])
                target.append(_unquote(rest))
            elif line.startswith('"') and target is not None:
                target.append(_unquote(line))
        source = "".join(parts.get("msgid", ()))
        if "msgid_plural" in parts:
            forms = tuple("".join(parts[key]) for key in sorted(
                (k for k in parts if k.startswith("msgstr[")), key=lambda k: int(k[7:-1])))
            if source and forms and all(forms) and not fuzzy:
                messages[source] = forms
            continue
        text = "".join(parts.get("msgstr", ()))
        if source and text and not fuzzy:
            messages[source] = text
    return messages


def use_language(language: str) -> str:
    """Install ``language`` ("en", "ja"; anything else: English) with its catalog; returns the
    language installed."""
    if language == i18n.SOURCE_LANGUAGE or language not in i18n.LANGUAGES:
        i18n.install(i18n.SOURCE_LANGUAGE, {})
        return i18n.SOURCE_LANGUAGE
    path = catalog_path(language)
    if not path.is_file():
        i18n.install(i18n.SOURCE_LANGUAGE, {})
        return i18n.SOURCE_LANGUAGE
    i18n.install(language, read_po(path))
    return language


def translated(language: str, message: str) -> str:
    """``message`` in ``language`` whatever language is installed (a note said in the language
    the user is switching to); itself where that catalog has no translation."""
    if language == i18n.SOURCE_LANGUAGE or not catalog_path(language).is_file():
        return message
    return read_po(catalog_path(language)).get(message, message)
