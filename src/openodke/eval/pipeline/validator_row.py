"""The ``+ validator`` row: what the Validator writes from the same output.

``odke eval pipeline --validator`` sends the pipeline's facts, as it wrote them, through the
Validator built from a run config's stages (``--config``, or a bench set's ``odke.json``;
``openodke.run.validate_facts``: stages the config leaves out get the Validator's defaults, the
config's extractor is never run). The facts it writes are scored as a row of their own; the
facts its gate refused are listed, fill the diagnosis's "refused by the Validator" bucket and
the precision side's ``refused_not_in_gold``. A run in which a document failed (a grounding call
that failed and left its facts unchecked) is not scored: PipelineError (exit 1) naming each
document, as the ablation does, since the row would count the failure as misses.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openodke.errors import PipelineError
from openodke.eval.judges.claims import claim_text
from openodke.eval.pipeline.judge_client import GroundModel
from openodke.eval.stages.stage_report import StageReport
from openodke.gate import reason_kind
from openodke.run import RunOptions, validate_facts
from openodke.run.config import RunConfig
from openodke.run.execute import failed_documents
from openodke.types import Document, Fact, GroundingVerdict
from openodke.validate import ValidationReport

__all__ = ["ROW", "ValidatorRun", "refused_stage", "render_refused", "run_validator"]

ROW = "+ validator"
"""The row's name in the report."""

SHOWN = 20
"""Refused facts printed; the report's ``stages[validator]`` lists every one."""


@dataclass
class ValidatorRun:
    """What the Validator wrote and refused from the pipeline's facts, and how it went."""

    written: list[Fact]
    refused: list[tuple[Fact, str]]
    report: ValidationReport
    stats: dict[str, Any]


def _failed(facts: Sequence[Fact]) -> dict[str, str]:
    failed: dict[str, str] = {}
    for fact in facts:
        if fact.verdict is GroundingVerdict.unchecked:
            for doc in fact.doc_ids or ("(uncited)",):
                failed.setdefault(doc, "a grounding call failed and left its facts unchecked")
    return failed


def run_validator(
    config: RunConfig,
    facts: Sequence[Fact],
    documents: Sequence[Document],
    model: GroundModel,
) -> ValidatorRun:
    """The Validator's stages from ``config`` over ``facts``, its model calls through ``model``.

    PipelineError (exit 1) naming each document whose grounding failed; nothing is scored.
    """
    options = RunOptions(
        max_workers=model.options.max_workers,
        progress=model.options.progress,
        clients={"ground": model.client("validator")},
    )
    graph, report, refused = validate_facts(config, facts, documents, options=options)
    if report.failed:
        failed = _failed([*graph.facts, *(fact for fact, _ in refused)])
        if failed:
            raise PipelineError(
                f"--validator: {failed_documents(failed)}; not scored ({report.failed} of "
                f"{report.calls} grounding calls failed)"
            )
    return ValidatorRun(list(graph.facts), list(refused), report, dict(graph.stats))


def refused_stage(run: ValidatorRun) -> StageReport:
    """The Validator's counts, and every refused fact (``breakdown``, by fact id)."""
    r = run.report
    metrics: dict[str, float | int | None] = {
        "facts_in": r.facts_in,
        "unmatched": r.unmatched,
        "refused": r.refused,
        "marked": r.marked,
        "merged": r.merged,
        "derived": r.derived,
        "facts_out": r.facts_out,
        "calls": r.calls,
        "failed": r.failed,
    }
    metrics.update({f"refused: {k}": v for k, v in sorted(r.refused_by.items())})
    breakdown = {
        fact.id: {
            "doc_id": fact.doc_ids[0] if fact.doc_ids else None,
            "claim": claim_text(fact),
            "verdict": fact.verdict.value,
            "reason": reason,
        }
        for fact, reason in run.refused
    }
    kinds = Counter(reason_kind(reason) for _, reason in run.refused)
    notes = [
        f"the Validator refused {r.refused} of {r.facts_in} facts"
        + (f" ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})" if kinds else "")
        + f", marked {r.marked} for review and merged {r.merged}; each refused fact is listed"
    ]
    return StageReport(
        stage="validator", n=r.facts_in, metrics=metrics, breakdown=breakdown, notes=tuple(notes)
    )


def render_refused(run: ValidatorRun, shown: int = SHOWN) -> str:
    """The refused facts as ``odke eval pipeline`` prints them (the first ``shown``)."""
    count = len(run.refused)
    head = f"refused by the Validator  ({count} of {run.report.facts_in} facts)"
    if not count:
        return head + "\n  none: its gate refused nothing"
    lines = [head]
    for fact, reason in run.refused[:shown]:
        doc = fact.doc_ids[0] if fact.doc_ids else "(uncited)"
        lines.append(f"  {doc}: {claim_text(fact)}  ({reason})")
    if count > shown:
        lines.append(f"  … and {count - shown} more: the report's stages[validator] lists each")
    return "\n".join(lines)
