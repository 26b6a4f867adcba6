"""Building a Fact from what an extractor read: a subject, a predicate, a value and a span.

Shared by the ``pattern`` and ``llm`` extractors so both key entities and type objects the same
way: entities are ``Type:case-folded name`` (``openodke.interop.triples.entity_key``); a predicate
whose range is a type makes an edge to an entity of that type, a literal range a property; identity
qualifier keys come from the ontology.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openodke.interop.triples import entity_key
from openodke.ontology import Ontology
from openodke.ontology.model import Predicate
from openodke.types import Document, Entity, Evidence, Fact, Span, SpanOrigin

__all__ = ["cited_evidence", "entity", "make_fact"]


def cited_evidence(document: Document, start: int, end: int) -> Evidence:
    """Evidence citing ``document.text[start:end]`` (quote included), with the document's source."""
    return Evidence(
        doc_id=document.id,
        span=Span(doc_id=document.id, start=start, end=end, quote=document.text[start:end]),
        span_origin=SpanOrigin.cited,
        uri=document.uri,
        tier=document.tier,
        retrieved_at=document.retrieved_at,
    )


def entity(type_name: str, name: str) -> Entity:
    """An entity keyed ``Type:case-folded name``, labelled with the name as written."""
    label = " ".join(name.split())
    return Entity(key=entity_key(type_name, label), type=type_name, label=label)


def make_fact(
    *,
    subject_type: str,
    subject_name: str,
    predicate: Predicate | str,
    value: Any,
    evidence: Evidence,
    ontology: Ontology | None,
    extractor: str,
    confidence: float,
    qualifiers: Mapping[str, Any] | None = None,
) -> Fact:
    """The fact ``subject predicate value``.

    With a known predicate its range decides: a type makes an edge (the value is the object's
    name), a literal type a property (the value as given). A predicate given as a plain string
    (no ontology entry) makes a property.
    """
    name = predicate.name if isinstance(predicate, Predicate) else predicate
    range_name = predicate.range if isinstance(predicate, Predicate) else "string"
    object_entity: Entity | None = None
    object_value: Any = None
    if ontology is not None and not ontology.is_literal(range_name):
        object_entity = entity(range_name, str(value))
    else:
        object_value = value
    return Fact(
        subject=entity(subject_type, subject_name),
        predicate=name,
        object_entity=object_entity,
        object_value=object_value,
        qualifiers=dict(qualifiers or {}),
        identity_keys=ontology.identity_keys(name) if ontology is not None else (),
        evidence=(evidence,),
        extractor=extractor,
        confidence=confidence,
    )
