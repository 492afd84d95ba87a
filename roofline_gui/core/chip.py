"""Chip: the hardware side of the roofline.

A chip has dense compute ceilings per precision (op/s, per chip) and an ordered list of memory
levels, each a bandwidth ceiling (B/s) with a role. Every value may carry a source string, shown
to the user next to it. Instances are immutable; change them with :func:`dataclasses.replace`.

Provenance: a ceiling's value is its datasheet figure (with its ``source``) unless it was
measured and nothing else is known, in which case value and measurement are the same number. A
ceiling may carry a :class:`Measured` value beside its datasheet value; the achievable roof
(View → Achievable roofs) is the measured value where there is one, else the datasheet value ×
its achievable fraction (derated), else the datasheet value. :func:`provenance` says which.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from roofline_gui.core.energy import Energy
from roofline_gui.core.i18n import _
from roofline_gui.core.units import PRECISIONS, format_si

#: A ceiling dragged as a what-if (a roof on the chart, a dot of the design space) stays within
#: this factor of its datasheet value, either way.
WHAT_IF_SPAN = 1000.0
#: What a what-if drag with Shift snaps its factor (against the datasheet) to.
ROUND_FACTORS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 8.0)


def round_factor(factor: float) -> float:
    """The round factor (ROUND_FACTORS) nearest ``factor`` on a log scale."""
    return min(ROUND_FACTORS, key=lambda f: abs(math.log(factor / f)))


@dataclass(frozen=True)
class Measured:
    """A ceiling as measured: ``value`` (op/s or B/s), when (``date``, "YYYY-MM-DD HH:MM"), how
    (``method``: kernel, sizes, threads, repetitions) and where (``host``: the machine)."""

    value: float
    date: str
    method: str
    host: str


@dataclass(frozen=True)
class AutoName:
    """A name the app gave a what-if chip: the chip's own name (``base``) and what moved
    (``changes``, as derive() names them: "HBM3 ×2"). The name is the app's only while the
    chip's name still reads :attr:`text`; a name the user typed is theirs, whatever it says."""

    base: str
    changes: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return f"{self.base}, {', '.join(self.changes)}" if self.changes else f"{self.base} (what-if)"


@dataclass(frozen=True)
class Provenance:
    """Where the roof applied for a ceiling comes from.

    ``kind`` is ``datasheet``, ``measured``, ``derated`` or ``what-if`` (a ceiling moved from its
    datasheet figure, which it keeps: a derived chip's, or a dragged roof's); ``value`` is the
    roof applied (op/s
    or B/s); ``datasheet`` the datasheet figure when there is one (None for a ceiling known only
    by measurement); ``text`` says it in words, with the source, or the date, method and host."""

    kind: str
    value: float
    datasheet: float | None
    text: str

    @property
    def of_datasheet(self) -> float | None:
        """The roof applied as a fraction of the datasheet figure, or None without one."""
        return None if not self.datasheet else self.value / self.datasheet


def provenance(value: float, source: str, achievable: float | None, measured: Measured | None,
               applied: bool, what_if_of: float | None = None, unit: str = "") -> Provenance:
    """The provenance of one ceiling of datasheet ``value``: of the achievable roof when
    ``applied`` (derated or measured), else of the datasheet roof. A ceiling whose value is its
    measurement (``measured.value == value``) has no datasheet figure."""
    only_measured = measured is not None and measured.value == value
    datasheet = None if only_measured else value
    said = (_("datasheet: {source}").format(source=source) if source
            else _("datasheet (no source given)"))
    if what_if_of is not None and not (measured is not None and applied):
        text = _("what-if: {ratio}× the datasheet's {value} ({said})").format(
            ratio=f"{value / what_if_of:.3g}", value=format_si(what_if_of, unit), said=said)
        if applied and achievable is not None and achievable != 1.0:
            return Provenance("what-if", value * achievable, what_if_of,
                              _("derated: {share} of the {text}").format(
                                  share=f"{achievable:.0%}", text=text))
        return Provenance("what-if", value, what_if_of, text)
    if measured is not None and (applied or only_measured):
        text = _("measured {date} on {host}: {method}").format(
            date=measured.date, host=measured.host or _("this computer"), method=measured.method)
        return Provenance("measured", measured.value, datasheet, text)
    if applied and achievable is not None and achievable != 1.0:
        return Provenance("derated", value * achievable, value,
                          _("derated: {share} of the datasheet value ({said})").format(
                              share=f"{achievable:.0%}", said=said))
    return Provenance("datasheet", value, value, said)


def ceiling_note(value: float, source: str, measured: Measured | None, unit: str,
                 what_if_of: float | None = None) -> tuple[str, str]:
    """A ceiling's provenance in words, as the hardware editor shows it beside the value: a
    short line (with how much of the datasheet a measurement reaches) and the whole text."""
    said = _("datasheet: {source}").format(source=source) if source else _("no source given")
    if what_if_of is not None and measured is None:
        ratio, base = f"{value / what_if_of:.3g}", format_si(what_if_of, unit)
        return (_("what-if: {ratio}× of {value}").format(ratio=ratio, value=base),
                _("what-if: {ratio}× the datasheet's {value}").format(ratio=ratio, value=base)
                + f"\n{said}")
    if measured is None:
        return source.split(" [")[0] or _("no source given"), said
    how = _("measured {date} on {host}: {method}").format(
        date=measured.date, host=measured.host or _("this computer"), method=measured.method)
    if measured.value == value:
        return _("measured {date}").format(date=measured.date), how
    share = measured.value / value
    short = (_("measured {share}: {value} ⚠ above the datasheet") if share > 1.05 else
             _("measured {share}: {value}")).format(share=f"{share:.0%}",
                                                    value=format_si(measured.value, unit))
    return short, f"{said}\n{how}"


@dataclass(frozen=True)
class MemoryLevel:
    """One bandwidth ceiling.

    ``role`` is one of ``dram`` (main memory / HBM), ``cache`` (on-chip L2/SRAM/VMEM), ``host``
    (host link such as PCIe, per direction) or ``link`` (chip-to-chip, per direction).
    ``bandwidth`` is the read (or only) bandwidth in B/s; ``write_bandwidth`` applies to the bytes
    a kernel writes when given. ``achievable`` is the fraction of ``bandwidth`` reached in
    practice (for derated roofs), None for "not stated". ``measured`` is the bandwidth as
    measured, if it was (it takes the place of ``achievable`` in the achievable roofs).
    """

    role: str
    name: str
    bandwidth: float
    write_bandwidth: float | None = None
    capacity: float | None = None
    achievable: float | None = None
    source: str = ""
    measured: Measured | None = None
    #: the datasheet bandwidth this level had before a what-if moved it (None: not moved)
    what_if_of: float | None = None

    def provenance(self, applied: bool = False) -> Provenance:
        return provenance(self.bandwidth, self.source, self.achievable, self.measured, applied,
                          self.what_if_of, "B/s")

    @property
    def applied_fraction(self) -> float:
        """The achievable roof as a fraction of ``bandwidth``: measured ÷ datasheet where
        measured, else the achievable fraction, else 1."""
        if self.measured is not None:
            return self.measured.value / self.bandwidth
        return self.achievable or 1.0


@dataclass(frozen=True)
class Chip:
    """A chip with its ceilings. ``compute`` maps precision -> dense peak op/s.

    A precision missing from ``compute`` is not supported: kernels at that precision evaluate as
    ``unsupported``, never with a fallback. ``compute_achievable`` holds optional derating
    fractions per precision; ``compute_measured`` the measured peaks per precision, where
    measured (they take the place of the fractions in the achievable roofs). ``id`` is stable
    within a document; ``preset`` names the preset the chip came from, if any.
    """

    id: str
    name: str
    compute: dict[str, float]
    memory: tuple[MemoryLevel, ...]
    vendor: str = ""
    year: int | None = None
    notes: str = ""
    compute_sources: dict[str, str] = field(default_factory=dict)
    compute_achievable: dict[str, float] = field(default_factory=dict)
    compute_measured: dict[str, Measured] = field(default_factory=dict)
    color: str | None = None
    visible: bool = True
    preset: str | None = None
    #: precision -> the datasheet peak before a what-if moved it (absent: not moved)
    compute_what_if_of: dict[str, float] = field(default_factory=dict)
    #: power, energy per op and per byte, price (core.energy; None: no energy data)
    energy: Energy | None = None
    #: the name the app gave it as a what-if (None: its name is its own, a preset's or the user's)
    auto_name: AutoName | None = None
    #: the name of the chip derive() made this what-if copy from (None: not a derived copy)
    derived_from: str | None = None

    def peak(self, precision: str) -> float | None:
        """Dense peak op/s at ``precision``, or None when the chip has no such mode."""
        return self.compute.get(precision)

    def compute_provenance(self, precision: str, applied: bool = False) -> Provenance:
        return provenance(self.compute[precision], self.compute_sources.get(precision, ""),
                          self.compute_achievable.get(precision),
                          self.compute_measured.get(precision), applied,
                          self.compute_what_if_of.get(precision), "op/s")

    @property
    def is_what_if(self) -> bool:
        """Whether a ceiling was moved from its datasheet figure (a derived or dragged roof)."""
        return bool(self.compute_what_if_of) or any(lv.what_if_of is not None for lv in self.memory)

    def with_ceiling(self, what: tuple, value: float) -> Chip:
        """The chip with one ceiling at ``value``: ("peak", precision) in op/s or ("level",
        index) in B/s (its write bandwidth moved by the same factor), keeping its datasheet
        figure as a what-if; back at the datasheet figure, no longer a what-if."""
        kind, which = what
        if kind == "peak":
            sheet = self.compute_what_if_of.get(which, self.compute[which])
            moved = dict(self.compute_what_if_of)
            if abs(value / sheet - 1) < 1e-9:
                value = sheet
                moved.pop(which, None)
            else:
                moved[which] = sheet
            measured = {p: m for p, m in self.compute_measured.items() if p != which}
            return replace(self, compute={**self.compute, which: float(value)},
                           compute_what_if_of=moved, compute_measured=measured)
        level = self.memory[which]
        sheet = level.what_if_of if level.what_if_of is not None else level.bandwidth
        at_sheet = abs(value / sheet - 1) < 1e-9
        factor = (sheet if at_sheet else value) / level.bandwidth
        new = replace(level, bandwidth=sheet if at_sheet else float(value),
                      what_if_of=None if at_sheet else sheet, measured=None,
                      write_bandwidth=None if level.write_bandwidth is None
                      else level.write_bandwidth * factor)
        return self.with_level(which, new)

    @property
    def own_name(self) -> AutoName | None:
        """The app's name for it, while its name is still that one (None once the user renamed
        it, or for a chip never named by the app)."""
        auto = self.auto_name
        return auto if auto is not None and auto.text == self.name else None

    @property
    def base_name(self) -> str:
        """Its name without what the app added for a what-if ("(what-if)", derive's changes)."""
        auto = self.own_name
        return auto.base if auto is not None else self.name

    @property
    def derivation(self) -> str:
        """'What-if: H100 SXM5 80GB with HBM3 ×2.' for a copy derive() made, else ''."""
        if self.derived_from is None:
            return ""
        changes = self.auto_name.changes if self.auto_name is not None else ()
        return f"What-if: {self.derived_from} with {', '.join(changes) or 'nothing changed'}."

    def named_as_what_if(self) -> Chip:
        """Its name says "(what-if)" while a ceiling is moved from its datasheet (so every view
        and export says so), and not once every ceiling is back; a derived copy named by its
        changes keeps them while moved, and back at its datasheet is "(copy)" of its original,
        apart from it. Decided from the chip's fields, never from its name's words."""
        auto = self.own_name
        if self.is_what_if:
            named = auto if auto is not None else AutoName(self.name)
            return replace(self, name=named.text, auto_name=named)
        if auto is None:
            return self
        name = f"{auto.base} (copy)" if auto.changes else auto.base
        return replace(self, name=name, auto_name=None)

    def scaled(self, factor: float, *, compute: bool = True, memory: bool = True) -> Chip:
        """Every ceiling of the chip times ``factor`` (a faster clock), or only its compute
        roofs or only its memory levels, each keeping its datasheet figure as a what-if."""
        chip = self
        for p in self.precisions if compute else ():
            chip = chip.with_ceiling(("peak", p), self.compute[p] * factor)
        for j, level in enumerate(self.memory if memory else ()):
            chip = chip.with_ceiling(("level", j), level.bandwidth * factor)
        return chip

    def at_datasheet(self) -> Chip:
        """The chip with every what-if ceiling back at its datasheet figure (Reset to
        datasheet); the write bandwidth moves back by the same factor."""
        compute = {p: self.compute_what_if_of.get(p, v) for p, v in self.compute.items()}
        memory = []
        for lv in self.memory:
            if lv.what_if_of is None:
                memory.append(lv)
                continue
            back = lv.what_if_of / lv.bandwidth
            memory.append(replace(lv, bandwidth=lv.what_if_of, what_if_of=None,
                                  write_bandwidth=None if lv.write_bandwidth is None
                                  else lv.write_bandwidth * back))
        return replace(self, compute=compute, memory=tuple(memory), compute_what_if_of={},
                       derived_from=None).named_as_what_if()

    def applied_compute_fraction(self, precision: str) -> float:
        """The achievable compute roof as a fraction of the peak (see MemoryLevel's)."""
        measured = self.compute_measured.get(precision)
        if measured is not None:
            return measured.value / self.compute[precision]
        return self.compute_achievable.get(precision, 1.0)

    def measured_notes(self) -> list[str]:
        """A line per measured ceiling: how much of its datasheet value it reaches (the
        hardware editor's note), for the table's header and the like."""
        lines = [f"{p}: {ceiling_note(self.compute[p], self.compute_sources.get(p, ''), m, 'op/s')[0]}"
                 for p, m in self.compute_measured.items() if p in self.compute]
        lines += [f"{lv.name}: {ceiling_note(lv.bandwidth, lv.source, lv.measured, 'B/s')[0]}"
                  for lv in self.memory if lv.measured is not None]
        return lines

    def levels(self, role: str) -> tuple[MemoryLevel, ...]:
        return tuple(level for level in self.memory if level.role == role)

    def slower_than_main_memory(self) -> tuple[MemoryLevel, ...]:
        """The on-chip levels slower than main memory: no built chip has one (on-chip memory is
        the faster), so a what-if or an edit has moved one past the other."""
        main = self.dram.bandwidth
        return tuple(level for level in self.levels("cache") if level.bandwidth < main)

    def order_note(self) -> str:
        """A word on on-chip levels slower than main memory, or "" (a tour dragged HBM3 to 19
        TB/s above a 5.5 TB/s L2, and nothing said so)."""
        slower = self.slower_than_main_memory()
        if not slower:
            return ""
        return _("On {chip} the on-chip {levels} is slower than main memory ({main} {dram}): on "
                 "a built chip on-chip memory is the faster, so a what-if or an edit has moved "
                 "one past the other; the kernels it holds run at its figure.").format(
            chip=self.name, levels=", ".join(f"{lv.name} ({format_si(lv.bandwidth, 'B/s')})"
                                            for lv in slower),
            main=self.dram.name, dram=format_si(self.dram.bandwidth, "B/s"))

    @property
    def dram(self) -> MemoryLevel:
        """The first main-memory level. Validation guarantees there is one."""
        return self.levels("dram")[0]

    @property
    def precisions(self) -> tuple[str, ...]:
        return tuple(p for p in PRECISIONS if p in self.compute)

    def rule_broken(self) -> str | None:
        """Why this chip cannot be in a session, or None: it needs at least one compute ceiling
        and a main-memory (dram) level. The core's edits, and so every path, enforce it."""
        if not self.compute:
            return _("{chip}: a chip needs at least one compute ceiling").format(chip=self.name)
        if not any(level.role == "dram" for level in self.memory):
            return _("{chip}: a chip needs its main-memory (dram) level").format(chip=self.name)
        return None

    def with_compute(self, precision: str, value: float | None) -> Chip:
        compute = dict(self.compute)
        measured = dict(self.compute_measured)
        if value is None:
            compute.pop(precision, None)
            measured.pop(precision, None)
        else:
            compute[precision] = float(value)
        return replace(self, compute=compute, compute_measured=measured)

    def with_level(self, index: int, level: MemoryLevel) -> Chip:
        """The chip with level ``index`` replaced; a renamed level keeps its energy per byte."""
        memory = list(self.memory)
        old, memory[index] = memory[index].name, level
        chip = replace(self, memory=tuple(memory))
        return replace(chip, energy=chip._level_energy(old, level.name))

    def without_level(self, index: int) -> Chip:
        """The chip without level ``index``, and without that level's energy per byte."""
        name = self.memory[index].name
        chip = replace(self, memory=tuple(lv for i, lv in enumerate(self.memory) if i != index))
        return replace(chip, energy=chip._level_energy(name, None))

    def _level_energy(self, old: str, new: str | None) -> Energy | None:
        """The energy figures once level ``old`` became ``new`` (None: went): its per-byte figure
        and source follow it, unless a level of this chip is still called ``old``."""
        e = self.energy
        if e is None or old == new or old not in e.byte_pj:
            return e
        byte, sources = dict(e.byte_pj), dict(e.sources)
        value, source = byte[old], sources.get(f"byte:{old}")
        if not any(lv.name == old for lv in self.memory):
            del byte[old]
            sources.pop(f"byte:{old}", None)
        if new is not None and new not in byte:
            byte[new] = value
            if source is not None:
                sources[f"byte:{new}"] = source
        return replace(e, byte_pj=byte, sources=sources)


def _same_level(a: str, b: str) -> bool:
    """Whether two level names mean the same level: equal, or equal in their first word
    ("L2" and "L2 (40 MB)")."""
    a, b = a.strip().lower(), b.strip().lower()
    return a == b or (a.split() or [""])[0] == (b.split() or [""])[0]


def attach_measured(chip: Chip, measured: Chip) -> tuple[Chip, list[str], list[str]]:
    """``chip`` with the measured values of ``measured`` (a chip from a measurement) beside its
    datasheet values: each measured memory level goes to the level of the same name (else, for
    main memory, to the chip's dram level), each measured peak to the same precision. Returns
    the chip, what went where ("DRAM → HBM2", "fp64") and what found no ceiling."""
    memory = list(chip.memory)
    matched, unmatched = [], []
    for level in measured.memory:
        if level.measured is None:
            continue
        index = next((i for i, lv in enumerate(memory) if _same_level(lv.name, level.name)), None)
        if index is None and level.role == "dram":
            index = next(i for i, lv in enumerate(memory) if lv.role == "dram")
        if index is None:
            unmatched.append(level.name)
            continue
        memory[index] = replace(memory[index], measured=level.measured)
        target = memory[index].name
        matched.append(level.name if target == level.name else f"{level.name} → {target}")
    compute_measured = dict(chip.compute_measured)
    for precision, value in measured.compute_measured.items():
        if precision in chip.compute:
            compute_measured[precision] = value
            matched.append(precision)
        else:
            unmatched.append(precision)
    return (replace(chip, memory=tuple(memory), compute_measured=compute_measured),
            matched, unmatched)


#: What a factor of derive() may name besides a precision: every compute roof, a memory role,
#: the main memory's capacity.
DERIVE_KEYS = ("compute", "dram", "cache", "host", "link", "capacity")


def derive(chip: Chip, factors: dict[str, float], chip_id: str | None = None) -> Chip:
    """A what-if copy of ``chip`` with ceilings scaled: ``compute`` (every precision) or one
    precision, a memory role (every level of it: read and write bandwidth), ``capacity`` (main
    memory's). Named from its changes ("H100 SXM5 80GB, HBM3 ×2"); each changed ceiling keeps
    its datasheet figure (``what_if_of``: its provenance is "what-if", the chart draws the
    datasheet roof as a ghost, Reset to datasheet puts it back), and a measurement it carried is
    dropped (it measured the original). Raises ValueError naming a factor that cannot be."""
    factors = dict(factors)
    for key, f in factors.items():
        if key not in DERIVE_KEYS and key not in PRECISIONS:
            raise ValueError(f"{key}: not a ceiling; use compute, a precision "
                             f"({', '.join(chip.precisions)}), dram, cache, host, link or capacity")
        if not isinstance(f, (int, float)) or isinstance(f, bool) or not 0 < f < 1e6 or f != f:
            raise ValueError(f"{key}: the factor must be a positive number, not {f!r}")
        if key in PRECISIONS and key not in chip.compute:
            raise ValueError(f"{key}: {chip.name} has no {key} peak")
        if key in ("dram", "cache", "host", "link") and not chip.levels(key):
            raise ValueError(f"{key}: {chip.name} has no {key} level")
        if key == "capacity" and not chip.dram.capacity:
            raise ValueError(f"capacity: {chip.name}'s main memory states no capacity")
    compute, moved = dict(chip.compute), dict(chip.compute_what_if_of)
    measured_peaks = dict(chip.compute_measured)
    names = []
    for p in chip.precisions:
        f = factors.get(p, 1.0) * factors.get("compute", 1.0)
        if f != 1.0:
            moved.setdefault(p, chip.compute[p])  # the datasheet figure, kept once
            compute[p] = chip.compute[p] * f
            measured_peaks.pop(p, None)  # a measurement of the original, not of this one
    if factors.get("compute", 1.0) != 1.0:
        names.append(f"compute ×{factors['compute']:g}")
    names += [f"{p} ×{factors[p]:g}" for p in chip.precisions if factors.get(p, 1.0) != 1.0]
    memory = []
    for level in chip.memory:
        f = factors.get(level.role, 1.0)
        grow = factors.get("capacity", 1.0) if level is chip.dram else 1.0
        changes: dict = {}
        if f != 1.0:
            changes.update(bandwidth=level.bandwidth * f, measured=None,
                           what_if_of=level.what_if_of if level.what_if_of is not None
                           else level.bandwidth,
                           write_bandwidth=None if level.write_bandwidth is None
                           else level.write_bandwidth * f)
        if grow != 1.0:
            changes.update(capacity=level.capacity * grow)
        memory.append(replace(level, **changes) if changes else level)
    for role in ("dram", "cache", "host", "link"):
        if factors.get(role, 1.0) != 1.0:
            names.append(f"{chip.levels(role)[0].name} ×{factors[role]:g}")
    if factors.get("capacity", 1.0) != 1.0:
        names.append(f"capacity ×{factors['capacity']:g}")
    named = AutoName(chip.base_name, tuple(names))  # a dragged chip's copy says what-if once
    return replace(chip, id=chip_id or f"{chip.id}-what-if", name=named.text, auto_name=named,
                   derived_from=chip.name, compute=compute, compute_what_if_of=moved,
                   compute_measured=measured_peaks, memory=tuple(memory))
