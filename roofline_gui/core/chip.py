"""Chip: the hardware side of the roofline.

A chip has dense compute ceilings per precision (op/s, per chip) and an ordered list of memory
levels, each a bandwidth ceiling (B/s) with a role. Every value may carry a source string, shown
to the user next to it. Instances are immutable; change them with :func:`dataclasses.replace`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from roofline_gui.core.units import PRECISIONS


@dataclass(frozen=True)
class MemoryLevel:
    """One bandwidth ceiling.

    ``role`` is one of ``dram`` (main memory / HBM), ``cache`` (on-chip L2/SRAM/VMEM), ``host``
    (host link such as PCIe, per direction) or ``link`` (chip-to-chip, per direction).
    ``bandwidth`` is the read (or only) bandwidth in B/s; ``write_bandwidth`` applies to the bytes
    a kernel writes when given. ``achievable`` is the fraction of ``bandwidth`` reached in
    practice (for derated roofs), None for "not stated".
    """

    role: str
    name: str
    bandwidth: float
    write_bandwidth: float | None = None
    capacity: float | None = None
    achievable: float | None = None
    source: str = ""


@dataclass(frozen=True)
class Chip:
    """A chip with its ceilings. ``compute`` maps precision -> dense peak op/s.

    A precision missing from ``compute`` is not supported: kernels at that precision evaluate as
    ``unsupported``, never with a fallback. ``compute_achievable`` holds optional derating
    fractions per precision. ``id`` is stable within a document; ``preset`` names the preset the
    chip came from, if any.
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
    color: str | None = None
    visible: bool = True
    preset: str | None = None

    def peak(self, precision: str) -> float | None:
        """Dense peak op/s at ``precision``, or None when the chip has no such mode."""
        return self.compute.get(precision)

    def levels(self, role: str) -> tuple[MemoryLevel, ...]:
        return tuple(level for level in self.memory if level.role == role)

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
            return f"{self.name}: a chip needs at least one compute ceiling"
        if not any(level.role == "dram" for level in self.memory):
            return f"{self.name}: a chip needs its main-memory (dram) level"
        return None

    def with_compute(self, precision: str, value: float | None) -> Chip:
        compute = dict(self.compute)
        if value is None:
            compute.pop(precision, None)
        else:
            compute[precision] = float(value)
        return replace(self, compute=compute)

    def with_level(self, index: int, level: MemoryLevel) -> Chip:
        memory = list(self.memory)
        memory[index] = level
        return replace(self, memory=tuple(memory))
