"""Entry point: command-line options, the headless export paths, then the Qt application.

Qt is imported only when a window or a PNG is needed, so ``--export-csv`` and
``--list-presets`` start fast and run where no display exists.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from roofline_gui import __version__
from roofline_gui.core.errors import RooflineError, ValidationError
from roofline_gui.core.i18n import LANGUAGES, N_, _, language_from_locale, ngettext

EXIT_BAD_INPUT = 2
EXIT_NO_WINDOW = 3  # the platform cannot show a window (missing system libraries, no display)


_WIDE = "\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef"  # CJK, kana, full-width forms
_NO_LINE_START = set("）」』、。，．：；ー")  # Japanese does not start a line with these
_NO_LINE_END = set("（「『")  # nor end one with these


def wrap_words(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns (a CJK character takes two), broken at
    spaces or between CJK characters, never inside a Latin word: argparse's textwrap cut
    Japanese help inside "SESSION" (the tour) and counted a CJK character as one column."""
    tokens = re.findall(f"[{_WIDE}]|\\s+|[^\\s{_WIDE}]+", " ".join(text.split()))
    lines, line, used = [], "", 0
    for token in tokens:
        if token.isspace():
            if line:
                line, used = line + " ", used + 1
            continue
        size = sum(2 if re.match(f"[{_WIDE}]", ch) else 1 for ch in token)
        if line and used + size > width and token not in _NO_LINE_START:
            carried = line[-1] if line[-1] in _NO_LINE_END else ""  # "（" goes with its text
            lines.append(line[:len(line) - len(carried)].rstrip())
            line, used = carried, 2 * len(carried)
        line, used = line + token, used + size
    if line.strip():
        lines.append(line.rstrip())
    return lines


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help, wrapped by wrap_words (Japanese help reads whole words)."""

    def _split_lines(self, text, width):
        return wrap_words(text, width)

    def _fill_text(self, text, width, indent):
        return "\n".join(indent + line for line in wrap_words(text, width - len(indent)))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="roofline-explorer", formatter_class=_HelpFormatter,
        description=(
            _("Roofline Explorer: how fast can a kernel run on a chip, and what holds it back. "
            "Without export options it opens the desktop app.")
        ),
        epilog=(
            _("CSV columns: chip, kernel, precision, runs_at_precision, intensity_flop_per_byte, "
            "attainable_flop_per_s, bound, limiter, ridge_flop_per_byte, time_s, "
            "percent_of_peak (one row per chip and kernel; runs_at_precision is a stand-in's "
            "where the chip has not the kernel's; intensity and ridge at the dram "
            "level; bound is memory, compute or unsupported; time_s is empty for kernels "
            "given only as an intensity). Workloads CSV columns: chip, workload, phase, batch, "
            "sequence, context, chips_per_model, weights, activations, kv_cache, time_s, "
            "time_no_overlap_s, throughput_per_s, "
            "throughput_unit, memory_bound_time_share, communication_time_share, "
            "dominant_kernel (docs/workloads.md). Bad input exits with status 2.")
        ),
    )
    parser.add_argument("session", nargs="?", help=_("a session file (.roofline or .json) to open"))
    parser.add_argument("--export-csv", metavar="OUT.csv", help=_("write the comparison table and exit"))
    parser.add_argument("--export-png", metavar="OUT.png", help=_("render the roofline chart and exit"))
    parser.add_argument("--width", type=int, default=1600, metavar="PX",
                        help=_("width of --export-png in pixels (default 1600)"))
    parser.add_argument("--derated", action="store_true",
                        help=_("use the chips' achievable fractions (practical roofs) in exports"))
    parser.add_argument("--no-same-width", dest="same_width", action="store_false",
                        help=_("in exports, a chip lacking a kernel's precision has no roof for "
                               "it (by default its own precision of the same width stands in, a "
                               "V100's fp16 for bf16, as in the window: View → Same-width "
                               "precisions stand in)"))
    parser.add_argument("--export-workloads", metavar="OUT.csv",
                        help=_("write every workload on every chip (time, throughput, shares, "
                             "dominant kernel) and exit; with a SESSION, its workloads; with "
                             "--model, one model on --chips"))
    model = parser.add_argument_group(
        _("a model straight from its config.json (with --export-workloads)"))
    model.add_argument("--model", metavar="CONFIG.json",
                       help=_("a Hugging Face-style config.json on disk (nothing is downloaded); "
                            "with --phase train also a CNN's layer list or an MLP's widths "
                            "(as resources/workloads/resnet-50.layers.json); with "
                            "--export-workloads written as CSV, else opened in the window"))
    model.add_argument("--phase", choices=("prefill", "decode", "train", "serve"),
                       help=_("prefill S prompt tokens (needs --sequence), or decode one token per "
                            "sequence against a KV cache of L (needs --context), or train: one "
                            "optimizer step over the global batch (needs --sequence), or serve: "
                            "output tokens/s per chip against tokens/s per user (needs "
                            "--input-tokens and --output-tokens); default decode"))
    model.add_argument("--batch", type=int, metavar="B",
                       help=_("sequences (default 1); in training, the micro-batch per replica"))
    model.add_argument("--sequence", type=int, metavar="S",
                       help=_("prompt tokens, for prefill; the sequence length, for training"))
    model.add_argument("--context", type=int, metavar="L", help=_("KV-cache tokens, for decode"))
    formats = ("fp64, fp32, tf32, bf16, fp16, fp8, fp6, fp4, int8, int4, mxfp8, mxfp6, mxfp4, "
               "nvfp4")
    # (a training step's precision is --activations: the help says so where a reader of
    # --weights looks for it, the twenty-second tour)
    for flag, what in (("weights", _("precision or format of the weights, for decode and "
                                     "prefill (default bf16; a training step's precision is "
                                     "--activations): {formats}")),
                       ("activations", _("precision or format of the activations and math, and "
                                         "of a training step (default bf16): {formats}")),
                       ("kv-cache", _("precision or format of the KV cache, for decode "
                                      "(default bf16): {formats}"))):
        model.add_argument(f"--{flag}", metavar="P", help=what.format(formats=formats))
    model.add_argument("--chips-per-model", type=int, metavar="N",
                       help=_("chips sharing the model by tensor parallelism (default 1)"))
    model.add_argument("--expert-parallel", type=int, metavar="e",
                       help=_("of the N chips, how many a mixture of experts' routed experts are "
                            "spread over (a divisor of N and of the experts; default 1)"))
    model.add_argument("--moe-imbalance", type=float, metavar="F",
                       help=_("the busiest expert-parallel chip's load over the mean (default 1: "
                            "perfectly even routing)"))
    model.add_argument("--attention-data-parallel", action="store_true", default=None,
                       help=_("each of the N chips runs the attention of B/N sequences with every "
                            "head, its weights whole (for latent attention, whose cache tensor "
                            "parallelism cannot split)"))
    model.add_argument("--mtp", action="store_true", default=None,
                       help=_("DeepSeek: hold (and count) its multi-token prediction module beside "
                            "the model, as speculative decoding's draft"))
    model.add_argument("--link", choices=("link", "host"),
                       help=_("the memory role joining those chips (default link: NVLink, ICI)"))
    model.add_argument("--chips", metavar="ID[,ID...]",
                       help=_("chip preset ids, as --list-presets prints them"))
    serve = parser.add_argument_group(
        _("serving (--phase serve: output tokens/s per chip against tokens/s per user; "
        "docs/serving.md)"))
    serve.add_argument("--input-tokens", type=int, metavar="I", help=_("prompt tokens per request "
                       "(a mean)"))
    serve.add_argument("--output-tokens", type=int, metavar="O", help=_("output tokens per request "
                       "(a mean)"))
    serve.add_argument("--concurrency", metavar="N[,N...]",
                       help=_("users decoding at once (default: doubling from 1, and the largest "
                            "that fits on each chip)"))
    serve.add_argument("--ttft-ms", type=float, metavar="MS", help=_("time-to-first-token limit"))
    serve.add_argument("--tpot-ms", type=float, metavar="MS", help=_("time-per-output-token limit"))
    serve.add_argument("--draft-tokens", type=int, metavar="n",
                       help=_("speculative decoding: tokens drafted per step (default 0: off)"))
    serve.add_argument("--acceptance", type=float, metavar="a",
                       help=_("speculative decoding: each drafted token's acceptance rate, in [0, 1)"))
    serve.add_argument("--disaggregate", metavar="X:Y",
                       help=_("X chips prefill, Y decode (each a multiple of --chips-per-model), "
                            "the KV cache moved over the --link level (default: each chip both)"))
    train = parser.add_argument_group(_("training (--phase train; docs/workloads.md)"))
    train.add_argument("--global-batch", type=int, metavar="G",
                       help=_("sequences per optimizer step (default B·d)"))
    train.add_argument("--data-parallel", type=int, metavar="d", help=_("replicas (default 1)"))
    train.add_argument("--pipeline-parallel", type=int, metavar="p",
                       help=_("pipeline stages, 1F1B (default 1)"))
    train.add_argument("--zero", type=int, metavar="{0,1,2,3}", help=_("ZeRO stage (default 0)"))
    train.add_argument("--recompute", metavar="{none,selective,full}",
                       help=_("activation recomputation (default none)"))
    train.add_argument("--optimizer", metavar="{adam,sgd}", help=_("default adam"))
    train.add_argument("--tokens", type=_count, metavar="D",
                       help=_("training tokens (images) of the whole run, for days and "
                            "chip-hours: 2e12, 2T, 300G"))
    parser.add_argument("--what-if", action="append", metavar="ID:ROLE=FACTOR[,ROLE=FACTOR...]",
                        help=_("a what-if copy of a chip (a session chip's id or name, or a preset "
                             "id) with ceilings scaled: ROLE is compute, a precision (bf16...), "
                             "dram, cache, host, link or capacity; repeatable, each derived chip "
                             "added after its original in every export"))
    parser.add_argument("--list-presets", action="store_true",
                        help=_("print the chip and kernel preset ids with their names and exit"))
    parser.add_argument("--measure", action="store_true",
                        help=_("measure this computer's memory bandwidth per level and peak compute "
                             "(about 30 s on an idle 2-core machine) and print the figures"))
    parser.add_argument("--json", metavar="OUT.json",
                        help=_("with --measure: also write every measured figure as JSON, with "
                             "the measured chip in the session's chip format (File → Open "
                             "opens it)"))
    parser.add_argument("--keep-preset", action="store_true",
                        help=_("with --measure: also keep the measured chip as one of your chip "
                             "presets"))
    parser.add_argument("--self-test", action="store_true",
                        help=_("start the app offscreen, open the example, export PNG and CSV, "
                             "verify them and exit 0 (non-zero with the reason otherwise)"))
    parser.add_argument("--lang", choices=tuple(LANGUAGES),
                        help=_("the interface's language (default: View → Language, else the "
                             "system's locale); files, CSV headers and options stay the same"))
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}",
                        help=_("show program's version number and exit"))
    return parser


def _wrote(rows: int, path) -> str:
    """The line an export prints: how many rows went to which file."""
    return ngettext("wrote {n} row to {path}", "wrote {n} rows to {path}", rows).format(
        n=rows, path=path)


def _fail(message: str) -> int:
    print(f"roofline-explorer: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def list_presets() -> int:
    from roofline_gui.io.presets import default_presets

    presets = default_presets()
    print(_("Chips:"))
    for preset_id, chip in presets.chips.items():
        print(f"  {preset_id:45s} {chip.vendor} {chip.name}")
    print(_("Kernels:"))
    for preset_id, kernel in presets.kernels.items():
        print(f"  {preset_id:45s} [{kernel.category}] {kernel.name}")
    from roofline_gui.io.workloads import shipped_workloads

    print(_("Example workloads (resources/workloads):"))
    for preset_id, shipped in shipped_workloads().items():
        print(f"  {preset_id:45s} [{shipped.kind}] {shipped.name}")
    return 0


#: The --model options' defaults (None on the parser, so a use without --model can be told).
MODEL_DEFAULTS = {"phase": "decode", "batch": 1, "weights": "bf16", "activations": "bf16",
                  "kv_cache": "bf16", "chips_per_model": 1, "link": "link", "expert_parallel": 1,
                  "moe_imbalance": 1.0, "attention_data_parallel": False, "mtp": False}
TRAIN_ONLY = ("global_batch", "data_parallel", "pipeline_parallel", "zero", "recompute",
              "optimizer", "tokens")
SERVE_ONLY = ("input_tokens", "output_tokens", "concurrency", "ttft_ms", "tpot_ms",
              "draft_tokens", "acceptance", "disaggregate")
MODEL_ONLY = (*MODEL_DEFAULTS, "sequence", "context", "chips", *TRAIN_ONLY, *SERVE_ONLY)


def run_model(args: argparse.Namespace) -> int:
    """``--model CONFIG.json ... --chips ... --export-workloads OUT``: no session needed. Every
    problem with the command line is reported at once, each by its option."""

    from roofline_gui.core.document import Document
    from roofline_gui.core.errors import Problem
    from roofline_gui.io.presets import default_presets

    args.given = {key for key in MODEL_DEFAULTS if getattr(args, key) is not None}
    for key, default in MODEL_DEFAULTS.items():
        if getattr(args, key) is None:
            setattr(args, key, default)
    problems: list[Problem] = []
    if not args.export_workloads and args.phase == "serve":
        problems.append(Problem("--export-workloads", _(
            "--phase serve needs an output: --export-workloads OUT.csv (in the window: the "
            "model as a decode workload, then the Serving tab)")))
    library = default_presets().chips
    ids = [c.strip() for c in (args.chips or "").split(",") if c.strip()]
    if not ids:
        problems.append(Problem("--chips", _("give chip preset ids, e.g. --chips "
                                             "nvidia-h100-sxm5-80gb (--list-presets lists them)")))
    for chip_id in dict.fromkeys(c for c in ids if c not in library):
        problems.append(Problem("--chips", _("unknown chip id {chip} (--list-presets lists "
                                             "them)").format(chip=repr(chip_id))))
    for chip_id in sorted({c for c in ids if ids.count(c) > 1}):
        problems.append(Problem("--chips", _("{chip} is given twice").format(chip=repr(chip_id))))
    if args.phase == "train":
        return run_training(args, problems, library, ids)
    if args.phase == "serve":
        return run_serving(args, problems, library, ids)
    given = [f"--{key.replace('_', '-')}" for key in TRAIN_ONLY if getattr(args, key) is not None]
    problems += [Problem(flag, _("a training option, for --phase train only")) for flag in given]
    given = [f"--{key.replace('_', '-')}" for key in SERVE_ONLY if getattr(args, key) is not None]
    problems += [Problem(flag, _("a serving option, for --phase serve only")) for flag in given]
    if args.phase == "prefill" and args.sequence is None:
        problems.append(Problem("--sequence", _("prefill needs the prompt length S")))
    if args.phase == "decode" and args.context is None:
        problems.append(Problem("--context", _("decode needs the KV-cache length L")))
    if args.phase == "decode" and args.sequence is not None:
        problems.append(Problem("--sequence", _("applies to prefill; decode takes --context")))
    if args.phase == "prefill" and args.context is not None:
        problems.append(Problem("--context", _("applies to decode; prefill takes --sequence")))
    params = {**_model_params(args), "phase": args.phase, "batch": args.batch}
    if args.sequence is not None:
        params["sequence"] = args.sequence
    if args.context is not None:
        params["context"] = args.context
    workload, chips = _model_on_chips(args, params, problems, ids, library)
    return _deliver(args, Document(chips=chips, workloads=(workload,)))


def _deliver(args: argparse.Namespace, doc) -> int:
    """The --model's session: written with --export-workloads, else opened in the window as an
    untitled session (the README's training command had only written a CSV, and a new user
    looked for the window: the nineteenth tour)."""
    if args.export_workloads:
        _export_workloads(doc, args.export_workloads, derated=args.derated,
                          same_width=args.same_width)
        return 0
    from dataclasses import replace

    from roofline_gui.core.edits import with_colours
    from roofline_gui.platform_check import startup_problem

    # the presets' chips have no colour of their own: each its palette colour, as Add… gives
    # them (every line was drawn grey: the twenty-first tour)
    doc = replace(doc, chips=with_colours(doc.chips))

    problem = startup_problem()
    if problem:
        print(f"roofline-explorer: {problem}", file=sys.stderr)
        return EXIT_NO_WINDOW
    return start_window(language=args.lang, document=(doc, Path(args.model).name))


def _model_params(args: argparse.Namespace) -> dict:
    """The workload fields every phase takes from the command line: formats, parallelism."""
    return {"weights": args.weights, "activations": args.activations, "kv_cache": args.kv_cache,
            "chips_per_model": args.chips_per_model, "link": args.link,
            "expert_parallel": args.expert_parallel, "moe_imbalance": float(args.moe_imbalance),
            "attention_data_parallel": bool(args.attention_data_parallel), "mtp": bool(args.mtp)}


def _model_on_chips(args: argparse.Namespace, params: dict, problems: list, ids: list[str],
                    library) -> tuple:
    """The --model's workload with ``params`` and the --chips (with any --what-if), or every
    problem at once: the settings' by their options, the config's by its file and field."""
    from dataclasses import replace

    from roofline_gui.core.errors import Problem
    from roofline_gui.core.workload import Workload
    from roofline_gui.io.workloads import workload_from_config

    # The command line's names for the fields, not the session's.
    problems += [Problem("--" + p.path.replace("_", "-"), p.message)
                 for p in Workload("w1", "", "transformer", {}, **params).problems()]
    workload = None
    try:  # the config's own problems, reported with the rest
        workload = workload_from_config(args.model, **(params if not problems else {}))
    except ValidationError as exc:  # a setting's problem by its option, the config's by its field
        problems += [Problem("--" + p.path.replace("_", "-") if p.path in params
                             else f"{args.model}: {p.path}", p.message) for p in exc.problems]
    except RooflineError as exc:
        problems.append(Problem("--model", str(exc)))
    problems += _formats_lacking(args, ids, library)
    if problems:
        raise ValidationError(problems)
    if "weights" not in args.given:  # the checkpoint's own format, as the window's dialog has it
        from roofline_gui.core.families import read_config
        from roofline_gui.core.units import FORMATS

        native = read_config(workload.spec).quantized
        if native in FORMATS and native != workload.weights:
            workload = replace(workload, weights=native)
            print(_("note: weights in {format}, as the checkpoint ships them (--weights to "
                    "choose another format)").format(format=native), file=sys.stderr)
    chips = tuple(replace(library[c], id=f"c{i + 1}", preset=c) for i, c in enumerate(ids))
    if args.what_if:
        chips = with_what_ifs(chips, args.what_if)
    return workload, chips


def _formats_lacking(args: argparse.Namespace, ids: list[str], library) -> list:
    """A chip that cannot compute in the activations' narrow or block-scaled format at all, not
    even at a wider precision standing in (fp4 runs at fp6, fp8, then bf16 or fp16 on a chip
    without it). A chip lacking one of the classic precisions gets an empty row saying why."""
    from roofline_gui.core.errors import Problem
    from roofline_gui.core.units import BLOCK_FORMATS, WIDER, compute_precision

    if args.activations not in (*BLOCK_FORMATS, *WIDER):
        return []
    need = compute_precision(args.activations)
    out = []
    for chip_id in (c for c in dict.fromkeys(ids) if c in library):
        chip = library[chip_id]
        usable = (need, *WIDER.get(need, ()))
        if not any(p in chip.compute for p in usable):
            out.append(Problem("--activations", _(
                "{chip} ({id}) computes in none of {usable}: it cannot run {precision} math (it "
                "has {has})").format(chip=chip.name, id=chip_id, usable=", ".join(usable),
                                     precision=args.activations, has=", ".join(chip.compute))))
    return out


def run_serving(args: argparse.Namespace, problems: list, library, ids: list[str]) -> int:
    """``--model CONFIG.json --phase serve --input-tokens I --output-tokens O ...``: the serving
    bound on each chip at each concurrency (core/serving.py), written as rows of the workloads
    CSV; every problem by its option."""

    from roofline_gui.core.errors import Problem
    from roofline_gui.core.serving import ServingSpec, limit_problems, serve, serving_rows
    from roofline_gui.core.workload_eval import WORKLOAD_CSV_COLUMNS
    from roofline_gui.io.csv_export import write_rows_csv

    given = [f"--{key.replace('_', '-')}" for key in TRAIN_ONLY if getattr(args, key) is not None]
    problems += [Problem(flag, _("a training option, for --phase train only")) for flag in given]
    for flag, key in (("--sequence", "sequence"), ("--context", "context"), ("--batch", "batch")):
        if key in args.given or getattr(args, key) is not None and key != "batch":
            problems.append(Problem(flag, "serving takes --input-tokens, --output-tokens and "
                                          "--concurrency instead"))
    for flag, key in (("--input-tokens", "input_tokens"), ("--output-tokens", "output_tokens")):
        if getattr(args, key) is None:
            problems.append(Problem(flag, _("serving needs the mean prompt and output lengths")))
    if args.draft_tokens and args.acceptance is None:
        problems.append(Problem("--acceptance", _("give the drafted tokens' acceptance rate with "
                                                  "--draft-tokens (at 0 none is accepted: slower "
                                                  "than no drafts)")))
    concurrency: tuple[int, ...] = ()
    if args.concurrency:
        try:
            concurrency = tuple(int(x) for x in args.concurrency.split(",") if x.strip())
        except ValueError:
            problems.append(Problem("--concurrency", _("{value}: whole numbers of users, "
                                                       "comma-separated").format(
                value=repr(args.concurrency))))
    pools = (0, 0)
    if args.disaggregate:
        try:
            x, y = (int(v) for v in args.disaggregate.split(":"))
            pools = (x, y)
        except ValueError:
            problems.append(Problem("--disaggregate", _("{value}: the chips that prefill and "
                                                        "those that decode, as X:Y").format(
                value=repr(args.disaggregate))))
    spec = ServingSpec(1 if args.input_tokens is None else args.input_tokens,
                       1 if args.output_tokens is None else args.output_tokens, concurrency,
                       (args.ttft_ms or 0.0) / 1e3, (args.tpot_ms or 0.0) / 1e3,
                       args.draft_tokens or 0, args.acceptance or 0.0, *pools)
    flags = {"input_tokens": "--input-tokens", "output_tokens": "--output-tokens",
             "concurrency": "--concurrency", "ttft_limit": "--ttft-ms",
             "tpot_limit": "--tpot-ms", "draft_tokens": "--draft-tokens",
             "acceptance": "--acceptance", "prefill_chips": "--disaggregate",
             "decode_chips": "--disaggregate"}
    problems += [Problem(flags[p.path], p.message) for p in spec.problems()
                 if getattr(args, p.path.replace("_limit", "_ms"), 1) is not None
                 or p.path in ("concurrency", "prefill_chips", "decode_chips")]
    params = {**_model_params(args), "phase": "decode", "batch": 1}
    workload, chips = _model_on_chips(args, params, problems, ids, library)
    try:
        result = serve(workload, chips, spec, derated=args.derated)
    except ValidationError as exc:
        raise ValidationError([Problem(flags.get(p.path, p.path), p.message)
                               for p in exc.problems]) from None
    late = limit_problems(result)
    for k, users in enumerate(concurrency):
        if not result.fits[:, k].any():
            most = {chip.name: result.decode[0].batch_that_fits(c) for c, chip in enumerate(chips)}
            late.append(Problem("concurrency", f"{users} users' KV caches do not fit on any chip "
                                               "(the most that fit: " + ", ".join(
                                                   f"{name} {n}" for name, n in most.items())
                                + ")"))
    if late:
        raise ValidationError([Problem(flags.get(p.path, p.path), p.message) for p in late])
    rows = serving_rows(result, WORKLOAD_CSV_COLUMNS)
    write_rows_csv(rows, WORKLOAD_CSV_COLUMNS, args.export_workloads)
    print(_wrote(len(rows), args.export_workloads), file=sys.stderr)
    for c, chip in enumerate(chips):
        best = result.best(c)
        if best is None:
            print(_("note: no point on {chip} meets the limits").format(chip=chip.name),
                  file=sys.stderr)
        else:
            print(_("{chip}: best within the limits at concurrency {users}: {per_chip} output "
                    "tokens/s per chip, {per_user} tokens/s per user, TTFT {ttft} ms").format(
                chip=chip.name, users=int(result.concurrency[best]),
                per_chip=f"{result.tokens_per_chip[c, best]:,.0f}",
                per_user=f"{result.tokens_per_user[c, best]:,.1f}",
                ttft=f"{result.ttft[c] * 1e3:,.1f}"), file=sys.stderr)
    return 0


def _count(text: str) -> float:
    """A count as people write it: 2e12, 2T, 300G, 1.4e12 (decimal prefixes)."""
    from roofline_gui.core.errors import UnitError
    from roofline_gui.core.units import parse_quantity

    try:
        return parse_quantity(text, "count", allow_zero=True)
    except UnitError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None


def _is_transformer_config(path) -> bool:
    """Whether a --model file reads as a transformer's config.json (not a CNN's layer list or an
    MLP's widths); False where it cannot be read (that problem is reported on its own)."""
    from roofline_gui.io.files import read_json

    try:
        raw = read_json(path)
    except RooflineError:
        return False
    return isinstance(raw, dict) and "widths" not in raw and not isinstance(raw.get("layers"), list)


def run_training(args: argparse.Namespace, problems: list, library, ids: list[str]) -> int:
    """``--model MODEL --phase train ... --export-workloads OUT``: one training step per chip,
    its entries evaluated on the roofline like any workload's (core/training.py), written as
    rows of the workloads CSV; every problem by its option."""
    from dataclasses import replace

    from roofline_gui.core.document import Document
    from roofline_gui.core.errors import Problem
    from roofline_gui.core.workload import Workload
    from roofline_gui.io.workloads import model_from_file

    if args.context is not None:
        problems.append(Problem("--context", _("applies to decode; training takes --sequence")))
    # A training step has one precision, the activations' (the matmuls, the weights' working copy,
    # the gradients; master weights and optimizer states are fp32): a --weights or --kv-cache
    # of another precision was silently dropped.
    # (tf32 is fp32 values on the tensor cores: fp32 weights with tf32 math are that step,
    # which "give --activations fp32" had refused: the twenty-third tour)
    stored = {"tf32": "fp32"}.get(args.activations, args.activations)
    for key in ("weights", "kv_cache"):
        flag, value = f"--{key.replace('_', '-')}", getattr(args, key)
        if key in args.given and value not in (args.activations, stored):
            problems.append(Problem(flag, _(
                "a training step's precision is --activations (its matmuls, the weights' "
                "working copy and the gradients; master weights and optimizer states are "
                "fp32): give --activations {value} to train in {value}").format(value=value)))
    params = {**_model_params(args), "phase": "train", "batch": args.batch,
              "global_batch": args.global_batch or 0,
              "data_parallel": 1 if args.data_parallel is None else args.data_parallel,
              "pipeline_parallel": 1 if args.pipeline_parallel is None else args.pipeline_parallel,
              "zero": 0 if args.zero is None else args.zero,
              "recompute": args.recompute or "none", "optimizer": args.optimizer or "adam",
              "train_tokens": args.tokens or 0.0}
    if args.sequence is not None:
        params["sequence"] = args.sequence
    flags = {"batch": "--batch", "chips_per_model": "--chips-per-model",
             "train_tokens": "--tokens"}

    def flag(path: str) -> str:
        return flags.get(path, "--" + path.replace("_", "-"))

    # Every problem at once: the settings' own, then (with those set aside) the model's and
    # those between the two, such as more pipeline stages than layers.
    own = Workload("w1", "", "transformer", {}, **params).problems()
    problems += [Problem(flag(p.path), p.message) for p in own]
    defaults = Workload("w1", "", "transformer", {}, phase="train")
    workload = None
    try:
        workload = model_from_file(args.model, **{
            k: getattr(defaults, k) if k in {p.path for p in own} else v for k, v in params.items()})
    except ValidationError as exc:
        problems += [Problem(flag(p.path) if p.path in params else f"{args.model}: {p.path}",
                             p.message) for p in exc.problems]
    except RooflineError as exc:
        problems.append(Problem("--model", str(exc)))
    if args.sequence is None and _is_transformer_config(args.model):
        problems.append(Problem("--sequence", _("training a transformer needs the sequence length S")))
    problems += _formats_lacking(args, ids, library)
    if problems:
        raise ValidationError(problems)
    chips = tuple(replace(library[c], id=f"c{i + 1}", preset=c) for i, c in enumerate(ids))
    if args.what_if:
        chips = with_what_ifs(chips, args.what_if)
    return _deliver(args, Document(chips=chips, workloads=(workload,)))


def _export_workloads(doc, path: str, *, derated: bool = False, same_width: bool = True) -> None:
    """``--export-workloads``: one evaluation, written as the CSV; then, on stderr, what the
    CSV cannot say in a number: rows left empty (and why) and models that do not fit in a
    chip's memory."""
    from roofline_gui.core.units import format_si
    from roofline_gui.core.workload_eval import evaluate_workloads
    from roofline_gui.core.workload_view import explain_workload
    from roofline_gui.io.csv_export import write_workloads_csv

    results = evaluate_workloads(doc.workloads, doc.chips, derated=derated,
                                 kernels=doc.kernels_by_id, same_width=same_width)
    rows = write_workloads_csv(results, path)
    print(_wrote(rows, path), file=sys.stderr)
    for r in results:
        for c, chip in enumerate(r.chips):
            if not r.time[c] == r.time[c]:  # NaN: the row's numbers are empty
                print(_("note: {text}").format(text=explain_workload(r, c)[0]), file=sys.stderr)
            elif r.training is not None and not r.fits[c]:
                from roofline_gui.core.training_view import fit_changes

                fixes = fit_changes(r.workload, float(r.capacity[c]), doc.kernels_by_id)
                facts = {"workload": r.workload.name, "chip": chip.name,
                         "states": format_si(r.training.state_bytes, "B"),
                         "activations": format_si(r.training.activation_bytes, "B"),
                         "capacity": format_si(float(r.capacity[c]), "B"),
                         "fixes": _("; or ").join(fixes)}
                print((_("note: {workload} on {chip} does not fit: each chip holds {states} of "
                         "weights, gradients and optimizer states and {activations} of "
                         "activations, more than its {capacity}; it would fit with {fixes}")
                       if fixes else
                       _("note: {workload} on {chip} does not fit: each chip holds {states} of "
                         "weights, gradients and optimizer states and {activations} of "
                         "activations, more than its {capacity}")).format(**facts), file=sys.stderr)
            elif r.built.resident_bytes == r.built.resident_bytes and not r.fits[c]:
                print(_("note: {workload} on {chip} does not fit: each chip must hold {held} of "
                        "its {capacity}; it needs at least {n} chips (--chips-per-model)").format(
                    workload=r.workload.name, chip=chip.name,
                    held=format_si(r.built.resident_bytes, "B"),
                    capacity=format_si(float(r.capacity[c]), "B"), n=r.chips_needed(c)),
                    file=sys.stderr)


def with_what_ifs(chips, specs: list[str]) -> tuple:
    """``chips`` with each ``--what-if ID:ROLE=FACTOR,...`` derived chip after its original, in
    the order given; a bad one raises ValidationError naming it."""
    from roofline_gui.core.chip import derive
    from roofline_gui.core.errors import Problem

    out, problems = list(chips), []
    for n, spec in enumerate(specs):
        name, _colon, changes = spec.partition(":")
        original = next((c for c in chips if name in (c.id, c.name, getattr(c, "preset", None))),
                        None)
        if original is None or not changes:
            problems.append(Problem("--what-if", f"{spec!r}: " + (
                _("no chip {name} here (a session chip's id or name, or a preset id of "
                  "--chips)").format(name=repr(name))
                if original is None else _("give ROLE=FACTOR after the colon, e.g. dram=2"))))
            continue
        factors = {}
        for part in changes.split(","):
            role, _equals, value = part.partition("=")
            try:
                factors[role.strip()] = float(value)
            except ValueError:
                problems.append(Problem("--what-if", _("{spec}: {part} is not ROLE=FACTOR").format(
                    spec=repr(spec), part=repr(part))))
        try:
            derived = derive(original, factors, chip_id=f"what-if-{n + 1}")
        except ValueError as exc:
            problems.append(Problem("--what-if", f"{spec!r}: {exc}"))
            continue
        at = max(i for i, c in enumerate(out) if c is original or c.id.startswith("what-if-")
                 and c.derived_from == original.name) + 1
        out.insert(at, derived)
    if problems:
        raise ValidationError(problems)
    return tuple(out)


def run_headless(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from roofline_gui.io.csv_export import export_csv
    from roofline_gui.io.session import load_session

    given = [f"--{key.replace('_', '-')}" for key in MODEL_ONLY if getattr(args, key) is not None]
    if given:  # a session's workloads carry their own parameters
        return _fail(_("{options}: only with --model CONFIG.json (a session's workloads have "
                       "their own batch, lengths and precisions)").format(options=", ".join(given)))
    if not args.session:
        return _fail(_("an export needs a session file: roofline-explorer SESSION --export-csv "
                       "OUT (or --model CONFIG.json for --export-workloads)"))
    if args.width < 100 or args.width > 20000:
        return _fail(_("--width {width}: must be between 100 and 20000 pixels").format(
            width=args.width))
    doc = load_session(args.session)
    if args.what_if:
        doc = replace(doc, chips=with_what_ifs(doc.chips, args.what_if))
    if args.export_csv:
        rows = export_csv(doc, args.export_csv, derated=args.derated,
                          same_width=args.same_width)
        print(_wrote(rows, args.export_csv), file=sys.stderr)
    if args.export_png:
        from roofline_gui.widgets.chart.export import export_png_headless

        export_png_headless(doc, Path(args.export_png), args.width, derated=args.derated,
                            same_width=args.same_width)
        print(_("wrote {path}").format(path=args.export_png), file=sys.stderr)
    if args.export_workloads:
        _export_workloads(doc, args.export_workloads, derated=args.derated,
                          same_width=args.same_width)
    return 0


def run_measure(json_path: str | None, keep_preset: bool = False) -> int:
    """``--measure``: run the measurement, print a summary, optionally write JSON (with the
    measured chip in the session's chip format) and keep the chip as a user preset."""
    import time

    from roofline_gui.core.units import format_si
    from roofline_gui.io.files import dumps, write_atomic
    from roofline_gui.io.presets import save_user_chip, user_preset_id
    from roofline_gui.measure.machine import measure, measurement_file, to_chip

    start = time.perf_counter()
    result = measure(progress=lambda f, msg: print(f"[{f:4.0%}] {msg}", file=sys.stderr))
    chip = to_chip(result)
    # The measured chip's sources and notes are data (kept in presets and sessions): English
    # in every language; the report's own words are the interface's.
    print(_("{cpu}, {threads} threads, {seconds} s; {method}").format(
        cpu=result.cpu, threads=result.threads, seconds=f"{time.perf_counter() - start:.0f}",
        method=result.method))
    if result.fallback:
        print("  " + _("compiled kernels not used: {why}; numpy's kernels measured "
                       "instead").format(why=result.fallback))
    for level in chip.memory:
        print(f"  {level.name:6s} {format_si(level.bandwidth, 'B/s'):>12s}  ({level.role}; "
              f"{level.source.split(': ', 1)[-1]})")
    for precision, measured in chip.compute_measured.items():
        vector = result.vector(precision)
        gemm = next(c for c in result.compute if c.method == "gemm" and c.precision == precision)
        words = {"precision": precision, "peak": f"{format_si(measured.value, 'FLOP/s'):>12s}",
                 "vector": format_si(vector.rate, "FLOP/s"), "gemm": format_si(gemm.rate, "FLOP/s")}
        if result.theoretical is not None:
            peak = result.theoretical.peak(precision)
            line = _("{precision} peak  {peak}  (multiply-add kernel {vector}, BLAS GEMM {gemm}; "
                     "{share}× the theoretical {theoretical})").format(
                share=f"{measured.value / peak:.2f}", theoretical=format_si(peak, "FLOP/s"),
                **words)
        else:
            line = _("{precision} peak  {peak}  (multiply-add kernel {vector}, BLAS GEMM "
                     "{gemm})").format(**words)
        print("  " + line)
    if result.theoretical is not None:
        print("  " + _("theoretical: {formula}").format(formula=result.theoretical.formula("fp64")))
    for note in result.notes:
        print("  " + _("note: {note}").format(note=note))
    if json_path:
        try:
            write_atomic(json_path, dumps(measurement_file(result, chip)))
        except RooflineError as exc:
            return _fail(str(exc))
        print(_("wrote {path} (open it, or File → Import → Import chips from a file…, to use "
                "the chip)").format(path=json_path), file=sys.stderr)
    if keep_preset:
        try:
            preset_id = user_preset_id(chip.name)
            path = save_user_chip(chip, preset_id)
        except RooflineError as exc:
            return _fail(str(exc))
        print(_("kept as preset {preset} in {path}").format(preset=preset_id, path=path),
              file=sys.stderr)
    return 0


#: argparse's own words (Python's gettext has no Japanese catalog for them), in ours: argparse
#: looks them up through the translation installed for the command line (see main)
ARGPARSE_WORDS = (N_("usage: "), N_("options"), N_("positional arguments"),
                  N_("show this help message and exit"),
                  N_("show program's version number and exit"),
                  N_("%(prog)s: error: %(message)s\n"),
                  N_("argument %(argument_name)s: %(message)s"),
                  N_("invalid choice: %(value)r (choose from %(choices)s)"),
                  N_("invalid %(type)s value: %(value)r"),
                  N_("the following arguments are required: %s"),
                  N_("unrecognized arguments: %s"), N_("expected one argument"),
                  N_("ambiguous option: %(option)s could match %(matches)s"))


def main(argv: list[str] | None = None) -> int:
    from roofline_gui.io.translations import use_language  # noqa: PLC0415

    # The language first: the options' help and argparse's own words are in it. Messages of
    # the command line in --lang's language, else the locale's (the window chooses again at
    # start: View → Language's saved choice comes before the locale there).
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--lang", choices=tuple(LANGUAGES))
    chosen, _others = first.parse_known_args(argv)
    use_language(chosen.lang or language_from_locale(os.environ))
    argparse._ = _  # argparse's words through our catalog (it calls its module's _ and ngettext)
    argparse.ngettext = ngettext
    args = build_parser().parse_args(argv)
    if args.measure:
        return run_measure(args.json, args.keep_preset)
    if args.json or args.keep_preset:
        return _fail(_("{option} goes with --measure (roofline-explorer --measure --json "
                       "OUT.json)").format(option="--json" if args.json else "--keep-preset"))
    if args.self_test:
        from roofline_gui.widgets.app.self_test import run_self_test

        return run_self_test()
    try:
        if args.list_presets:
            try:
                list_presets()
                sys.stdout.flush()  # here, where a reader that went away can be told apart
                return 0
            except BrokenPipeError:  # `--list-presets | head`: the reader stopped; not an error
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                return 0
        if args.model:
            return run_model(args)
        if args.export_csv or args.export_png or args.export_workloads:
            return run_headless(args)
    except ValidationError as exc:
        return _fail(str(exc))
    except RooflineError as exc:
        return _fail(str(exc))
    from roofline_gui.platform_check import startup_problem

    problem = startup_problem()
    if problem:
        print(f"roofline-explorer: {problem}", file=sys.stderr)
        return EXIT_NO_WINDOW
    return start_window(args.session, language=args.lang)


def start_window(session: str | None = None, on_shown=None, language: str | None = None,
                 document=None) -> int:
    """The desktop app (``launch.run_app``), prepared as ``widgets.app.startup`` says: the
    garbage collector off until the window is complete, and PySide6's source scan of every
    later import skipped. ``on_shown`` (a callable given the window once shown) is for
    benchmarks/bench_gui.py, which times this same start. ``document``: (a Document, the
    file it came from), opened as an untitled session (``--model`` without an export)."""
    from roofline_gui.widgets.app.startup import prepare_start

    prepare_start()
    from roofline_gui.widgets.app.launch import run_app

    return run_app(session, on_shown=on_shown, language=language, document=document)


if __name__ == "__main__":
    sys.exit(main())
