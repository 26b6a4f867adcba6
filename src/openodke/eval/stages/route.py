"""The route stage: does a router send on the text with facts in it, and skip the rest?"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from openodke.eval.stages.ground import (
    accuracy_of,
    class_table,
    confusion_table,
    join_predictions,
    macro_f1_of,
)
from openodke.eval.stages.labels import RouteLabel, RoutePrediction
from openodke.eval.stages.stage_report import StageReport, safe_div
from openodke.protocols import as_route_verdict, bind_stage, call_stage

__all__ = ["ROUTE_ACTIONS", "evaluate_routing", "route_labels", "routing_items", "run_route"]

ROUTE_ACTIONS = ("extract", "skip", "defer")
"""A router's actions, in report order."""

NO_LABEL = "(no label)"
"""The breakdown row for labelled rows that carry no ``label``; a missing predicted label reads
``(none)`` in the label scores."""


def _scored(
    labels: Sequence[RouteLabel], predictions: Iterable[RoutePrediction]
) -> tuple[list[tuple[RouteLabel, RoutePrediction]], list[str]]:
    joined, notes = join_predictions([r.id for r in labels], predictions, key=lambda p: p.id)
    rows = [(r, p) for r, p in zip(labels, joined, strict=True) if p is not None]
    return rows, notes


def evaluate_routing(
    labels: Sequence[RouteLabel], predictions: Iterable[RoutePrediction]
) -> StageReport:
    """Score a router's actions and labels, joined on ``id``.

    Metrics, over the labelled rows that have a prediction:

    - ``action_accuracy``: the predicted action equals the labelled one.
    - ``extract_precision``: of rows predicted extract, the share labelled extract;
      ``extract_recall``: of rows labelled extract, the share predicted extract; ``extract_f1``
      = 2·tp / (2·tp + fp + fn) over those counts.
    - ``skip_precision``, ``skip_recall``: the same for skip.
    - ``facts_skipped``: rows labelled extract (they hold facts) that were predicted skip;
      ``facts_skipped_rate``: that over the rows labelled extract.
    - ``facts_deferred``: rows labelled extract that were predicted defer.
    - ``wasted_extractions``: rows labelled skip that were predicted extract (an extraction
      spent on text with nothing to find).
    - ``label_accuracy``: over rows whose label carries a ``label``, the share predicted with the
      same one; ``label_macro_f1``: macro F1 over those gold labels (a missing predicted label
      counts as the class ``(none)``). Both None when no row carries a label.

    Breakdown per gold label (``(no label)`` for rows without one): ``n``, ``action_accuracy``,
    ``facts_skipped``, and that label's ``precision``, ``recall`` and ``f1``. Confusion: labelled
    action → predicted action.
    """
    rows, notes = _scored(labels, predictions)
    actions = [(r.action, p.action) for r, p in rows]
    by_action = class_table(actions, ROUTE_ACTIONS)
    extract, skip = by_action["extract"], by_action["skip"]
    labelled_extract = extract["n"]
    facts_skipped = sum(1 for t, p in actions if t == "extract" and p == "skip")
    named = [(r.label, p.label if p.label is not None else "(none)") for r, p in rows if r.label]
    gold_names = list(dict.fromkeys(t for t, _ in named))
    by_label = class_table(named, gold_names)
    if not rows:
        notes.insert(0, "no labelled row was scored: every rate is undefined")
    elif not named:
        notes.append(
            "no labelled row carries a label: label_accuracy and label_macro_f1 are undefined"
        )
    return StageReport(
        stage="route",
        n=len(rows),
        metrics={
            "action_accuracy": accuracy_of(actions),
            "extract_precision": extract["precision"],
            "extract_recall": extract["recall"],
            "extract_f1": extract["f1"],
            "skip_precision": skip["precision"],
            "skip_recall": skip["recall"],
            "facts_skipped": facts_skipped,
            "facts_skipped_rate": safe_div(facts_skipped, labelled_extract),
            "facts_deferred": sum(1 for t, p in actions if t == "extract" and p == "defer"),
            "wasted_extractions": sum(1 for t, p in actions if t == "skip" and p == "extract"),
            "label_accuracy": accuracy_of(named),
            "label_macro_f1": macro_f1_of(by_label),
        },
        breakdown=_per_label(rows, by_label),
        confusion=confusion_table(actions, ROUTE_ACTIONS) if actions else None,
        notes=tuple(notes),
    )


def _per_label(
    rows: Sequence[tuple[RouteLabel, RoutePrediction]], by_label: dict[Any, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[tuple[RouteLabel, RoutePrediction]]] = {}
    for r, p in rows:
        groups.setdefault(r.label or NO_LABEL, []).append((r, p))
    breakdown: dict[str, dict[str, Any]] = {}
    for name, members in groups.items():
        scores = by_label.get(name, {})
        breakdown[name] = {
            "n": len(members),
            "action_accuracy": accuracy_of([(r.action, p.action) for r, p in members]),
            "facts_skipped": sum(
                1 for r, p in members if r.action == "extract" and p.action == "skip"
            ),
            "precision": scores.get("precision"),
            "recall": scores.get("recall"),
            "f1": scores.get("f1"),
        }
    return breakdown


def routing_items(
    labels: Sequence[RouteLabel], predictions: Iterable[RoutePrediction]
) -> list[dict[str, Any]]:
    """``{"id", "correct"}`` per scored row; correct means the action matches the label's."""
    rows, _ = _scored(labels, predictions)
    return [{"id": r.id, "correct": r.action == p.action} for r, p in rows]


def route_labels(router: object, labels: Sequence[RouteLabel]) -> list[RoutePrediction]:
    """``router.route(row.text)`` per label, as RoutePredictions on the row's id.

    ``router`` is a Router or a function ``(text) -> verdict``; the verdict may be a RouteVerdict,
    any object or mapping with ``action`` (and ``label``), or an action string. An error the
    router raises is a PipelineError (exit 1); an answer with no valid action an InputError.
    """
    route = bind_stage(router, "route")
    out: list[RoutePrediction] = []
    for i, row in enumerate(labels, start=1):
        verdict = as_route_verdict(call_stage(route, row.text, where=f"label {i} (id {row.id})"))
        out.append(RoutePrediction(id=row.id, action=verdict.action, label=verdict.label))
    return out


def run_route(router: object, labels: Sequence[RouteLabel]) -> StageReport:
    """Run a router over the labelled texts and score it (``evaluate_routing``)."""
    return evaluate_routing(labels, route_labels(router, labels))
