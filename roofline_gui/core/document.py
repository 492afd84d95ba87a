"""Document: the whole comparison session, immutable.

The document holds chips, kernels and workloads in display order, the id of the baseline chip for
speedups, and a title. Objects are named by their stable ``id`` everywhere (edits, selection,
drag-and-drop), never by reference or position.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from roofline_gui.core.chip import Chip
from roofline_gui.core.kernel import Kernel

if TYPE_CHECKING:  # workloads are imported where they are used, off the start-up path
    from roofline_gui.core.workload import MeasuredServing, Workload

COLLECTIONS = ("chips", "kernels", "workloads")


@dataclass(frozen=True)
class Document:
    """A session: its chips, kernels and workloads, the baseline chip and the title. Immutable;
    every change is an edit (core/edits.py) that makes a new one."""

    chips: tuple[Chip, ...] = ()
    kernels: tuple[Kernel, ...] = ()
    workloads: tuple[Workload, ...] = ()
    baseline: str | None = None
    title: str = ""
    #: the user's grid, kg CO2 per kWh, for a training run's emissions (None: not given)
    carbon_intensity: float | None = None
    #: measured or published serving points, drawn against their chips' serving bounds
    serving_measured: tuple[MeasuredServing, ...] = ()

    def items(self, collection: str) -> tuple[Chip | Kernel | Workload, ...]:
        if collection not in COLLECTIONS:
            raise KeyError(collection)
        return getattr(self, collection)

    def index_of(self, collection: str, item_id: str) -> int:
        for i, item in enumerate(self.items(collection)):
            if item.id == item_id:
                return i
        raise KeyError(f"no {collection[:-1]} with id {item_id!r}")

    def chip(self, chip_id: str) -> Chip:
        return self.chips[self.index_of("chips", chip_id)]

    def kernel(self, kernel_id: str) -> Kernel:
        return self.kernels[self.index_of("kernels", kernel_id)]

    def workload(self, workload_id: str) -> Workload:
        return self.workloads[self.index_of("workloads", workload_id)]

    @property
    def kernels_by_id(self) -> dict[str, Kernel]:
        """The kernels a custom workload's entries name."""
        return {k.id: k for k in self.kernels}

    @property
    def visible_chips(self) -> tuple[Chip, ...]:
        return tuple(c for c in self.chips if c.visible)

    @property
    def baseline_chip(self) -> Chip | None:
        """The chip speedups are measured against: the chosen one, else the first."""
        for chip in self.chips:
            if chip.id == self.baseline:
                return chip
        return self.chips[0] if self.chips else None

    def new_id(self, prefix: str) -> str:
        """An id not used by any chip or kernel: prefix + (largest number in use + 1)."""
        pattern = re.compile(rf"^{re.escape(prefix)}(\d+)$")
        used = [
            int(m.group(1))
            for item in (*self.chips, *self.kernels, *self.workloads)
            if (m := pattern.match(item.id))
        ]
        return f"{prefix}{max(used, default=0) + 1}"


def serving_only_change(old: Document, new: Document) -> bool:
    """Whether ``new`` differs from ``old`` in the Serving view's settings alone (workloads'
    serving fields, the measured serving points): no roofline, decode step, prefill or
    training step moved, so the other views may stay as they are."""
    if (old.kernels is not new.kernels or old.chips is not new.chips or (
            old.baseline, old.title, old.carbon_intensity) != (
            new.baseline, new.title, new.carbon_intensity)):
        return False
    from roofline_gui.core.workload import serving_only  # noqa: PLC0415 (off the start-up path)

    same = len(old.workloads) == len(new.workloads) and all(
        a is b for a, b in zip(old.workloads, new.workloads, strict=True))
    if same:
        return old.serving_measured != new.serving_measured
    return serving_only(old.workloads, new.workloads)


def copy_name(name: str, taken) -> str:
    """The name of a copy of ``name`` (Duplicate): "A100 (copy)", then "A100 (copy 2)", … the
    first not among ``taken`` (the names in use); a copy's copy counts on from its original's
    name (two Duplicates had made two chips both "A100 SXM4 40GB (copy)", which the table's
    columns and the legend could not tell apart: the ninth tour)."""
    from roofline_gui.core.i18n import _  # noqa: PLC0415 (words only)

    one, many = _("{name} (copy)"), _("{name} (copy {n})")
    for form in (one, many):  # "A100 (copy 2)" is a copy of "A100"
        pattern = re.escape(form).replace(re.escape("{name}"), "(?P<base>.+)").replace(
            re.escape("{n}"), r"\d+")
        if found := re.fullmatch(pattern, name):
            name = found["base"]
            break
    taken = set(taken)
    forms = itertools.chain([one], (many.replace("{n}", str(n)) for n in itertools.count(2)))
    return next(copy for form in forms if (copy := form.format(name=name)) not in taken)
