"""The diagnosis view: gold and predictions as plain columns, with the row's matching.

``gold_view(gold, predicted)`` matches the two exactly as ``evaluate_extraction`` does
(:func:`openodke.eval.stages.extract.score_facts`) and keeps what the buckets read of each fact: its ends
(as node ids), predicate, type, polarity, identity qualifiers, names and grounding verdict. A node id
is ``"E" + entity key`` for an entity and ``"L" + normalised literal`` for a value, so an entity and
a literal never meet.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from openodke.eval.diagnosis.sentences import bare_key, name_key
from openodke.eval.engine.fastload import paused_gc
from openodke.eval.stages.extract import ExtractionScore, KeyRows, PredictionKeyRows, score_keys
from openodke.eval.stages.labels import GoldFact
from openodke.types import Entity, Fact, GroundingVerdict, Polarity, normalise_value

__all__ = [
    "Columns",
    "DiagnosisView",
    "Names",
    "diagnosis_view",
    "entity_names",
    "gold_view",
    "name_keys",
    "node_of",
]


_SEP = "\x1f"
# Enum .value and hashing are slow Python; the common members are compared by identity.
_ASSERTED = Polarity.asserted
_UNCHECKED = GroundingVerdict.unchecked


def entity_names(entity: Entity) -> tuple[str, ...]:
    """The names an entity goes by, most faithful first: label, key without ``Type:``, aliases."""
    key, label = entity.key, entity.label
    head, sep, tail = key.partition(":")
    second = tail if sep and tail.strip() and head.casefold() == entity.type.casefold() else key
    if not entity.aliases:
        if not label or not label.strip() or label == second:
            return (second,) if second.strip() else ((label,) if label else ())
        return (label, second) if second.strip() else (label,)
    names = [label, second, *entity.aliases] if label else [second, *entity.aliases]
    return tuple(dict.fromkeys(n for n in names if n and n.strip()))


def node_of(fact: Fact) -> str:
    """The object's node id: ``E<key>`` for an entity, ``L<normalised value>`` for a literal."""
    if fact.object_entity is not None:
        return "E" + fact.object_entity.key
    return "L" + normalise_value(fact.object_value)


class Names:
    """Each row's names for one end, computed on first use (most rows never need them)."""

    def __init__(self, ends: list[Any]) -> None:
        self._ends = ends
        self._cache: dict[int, tuple[str, ...]] = {}
        self._key_cache: dict[int, tuple[str, ...]] = {}

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, i: int) -> tuple[str, ...]:
        found = self._cache.get(i)
        if found is None:
            found = self._cache[i] = _names(self._ends[i])
        return found

    def keys(self, i: int) -> tuple[str, ...]:
        """Row ``i``'s name keys (see :func:`name_keys`), remembered."""
        found = self._key_cache.get(i)
        if found is None:
            found = self._key_cache[i] = name_keys(self._ends[i])
        return found

    @property
    def ends(self) -> list[Any]:
        """Each row's end: an Entity, or a literal value."""
        return self._ends


def name_keys(end: Any) -> tuple[str, ...]:
    """An end's distinct, non-empty name keys (``name_key`` of each of its names).

    Our own ``Type:<case-folded label>`` keys take a short way: the label's key is the only one.
    """
    if type(end) is Entity and not end.aliases and end.label:
        label = end.label
        if end.key == f"{end.type}:{label.casefold()}":
            key = bare_key(label)
            return (key,) if key else ()
    return tuple(k for k in dict.fromkeys(map(name_key, _names(end))) if k)


def _names(end: Any) -> tuple[str, ...]:
    return entity_names(end) if isinstance(end, Entity) else (str(end),)


def _row(fact: Fact) -> tuple[Any, ...]:
    """What the columns keep of one fact, in ``_FIELDS`` order."""
    subject, target = fact.subject, fact.object_entity
    end: Any
    scoped = fact.scoped if fact.identity_keys else ()
    polarity = "asserted" if fact.polarity is _ASSERTED else fact.polarity.value
    if target is not None:
        literal, obj, obj_type, end = False, target.key, target.type, target
    else:
        literal, obj, obj_type, end = (
            True,
            normalise_value(fact.object_value),
            None,
            fact.object_value,
        )
    # encode_key's layout, inlined (a test holds it equal to matching.fact_key).
    key = _SEP.join(
        (
            fact.predicate,
            subject.key,
            subject.type,
            ("L" if literal else "E") + obj,
            polarity,
            repr(scoped) if scoped else "",
        )
    )
    return (
        key,
        fact.predicate,
        "E" + subject.key,
        subject.type,
        ("L" if literal else "E") + obj,
        obj_type,
        polarity,
        scoped,
        "unchecked" if fact.verdict is _UNCHECKED else fact.verdict.value,
        subject,
        end,
    )


_FIELDS = (
    "key",
    "predicate",
    "subject",
    "subject_type",
    "obj",
    "object_type",
    "polarity",
    "scoped",
    "verdict",
)


@dataclass
class Columns:
    """Facts as parallel lists: what matching and the buckets read of each.

    ``subject``/``obj`` are node ids; ``subject_names``/``object_names`` each row's names (label,
    key without ``Type:``, aliases; a literal's value as written), computed when first read.
    """

    key: list[str] = field(default_factory=list)
    docs: list[tuple[str, ...]] = field(default_factory=list)
    predicate: list[str] = field(default_factory=list)
    subject: list[str] = field(default_factory=list)
    subject_type: list[str] = field(default_factory=list)
    obj: list[str] = field(default_factory=list)
    object_type: list[str | None] = field(default_factory=list)
    polarity: list[str] = field(default_factory=list)
    scoped: list[tuple[tuple[str, str], ...]] = field(default_factory=list)
    verdict: list[str] = field(default_factory=list)
    subject_names: Names = field(default_factory=lambda: Names([]))
    object_names: Names = field(default_factory=lambda: Names([]))

    def __len__(self) -> int:
        return len(self.key)

    @classmethod
    def of(cls, facts: Iterable[Fact], docs: Iterable[tuple[str, ...]]) -> Columns:
        """Columns for ``facts``, each citing the matching entry of ``docs``."""
        rows = [_row(f) for f in facts]
        cited = list(docs)
        if len(cited) != len(rows):
            raise ValueError("one entry of docs per fact")
        if not rows:
            return cls()
        columns = list(zip(*rows, strict=True))
        fields: dict[str, Any] = {name: list(columns[k]) for k, name in enumerate(_FIELDS)}
        made = cls(docs=cited, **fields)
        made.subject_names = Names(list(columns[len(_FIELDS)]))
        made.object_names = Names(list(columns[len(_FIELDS) + 1]))
        return made

    def text(self, i: int) -> str:
        """Row ``i`` as ``subject · predicate words · object``."""
        obj = self.object_names[i]
        return f"{self.subject_names[i][0]} · {self.predicate[i].replace('_', ' ')} · " + (
            obj[0] if obj else self.obj[i][1:]
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


def _cited(fact: Fact) -> tuple[str, ...]:
    """``fact.doc_ids``, with the one-citation case short."""
    evidence = fact.evidence
    if len(evidence) == 1:
        return (evidence[0].doc_id,)
    return fact.doc_ids


def gold_view(
    gold: Sequence[GoldFact],
    predicted: Sequence[Fact],
    *,
    documents: Iterable[str] | None = None,
    score: ExtractionScore | None = None,
) -> DiagnosisView:
    """Match ``predicted`` against ``gold`` as ``evaluate_extraction`` does, and keep both sides.

    ``documents`` names labelled documents that have no gold fact (as for evaluate_extraction).
    ``score`` is the row's own ``score_facts(gold, predicted, documents)``, when the caller has
    it: the matching is then reused, not redone. ValueError when it was made from other facts.
    """
    with paused_gc():
        gold_columns = Columns.of((g.fact for g in gold), ((g.doc_id,) for g in gold))
        pred_columns = Columns.of(predicted, (_cited(f) for f in predicted))
        if score is None:
            score = score_keys(
                KeyRows([g.doc_id for g in gold], gold_columns.key),
                PredictionKeyRows(pred_columns.docs, pred_columns.key),
                documents,
            )
        else:
            _check_score(score, gold_columns, pred_columns)
        return DiagnosisView(gold_columns, pred_columns, score)


def _check_score(score: ExtractionScore, gold: Columns, predicted: Columns) -> None:
    m = score.matching
    keys = m.keys
    same = (
        len(m.gold_key) == len(gold.key)
        and len(m.pred_key) == len(predicted.key)
        and [keys[k] for k in m.gold_key.tolist()] == gold.key
        and [keys[k] for k in m.pred_key.tolist()] == predicted.key
    )
    if not same:
        raise ValueError("score was not made from these gold facts and predictions, in order")


diagnosis_view = gold_view
"""Another name for :func:`gold_view`."""
