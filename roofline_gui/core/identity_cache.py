"""Results worked out once for the same objects (Qt-free).

A drag step builds a new document from the old one: every chip, kernel and built workload that
did not change is the *same object* in the next step. What is worked out from such objects alone
(a chip's energy tables, the workloads' entry arrays, the kernels' measured rows) is kept here,
keyed by the objects' identities. The objects are held beside their result, so no id is reused
while its entry stands; the oldest entry goes first once ``size`` are kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")


class IdentityCache(Generic[T]):
    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: dict[tuple[int, ...], tuple[tuple, T]] = {}

    def get(self, objects: Sequence, make: Callable[[], T]) -> T:
        """``make()``'s result for these very objects, worked out once while it is kept."""
        objects = tuple(objects)
        key = tuple(map(id, objects))
        hit = self._entries.get(key)
        if hit is not None:
            return hit[1]
        result = make()
        if len(self._entries) >= self.size:
            self._entries.pop(next(iter(self._entries)))
        self._entries[key] = (objects, result)
        return result
