"""The diagnosis view: gold and predictions as plain columns, with the row's matching.

``gold_view(gold, predicted)`` matches the two exactly as ``evaluate_extraction`` does
(:func:`openodke.eval.extract.score_facts`) and keeps what the buckets read of each fact: its ends
(as node ids), predicate, type, polarity, identity qualifiers, names and grounding verdict. A node id
is ``"E" + entity key`` for an entity and ``"L" + normalised literal`` for a value, so an entity and
a literal never meet.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from openodke.eval.extract import ExtractionScore, KeyRows, PredictionKeyRows, score_keys
from openodke.eval.labels import GoldFact
from openodke.eval.matching import fact_key
from openodke.types import Entity, Fact, normalise_value

__all__ = ["Columns", "DiagnosisView", "diagnosis_view", "entity_names", "gold_view", "node_of"]


def entity_names(entity: Entity) -> tuple[str, ...]:
    """The names an entity goes by, most faithful first: label, key without ``Type:``, aliases."""
    names: list[str] = []
    if entity.label:
        names.append(entity.label)
    head, sep, tail = entity.key.partition(":")
    if sep and tail.strip() and head.casefold() == entity.type.casefold():
        names.append(tail)
    else:
        names.append(entity.key)
    names.extend(entity.aliases)
    return tuple(dict.fromkeys(n for n in names if n.strip()))


def node_of(fact: Fact) -> str:
    """The object's node id: ``E<key>`` for an entity, ``L<normalised value>`` for a literal."""
    if fact.object_entity is not None:
        return "E" + fact.object_entity.key
    return "L" + normalise_value(fact.object_value)


@dataclass
class Columns:
    """Facts as parallel lists: what matching and the buckets read of each."""

    key: list[str] = field(default_factory=list)
    docs: list[tuple[str, ...]] = field(default_factory=list)
    predicate: list[str] = field(default_factory=list)
    subject: list[str] = field(default_factory=list)
    subject_type: list[str] = field(default_factory=list)
    obj: list[str] = field(default_factory=list)
    object_type: list[str | None] = field(default_factory=list)
    polarity: list[str] = field(default_factory=list)
    scoped: list[tuple[tuple[str, str], ...]] = field(default_factory=list)
    subject_names: list[tuple[str, ...]] = field(default_factory=list)
    object_names: list[tuple[str, ...]] = field(default_factory=list)
    verdict: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.key)

    def add(self, fact: Fact, docs: tuple[str, ...]) -> None:
        """Append one fact, citing ``docs``."""
        self.key.append(fact_key(fact))
        self.docs.append(docs)
        self.predicate.append(fact.predicate)
        self.subject.append("E" + fact.subject.key)
        self.subject_type.append(fact.subject.type)
        self.obj.append(node_of(fact))
        if fact.object_entity is not None:
            self.object_type.append(fact.object_entity.type)
            self.object_names.append(entity_names(fact.object_entity))
        else:
            self.object_type.append(None)
            self.object_names.append((str(fact.object_value),))
        self.polarity.append(fact.polarity.value)
        self.scoped.append(fact.scoped)
        self.subject_names.append(entity_names(fact.subject))
        self.verdict.append(fact.verdict.value)

    @classmethod
    def of(cls, facts: Iterable[Fact], docs: Iterable[tuple[str, ...]]) -> Columns:
        """Columns for ``facts``, each citing the matching entry of ``docs``."""
        columns = cls()
        for fact, cited in zip(facts, docs, strict=True):
            columns.add(fact, cited)
        return columns

    def text(self, i: int) -> str:
        """Row ``i`` as ``subject · predicate words · object``."""
        return f"{self.subject_names[i][0]} · {self.predicate[i].replace('_', ' ')} · " + (
            self.object_names[i][0] if self.object_names[i] else self.obj[i][1:]
        )


@dataclass
class DiagnosisView:
    """A row's gold and predictions, matched: what :func:`diagnose` reads.

    ``score.matching`` holds each gold row's and prediction's status and partner;
    ``score.matching.documents`` the labelled documents (gold ``doc_id`` order, then ``documents``).
    """

    gold: Columns
    predicted: Columns
    score: ExtractionScore

    @property
    def documents(self) -> list[str]:
        """The labelled documents, as matching numbered them."""
        return self.score.matching.documents


def gold_view(
    gold: Sequence[GoldFact],
    predicted: Sequence[Fact],
    *,
    documents: Iterable[str] | None = None,
) -> DiagnosisView:
    """Match ``predicted`` against ``gold`` as ``evaluate_extraction`` does, and keep both sides.

    ``documents`` names labelled documents that have no gold fact (as for evaluate_extraction).
    """
    gold_columns = Columns.of((g.fact for g in gold), ((g.doc_id,) for g in gold))
    pred_columns = Columns.of(predicted, (f.doc_ids for f in predicted))
    score = score_keys(
        KeyRows([g.doc_id for g in gold], gold_columns.key),
        PredictionKeyRows(pred_columns.docs, pred_columns.key),
        documents,
    )
    return DiagnosisView(gold_columns, pred_columns, score)


diagnosis_view = gold_view
"""Another name for :func:`gold_view`."""
