"""Session files: ``{"format": "roofline-session", "version": N, ...}`` (docs/session-format.md).

Loading runs stepwise ``dict -> dict`` migrations up to the current version, then validates the
whole file, collecting every problem with its JSON path. A bad file raises and never yields a
half-loaded document; a newer file raises SessionVersionError. Saving is atomic.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from roofline_gui.core.chip import Chip
from roofline_gui.core.document import Document
from roofline_gui.core.errors import Problem, SessionVersionError, ValidationError
from roofline_gui.core.i18n import _
from roofline_gui.io.files import dumps, parse_json_bytes, read_json, write_atomic
from roofline_gui.io.presets import Presets, default_presets
from roofline_gui.io.serialize import chip_to_dict, kernel_to_dict
from roofline_gui.io.validate import PRESET_OVERRIDES, Checker, read_chip, read_kernel

FORMAT = "roofline-session"
VERSION = 12
MAX_ITEMS = 100_000
#: The keys a session file may have at its top level.
TOP_KEYS = ("format", "version", "title", "baseline", "chips", "kernels", "workloads",
            "carbon_intensity", "serving_measured")
#: A measured serving point's keys (version 12), as the Serving view's CSV names its columns.
MEASURED_KEYS = ("chip", "tokens_per_s_per_user", "tokens_per_s_per_chip", "source")


def _v1_to_v2(data: dict) -> dict:
    """Version 2 gives every chip and kernel a stable id and adds ``baseline``.

    Version 1 files (the minimal hand-written form) carry no ids; they get c1, c2... and
    k1, k2... in file order. Entries that are not objects are left for validation to report.
    """
    out = copy.deepcopy(data)
    for key, prefix in (("chips", "c"), ("kernels", "k")):
        items = out.get(key)
        if isinstance(items, list):
            for i, item in enumerate(items):
                if isinstance(item, dict) and "id" not in item:
                    item["id"] = f"{prefix}{i + 1}"
    out.setdefault("baseline", None)
    out["version"] = 2
    return out


def _v2_to_v3(data: dict) -> dict:
    """Version 3 adds ``workloads`` (whole models); a version 2 file has none."""
    return {**data, "version": 3}


def _v3_to_v4(data: dict) -> dict:
    """Version 4 adds measured ceilings (a level's ``measured``, a chip's ``compute_measured``);
    a version 3 file has none."""
    return {**data, "version": 4}


def _v4_to_v5(data: dict) -> dict:
    """Version 5 adds where a template kernel's operands live (a kernel's ``resides``); in a
    version 4 file every operand is in main memory, as its kernels were counted then."""
    return {**data, "version": 5}


def _v5_to_v6(data: dict) -> dict:
    """Version 6 lets a ceiling keep the datasheet figure a what-if moved it from (a level's
    ``what_if_of``, a chip's ``compute_what_if_of``); a version 5 file has none."""
    return {**data, "version": 6}


def _v6_to_v7(data: dict) -> dict:
    """Version 7 adds training workloads (phase ``train`` and its ``global_batch``,
    ``data_parallel``, ``pipeline_parallel``, ``zero``, ``recompute``, ``optimizer``,
    ``train_tokens``); a version 6 file's workloads are all inference."""
    return {**data, "version": 7}


def _v7_to_v8(data: dict) -> dict:
    """Version 8 adds a chip's ``energy`` (board and idle power, energy per op and per byte, a
    price per chip-hour, their sources) and the session's ``carbon_intensity`` (kg CO2 per kWh);
    a version 7 file has neither: a chip added again from its preset brings its board power."""
    return {**data, "version": 8}


def _v8_to_v9(data: dict) -> dict:
    """Version 9 gives energy per byte per memory level (``byte_pj`` keyed by a level's name; a
    role's key gives every level of that role not named). In version 8 a role's figure was
    charged once for the role's bytes, whatever its levels: it becomes the figure of the role's
    first level, so every number stays as it was."""
    out = copy.deepcopy(data)
    chips = out.get("chips")
    for chip in chips if isinstance(chips, list) else []:
        energy = chip.get("energy") if isinstance(chip, dict) else None
        memory = chip.get("memory") if isinstance(chip, dict) else None
        byte = energy.get("byte_pj") if isinstance(energy, dict) else None
        if not (isinstance(byte, dict) and isinstance(memory, list)):
            continue
        for role in list(byte):
            names = [lv.get("name") for lv in memory if isinstance(lv, dict)
                     and lv.get("role") == role and isinstance(lv.get("name"), str)]
            if len(names) > 1 and names[0] not in byte:
                byte[names[0]] = byte.pop(role)
                sources = energy.get("sources")
                if isinstance(sources, dict) and f"byte:{role}" in sources:
                    sources[f"byte:{names[0]}"] = sources.pop(f"byte:{role}")
    out["version"] = 9
    return out


_WHAT_IF_NOTE = re.compile(r"What-if: (?P<of>.+) with (?P<changes>.+)\.")


def _v9_to_v10(data: dict) -> dict:
    """Version 10 keeps what the app named a what-if chip in fields (``auto_name``: its own
    name and what moved; ``derived_from``: the chip a derived copy was made from) instead of
    reading them back from its name and notes. A version 9 file said them in words: a
    derived copy's first note line "What-if: X with HBM3 ×2." and a dragged chip's name
    "X (what-if)"; each is read once here, and the note line leaves the notes."""
    out = copy.deepcopy(data)
    chips = out.get("chips")
    for chip in chips if isinstance(chips, list) else []:
        if not isinstance(chip, dict) or not isinstance(chip.get("name"), str):
            continue
        name, notes = chip["name"], chip.get("notes")
        lines = notes.split("\n") if isinstance(notes, str) else []
        match = _WHAT_IF_NOTE.fullmatch(lines[0]) if lines else None
        if match:
            changes = [] if match["changes"] == "nothing changed" else match["changes"].split(", ")
            base = match["of"].removesuffix(" (what-if)")
            chip["derived_from"] = match["of"]
            chip["notes"] = "\n".join(lines[1:])
            named = f"{base}, {', '.join(changes)}" if changes else f"{base} (what-if)"
            if named == name:
                chip["auto_name"] = {"base": base, "changes": changes}
        elif name.endswith(" (what-if)") and (chip.get("compute_what_if_of") or any(
                isinstance(lv, dict) and lv.get("what_if_of") is not None
                for lv in chip.get("memory") or [])):
            chip["auto_name"] = {"base": name.removesuffix(" (what-if)"), "changes": []}
    out["version"] = 10
    return out


def _v10_to_v11(data: dict) -> dict:
    """Version 11 adds what a version 10 file cannot hold, so nothing changes on the way up: a
    workload's expert parallelism, routing imbalance and attention data parallelism
    (``expert_parallel``, ``moe_imbalance``, ``attention_data_parallel``) and DeepSeek's
    multi-token prediction module (``mtp``), a serving bound's requests and limits
    (``input_tokens``, ``output_tokens``, ``tpot_limit``, ``ttft_limit``, ``draft_tokens``,
    ``acceptance``),
    the block-scaled formats (mxfp8, mxfp6, mxfp4, nvfp4) for its weights, activations and KV
    cache, and the fp6 and fp4 peaks of a chip."""
    return {**data, "version": 11}


def _v11_to_v12(data: dict) -> dict:
    """Version 12 adds ``serving_measured``, the measured or published serving points the
    Serving view draws against their chips' bounds; a version 11 file has none."""
    return {**data, "version": 12}


MIGRATIONS: dict[int, Callable[[dict], dict]] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4,
                                                 4: _v4_to_v5, 5: _v5_to_v6, 6: _v6_to_v7,
                                                 7: _v7_to_v8, 8: _v8_to_v9, 9: _v9_to_v10,
                                                 10: _v10_to_v11, 11: _v11_to_v12}


def migrate(data: dict) -> dict:
    """Bring a session dict to the current version, one step at a time."""
    version = data.get("version")
    if isinstance(version, float) and version.is_integer():
        version = int(version)  # 2.0 is 2, as JSON Schema's "integer" has it
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ValidationError([Problem("version", _("must be a whole number ≥ 1, not {value}").format(
            value=repr(version)))])
    if version > VERSION:
        raise SessionVersionError(_(
            "this session is format version {version}, written by a newer Roofline Explorer; "
            "this version reads up to {supported}. Please update the app.").format(
            version=version, supported=VERSION))
    data = {**data, "version": version}
    while data["version"] < VERSION:
        data = MIGRATIONS[data["version"]](data)
    return data


def parse_session(data: Any, presets: Presets | None = None, source: str = "") -> Document:
    """Validate a parsed JSON value and build the Document, or raise with every problem."""
    presets = presets or default_presets()
    ck = Checker()
    root = ck.obj(data, "(file)")
    if root is None:
        raise ValidationError(ck.problems, source)
    if root.get("format") != FORMAT:
        ck.fail("format", _("must be {format}; this is not a Roofline Explorer session").format(
            format=repr(FORMAT)))
        raise ValidationError(ck.problems, source)
    try:
        root = migrate(root)
    except ValidationError as exc:
        raise ValidationError(exc.problems, source) from None
    ck.known_keys(root, "", TOP_KEYS)
    chips = _read_items(ck, root, "chips", presets.chips, read_chip)
    kernels = _read_items(ck, root, "kernels", presets.kernels, read_kernel)
    workloads = []
    if root.get("workloads"):  # the workload modules only for a session that has workloads
        from roofline_gui.io.workloads import read_workload  # noqa: PLC0415

        by_id = {k.id: k for k in kernels}
        workloads = _read_items(ck, root, "workloads", {},
                                lambda ck, d, path, item_id: read_workload(ck, d, path, item_id,
                                                                           by_id))
    elif "workloads" in root:
        ck.array(root["workloads"], "workloads")  # [] is fine; anything else is named
    title = ck.text(root, "title", "")
    baseline = root.get("baseline")
    if baseline is not None and not isinstance(baseline, str):
        ck.fail("baseline", _("must be a chip id (text) or null"))
    elif baseline is not None and baseline not in _chip_ids(root):
        # (a chip that is in the file but was refused is named already: no second problem)
        ck.fail("baseline", _("names no chip in this session ({baseline})").format(
            baseline=repr(baseline)))
    carbon = root.get("carbon_intensity")
    if carbon is not None:
        carbon = ck.number(carbon, "carbon_intensity", inclusive_min=True, maximum=10.0)
    measured = _read_measured(ck, root.get("serving_measured", []))
    if ck.problems:
        raise ValidationError(ck.problems, source)
    return Document(chips=tuple(chips), kernels=tuple(kernels), workloads=tuple(workloads),
                    baseline=baseline, title=title,
                    carbon_intensity=None if carbon is None else float(carbon),
                    serving_measured=measured)


def _read_measured(ck: Checker, raw: Any) -> tuple:
    """The measured serving points: each a chip (its name or preset id), two rates and a
    source."""
    items = ck.array(raw, "serving_measured")
    if not items:
        return ()
    from roofline_gui.core.workload import MeasuredServing  # noqa: PLC0415

    if len(items) > MAX_ITEMS:
        ck.fail("serving_measured", _("{n} points is more than the {most} a session may "
                                      "hold").format(n=len(items), most=MAX_ITEMS))
        return ()
    out = []
    for i, item in enumerate(items):
        path = f"serving_measured[{i}]"
        d = ck.obj(item, path)
        if d is None:
            continue
        ck.known_keys(d, path, MEASURED_KEYS)
        chip = ck.text(d, "chip", path, required=True)
        user = ck.number(d.get("tokens_per_s_per_user"), f"{path}.tokens_per_s_per_user",
                         maximum=1e12)
        per_chip = ck.number(d.get("tokens_per_s_per_chip"), f"{path}.tokens_per_s_per_chip",
                             maximum=1e12)
        src = ck.text(d, "source", path)
        if None not in (chip, user, per_chip, src):
            out.append(MeasuredServing(chip.strip(), user, per_chip, src))
    return tuple(out)


def _chip_ids(root: dict) -> set:
    """The ids of the chips in a session file, read or refused."""
    chips = root.get("chips")
    if not isinstance(chips, list):
        return set()
    return {c["id"] for c in chips if isinstance(c, dict) and isinstance(c.get("id"), str)}


def _read_items(ck: Checker, root: dict, key: str, library: dict, reader) -> list:
    raw = ck.array(root.get(key, []), key)
    if raw is None:
        return []
    if len(raw) > MAX_ITEMS:
        ck.fail(key, _("{n} entries is more than the {most} a session may hold").format(
            n=len(raw), most=MAX_ITEMS))
        return []
    items, seen = [], set()
    for i, entry in enumerate(raw):
        path = f"{key}[{i}]"
        d = ck.obj(entry, path)
        if d is None:
            continue
        item_id = d.get("id")
        if not isinstance(item_id, str) or not item_id:
            ck.fail(f"{path}.id", _("is required (a non-empty text)"))
            continue
        if item_id in seen:
            ck.fail(f"{path}.id", _("duplicate id {id}").format(id=repr(item_id)))
            continue
        seen.add(item_id)
        item = _resolve(ck, d, path, item_id, library, reader)
        if item is not None:
            items.append(item)
    return items


def _resolve(ck: Checker, d: dict, path: str, item_id: str, library: dict, reader):
    """A full entry, or a reference ``{"preset": id}`` (with optional color/visible)."""
    if "name" in d or "preset" not in d:
        return reader(ck, d, path, item_id)
    preset_id = d["preset"]
    if not isinstance(preset_id, str) or preset_id not in library:
        ck.fail(f"{path}.preset", _("unknown preset {preset} (python app.py --list-presets lists "
                                    "them)").format(preset=repr(preset_id)))
        return None
    allowed = PRESET_OVERRIDES["chip" if reader is read_chip else "kernel"]
    ck.known_keys(d, path, ("id", "preset", *allowed))
    base = replace(library[preset_id], id=item_id)
    overrides = {k: d[k] for k in allowed if k in d}
    if not overrides:
        return base
    # Overrides go through the same reader as a full entry, so they are validated alike.
    to_dict = chip_to_dict if isinstance(base, Chip) else kernel_to_dict
    return reader(ck, {**to_dict(base), **overrides}, path, item_id)


#: What ``--measure --json`` writes: the measured figures and, under ``chip``, the machine in
#: the session's chip format.
MEASUREMENT_FORMAT = "roofline-measurement"


def parse_measurement(data: dict, presets: Presets | None = None, source: str = "") -> Document:
    """A measurement file's chip as a session of its own (no kernels)."""
    ck = Checker()
    d = ck.obj(data.get("chip"), "chip")
    chip = None
    if d is not None:
        chip_id = d.get("id") if isinstance(d.get("id"), str) and d.get("id") else "this-computer"
        chip = read_chip(ck, d, "chip", chip_id)
    if ck.problems or chip is None:
        raise ValidationError(ck.problems, source)
    return Document(chips=(chip,), title=chip.name)


def parse_document(data: Any, presets: Presets | None = None,
                   source: str = "") -> tuple[Document, bool]:
    """A session, or a measurement file (its chip, as a new session); the flag says whether it
    was a session (one that saving may write back to)."""
    if isinstance(data, dict) and data.get("format") == MEASUREMENT_FORMAT:
        return parse_measurement(data, presets, source), False
    return parse_session(data, presets, source), True


def open_document(path: str | os.PathLike, presets: Presets | None = None) -> tuple[Document, bool]:
    return parse_document(read_json(path), presets, str(path))


def load_session(path: str | os.PathLike, presets: Presets | None = None) -> Document:
    """The document in a session file (or a measurement file's chip)."""
    return open_document(path, presets)[0]


def loads_session(raw: bytes, presets: Presets | None = None, source: str = "") -> Document:
    return parse_session(parse_json_bytes(raw, source), presets, source)


def session_to_dict(doc: Document) -> dict:
    """The current-version dict of a document. Chips and kernels are written in full (with
    their preset id as origin), so a saved session does not change when presets do."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "title": doc.title,
        "baseline": doc.baseline,
        "chips": [chip_to_dict(c) for c in doc.chips],
        "kernels": [kernel_to_dict(k) for k in doc.kernels],
        "workloads": _workloads_to_dicts(doc),
        **({} if doc.carbon_intensity is None else {"carbon_intensity": doc.carbon_intensity}),
        **({} if not doc.serving_measured else {"serving_measured": [
            dict(zip(MEASURED_KEYS, (p.chip, p.per_user, p.per_chip, p.source), strict=True))
            for p in doc.serving_measured]}),
    }


def _workloads_to_dicts(doc: Document) -> list[dict]:
    if not doc.workloads:
        return []
    from roofline_gui.io.workloads import workload_to_dict  # noqa: PLC0415

    return [workload_to_dict(w) for w in doc.workloads]


def dump_session(doc: Document) -> bytes:
    return dumps(session_to_dict(doc))


def save_session(doc: Document, path: str | os.PathLike) -> None:
    write_atomic(path, dump_session(doc))
