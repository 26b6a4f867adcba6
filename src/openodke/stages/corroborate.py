"""The ``signature`` corroborator: one fact per signature, its sources counted, conflicts flagged.

**Merging.** Facts with the same ``Fact.signature`` become one, in the order first seen: the first
fact's id, fields and qualifiers (others' qualifiers added where the first lacks the key), every
distinct evidence, the highest confidence, the strongest verdict (``supported``, then
``contradicted``, ``not_found``, ``unchecked``), and its extractors joined by ``+`` when they differ.

**Sources.** A source is a document with its record suffix dropped (``register.csv#L2`` and
``register.csv#L3`` are one source, ``register.csv``); ``supported_by`` holds a Support per source
(its documents, best tier, newest ``retrieved_at``) and ``support`` their number (1 for a fact
citing nothing).

**Conflicts.** For a ``single``-cardinality predicate, merged facts with one subject, predicate,
polarity and identity qualifiers but different objects compete (with ``intervals``, facts whose
valid-time intervals are both given and do not overlap do not). Each gets
``qualifiers["odke.conflict"] = {"with": [the competing values], "rank": n, "score": s}``, ranked by
trust (best tier weight) × freshness × agreement (its support over the group's): freshness is
``0.5 ** (age / half_life_days)``, not under ``freshness_floor``, with age counted from the newest
``retrieved_at`` in the group, so the ranking never depends on today's date.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from openodke.ontology import Ontology
from openodke.types import Evidence, Fact, GroundingVerdict, SourceTier, Support

__all__ = ["CONFLICT", "SignatureCorroborator", "source_of"]

CONFLICT = "odke.conflict"
"""Qualifier flagging a fact that competes with another value of a single-cardinality predicate."""

_RECORD = re.compile(r"(#L\d+)?(~\d+)?$")
_STRENGTH = {
    GroundingVerdict.supported: 3,
    GroundingVerdict.contradicted: 2,
    GroundingVerdict.not_found: 1,
    GroundingVerdict.unchecked: 0,
}


def source_of(doc_id: str) -> str:
    """The source a document belongs to: its id without ``#L<line>`` and ``~n``."""
    return _RECORD.sub("", doc_id) or doc_id


def _supports(facts: Sequence[Fact]) -> tuple[Support, ...]:
    documents: dict[str, list[str]] = defaultdict(list)
    tiers: dict[str, SourceTier] = {}
    newest: dict[str, datetime | None] = {}

    def add(source: str, doc_ids: Sequence[str], tier: SourceTier, at: datetime | None) -> None:
        for doc_id in doc_ids:
            if doc_id not in documents[source]:
                documents[source].append(doc_id)
        if source not in tiers or tier.weight > tiers[source].weight:
            tiers[source] = tier
        current = newest.get(source)
        if at is not None and (current is None or _aware(at) > _aware(current)):
            newest[source] = at
        else:
            newest.setdefault(source, current)

    for fact in facts:
        for support in fact.supported_by:
            add(support.source, support.documents, support.tier, support.retrieved_at)
        for evidence in fact.evidence:
            add(source_of(evidence.doc_id), [evidence.doc_id], evidence.tier, evidence.retrieved_at)
    return tuple(
        Support(
            source=source,
            documents=tuple(docs),
            tier=tiers[source],
            retrieved_at=newest[source],
        )
        for source, docs in documents.items()
    )


def _merge(group: Sequence[Fact]) -> Fact:
    first = group[0]
    evidence: dict[tuple[Any, ...], Evidence] = {}
    qualifiers = dict(first.qualifiers)
    for fact in group:
        for item in fact.evidence:
            span = item.span
            key = (item.doc_id, span.start if span else None, span.end if span else None)
            evidence.setdefault(key, item)
        for name, value in fact.qualifiers.items():
            qualifiers.setdefault(name, value)
    extractors = list(dict.fromkeys(f.extractor for f in group))
    supported_by = _supports(group)
    return first.model_copy(
        update={
            "evidence": tuple(evidence.values()),
            "qualifiers": qualifiers,
            "confidence": max(f.confidence for f in group),
            "verdict": max((f.verdict for f in group), key=_STRENGTH.__getitem__),
            "extractor": "+".join(extractors),
            "supported_by": supported_by,
            "support": max(1, len(supported_by)),
        }
    )


def _aware(moment: datetime) -> datetime:
    # A naive time is read as UTC, so naive and aware times compare.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _overlap(a: Fact, b: Fact) -> bool:
    """True unless both facts give a valid-time interval and the two do not overlap."""
    if (a.valid_from is None and a.valid_to is None) or (
        b.valid_from is None and b.valid_to is None
    ):
        return True
    a_ends_first = (
        a.valid_to is not None
        and b.valid_from is not None
        and _aware(a.valid_to) <= _aware(b.valid_from)
    )
    b_ends_first = (
        b.valid_to is not None
        and a.valid_from is not None
        and _aware(b.valid_to) <= _aware(a.valid_from)
    )
    return not (a_ends_first or b_ends_first)


class SignatureCorroborator:
    """Merges facts by signature and flags competing single values (``signature``).

    Options: ``half_life_days`` (365; None: no decay), ``freshness_floor`` (0.1), ``intervals``
    (True: non-overlapping valid times do not compete).
    """

    name = "signature"

    def __init__(
        self,
        ontology: Ontology | None = None,
        *,
        half_life_days: float | None = 365.0,
        freshness_floor: float = 0.1,
        intervals: bool = True,
    ) -> None:
        self.ontology = ontology
        self.half_life_days = half_life_days
        self.freshness_floor = freshness_floor
        self.intervals = intervals
        self.stats: dict[str, int] = {"facts_in": 0, "facts_out": 0, "merged": 0, "conflicts": 0}

    def __repr__(self) -> str:
        return f"SignatureCorroborator(half_life_days={self.half_life_days})"

    def corroborate(self, facts: Sequence[Fact]) -> list[Fact]:
        """One fact per signature, in first-seen order, with support and conflicts filled."""
        groups: dict[tuple[Any, ...], list[Fact]] = {}
        for fact in facts:
            groups.setdefault(fact.signature, []).append(fact)
        merged = [_merge(group) for group in groups.values()]
        merged = self._flag_conflicts(merged)
        conflicts = sum(1 for f in merged if CONFLICT in f.qualifiers)
        self.stats = {
            "facts_in": len(facts),
            "facts_out": len(merged),
            "merged": len(facts) - len(merged),
            "conflicts": conflicts,
        }
        return merged

    def _flag_conflicts(self, facts: list[Fact]) -> list[Fact]:
        if self.ontology is None:
            return facts
        slots: dict[tuple[Any, ...], list[int]] = defaultdict(list)
        for i, fact in enumerate(facts):
            pred = self.ontology.predicate(fact.predicate)
            if pred is not None and pred.cardinality == "single":
                key = (fact.subject.key, fact.predicate, fact.polarity, fact.scoped)
                slots[key].append(i)
        out = list(facts)
        for members in slots.values():
            if len(members) < 2:
                continue
            group = [facts[i] for i in members]
            scores = self._scores(group)
            ranked = sorted(range(len(group)), key=lambda k: -scores[k])
            for k, i in enumerate(members):
                rivals = [
                    other
                    for other in group
                    if other is not group[k] and (not self.intervals or _overlap(group[k], other))
                ]
                if not rivals:
                    continue
                flag = {
                    "with": [_shown(other) for other in rivals],
                    "rank": ranked.index(k) + 1,
                    "score": round(scores[k], 6),
                }
                qualifiers = {**group[k].qualifiers, CONFLICT: flag}
                out[i] = group[k].model_copy(update={"qualifiers": qualifiers})
        return out

    def _scores(self, group: Sequence[Fact]) -> list[float]:
        dates = [_aware(s.retrieved_at) for f in group for s in f.supported_by if s.retrieved_at]
        newest = max(dates) if dates else None
        total = sum(f.support for f in group)
        scores = []
        for fact in group:
            trust = max(
                (s.tier.weight for s in fact.supported_by), default=SourceTier.unverified.weight
            )
            fresh = 1.0
            seen = [_aware(s.retrieved_at) for s in fact.supported_by if s.retrieved_at]
            if self.half_life_days and newest is not None and seen:
                age = (newest - max(seen)).total_seconds() / 86400
                fresh = max(self.freshness_floor, 0.5 ** (age / self.half_life_days))
            scores.append(trust * fresh * fact.support / total)
        return scores


def _shown(fact: Fact) -> Any:
    if fact.object_entity is not None:
        return fact.object_entity.label or fact.object_entity.key
    return fact.object_value
