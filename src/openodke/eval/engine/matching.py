"""Extraction matching on key hashes: the core both the Python API and the CLI's fast path use.

A row is reduced to hashes of its key parts and document (:mod:`~openodke.eval.engine.key_table`;
from :func:`encode_key` strings on the Fact path, straight from the JSON on the fast path, the
same numbers either way) and every pass runs on numpy arrays, so a million rows match in about a
second.

Per document, three passes pair predictions with gold one-to-one (surface.md, "Extraction
matching"): exact signature (literals normalised); then same subject, predicate, polarity and
identity qualifiers (``wrong_value`` when both objects are literals, else ``wrong_entity``); then
same predicate, object and polarity (``wrong_entity``). Predictions citing no document are matched
last, against gold left over anywhere. A flipped polarity never matches. Within a pass the k-th
gold row of a group (in input order) pairs with the k-th prediction of that group.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from openodke.doc_ids import DocIds, join_ids
from openodke.eval.engine.joins import common, search, stable_order
from openodke.eval.engine.key_table import DocColumn, KeyTable, hashes_of
from openodke.eval.engine.match_key import MatchKey, decode_key, encode_key, fact_key

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
    "labelled_documents",
    "match_keys",
    "scored_documents",
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


@dataclass
class Matching:
    """Each gold row's and each prediction's outcome, as numpy arrays of status codes.

    ``gold_status[i]`` is HIT, WRONG_VALUE, WRONG_ENTITY, MISSING or DUPLICATE; ``pred_status[j]``
    is HIT, WRONG_VALUE, WRONG_ENTITY, SPURIOUS, DUPLICATE or UNSCORED. ``gold_partner[i]`` and
    ``pred_partner[j]`` index the row each was paired with (-1: none). ``gold_doc[i]`` and
    ``pred_doc[j]`` index ``documents`` (-1 for a prediction that is uncited or unscored).
    ``rows`` holds every gold row's then every prediction's key hashes. ``gold_key`` and
    ``pred_key`` number the distinct keys, ``table`` holds one row per key and ``keys`` their
    encoded strings: all three are worked out when first read, as scoring needs none of them.
    ``doc_ids`` names the documents and the other ids joined to them by file stem; ``joined``
    lists every ``(document, id)`` joined so, the labelled ones' and the predictions' cited ones.
    """

    gold_status: np.ndarray
    gold_partner: np.ndarray
    gold_doc: np.ndarray
    pred_status: np.ndarray
    pred_partner: np.ndarray
    pred_doc: np.ndarray
    documents: list[str]
    rows: KeyTable
    doc_ids: DocIds = field(default_factory=lambda: DocIds(()))
    joined: list[tuple[str, str]] = field(default_factory=list)

    @cached_property
    def _numbered(self) -> tuple[np.ndarray, np.ndarray]:
        _, first, ids = np.unique(self.rows.key, return_index=True, return_inverse=True)
        return first, ids.astype(np.int64)

    @property
    def gold_key(self) -> np.ndarray:
        """Each gold row's key id."""
        return self._numbered[1][: len(self.gold_status)]

    @property
    def pred_key(self) -> np.ndarray:
        """Each prediction's key id."""
        return self._numbered[1][len(self.gold_status) :]

    @cached_property
    def table(self) -> KeyTable:
        """One row per key id."""
        return self.rows.take(self._numbered[0])

    @property
    def keys(self) -> list[str]:
        """The distinct encoded keys, by key id (kept when matching was given key strings)."""
        if self.table.strings is None:
            raise ValueError("this matching was made on the fast path, which keeps no key strings")
        return self.table.strings

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
    ordered = np.sort(codes[rows])  # a plain sort is several times faster than argsort
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if len(repeated) == 0:  # the usual case: every code once
        return rows, rows[:0]
    involved = rows[np.isin(codes[rows], repeated)]
    order = stable_order(codes[involved])
    sorted_codes = codes[involved][order]
    first = np.ones(len(involved), dtype=bool)
    first[1:] = sorted_codes[1:] != sorted_codes[:-1]
    repeats = involved[order[~first]]
    keep = np.ones(len(rows), dtype=bool)
    keep[np.searchsorted(rows, repeats)] = False  # rows are in order
    return rows[keep], repeats


def _ranked(groups: np.ndarray) -> np.ndarray:
    """Each element's rank among the earlier elements of its group (stable, in input order)."""
    if len(groups) == 0:
        return groups
    order = stable_order(groups)
    g = groups[order]
    start = np.ones(len(g), dtype=bool)
    start[1:] = g[1:] != g[:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(len(g)), 0))
    rank = np.empty(len(g), dtype=np.int64)
    rank[order] = np.arange(len(g)) - first
    return rank


def match_keys(
    gold_docs: Sequence[str] | DocColumn,
    gold_keys: Sequence[str] | KeyTable,
    pred_docs: Sequence[tuple[str, ...]] | DocColumn,
    pred_keys: Sequence[str] | KeyTable,
    labelled: Iterable[str] | DocIds | None = None,
) -> Matching:
    """Match gold rows (document, key) with predictions (cited documents, key).

    Keys are encoded strings or a :class:`~openodke.eval.engine.key_table.KeyTable`; documents plain
    or as a :class:`~openodke.eval.engine.key_table.DocColumn`. ``labelled`` names the documents the
    gold covers beyond the gold's own (or is an earlier matching's ``doc_ids``); a prediction
    scores in the first labelled document it cites (:func:`~openodke.eval.stages.extract.score_keys`
    gives a fact citing several one row per document, so it scores in each), and one citing only
    other documents is ``unscored``. Ids join by id, else by file stem when unique (:mod:`openodke.doc_ids`): a
    labelled ``d0.txt`` is the gold's ``d0``, and so is a citation of ``d0.txt``. The same key
    twice in one document counts once (``duplicate``).
    """
    g_docs = gold_docs if isinstance(gold_docs, DocColumn) else DocColumn.of(gold_docs)
    cited = pred_docs if isinstance(pred_docs, DocColumn) else DocColumn.of_cited(pred_docs)
    g_table = gold_keys if isinstance(gold_keys, KeyTable) else KeyTable.of(gold_keys)
    p_table = pred_keys if isinstance(pred_keys, KeyTable) else KeyTable.of(pred_keys)
    ng, npred = len(g_table), len(p_table)
    doc_ids, doc_hashes, g_doc = _documents(g_docs, labelled)
    joined = doc_ids.joined
    p_doc = _scored_docs(cited, doc_ids, doc_hashes, joined)
    rows = KeyTable.concat([g_table, p_table])
    # The groups, mixed once over every row (not per side and then joined: a second copy of
    # three columns at the peak, DECISIONS 300); each side reads its own from here, and keeps
    # them for the diagnosis.
    rows.key  # noqa: B018
    g_table.lean_on(rows, 0)  # the sides read their rows from here: held once, not twice
    p_table.lean_on(rows, ng)
    g_key, p_key = rows.key[:ng], rows.key[ng:]

    g_status = np.full(ng, MISSING, dtype=np.int8)
    p_status = np.full(npred, SPURIOUS, dtype=np.int8)
    p_status[p_doc == -2] = UNSCORED
    g_partner = np.full(ng, -1, dtype=np.int64)
    p_partner = np.full(npred, -1, dtype=np.int64)
    p_doc[p_doc == -2] = -1

    g_code = _in_document(g_key, g_doc)
    g_first, g_repeat = _first_of_each(g_code, np.arange(ng))
    g_status[g_repeat] = DUPLICATE
    scored = np.flatnonzero(p_doc >= 0)
    p_code = _in_document(p_key, p_doc)
    p_first, p_repeat = _first_of_each(p_code, scored)
    p_status[p_repeat] = DUPLICATE

    def pair(gi: np.ndarray, pj: np.ndarray, status: np.ndarray | int) -> None:
        g_status[gi] = status
        p_status[pj] = status
        g_partner[gi] = pj
        p_partner[pj] = gi

    _, a, b = common(g_code[g_first], p_code[p_first])
    pair(g_first[a], p_first[b], HIT)
    near = _Near(rows, ng, g_doc, p_doc, g_status, p_status, pair)
    near.run(any_doc=False)

    uncited = np.flatnonzero((p_doc == -1) & (p_status == SPURIOUS))
    if len(uncited):
        u_first, u_repeat = _first_of_each(p_key, uncited)
        p_status[u_repeat] = DUPLICATE
        left = np.flatnonzero(g_status == MISSING)
        gi, pj = _pair_by_rank(g_key[left], left, p_key[u_first], u_first)
        pair(gi, pj, HIT)
        mask = np.zeros(npred, dtype=bool)
        mask[u_first] = True
        near.run(any_doc=True, only=mask)
    documents = doc_ids.names
    for table in (rows, g_table, p_table):  # paired: the groups are read no more, the key is
        for name in ("subject", "object"):  # (two columns of every row, DECISIONS 300;
            table.__dict__.pop(name, None)  # worked out again if asked)
    return Matching(
        g_status, g_partner, g_doc, p_status, p_partner, p_doc, documents, rows, doc_ids, joined
    )


# An odd 64-bit multiplier: (key hash, document) pairs to one int64, wrapping; two different
# pairs share a code with probability 2^-64, as two keys share a hash (key_table).
_DOC_MIX = np.int64(-4658895280553007687)


def _in_document(hashes: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """One code per (hash, document) pair."""
    return hashes + docs * _DOC_MIX


def labelled_documents(
    gold_docs: DocColumn, labelled: Iterable[str] | DocIds | None
) -> tuple[DocIds, np.ndarray]:
    """The labelled documents matching scores in (the gold's, then ``labelled``'s that are no
    gold one) and their names' hashes: pass the DocIds back as ``match_keys``' ``labelled``."""
    gold_ids = list(gold_docs.names.values())  # names keep first-seen order
    doc_ids = join_ids(gold_ids, labelled if labelled is not None else ())
    doc_hashes = np.fromiter(gold_docs.names, np.int64, len(gold_ids))
    if len(doc_ids) > len(gold_ids):
        doc_hashes = np.concatenate([doc_hashes, hashes_of(doc_ids.names[len(gold_ids) :])])
    return doc_ids, doc_hashes


def _documents(
    gold_docs: DocColumn, labelled: Iterable[str] | DocIds | None
) -> tuple[DocIds, np.ndarray, np.ndarray]:
    """The labelled documents (gold's in first-seen order, then ``labelled``'s that are not the
    same document as a gold one: :func:`~openodke.doc_ids.join_ids`), their names' hashes, and
    each gold row's index among them."""
    doc_ids, doc_hashes = labelled_documents(gold_docs, labelled)
    return doc_ids, doc_hashes, _positions(doc_hashes, gold_docs.hashes)


def _positions(table: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """Each of ``hashes``'s index in ``table`` (-2: not there).

    A slot array addressed by the hashes' low bits answers most lookups with one read; only
    those whose slot another hash took go to a binary search (a million binary searches into
    100,000 documents cost several times more).
    """
    found = np.full(len(hashes), -2, dtype=np.int64)
    if not len(table):
        return found
    size = 1 << max(int(len(table) * 2).bit_length(), 4)
    slots = np.full(size, -1, dtype=np.int64)
    slots[table & (size - 1)] = np.arange(len(table))
    at = slots[hashes & (size - 1)]
    hit = (at >= 0) & (table[np.maximum(at, 0)] == hashes)
    found[hit] = at[hit]
    rest = np.flatnonzero(~hit)
    if len(rest):
        sorter = np.argsort(table)
        ordered = table[sorter]
        where = np.minimum(search(ordered, hashes[rest]), len(ordered) - 1)
        match = ordered[where] == hashes[rest]
        found[rest[match]] = sorter[where[match]]
    return found


def _scored_docs(
    cited: DocColumn,
    doc_ids: DocIds,
    doc_hashes: np.ndarray,
    joined: list[tuple[str, str]] | None = None,
) -> np.ndarray:
    """Per prediction, the first labelled document cited (-1: none cited; -2: none labelled).

    A cited id that names no labelled document is looked up once, however many rows cite it: by
    an id joined to a document, else by its file stem. Each joined by stem is added to ``joined``.
    """
    first = _positions(doc_hashes, cited.hashes)
    first[~cited.present] = -1
    unknown = np.flatnonzero(first == -2)
    if len(unknown):
        distinct, inverse = np.unique(cited.hashes[unknown], return_inverse=True)
        found = np.fromiter(
            (_scored_doc((cited.names[h],), doc_ids, joined) for h in distinct.tolist()),
            np.int64,
            len(distinct),
        )
        first[unknown] = found[inverse]
    for j in [j for j in cited.more if first[j] == -2]:
        first[j] = _scored_doc(cited.more[j][1:], doc_ids, joined)
    return first


def scored_documents(cited: DocColumn, documents: list[str] | DocIds) -> np.ndarray:
    """Per row, where matching scores it among ``documents`` (a matching's ``doc_ids``, or its
    ``documents``): the first labelled document it cites (-1: it cites none; -2: it cites only
    unlabelled ones)."""
    doc_ids = documents if isinstance(documents, DocIds) else DocIds(documents)
    return _scored_docs(cited, doc_ids, hashes_of(doc_ids.names))


def _scored_doc(
    docs: tuple[str, ...], doc_ids: DocIds, joined: list[tuple[str, str]] | None
) -> int:
    """The first labelled document cited, by id, else by stem (-2: cites only unlabelled ones)."""
    for doc in docs:
        found = doc_ids.exact(doc)
        if found is None:
            found = doc_ids.by_stem(doc)
            if found is not None and joined is not None:
                joined.append((doc_ids.names[found], doc))
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
    _, a, b = common(g_code, p_code)
    return g_rows[a], p_rows[b]


@dataclass
class _Near:
    """Passes two (same subject) and three (same object) over what is still unpaired."""

    rows: KeyTable
    n_gold: int
    g_doc: np.ndarray
    p_doc: np.ndarray
    g_status: np.ndarray
    p_status: np.ndarray
    pair: Callable[[np.ndarray, np.ndarray, np.ndarray | int], None]

    def run(self, *, any_doc: bool, only: np.ndarray | None = None) -> None:
        """Pair leftovers within a document (or, ``any_doc``, anywhere), predictions in ``only``."""
        ng, literal = self.n_gold, self.rows.literal
        for groups in (self.rows.subject, self.rows.object):
            gi = np.flatnonzero(self.g_status == MISSING)
            pmask = self.p_status == SPURIOUS
            pmask &= (self.p_doc == -1) if any_doc else (self.p_doc >= 0)
            if only is not None:
                pmask &= only
            pj = np.flatnonzero(pmask)
            if len(gi) == 0 or len(pj) == 0:
                return
            g_groups, p_groups = groups[gi], groups[ng + pj]
            if not any_doc:
                g_groups = _in_document(g_groups, self.g_doc[gi])
                p_groups = _in_document(p_groups, self.p_doc[pj])
            a, b = _pair_by_rank(g_groups, gi, p_groups, pj)
            if groups is self.rows.subject:
                both = literal[a] & literal[ng + b]
                self.pair(a, b, np.where(both, WRONG_VALUE, WRONG_ENTITY).astype(np.int8))
            else:
                self.pair(a, b, WRONG_ENTITY)
