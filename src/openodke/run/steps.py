"""The steps of a run, shared by ``execute`` and the ablation: read, chunk and route, extract.

Routing: each chunk goes to the router; ``skip`` drops it and ``defer`` holds it (neither is
shown to a model); a verdict with ``scope: document`` decides for the whole document, which then
is read by no extractor at all. An extractor that reads whole documents rather than chunks
(``pattern``, the pattern half of ``hybrid``, ``triples``) still reads a document whose chunks
were all skipped one by one. Extraction failures (a model call that still failed, an extractor
that raised) are collected per document, never raised.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from openodke.errors import InputError, ModelConfigError, OdkeError, RunStop
from openodke.protocols import as_route_verdict, bind_stage, call_stage
from openodke.run.build import Pipeline
from openodke.stages import ExtractionResult, unique_ids
from openodke.types import Chunk, Document, Evidence, Fact, SpanOrigin

__all__ = ["Routed", "extract", "fewer_collections", "load", "route"]

_THRESHOLDS = (20_000, 50, 1_000)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the cyclic garbage collector less often while a run builds its facts.

    A run makes hundreds of thousands of small models; at the default thresholds (700, 10, 10)
    the collector rescans them over and over, a third of a run's own time on 1,000 Re-DocRED
    documents (bench/run_overhead.py: 9.3-11.7 s, 6.5 s with these thresholds). It still runs,
    so cyclic garbage (tracebacks of failed calls) is freed; the thresholds are restored after.
    """
    before = gc.get_threshold()
    gc.set_threshold(*_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def load(pipeline: Pipeline) -> tuple[list[Document], list[str]]:
    """Every input's documents, ids unique across inputs; and the loaders' warnings."""
    documents: list[Document] = []
    warnings: list[str] = []
    config = pipeline.config
    for number, (item, loader) in enumerate(zip(config.inputs, pipeline.loaders, strict=True)):
        try:
            documents.extend(loader.load(item.path, config.base_dir))
        except InputError as error:
            if error.path is not None:
                raise
            raise InputError(
                f"inputs[{number}]: {error.message}", path=config.where, line=item.loader.line
            ) from None
        warnings.extend(getattr(loader, "warnings", []) or [])
    return unique_ids(documents), warnings


@dataclass
class Routed:
    """What reaches the extractor: each document with the chunks routed to it, and the counts."""

    items: list[tuple[Document, list[Chunk]]] = field(default_factory=list)
    chunks: int = 0
    skipped: int = 0
    deferred: int = 0
    skipped_documents: list[str] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)

    def stats(self) -> dict[str, Any]:
        """The router's counts: chunks seen, sent on, skipped, deferred, documents skipped."""
        return {
            "chunks": self.chunks,
            "extract": sum(len(chunks) for _, chunks in self.items),
            "skipped": self.skipped,
            "deferred": self.deferred,
            "skipped_documents": len(self.skipped_documents),
            "labels": dict(self.labels),
        }


def route(pipeline: Pipeline, documents: Sequence[Document]) -> Routed:
    """Chunk every document and route every chunk (see the module docstring)."""
    chunk = bind_stage(pipeline.chunker, "chunk")
    decide = bind_stage(pipeline.router, "route")
    routed = Routed()
    for document in documents:
        chunks = list(call_stage(chunk, document, where=f"document {document.id}"))
        routed.chunks += len(chunks)
        kept: list[Chunk] = []
        dropped_document = False
        for piece in chunks:
            verdict = as_route_verdict(
                call_stage(decide, piece.text, where=f"document {document.id}")
            )
            if verdict.label:
                routed.labels[verdict.label] = routed.labels.get(verdict.label, 0) + 1
            if verdict.action == "extract":
                kept.append(piece)
                continue
            if verdict.action == "skip":
                routed.skipped += 1
            else:
                routed.deferred += 1
            if verdict.scope == "document":
                dropped_document = True
                break
        if dropped_document:
            routed.skipped_documents.append(document.id)
            continue
        routed.items.append((document, kept))
    return routed


def _cites(fact: Fact, doc_id: str) -> Fact:
    if fact.evidence:
        return fact
    evidence = (Evidence(doc_id=doc_id, span_origin=SpanOrigin.context),)
    return fact.model_copy(update={"evidence": evidence})


def extract(
    pipeline: Pipeline, items: Sequence[tuple[Document, Sequence[Chunk]]]
) -> ExtractionResult:
    """The extractor over the routed documents: its ``extract_batch`` when it has one, else
    ``extract(document)`` per document. A fact citing nothing is taken to cite its document."""
    extractor = pipeline.extractor
    batch = getattr(extractor, "extract_batch", None)
    if callable(batch):
        try:
            result = batch(list(items))
        except (RunStop, ModelConfigError, OdkeError):
            raise
        except Exception as error:  # a custom extractor that raised on the batch
            failed = {doc.id: f"{type(error).__name__}: {error}" for doc, _ in items}
            return ExtractionResult(failed=failed)
        if not isinstance(result, ExtractionResult):
            result = ExtractionResult(facts=list(result))
        return result
    call = bind_stage(extractor, "extract")
    result = ExtractionResult()
    for document, _chunks in items:
        try:
            facts = call(document)
            result.facts.extend(_cites(fact, document.id) for fact in facts)
        except (RunStop, ModelConfigError):
            raise
        except Exception as error:
            result.failed[document.id] = f"{type(error).__name__}: {error}"
    result.stats = {
        "documents": len(items),
        "facts": len(result.facts),
        "failed_documents": len(result.failed),
    }
    return result
