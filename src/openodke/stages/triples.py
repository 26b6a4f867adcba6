"""The ``triples`` extractor: facts another system already wrote, as triples rows.

It reads ``path`` (a triples JSONL file, ``openodke.interop.triples``), pairs each row with the
document its ``doc`` names (id, then source file stem when unique: ``openodke.interop.match``) and
turns it into a Fact with ``to_fact``: no model is called. ``stats`` counts rows by evidence kind
(``cited``, ``quoted``, ``quote_not_found``, ``context``), ``unmatched_rows`` and ``ambiguous_rows``,
and lists the first 20 ``unmatched_docs`` and ``ambiguous_docs``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from openodke.interop.match import DocumentIndex, match_rows
from openodke.interop.triples import (
    DEFAULT_CONFIDENCE,
    EVIDENCE_KINDS,
    TripleRow,
    evidence_kind,
    read_triples,
    to_fact,
)
from openodke.ontology import Ontology
from openodke.stages.base import ExtractionResult
from openodke.types import Chunk, Document, Fact

__all__ = ["TriplesExtractor"]


class TriplesExtractor:
    """Facts from a triples file (``triples``). Options: ``path`` (required; relative to the run
    config's folder), ``extractor`` (stamped on rows that name none; default ``triples``),
    ``confidence`` (the prior of rows without one, 0.5)."""

    name = "triples"

    def __init__(
        self,
        path: str | Path,
        ontology: Ontology | None = None,
        *,
        extractor: str | None = None,
        confidence: float = DEFAULT_CONFIDENCE,
        base_dir: str | Path | None = None,
    ) -> None:
        resolved = Path(path)
        if base_dir is not None and not resolved.is_absolute():
            resolved = Path(base_dir) / resolved
        self.path = resolved
        self.ontology = ontology
        self.extractor = extractor or self.name
        self.confidence = confidence
        self.rows: list[TripleRow] = read_triples(resolved)
        self.stats: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"TriplesExtractor({str(self.path)!r}, rows={len(self.rows)})"

    def _fact(self, row: TripleRow, doc: Document) -> Fact:
        return to_fact(
            row, doc, self.ontology, confidence=self.confidence, extractor=self.extractor
        )

    def extract(self, document: Document) -> list[Fact]:
        """The facts of the rows naming this document (by id or by its source file's stem)."""
        index = DocumentIndex([document])
        return [self._fact(row, document) for row in self.rows if index.get(row.doc) is not None]

    def extract_batch(self, items: Sequence[tuple[Document, Sequence[Chunk]]]) -> ExtractionResult:
        """Every row paired with its document among ``items``; rows naming none are counted."""
        documents = [document for document, _ in items]
        matched = match_rows(self.rows, documents)
        kinds = dict.fromkeys(EVIDENCE_KINDS, 0)
        facts = []
        for row, doc in matched.matched:
            kinds[evidence_kind(row, doc)] += 1
            facts.append(self._fact(row, doc))
        self.stats = {
            "rows": len(self.rows),
            **kinds,
            "unmatched_rows": matched.unmatched_rows,
            "ambiguous_rows": matched.ambiguous_rows,
            "unmatched_docs": list(matched.unmatched_docs),
            "ambiguous_docs": list(matched.ambiguous_docs),
            "notes": list(matched.notes),
        }
        return ExtractionResult(facts=facts, stats=dict(self.stats))
