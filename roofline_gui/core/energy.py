"""Energy, power and cost (issue 28): the energy roofline of Choi, Bedard, Fowler and Vuduc
("A roofline model of energy", IPDPS 2013) and its power cap (Choi et al., IPDPS 2014). Qt-free.

Per chip: a board power P (TDP, W) with its source, a constant power π0 (W), an energy per op ε_op
per precision (pJ) and per byte ε_l per memory level (pJ), and optionally a price per chip-hour.
A level's energy is given by its name ("L2=5") or by its role ("cache=5": every level of that
role not named). Where no source gives ε_op or main memory's ε_l, they are estimated as upper
bounds from the board power: the board's power above π0 spent by the compute units alone at the
peak, (P − π0)/peak, or by main memory alone at its bandwidth, (P − π0)/bandwidth. The bytes at
the on-chip, host and link levels count only where their energy is given (that bound, the
board's whole power for a PCIe link, would cap every kernel that crosses one). Every estimate
says it is one.

A kernel's bytes at a memory role pass through every level of that role, as its time does (each
level's roof meets them), so per op of a kernel of intensity I_r (ops per byte at role r) running
at rate R (op/s):
    e = ε_op + Σ_levels ε_l / I_role(l) + π0 / R           (J per op)
    average power = e · R                                  (W)
When that power exceeds the board power P the kernel is power-capped: its rate falls until the
power fits (flagged where that slows it by more than 5 %), R_cap = (P − π0) / (ε_op + Σ_r ε_r /
I_r), and its energy per op becomes
ε_op + Σ ε_r / I_r + π0 / R_cap. With both ε at their upper-bound estimates the cap bites near
the ridge, where compute and memory run flat out together: there the capped time is the
no-overlap time, W/peak + Q/bandwidth. The roofline's own times are never stretched by an
estimate (a bound must stay a bound); the capped rate is reported beside them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields

import numpy as np

from roofline_gui.core.i18n import N_, _, listed, ngettext
from roofline_gui.core.identity_cache import IdentityCache
from roofline_gui.core.units import (
    MEMORY_ROLES,
    PRECISION_INDEX,
    PRECISIONS,
    ROLE_INDEX,
    Units,
    format_si,
    format_time,
)

PJ = 1e-12
#: A kernel counts as power-capped where the cap slows it by more than this.
CAP_SLOWDOWN = 0.05
#: What an energy field is called in sources and messages.
FIELDS = ("board_power", "idle_power", "price_per_hour")


@dataclass(frozen=True)
class Energy:
    """A chip's power and energy figures, each with its source (``sources``: "board_power",
    "idle_power", "price_per_hour", "op:<precision>", "byte:<level name or role>")."""

    board_power: float | None = None  # W, the board's (TDP): the power cap
    idle_power: float | None = None  # W, π0: drawn whatever runs (None: folded into the estimates)
    op_pj: dict[str, float] = field(default_factory=dict)  # pJ per op, by precision
    # pJ per byte, by memory level's name, or by role for every level of it not named
    byte_pj: dict[str, float] = field(default_factory=dict)
    price_per_hour: float | None = None  # $ per chip-hour, the user's (or a dated snapshot)
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """Whether it gives no figure at all (sources aside): no energy data."""
        return (self.board_power is None and self.idle_power is None
                and self.price_per_hour is None and not self.op_pj and not self.byte_pj)

    def problems(self, levels: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """(field, message) for every value that cannot be: negative, zero or not finite, or an
        energy per byte for a level the chip does not have (``levels``: its level names; None
        leaves the names unchecked)."""
        out = []
        for name in FIELDS:
            value = getattr(self, name)
            if value is not None and not _positive(value, allow_zero=name == "idle_power"):
                out.append((name, _("must be a finite number above 0, not {value}").format(
                    value=repr(value))))
        byte_known = None if levels is None else (*levels, *MEMORY_ROLES)
        for key, values, known, what in (("op_pj", self.op_pj, PRECISIONS, "precision"),
                                         ("byte_pj", self.byte_pj, byte_known,
                                          "memory level or role")):
            for name, value in values.items():
                if known is not None and name not in known:
                    out.append((f"{key}.{name}", (_("unknown precision {name}; use one of {known}")
                                                  if what == "precision" else
                                                  _("unknown memory level or role {name}; use one "
                                                    "of {known}")).format(
                        name=repr(name), known=listed(known))))
                elif not _positive(value):
                    out.append((f"{key}.{name}", _("must be a finite number above 0, not "
                                                   "{value}").format(value=repr(value))))
        if (self.board_power is not None and self.idle_power is not None
                and _positive(self.board_power) and self.idle_power >= self.board_power):
            out.append(("idle_power", _("{idle} W is not below the board power {board} W").format(
                idle=f"{self.idle_power:g}", board=f"{self.board_power:g}")))
        return out


def given_text(chip) -> str:
    """A chip's given energies as the hardware editor's "Given pJ" field writes them."""
    e = chip.energy
    if e is None:
        return ""
    return ", ".join([*(f"{p}={v:g}" for p, v in e.op_pj.items()),
                      *(f"{r}={v:g}" for r, v in e.byte_pj.items())])


def parse_given(text: str, chip) -> tuple[dict[str, float], dict[str, float], list[str]]:
    """"bf16=0.5, HBM3=60, L2=5, cache=2" on ``chip``: (pJ per op by precision, pJ per byte by
    level name or role, what is wrong). A precision or role in any case; a level by its name in
    any case, or by the name before its bracket ("L2" for "L2 (50 MB)") where that is one
    level's; a name may hold a comma (each value is a number, so an entry ends at the comma
    after it). Refused, each named: a value that is not a number above 0 and below 1e6, a name
    that is none of these (with the nearest one), a name given twice, a role whose every level
    is named already."""
    import difflib  # noqa: PLC0415

    levels: dict[str, list[str]] = {}
    for lv in chip.memory:
        for key in {lv.name.casefold(), lv.name.split(" (")[0].strip().casefold()}:
            levels.setdefault(key, []).append(lv.name)
    op: dict[str, float] = {}
    byte: dict[str, float] = {}
    bad: list[str] = []
    chunks = text.split("=")
    if len(chunks) == 1:
        return op, byte, ([f"“{text.strip()}”: write name=pJ, e.g. “bf16=0.5, HBM3=60”"]
                          if text.strip() else [])
    entries, name = [], chunks[0]
    for chunk in chunks[1:-1]:
        value, _comma, following = chunk.partition(",")
        entries.append((name, value))
        name = following
    entries.append((name, chunks[-1].rstrip().rstrip(",")))
    known = [*PRECISIONS, *(lv.name for lv in chip.memory), *MEMORY_ROLES]
    for raw_name, raw_value in entries:
        name, value = raw_name.strip(), raw_value.strip()
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        key = name.casefold()
        if not name:
            bad.append(_("“={value}” has no name").format(value=value))
            continue
        if not (0 < number < 1e6):
            bad.append(_("{name}: “{value}” is not a number of pJ above 0").format(name=name,
                                                                                  value=value))
            continue
        if key in PRECISIONS:
            target, where = key, op
        elif key in MEMORY_ROLES:
            target, where = key, byte
        elif len(levels.get(key, ())) == 1:
            target, where = levels[key][0], byte
        elif key in levels:
            bad.append(_("“{name}” could be {levels}: write the whole name").format(
                name=name, levels=_(" or ").join(levels[key])))
            continue
        else:
            near = difflib.get_close_matches(name, known, n=1, cutoff=0.6) or \
                difflib.get_close_matches(key, [k.casefold() for k in known], n=1, cutoff=0.6)
            bad.append((_("“{name}” is not a precision, a memory level of {chip} or a memory role "
                          "(did you mean {near}?); use one of {known}") if near else
                        _("“{name}” is not a precision, a memory level of {chip} or a memory role; "
                          "use one of {known}")).format(name=name, chip=chip.name,
                                                        near=near[0] if near else "",
                                                        known=listed(known)))
            continue
        if target in where:
            bad.append(_("{name} is given twice").format(name=target))
            continue
        where[target] = number
    for role in [r for r in byte if r in MEMORY_ROLES]:
        named = [lv.name for lv in chip.levels(role)]
        if named and all(n in byte for n in named):
            bad.append(ngettext("{role}={value} applies to no level: {levels} is named",
                                "{role}={value} applies to no level: {levels} are named",
                                len(named)).format(role=role, value=f"{byte[role]:g}",
                                                   levels=_(" and ").join(named)))
        elif not named:
            bad.append(_("{role}={value}: {chip} has no {role} level").format(
                role=role, value=f"{byte[role]:g}", chip=chip.name))
    return op, byte, bad


def _positive(value, allow_zero: bool = False) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and np.isfinite(value) and (value > 0 or (allow_zero and value == 0)))


@dataclass(frozen=True)
class Constants:
    """One chip's constants as the model uses them, each with where it comes from."""

    board_power: float  # W
    idle_power: float  # W
    op_j: dict[str, float]  # J per op, by precision the chip has
    byte_j: dict[str, float]  # J per byte at a role: its counted levels' sum (each sees the bytes)
    levels: tuple[tuple[str, str, float], ...]  # (level name, role, J per byte; 0 not counted)
    said: dict[str, str]  # "op:<precision>", "byte:<level name>" -> source or "estimate: …"
    estimated: frozenset[str] = frozenset()  # the keys of ``said`` whose figure is an estimate

    def is_estimate(self, key: str) -> bool:
        """Whether the figure at ``key`` was estimated here from the board power (a source the
        user gave is never one, whatever its words)."""
        return key in self.estimated

    @property
    def dram_estimated(self) -> bool:
        """Whether main memory's energy per byte is an estimate from the board power."""
        return any(self.is_estimate(f"byte:{name}") for name, role, _j in self.levels
                   if role == "dram")

    def first_level_j(self, role: str) -> float:
        """J per byte at the first level of ``role`` (a workload's link crossing), 0 if none."""
        return next((j for _n, r, j in self.levels if r == role), 0.0)


#: each chip's constants: a table's painted energy cells and the Energy tab ask per cell and
#: per point for the same chip objects (core.identity_cache)
_CONSTANTS: IdentityCache[Constants | None] = IdentityCache(64)


def constants(chip) -> Constants | None:
    """The chip's energy constants, given where its ``energy`` gives them, else estimated from
    its board power; None when it has no board power (no energy data). Worked out once for the
    same chip object (chips are not changed in place: an edit makes a new one)."""
    return _CONSTANTS.get((chip,), lambda: _constants(chip))


def _constants(chip) -> Constants | None:
    e = getattr(chip, "energy", None)
    if e is None or e.board_power is None:
        return None
    p0 = e.idle_power or 0.0
    spare = e.board_power - p0
    said = {"board_power": e.sources.get("board_power", "no source given"),
            "idle_power": (e.sources.get("idle_power", "no source given") if e.idle_power is not None
                           else "not given: 0 W, the constant power folded into the estimates")}
    op, estimated = {}, set()
    # Estimates come from the datasheet: a what-if chip keeps its original's energies (twice the
    # HBM bandwidth does not halve the energy per byte) unless the user gives them.
    for p, peak in ((p, chip.compute_what_if_of.get(p, v)) for p, v in chip.compute.items()):
        if p in e.op_pj:
            op[p] = e.op_pj[p] * PJ
            said[f"op:{p}"] = e.sources.get(f"op:{p}", "no source given")
        else:
            op[p] = spare / peak
            estimated.add(f"op:{p}")
            said[f"op:{p}"] = (f"estimate (an upper bound): (P − π0)/peak = {spare:g} W / "
                               f"{format_si(peak, 'op/s')} = {_pj(op[p])} pJ")
    levels = []
    first_dram = chip.levels("dram")[:1]
    for level in chip.memory:
        key = f"byte:{level.name}"
        given = next((name for name in (level.name, level.role) if name in e.byte_pj), None)
        if given is not None:
            j = e.byte_pj[given] * PJ
            said[key] = e.sources.get(f"byte:{given}", "no source given") + (
                "" if given == level.name else f" (given for every {level.role} level)")
        elif level in first_dram:
            sheet = level.what_if_of or level.bandwidth
            j = spare / sheet
            estimated.add(key)
            said[key] = (f"estimate (an upper bound): (P − π0)/bandwidth = {spare:g} W / "
                         f"{format_si(sheet, 'B/s')} = {_pj(j)} pJ"
                         + (" (the datasheet's bandwidth: a what-if keeps its energies)"
                            if level.what_if_of else ""))
        else:
            # On-chip, host and link bytes: their energy per byte is far below the board power
            # over their bandwidth (a PCIe link's PHY draws watts, not the board's 700), so that
            # bound would cap every kernel that crosses them; they count where given.
            j = 0.0
            said[key] = "not given: not counted"
        levels.append((level.name, level.role, j))
    byte = {role: sum(j for _n, r, j in levels if r == role) for role in MEMORY_ROLES
            if chip.levels(role)}
    return Constants(e.board_power, p0, op, byte, tuple(levels), said, frozenset(estimated))


@dataclass(frozen=True)
class KernelEnergy:
    """Every kernel on every chip: arrays [K, C], NaN where a chip has no energy data or cannot
    run the kernel."""

    per_op: np.ndarray  # J per op at the roofline's rate
    dynamic_per_op: np.ndarray  # J per op without the constant power
    compute_per_op: np.ndarray  # J per op of the compute alone (ε_op, a stand-in's where used)
    power: np.ndarray  # W at the roofline's rate (may exceed the board power: see capped)
    capped: np.ndarray  # bool: the board power slows it by more than CAP_SLOWDOWN
    capped_rate: np.ndarray  # op/s: the rate at which the power fits (the roofline's if not capped)
    capped_per_op: np.ndarray  # J per op at the capped rate
    capped_power: np.ndarray  # W at the capped rate: never above the board power
    board_power: np.ndarray  # [C] W (NaN: no energy data)
    #: bool: the estimates' sum passed the board power, so the board power over the time is
    #: counted instead (the rate is not slowed: see ``capped`` for that)
    held: np.ndarray

    @property
    def ops_per_joule(self) -> np.ndarray:
        return 1.0 / self.capped_per_op

    def row(self, k: int) -> KernelEnergy:
        """Kernel ``k`` alone: every [K, C] array cut to [1, C]."""
        return KernelEnergy(**{f.name: getattr(self, f.name) if f.name == "board_power"
                               else getattr(self, f.name)[k:k + 1] for f in fields(self)})


#: the chips' tables: the chart's, the table's, a variant's set of chips (core.identity_cache)
_TABLES: IdentityCache[tuple] = IdentityCache(8)


def _tables(chips: Sequence) -> tuple:
    """(estimated, chip constants, uncounted bounds, first levels' J per byte) of ``chips``,
    worked out once for the same chip objects (a workload's drag evaluates on the same chips 60
    times a second)."""
    def make() -> tuple:
        consts = [constants(chip) for chip in chips]  # once per chip, for the four tables
        return (_estimated(consts), _chip_constants(chips, consts),
                _uncounted_bounds(chips, consts), _first_levels(consts))

    return _TABLES.get(chips, make)


def is_estimated(chip, precision: str) -> bool:
    """Whether ``chip``'s energy per ``precision`` op or per main-memory byte is an estimate
    from its board power: its energies there are upper bounds, not figures."""
    k = constants(chip)
    return k is not None and (k.is_estimate(f"op:{precision}") or k.dram_estimated)


def bound_signs(chip, precision: str) -> tuple[str, str]:
    """The signs before an op/J (items/J) figure and its power where ``chip``'s energies at
    ``precision`` are estimates from its board power, upper bounds on the joules: the
    efficiency a floor, the power a ceiling, not a prediction (the 36th tour read "· 400 W"
    beside every A100 kernel, a + b at 0.08 % of the peak too, as what the chip would draw);
    none where the figures are given."""
    return ("≥ ", "≤ ") if is_estimated(chip, precision) else ("", "")


def estimated(chips: Sequence) -> np.ndarray:
    """[C] whether a chip's energy per op or per main-memory byte is an estimate."""
    return _tables(chips)[0]


def chip_constants(chips: Sequence) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """([C, P] J per op, [C, R] J per byte, [C] π0, [C] board power), NaN where unknown."""
    return _tables(chips)[1]


def uncounted_bounds(chips: Sequence) -> np.ndarray:
    """[C, R] J per byte for the levels a chip's constants leave uncounted: (P − π0)/bandwidth,
    the upper bound (0 for counted levels, and without energy data)."""
    return _tables(chips)[2]


def link_constants(chips: Sequence, role: str) -> np.ndarray:
    """[C] J per byte at the first level of ``role`` (where a workload's communication crosses),
    0 where not given, NaN without energy data."""

    return _tables(chips)[3][:, ROLE_INDEX[role]]


def _first_levels(consts: Sequence[Constants | None]) -> np.ndarray:
    out = np.full((len(consts), len(MEMORY_ROLES)), np.nan)
    for c, k in enumerate(consts):
        if k is not None:
            out[c] = [k.first_level_j(role) for role in MEMORY_ROLES]
    return out


def _estimated(consts: Sequence[Constants | None]) -> np.ndarray:
    out = np.zeros(len(consts), dtype=bool)
    for c, k in enumerate(consts):
        out[c] = k is not None and (k.dram_estimated or any(k.is_estimate(key) for key in k.said
                                                            if key.startswith("op:")))
    return out


def _uncounted_bounds(chips: Sequence, consts: Sequence[Constants | None]) -> np.ndarray:

    out = np.zeros((len(chips), len(ROLE_INDEX)))
    for c, (chip, k) in enumerate(zip(chips, consts, strict=True)):
        if k is None:
            continue
        for level, (_name, role, j) in zip(chip.memory, k.levels, strict=True):
            if not j:
                out[c, ROLE_INDEX[role]] += (k.board_power - k.idle_power) / level.bandwidth
    return out


def _chip_constants(chips: Sequence, consts: Sequence[Constants | None]) -> tuple:

    n = len(chips)
    op = np.full((n, len(PRECISIONS)), np.nan)
    byte = np.zeros((n, len(ROLE_INDEX)))
    p0 = np.full(n, np.nan)
    board = np.full(n, np.nan)
    for c, k in enumerate(consts):
        if k is None:
            byte[c] = np.nan
            continue
        for p, v in k.op_j.items():
            op[c, PRECISION_INDEX[p]] = v
        for r, v in k.byte_j.items():
            byte[c, ROLE_INDEX[r]] = v
        p0[c], board[c] = k.idle_power, k.board_power
    return op, byte, p0, board


def kernel_energy(evaluation, chips: Sequence, rows: slice | None = None) -> KernelEnergy:
    """The energy model over an evaluation (core.roofline.Evaluation) of kernels on ``chips``;
    ``rows``: those kernels alone (a workload's entries, not every workload's)."""
    ka, rate = evaluation.kernel_arrays, evaluation.attainable
    rows = slice(None) if rows is None else rows
    rate = rate[rows]
    op_j, byte_j, p0, board = chip_constants(chips)
    ca = evaluation.chip_arrays
    prec = ka.precision[rows]
    # a stand-in precision (same width) spends its own energy per op
    stand = ca.stand_in if ca.stand_in is not None else np.full(op_j.shape, -1)
    eff = np.where(stand >= 0, stand, np.arange(op_j.shape[1])[None, :])
    per_precision = np.take_along_axis(op_j, eff, axis=1)  # [C, P]
    eps_op = per_precision[:, prec].T  # [K, C]
    with np.errstate(divide="ignore", invalid="ignore"):
        # [K, R] ops per byte at each role (sized or not), of these rows alone
        intensity = ka.ops[rows][:, None] / ka.bytes[rows]
        bytes_per_op = np.where(np.isfinite(intensity) & (intensity > 0), 1.0 / intensity, 0.0)
        dynamic = eps_op + bytes_per_op @ byte_j.T  # [K, C]
        per_op = dynamic + p0[None, :] / rate
        power = per_op * rate
        limit = (board - p0)[None, :] / dynamic
        over = power > board[None, :]
        capped_rate = np.where(over, np.minimum(rate, limit), rate)
        # Flagged where the cap slows it by more than 5 %: a memory-bound kernel's few ops lift
        # its power a hair above the board's (0.2 % at a third of an op per byte), within what
        # the model knows.
        capped = over & (capped_rate < rate * (1 - CAP_SLOWDOWN))
        capped_per_op = dynamic + p0[None, :] / capped_rate
        # With estimated constants (each charges the whole board power to one unit) their sum
        # near the ridge says nothing of a cap: the chip is not slowed, and its energy is at
        # most the board power over the time, the tighter of the two bounds.
        guessed = estimated(chips)[None, :] & np.ones_like(rate, dtype=bool)
        # the levels not counted (no figure) at their own upper bound, so that the sum stays
        # an upper bound for a kernel that crosses them (a GEMM fed over PCIe)
        everything = dynamic + bytes_per_op @ uncounted_bounds(chips).T + p0[None, :] / rate
        capped_rate = np.where(guessed, rate, capped_rate)
        capped = np.where(guessed, False, capped)
        held = guessed & (board[None, :] / rate < everything)
        capped_per_op = np.where(guessed, np.minimum(everything, board[None, :] / rate),
                                 capped_per_op)
        capped_power = np.minimum(capped_per_op * capped_rate, board[None, :])
    return KernelEnergy(per_op, dynamic, eps_op, power, capped, capped_rate, capped_per_op,
                        capped_power, board, held & np.isfinite(capped_per_op))


#: What a CSV row's energy counts (the column ``energy_basis``): the energy figures (given or
#: estimated) at the roofline's rate; the board power over the time, where the estimates' sum
#: passes it; or the figures at the rate the board power holds the chip to.
BASIS_FIGURES, BASIS_BOARD, BASIS_CAPPED = "figures", "board power x time", "capped rate"


def energy_basis(capped: bool, held: bool) -> str:
    return BASIS_CAPPED if capped else BASIS_BOARD if held else BASIS_FIGURES


def balance_point(chip, precision: str) -> float | None:
    """The energy-balance point ε_dram / ε_op (op/B): below it main memory's energy per op
    exceeds the compute's (Choi et al. 2013); None without energy data or that precision."""
    k = constants(chip)
    if k is None or precision not in k.op_j or "dram" not in k.byte_j:
        return None
    return k.byte_j["dram"] / k.op_j[precision]


# -- in words ------------------------------------------------------------------------------------

def _est(k: Constants, key: str) -> str:
    return " " + _("(an estimate)") if k.is_estimate(key) else ""


def kernel_lines(comparison, k: int, c: int, units=None) -> list[str]:
    """Energy and power of kernel ``k`` on chip ``c``, the formula with its numbers; "no energy
    data" where the chip has none (never a zero)."""

    units = units or Units()
    word, per_unit = units.word, units.ops_per_unit  # MAC mode: MAC/s and MAC/J, as the table

    def per_joule(x: float) -> str:
        return format_si(x / per_unit, f"{word}/J")

    chip = comparison.chips[c]
    consts = constants(chip)
    if consts is None:
        return [(_("Energy: no published board power for {chip} (its maker gives none): give "
                   "one in the hardware editor's Energy fields.") if chip.preset else
                 _("Energy: no energy data for {chip} (no board power): give one in the "
                   "hardware editor's Energy fields.")).format(chip=chip.name)]
    e = comparison.energy_of(k)  # [1, C]: this kernel alone
    ka = comparison.kernel_arrays
    kernel = comparison.kernels[k]
    if not np.isfinite(e.capped_per_op[0, c]):
        return []
    precision = comparison.stand_in(k, c) or kernel.precision
    eps_op = consts.op_j.get(precision, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        intensity = ka.ops[k] / ka.bytes[k]  # ops per byte at each role

    # The formula in the table's unit: with Count MACs, per MAC (two ops' energy, the bytes
    # over MAC/B, idle power over MAC/s), under a sentence per MAC (the tour read "÷ 61.59
    # op/B" there)
    twice = f"{per_unit} × " if per_unit > 1 else ""
    # each ε with its unit (pJ per op, per byte: the tour read "ε_HBM2 257 pJ" as a total)
    terms = [f"{twice}ε_{precision} {_pj(eps_op)} pJ/op{_est(consts, f'op:{precision}')}"]
    for name, role, joules in consts.levels:
        j = ROLE_INDEX[role]
        if np.isfinite(intensity[j]) and intensity[j] > 0 and joules:
            terms.append(f"ε_{name} {_pj(joules)} pJ/B ÷ {intensity[j] / per_unit:,.4g} {word}/B"
                         f"{_est(consts, f'byte:{name}')}")
    uncounted = [name for name, role, joules in consts.levels if not joules
                 and np.isfinite(intensity[ROLE_INDEX[role]]) and intensity[ROLE_INDEX[role]] > 0]
    rate = float(comparison.result.attainable[k, c])
    if consts.idle_power:
        terms.append(f"π0 {consts.idle_power:g} W ÷ {units.format_rate(rate)}")
    per_op = float(e.per_op[0, c])
    per_counted = per_op * per_unit  # the formula's sum, per op or per MAC
    power = float(e.power[0, c])
    counted = float(e.capped_per_op[0, c])  # what the table, the breakdown and the CSV count
    guessed = is_estimated(chip, precision)
    formula = (_("Energy per MAC = {terms} = {pj} pJ") if units.mac else
               _("Energy per op = {terms} = {pj} pJ")).format(terms=" + ".join(terms),
                                                               pj=_pj(per_counted))
    board = format_si(consts.board_power, "W")  # as the average beside it ("1 kW of the 1000 W")
    # with the table's and the Energy tab's signs, where the figures are bounds from estimates
    # (the 42nd tour read "≥ 123.2 Gop/J · ≤ 450 W" in the table and "123.2 Gop/J, at an
    # average 450 W" here); the joules, as the power, at most
    at_least, at_most = bound_signs(chip, precision)
    average = at_most + format_si(float(e.capped_power[0, c]), "W")
    if units.mac:  # the table reads MAC/J: the sentence is per MAC too, its ops' formula below
        # the model's citation by its name, not after the board power (the tour read it as the
        # A100's board power's source)
        first = _("Energy per MAC (the energy roofline, Choi et al. 2013): {pj} pJ (two ops of "
                  "{per_op} pJ each), {per_joule}, at an average {power} of the {board} board "
                  "power.").format(
            pj=at_most + _pj(counted * per_unit), per_op=_pj(counted),
            per_joule=at_least + per_joule(1 / counted), power=average, board=board)
    else:
        first = _("Energy per op (the energy roofline, Choi et al. 2013): {pj} pJ, {per_joule}, "
                  "at an average {power} of the {board} board power.").format(
            pj=at_most + _pj(counted), per_joule=at_least + per_joule(1 / counted),
            power=average, board=board)
    lines = [first]
    dram = comparison.chips[c].dram
    if guessed and power > consts.board_power and consts.dram_estimated and _faster_memory(dram):
        # A what-if with faster main memory keeps the datasheet chip's ε (its board power over
        # its datasheet bandwidth): at the new rate that ε would pass the board power kept from
        # the datasheet. Not the double count below (the tour: compute was 0.17 % busy).
        lines.append(_("The estimates alone would give {terms} = {pj} pJ ({power}), above the "
                       "{board} board power. Main memory's ε is the datasheet chip's board power "
                       "over its datasheet {level} bandwidth ({datasheet}), an upper bound there; "
                       "this what-if moves bytes {times}× as fast at the same ε, which a board of "
                       "{board} cannot feed: the board power over the time is counted, so the "
                       "what-if reads as more op/J only because its board power was kept. Give it "
                       "a board power of its own (Energy and cost) or measured energies (Given "
                       "pJ) to count it otherwise.").format(
            terms=" + ".join(terms), pj=_pj(per_counted), power=format_si(power, "W"), board=board,
            level=dram.name, datasheet=format_si(dram.what_if_of, "B/s"),
            times=f"{dram.bandwidth / dram.what_if_of:.3g}"))
    elif guessed and power > consts.board_power:
        # The estimates charge the whole board to each unit: where the compute units and main
        # memory are both busy, their sum counts the same watts twice.
        over = [w for w, est in ((f"ε_{precision}", consts.is_estimate(f"op:{precision}")),
                                 (_("main memory's ε"), consts.dram_estimated)) if est]
        just = power < 1.01 * consts.board_power
        said = (_("The estimates alone would give {terms} = {pj} pJ ({power}), just above the "
                  "{board} board power: {which} {bounds} that charge the board's whole power to "
                  "one unit, so where both are busy they count the same watts twice. The board "
                  "power over the time is counted; give measured energies in Given pJ to count "
                  "them instead.") if just else
                _("The estimates alone would give {terms} = {pj} pJ ({power}), above the {board} "
                  "board power: {which} {bounds} that charge the board's whole power to one "
                  "unit, so where both are busy they count the same watts twice. The board power "
                  "over the time is counted; give measured energies in Given pJ to count them "
                  "instead."))
        lines.append(said.format(
            terms=" + ".join(terms), pj=_pj(per_counted), power=format_si(power, "W"), board=board,
            which=_(" and ").join(over),
            bounds=_("are upper bounds") if len(over) > 1 else _("is an upper bound")))
    elif guessed and counted > per_op * (1 + 1e-9):
        lines.append(ngettext(
            "{formula} for the bytes with an energy figure; {levels} has none, and at its own "
            "upper bound (the board's power over its bandwidth) the sum would pass the board "
            "power: the board power over the time is counted, an upper bound.",
            "{formula} for the bytes with an energy figure; {levels} have none, and at their own "
            "upper bound (the board's power over its bandwidth) the sum would pass the board "
            "power: the board power over the time is counted, an upper bound.",
            len(uncounted)).format(formula=formula, levels=listed(uncounted)))
    elif power <= consts.board_power:
        lines.append(_("{formula} at the roofline's rate, drawing {power}.").format(
            formula=formula, power=format_si(power, "W")))
    else:
        lines.append((_("{formula} at the roofline's rate, which would draw {power}, above the "
                        "{board} board power.") if e.capped[0, c] else
                      _("{formula} at the roofline's rate, which would draw {power}, above the "
                        "{board} board power: held to it, {slower} slower (not counted as "
                        "power-capped below 5 %).")).format(
            formula=formula, power=format_si(power, "W"), board=board,
            slower=f"{1 - float(e.capped_rate[0, c]) / rate:.1%}"))
    if e.capped[0, c]:
        lines.append(_("Power-capped: held to {board} its rate falls to {rate} ({share} of the "
                       "roofline's), {per_joule} (Choi et al. 2014). The roofline above is the "
                       "bound without the cap.").format(
            board=board, rate=units.format_rate(float(e.capped_rate[0, c])),
            share=f"{float(e.capped_rate[0, c]) / rate:.0%}",
            per_joule=per_joule(float(e.ops_per_joule[0, c]))))
    if kernel.has_size:
        lines.append(_("Each call: {energy} at an average {power}.").format(
            energy=at_most + format_si(float(e.capped_per_op[0, c] * ka.ops[k]), "J"),
            power=average))
    if uncounted and not (guessed and counted > per_op * (1 + 1e-9)):
        lines.append(_("Not counted (no figure given for its bytes): {levels}; give one in the "
                       "hardware editor's Given pJ.").format(levels=listed(uncounted)))
    if guessed and power <= consts.board_power:  # (above it, the first lines said so)
        lines.append(_("The estimates are upper bounds, the board's whole power charged to the "
                       "compute units alone at their peak, or to main memory alone at its "
                       "bandwidth: energies at most these, op/J at least."))
    return lines


def _pj(joules: float) -> str:
    """An energy in pJ: 772, 1,543, 0.641 (never an exponent)."""
    x = joules / PJ
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def _faster_memory(dram) -> bool:
    """Whether main memory is a what-if's, faster than the datasheet's: its estimated ε (the
    datasheet's board power over the datasheet's bandwidth) then passes the board power."""
    return (dram.what_if_of or 0) > 0 and dram.bandwidth > dram.what_if_of * (1 + 1e-9)


def _held_line(result, c: int, consts: Constants, items_word: str) -> str:
    """Why a workload's energy is the board power over the time: the estimates' sum passed the
    board power (the same words as a kernel's, core.energy.kernel_lines), a what-if's faster
    main memory named as the reason where it is one."""
    e = result.energy
    board = format_si(consts.board_power, "W")  # as the average beside it ("1 kW of the 1000 W")
    estimate, time = float(e.by_figures[c]), float(e.time[c])
    if not (np.isfinite(estimate) and time > 0 and estimate / time > consts.board_power):
        return _("Some of the step's kernels would pass the {board} board power by the estimates "
                 "alone (they charge the board's whole power to one unit): for those the board "
                 "power over their time is counted.").format(board=board)
    facts = {"joules": format_si(estimate, "J"), "power": format_si(estimate / time, "W"),
             "board": board, "items": items_word}
    dram = result.chips[c].dram
    if consts.dram_estimated and _faster_memory(dram):
        return _("The estimates alone would give {joules} per step ({power}), above the {board} "
                 "board power. Main memory's ε is the datasheet chip's board power over its "
                 "datasheet {level} bandwidth ({datasheet}), an upper bound there; this what-if "
                 "moves bytes {times}× as fast at the same ε, which a board of {board} cannot "
                 "feed: the board power over the time is counted, so the what-if reads as more "
                 "{items} per joule only because its board power was kept. Give it a board power "
                 "of its own (Energy and cost) or measured energies (Given pJ) to count it "
                 "otherwise.").format(level=dram.name, datasheet=format_si(dram.what_if_of, "B/s"),
                                      times=f"{dram.bandwidth / dram.what_if_of:.3g}", **facts)
    if estimate / time < 1.01 * consts.board_power:
        return _("The estimates alone would give {joules} per step ({power}), just above the "
                 "{board} board power: they charge the board's whole power to one unit, so where "
                 "the compute units and main memory are both busy they count the same watts "
                 "twice. The board power over the time is counted; give measured energies in "
                 "Given pJ to count them instead.").format(**facts)
    return _("The estimates alone would give {joules} per step ({power}), above the {board} "
             "board power: they charge the board's whole power to one unit, so where the compute "
             "units and main memory are both busy they count the same watts twice. The board "
             "power over the time is counted; give measured energies in Given pJ to count them "
             "instead.").format(**facts)


def workload_lines(result, c: int, carbon: float | None = None) -> list[str]:
    """A workload's energy per item, items per joule, power and cost on chip ``c``; a training
    run's MWh, and its emissions at ``carbon`` kg CO2 per kWh (the user's grid) when given."""
    chip = result.chips[c]
    consts = constants(chip)
    if consts is None:
        return [(_("Energy: no published board power for {chip} (its maker gives none).")
                 if chip.preset else
                 _("Energy: no energy data for {chip} (no board power).")).format(chip=chip.name)]
    e = result.energy
    if not np.isfinite(e.per_step[c]):
        return []
    unit = result.workload.throughput_unit.removesuffix("/s").rstrip("s")
    items_word = _(ITEM_WORDS.get(unit, unit))
    f = result.training
    chips = f.chips if f is not None else result.workload.chips_per_model
    facts = {"joules": format_si(float(e.per_step[c]), "J"),
             "power": format_si(float(e.average_power[c]), "W"), "board": f"{consts.board_power:g}",
             "per_item": _j(float(e.per_item[c])), "item": _(ITEM_WORD.get(unit, unit)),
             "chips": ngettext("{n} chip", "{n} chips", chips).format(n=f"{chips:g}"),
             "per_joule": f"{float(e.items_per_joule[c]):,.4g}", "items": items_word,
             "time": _t(float(e.time[c]))}
    lines = [(_("Energy: {joules} per chip per step at an average {power} of its {board} W board "
                "power (power-capped: the step takes {time}); {per_item} per {item} on {chips}, "
                "{per_joule} {items} per joule.") if e.capped[c] else
              _("Energy: {joules} per chip per step at an average {power} of its {board} W board "
                "power; {per_item} per {item} on {chips}, {per_joule} {items} per joule.")
              ).format(**facts)]
    if e.held[c]:
        lines.append(_held_line(result, c, consts, items_word))
    # Where the joules go, per item: main memory's bytes against the ops (why batching helps:
    # a weight byte read once serves every item of the batch).
    items = result.workload.per_step_items() / chips
    dram_per_item = result.dram_bytes / items
    ops_per_item = result.ops / items
    parts = sorted(energy_parts(result, c), key=lambda part: -part[2])  # as the breakdown's bars
    total = sum(j for _k, _n, j in parts)
    if total > 0:
        shares = listed(f"{name} {j / total:.0%}" for _k, name, j in parts)
        per = {"item": facts["item"], "bytes": format_si(dram_per_item, "B"),
               "ops": format_si(ops_per_item, "op"), "shares": shares}
        if f is not None:  # a training step: weights, gradients and states move too
            lines.append(_("Per {item}: {bytes} of main memory and {ops}: the energy goes to "
                           "{shares}.").format(**per))
        else:
            weights = sum(en.weight_bytes * en.count for en in result.entries) / items
            n = result.workload.per_step_items()  # on all the chips of the step
            per.update(weights=format_si(weights, "B"), n=f"{n:,}",
                       step_items=_(ITEM_WORDS.get(unit, unit)) if n != 1 else facts["item"],
                       chips=f"{chips:g}")
            many = weights > 0.2 * dram_per_item
            if chips > 1:
                text = (_("Per {item}: {bytes} of main memory ({weights} of it weights, read once "
                          "per step and shared by the step's {n} {step_items} on its {chips} "
                          "chips) and {ops}: the energy goes to {shares}. A larger batch shares "
                          "each weight byte among more items: fewer joules each.") if many else
                        _("Per {item}: {bytes} of main memory ({weights} of it weights, read once "
                          "per step and shared by the step's {n} {step_items} on its {chips} "
                          "chips) and {ops}: the energy goes to {shares}: the weights are shared "
                          "already, what is left is each item's own traffic."))
            else:
                text = (_("Per {item}: {bytes} of main memory ({weights} of it weights, read once "
                          "per step and shared by the step's {n} {step_items}) and {ops}: the "
                          "energy goes to {shares}. A larger batch shares each weight byte among "
                          "more items: fewer joules each.") if many else
                        _("Per {item}: {bytes} of main memory ({weights} of it weights, read once "
                          "per step and shared by the step's {n} {step_items}) and {ops}: the "
                          "energy goes to {shares}: the weights are shared already, what is left "
                          "is each item's own traffic."))
            lines.append(text.format(**per))
    price = chip.energy.price_per_hour
    if np.isfinite(e.cost_per_million[c]):
        lines.append(_("Cost: ${cost} per million {items} at ${price} per chip-hour.").format(
            cost=f"{float(e.cost_per_million[c]):,.4g}", items=items_word, price=f"{price:g}"))
    if f is not None and f.train_items:
        mwh = float(e.per_item[c]) * f.train_items / 3.6e9
        # in Wh with its prefix: a small run read "0.001508 MWh" (the seventh tour)
        run = {"energy": format_si(mwh * 1e6, "Wh"),
               "count": format_si(f.train_items, "").strip(), "items": items_word}
        line = (_("The run's energy: {energy} for {count} {items}; at your grid's {carbon} kg "
                  "CO2 per kWh, {co2} t CO2.").format(carbon=f"{carbon:g}",
                                                      co2=f"{mwh * carbon:,.4g}", **run)
                if carbon is not None else
                _("The run's energy: {energy} for {count} {items} (Tools → Grid carbon "
                  "intensity… gives its CO2 at your grid's kg per kWh).").format(**run))
        if price and np.isfinite(result.chip_hours[c]):
            line += " " + _("Chip time at ${price} per chip-hour: ${cost}.").format(
                price=f"{price:g}", cost=f"{float(result.chip_hours[c]) * price:,.0f}")
        lines.append(line)
    guessed = [_("{precision} per op").format(precision=p)
               for p in sorted({en.kernel.precision for en in result.entries})
               if consts.is_estimate(f"op:{p}")]
    guessed += [_("{level} per byte").format(level=name) for name, _role, _j in consts.levels
                if consts.is_estimate(f"byte:{name}")]
    if guessed:
        lines.append(_("Estimated from the board power (upper bounds): {which}; the joules at "
                       "most these, the items per joule at least.").format(which=listed(guessed)))
    uncounted = [name for name, role, j in consts.levels if not j and role != "link"
                 and float(_step_bytes(result, role)) > 0]
    if uncounted:
        lines.append(_("Not counted (no figure given): {levels}.").format(
            levels=", ".join(uncounted)))
    return lines


def _step_bytes(result, role: str) -> float:
    """A workload step's bytes at memory ``role``, all its entries' calls."""

    ka = result.evaluation.kernel_arrays
    return float(result.counts @ np.nan_to_num(ka.bytes[result.rows, ROLE_INDEX[role]]))


def _t(seconds: float) -> str:

    return format_time(seconds)


def _j(joules: float) -> str:
    return format_si(joules, "J")


#: A workload's item and items (its throughput unit's word), translated where shown.
ITEM_WORD = {"token": N_("token"), "image": N_("image"), "sample": N_("sample"), "run": N_("run")}
ITEM_WORDS = {"token": N_("tokens"), "image": N_("images"), "sample": N_("samples"),
              "run": N_("runs")}
#: Where a step's energy goes, in the breakdown's colours.
ENERGY_PART_COLORS = {"compute": "#f58518", "dram": "#4c78a8", "cache": "#72b7b2",
                      "host": "#e45756", "link": "#9d9d9d", "idle": "#d6d6d6"}
#: The parts' colours in words, for the breakdown's legend (each level its own segment).
ENERGY_PART_WORDS = {"compute": N_("compute"), "dram": N_("main memory"),
                     "cache": N_("each on-chip level"), "host": N_("host link"),
                     "link": N_("chip-to-chip link"), "idle": N_("idle")}


def energy_parts(result, c: int) -> list[tuple[str, str, float]]:
    """(kind, part, J per chip per step) of a workload on chip ``c``: its ops at ε_op ("compute"),
    each memory level's bytes at its ε_l (kind: the level's role, part: its name), the link's
    bytes at the first level of its role, and π0 over the step ("idle"); scaled to the step's
    energy where the estimates' sum was held to the board power over the time. [] without
    energy data."""
    k = constants(result.chips[c])
    e = result.energy
    if k is None or not np.isfinite(e.per_step[c]):
        return []
    parts = [("compute", _("compute"), float(e.compute[c]))]
    for name, role, joules in k.levels:
        moved = _step_bytes(result, role)
        if moved and joules:
            parts.append((role, name, moved * joules))
    link = result.workload.link
    if result.built.link_bytes and k.first_level_j(link):
        name = result.chips[c].levels(link)[0].name
        parts.append(("link", _("{link} (the step's communication)").format(link=name),
                      result.built.link_bytes * k.first_level_j(link)))
    if k.idle_power:
        parts.append(("idle", _("idle"), k.idle_power * float(e.time[c])))
    total = sum(j for _k, _n, j in parts)
    scale = float(e.per_step[c]) / total if total > 0 else 1.0
    return [(kind, name, j * scale) for kind, name, j in parts if j > 0]
