"""The window's views come from one table (widgets.app.views): each dock, its place, the View
menu and the saved layout's version."""

from dataclasses import replace

import pytest
from PySide6.QtWidgets import QDockWidget

from roofline_gui.widgets.app.views import VIEWS, layout_version


def test_every_view_is_a_dock_with_a_stable_name_in_the_view_menu(window):
    docks = {d.objectName(): d for d in window.findChildren(QDockWidget)}
    assert set(docks) == {f"dock-{v.name}" for v in VIEWS}
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    toggles = [a.text() for a in view_menu.actions() if a.text() in {v.title for v in VIEWS}]
    assert toggles == [v.title for v in VIEWS]
    for view in VIEWS:
        dock = docks[f"dock-{view.name}"]
        assert dock.windowTitle() == view.title and window.dockWidgetArea(dock) == view.area
        if view.tab_with is not None:
            assert dock in window.tabifiedDockWidgets(docks[f"dock-{view.tab_with}"])
        if view.beside is not None:  # side by side with it, both on screen, not a tab of it
            other = docks[f"dock-{view.beside}"]
            assert dock not in window.tabifiedDockWidgets(other)
            assert not dock.visibleRegion().isEmpty() and not other.visibleRegion().isEmpty()
            assert dock.geometry().left() >= other.geometry().right()
        assert getattr(window, view.name) is dock.widget()  # built on first use, by its name


def test_the_saved_layout_follows_the_views_not_their_titles():
    """A title in another language keeps a saved layout; a new view (or a moved one) is a new
    layout, so Qt never places a dock it does not know."""
    titled = tuple(replace(v, title=f"«{v.title}»") for v in VIEWS)
    assert layout_version(titled) == layout_version()
    assert layout_version(VIEWS + (replace(VIEWS[-1], name="serving"),)) != layout_version()
    moved = (replace(VIEWS[0], tab_with="table"), *VIEWS[1:])
    assert layout_version(moved) != layout_version()


def test_a_layout_saved_by_this_window_comes_back(window, settings, model):
    """A dock the user closed stays closed at the next start (the layout is saved under the
    views' stable names)."""
    from roofline_gui.widgets.app.main_window import MainWindow

    window.docks["design"].close()
    model.undo_stack.setClean()
    window.close()
    again = MainWindow(settings=settings, model=model)
    try:
        again.show()
        assert again.docks["design"].isHidden() and not again.docks["energy"].isHidden()
    finally:
        model.undo_stack.setClean()
        again.close()


def test_restarting_maximised_leaves_the_panels_as_the_user_left_them(qtbot, settings, model):
    """Five starts of a window closed maximised: the docks come back at the sizes they had (they
    had grown at every start, the bottom panels by about 11 px, as the restore was scaled)."""
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.main_window import MainWindow

    sizes = []
    for start in range(5):
        window = MainWindow(settings=settings, model=model)
        window.show()
        if start == 0:
            window.showMaximized()
        qtbot.waitExposed(window)
        qtbot.wait(1000)  # past the docks' hold at the first show
        QApplication.processEvents()
        sizes.append(tuple(window.docks[n].size().toTuple() for n in ("hardware", "table", "explanation")))
        model.undo_stack.setClean()
        window.close()
        window.deleteLater()
    assert len(set(sizes[1:])) == 1, sizes


def test_docks_left_in_a_bigger_window_come_back_in_proportion(qtbot, settings, model):
    """A start at 1280 × 800 after one at 1920 × 1080 put the docks back at their big-screen
    sizes: the left panel 650 px wide, the chart 440 × 170, its titles cut (the 39th tour).
    On a smaller window each dock's size shrinks with it (to no less than its least)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.main_window import MainWindow

    window = MainWindow(settings=settings, model=model)
    window.resize(1900, 1040)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(500)
    window.resizeDocks([window.docks["hardware"]], [650], Qt.Orientation.Horizontal)
    QApplication.processEvents()
    wide = window.docks["hardware"].width()
    assert wide >= 600
    model.undo_stack.setClean()
    window.close()
    window.deleteLater()
    assert settings.get("window/size") == "1900:1040"
    window = MainWindow(settings=settings, model=model)
    window.resize(1264, 752)  # the smaller screen's window
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(1200)  # past the panels' first build, which had put the old width back
    QApplication.processEvents()
    dock = window.docks["hardware"]
    narrow = dock.width()
    assert narrow <= max(wide * 1264 / 1900, dock.minimumSizeHint().width()) + 12, (wide, narrow)
    assert window.canvas.width() >= 600
    model.undo_stack.setClean()
    window.close()
    window.deleteLater()


def test_bottom_panels_left_in_a_bigger_window_come_back_no_shorter_than_a_first_start(
        qtbot, settings, model):
    """Shrunk in proportion from 1920 × 1080, the bottom panels came back 210 px tall at
    1280 × 800, the table 3½ rows, where a first start there gives them more (the 44th tour):
    a panel left bigger than a first start gives it shrinks with the window, to no less than
    that; one left smaller stays as it was left."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.main_window import MainWindow
    from roofline_gui.widgets.app.views import first_length

    def start(size, table_height=None):
        window = MainWindow(settings=settings, model=model)
        window.resize(*size)
        window.show()
        qtbot.waitExposed(window)
        qtbot.wait(1200)  # past the panels' first build and the docks put back
        if table_height is not None:
            window.resizeDocks([window.docks["table"]], [table_height], Qt.Orientation.Vertical)
        QApplication.processEvents()
        bar = window.dock_shares.tab_bar(window.docks["table"])
        height = window.docks["table"].height() + bar
        canvas = window.canvas.height()
        model.undo_stack.setClean()
        window.close()
        window.deleteLater()
        return height, canvas

    assert first_length("breakdown", "height") == first_length("table", "height") == 290
    first = first_length("table", "height", 752)  # (a third of a laptop's window: 251)
    assert 240 <= first < 290
    left, _ = start((1900, 1040), 300)
    assert left >= 290
    back, canvas = start((1264, 752))
    assert abs(back - first) <= 4 and canvas >= 380, (left, back, canvas)  # not 300 × 0.72
    small, _ = start((1264, 752), 200)  # left smaller than a first start: as it was left
    again, _ = start((1264, 752))
    assert abs(again - small) <= 4, (small, again)


def test_the_first_window_fits_the_screen(window):
    """1500 x 940 where there is room; on a smaller screen (a 1280 x 800 laptop; the offscreen
    platform's 800 x 800 here) its available area less the title bar and frame."""
    room = window.screen().availableGeometry()
    assert window.size().toTuple() == (min(1500, room.width() - 16), min(940, room.height() - 48))


def test_on_a_1280_by_800_screen_the_window_fits_and_every_panel_has_room():
    """The first start on a laptop's screen: within it, the chart and the side and bottom
    panels each above a usable size (the tour's window was 1500 x 940, cut off)."""
    sizes = _on_a_laptop_screen("""
        def report():
            docks = {n: w.docks[n].size().toTuple() for n in ("hardware", "table", "explanation")}
            print(json.dumps({"window": w.size().toTuple(), "chart": w.canvas.size().toTuple(),
                              **docks}))
            w.model.undo_stack.setClean()
            w.close()
        QTimer.singleShot(1500, report)
    """)
    assert sizes["window"] == [1264, 752]
    assert sizes["chart"][0] >= 600 and sizes["chart"][1] >= 300
    assert sizes["hardware"][0] >= 400 and sizes["table"][0] >= 600 and sizes["explanation"][0] >= 300
    assert sizes["table"][1] >= 220


def test_adding_a_workload_on_a_laptop_screen_leaves_the_panels_their_room():
    """At 1280 x 800, maximised, Workloads > New workload squeezed the bottom panels to about
    150 px (the tour; the main window laid its docks out again from the new panels' size hints
    as their tabs came forward), and the layout was saved so. The shown docks keep their sizes."""
    sizes = _on_a_laptop_screen("""
        sizes = {}
        def take(tag):
            sizes[tag] = {"left": w.docks["workloads"].height(),
                          "bottom": w.docks["explanation"].height(),
                          "explanation": w.docks["explanation"].width()}
        def add():
            take("before")
            ids = w.model.add_workloads([shipped_workloads()["llama-3-8b"].workload("w1")])
            w.model.select(ids[0], None)
            QTimer.singleShot(600, done)
        def done():
            take("after")
            sizes["bottom tab"] = w.docks["breakdown"].height()
            print(json.dumps(sizes))
            w.model.undo_stack.setClean()
            w.close()
        QTimer.singleShot(300, w.showMaximized)
        QTimer.singleShot(900, lambda: w.docks["workloads"].raise_())
        QTimer.singleShot(1300, add)
    """)
    assert sizes["after"] == sizes["before"], sizes
    assert sizes["bottom tab"] >= sizes["before"]["bottom"] - 30  # the breakdown has the room


def test_four_charts_side_by_side_fit_a_laptop_screen_key_and_all():
    """The 44th tour, the article's four chips side by side at a first start on 1280 x 800:
    the grid scrolled for 38 px, its key's second row cut at the edge (the bottom panels took
    290 of the window's 752 px, and the grid's least height counted 22 px to spare). The whole
    grid fits, in English and in Japanese, each view tall enough for its roofs' labels."""
    for language in ("en", "ja"):
        sizes = _on_a_laptop_screen("""
            from roofline_gui.widgets.app.file_actions import example_named
            def grid():
                w.files.open_example(example_named("the-article-claim-by-claim"))
                w.set_mode("side_by_side")
                QTimer.singleShot(800, report)
            def report():
                c = w.canvas
                key = c._grid_key.mapRectToScene(c._grid_key.boundingRect())
                print(json.dumps({"scrolls": c.grid_area.verticalScrollBar().maximum(),
                                  "key_bottom": key.bottom(),
                                  "viewport": c.grid_area.viewport().height(),
                                  "charts": len(c.plots),
                                  "views": [p.plot.getViewBox().height() for p in c.plots]}))
                w.model.undo_stack.setClean()
                w.close()
            QTimer.singleShot(1000, grid)
        """, start=f"start_window(None, on_shown=on_shown, language={language!r})")
        assert sizes["charts"] == 4, sizes
        assert sizes["scrolls"] == 0 and sizes["key_bottom"] <= sizes["viewport"], (language, sizes)
        assert min(sizes["views"]) >= 106, (language, sizes)


def _on_a_laptop_screen(on_shown: str, start: str = "start_window(None, on_shown=on_shown)"
                        ) -> dict:
    """Start the app as a double-click does, on a 1280 x 800 screen (an offscreen
    configuration), in a fresh process with fresh settings; ``on_shown`` is the body of its
    on_shown(w) hook, which prints one JSON line and closes the window. Returns that line.
    ``start``: the call that starts it (another language, say)."""
    import json
    import os
    import subprocess
    import sys
    import textwrap

    from conftest import DATA, ROOT

    code = ("import json, os, tempfile\n"
            "os.environ['XDG_CONFIG_HOME'] = tempfile.mkdtemp()\n"
            "from PySide6.QtCore import QTimer\n"
            "from roofline_gui.__main__ import start_window\n"
            "from roofline_gui.io.workloads import shipped_workloads\n"
            "def on_shown(w):\n" + textwrap.indent(textwrap.dedent(on_shown), "    ")
            + start + "\n")
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={DATA / 'offscreen-1280x800.json'}"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=60).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_a_mixture_of_experts_fields_never_push_the_window_past_a_laptop_screen():
    """The tour of issue 37: with DeepSeek-V3's extra fields (experts over e, imbalance,
    attention data parallel, MTP) the Workloads panel asked for more height than 800 px had,
    and the window grew past the screen's bottom edge. The fields scroll instead: the panel asks
    for the same height whatever fields its workload shows."""
    sizes = _on_a_laptop_screen("""
        sizes = {}
        def add():
            ids = w.model.add_workloads([
                shipped_workloads()["llama-3-8b"].workload("w1"),
                shipped_workloads()["deepseek-v3"].workload("w2", chips_per_model=8,
                                                            expert_parallel=8)])
            w.docks["workloads"].raise_()
            w.model.select(ids[0], None)
            QTimer.singleShot(600, lambda: take("dense", ids[1]))
        def take(tag, then):
            sizes[tag] = w.docks["workloads"].minimumSizeHint().height()
            if then:
                w.model.select(then, None)
                QTimer.singleShot(600, lambda: take("moe", None))
            else:
                sizes["window"] = w.size().toTuple()
                print(json.dumps(sizes))
                w.model.undo_stack.setClean()
                w.close()
        QTimer.singleShot(300, add)
    """)
    assert sizes["window"] == [1264, 752]
    assert sizes["moe"] == sizes["dense"]


def test_growing_the_window_with_the_breakdown_in_front_grows_the_bottom_panels():
    """The tour of issue 37: maximised with the breakdown and the workloads in front, the bottom
    panels shrank (290 -> 210 px) and the bars were crushed: the window's dock shares were
    measured on the tabs behind them, with the sizes they had when last in front."""
    sizes = _on_a_laptop_screen("""
        from PySide6.QtCore import Qt
        sizes = {}
        def add():
            ids = w.model.add_workloads([shipped_workloads()["llama-3-8b"].workload("w1")])
            w.model.select(ids[0], None)
            w.docks["table"].raise_()
            w.resizeDocks([w.docks["table"]], [160], Qt.Orientation.Vertical)
            QTimer.singleShot(300, breakdown)
        def breakdown():
            w.docks["workloads"].raise_()
            w.docks["breakdown"].raise_()
            w.resizeDocks([w.docks["breakdown"]], [320], Qt.Orientation.Vertical)
            QTimer.singleShot(300, grow)
        def grow():
            sizes["before"] = w.docks["breakdown"].height()
            w.setMaximumSize(4000, 4000)
            w.resize(1600, 1000)  # as maximising on a larger screen
            QTimer.singleShot(900, done)
        def done():
            sizes["after"] = w.docks["breakdown"].height()
            print(json.dumps(sizes))
            w.model.undo_stack.setClean()
            w.close()
        QTimer.singleShot(300, add)
    """)
    # the bottom panels keep their share of the window's height: 1000/752 as tall
    assert sizes["after"] == pytest.approx(sizes["before"] * 1000 / 752, rel=0.03), sizes


def test_restarting_with_a_later_tab_in_front_leaves_the_panels_as_the_user_left_them(
        qtbot, settings, model):
    """The tour's five restarts with the Workload breakdown in front: the bottom panels came
    back 26 px shorter each time (Qt's restored layout of a tab group whose later tab is in
    front, brought forward before the window was laid out). The tabs in front come back in
    front, at the same sizes. (Here the Design space, a later tab of the same group: this
    session has no workloads, and their empty breakdown gives way to the comparison.)"""
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.main_window import MainWindow

    assert not model.document.workloads
    sizes = []
    for start in range(5):
        window = MainWindow(settings=settings, model=model)
        window.show()
        qtbot.waitExposed(window)
        qtbot.wait(300)
        if start == 0:
            window.docks["design"].raise_()
            window.docks["kernels"].raise_()
            qtbot.wait(300)
        QApplication.processEvents()
        front = {n for n, d in window.docks.items() if not d.visibleRegion().isEmpty()}
        assert {"design", "kernels"} <= front, front
        sizes.append(tuple(window.docks[n].size().toTuple() for n in ("kernels", "design")))
        model.undo_stack.setClean()
        window.close()
        window.deleteLater()
    assert len(set(sizes)) == 1, sizes


def test_restarting_maximised_with_a_later_tab_in_front_starts(tmp_path):
    """The tour: quit maximised with the Workload breakdown in front, and every later start
    died of a segmentation fault while the tabs in front were raised (the breakdown's panel
    was built from inside Qt's raise) until the settings were deleted. Two starts in fresh
    processes on a laptop's screen: the second comes up with the tab left in front (the Design
    space, a later tab of the breakdown's group, built as it is: the first start's session has no
    workloads, and their empty breakdown would give way to the comparison)."""
    import json
    import os
    import subprocess
    import sys

    from conftest import DATA, ROOT

    code = """if True:
        import json, sys
        from PySide6.QtCore import QTimer
        from roofline_gui.__main__ import start_window
        first = sys.argv[1] == "first"
        def on_shown(w):
            def close():
                if first:
                    w.docks["design"].raise_()
                front = [n for n, d in w.docks.items() if not d.visibleRegion().isEmpty()]
                print(json.dumps({"front": front, "maximized": w.isMaximized()}))
                w.model.undo_stack.setClean()
                w.close()
            if first:
                QTimer.singleShot(200, w.showMaximized)
            QTimer.singleShot(1500, close)
        start_window(None, on_shown=on_shown)
    """
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "ROOFLINE_DATA_DIR": str(tmp_path / "data"),
           "QT_QPA_PLATFORM": f"offscreen:configfile={DATA / 'offscreen-1280x800.json'}"}
    runs = [subprocess.run([sys.executable, "-X", "faulthandler", "-c", code, which], cwd=ROOT,
                           env=env, capture_output=True, text=True, timeout=60)
            for which in ("first", "again", "again")]
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    second = json.loads(runs[1].stdout.strip().splitlines()[-1])
    assert second["maximized"] and "design" in second["front"], second


def test_a_bottom_panel_made_taller_comes_back_as_tall_when_the_window_is_maximised_after(
        qtbot, settings, model):
    """The seventh tour, at 1280 x 800 maximised with the Kernels tab in front: the bottom panels
    dragged taller came back at their first height after a restart. A window saved maximised is
    restored at its normal (smaller) size and maximised by the window manager a moment later;
    the docks were laid out in the smaller window, the Kernels panel's minimum holding the left
    dock, and the step's height went to it. Here the window manager's step is a resize just
    after the show (the offscreen platform maximises at once)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.main_window import MainWindow

    first = MainWindow(settings=settings, model=model)
    first.resize(1264, 752)
    first.show()
    qtbot.waitExposed(first)
    small = first.saveGeometry()  # the window's normal geometry, as the restore finds it
    first.resize(1280, 800)  # then "maximised"
    qtbot.wait(300)
    first.docks["kernels"].raise_()
    qtbot.wait(200)
    first.resizeDocks([first.docks["table"]], [first.docks["table"].height() + 100],
                      Qt.Orientation.Vertical)
    qtbot.wait(200)
    left = (first.docks["table"].height(), first.docks["kernels"].height())
    model.undo_stack.setClean()
    first.close()
    first.deleteLater()
    settings.set("window/geometry", small)  # restored at the normal size, then the step
    again = MainWindow(settings=settings, model=model)
    try:
        again.show()
        qtbot.waitExposed(again)
        assert again.size().toTuple() == (1264, 752)
        again.resize(1280, 800)
        qtbot.wait(400)
        QApplication.processEvents()
        assert (again.docks["table"].height(), again.docks["kernels"].height()) == left
        assert not again.docks["kernels"].visibleRegion().isEmpty()  # still in front
        # a resize of the user's later is not a restore: the panels stay as the user set them
        qtbot.wait(1000)
        again.resizeDocks([again.docks["table"]], [left[0] - 60], Qt.Orientation.Vertical)
        qtbot.wait(200)
        again.resize(1276, 796)
        qtbot.wait(300)
        assert again.docks["table"].height() < left[0] - 30  # not put back to the saved one
    finally:
        model.undo_stack.setClean()
        again.close()


def test_the_bottom_panels_made_taller_with_the_kernels_tab_in_front_come_back_as_left(
        qtbot, settings, model):
    """The seventh tour: the Kernels tab in front, the bottom panels dragged taller (the
    Kernels panel at its minimum), and after a restart they came back shorter (the saved
    layout, put back before the panels were built, gave the left tabs more height). Four
    starts: the sizes the user left."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.main_window import MainWindow

    seen = []
    for start in range(4):
        window = MainWindow(settings=settings, model=model)
        if start == 0:
            window.resize(1264, 752)
        window.show()
        qtbot.waitExposed(window)
        qtbot.wait(300)
        if start == 0:
            window.docks["kernels"].raise_()
            qtbot.wait(200)
            window.resizeDocks([window.docks["table"]], [window.docks["table"].height() + 200],
                              Qt.Orientation.Vertical)
            qtbot.wait(200)
        qtbot.wait(800)
        QApplication.processEvents()
        assert not window.docks["kernels"].visibleRegion().isEmpty()
        seen.append((window.docks["table"].height(), window.docks["kernels"].height()))
        model.undo_stack.setClean()
        window.close()
        window.deleteLater()
    assert seen[0][0] > 330, seen  # taller than its first ~270 px
    assert len(set(seen)) == 1, seen


def test_the_energy_tab_gives_its_chart_the_height_on_a_laptop_screen():
    """Maximised at 1280 x 800, the Energy tab's words stood over its chart in three lines and
    left the chart about 110 px for five decades (the tour): they stand beside it now."""
    sizes = _on_a_laptop_screen("""
        def report():
            chart = w.energy.plot
            print(json.dumps({"chart": chart.size().toTuple(),
                              "tab": w.docks["energy"].size().toTuple()}))
            w.model.undo_stack.setClean()
            w.close()
        QTimer.singleShot(300, w.showMaximized)
        QTimer.singleShot(900, lambda: w.docks["energy"].raise_())
        QTimer.singleShot(1600, report)
    """)
    assert sizes["chart"][1] >= 0.75 * sizes["tab"][1], sizes
    assert sizes["chart"][0] >= 400, sizes


def test_the_design_space_gives_its_map_the_height_on_a_laptop_screen():
    """Maximised at 1280 x 800, the design space's words over and under its map left the map
    about 115 px of the tab (the thirteenth tour): they stand beside it now."""
    sizes = _on_a_laptop_screen("""
        from roofline_gui.widgets.app.file_actions import example_named
        def report():
            print(json.dumps({"map": w.design.plot.size().toTuple(),
                              "tab": w.docks["design"].size().toTuple()}))
            w.model.undo_stack.setClean()
            w.close()
        QTimer.singleShot(300, w.showMaximized)
        QTimer.singleShot(600, lambda: w.files.open(str(example_named(
            "serving-70b-and-r1-at-50-ms"))))
        QTimer.singleShot(1200, lambda: w.docks["design"].raise_())
        QTimer.singleShot(1900, report)
    """)
    assert sizes["map"][1] >= 0.75 * sizes["tab"][1], sizes
    assert sizes["map"][0] >= 400, sizes


def test_side_by_side_charts_stay_inside_their_area_whatever_the_chips_names():
    """The fourteenth tour: the Williams CPUs side by side at 1280 × 800, the Xeon's chart ran
    past the grid's right edge ("Xeon Platinum 8480+ (Sapphire Rap", its key cut to "fp64
    3…"): each title's text had set its chart's smallest width. A long name is cut to its
    chart, whole in its tooltip."""
    sizes = _on_a_laptop_screen("""
        from roofline_gui.widgets.app.file_actions import example_named
        def report():
            canvas = w.canvas
            area = canvas.grid_area.viewport().width()
            rights = [p.plot.mapRectToScene(p.plot.boundingRect()).right()
                      for p in canvas.grid_plots]
            titles = [(p.plot.titleLabel.text, p.plot.titleLabel.toolTip())
                      for p in canvas.grid_plots]
            print(json.dumps({"area": area, "grid": canvas.grid.width(), "rights": rights,
                              "titles": titles}))
            w.model.undo_stack.setClean()
            w.close()
        QTimer.singleShot(300, w.showMaximized)
        QTimer.singleShot(600, lambda: w.files.open(str(example_named("williams-cpus"))))
        QTimer.singleShot(1000, lambda: w.set_mode("side_by_side"))
        QTimer.singleShot(1700, report)
    """)
    assert sizes["grid"] <= sizes["area"], sizes
    assert max(sizes["rights"]) <= sizes["area"], sizes
    (_epyc, epyc_tip), (xeon, xeon_tip) = sizes["titles"]
    assert xeon_tip == "Xeon Platinum 8480+ (Sapphire Rapids)" and epyc_tip.startswith("EPYC")
    # cut in its middle, its end kept (a copy's "(copy)" tells it from its original)
    assert xeon == xeon_tip or ("…" in xeon and xeon.endswith("Rapids)")), sizes


def test_an_opened_example_brings_forward_the_view_it_is_about(window, qtbot):
    """The tour opened the CPU example on the last example's empty workload breakdown, and the
    serving example after another example with workloads on the breakdown: a document of
    kernels alone shows the comparison, one with workloads its breakdown, one served under a
    limit its serving view."""
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.file_actions import example_named

    def front(name):
        for _ in range(5):
            QApplication.processEvents()
        dock = window.docks[name]
        return dock.isVisible() and not dock.visibleRegion().isEmpty()

    for stem, view in (("training-fp32-against-bf16", "breakdown"),
                       ("serving-70b-and-r1-at-50-ms", "serving"),
                       ("williams-cpus", "table"),
                       ("llama-3-8b-on-three-chips", "breakdown")):
        window.model.undo_stack.setClean()
        assert window.files.open_example(example_named(stem))
        assert front(view), (stem, view)
    # with workloads, their list in front; a session of kernels alone then shows its kernels,
    # not an empty list (the article's example opened on an empty Workloads tab: the
    # seventeenth tour)
    assert front("workloads")
    window.model.undo_stack.setClean()
    assert window.files.open_example(example_named("the-article-claim-by-claim"))
    assert front("kernels") and not front("workloads")


def test_a_restart_on_a_session_without_workloads_shows_its_kernels_not_an_empty_list(
        qtbot, settings, model):
    """Closed with the Workloads tab in front, the next start on a session without workloads
    brought that empty list to the front over the session's kernels (the third tour); closed
    with the Workload breakdown in front, its empty view over the comparison (the 36th)."""
    from PySide6.QtWidgets import QApplication

    from roofline_gui.widgets.app.main_window import MainWindow

    assert not model.document.workloads
    for start in range(2):
        window = MainWindow(settings=settings, model=model)
        window.show()
        qtbot.waitExposed(window)
        qtbot.wait(300)
        if start == 0:
            window.docks["workloads"].raise_()
            window.docks["breakdown"].raise_()
            qtbot.wait(100)
        QApplication.processEvents()
        front = {n for n, d in window.docks.items() if not d.visibleRegion().isEmpty()}
        if start == 0:
            assert {"workloads", "breakdown"} <= front, front
        if start == 1:
            assert "kernels" in front and "workloads" not in front, front
            assert "table" in front and "breakdown" not in front, front
        model.undo_stack.setClean()
        window.close()
        window.deleteLater()
