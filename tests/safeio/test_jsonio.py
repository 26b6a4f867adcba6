"""openodke.safeio.jsonio: JSON within bounds, as a property and at each bound."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openodke.errors import InputError
from openodke.safeio import MAX_NESTING, iter_json_lines, load_jsonl, parse_json, read_json
from openodke.types import Document

# JSON values hypothesis builds: every scalar, strings with any valid Unicode (no lone
# surrogates: those are refused), nested a few levels.
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=("Cs",)))
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(values, st.booleans())
@settings(max_examples=200, deadline=None)
def test_any_json_within_bounds_reads_as_the_standard_parser_reads_it(value, ascii_only):
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert parse_json(text.encode("utf-8"), path="v.json") == json.loads(text)


@given(st.binary(max_size=200))
@settings(max_examples=300, deadline=None)
def test_any_bytes_parse_or_give_an_input_error_naming_the_file(data):
    try:
        parse_json(data, path="rows.jsonl", line=7)
    except InputError as error:
        assert str(error).startswith("rows.jsonl:7: ")


@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_any_text_parses_or_gives_an_input_error(text):
    try:
        parse_json(text, path="rows.jsonl", line=1)
    except InputError as error:
        assert str(error).startswith("rows.jsonl:1: ")


def nest(depth: int) -> bytes:
    return b'{"a": ' + b"[" * (depth - 1) + b"1" + b"]" * (depth - 1) + b"}"


def test_nesting_up_to_the_limit_reads_and_one_more_is_refused():
    assert parse_json(nest(MAX_NESTING), path="x") is not None
    with pytest.raises(InputError, match=f"x:3: nested deeper than {MAX_NESTING} levels"):
        parse_json(nest(MAX_NESTING + 1), path="x", line=3)
    with pytest.raises(InputError, match="x:1: nested deeper"):
        parse_json(b"[" * 100_000, path="x")  # what made RecursionError before


def test_brackets_inside_strings_are_not_nesting():
    text = json.dumps({"text": "[" * 5000 + "{" * 5000, "b": ["]]]"]})
    assert parse_json(text.encode(), path="x")["text"].startswith("[[[")


def test_whole_file_errors_name_the_line_inside_the_file():
    deep = b'{\n"a": 1,\n"b": ' + b"[" * 200 + b"]" * 200 + b"\n}"
    with pytest.raises(InputError, match="^x:3: nested deeper"):
        parse_json(deep, path="x")
    with pytest.raises(InputError, match=r'^x:2: a lone surrogate "\\udc00" at column 7'):
        parse_json(b'{\n"a": "\\udc00"}', path="x")


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        (r'"\ud83d\ude00"', False),  # a pair: one character
        (r'"\ud800"', True),
        (r'"\udc00\ud800"', True),  # the wrong order
        (r'"\ud800x"', True),
        (r'"\\ud800"', False),  # an escaped backslash, then the letters ud800
        (r'"\\\ud800"', True),  # an escaped backslash, then a lone surrogate
        (r'{"\ud800": 1}', True),  # in a key
    ],
)
def test_lone_surrogates_are_refused_wherever_they_are(text, refused):
    if refused:
        with pytest.raises(InputError, match="lone surrogate"):
            parse_json(text.encode(), path="x", line=1)
    else:
        parse_json(text.encode(), path="x", line=1).__str__().encode("utf-8")


def test_a_lone_surrogate_in_a_str_is_refused():
    with pytest.raises(InputError, match="lone surrogate at column 8"):
        parse_json('{"a": "\ud800"}', path="x", line=1)


def test_integers_past_4300_digits_are_refused_with_their_line():
    assert parse_json(b"9" * 4300, path="x", line=2) == int("9" * 4300)
    with pytest.raises(InputError, match="^x:2: a number with more than 4300 digits"):
        parse_json(b'{"n": ' + b"9" * 4301 + b"}", path="x", line=2)


def test_jsonl_refuses_two_values_on_one_line_and_an_empty_file(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text('{"id": "a", "text": "x"}\n{"id": "b", "text": "y"}{"id": "c", "text": "z"}\n')
    with pytest.raises(InputError, match=f"^{path}:2: invalid JSON: Extra data"):
        list(iter_json_lines(path))
    with pytest.raises(InputError, match=f"^{path}:2: invalid JSON: Extra data"):
        load_jsonl(path, Document)
    path.write_text("\n \n")
    with pytest.raises(InputError, match="empty file"):
        list(iter_json_lines(path))


def test_read_json_says_what_was_expected(tmp_path):
    path = tmp_path / "report.json"
    path.write_text("{\n  oops\n}")
    with pytest.raises(InputError, match=r"report.json:2: not a JSON report \(invalid JSON"):
        read_json(path, what="a JSON report")
