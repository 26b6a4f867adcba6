"""The ontology's records: entity types, predicates and their qualifiers, and the lookups on them.

An ontology is what an extractor may say: which types of thing exist, which predicates each type
can take, which predicates make edges (their range is a type) and which make properties (their
range is a literal type). This module holds the data and the lookups every stage uses, and imports
no sibling: loading, checking, snippets and diffs are functions over it in their own modules, and
``ontology.py`` gathers them on the public :class:`Ontology`.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from openodke.forms import lookup_form

__all__ = [
    "LITERAL_TYPES",
    "EntityType",
    "OntologyData",
    "Predicate",
    "Qualifier",
    "lookup_form",
]

LITERAL_TYPES: frozenset[str] = frozenset(
    {"string", "text", "integer", "number", "float", "boolean", "date", "datetime", "quantity"}
)
"""Range names that make a property (a literal object) rather than an edge."""


def _as_tuple(value: Any) -> Any:
    # A single name where a list is expected ("domain": "Person") means a list of one.
    if isinstance(value, str):
        return (value,)
    return value


class _Entry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Qualifier(_Entry):
    """A qualifier a predicate's facts may carry (``percentile``, ``as_of``)."""

    identity: bool = Field(
        default=False,
        description="True when the qualifier bears identity: facts differing in it are different facts.",
    )
    description: str = Field(
        default="", description="What the qualifier means, shown to the extractor."
    )


class EntityType(_Entry):
    """A type of thing (``Person``, ``Company``)."""

    name: str = Field(default="", description="The type's name; defaults to its key in `types`.")
    description: str = Field(
        default="", description="What counts as this type, shown to the extractor."
    )
    parents: tuple[str, ...] = Field(
        default=(), description="Types this one specialises; it inherits their predicates."
    )
    keys: tuple[str, ...] = Field(
        default=(), description="Predicates whose values together name the thing."
    )
    aliases: tuple[str, ...] = Field(default=(), description="Other names for the type.")

    _tuples = field_validator("parents", "keys", "aliases", mode="before")(_as_tuple)


class Predicate(_Entry):
    """A relation (range is a type: an edge) or a property (range is a literal type)."""

    name: str = Field(default="", description="The predicate's name; defaults to its key.")
    label: str | None = Field(default=None, description="A human reading of the name.")
    description: str = Field(
        default="", description="What the predicate means, shown to the extractor."
    )
    domain: tuple[str, ...] = Field(
        default=(), description="Types a subject may have; empty means open to every type."
    )
    range: str = Field(
        default="string",
        description="A type name (the fact is an edge) or a literal type (a property).",
    )
    cardinality: Literal["single", "multi"] = Field(
        default="single", description="`single`: one value per subject (and scope); `multi`: many."
    )
    cardinality_scope: tuple[str, ...] = Field(
        default=(), description="Identity qualifier keys within which the cardinality holds."
    )
    required: bool = Field(default=False, description="Every subject of the domain must have it.")
    qualifiers: dict[str, Qualifier] = Field(
        default_factory=dict,
        description="Qualifier key -> {identity, description}; a bare list of names means all reconcilable.",
    )
    aliases: tuple[str, ...] = Field(
        default=(), description="Other names the predicate answers to."
    )
    importance: float = Field(
        default=0.5, description="Ranks the predicate in snippets: higher is offered first."
    )
    examples: tuple[str | dict[str, Any], ...] = Field(
        default=(), description="Examples shown to the extractor."
    )
    inverse_of: str | None = Field(
        default=None,
        description="The predicate stating the same fact the other way round; one side suffices.",
    )
    symmetric: bool = Field(default=False, description="A fact holds the other way round too.")

    _tuples = field_validator("domain", "cardinality_scope", "aliases", "examples", mode="before")(
        _as_tuple
    )

    @field_validator("qualifiers", mode="before")
    @classmethod
    def _bare_qualifier_names(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return {str(name): {} for name in value}
        return value

    @property
    def identity_keys(self) -> tuple[str, ...]:
        """Qualifier keys that bear identity: those marked so, and the cardinality scope."""
        marked = [key for key, q in self.qualifiers.items() if q.identity]
        return tuple(sorted(set(marked) | set(self.cardinality_scope)))


def _keyed(value: Any) -> Any:
    # `types`/`predicates` may be a list of names or of entries with a `name`; a missing
    # entry body means all defaults; an entry's name defaults to its key.
    if value is None:
        return {}
    if isinstance(value, list | tuple):
        keyed: dict[str, Any] = {}
        for item in value:
            if isinstance(item, str):
                keyed[item] = {}
            elif isinstance(item, dict) and isinstance(item.get("name"), str):
                keyed[item["name"]] = item
            elif isinstance(item, EntityType | Predicate) and item.name:
                keyed[item.name] = item
            else:
                return value  # let validation say what is wrong
        value = keyed
    if not isinstance(value, dict):
        return value
    filled: dict[Any, Any] = {}
    for key, entry in value.items():
        if entry is None:
            entry = {}
        if isinstance(entry, dict) and "name" not in entry:
            entry = {**entry, "name": key}
        elif isinstance(entry, _Entry) and not getattr(entry, "name", ""):
            entry = entry.model_copy(update={"name": key})
        filled[key] = entry
    return filled


class OntologyData(BaseModel):
    """Types and predicates, and the lookups on them: the data of an :class:`Ontology`.

    ``inverse_of`` need be declared on one side: construction fills the other when that side
    declares none. Loading, checks, snippets and diffs are functions over this class in sibling
    modules; :class:`openodke.ontology.Ontology` gathers them as the spec's methods.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(default="untitled", description="The ontology's name.")
    version: str = Field(default="0", description="The ontology's version.")
    types: dict[str, EntityType] = Field(default_factory=dict, description="Type name -> type.")
    predicates: dict[str, Predicate] = Field(
        default_factory=dict, description="Predicate name -> predicate."
    )
    inferred: bool = Field(default=False, description="True when a model proposed it.")
    frozen_at: datetime | None = Field(default=None, description="When it was frozen for use.")
    frozen_by: str | None = Field(default=None, description="Who froze it.")

    _index: (
        tuple[object, object, dict[str, str], dict[str, str], dict[str, tuple[str, ...]]] | None
    ) = PrivateAttr(default=None)

    _keyed = field_validator("types", "predicates", mode="before")(_keyed)

    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, value: Any) -> Any:
        # `version: 1` in YAML is a number; it names a version all the same.
        return (
            str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value
        )

    @model_validator(mode="wrap")
    @classmethod
    def _fill_inverses(cls, data: Any, handler: Any) -> Any:
        built = handler(data)
        filled = _filled_inverses(built.predicates)
        return built if filled is None else built.model_copy(update={"predicates": filled})

    def __eq__(self, other: object) -> bool:
        # Fields only: the lookup cache (a private attribute) must not make equal ontologies differ.
        if not isinstance(other, OntologyData):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # dict fields: an ontology is not hashable

    # -- lookups ---------------------------------------------------------------------------

    def _lookups(self) -> tuple[dict[str, str], dict[str, str]]:
        # Cached against the dicts themselves, so a model_copy with new entries rebuilds. Read
        # from the private dict directly: `self._index` goes through pydantic's __getattr__, which
        # raised and caught an AttributeError on every lookup (a tenth of `odke validate`'s own
        # time on 1,000 facts, seven lookups a fact).
        private = self.__pydantic_private__
        cached = private.get("_index") if private is not None else None
        if cached is None or cached[0] is not self.predicates or cached[1] is not self.types:
            predicates: dict[str, str] = {}
            for key, pred in self.predicates.items():
                for name in (*pred.aliases, *((pred.label,) if pred.label else ())):
                    predicates.setdefault(lookup_form(name), key)
            for key in self.predicates:  # names win over another entry's alias or label
                predicates[lookup_form(key)] = key
            types: dict[str, str] = {}
            for key, typ in self.types.items():
                for name in typ.aliases:
                    types.setdefault(lookup_form(name), key)
            for key in self.types:
                types[lookup_form(key)] = key
            self._index = (self.predicates, self.types, predicates, types, {})
            return predicates, types
        return cached[2], cached[3]

    def predicate(self, name_or_alias: str) -> Predicate | None:
        """The predicate a name, alias or label refers to (case-insensitive, ``_`` = space)."""
        key = self._lookups()[0].get(lookup_form(name_or_alias))
        return None if key is None else self.predicates[key]

    def entity_type(self, name_or_alias: str) -> EntityType | None:
        """The type a name or alias refers to (case-insensitive, ``_`` = space)."""
        key = self._lookups()[1].get(lookup_form(name_or_alias))
        return None if key is None else self.types[key]

    @staticmethod
    def is_literal(range_name: str) -> bool:
        """True when a range names a literal type (``string``, ``date``, ...): a property."""
        return range_name.casefold() in LITERAL_TYPES

    def domain_types(self, type_name: str) -> tuple[str, ...]:
        """The type and every ancestor through ``parents``, nearest first; cycles stop."""
        self._lookups()
        known = self.__pydantic_private__["_index"][4]  # type: ignore[index]  # kept with the lookups
        found = known.get(type_name)
        if found is None:
            found = known[type_name] = self._ancestors(type_name)
        return found

    def _ancestors(self, type_name: str) -> tuple[str, ...]:
        start = self.entity_type(type_name)
        first = start.name if start is not None else type_name
        seen: list[str] = [first]
        queue = [first]
        while queue:
            current = self.types.get(queue.pop(0))
            for parent in current.parents if current is not None else ():
                if parent not in seen:
                    seen.append(parent)
                    queue.append(parent)
        return tuple(seen)

    def covers(self, predicate: Predicate | str, type_name: str) -> bool:
        """True when a subject of ``type_name`` may take the predicate (inheritance counted)."""
        pred = self.predicate(predicate) if isinstance(predicate, str) else predicate
        if pred is None:
            return False
        if not pred.domain:
            return True
        return any(t in pred.domain for t in self.domain_types(type_name))

    def fits_range(self, predicate: Predicate | str, object_type: str | None) -> bool:
        """True when an object of ``object_type`` (None: a literal) fits the predicate's range."""
        pred = self.predicate(predicate) if isinstance(predicate, str) else predicate
        if pred is None:
            return False
        if self.is_literal(pred.range):
            return object_type is None or self.is_literal(object_type)
        return object_type is not None and pred.range in self.domain_types(object_type)

    def predicates_for(self, type_name: str) -> tuple[Predicate, ...]:
        """Every predicate whose domain covers the type, in declaration order."""
        return tuple(p for p in self.predicates.values() if self.covers(p, type_name))

    def identity_keys(self, predicate: str) -> tuple[str, ...]:
        """The identity qualifier keys of a predicate (by name or alias); () when unknown."""
        pred = self.predicate(predicate)
        return () if pred is None else pred.identity_keys

    def to_dict(self) -> dict[str, Any]:
        """The ontology as JSON-ready data (every field, defaults included)."""
        return self.model_dump(mode="json")

    def fingerprint(self) -> str:
        """SHA-256 hex of the canonical JSON (sorted keys, no whitespace) of :meth:`to_dict`."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _filled_inverses(predicates: dict[str, Predicate]) -> dict[str, Predicate] | None:
    """Declare each ``inverse_of`` on the side that left it out; None when nothing changes.

    A partner that already names another predicate is left alone: ``validate`` reports it.
    """
    updates: dict[str, str] = {}
    for key, pred in predicates.items():
        other = pred.inverse_of
        if other is None or other not in predicates or other == key:
            continue
        partner = predicates[other]
        if partner.inverse_of is None and updates.get(other, key) == key:
            updates[other] = key
    if not updates:
        return None
    return {
        key: pred.model_copy(update={"inverse_of": updates[key]}) if key in updates else pred
        for key, pred in predicates.items()
    }
