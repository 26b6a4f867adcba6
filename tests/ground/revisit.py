"""The real-data grounding set: facts Revisit-DocRED's re-annotation has that Re-DocRED lacks.

Revisit-DocRED (``data/revisit-docred/valid_scratch.json``) re-annotated 96 DocRED dev documents
from scratch; all 96 are in Re-DocRED (``dev_revised.json`` or ``test_revised.json``), 87 with
identical entity lists, so their facts join on ``(h, t, r)``. We ground a subset: the first
``DOCUMENT_COUNT`` titles in sorted order whose entity lists are identical (``Baunilha e
chocolate`` is the one skipped among them), and in each every scratch fact whose ``(h, t, r)``
Re-DocRED's labels lack. Text, entities and predicate names come from the dataset's own files
through ``openodke.bench.redocred``; a fact's id is ``<Re-DocRED id>:S<label index in scratch>``
and it cites the whole document (the scratch labels carry no evidence sentences), so grounding
runs with ``locate=True``: the span locator picks the window the model is shown.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from openodke import Document, Evidence, Fact, Span, SpanOrigin
from openodke.bench.redocred import document_text, predicate_names, vertex_entities
from tests.conftest import DATA

__all__ = [
    "DESCRIPTION",
    "DOCUMENT_COUNT",
    "MODEL",
    "READER",
    "cassette",
    "propose",
    "questions",
    "revisit_documents",
    "revisit_facts",
    "selected",
]

DOCUMENT_COUNT = 12
MODEL = "ollama/recorded-reader"
"""The grounder's model name, served by a local replay server: no model was ever asked (the
answers were written by reading; see the fixture README), and each says so in its ``model``."""


def _read(path: str) -> Any:
    return json.loads((DATA / path).read_text(encoding="utf-8"))


def _entity_lists(doc: dict[str, Any]) -> list[list[tuple[Any, ...]]]:
    return [
        [(m["name"], m["sent_id"], tuple(m["pos"]), m["type"]) for m in entity]
        for entity in doc["vertexSet"]
    ]


@cache
def selected() -> tuple[tuple[str, dict[str, Any], dict[str, Any]], ...]:
    """``(Re-DocRED id, Re-DocRED doc, scratch doc)`` of the chosen documents, by title."""
    scratch = {doc["title"]: doc for doc in _read("revisit-docred/valid_scratch.json")}
    ours: dict[str, tuple[str, dict[str, Any]]] = {}
    for split in ("dev", "test"):
        for i, doc in enumerate(_read(f"redocred/{split}_revised.json")):
            if doc["title"] in scratch:
                ours[doc["title"]] = (f"{split}_{i:04d}", doc)
    chosen = []
    for title in sorted(scratch):
        doc_id, doc = ours[title]
        if _entity_lists(doc) == _entity_lists(scratch[title]):
            chosen.append((doc_id, doc, scratch[title]))
        if len(chosen) == DOCUMENT_COUNT:
            break
    return tuple(chosen)


def revisit_documents() -> list[Document]:
    """The chosen documents' texts (tokens joined by single spaces), ids as Re-DocRED's."""
    return [Document(id=doc_id, text=document_text(doc)) for doc_id, doc, _ in selected()]


def revisit_facts() -> list[Fact]:
    """Every scratch fact Re-DocRED lacks in the chosen documents, citing the whole text."""
    names = predicate_names(_read("redocred/rel_info.json"))
    facts: list[Fact] = []
    for doc_id, doc, scratch in selected():
        have = {(label["h"], label["t"], label["r"]) for label in doc["labels"]}
        entities = vertex_entities(scratch)
        text = document_text(scratch)
        whole = Span(doc_id=doc_id, start=0, end=len(text))
        seen: set[tuple[int, int, str]] = set()
        for number, label in enumerate(scratch["labels"]):
            key = (label["h"], label["t"], label["r"])
            if key in have or key in seen:
                continue
            seen.add(key)
            facts.append(
                Fact(
                    id=f"{doc_id}:S{number}",
                    subject=entities[label["h"]],
                    predicate=names[label["r"]],
                    object_entity=entities[label["t"]],
                    evidence=(Evidence(doc_id=doc_id, span=whole, span_origin=SpanOrigin.context),),
                    extractor="revisit-docred",
                )
            )
    return facts


def questions(grounder: Any) -> list[tuple[Fact, str, str]]:
    """``(fact, claim line, passage)`` per fact, as ``grounder`` (an LLMGrounder) would ask."""
    documents = {doc.id: doc for doc in revisit_documents()}
    facts = revisit_facts()
    planned = grounder.plan([(f, documents[f.evidence[0].doc_id]) for f in facts])
    asked = []
    for fact, call in zip(facts, planned, strict=True):
        claim, _, passage = call.messages[-1]["content"].partition("\n\nPassage:\n")
        asked.append((fact, claim, passage))
    return asked


def propose(passage: str, text: str) -> str:
    """The deterministic first reader: ``supported`` when the locator found a window naming both
    ends, ``not_found`` when it did not (the whole text is shown). Every proposal was then read
    and corrected by hand (``revisit.readings.jsonl``)."""
    return "not_found" if passage == text else "supported"


def cassette(readings: list[dict[str, Any]], grounder: Any) -> dict[str, Any]:
    """The ReplayClient cassette: one interaction per fact, matched by its claim line and the
    start of its passage, answering the verdict read by hand."""
    verdicts = {row["id"]: row["verdict"] for row in readings}
    interactions = []
    for fact, claim, passage in questions(grounder):
        interactions.append(
            {
                "match": {"contains": [claim, "Passage:\n" + passage[:80]]},
                "response": {
                    "text": json.dumps({"verdict": verdicts[fact.id]}),
                    "model": READER,
                },
            }
        )
    return {"description": DESCRIPTION, "interactions": interactions}


READER = "hand/reader"
"""The ``model`` of every recorded answer: a person reading the passage, not a model."""

DESCRIPTION = (
    "Revisit-DocRED facts Re-DocRED lacks, first 12 documents (tests/ground/revisit.py), asked "
    "with ground.span@1 and locate=True. No model answered: each verdict was written by reading "
    "the passage shown (see tests/fixtures/grounding/README.md and revisit.readings.jsonl)."
)
