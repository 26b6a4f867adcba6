"""The ground stage: how often a grounder's verdict matches the label, and what grounding buys.

Also home to the small classification helpers the gate and route evaluators share: joining
predictions to labels on an id, a confusion table, per-class precision/recall/F1 and macro F1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, TypeVar

from openodke.errors import PipelineError
from openodke.eval.stages.labels import GroundingLabel
from openodke.eval.stages.stage_report import StageReport, safe_div
from openodke.protocols import bind_stage, call_stage
from openodke.types import Fact, GroundingVerdict

__all__ = [
    "accuracy_of",
    "class_table",
    "confusion_table",
    "evaluate_grounding",
    "ground_labels",
    "grounding_ablation",
    "grounding_items",
    "join_predictions",
    "macro_f1_of",
    "run_ground",
]

P = TypeVar("P")

LABEL_VERDICTS = ("supported", "contradicted", "not_found")
"""The verdicts a grounding label can hold, in report order."""

_ALL_VERDICTS = (*LABEL_VERDICTS, "unchecked")


def _ids(ids: Iterable[str], limit: int = 5) -> str:
    shown = list(dict.fromkeys(ids))
    more = f", … ({len(shown) - limit} more)" if len(shown) > limit else ""
    return ", ".join(shown[:limit]) + more


def join_predictions(
    label_ids: Sequence[str], predictions: Iterable[P], key: Callable[[P], str]
) -> tuple[list[P | None], list[str]]:
    """Each label's prediction by id (None when it has none), and notes on what did not join.

    A prediction whose id matches no label is noted and left out, never an error; when an id
    repeats among the predictions the first one counts.
    """
    by_id: dict[str, P] = {}
    repeated: Counter[str] = Counter()
    for prediction in predictions:
        ident = key(prediction)
        if ident in by_id:
            repeated[ident] += 1
        else:
            by_id[ident] = prediction
    wanted = set(label_ids)
    joined = [by_id.get(ident) for ident in label_ids]
    notes: list[str] = []
    missing = [ident for ident, p in zip(label_ids, joined, strict=True) if p is None]
    if missing:
        notes.append(
            f"labels with no prediction of their id, left out: {len(missing)} of "
            f'{len(label_ids)} ({_ids(missing)}); a hand-written label needs an "id"'
        )
    stray = [ident for ident in by_id if ident not in wanted]
    if stray:
        notes.append(f"predictions matching no label, ignored: {len(stray)} ({_ids(stray)})")
    if repeated:
        notes.append(f"repeated prediction ids, the first counts: {_ids(repeated)}")
    return joined, notes


def confusion_table(
    pairs: Sequence[tuple[str, str]], order: Sequence[str]
) -> dict[str, dict[str, int]]:
    """label → predicted → count, rows and columns in ``order`` then first-seen order."""
    seen = list(dict.fromkeys([*order, *(x for pair in pairs for x in pair)]))
    labels = [c for c in seen if any(t == c for t, _ in pairs)]
    predicted = [c for c in seen if any(p == c for _, p in pairs)]
    counts = Counter(pairs)
    return {t: {p: counts[(t, p)] for p in predicted} for t in labels}


def class_table(
    pairs: Sequence[tuple[Hashable, Hashable]], classes: Sequence[Hashable]
) -> dict[Hashable, dict[str, Any]]:
    """Per class: ``n`` labelled, ``predicted``, ``correct``, precision, recall and F1.

    F1 is 2·tp / (2·tp + fp + fn) (van Rijsbergen's F1 written over counts), which equals the
    harmonic mean when precision and recall are both defined and is 0 for a labelled class that
    was never predicted; it is None only when the class occurs nowhere.
    """
    table: dict[Hashable, dict[str, Any]] = {}
    for c in classes:
        tp = sum(1 for t, p in pairs if t == c and p == c)
        n = sum(1 for t, _ in pairs if t == c)
        predicted = sum(1 for _, p in pairs if p == c)
        fp, fn = predicted - tp, n - tp
        table[c] = {
            "n": n,
            "predicted": predicted,
            "correct": tp,
            "precision": safe_div(tp, predicted),
            "recall": safe_div(tp, n),
            "f1": safe_div(2 * tp, 2 * tp + fp + fn),
        }
    return table


def macro_f1_of(table: dict[Hashable, dict[str, Any]]) -> float | None:
    """Unweighted mean F1 over the classes that occur in the labels (None when none does)."""
    scores = [row["f1"] for row in table.values() if row["n"]]
    return sum(scores) / len(scores) if scores else None


def accuracy_of(pairs: Sequence[tuple[Hashable, Hashable]]) -> float | None:
    """Share of pairs whose prediction equals the label; None for no pairs."""
    return safe_div(sum(1 for t, p in pairs if t == p), len(pairs))


def _scored(
    labels: Sequence[GroundingLabel], predictions: Iterable[Fact] | None
) -> tuple[list[tuple[str, str, str]], list[str]]:
    """(fact id, label verdict, predicted verdict) for every label that has a prediction."""
    if predictions is None:
        return [(r.fact.id, r.verdict, r.fact.verdict.value) for r in labels], []
    ids = [r.fact.id for r in labels]
    joined, notes = join_predictions(ids, predictions, key=lambda f: f.id)
    rows: list[tuple[str, str, str]] = [
        (r.fact.id, r.verdict, p.verdict.value)
        for r, p in zip(labels, joined, strict=True)
        if p is not None
    ]
    return rows, notes


def evaluate_grounding(
    labels: Sequence[GroundingLabel], predictions: Iterable[Fact] | None = None
) -> StageReport:
    """Score grounding verdicts against labels.

    ``predictions`` are grounded facts joined to the labels on ``Fact.id``; without them each
    label's own ``fact.verdict`` is scored. Metrics: ``accuracy``; ``macro_f1`` over the label
    verdicts present; ``false_support`` (labelled contradicted or not_found, stamped supported);
    ``lost_support`` (labelled supported, stamped anything else); ``unchecked`` (stamped unchecked:
    scored wrong). Breakdown per verdict; confusion label → predicted.
    """
    rows, notes = _scored(labels, predictions)
    pairs = [(t, p) for _, t, p in rows]
    classes = [v for v in _ALL_VERDICTS if any(v in pair for pair in pairs)]
    table = class_table(pairs, classes)
    if not rows:
        notes.insert(0, "no labelled fact was scored: every rate is undefined")
    unchecked = sum(1 for _, p in pairs if p == "unchecked")
    if unchecked:
        notes.append(f"facts left unchecked, counted wrong: {unchecked}")
    return StageReport(
        stage="ground",
        n=len(rows),
        metrics={
            "accuracy": accuracy_of(pairs),
            "macro_f1": macro_f1_of(table),
            "false_support": sum(1 for t, p in pairs if t != "supported" and p == "supported"),
            "lost_support": sum(1 for t, p in pairs if t == "supported" and p != "supported"),
            "unchecked": unchecked,
        },
        breakdown={str(k): v for k, v in table.items()},
        confusion=confusion_table(pairs, _ALL_VERDICTS) if pairs else None,
        notes=tuple(notes),
    )


def grounding_items(
    labels: Sequence[GroundingLabel], predictions: Iterable[Fact] | None = None
) -> list[dict[str, Any]]:
    """``{"id", "correct"}`` per scored label (its fact id), for ``--items`` and compare."""
    rows, _ = _scored(labels, predictions)
    return [{"id": ident, "correct": t == p} for ident, t, p in rows]


def grounding_ablation(
    labels: Sequence[GroundingLabel],
    grounded: Iterable[Fact],
    *,
    drop: Iterable[str | GroundingVerdict] = ("contradicted", "not_found"),
) -> StageReport:
    """Precision with grounding off (keep every fact) and on (drop the ``drop`` verdicts).

    Both are over the same set: the labelled facts that were grounded (joined on ``Fact.id``); a
    label with no grounded fact is left out and noted. A fact is true when labelled supported.
    ``recall_on`` is the share of true facts grounding kept, so ``1 - recall_on`` is what it cost.
    """
    dropped = {GroundingVerdict(v).value for v in drop}
    joined, join_notes = join_predictions([r.fact.id for r in labels], grounded, key=lambda f: f.id)
    scored = [
        (r.verdict == "supported", p.verdict.value not in dropped)
        for r, p in zip(labels, joined, strict=True)
        if p is not None
    ]
    facts = len(scored)
    true = sum(1 for is_true, _ in scored if is_true)
    kept = sum(1 for _, keep in scored if keep)
    true_kept = sum(1 for is_true, keep in scored if is_true and keep)
    before, after = safe_div(true, facts), safe_div(true_kept, kept)
    recall = safe_div(true_kept, true)
    notes = [_ablation_headline(before, after, true_kept, true, facts)]
    notes += [note.replace("prediction", "grounded fact") for note in join_notes]
    return StageReport(
        stage="ground_ablation",
        n=facts,
        metrics={
            "precision_off": before,
            "precision_on": after,
            "recall_on": recall,
            "recall_cost": None if recall is None else 1 - recall,
            "facts": facts,
            "true_facts": true,
            "kept": kept,
            "true_kept": true_kept,
            "false_kept": kept - true_kept,
        },
        breakdown={
            "grounding off": {"kept": facts, "precision": before, "recall": safe_div(true, true)},
            "grounding on": {"kept": kept, "precision": after, "recall": recall},
        },
        notes=tuple(notes),
    )


def _ablation_headline(
    before: float | None, after: float | None, true_kept: int, true: int, facts: int
) -> str:
    if not facts:
        return "no labelled fact was grounded: precision is undefined with grounding off and on"
    if after is None:
        return f"grounding dropped all {facts} facts: precision with it is undefined (was {before:.3f})"
    if before == after:
        return (
            f"grounding did not move precision on these labels ({before:.3f}), "
            f"keeping {true_kept} of {true} true facts"
        )
    return (
        f"grounding moved precision from {before:.3f} to {after:.3f}, "
        f"keeping {true_kept} of {true} true facts"
    )


def ground_labels(grounder: object, labels: Sequence[GroundingLabel]) -> list[Fact]:
    """``grounder.ground(row.fact, row.as_document())`` per label, each keeping the label's id.

    ``grounder`` is a Grounder or a function ``(fact, document) -> Fact``. An error it raises is a
    PipelineError (exit 1) naming the label.
    """
    ground = bind_stage(grounder, "ground")
    out: list[Fact] = []
    for i, row in enumerate(labels, start=1):
        where = f"label {i} (fact {row.fact.id})"
        result = call_stage(ground, row.fact, row.as_document(), where=where)
        if not isinstance(result, Fact):
            raise _not_a(result, "Fact", where)
        # Positional pairing is certain here, so a grounder that re-ids its copy still joins.
        out.append(
            result if result.id == row.fact.id else result.model_copy(update={"id": row.fact.id})
        )
    return out


def run_ground(grounder: object, labels: Sequence[GroundingLabel]) -> StageReport:
    """Run a grounder over the labelled facts and score it (``evaluate_grounding``)."""
    return evaluate_grounding(labels, ground_labels(grounder, labels))


def _not_a(result: object, expected: str, where: str) -> PipelineError:
    return PipelineError(
        f"the stage returned {type(result).__name__} on {where}, expected {expected}"
    )
