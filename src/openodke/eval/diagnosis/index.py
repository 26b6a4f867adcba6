"""The row's predictions indexed by what the buckets ask of them, per document.

A prediction sits in the document matching scored it in; one citing no document (matched, like the
matcher does, against gold anywhere) sits under document -1, which every lookup also reads.
Repeats of a prediction in its document (``duplicate``) and predictions citing only unlabelled
documents (``unscored``) are left out: they were never scored.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from typing import Any

import numpy as np

from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.engine.matching import DUPLICATE, HIT, UNSCORED
from openodke.ontology import lookup_form as _lookup_form

__all__ = ["PredictionIndex", "lookup_form"]


@lru_cache(maxsize=1 << 14)
def lookup_form(name: str) -> str:
    """``openodke.ontology.lookup_form``, remembered: a run has few types and predicates."""
    return _lookup_form(name)


UNCITED = -1
_NONE: list[int] = []  # shared and never mutated: get() returns it for a miss


class PredictionIndex:
    """Lookups over the live predictions of a view."""

    def __init__(self, view: DiagnosisView) -> None:
        m = view.score.matching
        p = view.predicted
        status = m.pred_status.tolist()
        doc = m.pred_doc.tolist()
        self.hit = [s == HIT for s in status]
        self.live = [j for j, s in enumerate(status) if s not in (UNSCORED, DUPLICATE)]
        self.doc = doc
        self.pair: dict[tuple[int, str, str], list[int]] = {}
        self.triple: dict[tuple[int, str, str, str], list[int]] = {}
        self.by_relation: dict[tuple[int, str, str], list[int]] = {}
        self.nodes: dict[int, set[str]] = {}
        for j in self.live:
            d, s, o, pred, pol = doc[j], p.subject[j], p.obj[j], p.predicate[j], p.polarity[j]
            self.pair.setdefault((d, s, o), []).append(j)
            self.triple.setdefault((d, s, pred, o), []).append(j)
            nodes = self.nodes.setdefault(d, set())
            nodes.add(s)
            nodes.add(o)
            if not self.hit[j]:  # surface-form candidates: never a hit
                self.by_relation.setdefault((d, pred, pol), []).append(j)
        self.uncited = UNCITED in self.nodes
        self.per_document = np.bincount(
            np.asarray([doc[j] for j in self.live if doc[j] >= 0], dtype=np.int64),
            minlength=len(m.documents),
        )

    def get(self, table: dict[Any, list[int]], d: int, *rest: Hashable) -> list[int]:
        """The entries for ``(d, *rest)`` and for the uncited ``(-1, *rest)``."""
        here = table.get((d, *rest), _NONE)
        if not self.uncited:
            return here
        there = table.get((UNCITED, *rest), _NONE)
        return here + there if there else here

    def has_node(self, d: int, node: str) -> bool:
        """True when some prediction for document ``d`` (or citing none) has ``node`` as an end."""
        return node in self.nodes.get(d, ()) or node in self.nodes.get(UNCITED, ())
