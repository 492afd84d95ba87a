"""CSV export of a comparison: one row per (chip, kernel), the columns in CSV_COLUMNS; and of
workloads: one row per (chip, workload), the columns in WORKLOAD_CSV_COLUMNS.

The same function serves the headless ``--export-csv`` path and the app's File → Export CSV.
"""

from __future__ import annotations

import csv
import io
import os

from roofline_gui.core.comparison import CSV_COLUMNS, Comparison, compare
from roofline_gui.core.document import Document
from roofline_gui.io.files import write_atomic


def comparison_csv(comparison: Comparison) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(comparison.rows())
    return buffer.getvalue()


def export_csv(doc: Document, path: str | os.PathLike, *, derated: bool = False,
               same_width: bool = False) -> int:
    """Write the document's comparison (all chips, shown or hidden) to ``path`` atomically,
    evaluated as the window's table is (``same_width``: View → Same-width precisions; the
    limiter column then names the stand-in, "bf16 peak (for fp16)").

    Returns the number of data rows written.
    """
    comparison = compare(doc.kernels, doc.chips, derated=derated, same_width=same_width)
    write_atomic(path, comparison_csv(comparison).encode("utf-8"))
    return len(doc.kernels) * len(doc.chips)


def workloads_csv(results) -> str:
    """One row per (chip, workload), the columns in WORKLOAD_CSV_COLUMNS."""
    from roofline_gui.core.workload_eval import (  # noqa: PLC0415 (off the start-up path)
        WORKLOAD_CSV_COLUMNS,
        workload_rows,
    )

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=WORKLOAD_CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(workload_rows(results))
    return buffer.getvalue()


def export_workloads_csv(doc: Document, path: str | os.PathLike, *, derated: bool = False,
                         same_width: bool = False) -> int:
    """Write every workload of ``doc`` on every chip of it to ``path`` atomically, evaluated as
    the window's table is (``same_width`` as in export_csv); returns the number of rows."""
    from roofline_gui.core.workload_eval import evaluate_workloads  # noqa: PLC0415

    results = evaluate_workloads(doc.workloads, doc.chips, derated=derated,
                                 kernels=doc.kernels_by_id, same_width=same_width)
    return write_workloads_csv(results, path)


def write_workloads_csv(results, path: str | os.PathLike) -> int:
    """Write evaluated workloads (``evaluate_workloads``'s results) to ``path`` atomically;
    returns the number of rows."""
    write_atomic(path, workloads_csv(results).encode("utf-8"))
    return sum(len(r.chips) for r in results)


def write_rows_csv(rows: list[dict[str, str]], columns, path: str | os.PathLike) -> int:
    """Write rows already in ``columns`` (a serving bound's) to ``path`` atomically."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    write_atomic(path, buffer.getvalue().encode("utf-8"))
    return len(rows)
