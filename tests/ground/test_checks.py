"""The free checks: the span check against the text, and the schema checks against an ontology."""

from __future__ import annotations

import pytest

from openodke import Document, Entity, Evidence, Fact, GroundingVerdict, Span, SpanOrigin
from openodke.ground import (
    CHECK,
    findings,
    is_free_not_found,
    schema_check,
    schema_kind,
    schema_misfits,
    span_check,
)
from openodke.ontology import Ontology

TEXT = "Halden Robotics was founded in Oslo in 2011. It makes welding arms."
DOC = Document(id="d1", text=TEXT)
HALDEN = Entity(key="Company:halden robotics", type="Company", label="Halden Robotics")
OSLO = Entity(key="City:oslo", type="City", label="Oslo")


def cited(start: int, end: int, quote: str | None = None, doc_id: str = "d1", **fields) -> Fact:
    span = Span(doc_id=doc_id, start=start, end=end, quote=quote)
    return Fact(
        id="f",
        subject=HALDEN,
        predicate="founded_in",
        object_entity=OSLO,
        evidence=(Evidence(doc_id=doc_id, span=span),),
        **fields,
    )


def test_good_offsets_and_quote_leave_the_fact_as_it_came() -> None:
    fact = cited(0, 44, TEXT[:44])
    assert span_check(fact, DOC) is fact


def test_offsets_without_quote_inside_the_text_pass() -> None:
    fact = cited(45, 67)
    assert span_check(fact, DOC) is fact


def test_a_quote_found_elsewhere_moves_the_span_and_says_so() -> None:
    fact = cited(0, 4, "Oslo")  # TEXT[0:4] is "Hald"; "Oslo" starts at 31
    checked = span_check(fact, DOC)
    span = checked.evidence[0].span
    assert (span.start, span.end) == (31, 35)
    assert checked.verdict is GroundingVerdict.unchecked
    assert findings(checked) == ["span: the quote is at 31-35, not at the cited 0-4"]


def test_a_quote_found_nowhere_is_not_found_for_free() -> None:
    checked = span_check(cited(0, 10, "Bergen"), DOC)
    assert checked.verdict is GroundingVerdict.not_found
    assert checked.qualifiers[CHECK] == "quote not found in the document: 'Bergen'"
    assert is_free_not_found(checked)


def test_offsets_outside_the_text_give_way_to_the_whole_text() -> None:
    checked = span_check(cited(60, 500), DOC)
    ev = checked.evidence[0]
    assert (ev.span.start, ev.span.end, ev.span_origin) == (0, len(TEXT), SpanOrigin.context)
    assert checked.verdict is GroundingVerdict.unchecked
    assert findings(checked) == [
        f"span: 60-500 is outside the text ({len(TEXT)} characters), so the whole text stands in"
    ]


def test_a_citation_of_another_document_is_not_checked_against_this_one() -> None:
    fact = cited(0, 10, "Bergen", doc_id="d2")
    assert span_check(fact, DOC) is fact


def test_one_good_citation_keeps_a_fact_with_a_bad_quote_unchecked() -> None:
    bad = Evidence(doc_id="d1", span=Span(doc_id="d1", start=0, end=6, quote="Bergen"))
    good = Evidence(doc_id="d1", span=Span(doc_id="d1", start=0, end=44))
    fact = cited(0, 1).model_copy(update={"evidence": (bad, good)})
    checked = span_check(fact, DOC)
    assert checked.verdict is GroundingVerdict.unchecked
    assert findings(checked) == ["quote not found in the document: 'Bergen'"]


def test_a_verdict_already_given_is_kept() -> None:
    fact = cited(0, 10, "Bergen", verdict=GroundingVerdict.supported)
    assert span_check(fact, DOC).verdict is GroundingVerdict.supported


def test_findings_read_the_triples_readers_string_too() -> None:
    fact = cited(0, 1).model_copy(
        update={
            "verdict": GroundingVerdict.not_found,
            "qualifiers": {CHECK: "quote not found in the document: 'x'"},
        }
    )
    assert is_free_not_found(fact)
    assert not is_free_not_found(fact.model_copy(update={"qualifiers": {}}))


ONTOLOGY = Ontology.from_dict(
    {
        "types": {
            "Company": {},
            "Startup": {"parents": ["Company"]},
            "Place": {},
            "City": {"parents": ["Place"]},
            "Person": {},
        },
        "predicates": {
            "founded_in": {"domain": ["Company"], "range": "Place"},
            "employees": {"domain": ["Company"], "range": "integer"},
        },
    }
)
PERSON = Entity(key="Person:ada", type="Person", label="Ada")


def fact_of(subject: Entity, predicate: str, obj: Entity | int | str) -> Fact:
    if isinstance(obj, Entity):
        return Fact(subject=subject, predicate=predicate, object_entity=obj)
    return Fact(subject=subject, predicate=predicate, object_value=obj)


@pytest.mark.parametrize(
    ("fact", "expected"),
    [
        (fact_of(HALDEN, "founded_in", OSLO), []),  # City is a Place
        (fact_of(HALDEN.model_copy(update={"type": "Startup"}), "founded_in", OSLO), []),
        (fact_of(HALDEN, "Founded In", OSLO), []),  # names compare case- and _-blind
        (fact_of(HALDEN, "employees", 40), []),
        (
            fact_of(HALDEN, "headquartered_in", OSLO),
            ["schema: predicate 'headquartered_in' is not in the ontology"],
        ),
        (
            fact_of(PERSON, "founded_in", OSLO),
            ["schema: domain of founded_in is Company, not Person"],
        ),
        (
            fact_of(HALDEN, "founded_in", PERSON),
            ["schema: range of founded_in is Place, not Person"],
        ),
        (
            fact_of(HALDEN, "founded_in", "Oslo"),
            ["schema: range of founded_in is Place, not a value"],
        ),
        (
            fact_of(HALDEN, "employees", OSLO),
            ["schema: range of employees is integer, not an entity (City)"],
        ),
        (
            fact_of(PERSON, "employees", OSLO),
            [
                "schema: domain of employees is Company, not Person",
                "schema: range of employees is integer, not an entity (City)",
            ],
        ),
        # An untyped end fits anything.
        (fact_of(Entity(key="x"), "founded_in", Entity(key="y")), []),
    ],
)
def test_schema_misfits(fact: Fact, expected: list[str]) -> None:
    assert schema_misfits(fact, ONTOLOGY) == expected


def test_a_misfit_keeps_its_verdict_and_is_written_to_odke_check() -> None:
    fact = fact_of(PERSON, "founded_in", OSLO).model_copy(
        update={"verdict": GroundingVerdict.supported}
    )
    checked = schema_check(fact, ONTOLOGY)
    assert checked.verdict is GroundingVerdict.supported
    assert checked.qualifiers[CHECK] == "schema: domain of founded_in is Company, not Person"
    assert [schema_kind(f) for f in findings(checked)] == ["domain"]
    assert schema_check(checked, ONTOLOGY) == checked  # a finding is not written twice


def test_schema_kind_names_only_schema_findings() -> None:
    assert schema_kind("schema: range of x is Place, not Person") == "range"
    assert schema_kind("quote not found in the document: 'x'") is None
    assert schema_kind("schema: something else") is None
