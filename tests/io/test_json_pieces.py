"""The piecewise JSON decoder gives exactly what json.loads gives: the same value for any
JSON text, and for broken text the same error at the same position (the messages users see
name that line and column)."""

import json
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from roofline_gui.io.files import loads_in_pieces

SCALE = int(os.environ.get("ROOFLINE_FUZZ_SCALE", "1"))

leaf = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20),
                 st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
values = st.recursive(leaf, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=25)
documents = st.dictionaries(st.text(max_size=6), values, max_size=5)


def outcome(parse, text):
    try:
        return "value", parse(text)
    except json.JSONDecodeError as exc:
        return "error", exc.msg, exc.pos
    except (ValueError, RecursionError) as exc:
        return type(exc).__name__, str(exc)


def both(text):
    decoder = json.JSONDecoder()
    assert outcome(lambda t: loads_in_pieces(t, decoder), text) == outcome(json.loads, text)


@settings(max_examples=400 * SCALE, deadline=None)
@given(documents, st.sampled_from([None, 0, 1, 2]), st.sampled_from([" ", "", "\n\t "]))
def test_the_same_value_as_json_loads(doc, indent, pad):
    text = pad + json.dumps(doc, indent=indent, ensure_ascii=False) + pad
    assert loads_in_pieces(text, json.JSONDecoder()) == doc
    both(text)


@settings(max_examples=800 * SCALE, deadline=None)
@given(documents, st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 3),
                                     st.sampled_from(list('{}[],:" 0a\\-.eE\n'))), max_size=4))
def test_broken_text_fails_where_and_as_json_loads_fails(doc, edits):
    text = json.dumps(doc, indent=1)
    for position, cut, char in edits:  # delete a few characters and insert one, here and there
        i = position % (len(text) + 1)
        text = text[:i] + char + text[i + cut:]
    both(text)


def test_top_level_values_that_are_not_objects_and_edge_cases():
    for text in ['[1, 2]', '3', '"x"', '', '   ', '{}', '{ }', '{} x', '{"a": []}',
                 '{"a": [ ]}', '{"a": [1,]}', '{"a": NaN}', '{"a": 1,}', '{"a" 1}', '{"a": [1 2]}']:
        both(text)


def test_a_trailing_comma_is_named_at_the_comma_on_every_python(tmp_path):
    """3.13's json names a trailing comma itself, older ones say "Expecting value" or
    "Expecting property name" one character later: the user reads the same message on each."""
    import pytest

    from roofline_gui.core.errors import ValidationError
    from roofline_gui.io.session import load_session

    cases = {
        '{"format": "roofline-session",\n "chips": [\n  {"name": "A"},\n ]}': ("line 3, column 16", "array"),
        '{"format": "roofline-session",\n "title": "x",\n}': ("line 2, column 14", "object"),
        '{"kernels": [{"name": "k", "params": {"n": 1 ,  }}]}': ("line 1, column 46", "object"),
        '[1, 2,\n\t]': ("line 1, column 6", "array"),
    }
    for text, (where, closing) in cases.items():
        path = tmp_path / "s.roofline"
        path.write_text(text)
        with pytest.raises(ValidationError) as caught:
            load_session(path)
        message = str(caught.value)
        assert where in message, (text, message)
        assert f"a trailing comma before the end of an {closing}; remove the comma" in message
