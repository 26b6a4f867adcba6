"""Each missed gold fact goes in the first bucket, in the spec's order, that its evidence fits.

DECISIONS #38. The buckets, in order, and the rule each applies to a miss (gold fact g = s·p·o in
document d; "a prediction" means a scored prediction of d, or one citing no document):

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
from typing import Any

from rapidfuzz import fuzz

from openodke.eval.diagnosis.cross import CrossSentence
from openodke.eval.diagnosis.explain import Explainer
from openodke.eval.diagnosis.index import PredictionIndex, lookup_form
from openodke.eval.diagnosis.inputs import confirmed_pairs, refused_facts, text_map
from openodke.eval.diagnosis.models import (
    LABELS,
    RECALL_BUCKETS,
    Bucket,
    Diagnosis,
    Group,
    Offered,
)
from openodke.eval.diagnosis.precision import false_positives, precision_buckets
from openodke.eval.diagnosis.replay import rates_and_replays
from openodke.eval.diagnosis.saturation import Saturation, saturation
from openodke.eval.diagnosis.sentences import SentenceEvidence, name_key
from openodke.eval.diagnosis.view import Columns, DiagnosisView
from openodke.eval.engine.fastload import without_gc
from openodke.eval.engine.matching import DUPLICATE, HIT
from openodke.types import Document

__all__ = ["ALIKE", "alike", "diagnose"]

ALIKE = 85.0
"""rapidfuzz ratio (0-100) at or above which two names are "85% alike"."""

_NULL_NOTES = {
    "never_offered": "needs --trace: the run's manifest.json or the run config",
    "refused": "needs --validator: what the gate refused",
    "cross_sentence": "needs the dataset's evidence sentences, or the texts",
}


def alike(a: Iterable[str], b: Iterable[str]) -> bool:
    """The unconfirmed surface-form rule on two ends' names (any pair of names may pass).

    Name keys equal; one contains the other as whole words; or rapidfuzz ratio >= ALIKE.
    """
    keys_b = [k for k in {name_key(n) for n in b} if k]
    for x in {name_key(n) for n in a}:
        if not x:
            continue
        for y in keys_b:
            if x == y or f" {x} " in f" {y} " or f" {y} " in f" {x} ":
                return True
            if fuzz.ratio(x, y) >= ALIKE:
                return True
    return False


def _offered_forms(offered: Offered) -> dict[str, frozenset[str]]:
    return {lookup_form(t): frozenset(map(lookup_form, ps)) for t, ps in offered.by_type.items()}


def _saturation(
    view: DiagnosisView, index: PredictionIndex, texts: dict[str, str]
) -> tuple[Saturation, dict[int, int]]:
    m = view.score.matching
    lengths = {d: len(texts[doc].split()) for d, doc in enumerate(m.documents) if doc in texts}
    gold_per_doc = Counter(m.gold_doc[m.gold_status != DUPLICATE].tolist())
    docs = sorted(lengths)
    fit = saturation(
        [lengths[d] for d in docs],
        [int(index.per_document[d]) for d in docs],
        [gold_per_doc.get(d, 0) for d in docs],
    )
    return fit, lengths


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
) -> Diagnosis:
    """Put each gold fact the row missed in its bucket, and split its false positives.

    ``offered`` (bucket 1), ``validator`` (what the gate refused: bucket 2 and the gate's catches),
    ``lenient`` (judge decisions for bucket 5), ``inverses`` (an Ontology or ``(p, q)`` pairs, for
    the inverse step's replay), ``evidence`` (the dataset's sentences, bucket 7) and ``texts``
    (bucket 7's fallback and bucket 8) are each optional; a bucket that needs a missing input is
    None. ``examples`` misses are kept per bucket, from different documents first.
    """
    m = view.score.matching
    g = view.gold
    index = PredictionIndex(view)
    text_of = text_map(texts)
    cross = CrossSentence(view, evidence, text_of)
    fit, lengths = _saturation(view, index, text_of)
    refused = refused_facts(validator) if validator is not None else None
    refused_cols = Columns.of((f for f, _ in refused or ()), (f.doc_ids for f, _ in refused or ()))
    doc_index = {doc: d for d, doc in enumerate(m.documents)}
    refused_keys: dict[tuple[int, str], int] = {}
    for r, docs in enumerate(refused_cols.docs):
        d = next((doc_index[x] for x in docs if x in doc_index), -1 if not docs else None)
        if d is not None:
            refused_keys.setdefault((d, refused_cols.key[r]), r)
    confirmed = confirmed_pairs(lenient) if lenient is not None else None
    forms = _offered_forms(offered) if offered is not None else None
    explain = Explainer(view, refused, refused_cols, confirmed, cross.reason)

    measured = {b: True for b in RECALL_BUCKETS}
    measured["never_offered"] = offered is not None
    measured["refused"] = refused is not None
    measured["cross_sentence"] = cross.measured
    measured["saturation"] = fit.measured

    status = m.gold_status.tolist()
    gold_doc = m.gold_doc.tolist()
    landed: dict[str, list[tuple[int, int | None, str]]] = {b: [] for b in RECALL_BUCKETS}
    knobs: set[str] = set()
    # Locals: this loop runs once per miss.
    subjects, objects, predicates, keys, types = (
        g.subject,
        g.obj,
        g.predicate,
        g.key,
        g.subject_type,
    )
    pair, triple, hit, pred_predicate = (
        index.pair,
        index.triple,
        index.hit,
        view.predicted.predicate,
    )
    get, has_node = index.get, index.has_node

    def place(i: int, d: int) -> tuple[str, int | None]:
        """The first bucket miss ``i`` (in document ``d``) fits, and its nearest prediction."""
        s, o, p = subjects[i], objects[i], predicates[i]
        if forms is not None:
            allowed = forms.get(lookup_form(types[i]))
            if not allowed or lookup_form(p) not in allowed:
                knobs.add("types" if not allowed else "snippet_limit")
                return "never_offered", None
        if refused is not None:
            caught = refused_keys.get((d, keys[i]), refused_keys.get((-1, keys[i])))
            if caught is not None:
                return "refused", caught
        same_way = get(pair, d, s, o)
        near = next((j for j in same_way if not hit[j] and pred_predicate[j] != p), None)
        if near is not None:
            return "wrong_relation", near
        other_way = get(pair, d, o, s) if o[0] == "E" else None
        if other_way:
            return "inverse", other_way[0]
        near = _surface(view, index, i, d, confirmed, m.documents)
        if near is not None:
            return "surface_form", near
        apart = get(triple, d, s, p, o)
        if apart:
            return "scored_apart", apart[0]
        if same_way:  # a hit links the pair: something came near, so not 7 or 8
            return "linked_other", same_way[0]
        if cross.measured and cross(i):
            return "cross_sentence", None
        if fit.saturated and fit.is_long(lengths.get(d, 0)):
            return "saturation", None
        if has_node(d, s) and has_node(d, o):
            return "not_linked", None
        return "entity_missing", None

    for i, st in enumerate(status):
        if st != HIT and st != DUPLICATE:
            bucket, near = place(i, gold_doc[i])
            landed[bucket].append((i, near, bucket))

    fp_rows = false_positives(view, index)
    rates, replays = rates_and_replays(
        view,
        index,
        forms=forms,
        cross=cross if cross.measured else None,
        fit=fit,
        lengths=lengths,
        refused=refused_cols if refused is not None else None,
        inverses=inverses,
    )
    misses = sum(len(v) for v in landed.values())
    buckets: list[Bucket] = []
    for name in RECALL_BUCKETS:
        rows = landed[name]
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
                examples=tuple(explain.recall(name, rows, examples, fit, lengths)),
                note=note,
            )
        )
    buckets.extend(precision_buckets(view, fp_rows, refused_keys, refused, explain, examples))
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
        groups=_groups(view, landed),
        offered_knobs=tuple(
            f"stages.extractor.{k}" for k in ("snippet_limit", "types") if k in knobs
        ),
        notes=(fit.note,) if text_of else (),
    )


def _surface(
    view: DiagnosisView,
    index: PredictionIndex,
    i: int,
    d: int,
    confirmed: dict[tuple[str, str], Any] | None,
    documents: list[str],
) -> int | None:
    """Bucket 5's candidate for gold ``i``: a prediction index, -2 (a judge said same), or None."""
    g, p = view.gold, view.predicted
    if confirmed is not None:
        return -2 if (documents[d], g.key[i]) in confirmed else None
    candidates = index.get(index.by_relation, d, g.predicate[i], g.polarity[i])
    if not candidates:
        return None
    subject, obj = set(g.subject_names.keys(i)), set(g.object_names.keys(i))
    for j in candidates:
        same_subject = p.obj[j] != g.obj[i] and not subject.isdisjoint(p.subject_names.keys(j))
        if same_subject and alike(g.object_names[i], p.object_names[j]):
            return j
        same_object = p.subject[j] != g.subject[i] and not obj.isdisjoint(p.object_names.keys(j))
        if same_object and alike(g.subject_names[i], p.subject_names[j]):
            return j
    return None


def _recall_note(name: str, measured: bool, fit: Saturation, confirmed: bool) -> str | None:
    if not measured:
        return fit.note if name == "saturation" else _NULL_NOTES.get(name)
    if name == "surface_form" and not confirmed:
        return "no judge read these; --lenient confirms them"
    if name == "saturation":
        return fit.note
    return None


def _groups(
    view: DiagnosisView, landed: dict[str, list[tuple[int, int | None, str]]]
) -> dict[str, tuple[Group, ...]]:
    g = view.gold
    out: dict[str, tuple[Group, ...]] = {}
    for name, rows in landed.items():
        if not rows:
            continue
        if name == "never_offered":
            names = Counter(
                f"{g.subject_type[i]} · {g.predicate[i].replace('_', ' ')}" for i, _, _ in rows
            )
        else:
            names = Counter(g.predicate[i].replace("_", " ") for i, _, _ in rows)
        top = sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        out[name] = tuple(Group(name=k, count=v) for k, v in top)
    return out
