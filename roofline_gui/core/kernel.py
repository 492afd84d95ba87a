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

from dataclasses import dataclass, field, replace

from roofline_gui.core.templates import TEMPLATES, Traffic
from roofline_gui.core.units import BYTES_PER_VALUE


@dataclass(frozen=True)
class Kernel:
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
            return TEMPLATES[self.template].traffic(self.params, self.bytes_per_value)
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

    def with_precision(self, precision: str, storage: str | None = None) -> Kernel:
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
