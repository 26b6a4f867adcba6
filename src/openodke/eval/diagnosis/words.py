"""The words of many ends at once, as columns: what the surface-form rule compares.

An end is named by its names hash (what its names follow from). :class:`EndWords` reads the
distinct ends a rule asks about once (one read of their rows per side), names each in C
(``_keyhash.end_words`` and ``name_keys``; the same in Python here where it was not built) and
keeps their name keys as ragged columns, so that "the two ends share a name key"
(:meth:`EndWords.share_key`) and "the two ends are alike" (:meth:`EndWords.alike`, the rule of
:func:`~openodke.eval.diagnosis.surface.alike`) are answered for many pairs at once: sorts and
searches over hashes, ``rapidfuzz``'s pairwise ratio, and ``map`` over the few strings compared.
No Python loop runs per row or per pair.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from itertools import chain, compress
from typing import Any

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.process import cpdist

from openodke.eval.diagnosis.names import end_names
from openodke.eval.diagnosis.sentences import name_key
from openodke.eval.engine.columns import FactColumns
from openodke.eval.engine.compiled import native
from openodke.eval.engine.joins import mix, search

__all__ = ["ALIKE", "EndWords", "end_words", "name_keys", "py_end_words", "py_name_keys"]

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


def py_end_words(
    facts: list[Any], subject: bool, fallback: Any, counts: np.ndarray, short: np.ndarray
) -> list[str]:
    """``_keyhash.end_words`` in Python: each fact's subject (or object) named, every name in
    one list; ``counts[i]`` how many are row ``i``'s, ``short[i]`` the short way's flag."""
    out: list[str] = []
    for i, fact in enumerate(facts):
        if subject:
            end = fact.subject
        else:
            end = fact.object_entity if fact.object_entity is not None else fact.object_value
        names, is_short = fallback(end)
        out.extend(names)
        counts[i], short[i] = len(names), is_short
    return out


def py_name_keys(names: list[str], fallback: Any) -> list[str]:
    """``_keyhash.name_keys`` in Python: each name's ``name_key``."""
    return [fallback(n) for n in names]


_native = native()
end_words = _native.end_words if _native is not None else py_end_words
name_keys = _native.name_keys if _native is not None else py_name_keys


def _starts(count: np.ndarray) -> np.ndarray:
    """Where each run starts, for runs of ``count`` items laid end to end."""
    start = np.zeros(len(count), dtype=np.int64)
    np.cumsum(count[:-1], out=start[1:])
    return start


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
    asked about; :meth:`index` gives the end each names hash stands for.
    """

    def __init__(self, asked: Sequence[tuple[FactColumns, np.ndarray, bool]]) -> None:
        hashes = np.concatenate(
            [(c.subject_names if s else c.object_names)[rows] for c, rows, s in asked]
        )
        part = np.repeat(np.arange(len(asked)), [len(rows) for _, rows, _ in asked])
        row = np.concatenate([rows for _, rows, _ in asked]).astype(np.int64)
        order = np.argsort(hashes, kind="stable")
        ordered = hashes[order]
        first = np.ones(len(ordered), dtype=bool)
        first[1:] = ordered[1:] != ordered[:-1]
        self.hashes = ordered[first]  # sorted, distinct: end k is the k-th
        pick = order[first]
        short = np.zeros(len(self.hashes), dtype=np.int8)
        names: list[list[str]] = []
        owners: list[np.ndarray] = []
        sides: dict[int, list[int]] = {}  # the parts of each side's columns: one read each
        for k, (columns, _, _) in enumerate(asked):
            sides.setdefault(id(columns), []).append(k)
        of_part = part[pick]
        for parts in sides.values():
            columns = asked[parts[0]][0]
            mine = np.flatnonzero(np.isin(of_part, parts))
            if not len(mine):
                continue
            rows = row[pick[mine]]
            wanted = np.unique(rows)
            facts = columns.rows.fetch(wanted.tolist())
            for k in parts:
                ends = mine[of_part[mine] == k]  # the distinct ends this part names
                if not len(ends):
                    continue
                at = np.searchsorted(wanted, row[pick[ends]]).tolist()
                counts = np.zeros(len(ends), dtype=np.int64)
                flags = np.zeros(len(ends), dtype=np.int8)
                subject = asked[k][2]
                chosen = list(map(facts.__getitem__, at))
                names.append(end_words(chosen, subject, _named, counts, flags))
                owners.append(np.repeat(ends, counts))
                short[ends] = flags
        owner = np.concatenate(owners) if owners else np.empty(0, np.int64)
        order = np.argsort(owner, kind="stable")
        owner = owner[order]
        every = name_keys(list(chain.from_iterable(names)), name_key)
        every = list(map(every.__getitem__, order.tolist()))
        count = np.bincount(owner, minlength=len(self.hashes)).astype(np.int64)
        rank = np.arange(len(owner), dtype=np.int64) - _starts(count)[owner]
        keep = np.fromiter(map(len, every), np.int64, len(every)) > 0  # no letter, no key
        self.keys = list(compress(every, keep.tolist()))
        self.owner = owner[keep]
        self.key_hash = np.fromiter(map(hash, self.keys), np.int64, len(self.keys))
        self.count = np.bincount(self.owner, minlength=len(self.hashes)).astype(np.int64)
        self.start = _starts(self.count)
        # "Share a key" reads names.name_keys: a short-way end's is its label's (its first
        # name) alone, none when the label is blank.
        flag = short[self.owner]
        shared = (flag == 0) | ((flag == 1) & (rank[keep] == 0))
        self._share_hash = self.key_hash[shared]  # grouped by end, as the keys are
        self._share_count = np.bincount(self.owner[shared], minlength=len(self.hashes))
        self._share_start = _starts(self._share_count)
        self._share = np.sort(mix(self.owner[shared], self._share_hash))

    def index(self, hashes: np.ndarray) -> np.ndarray:
        """The end each names hash stands for (every one was asked about)."""
        return search(self.hashes, hashes)

    def share_key(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per pair: do ends ``a[k]`` and ``b[k]`` have a name key in common?"""
        pair, at = _expand(self._share_start[b], self._share_count[b])
        codes = mix(a[pair], self._share_hash[at])
        spot = search(self._share, codes)
        spot[spot == len(self._share)] = 0
        hit = self._share[spot] == codes if len(self._share) else np.zeros(len(codes), bool)
        out = np.zeros(len(a), dtype=bool)
        out[pair[hit]] = True
        return out

    def alike(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per pair: are ends ``a[k]`` and ``b[k]`` alike (a name key of one equal to, or
        within as whole words, one of the other's, or rapidfuzz ratio >= ALIKE)?"""
        out = np.zeros(len(a), dtype=bool)
        if not len(a):
            return out
        code = mix(a, b)
        order = np.argsort(code, kind="stable")
        first = np.ones(len(code), dtype=bool)
        first[1:] = code[order][1:] != code[order][:-1]
        ua, ub = a[order][first], b[order][first]  # each pair of ends compared once
        ca, cb = self.count[ua], self.count[ub]
        pair, t = _expand(np.zeros(len(ua), np.int64), ca * cb)
        if not len(pair):
            return out
        x = self.start[ua][pair] + t // cb[pair]
        y = self.start[ub][pair] + t % cb[pair]
        xs = list(map(self.keys.__getitem__, x.tolist()))
        ys = list(map(self.keys.__getitem__, y.tolist()))
        near = cpdist(xs, ys, scorer=fuzz.ratio, score_cutoff=ALIKE, workers=1) > 0
        px, py = list(map(" {} ".format, xs)), list(map(" {} ".format, ys))
        within = np.fromiter(map(operator.contains, py, px), bool, len(px))
        within |= np.fromiter(map(operator.contains, px, py), bool, len(px))
        same = np.zeros(len(ua), dtype=bool)
        same[pair[near | within]] = True
        group = np.cumsum(first) - 1
        out[order] = same[group]
        return out
