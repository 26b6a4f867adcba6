"""Diffing two ontologies: which changes break facts, configs or labels made with the old one.

A change is **breaking** when something valid under the old ontology may stop being valid or
change identity under the new one: a type or predicate removed, a range changed, a domain
narrowed, an alias or parent removed, a qualifier's identity changed, ``inverse_of`` removed.
Anything that only widens or describes (new entries, a wider domain, a description, importance,
examples, adding ``inverse_of`` or ``symmetric``) is **compatible**.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from openodke.ontology.model import EntityType, OntologyData, Predicate

__all__ = ["Change", "OntologyDiff", "diff_ontologies"]


class Change(BaseModel):
    """One difference: ``path`` (dotted), ``message``, and whether it is breaking."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    message: str
    breaking: bool

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class OntologyDiff(BaseModel):
    """The changes from an old ontology to a new one, split into breaking and compatible."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    breaking: tuple[Change, ...] = ()
    compatible: tuple[Change, ...] = ()

    @property
    def is_breaking(self) -> bool:
        """True when any change is breaking."""
        return bool(self.breaking)

    @property
    def changes(self) -> tuple[Change, ...]:
        """Every change, breaking first."""
        return self.breaking + self.compatible

    def render(self) -> str:
        """One line per change under ``breaking:`` and ``compatible:``, or ``no changes``."""
        if not self.changes:
            return "no changes"
        lines: list[str] = []
        for title, group in (("breaking", self.breaking), ("compatible", self.compatible)):
            if group:
                lines.append(f"{title}:")
                lines.extend(f"  {change}" for change in group)
        return "\n".join(lines)


def diff_ontologies(old: OntologyData, new: OntologyData) -> OntologyDiff:
    """The changes from ``old`` to ``new``, in a stable order (types, then predicates)."""
    changes: list[Change] = []

    def add(path: str, message: str, breaking: bool) -> None:
        changes.append(Change(path=path, message=message, breaking=breaking))

    for field in ("name", "version"):
        before, after = getattr(old, field), getattr(new, field)
        if before != after:
            add(field, f"{before!r} -> {after!r}", False)

    for key in old.types.keys() - new.types.keys():
        add(f"types.{key}", "removed", True)
    for key in new.types.keys() - old.types.keys():
        add(f"types.{key}", "added", False)
    for key in old.types.keys() & new.types.keys():
        _diff_type(f"types.{key}", old.types[key], new.types[key], add)

    for key in old.predicates.keys() - new.predicates.keys():
        add(f"predicates.{key}", "removed", True)
    for key in new.predicates.keys() - old.predicates.keys():
        # A new required predicate makes every old subject incomplete.
        required = new.predicates[key].required
        add(f"predicates.{key}", "added (required)" if required else "added", required)
    for key in old.predicates.keys() & new.predicates.keys():
        _diff_predicate(f"predicates.{key}", old.predicates[key], new.predicates[key], add)

    changes.sort(key=lambda c: (not c.path.startswith("types"), c.path, c.message))
    return OntologyDiff(
        breaking=tuple(c for c in changes if c.breaking),
        compatible=tuple(c for c in changes if not c.breaking),
    )


def _set_change(path: str, before: Any, after: Any, add: Any, *, removing_breaks: bool) -> None:
    gone = [x for x in before if x not in after]
    came = [x for x in after if x not in before]
    if gone:
        add(path, f"removed {', '.join(map(str, gone))}", removing_breaks)
    if came:
        add(path, f"added {', '.join(map(str, came))}", False)


def _diff_type(path: str, old: EntityType, new: EntityType, add: Any) -> None:
    _set_change(f"{path}.parents", old.parents, new.parents, add, removing_breaks=True)
    _set_change(f"{path}.aliases", old.aliases, new.aliases, add, removing_breaks=True)
    if old.keys != new.keys:
        add(f"{path}.keys", f"{list(old.keys)} -> {list(new.keys)}", True)
    if old.description != new.description:
        add(f"{path}.description", "changed", False)


def _diff_predicate(path: str, old: Predicate, new: Predicate, add: Any) -> None:
    if old.range != new.range:
        add(f"{path}.range", f"{old.range!r} -> {new.range!r}", True)
    if old.domain != new.domain:
        if not new.domain:
            add(f"{path}.domain", "opened to every type", False)
        elif not old.domain:
            add(f"{path}.domain", f"narrowed from every type to {', '.join(new.domain)}", True)
        else:
            _set_change(f"{path}.domain", old.domain, new.domain, add, removing_breaks=True)
    if old.cardinality != new.cardinality:
        # single -> multi accepts everything it did; multi -> single refuses second values.
        add(
            f"{path}.cardinality",
            f"{old.cardinality} -> {new.cardinality}",
            new.cardinality == "single",
        )
    if old.cardinality_scope != new.cardinality_scope:
        add(
            f"{path}.cardinality_scope",
            f"{list(old.cardinality_scope)} -> {list(new.cardinality_scope)}",
            True,
        )
    if old.required != new.required:
        add(f"{path}.required", f"{old.required} -> {new.required}", new.required)
    _diff_qualifiers(f"{path}.qualifiers", old, new, add)
    _set_change(f"{path}.aliases", old.aliases, new.aliases, add, removing_breaks=True)
    if old.inverse_of != new.inverse_of:
        if old.inverse_of is None:
            add(f"{path}.inverse_of", f"added {new.inverse_of!r}", False)
        elif new.inverse_of is None:
            add(f"{path}.inverse_of", f"removed {old.inverse_of!r}", True)
        else:
            add(f"{path}.inverse_of", f"{old.inverse_of!r} -> {new.inverse_of!r}", True)
    if old.symmetric != new.symmetric:
        add(f"{path}.symmetric", f"{old.symmetric} -> {new.symmetric}", old.symmetric)
    if old.label != new.label:
        # Lookups answer to labels, so losing one breaks a name that used to resolve.
        add(f"{path}.label", f"{old.label!r} -> {new.label!r}", old.label is not None)
    for field in ("description", "importance", "examples"):
        if getattr(old, field) != getattr(new, field):
            add(f"{path}.{field}", "changed", False)


def _diff_qualifiers(path: str, old: Predicate, new: Predicate, add: Any) -> None:
    for key in old.qualifiers.keys() - new.qualifiers.keys():
        add(f"{path}.{key}", "removed", True)
    for key in sorted(new.qualifiers.keys() - old.qualifiers.keys()):
        # A new identity qualifier splits facts that used to be one.
        identity = new.qualifiers[key].identity
        add(f"{path}.{key}", "added (identity)" if identity else "added", identity)
    for key in old.qualifiers.keys() & new.qualifiers.keys():
        before, after = old.qualifiers[key], new.qualifiers[key]
        if before.identity != after.identity:
            add(f"{path}.{key}.identity", f"{before.identity} -> {after.identity}", True)
        if before.description != after.description:
            add(f"{path}.{key}.description", "changed", False)
