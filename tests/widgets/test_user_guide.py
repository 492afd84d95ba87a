"""Help → User guide opens the guide shipped with the app, inside the app (no browser, no
network), and the guide ships in every install."""

import fnmatch
import re
import tomllib
from pathlib import Path

from roofline_gui.io.files import user_guide_path
from roofline_gui.widgets.common import guide_dialog

ROOT = Path(__file__).resolve().parents[2]


def headings(document) -> list[str]:
    block, found = document.begin(), []
    while block.isValid():
        if block.blockFormat().headingLevel():
            found.append(block.text())
        block = block.next()
    return found


def test_help_user_guide_opens_the_guide_with_its_headings(window, qtbot):
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    action = next(a for a in help_menu.actions() if a.text() == "&User guide")
    action.trigger()
    dialog = window.guide
    qtbot.waitExposed(dialog)
    assert not dialog.isModal()
    assert dialog.browser.isReadOnly()
    text = user_guide_path().read_text(encoding="utf-8")
    expected = re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE)
    assert headings(dialog.browser.document()) == expected
    assert "The Hardware panel" in expected and "Sessions" in expected
    action.trigger()  # again: the same window, not a second one
    assert window.guide is dialog


def test_a_missing_guide_says_where_it_should_be(qtbot, monkeypatch, tmp_path):
    missing = tmp_path / "user-guide.md"
    monkeypatch.setattr(guide_dialog, "user_guide_path", lambda: missing)
    dialog = guide_dialog.UserGuideDialog()
    qtbot.addWidget(dialog)
    assert headings(dialog.browser.document()) == ["User guide missing"]
    assert str(missing) in dialog.browser.toPlainText()


def test_every_resource_file_ships_in_the_package_data():
    """The wheel carries resources/ through setuptools' package-data patterns: a file no
    pattern names (the guide, say) would be missing from every pip install."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["roofline_gui.resources"]
    resources = ROOT / "resources"
    files = [p.relative_to(resources).as_posix() for p in resources.rglob("*")
             if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert user_guide_path().relative_to(resources).as_posix() in files
    assert [f for f in files if not any(fnmatch.fnmatch(f, p) for p in patterns)] == []


def test_the_guide_in_japanese_has_every_section_and_number_of_the_english():
    """In Japanese, Help → User guide shows user-guide.ja.md: the same sections in the same
    order (as many headings of each level) and exactly the English guide's numbers, so a
    reader of either reads the same figures; its menu paths are the Japanese menus' own."""
    from roofline_gui.io.translations import use_language

    english = user_guide_path("en").read_text(encoding="utf-8")
    path = user_guide_path("ja")
    assert path.name == "user-guide.ja.md"
    japanese = path.read_text(encoding="utf-8")
    level = re.compile(r"^(#+) ", flags=re.MULTILINE)
    assert level.findall(japanese) == level.findall(english)
    number = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
    assert sorted(number.findall(japanese)) == sorted(number.findall(english))
    try:
        use_language("ja")
        assert user_guide_path() == path
        assert guide_dialog.guide_markdown().startswith("# Roofline Explorer ユーザーガイド")
        from roofline_gui.core.i18n import _

        for menu in ("&File", "&Edit", "&View", "&Tools", "&Help", "&Overlay", "&Side by side",
                     "&Memory levels (a point per level)", "&Derive what-if chip…",
                     "Grid &carbon intensity…", "&Measure this computer…", "Export &PNG…"):
            words = _(menu).split("(&")[0]
            assert words in japanese, words
    finally:
        use_language("en")
    assert user_guide_path() == user_guide_path("en")
