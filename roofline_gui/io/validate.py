"""Turning untrusted JSON values into core objects, collecting every problem with its path.

The ``Checker`` never raises while reading: each getter records a :class:`Problem` and returns
None, so one pass reports every mistake in a file. Callers raise one ValidationError at the end
if ``checker.problems`` is not empty; nothing is half-built.
"""

from __future__ import annotations

import math
import re
from typing import Any

from roofline_gui.core.chip import AutoName, Chip, Measured, MemoryLevel
from roofline_gui.core.errors import Problem
from roofline_gui.core.i18n import N_, _
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.templates import RESIDENCES, TEMPLATES
from roofline_gui.core.units import FORMATS, MEMORY_ROLES, PRECISIONS

#: Sanity limits: anything beyond is a typo, not a chip (1e20 op/s is 100 EFLOP/s per chip).
MAX_COMPUTE = 1e20
MAX_BANDWIDTH = 1e18
MAX_SIZE = 1e27
MAX_TEXT = 10_000
MAX_INTENSITY = 1e9
MAX_YEAR = 3000
_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")


#: The keys each kind of entry may have. A key outside these is refused by name, so a typo
#: ("bandwith") is caught instead of silently dropped. ``io/schema.py`` builds the published
#: JSON Schema from these same tuples.
LEVEL_KEYS = ("role", "name", "bandwidth", "write_bandwidth", "capacity", "achievable", "source",
              "measured", "what_if_of")
CHIP_KEYS = ("id", "name", "vendor", "year", "notes", "compute", "compute_sources", "achievable",
             "compute_measured", "memory", "color", "visible", "preset", "compute_what_if_of",
             "energy", "auto_name", "derived_from")
#: The name the app gave a what-if chip (version 10): core.chip.AutoName's fields.
AUTO_NAME_KEYS = ("base", "changes")
#: A chip's energy (version 8): core.energy.Energy's fields.
ENERGY_KEYS = ("board_power", "idle_power", "op_pj", "byte_pj", "price_per_hour", "sources")
#: A measured ceiling: its value (op/s or B/s), when, how and where.
MEASURED_KEYS = ("value", "date", "method", "host")
#: A kernel is given in exactly one of three forms; each form's keys belong to it alone.
KERNEL_FORMS = {
    "template": ("template", "params", "resides"),
    "flops": ("flops", "bytes", "write_bytes"),
    "intensity": ("intensity",),
}
KERNEL_KEYS = ("id", "name", "category", "precision", "storage_precision",
               *(k for keys in KERNEL_FORMS.values() for k in keys),
               "measured_time", "measured_flops", "notes", "source", "preset")
#: What a reference to a preset ({"preset": id}) may set besides its id.
PRESET_OVERRIDES = {"chip": ("color", "visible"), "kernel": ()}


class Checker:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def fail(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def obj(self, value: Any, path: str) -> dict | None:
        if not isinstance(value, dict):
            self.fail(path, _("must be an object, not {kind}").format(kind=_kind(value)))
            return None
        return value

    def array(self, value: Any, path: str) -> list | None:
        if not isinstance(value, list):
            self.fail(path, _("must be a list, not {kind}").format(kind=_kind(value)))
            return None
        return value

    def text(self, d: dict, key: str, path: str, *, required: bool = False, default: str = ""):
        if key not in d:
            if required:
                self.fail(f"{path}.{key}", _("is required"))
                return None
            return default
        value = d[key]
        if not isinstance(value, str):
            self.fail(f"{path}.{key}", _("must be text, not {kind}").format(kind=_kind(value)))
            return None
        if len(value) > MAX_TEXT:
            self.fail(f"{path}.{key}", _("is longer than {n} characters").format(n=MAX_TEXT))
            return None
        if required and not value.strip():
            self.fail(f"{path}.{key}", _("must not be empty"))
            return None
        return value

    def number(
        self,
        value: Any,
        path: str,
        *,
        maximum: float = MAX_SIZE,
        minimum: float = 0.0,
        inclusive_min: bool = False,
        integer: bool = False,
    ) -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(path, _("must be a number, not {kind}").format(kind=_kind(value)))
            return None
        if not math.isfinite(value):
            self.fail(path, _("must be a finite number"))
            return None
        if integer and value != int(value):
            self.fail(path, _("must be a positive integer, not {value}").format(value=repr(value)))
            return None
        if value < minimum or (value == minimum and not inclusive_min):
            said = (_("must be a positive integer, not {value}") if integer and minimum <= 1 else
                    _("must be at least {minimum}, not {value}") if inclusive_min else
                    _("must be greater than {minimum}, not {value}"))
            self.fail(path, said.format(minimum=f"{minimum:g}", value=repr(value)))
            return None
        if value > maximum:
            self.fail(path, _("{value} is beyond the plausible maximum {maximum}").format(
                value=f"{value:g}", maximum=f"{maximum:g}"))
            return None
        return float(value)

    def known_keys(self, d: dict, path: str, keys: tuple[str, ...]) -> None:
        for key in d:
            if key not in keys:
                self.fail(f"{path}.{key}" if path else str(key),
                          _("unknown key {key}; use one of {keys}").format(
                              key=repr(key), keys=", ".join(keys)))

    def optional_number(self, d: dict, key: str, path: str, **kw) -> float | None:
        return None if d.get(key) is None else self.number(d[key], f"{path}.{key}", **kw)

    def precision(self, d: dict, key: str, path: str, *, required: bool = True,
                  formats: bool = False) -> str | None:
        """A compute precision; ``formats``: or a block-scaled storage format (a workload's
        weights, activations, KV cache)."""
        known = FORMATS if formats else PRECISIONS
        if key not in d or d[key] is None:
            if required:
                self.fail(f"{path}.{key}", _("is required (one of {known})").format(
                    known=", ".join(known)))
            return None
        if d[key] not in known:
            self.fail(f"{path}.{key}", _("unknown precision {value}; use one of {known}").format(
                value=repr(d[key]), known=", ".join(known)))
            return None
        return d[key]

    def fraction(self, value: Any, path: str) -> float | None:
        return self.number(value, path, maximum=1.0)

    def per_key(self, d: dict, key: str, path: str, keys: tuple[str, ...], read) -> dict:
        """Read ``d[key]`` as a mapping whose keys must be in ``keys``; values through ``read``."""
        raw = d.get(key, {})
        mapping = self.obj(raw, f"{path}.{key}")
        out = {}
        for name, value in (mapping or {}).items():
            where = f"{path}.{key}.{name}"
            if name not in keys:
                self.fail(where, _("unknown key {key}; use one of {keys}").format(
                    key=repr(name), keys=", ".join(keys)))
                continue
            parsed = read(value, where)
            if parsed is not None:
                out[name] = parsed
        return out


def _kind(value: Any) -> str:
    names = {dict: N_("an object"), list: N_("a list"), str: N_("text"), bool: N_("true/false"),
             type(None): "null"}
    return _(names[type(value)]) if type(value) in names else type(value).__name__


def read_level(ck: Checker, raw: Any, path: str) -> MemoryLevel | None:
    d = ck.obj(raw, path)
    if d is None:
        return None
    start = len(ck.problems)
    ck.known_keys(d, path, LEVEL_KEYS)
    role = d.get("role")
    if role not in MEMORY_ROLES:
        ck.fail(f"{path}.role", _("must be one of {roles}, not {value}").format(
            roles=", ".join(MEMORY_ROLES), value=repr(role)))
    name = ck.text(d, "name", path, required=True)
    bandwidth = ck.number(d.get("bandwidth"), f"{path}.bandwidth", maximum=MAX_BANDWIDTH)
    write_bw = ck.optional_number(d, "write_bandwidth", path, maximum=MAX_BANDWIDTH)
    capacity = ck.optional_number(d, "capacity", path)
    achievable = None if d.get("achievable") is None else ck.fraction(d["achievable"], f"{path}.achievable")
    source = ck.text(d, "source", path)
    measured = (None if d.get("measured") is None
                else read_measured(ck, d["measured"], f"{path}.measured", MAX_BANDWIDTH))
    what_if_of = ck.optional_number(d, "what_if_of", path, maximum=MAX_BANDWIDTH)
    if len(ck.problems) > start:
        return None
    return MemoryLevel(role, name, bandwidth, write_bw, capacity, achievable, source, measured,
                       what_if_of)


def read_measured(ck: Checker, raw: Any, path: str, maximum: float) -> Measured | None:
    """``{"value": …, "date": …, "method": …, "host": …}``: date and method are required."""
    d = ck.obj(raw, path)
    if d is None:
        return None
    start = len(ck.problems)
    ck.known_keys(d, path, MEASURED_KEYS)
    value = ck.number(d.get("value"), f"{path}.value", maximum=maximum)
    date = ck.text(d, "date", path, required=True)
    method = ck.text(d, "method", path, required=True)
    host = ck.text(d, "host", path)
    if len(ck.problems) > start:
        return None
    return Measured(value, date, method, host)


def read_chip(ck: Checker, d: dict, path: str, chip_id: str) -> Chip | None:
    start = len(ck.problems)
    ck.known_keys(d, path, CHIP_KEYS)
    name = ck.text(d, "name", path, required=True)
    compute = ck.per_key(
        d, "compute", path, PRECISIONS, lambda v, p: ck.number(v, p, maximum=MAX_COMPUTE)
    )
    sources = ck.per_key(d, "compute_sources", path, PRECISIONS, _text_reader(ck))
    achievable = ck.per_key(d, "achievable", path, PRECISIONS, ck.fraction)
    measured = ck.per_key(d, "compute_measured", path, PRECISIONS,
                          lambda v, p: read_measured(ck, v, p, MAX_COMPUTE))
    given = d.get("compute") if isinstance(d.get("compute"), dict) else {}
    for precision in measured:
        if precision not in given:  # (a peak given but refused is named already)
            ck.fail(f"{path}.compute_measured.{precision}",
                    _("is a measured {precision} peak, but compute has no {precision} "
                      "peak").format(precision=precision))
    what_if = ck.per_key(d, "compute_what_if_of", path, PRECISIONS,
                         lambda v, p: ck.number(v, p, maximum=MAX_COMPUTE))
    for precision in what_if:
        if precision not in given:
            ck.fail(f"{path}.compute_what_if_of.{precision}",
                    _("is the datasheet {precision} peak of a what-if, but compute has no "
                      "{precision} peak").format(precision=precision))
    levels_raw = ck.array(d.get("memory"), f"{path}.memory")
    levels = [read_level(ck, raw, f"{path}.memory[{i}]") for i, raw in enumerate(levels_raw or [])]
    if levels_raw is not None and not any(
        isinstance(r, dict) and r.get("role") == "dram" for r in levels_raw
    ):
        ck.fail(f"{path}.memory", _("needs a level with role 'dram' (main memory)"))
    if "compute" not in d:
        ck.fail(f"{path}.compute", _("is required, e.g. {example} (op/s)").format(
            example='{"fp32": 19.5e12}'))
    elif d["compute"] == {}:
        ck.fail(f"{path}.compute", _("needs at least one precision, e.g. {example}").format(
            example='{"fp32": 19.5e12}'))
    year = d.get("year")
    if year is not None:
        year = ck.number(year, f"{path}.year", integer=True, maximum=MAX_YEAR)
    color = d.get("color")
    if color is not None and not (isinstance(color, str) and _COLOR.match(color)):
        ck.fail(f"{path}.color", _("must be a colour like '#1f77b4', not {value}").format(
            value=repr(color)))
    visible = d.get("visible", True)
    if not isinstance(visible, bool):
        ck.fail(f"{path}.visible", _("must be true or false"))
    vendor = ck.text(d, "vendor", path)
    notes = ck.text(d, "notes", path)
    preset = _origin(ck, d, path)
    energy = (read_energy(ck, d["energy"], f"{path}.energy",
                          [lv.name for lv in levels if lv is not None]) if "energy" in d else None)
    auto_name = _auto_name(ck, d.get("auto_name"), f"{path}.auto_name")
    derived_from = d.get("derived_from")
    if derived_from is not None and not isinstance(derived_from, str):
        ck.fail(f"{path}.derived_from", _("must be the name of a chip, not {value}").format(
            value=repr(derived_from)))
    if len(ck.problems) > start:
        return None
    return Chip(
        id=chip_id, name=name, compute=compute, memory=tuple(levels), vendor=vendor,
        year=None if year is None else int(year), notes=notes, compute_sources=sources,
        compute_achievable=achievable, compute_measured=measured, color=color, visible=visible, preset=preset,
        compute_what_if_of=what_if, energy=energy, auto_name=auto_name, derived_from=derived_from,
    )


def _auto_name(ck: Checker, raw: Any, path: str) -> AutoName | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        ck.fail(path, "must be an object with 'base' and 'changes'")
        return None
    ck.known_keys(raw, path, AUTO_NAME_KEYS)
    base, changes = raw.get("base"), raw.get("changes", [])
    if not isinstance(base, str) or not base.strip():
        ck.fail(f"{path}.base", _("must be the chip's own name, not {value}").format(
            value=repr(base)))
        return None
    if not isinstance(changes, list) or not all(isinstance(c, str) for c in changes):
        ck.fail(f"{path}.changes", _("must be a list of texts, not {value}").format(
            value=repr(changes)))
        return None
    return AutoName(base, tuple(changes))


def read_energy(ck: Checker, raw: Any, path: str, levels: list[str]):
    """A chip's energy figures: powers in W, energies in pJ (per byte keyed by one of the chip's
    ``levels`` or a memory role), a price in $ per chip-hour, each finite and above zero (the
    idle power may be 0), and their sources as text."""
    from roofline_gui.core.energy import Energy  # noqa: PLC0415
    from roofline_gui.core.units import MEMORY_ROLES  # noqa: PLC0415

    d = ck.obj(raw, path)
    if d is None:
        return None
    start = len(ck.problems)
    ck.known_keys(d, path, ENERGY_KEYS)
    values = {}
    for key in ("board_power", "idle_power", "price_per_hour"):
        if d.get(key) is not None:
            values[key] = ck.number(d[key], f"{path}.{key}", maximum=1e7,
                                    inclusive_min=key == "idle_power")
    op = ck.per_key(d, "op_pj", path, PRECISIONS, lambda v, p: ck.number(v, p, maximum=1e6))
    byte = ck.per_key(d, "byte_pj", path, (*levels, *MEMORY_ROLES),
                      lambda v, p: ck.number(v, p, maximum=1e6))
    sources = ck.obj(d.get("sources", {}), f"{path}.sources") or {}
    for key, value in sources.items():
        if not isinstance(value, str):
            ck.fail(f"{path}.sources.{key}", _("must be text, not {kind}").format(
                kind=_kind(value)))
    if len(ck.problems) > start:
        return None
    energy = Energy(op_pj=op, byte_pj=byte, sources=dict(sources), **values)
    for name, message in energy.problems(levels):
        ck.fail(f"{path}.{name}", message)
    # "energy": {} holds nothing: no energy data, as a chip without it (and as it saves)
    return None if len(ck.problems) > start or energy.empty else energy


def _origin(ck: Checker, d: dict, path: str) -> str | None:
    """The preset a full entry came from (text), kept as its origin."""
    preset = d.get("preset")
    if preset is not None and not isinstance(preset, str):
        ck.fail(f"{path}.preset", _("must be text (a preset id), not {kind}").format(
            kind=_kind(preset)))
        return None
    return preset or None


def _text_reader(ck: Checker):
    def read(value, path):
        if not isinstance(value, str):
            ck.fail(path, _("must be text, not {kind}").format(kind=_kind(value)))
            return None
        return value

    return read


def read_params(ck: Checker, d: dict, path: str, template_id: str) -> dict | None:
    template = TEMPLATES[template_id]
    raw = ck.obj(d.get("params", {}), f"{path}.params")
    if raw is None:
        return None
    known = {p.name: p for p in template.params}
    params = {}
    for name, value in raw.items():
        where = f"{path}.params.{name}"
        if name not in known:
            ck.fail(where, _("unknown parameter for {template}; use {known}").format(
                template=template_id, known=", ".join(known)))
            continue
        spec = known[name]
        parsed = ck.number(value, where, integer=spec.integer, minimum=spec.minimum,
                           inclusive_min=True, maximum=spec.maximum)
        if parsed is not None:
            params[name] = parsed
    return params


def read_kernel(ck: Checker, d: dict, path: str, kernel_id: str) -> Kernel | None:
    start = len(ck.problems)
    ck.known_keys(d, path, KERNEL_KEYS)
    name = ck.text(d, "name", path, required=True)
    precision = ck.precision(d, "precision", path)
    storage = ck.precision(d, "storage_precision", path, required=False)
    category = ck.text(d, "category", path, default="other") or "other"
    template = None
    params: dict = {}
    resides: dict = {}
    flops = None
    nbytes: dict = {}
    writes: dict = {}
    intensity = None
    form = next((f for f in KERNEL_FORMS if f in d), None)
    if form is None:
        ck.fail(path, _("needs a 'template' with 'params', 'flops' with 'bytes', or an "
                      "'intensity'"))
    else:
        for other, keys in KERNEL_FORMS.items():
            for key in keys:
                if other != form and key in d:
                    ck.fail(f"{path}.{key}", _("belongs to a kernel given by {other}; this one "
                                              "is given by {form} (a kernel has one form)").format(
                        other=repr(other), form=repr(form)))
    if form == "template":
        template = d["template"]
        if not isinstance(template, str) or template not in TEMPLATES:
            ck.fail(f"{path}.template", _("unknown template {value}; use one of {known}").format(
                value=repr(template), known=", ".join(TEMPLATES)))
            template = None
        else:
            params = read_params(ck, d, path, template) or {}
            resides = read_resides(ck, d, path, template)
    elif form == "flops":
        flops = ck.number(d["flops"], f"{path}.flops")
        positive = lambda v, p: ck.number(v, p)  # noqa: E731
        nbytes = ck.per_key(d, "bytes", path, MEMORY_ROLES, positive)
        writes = ck.per_key(d, "write_bytes", path, MEMORY_ROLES,
                            lambda v, p: ck.number(v, p, inclusive_min=True))
        if "dram" not in nbytes and not _has_problem_under(ck, start, f"{path}.bytes"):
            ck.fail(f"{path}.bytes.dram", _("is required: the bytes moved to and from main memory"))
    elif form == "intensity":
        intensity = ck.number(d["intensity"], f"{path}.intensity", maximum=MAX_INTENSITY)
    measured_time = ck.optional_number(d, "measured_time", path)
    measured_flops = ck.optional_number(d, "measured_flops", path, maximum=MAX_COMPUTE)
    notes = ck.text(d, "notes", path)
    source = ck.text(d, "source", path)
    preset = _origin(ck, d, path)
    if len(ck.problems) > start:
        return None
    return Kernel(
        id=kernel_id, name=name, precision=precision, category=category,
        storage_precision=storage if storage != precision else None, template=template,
        params=params, flops=flops, bytes=nbytes, write_bytes=writes, intensity=intensity,
        measured_time=measured_time, measured_flops=measured_flops, notes=notes, source=source,
        preset=preset, resides=resides,
    )


def read_resides(ck: Checker, d: dict, path: str, template: str) -> dict:
    """Where a template kernel's operands live: {operand: dram | cache | host}; the operand
    names are the template's (``Template.operands``). Main memory entries are dropped."""
    names = tuple(op.name for op in TEMPLATES[template].operands)

    def level(value, where):
        if value not in RESIDENCES:
            ck.fail(where, _("must be one of {roles}, not {value}").format(
                roles=", ".join(RESIDENCES), value=repr(value)))
            return None
        return value

    out = ck.per_key(d, "resides", path, names, level)
    return {name: where for name, where in out.items() if where != "dram"}


def _has_problem_under(ck: Checker, start: int, prefix: str) -> bool:
    return any(p.path.startswith(prefix) for p in ck.problems[start:])
