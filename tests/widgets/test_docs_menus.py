"""Every menu path the README, the docs, the user guide and the app's own messages name ("File → Import",
"View → Side by side") exists in the main window's menus, so a reader finds what the text sends
them to."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "resources/guide/user-guide.md"]
SOURCES = sorted((ROOT / "roofline_gui").rglob("*.py"))
# Arrows that are not paths in this app's menus (the Windows settings app, in packaging.md).
NOT_OURS = {"Settings → Default apps"}
PATH_START = re.compile(r"(?<![\w`])(?<!→ )([A-Z][a-z]+) → ")  # not a path's second step


def menu_paths(text: str) -> list[str]:
    """Each "Word → ..." in ``text`` (lines joined, and Python's adjacent string literals), from
    the word on."""
    flat = re.sub(r"\s*\n\s*", " ", re.sub(r'"\s*\n\s*f?"', "", text))
    return [flat[m.start():m.start() + 120] for m in PATH_START.finditer(flat)]


def entries(actions) -> dict:
    """Menu entries by their text as read (no & and no trailing …), with their submenus."""
    return {a.text().replace("&", "").rstrip("…"): a.menu() for a in actions
            if not a.isSeparator() and a.text()}


def matched(name: str, rest: str) -> str:
    """The longest run of whole words ``rest`` starts with from ``name`` (the docs may shorten
    "Measure this computer…" to "Measure"), or ""."""
    words = name.split(" ")
    for k in range(len(words), 0, -1):
        prefix = " ".join(words[:k])
        if rest.startswith(prefix) and (len(rest) == len(prefix) or not rest[len(prefix)].isalnum()):
            return prefix
    return ""


def problem(menus: dict, rest: str) -> str:
    """"" when ``rest`` (what follows "File → ") walks through ``menus``, else what is missing."""
    while True:
        best = max((matched(n, rest) for n in menus), key=len)
        if not best:
            return f"no {rest[:30]!r}"
        submenu = next(m for n, m in menus.items() if matched(n, rest) == best)
        rest = rest[len(best):].removeprefix("…")
        if not rest.startswith(" → "):
            return ""
        if submenu is None:
            return f"{best!r} has no submenu"
        submenu.aboutToShow.emit()  # as when opened (Help → Examples is filled then)
        menus, rest = entries(submenu.actions()), rest.removeprefix(" → ")


def wrong_paths(window, files) -> list[str]:
    top = {name: entries(menu.actions()) for name, menu in entries(window.menuBar().actions()).items()}
    wrong = []
    for file in files:
        for path in menu_paths(file.read_text(encoding="utf-8")):
            if any(path.startswith(p) for p in NOT_OURS):
                continue
            first, _, rest = path.partition(" → ")
            why = problem(top[first], rest) if first in top else f"{first!r} is not a menu"
            if why:
                wrong.append(f"{file.name}: {path[:60]!r}: {why}")
    return wrong


def test_the_menu_paths_the_docs_name_exist(window):
    assert not wrong_paths(window, DOCS)


def test_the_menu_paths_the_apps_messages_name_exist(window):
    assert not wrong_paths(window, SOURCES)


def test_a_panel_named_as_a_menu_is_found(window, tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("Hardware → Add… and File → Import → Chips from a file, but View → Side by\n"
                   "side and Tools → Measure are there.", encoding="utf-8")
    wrong = wrong_paths(window, [doc])
    assert len(wrong) == 2
    assert wrong[0].endswith("'Hardware' is not a menu")
    assert "no 'Chips from a file" in wrong[1]
