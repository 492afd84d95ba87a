"""Workloads in files: the shipped examples, model configs opened from disk, and the
session's ``workloads`` entries (read through the same Checker as chips and kernels)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, fields, replace
from functools import cache
from pathlib import Path
from typing import Any

from roofline_gui.core.build import build
from roofline_gui.core.errors import Problem, ValidationError
from roofline_gui.core.workload import (
    KINDS,
    LINK_ROLES,
    MAX_DIM,
    OPTIMIZERS,
    PHASES,
    RECOMPUTE,
    SERVING_FIELDS,
    Workload,
)
from roofline_gui.io.files import read_json, resources_dir
from roofline_gui.io.validate import Checker

#: A training step's keys (version 7), written only where they differ from inference defaults.
TRAINING_KEYS = ("global_batch", "data_parallel", "pipeline_parallel", "zero", "recompute",
                 "optimizer", "train_tokens")
#: A mixture of experts' keys (version 11), written only where they differ from the defaults.
MOE_KEYS = ("expert_parallel", "moe_imbalance", "attention_data_parallel", "mtp")
#: A serving bound's keys (version 11), written only where they differ from the defaults.
SERVING_KEYS = SERVING_FIELDS
#: The keys a session's workload entry may have.
WORKLOAD_KEYS = ("id", "name", "kind", "spec", "phase", "batch", "sequence", "context", "weights",
                 "activations", "kv_cache", "chips_per_model", "link", "source", "visible",
                 "activations_on_chip", *TRAINING_KEYS, *MOE_KEYS, *SERVING_KEYS)
_INTS = ("batch", "sequence", "context", "chips_per_model")
_PRECISIONS = ("weights", "activations", "kv_cache")


@dataclass(frozen=True)
class ShippedWorkload:
    id: str
    name: str
    kind: str
    spec: dict
    source: str
    published_parameters: float | None
    defaults: dict
    published_active_parameters: float | None = None  # a mixture of experts' card

    def workload(self, workload_id: str = "w1", **changes: Any) -> Workload:
        return replace(Workload(workload_id, self.name, self.kind, self.spec, source=self.source,
                                **self.defaults), **changes)


def shipped_folder() -> Path:
    """Where the example models' files (their ``config.json`` among them) ship."""
    return resources_dir() / "workloads"


@cache
def shipped_workloads() -> dict[str, ShippedWorkload]:
    """The example models under ``resources/workloads`` (index.json names their sources)."""
    folder = shipped_folder()
    out = {}
    for item in json.loads((folder / "index.json").read_text(encoding="utf-8")):
        spec = item["spec"]
        if isinstance(spec, str):
            spec = json.loads((folder / spec).read_text(encoding="utf-8"))
        defaults = {k: item[k] for k in ("batch", "weights", "activations", "phase") if k in item}
        out[item["id"]] = ShippedWorkload(item["id"], item["name"], item["kind"], spec,
                                          item["source"], item.get("published_parameters"),
                                          defaults, item.get("published_active_parameters"))
    return out


def workload_from_config(path: str | os.PathLike, workload_id: str = "w1", **params: Any) -> Workload:
    """A transformer workload from a Hugging Face-style config.json on disk (never a download).
    Raises ValidationError naming the file and each bad field."""
    raw = read_json(path)
    name = Path(path).name.removesuffix(".json").removesuffix(".config")
    if isinstance(raw, dict) and isinstance(raw.get("_name_or_path"), str):
        name = raw["_name_or_path"].rsplit("/", 1)[-1] or name
    workload = Workload(workload_id, name, "transformer", raw if isinstance(raw, dict) else {},
                        source=f"config.json opened from {path}", **params)
    if not isinstance(raw, dict):
        raise ValidationError([Problem("config", "must be a JSON object (a config.json)")],
                              str(path))
    if "layers" in raw or "widths" in raw or "entries" in raw:
        raise ValidationError([Problem("config", "this is a CNN, MLP or custom workload's spec, "
                                                 "not a transformer's config.json: --model and "
                                                 "Open Model config.json take a language model's "
                                                 "config (hidden_size, num_hidden_layers...)")],
                              str(path))
    try:
        build(workload)
    except ValidationError as exc:
        raise ValidationError([Problem(p.path.replace("spec.", "", 1).replace("spec", "config"),
                                       p.message) for p in exc.problems], str(path)) from None
    return workload


def model_from_file(path: str | os.PathLike, workload_id: str = "w1", **params: Any) -> Workload:
    """A workload from a model file on disk: a transformer's config.json, or a CNN's layer list
    (``{"layers": [...]}``, as the shipped ResNet-50) or an MLP's widths (``{"widths": [...]}``).
    Raises ValidationError naming the file and each bad field."""
    raw = read_json(path)
    if isinstance(raw, dict) and ("layers" in raw and isinstance(raw["layers"], list)
                                  or "widths" in raw):
        kind = "cnn" if "layers" in raw else "mlp"
        name = str(raw.get("name") or Path(path).name.split(".")[0])
        workload = Workload(workload_id, name, kind, raw, source=f"{kind} spec opened from {path}",
                            **params)
        try:
            build(workload)
        except ValidationError as exc:
            raise ValidationError(exc.problems, str(path)) from None
        return workload
    return workload_from_config(path, workload_id, **params)


def workload_to_dict(w: Workload) -> dict:
    d = {f.name: getattr(w, f.name) for f in fields(w)}
    d["spec"] = dict(w.spec)
    if w.visible:
        del d["visible"]
    if not w.activations_on_chip:
        del d["activations_on_chip"]
    if not w.source:
        del d["source"]
    defaults = Workload("", "", w.kind, {})
    for key in (*TRAINING_KEYS, *MOE_KEYS, *SERVING_KEYS):  # an older workload's file stays as it was
        if d[key] == getattr(defaults, key):
            del d[key]
    return d


def read_workload(ck: Checker, d: dict, path: str, workload_id: str,
                  kernels: dict | None = None) -> Workload | None:
    """A session's workload entry, every problem recorded with its path. A custom workload's
    entries must name ``kernels`` of the same session."""
    start = len(ck.problems)
    ck.known_keys(d, path, WORKLOAD_KEYS)
    name = ck.text(d, "name", path, required=True)
    kind = d.get("kind")
    if kind not in KINDS:
        ck.fail(f"{path}.kind", f"must be one of {', '.join(KINDS)}, not {kind!r}")
    spec = ck.obj(d.get("spec"), f"{path}.spec")
    values: dict[str, Any] = {}
    for key in _INTS:
        if key in d:
            number = ck.number(d[key], f"{path}.{key}", integer=True, maximum=MAX_DIM)
            values[key] = None if number is None else int(number)
    for key in _PRECISIONS:
        if key in d:
            values[key] = ck.precision(d, key, path, formats=True)
    if "expert_parallel" in d:
        number = ck.number(d["expert_parallel"], f"{path}.expert_parallel", integer=True,
                           maximum=MAX_DIM)
        values["expert_parallel"] = None if number is None else int(number)
    for key in ("attention_data_parallel", "mtp"):
        if key in d:
            if not isinstance(d[key], bool):
                ck.fail(f"{path}.{key}", "must be true or false")
            else:
                values[key] = d[key]
    for key in ("input_tokens", "output_tokens", "draft_tokens", "prefill_chips",
                "decode_chips"):
        if key in d:
            number = ck.number(d[key], f"{path}.{key}", integer=True, maximum=MAX_DIM,
                               inclusive_min=key not in ("input_tokens", "output_tokens"))
            values[key] = None if number is None else int(number)
    for key in ("tpot_limit", "ttft_limit", "acceptance"):
        if key in d:
            number = ck.number(d[key], f"{path}.{key}", inclusive_min=True,
                               maximum=0.999999 if key == "acceptance" else 1e6)
            values[key] = None if number is None else float(number)
    if "moe_imbalance" in d:
        number = ck.number(d["moe_imbalance"], f"{path}.moe_imbalance", maximum=100)
        if number is not None and number < 1:
            ck.fail(f"{path}.moe_imbalance", f"must be from 1 (perfectly even routing) to 100, "
                                             f"not {number!r}")
        values["moe_imbalance"] = None if number is None else float(number)
    phase = d.get("phase", "decode")
    if phase not in PHASES:
        ck.fail(f"{path}.phase", f"must be prefill, decode or train, not {phase!r}")
    for key in ("data_parallel", "pipeline_parallel"):
        if key in d:
            number = ck.number(d[key], f"{path}.{key}", integer=True, maximum=MAX_DIM)
            values[key] = None if number is None else int(number)
    if "global_batch" in d:
        number = ck.number(d["global_batch"], f"{path}.global_batch", integer=True, inclusive_min=True,
                           maximum=10**9)
        values["global_batch"] = None if number is None else int(number)
    if "zero" in d:
        if isinstance(d["zero"], bool) or d["zero"] not in (0, 1, 2, 3):
            ck.fail(f"{path}.zero", f"ZeRO stage {d['zero']!r}: one of 0, 1, 2, 3")
        else:
            values["zero"] = int(d["zero"])
    if "train_tokens" in d:
        number = ck.number(d["train_tokens"], f"{path}.train_tokens", inclusive_min=True,
                           maximum=1e18)
        values["train_tokens"] = None if number is None else float(number)
    for key, allowed in (("recompute", RECOMPUTE), ("optimizer", OPTIMIZERS)):
        if key in d:
            if d[key] not in allowed:
                ck.fail(f"{path}.{key}", f"must be one of {', '.join(allowed)}, not {d[key]!r}")
            values[key] = d[key]
    link = d.get("link", "link")
    if link not in LINK_ROLES:
        ck.fail(f"{path}.link", f"must be one of {', '.join(LINK_ROLES)}, not {link!r}")
    visible = d.get("visible", True)
    if not isinstance(visible, bool):
        ck.fail(f"{path}.visible", "must be true or false")
    on_chip = d.get("activations_on_chip", False)
    if not isinstance(on_chip, bool):
        ck.fail(f"{path}.activations_on_chip", "must be true or false")
    source = ck.text(d, "source", path)
    if len(ck.problems) > start:
        return None
    workload = Workload(workload_id, name, kind, spec, phase=phase, link=link, source=source,
                        visible=visible, activations_on_chip=on_chip, **values)
    try:
        build(workload, kernels or {})
    except ValidationError as exc:
        for p in exc.problems:
            ck.fail(f"{path}.{p.path}", p.message)
        return None
    return workload
