"""Roofline Explorer from Python: scripts and notebooks drive the app's own core.

Every function here is a thin door onto what the window uses (the same presets, templates,
session reader and writer, evaluation and exports), so a script's numbers are the app's::

    from roofline_gui import api as rf

    a100, tpu = rf.chip("A100 SXM4 40GB"), rf.chip("google-tpu-v3")
    add = rf.kernel("elementwise", "int8", n=1e8)
    mlp = rf.kernel("mlp", "bf16", batch=8, d_in=4096, d_out=4096)
    doc = rf.session([a100, tpu], [add, mlp], title="A100 against TPU v3")
    result = rf.evaluate(doc)
    result.attainable          # numpy array [kernel, chip] of op/s
    rf.write_csv(doc, "table.csv")
    rf.write_png(doc, "chart.png", width=1200)   # draws offscreen with Qt

Only :func:`write_png` needs Qt; everything else is numpy. See ``docs/api.md``.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from functools import cache
from pathlib import Path

import numpy as np

from roofline_gui.core.chip import Chip
from roofline_gui.core.comparison import Comparison, compare
from roofline_gui.core.document import Document
from roofline_gui.core.edits import SetField, apply, insert_new
from roofline_gui.core.errors import RooflineError
from roofline_gui.core.kernel import Kernel
from roofline_gui.core.templates import RESIDENCES, TEMPLATES, Template
from roofline_gui.core.units import PRECISIONS
from roofline_gui.core.workload import Workload
from roofline_gui.io import csv_export
from roofline_gui.io import session as session_io
from roofline_gui.io.presets import Presets, default_presets

__all__ = [
    "Results", "WorkloadResults", "batch_sweep", "chip", "chips", "evaluate",
    "evaluate_workloads", "kernel", "load_session", "measure_this_computer", "operands", "preset_kernel",
    "training", "derive",
    "preset_kernels", "presets", "save_session", "session", "templates", "with_measured",
    "workload", "workloads", "write_csv", "write_png", "write_workloads_csv",
]


@cache
def presets() -> Presets:
    """The shipped chip and kernel presets (and the user's own saved chips), read once."""
    return default_presets()


def chips() -> dict[str, Chip]:
    """Every preset chip by its id ("nvidia-h100-sxm5-80gb")."""
    return dict(presets().chips)


def preset_kernels() -> dict[str, Kernel]:
    """Every preset kernel by its id."""
    return dict(presets().kernels)


def templates() -> dict[str, Template]:
    """The kernel templates by id ("mlp", "gemm", ...); ``.formula`` shows each one's formula."""
    return dict(TEMPLATES)


def _find(library: dict, what: str, key: str):
    if key in library:
        return library[key]
    by_name = {item.name.casefold(): item for item in library.values()}
    if key.casefold() in by_name:
        return by_name[key.casefold()]
    names = [*library, *(item.name for item in library.values())]
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    raise RooflineError(f"no preset {what} {key!r}{hint}")


def chip(name_or_id: str) -> Chip:
    """A preset chip by id or by name (any case): ``chip("H100 SXM5 80GB")``."""
    return _find(presets().chips, "chip", name_or_id)


def preset_kernel(name_or_id: str) -> Kernel:
    """A preset kernel by id or by name (any case)."""
    return _find(presets().kernels, "kernel", name_or_id)


def kernel(template: str, precision: str, *, name: str = "", storage: str | None = None,
           resides: dict[str, str] | None = None, **params: float) -> Kernel:
    """A kernel from a template, named from its parameters unless ``name`` is given; unnamed
    parameters take the template's defaults. ``storage`` is the precision values are stored in
    (int8 weights with bf16 math: ``precision="bf16", storage="int8"``). ``resides`` says where
    operands live when not in main memory: ``{"a": "cache", "b": "cache"}`` keeps them on chip
    across calls, ``{"x": "host"}`` brings x over the host link every call (the template's
    operand names: ``rf.operands(template)``)."""
    if template not in TEMPLATES:
        raise RooflineError(f"no template {template!r}; templates: {', '.join(TEMPLATES)}")
    spec = TEMPLATES[template]
    for value in (precision, storage):
        if value is not None and value not in PRECISIONS:
            raise RooflineError(f"precision {value!r}: one of {', '.join(PRECISIONS)}")
    known = {p.name: p for p in spec.params}
    values = {}
    for key, value in params.items():
        if key not in known:
            raise RooflineError(f"{template} has no parameter {key!r}; it has {', '.join(known)}")
        p = known[key]
        if not p.minimum <= value <= p.maximum or (p.integer and value != int(value)):
            kind = "a whole number" if p.integer else "a number"
            raise RooflineError(f"{template}.{key} = {value:g}: must be {kind} from {p.minimum:g} "
                                f"to {p.maximum:g}")
        values[key] = float(value)
    values = {p.name: values.get(p.name, p.default) for p in spec.params}
    names = [op.name for op in spec.operands]
    for operand, where in (resides or {}).items():
        if operand not in names:
            raise RooflineError(f"{template} has no operand {operand!r}; it has {', '.join(names)}")
        if where not in RESIDENCES:
            raise RooflineError(f"{template}.{operand} lives in {where!r}: one of "
                                f"{', '.join(RESIDENCES)}")
    made = Kernel("k", "", precision, category=spec.category, template=template, params=values,
                  storage_precision=None if storage == precision else storage,
                  resides={o: resides[o] for o in names if (resides or {}).get(o, "dram") != "dram"})
    return replace(made, name=name or made.auto_name())


def operands(template: str) -> list[tuple[str, str, str]]:
    """A template's operands in formula order: (name, role, what it is); ``resides`` names them."""
    if template not in TEMPLATES:
        raise RooflineError(f"no template {template!r}; templates: {', '.join(TEMPLATES)}")
    return [(op.name, op.role, op.label) for op in TEMPLATES[template].operands]


def session(chips: Iterable[Chip], kernels: Iterable[Kernel] = (), *, title: str = "",
            baseline: int = 0, workloads: Iterable[Workload] = ()) -> Document:
    """A session of these chips, kernels and workloads, with fresh ids and colours as the app's
    Add gives; ``baseline`` is the index of the chip speedups are measured against."""
    doc = Document(title=title)
    for collection, items in (("chips", list(chips)), ("kernels", list(kernels)),
                              ("workloads", list(workloads))):
        edit, _ids = insert_new(doc, collection, items)
        doc, _inverse = apply(edit, doc)
    if doc.chips:
        doc, _inverse = apply(SetField("baseline", doc.chips[baseline].id), doc)
    return doc


def load_session(path: str | os.PathLike) -> Document:
    """Read a ``.roofline`` session; a bad file raises RooflineError naming the field or line."""
    return session_io.load_session(path)


def save_session(doc: Document, path: str | os.PathLike) -> None:
    """Write a session atomically (the file the app opens)."""
    session_io.save_session(doc, path)


@dataclass(frozen=True)
class Results:
    """One evaluation of every kernel on every chip: arrays are [kernel, chip], NaN where a chip
    does not support the kernel's precision. ``comparison`` is the object the app's table,
    chart and CSV read."""

    comparison: Comparison

    @property
    def worth(self) -> dict[str, np.ndarray]:
        """What each ceiling is worth: {"compute", "dram", "cache", "host", "link"} -> [kernel,
        chip] speedup with that ceiling alone twice as high (1 where unused)."""
        from roofline_gui.core.worth import speedups  # noqa: PLC0415

        return speedups(self.comparison.result)

    @property
    def energy(self) -> dict[str, np.ndarray]:
        """Energy and power (core.energy), [kernel, chip]: ``per_op`` (J at the roofline's
        rate), ``power`` (W there), ``capped`` (bool: the board power slows it by more than
        5 %), ``capped_rate`` (op/s), ``ops_per_joule`` and ``capped_power`` (W, never above the
        board power); NaN where a chip has no energy data."""
        e = self.comparison.energy
        return {"per_op": e.per_op, "power": e.power, "capped": e.capped,
                "capped_rate": e.capped_rate, "ops_per_joule": e.ops_per_joule,
                "capped_power": e.capped_power}

    @property
    def kernels(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.comparison.kernels)

    @property
    def chips(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.comparison.chips)

    @property
    def attainable(self) -> np.ndarray:
        """Attainable performance, op/s."""
        return self.comparison.result.attainable

    @property
    def time(self) -> np.ndarray:
        """Time for each kernel's work at the attainable rate, s (NaN for a kernel given only as
        an intensity, which has no size)."""
        return self.comparison.result.time_lower

    @property
    def intensity(self) -> np.ndarray:
        """Each kernel's arithmetic intensity against main memory, op/B: [kernel]."""
        return self.comparison.dram_intensity

    @property
    def bound(self) -> np.ndarray:
        """'memory', 'compute' or 'unsupported' for each pair."""
        return self._names(self.comparison.bound_name)

    @property
    def limiter(self) -> np.ndarray:
        """The roof that limits each pair: a memory level's name or '<precision> peak'."""
        return self._names(self.comparison.limiter_name)

    def _names(self, name) -> np.ndarray:
        k, c = self.attainable.shape
        return np.array([[name(i, j) for j in range(c)] for i in range(k)], dtype=object)

    def speedup(self, baseline: int = 0) -> np.ndarray:
        """Attainable performance ÷ the baseline chip's, per kernel."""
        return self.comparison.speedup(baseline)

    def rows(self) -> list[dict[str, str]]:
        """The CSV's rows, one per (chip, kernel), as the app writes them."""
        return self.comparison.rows()


def evaluate(doc: Document | None = None, *, chips: Sequence[Chip] = (),
             kernels: Sequence[Kernel] = (), derated: bool = False,
             same_width: bool = True) -> Results:
    """Evaluate a session (or lists of chips and kernels) as the app does, vectorised over every
    kernel × chip pair. ``derated`` runs against the achievable roofs: each ceiling's measured
    value where it has one, else its achievable fraction (View → Achievable roofs).
    ``same_width``: a chip lacking a kernel's precision runs it at its own of the same width (a
    V100's fp16 for bf16), as the window does by default (View → Same-width precisions stand
    in); False: it has no roof for it."""
    if doc is not None:
        chips, kernels = doc.chips, doc.kernels
    return Results(compare(tuple(kernels), tuple(chips), derated=derated, same_width=same_width))


# -- measured roofs ----------------------------------------------------------------------------

def measure_this_computer(**options) -> Chip:
    """Measure the machine this runs on (about 30 s: compiled STREAM kernels from L1 to main
    memory, the multiply-add peak per precision, BLAS GEMM) and describe it as a chip whose
    every ceiling is measured, as ``--measure`` does. ``options`` go to the measurement
    (``sizes``, ``threads``, ``compiled=False`` for numpy's kernels)."""
    from roofline_gui.measure.machine import measure, to_chip  # noqa: PLC0415

    return to_chip(measure(**options))


def with_measured(datasheet: Chip, measured: Chip) -> Chip:
    """``datasheet`` with the measured values of ``measured`` beside its own, level by name
    (DRAM to main memory) and peak by precision, as Tools → Measure's "add to the selected
    chip" does. A measured value with no ceiling to go to raises, naming it."""
    from roofline_gui.core.chip import attach_measured  # noqa: PLC0415
    from roofline_gui.core.errors import Problem, ValidationError  # noqa: PLC0415

    merged, _matched, unmatched = attach_measured(datasheet, measured)
    if unmatched:
        raise ValidationError([Problem(name, f"{datasheet.name} has no such ceiling")
                               for name in unmatched])
    return merged


# -- whole models ------------------------------------------------------------------------------

def workloads() -> dict[str, Workload]:
    """The example models by id ("llama-3-8b", "resnet-50"...), at their default parameters."""
    from roofline_gui.io.workloads import shipped_workloads  # noqa: PLC0415

    return {key: shipped.workload() for key, shipped in shipped_workloads().items()}


def workload(model: str | os.PathLike, *, name: str = "", **params) -> Workload:
    """A whole model as a workload: an example by id or name ("llama-3-8b", "Mixtral-8x7B-v0.1")
    or a Hugging Face-style ``config.json`` on disk, with its parameters: ``phase`` ("prefill"
    or "decode"), ``batch``, ``sequence`` (S, prefill), ``context`` (L, decode), ``weights``,
    ``activations``, ``kv_cache`` (precisions, or block-scaled formats: "mxfp4", "nvfp4"...),
    ``chips_per_model``, ``expert_parallel`` (of those chips, how many the routed experts are
    spread over), ``moe_imbalance`` (the busiest chip's load over the mean) and ``link``. A bad
    field raises RooflineError naming it."""
    from roofline_gui.core.build import build  # noqa: PLC0415
    from roofline_gui.io.workloads import shipped_workloads, workload_from_config  # noqa: PLC0415

    known = {f.name for f in fields(Workload)} - {"id", "name", "kind", "spec", "source"}
    unknown = sorted(set(params) - known)
    if unknown:
        raise RooflineError(f"workload has no parameter {', '.join(map(repr, unknown))}; it has "
                            f"{', '.join(sorted(known))}")
    library = {key: s.workload() for key, s in shipped_workloads().items()}
    if isinstance(model, str) and not model.endswith(".json"):
        made = replace(_find(library, "workload", model), **params)
        build(made)  # every problem named, as the app's fields and files have them
    else:
        made = workload_from_config(model, **params)
    return replace(made, name=name or made.name)


@dataclass(frozen=True)
class WorkloadResults:
    """Every workload on every chip: arrays are [workload, chip], NaN where a chip cannot run
    one. ``results`` are the objects the app's table, chart, breakdown and CSV read."""

    results: tuple

    @property
    def worth(self) -> dict[str, np.ndarray]:
        """{ceiling: [workload, chip]} the speedup with that ceiling alone twice as high."""
        return {c: np.array([r.worth[c] for r in self.results]) for c in
                ("compute", "dram", "cache", "host", "link")}

    @property
    def workloads(self) -> tuple[str, ...]:
        return tuple(r.workload.name for r in self.results)

    @property
    def chips(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.results[0].chips) if self.results else ()

    def _stack(self, name: str) -> np.ndarray:
        return np.array([getattr(r, name) for r in self.results], dtype=float)

    @property
    def time(self) -> np.ndarray:
        """Seconds per step (decode: one token per sequence), kernels' overlap within each."""
        return self._stack("time")

    @property
    def time_no_overlap(self) -> np.ndarray:
        return self._stack("time_no_overlap")

    @property
    def throughput(self) -> np.ndarray:
        """Tokens, images or samples per second (``units``)."""
        return self._stack("throughput")

    @property
    def units(self) -> tuple[str, ...]:
        return tuple(r.workload.throughput_unit for r in self.results)

    @property
    def memory_bound_share(self) -> np.ndarray:
        return self._stack("memory_bound_share")

    @property
    def communication_share(self) -> np.ndarray:
        return self._stack("communication_share")

    @property
    def fits(self) -> np.ndarray:
        """Whether each chip's main memory holds its share of weights and KV cache."""
        return np.array([r.fits for r in self.results], dtype=bool)

    @property
    def intensity(self) -> np.ndarray:
        """Aggregate intensity (total ops ÷ total main-memory bytes) of each workload, op/B."""
        return np.array([r.intensity for r in self.results])

    @property
    def energy(self) -> dict[str, np.ndarray]:
        """Energy and cost (core.energy), [workload, chip]: ``per_step`` (J per chip),
        ``per_item`` (J per token, image or sample on all the chips of a step),
        ``items_per_joule``, ``average_power`` (W, never above the board power), ``capped``
        (bool), ``cost_per_million`` ($ per million items at the chips' price); NaN where a chip
        has no energy data (or no price)."""
        return {name: np.array([getattr(r.energy, name) for r in self.results])
                for name in ("per_step", "per_item", "items_per_joule", "average_power", "capped",
                             "cost_per_million")}

    def rows(self) -> list[dict[str, str]]:
        """The workloads CSV's rows, one per (chip, workload), as the app writes them."""
        return [r.csv_row(c) for r in self.results for c in range(len(r.chips))]


def evaluate_workloads(doc: Document | None = None, *, chips: Sequence[Chip] = (),
                       workloads: Sequence[Workload] = (), derated: bool = False,
                       same_width: bool = True) -> WorkloadResults:
    """Evaluate workloads on chips as the app does: every kernel of every workload on every
    chip in one roofline evaluation, summed per workload (``same_width`` as in evaluate)."""
    from roofline_gui.core.workload_eval import evaluate_workloads as run  # noqa: PLC0415

    kernels = None
    if doc is not None:
        chips, workloads, kernels = doc.chips, doc.workloads, doc.kernels_by_id
    return WorkloadResults(tuple(run(tuple(workloads), tuple(chips), derated=derated,
                                     kernels=kernels, same_width=same_width)))


def serving(model: str | os.PathLike | Workload, chips_: Sequence[Chip], *, input_tokens: int,
            output_tokens: int, concurrency: Sequence[int] = (), ttft_ms: float = 0.0,
            tpot_ms: float = 0.0, draft_tokens: int = 0, acceptance: float = 0.0,
            prefill_chips: int = 0, decode_chips: int = 0, derated: bool = False,
            **params) -> list[dict[str, str]]:
    """The serving bound of a model (an example by id or name, a ``config.json``, or a workload
    with its precisions and parallelism) on chips: one row per chip and concurrency, the
    workloads CSV's columns (``tokens_per_s_per_chip``, ``tokens_per_s_per_user``, ``ttft_s``,
    ``tpot_s``, ``meets_slo``...), as ``--phase serve`` writes them. ``params`` are the
    workload's (``weights``, ``chips_per_model``, ``expert_parallel``...); ``prefill_chips``
    and ``decode_chips`` serve it disaggregated (x chips prefill, y decode). A bad field raises
    RooflineError naming it."""
    from roofline_gui.core.serving import ServingSpec, serve, serving_rows  # noqa: PLC0415
    from roofline_gui.core.workload_eval import WORKLOAD_CSV_COLUMNS  # noqa: PLC0415

    w = model if isinstance(model, Workload) else workload(model, **params)
    spec = ServingSpec(input_tokens, output_tokens, tuple(concurrency), ttft_ms / 1e3,
                       tpot_ms / 1e3, draft_tokens, acceptance, prefill_chips, decode_chips)
    return serving_rows(serve(w, tuple(chips_), spec, derated=derated), WORKLOAD_CSV_COLUMNS)


def training(model: str | os.PathLike, chip_: Chip, **settings):
    """One training step of a model (an example by id, a ``config.json`` or a CNN's layer list)
    on a chip, and the run it implies: the workload in phase ``train``, its entries evaluated on
    the roofline as the app does (core/training.py, docs/workloads.md). Settings are the
    workload's (``batch`` the micro-batch, ``sequence``, ``global_batch``, ``data_parallel``,
    ``chips_per_model`` the tensor-parallel degree, ``pipeline_parallel``, ``zero``,
    ``recompute``, ``optimizer``, ``activations`` the training precision, ``train_tokens``,
    ``link``), or their training names ``micro_batch``, ``tensor_parallel``, ``precision`` and
    ``tokens``. Returns a core.training_view.TrainingReport (times, MFU at the bound, memory per
    chip, days, chip-hours and ``steps``, every formula with its numbers). A bad setting raises
    RooflineError naming it."""
    from roofline_gui.core.training_view import report  # noqa: PLC0415
    from roofline_gui.core.workload_eval import evaluate_workloads as run  # noqa: PLC0415
    from roofline_gui.io.workloads import model_from_file  # noqa: PLC0415

    aliases = {"micro_batch": "batch", "tensor_parallel": "chips_per_model",
               "precision": "activations", "tokens": "train_tokens"}
    params = {aliases.get(k, k): v for k, v in settings.items()}
    if isinstance(model, str) and not model.endswith(".json"):
        made = workload(model, phase="train", **params)
    else:
        try:
            made = model_from_file(model, phase="train", **params)
        except TypeError as exc:
            raise RooflineError(f"training: {exc}") from None
    result = run([made], [chip_])[0]
    if not result.time[0] == result.time[0]:  # NaN: the chip cannot run it
        from roofline_gui.core.training_view import explain_training  # noqa: PLC0415

        raise RooflineError(f"precision: {explain_training(result, 0)[0]}")
    return report(result, 0)


def derive(chip_: Chip, **factors: float) -> Chip:
    """A what-if copy of a chip with ceilings scaled: ``compute`` (every precision) or a precision
    (``bf16=2``), a memory role (``dram=2``: every level of it), ``capacity``; named from its
    changes ("H100 SXM5 80GB, HBM3 ×2"), each changed ceiling's provenance "what-if". A bad
    factor raises RooflineError naming it."""
    from roofline_gui.core.chip import derive as derived  # noqa: PLC0415

    try:
        return derived(chip_, factors)
    except ValueError as exc:
        raise RooflineError(str(exc)) from None


def batch_sweep(model: Workload, chips: Sequence[Chip],
                batches: Sequence[int] = tuple(2**i for i in range(13)), *,
                derated: bool = False) -> WorkloadResults:
    """The workload at each batch (1 … 4,096 by default), all in one evaluation: rows of the
    results are the batches."""
    from roofline_gui.core.workload_eval import batch_sweep as sweep  # noqa: PLC0415

    return WorkloadResults(tuple(sweep(model, tuple(chips), batches, derated=derated)))


def write_workloads_csv(doc: Document, path: str | os.PathLike, *, derated: bool = False,
                        same_width: bool = True) -> int:
    """The app's workloads CSV (one row per chip and workload; ``same_width`` as in evaluate);
    returns the number of rows."""
    return csv_export.export_workloads_csv(doc, path, derated=derated, same_width=same_width)


def write_csv(doc: Document, path: str | os.PathLike, *, derated: bool = False,
              same_width: bool = True) -> int:
    """The app's CSV export (one row per chip and kernel; ``same_width`` as in evaluate);
    returns the number of rows."""
    return csv_export.export_csv(doc, path, derated=derated, same_width=same_width)


def write_png(doc: Document, path: str | os.PathLike, *, width: int = 1600,
              derated: bool = False, same_width: bool = True) -> None:
    """The app's chart drawn offscreen and saved as a PNG ``width`` pixels wide (needs Qt; in
    a process without a display it draws offscreen; ``same_width`` as in evaluate)."""
    from roofline_gui.widgets.chart.export import export_png_headless  # noqa: PLC0415

    export_png_headless(doc, Path(path), width, derated=derated, same_width=same_width)
