"""The precision side: each false positive in one class, and what the gate caught.

A false positive is a written prediction scored spurious, wrong value or wrong entity. It is
``written_supported`` when grounding stamped it supported (measured only when some prediction
carries a verdict other than ``unchecked``), else ``written_other``. ``refused_not_in_gold`` counts
the refused facts whose identity is in no gold fact of the document they are scored in (any
document, for one citing none); null without ``validator``. Shares are over the side's measured
total.
"""

from __future__ import annotations

from typing import Any

from openodke.eval.diagnosis.explain import Explainer
from openodke.eval.diagnosis.index import PredictionIndex
from openodke.eval.diagnosis.models import LABELS, PRECISION_BUCKETS, Bucket
from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.engine.matching import SPURIOUS, WRONG_ENTITY, WRONG_VALUE

__all__ = ["NULL_NOTES", "false_positives", "precision_buckets"]

NULL_NOTES = {
    "refused_not_in_gold": "needs --validator: what the gate refused",
    "written_supported": "no prediction carries a grounding verdict",
}


def false_positives(view: DiagnosisView, index: PredictionIndex) -> dict[str, list[int]]:
    """The written false positives, by class; ``written_supported`` absent when unmeasured."""
    m = view.score.matching
    status = m.pred_status.tolist()
    verdicts = view.predicted.verdict
    graded = any(verdicts[j] != "unchecked" for j in index.live)
    rows: dict[str, list[int]] = {"written_supported": [], "written_other": []}
    for j in index.live:
        if status[j] in (SPURIOUS, WRONG_VALUE, WRONG_ENTITY):
            supported = graded and verdicts[j] == "supported"
            rows["written_supported" if supported else "written_other"].append(j)
    if not graded:
        rows.pop("written_supported")
    return rows


def precision_buckets(
    view: DiagnosisView,
    fp_rows: dict[str, list[int]],
    refused_keys: dict[tuple[int, str], int],
    refused: list[Any] | None,
    explain: Explainer,
    examples: int,
) -> list[Bucket]:
    """The three precision-side buckets (the gate's catches null without ``validator``)."""
    m = view.score.matching
    gold_keys = {(d, k) for d, k in zip(m.gold_doc.tolist(), view.gold.key, strict=True)}
    all_gold = set(view.gold.key)
    caught: list[int] | None = None
    if refused is not None:
        caught = [
            r
            for (d, key), r in refused_keys.items()
            if ((d, key) not in gold_keys if d >= 0 else key not in all_gold)
        ]
    counts: dict[str, list[int] | None] = {
        "refused_not_in_gold": caught,
        "written_supported": fp_rows.get("written_supported"),
        "written_other": fp_rows["written_other"],
    }
    total = sum(len(v) for v in counts.values() if v is not None)
    out = []
    for name in PRECISION_BUCKETS:
        rows = counts[name]
        count = None if rows is None else len(rows)
        out.append(
            Bucket(
                bucket=name,
                side="precision",
                label=LABELS[name],
                count=count,
                share=None if count is None or not total else count / total,
                examples=tuple(explain.precision(name, rows or [], examples)),
                note=NULL_NOTES.get(name) if count is None else None,
            )
        )
    return out
