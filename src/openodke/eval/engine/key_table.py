"""Match keys and documents as columns of hashes, so a million rows match in numpy.

String work per row is what a large file cannot afford in the matcher, so each row's key, the two
groups the later passes pair by (same subject; same object) and its predicate and document are
reduced to Python's 64-bit string hashes where the row is read (in the fast loader's workers,
which share the parent's hash secret by fork). Two different strings share such a hash with
probability 2^-64 per pair, and a wrong pairing needs that between rows of one document: about
10^-12 for a million rows (DECISIONS.md). The Fact-based API builds the same columns from encoded
keys (:meth:`KeyTable.of`), with the same function, so both paths give the same answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

__all__ = ["SEP", "DocColumn", "KeyTable", "hashes_of"]

SEP = "\x1f"
_Parts = tuple[list[str], list[str], list[str], list[str], list[bool], list[str], list[str]]


def hashes_of(values: Iterable[object], n: int | None = None) -> np.ndarray:
    """``hash(v)`` for each of ``values`` (``n`` of them, or a sized collection), as int64."""
    count = len(values) if n is None else n  # type: ignore[arg-type]
    return np.fromiter(map(hash, values), np.int64, count)


def _names(hashes: np.ndarray, strings: Iterable[str]) -> dict[int, str]:
    """hash → string (a repeated string just writes its entry again)."""
    return dict(zip(hashes.tolist(), strings, strict=True))


# An odd 64-bit multiplier (2^64 / golden ratio): key = subject group * M + object group, wrapping.
_MIX = np.int64(-7046029254386353131)


@dataclass
class KeyTable:
    """Per row: hashes of its subject group (predicate, subject, subject type, polarity,
    identity qualifiers) and object group (predicate, object, literal or entity, polarity), the
    key made of both, whether the object is a literal, and the predicate's hash (``predicates``
    names each). ``strings`` holds the encoded keys when they were built (the Fact-based path)."""

    subject: np.ndarray
    object: np.ndarray
    literal: np.ndarray
    predicate: np.ndarray
    predicates: dict[int, str]
    strings: list[str] | None = None

    def __len__(self) -> int:
        return len(self.subject)

    @cached_property
    def key(self) -> np.ndarray:
        """The key's hash: both groups together name every part of it. Worked out when read, so
        the fast loader's workers send one column less."""
        return self.subject * _MIX + self.object

    @classmethod
    def of_parts(cls, parts: _Parts, strings: list[str] | None = None) -> KeyTable:
        """The table for parallel lists: predicate, subject, subject type, object (entity key or
        normalised literal), literal flag, polarity, identity qualifiers (``""`` for none).

        The fast loader hashes the same tuples from its structs; keep the two in step.
        """
        p, s, t, o, literal, pol, scoped = parts
        n = len(p)
        predicate = hashes_of(p)
        return cls(
            hashes_of(zip(p, s, t, pol, scoped, strict=True), n),
            hashes_of(zip(p, o, literal, pol, strict=True), n),
            np.array(literal, dtype=bool),
            predicate,
            _names(predicate, p),
            strings,
        )

    @classmethod
    def of(cls, keys: Sequence[str]) -> KeyTable:
        """The table for encoded keys (:func:`openodke.eval.engine.matching.encode_key`)."""
        parts: _Parts = ([], [], [], [], [], [], [])
        for k in keys:
            p, s, t, o, pol, scoped = k.split(SEP)
            values = (p, s, t, o[1:], o[:1] == "L", pol, scoped)
            for column, value in zip(parts, values, strict=True):
                column.append(value)  # type: ignore[attr-defined]
        return cls.of_parts(parts, list(keys))

    @classmethod
    def concat(cls, tables: Sequence[KeyTable]) -> KeyTable:
        """All rows of ``tables`` in order."""
        if len(tables) == 1:
            return tables[0]
        strings = None
        if all(t.strings is not None for t in tables):
            strings = [s for t in tables for s in t.strings]  # type: ignore[union-attr]
        predicates = tables[0].predicates
        if any(t.predicates is not predicates for t in tables):
            predicates = {}
            for t in tables:
                predicates.update(t.predicates)
        arrays = {name: np.concatenate([getattr(t, name) for t in tables]) for name in _ARRAYS}
        return cls(**arrays, predicates=predicates, strings=strings)

    def take(self, rows: np.ndarray) -> KeyTable:
        """The rows ``rows``."""
        strings = None if self.strings is None else [self.strings[i] for i in rows.tolist()]
        arrays = {name: getattr(self, name)[rows] for name in _ARRAYS}
        return KeyTable(**arrays, predicates=self.predicates, strings=strings)

    def predicate_ids(self) -> tuple[np.ndarray, list[str]]:
        """Each row's predicate as an index into the returned names."""
        distinct = np.unique(self.predicate)  # few: looking rows up beats sorting them
        ids = np.searchsorted(distinct, self.predicate)
        return ids.astype(np.int64), [self.predicates[h] for h in distinct.tolist()]


_ARRAYS = ("subject", "object", "literal", "predicate")


@dataclass
class DocColumn:
    """Each row's document (for a prediction, the first it cites) as a hash, ``names`` naming
    each in the order rows first name them; ``present`` False where a prediction cites none;
    ``more`` every document of a row citing several."""

    hashes: np.ndarray
    names: dict[int, str]
    present: np.ndarray
    more: dict[int, tuple[str, ...]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.hashes)

    @classmethod
    def of(cls, docs: Sequence[str]) -> DocColumn:
        """One document per row (gold rows)."""
        hashes = hashes_of(docs)
        return cls(hashes, _names(hashes, docs), np.ones(len(docs), dtype=bool))

    @classmethod
    def of_cited(cls, cited: Sequence[tuple[str, ...]]) -> DocColumn:
        """Each row's cited documents, in order (predictions)."""
        firsts = [docs[0] if docs else "" for docs in cited]
        present = np.fromiter(map(bool, cited), bool, len(cited))
        more = {j: docs for j, docs in enumerate(cited) if len(docs) > 1}
        return cls.of_firsts(firsts, present, more)

    @classmethod
    def of_firsts(
        cls, firsts: list[str], present: np.ndarray, more: dict[int, tuple[str, ...]]
    ) -> DocColumn:
        """From each row's first cited document (``""`` where ``present`` is False, named but
        never looked up) and, for rows citing several, all of them."""
        hashes = hashes_of(firsts)
        return cls(hashes, _names(hashes, firsts), present, more)

    @classmethod
    def concat(cls, columns: Sequence[DocColumn]) -> DocColumn:
        """All rows of ``columns`` in order."""
        if len(columns) == 1:
            return columns[0]
        names = columns[0].names  # blocks of one part share theirs
        if any(c.names is not names for c in columns):
            names = {}
            for c in columns:
                names.update(c.names)
        more: dict[int, tuple[str, ...]] = {}
        offset = 0
        for c in columns:
            if c.more:
                more.update((offset + j, docs) for j, docs in c.more.items())
            offset += len(c)
        hashes = np.concatenate([c.hashes for c in columns])
        return cls(hashes, names, np.concatenate([c.present for c in columns]), more)

    def take(self, rows: np.ndarray) -> DocColumn:
        """The rows ``rows``, in that order."""
        picked = rows.tolist()
        more = {k: self.more[j] for k, j in enumerate(picked) if j in self.more}
        return DocColumn(self.hashes[rows], self.names, self.present[rows], more)

    def tuples(self) -> list[tuple[str, ...]]:
        """Each row's documents."""
        return [
            self.more.get(j) or ((self.names[h],) if present else ())
            for j, (h, present) in enumerate(
                zip(self.hashes.tolist(), self.present.tolist(), strict=True)
            )
        ]
