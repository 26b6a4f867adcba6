"""The row's live predictions, indexed by what the buckets ask of them, per document.

A prediction sits in the document matching scored it in; one citing no document (matched, like the
matcher does, against gold anywhere) sits under document -1, which every lookup also reads, after
the document's own. Repeats of a prediction in its document (``duplicate``) and predictions citing
only unlabelled documents (``unscored``) are left out: they were never scored. Each index is a
:class:`~openodke.eval.engine.joins.Lookup` over hash codes, so a question is asked for every
missed gold fact at once.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.engine.joins import Lookup, distinct_mixed, member, mix
from openodke.eval.engine.matching import DUPLICATE, HIT, UNSCORED
from openodke.forms import lookup_form as _lookup_form

__all__ = ["UNCITED", "Live", "lookup_form"]


@lru_cache(maxsize=1 << 14)
def lookup_form(name: str) -> str:
    """``openodke.ontology.lookup_form``, remembered: a run has few types and predicates."""
    return _lookup_form(name)


UNCITED = -1


class Live:
    """Lookups over the live predictions of a view.

    ``pair``: (document, subject node, object node); ``triple``: (document, subject node,
    predicate, object node); ``relation``: (document, predicate, polarity), predictions that are
    not hits only (surface-form candidates). ``rows`` are the live predictions in order.
    """

    def __init__(self, view: DiagnosisView) -> None:
        m = view.score.matching
        p = view.predicted
        status = m.pred_status
        self.hit = status == HIT
        self.doc = m.pred_doc
        rows = np.flatnonzero((status != UNSCORED) & (status != DUPLICATE))
        self.rows = rows
        d = m.pred_doc[rows]
        s, o = p.subject_node[rows], p.object_node[rows]
        predicate = p.keys.predicate[rows]
        self.pair = Lookup(mix(d, s, o), rows)
        self.triple = Lookup(mix(d, s, predicate, o), rows)
        open_ = ~self.hit[rows]
        self.relation = Lookup(
            mix(d[open_], predicate[open_], p.polarity[rows][open_].astype(np.int64)), rows[open_]
        )
        self._view = view  # has_node reads the ends again when first asked: not held till then
        self._nodes: np.ndarray | None = None
        self.uncited = bool(np.any(d == UNCITED))
        self.per_document = np.bincount(d[d >= 0], minlength=len(m.documents))

    def uncited_codes(self, *columns: np.ndarray) -> np.ndarray | None:
        """The codes of ``columns`` in the uncited document (None when nothing is uncited)."""
        if not self.uncited:
            return None
        return mix(np.full(len(columns[0]), UNCITED, dtype=np.int64), *columns)

    def has_node(self, docs: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Per row: some live prediction of its document (or citing none) has the node as an
        end."""
        if self._nodes is None:  # built when first asked: most misses land before this
            self._nodes = self._end_codes()
        found = member(mix(docs, nodes), self._nodes, ready=True)
        if self.uncited:
            found |= member(
                mix(np.full(len(nodes), UNCITED, np.int64), nodes), self._nodes, ready=True
            )
        return found

    def _end_codes(self) -> np.ndarray:
        """The distinct (document, node) codes of every live prediction's two ends."""
        m, p, rows = self._view.score.matching, self._view.predicted, self.rows
        return distinct_mixed(m.pred_doc[rows], p.subject_node[rows], p.object_node[rows])
