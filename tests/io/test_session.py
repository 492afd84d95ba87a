import copy
import json
import os
from dataclasses import replace

import pytest
from conftest import DATA

from roofline_gui.core.errors import RooflineError, SessionVersionError, ValidationError
from roofline_gui.io.presets import default_presets
from roofline_gui.io.session import (
    VERSION,
    dump_session,
    load_session,
    loads_session,
    parse_session,
    save_session,
    session_to_dict,
)


def test_minimal_v1_form_from_the_spec_loads_exactly_as_written():
    doc = load_session(DATA / "session_v1.json")
    a100, tpu = doc.chips
    assert a100.name == "A100 40GB"
    assert a100.compute == {"fp32": 19.5e12, "bf16": 312e12}
    assert [(lv.role, lv.name, lv.bandwidth) for lv in a100.memory] == [
        ("dram", "HBM2", 1.555e12), ("host", "PCIe 4.0 x16", 32e9)]
    assert tpu.preset == "google-tpu-v3"
    assert tpu.compute == default_presets().chips["google-tpu-v3"].compute
    spmv, add, gemm = doc.kernels
    assert (spmv.name, spmv.precision, spmv.intensity) == ("SpMV", "fp64", 0.25)
    assert (add.flops, add.bytes) == (1e9, {"dram": 3e9})
    assert (gemm.template, gemm.params, gemm.precision) == (
        "gemm", {"m": 4096, "n": 4096, "k": 4096}, "bf16")
    # The v1 -> v2 migration gives stable ids in file order.
    assert [c.id for c in doc.chips] == ["c1", "c2"]
    assert [k.id for k in doc.kernels] == ["k1", "k2", "k3"]


def test_frozen_v2_fixture_loads_and_equals_the_migrated_v1():
    """Equal but for energy: version 1 names its TPU v3 by preset id, which brings the preset's
    board power today (version 8); the frozen version 2 file wrote the chip out whole, without."""
    from dataclasses import replace

    v1, v2 = load_session(DATA / "session_v1.json"), load_session(DATA / "session_v2.json")
    assert [c.energy and c.energy.board_power for c in v1.chips] == [None, 450.0]
    assert all(c.energy is None for c in v2.chips)
    assert replace(v1, chips=tuple(replace(c, energy=None) for c in v1.chips)) == v2


def test_save_and_load_round_trip_is_identical(tmp_path):
    doc = load_session(DATA / "session_v1.json")
    path = tmp_path / "s.roofline"
    save_session(doc, path)
    assert load_session(path) == doc
    assert json.loads(path.read_text())["version"] == VERSION


def test_example_sessions_round_trip(tmp_path):
    from roofline_gui.io.files import resources_dir

    examples = sorted((resources_dir() / "examples").glob("*.roofline"))
    assert examples
    for example in examples:
        doc = load_session(example)
        assert doc.chips and (doc.kernels or doc.workloads)
        assert loads_session(dump_session(doc)) == doc


def test_a_file_with_several_mistakes_reports_every_one_with_its_path():
    bad = {
        "format": "roofline-session", "version": 2,
        "chips": [{"id": "a", "name": "X", "compute": {"fp32": "fast"},
                   "memory": [{"role": "dram", "name": "M", "bandwidth": -1}]},
                  {"id": "a", "preset": "google-tpu-v3"},
                  {"id": "b", "preset": "no-such-chip"}],
        "kernels": [{"id": "k", "name": "G", "template": "gemm", "precision": "bf16",
                     "params": {"m": 0}},
                    {"id": "k2", "name": "T", "template": "warp", "precision": "fp32"},
                    {"id": "k3", "name": "S", "precision": "fp99", "flops": 1, "bytes": {}}],
    }
    with pytest.raises(ValidationError) as info:
        loads_session(json.dumps(bad).encode())
    paths = {p.path for p in info.value.problems}
    assert paths == {
        "chips[0].compute.fp32", "chips[0].memory[0].bandwidth", "chips[1].id",
        "chips[2].preset", "kernels[0].params.m", "kernels[1].template",
        "kernels[2].precision", "kernels[2].bytes.dram",
    }
    assert "kernels[0].params.m: must be a positive integer" in str(info.value)


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (b"", "not valid JSON: the file is empty"),
        (b'{"format": "roofline-session", "version": 1, "chips": [', r"not valid JSON: .*cut short"),
        (b'{"format": 1', r"not valid JSON: .*cut short"),
        (b'{"format": 1 "version": 1}', "not valid JSON: Expecting ','"),
        (b"[1, 2]", "must be an object"),
        (b'{"format": "something-else"}', "not a Roofline Explorer session"),
        (b'{"format": "roofline-session", "version": "1"}', "version"),
        (b'{"format": "roofline-session", "version": 1, "chips": [{"name": "x", '
         b'"compute": {"fp32": NaN}, "memory": []}]}', "NaN is not allowed"),
        (b'{"format": "roofline-session", "version": 1, "kernels": [{"name": "x", '
         b'"precision": "fp32", "intensity": 1e400}]}', "finite"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[" * 100000 + b"]" * 100000, "nested too deeply"),
    ],
)
def test_bad_files_are_refused_with_a_reason(raw, fragment):
    with pytest.raises(ValidationError, match=fragment):
        loads_session(raw)


def test_newer_version_says_so():
    raw = json.dumps({"format": "roofline-session", "version": VERSION + 1}).encode()
    with pytest.raises(SessionVersionError, match="newer"):
        loads_session(raw)


def test_a_folder_or_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(RooflineError, match="is a folder"):
        load_session(tmp_path)
    with pytest.raises(RooflineError, match="cannot read"):
        load_session(tmp_path / "missing.json")


def test_failed_save_keeps_the_old_file(tmp_path, monkeypatch):
    doc = load_session(DATA / "session_v1.json")
    path = tmp_path / "s.roofline"
    save_session(doc, path)
    before = path.read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(RooflineError, match="No space left"):
        save_session(replace(doc, title="changed"), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["s.roofline"]  # no temp file left behind


def test_session_strings_are_data(tmp_path):
    doc = load_session(DATA / "session_v1.json")
    doc = replace(doc, title="<b>x</b> __import__('os')")
    assert loads_session(dump_session(doc)).title == "<b>x</b> __import__('os')"
    assert session_to_dict(doc)["title"] == doc.title


def test_files_validate_against_the_published_json_schema():
    import jsonschema

    from roofline_gui.io.files import resources_dir
    from roofline_gui.io.schema import SCHEMA_PATH, reference_problems, schema_text

    # The published file is the generator's output, not a second hand-written definition.
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), (
        "docs/session.schema.json is stale: run python -m roofline_gui.io.schema")
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    files = [DATA / "session_v1.json", DATA / "session_v2.json", DATA / "session_v5.json",
             DATA / "session_v6.json",
             *sorted((resources_dir() / "examples").glob("*.roofline"))]
    for path in files:
        data = json.loads(path.read_text())
        jsonschema.validate(data, schema)
        assert reference_problems(data) == []
        doc = loads_session(path.read_bytes())  # and what the app saves validates too
        jsonschema.validate(session_to_dict(doc), schema)


def test_typos_and_mixed_kernel_forms_are_refused_by_name():
    """A misspelt key used to be dropped silently (the schema refused it; the loader did not)."""
    base = json.loads((DATA / "session_v2.json").read_text())
    typo = copy.deepcopy(base)
    typo["chips"][0]["memory"][0]["bandwith"] = 1e12
    with pytest.raises(ValidationError, match=r"memory\[0\]\.bandwith.*unknown key"):
        loads_session(json.dumps(typo).encode())
    mixed = copy.deepcopy(base)
    kernel = next(k for k in mixed["kernels"] if "flops" in k)
    kernel["intensity"] = 4.0
    with pytest.raises(ValidationError, match="intensity: belongs to a kernel given by"):
        loads_session(json.dumps(mixed).encode())


def test_measured_ceilings_survive_a_save_and_load(tmp_path):
    doc = load_session(DATA / "session_v4.json")
    chip = doc.chips[0]
    assert chip.dram.measured.value == 7.5e11 and chip.dram.measured.host == "test host"
    assert chip.compute_measured["fp32"].method == "FMA kernel, 2 threads"
    path = tmp_path / "again.roofline"
    save_session(doc, path)
    assert load_session(path) == doc


def test_a_measured_value_is_checked_like_any_other_field():
    data = json.loads((DATA / "session_v4.json").read_text())
    chip = data["chips"][0]
    chip["compute_measured"]["fp8"] = {"value": 1e12, "date": "2026-12-01", "method": "m"}
    del chip["memory"][0]["measured"]["date"]
    chip["memory"][0]["measured"]["value"] = -1
    with pytest.raises(ValidationError) as info:
        parse_session(data)
    text = str(info.value)
    assert "chips[0].compute_measured.fp8: is a measured fp8 peak, but compute has no fp8 peak" in text
    assert "chips[0].memory[0].measured.date: is required" in text
    assert "chips[0].memory[0].measured.value: must be greater than 0" in text


def test_where_operands_live_survives_a_save_and_load_and_older_files_keep_main_memory(tmp_path):
    doc = load_session(DATA / "session_v5.json")
    add, gemm = doc.kernels
    assert add.resides == {"a": "cache", "b": "cache"}
    assert gemm.resides == {"A": "host", "B": "host"}  # a dram entry is the default: dropped
    assert add.traffic().bytes == {"cache": 2e8, "dram": 1e8}
    path = tmp_path / "again.roofline"
    save_session(doc, path)
    assert load_session(path) == doc
    assert json.loads(path.read_text())["version"] == VERSION  # written at the current version
    for old in ("session_v1.json", "session_v4.json"):
        assert all(k.resides == {} for k in load_session(DATA / old).kernels)


def test_an_unknown_operand_or_place_is_refused_by_its_path():
    data = json.loads((DATA / "session_v5.json").read_text())
    data["kernels"][0]["resides"] = {"z": "cache", "a": "l1"}
    data["kernels"][1]["flops"] = 1e9
    with pytest.raises(ValidationError) as info:
        parse_session(data)
    text = str(info.value)
    assert "kernels[0].resides.z: unknown key 'z'; use one of a, b, out" in text
    assert "kernels[0].resides.a: must be one of dram, cache, host, not 'l1'" in text


def test_a_what_if_chip_keeps_its_datasheet_figures_in_the_file(tmp_path):
    doc = load_session(DATA / "session_v6.json")
    original, derived = doc.chips
    assert derived.dram.what_if_of == original.dram.bandwidth == 3.35e12
    assert derived.compute_what_if_of == {"bf16": original.compute["bf16"]}
    assert derived.dram.provenance().kind == "what-if"
    path = tmp_path / "again.roofline"
    save_session(doc, path)
    assert load_session(path) == doc
    data = json.loads((DATA / "session_v6.json").read_text())
    data["chips"][1]["compute_what_if_of"] = {"int4": 1e12}
    data["chips"][1]["memory"][1]["what_if_of"] = -3
    with pytest.raises(ValidationError) as info:
        parse_session(data)
    text = str(info.value)
    assert "compute_what_if_of.int4: is the datasheet int4 peak of a what-if" in text
    assert "memory[1].what_if_of: must be greater than 0" in text


def test_a_v9_what_if_keeps_its_name_and_origin_as_fields_and_they_survive_a_save(tmp_path):
    """Version 9 said a derived copy's origin in its notes and a dragged chip's state in its
    name; version 10 keeps both in fields. The frozen v9 file (written by the v9 code) holds a
    derived copy, a chip named "DGX node, 8×V100" dragged (v9 gave it no "(what-if)") and a
    dragged preset."""
    doc = load_session(DATA / "session_v9.json")
    derived, dgx, dragged = doc.chips
    assert derived.auto_name.base == "H100 SXM5 80GB"
    assert derived.auto_name.changes == ("bf16 ×1.5", "HBM3 ×2")
    assert derived.derived_from == "H100 SXM5 80GB" and not derived.notes.startswith("What-if")
    assert derived.derivation == "What-if: H100 SXM5 80GB with bf16 ×1.5, HBM3 ×2."
    assert dragged.auto_name.base == "H100 SXM5 80GB" and dragged.auto_name.changes == ()
    assert dgx.auto_name is None and dgx.is_what_if  # the user's name, as v9 left it
    assert dgx.named_as_what_if().name == "DGX node, 8×V100 (what-if)"
    assert dgx.at_datasheet().name == "DGX node, 8×V100"
    assert dragged.at_datasheet().name == "H100 SXM5 80GB" and derived.at_datasheet().name == (
        "H100 SXM5 80GB (copy)")
    save_session(doc, tmp_path / "v10.roofline")
    again = load_session(tmp_path / "v10.roofline")
    assert again.chips == doc.chips
    data = json.loads((tmp_path / "v10.roofline").read_text())
    assert data["version"] == VERSION and data["chips"][0]["auto_name"] == {
        "base": "H100 SXM5 80GB", "changes": ["bf16 ×1.5", "HBM3 ×2"]}
    data["chips"][0]["auto_name"] = {"base": "", "changes": "HBM3"}
    with pytest.raises(ValidationError, match=r"chips\[0\]\.auto_name\.base"):
        parse_session(data)


def test_training_workloads_survive_a_save_and_load_and_bad_settings_are_named(tmp_path):
    doc = load_session(DATA / "session_v7.json")
    llama, resnet = doc.workloads
    assert (llama.phase, llama.data_parallel, llama.global_batch, llama.zero, llama.recompute,
            llama.train_tokens) == ("train", 1024, 1024, 1, "selective", 2e12)
    assert (resnet.kind, resnet.phase, resnet.optimizer, resnet.data_parallel) == (
        "cnn", "train", "sgd", 8)
    path = tmp_path / "again.roofline"
    save_session(doc, path)
    assert load_session(path) == doc
    # an inference workload's entry carries no training keys, as in version 6
    v6 = load_session(DATA / "session_v6.json")
    save_session(v6, path)
    for entry in json.loads(path.read_text()).get("workloads", []):
        assert not {"global_batch", "data_parallel", "zero", "train_tokens"} & set(entry)
    data = json.loads((DATA / "session_v7.json").read_text())
    data["workloads"][0].update(global_batch=1000, zero=4, recompute="some", pipeline_parallel=99)
    data["workloads"][1]["recompute"] = "selective"
    with pytest.raises(ValidationError) as info:
        parse_session(data)
    text = str(info.value)
    assert "workloads[0].zero: ZeRO stage 4: one of 0, 1, 2, 3" in text
    assert "workloads[0].recompute: must be one of" in text
    data["workloads"][0].update(zero=1, recompute="none")
    with pytest.raises(ValidationError) as info:
        parse_session(data)
    text = str(info.value)
    assert "workloads[0].global_batch: 1000 per step is not a multiple" in text
    assert "workloads[1].recompute: selective recomputation recomputes a transformer" in text


def test_energy_survives_a_save_and_load_and_bad_values_are_named(tmp_path):
    doc = load_session(DATA / "session_v8.json")
    e = doc.chips[0].energy
    assert (e.board_power, e.idle_power, e.op_pj, e.byte_pj, e.price_per_hour) == (
        700.0, 90.0, {"bf16": 0.5}, {"dram": 60.0}, 2.5)
    assert e.sources["price_per_hour"].startswith("a user's own price")
    path = tmp_path / "e.roofline"
    save_session(doc, path)
    assert load_session(path) == doc
    assert load_session(DATA / "session_v7.json").chips[0].energy is None  # older: none
    data = json.loads((DATA / "session_v8.json").read_text())
    data["chips"][0]["energy"].update(board_power=-1, idle_power=float("nan"), op_pj={"bf17": 1},
                                      byte_pj={"dram": 0}, watts=3)
    with pytest.raises(ValidationError) as info:
        parse_session(data)
    text = str(info.value)
    for part in ("chips[0].energy.board_power: must be greater than 0",
                 "chips[0].energy.idle_power: must be a finite number",
                 "chips[0].energy.op_pj.bf17: unknown key 'bf17'",
                 "chips[0].energy.byte_pj.dram: must be greater than 0",
                 "chips[0].energy.watts: unknown key 'watts'"):
        assert part in text, part
    # version 8 charged a role's figure once, whatever its levels: it migrates to the role's
    # first level (the H100's two on-chip levels), so every number stays as it was
    data = json.loads((DATA / "session_v8.json").read_text())
    data["chips"][0]["energy"]["byte_pj"] = {"dram": 60, "cache": 4}
    data["chips"][0]["energy"]["sources"]["byte:cache"] = "a paper"
    e = parse_session(data).chips[0].energy
    assert e.byte_pj == {"dram": 60.0, "L1/shared (132 SMs)": 4.0}
    assert e.sources["byte:L1/shared (132 SMs)"] == "a paper"
    data = json.loads((DATA / "session_v8.json").read_text())
    data["chips"][0]["energy"]["byte_pj"] = {"L3": 4}
    with pytest.raises(ValidationError, match=r"energy.byte_pj.L3: unknown key 'L3'; use one of "
                                              r"L1/shared \(132 SMs\), L2 \(50 MB\), HBM3"):
        parse_session(data)
    data = json.loads((DATA / "session_v8.json").read_text())
    data["chips"][0]["energy"] = {}  # holds nothing: no energy data, and it saves as it loads
    doc = parse_session(data)
    assert doc.chips[0].energy is None and loads_session(dump_session(doc)) == doc
    data = json.loads((DATA / "session_v8.json").read_text())
    data["chips"][0]["energy"]["idle_power"] = 800
    with pytest.raises(ValidationError, match="idle_power: 800 W is not below the board power"):
        parse_session(data)


def test_a_refused_peak_is_named_once_without_follow_on_problems():
    """From the what-if tour: a session whose bf16 peak was out of range also said "compute has
    no bf16 peak" (of its what-if figure) and "baseline: names no chip" (of the chip refused
    with it): one problem, named once."""
    data = json.loads((DATA / "session_v8.json").read_text())
    chip = data["chips"][0]
    chip["compute"]["bf16"] = 1e88
    chip["compute_what_if_of"] = {"bf16": 989.4e12}
    data["baseline"] = chip["id"]
    with pytest.raises(ValidationError) as info:
        parse_session(data)
    problems = [p.path for p in info.value.problems]
    assert problems == ["chips[0].compute.bf16"], problems


def test_measured_serving_points_are_kept_by_a_session(tmp_path):
    """Version 12: the Serving view's measured points are saved with the session; a version 11
    file has none; a bad point is named by its place and field."""
    from roofline_gui.core.workload import MeasuredServing

    doc = replace(load_session(DATA / "session_v2.json"), serving_measured=(
        MeasuredServing("B200", 31.5, 5680.0, "a vendor table"),
        MeasuredServing("nvidia-h200-sxm-141gb", 20.0, 3000.0)))
    path = tmp_path / "s.roofline"
    save_session(doc, path)
    data = json.loads(path.read_text())
    assert data["version"] == 12 and data["serving_measured"][1] == {
        "chip": "nvidia-h200-sxm-141gb", "tokens_per_s_per_user": 20.0,
        "tokens_per_s_per_chip": 3000.0, "source": ""}
    assert load_session(path) == doc
    assert "serving_measured" not in session_to_dict(replace(doc, serving_measured=()))
    old = {**data, "version": 11}
    del old["serving_measured"]
    assert loads_session(json.dumps(old).encode()).serving_measured == ()
    data["serving_measured"][0]["tokens_per_s_per_chip"] = -5
    with pytest.raises(ValidationError) as err:
        loads_session(json.dumps(data).encode())
    assert "serving_measured[0].tokens_per_s_per_chip" in str(err.value)
