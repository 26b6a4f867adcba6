"""Rows scored against gold, and a score with some misses turned into hits.

The lenient and adjudicated scores start from the strict matching (``gold_view``, which matches as
``evaluate_extraction`` does) and move counts within documents: a confirmed pair is a hit in its
document (tp + 1, fp − 1, fn − 1), a prediction possibly missing from gold a hit for precision
(tp + 1, fp − 1). The ranges are the report's: 95% expanded BCa bootstrap over documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from openodke.eval.diagnosis.view import DiagnosisView, gold_view
from openodke.eval.report.build import LEVEL, RESAMPLES, SEED, row_from_score
from openodke.eval.report.models import Performance, Row, Value
from openodke.eval.stages.extract import ExtractionScore
from openodke.eval.stages.labels import GoldFact
from openodke.eval.stats import document_intervals
from openodke.types import Document, Fact

__all__ = ["DEFAULT_DRAWS", "Draws", "ScoredRow", "moved", "score_rows", "texts_of"]


@dataclass(frozen=True)
class Draws:
    """How ranges are drawn: resamples, seed and level (the report's defaults)."""

    resamples: int = RESAMPLES
    seed: int | None = SEED
    level: float = LEVEL


DEFAULT_DRAWS = Draws()


@dataclass
class ScoredRow:
    """One named run matched against gold: its view (both sides) and its strict report row."""

    name: str
    facts: list[Fact]
    view: DiagnosisView
    strict: Row

    @property
    def score(self) -> ExtractionScore:
        """The strict matching and its counts."""
        return self.view.score


def _runs(rows: Iterable[Sequence[Any]]) -> list[tuple[str, list[Fact]]]:
    """``(name, facts)`` or ``(name, facts, usage)`` rows as ``(name, facts)``."""
    out = []
    for row in rows:
        if len(row) < 2:
            raise ValueError("each row is (name, facts) or (name, facts, usage)")
        out.append((str(row[0]), list(row[1])))
    return out


def texts_of(documents: Iterable[Document]) -> dict[str, str]:
    """``{doc_id: text}``."""
    return {doc.id: doc.text for doc in documents}


def score_rows(
    rows: Iterable[Sequence[Any]],
    gold: Sequence[GoldFact],
    labelled: Sequence[str] | None,
    draws: Draws,
) -> list[ScoredRow]:
    """Each ``(name, facts[, usage])`` matched against ``gold`` over the ``labelled`` documents."""
    scored = []
    for name, facts in _runs(rows):
        view = gold_view(gold, facts, documents=labelled)
        strict = row_from_score(
            name, view.score, resamples=draws.resamples, seed=draws.seed, level=draws.level
        )
        scored.append(ScoredRow(name, facts, view, strict))
    return scored


def moved(
    score: ExtractionScore,
    hits: Sequence[int],
    draws: Draws,
    *,
    recall: bool = True,
) -> Performance:
    """The row's performance with one more hit per entry of ``hits`` (a document index).

    Each hit takes a false positive away in its document, and, with ``recall``, a false negative
    too (a confirmed pair); without (a prediction the gold lacks), the gold is left as it was.
    """
    tp, fp, fn = (np.asarray(a, dtype=np.int64).copy() for a in score.document_counts())
    extra = np.bincount(np.asarray(hits, dtype=np.int64), minlength=len(tp))[: len(tp)]
    tp += extra
    fp -= extra
    if recall:
        fn -= extra
    if (fp < 0).any() or (fn < 0).any():
        raise ValueError("more hits moved than the document has errors")
    ranges = document_intervals(
        tp,
        fp,
        fn,
        resamples=draws.resamples,
        seed=draws.seed,
        level=draws.level,
        fixed_fp=score.uncited_fp,
    )
    return Performance(
        **{m: Value(**ranges[m].model_dump()) for m in ("precision", "recall", "f1")}
    )
