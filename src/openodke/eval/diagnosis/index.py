"""The row's predictions indexed by what the buckets ask of them, per document.

A prediction sits in the document matching scored it in; one citing no document (matched, like the
matcher does, against gold anywhere) sits under document -1, which every lookup also reads.
Repeats of a prediction in its document (``duplicate``) and predictions citing only unlabelled
documents (``unscored``) are left out: they were never scored.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from openodke.eval.diagnosis.sentences import name_key
from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.matching import DUPLICATE, HIT, UNSCORED

__all__ = ["PredictionIndex"]

UNCITED = -1


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
        self.by_subject: dict[tuple[int, str, str, str], list[int]] = {}
        self.by_object: dict[tuple[int, str, str, str], list[int]] = {}
        self.nodes: dict[int, set[str]] = {}
        for j in self.live:
            d, s, o, pred, pol = doc[j], p.subject[j], p.obj[j], p.predicate[j], p.polarity[j]
            self.pair.setdefault((d, s, o), []).append(j)
            self.triple.setdefault((d, s, pred, o), []).append(j)
            nodes = self.nodes.setdefault(d, set())
            nodes.add(s)
            nodes.add(o)
            for key in {name_key(n) for n in p.subject_names[j]}:
                self.by_subject.setdefault((d, key, pred, pol), []).append(j)
            for key in {name_key(n) for n in p.object_names[j]}:
                self.by_object.setdefault((d, key, pred, pol), []).append(j)
        self.per_document = np.bincount(
            np.asarray([doc[j] for j in self.live if doc[j] >= 0], dtype=np.int64),
            minlength=len(m.documents),
        )

    @staticmethod
    def get(table: dict[Any, list[int]], d: int, *rest: Hashable) -> list[int]:
        """The entries for ``(d, *rest)`` and for the uncited ``(-1, *rest)``."""
        here = table.get((d, *rest), [])
        there = table.get((UNCITED, *rest), [])
        return here + there if there else here

    def has_node(self, d: int, node: str) -> bool:
        """True when some prediction for document ``d`` (or citing none) has ``node`` as an end."""
        return node in self.nodes.get(d, ()) or node in self.nodes.get(UNCITED, ())
