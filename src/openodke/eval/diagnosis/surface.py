"""Bucket 5 without a judge: is a miss a prediction in other words?

For a missed gold fact, the candidates are the predictions of its document (then those citing
none) that are not hits and have its relation and polarity, in order; the first that has one end
equal by name key and the other end differing and alike (:func:`alike`) is its nearest
(DECISIONS #30). Names are read once per entity (by the hash of what they follow from), and each
pair of names is compared once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from rapidfuzz import fuzz

from openodke.eval.diagnosis.index import Live
from openodke.eval.diagnosis.names import Ends
from openodke.eval.diagnosis.sentences import name_key
from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.engine.joins import first_of_each, mix

__all__ = ["ALIKE", "alike", "surface_rule"]

ALIKE = 85.0
"""rapidfuzz ratio (0-100) at or above which two names are "85% alike"."""


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


def _read(ends: Ends, rows: np.ndarray, hashes: np.ndarray, subject: bool) -> None:
    """Name once each distinct entity (names hash) of ``rows``."""
    order = np.argsort(hashes, kind="stable")
    firsts = rows[order][first_of_each(hashes[order])]
    ends.load(firsts.tolist())
    for i in firsts.tolist():
        ends.keys(i, subject)
        ends.names(i, subject)


def surface_rule(view: DiagnosisView, live: Live) -> Callable[[np.ndarray], np.ndarray]:
    """The rule, for the gold rows no earlier bucket took: each one's nearest, or -1."""
    m, g, p = view.score.matching, view.gold, view.predicted
    gold_ends, said = view.gold_ends, view.predicted_ends

    def rule(misses: np.ndarray) -> np.ndarray:
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
        which, i, j = which[keep], i[keep], j[keep]
        objects_differ, subjects_differ = objects_differ[keep], subjects_differ[keep]
        if not len(which):
            return found
        columns = {
            "gs": g.subject_names[i], "go": g.object_names[i],
            "ps": p.subject_names[j], "po": p.object_names[j],
        }  # fmt: skip
        for ends, rows, key in ((gold_ends, i, "g"), (said, j, "p")):
            _read(ends, rows, columns[key + "s"], True)
            _read(ends, rows, columns[key + "o"], False)
        keys = {**gold_ends.known_keys(), **said.known_keys()}
        names = {**gold_ends.known_names(), **said.known_names()}
        similar: dict[tuple[int, int], bool] = {}

        def same(a: int, b: int) -> bool:
            found = similar.get((a, b))
            if found is None:
                found = similar[(a, b)] = alike(names[a], names[b])
            return found

        done: set[int] = set()
        pairs = zip(
            which.tolist(), j.tolist(), objects_differ.tolist(), subjects_differ.tolist(),
            *(columns[c].tolist() for c in ("gs", "ps", "go", "po")),
            strict=True,
        )  # fmt: skip
        for w, jj, o_differ, s_differ, gs, ps, go, po in pairs:
            if w in done:
                continue
            # The row-by-row rule's order: the ends' keys before alike.
            if (o_differ and not keys[gs].isdisjoint(keys[ps]) and same(go, po)) or (
                s_differ and not keys[go].isdisjoint(keys[po]) and same(gs, ps)
            ):
                found[w] = jj
                done.add(w)
        return found

    return rule
