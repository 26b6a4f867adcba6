"""Gold written as triples rows, read by the rules predictions are read by.

A label file holds GoldFact rows (``{"doc_id", "fact"}``) or triples rows (``{"doc", "subject",
"predicate", "object", ...}``, the format a pipeline writes: :mod:`openodke.interop.triples`).
Each triples row becomes the GoldFact of :func:`~openodke.interop.triples.to_fact`, the function
that reads predictions: keys ``Type:name``, the ontology's predicate names, labels and aliases,
types from ``subject_type``/``object_type`` or the predicate's domain and range, literals by the
range. Its document is the one ``doc`` names among ``documents`` (by id, else the unique file
stem, as for predictions), or ``doc`` as written when no document has it (the scorers then join
ids by stem). ``odke label convert`` writes them as GoldFact rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from openodke.eval.engine.jsonl import load_jsonl
from openodke.eval.stages.labels import GoldFact
from openodke.eval.stages.triples_file import is_triples_file
from openodke.interop.match import DocumentIndex
from openodke.interop.triples import read_triples, to_fact
from openodke.ontology import Ontology
from openodke.types import Document

__all__ = ["gold_from_triples", "is_triples_file", "read_gold"]


def gold_from_triples(
    path: str | Path,
    documents: Sequence[Document] = (),
    ontology: Ontology | None = None,
) -> list[GoldFact]:
    """The GoldFacts a triples-row file states (InputError at ``path:line`` on a bad row).

    A row without an ``id`` gets ``gold-<line>``, so converting twice writes the same file.
    """
    index = DocumentIndex(documents) if documents else None
    out: list[GoldFact] = []
    for number, row in enumerate(read_triples(path), start=1):
        doc = index.resolve(row.doc)[0] if index is not None else None
        fact = to_fact(row, doc, ontology, extractor="gold")
        if row.id is None:
            fact = fact.model_copy(update={"id": f"gold-{number}"})
        out.append(GoldFact(doc_id=doc.id if doc is not None else row.doc, fact=fact))
    return out


def read_gold(
    path: str | Path,
    documents: Sequence[Document] = (),
    ontology: Ontology | None = None,
) -> list[GoldFact]:
    """Label rows as GoldFacts: GoldFact rows as they are, triples rows converted."""
    if is_triples_file(path):
        return gold_from_triples(path, documents, ontology)
    return load_jsonl(path, GoldFact)
