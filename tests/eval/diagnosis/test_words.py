"""The surface-form rule in columns (diagnosis/words.py): the C naming against the Python twin and
against names.end_names / name_keys / sentences.name_key, and EndWords's pair tests against the
row-by-row ``alike`` and key overlap they replaced."""

from __future__ import annotations

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openodke.eval.diagnosis import words
from openodke.eval.diagnosis.names import end_names, name_keys
from openodke.eval.diagnosis.sentences import name_key
from openodke.eval.diagnosis.surface import alike
from openodke.eval.engine.columns import FactColumns
from openodke.eval.engine.structs import Reread
from openodke.types import Entity, Evidence, Fact

TEXTS = ["ada", "Ada ", "ADA", "  ", "", "é", "Zoë", "x y", "a:", ":b", "Person", "person",
         "Person:ada", "Person:Ada", "person : ADA", "Thing:\x1cQ", "x\t\n y", "ß  Straße", "İ",
         "Acme Inc.", "acme inc.", "acme", "Acme_Widgets-12", "!!!", "a:b:c", "O12 Inc", "o12",
         "Person:  ", "Long Name " * 30]  # fmt: skip
text = st.sampled_from(TEXTS)
entity = st.builds(
    lambda key, kind, label, aliases: {
        "key": key, "type": kind, "label": label, "aliases": aliases,
    },
    text.filter(str.strip), st.sampled_from(["Person", "person", "Thing", "a:b", "É"]),
    st.one_of(st.none(), text), st.lists(text, max_size=2),
)  # fmt: skip
value = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    text,
)
row = st.builds(
    lambda s, o, v, literal: {
        "subject": s, "predicate": "p",
        **({"object_value": v} if literal else {"object_entity": o}),
    },
    entity, entity, value, st.booleans(),
)  # fmt: skip

IMPLEMENTATIONS = [pytest.param(words.py_end_words, words.py_name_keys, id="python")]
if words.end_words is not words.py_end_words:
    IMPLEMENTATIONS.append(pytest.param(words.end_words, words.name_keys, id="c"))


def _structs(rows: list[dict]) -> list[Reread]:
    return msgspec.json.Decoder(list[Reread]).decode(msgspec.json.encode(rows))


@pytest.mark.parametrize(("end_words", "keys_of"), IMPLEMENTATIONS)
@settings(max_examples=100, deadline=None)
@given(rows=st.lists(row, min_size=1, max_size=8))
def test_end_words_name_every_end_as_the_row_by_row_code(end_words, keys_of, rows) -> None:
    facts = _structs(rows)
    for subject in (True, False):
        counts = np.zeros(len(facts), np.int64)
        short = np.zeros(len(facts), np.int8)
        flat = end_words(facts, subject, words._named, counts, short)
        at = 0
        for fact, count, flag in zip(facts, counts.tolist(), short.tolist(), strict=True):
            end = fact.subject if subject else fact.object_entity
            end = end if end is not None else fact.object_value
            assert tuple(flat[at : at + count]) == end_names(end)
            keys = keys_of(flat[at : at + count], name_key)
            assert keys == [name_key(n) for n in end_names(end)]
            # what names.name_keys reads: the names' keys, or the label's alone (short way)
            expected = set(name_keys(end))
            got = (
                {k for k in keys if k} if flag == 0 else ({keys[0]} - {""} if flag == 1 else set())
            )
            assert got == expected
            at += count
        assert at == len(flat)


def _columns(ends: list[Entity]) -> FactColumns:
    facts = [
        Fact(subject=e, predicate="p", object_value=1, evidence=[Evidence(doc_id="d")])
        for e in ends
    ]
    return FactColumns.of_facts(facts)


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(entity, entity), min_size=1, max_size=6))
def test_end_words_pairs_equal_the_row_by_row_tests(pairs) -> None:
    ends = [Entity(**e) for pair in pairs for e in pair]
    columns = _columns(ends)
    rows = np.arange(len(ends))
    found = words.EndWords(((columns, rows, True),))
    index = found.index(columns.subject_names)
    a, b = index[0::2], index[1::2]
    alike_got = found.alike(a, b).tolist()
    share_got = found.share_key(a, b).tolist()
    for k, (x, y) in enumerate(zip(ends[0::2], ends[1::2], strict=True)):
        assert alike_got[k] == alike(end_names(x), end_names(y))
        assert share_got[k] == (not set(name_keys(x)).isdisjoint(name_keys(y)))
