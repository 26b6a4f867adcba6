"""The triples extractor: rows paired with documents and turned into facts, with counts."""

from __future__ import annotations

import json

from openodke import Document, GroundingVerdict, SpanOrigin
from openodke.stages import PassthroughChunker, TriplesExtractor

TEXT = "Acme was founded in 1998. Kari Nordmann runs Acme."


def rows_file(tmp_path, rows):
    path = tmp_path / "out" / "triples.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_rows_become_facts_of_their_documents_with_counts_by_evidence_kind(tmp_path, ontology):
    rows = [
        {
            "doc": "texts/acme.txt",
            "subject": "Acme",
            "predicate": "founded",
            "object": 1998,
            "start": 0,
            "end": 25,
        },
        {
            "doc": "acme",
            "subject": "Acme",
            "predicate": "CEO",
            "object": "Kari Nordmann",
            "quote": "Kari Nordmann runs Acme",
        },
        {
            "doc": "acme",
            "subject": "Acme",
            "predicate": "ceo",
            "object": "Ola",
            "quote": "Ola runs it",
        },
        {"doc": "acme", "subject": "Acme", "predicate": "revenue", "object": 5, "confidence": 0.9},
        {"doc": "nowhere", "subject": "X", "predicate": "founded", "object": 1},
    ]
    rows_file(tmp_path, rows)
    extractor = TriplesExtractor(
        "out/triples.jsonl", ontology, base_dir=tmp_path, extractor="ext-v2"
    )
    doc = Document(id="texts/acme.txt", text=TEXT)
    result = extractor.extract_batch([(doc, PassthroughChunker().chunk(doc))])
    facts = result.facts
    assert [(f.subject.key, f.predicate, f.object_key) for f in facts] == [
        ("Company:acme", "founded", "1998"),
        ("Company:acme", "ceo", "Person:kari nordmann"),  # the predicate's range makes an edge
        ("Company:acme", "ceo", "Person:ola"),
        ("Company:acme", "revenue", "5"),
    ]
    assert facts[0].evidence[0].span is not None and facts[0].evidence[0].span.end == 25
    assert facts[1].evidence[0].span is not None and facts[1].evidence[0].span.start == 26
    assert facts[2].verdict is GroundingVerdict.not_found  # quote not in the text: free
    assert facts[3].evidence[0].span_origin is SpanOrigin.context
    assert [f.confidence for f in facts] == [0.5, 0.5, 0.5, 0.9]
    assert {f.extractor for f in facts} == {"ext-v2"}
    assert result.stats == {
        "rows": 5,
        "cited": 1,
        "quoted": 1,
        "quote_not_found": 1,
        "context": 1,
        "unmatched_rows": 1,
        "ambiguous_rows": 0,
        "unmatched_docs": ["nowhere"],
        "ambiguous_docs": [],
        "notes": ["1 row named no document and was dropped: 'nowhere'"],
    }
    # One document at a time: the rows naming it.
    assert len(extractor.extract(doc)) == 4
