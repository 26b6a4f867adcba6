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

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from openodke.eval.diagnosis.cross import CrossSentence
from openodke.eval.diagnosis.index import Live, lookup_form
from openodke.eval.diagnosis.inputs import inverse_pairs
from openodke.eval.diagnosis.models import Rate, Replay
from openodke.eval.diagnosis.saturation import Saturation
from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.engine.joins import first_of_each, member, mix
from openodke.eval.engine.key_table import DocColumn, KeyTable
from openodke.eval.engine.match_key import MatchKey, encode_key
from openodke.eval.engine.matching import (
    DUPLICATE,
    HIT,
    UNSCORED,
    match_keys,
    scored_documents,
)

if TYPE_CHECKING:
    from openodke.eval.diagnosis.precision import Refused
    from openodke.eval.engine.columns import FactColumns

__all__ = ["derived_inverses", "rates_and_replays", "replay"]


def _precision(counts: dict[str, int]) -> float | None:
    n = counts["tp"] + counts["fp"]
    return counts["tp"] / n if n else None


def _recall(counts: dict[str, int]) -> float | None:
    n = counts["tp"] + counts["fn"]
    return counts["tp"] / n if n else None


def replay(
    view: DiagnosisView,
    docs: DocColumn | Sequence[tuple[str, ...]],
    keys: KeyTable | Sequence[str],
    *,
    columns: FactColumns | None = None,
) -> Replay:
    """The row's predictions plus ``keys`` (citing ``docs``; ``columns`` their rows, when they
    are a side's, so identity reads them as it read the predictions), rescored; repeats left out.

    When no prediction, old or added, cites nothing, the rescore is reckoned without rerunning
    the matcher, and exactly: only pass 1 (equal identity in one document) makes hits, and adding
    facts with new identities leaves every earlier exact pair in place, so the added facts that
    equal a gold fact no prediction had found are the new hits; every other added fact is a false
    positive (spurious or wrong, both count so) and every gold fact not hit stays a miss. A fact
    citing no document is matched against gold anywhere, so then the matcher is rerun.
    """
    cited = docs if isinstance(docs, DocColumn) else DocColumn.of_cited(list(docs))
    table = keys if isinstance(keys, KeyTable) else KeyTable.of(list(keys))
    aligner = view.score.aligner
    if aligner is not None:  # compared as the row's predictions were (type map, untyped ends)
        types = view.predicted.types if columns is None else columns.types
        table = aligner.keys(table, cited, types, columns)
    m = view.score.matching
    ng = len(m.gold_status)
    pred_key = m.rows.key[ng:]
    d = scored_documents(cited, m.doc_ids)
    uncited = bool(np.any((m.pred_doc == -1) & (m.pred_status != UNSCORED))) or bool(
        np.any(d == -1)
    )
    codes = mix(d, table.key)
    scored = m.pred_doc >= 0
    have = mix(m.pred_doc[scored], pred_key[scored])
    # Each (document, key) once, unless it cites nothing (those are all added).
    fresh = np.flatnonzero((d != -1) & ~member(codes, have))
    order = np.argsort(codes[fresh], kind="stable")
    fresh = fresh[order][first_of_each(codes[fresh][order])]
    kept = np.sort(np.concatenate([fresh, np.flatnonzero(d == -1)]))
    before = m.counts()
    if uncited:
        after = match_keys(
            view.gold.docs,
            view.gold.keys,
            DocColumn.concat([view.predicted.docs, cited.take(kept)]),
            KeyTable.concat([view.predicted.keys, table.take(kept)]),
            m.doc_ids,
        ).counts()
    else:
        unfound = (m.gold_status != HIT) & (m.gold_status != DUPLICATE)
        added = kept[d[kept] >= 0]
        found = int(
            np.count_nonzero(member(codes[added], mix(m.gold_doc, m.rows.key[:ng])[unfound]))
        )
        after = {
            "tp": before["tp"] + found,
            "fp": before["fp"] + len(added) - found,
            "fn": before["fn"] - found,
        }
    return Replay(
        added=int(np.count_nonzero(d[kept] != -2)),
        found=after["tp"] - before["tp"],
        recall_before=_recall(before),
        recall_after=_recall(after),
        precision_before=_precision(before),
        precision_after=_precision(after),
    )


def derived_inverses(
    view: DiagnosisView, live: Live, implied: dict[str, tuple[str, ...]]
) -> tuple[DocColumn, KeyTable]:
    """The reversed facts the inverse step would add: their cited documents and keys."""
    p, said = view.predicted, view.predicted_ends
    forms = {lookup_form(k): v for k, v in implied.items()}
    names = p.keys.predicates
    implies = {h: forms.get(lookup_form(name), ()) for h, name in names.items()}
    rows = live.rows[~p.keys.literal[live.rows]]
    rows = rows[
        np.fromiter((bool(implies[h]) for h in p.keys.predicate[rows].tolist()), bool, len(rows))
    ]
    parts: tuple[list[Any], ...] = ([], [], [], [], [], [], [], [])
    taken: list[int] = []
    said.load(rows.tolist())
    for j in rows.tolist():
        fact = said.fact(j)
        target = fact.object_entity
        if target is None:
            continue
        polarity = p.polarity[j]
        for q in implies[int(p.keys.predicate[j])]:
            values = (
                q,
                target.key,
                target.type or "",
                fact.subject.key,
                fact.subject.type,
                False,
                _POLARITY[polarity],
                "",
            )
            for column, value in zip(parts, values, strict=True):
                column.append(value)
            taken.append(j)
    said.forget()
    # With the key strings, so the aligner can read untyped `Type:name` keys (DECISIONS 123).
    strings = [
        encode_key(MatchKey(q, sk, st, False, ok, ot, pol, ()))
        for q, sk, st, ok, ot, _, pol, _ in zip(*parts, strict=True)
    ]
    table = KeyTable.of_parts(parts, strings)  # type: ignore[arg-type]
    return p.docs.take(np.asarray(taken, dtype=np.int64)), table


_POLARITY = ("asserted", "denied", "partial")


def rates_and_replays(
    view: DiagnosisView,
    live: Live,
    *,
    forms: dict[str, frozenset[str]] | None,
    cross: CrossSentence | None,
    fit: Saturation,
    lengths: dict[int, int],
    refused: Refused | None,
    inverses: Any,
) -> tuple[dict[str, Rate | None], dict[str, Replay | None]]:
    """The four rates and the two replays (None where the run cannot say)."""
    m = view.score.matching
    g, ends = view.gold, view.gold_ends
    scored = m.gold_status != DUPLICATE
    hit = m.gold_status == HIT
    masks: dict[str, np.ndarray] = {"row": scored}
    if forms is not None:
        # Once per (type, predicate): a run has few of each.
        pairs = mix(g.subject_type, g.keys.predicate)
        distinct, first, inverse = np.unique(pairs, return_index=True, return_inverse=True)
        offered = np.empty(len(distinct), dtype=bool)
        for k, i in enumerate(first.tolist()):
            allowed = forms.get(lookup_form(ends.subject_type(i)))
            offered[k] = bool(allowed) and lookup_form(ends.predicate(i)) in allowed  # type: ignore[operator]
        masks["offered"] = scored & offered[inverse.reshape(-1)]
    if cross is not None:
        masks["same_sentence"] = scored & (cross.answers() == 0)
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
        replays["audit"] = replay(
            view, refused.columns.docs, refused.columns.keys, columns=refused.columns
        )
    implied = inverse_pairs(inverses) if inverses is not None else {}
    if implied:
        replays["inverses"] = replay(view, *derived_inverses(view, live, implied))
    return rates, replays
