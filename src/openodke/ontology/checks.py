"""Checking an ontology: every problem at once, each with a code, a dotted path and a did-you-mean."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from openodke.ontology.model import LITERAL_TYPES, OntologyData, Predicate, lookup_form

__all__ = ["CODES", "Diagnostic", "check_ontology", "did_you_mean"]

CODES: dict[str, str] = {
    "name-mismatch": "an entry's `name` differs from its key",
    "reserved-type": "a type named like a literal type (`string`, `date`, ...)",
    "unknown-parent": "a parent that is not a declared type",
    "parent-cycle": "a type that is its own ancestor",
    "unknown-key": "a type key naming no predicate",
    "unknown-range": "a range that is neither a declared type nor a literal type",
    "unknown-domain": "a domain type that is not declared",
    "unreachable-predicate": "a predicate no declared type can take, so no snippet offers it",
    "unknown-scope": "a cardinality scope key that is not one of the predicate's qualifiers",
    "duplicate-name": "two entries whose names are equal once case and `_` are ignored",
    "duplicate-alias": "an alias or label that names two entries",
    "bad-inverse": "an inverse that is unknown, does not hold both ways, or whose ends do not swap",
    "bad-symmetric": "a symmetric predicate whose object cannot be a subject",
}
"""Each Diagnostic code and what it means."""


class Diagnostic(BaseModel):
    """One problem: ``code`` (a key of CODES), ``path`` (dotted, ``predicates.born.range``), ``message``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str
    path: str
    message: str
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'X'?)`` for the closest choice (difflib, case ignored), else ``""``."""
    by_form: dict[str, str] = {}
    for choice in choices:
        by_form.setdefault(choice.casefold(), choice)
    close = difflib.get_close_matches(word.casefold(), list(by_form), n=1, cutoff=0.6)
    return f" (did you mean '{by_form[close[0]]}'?)" if close else ""


def check_ontology(ontology: OntologyData) -> list[Diagnostic]:
    """Every problem in ``ontology``, types first, then predicates, in declaration order."""
    found: list[Diagnostic] = []

    def add(code: str, path: str, message: str, severity: str = "error") -> None:
        found.append(Diagnostic(code=code, path=path, message=message, severity=severity))  # type: ignore[arg-type]

    type_names = list(ontology.types)
    _check_names(ontology.types, "types", add)
    _check_aliases({k: t.aliases for k, t in ontology.types.items()}, "types", add)
    for key, typ in ontology.types.items():
        if key.casefold() in LITERAL_TYPES:
            add(
                "reserved-type",
                f"types.{key}",
                f"'{key}' is a literal type; name the type otherwise",
            )
        for parent in typ.parents:
            if parent not in ontology.types:
                hint = did_you_mean(parent, type_names)
                add("unknown-parent", f"types.{key}.parents", f"unknown type '{parent}'{hint}")
        if key in _ancestors(ontology, key):
            add("parent-cycle", f"types.{key}.parents", f"'{key}' is its own ancestor")
        for name in typ.keys:
            if ontology.predicate(name) is None:
                hint = did_you_mean(name, ontology.predicates)
                add("unknown-key", f"types.{key}.keys", f"unknown predicate '{name}'{hint}")

    _check_names(ontology.predicates, "predicates", add)
    _check_aliases(
        {k: (*p.aliases, *((p.label,) if p.label else ())) for k, p in ontology.predicates.items()},
        "predicates",
        add,
    )
    range_choices = [*type_names, *sorted(LITERAL_TYPES)]
    for key, pred in ontology.predicates.items():
        where = f"predicates.{key}"
        if not ontology.is_literal(pred.range) and pred.range not in ontology.types:
            hint = did_you_mean(pred.range, range_choices)
            add("unknown-range", f"{where}.range", f"unknown type '{pred.range}'{hint}")
        unknown = [t for t in pred.domain if t not in ontology.types]
        for name in unknown:
            hint = did_you_mean(name, type_names)
            add("unknown-domain", f"{where}.domain", f"unknown type '{name}'{hint}")
        if pred.domain and len(unknown) == len(pred.domain):
            add(
                "unreachable-predicate",
                where,
                "no declared type is in its domain, so no snippet offers it",
                "warning",
            )
        for scope in pred.cardinality_scope:
            if scope not in pred.qualifiers:
                hint = did_you_mean(scope, pred.qualifiers)
                add(
                    "unknown-scope",
                    f"{where}.cardinality_scope",
                    f"'{scope}' is not one of its qualifiers{hint}",
                )
        _check_inverse(ontology, key, pred, add)
        if pred.symmetric:
            if ontology.is_literal(pred.range):
                add(
                    "bad-symmetric",
                    f"{where}.symmetric",
                    "a property (literal range) cannot be symmetric",
                )
            elif pred.range in ontology.types and not ontology.covers(pred, pred.range):
                add(
                    "bad-symmetric",
                    f"{where}.symmetric",
                    f"its range '{pred.range}' is not in its domain, so the fact cannot turn round",
                )
    return found


def _ancestors(ontology: OntologyData, key: str) -> set[str]:
    seen: set[str] = set()
    stack = list(ontology.types[key].parents)
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        typ = ontology.types.get(current)
        if typ is not None:
            stack.extend(typ.parents)
    return seen


def _check_names(entries: dict, section: str, add) -> None:  # type: ignore[no-untyped-def, type-arg]
    first: dict[str, str] = {}
    for key, entry in entries.items():
        if entry.name != key:
            add(
                "name-mismatch",
                f"{section}.{key}.name",
                f"'{entry.name}' differs from its key '{key}'",
            )
        form = lookup_form(key)
        if form in first:
            add(
                "duplicate-name",
                f"{section}.{key}",
                f"'{key}' and '{first[form]}' are the same name once case and '_' are ignored",
            )
        else:
            first[form] = key


def _check_aliases(names: dict[str, tuple[str, ...]], section: str, add) -> None:  # type: ignore[no-untyped-def]
    owner = {lookup_form(key): key for key in names}
    for key, aliases in names.items():
        for alias in aliases:
            form = lookup_form(alias)
            other = owner.setdefault(form, key)
            if other != key:
                add(
                    "duplicate-alias",
                    f"{section}.{key}.aliases",
                    f"'{alias}' already names '{other}'",
                )


def _check_inverse(ontology: OntologyData, key: str, pred: Predicate, add) -> None:  # type: ignore[no-untyped-def]
    other_key = pred.inverse_of
    if other_key is None:
        return
    where = f"predicates.{key}.inverse_of"
    other = ontology.predicates.get(other_key)
    if other is None:
        hint = did_you_mean(other_key, ontology.predicates)
        add("bad-inverse", where, f"unknown predicate '{other_key}'{hint}")
        return
    if other.inverse_of != key:
        add(
            "bad-inverse",
            where,
            f"does not hold both ways: '{other_key}' is the inverse of '{other.inverse_of}'",
        )
        return
    if other_key < key:
        return  # the pair is checked once, from its first name
    for name, side in ((key, pred), (other_key, other)):
        if ontology.is_literal(side.range):
            add(
                "bad-inverse",
                where,
                f"'{name}' is a property (range '{side.range}'); it has no inverse",
            )
            return
    if pred.range not in ontology.types or other.range not in ontology.types:
        return  # unknown-range says it
    if not (ontology.covers(other, pred.range) and ontology.covers(pred, other.range)):
        add(
            "bad-inverse",
            where,
            f"ends do not swap: '{key}' is {_ends(pred)} but '{other_key}' is {_ends(other)}",
        )


def _ends(pred: Predicate) -> str:
    domain = " | ".join(pred.domain) if pred.domain else "any"
    return f"{domain} -> {pred.range}"
