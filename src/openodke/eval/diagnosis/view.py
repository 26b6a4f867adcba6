"""The diagnosis view: gold and predictions as the engine's columns, with the row's matching.

``gold_view(gold, predicted)`` builds the same columns the CLI's loader reads from files
(:class:`~openodke.eval.engine.columns.FactColumns`) and matches them exactly as
``evaluate_extraction`` does; :func:`view_of` wraps a score that already holds its columns (the
CLI's, at any size). The diagnosis reads hashes from the columns and, for the few rows it must read
in words, the facts themselves (:class:`~openodke.eval.diagnosis.names.Ends`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from openodke.eval.diagnosis.names import Ends, entity_names
from openodke.eval.engine.columns import FactColumns
from openodke.eval.engine.identity import Identity
from openodke.eval.engine.pause import paused_gc
from openodke.eval.engine.rows import ModelRows, RepeatedRows
from openodke.eval.stages.extract import ExtractionScore, score_keys
from openodke.forms import normalise_value

if TYPE_CHECKING:  # the Fact models load with the Python API's Facts, never for files
    from openodke.eval.stages.labels import GoldFact
    from openodke.types import Fact

__all__ = ["DiagnosisView", "diagnosis_view", "entity_names", "gold_view", "node_of", "view_of"]


def node_of(fact: Fact) -> str:
    """The object's node id: ``E<key>`` for an entity, ``L<normalised value>`` for a literal."""
    if fact.object_entity is not None:
        return "E" + fact.object_entity.key
    return "L" + normalise_value(fact.object_value)


@dataclass
class DiagnosisView:
    """A row's gold and predictions, matched: what :func:`diagnose` reads.

    ``gold`` and ``predicted`` are the columns; ``score.matching`` holds each gold row's and
    prediction's status and partner; ``score.matching.documents`` the labelled documents (gold
    ``doc_id`` order, then ``documents``). ``gold_ends`` and ``predicted_ends`` read rows in words.
    """

    gold: FactColumns
    predicted: FactColumns
    score: ExtractionScore
    gold_ends: Ends = field(init=False)
    predicted_ends: Ends = field(init=False)

    def __post_init__(self) -> None:
        self.gold_ends = Ends(self.gold)
        self.predicted_ends = Ends(self.predicted)

    @property
    def documents(self) -> list[str]:
        """The labelled documents, as matching numbered them."""
        return self.score.matching.documents


def view_of(score: ExtractionScore) -> DiagnosisView:
    """The view of a score that holds the columns it was matched from (``score_keys``)."""
    if score.gold is None or score.predicted is None:
        raise ValueError("this score holds no columns: score it with score_keys or score_facts")
    return DiagnosisView(score.gold, score.predicted, score)


def gold_view(
    gold: Sequence[GoldFact],
    predicted: Sequence[Fact],
    *,
    documents: Iterable[str] | None = None,
    score: ExtractionScore | None = None,
    identity: Identity | None = None,
) -> DiagnosisView:
    """Match ``predicted`` against ``gold`` as ``evaluate_extraction`` does, and keep both sides.

    ``documents`` names labelled documents that have no gold fact, ``identity`` how entities
    compare (as for evaluate_extraction).
    ``score`` is the row's own ``score_facts(gold, predicted, documents)``, when the caller has
    it: the matching is then reused, not redone. ValueError when it was made from other facts.
    """
    if score is not None and _holds(score, gold, predicted):
        return DiagnosisView(score.gold, score.predicted, score)  # type: ignore[arg-type]
    with paused_gc():
        gold_columns = FactColumns.of_gold(gold)
        pred_columns = FactColumns.of_facts(predicted)
        if score is None:
            score = score_keys(gold_columns, pred_columns, documents, identity)
        else:
            _check_score(score, gold_columns, pred_columns.per_document())
        return view_of(score)


def _holds(score: ExtractionScore, gold: Sequence[GoldFact], predicted: Sequence[Fact]) -> bool:
    """True when ``score`` was matched from columns of these very objects, in order
    (``score_facts(gold, predicted)``): its columns then serve as they are."""
    if score.gold is None or score.predicted is None:
        return False
    g, p = score.gold.rows, score.predicted.rows
    if isinstance(p, RepeatedRows):  # one row per cited document: the facts are its base's
        p = p.base
    if not isinstance(g, ModelRows) or not isinstance(p, ModelRows):
        return False
    return (
        len(g) == len(gold)
        and len(p) == len(predicted)
        and all(a is b.fact for a, b in zip(g.facts, gold, strict=True))
        and all(a is b for a, b in zip(p.facts, predicted, strict=True))
    )


def _check_score(score: ExtractionScore, gold: FactColumns, predicted: FactColumns) -> None:
    if score.gold is None or score.predicted is None:
        raise ValueError("this score holds no columns: score it with score_keys or score_facts")
    # Every part of identity but the types, which aligning the two sides may have changed.
    same = all(
        len(mine) == len(theirs)
        and all(
            np.array_equal(getattr(mine.keys, part), getattr(theirs.keys, part))
            for part in ("subject_rest", "object_rest", "subject_name", "object_name")
        )
        for mine, theirs in ((gold, score.gold), (predicted, score.predicted))
    )
    if not same:
        raise ValueError("score was not made from these gold facts and predictions, in order")


diagnosis_view = gold_view
"""Another name for :func:`gold_view`."""
