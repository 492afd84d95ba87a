"""The window in Japanese: its menus, docks, tabs, toolbar, buttons and labels speak Japanese
(numbers, units, precisions and chip names stay as they are); View → Language keeps the choice
for the next start and says so; without a font that draws Japanese the window stays English
and names the package. The language is installed before the window is built, as at start."""

from __future__ import annotations

import re

import pytest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDockWidget,
    QGroupBox,
    QLabel,
    QMenu,
    QMessageBox,
    QTabBar,
)

from roofline_gui.core import i18n
from roofline_gui.core.units import PRECISIONS
from roofline_gui.io.translations import use_language

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]")
#: words that stay as they are in a Japanese interface: formats, units, model and link names
NEUTRAL = {"TPOT", "TTFT", "ZeRO", "NVLink", "PCIe", "Roofline", "Explorer", "CSV", "PNG", "SVG",
           "PDF", "config", "json", "Nsight", "Compute", "MACs", "MAC", "HBM", "HBM2", "HBM3",
           "HBM3e", "DRAM", "SRAM", "Infinity", "Fabric", "Cache", "none", "Transformer"}


def _english_words(text: str, names: set[str]) -> list[str]:
    """The English words of ``text`` that are not names (chips, kernels, precisions, units)."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    text = re.sub(r"<[^>]+>", " ", text).replace("&", "")
    return [w for w in re.findall(r"[A-Za-z]{3,}", text)
            if w not in NEUTRAL and not re.fullmatch(r"(fp|bf|int|tf)\d+|[A-Z]+\d*|op|ops", w)]


@pytest.fixture
def window_ja(qtbot, settings, model):
    from roofline_gui.widgets.app.main_window import MainWindow

    use_language("ja")
    try:
        w = MainWindow(settings=settings, model=model)
        w.resize(1280, 800)
        w.show()
        qtbot.waitExposed(w)
        for name in ("kernels", "workloads", "breakdown", "design", "energy", "serving"):
            w.docks[name].raise_()  # each panel built, as a user opening its tab builds it
            QApplication.processEvents()
        w.docks["hardware"].raise_()
        w.docks["table"].raise_()
        yield w
        w.model.undo_stack.setClean()
        w.close()
        w.deleteLater()
    finally:
        use_language("en")


def _names(window) -> set[str]:
    doc = window.model.document
    sources = {t for c in doc.chips for t in (*c.compute_sources.values(),
                                               *(level.source for level in c.memory)) if t}
    # the datasheet's words are the session's, not the app's: shown as they were written
    sources |= {t.split(" [")[0] for t in sources}
    sources |= {t[:80] for t in sources}  # as a label shortens them
    return ({c.name for c in doc.chips} | {k.name for k in doc.kernels}
            | {w.name for w in doc.workloads} | set(PRECISIONS) | sources
            | {level.name for c in doc.chips for level in c.memory} | {c.vendor for c in doc.chips})


def test_menus_docks_tabs_and_the_toolbar_speak_japanese(window_ja):
    assert i18n.language() == "ja"
    names = _names(window_ja)
    texts = []
    for menu in window_ja.menuBar().findChildren(QMenu):
        menu.aboutToShow.emit()  # the examples and recent files are filled when opened
        texts += [(f"menu {menu.title()!r}", a.text()) for a in menu.actions()
                  if a.text() and not a.isSeparator()]
        texts.append(("menu", menu.title()))
    texts += [("dock", d.windowTitle()) for d in window_ja.findChildren(QDockWidget)]
    texts += [("tab", bar.tabText(i)) for bar in window_ja.findChildren(QTabBar)
              for i in range(bar.count())]
    recent = {a.text() for m in window_ja.menuBar().findChildren(QMenu)
              if m.title() == "最近使ったファイル(&R)" for a in m.actions()}
    left = [f"{where}: {text!r}" for where, text in texts
            if text not in recent and text not in i18n.LANGUAGES.values()
            and not JAPANESE.search(text) and _english_words(text, names)]
    assert not left, "\n".join(left)


@pytest.mark.parametrize("selected", ["kernel", "workload"])
def test_buttons_and_labels_speak_japanese(window_ja, selected):
    """Every dock in front in turn, with a kernel and then a workload selected."""
    from roofline_gui.io.workloads import shipped_workloads

    model = window_ja.model
    if selected == "workload":
        wid, = model.add_workloads([shipped_workloads()["llama-3-8b"].workload("w1")])
        model.select(wid, model.document.chips[0].id)
    names = _names(window_ja)
    left = set()
    for name in window_ja.docks:
        window_ja.docks[name].raise_()
        for _i in range(3):
            QApplication.processEvents()
        for widget in (*window_ja.findChildren(QAbstractButton), *window_ja.findChildren(QLabel),
                       *window_ja.findChildren(QGroupBox)):
            if not widget.isVisible():  # on screen now (a dock behind another's tab is not)
                continue
            text = widget.title() if isinstance(widget, QGroupBox) else widget.text()
            if text and not JAPANESE.search(text) and _english_words(text, names):
                left.add(f"{type(widget).__name__}: {text[:300]!r}")
    assert not left, "\n".join(sorted(left))


def test_view_language_keeps_the_choice_for_the_next_start(window_ja):
    window_ja.language_actions["en"].trigger()
    assert window_ja.settings.get("language") == "en"
    said = window_ja.language_note.text()
    assert "English" in said and "次回" in said and "next start" in said
    # B/F never set follows the language: the switch says so, in both languages
    assert "op/B, not B/F" in said and "B/F" in said[:said.index("The interface")]
    # the status bar has the first sentence alone: the two languages ran past its edge
    assert window_ja.statusBar().currentMessage().count("。") + \
        window_ja.statusBar().currentMessage().count(". ") <= 1
    window_ja.language_actions["ja"].trigger()  # back: nothing to say, the box replaced
    window_ja.language_actions["en"].trigger()
    assert len([b for b in window_ja.findChildren(QMessageBox) if b.isVisible()]) == 1


def test_switching_to_japanese_says_intensity_will_read_as_b_per_f_unless_it_was_chosen(window):
    window.language_actions["ja"].trigger()
    said = window.language_note.text()
    assert "Japanese" in said and "as B/F (bytes per op)" in said and "B/F" in said
    window.language_actions["en"].trigger()  # back: nothing to say (this language)
    window.model.set_view(bytes_per_op=False)
    window.settings.set("view/bytes_per_op", False)  # the user's own choice: kept, unsaid
    window.language_actions["ja"].trigger()
    assert "bytes per op" not in window.statusBar().currentMessage()


def test_without_a_font_for_japanese_the_window_stays_english_and_says_why(monkeypatch):
    from roofline_gui.widgets.common import language

    monkeypatch.setattr(language, "can_draw", lambda code: False)
    try:
        installed, note = language.apply_language("ja")
        assert installed == "en" and i18n.language() == "en"
        assert "fonts-noto-cjk" in note and "日本語" in note
    finally:
        use_language("en")


def test_qt_dialogs_speak_japanese_with_the_interface(monkeypatch, qapp):
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QFileDialog, QLabel

    from roofline_gui.widgets.common import language

    monkeypatch.setattr(language, "can_draw", lambda code: True)
    try:
        assert language.apply_language("ja")[0] == "ja"
        assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "キャンセル"
        # Qt's own file dialog (the one used where no native dialog is): every label Japanese,
        # those PySide6's qtbase_ja.qm lacks ("&Look in:", "Files of &type:") included
        dialog = QFileDialog(None, "x")
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        labels = [label.text() for label in dialog.findChildren(QLabel) if label.text()]
        assert len(labels) == 3 and not [t for t in labels if re.search("[A-Za-z]{3}", t)], labels
        dialog.deleteLater()
    finally:
        language.apply_language("en")
    assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Cancel"
    assert QCoreApplication.translate("QFileDialog", "&Look in:") == "&Look in:"


def test_the_language_is_chosen_by_the_command_line_then_the_settings_then_the_locale(monkeypatch):
    from roofline_gui.widgets.common.language import chosen_language

    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.delenv("LANGUAGE", raising=False)
    assert chosen_language(None, "") == "ja"
    assert chosen_language(None, "en") == "en"
    assert chosen_language("ja", "en") == "ja"
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert chosen_language(None, "") == "en"


def test_the_table_headers_and_the_charts_titles_speak_japanese(window_ja):
    from PySide6.QtCore import Qt

    names = _names(window_ja)
    table = window_ja.table.table_model
    headers = [table.headerData(c, Qt.Orientation.Horizontal) for c in range(table.columnCount())]
    left = [h for h in headers if h and not JAPANESE.search(h) and _english_words(h, names)]
    assert not left, left
    plot = window_ja.canvas.plots[0].plot
    for side in ("left", "bottom"):
        assert JAPANESE.search(plot.getAxis(side).labelText), plot.getAxis(side).labelText
    legend = [e[0] for e in window_ja.canvas.plots[0].legend.legend.entries]
    left = [e for e in legend if not JAPANESE.search(e) and _english_words(e, names)]
    assert not left, left


def _bare(text: str) -> str:
    """A Japanese menu entry as a text names it: no (&F), no …, no parenthesised gloss."""
    text = re.sub(r"\(&.\)", "", text).replace("&", "")
    return re.split(r"[（(]", text)[0].rstrip("…").strip()


def test_the_menu_paths_the_japanese_texts_name_exist(window_ja):
    """"表示 → 同じビット幅の精度で代替" must be an entry of the Japanese View menu, as the English
    texts' paths are checked against the English menus (test_docs_menus)."""
    from roofline_gui.io.translations import catalog_path, read_po

    menus = {_bare(a.text()): a.menu() for a in window_ja.menuBar().actions() if a.menu()}
    wrong, checked = [], 0
    for text in read_po(catalog_path("ja")).values():
        for translated in (text if isinstance(text, tuple) else (text,)):
            for m in re.finditer(r"([\u3040-\u30ff\u4e00-\u9fffA-Za-z]+) → ([^\s、。）)」:]+)",
                                 translated):
                top, rest = m.group(1), m.group(2)
                if top not in menus:
                    continue  # not a menu path ("演算強度 → 性能")
                checked += 1
                menu = menus[top]
                menu.aboutToShow.emit()
                names = [_bare(a.text()) for a in menu.actions() if a.text()]
                if not any(n and (rest.startswith(n) or n.startswith(rest)) for n in names):
                    wrong.append(f"{top} → {rest}: not among {names}")
    assert checked >= 10 and not wrong, "\n".join(sorted(set(wrong)))


def test_no_kernel_name_runs_under_the_legend(window_ja, qtbot):
    """The Japanese legend is wider than the English and took its size after the labels had
    kept off its old box: a kernel's name ran under it (the CPU example, the tour). Every
    label keeps off the legend as drawn."""
    from roofline_gui.core.chart_labels import label_box
    from roofline_gui.core.display import boxes_overlap
    from roofline_gui.widgets.app.file_actions import example_named

    window_ja.resize(1280, 781)  # maximised on a laptop's screen, where the tour saw it
    for stem in ("williams-cpus", "a100-vs-tpu-v3", "the-article-claim-by-claim"):
        window_ja.model.undo_stack.setClean()
        assert window_ja.files.open_example(example_named(stem))
        for _ in range(5):
            QApplication.processEvents()
        plot = window_ja.canvas.overlay_plot
        g = plot.label_geometry()
        assert g.avoid or plot.legend.outside, stem  # the legend is shown (in the view or below it)
        for label in (*plot.names.labels, *plot.roof_labels.labels):
            if label.along is None:
                assert not any(boxes_overlap(label_box(label, g), box) for box in g.avoid), (
                    stem, label.text)


def test_every_long_tooltip_is_shown_wrapped_even_when_set_later(window_ja):
    """The twenty-fifth tour: the "Chips joined by" tooltip ran in one line as wide as the
    screen in Japanese. The window's sweep at build time missed tooltips set later (a workload's
    precision, the breakdown's bars) and widgets made later (a chip's source labels): every
    widget's long plain tooltip is shown wrapped (as rich text, which Qt wraps)."""
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent, Qt
    from PySide6.QtWidgets import QToolTip, QWidget

    from roofline_gui.widgets.app.file_actions import example_named
    from roofline_gui.widgets.common.application import TIP_WRAP

    checked, unwrapped = 0, []
    for example in ("training-fp32-against-bf16", "llama-3-8b-on-three-chips"):
        window_ja.model.undo_stack.setClean()
        assert window_ja.files.open_example(example_named(example))
        for name in ("hardware", "workloads", "breakdown", "energy", "serving", "table"):
            window_ja.docks[name].raise_()
            QApplication.processEvents()
            for widget in window_ja.findChildren(QWidget):
                tip = widget.toolTip()
                if len(tip) <= TIP_WRAP or Qt.mightBeRichText(tip) or not widget.isVisible():
                    continue
                QToolTip.hideText()
                QApplication.sendEvent(widget, QHelpEvent(QEvent.Type.ToolTip, QPoint(2, 2),
                                                          widget.mapToGlobal(QPoint(2, 2))))
                checked += 1
                if QToolTip.text() == tip:  # shown as set: plain, in one line
                    unwrapped.append((type(widget).__name__, tip[:40]))
    QToolTip.hideText()
    assert checked > 20 and not unwrapped, unwrapped


def test_the_charts_line_tooltips_speak_japanese_sources_and_all(window_ja):
    """The roofs', ridges' and levels' tooltips were translated, but the provenance in them
    ("datasheet: …", "derated: 92% of the datasheet value (…)") stayed English. Every line's
    tooltip on the article's chart, derated and not, has no English words but names and the
    datasheets' own words."""
    from roofline_gui.widgets.app.file_actions import example_named

    assert window_ja.files.open_example(example_named("the-article-claim-by-claim"))
    names = _names(window_ja)
    sources = sorted((t for t in names if len(t) > 40), key=len, reverse=True)

    def shown(source: str, tip: str) -> int:  # how much of its start the tooltip shows
        n = len(source)
        while n >= 12 and source[:n] not in tip:
            n -= 1
        return n

    def without_sources(tip: str) -> str:  # the datasheets' words, however the tooltip cuts them
        while True:  # the longest shown first: sources may begin alike
            n, source = max((shown(source, tip), source) for source in sources)
            if n < 12:
                return tip
            tip = tip.replace(source[:n], " ")

    english, seen = [], 0
    for derated in (False, True):
        window_ja.model.set_derated(derated)
        QApplication.processEvents()
        layer = window_ja.canvas.overlay_plot.roofs.item
        for tip in [t for line in layer.lines for t in (line.tip, line.slope_tip)] + [
                dot.tip for dot in layer.dots]:
            if not tip:
                continue
            seen += 1
            english += [(w, tip) for w in _english_words(
                without_sources(tip).replace("what-if", ""), names)
                        if not re.fullmatch(r"[kMGTP]op", w)]  # op/s with its prefix
    assert seen > 10 and not english, english[:5]


def test_the_png_width_dialog_is_wide_enough_for_its_title(window_ja):
    """Its title whole beside a window manager's buttons: narrower, openbox cut it to "PNG を…ポ
    ート" (the 33rd tour). The width asked is the one returned."""
    from PySide6.QtCore import QTimer

    from roofline_gui.widgets.app.file_actions import FileDialogs

    seen = {}

    def answer():
        dialog = QApplication.activeModalWidget()
        seen["title"] = dialog.windowTitle()
        seen["room"] = dialog.width() - dialog.fontMetrics().horizontalAdvance(dialog.windowTitle())
        dialog.setIntValue(1500)
        dialog.accept()

    QTimer.singleShot(200, answer)  # shown and laid out
    assert FileDialogs.png_width(window_ja, 1200) == 1500
    assert JAPANESE.search(seen["title"]), seen
    assert seen["room"] >= 150, seen  # the title bar's buttons and margins


def test_the_scaling_charts_key_keeps_its_count_of_more_chips_on_one_line(window_ja, qtbot):
    """The 41st tour, every preset on the training example in Japanese at 1280 × 800: the
    scaling chart's key ended "… ほ" on one line and "か 28 チップ" on the next (Japanese breaks
    between any two characters). Its "and N more", as each chip's name, is never broken."""
    import pyqtgraph as pg

    from roofline_gui.widgets.app.file_actions import example_named

    window = window_ja
    assert window.files.open_example(example_named("training-fp32-against-bf16"))
    shown = {c.name for c in window.model.document.chips}
    window.model.add_chips([c for c in window.presets.chips.values() if c.name not in shown])
    window.model.select(window.model.document.workloads[0].id, None)
    window.docks["breakdown"].raise_()
    charts = window.breakdown
    qtbot.waitUntil(lambda: not charts.pending)
    more = re.compile(re.escape(i18n._("and {n} more")).replace(r"\{n\}", r"\d+"))
    assert more.pattern.startswith("ほか")
    for width in (260, 330, 400, 520):  # the note wrapped at several chart widths
        charts.refresh()
        QApplication.processEvents()
        (note,) = [i for i in charts.sweep.getPlotItem().items if isinstance(i, pg.TextItem)]
        note.setTextWidth(width)
        document = note.textItem.document()
        lines = []
        block = document.begin()
        while block.isValid():
            layout, text = block.layout(), block.text()
            lines += [text[layout.lineAt(i).textStart():
                           layout.lineAt(i).textStart() + layout.lineAt(i).textLength()]
                      for i in range(layout.lineCount())]
            block = block.next()
        assert len(lines) > 1 or width >= 520, (width, lines)
        said = [line.replace("\u2060", "").replace("\xa0", " ") for line in lines]
        assert any(more.search(line) for line in said), (width, said)
