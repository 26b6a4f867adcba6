"""The C hashing (openodke.eval.engine._keyhash) against the same code in Python, and both against the
key table the Fact-based path builds from encoded keys."""

from __future__ import annotations

import shutil

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openodke.eval.engine import keyhash
from openodke.eval.engine.fastload import _Fact, _Gold, _scoped
from openodke.eval.engine.key_table import KeyTable
from openodke.eval.engine.matching import fact_key
from openodke.types import Fact, normalise_value

IMPLEMENTATIONS = [pytest.param(keyhash.py_fact_hashes, keyhash.py_doc_hashes, id="python")]
if keyhash.COMPILED:
    IMPLEMENTATIONS.append(pytest.param(keyhash.fact_hashes, keyhash.doc_hashes, id="c"))

names = st.sampled_from(["ada", "Ada ", "bob", "", "é", "x y"])
values = st.one_of(
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    names,
)
facts = st.builds(
    lambda s, t, p, entity, value, polarity, keys, docs: {
        "subject": {"key": s, "type": t},
        "predicate": p,
        **({"object_entity": {"key": value if isinstance(value, str) else "o"}} if entity
           else {"object_value": value}),
        "polarity": polarity,
        "qualifiers": {"as_of": "2020", "n": 1},
        "identity_keys": keys,
        "evidence": [{"doc_id": d} for d in docs],
    },
    names, st.sampled_from(["Person", "Thing"]), st.sampled_from(["born", "p q"]), st.booleans(),
    values, st.sampled_from(["asserted", "denied"]), st.sampled_from([[], ["as_of"], ["n", "as_of"]]),
    st.lists(st.sampled_from(["d1", "d2", ""]), max_size=3),
)  # fmt: skip


def _decoded(rows: list[dict]) -> list[_Fact]:
    return msgspec.json.Decoder(list[_Fact]).decode(msgspec.json.encode(rows))


def _hashes(fact_hashes, decoded):
    n = len(decoded)
    subject, obj, predicate = (np.zeros(n, np.int64) for _ in range(3))
    literal = np.zeros(n, np.uint8)
    predicates: dict[int, str] = {}
    fact_hashes(decoded, normalise_value, _scoped, subject, obj, predicate, literal, predicates)
    return subject, obj, predicate, literal.view(bool), predicates


@pytest.mark.parametrize(("fact_hashes", "doc_hashes"), IMPLEMENTATIONS)
@settings(max_examples=150, deadline=None)
@given(rows=st.lists(facts, max_size=8))
def test_hashes_are_those_of_the_key_table_built_from_encoded_keys(fact_hashes, doc_hashes, rows):
    decoded = _decoded(rows)
    subject, obj, predicate, literal, predicates = _hashes(fact_hashes, decoded)
    models = [Fact.model_validate(row) for row in rows]
    table = KeyTable.of([fact_key(f) for f in models])
    assert subject.tolist() == table.subject.tolist()
    assert obj.tolist() == table.object.tolist()
    assert predicate.tolist() == table.predicate.tolist()
    assert literal.tolist() == table.literal.tolist()
    assert predicates == table.predicates

    n = len(decoded)
    hashes, counts = np.zeros(n, np.int64), np.zeros(n, np.int64)
    docs: dict[int, str] = {}
    doc_hashes(decoded, True, hashes, counts, docs)
    firsts = [f.doc_ids[0] if f.doc_ids else "" for f in models]
    assert hashes.tolist() == [hash(d) for d in firsts]
    assert counts.tolist() == [len(f.evidence) for f in models]
    assert docs == {hash(d): d for d in firsts}


@pytest.mark.parametrize(("fact_hashes", "doc_hashes"), IMPLEMENTATIONS)
def test_gold_documents_and_short_buffers(fact_hashes, doc_hashes):
    gold = msgspec.json.Decoder(list[_Gold]).decode(
        b'[{"doc_id": "a", "fact": {"subject": {"key": "s"}, "predicate": "p", "object_value": 1}},'
        b' {"doc_id": "b", "fact": {"subject": {"key": "s"}, "predicate": "p", "object_value": 2}}]'
    )
    hashes = np.zeros(2, np.int64)
    docs: dict[int, str] = {}
    doc_hashes(gold, False, hashes, hashes, docs)
    assert hashes.tolist() == [hash("a"), hash("b")] and docs == {hash("a"): "a", hash("b"): "b"}
    short = (np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64))
    with pytest.raises(ValueError):  # C names the buffer; numpy refuses the Python assignment
        fact_hashes(
            [g.fact for g in gold], normalise_value, _scoped, *short, np.zeros(1, np.uint8), {}
        )


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
    compiled = fastload.load_prediction_keys(path)
    monkeypatch.setattr(fastload, "fact_hashes", keyhash.py_fact_hashes)
    monkeypatch.setattr(fastload, "doc_hashes", keyhash.py_doc_hashes)
    fallback = fastload.load_prediction_keys(path)
    for column in ("key", "subject", "object", "literal", "predicate"):
        assert getattr(compiled.keys, column).tolist() == getattr(fallback.keys, column).tolist()
    assert compiled.docs.tuples() == fallback.docs.tuples()
