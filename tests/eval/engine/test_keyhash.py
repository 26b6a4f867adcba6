"""The C hashing (openodke.eval.engine._keyhash) against the same code in Python, both against the
key table built from encoded keys, and decoded structs against pydantic Facts (the API's path)."""

from __future__ import annotations

import shutil

import msgspec
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from openodke.eval.engine import keyhash
from openodke.eval.engine.fold import fold, node_of
from openodke.eval.engine.key_table import KeyTable, effective_types
from openodke.eval.engine.keyhash import LITERAL_NAMES, LITERAL_NODE, NARROW, WIDE
from openodke.eval.engine.matching import fact_key
from openodke.eval.engine.structs import Fact as _Fact
from openodke.eval.engine.structs import Gold as _Gold
from openodke.eval.engine.structs import check_rows, py_check_rows
from openodke.eval.engine.structs import scoped as _scoped
from openodke.safeio.limits import MAX_NESTING
from openodke.types import Fact, normalise_value

IMPLEMENTATIONS = [pytest.param(keyhash.py_fact_columns, keyhash.py_doc_hashes, id="python")]
if keyhash.COMPILED:
    IMPLEMENTATIONS.append(pytest.param(keyhash.fact_columns, keyhash.doc_hashes, id="c"))

names = st.sampled_from(
    ["ada", "Ada ", "bob", "", "é", "x y", "Person:Ada", "person : ADA", "É:x", "a:", ":b",
     "Thing:\x1cQ", "x\t\n y", "ß  Straße", "İ", "Person:" + "Long Name " * 40, " : ", "a :b"]
)  # fmt: skip
values = st.one_of(
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    names,
)
facts = st.builds(
    lambda s, t, p, entity, value, polarity, keys, docs: {
        "subject": {"key": s, "type": t, **({"label": s.upper()} if entity else {})},
        "predicate": p,
        **({"object_entity": {"key": value if isinstance(value, str) and value.strip() else "o",
                               "type": t}}
           if entity else {"object_value": value}),
        "polarity": polarity,
        "qualifiers": {"as_of": "2020", "n": 1},
        "identity_keys": keys,
        "evidence": [{"doc_id": d} for d in docs],
    },
    names.filter(str.strip),  # a blank key is refused (issue 22)
    st.sampled_from(["Person", "Thing", "É", "ß"]), st.sampled_from(["born", "p q"]),
    st.booleans(),
    values, st.sampled_from(["asserted", "denied"]), st.sampled_from([[], ["as_of"], ["n", "as_of"]]),
    st.lists(st.sampled_from(["d1", "d2", ""]), max_size=3),
)  # fmt: skip


def _decoded(rows: list[dict]) -> list[_Fact]:
    return msgspec.json.Decoder(list[_Fact]).decode(msgspec.json.encode(rows))


def _columns(fact_columns, rows):
    n = len(rows)
    wide, narrow = np.zeros((len(WIDE), n), np.int64), np.zeros((len(NARROW), n), np.int8)
    predicates: dict[int, str] = {}
    types: dict[int, str] = {}
    fact_columns(rows, normalise_value, _scoped, fold, wide, narrow, predicates, types)
    return dict(zip(WIDE, wide.tolist(), strict=True)), narrow.tolist(), predicates, types


@pytest.mark.parametrize(("fact_columns", "doc_hashes"), IMPLEMENTATIONS)
@settings(max_examples=150, deadline=None)
@given(rows=st.lists(facts, max_size=8))
def test_hashes_are_those_of_the_key_table_built_from_encoded_keys(fact_columns, doc_hashes, rows):
    decoded = _decoded(rows)
    wide, narrow, predicates, types = _columns(fact_columns, decoded)
    models = [Fact.model_validate(row) for row in rows]
    table = KeyTable.of([fact_key(f) for f in models])
    assert wide["subject_rest"] == table.subject_rest.tolist()
    assert wide["object_rest"] == table.object_rest.tolist()
    assert wide["subject_node"] == table.subject_name.tolist()
    assert wide["object_node"] == table.object_name.tolist()
    assert effective_types(np.array(wide["subject_type"], np.int64)).tolist() == (
        table.subject_type.tolist()
    )
    assert effective_types(np.array(wide["object_type"], np.int64)).tolist() == (
        table.object_type.tolist()
    )
    assert wide["predicate"] == table.predicate.tolist()
    assert narrow[0] == table.literal.tolist()
    assert predicates == table.predicates
    # The same columns from pydantic Facts (the Python API's path).
    assert _columns(fact_columns, models) == (wide, narrow, predicates, types)
    for f, row in zip(models, zip(*wide.values(), *narrow, strict=True), strict=True):
        by = dict(zip([*WIDE, *NARROW], row, strict=True))
        name = " ".join(f.subject.key.casefold().split())
        own = " ".join(f.subject.type.casefold().split())
        prefix, colon, rest = name.partition(":")
        bare = rest.strip(" ") if colon and prefix.strip(" ") and rest.strip(" ") else name
        same = colon and prefix.strip(" ") == own and bare != name
        assert by["subject_node"] == hash(bare if same else name)
        assert by["subject_bare"] == hash(bare)
        assert (
            by["subject_type"] == hash(f.subject.type)
            and types[by["subject_type"]] == f.subject.type
        )
        entity = f.object_entity
        if entity is None:
            assert by["object_node"] == hash(normalise_value(f.object_value)) ^ LITERAL_NODE
            assert by["object_names"] == hash(str(f.object_value)) ^ LITERAL_NAMES
            assert by["object_type"] == 0
        else:
            assert by["object_node"] == node_of(entity.key, entity.type)
            assert by["object_names"] == hash(
                (entity.key, entity.type, entity.label, entity.aliases)
            )
        assert by["polarity"] == ["asserted", "denied", "partial"].index(f.polarity.value)
        assert by["verdict"] == 0

    n = len(decoded)
    hashes, counts = np.zeros(n, np.int64), np.zeros(n, np.int64)
    docs: dict[int, str] = {}
    doc_hashes(decoded, True, hashes, counts, docs)
    firsts = [f.doc_ids[0] if f.doc_ids else "" for f in models]
    assert hashes.tolist() == [hash(d) for d in firsts]
    assert counts.tolist() == [len(f.evidence) for f in models]
    assert docs == {hash(d): d for d in firsts}


@pytest.mark.parametrize(("fact_columns", "doc_hashes"), IMPLEMENTATIONS)
def test_gold_documents_and_short_buffers(fact_columns, doc_hashes):
    gold = msgspec.json.Decoder(list[_Gold]).decode(
        b'[{"doc_id": "a", "fact": {"subject": {"key": "s"}, "predicate": "p", "object_value": 1}},'
        b' {"doc_id": "b", "fact": {"subject": {"key": "s"}, "predicate": "p", "object_value": 2}}]'
    )
    hashes = np.zeros(2, np.int64)
    docs: dict[int, str] = {}
    doc_hashes(gold, False, hashes, hashes, docs)
    assert hashes.tolist() == [hash("a"), hash("b")] and docs == {hash("a"): "a", hash("b"): "b"}
    short = (np.zeros((len(WIDE), 1), np.int64), np.zeros((len(NARROW), 1), np.int8))
    with pytest.raises((ValueError, IndexError)):  # C names the buffer; numpy refuses the index
        fact_columns([g.fact for g in gold], normalise_value, _scoped, fold, *short, {}, {})


@pytest.mark.skipif(
    not (shutil.which("cc") or shutil.which("gcc")), reason="no C compiler: the Python fallback"
)
def test_the_extension_is_built_where_a_compiler_is():
    # pip builds it wherever a compiler is (as in CI): a silent fallback would hide a broken build.
    assert keyhash.COMPILED


def test_the_loader_reads_the_same_with_the_python_fallback(tmp_path, monkeypatch):
    from openodke.eval.engine import fastload

    rows = [
        {"subject": {"key": f"s{i % 7}"}, "predicate": "p", "object_value": i % 3,
         "evidence": [{"doc_id": f"d{i % 5}"}] * (i % 3)}
        for i in range(50)
    ]  # fmt: skip
    path = tmp_path / "facts.jsonl"
    path.write_text("".join(msgspec.json.encode(r).decode() + "\n" for r in rows))
    from openodke.eval.engine import columns

    compiled = fastload.load_facts(path)
    monkeypatch.setattr(columns, "fact_columns", keyhash.py_fact_columns)
    monkeypatch.setattr(columns, "doc_hashes", keyhash.py_doc_hashes)
    fallback = fastload.load_facts(path)
    for column in ("key", "subject", "object", "literal", "predicate"):
        assert getattr(compiled.keys, column).tolist() == getattr(fallback.keys, column).tolist()
    for column in ("subject_node", "object_node", "subject_bare", "object_names", "polarity"):
        assert getattr(compiled, column).tolist() == getattr(fallback, column).tolist()
    assert compiled.docs.tuples() == fallback.docs.tuples()


@pytest.mark.parametrize("line_starts", [keyhash.py_line_starts, keyhash.line_starts])
@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(
        st.sampled_from(["{}", " {}", '{"a": 1}', "", " ", "\t\r", "\r", "x y", "  \t{} "]),
        max_size=12,
    ),
    crlf=st.booleans(),
    last=st.booleans(),
)
def test_line_starts_finds_the_lines_holding_json(line_starts, lines, crlf, last):
    text = ("\r\n" if crlf else "\n").join(lines) + ("\n" if last else "")
    block = memoryview(text.encode())
    expected, at = [], 0
    for line in text.split("\n"):
        if line.strip(" \t\r"):
            expected.append(at)
        at += len(line) + 1
    starts = np.zeros(len(expected) + 2, np.int64)
    assert line_starts(block, starts) == len(expected)
    assert starts[: len(expected)].tolist() == expected


# -- the row checks the structs' hooks made (DECISIONS 312) -------------------------------------

CHECKS = [pytest.param(py_check_rows, id="python")]
if keyhash.COMPILED:
    CHECKS.append(pytest.param(check_rows, id="c"))

_OK = {"subject": {"key": "s"}, "predicate": "p", "object_entity": {"key": "o"}}


def _nested(depth: int) -> list:
    value: list = [1]
    for _ in range(depth):
        value = [value]
    return value


_DEEP = {"a": _nested(MAX_NESTING)}  # past what the careful reader takes


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize(
    ("row", "refused"),
    [
        (_OK, None),
        ({**_OK, "object_entity": None, "object_value": 3}, None),
        ({**_OK, "object_entity": None, "object_value": False}, None),  # falsy, still a value
        ({**_OK, "object_entity": {"key": "\u00a0o"}}, None),  # a key with letters
        ({**_OK, "subject": {"key": ""}}, "key is blank"),
        ({**_OK, "subject": {"key": " \t\u3000"}}, "key is blank"),  # str.strip's whitespace
        ({**_OK, "object_entity": {"key": "\n"}}, "key is blank"),
        ({**_OK, "object_value": 1}, "exactly one"),
        ({**_OK, "object_entity": None}, "exactly one"),
        ({**_OK, "qualifiers": {"a": [1, [2]]}}, None),
        ({**_OK, "qualifiers": _DEEP}, "nested too deeply"),
        ({**_OK, "subject": {"key": "s", "attributes": _DEEP}}, "nested too deeply"),
        ({**_OK, "object_entity": {"key": "o", "attributes": _DEEP}}, "nested too deeply"),
        (
            {**_OK, "evidence": [{"doc_id": "d", "span": {"doc_id": "d", "start": 0, "end": 0}}]},
            None,
        ),
        (
            {**_OK, "evidence": [{"doc_id": "d", "span": {"doc_id": "d", "start": 3, "end": 9}}]},
            None,
        ),
        (
            {**_OK, "evidence": [{"doc_id": "d", "span": {"doc_id": "d", "start": 9, "end": 3}}]},
            "span offsets",
        ),
        (
            {**_OK, "evidence": [{"doc_id": "d", "span": {"doc_id": "d", "start": -1, "end": 3}}]},
            "span offsets",
        ),
        (
            {
                **_OK,
                "evidence": [
                    {"doc_id": "d"},
                    {"doc_id": "d", "mention": {"doc_id": "d", "start": 5, "end": 4}},
                ],
            },
            "span offsets",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_check_rows_refuses_what_the_models_refuse(check, row, refused):
    decoded = _decoded([_OK, row, _OK])
    if refused is None:
        check(decoded, MAX_NESTING)
        Fact.model_validate(row)  # the models take it too
        return
    with pytest.raises(ValueError, match=refused):
        check(decoded, MAX_NESTING)
    if refused != "nested too deeply":  # the models refuse it (the careful reader, the depth)
        with pytest.raises(ValueError):
            Fact.model_validate(row)


def _nest(shape: list[int]) -> object:
    """A value of dicts (0) and lists (1) nested in the order ``shape`` gives, a number inside."""
    value: object = 1
    for kind in reversed(shape):
        value = {"k": value, "n": 2} if kind == 0 else [3, value]
    return value


@settings(max_examples=200, deadline=None)
@example(shape=[0] * (MAX_NESTING - 3), where="qualifiers")  # the bound, and one past it
@example(shape=[1] * (MAX_NESTING - 2), where="qualifiers")
@example(shape=[0] * (MAX_NESTING - 4), where="subject")
@example(shape=[1] * (MAX_NESTING - 3), where="object")
@given(
    shape=st.lists(st.integers(0, 1), min_size=0, max_size=MAX_NESTING + 2),
    where=st.sampled_from(["qualifiers", "subject", "object"]),
)
def test_check_rows_nesting_bound_is_the_python_rule(shape, where):
    """C and Python refuse the same free-form values, to the level (qualifiers get two levels
    less than the bound, attributes three)."""
    value = _nest(shape)
    row = dict(_OK)
    if where == "qualifiers":
        row["qualifiers"] = {"q": value}
    else:
        key = "subject" if where == "subject" else "object_entity"
        row[key] = {"key": "k", "attributes": {"a": value}}
    decoded = _decoded([row])
    outcomes = []
    for check in (py_check_rows, check_rows):
        try:
            check(decoded, MAX_NESTING)
            outcomes.append(None)
        except ValueError as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]
    room = MAX_NESTING - (2 if where == "qualifiers" else 3)
    containers = len(shape) + 1  # the qualifiers' or attributes' own mapping, then the shape
    assert (outcomes[0] is not None) == (containers > room)


# -- a field read from its slot is what getattr reads (the C reader's shortcut) ------------------


class _SlotEntity:
    """An end whose fields are plain slots (member descriptors), as a msgspec Struct's are."""

    __slots__ = ("key", "type", "label", "aliases", "attributes")

    def __init__(self, key: str) -> None:
        self.key, self.type, self.label, self.aliases, self.attributes = key, "Thing", None, [], {}


class _SlotFact:
    __slots__ = ("subject", "object_entity", "object_value", "qualifiers", "evidence")

    def __init__(self, subject: str, obj: str) -> None:
        self.subject, self.object_entity = _SlotEntity(subject), _SlotEntity(obj)
        self.object_value, self.qualifiers, self.evidence = None, {}, []


@pytest.mark.skipif(not keyhash.COMPILED, reason="the compiled reader")
def test_a_field_read_from_its_slot_follows_the_type_as_getattr_does():
    """The compiled checks read a slot's field without getattr, and remember where it lies per
    type: a type changed since (a property now in the field's place), an empty slot, or a
    pydantic model are read as getattr reads them."""
    rows = [_SlotFact("s", "o")]
    check_rows(rows, MAX_NESTING)  # the offsets are remembered now
    original = _SlotFact.__dict__["subject"]
    try:
        _SlotFact.subject = property(lambda self: _SlotEntity(" "))  # type: ignore[misc, assignment]
        with pytest.raises(ValueError, match="key is blank"):
            check_rows(rows, MAX_NESTING)
    finally:
        _SlotFact.subject = original  # type: ignore[misc]
    check_rows(rows, MAX_NESTING)
    empty = _SlotFact("s", "o")
    del empty.object_entity  # an empty slot: getattr's AttributeError
    with pytest.raises(AttributeError):
        check_rows([empty], MAX_NESTING)
    # rows of several types in one call, each type's offsets its own
    mixed = [*_decoded([_OK]), _SlotFact("s", "o"), *_decoded([_OK])]
    check_rows(mixed, MAX_NESTING)
    mixed[1] = _SlotFact("s", "\t")
    with pytest.raises(ValueError, match="key is blank"):
        check_rows(mixed, MAX_NESTING)
