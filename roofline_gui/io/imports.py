"""Importing measured kernels: Nsight Compute raw CSV and a plain CSV (docs/import-formats.md).

An import returns the kernels it could read and every row it skipped with the reason; a file
that cannot be read as a whole (not CSV, required columns missing) raises ValidationError and
imports nothing. The caller adds all kernels in one undoable step, never half of them.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass
from pathlib import Path

from roofline_gui.core.errors import Problem, RooflineError, ValidationError
from roofline_gui.core.i18n import N_, _, ngettext
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.units import MEMORY_ROLES, PRECISIONS
from roofline_gui.io.files import MAX_FILE_BYTES

MAX_ROWS = 100_000


@dataclass(frozen=True)
class ImportResult:
    kernels: tuple[Kernel, ...]
    skipped: tuple[Problem, ...]
    source: str

    def summary(self) -> str:
        text = ngettext("{n} kernel imported from {file}", "{n} kernels imported from {file}",
                        len(self.kernels)).format(n=len(self.kernels), file=Path(self.source).name)
        if self.skipped:
            text += ngettext(", {n} row skipped:", ", {n} rows skipped:", len(self.skipped)).format(
                n=len(self.skipped)) + "\n" + "\n".join(f"  {p}" for p in self.skipped)
        return text


def _read_rows(path: str | os.PathLike) -> list[tuple[int, list[str]]]:
    """(line number in the file, cells) for each non-empty, non-comment row."""
    p = Path(path)
    try:
        if p.is_dir():
            raise RooflineError(_("{path}: is a folder, not a file").format(path=p))
        if p.stat().st_size > MAX_FILE_BYTES:
            raise RooflineError(_("{path}: larger than the 64 MB limit").format(path=p))
        raw = p.read_bytes()
    except OSError as exc:
        raise RooflineError(_("{path}: cannot read ({why})").format(
            path=p, why=exc.strerror or exc)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValidationError([Problem("", _("not UTF-8 text (byte {at})").format(at=exc.start))],
                              str(p)) from None
    if "\x00" in text:
        raise ValidationError([Problem("", _("binary data, not a CSV file"))], str(p))
    try:
        reader = csv.reader(io.StringIO(text))
        rows = [(reader.line_num, row) for row in reader if row and not row[0].startswith("#")]
    except csv.Error as exc:
        raise ValidationError([Problem("", _("not a readable CSV file: {why}").format(why=exc))],
                              str(p)) from None
    if len(rows) > MAX_ROWS:
        raise ValidationError([Problem("", _("{n} rows is more than {most}").format(
            n=len(rows), most=MAX_ROWS))], str(p))
    return rows


def parse_number(text: str, unit: str = "") -> float:
    """'1,234,567' or '1.5e9', scaled by an ncu unit such as 'Kbyte' or 'usecond'."""
    cleaned = text.strip().replace(",", "").replace("\u202f", "").replace(" ", "")
    if cleaned in ("", "n/a", "N/A", "-"):
        raise ValueError("empty")
    value = float(cleaned)
    if not math.isfinite(value):
        raise ValueError("not finite")
    return value * UNIT_SCALE.get(unit.strip(), 1.0)


UNIT_SCALE = {
    "": 1.0, "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12,
    "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024.0, "MiB": 1024.0**2, "GiB": 1024.0**3,
    "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0, "ns": 1e-9, "us": 1e-6,
    "ms": 1e-3, "s": 1.0, "inst": 1.0, "Kinst": 1e3, "Minst": 1e6, "Ginst": 1e9,
    "cycle": 1.0, "Kcycle": 1e3, "Mcycle": 1e6,
}

# -- Nsight Compute ----------------------------------------------------------------------------

NCU_TIME = "gpu__time_duration.sum"
NCU_DRAM = ("dram__bytes.sum", ("dram__bytes_read.sum", "dram__bytes_write.sum"))
NCU_L2 = "lts__t_bytes.sum"
NCU_L1 = "l1tex__t_bytes.sum"
_OP = "smsp__sass_thread_inst_executed_op_{}_pred_on.sum"
#: precision -> (add, mul, fma) instruction counters; an FMA is 2 operations.
NCU_FLOPS = {"fp64": ("dadd", "dmul", "dfma"), "fp32": ("fadd", "fmul", "ffma"),
             "fp16": ("hadd", "hmul", "hfma")}
NCU_TENSOR_INST = "sm__inst_executed_pipe_tensor.sum"
NCU_HINT = N_("collect them with: ncu --csv --page raw --metrics gpu__time_duration.sum,"
            "dram__bytes.sum,lts__t_bytes.sum,l1tex__t_bytes.sum,"
            "smsp__sass_thread_inst_executed_op_{dadd,dmul,dfma,fadd,fmul,ffma,hadd,hmul,hfma}"
            "_pred_on.sum ./app")


def import_ncu_csv(path: str | os.PathLike) -> ImportResult:
    """Kernels from ``ncu --csv --page raw`` output: header, unit row, one row per launch."""
    rows = _read_rows(path)
    source = str(path)
    if len(rows) < 2:
        raise ValidationError([Problem("", _("no header and data rows"))], source)
    header = [h.strip() for h in rows[0][1]]
    column = {name: i for i, name in enumerate(header)}
    problems = []
    if "Kernel Name" not in column:
        problems.append(Problem("header", _("no 'Kernel Name' column: not an Nsight Compute raw CSV")))
    if NCU_TIME not in column:
        problems.append(Problem("header", _("missing metric {metric}; {hint}").format(
            metric=NCU_TIME, hint=_(NCU_HINT))))
    if NCU_DRAM[0] not in column and not all(m in column for m in NCU_DRAM[1]):
        problems.append(Problem("header", _("missing metric {metric}; {hint}").format(
            metric=NCU_DRAM[0], hint=_(NCU_HINT))))
    if not any(_OP.format(op) in column for ops in NCU_FLOPS.values() for op in ops):
        problems.append(Problem("header", _("no floating-point instruction counters; {hint}").format(
            hint=_(NCU_HINT))))
    if problems:
        raise ValidationError(problems, source)
    # The second row holds units when its time cell is not a number.
    units = [""] * len(header)
    data_start = 1
    if _is_unit_row(rows[1][1], column[NCU_TIME]):
        units = [u.strip() for u in rows[1][1]] + [""] * (len(header) - len(rows[1][1]))
        data_start = 2
    return _collect(rows[data_start:], column["Kernel Name"], source,
                    lambda number, row: _ncu_kernel(row, column, units, source, number))


class _Skip(Exception):
    """A row that cannot be imported; the message says why."""


def _collect(rows, name_column: int, source: str, make) -> ImportResult:
    """``make(line, cells)`` for each row; rows it refuses are listed with line and reason."""
    kernels, skipped = [], []
    for number, row in rows:
        try:
            kernels.append(make(number, row))
        except _Skip as exc:
            name = row[name_column] if len(row) > name_column else "?"
            skipped.append(Problem(f"row {number} ({name[:60]})", str(exc)))
    return ImportResult(tuple(kernels), tuple(skipped), source)


def _is_unit_row(row: list[str], time_column: int) -> bool:
    try:
        parse_number(row[time_column])
        return False
    except (ValueError, IndexError):
        return True


def _ncu_kernel(row, column, units, source, number) -> Kernel:
    def metric(name: str, required: bool = False) -> float | None:
        i = column.get(name)
        if i is None or i >= len(row) or not row[i].strip():
            if required:
                raise _Skip(f"no value for {name}")
            return None
        try:
            value = parse_number(row[i], units[i] if i < len(units) else "")
        except ValueError:
            raise _Skip(f"{name}: {row[i]!r} is not a number") from None
        if value < 0:
            raise _Skip(f"{name} is negative ({row[i].strip()}); counters never are")
        return value

    time = metric(NCU_TIME, required=True)
    if not time or time <= 0:
        raise _Skip(f"{NCU_TIME} is zero")
    dram = metric(NCU_DRAM[0])
    if dram is None:
        parts = [metric(m) for m in NCU_DRAM[1]]
        dram = sum(p for p in parts if p is not None) if any(p is not None for p in parts) else None
    if not dram:
        raise _Skip("no DRAM bytes (dram__bytes.sum is missing or zero)")
    ops_by_precision = {}
    for precision, (add, mul, fma) in NCU_FLOPS.items():
        counts = [metric(_OP.format(op)) for op in (add, mul, fma)]
        if any(c is not None for c in counts):
            a, m, f = (c or 0.0 for c in counts)
            ops_by_precision[precision] = a + m + 2 * f
    if not any(ops_by_precision.values()):
        raise _Skip("no floating-point operations counted (tensor-core work is not in these counters)")
    precision = max(ops_by_precision, key=ops_by_precision.get)
    ops = sum(ops_by_precision.values())
    nbytes = {"dram": dram}
    l2 = metric(NCU_L2)
    if l2:
        nbytes["cache"] = l2
    notes = [f"Nsight Compute: {format(ops, '.4g')} FP ops "
             + ", ".join(f"{p} {v:.3g}" for p, v in ops_by_precision.items() if v)]
    l1 = metric(NCU_L1)
    if l1:
        notes.append(f"L1 bytes {l1:.4g} (L1 intensity {ops / l1:.4g} op/B)")
    tensor = metric(NCU_TENSOR_INST)
    if tensor:
        notes.append(f"{tensor:.4g} tensor-pipe instructions (not converted to ops)")
    name = row[column["Kernel Name"]].strip() or "kernel"
    launch = row[column["ID"]].strip() if "ID" in column and column["ID"] < len(row) else str(number)
    return Kernel(id=f"ncu-{number}", name=f"{name} (ID {launch})", precision=precision,
                  category="imported (Nsight Compute)", flops=ops, bytes=nbytes,
                  measured_time=time, notes="; ".join(notes),
                  source=f"Nsight Compute raw CSV {Path(source).name}, row {number}")


# -- plain CSV ---------------------------------------------------------------------------------

PLAIN_REQUIRED = ("name", "precision", "flops")


def import_plain_csv(path: str | os.PathLike) -> ImportResult:
    """Columns: name, precision, flops, then bytes (= dram) or bytes_<role> for any of
    dram/cache/host/link, then time_s or measured_flops_per_s (both optional). Lines starting
    with # are comments."""
    rows = _read_rows(path)
    source = str(path)
    if not rows:
        raise ValidationError([Problem("", _("the file is empty"))], source)
    header = [h.strip().lower() for h in rows[0][1]]
    column = {name: i for i, name in enumerate(header)}
    problems = [Problem("header", _("missing column '{name}'").format(name=name)) for name in PLAIN_REQUIRED
                if name not in column]
    byte_columns = {("dram" if h == "bytes" else h[len("bytes_"):]): i for h, i in column.items()
                    if h == "bytes" or h.startswith("bytes_")}
    unknown = [r for r in byte_columns if r not in MEMORY_ROLES]
    if unknown:
        problems.append(Problem("header", _("unknown memory role in bytes_{role}; use {known}").format(
            role=unknown[0], known="bytes_" + ", bytes_".join(MEMORY_ROLES))))
    if "dram" not in byte_columns:
        problems.append(Problem("header", _("missing column 'bytes' (or 'bytes_dram')")))
    if problems:
        raise ValidationError(problems, source)
    return _collect(rows[1:], column["name"], source,
                    lambda number, row: _plain_kernel(row, column, byte_columns, source, number))


def _plain_kernel(row, column, byte_columns, source, number) -> Kernel:
    def cell(name_or_index) -> str:
        i = column[name_or_index] if isinstance(name_or_index, str) else name_or_index
        return row[i].strip() if i < len(row) else ""

    def number_in(i_or_name, label: str, required: bool) -> float | None:
        text = cell(i_or_name)
        if not text:
            if required:
                raise _Skip(f"{label} is empty")
            return None
        try:
            value = parse_number(text)
        except ValueError:
            raise _Skip(f"{label}: {text!r} is not a number") from None
        if value <= 0:
            raise _Skip(f"{label} must be greater than zero, not {text}")
        return value

    name = cell("name")
    if not name:
        raise _Skip("name is empty")
    precision = cell("precision").lower()
    if precision not in PRECISIONS:
        raise _Skip(f"unknown precision {precision!r}; use one of {', '.join(PRECISIONS)}")
    flops = number_in("flops", "flops", True)
    nbytes = {}
    for role, i in byte_columns.items():
        value = number_in(i, f"bytes_{role}", role == "dram")
        if value is not None:
            nbytes[role] = value
    time = number_in("time_s", "time_s", False) if "time_s" in column else None
    rate = (number_in("measured_flops_per_s", "measured_flops_per_s", False)
            if "measured_flops_per_s" in column else None)
    return Kernel(id=f"csv-{number}", name=name, precision=precision, category="imported",
                  flops=flops, bytes=nbytes, measured_time=time, measured_flops=rate,
                  source=f"{Path(source).name}, row {number}")


#: The columns of a measured serving CSV (one row a point).
SERVING_COLUMNS = ("chip", "tokens_per_s_per_user", "tokens_per_s_per_chip", "source")


def import_serving_csv(path: str | os.PathLike):
    """Measured serving points: a header with chip, tokens_per_s_per_user, tokens_per_s_per_chip
    (and an optional source), one row a point. Raises ValidationError naming each bad line."""
    from roofline_gui.core.serving import MeasuredServing  # noqa: PLC0415 (serving view only)

    rows = _read_rows(path)
    if not rows:
        raise ValidationError([Problem("", _("empty: expected a header {columns}").format(
            columns=", ".join(SERVING_COLUMNS)))], str(path))
    header = [h.strip().lower() for h in rows[0][1]]
    missing = [c for c in SERVING_COLUMNS[:3] if c not in header]
    if missing:
        raise ValidationError([Problem(_("line {line}").format(line=rows[0][0]),
                                       _("the header lacks {missing} (expected {columns})").format(
                                           missing=", ".join(missing),
                                           columns=", ".join(SERVING_COLUMNS)))], str(path))
    at = {name: header.index(name) for name in SERVING_COLUMNS if name in header}
    points, problems = [], []
    for line, row in rows[1:]:
        try:
            chip = row[at["chip"]].strip()
            user = float(row[at["tokens_per_s_per_user"]].replace(",", ""))
            per_chip = float(row[at["tokens_per_s_per_chip"]].replace(",", ""))
        except (IndexError, ValueError):
            problems.append(Problem(_("line {line}").format(line=line),
                                    _("needs a chip and two numbers (tokens/s per user, per "
                                      "chip)")))
            continue
        if not chip or not (user > 0 and per_chip > 0) or not all(
                map(lambda v: v < 1e12, (user, per_chip))):
            problems.append(Problem(_("line {line}").format(line=line),
                                    _("the chip is empty or a rate is not positive")))
            continue
        source = row[at["source"]].strip() if "source" in at and at["source"] < len(row) else ""
        points.append(MeasuredServing(chip, user, per_chip, source))
    if problems:
        raise ValidationError(problems, str(path))
    return tuple(points)
