"""Helpers for synthesizing drag-and-drop and mouse events in widget tests."""

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from roofline_gui.core.chart_labels import stacked_tags


def drag_event(cls, pos: QPointF, mime):
    """A drag event at ``pos``: the QPointF constructor where the binding has it (PySide6 6.12
    deprecates the QPoint one), else the QPoint one (6.11 and older only have that)."""
    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    try:
        return cls(QPointF(pos), *args)
    except TypeError:
        return cls(QPoint(int(pos.x()), int(pos.y())), *args)


def drop_on(widget, mime, pos: QPointF) -> bool:
    """Enter, move and drop ``mime`` on ``widget`` at ``pos``; True when the drop was accepted."""
    enter = drag_event(QDragEnterEvent, pos, mime)
    QApplication.sendEvent(widget, enter)
    if not enter.isAccepted():
        return False
    move = drag_event(QDragMoveEvent, pos, mime)
    QApplication.sendEvent(widget, move)
    drop = drag_event(QDropEvent, pos, mime)
    QApplication.sendEvent(widget, drop)
    return drop.isAccepted()


def mouse(widget, kind, pos: QPointF, buttons=Qt.MouseButton.LeftButton,
          modifiers=Qt.KeyboardModifier.NoModifier):
    button = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseMove else Qt.MouseButton.LeftButton
    global_pos = QPointF(widget.mapToGlobal(pos.toPoint()))
    event = QMouseEvent(kind, QPointF(pos), global_pos, button, buttons, modifiers)
    QApplication.sendEvent(widget, event)


def drag_mouse(widget, start: QPointF, end: QPointF, steps: int = 8,
               modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    """Press at ``start``, move in steps to ``end`` with the button (and ``modifiers``) held,
    release."""
    mouse(widget, QEvent.Type.MouseButtonPress, start, modifiers=modifiers)
    for i in range(1, steps + 1):
        p = start + (end - start) * (i / steps)
        mouse(widget, QEvent.Type.MouseMove, p, modifiers=modifiers)
        QApplication.processEvents()
        QTest.qWait(20)  # pyqtgraph drops mouse moves closer together than its rate limit
    mouse(widget, QEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton, modifiers)
    QApplication.processEvents()


def settle(plot, turns: int = 20) -> None:
    """Turn the event loop until ``plot``'s labels are placed for its view (as before a user's
    hover or drag: the labels placed, the key's width taken, the view resized to it). A turn
    first: the layout a placement asks for comes on the next one."""
    QApplication.processEvents()
    for _ in range(turns):
        QApplication.processEvents()
        if not plot.labels_pending:
            return


def chart_mismatches(plot) -> list[str]:
    """Every way the items of a chart (RooflinePlot) differ from the scene it last drew: the
    markers of each chip, the names, the selection's rings, the dragged kernel, the workloads'
    points, the roofs. Empty when the chart shows exactly its scene."""
    import numpy as np

    from roofline_gui.widgets.chart.layers.levels import DRAM as DRAM_ROLE

    scene = plot.scene
    spec, cmp = scene.spec, scene.comparison
    problems = []
    with np.errstate(divide="ignore", invalid="ignore"):
        x_all = np.log10(spec.marker_x)
    lifted = cmp.kernel_index.get(scene.selection.lifted)
    shown_ids = {cmp.chips[c].id for c in scene.chips}
    if set(plot.markers.scatters) != shown_ids:
        problems.append(f"marker items for {sorted(plot.markers.scatters)}, chips shown {sorted(shown_ids)}")
    for c in scene.chips:
        chip = cmp.chips[c]
        x, y, ids = plot.markers_of(chip.id)
        with np.errstate(divide="ignore", invalid="ignore"):
            want_y = np.log10(spec.marker_y[:, c])
        rows = [k for k in range(len(cmp.kernels)) if np.isfinite(want_y[k]) and np.isfinite(x_all[k])]
        want = {cmp.kernels[k].id: (x_all[k], want_y[k]) for k in rows if k != lifted}
        got = {i: (a, b) for i, a, b in zip(ids, x, y, strict=True)}  # the dragged one hidden
        if set(got) != set(want):
            problems.append(f"{chip.name}: markers for {sorted(got)}, scene has {sorted(want)}")
            continue
        for kid, (a, b) in want.items():
            if not np.allclose(got[kid], (a, b)):
                problems.append(f"{chip.name}: {kid} drawn at {got[kid]}, scene has {(a, b)}")
    levels = spec.levels
    lx, ly, ldata = plot.levels.spots()
    if levels is None or not len(levels):
        if len(lx):
            problems.append(f"{len(lx)} per-level points drawn, the scene has none")
    else:
        # (a filled point at main memory is the kernel's own marker: not drawn again)
        on = np.isin(levels.chip, scene.chips) & ~(levels.filled & (levels.role == DRAM_ROLE))
        want = sorted(zip(levels.kernel[on].tolist(), levels.chip[on].tolist(),
                          levels.role[on].tolist(), np.log10(levels.x[on]).round(9).tolist(),
                          np.log10(levels.y[on]).round(9).tolist(), strict=True))
        got = sorted((*d, round(float(a), 9), round(float(b), 9))
                     for d, a, b in zip(ldata, lx, ly, strict=True))
        if got != want:
            problems.append(f"per-level points drawn {got}, scene has {want}")
    all_names = [kernel.name for kernel in cmp.kernels]
    limit_x = spec.at_limit  # the names and the ring: at the point that says its limit
    for label in plot.names.labels:
        ks = [k for k, kernel in enumerate(cmp.kernels)
              if label.text in _name_options(kernel.name, all_names)][:1]
        if not ks and "/" in label.text:  # stacked markers' tags joined ("4/5", in the
            # kernels' order): by the marker of one of them
            ks = [k for tag in stacked_tags(label.text) for k, kernel in enumerate(cmp.kernels)
                  if tag in _name_options(kernel.name, all_names)]
        if not ks:
            problems.append(f"name {label.text!r} matches no kernel")
            continue
        at = []
        for k in ks:
            rates = np.where(np.isfinite(spec.marker_y[k]), spec.marker_y[k], -np.inf)
            c_top = max(scene.chips, key=lambda c: rates[c])  # noqa: B023 (used at once)
            c_sel = cmp.chip_index.get(scene.selection.chip)  # every name: by its marker on
            chips = [c_top]  # the selected chip, where it has one and room, else its highest
            if (c_sel in scene.chips
                    and np.isfinite(spec.marker_y[k, c_sel]) and spec.marker_y[k, c_sel] > 0):
                chips.insert(0, c_sel)
            at += [(np.log10(limit_x[k, c]), np.log10(spec.marker_y[k, c])) for c in chips]
        if not any(np.allclose((label.x, label.y), a) for a in at):  # its limit's point
            problems.append(f"name {label.text!r} at {(label.x, label.y)}, its marker at {at}")
    for item, kid, what, xs in ((plot.ring, scene.selection.item, "ring", limit_x),
                                (plot.overlays.lifted, scene.selection.lifted, "dragged kernel",
                                 np.repeat(spec.marker_x[:, None], len(cmp.chips), axis=1))):
        k = cmp.kernel_index.get(kid)
        want = [] if k is None else sorted(
            (float(np.log10(xs[k, c])), float(np.log10(spec.marker_y[k, c]))) for c in scene.chips
            if np.isfinite(spec.marker_y[k, c]))
        if k is None and what == "ring":  # a selected workload's big points are ringed
            want = sorted((float(np.log10(m.point_x)), float(np.log10(y))) for m in scene.workloads
                          if m.workload_id == kid for y in m.point_y if np.isfinite(y))
        got = sorted(zip(*(np.asarray(a, float).tolist() for a in item.getData()), strict=True))
        if len(got) != len(want) or not _close(got, want):
            problems.append(f"{what} at {got}, scene has {want}")
    _entries, (px, py) = plot.workload_spots()
    want = sorted((float(np.log10(m.point_x)), float(np.log10(y))) for m in scene.workloads
                  for y in m.point_y if np.isfinite(y))
    got = sorted(zip(np.asarray(px, float).tolist(), np.asarray(py, float).tolist(), strict=True))
    if len(got) != len(want) or not _close(got, want):
        problems.append(f"workload points at {got}, scene has {want}")
    n_lines = len([r for r in spec.roofs if r.chip in scene.chips]) + len(
        [d for d in spec.diagonals if d.chip in scene.chips]) + len(
        [r for r in spec.datasheet_roofs if r.chip in scene.chips])
    # the roofs' lines: all in one item, but a dragged roof's chip's drawn apart meanwhile
    drawn = len(plot.roofs.item.lines) + len(plot.roofs.lifted_item.lines)
    if drawn != n_lines:
        problems.append(f"{drawn} roof lines, scene has {n_lines}")
    return problems


def _name_options(name: str, names: list[str]) -> set[str]:
    from roofline_gui.core.chart_labels import SHORTEST_NAME
    from roofline_gui.core.display import kernel_tags, short_name, short_names

    at = names.index(name)
    return {name, *(short_name(name, limit, words) for limit in (28, SHORTEST_NAME)
                    for words in (True, False)),
            *(short_names(names, limit)[at] for limit in (28, SHORTEST_NAME)),
            kernel_tags(names)[at]}  # where no form of the name has room


def _close(got, want) -> bool:
    import numpy as np

    return bool(np.allclose(np.asarray(got, float).reshape(-1, 2), np.asarray(want, float).reshape(-1, 2)))
