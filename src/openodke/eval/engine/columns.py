"""One side of a score as columns: every extraction score, at any size, reads rows as these.

:class:`FactColumns` holds, per row, what matching reads (the key table and the document), what
the diagnosis joins on (each end's node, the subject's and object's types, a hash of the names
each end goes by, polarity, grounding verdict) and where the row can be read again for the few
that need their words (:mod:`~openodke.eval.engine.rows`). The CLI's loader fills them from the
JSON (:mod:`~openodke.eval.engine.fastload`), the Python API from Facts (:meth:`of_facts`,
:meth:`of_gold`); both call the same hashing (:mod:`~openodke.eval.engine.keyhash`), so both give
the same numbers, the same buckets and the same fixes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from openodke.eval.engine.fold import fold
from openodke.eval.engine.key_table import (
    DocColumn,
    KeyTable,
    effective_types,
    hashes_of,
    predicate_forms,
    same_values,
)
from openodke.eval.engine.keyhash import NARROW, WIDE, doc_hashes, fact_columns
from openodke.eval.engine.rows import ModelRows, RepeatedRows, RowSource
from openodke.eval.engine.structs import scoped
from openodke.forms import normalise_value

__all__ = ["FactColumns", "cited_column", "gold_column"]

# The per-row arrays beyond the key table and the documents, taken and joined together.
_ARRAYS = (
    "subject_node",
    "object_node",
    "subject_type",
    "object_type",
    "subject_names",
    "object_names",
    "subject_bare",
    "object_bare",
    "polarity",
    "verdict",
)


@dataclass
class FactColumns:
    """Facts as columns (one entry per row, in file or list order).

    ``keys`` and ``docs`` are what matching reads. ``subject_node``/``object_node`` hash each end
    (an entity's identity name, :mod:`~openodke.eval.engine.fold`; a literal's normalised value,
    salted apart), so a pair or a node is found by equal numbers; ``subject_bare``/``object_bare``
    the name without any ``prefix:`` (what near misses compare). ``subject_type``/``object_type``
    hash the types as written (``types`` names them; 0 for a literal object).
    ``subject_names``/``object_names`` hash what an end's names follow from, so rows whose ends go
    by the same names are known without reading them. ``polarity`` and
    ``verdict`` are codes (:data:`~openodke.eval.engine.keyhash.POLARITIES`, ``VERDICTS``).
    ``rows`` gives back the facts themselves; ``flags`` the fact checks, when asked for;
    ``answers`` what the texts ``answered_from`` say of each gold row, when the loader was given
    them (:class:`~openodke.eval.diagnosis.texts.TextAnswers`). ``source`` is set on predictions
    laid out one row per cited document (:meth:`per_document`): each row's fact, by its index.
    """

    keys: KeyTable
    docs: DocColumn
    subject_node: np.ndarray
    object_node: np.ndarray
    subject_type: np.ndarray
    object_type: np.ndarray
    subject_names: np.ndarray
    object_names: np.ndarray
    subject_bare: np.ndarray
    object_bare: np.ndarray
    polarity: np.ndarray
    verdict: np.ndarray
    types: dict[int, str]
    rows: RowSource
    flags: np.ndarray | None = None
    answers: np.ndarray | None = None
    answered_from: dict[str, str] | None = None
    source: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def facts(self) -> int:
        """How many facts the rows hold (a fact citing several documents has a row in each)."""
        if self.source is None:
            return len(self)
        return int(self.source[-1]) + 1 if len(self.source) else 0

    def fact_of(self, rows: np.ndarray) -> np.ndarray:
        """The fact each of ``rows`` comes from, by its index in the file or list."""
        return rows if self.source is None else self.source[rows]

    def share_equal(self, keys: KeyTable) -> None:
        """Read the arrays holding the same values as the (aligned) ``keys``' from them, the
        key table's own, each end's node (an end's identity name, until alignment renames it)
        and type as written (the effective type, where no end is untyped): one copy of each is
        held, not one per table."""
        self.keys.share_equal(keys)
        for node, name in (
            ("subject_node", "subject_name"),
            ("object_node", "object_name"),
            ("subject_type", "subject_type"),
            ("object_type", "object_type"),
        ):
            mine, theirs = getattr(self, node), getattr(keys, name)
            if mine is not theirs and same_values(mine, theirs):
                setattr(self, node, theirs)

    def take(self, rows: np.ndarray) -> FactColumns:
        """The rows ``rows``, in that order (one row may be taken more than once)."""
        arrays: dict[str, Any] = {name: getattr(self, name)[rows] for name in _ARRAYS}
        source = rows if self.source is None else self.source[rows]
        base = self.rows.base if isinstance(self.rows, RepeatedRows) else self.rows
        return FactColumns(
            keys=self.keys.take(rows),
            docs=self.docs.take(rows),
            types=self.types,
            rows=RepeatedRows(base, source),
            flags=None if self.flags is None else self.flags[rows],
            answers=None if self.answers is None else self.answers[rows],
            answered_from=self.answered_from,
            source=source,
            **arrays,
        )

    def per_document(self) -> FactColumns:
        """Predictions laid out one row per document each cites: a fact citing several documents
        (the Validator's merge of a fact stated in several, a sink's ``facts.jsonl``) is a
        prediction in each, scored against that document's gold, as the facts would be before
        merging. Rows citing one document or none stay as they are; ``source`` maps back."""
        more = self.docs.more
        if not more:
            return self
        multi = np.sort(np.fromiter(more, np.int64, len(more)))
        cited = [more[j] for j in multi.tolist()]  # only the rows citing several
        sizes = np.fromiter(map(len, cited), np.int64, len(cited))
        counts = np.ones(len(self), np.int64)
        counts[multi] = sizes
        spread = self.take(np.repeat(np.arange(len(self), dtype=np.int64), counts))
        # The k-th copy of a row citing several documents sits at its first copy's place + k.
        firsts = (np.cumsum(counts) - counts)[multi]
        places = np.repeat(firsts - (np.cumsum(sizes) - sizes), sizes) + np.arange(sizes.sum())
        flat = [doc for docs in cited for doc in docs]
        hashes = spread.docs.hashes.copy()
        hashes[places] = hashes_of(flat)
        names = dict(self.docs.names)
        names.update(zip(hashes[places].tolist(), flat, strict=True))
        spread.docs = DocColumn(hashes, names, spread.docs.present)
        return spread

    @classmethod
    def build(
        cls,
        facts: list[Any],
        docs: DocColumn,
        rows: RowSource,
        predicates: dict[int, str],
        types: dict[int, str],
    ) -> FactColumns:
        """Columns for ``facts`` (Facts or decoded structs), each in ``docs``'s document.

        ``predicates`` and ``types`` collect the names of the hashes; blocks of one file share
        theirs, so joining them merges nothing.
        """
        n = len(facts)
        wide = np.empty((len(WIDE), n), np.int64)  # each row a column: no copy to split them
        narrow = np.empty((len(NARROW), n), np.int8)
        fact_columns(facts, normalise_value, scoped, fold, wide, narrow, predicates, types)
        by = dict(zip(WIDE, wide, strict=True))
        predicate, named = predicate_forms(by["predicate"], predicates)
        keys = KeyTable(
            by["subject_rest"],
            by["object_rest"],
            by["subject_node"],
            by["object_node"],
            effective_types(by["subject_type"]),
            effective_types(by["object_type"]),
            narrow[0].view(bool),
            predicate,
            named,
        )
        arrays: dict[str, Any] = {name: by[name] for name in _ARRAYS[:8]}
        arrays["polarity"] = narrow[1]
        arrays["verdict"] = narrow[2]
        return cls(keys=keys, docs=docs, types=types, rows=rows, **arrays)

    @classmethod
    def of_facts(cls, facts: Sequence[Any]) -> FactColumns:
        """Predictions: each Fact with the documents it cites (scoring lays a fact citing several
        out once per document: :meth:`per_document`)."""
        listed = list(facts)
        return cls.build(listed, cited_column(listed), ModelRows(listed), {}, {})

    @classmethod
    def of_gold(cls, gold: Sequence[Any]) -> FactColumns:
        """Gold rows (GoldFacts): each fact in its ``doc_id``."""
        facts = [g.fact for g in gold]
        return cls.build(facts, gold_column(list(gold)), ModelRows(facts), {}, {})

    @classmethod
    def concat(cls, parts: Sequence[FactColumns], rows: RowSource) -> FactColumns:
        """The rows of ``parts`` in order, read again from ``rows``."""
        if len(parts) == 1:
            return cls(**{**_fields(parts[0]), "rows": rows})
        types = parts[0].types
        if any(p.types is not types for p in parts):
            types = {}
            for p in parts:
                types.update(p.types)
        flags = answers = None
        if all(p.flags is not None for p in parts):
            flags = np.concatenate([p.flags for p in parts])  # type: ignore[misc]
        if all(p.answers is not None for p in parts):
            answers = np.concatenate([p.answers for p in parts])  # type: ignore[misc]
        arrays: dict[str, Any] = {
            name: np.concatenate([getattr(p, name) for p in parts]) for name in _ARRAYS
        }
        return cls(
            keys=KeyTable.concat([p.keys for p in parts]),
            docs=DocColumn.concat([p.docs for p in parts]),
            types=types,
            rows=rows,
            flags=flags,
            answers=answers,
            **arrays,
        )

    def type_name(self, h: int) -> str:
        """The type a hash stands for."""
        return self.types[h]


def _fields(columns: FactColumns) -> dict[str, Any]:
    return {f.name: getattr(columns, f.name) for f in fields(columns)}


def cited_column(rows: list[Any]) -> DocColumn:
    """Each fact's cited documents (the first as a hash, all of a row citing several)."""
    n = len(rows)
    hashes, counts = np.empty(n, np.int64), np.empty(n, np.int64)
    names: dict[int, str] = {}
    doc_hashes(rows, True, hashes, counts, names)
    return _cited(rows, hashes, counts, names)


def _cited(rows: list[Any], hashes: np.ndarray, counts: np.ndarray, names: dict) -> DocColumn:
    more = {
        j: tuple(dict.fromkeys(e.doc_id for e in rows[j].evidence))
        for j in np.flatnonzero(counts > 1).tolist()
    }
    return DocColumn(hashes, names, counts > 0, more)


def gold_column(rows: list[Any], names: dict[int, str] | None = None) -> DocColumn:
    """Each gold row's ``doc_id``."""
    hashes = np.empty(len(rows), np.int64)
    found: dict[int, str] = {} if names is None else names
    doc_hashes(rows, False, hashes, hashes, found)  # no counts for gold: any buffer will do
    return DocColumn(hashes, found, np.ones(len(rows), dtype=bool))


def cited_block(rows: list[Any], names: dict[int, str]) -> DocColumn:
    """:func:`cited_column` sharing ``names`` with the other blocks of a file."""
    n = len(rows)
    hashes, counts = np.empty(n, np.int64), np.empty(n, np.int64)
    doc_hashes(rows, True, hashes, counts, names)
    return _cited(rows, hashes, counts, names)
