"""The surface-form rule in columns (diagnosis/words.py): the C keying of ends (end_keys) and its
Python twin, both against names.end_names / name_keys / sentences.name_key, and EndWords's pair tests against the
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
         "Person:  ", "Long Name " * 30, "O13 inc", "ada`", "Ada@", "ADB"]  # fmt: skip
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

IMPLEMENTATIONS = [pytest.param(words.py_end_keys, id="python")]
if words.end_keys is not words.py_end_keys:
    IMPLEMENTATIONS.append(pytest.param(words.end_keys, id="c"))


def _structs(rows: list[dict]) -> list[Reread]:
    return msgspec.json.Decoder(list[Reread]).decode(msgspec.json.encode(rows))


@pytest.mark.parametrize("end_keys", IMPLEMENTATIONS)
@settings(max_examples=100, deadline=None)
@given(rows=st.lists(row, min_size=1, max_size=8), data=st.data())
def test_end_keys_key_every_end_as_the_row_by_row_code(end_keys, rows, data) -> None:
    facts = _structs(rows)
    # ends in any order, some asked twice, subjects and objects mixed
    asked = data.draw(
        st.lists(st.tuples(st.integers(0, len(facts) - 1), st.booleans()), max_size=12)
    )
    where = np.array([at for at, _ in asked], dtype=np.int64)
    subjects = np.array([s for _, s in asked], dtype=np.int8)
    counts = np.full(len(asked), -1, np.int64)
    keys, hashes, shared = end_keys(facts, where, subjects, words._named, name_key, counts)
    hashes = np.frombuffer(hashes, np.int64).tolist()
    shared = np.frombuffer(shared, np.int8).tolist()
    assert len(keys) == len(hashes) == len(shared) == int(counts.sum())
    at = 0
    for (i, subject), count in zip(asked, counts.tolist(), strict=True):
        fact = facts[i]
        end = fact.subject if subject else fact.object_entity
        end = end if end is not None else fact.object_value
        mine = keys[at : at + count]
        assert mine == list(dict.fromkeys(k for k in map(name_key, end_names(end)) if k))
        assert hashes[at : at + count] == [hash(k) for k in mine]
        # what names.name_keys reads: every key, or the label's alone (short way)
        assert {k for k, one in zip(mine, shared[at : at + count], strict=True) if one} == set(
            name_keys(end)
        )
        at += count


# A label and a key that read alike up to letter case have one key (the C code does not make
# the second); one character apart, two.
@pytest.mark.parametrize(
    ("label", "key", "keys"),
    [
        ("Acme Widgets 12", "acme widgets 12", ["acme widgets 12"]),
        ("ACME", "acme", ["acme"]),
        ("Acme 12", "acme 13", ["acme 12", "acme 13"]),
        ("acme 12", "acme 13", ["acme 12", "acme 13"]),
        ("Ada@", "ada`", ["ada"]),  # other characters are spaces: one key
        ("Ada", "adb", ["ada", "adb"]),
        ("Ab", "ab c", ["ab", "ab c"]),
    ],
)
@pytest.mark.parametrize("end_keys", IMPLEMENTATIONS)
def test_end_keys_of_a_label_and_its_key(end_keys, label, key, keys) -> None:
    facts = _structs(
        [{"subject": {"key": key, "label": label}, "predicate": "p", "object_value": 1}]
    )
    counts = np.zeros(1, np.int64)
    got, _, _ = end_keys(
        facts, np.array([0]), np.array([1], np.int8), words._named, name_key, counts
    )
    assert got == keys


@pytest.mark.parametrize("end_keys", IMPLEMENTATIONS)
def test_end_keys_refuses_a_position_outside_the_facts(end_keys) -> None:
    facts = _structs([{"subject": {"key": "a"}, "predicate": "p", "object_value": 1}])
    counts = np.zeros(1, np.int64)
    with pytest.raises(IndexError):
        end_keys(facts, np.array([1]), np.array([1], np.int8), words._named, name_key, counts)


def _columns(ends: list[Entity]) -> FactColumns:
    facts = [
        Fact(subject=e, predicate="p", object_value=1, evidence=[Evidence(doc_id="d")])
        for e in ends
    ]
    return FactColumns.of_facts(facts)


@pytest.mark.parametrize("end_keys", IMPLEMENTATIONS)
@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(entity, entity), min_size=1, max_size=6))
def test_end_words_pairs_equal_the_row_by_row_tests(end_keys, pairs) -> None:
    ends = [Entity(**e) for pair in pairs for e in pair]
    columns = _columns(ends)
    rows = np.arange(len(ends))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(words, "end_keys", end_keys)
        found = words.EndWords(((columns, rows, True),))
    index = found.index(columns.subject_names)
    assert found.parts[0].tolist() == index.tolist()
    a, b = index[0::2], index[1::2]
    alike_got = found.alike(a, b).tolist()
    share_got = found.share_key(a, b).tolist()
    for k, (x, y) in enumerate(zip(ends[0::2], ends[1::2], strict=True)):
        assert alike_got[k] == alike(end_names(x), end_names(y))
        assert share_got[k] == (not set(name_keys(x)).isdisjoint(name_keys(y)))


@pytest.mark.parametrize("end_keys", IMPLEMENTATIONS)
@settings(max_examples=40, deadline=None)
@given(pairs=st.lists(st.tuples(entity, entity), min_size=1, max_size=6))
def test_end_words_subjects_against_objects_of_two_sides(end_keys, pairs) -> None:
    def side(ends: list[tuple[dict, dict]]) -> FactColumns:
        facts = [
            Fact(subject=Entity(**s), predicate="p", object_entity=Entity(**o),
                 evidence=[Evidence(doc_id="d")])
            for s, o in ends
        ]  # fmt: skip
        return FactColumns.of_facts(facts)

    gold, said = side(pairs), side([(o, s) for s, o in reversed(pairs)])
    rows = np.arange(len(pairs))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(words, "end_keys", end_keys)
        patch.setattr(words, "_BLOCK", 2)  # rows read again two at a time: many blocks a side
        found = words.EndWords(((gold, rows, True), (said, rows[::-1].copy(), False)))
    a, b = found.parts
    assert a.tolist() == found.index(gold.subject_names).tolist()
    assert b.tolist() == found.index(said.object_names[::-1]).tolist()
    alike_got, share_got = found.alike(a, b).tolist(), found.share_key(a, b).tolist()
    for k, (s, _) in enumerate(pairs):
        x = y = Entity(**s)  # the gold subject is the prediction's object, in reverse order
        assert alike_got[k] == alike(end_names(x), end_names(y))
        assert share_got[k] == bool(name_keys(x))


# A side's rows asked about are sorted (few of its rows) or marked along it (many): both ways.
TAKEN = [pytest.param(0, id="sorted"), pytest.param(10**9, id="marked")]


@pytest.mark.parametrize("sparse", TAKEN)
@pytest.mark.parametrize("end_keys", IMPLEMENTATIONS)
@settings(max_examples=40, deadline=None)
@given(
    gold_rows=st.lists(st.tuples(entity, entity), min_size=1, max_size=5),
    said_rows=st.lists(st.tuples(entity, entity), min_size=1, max_size=5),
    data=st.data(),
)
def test_end_words_both_ends_of_both_sides_as_the_surface_rule_asks(
    end_keys, sparse, gold_rows, said_rows, data
) -> None:
    """Every end of every row asked (the surface rule's way: rows repeated, in any order),
    pairs across the sides equal to the row-by-row tests, the same end paired with itself too."""

    def side(rows: list[tuple[dict, dict]]) -> tuple[FactColumns, list[Fact]]:
        facts = [
            Fact(subject=Entity(**s), predicate="p", object_entity=Entity(**o),
                 evidence=[Evidence(doc_id="d")])
            for s, o in rows
        ]  # fmt: skip
        return FactColumns.of_facts(facts), facts

    (gold, gold_facts), (said, said_facts) = side(gold_rows), side(said_rows)
    n = data.draw(st.integers(1, 10))
    i = np.array(data.draw(st.lists(st.integers(0, len(gold_rows) - 1), min_size=n, max_size=n)))
    j = np.array(data.draw(st.lists(st.integers(0, len(said_rows) - 1), min_size=n, max_size=n)))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(words, "end_keys", end_keys)
        patch.setattr(words, "_BLOCK", 2)
        patch.setattr(words, "_SPARSE", sparse)
        found = words.EndWords(
            ((gold, i, True), (gold, i, False), (said, j, True), (said, j, False))
        )
    gs, go, ps, po = found.parts
    assert gs.tolist() == found.index(gold.subject_names[i]).tolist()
    assert po.tolist() == found.index(said.object_names[j]).tolist()
    for a, b, x_of, y_of in (
        (gs, ps, lambda k: gold_facts[i[k]].subject, lambda k: said_facts[j[k]].subject),
        (
            go,
            po,
            lambda k: gold_facts[i[k]].object_entity,
            lambda k: said_facts[j[k]].object_entity,
        ),
        (gs, go, lambda k: gold_facts[i[k]].subject, lambda k: gold_facts[i[k]].object_entity),
        (gs, gs, lambda k: gold_facts[i[k]].subject, lambda k: gold_facts[i[k]].subject),
    ):
        alike_got, share_got = found.alike(a, b).tolist(), found.share_key(a, b).tolist()
        for k in range(n):
            x, y = x_of(k), y_of(k)
            assert alike_got[k] == alike(end_names(x), end_names(y))
            assert share_got[k] == (not set(name_keys(x)).isdisjoint(name_keys(y)))


WITHIN = [pytest.param(words.py_within, id="python")]
if words.within is not words.py_within:
    WITHIN.append(pytest.param(words.within, id="c"))


@pytest.mark.parametrize("within", WITHIN)
@settings(max_examples=200, deadline=None)
@given(pairs=st.lists(st.tuples(*[st.text(alphabet="ab é€𝄞", max_size=6)] * 2), max_size=10))
def test_within_is_whole_word_containment_either_way(within, pairs) -> None:
    xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    out = np.full(len(pairs), 7, np.int8)
    within(xs, ys, out)
    assert out.tolist() == [int(f" {x} " in f" {y} " or f" {y} " in f" {x} ") for x, y in pairs]
