"""The words of many ends at once, as columns: what the surface-form rule compares.

An end is named by its names hash (what its names follow from). :class:`EndWords` reads the
distinct ends a rule asks about once (one read of their rows per side), names each and keys its
names in one C call (``_keyhash.end_keys``; the same in Python here where it was not built) and
keeps their name keys as ragged columns, so that "the two ends share a name key"
(:meth:`EndWords.share_key`) and "the two ends are alike" (:meth:`EndWords.alike`, the rule of
:func:`~openodke.eval.diagnosis.surface.alike`) are answered for many pairs at once: sorts and
searches over hashes, ``rapidfuzz``'s pairwise ratio, and ``map`` over the few strings compared.
No Python loop runs per row or per pair.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.process import cpdist

from openodke.eval.diagnosis.names import end_names
from openodke.eval.diagnosis.sentences import name_key
from openodke.eval.engine.columns import FactColumns
from openodke.eval.engine.compiled import native
from openodke.eval.engine.joins import mix, search
from openodke.eval.engine.rows import fetch_ends

__all__ = ["ALIKE", "EndWords", "end_keys", "py_end_keys", "py_within", "within"]

_BLOCK = 65_536
"""Rows :class:`EndWords` reads again at once: their facts are held until keyed, no more."""

_SPARSE = 32
"""A side's rows asked about are sorted when they are fewer than one in this many of its rows,
else marked along it (:func:`_taken`)."""

ALIKE = 85.0
"""rapidfuzz ratio (0-100) at or above which two names are "85% alike"."""

_LITERALS = (str, int, float, bool)


def _named(end: Any) -> tuple[tuple[str, ...], int]:
    """An end's names, and how ``names.name_keys`` reads its keys: 0 from its names, 1 its
    label's alone (the short way: no aliases, a label, a key ``Type:<label case-folded>``), 2 the
    short way with a blank label (none)."""
    names = end_names(end)
    if isinstance(end, _LITERALS) or end.aliases or not end.label:
        return names, 0
    if end.key != f"{end.type}:{end.label.casefold()}":
        return names, 0
    return names, 1 if end.label.strip() else 2


def py_end_keys(
    facts: list[Any],
    where: np.ndarray,
    subjects: np.ndarray,
    fallback: Any,
    key_fallback: Any,
    counts: np.ndarray,
) -> tuple[list[str], bytes, bytes]:
    """``_keyhash.end_keys`` in Python: end ``i`` is the subject (``subjects[i]`` 1) or object
    of ``facts[where[i]]``; each of its names' distinct non-empty keys in one list, their ``hash`` (bytes
    of int64) and whether ``names.name_keys`` gives each (bytes of int8: all of them, or the
    label's alone for the short way); ``counts[i]`` how many are end ``i``'s."""
    keys: list[str] = []
    shared: list[bool] = []
    for i, (at, subject) in enumerate(zip(where.tolist(), subjects.tolist(), strict=True)):
        fact = facts[at]
        if subject:
            end = fact.subject
        else:
            end = fact.object_entity if fact.object_entity is not None else fact.object_value
        names, is_short = fallback(end)
        before = len(keys)
        for rank, name in enumerate(names):
            key = key_fallback(name)
            if key and key not in keys[before:]:  # no letter, no key; each key once
                keys.append(key)
                shared.append(is_short == 0 or (is_short == 1 and rank == 0))
        counts[i] = len(keys) - before
    hashes = np.array([hash(k) for k in keys], dtype=np.int64).tobytes()
    return keys, hashes, np.array(shared, dtype=np.int8).tobytes()


def py_within(xs: list[str], ys: list[str], out: np.ndarray) -> None:
    """``_keyhash.within`` in Python: ``out[k]`` 1 when ``xs[k]`` is within ``ys[k]`` as whole
    words or the other way round."""
    px, py = list(map(" {} ".format, xs)), list(map(" {} ".format, ys))
    out[:] = np.fromiter(map(operator.contains, py, px), bool, len(px))
    out |= np.fromiter(map(operator.contains, px, py), bool, len(px))


_native = native()
end_keys = _native.end_keys if _native is not None else py_end_keys
within = _native.within if _native is not None else py_within


def _starts(count: np.ndarray) -> np.ndarray:
    """Where each run starts, for runs of ``count`` items laid end to end."""
    start = np.zeros(len(count), dtype=np.int64)
    np.cumsum(count[:-1], out=start[1:])
    return start


def _taken(
    columns: FactColumns, parts: list[tuple[np.ndarray, bool]]
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """A side's rows asked about (``parts``: rows, and whether their subjects are asked), once
    each and ascending; which of each one's two ends are asked (a column each); and where each
    part's rows are among them.

    Few rows against the side's length are sorted and searched (the work grows with the rows
    asked, so small blocks of misses stay cheap on a side of millions); many are marked and
    counted along the side, which is faster than a sort of as many."""
    arrays = {id(rows): rows for rows, _ in parts}  # an array asked for both ends once
    if sum(map(len, arrays.values())) * _SPARSE < len(columns):
        taken = np.unique(np.concatenate(list(arrays.values())))
        found = {key: np.searchsorted(taken, rows) for key, rows in arrays.items()}
        at = [found[id(rows)] for rows, _ in parts]
        wanted = np.zeros((len(taken), 2), dtype=bool)
        for where, (_, subject) in zip(at, parts, strict=True):
            wanted[where, 0 if subject else 1] = True
        return taken, wanted, at
    marks = (np.zeros(len(columns), dtype=bool), np.zeros(len(columns), dtype=bool))
    for rows, subject in parts:
        marks[0 if subject else 1][rows] = True
    either = marks[0] | marks[1]
    taken = np.flatnonzero(either)
    rank = np.cumsum(either) - 1
    wanted = np.empty((len(taken), 2), dtype=bool)
    wanted[:, 0], wanted[:, 1] = marks[0][taken], marks[1][taken]
    return taken, wanted, [rank[rows] for rows, _ in parts]


def _expand(start: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For runs (``start``, ``count``): each item's run and its position."""
    total = int(count.sum())
    run = np.repeat(np.arange(len(count), dtype=np.int64), count)
    first = np.zeros(len(count), dtype=np.int64)
    np.cumsum(count[:-1], out=first[1:])
    position = np.arange(total, dtype=np.int64) - first[run] + start[run]
    return run, position


class EndWords:
    """The distinct ends of some rows, in words: their names' keys as ragged columns.

    ``EndWords(sides)`` takes, per side, its columns and the rows and ends (subject or object)
    asked about; ``parts[k]`` is the end each row of the ``k``-th names, and :meth:`index` the
    end any names hash asked about stands for.
    """

    def __init__(self, asked: Sequence[tuple[FactColumns, np.ndarray, bool]]) -> None:
        # Each side's rows asked about, once each and in file order, both ends of a row side by
        # side: slot 2k (subject) and 2k + 1 (object) of its k-th row; ``at``: per part asked,
        # where each of its rows is among its side's.
        sides: dict[int, FactColumns] = {}
        for columns, _, _ in asked:
            sides.setdefault(id(columns), columns)
        side_at = {key: k for k, key in enumerate(sides)}
        taken: list[np.ndarray] = []
        at: list[np.ndarray] = [np.empty(0, np.int64)] * len(asked)
        slot_hashes: list[np.ndarray] = []
        slot_asked: list[np.ndarray] = []
        for key, columns in sides.items():
            mine = [k for k, (c, _, _) in enumerate(asked) if id(c) == key]
            rows, wanted, found = _taken(columns, [(asked[k][1], asked[k][2]) for k in mine])
            for k, positions in zip(mine, found, strict=True):
                at[k] = positions
            taken.append(rows)
            pair = np.empty((len(rows), 2), dtype=np.int64)
            pair[:, 0], pair[:, 1] = columns.subject_names[rows], columns.object_names[rows]
            slot_hashes.append(pair.reshape(-1))
            slot_asked.append(wanted.reshape(-1))
        base = _starts(np.array([2 * len(rows) for rows in taken], dtype=np.int64))
        every, wanted = np.concatenate(slot_hashes), np.concatenate(slot_asked)
        used = None if wanted.all() else np.flatnonzero(wanted)  # the slots asked about
        hashes = every if used is None else every[used]
        # Ends are named by their names hash: sorted and distinct, end k is the k-th. Sorts here
        # need not be stable (slots of one names hash have the same names): numpy's default
        # argsort is ~4x faster on int64.
        order = np.argsort(hashes)
        ordered = hashes[order]
        first = np.ones(len(ordered), dtype=bool)
        first[1:] = ordered[1:] != ordered[:-1]
        self.hashes = ordered[first]
        end_of = np.empty(len(order), dtype=np.int64)
        end_of[order] = np.cumsum(first) - 1
        if used is not None:
            spread = np.full(len(every), -1, dtype=np.int64)
            spread[used] = end_of
            end_of = spread
        # per part asked, the end each of its rows names (what :meth:`index` would give)
        self.parts: list[np.ndarray] = []
        for (columns, _, subject), positions in zip(asked, at, strict=True):
            slot = base[side_at[id(columns)]] + 2 * positions + (0 if subject else 1)
            self.parts.append(end_of[slot])
        del at
        # Each end is keyed once, from one of its slots, in slot order: the facts are then read
        # where they lie in the files, not scattered (5x faster on 280k ends). Their keys are
        # kept in that order (``proc``: the end keyed k-th), found by ``start``.
        one = np.zeros(len(every), dtype=bool)
        one[order[first] if used is None else used[order[first]]] = True
        slots = np.flatnonzero(one)
        del one
        proc = end_of[slots]
        side_of = np.searchsorted(base, slots, side="right") - 1
        row_starts = _starts(np.array([len(rows) for rows in taken], dtype=np.int64))
        placed = row_starts[side_of] + (slots - base[side_of]) // 2  # each end's row, all sides
        row_of = np.concatenate(taken)[placed]
        new = np.ones(len(placed), dtype=bool)
        new[1:] = placed[1:] != placed[:-1]
        where = np.cumsum(new) - 1  # each end's fact, counted over both sides in file order
        read_side, read_row = side_of[new], row_of[new]
        subjects = ((slots & 1) == 0).astype(np.int8)
        count = np.zeros(len(proc), dtype=np.int64)
        keys: list[str] = []
        key_hashes: list[bytes] = []
        flags: list[bytes] = []
        # Facts are read a block at a time and keyed at once: a block's facts, not a side's,
        # are held (the ends of a block are a run of ``where``, which ascends).
        for side, columns in enumerate(sides.values()):
            first_read, last_read = np.searchsorted(read_side, [side, side + 1])
            for start in range(int(first_read), int(last_read), _BLOCK):
                stop = min(start + _BLOCK, int(last_read))
                facts = fetch_ends(columns.rows, read_row[start:stop].tolist())
                lo, hi = np.searchsorted(where, [start, stop])
                got, h, flag = end_keys(
                    facts, where[lo:hi] - start, subjects[lo:hi], _named, name_key, count[lo:hi]
                )
                keys.extend(got)
                key_hashes.append(h)
                flags.append(flag)
        key_hash, shared_bytes = b"".join(key_hashes), b"".join(flags)
        self.keys: list[str] = keys
        self._key_array: np.ndarray | None = None
        self.key_hash = np.frombuffer(key_hash, dtype=np.int64)
        self.count = np.empty(len(proc), dtype=np.int64)
        self.count[proc] = count
        self.start = np.empty(len(proc), dtype=np.int64)
        self.start[proc] = _starts(count)
        # "Share a key" reads names.name_keys: a short-way end's is its label's (its first
        # name) alone, none when the label is blank.
        shared = np.frombuffer(shared_bytes, dtype=np.int8).view(bool)
        self._share_hash = self.key_hash[shared]  # grouped by end, as the keys are
        share_owner = np.repeat(proc, count)[shared]
        share_count = np.bincount(share_owner, minlength=len(proc))
        self._share_count = share_count
        self._share_start = np.empty(len(proc), dtype=np.int64)
        self._share_start[proc] = _starts(share_count[proc])
        self._share_owner = share_owner
        self._share: np.ndarray | None = None  # sorted (end, key) codes, when first needed

    def index(self, hashes: np.ndarray) -> np.ndarray:
        """The end each names hash stands for (every one was asked about)."""
        return search(self.hashes, hashes)

    def share_key(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per pair: do ends ``a[k]`` and ``b[k]`` have a name key in common?

        An end shares a key with itself when it has one: only pairs of two ends are looked up.
        """
        same = a == b
        out = self._share_count[a] > 0
        out &= same
        two = np.flatnonzero(~same)
        a, b = a[two], b[two]
        # one key each (most ends): the two keys compared by their hashes, no search
        single = (self._share_count[a] == 1) & (self._share_count[b] == 1)
        one = np.flatnonzero(single)
        key_a = self._share_hash[self._share_start[a[one]]]
        out[two[one]] = key_a == self._share_hash[self._share_start[b[one]]]
        more = np.flatnonzero(~single)
        if not len(more):
            return out
        two, a, b = two[more], a[more], b[more]
        if self._share is None:
            self._share = np.sort(mix(self._share_owner, self._share_hash))
        share = self._share
        pair, at = _expand(self._share_start[b], self._share_count[b])
        codes = mix(a[pair], self._share_hash[at])
        spot = search(share, codes)
        spot[spot == len(share)] = 0
        hit = share[spot] == codes if len(share) else np.zeros(len(codes), bool)
        out[two[pair[hit]]] = True
        return out

    def alike(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per pair: are ends ``a[k]`` and ``b[k]`` alike (a name key of one equal to, or
        within as whole words, one of the other's, or rapidfuzz ratio >= ALIKE)?

        An end is alike itself when it has a key: only pairs of two ends are compared.
        """
        same = a == b
        out = self.count[a] > 0
        out &= same
        two = np.flatnonzero(~same)
        if len(two):
            out[two] = self._alike(a[two], b[two])
        return out

    def _alike(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """:meth:`alike` of pairs of two ends, each pair of ends compared once."""
        out = np.zeros(len(a), dtype=bool)
        code = mix(a, b)
        order = np.argsort(code)
        code = code[order]
        first = np.ones(len(code), dtype=bool)
        first[1:] = code[1:] != code[:-1]
        at = order[first]
        ua, ub = a[at], b[at]
        ca, cb = self.count[ua], self.count[ub]
        if np.all(ca == 1) and np.all(cb == 1):  # one key each (most ends): one comparison
            pair, x, y = np.arange(len(ua)), self.start[ua], self.start[ub]
        else:
            pair, t = _expand(np.zeros(len(ua), np.int64), ca * cb)
            if not len(pair):
                return out
            x = self.start[ua][pair] + t // cb[pair]
            y = self.start[ub][pair] + t % cb[pair]
        if self._key_array is None:  # the keys as an array: gathered in C, not by a map
            self._key_array = np.empty(len(self.keys), dtype=object)
            self._key_array[:] = self.keys
        xs, ys = self._key_array[x].tolist(), self._key_array[y].tolist()
        near = cpdist(xs, ys, scorer=fuzz.ratio, score_cutoff=ALIKE, workers=1) > 0
        inside = np.zeros(len(xs), dtype=np.int8)
        within(xs, ys, inside)
        same = np.zeros(len(ua), dtype=bool)
        same[pair[near | inside.view(bool)]] = True
        group = np.cumsum(first) - 1
        out[order] = same[group]
        return out
