"""``ground_graph``: stamp a verdict on every fact of a set, each against the document it cites.

Rows may be Facts or triples rows (``TripleRow``, made into Facts by ``to_fact``). A fact's first
citation names its document by id, else by file name or stem (the harness's rules); a citation
joined by name or stem is rewritten to the document's id, so its span is checked against the
right text. A fact citing no document given is kept ``unchecked`` and counted (``no_document``):
grounding stamps, it never drops.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from openodke.ground.checked import CheckedGrounder
from openodke.interop.match import DocumentIndex
from openodke.interop.triples import TripleRow, to_fact
from openodke.ontology import Ontology
from openodke.protocols import bind_stage
from openodke.types import Document, Entity, Fact, KnowledgeGraph

__all__ = ["ground_facts", "ground_graph", "rehome"]


def _as_fact(row: Fact | TripleRow, index: DocumentIndex, ontology: Ontology | None) -> Fact:
    if isinstance(row, Fact):
        return row
    return to_fact(row, index.get(row.doc), ontology)


def rehome(fact: Fact, document: Document) -> Fact:
    """The fact with its first citation's document id set to ``document.id``."""
    first = fact.evidence[0]
    if first.doc_id == document.id:
        return fact
    span = first.span.model_copy(update={"doc_id": document.id}) if first.span else None
    moved = first.model_copy(update={"doc_id": document.id, "span": span})
    return fact.model_copy(update={"evidence": (moved, *fact.evidence[1:])})


def ground_facts(
    facts: Iterable[Fact], documents: Iterable[Document] | DocumentIndex, grounder: Any
) -> tuple[list[Fact], int]:
    """Each fact grounded against its document, in input order; and how many cited none given."""
    index = documents if isinstance(documents, DocumentIndex) else DocumentIndex(documents)
    facts = list(facts)
    results: list[Fact] = list(facts)
    pairs: list[tuple[Fact, Document]] = []
    positions: list[int] = []
    for i, fact in enumerate(facts):
        document = index.get(fact.evidence[0].doc_id) if fact.evidence else None
        if document is None:
            continue
        pairs.append((rehome(fact, document), document))
        positions.append(i)
    batch = getattr(grounder, "ground_all", None)
    if callable(batch):
        grounded = list(batch(pairs))
    else:
        ground = bind_stage(grounder, "ground")
        grounded = [ground(fact, doc) for fact, doc in pairs]
    for i, fact in zip(positions, grounded, strict=True):
        results[i] = fact
    return results, len(facts) - len(pairs)


def ground_graph(
    rows: Iterable[Fact | TripleRow],
    documents: Iterable[Document],
    grounder: Any = None,
    *,
    ontology: Ontology | None = None,
) -> KnowledgeGraph:
    """A graph of the rows' facts, each with a verdict.

    The free checks always run first (``grounder`` is put behind a ``CheckedGrounder`` unless it
    is one); ``grounder`` None runs them alone.

    ``stats["stages"]["grounder"]`` holds the grounder's counts (``GroundingStats``) with
    ``no_document`` added; ``stats["prompts"]`` and ``stats["claim_formats"]`` what it asked with.
    """
    index = DocumentIndex(documents)
    facts = [_as_fact(row, index, ontology) for row in rows]
    if not isinstance(grounder, CheckedGrounder):
        grounder = CheckedGrounder(grounder, ontology)
    grounded, uncited = ground_facts(facts, index, grounder)
    stats = getattr(grounder, "stats", None)
    counts: dict[str, Any] = dict(stats) if isinstance(stats, dict) else {}
    if uncited:
        verdicts = dict(counts.get("verdicts") or {})
        verdicts["unchecked"] = verdicts.get("unchecked", 0) + uncited
        counts["verdicts"] = verdicts
        counts["facts"] = counts.get("facts", 0) + uncited
    counts["no_document"] = counts.get("no_document", 0) + uncited
    entities: dict[str, Entity] = {}
    for fact in grounded:
        entities.setdefault(fact.subject.key, fact.subject)
        if fact.object_entity is not None:
            entities.setdefault(fact.object_entity.key, fact.object_entity)
    return KnowledgeGraph(
        entities=tuple(entities.values()),
        facts=tuple(grounded),
        ontology_name=ontology.name if ontology is not None else None,
        stats={
            "stages": {"grounder": counts},
            "prompts": list(getattr(grounder, "prompts", ()) or ()),
            "claim_formats": dict(getattr(grounder, "claim_formats", {}) or {}),
        },
    )
