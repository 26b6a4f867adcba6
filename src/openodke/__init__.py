"""openodke: measure knowledge-extraction pipelines: how good, where they lose facts, was it real."""

from __future__ import annotations

# Not typing.TYPE_CHECKING: importing typing would widen the window in which Ctrl-C at start-up
# ends `odke` with a traceback. Type checkers read any TYPE_CHECKING as true.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

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
    from openodke.validate import Validator

    __version__: str

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


_TYPES = frozenset(__all__) - {"Validator", "__version__"}


def __getattr__(name: str) -> Any:
    # Loaded on first use, so `import openodke` is instant: the command line sets up its signal
    # handling before anything slow loads, and a command that needs none of these never pays.
    if name in _TYPES:
        from openodke import types

        value = getattr(types, name)
    elif name == "Validator":  # the model layer, grounding and every stage
        from openodke.validate import Validator as value
    elif name == "__version__":
        from openodke._version import __version__ as value
    else:
        raise AttributeError(f"module 'openodke' has no attribute {name!r}")
    globals()[name] = value
    return value
