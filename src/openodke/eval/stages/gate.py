"""The validate (gate) stage: does a gate accept, refuse and flag what the labels say it should?"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from openodke.eval.stages.ground import (
    accuracy_of,
    class_table,
    confusion_table,
    join_predictions,
    macro_f1_of,
)
from openodke.eval.stages.labels import GateLabel, ValidationPrediction
from openodke.eval.stages.stage_report import StageReport
from openodke.protocols import as_validation_verdict, bind_stage, call_stage

__all__ = [
    "ACTIONS",
    "cohen_kappa",
    "evaluate_gate",
    "gate_items",
    "gate_labels",
    "run_validate",
]

ACTIONS = ("accept", "refuse", "conflict")
"""A gate's actions, in report order."""


def cohen_kappa(pairs: Sequence[tuple[Hashable, Hashable]]) -> float | None:
    """Cohen's kappa (Cohen 1960) between labels and predictions; None when it is undefined.

    κ = (p_o − p_e) / (1 − p_e), written over counts as (N·d − S) / (N² − S) with d the agreeing
    count and S = Σ_k rows_k·cols_k, so the undefined case (both sides one and the same class,
    where scikit-learn returns nan) is an exact integer zero, never a float compared to 0.
    """
    if not pairs:
        return None
    classes = sorted({x for pair in pairs for x in pair}, key=str)
    position = {c: i for i, c in enumerate(classes)}
    table = np.zeros((len(classes), len(classes)), dtype=np.int64)
    for truth, predicted in pairs:
        table[position[truth], position[predicted]] += 1
    n = int(table.sum())
    agree = int(np.trace(table))
    chance = int(table.sum(axis=1) @ table.sum(axis=0))
    denominator = n * n - chance
    return (n * agree - chance) / denominator if denominator else None


def _scored(
    labels: Sequence[GateLabel], predictions: Iterable[ValidationPrediction]
) -> tuple[list[tuple[str, str, str]], list[str]]:
    joined, notes = join_predictions([r.fact.id for r in labels], predictions, key=lambda p: p.id)
    rows: list[tuple[str, str, str]] = [
        (r.fact.id, r.action, p.action)
        for r, p in zip(labels, joined, strict=True)
        if p is not None
    ]
    return rows, notes


def evaluate_gate(
    labels: Sequence[GateLabel], predictions: Iterable[ValidationPrediction]
) -> StageReport:
    """Score a gate's actions against labels, joined on the labelled fact's id.

    Metrics: ``agreement`` (accuracy); ``kappa`` (Cohen's, None when undefined); ``macro_f1`` over
    the actions present in the labels; ``wrongly_refused`` (labelled accept, refused);
    ``wrongly_written`` (labelled refuse, accepted or flagged conflict: it reached the store);
    ``conflicts_missed`` (labelled conflict, anything else). Breakdown per action; confusion
    label → predicted. A labelled fact with no prediction is left out and noted.
    """
    rows, notes = _scored(labels, predictions)
    pairs = [(t, p) for _, t, p in rows]
    table = class_table(pairs, [a for a in ACTIONS if any(a in pair for pair in pairs)])
    if not rows:
        notes.insert(0, "no labelled fact was scored: every rate is undefined")
    kappa = cohen_kappa(pairs)
    if rows and kappa is None:
        notes.append("kappa is undefined: labels and gate both give one and the same action")
    return StageReport(
        stage="validate",
        n=len(rows),
        metrics={
            "agreement": accuracy_of(pairs),
            "kappa": kappa,
            "macro_f1": macro_f1_of(table),
            "wrongly_refused": sum(1 for t, p in pairs if t == "accept" and p == "refuse"),
            "wrongly_written": sum(1 for t, p in pairs if t == "refuse" and p != "refuse"),
            "conflicts_missed": sum(1 for t, p in pairs if t == "conflict" and p != "conflict"),
        },
        breakdown={str(k): v for k, v in table.items()},
        confusion=confusion_table(pairs, ACTIONS) if pairs else None,
        notes=tuple(notes),
    )


def gate_items(
    labels: Sequence[GateLabel], predictions: Iterable[ValidationPrediction]
) -> list[dict[str, Any]]:
    """``{"id", "correct"}`` per scored label (its fact id), for ``--items`` and compare."""
    rows, _ = _scored(labels, predictions)
    return [{"id": ident, "correct": t == p} for ident, t, p in rows]


def gate_labels(gate: object, labels: Sequence[GateLabel]) -> list[ValidationPrediction]:
    """``gate.decide(row.fact)`` per label, as ValidationPredictions on the fact's id.

    ``gate`` is a Gate or a function ``(fact) -> verdict``; the verdict may be a
    ValidationVerdict, any object or mapping with ``action`` (and ``reason``), or an action string.
    An error the gate raises is a PipelineError (exit 1); an answer with no valid action an
    InputError (exit 2).
    """
    decide = bind_stage(gate, "decide")
    out: list[ValidationPrediction] = []
    for i, row in enumerate(labels, start=1):
        verdict = call_stage(decide, row.fact, where=f"label {i} (fact {row.fact.id})")
        decided = as_validation_verdict(verdict)
        out.append(
            ValidationPrediction(id=row.fact.id, action=decided.action, reason=decided.reason)
        )
    return out


def run_validate(gate: object, labels: Sequence[GateLabel]) -> StageReport:
    """Run a gate over the labelled facts and score it (``evaluate_gate``)."""
    return evaluate_gate(labels, gate_labels(gate, labels))
