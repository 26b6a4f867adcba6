"""Per-row hashing for the engine's columns: the C extension ``_keyhash`` when it was built, else
the same in Python.

Both fill caller-owned numpy buffers with Python's own hashes of the same parts
(:meth:`~openodke.eval.engine.key_table.KeyTable.of_parts`, :mod:`~openodke.eval.engine.fold`), so
they give the same numbers; a test checks it. The C version exists because these loops are most of the cost of reading a
million-row file. Rows are decoded structs (:mod:`~openodke.eval.engine.structs`) or pydantic
Facts: they have the same attributes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from openodke.eval.engine.compiled import native
from openodke.eval.engine.fold import end_names, fold

__all__ = [
    "COMPILED",
    "LITERAL_NAMES",
    "LITERAL_NODE",
    "NARROW",
    "POLARITIES",
    "VERDICTS",
    "WIDE",
    "doc_hashes",
    "fact_columns",
    "fold",
    "line_starts",
    "py_doc_hashes",
    "py_fact_columns",
    "py_line_starts",
]

WIDE = (
    "subject_rest",
    "object_rest",
    "predicate",
    "subject_node",
    "object_node",
    "subject_type",
    "object_type",
    "subject_names",
    "object_names",
    "subject_bare",
    "object_bare",
)
"""The int64 columns ``fact_columns`` fills: the rows of its ``wide`` array (11 x n), in order."""
NARROW = ("literal", "polarity", "verdict")
"""The int8 columns it fills: the rows of its ``narrow`` array (3 x n)."""
POLARITIES = ("asserted", "denied", "partial")
"""Polarity by its code."""
VERDICTS = ("unchecked", "supported", "contradicted", "not_found")
"""Grounding verdict by its code."""
# A literal's node and names are salted, so they never equal an entity's of the same string.
LITERAL_NODE = 0x5BD1E9955BD1E995
LITERAL_NAMES = 0x27D4EB2F165667C5

_NUMBER_STARTS = frozenset("0123456789-")
_POLARITY = {name: code for code, name in enumerate(POLARITIES)}
_VERDICT = {name: code for code, name in enumerate(VERDICTS)}


def py_fact_columns(
    facts: list[Any],
    literal_of: Callable[[object], str],
    scoped_of: Callable[[Any], str],
    fold_of: Callable[[str], str],
    wide: np.ndarray,
    narrow: np.ndarray,
    predicates: dict[int, str],
    types: dict[int, str],
) -> None:
    """Fill ``wide`` (11 x n int64, a row per name of ``WIDE``) and ``narrow`` (3 x n int8,
        ``NARROW``), an entry per fact; ``predicates`` and ``types`` map each hash to its name.

        Rests: subject (polarity, identity qualifiers) and object (polarity,); the predicate and the
        literal flag have their own rows. An entity end's node is its identity name and its bare name the key without any
        prefix (:func:`~openodke.eval.engine.fold.end_names`); a literal's node and bare name are its
        normalised value's hash, salted (a string read as a number has its folded text as its bare
    name: what a string range compares). An end's names hash is that of ``(key, type, label,
        aliases)`` (a literal's: ``str`` of the value, salted). ``fold_of`` is :func:`fold`, passed
        as the C version takes it.
    """
    for i, f in enumerate(facts):
        predicate, subject, polarity = f.predicate, f.subject, f.polarity
        scoped = scoped_of(f) if f.identity_keys else ""
        entity = f.object_entity
        literal = entity is None
        if literal:
            value = f.object_value
            obj = str(value) if type(value) is int else literal_of(value)
        else:
            obj = entity.key
        row = wide[:, i]
        row[0] = hash((polarity, scoped))
        row[1] = hash((polarity,))
        row[2] = hash(predicate)
        row[3], row[9] = end_names(subject.key, subject.type)
        row[5] = hash(subject.type)
        row[7] = hash((subject.key, subject.type, subject.label, subject.aliases))
        if literal:
            row[4] = row[10] = hash(obj) ^ LITERAL_NODE
            if type(value) is str and obj[:1] in _NUMBER_STARTS:  # a string read as a number
                row[10] = hash(fold_of(value)) ^ LITERAL_NODE
            row[6] = 0
            row[8] = hash(str(value)) ^ LITERAL_NAMES
        else:
            row[4], row[10] = end_names(obj, entity.type)
            row[6] = hash(entity.type)
            row[8] = hash((obj, entity.type, entity.label, entity.aliases))
            types.setdefault(int(row[6]), entity.type)
        predicates.setdefault(int(row[2]), predicate)
        types.setdefault(int(row[5]), subject.type)
        narrow[:, i] = (literal, _POLARITY[polarity], _VERDICT[f.verdict])


def py_doc_hashes(
    rows: list[Any], cited: bool, hashes: np.ndarray, counts: np.ndarray, names: dict[int, str]
) -> None:
    """Fill ``hashes`` with each row's document hash (its ``doc_id``, or with ``cited`` its first
    evidence's, ``""`` for none) and, with ``cited``, ``counts`` with its evidence count."""
    n = len(rows)
    if cited:
        evidence = [r.evidence for r in rows]
        docs = [e[0].doc_id if e else "" for e in evidence]
        counts[:n] = np.fromiter(map(len, evidence), np.int64, n)
    else:
        docs = [r.doc_id for r in rows]
    hashes[:n] = np.fromiter(map(hash, docs), np.int64, n)
    for h, doc in zip(hashes[:n].tolist(), docs, strict=True):
        names.setdefault(h, doc)


def py_line_starts(block: Any, starts: np.ndarray) -> int:
    """Write into ``starts`` where each line of ``block`` holding more than JSON whitespace
    begins (as many as fit); return how many there are."""
    data = np.frombuffer(block, np.uint8)
    breaks = np.flatnonzero(data == 10)
    first = np.concatenate(([0], breaks + 1))
    stop = np.concatenate((breaks, [len(data)]))
    keep = first < stop
    first, stop = first[keep], stop[keep]
    doubtful = np.flatnonzero((data[first] == 32) | (data[first] == 9) | (data[first] == 13))
    if len(doubtful):
        raw = bytes(block)
        blank = [k for k in doubtful.tolist() if not raw[first[k] : stop[k]].strip(b" \t\r")]
        first = np.delete(first, blank)
    fit = min(len(first), len(starts))
    starts[:fit] = first[:fit]
    return len(first)


_native = native()
if _native is not None:
    fact_columns = _native.fact_columns
    doc_hashes = _native.doc_hashes
    line_starts = _native.line_starts
    COMPILED = True
else:  # no C compiler where it was installed: the same, slower
    fact_columns = py_fact_columns
    doc_hashes = py_doc_hashes
    line_starts = py_line_starts
    COMPILED = False
