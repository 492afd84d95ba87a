"""The translations stay complete: every text marked in the sources has a finished Japanese
translation with the same placeholders, the catalog holds nothing the sources no longer say, the
app reads the catalog as Babel does, and no function hides ``_`` behind a variable of its own.
Extraction is Babel's, as a translator runs it (docs/translating.md)."""

from __future__ import annotations

import ast
import math
import re
import string
from pathlib import Path

import pytest

babel_extract = pytest.importorskip("babel.messages.extract")
pofile = pytest.importorskip("babel.messages.pofile")

from roofline_gui.core import i18n  # noqa: E402
from roofline_gui.io.translations import catalog_path, read_po, use_language  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "roofline_gui"


def _extracted() -> dict[str, str]:
    """{message: where} of every text marked with _, N_ or ngettext in the package (a plural
    message by its singular)."""
    found = {}
    for filename, lineno, message, _comments, _context in babel_extract.extract_from_dir(
            str(PACKAGE), method_map=[("**.py", "python")],
            keywords={"_": None, "N_": None, "ngettext": (1, 2)}):
        key = message[0] if isinstance(message, tuple) else message
        if key:
            found.setdefault(key, f"{filename}:{lineno}")
    return found


def _forms(message) -> tuple[str, ...]:
    return message.string if isinstance(message.string, tuple) else (message.string,)


@pytest.fixture(scope="module")
def extracted():
    return _extracted()


@pytest.fixture(scope="module")
def catalog():
    with open(catalog_path("ja"), "rb") as f:
        return pofile.read_po(f, locale="ja")


def _fields(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name is not None}


def test_every_marked_text_has_a_finished_japanese_translation(extracted, catalog):
    assert len(extracted) > 300
    missing = [f"{where}: {m!r}" for m, where in extracted.items()
               if not catalog.get(m) or not all(_forms(catalog.get(m)))]
    fuzzy = [f"{where}: {m!r}" for m, where in extracted.items()
             if catalog.get(m) and catalog.get(m).fuzzy]
    assert not missing, "untranslated (pybabel update, then translate):\n" + "\n".join(missing)
    assert not fuzzy, "unfinished (fuzzy: check and clear the flag):\n" + "\n".join(fuzzy)


def test_the_catalog_holds_nothing_the_sources_no_longer_say(extracted, catalog):
    stale = [m.id for m in catalog if m.id and (m.id[0] if isinstance(m.id, tuple) else m.id)
             not in extracted]
    assert not stale, "stale (pybabel update drops them to #~):\n" + "\n".join(map(repr, stale))


def test_each_translation_keeps_its_placeholders_and_numbers(extracted, catalog):
    """Named placeholders the same (a translation puts them in its own order); a format
    string that is not one would fail at .format(); numbers and units unchanged."""
    wrong = []
    for m in catalog:
        if not m.id or not all(_forms(m)):
            continue
        source = m.id[0] if isinstance(m.id, tuple) else m.id
        for text in _forms(m):
            try:
                same = _fields(source) == _fields(text)
            except ValueError as exc:
                wrong.append(f"{source!r}: {exc}")
                continue
            if not same:
                wrong.append(f"{source!r}: {sorted(_fields(source))} against {sorted(_fields(text))}")
            numbers = re.findall(r"\d+(?:\.\d+)?", re.sub(r"\{[^}]*\}", "", source))
            if any(n not in text for n in numbers):
                wrong.append(f"{source!r}: its numbers {numbers} not all in {text!r}")
    assert not wrong, "\n".join(wrong)


def test_the_app_reads_the_catalog_as_babel_does(catalog):
    ours = read_po(catalog_path("ja"))
    theirs = {(m.id[0] if isinstance(m.id, tuple) else m.id): m.string
              for m in catalog if m.id and all(_forms(m)) and not m.fuzzy}
    assert ours == theirs


def test_a_fuzzy_or_empty_entry_shows_the_english(tmp_path):
    po = tmp_path / "x.po"
    po.write_text('msgid ""\nmsgstr ""\n"Language: ja\\n"\n\n#, fuzzy\nmsgid "Save"\nmsgstr "保存"\n\n'
                  'msgid "Open"\nmsgstr ""\n\nmsgid "Line one\\n"\n"two"\nmsgstr "一行目\\n"\n"二"\n\n'
                  '#~ msgid "Gone"\n#~ msgstr "消えた"\n\n'
                  'msgid "{n} row"\nmsgid_plural "{n} rows"\nmsgstr[0] "{n} 行"\n', encoding="utf-8")
    assert read_po(po) == {"Line one\ntwo": "一行目\n二", "{n} row": ("{n} 行",)}


def test_no_function_hides_the_translation_function(extracted):
    """A function that binds ``_`` (``for _ in …``, ``a, _ = …``, a parameter) makes every
    ``_("…")`` in it call that instead, or fail: ruff finds the loops, this the rest."""
    bad = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "_"
                       for n in ast.walk(fn)):
                continue
            a = fn.args
            params = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x]
            if "_" in params or any(isinstance(n, ast.Name) and n.id == "_"
                                    and isinstance(n.ctx, ast.Store) for n in ast.walk(fn)):
                bad.append(f"{path.relative_to(ROOT)}:{fn.lineno}")
    assert not bad, bad


def test_module_level_texts_are_marked_not_translated():
    """A text translated at import time is translated before a language is chosen (the window
    chooses at start): module-level tables mark with N_ and translate where shown."""
    bad = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inside = set()
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                inside.update(id(n) for n in ast.walk(fn))
        for n in ast.walk(tree):
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "_"
                    and id(n) not in inside):
                bad.append(f"{path.relative_to(ROOT)}:{n.lineno}")
    assert not bad, bad


def test_the_language_comes_from_the_locale():
    assert i18n.language_from_locale({"LANG": "ja_JP.UTF-8"}) == "ja"
    assert i18n.language_from_locale({"LANG": "de_DE.UTF-8"}) == "en"
    assert i18n.language_from_locale({"LANG": "C.UTF-8"}) == "en"
    assert i18n.language_from_locale({"LC_ALL": "ja_JP.eucJP", "LANG": "en_US.UTF-8"}) == "ja"
    assert i18n.language_from_locale({"LANGUAGE": "ja:en", "LANG": "en_US.UTF-8"}) == "ja"
    assert i18n.language_from_locale({}) == "en"


def test_installing_japanese_translates_and_english_restores():
    try:
        assert use_language("ja") == "ja" and i18n.language() == "ja"
        assert i18n._("&File") != "&File" and "&F" in i18n._("&File")
        assert i18n._("a text nobody marked") == "a text nobody marked"
        one, many = (i18n.ngettext("{n} chip", "{n} chips", n) for n in (1, 8))
        assert one == many and "{n}" in one and "chip" not in one  # one form in Japanese
    finally:
        use_language("en")
    assert i18n._("&File") == "&File" and i18n.language() == "en"
    assert i18n.ngettext("{n} chip", "{n} chips", 1) == "{n} chip"
    assert i18n.ngettext("{n} chip", "{n} chips", 2) == "{n} chips"


def test_the_explanation_reads_in_japanese_with_the_same_numbers():
    """Why it sits there, kernel by kernel on both chips of the first example: the Japanese
    text carries exactly the English text's numbers (a translation that dropped or changed one
    would fail), and its sentences are Japanese."""
    from roofline_gui.core.comparison import compare
    from roofline_gui.core.explain import explain
    from roofline_gui.core.units import Units
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "a100-vs-tpu-v3.roofline")
    cmp = compare(doc.kernels, doc.chips)
    number = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
    for units in (Units(), Units(bytes_per_op=True)):
        english = {(k, c): "\n".join(explain(cmp, k, c, units))
                   for k in range(len(cmp.kernels)) for c in range(len(cmp.chips))}
        try:
            use_language("ja")
            japanese = {key: "\n".join(explain(cmp, *key, units)) for key in english}
        finally:
            use_language("en")
        for key, text in english.items():
            assert sorted(number.findall(text)) == sorted(number.findall(japanese[key])), key
            assert japanese[key] != text and re.search(r"[\u3040-\u30ff]", japanese[key]), key


def test_every_examples_title_is_marked_for_the_menu():
    """Help → Examples reads each example's title in the interface's language: every shipped
    example's title is among the marked ones (a new example without one would show English)."""
    from roofline_gui.widgets.app.file_actions import EXAMPLE_TITLES, example_title, examples

    assert {example_title(p) for p in examples()} <= set(EXAMPLE_TITLES)


def test_a_workloads_explanation_reads_in_japanese_with_the_same_numbers():
    """Why it sits there for a workload (the Llama-3-8B example's decode and prefill on its
    three chips, the training example's steps): the Japanese text carries exactly the English
    text's numbers."""
    from roofline_gui.core.workload_eval import evaluate_workloads
    from roofline_gui.core.workload_view import explain_workload
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    results = []
    for name, same_width in (("llama-3-8b-on-three-chips", False),
                             ("training-fp32-against-bf16", True)):  # claims 6 and 7 in training
        doc = load_session(resources_dir() / "examples" / f"{name}.roofline")
        results += evaluate_workloads(doc.workloads, doc.chips, same_width=same_width)
    number = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
    english = {(i, c): explain_workload(r, c) for i, r in enumerate(results)
               for c in range(len(r.chips))}
    try:
        use_language("ja")
        japanese = {(i, c): explain_workload(results[i], c) for i, c in english}
    finally:
        use_language("en")
    for key, lines in english.items():
        assert len(lines) == len(japanese[key]), key
        for en, ja in zip(lines, japanese[key], strict=True):
            assert sorted(number.findall(en)) == sorted(number.findall(ja)), (en, ja)
        if math.isfinite(results[key[0]].time[key[1]]):  # (an unsupported training step: English)
            assert any(re.search(r"[\u3040-\u30ff]", line) for line in japanese[key]), key


def test_the_serving_frontier_reads_in_japanese_with_the_same_numbers():
    """The Serving view's words for each chip of the serving example (the ranking, why the
    first leads, the best point, where the time goes, what would move it) and a measured point
    against its bound: in Japanese with exactly the English numbers."""
    from roofline_gui.core.serving import measured_lines, serve, serving_lines, spec_of
    from roofline_gui.core.workload import MeasuredServing
    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session

    doc = load_session(resources_dir() / "examples" / "serving-70b-and-r1-at-50-ms.roofline")
    number = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
    points = [MeasuredServing("B200", 30.0, 900.0, "a test"), MeasuredServing("nowhere", 1, 1)]
    for w in doc.workloads:
        r = serve(w, doc.chips, spec_of(w))
        english = [serving_lines(r, c) for c in range(len(doc.chips))] + [measured_lines(r, points)]
        try:
            use_language("ja")
            japanese = [serving_lines(r, c) for c in range(len(doc.chips))] + [
                measured_lines(r, points)]
        finally:
            use_language("en")
        for en_lines, ja_lines in zip(english, japanese, strict=True):
            assert len(en_lines) == len(ja_lines)
            for en, ja in zip(en_lines, ja_lines, strict=True):
                assert sorted(number.findall(en)) == sorted(number.findall(ja)), (en, ja)
                assert re.search(r"[\u3040-\u30ff]", ja), ja


def test_the_command_line_speaks_the_chosen_language(capsys, tmp_path):
    """--lang ja: the options' help, argparse's own words and the command line's refusals in
    Japanese (argparse's were English whatever the catalog held); English again without it."""
    from roofline_gui.__main__ import main

    try:
        with pytest.raises(SystemExit):
            main(["--lang", "ja", "--help"])
        help_text = capsys.readouterr().out
        assert help_text.startswith("使い方: ") and "このヘルプを表示して終了" in help_text
        assert "比較表を書き出して終了" in help_text  # --export-csv's own help
        with pytest.raises(SystemExit) as exit_:
            main(["--lang", "ja", "--phase", "bogus"])
        assert exit_.value.code == 2
        assert "エラー: 引数 --phase: 不正な選択: 'bogus'" in capsys.readouterr().err
        out = str(tmp_path / "out.csv")
        assert main(["--lang", "ja", "--width", "5", "s.roofline", "--export-csv", out]) == 2
        assert "--width 5: 100 から 20000 ピクセルの間にしてください" in capsys.readouterr().err
    finally:
        use_language("en")
    assert main(["--lang", "en", "--width", "5", "s.roofline", "--export-csv", out]) == 2
    assert "--width 5: must be between 100 and 20000 pixels" in capsys.readouterr().err


def _built_texts(built) -> list[str]:
    """Every text a built workload shows: its kernels' names and steps, the notes, what is held
    and what crosses the link."""
    return ([e.kernel.name for e in built.entries] + [s for e in built.entries for s in e.steps]
            + list(built.notes) + list(built.resident_steps) + list(built.link_steps))


def test_the_model_builders_formulas_read_in_japanese_with_the_same_numbers():
    """The workload pane's kernel list and "How it is counted" for every shipped model (MoE,
    MLA, sliding windows and chunks, block-scaled weights, an MTP module, expert and tensor
    parallelism) in decode, prefill and training, and for a CNN, an MLP and an LSTM: in
    Japanese with exactly the English numbers, line by line."""
    from dataclasses import replace

    from roofline_gui.core.build import build
    from roofline_gui.core.workload import Workload
    from roofline_gui.io.workloads import shipped_workloads

    workloads = []
    for shipped in shipped_workloads().values():
        w = shipped.workload()
        if w.kind != "transformer":
            workloads.append(w)
            if w.kind in ("cnn", "mlp"):
                workloads.append(replace(w, phase="train", activations="bf16", data_parallel=4,
                                         global_batch=16 * w.batch, zero=2, pipeline_parallel=2))
            continue
        heads = w.spec.get("num_key_value_heads") or w.spec.get("num_attention_heads") or 1
        n = 8 if heads % 8 == 0 or "kv_lora_rank" in w.spec else 1
        moe = any(k in w.spec for k in ("n_routed_experts", "num_experts", "num_local_experts"))
        workloads += [
            replace(w, phase="decode", batch=16, context=200_000, chips_per_model=n,
                    expert_parallel=n if moe else 1, weights="mxfp4",
                    mtp="num_nextn_predict_layers" in w.spec),
            replace(w, phase="prefill", batch=2, sequence=8192, attention_data_parallel=n > 1,
                    chips_per_model=n),
            replace(w, phase="train", batch=1, sequence=4096, chips_per_model=n,
                    data_parallel=8, global_batch=64, zero=3, recompute="selective",
                    activations="bf16", weights="bf16", kv_cache="bf16")]
    workloads += [Workload("m", "MLP", "mlp", {"widths": [784, 4096, 10]}, batch=64),
                  Workload("l", "LSTM", "lstm", {"layers": 2, "input": 512, "hidden": 1024,
                                                 "steps": 20}, batch=8)]
    number = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
    english = [_built_texts(build(w)) for w in workloads]
    try:
        use_language("ja")
        japanese = [_built_texts(build(w)) for w in workloads]
    finally:
        use_language("en")
    for w, en_lines, ja_lines in zip(workloads, english, japanese, strict=True):
        assert len(en_lines) == len(ja_lines), w.name
        for en, ja in zip(en_lines, ja_lines, strict=True):
            assert sorted(number.findall(en)) == sorted(number.findall(ja)), (en, ja)
        words = [line for line in ja_lines if re.search(r"[a-z]{4,} [a-z]{4,} [a-z]{4,}", line)
                 and not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", line)]
        assert not words, (w.name, words[:3])  # no English sentence left


def test_every_example_has_a_japanese_version_with_the_same_numbers():
    """Help → Examples in Japanese: every example in Japanese in its place, the same chips,
    kernels and workloads (only their names, notes and the title in Japanese), each note with
    at least the English note's numbers."""
    import json

    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.session import load_session
    from roofline_gui.widgets.app.file_actions import examples

    folder = resources_dir() / "examples"
    english = [p for p in sorted(folder.glob("*.roofline")) if not p.name.endswith(".ja.roofline")]
    number = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
    kana = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
    words = ("title", "name", "source")
    for path in english:
        japanese = path.with_name(path.name.replace(".roofline", ".ja.roofline"))
        assert japanese.exists(), path.name
        en, ja = (json.loads(p.read_text(encoding="utf-8")) for p in (path, japanese))

        def bare(doc):  # everything but the words a reader reads
            return {k: ([{f: v for f, v in item.items() if f not in words} for item in doc[k]]
                        if isinstance(doc[k], list) else doc[k]) for k in doc if k not in words}
        assert bare(en) == bare(ja), path.name
        assert kana.search(ja["title"]), path.name
        for part in ("kernels", "workloads"):
            for a, b in zip(en[part], ja[part], strict=True):
                assert kana.search(b["name"]) or "（" in b["name"] or a["name"] == b["name"], b["name"]
                note = a.get("source", "").split("Jouppi")[0]
                assert set(number.findall(note)) <= set(number.findall(b.get("source", ""))), \
                    (path.name, a["id"])
                assert not note or kana.search(b["source"]), (path.name, a["id"])
        load_session(japanese)  # a valid session
    from roofline_gui.widgets.app.file_actions import example_named

    try:
        use_language("ja")
        shown = examples()
        first = example_named("a100-vs-tpu-v3")  # what the first start opens (it opened none)
    finally:
        use_language("en")
    assert len(shown) == len(english) and all(p.name.endswith(".ja.roofline") for p in shown)
    assert first is not None and first.name == "a100-vs-tpu-v3.ja.roofline"
    assert example_named("a100-vs-tpu-v3").name == "a100-vs-tpu-v3.roofline"


def test_a_japanese_kernel_name_follows_its_batch_and_precision():
    """Dragging a kernel named in Japanese ("MLP 層 …、バッチ 1（bf16）") renames it as an
    English name would be: the batch and the precision follow."""
    from roofline_gui.core.kernel import Kernel

    kernel = Kernel(id="k", name="MLP 層 4096×4096、バッチ 1（bf16）", precision="bf16",
                    template="mlp", params={"batch": 1, "d_in": 4096, "d_out": 4096})
    try:
        use_language("ja")
        moved = kernel.with_params(batch=64).with_precision("fp8")
    finally:
        use_language("en")
    assert moved.name == "MLP 層 4096×4096、バッチ 64（fp8）"
    english = Kernel(id="k", name="MLP layer, batch 1 (bf16)", precision="bf16", template="mlp",
                     params={"batch": 1, "d_in": 4096, "d_out": 4096})
    assert english.with_params(batch=8).with_precision("fp8").name == "MLP layer, batch 8 (fp8)"


def test_the_catalog_keeps_to_the_glossary(catalog):
    """One word for one thing (docs/translating.md's glossary): the variants it rules out
    appear in no translation."""
    avoided = {"到達可能割合": "達成率", "採択": "受理", "メモリ帯域": "メモリバンド幅",
               "帯域幅": "バンド幅"}
    texts = [t for message in catalog if message.id for t in _forms(message)]
    for variant, word in avoided.items():
        hits = [t for t in texts if variant in t]
        assert not hits, (variant, word, hits[:3])


def test_the_workload_panes_counting_reads_in_japanese():
    """The workload pane's "how it is counted" (its label, parameters, the family it was read
    as, each kernel's traffic, the link and what is held): no English sentence left."""
    from dataclasses import replace

    from roofline_gui.io.workloads import shipped_workloads
    from roofline_gui.widgets.panels.workloads.formulas import entries_html

    shipped = shipped_workloads()
    cases = [replace(shipped["deepseek-v3"].workload(), source="", chips_per_model=8,
                     expert_parallel=8, batch=64, context=4096),
             replace(shipped["llama-3-8b"].workload(), source="", phase="train", batch=1,
                     sequence=4096, data_parallel=8, global_batch=64)]
    try:
        use_language("ja")
        texts = [re.sub(r"<[^>]+>", "\n", entries_html(w)) for w in cases]
    finally:
        use_language("en")
    for text in texts:
        english = [line for line in text.splitlines()
                   if re.search(r"\b[a-z]{3,} [a-z]{3,} [a-z]{3,}\b", line)
                   and not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", line)]
        assert not english, english[:3]
        assert "デコード" in texts[0] and "学習" in texts[1]


def test_the_preset_kernels_read_in_japanese_in_a_japanese_interface():
    """The kernel library in Japanese names every preset kernel and its note in Japanese
    (resources/presets/kernels.ja.json), the same kernels with at least the English notes'
    numbers; in English, as kernels.json says them."""
    from roofline_gui.io.presets import load_presets

    english = load_presets().kernels
    try:
        use_language("ja")
        japanese = load_presets().kernels
    finally:
        use_language("en")
    assert english.keys() == japanese.keys()
    number = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
    for preset_id, en in english.items():
        ja = japanese[preset_id]
        assert (ja.params, ja.precision, ja.template, ja.bytes, ja.flops, ja.intensity) == (
            en.params, en.precision, en.template, en.bytes, en.flops, en.intensity)
        assert ja.name != en.name and set(number.findall(en.name)) == set(number.findall(ja.name))
        assert set(number.findall(en.source)) <= set(number.findall(ja.source)), preset_id
        assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", ja.source), preset_id
    assert load_presets().kernels["add-int8"].name == "out = a + b (int8)"


def test_no_stray_space_between_japanese_words(catalog):
    """Japanese writes no space between words: a space between two Japanese characters
    ("ボード電力全体を ひとつの", "64 トークン は") is a slip, except after a menu path ("表示 →
    メモリ階層 で", where it ends the path) and after a colour's name ("青 順伝播")."""
    japanese = r"[\u3040-\u30ff\u4e00-\u9fff、。「」（）]"
    stray = re.compile(rf"(?<={japanese}) (?={japanese})")
    colours = ("青", "橙", "紫", "緑", "灰", "薄灰", "赤", "黄")
    slips = []
    for message in catalog:
        for text in _forms(message) if message.id else ():
            for m in stray.finditer(text):
                before = text[max(0, m.start() - 25):m.start()]
                arrow = before.rfind("→")
                if arrow >= 0 and not re.search(r"[、。（）「」:：]", before[arrow:]):
                    continue
                if re.split(r"[、。（）「」:： ]", before)[-1] in colours:
                    continue
                slips.append(text[max(0, m.start() - 12):m.end() + 12])
            # one colon (the ASCII one, as most of the catalog and the user guide write it)
            # and no space before a full-width bracket or after 。 and 、
            slips += re.findall(r".{0,12}(?:：|\S （|[。、] \S).{0,12}", text)
    assert not slips, slips[:5]


def test_tidy_joins_japanese_words_a_placeholder_left_apart():
    """A filled-in placeholder leaves a space before a particle ("8 チップ で"): the
    explanation's Japanese is tidied; English, menu paths and colour keys are left as they
    are."""
    try:
        use_language("ja")
        assert i18n.tidy("8 チップ でトークンあたり 1.566 J") == "8 チップでトークンあたり 1.566 J"
        assert i18n.tidy("表示 → メモリ階層 で点を描きます") == "表示 → メモリ階層 で点を描きます"
        assert i18n.tidy("（青 順伝播、橙 逆伝播）") == "（青 順伝播、橙 逆伝播）"
        assert i18n.tidy("ε 0.641 pJ （推定値）。 EPYC") == "ε 0.641 pJ（推定値）。EPYC"
    finally:
        use_language("en")
    assert i18n.tidy("8 chips in all") == "8 chips in all"


def test_the_command_lines_japanese_help_breaks_between_words():
    """argparse's textwrap cut the Japanese help inside "SESSION" and counted a Japanese
    character as one column: lines break between Japanese characters or at spaces, never
    inside a Latin word, fit the width (a Japanese character takes two columns), and none
    starts with a closing bracket or a comma."""
    from roofline_gui.__main__ import wrap_words

    text = ("実行中のカーネルのうち最も時間のかかるもの（支配的なカーネル）。SESSION があれば"
            "そのワークロード、--model なら 1 モデル（--sequence が必要）、長さ L の KV キャッシュ")
    lines = wrap_words(text, 30)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert any("SESSION" in line for line in lines) and all("--model" in line or "--mod" not in line
                                                          for line in lines)
    for line in lines:
        width = sum(2 if re.match("[\u2e80-\u9fff\uff00-\uffef]", ch) else 1 for ch in line)
        assert width <= 34 and line[0] not in "）」、。", line  # (a closing mark may hang)
        assert line[-1] not in "（「", line


def test_a_list_whose_items_hold_its_mark_is_joined_as_clauses():
    """The Energy tab listed "A100 SXM4 40GB, A100 SXM4 40GB, HBM2 ×2, TPU v1": a what-if
    chip's name holds a comma, and the list read as four chips (the 40th tour)."""
    assert i18n.listed(["A100", "TPU v1"]) == "A100, TPU v1"
    assert i18n.listed(["A100", "A100, HBM2 ×2", "TPU v1"]) == "A100; A100, HBM2 ×2; TPU v1"
    assert i18n.listed(iter(["a", "b"])) == "a, b"  # any iterable, once
    try:
        use_language("ja")
        assert i18n.listed(["A100", "A100, HBM2 ×2"]) == "A100、A100, HBM2 ×2"  # 、 is apart
    finally:
        use_language("en")
