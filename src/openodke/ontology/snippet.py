"""Snippets: the slice of an ontology an extractor is shown for one entity type.

An extractor never sees the whole schema. Per type it gets the predicates whose domain covers the
type (inherited ones included), ranked by ``importance`` (highest first) then name, cut at a limit
(25 by default). What the cut leaves out, or a type the extractor is not asked about, is *never
offered*: the extractor cannot find those facts, and diagnosis bucket 1 counts them.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from openodke.errors import InputError
from openodke.ontology.checks import did_you_mean
from openodke.ontology.model import OntologyData, Predicate

__all__ = [
    "DEFAULT_SNIPPET_LIMIT",
    "OntologySnippet",
    "coverage",
    "make_snippet",
    "never_offered",
    "offered",
]

DEFAULT_SNIPPET_LIMIT = 25
"""How many predicates a snippet offers unless told otherwise."""

_VALUE_SCHEMA: dict[str, dict[str, Any]] = {
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "float": {"type": "number"},
    "boolean": {"type": "boolean"},
    "date": {"type": "string", "description": "a date as written"},
    "datetime": {"type": "string", "description": "a date and time as written"},
}


class OntologySnippet(BaseModel):
    """The predicates offered for one type, ranked and cut; renders as prose or a JSON Schema."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str = Field(description="The entity type's name.")
    description: str = Field(default="", description="The type's description.")
    predicates: tuple[Predicate, ...] = Field(description="The offered predicates, in rank order.")
    limit: int | None = Field(description="The cut; None offers every covering predicate.")
    left_out: tuple[str, ...] = Field(
        default=(), description="Covering predicates past the limit: never offered."
    )

    @property
    def names(self) -> tuple[str, ...]:
        """The offered predicates' names, in rank order."""
        return tuple(p.name for p in self.predicates)

    def render(self) -> str:
        """The prose an extractor reads.

        ``Entity type: X``, the description, then ``Properties you may extract:`` and one
        ``- name (range, single|multi): description [qualifiers: a, b (identity)]`` line per
        predicate, each example indented below it.
        """
        lines = [f"Entity type: {self.type}"]
        if self.description:
            lines.append(self.description)
        lines.append("Properties you may extract:")
        for pred in self.predicates:
            line = f"- {pred.name} ({pred.range}, {pred.cardinality})"
            if pred.description:
                line += f": {pred.description}"
            if pred.qualifiers:
                names = [
                    f"{key} (identity)" if q.identity else key for key, q in pred.qualifiers.items()
                ]
                line += f" [qualifiers: {', '.join(names)}]"
            lines.append(line)
            for example in pred.examples:
                lines.append(f"  example: {_example_text(example)}")
        if not self.predicates:
            lines.append("(none)")
        return "\n".join(lines)

    def json_schema(self) -> dict[str, Any]:
        """A JSON Schema for the llm extractor's reply about this type.

        ``{"entities": [{"type", "name", "facts": [{"predicate", "value", "quote", "start"?,
        "qualifiers"?}]}]}`` with ``predicate`` one of the offered names; each predicate's
        range, cardinality and description are in the schema's ``$defs`` (``predicates``).
        """
        fact = {
            "type": "object",
            "properties": {
                "predicate": {"type": "string", "enum": list(self.names)},
                "value": {
                    "type": ["string", "number", "boolean"],
                    "description": "the object: a name for an edge, a literal for a property",
                },
                "quote": {"type": "string", "description": "the words of the text that state it"},
                "start": {"type": "integer", "minimum": 0},
                "qualifiers": {"type": "object"},
            },
            "required": ["predicate", "value", "quote"],
            "additionalProperties": False,
        }
        entity = {
            "type": "object",
            "properties": {
                "type": {"type": "string", "const": self.type},
                "name": {"type": "string"},
                "facts": {"type": "array", "items": fact},
            },
            "required": ["type", "name", "facts"],
            "additionalProperties": False,
        }
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": f"Facts about a {self.type}",
            "description": self.description,
            "type": "object",
            "properties": {"entities": {"type": "array", "items": entity}},
            "required": ["entities"],
            "additionalProperties": False,
            "$defs": {"predicates": {p.name: _predicate_schema(p) for p in self.predicates}},
        }


def _example_text(example: str | dict[str, Any]) -> str:
    if isinstance(example, str):
        return example
    return json.dumps(example, ensure_ascii=False, sort_keys=True)


def _predicate_schema(pred: Predicate) -> dict[str, Any]:
    value = dict(_VALUE_SCHEMA.get(pred.range.casefold(), {"type": "string"}))
    schema: dict[str, Any] = {
        "description": pred.description,
        "x-range": pred.range,
        "x-cardinality": pred.cardinality,
        "value": value,
    }
    if pred.qualifiers:
        schema["qualifiers"] = {
            key: {"identity": q.identity, "description": q.description}
            for key, q in pred.qualifiers.items()
        }
    return schema


def _resolve_type(ontology: OntologyData, type_name: str) -> str:
    found = ontology.entity_type(type_name)
    if found is None:
        hint = did_you_mean(type_name, ontology.types)
        raise InputError(f"unknown type '{type_name}'{hint}")
    return found.name


def _ranked(ontology: OntologyData, type_name: str) -> list[Predicate]:
    return sorted(ontology.predicates_for(type_name), key=lambda p: (-p.importance, p.name))


def make_snippet(
    ontology: OntologyData, type_name: str, *, limit: int | None = DEFAULT_SNIPPET_LIMIT
) -> OntologySnippet:
    """The snippet for one type (a name or alias); InputError with a did-you-mean when unknown."""
    if limit is not None and limit < 0:
        raise InputError(f"snippet limit must be 0 or more, got {limit}")
    name = _resolve_type(ontology, type_name)
    ranked = _ranked(ontology, name)
    cut = len(ranked) if limit is None else limit
    return OntologySnippet(
        type=name,
        description=ontology.types[name].description,
        predicates=tuple(ranked[:cut]),
        limit=limit,
        left_out=tuple(p.name for p in ranked[cut:]),
    )


def _asked(ontology: OntologyData, types: list[str] | tuple[str, ...] | None) -> set[str]:
    if types is None:
        return set(ontology.types)
    return {_resolve_type(ontology, name) for name in types}


def offered(
    ontology: OntologyData,
    *,
    types: list[str] | tuple[str, ...] | None = None,
    snippet_limit: int | None = DEFAULT_SNIPPET_LIMIT,
) -> dict[str, tuple[str, ...]]:
    """Every declared type -> the predicates its snippet offers (none for a type not asked)."""
    asked = _asked(ontology, types)
    return {
        name: make_snippet(ontology, name, limit=snippet_limit).names if name in asked else ()
        for name in ontology.types
    }


def never_offered(
    ontology: OntologyData,
    *,
    types: list[str] | tuple[str, ...] | None = None,
    snippet_limit: int | None = DEFAULT_SNIPPET_LIMIT,
) -> dict[str, tuple[str, ...]]:
    """Every declared type -> the covering predicates no snippet shows it, in rank order.

    Past the limit, or every covering predicate when the type is left out of ``types``.
    """
    asked = _asked(ontology, types)
    result: dict[str, tuple[str, ...]] = {}
    for name in ontology.types:
        if name in asked:
            result[name] = make_snippet(ontology, name, limit=snippet_limit).left_out
        else:
            result[name] = tuple(p.name for p in _ranked(ontology, name))
    return result


def coverage(
    ontology: OntologyData,
    *,
    types: list[str] | tuple[str, ...] | None = None,
    snippet_limit: int | None = DEFAULT_SNIPPET_LIMIT,
) -> dict[str, Any]:
    """The manifest's ``stats.coverage``: ``{snippet_limit, offered, never_offered}`` (lists)."""
    return {
        "snippet_limit": snippet_limit,
        "offered": {
            k: list(v)
            for k, v in offered(ontology, types=types, snippet_limit=snippet_limit).items()
        },
        "never_offered": {
            k: list(v)
            for k, v in never_offered(ontology, types=types, snippet_limit=snippet_limit).items()
        },
    }
