"""Fuzzing the session loader: generated and mutated files. Whatever the bytes, loading either
returns a whole Document or raises a RooflineError that names every problem; nothing else
escapes and nothing is half-loaded. Every file also goes through the published JSON Schema,
and the two must agree on accept and reject (issue 11: one definition of the format)."""

import copy
import json
import os
import random

from conftest import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from roofline_gui.core.document import Document
from roofline_gui.core.errors import RooflineError, ValidationError
from roofline_gui.io.files import parse_json_bytes, resources_dir
from roofline_gui.io.schema import reference_problems, session_schema
from roofline_gui.io.session import dump_session, loads_session

#: ROOFLINE_FUZZ_SCALE=20 runs each fuzz test 20 times longer (documented in the closing note).
SCALE = int(os.environ.get("ROOFLINE_FUZZ_SCALE", "1"))

SEEDS = [(DATA / "session_v1.json").read_bytes(), (DATA / "session_v2.json").read_bytes(),
         (DATA / "session_v3.json").read_bytes(), (DATA / "session_v4.json").read_bytes(),
         *(p.read_bytes() for p in sorted((resources_dir() / "examples").glob("*.roofline")))]

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30),
                      st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20))
json_values = st.recursive(json_leaf, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=12), inner, max_size=5)),
    max_leaves=30)
session_keys = st.sampled_from(["format", "version", "chips", "kernels", "name", "compute", "memory",
                                "role", "bandwidth", "precision", "template", "params", "flops",
                                "bytes", "intensity", "preset", "id", "baseline", "fp32", "dram"])


SCHEMA = Draft202012Validator(session_schema())


def schema_verdict(raw: bytes):
    """What the published schema (with its x-roofline-references rules) says of a file: True,
    False, or None when the bytes are not JSON at all (the schema has nothing to say)."""
    try:
        data = parse_json_bytes(raw, "")
    except RooflineError:
        return None
    if next(SCHEMA.iter_errors(data), None) is not None:
        return False
    return not reference_problems(data)


def check(raw: bytes):
    """Every fuzzed file goes through the loader and through the schema; they must agree.
    Returns the schema's verdict (schema_verdict's)."""
    verdict = schema_verdict(raw)
    try:
        doc = loads_session(raw)
    except ValidationError as exc:
        assert exc.problems, "a rejection names at least one problem"
        for problem in exc.problems:
            assert problem.message.strip()
        assert verdict is not True, f"the schema accepts what the loader refuses: {exc}"
        return verdict
    except RooflineError as exc:
        assert str(exc).strip()
        assert verdict is not True, f"the schema accepts what the loader refuses: {exc}"
        return verdict
    assert verdict is True, "the loader accepts what the schema refuses: " + "; ".join(
        e.message[:200] for e in SCHEMA.iter_errors(json.loads(raw))) + "; ".join(
        reference_problems(json.loads(raw)))
    assert isinstance(doc, Document)
    assert loads_session(dump_session(doc)) == doc  # what loads is whole: it saves and reloads
    return verdict


@settings(max_examples=800 * SCALE, deadline=None)
@given(json_values)
def test_generated_json_values(value):
    check(json.dumps(value).encode())


@settings(max_examples=600 * SCALE, deadline=None)
@given(st.dictionaries(session_keys, json_values, max_size=6))
def test_generated_session_like_objects(value):
    check(json.dumps({"format": "roofline-session", "version": 1, **value}).encode())


def _mutate(node, rng: random.Random, replacement):
    """Replace, delete or add one entry somewhere inside a parsed JSON value."""
    if isinstance(node, dict) and node:
        key = rng.choice(list(node))
        action = rng.random()
        if action < 0.2:
            del node[key]
        elif action < 0.3:
            node[f"extra{rng.randrange(9)}"] = copy.deepcopy(replacement)
        elif action < 0.7 and isinstance(node[key], (dict, list)) and node[key]:
            _mutate(node[key], rng, replacement)
        else:
            node[key] = copy.deepcopy(replacement)
    elif isinstance(node, list) and node:
        i = rng.randrange(len(node))
        if isinstance(node[i], (dict, list)) and node[i] and rng.random() < 0.7:
            _mutate(node[i], rng, replacement)
        elif rng.random() < 0.3:
            del node[i]
        else:
            node[i] = copy.deepcopy(replacement)


@settings(max_examples=1500 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEEDS), st.integers(0, 2**32), json_values, st.integers(1, 4))
def test_mutated_valid_files(seed, rng_seed, replacement, mutations):
    data = json.loads(seed)
    rng = random.Random(rng_seed)
    for _ in range(mutations):
        _mutate(data, rng, replacement)
    check(json.dumps(data).encode())


@settings(max_examples=600 * SCALE, deadline=None)
@given(st.sampled_from(SEEDS), st.integers(0, 2**32), st.binary(max_size=8))
def test_truncated_and_corrupted_bytes(seed, rng_seed, junk):
    rng = random.Random(rng_seed)
    cut = rng.randrange(len(seed))
    raw = seed[:cut] + junk + seed[cut + rng.randrange(0, 64):]
    check(raw)


def test_magnitudes_nan_and_nesting_are_refused_by_name():
    base = json.loads(SEEDS[0])
    base["chips"][0]["compute"]["fp32"] = 1e300
    try:
        loads_session(json.dumps(base).encode())
    except ValidationError as exc:
        assert "chips[0].compute.fp32" in str(exc) and "plausible" in str(exc)
    else:
        raise AssertionError("1e300 op/s was accepted")


# -- the importers -----------------------------------------------------------------------------

from roofline_gui.io.imports import ImportResult, import_ncu_csv, import_plain_csv  # noqa: E402

CSV_SEEDS = [(DATA / "ncu_raw.csv").read_bytes(), (DATA / "measured.csv").read_bytes()]


def check_import(tmp_path, raw: bytes) -> None:
    path = tmp_path / "fuzz.csv"
    path.write_bytes(raw)
    for importer in (import_ncu_csv, import_plain_csv):
        try:
            result = importer(path)
        except ValidationError as exc:
            assert exc.problems and all(p.message.strip() for p in exc.problems)
            continue
        except RooflineError as exc:
            assert str(exc).strip()
            continue
        assert isinstance(result, ImportResult)
        for problem in result.skipped:  # every skipped row names its line and reason
            assert problem.path.startswith("row ") and problem.message.strip()
        for kernel in result.kernels:  # what is imported evaluates: whole, positive numbers
            assert kernel.flops > 0 and kernel.bytes["dram"] > 0
            assert kernel.traffic().ops > 0


@settings(max_examples=800 * SCALE, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.sampled_from(CSV_SEEDS), st.integers(0, 2**32), st.binary(max_size=12),
       st.sampled_from(["", ",", '"', "\n", "nan", "-1", "1e400", "0", "x,y,z", "1,234"]))
def test_mutated_import_files(tmp_path, seed, rng_seed, junk, token):
    rng = random.Random(rng_seed)
    text = bytearray(seed)
    for _ in range(rng.randrange(1, 4)):
        at = rng.randrange(len(text))
        text[at:at + rng.randrange(0, 20)] = rng.choice([junk, token.encode()])
    check_import(tmp_path, bytes(text))


@settings(max_examples=400 * SCALE, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.one_of(st.text(max_size=8), st.floats().map(str)), max_size=6), max_size=6))
def test_generated_csv_tables(tmp_path, table):
    raw = "\n".join(",".join(cell.replace("\n", " ") for cell in row) for row in table)
    check_import(tmp_path, raw.encode())


#: Values that sit on the edges of the rules: null (means "not given" for optional fields), the
#: wrong type, zero, negatives, whole floats, unknown names.
EDGE_VALUES = ["x", "", " ", None, 0, 1, -1, 2.0, 2.5, True, {}, [], "fp32", "dram", "#123456",
               {"a": 1}, {"dram": 5}, 1e30, [{"role": "dram", "name": "d", "bandwidth": 1}]]


def test_loader_and_schema_agree_on_seeded_mutations():
    """A fixed, seeded corpus beside hypothesis's: 3,000 files made from the shipped sessions by
    one to three edits with edge values; on each, the loader and the schema must agree."""
    verdicts = set()
    for n in range(3000):
        rng = random.Random(n)
        data = json.loads(rng.choice(SEEDS))
        for _ in range(rng.randint(1, 3)):
            _mutate(data, rng, rng.choice(EDGE_VALUES))
        raw = json.dumps(data).encode()
        verdicts.add(check(raw))
    assert verdicts == {True, False}  # the corpus holds both kinds, so agreement means something


#: One of every kind of entry, every optional field set (tests/data/session_v4.json), and a
#: measured serving point (version 12).
RICH = {**json.loads(SEEDS[3]), "serving_measured": [
    {"chip": "A100", "tokens_per_s_per_user": 30.5, "tokens_per_s_per_chip": 5000,
     "source": "a vendor table"}]}


def _paths(node, path=()):
    yield path
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(
        node, list) else ()
    for key, child in children:
        yield from _paths(child, (*path, key))


def test_loader_and_schema_agree_on_every_single_edit():
    """Exhaustive: every place in a file with every kind of entry, replaced by every edge value,
    deleted, or given an unknown sibling; the loader and the schema agree on each."""
    assert check(json.dumps(RICH).encode()) is True
    for path in list(_paths(RICH))[1:]:
        for edit in [*EDGE_VALUES, "delete", "sibling"]:
            data = copy.deepcopy(RICH)
            parent = data
            for key in path[:-1]:
                parent = parent[key]
            if edit == "delete":
                del parent[path[-1]]
            elif edit == "sibling":
                if not isinstance(parent, dict):
                    continue
                parent["colour"] = 1
            else:
                parent[path[-1]] = copy.deepcopy(edit)
            check(json.dumps(data).encode())
