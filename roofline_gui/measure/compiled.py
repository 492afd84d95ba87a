"""Compiled measurement kernels through numba: the accurate path of ``--measure``.

numpy's ufuncs cannot reach the memory's bandwidth (one ufunc call per pass, the GIL between
calls, no fused multiply-add) and cannot see L1 at all (the call overhead is longer than an
L1-resident pass). These kernels are compiled loops, run on every core through numba's
``prange`` with each thread on its own slice, as STREAM's OpenMP loops are:

- STREAM copy, scale, add and triad; a call repeats ``passes`` passes inside each thread, so an
  L1-resident working set is timed over many passes with no dispatch between them.
- An ERT-style multiply-add kernel per precision: each element of an L1-resident array is loaded,
  goes through ``f`` dependent ``v = v·a + b`` steps (four independent elements interleaved, so
  the FMA units' latency is covered), and is stored; swept over ``f`` (the arithmetic intensity)
  so the peak is where the curve flattens, as the Empirical Roofline Toolkit does.

numba is imported on first use. When it cannot be imported or a kernel fails to compile,
:func:`unavailable` says why and the numpy kernels are used instead; the result says which.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cache

import numpy as np

#: multiply-add steps per element per pass swept by the FMA kernel (intensity = 2·f flop per
#: element per load and store)
FMA_STEPS = (1, 4, 8, 16)
_lock = threading.Lock()
#: doubles between the three STREAM arrays (5 cache lines of 64 B: see CompiledStream.arrays)
ARRAY_GAP = 40


@cache
def _numba():
    import numba  # noqa: PLC0415 (heavy: only when measuring)

    return numba


def unavailable() -> str | None:
    """None when the compiled kernels can run here, else why not (in words)."""
    try:
        _stream_functions()
    except Exception as exc:  # noqa: BLE001 (any failure to import or compile means: fall back)
        return f"numba could not be used ({type(exc).__name__}: {exc})".strip()
    return None


def version() -> str:
    return f"numba {_numba().__version__}"


@cache
def _stream_functions() -> dict[str, Callable]:
    """The four STREAM kernels and a parallel first-touch fill, compiled once per process."""
    numba = _numba()
    jit = numba.njit(parallel=True, cache=False, error_model="numpy")
    prange = numba.prange
    # Each thread takes its slice of the arrays first: a loop over the slice is vectorised, one
    # over ``range(lo, hi)`` of the whole arrays is not (about 6× slower in L1, measured).

    def fill(x, value, bounds):
        for t in prange(bounds.size - 1):
            for i in range(bounds[t], bounds[t + 1]):
                x[i] = value

    def copy(a, b, c, q, bounds, passes):
        for t in prange(bounds.size - 1):
            lo, hi = bounds[t], bounds[t + 1]
            x, y = a[lo:hi], b[lo:hi]
            for _ in range(passes):
                for i in range(x.size):
                    x[i] = y[i]

    def scale(a, b, c, q, bounds, passes):
        for t in prange(bounds.size - 1):
            lo, hi = bounds[t], bounds[t + 1]
            x, y = a[lo:hi], b[lo:hi]
            for _ in range(passes):
                for i in range(x.size):
                    x[i] = q * y[i]

    def add(a, b, c, q, bounds, passes):
        for t in prange(bounds.size - 1):
            lo, hi = bounds[t], bounds[t + 1]
            x, y, z = a[lo:hi], b[lo:hi], c[lo:hi]
            for _ in range(passes):
                for i in range(x.size):
                    x[i] = y[i] + z[i]

    def triad(a, b, c, q, bounds, passes):
        for t in prange(bounds.size - 1):
            lo, hi = bounds[t], bounds[t + 1]
            x, y, z = a[lo:hi], b[lo:hi], c[lo:hi]
            for _ in range(passes):
                for i in range(x.size):
                    x[i] = y[i] + q * z[i]

    functions = {"fill": jit(fill), "copy": jit(copy), "scale": jit(scale), "add": jit(add),
                 "triad": jit(triad)}
    # Compile now (one signature: float64 arrays, int64 bounds), so a failure shows here and
    # the first timed call does not include compilation.
    x, bounds = np.zeros(64), np.array([0, 32, 64], dtype=np.int64)
    with _lock:
        functions["fill"](x, 1.0, bounds)
        for name in ("copy", "scale", "add", "triad"):
            functions[name](x, x, x, 3.0, bounds, 1)
    return functions


class CompiledStream:
    """STREAM kernels on ``threads`` cores, compiled (see the module's docstring)."""

    label = "compiled loops (numba), one slice per core"
    #: a call streams this many elements per thread slice in all (compiled passes cost no
    #: dispatch, so small working sets repeat many passes in one call)
    elements_per_dispatch = 16_000_000

    def __init__(self, threads: int) -> None:
        numba = _numba()
        self.functions = _stream_functions()
        self.threads = min(threads, numba.config.NUMBA_NUM_THREADS)
        numba.set_num_threads(self.threads)

    def bounds(self, n: int) -> np.ndarray:
        return np.linspace(0, n, self.threads + 1).astype(np.int64)

    def arrays(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Three arrays of ``n`` doubles, first touched by the thread that streams each slice.
        They are cut from one buffer with a gap of a few cache lines between them, so that
        a[i], b[i] and c[i] never share their address modulo 4 KiB: where they do (arrays of a
        power-of-two size), loads wait on stores to the same offset and L1 measures up to a
        third slower (measured)."""
        bounds = self.bounds(n)
        buffer = np.empty(3 * (n + ARRAY_GAP))
        out = []
        for k, value in enumerate((1.0, 2.0, 0.5)):
            x = buffer[k * (n + ARRAY_GAP): k * (n + ARRAY_GAP) + n]
            self.functions["fill"](x, value, bounds)
            out.append(x)
        return out[0], out[1], out[2]

    def kernel(self, name: str, a, b, c, passes: int) -> Callable[[], None]:
        run, bounds = self.functions[name], self.bounds(a.size)
        return lambda: run(a, b, c, 3.0, bounds, passes)

    def close(self) -> None:
        pass


#: independent elements each thread interleaves in the FMA kernel: with the vectoriser's own
#: interleaving, enough chains in flight to cover the FMA units' latency at every width
#: (2 left fp32 at 0.75–0.95 of its peak on AVX2, measured; 4 reach it)
FMA_CHAINS = 4


def _fma_source(steps: int, chains: int = FMA_CHAINS) -> str:
    """The FMA kernel with ``steps`` multiply-adds per element, written out (a loop over the
    steps would not be vectorised across elements), on ``chains`` elements at a time."""
    names = [f"v{j}" for j in range(chains)]
    body = [
        "def fma(x, a, b, reps):",
        f"    part = x.shape[1] // {chains}",
        "    for t in prange(x.shape[0]):",
        "        row = x[t]",
        "        for _ in range(reps):",
        "            for i in range(part):",
        *(f"                {v} = row[i + {j} * part]" for j, v in enumerate(names)),
    ]
    body += [f"                {v} = {v} * a + b" for _ in range(steps) for v in names]
    body += [f"                row[i + {j} * part] = {v}" for j, v in enumerate(names)]
    return "\n".join(body)


@cache
def fma_kernel(steps: int) -> Callable:
    """The compiled FMA kernel with ``steps`` multiply-adds per element (per precision, numba
    compiles it for the array's dtype on the first call)."""
    numba = _numba()
    namespace = {"prange": numba.prange}
    exec(compile(_fma_source(steps), f"<fma kernel, {steps} steps>", "exec"), namespace)  # noqa: S102
    return numba.njit(parallel=True, fastmath=True, error_model="numpy")(namespace["fma"])


__all__ = ["FMA_STEPS", "CompiledStream", "fma_kernel", "unavailable", "version"]
