"""The contracts of the pipeline's stage kinds, and what an extraction pass returns.

Extractors, grounders, scorers, gates, routers and sinks have their contracts in
``openodke.protocols`` (the Evaluator's ``--run`` stages). The kinds only a run needs are here:
loaders, chunkers, normalizers, resolvers and corroborators. Every contract is structural: any
object with the method will do, no base class to inherit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from openodke.types import Chunk, Document, EntityLink, Fact, Literal

__all__ = [
    "Chunker",
    "Corroborator",
    "ExtractionResult",
    "Loader",
    "Normalizer",
    "Rejection",
    "Resolver",
]


@runtime_checkable
class Loader(Protocol):
    """Reads one input path into Documents."""

    def load(self, path: Path, base_dir: Path) -> list[Document]:
        """The documents at ``path``; ids are the path relative to ``base_dir``."""
        ...


@runtime_checkable
class Chunker(Protocol):
    """Cuts a document into windows the extractor reads one at a time."""

    def chunk(self, document: Document) -> list[Chunk]:
        """The chunks, in order; each ``text == document.text[start:end]``."""
        ...


@runtime_checkable
class Normalizer(Protocol):
    """Rewrites values and names into one form; never drops a fact."""

    def normalize(self, facts: Sequence[Fact]) -> list[Fact]:
        """One fact out per fact in, in order."""
        ...


@runtime_checkable
class Resolver(Protocol):
    """Proposes links between entity keys; never merges or replaces nodes."""

    def resolve(self, facts: Sequence[Fact]) -> list[EntityLink]:
        """The links proposed between the entities the facts name."""
        ...


@runtime_checkable
class Corroborator(Protocol):
    """Merges facts that state the same thing and counts their independent sources."""

    def corroborate(self, facts: Sequence[Fact]) -> list[Fact]:
        """One fact per signature, with ``support`` and ``supported_by`` filled."""
        ...


class Rejection(BaseModel):
    """A candidate an extractor read but did not keep, and why (``rejections.jsonl``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    document: str = Field(description="The document's id.")
    chunk: int | None = Field(default=None, description="The chunk's index, when chunked.")
    reason: str = Field(description="A short fixed reason: 'quote not in chunk', ...")
    subject: str | None = Field(default=None, description="The subject's name as answered.")
    predicate: str | None = Field(default=None, description="The predicate as answered.")
    value: Literal | None = Field(default=None, description="The object as answered.")
    quote: str | None = Field(default=None, description="The quote as answered.")


@dataclass
class ExtractionResult:
    """What an extraction pass over many documents gave.

    ``failed`` maps a document id to why it failed (a model call that still failed after its
    retries, an extractor that raised); such a document's other facts are kept, but a run that
    scores it must say so. ``stats`` holds the extractor's counts (calls, rejected by reason, rows
    by evidence kind, ...); ``coverage`` is ``stats.coverage`` when the extractor offers snippets.
    """

    facts: list[Fact] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    coverage: dict[str, Any] | None = None

    def extend(self, other: ExtractionResult) -> None:
        """Add another pass's facts, rejections and failures (stats are the caller's to merge)."""
        self.facts.extend(other.facts)
        self.rejections.extend(other.rejections)
        for doc_id, why in other.failed.items():
            self.failed.setdefault(doc_id, why)


def rejected_counts(rejections: Iterable[Rejection]) -> dict[str, int]:
    """``{"rejected": n, "rejected: <reason>": n, ...}``: the metrics a run reports."""
    counts: dict[str, int] = {"rejected": 0}
    for rejection in rejections:
        counts["rejected"] += 1
        key = f"rejected: {rejection.reason}"
        counts[key] = counts.get(key, 0) + 1
    return counts
