"""The ``hybrid`` extractor: the ``pattern`` extractor and the ``llm`` extractor, merged by signature.

Both read every document (the pattern extractor the whole document, the model each chunk). A
candidate both found is kept once: the pattern's fact (its id, value and span first), with the
model's evidence added, the higher confidence, and ``extractor`` ``hybrid``. A candidate one of
them found keeps that one's name. ``llm: false`` runs the pattern extractor alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from openodke.errors import InputError
from openodke.llm import LLMClient, ModelRoles
from openodke.ontology import Ontology
from openodke.stages.base import ExtractionResult
from openodke.stages.chunkers import PassthroughChunker
from openodke.stages.llm_extract import LLMExtractor
from openodke.stages.pattern import PatternExtractor
from openodke.types import Chunk, Document, Evidence, Fact

__all__ = ["HybridExtractor", "merge_by_signature"]


def merge_by_signature(first: Sequence[Fact], second: Sequence[Fact], *, name: str) -> list[Fact]:
    """``first`` then what only ``second`` found; a fact in both gets the other's evidence added,
    the higher confidence, and ``extractor`` ``name``."""
    by_signature: dict[Any, int] = {}
    merged: list[Fact] = []
    for fact in first:
        if fact.signature in by_signature:
            continue
        by_signature[fact.signature] = len(merged)
        merged.append(fact)
    for fact in second:
        at = by_signature.get(fact.signature)
        if at is None:
            by_signature[fact.signature] = len(merged)
            merged.append(fact)
            continue
        kept = merged[at]
        evidence: list[Evidence] = list(kept.evidence)
        evidence += [e for e in fact.evidence if e not in evidence]
        merged[at] = kept.model_copy(
            update={
                "evidence": tuple(evidence),
                "confidence": max(kept.confidence, fact.confidence),
                "extractor": name if kept.extractor != fact.extractor else kept.extractor,
            }
        )
    return merged


def _by_document(facts: Sequence[Fact]) -> dict[str, list[Fact]]:
    grouped: dict[str, list[Fact]] = {}
    for fact in facts:
        grouped.setdefault(fact.evidence[0].doc_id if fact.evidence else "", []).append(fact)
    return grouped


class HybridExtractor:
    """Pattern lines and model reading, merged by signature (``hybrid``).

    Options: ``pattern`` (the pattern extractor's options), ``llm`` (the llm extractor's options,
    or false for none).
    """

    name = "hybrid"

    def __init__(
        self,
        ontology: Ontology,
        *,
        client: LLMClient | None = None,
        roles: ModelRoles | None = None,
        pattern: Mapping[str, Any] | None = None,
        llm: Mapping[str, Any] | bool | None = None,
    ) -> None:
        self.ontology = ontology
        self.pattern = PatternExtractor(ontology, **dict(pattern or {}))
        self.llm: LLMExtractor | None = None
        if llm is not False:
            if client is None:
                raise InputError("hybrid: the llm part needs a model client (or set llm: false)")
            options = dict(llm) if isinstance(llm, Mapping) else {}
            self.llm = LLMExtractor(ontology, client=client, roles=roles, **options)
        self.stats: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"HybridExtractor({self.pattern!r}, {self.llm!r})"

    @property
    def prompts(self) -> list[str]:
        """The prompt ids the model part sends."""
        return self.llm.prompts if self.llm is not None else []

    def coverage(self) -> dict[str, Any] | None:
        """The model part's ``stats.coverage`` (None without one)."""
        return self.llm.coverage() if self.llm is not None else None

    def extract(self, document: Document) -> list[Fact]:
        """Both extractors' facts for one document, merged."""
        return self.extract_batch([(document, PassthroughChunker().chunk(document))]).facts

    def extract_batch(self, items: Sequence[tuple[Document, Sequence[Chunk]]]) -> ExtractionResult:
        """Pattern facts, then the model's, merged by signature per document."""
        patterned = self.pattern.extract_batch(items)
        if self.llm is None:
            self.stats = {"pattern": patterned.stats}
            return patterned
        read = self.llm.extract_batch(items)
        facts: list[Fact] = []
        found, read_by = _by_document(patterned.facts), _by_document(read.facts)
        for document, _ in items:
            pair = found.get(document.id, []), read_by.get(document.id, [])
            facts += merge_by_signature(*pair, name=self.name)
        self.stats = {"pattern": patterned.stats, "llm": read.stats, "facts": len(facts)}
        return ExtractionResult(
            facts=facts,
            rejections=read.rejections,
            failed=read.failed,
            stats=dict(self.stats),
            coverage=read.coverage,
        )
