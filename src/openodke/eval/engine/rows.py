"""Where a column's rows can be read again, for the few that need their text.

The engine keeps hashes, not rows: a million rows of names and labels would not fit the memory a
score may use. The diagnosis needs the words of a few rows (names compared by their letters, the
examples it prints, the sentences that name an end), so each set of columns keeps a
:class:`RowSource` that hands back the facts themselves: from the Facts the Python API was given
(:class:`ModelRows`), or decoded again from the file at each row's byte offset (:class:`FileRows`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import msgspec
import numpy as np

from openodke.eval.engine.structs import Reread, RereadGold

__all__ = ["FETCH_BLOCK", "FileRows", "ModelRows", "RepeatedRows", "RowSource", "fetch_each"]

_WINDOW = 1 << 16

FETCH_BLOCK = 1024
"""Rows :func:`fetch_each` reads again at once: the facts of one block are held, never a side's."""


def _window(fd: int, start: int) -> bytes:
    """Bytes from ``start`` holding at least one whole line (or the rest of the file)."""
    size = _WINDOW
    while True:
        data = os.pread(fd, size, start)
        if b"\n" in data or len(data) < size:
            return data
        size *= 4


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
        self._decode = msgspec.json.Decoder(RereadGold if gold else Reread).decode

    def __len__(self) -> int:
        return len(self.offsets)

    def fetch(self, rows: Sequence[int]) -> list[Any]:
        """The facts of ``rows``, decoded from the file.

        Read with ``pread`` in windows, in file order: mapping the file instead would count every
        page touched as this process's memory.
        """
        wanted = np.asarray(rows, dtype=np.int64)
        starts = self.offsets[wanted]
        order = np.argsort(starts, kind="stable")
        found: list[Any] = [None] * len(wanted)
        decode, gold = self._decode, self.gold
        window, base = b"", 0
        fd = os.open(self.path, os.O_RDONLY)
        try:
            for k, start in zip(order.tolist(), starts[order].tolist(), strict=True):
                at = start - base
                end = window.find(b"\n", at) if 0 <= at < len(window) else -1
                if end < 0:
                    window, base, at = _window(fd, start), start, 0
                    end = window.find(b"\n")
                row = decode(window[at : end if end >= 0 else len(window)])
                found[k] = row.fact if gold else row  # type: ignore[attr-defined]
        finally:
            os.close(fd)
        return found

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
