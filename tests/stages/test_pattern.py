"""The pattern extractor: `Label: value` lines as facts about the document's subject."""

from __future__ import annotations

import pytest

from openodke import Document, SourceTier
from openodke.errors import InputError
from openodke.stages import PatternExtractor

SHEET = """# Halden Robotics

- **Legal name:** Halden Robotics Ltd
- Year founded: 2011
HQ: Oslo
Products: Arm X; Arm Y
Motto: Build well
See: https://example.com
"""


def test_lines_become_facts_about_the_subject_named_by_the_types_keys(ontology):
    doc = Document(
        id="sheet.md", text=SHEET, tier=SourceTier.authoritative, title="Halden Robotics"
    )
    facts = PatternExtractor(ontology).extract(doc)
    got = [(f.subject.key, f.predicate, f.object_key) for f in facts]
    # The subject is named by Company's key predicate legal_name, not by the title.
    assert got == [
        ("Company:halden robotics ltd", "legal_name", "'Halden Robotics Ltd'"),
        ("Company:halden robotics ltd", "founded", "'2011'"),  # the normalizer reads numbers
        ("Company:halden robotics ltd", "headquarters", "City:oslo"),  # range City: an edge
        ("Company:halden robotics ltd", "products", "'Arm X'"),  # multi: split at ';'
        ("Company:halden robotics ltd", "products", "'Arm Y'"),
    ]  # Motto is no predicate; the URL line is not a label
    first = facts[0]
    assert first.extractor == "pattern" and first.confidence == 0.8
    (evidence,) = first.evidence
    assert evidence.tier is SourceTier.authoritative and evidence.doc_id == "sheet.md"
    # The span runs from the label (bold marks included) to the value's end.
    assert evidence.span is not None
    assert evidence.span.quote == "**Legal name:** Halden Robotics Ltd"
    assert doc.text[evidence.span.start : evidence.span.end] == evidence.span.quote
    assert facts[2].object_entity is not None and facts[2].object_entity.label == "Oslo"


def test_mappings_choose_the_labels_and_the_title_names_a_subject_without_keys(ontology):
    doc = Document(id="d", text="Started: 1998\nBoss: Kari Nordmann\nHQ: Bergen", title="Brask")
    extractor = PatternExtractor(
        ontology, mappings={"started": "founded", "BOSS": "ceo"}, confidence=0.6
    )
    facts = extractor.extract(doc)
    assert [(f.subject.key, f.predicate, f.object_key, f.confidence) for f in facts] == [
        ("Company:brask", "founded", "'1998'", 0.6),
        ("Company:brask", "ceo", "Person:kari nordmann", 0.6),
    ]  # HQ is not mapped, so it is not read


def test_a_name_line_then_the_first_value_name_the_subject_without_keys_or_title():
    named = Document(id="d", text="age: 36\nname: Ada Lovelace")
    extractor = PatternExtractor(mappings={"age": "age", "name": "name"}, subject_type="Person")
    assert {f.subject.key for f in extractor.extract(named)} == {"Person:ada lovelace"}
    first = Document(id="d", text="city: Oslo\nage: 36")
    facts = PatternExtractor(mappings={"age": "age", "city": "city"}).extract(first)
    # No ontology: every value is a property, the subject type Thing.
    assert [(f.subject.key, f.predicate, f.object_value) for f in facts] == [
        ("Thing:oslo", "city", "Oslo"),
        ("Thing:oslo", "age", "36"),
    ]


def test_a_document_without_a_mapped_line_gives_nothing(ontology):
    assert PatternExtractor(ontology).extract(Document(id="d", text="Nothing to see here.")) == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "set mappings"),
        ({"mappings": {}, "confidence": 2.0}, "confidence"),
    ],
)
def test_bad_setup(kwargs, message):
    with pytest.raises(InputError, match=message):
        PatternExtractor(**kwargs)


def test_an_unknown_subject_type_is_refused(ontology):
    with pytest.raises(InputError, match="subject_type: 'Planet'"):
        PatternExtractor(ontology, subject_type="Planet")
