"""The window's views come from one table (widgets.app.views): each dock, its place, the View
menu and the saved layout's version."""

from dataclasses import replace

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
