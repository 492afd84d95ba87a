"""Core objects to plain JSON-ready dicts, omitting fields at their defaults."""

from __future__ import annotations

from dataclasses import asdict

from roofline_gui.core.chip import Chip, MemoryLevel
from roofline_gui.core.kernel import Kernel


def _drop_empty(d: dict) -> dict:
    return {k: v for k, v in d.items() if v not in (None, "", {}, ())}


def level_to_dict(level: MemoryLevel) -> dict:
    return _drop_empty(asdict(level))


def chip_to_dict(chip: Chip) -> dict:
    d = {
        "id": chip.id,
        "name": chip.name,
        "vendor": chip.vendor,
        "year": chip.year,
        "notes": chip.notes,
        "compute": dict(chip.compute),
        "compute_sources": dict(chip.compute_sources),
        "achievable": dict(chip.compute_achievable),
        "compute_measured": {p: asdict(m) for p, m in chip.compute_measured.items()},
        "memory": [level_to_dict(level) for level in chip.memory],
        "color": chip.color,
        "preset": chip.preset,
        "compute_what_if_of": dict(chip.compute_what_if_of),
        "energy": None if chip.energy is None else _drop_empty({
            "board_power": chip.energy.board_power, "idle_power": chip.energy.idle_power,
            "op_pj": dict(chip.energy.op_pj), "byte_pj": dict(chip.energy.byte_pj),
            "price_per_hour": chip.energy.price_per_hour, "sources": dict(chip.energy.sources)}),
        "auto_name": None if chip.auto_name is None else {
            "base": chip.auto_name.base, "changes": list(chip.auto_name.changes)},
        "derived_from": chip.derived_from,
    }
    out = _drop_empty(d)
    out["compute"] = dict(chip.compute)
    if not chip.visible:
        out["visible"] = False
    return out


def kernel_to_dict(kernel: Kernel) -> dict:
    d = {
        "id": kernel.id,
        "name": kernel.name,
        "category": kernel.category,
        "precision": kernel.precision,
        "storage_precision": kernel.storage_precision,
        "template": kernel.template,
        "params": dict(kernel.params),
        "flops": kernel.flops,
        "bytes": dict(kernel.bytes),
        "write_bytes": dict(kernel.write_bytes),
        "intensity": kernel.intensity,
        "measured_time": kernel.measured_time,
        "measured_flops": kernel.measured_flops,
        "notes": kernel.notes,
        "source": kernel.source,
        "preset": kernel.preset,
        "resides": dict(kernel.resides),
    }
    out = _drop_empty(d)
    if "params" in out:
        out["params"] = {k: _int_if_whole(v) for k, v in out["params"].items()}
    return out


def _int_if_whole(value: float) -> float | int:
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else value
