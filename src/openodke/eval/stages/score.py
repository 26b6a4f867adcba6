"""The score stage: is a scorer's confidence the share of facts that are true?"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from openodke.errors import InputError, PipelineError
from openodke.eval.stages.ground import join_predictions
from openodke.eval.stages.labels import CalibrationLabel
from openodke.eval.stages.stage_report import StageReport
from openodke.protocols import bind_stage, call_stage
from openodke.types import Fact

__all__ = ["BIN_NAMES", "evaluate_calibration", "run_score", "score_labels"]

_BINS = 10
BIN_NAMES = tuple(f"{i / _BINS:.1f}–{(i + 1) / _BINS:.1f}" for i in range(_BINS))
"""The reliability curve's bins: ``0.0–0.1`` … ``0.9–1.0``; each holds [lo, hi), the last [0.9, 1]."""


def _confidence(fact: Fact) -> float:
    value = fact.confidence
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise InputError(f"fact {fact.id}: confidence {value!r} is outside 0–1")
    return value


def evaluate_calibration(
    labels: Sequence[CalibrationLabel],
    predictions: Iterable[Fact] | None = None,
    *,
    threshold: float = 0.9,
) -> StageReport:
    """Score confidences against whether each fact is true.

    ``predictions`` are scored facts joined to the labels on ``Fact.id``; without them each
    label's own ``fact.confidence`` is scored. Metrics: ``brier`` = mean((confidence − outcome)²)
    (Brier 1950); ``brier_baseline`` = base_rate·(1 − base_rate), the Brier score of always
    answering the base rate; ``ece`` = Σ n_b/N · |true_rate_b − mean_confidence_b| over ten
    equal-width bins (Naeini et al. 2015); ``max_gap`` the largest such gap in a non-empty bin;
    ``base_rate``; ``mean_confidence``; ``threshold``; ``scored_at_threshold`` (confidence ≥
    threshold) and ``true_rate_at_threshold``. Breakdown per bin: ``n``, ``mean_confidence``,
    ``true_rate``. notes[0] says how often a fact scored at or above the threshold was true.
    """
    notes: list[str] = []
    if predictions is None:
        pairs = [(_confidence(row.fact), row.true) for row in labels]
    else:
        joined, notes = join_predictions([r.fact.id for r in labels], predictions, lambda f: f.id)
        pairs = [
            (_confidence(p), row.true)
            for row, p in zip(labels, joined, strict=True)
            if p is not None
        ]
    confidence = np.array([c for c, _ in pairs], dtype=float)
    outcome = np.array([t for _, t in pairs], dtype=float)
    n = len(pairs)
    # Bin i holds [i/10, (i+1)/10); 1.0 joins the last bin. floor(k/10·10) == k for k = 0..10.
    index = np.minimum(np.floor(confidence * _BINS).astype(int), _BINS - 1)
    breakdown: dict[str, dict[str, float | int | None]] = {}
    ece, max_gap = 0.0, None
    for i, name in enumerate(BIN_NAMES):
        members = index == i
        count = int(members.sum())
        mean_c = float(confidence[members].mean()) if count else None
        rate = float(outcome[members].mean()) if count else None
        breakdown[name] = {"n": count, "mean_confidence": mean_c, "true_rate": rate}
        if mean_c is not None and rate is not None:
            gap = abs(rate - mean_c)
            ece += count / n * gap
            max_gap = gap if max_gap is None else max(max_gap, gap)
    at = confidence >= threshold
    scored_at = int(at.sum())
    true_at = int(outcome[at].sum())
    base = float(outcome.mean()) if n else None
    brier = float(np.mean((confidence - outcome) ** 2)) if n else None
    baseline = base * (1 - base) if base is not None else None
    notes.insert(0, _headline(n, threshold, scored_at, true_at))
    if brier is not None and baseline is not None:
        side = "worse than" if brier > baseline else "no worse than"
        notes.append(f"brier {brier:.3f} is {side} always answering the base rate ({baseline:.3f})")
    return StageReport(
        stage="score",
        n=n,
        metrics={
            "brier": brier,
            "brier_baseline": baseline,
            "ece": ece if n else None,
            "max_gap": max_gap,
            "base_rate": base,
            "mean_confidence": float(confidence.mean()) if n else None,
            "threshold": threshold,
            "scored_at_threshold": scored_at,
            "true_rate_at_threshold": true_at / scored_at if scored_at else None,
        },
        breakdown=breakdown,
        notes=tuple(notes),
    )


def _headline(n: int, threshold: float, scored_at: int, true_at: int) -> str:
    if not n:
        return "no labelled fact was scored: every metric is undefined"
    if not scored_at:
        return f"no fact was scored ≥ {threshold:g}: the true rate there is undefined"
    return (
        f"of facts scored ≥ {threshold:g}, {true_at / scored_at:.0%} were true "
        f"({true_at} of {scored_at})"
    )


def score_labels(scorer: object, labels: Sequence[CalibrationLabel]) -> list[Fact]:
    """``scorer.score(row.fact)`` per label, each keeping the label's fact id.

    ``scorer`` is a Scorer or a function ``(fact) -> Fact``; an error it raises, or an answer that
    is not a Fact, is a PipelineError (exit 1) naming the label.
    """
    score = bind_stage(scorer, "score")
    out: list[Fact] = []
    for i, row in enumerate(labels, start=1):
        where = f"label {i} (fact {row.fact.id})"
        result = call_stage(score, row.fact, where=where)
        if not isinstance(result, Fact):
            raise PipelineError(
                f"the scorer returned {type(result).__name__} on {where}, expected Fact"
            )
        out.append(
            result if result.id == row.fact.id else result.model_copy(update={"id": row.fact.id})
        )
    return out


def run_score(scorer: object, labels: Sequence[CalibrationLabel]) -> StageReport:
    """Run a scorer over the labelled facts and score its confidences (``evaluate_calibration``)."""
    return evaluate_calibration(labels, score_labels(scorer, labels))
