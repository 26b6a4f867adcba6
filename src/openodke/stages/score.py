"""The ``evidence`` scorer: a fact's confidence from its sources' tier, its verdict and its support.

One source's weight is its tier's weight (``unverified`` 0.2 ... ``curated`` 1.0; the best tier
among the fact's sources, or ``prior`` for a fact citing nothing) times its verdict's weight
(``supported`` 1.0, ``unchecked`` 0.5, ``not_found`` 0.25, ``contradicted`` 0.0 unless
``verdict_weights`` says otherwise). Independent sources combine as a noisy-or:

    confidence = 1 - (1 - tier x verdict) ** support

so a curated, supported fact scores 1.0; an unverified unchecked one 0.1; the same said by three
sources 1 - 0.9 ** 3 = 0.271. The inputs go to ``qualifiers["odke.score"]``.
"""

from __future__ import annotations

from collections.abc import Mapping

from openodke.errors import InputError
from openodke.types import Fact, GroundingVerdict

__all__ = ["DEFAULT_VERDICT_WEIGHTS", "SCORE", "EvidenceScorer"]

SCORE = "odke.score"
"""Qualifier holding the scorer's inputs: tier, verdict weight, support and one source's weight."""

DEFAULT_VERDICT_WEIGHTS: dict[str, float] = {
    "supported": 1.0,
    "unchecked": 0.5,
    "not_found": 0.25,
    "contradicted": 0.0,
}
"""How much each grounding verdict leaves of a source's tier weight."""


class EvidenceScorer:
    """Sets ``confidence`` from tier × verdict weight × support (``evidence``).

    Options: ``prior`` (0.2, the tier weight of a fact citing no document), ``verdict_weights``
    (verdict -> weight in [0, 1]; verdicts left out keep their default).
    """

    name = "evidence"

    def __init__(
        self, *, prior: float = 0.2, verdict_weights: Mapping[str, float] | None = None
    ) -> None:
        if not 0.0 <= prior <= 1.0:
            raise InputError(f"prior: expected 0 to 1, got {prior}")
        weights = dict(DEFAULT_VERDICT_WEIGHTS)
        for verdict, weight in (verdict_weights or {}).items():
            if verdict not in weights:
                choices = ", ".join(weights)
                raise InputError(f"verdict_weights: {verdict!r} is not a verdict ({choices})")
            if not 0.0 <= float(weight) <= 1.0:
                raise InputError(f"verdict_weights.{verdict}: expected 0 to 1, got {weight}")
            weights[verdict] = float(weight)
        self.prior = prior
        self.verdict_weights = weights

    def __repr__(self) -> str:
        return f"EvidenceScorer(prior={self.prior}, verdict_weights={self.verdict_weights})"

    def tier_weight(self, fact: Fact) -> float:
        """The best tier weight among the fact's sources (``prior`` when it cites nothing)."""
        tiers = [s.tier.weight for s in fact.supported_by] or [e.tier.weight for e in fact.evidence]
        return max(tiers) if tiers else self.prior

    def score(self, fact: Fact) -> Fact:
        """A copy with ``confidence`` set and its inputs in ``qualifiers["odke.score"]``."""
        tier = self.tier_weight(fact)
        verdict = self.verdict_weights[GroundingVerdict(fact.verdict).value]
        support = max(1, fact.support)
        single = tier * verdict
        confidence = 1.0 - (1.0 - single) ** support
        inputs = {
            "tier": tier,
            "verdict": verdict,
            "support": support,
            "single": round(single, 6),
        }
        return fact.model_copy(
            update={
                "confidence": round(confidence, 6),
                "qualifiers": {**fact.qualifiers, SCORE: inputs},
            }
        )
