"""Triples rows: reading with path:line errors, the schema, and every rule of to_fact."""

from __future__ import annotations

import json

import jsonschema
import pytest

from openodke import Document, Polarity, SpanOrigin
from openodke.errors import InputError
from openodke.interop import TripleRow, evidence_kind, is_fact_rows, read_triples, to_fact
from openodke.interop.triples import SCHEMA_PATH, entity_key, triples_json_schema
from openodke.ontology import Ontology
from openodke.types import GroundingVerdict

TEXT = "Halden Robotics was founded in 2019 by Ada Brandt. Ada Brandt works for Halden Robotics."
DOC = Document(id="halden.txt", text=TEXT, uri="file:///texts/halden.txt")
ONTOLOGY = Ontology.from_dict(
    {
        "types": {"Organisation": {}, "Company": {"parents": ["Organisation"]}, "Person": {}},
        "predicates": {
            "founded": {"domain": ["Company"], "range": "integer"},
            "works_for": {"domain": ["Person"], "range": "Organisation", "aliases": ["employer"]},
            "knows": {"domain": ["Person", "Company"], "range": "Person"},
            "revenue": {
                "domain": ["Company"],
                "range": "quantity",
                "qualifiers": {"year": {"identity": True}, "source": {}},
            },
        },
    }
)


def row(**fields) -> TripleRow:
    base = {
        "doc": "halden",
        "subject": "Ada Brandt",
        "predicate": "works_for",
        "object": "Halden Robotics",
    }
    return TripleRow(**{**base, **fields})


def write(tmp_path, *lines: str):
    path = tmp_path / "triples.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# -- reading -----------------------------------------------------------------------------------

GOOD = '{"doc": "halden", "subject": "Ada", "predicate": "works_for", "object": "Halden"}'


def test_read_triples_skips_blank_lines_and_keeps_types(tmp_path):
    path = write(
        tmp_path,
        GOOD,
        "",
        '{"doc": 7, "subject": "Halden", "predicate": "founded", "object": 2019, "start": 0, "end": 6, "confidence": 0.9}',
        '{"doc": "d", "subject": "x", "predicate": "listed", "object": true, "polarity": "denied"}',
        '{"doc": "d", "subject": "x", "predicate": "price", "object": 1.5, "schema_version": "1.3"}',
    )
    rows = read_triples(path)
    assert [r.object for r in rows] == ["Halden", 2019, True, 1.5]
    assert [type(r.object) for r in rows] == [str, int, bool, float]
    assert rows[1].doc == "7" and rows[1].confidence == 0.9
    assert rows[2].polarity is Polarity.denied
    assert rows[0].schema_version == "1.0"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            '{"doc": "d", "subject": "a", "predicate": "p", "obj": "b"}',
            "obj: unknown field (did you mean 'object'?)",
        ),
        ('{"doc": "d", "subject": "a", "predicate": "p", "object": "b",}', "invalid JSON"),
        (
            '{"doc": "d", "subject": "a", "predicate": "p", "object": "b", "start": 3}',
            "start and end come together: only start is given",
        ),
        (
            '{"doc": "d", "subject": "a", "predicate": "p", "object": "b", "end": 3}',
            "start and end come together: only end is given",
        ),
        (
            '{"doc": "d", "subject": "a", "predicate": "p", "object": "b", "start": 5, "end": 3}',
            "end 3 is before start 5",
        ),
        ('{"doc": "d", "subject": "a", "predicate": "p"}', "object: missing required field"),
        (
            '{"doc": "d", "subject": "a", "predicate": "p", "object": "b", "confidence": 1.5}',
            "confidence: Input should be less than or equal to 1",
        ),
        ('{"doc": "d", "subject": "a", "predicate": "p", "object": "  "}', "object is blank"),
        (
            '{"doc": "d", "subject": "a", "predicate": "p", "object": "b", "schema_version": "2.0"}',
            "schema_version",
        ),
        ('["d", "a", "p", "b"]', "expected a JSON object, got list"),
    ],
)
def test_read_triples_errors_name_path_and_line(tmp_path, line, message):
    path = write(tmp_path, GOOD, "", line)
    with pytest.raises(InputError) as caught:
        read_triples(path)
    assert str(caught.value).startswith(f"{path}:3: ")
    assert message in str(caught.value)
    assert caught.value.line == 3


def test_read_triples_empty_file(tmp_path):
    path = write(tmp_path, "")
    with pytest.raises(InputError, match="empty file"):
        read_triples(path)


# -- the schema --------------------------------------------------------------------------------


def test_committed_schema_is_up_to_date():
    committed = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert committed == triples_json_schema(), (
        "triples.schema.json is stale: run "
        "python -c 'from openodke.interop.triples import write_triples_schema as w; w()'"
    )


def test_schema_fields_are_exactly_the_row_fields():
    schema = triples_json_schema()
    assert set(schema["properties"]) == {
        "doc", "subject", "predicate", "object", "subject_type", "object_type", "start", "end",
        "quote", "polarity", "qualifiers", "confidence", "extractor", "id", "schema_version",
    }  # fmt: skip
    assert schema["required"] == ["doc", "subject", "predicate", "object"]
    assert schema["additionalProperties"] is False


@pytest.mark.parametrize(
    ("data", "valid"),
    [
        ({"doc": "d", "subject": "a", "predicate": "p", "object": 3}, True),
        ({"doc": "d", "subject": "a", "predicate": "p", "object": "b", "quote": "q"}, True),
        ({"doc": "d", "subject": "a", "predicate": "p"}, False),
        ({"doc": "d", "subject": "a", "predicate": "p", "object": "b", "extra": 1}, False),
        ({"doc": "d", "subject": "a", "predicate": "p", "object": [1]}, False),
    ],
)
def test_schema_agrees_with_the_model(data, valid):
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(data))
    assert (not errors) is valid


# -- is_fact_rows ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"subject": {"key": "Person:ada", "type": "Person"}, "predicate": "p", "object_value": 1}\n',
            True,
        ),
        ('\n\n{"subject": {"key": "k"}}\n', True),
        (GOOD + "\n", False),
        ('{"doc_id": "d1", "fact": {"subject": {"key": "k"}}}\n', False),
        ("not json\n", False),
        ("", False),
    ],
)
def test_is_fact_rows(tmp_path, text, expected):
    path = tmp_path / "rows.jsonl"
    path.write_text(text, encoding="utf-8")
    assert is_fact_rows(path) is expected


def test_is_fact_rows_missing_file_is_false(tmp_path):
    assert is_fact_rows(tmp_path / "none.jsonl") is False


# -- to_fact: evidence -------------------------------------------------------------------------


def test_offsets_make_a_cited_span_with_the_quote():
    fact = to_fact(row(start=51, end=88, quote="Ada Brandt works for Halden Robotics."), DOC)
    (evidence,) = fact.evidence
    assert evidence_kind(row(start=51, end=88), DOC) == "cited"
    assert (evidence.doc_id, evidence.span_origin) == ("halden.txt", SpanOrigin.cited)
    assert (evidence.span.start, evidence.span.end) == (51, 88)
    assert evidence.span.quote == "Ada Brandt works for Halden Robotics."
    assert evidence.span.is_faithful(DOC)
    assert evidence.uri == "file:///texts/halden.txt" and evidence.tier == DOC.tier
    assert fact.verdict is GroundingVerdict.unchecked


def test_a_quote_alone_is_searched_exactly():
    quoted = row(quote="works for Halden")
    fact = to_fact(quoted, DOC)
    span = fact.evidence[0].span
    assert evidence_kind(quoted, DOC) == "quoted"
    assert (span.start, span.end) == (
        TEXT.index("works for Halden"),
        TEXT.index("works for Halden") + 16,
    )
    assert (
        span.resolve(DOC) == "works for Halden" and fact.evidence[0].span_origin is SpanOrigin.cited
    )
    assert fact.verdict is GroundingVerdict.unchecked


def test_a_quote_not_found_is_stamped_not_found():
    missing = row(quote="works for halden")  # the search is exact: case counts
    fact = to_fact(missing, DOC)
    assert evidence_kind(missing, DOC) == "quote_not_found"
    assert fact.verdict is GroundingVerdict.not_found
    assert fact.qualifiers["odke.check"] == "quote not found in the document: 'works for halden'"
    assert fact.evidence[0].span_origin is SpanOrigin.context


def test_neither_makes_a_context_span_of_the_whole_text():
    fact = to_fact(row(), DOC)
    (evidence,) = fact.evidence
    assert evidence_kind(row(), DOC) == "context"
    assert evidence.span_origin is SpanOrigin.context
    assert (evidence.span.start, evidence.span.end) == (0, len(TEXT))


@pytest.mark.parametrize(
    ("fields", "kind", "has_span"),
    [
        ({"start": 0, "end": 3}, "cited", True),
        ({"quote": "x"}, "context", False),
        ({}, "context", False),
    ],
)
def test_without_the_document(fields, kind, has_span):
    fact = to_fact(row(**fields), None)
    assert evidence_kind(row(**fields), None) == kind
    assert fact.evidence[0].doc_id == "halden"  # the row's own reference
    assert (fact.evidence[0].span is not None) is has_span


# -- to_fact: typing ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "subject", "predicate", "object_entity", "object_value"),
    [
        # the range decides: a literal range makes a property, whatever the object looks like
        (
            {"subject": "Halden", "predicate": "FOUNDED", "object": "2019"},
            "Company:halden",
            "founded",
            None,
            "2019",
        ),
        # a type range makes an edge typed by the range, the subject typed by the one-type domain
        (
            {"predicate": "Works For"},
            "Person:ada brandt",
            "works_for",
            "Organisation:halden robotics",
            None,
        ),
        # an alias finds the predicate; object_type may name a subtype
        (
            {"predicate": "employer", "object_type": "company"},
            "Person:ada brandt",
            "works_for",
            "Company:halden robotics",
            None,
        ),
        # a domain of two types does not type the subject
        (
            {"predicate": "knows", "object": "Tomas"},
            "Thing:ada brandt",
            "knows",
            "Person:tomas",
            None,
        ),
        # subject_type matched case-insensitively to the ontology's name
        (
            {"predicate": "knows", "object": "Tomas", "subject_type": "PERSON"},
            "Person:ada brandt",
            "knows",
            "Person:tomas",
            None,
        ),
        # an unknown predicate is kept as written; a string object is an entity
        (
            {"predicate": "likes", "object": "Robots"},
            "Thing:ada brandt",
            "likes",
            "Thing:robots",
            None,
        ),
        # an unknown predicate with a number object is a property
        ({"predicate": "age", "object": 41}, "Thing:ada brandt", "age", None, 41),
        # an unknown type name is kept as written
        (
            {"predicate": "likes", "subject_type": "Robot", "object": "x", "object_type": "Gadget"},
            "Robot:ada brandt",
            "likes",
            "Gadget:x",
            None,
        ),
    ],
)
def test_typing_with_an_ontology(fields, subject, predicate, object_entity, object_value):
    fact = to_fact(row(**fields), DOC, ONTOLOGY)
    assert fact.subject.key == subject and fact.predicate == predicate
    assert (fact.object_entity.key if fact.object_entity else None) == object_entity
    assert fact.object_value == object_value


@pytest.mark.parametrize(
    ("fields", "object_entity", "object_value"),
    [
        ({}, "Thing:halden robotics", None),
        ({"object_type": "Company"}, "Company:halden robotics", None),
        ({"object_type": "date", "object": "2019-01-01"}, None, "2019-01-01"),
        ({"object_type": "String"}, None, "Halden Robotics"),
        ({"object": 2019}, None, 2019),
        ({"object": 2.5}, None, 2.5),
        ({"object": False}, None, False),
    ],
)
def test_typing_without_an_ontology(fields, object_entity, object_value):
    fact = to_fact(row(**fields), DOC)
    assert fact.subject.key == "Thing:ada brandt" and fact.predicate == "works_for"
    assert (fact.object_entity.key if fact.object_entity else None) == object_entity
    assert fact.object_value == object_value
    assert fact.is_edge is (object_entity is not None)


def test_entity_keys_are_case_folded_and_labels_as_written():
    fact = to_fact(row(subject="  Ada   BRANDT ", object="Halden  Robotics"), DOC, ONTOLOGY)
    assert fact.subject.key == "Person:ada brandt" and fact.subject.label == "Ada   BRANDT"
    assert fact.object_entity.key == "Organisation:halden robotics"
    assert fact.object_entity.label == "Halden  Robotics"
    assert entity_key("Company", "Halden\tRobotics") == "Company:halden robotics"


def test_confidence_extractor_id_polarity_and_identity_keys():
    plain = to_fact(row(), DOC)
    assert plain.confidence == 0.5 and plain.extractor == "triples"
    assert len(plain.id) == 32 and plain.id != to_fact(row(), DOC).id  # fresh each time
    given = to_fact(
        row(
            subject="Halden Robotics",
            predicate="revenue",
            object="12 MNOK",
            confidence=0.8,
            extractor="mine",
            id="f1",
            polarity="denied",
            qualifiers={"year": 2024, "source": "report"},
        ),
        DOC,
        ONTOLOGY,
        confidence=0.3,
        extractor="stage",
    )
    assert (given.confidence, given.extractor, given.id) == (0.8, "mine", "f1")
    assert given.polarity is Polarity.denied
    assert given.identity_keys == ("year",)
    assert given.signature == (
        "Company:halden robotics", "Company", "revenue", "'12 MNOK'", "denied", (("year", "2024"),),
    )  # fmt: skip
    assert to_fact(row(), DOC, confidence=0.3, extractor="stage").confidence == 0.3
