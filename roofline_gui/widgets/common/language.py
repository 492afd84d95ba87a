"""The interface's language at start: ``--lang``, else View → Language's choice kept in the
settings, else the system's locale; the app's catalog (io.translations) and Qt's own for its
dialogs (``qtbase_<lang>.qm``, shipped with PySide6), and a font that can draw it.

The language is chosen once, before the window is built: View → Language keeps the choice for
the next start and says so (rebuilding every open view in place is not worth its risks).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import PySide6
from PySide6.QtCore import QCoreApplication, QLibraryInfo, QTranslator
from PySide6.QtGui import QFontDatabase

from roofline_gui.core import i18n
from roofline_gui.core.i18n import N_
from roofline_gui.io.translations import use_language

#: what to install where no font can draw the language (Debian and Ubuntu's package first)
FONT_PACKAGES = {"ja": "fonts-noto-cjk (Debian, Ubuntu), google-noto-sans-cjk-fonts (Fedora) "
                       "or Noto Sans CJK JP from fonts.google.com"}
_WRITING = {"ja": QFontDatabase.WritingSystem.Japanese}
_translators: list[QTranslator] = []  # kept alive while installed


def chosen_language(given: str | None, saved: str) -> str:
    """``given`` (the command line's) if any, else the saved choice, else the system locale's."""
    if given:
        return given if given in i18n.LANGUAGES else i18n.SOURCE_LANGUAGE
    if saved in i18n.LANGUAGES:
        return saved
    return i18n.language_from_locale(os.environ)


def can_draw(language: str) -> bool:
    """Whether an installed font has the language's glyphs (needs the application object)."""
    writing = _WRITING.get(language)
    return writing is None or bool(QFontDatabase.families(writing))


#: Qt's own texts that PySide6's qtbase catalogs lack (their source changed after the catalog
#: was made: Qt 6.11's file dialog says "&Look in:" and "Files of &type:"), by Qt's context;
#: translated through the app's catalog like its own texts
QT_GAPS: dict[tuple[str, str], str] = {
    ("QFileDialog", "&Look in:"): N_("&Look in:"),
    ("QFileDialog", "Files of &type:"): N_("Files of &type:"),
}


class QtGaps(QTranslator):
    """Qt's texts in :data:`QT_GAPS`, in the interface's language; every other text is left to
    Qt's own catalog (a null answer passes it on)."""

    def translate(self, context, source, disambiguation=None, n=-1) -> str | None:  # noqa: ARG002
        text = QT_GAPS.get((context, source))
        return i18n._(text) if text is not None else None  # None: not ours, ask Qt's

    def isEmpty(self) -> bool:  # noqa: N802 (Qt API)
        return False


def apply_language(language: str) -> tuple[str, str]:
    """Install ``language`` for the app's texts and Qt's dialogs; returns the language installed
    and a note for the user ("" if none). Without a font that draws it the interface stays in
    English (empty boxes help nobody) and the note, in English and the language, names the
    package to install."""
    app = QCoreApplication.instance()
    for translator in _translators:
        app.removeTranslator(translator)
    _translators.clear()
    note = ""
    if language != i18n.SOURCE_LANGUAGE and not can_draw(language):
        note = (f"No installed font can draw {i18n.LANGUAGES[language]} "
                f"({language}): install {FONT_PACKAGES.get(language, 'a font for it')}; the "
                "interface is in English until then.")
        language = i18n.SOURCE_LANGUAGE
    language = use_language(language)
    if language != i18n.SOURCE_LANGUAGE:
        folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
        beside = str(Path(PySide6.__file__).parent / "Qt" / "translations")  # in a bundle too
        translator = QTranslator(app)
        if translator.load(f"qtbase_{language}", folder) or translator.load(
                f"qtbase_{language}", beside):
            app.installTranslator(translator)
            _translators.append(translator)
            gaps = QtGaps(app)  # searched first: Qt's texts its catalog lacks, from ours
            app.installTranslator(gaps)
            _translators.append(gaps)
        else:  # the bundle or a trimmed Qt without it: Qt's dialogs in English, said
            print(f"roofline-explorer: Qt's own {language} texts (qtbase_{language}.qm) are not "
                  f"in {folder}: its file dialogs stay in English", file=sys.stderr)
    return language, note
