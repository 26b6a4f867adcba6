"""Extraction matching on plain keys: the core both the Python API and the CLI's fast path use.

A row is reduced to one string key (:func:`encode_key`); keys and documents are numbered once and
every pass runs on numpy arrays, so a million rows match in about a second. The Fact-based API and
the JSON fast path build the same keys, so they give the same answer by construction.

Per document, three passes pair predictions with gold one-to-one (surface.md, "Extraction
matching"): exact signature (literals normalised); then same subject, predicate, polarity and
identity qualifiers (``wrong_value`` when both objects are literals, else ``wrong_entity``); then
same predicate, object and polarity (``wrong_entity``). Predictions citing no document are matched
last, against gold left over anywhere. A flipped polarity never matches. Within a pass the k-th
gold row of a group (in input order) pairs with the k-th prediction of that group.
"""

from __future__ import annotations

import ast
import itertools
import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from openodke.types import Fact, normalise_value

__all__ = [
    "DUPLICATE",
    "HIT",
    "MISSING",
    "SPURIOUS",
    "STATUS_NAMES",
    "UNSCORED",
    "WRONG_ENTITY",
    "WRONG_VALUE",
    "MatchKey",
    "Matching",
    "decode_key",
    "encode_key",
    "fact_key",
    "match_keys",
    "number",
    "predicate_of",
]

# Status codes, shared by gold rows and predictions.
HIT, WRONG_VALUE, WRONG_ENTITY, MISSING, SPURIOUS, DUPLICATE, UNSCORED = range(7)
STATUS_NAMES = (
    "hit",
    "wrong_value",
    "wrong_entity",
    "missing",
    "spurious",
    "duplicate",
    "unscored",
)
_SEP = "\x1f"


class MatchKey(NamedTuple):
    """What matching reads of a fact: identity, with the literal object normalised."""

    predicate: str
    subject: str
    subject_type: str
    literal: bool
    object: str
    polarity: str
    scoped: tuple[tuple[str, str], ...]


def encode_key(key: MatchKey) -> str:
    """One string per key: ``predicate␟subject␟type␟(L|E)object␟polarity␟scoped``."""
    scoped = repr(key.scoped) if key.scoped else ""
    kind = "L" if key.literal else "E"
    return _SEP.join(
        (key.predicate, key.subject, key.subject_type, kind + key.object, key.polarity, scoped)
    )


def decode_key(text: str) -> MatchKey:
    """The MatchKey an encoded key came from."""
    predicate, subject, subject_type, obj, polarity, scoped = text.split(_SEP)
    return MatchKey(
        predicate,
        subject,
        subject_type,
        obj[0] == "L",
        obj[1:],
        polarity,
        ast.literal_eval(scoped) if scoped else (),
    )


def predicate_of(text: str) -> str:
    """The predicate of an encoded key."""
    return text[: text.index(_SEP)]


def fact_key(fact: Fact) -> str:
    """A Fact's encoded key."""
    if fact.object_entity is not None:
        literal, obj = False, fact.object_entity.key
    else:
        literal, obj = True, normalise_value(fact.object_value)
    return encode_key(
        MatchKey(
            fact.predicate,
            fact.subject.key,
            fact.subject.type,
            literal,
            obj,
            fact.polarity.value,
            fact.scoped,
        )
    )


def _is_literal(key: str) -> bool:
    return key.split(_SEP, 4)[3][:1] == "L"


def _subject_group(key: str) -> str:
    p, s, t, _obj, pol, scoped = key.split(_SEP)
    return _SEP.join((p, s, t, pol, scoped))


def _object_group(key: str) -> str:
    p, _s, _t, obj, pol, _scoped = key.split(_SEP)
    return _SEP.join((p, obj, pol))


@dataclass
class Matching:
    """Each gold row's and each prediction's outcome, as numpy arrays of status codes.

    ``gold_status[i]`` is HIT, WRONG_VALUE, WRONG_ENTITY, MISSING or DUPLICATE; ``pred_status[j]``
    is HIT, WRONG_VALUE, WRONG_ENTITY, SPURIOUS, DUPLICATE or UNSCORED. ``gold_partner[i]`` and
    ``pred_partner[j]`` index the row each was paired with (-1: none). ``gold_doc[i]`` and
    ``pred_doc[j]`` index ``documents`` (-1 for a prediction that is uncited or unscored).
    ``gold_key``/``pred_key`` index ``keys``, the distinct encoded keys.
    """

    gold_status: np.ndarray
    gold_partner: np.ndarray
    gold_doc: np.ndarray
    pred_status: np.ndarray
    pred_partner: np.ndarray
    pred_doc: np.ndarray
    documents: list[str]
    gold_key: np.ndarray
    pred_key: np.ndarray
    keys: list[str]

    def counts(self) -> dict[str, int]:
        """tp, fp, fn and the four kinds of miss, over everything scored."""
        g = np.bincount(self.gold_status, minlength=7)
        spurious = int(np.count_nonzero(self.pred_status == SPURIOUS))
        wrong = int(g[WRONG_VALUE] + g[WRONG_ENTITY])
        return {
            "tp": int(g[HIT]),
            "fp": wrong + spurious,
            "fn": wrong + int(g[MISSING]),
            "wrong_value": int(g[WRONG_VALUE]),
            "wrong_entity": int(g[WRONG_ENTITY]),
            "missing": int(g[MISSING]),
            "spurious": spurious,
        }


def _first_of_each(codes: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split ``rows`` (ordered) into the first row of each code and the later repeats."""
    order = np.argsort(codes[rows], kind="stable")
    sorted_codes = codes[rows][order]
    first = np.ones(len(rows), dtype=bool)
    first[1:] = sorted_codes[1:] != sorted_codes[:-1]
    return rows[order[first]], rows[order[~first]]


def _ranked(groups: np.ndarray) -> np.ndarray:
    """Each element's rank among the earlier elements of its group (stable, in input order)."""
    if len(groups) == 0:
        return groups
    order = np.argsort(groups, kind="stable")
    g = groups[order]
    start = np.ones(len(g), dtype=bool)
    start[1:] = g[1:] != g[:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(len(g)), 0))
    rank = np.empty(len(g), dtype=np.int64)
    rank[order] = np.arange(len(g)) - first
    return rank


def number(strings: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Dense ids for ``strings`` (equal strings, equal ids) and the distinct strings by id.

    Strings are numbered by their hash with numpy, then every string is checked against its id's
    first string, so a hash collision can never merge two keys (it falls back to a dict).
    """
    n = len(strings)
    column = np.empty(n, dtype=object)
    column[:] = strings
    hashes = np.fromiter(map(hash, strings), np.int64, n)
    _, first, ids = np.unique(hashes, return_index=True, return_inverse=True)
    distinct = column[first]
    if all(map(operator.eq, strings, distinct[ids])):
        return ids.astype(np.int64), distinct
    seen: dict[str, int] = {}
    ids = np.fromiter((seen.setdefault(s, len(seen)) for s in strings), np.int64, n)
    return ids, np.array(list(seen), dtype=object)


def match_keys(
    gold_docs: Sequence[str],
    gold_keys: Sequence[str],
    pred_docs: Sequence[tuple[str, ...]],
    pred_keys: Sequence[str],
    labelled: Iterable[str] | None = None,
) -> Matching:
    """Match gold rows (document, key) with predictions (cited documents, key).

    ``labelled`` names the documents the gold covers beyond the gold's own; a prediction scores in
    the first labelled document it cites, and one citing only other documents is ``unscored``.
    The same key twice in one document counts once (``duplicate``).
    """
    ng, npred = len(gold_keys), len(pred_keys)
    documents = list(dict.fromkeys(gold_docs))
    if labelled is not None:
        documents = list(dict.fromkeys([*documents, *labelled]))
    doc_index = {doc: i for i, doc in enumerate(documents)}
    g_doc = np.fromiter(map(doc_index.__getitem__, gold_docs), np.int64, ng)
    p_doc = _scored_docs(pred_docs, doc_index)
    key_ids, distinct = number([*gold_keys, *pred_keys])
    g_key, p_key = key_ids[:ng], key_ids[ng:]
    keys: list[str] = distinct.tolist()
    width = max(len(keys), 1)

    g_status = np.full(ng, MISSING, dtype=np.int8)
    p_status = np.full(npred, SPURIOUS, dtype=np.int8)
    p_status[p_doc == -2] = UNSCORED
    g_partner = np.full(ng, -1, dtype=np.int64)
    p_partner = np.full(npred, -1, dtype=np.int64)
    p_doc[p_doc == -2] = -1

    g_code = g_doc * width + g_key
    g_first, g_repeat = _first_of_each(g_code, np.arange(ng))
    g_status[g_repeat] = DUPLICATE
    cited = np.flatnonzero(p_doc >= 0)
    p_code = p_doc * width + p_key
    p_first, p_repeat = _first_of_each(p_code, cited)
    p_status[p_repeat] = DUPLICATE

    def pair(gi: np.ndarray, pj: np.ndarray, status: np.ndarray | int) -> None:
        g_status[gi] = status
        p_status[pj] = status
        g_partner[gi] = pj
        p_partner[pj] = gi

    _, a, b = np.intersect1d(
        g_code[g_first], p_code[p_first], assume_unique=True, return_indices=True
    )
    pair(g_first[a], p_first[b], HIT)
    _near(keys, g_key, g_doc, p_key, p_doc, g_status, p_status, pair, any_doc=False)

    uncited = np.flatnonzero((p_doc == -1) & (p_status == SPURIOUS))
    if len(uncited):
        u_first, u_repeat = _first_of_each(p_key, uncited)
        p_status[u_repeat] = DUPLICATE
        left = np.flatnonzero(g_status == MISSING)
        gi, pj = _pair_by_rank(g_key[left], left, p_key[u_first], u_first)
        pair(gi, pj, HIT)
        mask = np.zeros(npred, dtype=bool)
        mask[u_first] = True
        _near(keys, g_key, g_doc, p_key, p_doc, g_status, p_status, pair, any_doc=True, only=mask)
    return Matching(
        g_status, g_partner, g_doc, p_status, p_partner, p_doc, documents, g_key, p_key, keys
    )


def _scored_docs(pred_docs: Sequence[tuple[str, ...]], doc_index: dict[str, int]) -> np.ndarray:
    """Per prediction, the first labelled document cited (-1: none cited; -2: none labelled)."""
    n = len(pred_docs)
    firsts = [docs[0] if docs else "" for docs in pred_docs]
    lookup: Callable[[str, int], int] = doc_index.get
    first = np.fromiter(map(lookup, firsts, itertools.repeat(-2, n)), np.int64, n)
    first[np.fromiter(map(len, pred_docs), np.int64, n) == 0] = -1
    for j in np.flatnonzero(first == -2).tolist():
        first[j] = _scored_doc(pred_docs[j], doc_index)
    return first


def _scored_doc(docs: tuple[str, ...], doc_ids: dict[str, int]) -> int:
    """The first labelled document cited (-1: cites none; -2: cites only unlabelled ones)."""
    if not docs:
        return -1
    for doc in docs:
        found = doc_ids.get(doc)
        if found is not None:
            return found
    return -2


def _pair_by_rank(
    g_groups: np.ndarray, g_rows: np.ndarray, p_groups: np.ndarray, p_rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Pair the k-th gold row of each group with the k-th prediction of that group."""
    if len(g_rows) == 0 or len(p_rows) == 0:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    # Renumber the groups densely first, so group × span stays far inside int64.
    _, dense = np.unique(np.concatenate([g_groups, p_groups]), return_inverse=True)
    g_dense, p_dense = dense[: len(g_groups)], dense[len(g_groups) :]
    span = len(dense) + 1
    g_code = g_dense * span + _ranked(g_dense)
    p_code = p_dense * span + _ranked(p_dense)
    _, a, b = np.intersect1d(g_code, p_code, assume_unique=True, return_indices=True)
    return g_rows[a], p_rows[b]


def _near(
    keys: list[str],
    g_key: np.ndarray,
    g_doc: np.ndarray,
    p_key: np.ndarray,
    p_doc: np.ndarray,
    g_status: np.ndarray,
    p_status: np.ndarray,
    pair: Callable[[np.ndarray, np.ndarray, np.ndarray | int], None],
    *,
    any_doc: bool,
    only: np.ndarray | None = None,
) -> None:
    """Passes two (same subject) and three (same object) over what is still unpaired."""
    for group_of, is_subject in ((_subject_group, True), (_object_group, False)):
        gi = np.flatnonzero(g_status == MISSING)
        pmask = (p_status == SPURIOUS) & ((p_doc == -1) if any_doc else (p_doc >= 0))
        if only is not None:
            pmask &= only
        pj = np.flatnonzero(pmask)
        if len(gi) == 0 or len(pj) == 0:
            return
        needed = np.unique(np.concatenate([g_key[gi], p_key[pj]]))
        group_ids, _ = number([group_of(keys[k]) for k in needed.tolist()])
        group_of_key = np.full(len(keys), -1, dtype=np.int64)
        group_of_key[needed] = group_ids
        n_groups = int(group_ids.max()) + 1 if len(group_ids) else 1
        g_groups = group_of_key[g_key[gi]] + (0 if any_doc else g_doc[gi] * n_groups)
        p_groups = group_of_key[p_key[pj]] + (0 if any_doc else p_doc[pj] * n_groups)
        a, b = _pair_by_rank(g_groups, gi, p_groups, pj)
        if is_subject:
            literal = np.fromiter((_is_literal(keys[k]) for k in g_key[a].tolist()), bool, len(a))
            literal &= np.fromiter((_is_literal(keys[k]) for k in p_key[b].tolist()), bool, len(b))
            both = literal
            pair(a, b, np.where(both, WRONG_VALUE, WRONG_ENTITY).astype(np.int8))
        else:
            pair(a, b, WRONG_ENTITY)
