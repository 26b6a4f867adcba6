"""What the Validator is given: triples rows or Facts, each paired with the document it names.

A triples row (a ``TripleRow`` or its dict) names its document in ``doc``; a Fact by its first
citation's ``doc_id``. Either is resolved by the harness's rules (id, then a unique source file
stem: ``openodke.interop.match``), and a Fact cited by stem has that citation rewritten to the
document's id, so its span is checked against the right text. A row or fact naming no document
given (a fact citing nothing among them) is *unmatched*: dropped, counted, and named in a note.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from openodke.errors import InputError
from openodke.interop.match import DocumentIndex
from openodke.interop.triples import TripleRow, to_fact
from openodke.ontology import Ontology
from openodke.types import Document, Fact

__all__ = ["MatchedFacts", "match_facts"]

_LISTED = 20


@dataclass
class MatchedFacts:
    """Facts paired with their documents, in input order, and what could not be paired."""

    pairs: list[tuple[Fact, Document]] = field(default_factory=list)
    unmatched: int = 0
    notes: list[str] = field(default_factory=list)


def _as_row(value: Any, position: int) -> Fact | TripleRow:
    if isinstance(value, Fact | TripleRow):
        return value
    if isinstance(value, Mapping):
        try:
            if isinstance(value.get("subject"), Mapping):
                return Fact.model_validate(value)
            return TripleRow.model_validate(value)
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(p) for p in problem["loc"]) or "row"
            raise InputError(f"row {position}: {where}: {problem['msg']}") from None
    raise InputError(
        f"row {position}: expected a Fact, a TripleRow or a mapping, got {type(value).__name__}"
    )


def _rehomed(fact: Fact, document: Document) -> Fact:
    first = fact.evidence[0]
    if first.doc_id == document.id:
        return fact
    span = first.span.model_copy(update={"doc_id": document.id}) if first.span else None
    moved = first.model_copy(update={"doc_id": document.id, "span": span})
    return fact.model_copy(update={"evidence": (moved, *fact.evidence[1:])})


def match_facts(
    rows_or_facts: Iterable[Any],
    documents: Iterable[Document] | DocumentIndex,
    ontology: Ontology | None = None,
) -> MatchedFacts:
    """Each row or fact as a Fact with the document it names; the rest counted and noted."""
    index = documents if isinstance(documents, DocumentIndex) else DocumentIndex(documents)
    out = MatchedFacts(notes=list(index.notes))
    missing: dict[str, int] = {}
    for position, value in enumerate(rows_or_facts, start=1):
        row = _as_row(value, position)
        reference = row.doc if isinstance(row, TripleRow) else _cited(row)
        document = index.get(reference) if reference is not None else None
        if document is None:
            out.unmatched += 1
            shown = reference if reference is not None else "(no citation)"
            missing[shown] = missing.get(shown, 0) + 1
            continue
        if isinstance(row, TripleRow):
            fact = to_fact(row, document, ontology)
        else:
            fact = _rehomed(row, document)
        out.pairs.append((fact, document))
    if missing:
        listed = [f"'{ref}'" + (f" ({n})" if n > 1 else "") for ref, n in missing.items()]
        more = len(listed) - _LISTED
        shown = ", ".join(listed[:_LISTED]) + (f" and {more} more" if more > 0 else "")
        count = out.unmatched
        out.notes.append(
            f"{count} {'row' if count == 1 else 'rows'} named no document given and "
            f"{'was' if count == 1 else 'were'} dropped: {shown}"
        )
    return out


def _cited(fact: Fact) -> str | None:
    return fact.evidence[0].doc_id if fact.evidence else None
