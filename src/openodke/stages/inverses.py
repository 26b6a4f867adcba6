"""Inverse partners: the fact the other way round, where the ontology declares it.

For an edge whose predicate has ``inverse_of: q``, the partner is ``object q subject``; for a
``symmetric`` predicate it is ``object p subject``. A partner whose signature is already among the
facts (the text said both) is not added. A partner keeps its source's evidence, verdict, confidence,
support and polarity, gets a fresh id, swaps the ends of ``odke.name_key``, drops ``odke.conflict``
(the other predicate has its own cardinality), and records
``qualifiers["odke.derived"] = {"rule": "inverse_of" | "symmetric", "from": <source signature>}``.
Partners are never derived from partners.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from openodke.ontology import Ontology
from openodke.types import Fact

__all__ = ["DERIVED", "InverseDeriver", "declares_inverses"]

DERIVED = "odke.derived"
"""Qualifier marking an inverse partner: the rule and the source fact's signature."""

_NOT_COPIED = {DERIVED, "odke.conflict"}


def declares_inverses(ontology: Ontology) -> bool:
    """True when any predicate declares ``inverse_of`` or ``symmetric``."""
    return any(p.inverse_of or p.symmetric for p in ontology.predicates.values())


def _signature_json(fact: Fact) -> list[Any]:
    subject, type_, predicate, obj, polarity, scoped = fact.signature
    return [subject, type_, predicate, obj, polarity, [list(pair) for pair in scoped]]


class InverseDeriver:
    """Adds the inverse partners the ontology declares; ``derive`` returns only the new facts."""

    name = "inverses"

    def __init__(self, ontology: Ontology) -> None:
        self.ontology = ontology

    def __repr__(self) -> str:
        return f"InverseDeriver({self.ontology.name!r})"

    def partner(self, fact: Fact) -> Fact | None:
        """The fact's declared partner, or None (a property, no rule, or itself a partner)."""
        if fact.object_entity is None or DERIVED in fact.qualifiers:
            return None
        pred = self.ontology.predicate(fact.predicate)
        if pred is None:
            return None
        if pred.inverse_of and pred.inverse_of in self.ontology.predicates:
            rule, predicate = "inverse_of", pred.inverse_of
        elif pred.symmetric:
            rule, predicate = "symmetric", pred.name
        else:
            return None
        qualifiers = {k: v for k, v in fact.qualifiers.items() if k not in _NOT_COPIED}
        keys = qualifiers.get("odke.name_key")
        if isinstance(keys, dict):
            swapped = {"subject": keys.get("object"), "object": keys.get("subject")}
            qualifiers["odke.name_key"] = {k: v for k, v in swapped.items() if v is not None}
        qualifiers[DERIVED] = {"rule": rule, "from": _signature_json(fact)}
        return fact.model_copy(
            update={
                "id": uuid.uuid4().hex,
                "subject": fact.object_entity,
                "object_entity": fact.subject,
                "predicate": predicate,
                "qualifiers": qualifiers,
                "identity_keys": self.ontology.identity_keys(predicate),
            }
        )

    def derive(self, facts: Sequence[Fact]) -> list[Fact]:
        """The partners of ``facts`` not already among them, in the facts' order."""
        seen = {fact.signature for fact in facts}
        derived: list[Fact] = []
        for fact in facts:
            partner = self.partner(fact)
            if partner is None or partner.signature in seen:
                continue
            seen.add(partner.signature)
            derived.append(partner)
        return derived
