"""openodke: measure knowledge-extraction pipelines: how good, where they lose facts, was it real."""

from importlib.metadata import PackageNotFoundError, version

from openodke.types import (
    Chunk,
    Document,
    Entity,
    EntityLink,
    Evidence,
    Fact,
    GroundingVerdict,
    KnowledgeGraph,
    LinkKind,
    Modality,
    Polarity,
    Resolution,
    SourceTier,
    Span,
    SpanOrigin,
    Support,
    normalise_value,
)

try:
    __version__ = version("openodke")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0"

__all__ = [
    "Chunk",
    "Document",
    "Entity",
    "EntityLink",
    "Evidence",
    "Fact",
    "GroundingVerdict",
    "KnowledgeGraph",
    "LinkKind",
    "Modality",
    "Polarity",
    "Resolution",
    "SourceTier",
    "Span",
    "SpanOrigin",
    "Support",
    "__version__",
    "normalise_value",
]
