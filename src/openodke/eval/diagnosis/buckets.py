"""Each missed gold fact goes in the first bucket, in the spec's order, that its evidence fits.

DECISIONS #38. The buckets, in order, and the rule each applies to a miss (gold fact g = s·p·o in
document d; "a prediction" means a scored prediction of d, or one citing no document):

0. ``other_type_or_key``: a prediction that is not a hit would match g but for an entity's
   declared type, a key's form, the predicate's case or the document id's form (a near miss,
   :mod:`~openodke.eval.engine.near`; DECISIONS #110, #112). Always measured.
1. ``never_offered``: p is not among the relations ``offered`` showed for s's type (a type offered
   nothing counts). Null without ``offered``. It comes first even when a prediction wrote p: the
   trace, not the output, says what the extractor was shown.
2. ``refused``: the gate refused a prediction with g's exact identity in d. Null without
   ``validator``.
3. ``wrong_relation``: a prediction links s to o (this direction) with another relation, and that
   prediction is not itself a hit.
4. ``inverse``: a prediction links o to s (the other way round), with any relation, hit or not.
5. ``surface_form``: a prediction that is not a hit has p and g's polarity and one end equal by
   name key (accents, case and punctuation ignored), and its other end differs from g's and is g's
   in other words. With ``lenient``: a judge said ``same`` for g. Without: the other ends' name keys
   are equal, one contains the other as whole words, or they are 85% alike (rapidfuzz ratio); the
   label then says "(unconfirmed)".
6. ``scored_apart``: a prediction has s, p and o but differs in subject type, polarity or identity
   qualifiers, or paired with another gold fact.
7. ``cross_sentence``: no prediction links s and o either way, and the evidence spans sentences
   (see ``sentences``). Null with neither ``evidence`` nor ``texts``.
8. ``saturation``: no prediction links s and o, output is flat against length, and d is long (see
   ``saturation``). Null unless ``texts`` allow the regression.
9. ``linked_other``: a prediction that is a hit links s to o with another relation.
10. ``entity_missing``: s or o is an end of no prediction for d.
11. ``not_linked``: the rest: both ends are ends of predictions, never of one prediction (3, 4, 6 and
    9 take every miss whose ends share a prediction), so every miss lands in exactly one bucket.

A null bucket is skipped: its misses go on to the next bucket that fits.

False positives (predictions scored spurious, wrong value or wrong entity) split into
``written_supported`` (grounding stamped them supported; null when no prediction carries a
verdict), then ``written_other``; ``refused_not_in_gold`` counts the refused facts whose identity
is in no gold fact of their document (null without ``validator``). Shares on this side are over
the sum of its measured counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from openodke.doc_ids import under_names
from openodke.eval.diagnosis.cross import CrossSentence
from openodke.eval.diagnosis.explain import Explainer
from openodke.eval.diagnosis.index import Live, lookup_form
from openodke.eval.diagnosis.inputs import confirmed_pairs, refused_facts, text_map
from openodke.eval.diagnosis.models import (
    LABELS,
    RECALL_BUCKETS,
    Bucket,
    Diagnosis,
    Group,
    Offered,
)
from openodke.eval.diagnosis.place import Placed, Rules, misses_of, place
from openodke.eval.diagnosis.precision import Refused, false_positives, precision_buckets
from openodke.eval.diagnosis.replay import rates_and_replays
from openodke.eval.diagnosis.saturation import Saturation, saturation
from openodke.eval.diagnosis.sentences import SentenceEvidence
from openodke.eval.diagnosis.surface import ALIKE, alike, surface_rule
from openodke.eval.diagnosis.view import DiagnosisView
from openodke.eval.engine.joins import mix
from openodke.eval.engine.key_table import KeyTable
from openodke.eval.engine.matching import DUPLICATE, HIT
from openodke.eval.engine.pause import without_gc

if TYPE_CHECKING:  # a type only: file runs build no Document models
    from openodke.types import Document

__all__ = ["ALIKE", "Started", "alike", "diagnose"]

_NULL_NOTES = {
    "never_offered": "needs --trace: the run's manifest.json or the run config",
    "refused": "needs --validator: what the gate refused",
    "cross_sentence": "needs the dataset's evidence sentences, or the texts",
}


def _offered_forms(offered: Offered) -> dict[str, frozenset[str]]:
    return {lookup_form(t): frozenset(map(lookup_form, ps)) for t, ps in offered.by_type.items()}


def _saturation(
    view: DiagnosisView, live: Live, texts: dict[str, str]
) -> tuple[Saturation, dict[int, int]]:
    m = view.score.matching
    lengths = {d: len(texts[doc].split()) for d, doc in enumerate(m.documents) if doc in texts}
    gold_per_doc = np.bincount(m.gold_doc[m.gold_status != DUPLICATE], minlength=len(m.documents))
    docs = sorted(lengths)
    fit = saturation(
        [lengths[d] for d in docs],
        [int(live.per_document[d]) for d in docs],
        [int(gold_per_doc[d]) for d in docs],
    )
    return fit, lengths


def _refused_table(
    view: DiagnosisView, refused: Refused | None
) -> tuple[np.ndarray, np.ndarray] | None:
    """Sorted codes of (document, key) of the refused facts, each with its first refused row."""
    if refused is None:
        return None
    codes, rows = refused.first_codes()
    order = np.argsort(codes)
    return codes[order], rows[order]


def _confirmed(view: DiagnosisView, lenient: Iterable[Any] | None) -> tuple[Any, Any]:
    """Codes of (document, gold key) a judge confirmed, and code -> the prediction judged."""
    if lenient is None:
        return None, None
    pairs = confirmed_pairs(lenient)
    doc_index = {doc: d for d, doc in enumerate(view.documents)}
    items = [(doc_index.get(doc, -3), key, fact) for (doc, key), fact in pairs.items()]
    if not items:
        return np.empty(0, np.int64), {}
    keys = KeyTable.of([key for _, key, _ in items]).key
    codes = mix(np.array([d for d, _, _ in items], dtype=np.int64), keys)
    return codes, dict(zip(codes.tolist(), (fact for *_, fact in items), strict=True))


class Started:
    """What :func:`diagnose` may begin before it is called: the live index and, without a
    judge's answers, the surface-form rule in a child working ahead on every miss. A caller
    that has other work (the stage report) starts here, passes it to :func:`diagnose`, and
    closes it however it ends (a context manager)."""

    def __init__(self, view: DiagnosisView, *, judged: bool = False) -> None:
        self.view = view
        self.live = Live(view)
        ahead = None if judged else misses_of(view.score.matching)
        self.surface = surface_rule(view, self.live, ahead=ahead)

    def __enter__(self) -> Started:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the child working ahead, if it still runs."""
        self.surface.close()


@without_gc
def diagnose(
    view: DiagnosisView,
    *,
    offered: Offered | None = None,
    validator: Iterable[Any] | None = None,
    lenient: Iterable[Any] | None = None,
    inverses: Any = None,
    evidence: SentenceEvidence | None = None,
    texts: Mapping[str, str] | Iterable[Document] | None = None,
    examples: int = 3,
    row: str = "pipeline",
    started: Started | None = None,
) -> Diagnosis:
    """Put each gold fact the row missed in its bucket, and split its false positives.

    ``offered`` (bucket 1), ``validator`` (what the gate refused: bucket 2 and the gate's catches),
    ``lenient`` (judge decisions for bucket 5), ``inverses`` (an Ontology or ``(p, q)`` pairs, for
    the inverse step's replay), ``evidence`` (the dataset's sentences, bucket 7) and ``texts``
    (bucket 7's fallback and bucket 8) are each optional; a bucket that needs a missing input is
    None. ``examples`` misses are kept per bucket, from different documents first.
    ``started`` is this view's diagnosis begun by the caller (:class:`Started`).
    """
    m = view.score.matching
    confirmed, judged = _confirmed(view, lenient)
    # Without a judge's answers, the surface-form rule starts now (or started) on every miss,
    # in a child, while the rest is worked out here (the rules before it take some misses: it
    # answers those too, which changes no number).
    if started is not None and (started.view is not view or confirmed is not None):
        started.close()  # begun for another view, or ahead of a judge's answers
        started = None
    if started is None:
        started = Started(view, judged=confirmed is not None)
    live, surface = started.live, started.surface
    try:
        text_of = under_names(text_map(texts), m.documents)  # also under the labels' names
        cross = CrossSentence(view, evidence, text_of)
        fit, lengths = _saturation(view, live, text_of)
        refused = Refused(view, refused_facts(validator)) if validator is not None else None
        forms = _offered_forms(offered) if offered is not None else None
        rules = Rules(
            forms=forms,
            refused=_refused_table(view, refused),
            confirmed=confirmed,
            surface=surface,
            cross=cross.answers() if cross.measured else None,
            long_document=_long(fit, lengths, len(m.documents)),
        )
        # what needs no bucket first, while the surface rule's child works on
        explain = Explainer(view, refused, judged, cross.reason)
        fp_rows = false_positives(view, live)
        rates, replays = rates_and_replays(
            view,
            live,
            forms=forms,
            cross=cross if cross.measured else None,
            fit=fit,
            lengths=lengths,
            refused=refused,
            inverses=inverses,
        )
        placed = place(view, live, rules)
    finally:
        surface.close()

    measured = {b: True for b in RECALL_BUCKETS}
    measured["never_offered"] = offered is not None
    measured["refused"] = refused is not None
    measured["cross_sentence"] = cross.measured
    measured["saturation"] = fit.measured
    misses = len(placed.rows)
    buckets: list[Bucket] = []
    for name in RECALL_BUCKETS:
        rows, near = placed.landed(name)
        count = len(rows) if measured[name] else None
        label = LABELS[name]
        if name == "surface_form" and confirmed is None:
            label += " (unconfirmed)"
        note = _recall_note(name, measured[name], fit, confirmed is not None)
        buckets.append(
            Bucket(
                bucket=name,
                side="recall",
                label=label,
                count=count,
                share=(count / misses if misses else None) if count is not None else None,
                examples=tuple(explain.recall(name, rows, near, examples, fit, lengths)),
                note=note,
            )
        )
    buckets.extend(precision_buckets(view, fp_rows, refused, explain, examples))
    return Diagnosis(
        row=row,
        gold=int((m.gold_status != DUPLICATE).sum()),
        hits=int((m.gold_status == HIT).sum()),
        misses=misses,
        false_positives=sum(len(v) for v in fp_rows.values()),
        buckets=tuple(buckets),
        confirmed=confirmed is not None,
        rates=rates,
        replays=replays,
        groups=_groups(view, placed),
        offered_knobs=tuple(
            f"stages.extractor.{k}" for k in ("snippet_limit", "types") if k in placed.knobs
        ),
        notes=(fit.note,) if text_of else (),
    )


def _long(fit: Saturation, lengths: dict[int, int], documents: int) -> np.ndarray | None:
    """Per document: output is flat and the document is long (None: not saturated)."""
    if not fit.saturated:
        return None
    out = np.zeros(documents, dtype=bool)
    for d in range(documents):
        out[d] = fit.is_long(lengths.get(d, 0))
    return out


def _recall_note(name: str, measured: bool, fit: Saturation, confirmed: bool) -> str | None:
    if not measured:
        return fit.note if name == "saturation" else _NULL_NOTES.get(name)
    if name == "surface_form" and not confirmed:
        return "no judge read these; --lenient confirms them"
    if name == "saturation":
        return fit.note
    return None


def _groups(view: DiagnosisView, placed: Placed) -> dict[str, tuple[Group, ...]]:
    g, ends = view.gold, view.gold_ends
    out: dict[str, tuple[Group, ...]] = {}
    for name in RECALL_BUCKETS:
        rows, _ = placed.landed(name)
        if not len(rows):
            continue
        typed = name == "never_offered"
        codes = (
            mix(g.subject_type[rows], g.keys.predicate[rows]) if typed else g.keys.predicate[rows]
        )
        distinct, first, counts = np.unique(codes, return_index=True, return_counts=True)
        names: Counter[str] = Counter()
        for i, count in zip(rows[first].tolist(), counts.tolist(), strict=True):
            words = ends.predicate(i).replace("_", " ")
            names[f"{ends.subject_type(i)} · {words}" if typed else words] += count
        top = sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        out[name] = tuple(Group(name=k, count=v) for k, v in top)
    return out
