"""The session file's JSON Schema, built from the same constants the loader checks against.

``docs/session.schema.json`` is this module's output (``python -m roofline_gui.io.schema``
writes it; a test fails when the file is stale). The loader (``io/session.py`` with
``io/validate.py``) and this schema accept and refuse the same files: a test runs both over the
whole fuzz corpus and fails on the first file where they differ.

JSON Schema cannot state rules that relate one part of a file to another. Those are listed in
the schema's ``x-roofline-references`` keyword and checked by :func:`reference_problems`:
chip ids are unique, kernel ids are unique (after version 1's ids are filled in), and
``baseline`` names a chip of the file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from roofline_gui.core.build import build
from roofline_gui.core.errors import ValidationError
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.templates import RESIDENCES, TEMPLATES
from roofline_gui.core.units import FORMATS, MEMORY_ROLES, PRECISIONS
from roofline_gui.core.workload import KINDS, LINK_ROLES, MAX_DIM, OPTIMIZERS, PHASES, RECOMPUTE, Workload
from roofline_gui.io.presets import Presets, default_presets
from roofline_gui.io.validate import (
    CHIP_KEYS,
    ENERGY_KEYS,
    KERNEL_FORMS,
    KERNEL_KEYS,
    LEVEL_KEYS,
    MAX_BANDWIDTH,
    MAX_COMPUTE,
    MAX_INTENSITY,
    MAX_SIZE,
    MAX_TEXT,
    MAX_YEAR,
    MEASURED_KEYS,
    PRESET_OVERRIDES,
)
from roofline_gui.io.workloads import WORKLOAD_KEYS

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "docs" / "session.schema.json"

REFERENCE_RULES = [
    "chips[*].id are unique; kernels[*].id are unique; workloads[*].id are unique (a version 1 "
    "entry without an id is given c1, c2... or k1, k2... by its place in the list before the "
    "check)",
    "baseline, when not null, is the id of one of the file's chips",
    "chips[*].compute_measured has only precisions that the same chip's compute has",
    "workloads[*].spec builds: a transformer's spec is a config.json whose sizes are whole "
    "numbers and whose heads divide the hidden size and KV heads divide the heads; a CNN's "
    "spec.layers, an MLP's spec.widths and an LSTM's spec sizes are whole numbers; a custom "
    "workload's spec.entries name kernels of the file (the generators in core/workload.py "
    "state each rule)",
]


def _positive(maximum: float, description: str = "") -> dict:
    out: dict = {"type": "number", "exclusiveMinimum": 0, "maximum": maximum}
    if description:
        out["description"] = description
    return out


def _optional(schema: dict) -> dict:
    """A value that may also be null (null means: not given)."""
    return {"anyOf": [{"type": "null"}, schema]}


def session_schema(presets: Presets | None = None) -> dict:
    from roofline_gui.io.session import FORMAT, MAX_ITEMS, VERSION

    presets = presets or default_presets()
    text = {"type": "string", "maxLength": MAX_TEXT}
    name = {"type": "string", "maxLength": MAX_TEXT, "pattern": r"\S",
            "description": "not empty or only spaces"}
    color = {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"}
    size = _positive(MAX_SIZE)
    fraction = _positive(1.0)
    per_precision = {"type": "object", "propertyNames": {"$ref": "#/$defs/precision"}}
    item_id = {"type": "string", "minLength": 1}

    def measured(maximum: float, unit: str) -> dict:
        out = {
            "type": "object",
            "required": ["value", "date", "method"],
            "properties": {"value": _positive(maximum, f"{unit} as measured"), "date": name,
                           "method": name, "host": text},
            "additionalProperties": False,
            "description": "a measured ceiling: its value, when, how and where",
        }
        assert set(out["properties"]) == set(MEASURED_KEYS)
        return out

    level = {
        "type": "object",
        "required": ["role", "name", "bandwidth"],
        "properties": {
            "role": {"$ref": "#/$defs/role"},
            "name": name,
            "bandwidth": _positive(MAX_BANDWIDTH, "B/s (read, or both directions' shared rate)"),
            "write_bandwidth": _optional(_positive(MAX_BANDWIDTH, "B/s for written bytes")),
            "capacity": _optional(_positive(MAX_SIZE, "B")),
            "achievable": _optional(fraction),
            "source": text,
            "measured": _optional(measured(MAX_BANDWIDTH, "B/s")),
            "what_if_of": _optional(_positive(MAX_BANDWIDTH, "the datasheet B/s a what-if moved")),
        },
        "additionalProperties": False,
    }
    assert set(level["properties"]) == set(LEVEL_KEYS)
    chip = {
        "type": "object",
        "required": ["name", "compute", "memory"],
        "properties": {
            "id": item_id,
            "name": name,
            "vendor": text,
            "year": _optional({"type": "integer", "exclusiveMinimum": 0, "maximum": MAX_YEAR}),
            "notes": text,
            "compute": {
                **per_precision, "minProperties": 1,
                "additionalProperties": _positive(MAX_COMPUTE),
                "description": "dense peak op/s per precision, per chip",
            },
            "compute_sources": {**per_precision, "additionalProperties": {"type": "string"}},
            "achievable": {**per_precision, "additionalProperties": fraction},
            "compute_measured": {**per_precision,
                                 "additionalProperties": measured(MAX_COMPUTE, "op/s")},
            "compute_what_if_of": {**per_precision, "additionalProperties": _positive(MAX_COMPUTE),
                                   "description": "the datasheet peak a what-if moved"},
            "memory": {
                "type": "array", "items": {"$ref": "#/$defs/level"},
                "contains": {"type": "object", "required": ["role"],
                             "properties": {"role": {"const": "dram"}}},
                "description": "at least one level has role 'dram' (main memory)",
            },
            "color": _optional(color),
            "visible": {"type": "boolean"},
            "preset": _optional({"type": "string", "description": "the preset this chip came from"}),
            "auto_name": _optional({
                "type": "object", "additionalProperties": False, "required": ["base"],
                "description": "the name the app gave a what-if chip (version 10): the chip's own "
                               "name and what moved; the name is the app's while it still reads "
                               "'base, changes…' or 'base (what-if)'",
                "properties": {"base": {"type": "string", "minLength": 1},
                               "changes": {"type": "array", "items": {"type": "string"}}}}),
            "derived_from": _optional({"type": "string", "description": "the name of the chip a "
                                                                       "what-if copy was made from"}),
            "energy": {
                "type": "object", "additionalProperties": False,
                "description": "power and energy (version 8): board power and idle power in W, "
                               "energy per op by precision and per byte in pJ (version 9: by "
                               "one of the chip's memory level names, or by memory role for "
                               "every level of it not named), a price per chip-hour in $, and "
                               "each one's source",
                "properties": {
                    # null: not given, as the loader reads it
                    "board_power": _optional(_positive(1e7)),
                    "price_per_hour": _optional(_positive(1e7)),
                    "idle_power": _optional({"type": "number", "minimum": 0, "maximum": 1e7}),
                    "op_pj": {**per_precision, "additionalProperties": _positive(1e6)},
                    "byte_pj": {"type": "object", "propertyNames": {"minLength": 1},
                                "additionalProperties": _positive(1e6)},
                    "sources": {"type": "object", "additionalProperties": {"type": "string"}},
                },
            },
        },
        "additionalProperties": False,
    }
    assert set(chip["properties"]) == set(CHIP_KEYS)
    assert set(chip["properties"]["energy"]["properties"]) == set(ENERGY_KEYS)
    per_role = {"type": "object", "propertyNames": {"$ref": "#/$defs/role"}}

    def others(form: str) -> dict:
        keys = [k for f, ks in KERNEL_FORMS.items() if f != form for k in ks]
        return {"not": {"anyOf": [{"required": [k]} for k in keys]}}

    kernel = {
        "type": "object",
        "required": ["name", "precision"],
        "properties": {
            "id": item_id,
            "name": name,
            "category": text,
            "precision": {"$ref": "#/$defs/precision"},
            "storage_precision": _optional({"$ref": "#/$defs/precision"}),
            "template": {"enum": list(TEMPLATES)},
            "params": {"type": "object"},
            "resides": {"type": "object", "additionalProperties": {"enum": list(RESIDENCES)},
                        "description": "where each operand (by the template's operand names) "
                                       "lives when not in main memory: cache or host"},
            "flops": _positive(MAX_SIZE, "ops per call (1 MAC = 2 ops)"),
            "bytes": {**per_role, "required": ["dram"], "additionalProperties": size,
                      "description": "bytes moved per level; dram is required"},
            "write_bytes": {**per_role, "additionalProperties": {
                "type": "number", "minimum": 0, "maximum": MAX_SIZE}},
            "intensity": _positive(MAX_INTENSITY, "ops per dram byte"),
            "measured_time": _optional(_positive(MAX_SIZE, "s")),
            "measured_flops": _optional(_positive(MAX_COMPUTE, "op/s")),
            "notes": text,
            "source": text,
            "preset": _optional({"type": "string", "description": "the preset this kernel came from"}),
        },
        "additionalProperties": False,
        "description": "one of three forms: a template with params; flops with bytes; an intensity",
        "oneOf": [
            {"required": ["template"], **others("template")},
            {"required": ["flops", "bytes"], **others("flops")},
            {"required": ["intensity"], **others("intensity")},
        ],
        "allOf": [_template_params(t) for t in TEMPLATES],
    }
    assert set(kernel["properties"]) == set(KERNEL_KEYS)

    def reference(kind: str, library: dict) -> dict:
        allowed = PRESET_OVERRIDES[kind]
        props: dict = {"id": item_id, "preset": {"enum": sorted(library)}}
        if "color" in allowed:
            props["color"] = _optional(color)
        if "visible" in allowed:
            props["visible"] = {"type": "boolean"}
        return {"type": "object", "required": ["preset"], "properties": props,
                "additionalProperties": False,
                "description": f"a shipped {kind} preset by id (--list-presets lists them)"}

    workload = {
        "type": "object",
        "required": ["name", "kind", "spec"],
        "properties": {
            "id": item_id,
            "name": name,
            "kind": {"enum": list(KINDS)},
            "spec": {"type": "object", "description": "the model: a config.json (transformer), "
                     "{layers} (cnn), {widths} (mlp), {layers, input, hidden, steps} (lstm) or "
                     "{entries: [{kernel, count}]} (custom)"},
            "phase": {"enum": list(PHASES)},
            **{key: {"type": "integer", "minimum": 1, "maximum": MAX_DIM}
               for key in ("batch", "sequence", "context", "chips_per_model")},
            **{key: {"$ref": "#/$defs/format"} for key in ("weights", "activations", "kv_cache")},
            # a mixture of experts (version 11)
            "expert_parallel": {"type": "integer", "minimum": 1, "maximum": MAX_DIM,
                                "description": "chips the routed experts are spread over (a "
                                               "divisor of chips_per_model and of the experts)"},
            "mtp": {"type": "boolean", "description": "DeepSeek: its multi-token prediction "
                                                      "module held (and counted) beside the model"},
            # serving (version 11): the Serving view's requests and limits
            **{key: {"type": "integer", "minimum": 1, "maximum": MAX_DIM}
               for key in ("input_tokens", "output_tokens")},
            "draft_tokens": {"type": "integer", "minimum": 0, "maximum": MAX_DIM},
            **{key: {"type": "integer", "minimum": 0, "maximum": MAX_DIM,
                     "description": "disaggregated serving: the chips that prefill and those "
                                    "that decode (0 for both: each chip does both; version 12)"}
               for key in ("prefill_chips", "decode_chips")},
            **{key: {"type": "number", "minimum": 0, "maximum": 1e6,
                     "description": "s; 0: no limit"} for key in ("tpot_limit", "ttft_limit")},
            "acceptance": {"type": "number", "minimum": 0, "maximum": 0.999999},
            "attention_data_parallel": {"type": "boolean", "description": "each of the N chips "
                                        "runs the attention of B/N sequences with every head"},
            "moe_imbalance": {"type": "number", "minimum": 1, "maximum": 100,
                              "description": "the busiest expert-parallel chip's load over the "
                                             "mean (1: perfectly even routing)"},
            "link": {"enum": list(LINK_ROLES)},
            "source": text,
            "visible": {"type": "boolean"},
            "activations_on_chip": {"type": "boolean", "description": "cnn, mlp, lstm: "
                                    "activations stay on chip, only weights cross main memory"},
            # a training step (phase "train", version 7): batch is the micro-batch
            "global_batch": {"type": "integer", "minimum": 0, "maximum": 10**9,
                             "description": "train: sequences (images) per optimizer step; "
                                            "0: micro-batch × data_parallel"},
            **{key: {"type": "integer", "minimum": 1, "maximum": MAX_DIM}
               for key in ("data_parallel", "pipeline_parallel")},
            "zero": {"type": "integer", "minimum": 0, "maximum": 3},
            "recompute": {"enum": list(RECOMPUTE)},
            "optimizer": {"enum": list(OPTIMIZERS)},
            "train_tokens": {"type": "number", "minimum": 0, "maximum": 1e18,
                             "description": "train: tokens (images) of the whole run"},
        },
        "additionalProperties": False,
    }
    assert set(workload["properties"]) == set(WORKLOAD_KEYS)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "roofline-session.schema.json",
        "title": "Roofline Explorer session",
        "description": (
            "A comparison session: chips, kernels and workloads (whole models). Units are "
            "decimal: compute in op/s, bandwidth in B/s, bytes in B. Version 1 files have no "
            "ids; version 2 has no workloads; version 3 no measured ceilings; version 4 no "
            "operand places; version 5 no what-if ceilings; version 6 no training workloads; "
            "version 7 no energy; version 10 no experts' parallelism, block-scaled formats or fp4 "
            "and fp6 peaks; "
            "the app migrates each to the current version on load. "
            "Generated by python -m roofline_gui.io.schema from the "
            "loader's own constants; rules between parts of the file are in "
            "x-roofline-references."
        ),
        "x-roofline-references": REFERENCE_RULES,
        "type": "object",
        "required": ["format", "version"],
        "properties": {
            "format": {"const": FORMAT},
            "version": {"type": "integer", "minimum": 1, "maximum": VERSION},
            "title": text,
            "baseline": {"type": ["string", "null"],
                         "description": "id of the chip speedups are measured against"},
            "chips": {"type": "array", "maxItems": MAX_ITEMS, "items": {
                "oneOf": [{"$ref": "#/$defs/chip"}, {"$ref": "#/$defs/chipPreset"}]}},
            "kernels": {"type": "array", "maxItems": MAX_ITEMS, "items": {
                "oneOf": [{"$ref": "#/$defs/kernel"}, {"$ref": "#/$defs/kernelPreset"}]}},
            "workloads": {"type": "array", "maxItems": MAX_ITEMS,
                          "items": {"$ref": "#/$defs/workload"}},
            "carbon_intensity": {"type": "number", "minimum": 0, "maximum": 10,
                                 "description": "the user's grid, kg CO2 per kWh (version 8)"},
            "serving_measured": {
                "type": "array", "maxItems": MAX_ITEMS,
                "description": "measured or published serving points, drawn against their "
                               "chips' serving bounds (version 12)",
                "items": {"type": "object", "additionalProperties": False,
                          "required": ["chip", "tokens_per_s_per_user", "tokens_per_s_per_chip"],
                          "properties": {
                              "chip": {**name,
                                       "description": "the chip's name or preset id"},
                              "tokens_per_s_per_user": {"type": "number",
                                                        "exclusiveMinimum": 0,
                                                        "maximum": 1e12},
                              "tokens_per_s_per_chip": {"type": "number",
                                                        "exclusiveMinimum": 0,
                                                        "maximum": 1e12},
                              "source": text}}},
        },
        "additionalProperties": False,
        "if": {"properties": {"version": {"minimum": 2}}},
        "then": {"properties": {
            "chips": {"items": {"required": ["id"]}},
            "kernels": {"items": {"required": ["id"]}},
            "workloads": {"items": {"required": ["id"]}},
        }},
        "$defs": {
            "precision": {"enum": list(PRECISIONS)},
            "format": {"enum": list(FORMATS)},
            "role": {"enum": list(MEMORY_ROLES)},
            "level": level,
            "chip": chip,
            "chipPreset": reference("chip", presets.chips),
            "kernel": kernel,
            "kernelPreset": reference("kernel", presets.kernels),
            "workload": workload,
        },
    }


def _template_params(template_id: str) -> dict:
    template = TEMPLATES[template_id]
    props = {}
    for p in template.params:
        props[p.name] = {"type": "integer" if p.integer else "number",
                         "minimum": p.minimum, "maximum": p.maximum, "description": p.label}
    return {
        "if": {"required": ["template"], "properties": {"template": {"const": template_id}}},
        "then": {"properties": {
            "params": {"properties": props, "additionalProperties": False},
            # where each operand lives: by the template's own operand names
            "resides": {"propertyNames": {"enum": [op.name for op in template.operands]}},
        }},
    }


def reference_problems(data: Any) -> list[str]:
    """The ``x-roofline-references`` rules, for a file the schema accepts."""
    problems = []
    ids: dict[str, list] = {}
    for key, prefix in (("chips", "c"), ("kernels", "k"), ("workloads", "w")):
        seen: list = []
        for i, entry in enumerate(data.get(key, [])):
            given = entry.get("id", f"{prefix}{i + 1}")
            if given in seen:
                problems.append(f"{key}[{i}].id: duplicate id {given!r}")
            seen.append(given)
        ids[key] = seen
    for i, entry in enumerate(data.get("chips", [])):
        for precision in entry.get("compute_measured", {}):
            if precision not in entry.get("compute", {}):
                problems.append(f"chips[{i}].compute_measured.{precision}: compute has no "
                                f"{precision} peak")
    baseline = data.get("baseline")
    if baseline is not None and baseline not in ids["chips"]:
        problems.append(f"baseline: names no chip ({baseline!r})")
    kernels = {}
    for i, entry in enumerate(data.get("kernels", [])):  # sized kernels, for custom workloads
        if "flops" in entry or "template" in entry:
            kernels[entry.get("id", f"k{i + 1}")] = Kernel(
                "", "", "fp32", template=entry.get("template"), params=entry.get("params", {}),
                flops=entry.get("flops"), bytes=entry.get("bytes", {}))
        elif "preset" in entry and "name" not in entry:
            kernels[entry.get("id", f"k{i + 1}")] = default_presets().kernels[entry["preset"]]
    for i, entry in enumerate(data.get("workloads", [])):
        workload = Workload("w", entry["name"], entry["kind"], entry["spec"], **{
            k: int(v) if isinstance(v, float) else v for k, v in entry.items()
            if k not in ("id", "name", "kind", "spec", "source")})
        try:
            build(workload, kernels)
        except ValidationError as exc:
            problems += [f"workloads[{i}].{p}" for p in exc.problems]
    return problems


def schema_text(presets: Presets | None = None) -> str:
    return json.dumps(session_schema(presets), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m roofline_gui.io.schema [OUT]
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else SCHEMA_PATH
    out.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {out}")
