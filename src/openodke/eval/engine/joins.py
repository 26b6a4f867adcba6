"""Joins on hash columns: which rows share a pair, a triple or a node, for every row at once.

The diagnosis asks, per missed gold fact, questions such as "the first prediction of this document
that links the same two ends" (DECISIONS #38). Asked row by row, a million rows cost a dictionary
of tuples per row; here each question is one sort and two binary searches over int64 codes.
Codes are built by :func:`mix` from the columns' hashes; two different tuples share a code with
probability 2^-64, as two keys share a hash (key_table).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = [
    "Lookup",
    "common",
    "distinct",
    "distinct_mixed",
    "first_of_each",
    "member",
    "mix",
    "search",
    "stable_order",
]

# An odd 64-bit multiplier (2^64 / golden ratio, as key_table's): codes wrap around int64.
_M = np.int64(-7046029254386353131)

Keep = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``keep(query_index, row)`` -> which of these (query, row) pairs count."""


def mix(*columns: np.ndarray | int) -> np.ndarray:
    """One int64 code per row for a tuple of int64 columns (an int stands for a whole column)."""
    arrays = [np.asarray(c, dtype=np.int64) for c in columns]
    size = max(a.size for a in arrays)
    code = np.broadcast_to(arrays[0], (size,)).copy()
    for column in arrays[1:]:
        code *= _M
        code += column
    return code


def first_of_each(groups: np.ndarray) -> np.ndarray:
    """Where each run of equal values of ``groups`` (sorted) starts."""
    if len(groups) == 0:
        return np.empty(0, dtype=np.int64)
    start = np.ones(len(groups), dtype=bool)
    start[1:] = groups[1:] != groups[:-1]
    return np.flatnonzero(start)


_SMALL = 256
"""Tables of at most this many keys are searched in the queries' own order: sorting a million
queries first cost more than the cache misses it saves on them (8 keys: 1.5x)."""


def search(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``np.searchsorted(keys, values)``, the values searched in ascending order: numpy starts
    each search where the previous one ended, so sorted queries walk the table once instead of
    missing the cache at every step (random int64 codes: 5x faster at a million, 1.4x at 200,000;
    the same positions, whatever the order of equal values)."""
    values = np.asarray(values)
    if values.ndim != 1 or len(keys) <= _SMALL:
        return np.searchsorted(keys, values)  # a table this small stays in the cache
    order = np.argsort(values)
    found = np.empty(len(values), dtype=np.intp)
    found[order] = np.searchsorted(keys, values[order])
    return found


def common(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.intersect1d(x, y, assume_unique=True, return_indices=True)`` for ``x`` and ``y``
    without repeats: the values in both (ascending) and where each is in ``x`` and in ``y``.
    Sorts ``x`` and searches it (numpy's takes a stable sort of both together, ~3x slower)."""
    none = np.empty(0, dtype=np.intp)
    if not len(x) or not len(y):
        return np.empty(0, dtype=np.result_type(x, y)), none, none
    in_x = np.argsort(x)
    ordered = x[in_x]
    in_y = np.argsort(y)  # y searched in ascending order (as search does), which is also the
    ys = y[in_y]  # order the common values are given in: no third sort
    at = np.minimum(np.searchsorted(ordered, ys), len(ordered) - 1)
    hit = ordered[at] == ys
    return ys[hit], in_x[at[hit]], in_y[hit]


def stable_order(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, kind="stable")`` for int64 ``values``: numpy's default argsort (~4x
    faster on int64), then equal values put back in their positions' order by a second default
    argsort of (run, position) packed in one int64."""
    order = np.argsort(values)
    if len(order) < 2:
        return order
    ordered = values[order]
    tie = ordered[1:] == ordered[:-1]
    if not tie.any():
        return order
    run = np.zeros(len(order), dtype=np.int64)
    np.cumsum(~tie, out=run[1:])
    return order[np.argsort(run * len(order) + order)]


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted. (numpy 2's ``np.unique`` hashes int64 values, which is many
    times slower than sorting them for the random-looking codes used here.)"""
    ordered = np.sort(values)
    return ordered[first_of_each(ordered)]


def distinct_mixed(first: np.ndarray, *others: np.ndarray) -> np.ndarray:
    """``distinct(np.concatenate([mix(first, c) for c in others]))``, written into one array and
    sorted there: no code column is made per ``c`` and no copy is sorted (at a million rows,
    the diagnosis's peak was these copies, DECISIONS 302)."""
    n = len(first)
    codes = np.empty(n * len(others), np.int64)
    np.multiply(np.asarray(first, dtype=np.int64), _M, out=codes[:n])  # mix: first * _M + c
    for k in range(1, len(others)):
        codes[k * n : (k + 1) * n] = codes[:n]
    for k, column in enumerate(others):
        codes[k * n : (k + 1) * n] += np.asarray(column, dtype=np.int64)
    codes.sort()
    if not len(codes):
        return codes
    start = np.empty(len(codes), dtype=bool)
    start[0] = True
    np.not_equal(codes[1:], codes[:-1], out=start[1:])
    return codes[start]


def member(values: np.ndarray, table: np.ndarray, *, ready: bool = False) -> np.ndarray:
    """Per value: is it in ``table``? (``np.isin`` by sorting and binary search; ``ready``: the
    table is already :func:`distinct`.)"""
    if not len(table) or not len(values):
        return np.zeros(len(values), dtype=bool)
    keys = table if ready else distinct(table)
    at = np.minimum(search(keys, values), len(keys) - 1)
    return keys[at] == values


class Lookup:
    """Rows grouped by a code; within a code, in row order (``rows`` is given ascending)."""

    def __init__(self, codes: np.ndarray, rows: np.ndarray) -> None:
        order = stable_order(codes)
        self.codes = codes[order]
        self.rows = rows[order]

    def __len__(self) -> int:
        return len(self.rows)

    def _runs(self, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per query, where its run starts and how long it is (0: no such code)."""
        if not len(self.codes):
            zero = np.zeros(len(queries), dtype=np.int64)
            return zero, zero
        # a run is where the code's first and last binary searches land (no per-row table of
        # where runs end: 8 bytes a row less for every lookup held), queries in ascending order
        order = np.argsort(queries)
        ordered = queries[order]
        lo, counts = np.empty(len(queries), np.intp), np.empty(len(queries), np.intp)
        lo[order] = np.searchsorted(self.codes, ordered)
        counts[order] = np.searchsorted(self.codes, ordered, side="right")
        counts -= lo
        return np.minimum(lo, len(self.codes) - 1), counts

    def pairs(self, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every (query index, row) with equal codes: by query, rows in order within one."""
        lo, counts = self._runs(queries)
        which = np.repeat(np.arange(len(queries)), counts)
        shift = np.repeat(lo - (np.cumsum(counts) - counts), counts)
        return which, self.rows[np.arange(len(which)) + shift]

    def first(self, queries: np.ndarray, keep: Keep | None = None) -> np.ndarray:
        """Per query, the first row with its code (that ``keep`` keeps); -1 for none."""
        found = np.full(len(queries), -1, dtype=np.int64)
        if not len(self.rows) or not len(queries):
            return found
        if keep is None:
            lo, counts = self._runs(queries)
            return np.where(counts > 0, self.rows[lo], -1)
        which, rows = self.pairs(queries)
        kept = keep(which, rows)
        which, rows = which[kept], rows[kept]
        starts = first_of_each(which)
        found[which[starts]] = rows[starts]
        return found

    def first_here_or_uncited(
        self,
        here: np.ndarray,
        uncited: np.ndarray | None,
        keep: Keep | None = None,
    ) -> np.ndarray:
        """:meth:`first` over the query's own document, then over the rows citing none
        (``uncited`` holds the same queries with the document -1; None: there are none)."""
        found = self.first(here, keep)
        if uncited is None:
            return found
        left = np.flatnonzero(found < 0)
        if len(left):
            inner = None if keep is None else (lambda w, r: keep(left[w], r))
            found[left] = self.first(uncited[left], inner)
        return found

    def all_here_then_uncited(
        self, here: np.ndarray, uncited: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Every (query index, row) pair: a query's own document's rows in order, then the
        uncited ones in order."""
        which, rows = self.pairs(here)
        if uncited is None:
            return which, rows
        other_which, other_rows = self.pairs(uncited)
        which = np.concatenate([which, other_which])
        rows = np.concatenate([rows, other_rows])
        order = stable_order(which)
        return which[order], rows[order]
