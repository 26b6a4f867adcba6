"""A fact in words, for judges' prompts, label sheets and lists a person reads.

``claim_text`` follows the span claim format (surface.md, Grounding): ``<Subject> (<Type>) —
<predicate words> — <object> (<Type>).``, a literal object without a type, a denied fact as
``It is NOT the case that: ...``, identity qualifiers after the predicate.
"""

from __future__ import annotations

from openodke.eval.diagnosis.names import entity_names
from openodke.types import Entity, Fact, Polarity

__all__ = ["claim_text", "end_name", "fact_words", "predicate_words"]


def end_name(end: Entity | object) -> str:
    """An entity's most faithful name (label, else key without ``Type:``); a literal as written."""
    if isinstance(end, Entity):
        names = entity_names(end)
        return names[0] if names else end.key
    return str(end)


def predicate_words(fact: Fact) -> str:
    """The predicate with underscores as spaces, and its identity qualifiers in brackets."""
    words = fact.predicate.replace("_", " ")
    if fact.scoped:
        shown = ", ".join(f"{k}: {fact.qualifiers[k]}" for k, _ in fact.scoped)
        words += f" ({shown})"
    return words


def _typed(entity: Entity) -> str:
    return f"{end_name(entity)} ({entity.type})"


def fact_words(fact: Fact, *, types: bool = True) -> str:
    """``Subject (Type) — predicate words — object (Type)``, without the final stop."""
    subject = _typed(fact.subject) if types else end_name(fact.subject)
    if fact.object_entity is not None:
        obj = _typed(fact.object_entity) if types else end_name(fact.object_entity)
    else:
        obj = str(fact.object_value)
    return f"{subject} — {predicate_words(fact)} — {obj}"


def claim_text(fact: Fact) -> str:
    """The claim a person or a grounder reads: the span claim format, with its polarity."""
    words = fact_words(fact) + "."
    if fact.polarity is Polarity.denied:
        return f"It is NOT the case that: {words}"
    if fact.polarity is Polarity.partial:
        return f"In part: {words}"
    return words
