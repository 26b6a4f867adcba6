"""Where a column's rows can be read again, for the few that need their text.

The engine keeps hashes, not rows: a million rows of names and labels would not fit the memory a
score may use. The diagnosis needs the words of a few rows (names compared by their letters, the
examples it prints, the sentences that name an end), so each set of columns keeps a
:class:`RowSource` that hands back the facts themselves: from the Facts the Python API was given
(:class:`ModelRows`), or decoded again from the file at each row's byte offset (:class:`FileRows`).
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import msgspec
import numpy as np

from openodke.eval.engine.compiled import native
from openodke.eval.engine.structs import Reread, RereadEnds, RereadGold, RereadGoldEnds

__all__ = [
    "FETCH_BLOCK",
    "FileRows",
    "ModelRows",
    "RepeatedRows",
    "RowSource",
    "cut_lines",
    "fetch_each",
    "fetch_ends",
    "py_cut_lines",
    "values_of",
]

_WINDOW = 1 << 20
_FACT = operator.attrgetter("fact")

FETCH_BLOCK = 1024
"""Rows :func:`fetch_each` reads again at once: the facts of one block are held, never a side's."""


def py_cut_lines(block: bytes, starts: np.ndarray, stops: np.ndarray) -> bytes:
    """``_keyhash.cut_lines`` in Python: ``block[starts[k]:stops[k]]`` for every ``k``, each
    followed by a line break, in one bytes."""
    cuts = map(slice, starts.tolist(), stops.tolist())
    return b"".join(piece + b"\n" for piece in map(block.__getitem__, cuts))


_native = native()
cut_lines = _native.cut_lines if _native is not None else py_cut_lines


class RowSource(Protocol):
    """Rows found again by their index."""

    def __len__(self) -> int:
        """How many rows."""
        ...

    def fetch(self, rows: Sequence[int]) -> list[Any]:
        """The facts of ``rows`` (Facts, or structs with the same attributes), in that order."""
        ...


def fetch_each(source: RowSource, rows: Sequence[int] | np.ndarray) -> Iterator[Any]:
    """The facts of ``rows``, in that order, read a block of :data:`FETCH_BLOCK` at a time: a
    rule that reads every row of a side in words holds one block of them, not the side."""
    wanted = np.asarray(rows, dtype=np.int64)
    for start in range(0, len(wanted), FETCH_BLOCK):
        yield from source.fetch(wanted[start : start + FETCH_BLOCK].tolist())


def values_of(
    source: RowSource, rows: Sequence[int] | np.ndarray, value: Callable[[Any], int]
) -> np.ndarray:
    """``value(fact)`` for the fact of each of ``rows``, as int64 in the order of ``rows``. The
    rows are read in row order (:func:`fetch_each`), so a source kept in blocks (a file, packed
    JSON) reads each block once however the rows were ordered."""
    wanted = np.asarray(rows, dtype=np.int64)
    order = np.argsort(wanted, kind="stable")
    found = np.fromiter(map(value, fetch_each(source, wanted[order])), np.int64, len(wanted))
    out = np.empty_like(found)
    out[order] = found
    return out


def fetch_ends(source: RowSource, rows: Sequence[int]) -> list[Any]:
    """The facts of ``rows`` with their ends (``subject``, ``object_entity``, ``object_value``)
    at least: a file's rows decode those alone (:meth:`FileRows.fetch`), others whole."""
    if isinstance(source, RepeatedRows):
        return fetch_ends(source.base, source.source[np.asarray(rows, dtype=np.int64)].tolist())
    if isinstance(source, FileRows):
        return source.fetch(rows, ends=True)
    return source.fetch(rows)


class ModelRows:
    """Rows the caller holds as Facts."""

    def __init__(self, facts: Sequence[Any]) -> None:
        self.facts = facts

    def __len__(self) -> int:
        return len(self.facts)

    def fetch(self, rows: Sequence[int]) -> list[Any]:
        """The Facts of ``rows``."""
        facts = self.facts
        return [facts[i] for i in rows]


class FileRows:
    """Rows of a JSONL file the loader checked, each decoded again from its byte offset (a
    GoldFact file's rows give their ``fact``), with what the diagnosis reads of them
    (:class:`~openodke.eval.engine.structs.Reread`)."""

    def __init__(self, path: str | Path, offsets: np.ndarray, *, gold: bool) -> None:
        self.path = Path(path)
        self.offsets = offsets
        self.gold = gold
        self._decode = msgspec.json.Decoder(RereadGold if gold else Reread).decode_lines
        self._decode_ends = msgspec.json.Decoder(
            RereadGoldEnds if gold else RereadEnds
        ).decode_lines

    def __len__(self) -> int:
        return len(self.offsets)

    def fetch(self, rows: Sequence[int], *, ends: bool = False) -> list[Any]:
        """The facts of ``rows``, decoded from the file (``ends``: their ends alone,
        :class:`~openodke.eval.engine.structs.RereadEnds`).

        Row ``r``'s bytes run from its offset to the next row's (a line break and any blank
        lines are all that lie between), so the rows wanted are cut out of windows of at most
        :data:`_WINDOW` bytes read with ``pread`` in file order (mapping the file instead would
        count every page touched as this process's memory) and decoded a window at a time
        (``decode_lines``): the loops run per window, not per row.
        """
        wanted = np.asarray(rows, dtype=np.int64)
        if not len(wanted):
            return []
        starts = self.offsets[wanted]
        order = None  # rows asked in file order (most are) are read as they come
        if np.any(starts[1:] < starts[:-1]):
            order = np.argsort(starts, kind="stable")
            starts = starts[order]
        stops = self._ends(wanted if order is None else wanted[order])
        decoded: list[Any] = []
        decode = self._decode_ends if ends else self._decode
        fd = os.open(self.path, os.O_RDONLY)
        try:
            k = 0
            while k < len(starts):
                base = int(starts[k])
                # the rows that end within the window (at least one, however long)
                stop = max(int(np.searchsorted(stops, base + _WINDOW, side="right")), k + 1)
                data = os.pread(fd, int(stops[stop - 1]) - base, base)
                decoded.extend(decode(cut_lines(data, starts[k:stop] - base, stops[k:stop] - base)))
                k = stop
        finally:
            os.close(fd)
        if len(decoded) != len(wanted):
            raise ValueError(f"{self.path}: the file changed while it was read")
        if self.gold:
            decoded = list(map(_FACT, decoded))
        if order is None:
            return decoded
        back = np.empty_like(order)
        back[order] = np.arange(len(order))
        return list(map(decoded.__getitem__, back.tolist()))

    def _ends(self, rows: np.ndarray) -> np.ndarray:
        """Where each of ``rows``' bytes end: the next row's offset, the file's end for the
        last (worked out for the rows asked: a column of them would be a side's worth)."""
        after = rows + 1
        last = after >= len(self.offsets)
        ends = self.offsets[np.where(last, 0, after)]
        if last.any():
            ends[last] = os.stat(self.path).st_size
        return ends

    @classmethod
    def concat(cls, parts: Sequence[FileRows]) -> FileRows:
        """The rows of parts of one file, in order."""
        if len(parts) == 1:
            return parts[0]
        offsets = np.concatenate([p.offsets for p in parts])
        return cls(parts[0].path, offsets, gold=parts[0].gold)


class RepeatedRows:
    """Rows of another source, some more than once: row ``k`` is ``base``'s row ``source[k]``
    (a fact citing several documents, one row per document: :meth:`FactColumns.per_document
    <openodke.eval.engine.columns.FactColumns.per_document>`)."""

    def __init__(self, base: RowSource, source: np.ndarray) -> None:
        self.base = base
        self.source = source

    def __len__(self) -> int:
        return len(self.source)

    def fetch(self, rows: Sequence[int]) -> list[Any]:
        """The facts of ``rows``, each its source row's."""
        return self.base.fetch(self.source[np.asarray(rows, dtype=np.int64)].tolist())
