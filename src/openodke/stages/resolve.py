"""The ``native`` resolver: proposes links between entities that may be one thing; never merges.

Candidates are entities of the same type (one the other's subtype counts) whose name keys share a
word's first four letters (``nordic``/``nordik``), in blocks of at most ``max_block`` entities per
prefix (a prefix more common than that is too weak to block on and is skipped). A pair's score is rapidfuzz's ``token_sort_ratio`` of the
name keys, or ``token_set_ratio`` when both names have two words or more (``halden robotics`` and
``halden robotics ltd`` score 1.0), over 100. The facts then nudge it: ``+nudge_up`` when the two
share a value of a single-cardinality property, ``-nudge_down`` when they differ on one. The same
``external_id`` makes a pair ``same_as`` at 1.0 and different ones ``different`` at 0.0.

A pair at ``threshold`` (0.9) or above is ``same_as``; a pair scoring at least ``threshold - 0.1``
before the nudges is ``similar``, or ``different`` when a conflicting value took it below the
threshold. Pairs under that are not linked.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import combinations

from openodke.eval.diagnosis.sentences import name_key
from openodke.ontology import Ontology
from openodke.types import Entity, EntityLink, Fact, LinkKind, normalise_value

__all__ = ["NativeResolver", "entities_of"]

_PREFIX = 4  # entities sharing a word's first four letters are compared
_BAND = 0.1  # how far under the threshold a pair is still worth a `similar` link


def entities_of(facts: Sequence[Fact]) -> list[Entity]:
    """Every entity the facts name (subjects and edge objects), first occurrence per key."""
    seen: dict[str, Entity] = {}
    for fact in facts:
        seen.setdefault(fact.subject.key, fact.subject)
        if fact.object_entity is not None:
            seen.setdefault(fact.object_entity.key, fact.object_entity)
    return list(seen.values())


def _name(entity: Entity) -> str:
    return name_key(entity.label or entity.key.partition(":")[2] or entity.key)


class NativeResolver:
    """Links alike entities (``native``); see the module docstring for the rules.

    Options: ``threshold`` (0.9), ``nudge_up`` (0.05), ``nudge_down`` (0.1), ``max_block`` (50).
    """

    name = "native"

    def __init__(
        self,
        ontology: Ontology | None = None,
        *,
        threshold: float = 0.9,
        nudge_up: float = 0.05,
        nudge_down: float = 0.1,
        max_block: int = 50,
    ) -> None:
        self.ontology = ontology
        self.threshold = threshold
        self.nudge_up = nudge_up
        self.nudge_down = nudge_down
        self.max_block = max_block
        self.stats: dict[str, int] = {"entities": 0, "pairs": 0, "skipped_blocks": 0}

    def __repr__(self) -> str:
        return f"NativeResolver(threshold={self.threshold}, max_block={self.max_block})"

    def _same_kind(self, a: str, b: str) -> bool:
        if a == b:
            return True
        if self.ontology is None:
            return False
        return b in self.ontology.domain_types(a) or a in self.ontology.domain_types(b)

    def _single_values(self, facts: Sequence[Fact]) -> dict[str, dict[str, set[str]]]:
        # entity key -> single-cardinality predicate -> its normalised values
        values: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        for fact in facts:
            pred = self.ontology.predicate(fact.predicate) if self.ontology is not None else None
            if pred is None or pred.cardinality != "single" or fact.scoped:
                continue
            obj = (
                fact.object_entity.key if fact.object_entity else normalise_value(fact.object_value)
            )
            values[fact.subject.key][pred.name].add(obj)
        return values

    def _pairs(self, entities: list[Entity]) -> set[tuple[int, int]]:
        blocks: dict[str, list[int]] = defaultdict(list)
        for i, entity in enumerate(entities):
            for prefix in {word[:_PREFIX] for word in _name(entity).split()}:
                blocks[prefix].append(i)
        pairs: set[tuple[int, int]] = set()
        for members in blocks.values():
            if len(members) > self.max_block:
                self.stats["skipped_blocks"] += 1
                continue
            for i, j in combinations(members, 2):
                if self._same_kind(entities[i].type, entities[j].type):
                    pairs.add((i, j))
        by_id: dict[str, list[int]] = defaultdict(list)
        for i, entity in enumerate(entities):
            if entity.external_id:
                by_id[entity.external_id].append(i)
        for members in by_id.values():  # the same external id always pairs
            pairs.update(combinations(members, 2))
        return pairs

    def resolve(self, facts: Sequence[Fact]) -> list[EntityLink]:
        """The links proposed among the facts' entities, sorted by source and target key."""
        entities = entities_of(facts)
        values = self._single_values(facts)
        now = datetime.now(UTC)
        links: list[EntityLink] = []
        pairs = self._pairs(entities)
        self.stats.update(entities=len(entities), pairs=len(pairs))
        for i, j in sorted(pairs):
            link = self._link(entities[i], entities[j], values, now)
            if link is not None:
                links.append(link)
        return sorted(links, key=lambda link: (link.source_key, link.target_key))

    def _link(
        self,
        a: Entity,
        b: Entity,
        values: dict[str, dict[str, set[str]]],
        now: datetime,
    ) -> EntityLink | None:
        if b.key < a.key:  # the link and its reason read source first
            a, b = b, a
        source, target = a.key, b.key
        if a.external_id and b.external_id:
            same = a.external_id == b.external_id
            return EntityLink(
                source_key=source,
                target_key=target,
                kind=LinkKind.same_as if same else LinkKind.different,
                score=1.0 if same else 0.0,
                reason=f"external ids {a.external_id!r} and {b.external_id!r}",
                created_at=now,
            )
        from rapidfuzz import fuzz  # here: a run whose names share no block never loads it

        name_a, name_b = _name(a), _name(b)
        if len(name_a.split()) > 1 and len(name_b.split()) > 1:
            base = fuzz.token_set_ratio(name_a, name_b) / 100
        else:
            base = fuzz.token_sort_ratio(name_a, name_b) / 100
        if base < self.threshold - _BAND:
            return None
        shared: list[str] = []
        differ: list[str] = []
        mine, theirs = values.get(a.key, {}), values.get(b.key, {})
        for predicate in sorted(set(mine) & set(theirs)):
            (shared if mine[predicate] & theirs[predicate] else differ).append(predicate)
        score = base + (self.nudge_up if shared else 0.0) - (self.nudge_down if differ else 0.0)
        score = round(min(1.0, max(0.0, score)), 6)
        if score >= self.threshold:
            kind = LinkKind.same_as
        elif differ:
            kind = LinkKind.different
        else:
            kind = LinkKind.similar
        reason = f"names {name_a!r} and {name_b!r} alike ({base:.2f})"
        if shared:
            reason += f"; same {', '.join(shared)}"
        if differ:
            reason += f"; different {', '.join(differ)}"
        return EntityLink(
            source_key=source,
            target_key=target,
            kind=kind,
            score=score,
            reason=reason,
            created_at=now,
        )
