"""The ``value`` normalizer: literals in one form per range, person names keyed one way.

For a property whose predicate the ontology knows, a string value is read by its range: ``date``
and ``datetime`` to ISO 8601 (``day_first`` decides ``10/12/1815``), ``integer`` and
``number``/``float`` to numbers, ``boolean`` to a bool, any other range whitespace-collapsed. A
value that does not read is left as written. Whenever the value changes, the text as written goes
to ``qualifiers["odke.source_form"]``.

An entity whose type is one of ``person_types`` (default ``Person``) is re-keyed by its name key
(``values.person_key``: ``Dr. Ada Lovelace`` -> ``Person:ada lovelace``), its label kept and the old
name added to its aliases; ``qualifiers["odke.name_key"]`` records the key per end:
``{"subject": "ada lovelace"}``. The normalizer never drops a fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openodke.ontology import Ontology
from openodke.stages.values import (
    parse_bool,
    parse_date,
    parse_datetime,
    parse_number,
    person_key,
)
from openodke.types import Entity, Fact

__all__ = ["SOURCE_FORM", "NAME_KEY", "ValueNormalizer"]

SOURCE_FORM = "odke.source_form"
"""Qualifier holding a literal as written, when normalising changed it."""

NAME_KEY = "odke.name_key"
"""Qualifier holding the person-name key of each person end: ``{"subject": ..., "object": ...}``."""


class ValueNormalizer:
    """Normalises literals by range and person names by key (``value``).

    Options: ``day_first`` (False: ``10/12/1815`` is 12 October), ``person_types`` (``["Person"]``;
    subtypes of these count too).
    """

    name = "value"

    def __init__(
        self,
        ontology: Ontology | None = None,
        *,
        day_first: bool = False,
        person_types: Sequence[str] = ("Person",),
    ) -> None:
        self.ontology = ontology
        self.day_first = day_first
        self.person_types = (
            (person_types,) if isinstance(person_types, str) else tuple(person_types)
        )
        self.stats: dict[str, int] = {"values": 0, "names": 0}

    def __repr__(self) -> str:
        return (
            f"ValueNormalizer(day_first={self.day_first}, person_types={list(self.person_types)})"
        )

    def normalize(self, facts: Sequence[Fact]) -> list[Fact]:
        """One fact out per fact in, in order; ``stats`` counts values and names changed."""
        return [self.normalize_fact(fact) for fact in facts]

    def normalize_fact(self, fact: Fact) -> Fact:
        """The fact with its literal and person names in normal form."""
        update: dict[str, Any] = {}
        qualifiers = dict(fact.qualifiers)
        if fact.object_value is not None and isinstance(fact.object_value, str):
            value = self.value(fact.predicate, fact.object_value)
            if value != fact.object_value:
                update["object_value"] = value
                qualifiers.setdefault(SOURCE_FORM, fact.object_value)
                self.stats["values"] += 1
        keys: dict[str, str] = {}
        for end in ("subject", "object_entity"):
            current: Entity | None = getattr(fact, end)
            if current is None or not self._is_person(current.type):
                continue
            renamed, key = self._person(current)
            keys["subject" if end == "subject" else "object"] = key
            if renamed is not current:
                update[end] = renamed
                self.stats["names"] += 1
        if keys:
            qualifiers[NAME_KEY] = keys
        if qualifiers != fact.qualifiers:
            update["qualifiers"] = qualifiers
        return fact.model_copy(update=update) if update else fact

    def value(self, predicate: str, written: str) -> Any:
        """``written`` read by the predicate's range; as written when it does not read."""
        collapsed = " ".join(written.split())
        pred = self.ontology.predicate(predicate) if self.ontology is not None else None
        if pred is None or not collapsed:
            return collapsed or written
        kind = pred.range.casefold()
        parsed: Any = None
        if kind == "date":
            parsed = parse_date(collapsed, day_first=self.day_first)
        elif kind == "datetime":
            parsed = parse_datetime(collapsed, day_first=self.day_first)
        elif kind == "integer":
            parsed = parse_number(collapsed, integer=True)
        elif kind in {"number", "float", "quantity"}:
            parsed = parse_number(collapsed)
        elif kind == "boolean":
            parsed = parse_bool(collapsed)
        return collapsed if parsed is None else parsed

    def _is_person(self, type_name: str) -> bool:
        if type_name in self.person_types:
            return True
        if self.ontology is None:
            return False
        return any(t in self.person_types for t in self.ontology.domain_types(type_name))

    def _person(self, entity: Entity) -> tuple[Entity, str]:
        name = entity.label or entity.key.partition(":")[2] or entity.key
        key = person_key(name)
        new_key = f"{entity.type}:{key}"
        if not key or new_key == entity.key:
            return entity, key
        aliases = entity.aliases if name in entity.aliases else (*entity.aliases, name)
        return entity.model_copy(update={"key": new_key, "aliases": aliases}), key
