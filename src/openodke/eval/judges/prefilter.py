"""The lenient pre-filter, with no model: which near misses are worth a judge's question.

A candidate pairs a missed gold fact with an unmatched prediction of the same document that has
the same relation and polarity and one end equal after normalisation (name keys: accents, case and
punctuation ignored, any of the entity's names), while its other end differs. Both ends equal
would be the same triple scored apart (a type or qualifier differs), which is not a surface form.
This is the diagnosis's surface-form rule without its "alike" test (DECISIONS #30): the judge, not
string similarity, decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import numpy as np

from openodke.eval.diagnosis.names import entity_names
from openodke.eval.diagnosis.sentences import name_key, split_sentences
from openodke.eval.diagnosis.view import DiagnosisView, node_of
from openodke.eval.engine.joins import Lookup, mix
from openodke.eval.engine.matching import DUPLICATE, HIT, SPURIOUS, WRONG_ENTITY, WRONG_VALUE
from openodke.types import Entity, Fact

__all__ = [
    "PASSAGE_LIMIT",
    "SurfacePair",
    "candidate",
    "passage_for",
    "surface_pair",
    "surface_pairs",
]

PASSAGE_LIMIT = 1500
"""Most characters of passage shown to the judge."""

_UNMATCHED = (SPURIOUS, WRONG_VALUE, WRONG_ENTITY)


def _keys(end: Entity | object) -> set[str]:
    names = entity_names(end) if isinstance(end, Entity) else (str(end),)
    return {k for k in map(name_key, names) if k}


def surface_pair(gold: Fact, prediction: Fact) -> Literal["subject", "object"] | None:
    """Which end the two facts share after normalisation while the other differs, else None."""
    g_obj = gold.object_entity if gold.object_entity is not None else gold.object_value
    p_obj = (
        prediction.object_entity
        if prediction.object_entity is not None
        else prediction.object_value
    )
    same_subject = gold.subject.key == prediction.subject.key
    same_object = node_of(gold) == node_of(prediction)
    if not same_object and _keys(gold.subject) & _keys(prediction.subject):
        return "subject"
    if not same_subject and _keys(g_obj) & _keys(p_obj):
        return "object"
    return None


def candidate(gold: Fact, prediction: Fact) -> bool:
    """True when ``prediction`` may be ``gold`` in other words: same relation and polarity, one
    end equal after normalisation, the other different."""
    return (
        gold.predicate == prediction.predicate
        and gold.polarity == prediction.polarity
        and surface_pair(gold, prediction) is not None
    )


@dataclass(frozen=True)
class SurfacePair:
    """A candidate in a matched row: gold row ``gold`` and prediction ``prediction`` of ``doc_id``."""

    doc: int
    doc_id: str
    gold: int
    prediction: int
    end: Literal["subject", "object"]


def surface_pairs(view: DiagnosisView) -> list[SurfacePair]:
    """Every candidate of a row: each missed gold fact with each unmatched prediction that fits."""
    m = view.score.matching
    g, p = view.gold, view.predicted
    open_ = np.isin(m.pred_status, _UNMATCHED) & (m.pred_doc >= 0)
    rows = np.flatnonzero(open_)
    relation = Lookup(
        mix(m.pred_doc[rows], p.keys.predicate[rows], p.polarity[rows].astype(np.int64)), rows
    )
    misses = np.flatnonzero((m.gold_status != HIT) & (m.gold_status != DUPLICATE))
    which, found = relation.pairs(
        mix(m.gold_doc[misses], g.keys.predicate[misses], g.polarity[misses].astype(np.int64))
    )
    gold_rows = misses[which]
    gold_ends, said = view.gold_ends, view.predicted_ends
    gold_ends.load(gold_rows.tolist())
    said.load(found.tolist())
    pairs: list[SurfacePair] = []
    for i, j in zip(gold_rows.tolist(), found.tolist(), strict=True):
        end: Literal["subject", "object"] | None = None
        if p.object_node[j] != g.object_node[i] and not set(gold_ends.keys(i, True)).isdisjoint(
            said.keys(j, True)
        ):
            end = "subject"
        elif p.subject_node[j] != g.subject_node[i] and not set(
            gold_ends.keys(i, False)
        ).isdisjoint(said.keys(j, False)):
            end = "object"
        if end is not None:
            d = int(m.gold_doc[i])
            pairs.append(SurfacePair(d, m.documents[d], i, j, end))
    return pairs


def _named(key: str, bare: str) -> bool:
    return bool(key) and f" {key} " in bare


def passage_for(gold: Fact, prediction: Fact, text: str, *, limit: int = PASSAGE_LIMIT) -> str:
    """The gold fact's evidence sentences: its cited spans, else the sentences naming both of its
    ends, else those naming an end of either fact, else the text's beginning; at most ``limit``."""
    spans = [
        text[e.span.start : e.span.end]
        for e in gold.evidence
        if e.span is not None and e.span.end <= len(text) and e.span.end > e.span.start
    ]
    if spans:
        return _cut(" … ".join(dict.fromkeys(spans)), limit)
    sentences = split_sentences(text)
    bare = [f" {name_key(s)} " for s in sentences]
    g_obj = gold.object_entity if gold.object_entity is not None else gold.object_value
    p_obj = (
        prediction.object_entity
        if prediction.object_entity is not None
        else prediction.object_value
    )
    subject, obj = _keys(gold.subject), _keys(g_obj)
    both = [
        s
        for s, b in zip(sentences, bare, strict=True)
        if any(_named(k, b) for k in subject) and any(_named(k, b) for k in obj)
    ]
    if not both:
        ends = subject | obj | _keys(prediction.subject) | _keys(p_obj)
        both = [s for s, b in zip(sentences, bare, strict=True) if any(_named(k, b) for k in ends)]
    return _cut(" ".join(s.strip() for s in both) if both else text, limit)


_SPACE = re.compile(r"\s+")


def _cut(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    return _SPACE.sub(" ", text[:limit]).rstrip() + " …"
