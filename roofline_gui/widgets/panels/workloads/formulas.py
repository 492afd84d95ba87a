"""A workload's entries as HTML: each kernel with its count and its formula, numbers filled in."""

from __future__ import annotations

import html

from roofline_gui.core.build import build
from roofline_gui.core.errors import ValidationError
from roofline_gui.core.families import family_of
from roofline_gui.core.i18n import _
from roofline_gui.core.units import format_si
from roofline_gui.core.workload import (
    Workload,
    label_of,
    parameters_text,
)


def entries_html(w: Workload, kernels=None) -> str:
    """The workload's kernels with their counts and formulas, numbers filled in."""
    try:
        built = build(w, kernels)
    except ValidationError as exc:
        return "<p><b>{}</b> {}</p>".format(html.escape(_("Cannot build:")),
                                            html.escape("; ".join(map(str, exc.problems))))
    parts = [f"<p><b>{html.escape(label_of(w))}</b>"]
    if built.parameters:
        parts.append("<br>" + html.escape(
            (_("{parameters} parameters ({active} active per token)")
             if built.active_parameters != built.parameters else
             _("{parameters} parameters")).format(
                parameters=parameters_text(built.parameters),
                active=parameters_text(built.active_parameters))))
    if w.kind == "transformer":
        family = family_of(w.spec)
        raw = w.spec.get("text_config", w.spec)
        shown = ", ".join(f"{key} {raw[key]}" for key in family.dialog_fields if key in raw)
        parts.append("<br>" + html.escape(_("Read as {family}: {fields}").format(
            family=_(family.name), fields=shown)))
    parts.append("</p>")
    for note in built.notes:
        parts.append(f"<p><i>{html.escape(note)}</i></p>")
    for e in built.entries:
        k = e.kernel
        t = k.traffic()
        dram = t.bytes.get("dram", 0.0)
        on_chip = t.bytes.get("cache")
        moved = (_("{ops}, {bytes} of main memory and {on_chip} on chip, {intensity} op/B")
                 if on_chip else _("{ops}, {bytes} of main memory, {intensity} op/B")).format(
            ops=format_si(t.ops, "op"), bytes=format_si(dram, "B"),
            on_chip=format_si(on_chip or 0.0, "B"),
            intensity=f"{t.ops / dram if dram else float('nan'):,.4g}")
        parts.append(
            f"<p><b>{html.escape(k.name)}</b> × {e.count:,.0f}: {html.escape(moved)}<br>"
            + "<br>".join(html.escape(s) for s in e.steps) + "</p>")
    if built.link_steps:
        parts.append("<p><b>" + html.escape(_("Link")) + "</b><br>"
                     + "<br>".join(map(html.escape, built.link_steps)) + "</p>")
    if built.resident_steps:
        parts.append("<p><b>" + html.escape(_("Held in memory per chip")) + "</b><br>"
                     + "<br>".join(map(html.escape, built.resident_steps)) + "</p>")
    if w.source:
        parts.append("<p><small>{}</small></p>".format(
            html.escape(_("Source: {source}").format(source=w.source))))
    return "".join(parts)
