"""Units: parsing what people type and formatting numbers with SI prefixes.

Invariants:
- Decimal prefixes as vendors quote them: k = 1e3, M = 1e6, G = 1e9, T = 1e12, P = 1e15.
  Binary prefixes (Ki, Mi, Gi, Ti) are accepted and converted exactly (Gi = 2**30).
- Compute is in op/s (one multiply-accumulate, MAC, counts as 2 ops); bandwidth in B/s.
- Parsed values are finite and positive unless a caller explicitly allows zero.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from roofline_gui.core.errors import UnitError
from roofline_gui.core.i18n import N_, _

OPS_PER_MAC = 2

#: Compute precisions: each has its own roof on a chip that computes in it.
PRECISIONS: tuple[str, ...] = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4",
                               "int8", "int4")

#: Block-scaled storage formats (OCP Microscaling v1.0; NVIDIA's NVFP4): values stored narrow
#: with a shared scale per block, computed at the precision of their elements (COMPUTE_OF).
BLOCK_FORMATS: tuple[str, ...] = ("mxfp8", "mxfp6", "mxfp4", "nvfp4")
#: What a workload's weights, activations and KV cache may be stored in.
FORMATS: tuple[str, ...] = (*PRECISIONS, *BLOCK_FORMATS)

#: Bytes one stored value occupies, its share of the block's scale included. tf32 is stored
#: as a 4-byte fp32 word. MX formats: 32 values share one 8-bit (E8M0) scale, so 8/32 = 0.25 bit
#: more a value; NVFP4: 16 E2M1 values share one FP8 (E4M3) scale, 0.5 bit more (its one fp32
#: scale per tensor is left out: 4 bytes per tensor).
BYTES_PER_VALUE: dict[str, float] = {
    "fp64": 8.0,
    "fp32": 4.0,
    "tf32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "fp6": 0.75,
    "fp4": 0.5,
    "int8": 1.0,
    "int4": 0.5,
    "mxfp8": (8 + 8 / 32) / 8,
    "mxfp6": (6 + 8 / 32) / 8,
    "mxfp4": (4 + 8 / 32) / 8,
    "nvfp4": (4 + 8 / 16) / 8,
}

#: The precision a block-scaled format's elements are computed in (its matmul roof).
COMPUTE_OF: dict[str, str] = {"mxfp8": "fp8", "mxfp6": "fp6", "mxfp4": "fp4", "nvfp4": "fp4"}

#: How each block-scaled format spends its bits, for the formulas a user reads.
FORMAT_WORDS: dict[str, str] = {
    "mxfp8": N_("MXFP8: 8-bit values (E4M3/E5M2), one 8-bit scale per 32: 8 + 8/32 = 8.25 bits"),
    "mxfp6": N_("MXFP6: 6-bit values (E2M3/E3M2), one 8-bit scale per 32: 6 + 8/32 = 6.25 bits"),
    "mxfp4": N_("MXFP4: 4-bit values (E2M1), one 8-bit scale per 32: 4 + 8/32 = 4.25 bits"),
    "nvfp4": N_("NVFP4: 4-bit values (E2M1), one FP8 (E4M3) scale per 16: 4 + 8/16 = 4.5 "
                "bits (and one fp32 scale per tensor)"),
}


def compute_precision(fmt: str) -> str:
    """The precision a stored format computes in: its own, or a block format's elements'."""
    return COMPUTE_OF.get(fmt, fmt)


#: Precisions of the same width that stand in for each other with View → Same-width precisions
#: (V100 has fp16 and no bf16, TPU v3 bf16 and no fp16: both 2 bytes a value).
SAME_WIDTH: dict[str, tuple[str, ...]] = {"bf16": ("fp16",), "fp16": ("bf16",),
                                          "int8": ("fp8",), "fp8": ("int8",)}

#: A chip without units for a narrow float computes it at the next wider one it has (the values
#: widened as they are loaded): the first of these it has stands in, always.
WIDER: dict[str, tuple[str, ...]] = {"fp6": ("fp8", "bf16", "fp16"),
                                     "fp4": ("fp6", "fp8", "bf16", "fp16")}

MEMORY_ROLES: tuple[str, ...] = ("dram", "cache", "host", "link")

#: Each role's and precision's column in the evaluation's arrays.
ROLE_INDEX: dict[str, int] = {role: i for i, role in enumerate(MEMORY_ROLES)}
PRECISION_INDEX: dict[str, int] = {p: i for i, p in enumerate(PRECISIONS)}

ROLE_LABELS: dict[str, str] = {
    "dram": N_("main memory (DRAM/HBM)"),
    "cache": N_("on-chip cache / SRAM"),
    "host": N_("host link (PCIe)"),
    "link": N_("chip-to-chip link"),
}

_PREFIXES: dict[str, float] = {
    "": 1.0,
    "k": 1e3,
    "K": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
    "Ki": 2.0**10,
    "Mi": 2.0**20,
    "Gi": 2.0**30,
    "Ti": 2.0**40,
    "Pi": 2.0**50,
}

#: Unit spellings per quantity kind, lower-cased, after the prefix is removed.
_UNITS: dict[str, tuple[str, ...]] = {
    "bandwidth": ("b/s", "bps", "byte/s", "bytes/s"),
    "compute": ("flop/s", "flops", "op/s", "ops", "ops/s", "flop", "op", "iops"),
    "bytes": ("b", "byte", "bytes"),
    "intensity": ("flop/b", "op/b", "flop/byte", "ops/byte", "op/byte", "flops/byte"),
    "count": (),
    "power": ("w", "watt", "watts"),
}

_EXAMPLES: dict[str, str] = {  # translated where a refusal says them
    "bandwidth": N_("1.5 TB/s, 900G or 2e12"),
    "compute": N_("19.5 TFLOPS, 312T or 2e12"),
    "bytes": N_("40 GB, 32 GiB or 4e10"),
    "intensity": N_("0.25, 100 flop/B"),
    "count": N_("4096, 4k, 300B (billions) or 1e6"),
    "power": N_("700 W, 0.7 kW or 700"),
}
_KIND_WORDS: dict[str, str] = {"bandwidth": N_("bandwidth"), "compute": N_("compute rate"),
                               "bytes": N_("size in bytes"), "intensity": N_("intensity"),
                               "count": N_("count"), "power": N_("power")}

_NUMBER = re.compile(
    r"^\s*(?P<num>[-+]?(?:(?:\d{1,3}(?:[,_]\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*"
    r"(?P<rest>.*?)\s*$"
)


def _split_prefix(rest: str, kind: str) -> tuple[float, str] | None:
    """Split "TB/s" into (1e12, "b/s"); None when it does not fit the kind."""
    units = _UNITS[kind]
    candidates = sorted(_PREFIXES, key=len, reverse=True)
    # "TOPS" and "TFLOPS": the prefix letter is glued to the unit.
    for prefix in candidates:
        if not rest.startswith(prefix):
            continue
        unit = rest[len(prefix):].strip().lower()
        if unit == "" or unit in units:
            return _PREFIXES[prefix], unit
    return None


def parse_quantity(text: str, kind: str = "count", *, allow_zero: bool = False) -> float:
    """Parse a number a person typed, with an optional SI prefix and unit.

    ``kind`` is one of ``bandwidth`` (B/s), ``compute`` (op/s), ``bytes``, ``intensity``
    (op/B) or ``count``. Raises :class:`UnitError` with a message that says what was wrong
    and gives an example of what is accepted.
    """
    if kind not in _UNITS:
        raise ValueError(f"unknown quantity kind {kind!r}")
    raw = str(text).strip()
    if not raw:
        raise UnitError(_("empty; expected a number such as {examples}").format(
            examples=_(_EXAMPLES[kind])))
    match = _NUMBER.match(raw)
    if match is None:
        raise UnitError(_("{text} is not a number; expected e.g. {examples}").format(
            text=repr(raw), examples=_(_EXAMPLES[kind])))
    number = float(match["num"].replace(",", "").replace("_", ""))
    rest = match["rest"]
    if kind == "count" and rest in ("B", "b", "bn"):  # "300B tokens": billions (a count has no bytes)
        rest = "G"
    split = _split_prefix(rest, kind)
    if split is None:
        raise UnitError(_("{text} is not a unit for a {kind}; expected e.g. {examples}").format(
            text=repr(match["rest"]), kind=_(_KIND_WORDS[kind]), examples=_(_EXAMPLES[kind])))
    value = number * split[0]
    check_positive(value, allow_zero=allow_zero)
    return value


def check_positive(value: float, *, allow_zero: bool = False) -> float:
    """Return ``value`` if it is a finite positive number, else raise UnitError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UnitError(_("{value} is not a number").format(value=repr(value)))
    if not math.isfinite(value):
        raise UnitError(_("must be a finite number"))
    if value < 0 or (value == 0 and not allow_zero):
        raise UnitError(_("must be greater than zero") if not allow_zero else
                        _("must not be negative"))
    return float(value)


_FORMAT_PREFIXES = (
    (1e18, "E"),
    (1e15, "P"),
    (1e12, "T"),
    (1e9, "G"),
    (1e6, "M"),
    (1e3, "k"),
    (1.0, ""),
)


def format_si(value: float | None, unit: str = "", digits: int = 4) -> str:
    """Format ``value`` with an SI prefix and ``digits`` significant digits: 518.3 Gop/s.

    Values below 1 keep no prefix (0.25 op/B reads better than 250 mop/B). NaN and None
    format as an em dash.
    """
    if value is None or not math.isfinite(value):
        return "—"
    return _si_text(float(value), unit, digits)


@lru_cache(maxsize=8192)
def _si_text(value: float, unit: str, digits: int) -> str:
    sep = " " if unit else ""
    magnitude = abs(value)
    for scale, prefix in _FORMAT_PREFIXES:
        if magnitude >= scale:
            text = f"{value / scale:.{digits}g}"
            # Rounding can reach the next prefix (999.99e9 -> "1000" G): use that prefix.
            if abs(float(text)) >= 1000 and scale < _FORMAT_PREFIXES[0][0]:
                return format_si(math.copysign(scale * 1000, value), unit, digits)
            return f"{text}{sep}{prefix}{unit}"
    return f"{value:.{digits}g}{sep}{unit}"


def format_time(seconds: float | None, digits: int = 4) -> str:
    """Seconds with the sub-unit prefixes people read times in: 192.9 µs, 1.117 ms, 3.2 s."""
    if seconds is None or not math.isfinite(seconds):
        return "—"
    for scale, prefix in ((1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n")):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.{digits}g} {prefix}s"
    return f"{seconds / 1e-12:.{digits}g} ps"


def format_count(x: float) -> str:
    """A count as formulas show it: whole numbers exact with thousands commas below 10^7, else
    four significant digits."""
    return _count_text(float(x))


@lru_cache(maxsize=8192)
def _count_text(x: float) -> str:
    # The formulas of a model's 33 serving variants format the same few hundred numbers
    # tens of thousands of times (a tenth of the serving bound's time): each once.
    return f"{x:,.0f}" if x.is_integer() and abs(x) < 1e7 else f"{x:.4g}"


def format_bytes(x: float) -> str:
    """Bytes with a decimal prefix (GB = 1e9 B), exact below 10 kB."""
    return format_si(x, "B") if x >= 1e4 else f"{format_count(x)} B"


def rate_count(x: float) -> str:
    """Throughputs as people read them: 219.2, 1,557, 10,020, 10.08 M (never an exponent)."""
    if not math.isfinite(x):
        return "—"
    if abs(x) >= 1e6:  # 10.08 M, not 10,075,188: four figures are what the model is good for
        return format_si(x, "", 4).strip()
    return f"{x:,.0f}" if abs(x) >= 1e4 else f"{x:,.4g}"


def share_text(share: float) -> str:
    """A share of time as a percentage, 0% for rounding dust."""
    return "0%" if abs(share) < 5e-4 else f"{100 * share:.3g}%"


def format_plain(value: float | None) -> str:
    """Plain decimal text for CSV cells, to 15 significant figures (float arithmetic's last-bit
    noise left out: 4.5 Pop/s read "4499999999999999.5" and 450 GB/s "449.99999999999994", the
    sixth tour), whole numbers below 1e16 without an exponent; empty for missing values."""
    if value is None or not math.isfinite(value):
        return ""
    x = float(f"{float(value):.15g}")
    return str(int(x)) if x == int(x) and abs(x) < 1e16 else f"{x:.15g}"


@dataclass(frozen=True)
class Units:
    """How rates and intensities are shown: in ops, or in MACs (Count MACs); intensities also
    read as bytes per op, B/F (View → Intensity as B/F)."""

    mac: bool = False
    bytes_per_op: bool = False

    @property
    def ops_per_unit(self) -> int:
        return OPS_PER_MAC if self.mac else 1

    @property
    def word(self) -> str:
        return "MAC" if self.mac else "op"

    def rate(self, ops_per_s):
        """op/s → shown rate (op/s or MAC/s); arrays too. In ops, the values themselves (the
        evaluation's arrays are not written to): a copy of 300,000 rates per drag step saved."""
        return ops_per_s if self.ops_per_unit == 1 else ops_per_s / self.ops_per_unit

    def intensity(self, ops_per_byte):
        """op/B → shown intensity (op/B or MAC/B); arrays too (the values themselves in ops)."""
        return ops_per_byte if self.ops_per_unit == 1 else ops_per_byte / self.ops_per_unit

    def format_rate(self, ops_per_s: float, digits: int = 4) -> str:
        return format_si(self.rate(ops_per_s), f"{self.word}/s", digits)

    def format_intensity(self, ops_per_byte: float) -> str:
        """"9,750 op/B", "20,430 op/B" (never an exponent in a sentence: "2.043e+04" was); read
        as B/F too, "7.475 op/B (0.1338 B/op)", where the chart's axis is (the thirtieth tour:
        the Japanese chart in B/F, the workload's explanation in op/B alone)."""
        x = float(self.intensity(ops_per_byte))
        text = f"{x:,.0f}" if math.isfinite(x) and abs(x) >= 1e4 else f"{x:,.4g}"
        if self.bytes_per_op and math.isfinite(x) and x > 0:
            return f"{text} {self.word}/B ({1 / x:,.4g} B/{self.word})"
        return f"{text} {self.word}/B"
