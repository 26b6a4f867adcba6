"""The precision side: each false positive in one class, and what the gate caught.

A false positive is a written prediction scored spurious, wrong value or wrong entity. It is
``written_supported`` when grounding stamped it supported (measured only when some prediction
carries a verdict other than ``unchecked``), else ``written_other``. ``refused_not_in_gold`` counts
the refused facts whose identity is in no gold fact of the document they are scored in (any
document, for one citing none); null without ``validator``. Shares are over the side's measured
total.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from openodke.eval.diagnosis.index import Live
from openodke.eval.diagnosis.models import LABELS, PRECISION_BUCKETS, Bucket
from openodke.eval.diagnosis.refused import Refused
from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.engine.joins import member, mix
from openodke.eval.engine.keyhash import VERDICTS
from openodke.eval.engine.matching import SPURIOUS, WRONG_ENTITY, WRONG_VALUE

if TYPE_CHECKING:
    from openodke.eval.diagnosis.explain import Explainer

__all__ = ["NULL_NOTES", "Refused", "false_positives", "precision_buckets"]

NULL_NOTES = {
    "refused_not_in_gold": "needs --validator: what the gate refused",
    "written_supported": "no prediction carries a grounding verdict",
}
_UNCHECKED, _SUPPORTED = VERDICTS.index("unchecked"), VERDICTS.index("supported")


def false_positives(view: DiagnosisView, live: Live) -> dict[str, np.ndarray]:
    """The written false positives, by class; ``written_supported`` absent when unmeasured."""
    m = view.score.matching
    rows = live.rows
    verdicts = view.predicted.verdict[rows]
    graded = bool(np.any(verdicts != _UNCHECKED))
    status = m.pred_status[rows]
    wrong = (status == SPURIOUS) | (status == WRONG_VALUE) | (status == WRONG_ENTITY)
    supported = wrong & (verdicts == _SUPPORTED) if graded else np.zeros(len(rows), dtype=bool)
    found = {"written_supported": rows[supported], "written_other": rows[wrong & ~supported]}
    if not graded:
        found.pop("written_supported")
    return found


def precision_buckets(
    view: DiagnosisView,
    fp_rows: dict[str, np.ndarray],
    refused: Refused | None,
    explain: Explainer,
    examples: int,
) -> list[Bucket]:
    """The three precision-side buckets (the gate's catches null without ``validator``)."""
    m = view.score.matching
    caught: np.ndarray | None = None
    if refused is not None:
        codes, rows = refused.first_codes()
        doc = refused.doc[rows]
        in_doc = member(codes, mix(m.gold_doc, view.gold.keys.key))
        anywhere = member(refused.key[rows], view.gold.keys.key)
        caught = rows[np.where(doc >= 0, ~in_doc, ~anywhere)]
    counts: dict[str, np.ndarray | None] = {
        "refused_not_in_gold": caught,
        "written_supported": fp_rows.get("written_supported"),
        "written_other": fp_rows["written_other"],
    }
    total = sum(len(v) for v in counts.values() if v is not None)
    out = []
    for name in PRECISION_BUCKETS:
        found = counts[name]
        count = None if found is None else len(found)
        shown = found if found is not None else np.empty(0, dtype=np.int64)
        out.append(
            Bucket(
                bucket=name,
                side="precision",
                label=LABELS[name],
                count=count,
                share=None if count is None or not total else count / total,
                examples=tuple(explain.precision(name, shown, examples)),
                note=NULL_NOTES.get(name) if count is None else None,
            )
        )
    return out
