"""Each missed gold fact in the first bucket its evidence fits, every miss at once.

The rules and their order are :mod:`openodke.eval.diagnosis.buckets`'s. Each rule is a join on
hash codes (:class:`~openodke.eval.diagnosis.index.Live`) over the misses no earlier rule took;
only the surface-form rule reads names, for the misses that have a candidate, and the
cross-sentence rule reads the answers :class:`~openodke.eval.diagnosis.cross.CrossSentence` gave.
A bucket's nearest prediction is the one the row-by-row rules named: the first in the miss's own
document, then the first citing none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from openodke.eval.diagnosis.index import Live, lookup_form
from openodke.eval.diagnosis.models import RECALL_BUCKETS
from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.engine.joins import Keep, Lookup, first_of_each, member, mix, search
from openodke.eval.engine.matching import DUPLICATE, HIT

__all__ = ["Placed", "Rules", "first_and_kept", "misses_of", "place"]

CONFIRMED = -2
"""The nearest "prediction" of a surface-form miss a judge said is the same fact."""


@dataclass
class Rules:
    """What the rules need beyond the view: each an input the run may lack (None)."""

    forms: dict[str, frozenset[str]] | None
    refused: tuple[np.ndarray, np.ndarray] | None  # (codes of (document, key), refused row)
    confirmed: np.ndarray | None  # codes of (document, gold key) a judge confirmed
    surface: Callable[[np.ndarray], np.ndarray]  # gold rows -> the nearest candidate, or -1
    cross: np.ndarray | None  # per gold row: 1 spans sentences
    long_document: np.ndarray | None  # per document index: saturated and long


@dataclass
class Placed:
    """Misses in gold order, each with its bucket (an index into RECALL_BUCKETS) and nearest
    row (a prediction, a refused fact, CONFIRMED, or -1), and the offered knobs it names."""

    rows: np.ndarray
    bucket: np.ndarray
    near: np.ndarray
    knobs: set[str]

    def landed(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """The misses of one bucket and their nearest rows, in gold order."""
        here = self.bucket == RECALL_BUCKETS.index(name)
        return self.rows[here], self.near[here]


def _offered(view: DiagnosisView, rows: np.ndarray, forms: dict[str, frozenset[str]]) -> np.ndarray:
    """Per miss: 0 offered, 1 its type was offered nothing, 2 its relation was not offered."""
    g = view.gold
    pairs = mix(g.subject_type[rows], g.keys.predicate[rows])
    distinct, first, inverse = np.unique(pairs, return_index=True, return_inverse=True)
    verdict = np.empty(len(distinct), dtype=np.int8)
    for k, i in enumerate(rows[first].tolist()):
        allowed = forms.get(lookup_form(view.gold_ends.subject_type(i)))
        predicate = lookup_form(view.gold_ends.predicate(i))
        verdict[k] = 1 if not allowed else (0 if predicate in allowed else 2)
    return verdict[inverse.reshape(-1)]


def _found(codes: np.ndarray, table: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Per code, the row the table gives it (-1: none)."""
    keys, rows = table
    at = np.minimum(search(keys, codes), max(len(keys) - 1, 0))
    hit = (keys[at] == codes) if len(keys) else np.zeros(len(codes), dtype=bool)
    return np.where(hit, rows[at] if len(keys) else -1, -1)


def first_and_kept(
    lookup: Lookup, here: np.ndarray, uncited: np.ndarray | None, keep: Keep
) -> tuple[np.ndarray, np.ndarray]:
    """``lookup.first_here_or_uncited`` of the same queries without and with ``keep``: where
    nothing is uncited, both from one search of the queries' rows."""
    if uncited is not None:
        return (
            lookup.first_here_or_uncited(here, uncited),
            lookup.first_here_or_uncited(here, uncited, keep),
        )
    which, rows = lookup.pairs(here)
    out = []
    for kept in (None, keep(which, rows)):
        found = np.full(len(here), -1, dtype=np.int64)
        w, r = (which, rows) if kept is None else (which[kept], rows[kept])
        starts = first_of_each(w)
        found[w[starts]] = r[starts]
        out.append(found)
    return out[0], out[1]


def misses_of(matching: Any) -> np.ndarray:
    """The gold rows a matching missed (neither hit nor a repeat of one), ascending: what
    :func:`place` buckets."""
    status = matching.gold_status
    return np.flatnonzero((status != HIT) & (status != DUPLICATE))


def place(view: DiagnosisView, live: Live, rules: Rules) -> Placed:
    """Put every miss in its bucket (see the module docstring)."""
    m, g, p = view.score.matching, view.gold, view.predicted
    rows = misses_of(m)
    bucket = np.full(len(rows), -1, dtype=np.int8)
    near = np.full(len(rows), -1, dtype=np.int64)
    knobs: set[str] = set()
    d = m.gold_doc[rows]
    s, o = g.subject_node[rows], g.object_node[rows]
    predicate, key = g.keys.predicate[rows], g.keys.key[rows]

    def land(name: str, mask: np.ndarray, nearest: np.ndarray | None = None) -> None:
        mask = mask & (bucket < 0)
        bucket[mask] = RECALL_BUCKETS.index(name)
        if nearest is not None:
            near[mask] = nearest[mask]

    near_gold, near_pred = view.score.near.pairs()
    at = np.minimum(search(near_gold, rows), max(len(near_gold) - 1, 0))
    is_near = (near_gold[at] == rows) if len(near_gold) else np.zeros(len(rows), dtype=bool)
    land("other_type_or_key", is_near, near_pred[at] if len(near_gold) else None)
    if rules.forms is not None:
        offered = _offered(view, rows, rules.forms)
        if np.any(offered == 1):
            knobs.add("types")
        if np.any(offered == 2):
            knobs.add("snippet_limit")
        land("never_offered", offered > 0)
    if rules.refused is not None:
        caught = _found(mix(d, key), rules.refused)
        missing = caught < 0
        caught[missing] = _found(mix(np.full(int(missing.sum()), -1), key[missing]), rules.refused)
        land("refused", caught >= 0, caught)
    p_pred, hit = p.keys.predicate, live.hit
    same_way, wrong = first_and_kept(
        live.pair,
        mix(d, s, o),
        live.uncited_codes(s, o),
        lambda q, j: ~hit[j] & (p_pred[j] != predicate[q]),
    )
    land("wrong_relation", wrong >= 0, wrong)
    entity = ~g.keys.literal[rows]
    other_way = live.pair.first_here_or_uncited(mix(d, o, s), live.uncited_codes(o, s))
    land("inverse", entity & (other_way >= 0), other_way)
    open_ = np.flatnonzero(bucket < 0)
    # The rules after the surface rule are asked of every miss still open before it, a few more
    # than they must be (each miss's answer is its own; land() keeps the first bucket): this is
    # worked out while the surface rule's child works, not after it.
    apart = np.full(len(rows), -1, dtype=np.int64)
    apart[open_] = live.triple.first_here_or_uncited(
        mix(d[open_], s[open_], predicate[open_], o[open_]),
        live.uncited_codes(s[open_], predicate[open_], o[open_]),
    )
    both = np.zeros(len(rows), dtype=bool)
    if len(open_):  # (the lookup of every prediction's ends is built when first asked)
        both[open_] = live.has_node(d[open_], s[open_]) & live.has_node(d[open_], o[open_])
    if rules.confirmed is not None:
        judged = member(mix(d, key), rules.confirmed)
        land("surface_form", judged, np.full(len(rows), CONFIRMED))
    elif len(open_):
        surface = np.full(len(rows), -1, dtype=np.int64)
        surface[open_] = rules.surface(rows[open_])
        land("surface_form", surface >= 0, surface)
    land("scored_apart", apart >= 0, apart)
    land("linked_other", same_way >= 0, same_way)
    if rules.cross is not None:
        land("cross_sentence", rules.cross[rows] == 1)
    if rules.long_document is not None:
        land("saturation", rules.long_document[d])
    land("not_linked", both)
    land("entity_missing", np.ones(len(rows), dtype=bool))
    return Placed(rows, bucket, near, knobs)
