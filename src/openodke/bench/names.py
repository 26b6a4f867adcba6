"""Names and keys shared by the bench sets: entity keys, predicate lookup, case conversions.

Entity keys follow our extractors' convention, ``Type:case-folded name`` with whitespace
collapsed (``Person:vladimir mitrofanovich orlov``), so a gold fact and a prediction that name
the same thing the same way have equal signatures.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from openodke.types import Entity

__all__ = [
    "LITERAL_TYPES",
    "PredicateIndex",
    "collapse",
    "compact",
    "entity_key",
    "entity_names",
    "pascal_case",
    "snake_case",
]

LITERAL_TYPES = frozenset(
    {"string", "text", "integer", "number", "float", "boolean", "date", "datetime", "quantity"}
)
"""Range names that make a predicate a property (literal object) rather than an edge."""


def collapse(name: object) -> str:
    """Case-folded, whitespace collapsed: the name part of an entity key."""
    return " ".join(str(name).split()).casefold()


def compact(name: object) -> str:
    """Case-folded with all whitespace removed: a looser form for matching tokenized text."""
    return "".join(str(name).split()).casefold()


def entity_key(type_name: str, name: object) -> str:
    """``Type:case-folded collapsed name``."""
    return f"{type_name}:{collapse(name)}"


def snake_case(label: str) -> str:
    """``"educated at"`` → ``educated_at``; any run of non-alphanumerics becomes one ``_``."""
    return re.sub(r"[\W_]+", "_", label.casefold()).strip("_")


def pascal_case(label: str) -> str:
    """``"film production company"`` → ``FilmProductionCompany``; inner capitals are kept."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[\W_]+", label) if part)


def entity_names(entity: Entity, types: Iterable[str] = ()) -> list[str]:
    """The names an entity may go by, most faithful first: label, key without ``Type:``, key.

    The part before the first colon is taken for a type prefix only when it is the entity's
    type or one of ``types`` (the ontology's), so a key such as ``Bleach: Hell Verse`` survives.
    """
    names: list[str] = []
    if entity.label:
        names.append(entity.label)
    head, sep, tail = entity.key.partition(":")
    known = {entity.type.casefold(), *(t.casefold() for t in types)}
    if sep and tail.strip() and head.casefold() in known:
        names.append(tail)
    names.append(entity.key)
    names.extend(entity.aliases)
    return list(dict.fromkeys(n for n in names if n.strip()))


def _relation_form(name: str) -> str:
    return " ".join(name.replace("_", " ").split()).casefold()


class PredicateIndex:
    """Looks predicates up in an ontology JSON mapping by name, label or alias.

    Matching is case-insensitive and treats spaces and underscores alike, so ``cast_member``,
    ``Cast member`` and ``P161`` (an alias) all find ``cast_member``.
    """

    def __init__(self, ontology: Mapping[str, Any]) -> None:
        self.predicates: dict[str, dict[str, Any]] = dict(ontology.get("predicates", {}))
        self._forms: dict[str, str] = {}
        # Names first, then labels, then aliases: an exact name always wins a clash.
        for field in ("name", "label", "aliases"):
            for name, spec in self.predicates.items():
                for form in self._spellings(name, spec, field):
                    self._forms.setdefault(_relation_form(form), name)

    @staticmethod
    def _spellings(name: str, spec: Mapping[str, Any], field: str) -> Iterable[str]:
        if field == "name":
            return [name]
        if field == "label":
            return [spec["label"]] if spec.get("label") else []
        return list(spec.get("aliases", []))

    def resolve(self, written: str) -> str | None:
        """The predicate name ``written`` refers to, or None."""
        return self._forms.get(_relation_form(written))

    def domain(self, predicate: str) -> list[str]:
        """The predicate's domain types (empty: open to all)."""
        return list(self.predicates[predicate].get("domain", []))

    def range(self, predicate: str) -> str:
        """The predicate's range (``string`` by default)."""
        return str(self.predicates[predicate].get("range", "string"))

    def is_literal(self, predicate: str) -> bool:
        """True when the range is a literal type, so the object is a value."""
        return self.range(predicate) in LITERAL_TYPES

    def label(self, predicate: str) -> str:
        """The predicate's label, else its name."""
        return str(self.predicates[predicate].get("label") or predicate)
