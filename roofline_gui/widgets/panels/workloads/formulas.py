"""A workload's entries as HTML: each kernel with its count and its formula, numbers filled in."""

from __future__ import annotations

import html

from roofline_gui.core.build import build
from roofline_gui.core.errors import ValidationError
from roofline_gui.core.families import family_of
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
        return "<p><b>Cannot build:</b> " + html.escape("; ".join(map(str, exc.problems))) + "</p>"
    parts = [f"<p><b>{html.escape(label_of(w))}</b>"]
    if built.parameters:
        parts.append(f"<br>{parameters_text(built.parameters)} parameters"
                     + (f" ({parameters_text(built.active_parameters)} active per token)"
                        if built.active_parameters != built.parameters else ""))
    if w.kind == "transformer":
        family = family_of(w.spec)
        raw = w.spec.get("text_config", w.spec)
        shown = ", ".join(f"{key} {raw[key]}" for key in family.dialog_fields if key in raw)
        parts.append(f"<br>Read as {html.escape(family.name)}: {html.escape(shown)}")
    parts.append("</p>")
    for note in built.notes:
        parts.append(f"<p><i>{html.escape(note)}</i></p>")
    for e in built.entries:
        k = e.kernel
        t = k.traffic()
        dram = t.bytes.get("dram", 0.0)
        on_chip = t.bytes.get("cache")
        parts.append(
            f"<p><b>{html.escape(k.name)}</b> × {e.count:,.0f}: "
            f"{format_si(t.ops, 'op')}, {format_si(dram, 'B')} of main memory"
            + (f" and {format_si(on_chip, 'B')} on chip" if on_chip else "")
            + f", {t.ops / dram if dram else float('nan'):,.4g} op/B<br>"
            + "<br>".join(html.escape(s) for s in e.steps) + "</p>")
    if built.link_steps:
        parts.append("<p><b>Link</b><br>" + "<br>".join(map(html.escape, built.link_steps)) + "</p>")
    if built.resident_steps:
        parts.append("<p><b>Held in memory per chip</b><br>"
                     + "<br>".join(map(html.escape, built.resident_steps)) + "</p>")
    if w.source:
        parts.append(f"<p><small>Source: {html.escape(w.source)}</small></p>")
    return "".join(parts)
