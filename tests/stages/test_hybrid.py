"""The hybrid extractor: pattern lines and the model's reading, merged by signature."""

from __future__ import annotations

from openodke import Document
from openodke.llm import ModelRoles, ScriptedClient
from openodke.stages import HybridExtractor, PassthroughChunker

SHEET = "Legal name: Acme\nFounded: 1998\nAcme is led by Kari Nordmann since 2020."


def test_both_found_is_kept_once_with_both_spans_and_one_found_keeps_its_name(ontology):
    reply = {
        "entities": [
            {
                "type": "Company",
                "name": "Acme",
                "facts": [
                    {"predicate": "founded", "value": "1998", "quote": "1998"},
                    {"predicate": "ceo", "value": "Kari Nordmann", "quote": "led by Kari Nordmann"},
                ],
            }
        ]
    }
    extractor = HybridExtractor(
        ontology,
        client=ScriptedClient([reply]),
        roles=ModelRoles.single("ollama/m"),
        pattern={"confidence": 0.9},
        llm={"max_workers": 1, "confidence": 0.6},
    )
    doc = Document(id="a.md", text=SHEET)
    result = extractor.extract_batch([(doc, PassthroughChunker().chunk(doc))])
    got = [
        (f.predicate, f.object_key, f.extractor, f.confidence, len(f.evidence))
        for f in result.facts
    ]
    assert got == [
        ("legal_name", "'Acme'", "pattern", 0.9, 1),
        ("founded", "'1998'", "hybrid", 0.9, 2),  # the pattern's line, then the model's quote
        ("ceo", "Person:kari nordmann", "llm", 0.6, 1),
    ]
    spans = [e.span.quote for e in result.facts[1].evidence if e.span]
    assert spans == ["Founded: 1998", "1998"]
    assert result.coverage is not None and extractor.prompts == ["extract.facts@1"]


def test_llm_false_runs_the_pattern_extractor_alone(ontology):
    extractor = HybridExtractor(ontology, llm=False)
    doc = Document(id="a.md", text=SHEET)
    facts = extractor.extract(doc)
    assert [(f.predicate, f.extractor) for f in facts] == [
        ("legal_name", "pattern"),
        ("founded", "pattern"),
    ]
    assert extractor.coverage() is None and extractor.prompts == []
