"""openodke: measure knowledge-extraction pipelines: how good, where they lose facts, was it real."""

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from openodke.validate import Validator

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
    "Validator",
    "__version__",
    "normalise_value",
]


def __getattr__(name: str) -> Any:
    # The Validator pulls in the model layer, grounding and every stage: import it on first use,
    # so `import openodke` (and every command that does not validate) stays quick.
    if name == "Validator":
        from openodke.validate import Validator

        return Validator
    raise AttributeError(f"module 'openodke' has no attribute {name!r}")
