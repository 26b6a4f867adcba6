"""``reextract``: re-ask the model on narrower windows around what the first pass left unlinked.

After extraction, per document: the sentences that name an entity the document's facts name
(its label, whole words, case ignored) but that no fact cites are the places a fact was likely
missed (the diagnosis's "entity never extracted" and "both seen but not linked" misses). Each such
sentence, with one neighbour either side, is a window; the first ``windows`` (3) windows of each
document are asked again, one call each, through the run's model extractor (``llm``, or the model
half of ``hybrid``). A fact whose signature the first pass did not find is kept, stamped
``qualifiers["odke.reextract"] = {"window": [start, end]}``. Extractors without a model part
cannot re-ask: the step is skipped with a warning.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from openodke.stages import ExtractionResult, sentence_spans
from openodke.types import Chunk, Document, Fact

__all__ = ["REEXTRACT", "model_extractor", "reextract", "windows_of"]

REEXTRACT = "odke.reextract"
"""The qualifier a re-extracted fact carries: the window it was found in."""


def model_extractor(extractor: Any) -> Any:
    """The extractor's model part (itself for ``llm``, ``.llm`` for ``hybrid``), or None."""
    if getattr(extractor, "name", None) == "llm" and callable(
        getattr(extractor, "extract_batch", None)
    ):
        return extractor
    inner = getattr(extractor, "llm", None)
    return inner if callable(getattr(inner, "extract_batch", None)) else None


def _names(facts: Sequence[Fact]) -> list[str]:
    names: dict[str, None] = {}
    for fact in facts:
        for end in (fact.subject, fact.object_entity):
            if end is not None and end.label and len(end.label) > 1:
                names.setdefault(end.label, None)
    return list(names)


def windows_of(document: Document, facts: Sequence[Fact], limit: int) -> list[Chunk]:
    """The first ``limit`` windows of ``document`` worth asking again (see the module docstring)."""
    text = document.text
    spans = sentence_spans(text)
    cited = [
        (e.span.start, e.span.end)
        for fact in facts
        for e in fact.evidence
        if e.doc_id == document.id and e.span is not None
    ]
    patterns = [
        re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE) for name in _names(facts)
    ]
    chunks: list[Chunk] = []
    for i, (start, end) in enumerate(spans):
        if any(s < end and start < e for s, e in cited):
            continue
        if not any(p.search(text, start, end) for p in patterns):
            continue
        first, last = spans[max(0, i - 1)][0], spans[min(len(spans) - 1, i + 1)][1]
        if chunks and first < chunks[-1].end:
            continue  # overlaps the window before it
        chunks.append(
            Chunk(
                doc_id=document.id, start=first, end=last, text=text[first:last], index=len(chunks)
            )
        )
        if len(chunks) >= limit:
            break
    return chunks


def reextract(
    extractor: Any, documents: Sequence[Document], result: ExtractionResult, limit: int
) -> tuple[list[Fact], dict[str, Any]]:
    """The new facts re-asking finds, and the step's counts (``windows``, ``calls``, ``facts``)."""
    model = model_extractor(extractor)
    if model is None:
        return [], {"skipped": "the extractor has no model part to re-ask"}
    by_doc: dict[str, list[Fact]] = {}
    for fact in result.facts:
        for doc_id in fact.doc_ids:
            by_doc.setdefault(doc_id, []).append(fact)
    items = []
    for document in documents:
        windows = windows_of(document, by_doc.get(document.id, []), limit)
        if windows:
            items.append((document, windows))
    if not items:
        return [], {"windows": 0, "calls": 0, "facts": 0}
    again = model.extract_batch(items)
    seen = {fact.signature for fact in result.facts}
    found: list[Fact] = []
    spans = {doc.id: [(c.start, c.end) for c in chunks] for doc, chunks in items}
    for fact in again.facts:
        if fact.signature in seen:
            continue
        seen.add(fact.signature)
        window = _window(fact, spans)
        qualifiers = {**fact.qualifiers, REEXTRACT: {"window": list(window) if window else None}}
        found.append(fact.model_copy(update={"qualifiers": qualifiers}))
    for doc_id, why in again.failed.items():
        result.failed.setdefault(doc_id, f"re-extraction: {why}")
    result.rejections.extend(again.rejections)
    stats = {
        "windows": sum(len(chunks) for _, chunks in items),
        "calls": int(again.stats.get("calls", 0)),
        "facts": len(found),
    }
    return found, stats


def _window(fact: Fact, spans: dict[str, list[tuple[int, int]]]) -> tuple[int, int] | None:
    for evidence in fact.evidence:
        if evidence.span is None:
            continue
        for start, end in spans.get(evidence.doc_id, []):
            if start <= evidence.span.start and evidence.span.end <= end:
                return start, end
    return None
