"""Pass-through stages: each kind's ``passthrough``, which changes nothing.

Naming one in a run config (or passing one to the Validator) turns that stage off: the router
sends every chunk on, the grounder leaves verdicts as they are, the normalizer and corroborator
return the facts unchanged, the resolver proposes no link, the scorer keeps each confidence and
the gate accepts everything.
"""

from __future__ import annotations

from collections.abc import Sequence

from openodke.protocols import RouteVerdict, ValidationVerdict
from openodke.types import Document, EntityLink, Fact

__all__ = [
    "PassthroughCorroborator",
    "PassthroughGate",
    "PassthroughGrounder",
    "PassthroughNormalizer",
    "PassthroughResolver",
    "PassthroughRouter",
    "PassthroughScorer",
]


class _Passthrough:
    name = "passthrough"

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class PassthroughRouter(_Passthrough):
    """Sends every chunk on to the extractor."""

    def route(self, text: str) -> RouteVerdict:
        """Always ``extract``."""
        return RouteVerdict(action="extract", reason="passthrough")


class PassthroughGrounder(_Passthrough):
    """Leaves each fact's verdict as it came (``unchecked`` unless a reader stamped it)."""

    def ground(self, fact: Fact, document: Document) -> Fact:
        """The fact itself."""
        return fact


class PassthroughNormalizer(_Passthrough):
    """Leaves values and names as written."""

    def normalize(self, facts: Sequence[Fact]) -> list[Fact]:
        """The facts, unchanged."""
        return list(facts)


class PassthroughResolver(_Passthrough):
    """Proposes no link."""

    def resolve(self, facts: Sequence[Fact]) -> list[EntityLink]:
        """No links."""
        return []


class PassthroughCorroborator(_Passthrough):
    """Merges nothing: facts with one signature stay apart, each with ``support`` 1."""

    def corroborate(self, facts: Sequence[Fact]) -> list[Fact]:
        """The facts, unchanged."""
        return list(facts)


class PassthroughScorer(_Passthrough):
    """Keeps each fact's confidence as the extractor set it."""

    def score(self, fact: Fact) -> Fact:
        """The fact itself."""
        return fact


class PassthroughGate(_Passthrough):
    """Accepts every fact."""

    def decide(self, fact: Fact) -> ValidationVerdict:
        """Always ``accept``."""
        return ValidationVerdict(action="accept")
