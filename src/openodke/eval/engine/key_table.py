"""Match keys and documents as columns of hashes, so a million rows match in numpy.

String work per row is what a large file cannot afford in the matcher, so the parts of each row's
identity (each end's name and type, the rest of each group, its predicate) and its document are
reduced to Python's 64-bit string hashes where the row is read (in the fast loader's workers,
which share the parent's hash secret by fork). Two different strings share such a hash with
probability 2^-64 per pair, and a wrong pairing needs that between rows of one document: about
10^-12 for a million rows (DECISIONS.md). The Fact-based API builds the same columns from encoded
keys (:meth:`KeyTable.of`), with the same functions, so both paths give the same answer; the groups
the later passes pair by (same subject; same object) and the key are mixed from the parts in numpy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache

import numpy as np

from openodke.eval.engine.fold import node_of
from openodke.eval.engine.joins import distinct, search
from openodke.eval.engine.keyhash import LITERAL_NODE
from openodke.forms import lookup_form

__all__ = [
    "SEP",
    "UNTYPED",
    "UNTYPED_NAMES",
    "DocColumn",
    "KeyTable",
    "effective_types",
    "end_to_end",
    "hashes_of",
    "join_sides",
    "same_values",
]

SEP = "\x1f"
_Parts = tuple[
    list[str], list[str], list[str], list[str], list[str], list[bool], list[str], list[str]
]
UNTYPED = 0
"""An effective type that matches any: an entity whose source gave no type (``Thing``)."""
UNTYPED_NAMES = ("Thing", "")
"""The type names that mean "no type given"."""


def hashes_of(values: Iterable[object], n: int | None = None) -> np.ndarray:
    """``hash(v)`` for each of ``values`` (``n`` of them, or a sized collection), as int64."""
    count = len(values) if n is None else n  # type: ignore[arg-type]
    return np.fromiter(map(hash, values), np.int64, count)


def _names(hashes: np.ndarray, strings: Iterable[str]) -> dict[int, str]:
    """hash → string (a repeated string just writes its entry again)."""
    return dict(zip(hashes.tolist(), strings, strict=True))


def effective_types(raw: np.ndarray) -> np.ndarray:
    """Type hashes as identity reads them: the untyped names become :data:`UNTYPED`."""
    out = raw.copy()
    for name in UNTYPED_NAMES:
        out[raw == hash(name)] = UNTYPED
    return out


# Odd 64-bit multipliers: an end's parts to one int64, and key = subject group * M + object group,
# all wrapping (_MIX is 2^64 / golden ratio; the others splitmix64's).
_MIX = np.int64(-7046029254386353131)
_NAME = np.uint64(0xBF58476D1CE4E5B9)
_TYPE = np.uint64(0x94D049BB133111EB)
_LITERAL = np.int64(0x2545F4914F6CDD1D)


def _group(
    rest: np.ndarray, predicate: np.ndarray, name: np.ndarray, type_: np.ndarray
) -> np.ndarray:
    """One hash per row of an end's group: its rest, the predicate, its name and its type, mixed
    (a splitmix64 finish, so structured inputs spread)."""
    x = rest.view(np.uint64) * _NAME  # one new column, worked on in place
    x += predicate.view(np.uint64)
    x *= _TYPE
    x += name.view(np.uint64)
    x *= _NAME
    x += type_.view(np.uint64)
    x ^= x >> np.uint64(31)
    x *= _TYPE
    x ^= x >> np.uint64(29)
    return x.view(np.int64)


def predicate_forms(raw: np.ndarray, names: Mapping[int, str]) -> tuple[np.ndarray, dict[int, str]]:
    """Predicates as matching compares them: each raw hash (``names`` names it, and may name
    more) becomes the hash of its lookup form (case-folded, ``_`` as a space, whitespace
    collapsed); with the names of the new hashes (of each form, the spelling first seen)."""
    known, forms, named = _forms_of(names)
    return forms[search(known, raw)], named


_LAST: list[tuple[Mapping[int, str], int, np.ndarray, np.ndarray, dict[int, str]]] = []


def _forms_of(names: Mapping[int, str]) -> tuple[np.ndarray, np.ndarray, dict[int, str]]:
    """The sorted raw hashes ``names`` holds, their forms, and the forms' names; the blocks of a
    file share one growing ``names``, so the last answer serves until it grows."""
    if _LAST and _LAST[0][0] is names and _LAST[0][1] == len(names):
        return _LAST[0][2:]
    known = np.fromiter(names, np.int64, len(names))
    known.sort()
    forms = np.fromiter((_form(names[h]) for h in known.tolist()), np.int64, len(known))
    named: dict[int, str] = {}
    for name in names.values():  # in the order first seen
        named.setdefault(_form(name), name)
    _LAST[:] = [(names, len(names), known, forms, named)]
    return known, forms, named


@lru_cache(maxsize=4096)
def _form(name: str) -> int:
    return hash(lookup_form(name))


@dataclass
class KeyTable:
    """Per row, what identity is made of: the subject's rest (polarity, identity qualifiers),
    the object's (polarity), the predicate (its lookup form's hash; ``predicates`` names each),
    each end's identity name (:mod:`~openodke.eval.engine.fold`; a literal's normalised value,
    salted) and effective type (:data:`UNTYPED` for none, or when types are not compared), and
    whether the object is a literal. The subject and object groups (what the later passes pair
    by) and the key are worked out from them when read, so aligning two sides
    (:mod:`~openodke.eval.engine.identity`) is a new table with other columns. ``strings`` holds
    the encoded keys when they were built (the Fact-based path)."""

    subject_rest: np.ndarray
    object_rest: np.ndarray
    subject_name: np.ndarray
    object_name: np.ndarray
    subject_type: np.ndarray
    object_type: np.ndarray
    literal: np.ndarray
    predicate: np.ndarray
    predicates: dict[int, str]
    strings: list[str] | None = None

    def __len__(self) -> int:
        return len(self.subject_rest)

    @cached_property
    def subject(self) -> np.ndarray:
        """The subject group: rest, predicate, subject name and type."""
        return _group(self.subject_rest, self.predicate, self.subject_name, self.subject_type)

    @cached_property
    def object(self) -> np.ndarray:
        """The object group: rest and literal flag, predicate, object name and type."""
        rest = self.object_rest ^ np.where(self.literal, _LITERAL, 0)
        return _group(rest, self.predicate, self.object_name, self.object_type)

    @cached_property
    def key(self) -> np.ndarray:
        """The key's hash: both groups together name every part of it."""
        key = self.subject * _MIX
        key += self.object
        return key

    def with_types(self, subject_type: np.ndarray, object_type: np.ndarray) -> KeyTable:
        """This table comparing ends by other effective types."""
        return replace(self, subject_type=subject_type, object_type=object_type)

    @classmethod
    def of_parts(cls, parts: _Parts, strings: list[str] | None = None) -> KeyTable:
        """The table for parallel lists: predicate, subject key, subject type, object (entity key
        or normalised literal), object type (``""`` for a literal), literal flag, polarity,
        identity qualifiers (``""`` for none).

        The engine's hashing (:mod:`~openodke.eval.engine.keyhash`) hashes the same parts from
        structs and Facts; keep the two in step.
        """
        p, s, t, o, ot, literal, pol, scoped = parts
        n = len(p)
        raw = hashes_of(p)
        predicate, named = predicate_forms(raw, _names(raw, p))
        subject_name = np.fromiter(
            (node_of(k, kind) for k, kind in zip(s, t, strict=True)), np.int64, n
        )
        object_name = np.fromiter(
            (
                hash(v) ^ LITERAL_NODE if is_literal else node_of(v, kind)
                for v, kind, is_literal in zip(o, ot, literal, strict=True)
            ),
            np.int64,
            n,
        )
        flags = np.array(literal, dtype=bool)
        return cls(
            hashes_of(zip(pol, scoped, strict=True), n),
            hashes_of(((x,) for x in pol), n),
            subject_name,
            object_name,
            effective_types(hashes_of(t)),
            np.where(flags, 0, effective_types(hashes_of(ot))),
            flags,
            predicate,
            named,
            strings,
        )

    @classmethod
    def of(cls, keys: Sequence[str]) -> KeyTable:
        """The table for encoded keys (:func:`openodke.eval.engine.matching.encode_key`)."""
        parts: _Parts = ([], [], [], [], [], [], [], [])
        for k in keys:
            p, s, t, o, ot, pol, scoped = k.split(SEP)
            values = (p, s, t, o[1:], ot, o[:1] == "L", pol, scoped)
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
            for t in tables:  # the first table's name of a form wins (gold's, in matching)
                for h, name in t.predicates.items():
                    predicates.setdefault(h, name)
        arrays = {name: end_to_end([getattr(t, name) for t in tables]) for name in _ARRAYS}
        table = cls(**arrays, predicates=predicates, strings=strings)
        for name in _DERIVED:  # groups the parts worked out already are not mixed again
            if all(name in t.__dict__ for t in tables):
                table.__dict__[name] = end_to_end([t.__dict__[name] for t in tables])
        return table

    def lean_on(self, whole: KeyTable, start: int) -> None:
        """Read this table's arrays (and the groups worked out) from ``whole``'s rows from
        ``start`` on, which hold the same values: the copies this table held are freed unless
        something else holds them (a side's rows and both sides' rows are never held twice)."""
        stop = start + len(self)
        for name in _ARRAYS:
            setattr(self, name, getattr(whole, name)[start:stop])
        for name in _DERIVED:
            if name in whole.__dict__:
                self.__dict__[name] = whole.__dict__[name][start:stop]

    def share_equal(self, other: KeyTable) -> None:
        """Read each array holding the same values as ``other``'s from ``other`` (an aligned
        table: most of its columns are this one's, as copies), so one copy is held."""
        for name in _ARRAYS:
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine is not theirs and same_values(mine, theirs):
                setattr(self, name, theirs)

    def take(self, rows: np.ndarray) -> KeyTable:
        """The rows ``rows``."""
        strings = None if self.strings is None else [self.strings[i] for i in rows.tolist()]
        arrays = {name: getattr(self, name)[rows] for name in _ARRAYS}
        table = KeyTable(**arrays, predicates=self.predicates, strings=strings)
        for name in _DERIVED:
            if name in self.__dict__:
                table.__dict__[name] = self.__dict__[name][rows]
        return table

    def predicate_ids(self) -> tuple[np.ndarray, list[str]]:
        """Each row's predicate as an index into the returned names."""
        # the distinct predicates by a sort (numpy 2's np.unique hashes int64 values, ~7x slower)
        names = distinct(self.predicate)
        ids = search(names, self.predicate).astype(np.int64)  # few names: no sort of the rows
        return ids, [self.predicates[h] for h in names.tolist()]


def end_to_end(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """The arrays joined in order: a view of the buffer they already lie in, end to end (as
    :func:`join_sides` leaves two sides' columns), else a copy."""
    view = _adjacent(arrays)
    return np.concatenate(arrays) if view is None else view


def _adjacent(arrays: Sequence[np.ndarray]) -> np.ndarray | None:
    """The view of one buffer spanning ``arrays`` when they lie in it end to end, else None."""
    first = arrays[0]
    base = first.base
    if not (
        isinstance(base, np.ndarray)
        and base.ndim == 1
        and base.flags.c_contiguous
        and all(
            a.base is base and a.dtype == base.dtype and a.ndim == 1 and a.flags.c_contiguous
            for a in arrays
        )
    ):
        return None
    size, origin = base.itemsize, base.ctypes.data
    start = at = (first.ctypes.data - origin) // size
    for a in arrays:
        if a.ctypes.data != origin + at * size:
            return None
        at += len(a)
    return base[start:at]


def join_sides(gold: KeyTable, predicted: KeyTable, holders: Iterable[object]) -> None:
    """Lay each of ``gold``'s key columns and ``predicted``'s end to end in one array, column by
    column, and have every one of ``holders`` (key tables, columns, an aligner: any attribute
    that is one of those arrays) read its rows from there, so each side's own copy is freed
    before the next column is joined. Matching's table of every row is then these arrays
    (:func:`end_to_end`), not a copy beside both sides' (DECISIONS 301)."""
    objects = list(holders)
    ng = len(gold)
    for name in _ARRAYS:
        mine, theirs = getattr(gold, name), getattr(predicted, name)
        if mine is theirs or _adjacent([mine, theirs]) is not None:
            continue  # one array for both, or already end to end
        joined = np.concatenate([mine, theirs])
        for old, new in ((mine, joined[:ng]), (theirs, joined[ng:])):
            for holder in objects:
                for attr, value in list(vars(holder).items()):
                    if value is old:
                        setattr(holder, attr, new)
        del mine, theirs, old, new, joined


def same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays hold the same values, of the same type (two views of the same
    memory do, without reading it)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.strides == b.strides and a.ctypes.data == b.ctypes.data:
        return True
    return bool(np.array_equal(a, b))


_DERIVED = ("subject", "object", "key")
"""The cached properties mixed from the parts: carried along by concat and take."""
_ARRAYS = (
    "subject_rest",
    "object_rest",
    "subject_name",
    "object_name",
    "subject_type",
    "object_type",
    "literal",
    "predicate",
)


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
