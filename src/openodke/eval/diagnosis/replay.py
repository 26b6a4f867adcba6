"""What the fixes' expectations read: recall over subsets of the gold, and exact replays.

Rates (``Diagnosis.rates``), each hits of gold facts:

- ``row``: every gold fact (the row's recall);
- ``offered``: gold facts whose relation was offered for their subject's type;
- ``same_sentence``: gold facts whose evidence lies in one sentence (the cross-sentence rule says no);
- ``short_documents``: gold facts of documents no longer than the median (the saturation fit's).

Replays (``Diagnosis.replays``), each the row's predictions with facts added and rescored by the same
matcher: ``audit`` adds every refused fact (accept every refusal); ``inverses`` adds, for each
prediction whose relation implies another the other way round, that reversed fact (the inverse
step), unless the prediction set already holds it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from openodke.eval.diagnosis.index import PredictionIndex
from openodke.eval.diagnosis.inputs import inverse_pairs
from openodke.eval.diagnosis.models import Rate, Replay
from openodke.eval.diagnosis.saturation import Saturation
from openodke.eval.diagnosis.view import Columns, DiagnosisView
from openodke.eval.extract import KeyRows, PredictionKeyRows, score_keys
from openodke.eval.matching import DUPLICATE, HIT, MatchKey, encode_key
from openodke.ontology import lookup_form

__all__ = ["derived_inverses", "rates_and_replays", "replay"]


def _precision(counts: dict[str, int]) -> float | None:
    n = counts["tp"] + counts["fp"]
    return counts["tp"] / n if n else None


def _recall(counts: dict[str, int]) -> float | None:
    n = counts["tp"] + counts["fn"]
    return counts["tp"] / n if n else None


def replay(view: DiagnosisView, docs: list[tuple[str, ...]], keys: list[str]) -> Replay:
    """The row's predictions plus ``keys`` (citing ``docs``; repeats of a prediction left out)."""
    p = view.predicted
    have = {(d[:1], k) for d, k in zip(p.docs, p.key, strict=True)}
    extra_docs, extra_keys = [], []
    for cited, key in zip(docs, keys, strict=True):
        if (cited[:1], key) not in have:
            have.add((cited[:1], key))
            extra_docs.append(cited)
            extra_keys.append(key)
    m = view.score.matching
    gold = KeyRows([d[0] for d in view.gold.docs], view.gold.key)
    after = score_keys(
        gold,
        PredictionKeyRows([*p.docs, *extra_docs], [*p.key, *extra_keys]),
        m.documents,
    ).matching.counts()
    before = m.counts()
    return Replay(
        added=len(extra_keys),
        found=after["tp"] - before["tp"],
        recall_before=_recall(before),
        recall_after=_recall(after),
        precision_before=_precision(before),
        precision_after=_precision(after),
    )


def derived_inverses(
    view: DiagnosisView, index: PredictionIndex, implied: dict[str, tuple[str, ...]]
) -> tuple[list[tuple[str, ...]], list[str]]:
    """The reversed facts the inverse step would add: (cited documents, key) for each."""
    p = view.predicted
    forms = {lookup_form(k): v for k, v in implied.items()}
    docs: list[tuple[str, ...]] = []
    keys: list[str] = []
    for j in index.live:
        if p.obj[j][0] != "E" or p.object_type[j] is None:
            continue
        for q in forms.get(lookup_form(p.predicate[j]), ()):
            key = MatchKey(
                q, p.obj[j][1:], p.object_type[j] or "", False, p.subject[j][1:], p.polarity[j], ()
            )
            docs.append(p.docs[j])
            keys.append(encode_key(key))
    return docs, keys


def rates_and_replays(
    view: DiagnosisView,
    index: PredictionIndex,
    *,
    forms: dict[str, frozenset[str]] | None,
    cross: Callable[[int], bool | None] | None,
    fit: Saturation,
    lengths: dict[int, int],
    refused: Columns | None,
    inverses: Any,
) -> tuple[dict[str, Rate | None], dict[str, Replay | None]]:
    """The four rates and the two replays (None where the run cannot say)."""
    m = view.score.matching
    g = view.gold
    status = m.gold_status.tolist()
    gold_doc = m.gold_doc.tolist()
    tallies = {name: [0, 0] for name in ("row", "offered", "same_sentence", "short_documents")}
    for i, st in enumerate(status):
        if st == DUPLICATE:
            continue
        hit = st == HIT
        chosen = ["row"]
        if forms is not None:
            allowed = forms.get(lookup_form(g.subject_type[i]))
            if allowed and lookup_form(g.predicate[i]) in allowed:
                chosen.append("offered")
        if cross is not None and cross(i) is False:
            chosen.append("same_sentence")
        if fit.measured and gold_doc[i] in lengths and not fit.is_long(lengths[gold_doc[i]]):
            chosen.append("short_documents")
        for name in chosen:
            tallies[name][0] += hit
            tallies[name][1] += 1
    available = {
        "row": True,
        "offered": forms is not None,
        "same_sentence": cross is not None,
        "short_documents": fit.measured,
    }
    rates = {
        name: Rate(hits=h, of=n) if available[name] else None for name, (h, n) in tallies.items()
    }
    replays: dict[str, Replay | None] = {"audit": None, "inverses": None}
    if refused is not None:
        replays["audit"] = replay(view, refused.docs, refused.key)
    implied = inverse_pairs(inverses) if inverses is not None else {}
    if implied:
        replays["inverses"] = replay(view, *derived_inverses(view, index, implied))
    return rates, replays
