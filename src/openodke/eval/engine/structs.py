"""The rows a file holds, as msgspec structs that mirror :class:`~openodke.types.Fact` and
:class:`~openodke.eval.stages.labels.GoldFact` field for field (unknown keys forbidden).

Decoding into these costs a fraction of building the pydantic models; anything they refuse is
read again by the pydantic reader, which either accepts it (a coercion only pydantic makes) or
names the line and field, so the engine never accepts what the models refuse. What their types
cannot say (a blank key, exactly one object, nesting of free-form values) :func:`check_rows`
checks on a decoded block at once, in C: no Python hook runs per row (DECISIONS 312).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec

from openodke.eval.engine.compiled import native
from openodke.safeio.limits import MAX_NESTING

__all__ = [
    "Entity",
    "Fact",
    "Gold",
    "Reread",
    "RereadEnds",
    "RereadGold",
    "RereadGoldEnds",
    "check_rows",
    "py_check_rows",
    "scoped",
    "too_deep",
]

_Tier = Literal["unverified", "community", "authoritative", "curated"]
_Value = str | int | float | bool


class Resolution(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A Resolution."""

    method: str
    score: float | None = None
    linker: str | None = None


class Entity(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """An Entity: key, type, label, aliases and the rest."""

    key: str
    type: str = "Thing"
    label: str | None = None
    aliases: tuple[str, ...] = ()
    external_id: str | None = None
    resolution: Resolution | None = None
    attributes: dict[str, Any] = {}


class Span(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A Span (its offsets' order is checked by :func:`check_rows`)."""

    doc_id: str
    start: int
    end: int
    quote: str | None = None


class Evidence(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """An Evidence."""

    doc_id: str
    span: Span | None = None
    mention: Span | None = None
    span_origin: Literal["cited", "located", "context"] = "cited"
    uri: str | None = None
    tier: _Tier = "unverified"
    retrieved_at: datetime | None = None


class Support(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A Support."""

    source: str
    documents: tuple[str, ...] = ()
    tier: _Tier = "unverified"
    retrieved_at: datetime | None = None


class Fact(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A Fact: exactly one of object_entity and object_value."""

    subject: Entity
    predicate: str
    id: str | None = None
    object_entity: Entity | None = None
    object_value: _Value | None = None
    polarity: Literal["asserted", "denied", "partial"] = "asserted"
    qualifiers: dict[str, Any] = {}
    identity_keys: tuple[str, ...] = ()
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    evidence: tuple[Evidence, ...] = ()
    extractor: str = "unknown"
    confidence: float = 0.0
    verdict: Literal["unchecked", "supported", "contradicted", "not_found"] = "unchecked"
    support: int = 1
    supported_by: tuple[Support, ...] = ()
    retired_at: datetime | None = None


def too_deep(fact: Fact, nesting: int = MAX_NESTING) -> bool:
    """Whether a fact's free-form values (qualifiers, its ends' attributes) nest past the bound
    the careful reader enforces (it then refuses the row, naming it)."""
    if fact.qualifiers and _deeper(fact.qualifiers, nesting - 2):
        return True
    return any(
        entity is not None and entity.attributes and _deeper(entity.attributes, nesting - 3)
        for entity in (fact.subject, fact.object_entity)
    )


def py_check_rows(facts: list[Fact], nesting: int) -> None:
    """``_keyhash.check_rows`` in Python: ValueError at the first fact the models would refuse
    (a blank key, both or neither object, free-form values nested past ``nesting``)."""
    for fact in facts:
        entity = fact.object_entity
        if (entity is None) == (fact.object_value is None):
            raise ValueError("exactly one of object_entity and object_value must be set")
        if not fact.subject.key.strip() or (entity is not None and not entity.key.strip()):
            raise ValueError("key is blank")
        if too_deep(fact, nesting):
            raise ValueError("free-form values nested too deeply")
        for evidence in fact.evidence:
            for span in (evidence.span, evidence.mention):
                if span is not None and not 0 <= span.start <= span.end:
                    raise ValueError("span offsets out of order")


def _deeper(value: Any, room: int) -> bool:
    """Whether ``value`` nests lists and mappings more than ``room`` levels deep."""
    if isinstance(value, dict | list):
        if room <= 0:
            return True
        items = value.values() if isinstance(value, dict) else value
        return any(_deeper(item, room - 1) for item in items)
    return False


class Gold(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A GoldFact: the labelled document and the fact."""

    doc_id: str
    fact: Fact


def scoped(f: Any) -> str:
    """The identity qualifiers as the key has them: ``repr`` of the sorted pairs, ``""`` for none."""
    q = f.qualifiers
    pairs = tuple(sorted((k, repr(q[k])) for k in f.identity_keys if k in q))
    return repr(pairs) if pairs else ""


# Rows read a second time were checked on the first: these skip what the diagnosis never reads
# (evidence, dates, support), so reading one again costs a fraction of the first time.


class _ReEntity(msgspec.Struct, gc=False):
    key: str
    type: str = "Thing"
    label: str | None = None
    aliases: tuple[str, ...] = ()


class Reread(msgspec.Struct, gc=False):
    """What the diagnosis reads of a Fact row already checked: ends, predicate, polarity,
    identity qualifiers, verdict."""

    subject: _ReEntity
    predicate: str
    object_entity: _ReEntity | None = None
    object_value: _Value | None = None
    polarity: str = "asserted"
    qualifiers: dict[str, Any] = {}
    identity_keys: tuple[str, ...] = ()
    verdict: str = "unchecked"


class RereadGold(msgspec.Struct, gc=False):
    """A GoldFact row already checked, read again: its fact."""

    fact: Reread


class RereadEnds(msgspec.Struct, gc=False):
    """A Fact row already checked, read again for its ends alone (what names are keyed from):
    the rest of the row is skipped, a quarter faster than :class:`Reread`."""

    subject: _ReEntity
    object_entity: _ReEntity | None = None
    object_value: _Value | None = None


class RereadGoldEnds(msgspec.Struct, gc=False):
    """A GoldFact row already checked, read again for its fact's ends."""

    fact: RereadEnds


_native = native()
check_rows = _native.check_rows if _native is not None else py_check_rows
