"""Kernel: the work side of the roofline.

A kernel is one of three kinds, checked in this order:
- a template kernel (``template`` + ``params``): ops and bytes derive from the template;
- a sized kernel (``flops`` + ``bytes`` per memory role, ``dram`` at least);
- an intensity-only kernel (``intensity`` in ops per dram byte): it has a position on the
  roofline but no time.
``precision`` selects the compute ceiling; ``storage_precision`` (when it differs, e.g. int8
weights with bf16 math) sets the bytes per value of template kernels. Instances are immutable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from roofline_gui.core.templates import TEMPLATES, Traffic
from roofline_gui.core.units import BYTES_PER_VALUE


@dataclass(frozen=True)
class Kernel:
    """A kernel at one precision: from a template and its parameters, or given as ops and
    bytes per memory role; with its measurement, if one is attached, and its source."""

    id: str
    name: str
    precision: str
    category: str = "other"
    storage_precision: str | None = None
    template: str | None = None
    params: dict[str, float] = field(default_factory=dict)
    flops: float | None = None
    bytes: dict[str, float] = field(default_factory=dict)
    write_bytes: dict[str, float] = field(default_factory=dict)
    intensity: float | None = None
    measured_time: float | None = None
    measured_flops: float | None = None
    notes: str = ""
    source: str = ""
    preset: str | None = None
    #: where each of a template kernel's operands lives, when not main memory:
    #: {"a": "cache", "x": "host"} (core.templates.RESIDENCES); absent operands live in dram
    resides: dict[str, str] = field(default_factory=dict)

    @property
    def is_measured(self) -> bool:
        """Whether a measurement (rate or time) is attached."""
        return self.measured_flops is not None or self.measured_time is not None

    @property
    def storage(self) -> str:
        """The precision values are stored in (defaults to the compute precision)."""
        return self.storage_precision or self.precision

    @property
    def bytes_per_value(self) -> float:
        return BYTES_PER_VALUE[self.storage]

    @property
    def has_size(self) -> bool:
        """True when ops and bytes are absolute, so a time can be computed."""
        return self.template is not None or self.flops is not None

    def traffic(self) -> Traffic:
        """Ops and bytes per role. Intensity-only kernels give ops = intensity per dram byte."""
        if self.template is not None:
            return TEMPLATES[self.template].traffic(self.params, self.bytes_per_value, self.resides)
        if self.flops is not None:
            return Traffic(self.flops, dict(self.bytes), dict(self.write_bytes))
        return Traffic(float(self.intensity or 0.0), {"dram": 1.0}, {})

    def measured_performance(self) -> float | None:
        """Achieved op/s from a measurement, if any: measured op/s, else ops / measured time."""
        if self.measured_flops is not None:
            return self.measured_flops
        if self.measured_time is not None and self.has_size:
            return self.traffic().ops / self.measured_time
        return None

    def auto_name(self) -> str:
        """The name a template kernel gets from its parameters and precision:
        'MLP layer 4096×4096, batch 8 (bf16)'. Other kernels have no such name ("")."""
        if self.template is None:
            return ""
        precision = (f"{self.storage_precision} storage, {self.precision} math"
                     if self.storage_precision else self.precision)
        return f"{TEMPLATES[self.template].describe(self.params)}{self.placement()} ({precision})"

    def placement(self) -> str:
        """Where operands live when not all in main memory, as a name reads it:
        ', a and b on chip', ', A and B over the host link'."""
        parts = []
        for level, words in (("cache", "on chip"), ("host", "over the host link")):
            names = [n for n, r in self.resides.items() if r == level]
            if names:
                listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
                parts.append(f"{listed} {words}")
        return "".join(f", {p}" for p in parts)

    def with_resides(self, resides: dict[str, str]) -> Kernel:
        """The template kernel with its operands living where ``resides`` says (dram entries are
        dropped: main memory is the default), its name kept in step."""
        template = TEMPLATES[self.template]
        kept = {op.name: resides[op.name] for op in template.operands
                if resides.get(op.name, "dram") != "dram"}
        return _follow_name(self, replace(self, resides=kept))

    def with_params(self, **changes: float) -> Kernel:
        """The template kernel with some parameters changed, its name kept in step."""
        return _follow_name(self, replace(self, params={**self.params, **changes}))

    def with_precision(self, precision: str, storage: str | None = None) -> Kernel:
        return _follow_name(self, self._at_precision(precision, storage))

    def _at_precision(self, precision: str, storage: str | None) -> Kernel:
        """The same kernel at another precision, as mixed precision changes it.

        Template kernels re-derive their bytes; sized kernels scale their bytes by the change in
        bytes per value; intensity-only kernels scale their intensity the other way.
        """
        new = replace(self, precision=precision, storage_precision=storage)
        if self.template is not None:
            return new
        ratio = new.bytes_per_value / self.bytes_per_value
        if self.flops is not None:
            return replace(
                new,
                bytes={r: v * ratio for r, v in self.bytes.items()},
                write_bytes={r: v * ratio for r, v in self.write_bytes.items()},
            )
        return replace(new, intensity=(self.intensity or 0.0) / ratio)


def _swap(text: str, old: str, new: str) -> str:
    """``old`` replaced by ``new`` where it stands as a whole phrase ('batch 1' not in 'batch 16')."""
    if not old or old == new:
        return text
    return re.sub(rf"(?<![\w.]){re.escape(old)}(?![\w.])", lambda _m: new, text)


def _follow_name(old: Kernel, new: Kernel) -> Kernel:
    """``new`` named in step with the change from ``old``: a name that is the automatic one stays
    automatic; in a name of the user's or a preset's, the main parameter's phrase ('batch 1') and
    the precision in the closing parentheses ('(int8)') follow; any other name is kept."""
    if old.template is not None and old.name == old.auto_name():
        return replace(new, name=new.auto_name())
    name = old.name
    if old.template is not None and new.template == old.template:
        template = TEMPLATES[old.template]
        for translated in (False, True):  # an English name, or one in the interface's language
            name = _swap(name, template.phrase(old.params, translated),
                         template.phrase(new.params, translated))
    for opening, closing in (("(", ")"), ("（", "）")):  # "(int8)", Japanese "（int8）"
        if new.precision != old.precision and name.endswith(closing) and opening in name:
            head, _paren, tail = name.rpartition(opening)
            name = f"{head}{opening}{_swap(tail, old.precision, new.precision)}"
            break
    return replace(new, name=name) if name != new.name else new
