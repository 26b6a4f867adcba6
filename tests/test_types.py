"""The data model: signature, edges and properties, spans, enums, JSONL round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from openodke import (
    Document,
    Entity,
    Evidence,
    Fact,
    GroundingVerdict,
    KnowledgeGraph,
    Polarity,
    SourceTier,
    Span,
    normalise_value,
)
from openodke.eval import GoldFact, dump_jsonl, load_jsonl

acme = Entity(key="c:acme", type="Company")


def test_signature_matches_the_surface_example():
    fact = Fact(
        subject=acme,
        predicate="uptime",
        object_value="99.9%",
        qualifiers={"percentile": "p50", "note": "ignored"},
        identity_keys=("percentile",),
    )
    assert fact.signature == (
        "c:acme",
        "Company",
        "uptime",
        "'99.9%'",
        "asserted",
        (("percentile", "'p50'"),),
    )
    assert not fact.is_edge


def test_exactly_one_object():
    with pytest.raises(ValidationError, match="exactly one"):
        Fact(subject=acme, predicate="p")
    with pytest.raises(ValidationError, match="exactly one"):
        Fact(subject=acme, predicate="p", object_value=1, object_entity=acme)
    assert Fact(subject=acme, predicate="p", object_entity=acme).is_edge


def test_unknown_keys_are_refused():
    with pytest.raises(ValidationError, match="extra"):
        Entity.model_validate({"key": "a", "typo": 1})


def test_span_resolves_and_checks_its_quote():
    doc = Document(id="d", text="Ada Lovelace was born in 1815.")
    assert Span(doc_id="d", start=0, end=12).resolve(doc) == "Ada Lovelace"
    assert Span(doc_id="d", start=0, end=12, quote="Ada Lovelace").is_faithful(doc)
    assert not Span(doc_id="d", start=0, end=3, quote="Bob").is_faithful(doc)
    with pytest.raises(ValidationError):
        Span(doc_id="d", start=5, end=2)


def test_enum_defaults_and_weights():
    fact = Fact(subject=acme, predicate="p", object_value=1)
    assert (fact.polarity, fact.verdict, fact.support, fact.extractor) == (
        Polarity.asserted,
        GroundingVerdict.unchecked,
        1,
        "unknown",
    )
    assert [t.weight for t in SourceTier] == [0.2, 0.5, 0.8, 1.0]


def test_graph_splits_edges_and_properties():
    facts = (
        Fact(subject=acme, predicate="p", object_value=1),
        Fact(subject=acme, predicate="q", object_entity=acme),
    )
    graph = KnowledgeGraph(facts=facts)
    assert (len(graph), len(graph.edges), len(graph.properties)) == (2, 1, 1)


def test_fact_cites_each_document_once_in_order():
    fact = Fact(
        subject=acme,
        predicate="p",
        object_value=1,
        evidence=(Evidence(doc_id="b"), Evidence(doc_id="a"), Evidence(doc_id="b")),
    )
    assert fact.doc_ids == ("b", "a")


@pytest.mark.parametrize(
    ("value", "form"),
    [
        (1815, "1815"),
        ("1815", "1815"),
        (1815.0, "1815"),
        ("  Ada   LOVELACE ", "ada lovelace"),
        (99.9, "99.9"),
        ("1,815", "1,815"),
        (True, "true"),
        ("nan", "nan"),
    ],
)
def test_normalise_value(value, form):
    assert normalise_value(value) == form


# An entity's key is never blank (Entity refuses it), so neither are the names drawn here.
names = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=10
).filter(str.strip)
values = st.one_of(
    st.integers(-(10**6), 10**6),
    names,
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
)
facts = st.builds(
    lambda s, p, v, pol, docs: Fact(
        subject=Entity(key=s, type="T"),
        predicate=p,
        object_value=v,
        polarity=pol,
        evidence=tuple(Evidence(doc_id=d) for d in docs),
    ),
    names,
    names,
    values,
    st.sampled_from(list(Polarity)),
    st.lists(names, max_size=3),
)


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.tuples(names, facts), min_size=1, max_size=5))
def test_gold_rows_round_trip_through_jsonl(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("rt") / "gold.jsonl"
    gold = [GoldFact(doc_id=d, fact=f) for d, f in rows]
    dump_jsonl(path, gold)
    assert load_jsonl(path, GoldFact) == gold
    dump_jsonl(path, [g.fact for g in gold])
    assert load_jsonl(path, Fact) == [g.fact for g in gold]
