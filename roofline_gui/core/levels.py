"""A kernel's traffic level by level (the hierarchical roofline, as Nsight Compute and Intel
Advisor draw it): at each memory level of a chip the kernel moves bytes through, its intensity
(ops per byte at that level), that level's roof and whether it is the one that limits; and
whether the operands it keeps on chip fit there.

Qt-free: the explanation, the table's tooltip, the kernel form and the chart's per-level points
all read it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from roofline_gui.core.chip import Chip
from roofline_gui.core.i18n import N_, _
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.units import ROLE_INDEX, format_si


@dataclass(frozen=True)
class LevelPoint:
    """Kernel k on one memory level of a chip: ops per byte there, the level's roof at that
    intensity, and whether this level is the one that limits the kernel on this chip."""

    level: int  # index into chip.memory
    name: str
    role: str
    intensity: float  # op/B at this level
    bandwidth: float  # B/s applied (read)
    roof: float  # op/s: intensity × bandwidth
    limits: bool


def level_points(cmp, k: int, c: int) -> list[LevelPoint]:
    """Every level of chip ``c`` kernel ``k`` moves bytes through, in the chip's order."""
    r = cmp.result
    ka, ca = cmp.kernel_arrays, cmp.chip_arrays
    chip = cmp.chips[c]
    limiter = int(r.limiter[k, c])
    read_bw = ca.read_bandwidth(r.derated)[c]
    out = []
    for j, level in enumerate(chip.memory):
        nbytes = float(ka.bytes[k, ROLE_INDEX[level.role]])
        if not (np.isfinite(nbytes) and nbytes > 0):
            continue
        intensity = float(ka.ops[k]) / nbytes
        bw = float(read_bw[j])
        out.append(LevelPoint(j, level.name, level.role, intensity, bw, intensity * bw,
                              limiter == j))
    return out


def on_chip_capacity(chip: Chip) -> tuple[float | None, str]:
    """The largest on-chip (cache) level's capacity and name; (None, "") where the chip has no
    on-chip level, or none with a stated capacity."""
    levels = [lv for lv in chip.memory if lv.role == "cache" and lv.capacity]
    if not levels:
        return None, ""
    best = max(levels, key=lambda lv: lv.capacity)
    return best.capacity, best.name


#: What is wrong with the operands a kernel keeps on chip (residency_problem).
NO_LEVEL, MISFIT = "no on-chip level", "does not fit"


def residency_problem(kernel: Kernel, chip: Chip) -> str:
    """NO_LEVEL where ``chip`` has no on-chip level for the operands ``kernel`` keeps on chip,
    MISFIT where they do not fit in its largest, else "": the one test residency_note words
    and the table's cell and the marker's tooltip name."""
    if kernel.template is None or "cache" not in kernel.resides.values():
        return ""
    if not chip.levels("cache"):
        return NO_LEVEL
    capacity, _name = on_chip_capacity(chip)
    return MISFIT if capacity is not None and kernel.traffic().resident > capacity else ""


def residency_note(kernel: Kernel, chip: Chip) -> str:
    """What goes wrong with the operands ``kernel`` keeps on chip on ``chip``, or "": they do
    not fit in its largest on-chip level (the bound assumes they do), or the chip has no
    on-chip level here (their bytes are not counted on it)."""
    problem = residency_problem(kernel, chip)
    if not problem:
        return ""
    traffic = kernel.traffic()
    names = [n for n, r in traffic.placed if r == "cache"]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + _(" and ") + names[-1]
    size = format_si(traffic.resident, "B")
    if problem == NO_LEVEL:
        return _("{chip} has no on-chip level in this session, so the {size} of {operands} "
                 "kept on chip are counted nowhere on it: add its cache level (Hardware) or "
                 "keep them in main memory.").format(chip=chip.name, size=size, operands=listed)
    capacity, name = on_chip_capacity(chip)  # MISFIT: they do not fit in its largest
    where = name if "(" in name else f"{name} ({format_si(capacity, 'B')})"  # "L2 (40 MB)"
    return (_("{operands} ({size}) does not fit in {chip}'s {level}: the bound assumes it "
              "stays on chip; a smaller size, or main memory, is what would really happen.")
            if len(names) == 1 else
            _("{operands} ({size}) do not fit in {chip}'s {level}: the bound assumes they "
              "stay on chip; a smaller size, or main memory, is what would really happen.")
            ).format(operands=listed, size=size, chip=chip.name, level=where)


def ratio_to_main_memory(chip: Chip) -> list[str]:
    """Each on-chip level's bandwidth against main memory's, the article's "about 10×"."""
    dram = chip.dram
    return [_("{level} {bandwidth} is {times}× {main}'s {main_bandwidth}").format(
        level=lv.name, bandwidth=format_si(lv.bandwidth, "B/s"),
        times=f"{lv.bandwidth / dram.bandwidth:.3g}", main=dram.name,
        main_bandwidth=format_si(dram.bandwidth, "B/s"))
        for lv in chip.memory if lv.role == "cache"]


def host_note(chip: Chip) -> str:
    """The host link's figure is per direction; the one often quoted counts both."""
    hosts = chip.levels("host")
    if not hosts:
        return ""
    lv = hosts[0]
    return _("{level}: {bandwidth} each way, the roof an input crossing to the chip meets; the "
             "{both} often quoted counts both directions (as the article's 64 GB/s for PCIe "
             "Gen4 x16 does).").format(level=lv.name, bandwidth=format_si(lv.bandwidth, "B/s"),
                                       both=format_si(2 * lv.bandwidth, "B/s"))


def role_intensities(cmp, k: int) -> list[tuple[str, float]]:
    """(memory role, op/B) at each role kernel ``k`` moves bytes through, in MEMORY_ROLES order."""
    ka = cmp.kernel_arrays
    out = []
    for role, i in ROLE_INDEX.items():
        nbytes = float(ka.bytes[k, i])
        if np.isfinite(nbytes) and nbytes > 0:
            out.append((role, float(ka.ops[k]) / nbytes))
    return out


def intensity_text(cmp, k: int, units) -> str:
    """'intensity 1 op/B (main memory)', or every level's where the kernel moves bytes
    through several: 'intensity: main memory 1 op/B, on chip 0.5 op/B'."""
    every = role_intensities(cmp, k)
    if len(every) <= 1:
        role = every[0][0] if every else "dram"
        return _("intensity {value} ({level})").format(
            value=units.format_intensity(float(cmp.dram_intensity[k])), level=_(ROLE_SHORT[role]))
    return _("intensity: {levels}").format(levels=", ".join(
        f"{_(ROLE_SHORT[role])} {units.format_intensity(x)}" for role, x in every))


#: Each memory role in a few words, for tooltips and cells (translated where shown).
ROLE_SHORT = {"dram": N_("main memory"), "cache": N_("on chip"), "host": N_("host link"),
              "link": N_("chip-to-chip link")}


def misfits(cmp, chips) -> np.ndarray:
    """[N, 2] (kernel, chip) rows, sorted, of the kernels whose operands kept on chip do not fit
    that chip's on-chip level, or that have none (as residency_note says): drawn hollow, their
    limiter cell marked. From the kernels' resident bytes, one column, in numpy: a chart spec
    asks it on every drag step (24,420 pairs at 10,000 x 30 took 7 ms as Python tuples)."""
    resident = cmp.kernel_arrays.resident
    rows = np.zeros(0, dtype=np.intp) if resident is None else np.flatnonzero(resident > 0)
    ks, cs = [], []
    for c in chips if len(rows) else ():
        chip = cmp.chips[c]
        capacity, _name = on_chip_capacity(chip)
        if not chip.levels("cache"):
            bad = rows
        elif capacity is not None:
            bad = rows[resident[rows] > capacity]
        else:
            continue
        ks.append(bad)
        cs.append(np.full(len(bad), c, dtype=np.intp))
    if not ks:
        return np.zeros((0, 2), dtype=np.intp)
    k, c = np.concatenate(ks), np.concatenate(cs)
    order = np.lexsort((c, k))
    out = np.column_stack([k[order], c[order]])
    out.flags.writeable = False
    return out
