"""A file part's columns written into arrays sized once, and the parts of a file joined into one
side: what the fast loader (:mod:`~openodke.eval.engine.fastload`) fills as it decodes.

A part's arrays are sized before the first line is read, from the bytes the part spans: no line
holding a Fact is shorter than :data:`MIN_ROW_BYTES` (a GoldFact line is longer), so the part
holds at most ``bytes // MIN_ROW_BYTES + 1`` rows. Only the pages rows are written to are ever
backed by memory, so the generous bound costs address space, not memory, and no column is grown,
copied or joined from blocks. The workers of the parallel loader write into regions of memory
they share with the parent (:class:`SharedParts`), which copies each column once into the side's
arrays and gives each region's pages back as soon as that column is copied; so the columns cross
between processes without being pickled, piped and unpickled.
"""

from __future__ import annotations

import mmap
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from openodke.eval.engine.columns import FactColumns
from openodke.eval.engine.key_table import DocColumn, KeyTable
from openodke.eval.engine.rows import RowSource

__all__ = [
    "KEY_FIELDS",
    "MIN_ROW_BYTES",
    "Part",
    "PartNames",
    "SharedParts",
    "capacity",
    "fields",
    "gather_end_to_end",
    "side",
]

MIN_ROW_BYTES = 55
"""The shortest line holding a Fact: ``{"subject":{"key":"a"},"predicate":"","object_value":0}``
(every field named there is required, and a key is never blank); a GoldFact line is longer."""

_I8, _I64, _BOOL = np.dtype(np.int8), np.dtype(np.int64), np.dtype(bool)
# Every distinct array of a side's columns (an end's node is also its key-table name).
_FIELDS: tuple[tuple[str, np.dtype], ...] = (
    ("offsets", _I64),
    ("subject_rest", _I64),
    ("object_rest", _I64),
    ("predicate", _I64),
    ("subject_node", _I64),
    ("object_node", _I64),
    ("subject_effective", _I64),
    ("object_effective", _I64),
    ("subject_type", _I64),
    ("object_type", _I64),
    ("subject_names", _I64),
    ("object_names", _I64),
    ("subject_bare", _I64),
    ("object_bare", _I64),
    ("doc", _I64),
    ("literal", _BOOL),
    ("present", _BOOL),
    ("polarity", _I8),
    ("verdict", _I8),
)
_OPTIONAL = (("flags", _I8), ("answers", _I8))


def capacity(span_bytes: int) -> int:
    """The most rows ``span_bytes`` bytes of a Fact or GoldFact file can hold."""
    return span_bytes // MIN_ROW_BYTES + 1


def fields(*, flags: bool, answers: bool) -> tuple[tuple[str, np.dtype], ...]:
    """The arrays a part fills: the columns, and the fact checks' flags or the texts' answers
    when they are worked out as rows are read."""
    wanted = {"flags": flags, "answers": answers}
    return _FIELDS + tuple(f for f in _OPTIONAL if wanted[f[0]])


def _block(columns: FactColumns, offsets: np.ndarray) -> dict[str, np.ndarray | None]:
    """A block's arrays by field name."""
    k = columns.keys
    return {
        "offsets": offsets,
        "subject_rest": k.subject_rest,
        "object_rest": k.object_rest,
        "predicate": k.predicate,
        "subject_node": columns.subject_node,
        "object_node": columns.object_node,
        "subject_effective": k.subject_type,
        "object_effective": k.object_type,
        "subject_type": columns.subject_type,
        "object_type": columns.object_type,
        "subject_names": columns.subject_names,
        "object_names": columns.object_names,
        "subject_bare": columns.subject_bare,
        "object_bare": columns.object_bare,
        "doc": columns.docs.hashes,
        "literal": k.literal,
        "present": columns.docs.present,
        "polarity": columns.polarity,
        "verdict": columns.verdict,
        "flags": columns.flags,
        "answers": columns.answers,
    }


@dataclass
class PartNames:
    """What a part's rows name besides its arrays: documents, predicates (each lookup form's
    first spelling) and types by hash, and the documents of each row citing several. Small: it
    is what a worker sends back."""

    rows: int = 0
    docs: dict[int, str] = field(default_factory=dict)
    predicates: dict[int, str] = field(default_factory=dict)
    types: dict[int, str] = field(default_factory=dict)
    more: dict[int, tuple[str, ...]] = field(default_factory=dict)

    def add(self, part: PartNames) -> None:
        """Join the names of the next part of the file (a predicate's first spelling wins)."""
        self.docs.update(part.docs)
        self.types.update(part.types)
        for h, name in part.predicates.items():
            self.predicates.setdefault(h, name)
        self.more.update((self.rows + j, docs) for j, docs in part.more.items())
        self.rows += part.rows


class Part:
    """The rows of a part written block by block into ``arrays`` (each sized for the most rows
    the part can hold), with their names in ``names``."""

    def __init__(self, arrays: dict[str, np.ndarray], names: PartNames) -> None:
        self.arrays = arrays
        self.names = names

    @classmethod
    def allocate(cls, rows: int, wanted: Sequence[tuple[str, np.dtype]]) -> Part:
        """A part of at most ``rows`` rows in memory of this process's own."""
        return cls({name: np.empty(rows, dtype) for name, dtype in wanted}, PartNames())

    def add(self, columns: FactColumns, offsets: np.ndarray) -> None:
        """Write a block's rows after those written so far (its names are the part's own
        dicts, which the blocks of a part share)."""
        start = self.names.rows
        stop = start + len(columns)
        block = _block(columns, offsets)
        for name, array in self.arrays.items():
            if stop > len(array):
                raise ValueError("more rows than the part's bytes can hold")
            array[start:stop] = block[name]
        self.names.more.update((start + j, docs) for j, docs in columns.docs.more.items())
        self.names.predicates = columns.keys.predicates  # each block's names those before
        self.names.rows = stop

    def written(self) -> dict[str, np.ndarray]:
        """The arrays' rows written so far (views, not copies)."""
        return {name: array[: self.names.rows] for name, array in self.arrays.items()}


def side(arrays: dict[str, Any], names: PartNames, rows: RowSource) -> FactColumns:
    """One side's columns from a file's arrays (every field, ``len(rows)`` entries) and names."""
    keys = KeyTable(
        arrays["subject_rest"],
        arrays["object_rest"],
        arrays["subject_node"],
        arrays["object_node"],
        arrays["subject_effective"],
        arrays["object_effective"],
        arrays["literal"],
        arrays["predicate"],
        names.predicates,
    )
    return FactColumns(
        keys=keys,
        docs=DocColumn(arrays["doc"], names.docs, arrays["present"], names.more),
        subject_node=arrays["subject_node"],
        object_node=arrays["object_node"],
        subject_type=arrays["subject_type"],
        object_type=arrays["object_type"],
        subject_names=arrays["subject_names"],
        object_names=arrays["object_names"],
        subject_bare=arrays["subject_bare"],
        object_bare=arrays["object_bare"],
        polarity=arrays["polarity"],
        verdict=arrays["verdict"],
        types=names.types,
        rows=rows,
        flags=arrays.get("flags"),
        answers=arrays.get("answers"),
    )


class SharedParts:
    """Memory for the parts of a file shared with the worker processes forked after it is made:
    one anonymous shared mapping per part, each field a page-aligned region of it."""

    def __init__(self, capacities: Sequence[int], wanted: Sequence[tuple[str, np.dtype]]) -> None:
        self.capacities = list(capacities)
        self.wanted = tuple(wanted)
        self._regions: list[list[tuple[int, int]]] = []
        self.maps: list[mmap.mmap] = []
        for rows in self.capacities:
            regions, size = [], 0
            for _, dtype in self.wanted:
                length = -(-rows * dtype.itemsize // mmap.PAGESIZE) * mmap.PAGESIZE
                regions.append((size, length))
                size += length
            self._regions.append(regions)
            self.maps.append(mmap.mmap(-1, size))  # MAP_SHARED | MAP_ANONYMOUS

    def part(self, k: int) -> Part:
        """Part ``k``'s arrays, to write (in a worker)."""
        arrays = {
            name: np.frombuffer(self.maps[k], dtype, self.capacities[k], start)
            for (name, dtype), (start, _) in zip(self.wanted, self._regions[k], strict=True)
        }
        return Part(arrays, PartNames())

    def gather(
        self,
        rows: Sequence[int],
        only: Collection[str] | None = None,
        into: Mapping[str, np.ndarray] | None = None,
    ) -> dict[str, np.ndarray]:
        """Each field's rows of every part (``rows`` says how many each wrote), in order, in
        this process's own arrays (``into``'s, for the fields it names); each part's region is
        given back once its field is copied. ``only``: those fields, the others left where
        they are for a later call."""
        total = sum(rows)
        out: dict[str, np.ndarray] = {}
        for f, (name, dtype) in enumerate(self.wanted):
            if only is not None and name not in only:
                continue
            joined = into[name] if into is not None and name in into else np.empty(total, dtype)
            at = 0
            for k, n in enumerate(rows):
                start, length = self._regions[k][f]
                joined[at : at + n] = np.frombuffer(self.maps[k], dtype, n, start)
                at += n
                _give_back(self.maps[k], start, length)
            out[name] = joined
        return out

    def dtype(self, name: str) -> np.dtype:
        """The type of field ``name``."""
        return dict(self.wanted)[name]

    def close(self) -> None:
        """Unmap every part (their pages were given back as they were copied)."""
        for mapped in self.maps:
            mapped.close()
        self.maps = []


KEY_FIELDS = (
    "subject_rest",
    "object_rest",
    "subject_node",
    "object_node",
    "subject_effective",
    "object_effective",
    "literal",
    "predicate",
)
"""The fields a side's key table reads (:func:`side`): what matching joins for every row."""


def gather_end_to_end(
    files: Sequence[tuple[SharedParts, Sequence[int], dict[str, np.ndarray]]],
    only: Sequence[str] = KEY_FIELDS,
) -> None:
    """Each field of ``only`` of every file written end to end in one array (the files in the
    order given), each file's ``arrays`` given a view of its own rows: matching's table of
    every row of both sides is then these arrays (:func:`~openodke.eval.engine.key_table.
    end_to_end`), never a copy of them (DECISIONS 303)."""
    if not files:
        return  # both files went to the careful reader
    totals = [sum(rows) for _, rows, _ in files]
    for name in only:
        joint = np.empty(sum(totals), files[0][0].dtype(name))
        at = 0
        for (parts, rows, arrays), total in zip(files, totals, strict=True):
            arrays.update(parts.gather(rows, (name,), {name: joint[at : at + total]}))
            at += total


def _give_back(mapped: mmap.mmap, start: int, length: int) -> None:
    """Free the pages of a region no process reads again (shared memory stays until removed)."""
    if hasattr(mmap, "MADV_REMOVE"):
        mapped.madvise(mmap.MADV_REMOVE, start, length)
