"""Examples: a few misses per bucket, each with the nearest prediction and why it landed there.

Only the examples are read in words (:class:`~openodke.eval.diagnosis.names.Ends`): a bucket of
100,000 misses reads the three it shows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from openodke.eval.diagnosis.models import DiagnosisExample
from openodke.eval.diagnosis.names import Ends, scoped_of
from openodke.eval.diagnosis.saturation import Saturation
from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.engine.columns import FactColumns
from openodke.eval.engine.fold import fold
from openodke.eval.engine.joins import first_of_each, mix
from openodke.eval.engine.keyhash import POLARITIES
from openodke.eval.engine.near import KINDS

if TYPE_CHECKING:
    from openodke.eval.diagnosis.refused import Refused

__all__ = ["Explainer", "pick"]

CONFIRMED = -2  # as place.CONFIRMED: a judge said same


def pick(docs: np.ndarray, k: int) -> np.ndarray:
    """Up to ``k`` positions of rows (whose documents are ``docs``, in order): one per document
    first, then the next ones in order; returned in order."""
    if k <= 0 or not len(docs):
        return np.empty(0, dtype=np.int64)
    order = np.argsort(docs, kind="stable")
    firsts = np.sort(order[first_of_each(docs[order])])[:k]
    if len(firsts) < k:
        rest = np.setdiff1d(np.arange(len(docs)), firsts, assume_unique=True)
        firsts = np.sort(np.concatenate([firsts, rest[: k - len(firsts)]]))
    return firsts


def _fact_text(fact: Any) -> str:
    ends = Ends(FactColumns.of_facts([fact]))
    return ends.text(0)


class Explainer:
    """Builds the examples of each bucket."""

    def __init__(
        self,
        view: DiagnosisView,
        refused: Refused | None,
        judged: dict[int, Any] | None,
        cross_reason: Callable[[int], str] | None = None,
    ) -> None:
        self.view, self.refused, self.judged = view, refused, judged
        self.cross_reason = cross_reason

    def recall(
        self,
        name: str,
        rows: np.ndarray,
        near: np.ndarray,
        k: int,
        fit: Saturation,
        lengths: dict[int, int],
    ) -> list[DiagnosisExample]:
        """Examples of one recall bucket: ``rows`` its misses, ``near`` their nearest rows."""
        m = self.view.score.matching
        gold, said = self.view.gold_ends, self.view.predicted_ends
        chosen = pick(m.gold_doc[rows], k)
        out = []
        for i, j in zip(rows[chosen].tolist(), near[chosen].tolist(), strict=True):
            d = int(m.gold_doc[i])
            doc = m.documents[d]
            nearest = None
            if name == "refused" and j >= 0 and self.refused is not None:
                nearest = self.refused.ends.text(j)
            elif name == "surface_form" and j == CONFIRMED and self.judged is not None:
                code = int(self._judged_code(i))
                nearest = _fact_text(self.judged[code])
            elif j >= 0 and name != "refused":
                nearest = said.text(j)
            why = self._why(name, i, j, fit, lengths.get(d, 0))
            out.append(DiagnosisExample(doc_id=doc, gold=gold.text(i), nearest=nearest, why=why))
        return out

    def _judged_code(self, i: int) -> int:
        m, g = self.view.score.matching, self.view.gold
        return int(mix(m.gold_doc[i : i + 1], g.keys.key[i : i + 1])[0])

    def _why(self, name: str, i: int, j: int, fit: Saturation, length: int) -> str:
        gold, said = self.view.gold_ends, self.view.predicted_ends
        if name == "other_type_or_key":
            return self._near(i, j)
        if name == "never_offered":
            return f"not offered for {gold.subject_type(i)}"
        if name == "refused":
            reason = self.refused.reason(j) if self.refused is not None and j >= 0 else None
            return f"refused: {reason}" if reason else "the gate refused it"
        if name == "wrong_relation" and j >= 0:
            return f"written as {said.predicate(j).replace('_', ' ')}"
        if name == "inverse":
            return "written the other way round"
        if name == "surface_form":
            if j < 0:
                return "a judge said same"
            differs = self.view.predicted.object_node[j] != self.view.gold.object_node[i]
            written = said.names(j, not differs)
            return f"unconfirmed: written as {written[0] if written else '?'}"
        if name == "scored_apart" and j >= 0:
            return self._apart(i, j)
        if name == "cross_sentence":
            return self.cross_reason(i) if self.cross_reason else "the evidence spans sentences"
        if name == "saturation":
            return f"{length:,} words, over the median {fit.median_length:,.0f}; output is flat"
        if name == "linked_other" and j >= 0:
            return f"linked as {said.predicate(j).replace('_', ' ')}"
        if name == "entity_missing":
            return "an end is in no prediction for the document"
        return "both ends extracted, never in one prediction"

    def _near(self, i: int, j: int) -> str:
        """Why a near miss (:mod:`~openodke.eval.engine.near`) did not match, in words."""
        kind = KINDS[int(self.view.score.near.kind_of(np.array([i]))[0])]
        gold, said = self.view.gold_ends.fact(i), self.view.predicted_ends.fact(j)
        if kind == "predicate":
            return f"written as {said.predicate}, not {gold.predicate}"
        if kind == "document":
            m, docs = self.view.score.matching, self.view.predicted.docs
            written = docs.names[int(docs.hashes[j])]
            return f"cites document {written}, not {m.documents[int(m.gold_doc[i])]}"
        ends = [(gold.subject, said.subject)]
        if gold.object_entity is not None and said.object_entity is not None:
            ends.append((gold.object_entity, said.object_entity))
        for ours, theirs in ends:
            if kind == "type" and fold(ours.type) != fold(theirs.type):
                return f"typed {theirs.type}, not {ours.type} (--type-map)"
            if kind == "key" and (fold(ours.key), ours.type) != (fold(theirs.key), theirs.type):
                return f"keyed {theirs.key} ({theirs.type}), not {ours.key} ({ours.type})"
        return f"another {kind}"

    def _apart(self, i: int, j: int) -> str:
        g, p = self.view.gold, self.view.predicted
        gold, said = self.view.gold_ends, self.view.predicted_ends
        if p.subject_type[j] != g.subject_type[i]:
            return f"typed {said.subject_type(j)}, not {gold.subject_type(i)}"
        if p.polarity[j] != g.polarity[i]:
            return f"polarity {POLARITIES[p.polarity[j]]}, not {POLARITIES[g.polarity[i]]}"
        if scoped_of(said.fact(j)) != scoped_of(gold.fact(i)):
            return "identity qualifiers differ"
        if p.keys.key[j] != g.keys.key[i]:
            return "the object's kind differs"
        return "paired with another gold fact"

    def precision(self, name: str, rows: np.ndarray, k: int) -> list[DiagnosisExample]:
        """Examples of one precision class: the false positive, and the gold it displaced."""
        m = self.view.score.matching
        out: list[DiagnosisExample] = []
        if name == "refused_not_in_gold":
            refused = self.refused
            if refused is None:
                return out
            cited = refused.columns.docs
            docs = np.where(cited.present[rows], cited.hashes[rows], 0)
            for r in rows[pick(docs, k)].tolist():
                doc = cited.names[int(cited.hashes[r])] if cited.present[r] else ""
                reason = refused.reason(r)
                out.append(
                    DiagnosisExample(
                        doc_id=doc,
                        gold=refused.ends.text(r),
                        why=f"refused: {reason}" if reason else "refused, and not in gold",
                    )
                )
            return out
        gold, said = self.view.gold_ends, self.view.predicted_ends
        cited = self.view.predicted.docs
        scored = m.pred_doc[rows]
        # A false positive's document: where it was scored, else the first it cites (none: "").
        keys = np.where(scored >= 0, scored, -1)
        for j in rows[pick(keys, k)].tolist():
            d = int(m.pred_doc[j])
            if d >= 0:
                doc = m.documents[d]
            else:
                doc = cited.names[int(cited.hashes[j])] if cited.present[j] else ""
            partner = int(m.pred_partner[j])
            nearest = gold.text(partner) if partner >= 0 else None
            why = "supported by its passage" if name == "written_supported" else "not in gold"
            if nearest is not None:
                why = "in place of a gold fact"
            out.append(DiagnosisExample(doc_id=doc, gold=said.text(j), nearest=nearest, why=why))
        return out
