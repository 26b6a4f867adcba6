"""``run_ablation(config, gold)``: one run config scored three ways against one labelled set.

1. **extraction alone**: the config's loaders, chunker, router and extractor (and ``reextract``),
   every candidate kept;
2. **+ grounding**: the same candidates through its grounder, then its gate;
3. **+ corroboration**: the grounded facts (replayed, no new call) through normalize, resolve,
   corroborate, score, the same gate afresh, and inverse partners.

Each stage runs once; nothing is written. Each row is ``evaluate_extraction`` per document by the
ids ``odke run`` gives, and a fact citing several documents (merged across them) scores in each.
A document that failed (an extraction that raised or whose call failed, a grounding call that
failed and left its facts unchecked) makes the ablation fail (PipelineError, exit 1, naming each
document), since the rows would count the failure as misses.

The notes say what grounding and the later stages moved, what the gate kept of the true and the
false candidates (true: the candidate states a gold fact of its document), and what refusing
``contradicted``, then ``not_found`` as well, would keep.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from openodke.eval.engine.matching import DUPLICATE, HIT, UNSCORED
from openodke.eval.stages.extract import score_facts
from openodke.eval.stages.labels import GoldFact
from openodke.eval.stages.stage_report import StageReport, f1_of, safe_div
from openodke.types import Fact, GroundingVerdict

if TYPE_CHECKING:
    from openodke.run import RunConfig, RunOptions

__all__ = ["ROWS", "gate_notes", "per_document", "run_ablation", "truth_of"]

ROWS = ("extraction alone", "+ grounding", "+ corroboration")
"""The ablation's rows, in order (``openodke.run.ablate.ROWS``)."""


def per_document(facts: Sequence[Fact]) -> list[Fact]:
    """Each fact once per document it cites, citing that document alone; a fact citing nothing
    stays as it is. Scoring needs none of this (the engine scores a fact in each document it
    cites); it is for writing facts per document (a benchmark's submission)."""
    out: list[Fact] = []
    for fact in facts:
        docs = fact.doc_ids
        if len(docs) <= 1:
            out.append(fact)
            continue
        for doc in docs:
            evidence = tuple(e for e in fact.evidence if e.doc_id == doc)
            out.append(fact.model_copy(update={"evidence": evidence}))
    return out


def _row(gold: Sequence[GoldFact], facts: Sequence[Fact], calls: int) -> dict[str, Any]:
    metrics = score_facts(gold, facts).report().metrics
    return {
        "precision": metrics["precision"],
        "recall": metrics["recall"],
        "f1": metrics["f1"],
        "tp": metrics["tp"],
        "fp": metrics["fp"],
        "fn": metrics["fn"],
        "facts": len(facts),
        "model_calls": calls,
    }


def truth_of(gold: Sequence[GoldFact], candidates: Sequence[Fact]) -> list[bool | None]:
    """Per candidate: True when it states a gold fact of a document it cites, False when it is
    wrong there, None when it cites only unlabelled documents."""
    score = score_facts(gold, candidates)
    status = score.matching.pred_status
    assert score.predicted is not None  # score_facts keeps its columns
    fact = score.predicted.fact_of(np.arange(len(status)))  # a row per document cited
    true = np.zeros(len(candidates), dtype=bool)
    true[fact[np.isin(status, (HIT, DUPLICATE))]] = True
    false = np.zeros(len(candidates), dtype=bool)
    false[fact[~np.isin(status, (HIT, DUPLICATE, UNSCORED))]] = True
    return [
        True if t else (False if f else None)
        for t, f in zip(true.tolist(), false.tolist(), strict=True)
    ]


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _moved(what: str, before: dict[str, Any], after: dict[str, Any]) -> str:
    recall = f"recall {_fmt(before['recall'])} → {_fmt(after['recall'])}"
    if (before["tp"], before["fp"]) == (after["tp"], after["fp"]) or before["precision"] == after[
        "precision"
    ]:
        return (
            f"{what} did not move precision on these labels ({_fmt(after['precision'])}); {recall}"
        )
    return (
        f"{what} moved precision from {_fmt(before['precision'])} to "
        f"{_fmt(after['precision'])}; {recall}"
    )


def _keeps(
    truth: list[bool | None], grounded: Sequence[Fact], refused: set[GroundingVerdict]
) -> tuple[int, int, str]:
    kept_true = sum(
        1 for t, f in zip(truth, grounded, strict=True) if t is True and f.verdict not in refused
    )
    kept_false = sum(
        1 for t, f in zip(truth, grounded, strict=True) if t is False and f.verdict not in refused
    )
    return kept_true, kept_false, _fmt(safe_div(kept_true, kept_true + kept_false))


def gate_notes(
    truth: list[bool | None],
    grounded: Sequence[Fact],
    kept: list[bool],
    gate: Any,
    judged: bool,
) -> list[str]:
    n_true = sum(1 for t in truth if t is True)
    n_false = sum(1 for t in truth if t is False)
    kept_true = sum(1 for t, k in zip(truth, kept, strict=True) if t is True and k)
    kept_false = sum(1 for t, k in zip(truth, kept, strict=True) if t is False and k)
    notes = [
        f"of the {n_true + n_false} extracted facts, {n_true} are true: the gate kept {kept_true} "
        f"of them and {kept_false} of the {n_false} false ones"
    ]
    contradicted = {GroundingVerdict.contradicted}
    both = {GroundingVerdict.contradicted, GroundingVerdict.not_found}
    a, b, p = _keeps(truth, grounded, contradicted)
    c, d, q = _keeps(truth, grounded, both)
    refuses_not_found = bool(getattr(gate, "refuse_not_found", False))
    would = (
        f"refusing contradicted would keep {a} of {n_true} true facts and {b} of {n_false} false "
        f"ones (precision {p})"
    )
    calibrated = getattr(gate, "calibrated", None)
    enforce = bool(getattr(gate, "enforce", False))
    if calibrated is None:
        notes.append(f"the gate does not refuse by grounding verdict; {would}")
    elif judged and not calibrated and not enforce:
        notes.append(
            "the gate marks what the grounder refuses for review instead of dropping it (its card "
            f"is below the bar, DECISIONS #54); {would}"
        )
    else:
        why = "enforce is set" if enforce else "its card meets the bar"
        notes.append(
            f"the gate refuses what the grounder refuses ({why}); refusing contradicted keeps {a} "
            f"of {n_true} true facts and {b} of {n_false} false ones (precision {p})"
        )
    as_this = ", as this gate does," if refuses_not_found else ""
    verb = "keeps" if refuses_not_found else "would keep"
    notes.append(
        f"refusing not_found as well{as_this} {verb} {c} of {n_true} true facts and {d} of "
        f"{n_false} false ones (precision {q})"
    )
    if not judged:
        notes.append("no model grounded these facts: their verdicts come from the free checks")
    return notes


def run_ablation(
    config: RunConfig, gold: Sequence[GoldFact], *, options: RunOptions | None = None
) -> StageReport:
    """The three rows as a StageReport: ``breakdown[row]`` has ``precision``, ``recall``, ``f1``,
    ``tp``, ``fp``, ``fn``, ``facts`` and ``model_calls`` (cumulative: later rows replay earlier
    calls); the notes as the module docstring says. Raises PipelineError (exit 1) naming each
    failed document."""
    from dataclasses import replace

    from openodke.llm.cost import stage_cost_text
    from openodke.run import RunOptions, build
    from openodke.run.ablate import ablate

    gold = list(gold)
    with build(config, replace(options or RunOptions(), meter=True)) as pipeline:
        done = ablate(pipeline)
        meter = pipeline.clients.meter
        costs = meter.report().stages if meter is not None else {}
    rows = {name: _row(gold, facts, done.calls[name]) for name, facts in done.rows.items()}
    candidates, grounded, gate = done.candidates, done.grounded, done.gate
    truth = truth_of(gold, candidates)
    notes = [
        *done.notes,
        _moved("grounding", rows[ROWS[0]], rows[ROWS[1]]),
        _moved("normalising, resolving and corroborating", rows[ROWS[1]], rows[ROWS[2]]),
        *gate_notes(truth, grounded, done.kept, gate, done.judged),
    ]
    unscored = sum(1 for t in truth if t is None)
    if unscored:
        notes.append(f"{unscored} extracted facts cite only unlabelled documents: not scored")
    if costs:
        notes.append(
            "model cost: "
            + "; ".join(f"{role} {stage_cost_text(cost)}" for role, cost in costs.items())
        )
    notes.append(
        "rows score per document by the ids odke run gives; a fact merged across documents "
        "scores in each; later rows replay earlier facts, so model_calls is cumulative"
    )
    last = rows[ROWS[2]]
    return StageReport(
        stage="ablation",
        n=len(gold),
        metrics={
            "facts": len(candidates),
            "true": sum(1 for t in truth if t is True),
            "false": sum(1 for t in truth if t is False),
            "model_calls": last["model_calls"],
            "precision": last["precision"],
            "recall": last["recall"],
            "f1": f1_of(last["precision"], last["recall"]),
        },
        breakdown=rows,
        notes=tuple(notes),
    )
