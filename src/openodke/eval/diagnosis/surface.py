"""Bucket 5 without a judge: is a miss a prediction in other words?

For a missed gold fact, the candidates are the predictions of its document (then those citing
none) that are not hits and have its relation and polarity, in order; the first that has one end
equal by name key and the other end differing and alike (:func:`alike`) is its nearest
(DECISIONS #30). It runs on columns (:mod:`~openodke.eval.diagnosis.words`): each entity's names
are read once (by the hash of what they follow from), each pair of entities compared once, and
no Python loop runs per row. :func:`alike` is the same test on two ends' names, one pair at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from rapidfuzz import fuzz

from openodke.eval.diagnosis.index import Live
from openodke.eval.diagnosis.sentences import name_key
from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.diagnosis.words import ALIKE, EndWords
from openodke.eval.engine.halves import Shared, share
from openodke.eval.engine.joins import mix, search

__all__ = ["ALIKE", "BLOCK", "SurfaceRule", "alike", "surface_rule"]

BLOCK = 8192
"""Misses whose candidates' words are read and held at once: a miss's nearest depends on its
own candidates alone, so blocks give the same answers, the words of a million rows' ends (a
string per name key) are never held together (DECISIONS 316), and a block's sorts stay in the
cache (fastest from 200k to 1M rows, DECISIONS 321)."""


def alike(a: Iterable[str], b: Iterable[str]) -> bool:
    """The unconfirmed surface-form rule on two ends' names (any pair of names may pass).

    Name keys equal; one contains the other as whole words; or rapidfuzz ratio >= ALIKE.
    """
    keys_b = [k for k in {name_key(n) for n in b} if k]
    for x in {name_key(n) for n in a}:
        if not x:
            continue
        for y in keys_b:
            if x == y or f" {x} " in f" {y} " or f" {y} " in f" {x} ":
                return True
            if fuzz.ratio(x, y) >= ALIKE:
                return True
    return False


class SurfaceRule:
    """The rule as :func:`surface_rule` gives it: called with gold rows, each one's nearest or
    -1; :meth:`close` lets go of a child still working ahead."""

    def __init__(
        self, nearest: Callable[[np.ndarray], np.ndarray], ahead: np.ndarray | None
    ) -> None:
        self._nearest = nearest
        self._ahead = ahead
        self._shared: Shared | None = None
        self._found: np.ndarray | None = None
        if ahead is not None:  # half a BLOCK to a BLOCK: many, for the two to share evenly
            block = min(BLOCK, max(BLOCK // 2, -(-len(ahead) // 16)))
            self._shared = share(ahead, nearest, block=block)

    def __call__(self, misses: np.ndarray) -> np.ndarray:
        if self._ahead is None:
            return self._in_blocks(misses)
        if self._found is None:
            shared, self._shared = self._shared, None
            assert shared is not None
            self._found = shared.result()
        at = search(self._ahead, misses)
        if len(misses) and not np.array_equal(
            self._ahead[np.minimum(at, len(self._ahead) - 1)], misses
        ):
            raise ValueError("the surface rule was asked of rows it was not started on")
        return self._found[at]

    def _in_blocks(self, misses: np.ndarray) -> np.ndarray:
        found = np.empty(len(misses), dtype=np.int64)
        for start in range(0, len(misses), BLOCK):  # each block's words held, then let go
            found[start : start + BLOCK] = self._nearest(misses[start : start + BLOCK])
        return found

    def close(self) -> None:
        """Stop and wait for the child working ahead, if it still runs."""
        if self._shared is not None:
            self._shared.close()
            self._shared = None


def surface_rule(
    view: DiagnosisView, live: Live, *, ahead: np.ndarray | None = None
) -> SurfaceRule:
    """The rule, for the gold rows no earlier bucket took: each one's nearest, or -1.

    In columns: each candidate pair passes when (its objects differ, its subjects share a name
    key and its objects are alike) or (the other way round); a miss takes its first candidate
    that passes, in the order the row-by-row rule tried them. With ``ahead`` (gold rows,
    ascending: every row the rule will be asked of), a forked child starts on them now
    (:mod:`~openodke.eval.engine.halves`) and this process works the rest when first asked: a
    miss's nearest depends on its own candidates alone, so the answers are the same.
    """
    m, g, p = view.score.matching, view.gold, view.predicted

    def nearest(misses: np.ndarray) -> np.ndarray:
        found = np.full(len(misses), -1, dtype=np.int64)
        predicate = g.keys.predicate[misses]
        polarity = g.polarity[misses].astype(np.int64)
        which, j = live.relation.all_here_then_uncited(
            mix(m.gold_doc[misses], predicate, polarity),
            live.uncited_codes(predicate, polarity),
        )
        i = misses[which]
        objects_differ = p.object_node[j] != g.object_node[i]
        subjects_differ = p.subject_node[j] != g.subject_node[i]
        keep = objects_differ | subjects_differ
        if not keep.all():
            which, i, j = which[keep], i[keep], j[keep]
            objects_differ, subjects_differ = objects_differ[keep], subjects_differ[keep]
        if not len(which):
            return found
        words = EndWords(((g, i, True), (g, i, False), (p, j, True), (p, j, False)))
        gs, go, ps, po = words.parts
        by_subject, by_object = objects_differ.copy(), subjects_differ.copy()
        by_subject[by_subject] = words.share_key(gs[by_subject], ps[by_subject])
        by_object[by_object] = words.share_key(go[by_object], po[by_object])
        passes = np.zeros(len(which), dtype=bool)
        passes[by_subject] = words.alike(go[by_subject], po[by_subject])
        rest = by_object & ~passes
        passes[rest] = words.alike(gs[rest], ps[rest])
        at = np.flatnonzero(passes)
        firsts, first = np.unique(which[at], return_index=True)  # first in the rule's order
        found[firsts] = j[at[first]]
        return found

    return SurfaceRule(nearest, ahead)
