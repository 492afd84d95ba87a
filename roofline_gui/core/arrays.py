"""Small numpy helpers for the start-up and drag paths.

``np.isin`` and ``np.unique`` import ``numpy.ma`` on their first call (6.7 ms of the start on a
2-core Intel host, inside the chart's first draw); these do the same for the small whole-number
arrays the chart uses (chip and kernel indices) without it.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def among(values: np.ndarray, chosen: Iterable[int]) -> np.ndarray:
    """[N] bool: which of ``values`` (whole numbers ≥ 0) are in ``chosen``; as np.isin."""
    chosen = [int(c) for c in chosen]
    values = np.asarray(values, dtype=np.intp)
    size = max(int(values.max(initial=-1)), max(chosen, default=-1)) + 1
    table = np.zeros(size, dtype=bool)
    table[chosen] = True
    return table[values]


def distinct(values: np.ndarray) -> list[int]:
    """The distinct whole numbers ≥ 0 in ``values``, ascending; as np.unique(...).tolist()."""
    values = np.asarray(values, dtype=np.intp)
    if not len(values):
        return []
    return np.flatnonzero(np.bincount(values)).tolist()
