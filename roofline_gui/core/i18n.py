"""The app's own texts in the user's language: gettext's convention, one mechanism for the
Qt-free core and the window alike (docs/translating.md).

A text to translate is a whole sentence (or a whole label) marked with ``_``, its numbers and
names filled in afterwards through named placeholders, so a translation can put them in its own
word order::

    _("{chip} leads {other} by {share}").format(chip=..., other=..., share=...)

never a sentence glued from fragments. ``N_`` marks a text for extraction where it is defined
(a table of labels at module level, read before any language is chosen) and leaves it as it is;
``_`` translates it where it is shown. Extraction: ``pybabel extract -k N_`` (Babel finds
``_`` itself); the catalogs are ``resources/locale/<lang>/LC_MESSAGES/roofline_gui.po``, read
by ``io.translations`` and installed here.

Session files, CSV headers, command-line options and the Python API never pass through here:
they stay the same in every language.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: the languages the app speaks, by code, with each one's own name (the Language menu's)
LANGUAGES: dict[str, str] = {"en": "English", "ja": "日本語"}
SOURCE_LANGUAGE = "en"

#: source text -> translation; a plural message's singular -> its forms (Japanese has one)
_catalog: Mapping[str, str | tuple[str, ...]] = {}
_language = SOURCE_LANGUAGE


def _(message: str) -> str:
    """``message`` in the installed language (itself where the catalog has no translation)."""
    if not _catalog:
        return message
    text = _catalog.get(message, message)
    return text if isinstance(text, str) else text[0]


def ngettext(singular: str, plural: str, n: int) -> str:
    """The message for ``n`` things: "{n} chip" or "{n} chips" in English; the language's own
    form elsewhere (Japanese has one form for every number). Fill ``{n}`` after."""
    forms = _catalog.get(singular) if _catalog else None
    if isinstance(forms, tuple) and forms:
        return forms[min(_plural_index(n), len(forms) - 1)]
    return singular if n == 1 else plural


def _plural_index(n: int) -> int:
    """gettext's plural form of ``n`` in the installed language (Plural-Forms)."""
    return 0 if _language == "ja" else int(n != 1)


def N_(message: str) -> str:  # noqa: N802 (gettext's name)
    """Mark ``message`` for extraction without translating it (``_`` translates it later)."""
    return message


#: how a list and a run of clauses are joined, and a sentence ended, in the interface's
#: language (Japanese joins with 、 and 。: "; " and "." glued in by code read as English)
LIST_SEPARATOR, CLAUSE_SEPARATOR, FULL_STOP = N_(", "), N_("; "), N_(".")


def listed(items) -> str:
    """``items`` as a list in a sentence: "a, b, c" (Japanese "a、b、c"); joined as clauses,
    "a; b, c; d", where an item holds the list's own mark (a what-if chip "A100 SXM4 40GB, HBM2
    ×2" read as two chips in "A100 SXM4 40GB, A100 SXM4 40GB, HBM2 ×2, TPU v1": the 40th
    tour)."""
    items = [str(i) for i in items]
    sep = _(LIST_SEPARATOR)
    mark = sep.strip()
    if mark and any(mark in i for i in items):
        sep = _(CLAUSE_SEPARATOR)
    return sep.join(items)


def clauses(items) -> str:
    """``items`` as clauses of one sentence: "a; b" (Japanese "a。b")."""
    return _(CLAUSE_SEPARATOR).join(items)


def full_stop() -> str:
    """The end of a sentence: "." (Japanese "。")."""
    return _(FULL_STOP)


_JAPANESE = "[\u3040-\u30ff\u4e00-\u9fff、。「」（）]"
_STRAY_SPACE = re.compile(f"(?<={_JAPANESE}) (?={_JAPANESE})")
#: a space before a full-width bracket or after 。 and 、 ("0.641 pJ （推定値）", "。 EPYC")
_NO_SPACE_AROUND = re.compile("(?<=\\S) (?=（)|(?<=[。、]) (?=\\S)")
#: a colour's name before the part it keys ("青 順伝播"): the space stays
_COLOURS = ("青", "橙", "紫", "緑", "灰", "薄灰", "赤", "黄")


def tidy(text: str) -> str:
    """``text`` as the interface's language writes it: in Japanese no space between two
    Japanese words where a filled-in placeholder left one ("8 チップ で" → "8 チップで"), except
    after a menu path ("表示 → メモリ階層 で") or a colour's name, and none before a full-width
    bracket or after 。 and 、; as it is in English."""
    if _language != "ja" or " " not in text:
        return text
    text = _NO_SPACE_AROUND.sub("", text)
    out, last = [], 0
    for match in _STRAY_SPACE.finditer(text):
        before = text[max(0, match.start() - 25):match.start()]
        arrow = before.rfind("→")
        if arrow >= 0 and not re.search("[、。（）「」:：]", before[arrow:]):
            continue
        if re.split("[、。（）「」:： ]", before)[-1] in _COLOURS:
            continue
        out.append(text[last:match.start()])
        last = match.end()
    out.append(text[last:])
    return "".join(out)


def install(language: str, catalog: Mapping[str, str | tuple[str, ...]]) -> None:
    """Speak ``language`` from now on, with ``catalog`` (source text -> translation)."""
    global _catalog, _language
    _language = language if language in LANGUAGES else SOURCE_LANGUAGE
    _catalog = dict(catalog) if _language != SOURCE_LANGUAGE else {}


def language() -> str:
    """The installed language's code ("en" until another is installed)."""
    return _language


def language_from_locale(names: Mapping[str, str]) -> str:
    """The language a POSIX locale asks for, from environment variables as ``os.environ`` holds
    them (LANGUAGE's list first, then LC_ALL, LC_MESSAGES, LANG): "ja" for ``ja_JP.UTF-8``,
    "en" for a language the app does not speak."""
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = names.get(key, "")
        for name in value.split(":") if key == "LANGUAGE" else [value]:
            code = name.split(".")[0].split("@")[0].split("_")[0].lower()
            if code in LANGUAGES:
                return code
            if code and code not in ("c", "posix") and key != "LANGUAGE":
                return SOURCE_LANGUAGE  # a locale the app does not speak: English
    return SOURCE_LANGUAGE
