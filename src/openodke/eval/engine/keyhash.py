"""Per-row hashing for the fast loader: the C extension ``_keyhash`` when it was built, else
the same in Python.

Both fill caller-owned numpy buffers with Python's own hashes of the same tuples
(:meth:`~openodke.eval.engine.key_table.KeyTable.of_parts`), so they give the same numbers; a test
checks it. The C version exists because these loops are most of the cost of reading a
million-row file.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

import numpy as np

from openodke.eval.engine.key_table import hashes_of

__all__ = ["COMPILED", "doc_hashes", "fact_hashes", "py_doc_hashes", "py_fact_hashes"]

_PREDICATE = attrgetter("predicate")
_POLARITY = attrgetter("polarity")
_IDENTITY_KEYS = attrgetter("identity_keys")


def py_fact_hashes(
    facts: list[Any],
    literal_of: Callable[[object], str],
    scoped_of: Callable[[Any], str],
    subject: np.ndarray,
    obj: np.ndarray,
    predicate: np.ndarray,
    literal: np.ndarray,
    predicates: dict[int, str],
) -> None:
    """Fill ``subject``/``obj`` (group hashes), ``predicate`` and ``literal`` for ``facts``;
    ``predicates`` maps each predicate hash to its name."""
    n = len(facts)
    objects = [f.object_entity for f in facts]
    flags = [o is None for o in objects]
    values = [
        o.key if o is not None else (str(v) if type(v) is int else literal_of(v))
        for o, v in zip(objects, map(attrgetter("object_value"), facts), strict=True)
    ]
    scoped = (
        [scoped_of(f) if f.identity_keys else "" for f in facts]
        if any(map(_IDENTITY_KEYS, facts))
        else [""] * n
    )
    names = list(map(_PREDICATE, facts))
    groups = zip(
        names,
        map(attrgetter("subject.key"), facts),
        map(attrgetter("subject.type"), facts),
        map(_POLARITY, facts),
        scoped,
        strict=True,
    )
    subject[:n] = hashes_of(groups, n)
    objects_groups = zip(names, values, flags, map(_POLARITY, facts), strict=True)
    obj[:n] = hashes_of(objects_groups, n)
    predicate[:n] = hashes_of(names)
    literal[:n] = flags
    for h, name in zip(predicate[:n].tolist(), names, strict=True):
        predicates.setdefault(h, name)


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
    hashes[:n] = hashes_of(docs)
    for h, doc in zip(hashes[:n].tolist(), docs, strict=True):
        names.setdefault(h, doc)


try:
    from openodke.eval.engine._keyhash import doc_hashes, fact_hashes

    COMPILED = True
except ImportError:  # no C compiler where it was installed: the same, slower
    fact_hashes = py_fact_hashes
    doc_hashes = py_doc_hashes
    COMPILED = False
