"""Serving: output tokens per second per chip against tokens per second per user, as a bound no
serving stack can beat on a given chip (Qt-free).

A request brings I input tokens and asks for O output tokens (both means); c requests decode at
once (the concurrency). At each c, on the N chips that share the model:
- a decode step serves c users at the mean context I + O/2: the workload's decode bound at batch
  c (the weights read once per step, each user's KV cache, compute, communication);
- each request's prefill of I tokens is paid once, mixed into the decode steps in chunks (as
  chunked prefill does): c prompts prefilled as one batch cost the same chip time per request as
  the steady state needs, so serving c requests takes prefill(c·I) + O/τ decode steps;
- TPOT, the time per output token a user sees, is that time ÷ O (the other users' prefills
  included); tokens/s per user its inverse; output tokens/s per chip c·O ÷ that time ÷ N;
- TTFT is the prefill of one prompt at the model's parallelism, no queueing (a bound: a real
  server adds the wait for a slot);
- the largest c whose weights and KV caches (at the mean context) fit in each chip's memory;
  points beyond are marked as not fitting.
With speculative decoding (n draft tokens accepted at rate α), a verify step runs n + 1 positions
per user for (1 − α^(n+1))/(1 − α) tokens: its ops are n + 1 times a decode step's, its bytes a
decode step's, and the draft's own work is not counted (the bound stays a bound).

Every number is the roofline's: no efficiency factor is hidden in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from roofline_gui.core.build import build
from roofline_gui.core.chip import Chip
from roofline_gui.core.errors import Problem, ValidationError
from roofline_gui.core.i18n import CLAUSE_SEPARATOR, N_, _, clauses, full_stop, listed, ngettext
from roofline_gui.core.workload import (
    MAX_DIM,
    Built,
    MeasuredServing,
    Workload,
    pool_problems,
    serving_problems,
)
from roofline_gui.core.workload_eval import WorkloadResult, csv_number, evaluate_workloads

#: Concurrencies tried where none are given: doubling from 1 (the largest that fits is added).
DEFAULT_CONCURRENCY = tuple(2**i for i in range(13))


@dataclass(frozen=True)
class ServingSpec:
    input_tokens: int  # I: prompt tokens per request (a mean)
    output_tokens: int  # O: generated tokens per request (a mean)
    concurrency: tuple[int, ...] = ()  # c values; (): doubling from 1, and the largest that fits
    ttft_limit: float = 0.0  # s; 0: none
    tpot_limit: float = 0.0  # s; 0: none
    draft_tokens: int = 0  # n: speculative decoding's drafted tokens per step (0: off)
    acceptance: float = 0.0  # α: each drafted token's chance to be accepted
    prefill_chips: int = 0  # x: disaggregated, the chips that prefill (0: off)
    decode_chips: int = 0  # y: and the chips that decode

    def problems(self) -> list[Problem]:
        out = [Problem("concurrency", f"must be whole numbers of users from 1, not {c!r}")
               for c in self.concurrency
               if isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= MAX_DIM][:1]
        return out + serving_problems(self)

    @property
    def tokens_per_step(self) -> float:
        """τ: tokens a user gains per decode (verify) step."""
        n, a = self.draft_tokens, self.acceptance
        if n == 0:
            return 1.0
        return (1 - a ** (n + 1)) / (1 - a) if a else 1.0

    @property
    def mean_context(self) -> int:
        return self.input_tokens + self.output_tokens // 2

    @property
    def disaggregated(self) -> bool:
        return bool(self.prefill_chips and self.decode_chips)


def spec_of(w: Workload, concurrency: tuple[int, ...] = ()) -> ServingSpec:
    """The serving settings a workload carries (the Serving view's)."""
    return ServingSpec(w.input_tokens, w.output_tokens, concurrency, w.ttft_limit, w.tpot_limit,
                       w.draft_tokens, w.acceptance, w.prefill_chips, w.decode_chips)


@dataclass(frozen=True)
class ServingResult:
    """One workload served on every chip: arrays [C, K] over the chips and the concurrencies."""

    workload: Workload
    spec: ServingSpec
    chips: tuple[Chip, ...]
    concurrency: np.ndarray  # [K]
    decode: tuple[WorkloadResult, ...]  # [K]: the decode step at each c
    prefill: tuple[WorkloadResult, ...]  # [K]: c prompts prefilled as one batch
    first: WorkloadResult  # one prompt's prefill (TTFT)
    #: [C, K] the concurrencies each chip's own search tried (None: all): the others' points are
    #: drawn on its curve but not chosen as its best, so a chip's best is the same whichever
    #: chips stand beside it
    searched: np.ndarray | None = None

    @property
    def chips_per_model(self) -> int:
        return self.workload.chips_per_model

    @cached_property
    def step_time(self) -> np.ndarray:
        """[C, K] s of a decode (verify) step."""
        return np.array([r.time for r in self.decode]).T

    @cached_property
    def prefill_time(self) -> np.ndarray:
        """[C, K] s of the c prompts' prefill, paid once per c requests."""
        return np.array([r.time for r in self.prefill]).T

    @property
    def chips_serving(self) -> int:
        """The chips one serving unit takes: the N that share the model, or disaggregated the
        x that prefill and the y that decode."""
        s = self.spec
        return s.prefill_chips + s.decode_chips if s.disaggregated else self.chips_per_model

    @cached_property
    def request_time(self) -> np.ndarray:
        """[C, K] s to serve c requests on the chips that decode them: their prefill (on the
        same chips; disaggregated, on others) and O/τ decode steps."""
        steps = self.spec.output_tokens / self.spec.tokens_per_step
        own_prefill = 0.0 if self.spec.disaggregated else self.prefill_time
        return own_prefill + steps * self.step_time

    @cached_property
    def tpot(self) -> np.ndarray:
        """[C, K] s per output token as each user sees it (the others' prefill mixed in, unless
        disaggregated)."""
        return self.request_time / self.spec.output_tokens

    @cached_property
    def tokens_per_user(self) -> np.ndarray:
        return 1.0 / self.tpot

    @cached_property
    def transfer_time(self) -> np.ndarray:
        """[C] s to move one prompt's KV cache from the chips that prefilled it to those that
        decode it over the workload's link level (each of the N chips its shard, at once);
        0 unless disaggregated; NaN where the chip has no such level."""
        if not self.spec.disaggregated:
            return np.zeros(len(self.chips))
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.first.built.kv_cache_bytes / np.asarray(self.first.link_bandwidth, float)

    @cached_property
    def pool_rates(self) -> dict[str, np.ndarray]:
        """Disaggregated: [C, K] requests/s each part can carry at concurrency c: the decode
        pool (y/N model copies, c users each), the prefill pool (x/N copies, c prompts a batch)
        and the link (each prefill copy's KV caches sent one after another)."""
        s, n = self.spec, self.chips_per_model
        users = self.concurrency[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            return {"decode": s.decode_chips / n * users / self.request_time,
                    "prefill": s.prefill_chips / n * users / self.prefill_time,
                    "link": np.broadcast_to(s.prefill_chips / n / self.transfer_time[:, None],
                                            self.step_time.shape)}

    @cached_property
    def tokens_total(self) -> np.ndarray:
        """[C, K] output tokens/s of the serving unit: the N chips that share the model, or
        disaggregated the x + y chips, at the slowest of their pools and link."""
        if not self.spec.disaggregated:
            return self.concurrency[None, :] * self.tokens_per_user
        r = self.pool_rates
        return np.minimum(np.minimum(r["decode"], r["prefill"]), r["link"]) * (
            self.spec.output_tokens)

    @cached_property
    def tokens_per_chip(self) -> np.ndarray:
        return self.tokens_total / self.chips_serving

    @cached_property
    def tokens_per_joule(self) -> np.ndarray:
        """[C, K] output tokens per joule of a chip: its share of the c users' O tokens ÷ the
        energy of their prefill and decode steps on it (core.energy's model, as the workload
        views count a step's energy); NaN where the chip has no energy data."""
        steps = self.spec.output_tokens / self.spec.tokens_per_step
        prefill = np.array([r.energy.per_step for r in self.prefill]).T
        decode = np.array([r.energy.per_step for r in self.decode]).T
        tokens = self.concurrency[None, :] * self.spec.output_tokens / self.chips_per_model
        with np.errstate(divide="ignore", invalid="ignore"):
            return tokens / (prefill + steps * decode)

    @cached_property
    def tokens_per_dollar(self) -> np.ndarray:
        """[C, K] output tokens per dollar of chip time at each chip's price per chip-hour
        (the user's); NaN where it has none."""
        price = np.array([c.energy.price_per_hour if c.energy is not None
                          and c.energy.price_per_hour else np.nan for c in self.chips])
        return self.tokens_per_chip * 3600.0 / price[:, None]

    @cached_property
    def ttft(self) -> np.ndarray:
        """[C] s: one prompt's prefill on the model's chips, without queueing (and,
        disaggregated, its KV cache's move to the chips that decode it)."""
        return np.asarray(self.first.time, dtype=float) + self.transfer_time

    @cached_property
    def fits(self) -> np.ndarray:
        """[C, K] whether the weights and the c users' KV caches at the mean context fit (and,
        disaggregated, the c prompts' prefill on the chips that prefill)."""
        out = np.array([np.asarray(r.fits) | ~np.isfinite(r.capacity) for r in self.decode]).T
        if self.spec.disaggregated:
            out &= np.array([np.asarray(r.fits) | ~np.isfinite(r.capacity)
                             for r in self.prefill]).T
        return out

    @cached_property
    def meets(self) -> np.ndarray:
        """[C, K] within both limits (a limit of 0 is none), and fitting."""
        ok = self.fits & np.isfinite(self.tpot)
        if self.spec.tpot_limit:
            ok &= self.tpot <= self.spec.tpot_limit
        if self.spec.ttft_limit:
            ok &= (self.ttft <= self.spec.ttft_limit)[:, None]
        return ok

    def shown(self) -> int | None:
        """The concurrency index of the point the roofline shows: the workload's batch, where
        its context is the requests' mean (what a click on a point sets); None where the
        workload is no point of this frontier (another context, or a batch between them)."""
        if self.workload.context != self.spec.mean_context:
            return None
        at = np.flatnonzero(self.concurrency == self.workload.batch)
        return int(at[0]) if len(at) else None

    def not_shown_line(self) -> str:
        """Why no point is boxed, where none is: the workload as the roofline shows it and the
        frontier's context ("" where one is boxed)."""
        if self.shown() is not None:
            return ""
        return _("No point is boxed: the roofline shows the workload at B = {batch}, L = {context}, "
                 "and these points decode at the requests' mean context, L = {mean}. A click on "
                 "one sets the workload to it.").format(
            batch=f"{self.workload.batch:,}", context=f"{self.workload.context:,}",
            mean=f"{self.spec.mean_context:,}")

    def best(self, c: int) -> int | None:
        """The concurrency index with the most output tokens/s per chip that meets the limits on
        chip ``c`` (None: no point does), among the concurrencies its own search tried. Where
        the most is reached at several (past the knee, where a compute-bound step's tokens/s
        per chip stays flat), the fewest users: each of them is served the fastest."""
        ok = self.meets[c] if self.searched is None else self.meets[c] & self.searched[c]
        return _best(ok, self.tokens_per_chip[c])

    def shares(self, c: int, k: int) -> dict[str, float]:
        """Where the time of serving c requests goes on chip ``c``: prefill, and the decode
        steps' weights, KV cache, the rest of their memory traffic, compute and the link, each a
        share of the whole (the decode step's kernels split by what bounds them)."""
        r = self.decode[k]
        steps = self.spec.output_tokens / self.spec.tokens_per_step
        total = float(self.request_time[c, k])
        out = {"prefill": 0.0 if self.spec.disaggregated else
               float(self.prefill_time[c, k]) / total}
        step = float(r.time[c])
        mem = float(r.memory_bound_share[c]) * step
        link = float(r.link_time[c])
        weights = sum(e.weight_bytes * e.count for e in r.entries)
        dram = float(r.dram_bytes)
        kv = r.built.kv_cache_bytes
        for name, part in (("weights", mem * weights / dram if dram else 0.0),
                           ("KV cache", mem * kv / dram if dram else 0.0),
                           ("other memory", mem * max(0.0, 1 - (weights + kv) / dram)
                            if dram else 0.0),
                           ("compute", max(0.0, step - mem - link)), ("link", link)):
            out[name] = steps * part / total
        return out


def _best(ok: np.ndarray, value: np.ndarray) -> int | None:
    """The index of the most ``value`` where ``ok``, the first of equals (None: none ok)."""
    if not ok.any():
        return None
    value = np.where(ok, value, -np.inf)
    # equal to rounding (the flat part differs in the last bits): the first, fewest users
    return int(np.flatnonzero(value >= value.max() * (1 - 1e-9))[0])


def _verify(built: Built, positions: int) -> Built:
    """A speculative verify step: n + 1 positions per user, each kernel's ops × (n + 1), its
    bytes a decode step's (the draft's work and the extra activations left out: a bound)."""
    if positions == 1:
        return built
    entries = tuple(replace(e, kernel=replace(e.kernel, flops=e.kernel.flops * positions))
                    for e in built.entries)
    return replace(built, entries=entries)


def serve(workload: Workload, chips: Sequence[Chip], spec: ServingSpec, *,
          derated: bool = False, search: bool = True) -> ServingResult:
    """The serving bound of ``workload`` (a transformer; its precisions and parallelism) on
    every chip. ``search``: each chip's best point searched between the doublings (False: the
    doublings alone, as a view does while a field is being typed in). Raises ValidationError
    naming each bad field."""
    problems = spec.problems()
    if workload.kind != "transformer":
        problems.append(Problem("kind", "serving is for transformer language models"))
    if not problems:
        problems += pool_problems(replace(workload, prefill_chips=spec.prefill_chips,
                                          decode_chips=spec.decode_chips))
    if problems:
        raise ValidationError(problems)
    base = replace(workload, phase="decode", context=spec.mean_context, global_batch=0)
    chips = tuple(chips)
    given = tuple(spec.concurrency)
    if given:
        return _served(workload, base, chips, spec, given, derated)
    probe = evaluate_workloads([replace(base, batch=1)], chips, derated=derated)[0]
    largest = [probe.batch_that_fits(c) for c in range(len(chips))]
    top = max((b for b in largest if b), default=None)
    levels = tuple(b for b in DEFAULT_CONCURRENCY if top is None or b <= top)
    extra = sorted({b for b in largest if b and b not in levels and b <= MAX_DIM})
    levels = tuple(sorted({*levels, *extra})) or (1,)
    # each chip's own points: the doublings and the largest batch that fits it
    own = [set(DEFAULT_CONCURRENCY) | ({b} if b else set()) for b in largest]
    result = _served(workload, base, chips, spec, levels, derated)
    # The best point lies between a doubling and the next: where the TPOT limit falls, or where
    # the tokens/s per chip stop rising (the step turns compute-bound; past it more users gain
    # nothing). Each chip searches next to its own best, twice, 8 steps between, and alone:
    # its best does not hang on the chips beside it.
    for _round in range(2 if search else 0):
        more: list[set[int]] = []
        for c in range(len(chips)):
            mine = np.array([v in own[c] for v in levels])
            k = _best(result.meets[c] & mine, result.tokens_per_chip[c])
            found: set[int] = set()
            if k is not None:
                at = np.flatnonzero(mine)
                i = int(np.searchsorted(at, k))
                value = result.tokens_per_chip[c]
                if i > 0 and value[at[i - 1]] < value[k] * (1 - 1e-9):
                    found |= _between(levels[at[i - 1]], levels[k])
                if i + 1 < len(at) and not result.meets[c, at[i + 1]]:
                    found |= _between(levels[k], levels[at[i + 1]])
            more.append(found)
        for c, m in enumerate(more):
            own[c] |= m
        new = set().union(*more) - set(levels)
        if not new:
            break
        result = _merged(result, _served(workload, base, chips, spec, tuple(sorted(new)),
                                         derated))
        levels = tuple(int(c) for c in result.concurrency)
    searched = np.array([[v in own[c] for v in levels] for c in range(len(chips))], dtype=bool)
    return replace(result, searched=searched)


def _between(lo: int, hi: int) -> set[int]:
    """Eight concurrencies evenly spaced in log between ``lo`` and ``hi`` (whole numbers, the
    ends left out)."""
    return {int(v) for v in np.geomspace(lo, hi, 10)[1:-1]} - {lo, hi}


def _merged(a: ServingResult, b: ServingResult) -> ServingResult:
    """Two servings of one workload at other concurrencies, as one (in order of concurrency);
    each concurrency's results stand on their own."""
    rows = sorted([(c, a.decode[k], a.prefill[k]) for k, c in enumerate(a.concurrency)]
                  + [(c, b.decode[k], b.prefill[k]) for k, c in enumerate(b.concurrency)],
                  key=lambda row: row[0])
    return replace(a, concurrency=np.array([r[0] for r in rows]),
                   decode=tuple(r[1] for r in rows), prefill=tuple(r[2] for r in rows))


def _served(workload: Workload, base: Workload, chips: tuple[Chip, ...], spec: ServingSpec,
            levels: tuple[int, ...], derated: bool) -> ServingResult:
    """Every concurrency's decode step and prefill, and one prompt's, in one evaluation."""
    decode = [replace(base, batch=c) for c in levels]
    builts = [_verify(build(w), spec.draft_tokens + 1) for w in decode]
    prefill = [replace(base, phase="prefill", batch=c, sequence=spec.input_tokens)
               for c in levels]
    # one prompt's prefill (TTFT) is the prefill at c = 1 when 1 is among the concurrencies
    first = [] if 1 in levels else [replace(base, phase="prefill", batch=1,
                                            sequence=spec.input_tokens)]
    results = evaluate_workloads([*decode, *prefill, *first], chips, derated=derated,
                                 built=[*builts, *(build(w) for w in (*prefill, *first))])
    k = len(levels)
    one = results[-1] if first else results[k + levels.index(1)]
    return ServingResult(workload, spec, chips, np.array(levels, dtype=float),
                         tuple(results[:k]), tuple(results[k:2 * k]), one)


def serving_rows(result: ServingResult, columns: Sequence[str]) -> list[dict[str, str]]:
    """One row per chip and concurrency, in the workloads CSV's ``columns``: ``time_s`` the
    TPOT, ``throughput_per_s`` the output tokens/s of all N chips, ``fits`` whether the weights
    and caches fit; the serving columns by name; ``joules_per_item`` and
    ``cost_per_million_items`` an output token's energy and cost where the chip has the figures
    (the view's tokens per joule and per dollar, inverted)."""
    s = result.spec
    rows = []
    for c, chip in enumerate(result.chips):
        for k, users in enumerate(result.concurrency):
            r = result.decode[k]
            row = dict.fromkeys(columns, "")
            row.update({
                "chip": chip.name, "workload": result.workload.name, "phase": "serve",
                "batch": str(int(users)), "sequence": str(s.input_tokens),
                "context": str(s.mean_context),
                "chips_per_model": str(result.chips_per_model),
                "weights": result.workload.weights, "activations": result.workload.activations,
                "kv_cache": result.workload.kv_cache,
                "chips_total": str(result.chips_serving),  # both pools where disaggregated
                "time_s": csv_number(float(result.tpot[c, k])),
                "time_no_overlap_s": csv_number(float(result.tpot[c, k])),
                "throughput_per_s": csv_number(float(result.tokens_total[c, k])),
                "throughput_unit": "output tokens/s",
                "memory_bound_time_share": csv_number(float(r.memory_bound_share[c])),
                "communication_time_share": csv_number(float(r.communication_share[c])),
                "dominant_kernel": r.dominant_name(c),
                "unsupported_reason": r.unsupported_reason(c),
                "fits": "" if not np.isfinite(r.capacity[c]) else
                        "yes" if result.fits[c, k] else "no",
                "parameters": csv_number(r.built.parameters),
                "active_parameters": csv_number(r.built.active_parameters),
                "weight_bytes_per_chip": csv_number(r.built.weight_bytes),
                "kv_cache_bytes_per_chip": csv_number(r.built.kv_cache_bytes),
                "concurrency": str(int(users)), "input_tokens": str(s.input_tokens),
                "output_tokens": str(s.output_tokens),
                "ttft_s": csv_number(float(result.ttft[c])), "tpot_s": csv_number(float(result.tpot[c, k])),
                "tokens_per_s_per_user": csv_number(float(result.tokens_per_user[c, k])),
                "tokens_per_s_per_chip": csv_number(float(result.tokens_per_chip[c, k])),
                "meets_slo": "yes" if result.meets[c, k] else "no",
                # an output token's energy and cost, as the Serving view's y axis reads them
                "joules_per_item": _inverse(float(result.tokens_per_joule[c, k])),
                "cost_per_million_items": _inverse(float(result.tokens_per_dollar[c, k]), 1e6),
            })
            rows.append({key: row[key] for key in columns})
    return rows


def _inverse(value: float, per: float = 1.0) -> str:
    """``per`` ÷ ``value`` as a CSV number; empty where there is no figure."""
    return csv_number(per / value) if np.isfinite(value) and value > 0 else ""


def limit_problems(result: ServingResult) -> list[Problem]:
    """Limits no point of any chip meets, each said with how far the best point is from it."""
    s = result.spec
    out = []
    fits = result.fits & np.isfinite(result.tpot)
    if s.tpot_limit and fits.any():
        best = float(np.min(np.where(fits, result.tpot, np.inf)))
        if best > s.tpot_limit:
            out.append(Problem("tpot_limit", _(
                "no chip meets a TPOT of {limit} ms: the fastest point takes {best} ms ({times}× "
                "the limit)").format(limit=f"{s.tpot_limit * 1e3:.4g}", best=f"{best * 1e3:.4g}",
                                     times=f"{best / s.tpot_limit:.3g}")))
    if s.ttft_limit:
        best = float(np.nanmin(result.ttft)) if np.isfinite(result.ttft).any() else np.inf
        if best > s.ttft_limit:
            out.append(Problem("ttft_limit", _(
                "no chip meets a TTFT of {limit} ms: the fastest prefill of {tokens} tokens takes "
                "{best} ms ({times}× the limit)").format(
                limit=f"{s.ttft_limit * 1e3:.4g}", tokens=s.input_tokens,
                best=f"{best * 1e3:.4g}", times=f"{best / s.ttft_limit:.3g}")))
    return out


#: Where a request's time goes (ServingResult.shares) and the parts of a disaggregated unit
#: (pool_rates), as the explanation names them; translated where shown
SHARE_WORDS = {"prefill": N_("prefill"), "weights": N_("weights"), "KV cache": N_("KV cache"),
               "other memory": N_("other memory"), "compute": N_("compute"), "link": N_("link")}
POOL_WORDS = {"decode": N_("the decode pool"), "prefill": N_("the prefill pool"),
              "link": N_("the link")}


def _lead(result: ServingResult) -> str | None:
    """Why the first chip of the ranking leads the second: the users each serves at its best
    point, what its time goes to there, and the datasheet figures that differ (main memory's
    bandwidth and capacity, the peak at the workload's math precision)."""
    from roofline_gui.core.units import compute_precision, format_si  # noqa: PLC0415

    best = sorted(((float(result.tokens_per_chip[i, b]), i, b) for i in range(len(result.chips))
                   if (b := result.best(i)) is not None), reverse=True)
    if len(best) < 2:
        return None
    (va, a, ka), (vb, b, kb) = best[:2]
    ca, cb = result.chips[a], result.chips[b]

    def held(c: int, k: int) -> str:
        shares = result.shares(c, k)
        return _(SHARE_WORDS[max(shares, key=shares.get)])

    ua, ub = int(result.concurrency[ka]), int(result.concurrency[kb])
    facts = []
    precision = compute_precision(result.workload.activations)
    # the link first where the model spans chips (or a pool hands its caches to the other):
    # a tour read every figure favour the second chip and the cause, NVLink, unnamed
    linked = result.chips_per_model > 1 or result.spec.disaggregated
    link = np.asarray(result.first.link_bandwidth, float) if linked else None
    for what, x, y, unit in (
            *(((_("chip-to-chip link"), float(link[a]), float(link[b]), "B/s"),) if linked else ()),
            (_("main memory"), ca.dram.bandwidth, cb.dram.bandwidth, "B/s"),
            (_("{precision} peak").format(precision=precision), ca.peak(precision),
             cb.peak(precision), "op/s"),
            (_("memory"), ca.dram.capacity, cb.dram.capacity, "B")):
        if (x is None) != (y is None):  # a precision one chip has no peak at (NVFP4 on an
            # H200, which runs it at a stand-in: the words had stopped with a TypeError and
            # kept the workload shown before: the eighteenth tour)
            facts.append(_("{what} {value} against {other}").format(
                what=what, value=format_si(x, unit) if x is not None else _("none"),
                other=format_si(y, unit) if y is not None else _("none")))
            continue
        if x is None or not (np.isfinite(x) and np.isfinite(y)):
            continue
        if x and y and abs(x / y - 1) > 0.005:
            facts.append(_("{what} {value} against {other}").format(
                what=what, value=format_si(x, unit), other=format_si(y, unit)))
        elif x and y:
            facts.append(_("the same {what} ({value})").format(what=what, value=format_si(x, unit)))
    # two chips within half a percent tie (a chip added twice, or two of one design)
    lead = (_("{chip} and {other} tie (within 0.5%)") if va / vb - 1 < 0.005 else
            _("{chip} leads {other} by {gap}")).format(chip=ca.name, other=cb.name,
                                                       gap=f"{va / vb - 1:.0%}")
    words = {"lead": lead, "users": f"{ua:,}", "other_users": f"{ub:,}", "part": held(a, ka),
             "other_part": held(b, kb)}
    text = (_("{lead}: at their best points {users} users at once against {other_users}, the "
              "most time going to {part} on both") if held(a, ka) == held(b, kb) else
            _("{lead}: at their best points {users} users at once against {other_users}, the "
              "most time going to {part} against {other_part}")).format(**words)
    return text + (_(CLAUSE_SEPARATOR) + listed(facts) if facts else "") + full_stop()


def serving_lines(result: ServingResult, c: int) -> list[str]:
    """Chip ``c``'s frontier in words: its best point within the limits, what holds it there,
    and what would move it (each worked out by serving the variant: twice the chips, an fp8
    KV cache, half the input)."""
    from roofline_gui.core.units import BYTES_PER_VALUE  # noqa: PLC0415 (text only)

    w, s, chip = result.workload, result.spec, result.chips[c]
    k = result.best(c)
    ranked = sorted(((float(result.tokens_per_chip[i, b]), result.chips[i].name)
                     for i in range(len(result.chips)) if (b := result.best(i)) is not None),
                    reverse=True)
    ranking = ([_("Most output tokens/s per chip within the limits: {ranking}.").format(
        ranking=clauses(f"{name} {value:,.0f}" for value, name in ranked))]
        if len(ranked) > 1 else [])
    lead = _lead(result)
    if lead:
        ranking.append(lead)
    share = (_("{n} chips share the model").format(n=w.chips_per_model) if w.chips_per_model > 1
             else _("one chip holds the model"))
    if s.disaggregated:
        from roofline_gui.core.units import format_bytes  # noqa: PLC0415 (text only)

        mixed = _("disaggregated: {prefill} prefill and {decode} decode, each prompt's KV cache "
                  "({kv} per chip) moved over the {link} level in {ms} ms (in the TTFT)").format(
            prefill=ngettext("{n} chip", "{n} chips", s.prefill_chips).format(n=s.prefill_chips),
            decode=s.decode_chips, kv=format_bytes(result.first.built.kv_cache_bytes),
            link=w.link, ms=f"{result.transfer_time[c] * 1e3:,.2f}")
    else:
        mixed = _("each request's prefill mixed into the steps (chunked prefill)")
    head = _("{workload} served on {chip} ({share}): {input} tokens in and {output} out per "
             "request (means), decode at the mean context {context}, {mixed}.").format(
        workload=w.name, chip=chip.name, share=share, input=f"{s.input_tokens:,}",
        output=f"{s.output_tokens:,}", context=f"{s.mean_context:,}", mixed=mixed)
    if k is None:
        fits = result.fits[c] & np.isfinite(result.tpot[c])
        if not fits.any():
            why = _("no concurrency tried fits in its memory (or it cannot run the model)")
        else:
            fastest = float(np.min(np.where(fits, result.tpot[c], np.inf)))
            why = _("no point meets the limits: its fastest TPOT is {ms} ms").format(
                ms=f"{fastest * 1e3:,.2f}")
            if s.tpot_limit:
                why += " " + _("against {limit} ms").format(limit=f"{s.tpot_limit * 1e3:g}")
            if s.ttft_limit:
                why += ", " + _("its TTFT {ms} ms against {limit} ms").format(
                    ms=f"{result.ttft[c] * 1e3:,.1f}", limit=f"{s.ttft_limit * 1e3:g}")
        return [*ranking, head, _("No best point: {why}.").format(why=why)]
    users = int(result.concurrency[k])
    lines = [*ranking, head,
             _("Best within the limits: {users} at once, {per_chip} output tokens/s per chip, "
               "{per_user} tokens/s per user (TPOT {tpot} ms), TTFT {ttft} ms (one prompt's "
               "prefill, no queueing).").format(
                 users=ngettext("{n} user", "{n} users", users).format(n=f"{users:,}"),
                 per_chip=f"{result.tokens_per_chip[c, k]:,.0f}",
                 per_user=f"{result.tokens_per_user[c, k]:,.1f}",
                 tpot=f"{result.tpot[c, k] * 1e3:,.2f}", ttft=f"{result.ttft[c] * 1e3:,.1f}")]
    shares = result.shares(c, k)
    order = sorted(shares.items(), key=lambda kv: -kv[1])
    lines.append(_("Where the time goes: {parts}.").format(parts=listed(
        f"{_(SHARE_WORDS[name])} {share:.0%}" for name, share in order if share >= 0.005)))
    limits = []
    if s.tpot_limit:
        limits.append(f"TPOT ≤ {s.tpot_limit * 1e3:g} ms")
    if s.ttft_limit:
        limits.append(f"TTFT ≤ {s.ttft_limit * 1e3:g} ms")
    if s.disaggregated:
        rates = {name: float(r[c, k]) for name, r in result.pool_rates.items()}
        slowest = min(rates, key=rates.get)
        parts = listed(f"{_(POOL_WORDS[name])} {rate:,.3g}" for name, rate in rates.items())
        lines.append((_("Requests per second each part carries there: {parts}; {slowest} sets the "
                        "pace: more chips there, or fewer on the others, would serve more per "
                        "chip.") if max(rates.values()) > 1.2 * rates[slowest] else
                      _("Requests per second each part carries there: {parts}; {slowest} sets the "
                        "pace.")).format(parts=parts, slowest=_(POOL_WORDS[slowest])))
    next_k = k + 1 if k + 1 < len(result.concurrency) else None
    if next_k is not None and not result.meets[c, next_k]:
        held = (_("memory: more users' KV caches do not fit") if not result.fits[c, next_k] else
                _("the limit ({limits})").format(limits=listed(limits)) if limits else
                _("the concurrencies tried"))
        lines.append(_("What holds it at {users} users: {held}.").format(users=f"{users:,}",
                                                                          held=held))
    variants = []
    heads = result.decode[k].built.heads
    if heads % (2 * w.chips_per_model) == 0:
        # each copy of the model on twice the chips: disaggregated, each pool twice as big
        variants.append((_("{n} chips").format(n=2 * w.chips_per_model), replace(
            w, chips_per_model=2 * w.chips_per_model, prefill_chips=2 * w.prefill_chips,
            decode_chips=2 * w.decode_chips)))
    if BYTES_PER_VALUE[w.kv_cache] > 1:
        variants.append((_("an fp8 KV cache"), replace(w, kv_cache="fp8")))
    if s.input_tokens > 1:
        variants.append((_("half the input ({tokens} tokens)").format(
            tokens=f"{s.input_tokens // 2:,}"), None))
    moves = []
    for words, variant in variants:
        spec = replace(s, input_tokens=s.input_tokens // 2) if variant is None else s
        if variant is not None and variant.chips_per_model != w.chips_per_model:
            spec = replace(spec, prefill_chips=variant.prefill_chips,
                           decode_chips=variant.decode_chips)
        try:
            other = serve(variant or w, (chip,), spec,
                          derated=result.decode[0].evaluation.derated)
        except ValidationError:
            continue  # a variant the model does not allow (say, more chips than its heads)
        b = other.best(0)
        if b is not None:
            moves.append(_("{change}: {per_chip} tokens/s per chip ({times}×) at {per_user} per "
                           "user").format(
                change=words, per_chip=f"{other.tokens_per_chip[0, b]:,.0f}",
                times=f"{other.tokens_per_chip[0, b] / result.tokens_per_chip[c, k]:.2f}",
                per_user=f"{other.tokens_per_user[0, b]:,.1f}"))
    if moves:
        lines.append(_("What would move it: {moves}.").format(moves=clauses(moves)))
    lines.append(_("A bound: every kernel at its roof, no queueing, no kernel-launch or collective "
                   "latency; no serving stack beats it on this chip."))
    return lines


def chip_named(chips: Sequence[Chip], name: str) -> int | None:
    """The index of the chip a measured point names, by its name or its preset id."""
    key = name.strip().lower()
    return next((c for c, chip in enumerate(chips)
                 if key in (chip.name.lower(), (chip.preset or "").lower())), None)


def frontier_at(result: ServingResult, c: int, per_user: float) -> float:
    """The bound on output tokens/s per chip at ``per_user`` tokens/s per user on chip ``c``:
    the frontier (points that fit) interpolated in log space, or the best point at least that
    fast for each user; NaN beyond the fastest point (no concurrency serves users that fast)."""
    x, y = result.tokens_per_user[c], result.tokens_per_chip[c]
    ok = result.fits[c] & np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if not ok.any() or per_user > float(x[ok].max()) * (1 + 1e-9):
        return float("nan")
    order = np.argsort(x[ok])
    lx, ly = np.log(x[ok][order]), np.log(y[ok][order])
    # the frontier falls as users get faster; below the slowest point, its best holds
    return float(np.exp(np.interp(np.log(per_user), lx, ly, left=ly.max())))


def measured_lines(result: ServingResult, points: Sequence[MeasuredServing]) -> list[str]:
    """Each measured point against its chip's bound, in words; one above it named with what
    to check (as for kernels above a roof), the serving checks first."""
    lines = []
    for p in points:
        c = chip_named(result.chips, p.chip)
        if c is None:
            lines.append(_("{chip}: no such chip shown; its point is not drawn.").format(chip=p.chip))
            continue
        bound = frontier_at(result, c, p.per_user)
        facts = {"chip": result.chips[c].name, "per_chip": f"{p.per_chip:,.0f}",
                 "per_user": f"{p.per_user:,.1f}", "source": f" ({p.source})" if p.source else "",
                 "bound": f"{bound:,.0f}" if np.isfinite(bound) else ""}
        if not np.isfinite(bound):
            lines.append(_("{chip}: {per_chip} tokens/s per chip at {per_user} per user{source}: "
                           "faster per user than any point of the bound: check the settings "
                           "below.").format(**facts))
        elif p.per_chip <= bound:
            lines.append(_("{chip}: {per_chip} tokens/s per chip at {per_user} per user{source}: "
                           "{share} of the bound ({bound}).").format(
                share=f"{p.per_chip / bound:.0%}", **facts))
            continue
        else:
            lines.append(_("{chip}: {per_chip} tokens/s per chip at {per_user} per user{source} "
                           "is ABOVE the bound ({bound}, {times}×).").format(
                times=f"{p.per_chip / bound:.2f}", **facts))
        lines.append("  " + _("Check: speculative decoding or an MTP head (set draft tokens and "
                              "their acceptance); prefix caching or a shorter real input than "
                              "{tokens} tokens; a format narrower than {weights} weights, {kv} KV "
                              "cache; the chip's peak (dense, per chip) and its units; more chips "
                              "than {chips} sharing the model.").format(
            tokens=f"{result.spec.input_tokens:,}", weights=result.workload.weights,
            kv=result.workload.kv_cache, chips=result.chips_per_model))
    return lines
