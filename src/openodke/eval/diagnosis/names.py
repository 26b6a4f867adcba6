"""The words of a few rows: the names an end goes by, its name keys, a fact as printed.

Columns hold hashes; the rules that compare names by their letters (surface form), look them up in
a text (cross-sentence) or print a fact (examples) read the rows themselves, from the Facts the API
was given or from the file (:mod:`~openodke.eval.engine.rows`). :class:`Ends` reads the rows it is
asked for once, and remembers names by the hash of what they follow from, so an entity that ends
a thousand rows is named once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from openodke.eval.diagnosis.sentences import bare_key, name_key
from openodke.eval.engine.columns import FactColumns
from openodke.forms import normalise_value

__all__ = ["Ends", "end_names", "entity_names", "name_keys", "scoped_of"]

_LITERALS = (str, int, float, bool)  # an end that is none of these is an entity


def entity_names(entity: Any) -> tuple[str, ...]:
    """The names an entity goes by, most faithful first: label, key without ``Type:``, aliases."""
    key, label = entity.key, entity.label
    head, sep, tail = key.partition(":")
    second = tail if sep and tail.strip() and head.casefold() == entity.type.casefold() else key
    if not entity.aliases:
        if not label or not label.strip() or label == second:
            return (second,) if second.strip() else ((label,) if label else ())
        return (label, second) if second.strip() else (label,)
    names = [label, second, *entity.aliases] if label else [second, *entity.aliases]
    return tuple(dict.fromkeys(n for n in names if n and n.strip()))


def end_names(end: Any) -> tuple[str, ...]:
    """An end's names: an entity's (:func:`entity_names`), a literal's value as written."""
    return (str(end),) if isinstance(end, _LITERALS) else entity_names(end)


def name_keys(end: Any) -> tuple[str, ...]:
    """An end's distinct, non-empty name keys (``name_key`` of each of its names).

    Our own ``Type:<case-folded label>`` keys take a short way: the label's key is the only one.
    """
    if not isinstance(end, _LITERALS) and not end.aliases and end.label:
        label = end.label
        if end.key == f"{end.type}:{label.casefold()}":
            key = bare_key(label)
            return (key,) if key else ()
    return tuple(k for k in dict.fromkeys(map(name_key, end_names(end))) if k)


def scoped_of(fact: Any) -> tuple[tuple[str, str], ...]:
    """Sorted ``(key, repr(value))`` of a fact's identity qualifiers that are present."""
    q = fact.qualifiers
    return tuple(sorted((k, repr(q[k])) for k in fact.identity_keys if k in q))


class Ends:
    """One side's rows read in words, on demand: each row's fact, its ends' names and keys."""

    def __init__(self, columns: FactColumns) -> None:
        self.columns = columns
        self._facts: dict[int, Any] = {}
        self._names: dict[int, tuple[str, ...]] = {}
        self._keys: dict[int, tuple[str, ...]] = {}

    def load(self, rows: Iterable[int]) -> None:
        """Read ``rows`` now (at once is cheaper than one by one)."""
        wanted = sorted({int(i) for i in rows} - self._facts.keys())
        if wanted:
            self._facts.update(zip(wanted, self.columns.rows.fetch(wanted), strict=True))

    def forget(self) -> None:
        """Drop the rows read (the names stay)."""
        self._facts.clear()

    def fact(self, i: int) -> Any:
        """Row ``i``'s fact."""
        found = self._facts.get(i)
        if found is None:
            self.load((i,))
            found = self._facts[i]
        return found

    def end(self, i: int, subject: bool) -> Any:
        """Row ``i``'s subject Entity, or its object (an Entity, or the literal value)."""
        fact = self.fact(i)
        if subject:
            return fact.subject
        return fact.object_entity if fact.object_entity is not None else fact.object_value

    def _hash(self, i: int, subject: bool) -> int:
        column = self.columns.subject_names if subject else self.columns.object_names
        return int(column[i])

    def names(self, i: int, subject: bool) -> tuple[str, ...]:
        """The names of row ``i``'s subject (or object)."""
        h = self._hash(i, subject)
        found = self._names.get(h)
        if found is None:
            found = self._names[h] = end_names(self.end(i, subject))
        return found

    def keys(self, i: int, subject: bool) -> tuple[str, ...]:
        """The name keys of row ``i``'s subject (or object)."""
        h = self._hash(i, subject)
        found = self._keys.get(h)
        if found is None:
            found = self._keys[h] = name_keys(self.end(i, subject))
        return found

    def known_keys(self) -> dict[int, frozenset[str]]:
        """The name keys read so far, by names hash, as sets."""
        return {h: frozenset(k) for h, k in self._keys.items()}

    def known_names(self) -> dict[int, tuple[str, ...]]:
        """The names read so far, by names hash."""
        return dict(self._names)

    def predicate(self, i: int) -> str:
        """Row ``i``'s predicate."""
        return self.columns.keys.predicates[int(self.columns.keys.predicate[i])]

    def subject_type(self, i: int) -> str:
        """Row ``i``'s subject type."""
        return self.columns.types[int(self.columns.subject_type[i])]

    def text(self, i: int) -> str:
        """Row ``i`` as ``subject · predicate words · object``."""
        obj = self.names(i, False)
        if not obj:
            fact = self.fact(i)
            target = fact.object_entity
            obj = (target.key if target is not None else normalise_value(fact.object_value),)
        subject = self.names(i, True)[0]
        return f"{subject} · {self.predicate(i).replace('_', ' ')} · {obj[0]}"


def rows_of(mask: np.ndarray) -> list[int]:
    """The indices where ``mask`` holds, as ints."""
    return np.flatnonzero(mask).tolist()
