"""Examples: a few misses per bucket, each with the nearest prediction and why it landed there."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openodke.eval.diagnosis.models import DiagnosisExample
from openodke.eval.diagnosis.saturation import Saturation
from openodke.eval.diagnosis.view import Columns, DiagnosisView
from openodke.types import Fact

__all__ = ["Explainer", "pick"]


def pick(rows: Sequence[Any], doc_of: Any, k: int) -> list[Any]:
    """Up to ``k`` rows in their order: one per document first, then the next ones in order."""
    if k <= 0:
        return []
    chosen: list[int] = []
    seen: set[str] = set()
    for n, row in enumerate(rows):
        doc = doc_of(row)
        if doc not in seen:
            seen.add(doc)
            chosen.append(n)
            if len(chosen) == k:
                break
    if len(chosen) < k:
        taken = set(chosen)
        chosen.extend([n for n in range(len(rows)) if n not in taken][: k - len(chosen)])
    return [rows[n] for n in sorted(chosen)]


def _fact_text(fact: Fact) -> str:
    cols = Columns.of([fact], [fact.doc_ids])
    return cols.text(0)


class Explainer:
    """Builds the examples of each bucket."""

    def __init__(
        self,
        view: DiagnosisView,
        refused: list[tuple[Fact, str | None]] | None,
        refused_cols: Columns,
        confirmed: dict[tuple[str, str], Fact] | None,
        cross_reason: Any = None,
    ) -> None:
        self.cross_reason = cross_reason
        self.view, self.refused, self.refused_cols, self.confirmed = (
            view,
            refused,
            refused_cols,
            confirmed,
        )

    def recall(
        self,
        name: str,
        rows: list[tuple[int, int | None, str]],
        k: int,
        fit: Saturation,
        lengths: dict[int, int],
    ) -> list[DiagnosisExample]:
        """Examples of one recall bucket."""
        g, p = self.view.gold, self.view.predicted
        gold_doc = self.view.score.matching.gold_doc
        out = []
        for i, near, _ in pick(rows, lambda r: g.docs[r[0]][0], k):
            doc = g.docs[i][0]
            nearest = None
            if name == "refused" and near is not None:
                nearest = self.refused_cols.text(near)
            elif name == "surface_form" and near == -2 and self.confirmed is not None:
                nearest = _fact_text(self.confirmed[(doc, g.key[i])])
            elif near is not None and near >= 0:
                nearest = p.text(near)
            why = self._why(name, i, near, fit, lengths.get(int(gold_doc[i]), 0))
            out.append(DiagnosisExample(doc_id=doc, gold=g.text(i), nearest=nearest, why=why))
        return out

    def _why(self, name: str, i: int, near: int | None, fit: Saturation, length: int) -> str:
        g, p = self.view.gold, self.view.predicted
        if name == "never_offered":
            return f"not offered for {g.subject_type[i]}"
        if name == "refused":
            reason = self.refused[near][1] if self.refused and near is not None else None
            return f"refused: {reason}" if reason else "the gate refused it"
        if name == "wrong_relation" and near is not None:
            return f"written as {p.predicate[near].replace('_', ' ')}"
        if name == "inverse":
            return "written the other way round"
        if name == "surface_form":
            if near is None or near < 0:
                return "a judge said same"
            differs = p.obj[near] != g.obj[i]
            written = (p.object_names if differs else p.subject_names)[near]
            return f"unconfirmed: written as {written[0] if written else '?'}"
        if name == "scored_apart" and near is not None:
            return self._apart(i, near)
        if name == "cross_sentence":
            return self.cross_reason(i) if self.cross_reason else "the evidence spans sentences"
        if name == "saturation":
            return f"{length:,} words, over the median {fit.median_length:,.0f}; output is flat"
        if name == "linked_other" and near is not None:
            return f"linked as {p.predicate[near].replace('_', ' ')}"
        if name == "entity_missing":
            return "an end is in no prediction for the document"
        return "both ends extracted, never in one prediction"

    def _apart(self, i: int, j: int) -> str:
        g, p = self.view.gold, self.view.predicted
        if p.subject_type[j] != g.subject_type[i]:
            return f"typed {p.subject_type[j]}, not {g.subject_type[i]}"
        if p.polarity[j] != g.polarity[i]:
            return f"polarity {p.polarity[j]}, not {g.polarity[i]}"
        if p.scoped[j] != g.scoped[i]:
            return "identity qualifiers differ"
        if p.key[j] != g.key[i]:
            return "the object's kind differs"
        return "paired with another gold fact"

    def precision(self, name: str, rows: list[int], k: int) -> list[DiagnosisExample]:
        """Examples of one precision class: the false positive, and the gold it displaced."""
        m = self.view.score.matching
        docs = m.documents
        out = []
        if name == "refused_not_in_gold":
            cols = self.refused_cols
            for r in pick(rows, lambda r: cols.docs[r][0] if cols.docs[r] else "", k):
                reason = self.refused[r][1] if self.refused else None
                out.append(
                    DiagnosisExample(
                        doc_id=cols.docs[r][0] if cols.docs[r] else "",
                        gold=cols.text(r),
                        why=f"refused: {reason}" if reason else "refused, and not in gold",
                    )
                )
            return out
        p, g = self.view.predicted, self.view.gold
        pred_doc = m.pred_doc.tolist()
        partner = m.pred_partner.tolist()

        def doc_of(j: int) -> str:
            return docs[pred_doc[j]] if pred_doc[j] >= 0 else (p.docs[j][0] if p.docs[j] else "")

        for j in pick(rows, doc_of, k):
            nearest = g.text(partner[j]) if partner[j] >= 0 else None
            why = "supported by its passage" if name == "written_supported" else "not in gold"
            if nearest is not None:
                why = "in place of a gold fact"
            out.append(DiagnosisExample(doc_id=doc_of(j), gold=p.text(j), nearest=nearest, why=why))
        return out
