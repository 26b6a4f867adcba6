"""VerdictGate: which facts are written, from their grounding verdicts and free-check findings.

In order, per fact:

1. with ``schema=True``, a schema misfit the free checks found (``odke.check`` ``schema: ...``) is
   refused, its finding the reason (``schema: predicate 'x' is not in the ontology``);
2. ``contradicted`` is always refused (``grounding verdict contradicted: the passage says
   otherwise``); ``not_found`` only with ``refuse_not_found=True`` (``grounding verdict
   not_found: the passage does not settle it``); ``unchecked`` and ``supported`` pass;
3. a fact the corroborator flagged with ``odke.conflict`` gets ``conflict``: written and flagged;
4. anything else is accepted.

**The calibration bar** (DECISIONS #54): a grounding refusal of a verdict a model gave, by a
grounder whose card does not meet the bar (no card: ``UNCALIBRATED``), is *marked* instead,
unless ``enforce=True``: the fact is written with ``qualifiers["odke.review"]`` set to the reason
and counted under ``marked``. Schema misfits and free-check results (a quote not in the text) are
decided as configured, whatever the bar.

``stats = {"accepted": n, "refused": {reason: n}, "marked": {reason: n}}``: ``accepted`` counts
facts written unmarked (flagged conflicts among them).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from openodke.calibration import CalibrationCard, find_card, meets_bar
from openodke.ground.checks import findings, is_free_not_found, schema_kind
from openodke.protocols import ValidationVerdict
from openodke.types import Fact, GroundingVerdict

__all__ = [
    "CONFLICT",
    "CONTRADICTED",
    "NOT_FOUND",
    "REVIEW",
    "GateResult",
    "VerdictGate",
    "mark",
    "reason_kind",
]

CONTRADICTED = "grounding verdict contradicted: the passage says otherwise"
NOT_FOUND = "grounding verdict not_found: the passage does not settle it"
CONFLICT = "conflict: another source gives a competing value"
REVIEW = "odke.review"
"""The qualifier a marked fact carries: the refusal reason it was spared."""

_CONFLICT_KEY = "odke.conflict"


def reason_kind(reason: str) -> str:
    """A reason's short name, as ``refused_by`` counts them: ``contradicted``, ``not_found``,
    ``predicate``, ``domain``, ``range``, ``conflict``; else the reason itself."""
    if reason == CONTRADICTED:
        return "contradicted"
    if reason == NOT_FOUND:
        return "not_found"
    if reason.startswith("conflict"):
        return "conflict"
    return schema_kind(reason) or reason


@dataclass
class GateResult:
    """What the gate did with a batch: facts written (marked ones carry ``odke.review``) and
    ``(fact, reason)`` per refused fact, both in input order."""

    written: list[Fact] = field(default_factory=list)
    refused: list[tuple[Fact, str]] = field(default_factory=list)


@dataclass(frozen=True)
class _Decision:
    action: str
    reason: str | None
    marked: bool


class VerdictGate:
    """The verdict gate (see the module docstring).

    ``card``: the grounder's calibration card (None: ``UNCALIBRATED``, below the bar). Build it
    from a grounder's judge with :meth:`for_judge`.
    """

    def __init__(
        self,
        refuse_not_found: bool = False,
        schema: bool = False,
        enforce: bool = False,
        card: CalibrationCard | None = None,
    ) -> None:
        self.refuse_not_found = refuse_not_found
        self.schema = schema
        self.enforce = enforce
        self.card = card
        self._lock = threading.Lock()
        self._accepted = 0
        self._refused: Counter[str] = Counter()
        self._marked: Counter[str] = Counter()

    @classmethod
    def for_judge(
        cls,
        model: str,
        prompt: str,
        cards: Sequence[CalibrationCard],
        **options: Any,
    ) -> VerdictGate:
        """A gate whose bar is the card of the judge ``model`` + ``prompt`` among ``cards``."""
        return cls(card=find_card(cards, model, prompt), **options)

    def __repr__(self) -> str:
        return (
            f"VerdictGate(refuse_not_found={self.refuse_not_found}, schema={self.schema}, "
            f"enforce={self.enforce}, calibrated={self.calibrated})"
        )

    @property
    def calibrated(self) -> bool:
        """True when the grounder's card meets the bar (n >= 100, agreement low >= 0.90)."""
        return meets_bar(self.card)

    @property
    def refused(self) -> frozenset[GroundingVerdict]:
        """The verdicts this gate refuses: contradicted, and not_found when asked to."""
        verdicts = {GroundingVerdict.contradicted}
        if self.refuse_not_found:
            verdicts.add(GroundingVerdict.not_found)
        return frozenset(verdicts)

    @property
    def stats(self) -> dict[str, Any]:
        """``{"accepted": n, "refused": {reason: n}, "marked": {reason: n}}``."""
        with self._lock:
            return {
                "accepted": self._accepted,
                "refused": dict(self._refused),
                "marked": dict(self._marked),
            }

    def _judge(self, fact: Fact) -> _Decision:
        if self.schema:
            for finding in findings(fact):
                if schema_kind(finding) is not None:
                    return _Decision("refuse", finding, False)
        reason = None
        if fact.verdict is GroundingVerdict.contradicted:
            reason = CONTRADICTED
        elif fact.verdict is GroundingVerdict.not_found and self.refuse_not_found:
            reason = NOT_FOUND
        if reason is not None:
            by_model = not is_free_not_found(fact)
            if self.enforce or not by_model or self.calibrated:
                return _Decision("refuse", reason, False)
            action = "conflict" if _CONFLICT_KEY in fact.qualifiers else "accept"
            return _Decision(action, reason, True)
        if _CONFLICT_KEY in fact.qualifiers:
            return _Decision("conflict", CONFLICT, False)
        return _Decision("accept", None, False)

    def _count(self, decision: _Decision) -> None:
        with self._lock:
            if decision.marked:
                self._marked[decision.reason or ""] += 1
            elif decision.action == "refuse":
                self._refused[decision.reason or ""] += 1
            else:
                self._accepted += 1

    def decide(self, fact: Fact) -> ValidationVerdict:
        """accept, refuse or conflict, with the reason; a marked fact is accepted (or flagged as
        a conflict) with the refusal reason it was spared. Counted in ``stats``."""
        decision = self._judge(fact)
        self._count(decision)
        return ValidationVerdict(action=decision.action, reason=decision.reason)  # type: ignore[arg-type]

    def apply(self, facts: Iterable[Fact]) -> GateResult:
        """Decide every fact: refused ones with their reasons, the rest written (marked ones with
        ``qualifiers["odke.review"]``); counted in ``stats``."""
        result = GateResult()
        for fact in facts:
            decision = self._judge(fact)
            self._count(decision)
            if decision.action == "refuse":
                result.refused.append((fact, decision.reason or ""))
            elif decision.marked:
                result.written.append(mark(fact, decision.reason or ""))
            else:
                result.written.append(fact)
        return result


def mark(fact: Fact, reason: str) -> Fact:
    """A copy of ``fact`` marked for review: ``qualifiers["odke.review"] = reason``."""
    return fact.model_copy(update={"qualifiers": {**fact.qualifiers, REVIEW: reason}})
