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

from typing import Any

import numpy as np

from openodke.eval.diagnosis.cross import CrossSentence
from openodke.eval.diagnosis.index import PredictionIndex, lookup_form
from openodke.eval.diagnosis.inputs import inverse_pairs
from openodke.eval.diagnosis.models import Rate, Replay
from openodke.eval.diagnosis.saturation import Saturation
from openodke.eval.diagnosis.view import Columns, DiagnosisView
from openodke.eval.engine.matching import DUPLICATE, HIT, UNSCORED, MatchKey, encode_key
from openodke.eval.stages.extract import KeyRows, PredictionKeyRows, score_keys

__all__ = ["derived_inverses", "rates_and_replays", "replay"]


def _precision(counts: dict[str, int]) -> float | None:
    n = counts["tp"] + counts["fp"]
    return counts["tp"] / n if n else None


def _recall(counts: dict[str, int]) -> float | None:
    n = counts["tp"] + counts["fn"]
    return counts["tp"] / n if n else None


def _scored_doc(cited: tuple[str, ...], doc_index: dict[str, int]) -> int:
    """Where matching scores a fact: its first labelled document (-1: none cited; -2: none
    labelled, so unscored)."""
    if not cited:
        return -1
    for doc in cited:
        d = doc_index.get(doc)
        if d is not None:
            return d
    return -2


def replay(view: DiagnosisView, docs: list[tuple[str, ...]], keys: list[str]) -> Replay:
    """The row's predictions plus ``keys`` (citing ``docs``), rescored; repeats left out.

    When no prediction, old or added, cites nothing, the rescore is reckoned without rerunning
    the matcher, and exactly: only pass 1 (equal identity in one document) makes hits, and adding
    facts with new identities leaves every earlier exact pair in place, so the added facts that
    equal a gold fact no prediction had found are the new hits; every other added fact is a false
    positive (spurious or wrong, both count so) and every gold fact not hit stays a miss. A fact
    citing no document is matched against gold anywhere, so then the matcher is rerun.
    """
    m = view.score.matching
    p = view.predicted
    doc_index = {doc: d for d, doc in enumerate(m.documents)}
    pred_doc, pred_status = m.pred_doc.tolist(), m.pred_status.tolist()
    uncited = any(d == -1 and st != UNSCORED for d, st in zip(pred_doc, pred_status, strict=True))
    have = {(d, k) for d, k in zip(pred_doc, p.key, strict=True) if d >= 0}
    extra: list[tuple[int, tuple[str, ...], str]] = []
    for cited, key in zip(docs, keys, strict=True):
        d = _scored_doc(cited, doc_index)
        uncited = uncited or d == -1
        if d == -1 or (d, key) not in have:
            have.add((d, key))
            extra.append((d, cited, key))
    before = m.counts()
    if uncited:
        gold = KeyRows([d[0] for d in view.gold.docs], view.gold.key)
        after = score_keys(
            gold,
            PredictionKeyRows(
                [*p.docs, *(c for _, c, _ in extra)], [*p.key, *(k for *_, k in extra)]
            ),
            m.documents,
        ).matching.counts()
    else:
        unfound = {
            (d, k)
            for d, k, st in zip(
                m.gold_doc.tolist(), view.gold.key, m.gold_status.tolist(), strict=True
            )
            if st not in (HIT, DUPLICATE)
        }
        scored = [(d, k) for d, _, k in extra if d >= 0]
        found = sum((d, k) in unfound for d, k in scored)
        after = {
            "tp": before["tp"] + found,
            "fp": before["fp"] + len(scored) - found,
            "fn": before["fn"] - found,
        }
    return Replay(
        added=sum(d != -2 for d, _, _ in extra),
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
    cross: CrossSentence | None,
    fit: Saturation,
    lengths: dict[int, int],
    refused: Columns | None,
    inverses: Any,
) -> tuple[dict[str, Rate | None], dict[str, Replay | None]]:
    """The four rates and the two replays (None where the run cannot say)."""
    m = view.score.matching
    g = view.gold
    scored = m.gold_status != DUPLICATE
    hit = m.gold_status == HIT
    masks: dict[str, np.ndarray] = {"row": scored}
    if forms is not None:
        # Once per (type, predicate): a run has few of each.
        offered: dict[tuple[str, str], bool] = {}
        for pair in zip(g.subject_type, g.predicate, strict=True):
            if pair not in offered:
                allowed = forms.get(lookup_form(pair[0]))
                offered[pair] = bool(allowed) and lookup_form(pair[1]) in allowed  # type: ignore[operator]
        masks["offered"] = scored & np.fromiter(
            (offered[pair] for pair in zip(g.subject_type, g.predicate, strict=True)),
            bool,
            len(g.key),
        )
    if cross is not None:
        answers = cross.answers()
        masks["same_sentence"] = scored & np.fromiter(
            (a is False for a in answers), bool, len(answers)
        )
    if fit.measured:
        short = np.zeros(len(m.documents) + 1, dtype=bool)  # the last slot: no text
        for d, length in lengths.items():
            short[d] = not fit.is_long(length)
        known = np.asarray([d if d in lengths else -1 for d in range(len(m.documents))])
        masks["short_documents"] = scored & short[known[m.gold_doc]] if len(known) else scored
    tallies = {name: (int((hit & mask).sum()), int(mask.sum())) for name, mask in masks.items()}
    for name in ("offered", "same_sentence", "short_documents"):
        tallies.setdefault(name, (0, 0))
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
