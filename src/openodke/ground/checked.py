"""CheckedGrounder: the free checks in front of any grounder (and, with none, the ``span`` grounder).

Per fact: the span check, then (with an ontology) the schema checks, then the inner grounder,
unless a free check already settled the fact (a quote found nowhere in its text: ``not_found``).
Its ``stats`` count the final verdicts, and add the inner grounder's calls, failures and cost.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from openodke.ground.checks import (
    is_free_not_found,
    schema_check,
    schema_misfits,
    span_check,
)
from openodke.ground.llm import PlannedCall
from openodke.ground.stats import GroundingStats, combine
from openodke.ontology import Ontology
from openodke.protocols import Grounder, bind_stage
from openodke.types import Document, Fact

__all__ = ["CheckedGrounder"]


class CheckedGrounder:
    """The free checks, then ``inner`` (any Grounder, or None for the free checks alone)."""

    def __init__(self, inner: Grounder | Any | None = None, ontology: Ontology | None = None):
        self.inner = inner
        self.ontology = ontology
        self._inner_ground = bind_stage(inner, "ground") if inner is not None else None
        self._stats = GroundingStats()

    def __repr__(self) -> str:
        return f"CheckedGrounder({self.inner!r})"

    def close(self) -> None:
        """Close the inner grounder (and the client it built), when it can be closed."""
        closing = getattr(self.inner, "close", None)
        if callable(closing):
            closing()

    def __enter__(self) -> CheckedGrounder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def stats(self) -> dict[str, Any]:
        """Final verdicts and free-check counts, with the inner grounder's calls added."""
        inner = getattr(self.inner, "stats", None)
        return combine(self._stats.as_dict(), inner if isinstance(inner, dict) else None)

    @property
    def claim_formats(self) -> dict[str, str]:
        """The inner grounder's prompts and their claim formats (none for the free checks)."""
        return dict(getattr(self.inner, "claim_formats", {}) or {})

    @property
    def prompts(self) -> tuple[str, ...]:
        """The inner grounder's prompt ids."""
        return tuple(getattr(self.inner, "prompts", ()) or ())

    @property
    def judges(self) -> list[dict[str, str]]:
        """The inner grounder's judges (``role``, ``model``, ``prompt``)."""
        return list(getattr(self.inner, "judges", []) or [])

    def check(self, fact: Fact, document: Document) -> Fact:
        """The free checks alone: the span check, and the schema checks with an ontology."""
        checked = span_check(fact, document)
        if is_free_not_found(checked) and not is_free_not_found(fact):
            self._stats.add("free_not_found")
        if self.ontology is not None:
            if schema_misfits(checked, self.ontology):
                self._stats.add("schema_misfits")
            checked = schema_check(checked, self.ontology)
        return checked

    def _settled(self, fact: Fact) -> bool:
        return self._inner_ground is None or is_free_not_found(fact)

    def ground(self, fact: Fact, document: Document) -> Fact:
        """The free checks, then the inner grounder unless they settled the fact."""
        checked = self.check(fact, document)
        result = checked if self._settled(checked) else self._inner_ground(checked, document)  # type: ignore[misc]
        self._stats.fact(result)
        return result

    def ground_all(self, pairs: Iterable[tuple[Fact, Document]]) -> list[Fact]:
        """Ground many facts; the inner grounder's ``ground_all`` (concurrent) when it has one."""
        work = [(self.check(fact, doc), doc) for fact, doc in pairs]
        ask = [i for i, (fact, _) in enumerate(work) if not self._settled(fact)]
        results = [fact for fact, _ in work]
        if ask:
            batch = getattr(self.inner, "ground_all", None)
            subset = [work[i] for i in ask]
            if callable(batch):
                answered = list(batch(subset))
            else:
                answered = [self._inner_ground(fact, doc) for fact, doc in subset]  # type: ignore[misc]
            for i, fact in zip(ask, answered, strict=True):
                results[i] = fact
        for fact in results:
            self._stats.fact(fact)
        return results

    def plan(self, pairs: Iterable[tuple[Fact, Document]]) -> list[PlannedCall]:
        """The model calls grounding ``pairs`` would make after the free checks; none are made."""
        planner = getattr(self.inner, "plan", None)
        if not callable(planner):
            return []
        checked = [(span_check(fact, doc), doc) for fact, doc in pairs]
        return list(planner([(f, d) for f, d in checked if not is_free_not_found(f)]))
