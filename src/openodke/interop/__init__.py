"""Interop: triples rows, matching rows to documents, and adapters for other systems' output."""

from openodke.interop.adapters import (
    ADAPTERS,
    read_graphrag,
    read_langchain,
    read_langextract,
    read_predictions,
)
from openodke.interop.match import DocumentIndex, MatchResult, match_documents, match_rows
from openodke.interop.triples import (
    DEFAULT_CONFIDENCE,
    EVIDENCE_KINDS,
    TripleRow,
    entity_key,
    evidence_kind,
    is_fact_rows,
    read_triples,
    to_fact,
    triples_json_schema,
)

__all__ = [
    "ADAPTERS",
    "DEFAULT_CONFIDENCE",
    "EVIDENCE_KINDS",
    "DocumentIndex",
    "MatchResult",
    "TripleRow",
    "entity_key",
    "evidence_kind",
    "is_fact_rows",
    "match_documents",
    "match_rows",
    "read_graphrag",
    "read_langchain",
    "read_langextract",
    "read_predictions",
    "read_triples",
    "to_fact",
    "triples_json_schema",
]
