"""Edits: immutable values describing one change to a Document, with a pure inverse.

``apply(edit, doc) -> (new_doc, inverse)``. Applying the inverse to ``new_doc`` gives back a
document equal to ``doc``. Edits name objects by id, so an edit stays valid after other edits
have moved things around. Every user action (editor field, drag step, import) is one of these,
usually wrapped by the Qt undo stack in ``models/document_model.py`` (``EditCommand``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from roofline_gui.core.document import Document, copy_name
from roofline_gui.core.errors import EditRefused, ValidationError

if TYPE_CHECKING:  # off the start-up path
    pass

Item = "Chip | Kernel | Workload"


@dataclass(frozen=True)
class Insert:
    """Insert ``item`` at ``index`` of a collection."""

    collection: str  # "chips", "kernels" or "workloads"
    index: int
    item: Item


@dataclass(frozen=True)
class Remove:
    """Remove the item with ``item_id`` from a collection."""

    collection: str
    item_id: str


@dataclass(frozen=True)
class Replace:
    """Replace the item that has ``item.id`` by ``item`` (a field edit is a Replace)."""

    collection: str
    item: Item


@dataclass(frozen=True)
class Move:
    """Move the item with ``item_id`` to ``index`` of its collection."""

    collection: str
    item_id: str
    index: int


@dataclass(frozen=True)
class SetField:
    """Set a document-level field (``baseline``, ``title``, ``carbon_intensity`` or
    ``serving_measured``)."""

    name: str
    value: Any


@dataclass(frozen=True)
class Batch:
    """Several edits applied in order as one step."""

    edits: tuple[Any, ...]


Edit = Insert | Remove | Replace | Move | SetField | Batch


def _with(doc: Document, collection: str, items: list[Item]) -> Document:
    return replace(doc, **{collection: tuple(items)})


def _check(collection: str, item: Item) -> None:
    if collection == "chips" and (reason := item.rule_broken()):
        raise EditRefused(reason)
    if collection == "workloads":
        problems = item.problems()
        if not problems and item.kind != "custom":  # a custom one is checked with the session
            # Imported here to keep the workload builders (5 ms) off the start-up path: the
            # first window edits no workload. (No cycle: build imports nothing above it.)
            from roofline_gui.core.build import build  # noqa: PLC0415

            try:
                build(item)
            except ValidationError as exc:
                problems = list(exc.problems)
        if problems:
            raise EditRefused(f"{item.name}: " + "; ".join(str(p) for p in problems), tuple(problems))


def apply(edit: Edit, doc: Document) -> tuple[Document, Edit]:
    """Apply ``edit`` to ``doc``; return the new document and the edit that undoes it.
    An edit that would break a domain rule (``Chip.rule_broken``) raises EditRefused."""
    match edit:
        case Insert(collection, index, item):
            _check(collection, item)
            items = list(doc.items(collection))
            if any(existing.id == item.id for existing in items):
                raise KeyError(f"id {item.id!r} is already used")
            index = max(0, min(index, len(items)))
            items.insert(index, item)
            return _with(doc, collection, items), Remove(collection, item.id)
        case Remove(collection, item_id):
            index = doc.index_of(collection, item_id)
            items = list(doc.items(collection))
            item = items.pop(index)
            new_doc, inverse = _with(doc, collection, items), Insert(collection, index, item)
            if collection == "chips" and doc.baseline == item_id:
                # The baseline goes with its chip, so no document ever names a missing chip.
                return replace(new_doc, baseline=None), Batch((inverse, SetField("baseline", item_id)))
            return new_doc, inverse
        case Replace(collection, item):
            _check(collection, item)
            index = doc.index_of(collection, item.id)
            items = list(doc.items(collection))
            old, items[index] = items[index], item
            return _with(doc, collection, items), Replace(collection, old)
        case Move(collection, item_id, index):
            old_index = doc.index_of(collection, item_id)
            items = list(doc.items(collection))
            item = items.pop(old_index)
            index = max(0, min(index, len(items)))
            items.insert(index, item)
            return _with(doc, collection, items), Move(collection, item_id, old_index)
        case SetField(name, value):
            if name not in ("baseline", "title", "carbon_intensity", "serving_measured"):
                raise KeyError(f"unknown document field {name!r}")
            old = getattr(doc, name)
            return replace(doc, **{name: value}), SetField(name, old)
        case Batch(edits):
            inverses = []
            for step in edits:
                doc, inverse = apply(step, doc)
                inverses.append(inverse)
            return doc, Batch(tuple(reversed(inverses)))
    raise TypeError(f"not an edit: {edit!r}")


def touched_ids(edit: Edit) -> set[str]:
    """Ids of the chips and kernels an edit changes (for partial redraws)."""
    match edit:
        case Insert(_, _, item) | Replace(_, item):
            return {item.id}
        case Remove(_, item_id) | Move(_, item_id, _):
            return {item_id}
        case Batch(edits):
            return set().union(*(touched_ids(e) for e in edits)) if edits else set()
    return set()


def removed_ids(edit: Edit) -> set[str]:
    """Ids of the items an edit removes (a Batch may insert one again: ``transform`` does)."""
    match edit:
        case Remove(_, item_id):
            return {item_id}
        case Batch(edits):
            return set().union(*(removed_ids(e) for e in edits)) if edits else set()
    return set()


def transform(old: Document, new: Document) -> Batch:
    """One edit that turns ``old`` into ``new`` (as a recovered journal does to the file it
    came from), so the whole change is a single undo step."""
    edits: list = [Remove(c, item.id) for c in ("workloads", "kernels", "chips")
                   for item in old.items(c)]
    edits += [Insert(c, i, item) for c in ("chips", "kernels", "workloads")
              for i, item in enumerate(new.items(c))]
    edits += [SetField("title", new.title), SetField("baseline", new.baseline)]
    return Batch(tuple(edits))


#: Colours given to chips in turn (matplotlib's tab10), so each chip's roofs stand apart.
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#17becf", "#7f7f7f", "#bcbd22")


def next_color(doc: Document, taken: int = 0) -> str:
    """The ``taken``-th palette colour no chip of ``doc`` uses yet (cycling when all are)."""
    used = {c.color for c in doc.chips}
    free = [c for c in PALETTE if c not in used]
    return free[taken % len(free)] if free else PALETTE[(len(used) + taken) % len(PALETTE)]


def with_colours(chips) -> tuple:
    """``chips`` each in a colour of its own: its own where no chip before it has it, else the
    next free one of the palette (as insert_new gives them to chips added to a session)."""
    out: list = []
    for chip in chips:
        if not chip.color or any(c.color == chip.color for c in out):
            chip = replace(chip, color=next_color(Document(chips=tuple(out))))
        out.append(chip)
    return tuple(out)


def insert_new(doc: Document, collection: str, items: list[Item],
               index: int | None = None) -> tuple[Batch, list[str]]:
    """The edit that inserts copies of ``items`` (chips or kernels) with fresh ids at ``index``
    (default: the end); a chip keeps its colour unless another chip has it, else takes the next
    free one, and its name unless another chip has it, else is named as a copy ("H100 SXM5
    80GB (copy)": a preset added twice had made two chips of one name, which the legend, the
    table's columns and the explanation could not tell apart, "runs it at the same speed" as
    itself: the twenty-sixth tour). Returns the edit and the new ids. The app's Add and the
    Python API both use it."""
    prefix = {"chips": "c", "kernels": "k", "workloads": "w"}[collection]
    index = len(doc.items(collection)) if index is None else index
    base = int(doc.new_id(prefix)[len(prefix):])
    colors = {c.color for c in doc.chips}
    names = {c.name for c in doc.chips}
    edits, ids, fresh_colors = [], [], 0
    for offset, item in enumerate(items):
        new_id = f"{prefix}{base + offset}"
        changes: dict[str, Any] = {"id": new_id}
        if collection == "chips":
            if not item.color or item.color in colors:
                changes["color"] = next_color(doc, fresh_colors)
                fresh_colors += 1
            colors.add(changes.get("color", item.color))
            if item.name in names:
                changes["name"] = copy_name(item.name, names)
            names.add(changes.get("name", item.name))
        edits.append(Insert(collection, index + offset, replace(item, **changes)))
        ids.append(new_id)
    return Batch(tuple(edits)), ids
