"""The eval report (schema_version "1.4"): building it from scored rows, checking, reading, writing.

``extraction_rows`` scores each named run against gold with 95% expanded BCa bootstrap ranges
over documents (2,000 draws, seed 0; DECISIONS #40); ``from_stage`` wraps a StageReport and rows into an EvalReport.
``check_report`` lists every mismatch with the committed JSON Schema; ``read_report`` reads a later
minor for the fields it knows and refuses another major (DECISIONS #52); ``write_report`` checks
and writes atomically.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from openodke import __version__
from openodke.eval.compare import Comparison
from openodke.eval.report.io import (
    check_report,
    read_report,
    report_json,
    report_schema,
    write_report,
)
from openodke.eval.report.models import (
    SCHEMA_VERSION,
    Bootstrap,
    Cost,
    Counts,
    EvalReport,
    Latency,
    Performance,
    Row,
    RunInfo,
    Value,
)
from openodke.eval.stages.extract import ExtractionScore, score_facts, small_set
from openodke.eval.stages.labels import GoldFact
from openodke.eval.stages.stage_report import StageReport
from openodke.eval.stats import document_intervals
from openodke.types import Fact

if TYPE_CHECKING:  # the report reads a meter's numbers, never loads the model layer
    from openodke.llm.cost import StageCost

__all__ = [
    "SCHEMA_VERSION",
    "EvalReport",
    "Usage",
    "check_report",
    "extraction_rows",
    "from_comparison",
    "from_stage",
    "read_report",
    "report_json",
    "report_schema",
    "row_from_score",
    "small_set",
    "usage_of",
    "write_report",
]

RESAMPLES, SEED, LEVEL = 2000, 0, 0.95

Usage = tuple[Cost, Latency]
"""A run's model cost and latency, when it has them."""


def usage_of(cost: StageCost) -> Usage:
    """One metered stage's calls, tokens, USD and time as a report row's ``cost`` and ``latency``."""
    seconds = round(cost.latency_s, 6)
    return (
        Cost(
            calls=cost.calls,
            cached=cost.cached,
            prompt_tokens=cost.prompt_tokens,
            completion_tokens=cost.completion_tokens,
            usd=cost.cost_usd,
            priced_usd=cost.priced_usd,
            unpriced_calls=cost.unpriced,
        ),
        Latency(
            calls=cost.calls,
            seconds=seconds if cost.calls else None,
            per_call=round(seconds / cost.calls, 6) if cost.calls else None,
        ),
    )


def row_from_score(
    name: str,
    score: ExtractionScore,
    *,
    usage: Usage | None = None,
    resamples: int = RESAMPLES,
    seed: int | None = SEED,
    level: float = LEVEL,
) -> Row:
    """One report row: micro P/R/F1 with bootstrap ranges over the labelled documents.

    A false positive citing no document belongs to none, so it is added to every draw.
    """
    tp, fp, fn = score.document_counts()
    ranges = document_intervals(
        tp, fp, fn, resamples=resamples, seed=seed, level=level, fixed_fp=score.uncited_fp
    )
    counts = score.matching.counts()
    performance = Performance(
        **{m: Value(**ranges[m].model_dump()) for m in ("precision", "recall", "f1")}
    )
    cost, latency = usage if usage is not None else (Cost(), Latency())
    return Row(
        name=name,
        performance=performance,
        counts=Counts(
            hits=counts["tp"],
            over_extraction=counts["fp"],
            under_extraction=counts["fn"],
            predicted=score.n_predicted,
            gold=counts["tp"] + counts["fn"],
            uncited=score.uncited,
            unscored=score.unscored,
            documents=len(score.matching.documents),
        ),
        cost=cost,
        latency=latency,
    )


def extraction_rows(
    runs: Sequence[tuple[str, Sequence[Fact], Usage | None]],
    gold: Sequence[GoldFact],
    *,
    documents: Iterable[str] | None = None,
    resamples: int = RESAMPLES,
    seed: int | None = SEED,
    level: float = LEVEL,
) -> tuple[list[Row], Bootstrap]:
    """Score each ``(name, facts, usage)`` against ``gold``: report rows and how they were drawn.

    Every row is resampled over the same documents with the same seed, so rows are comparable.
    """
    labelled = list(documents) if documents is not None else None
    rows = []
    units = 0
    for name, facts, usage in runs:
        score = score_facts(gold, facts, labelled)
        units = len(score.matching.documents)
        rows.append(
            row_from_score(name, score, usage=usage, resamples=resamples, seed=seed, level=level)
        )
    if not runs:
        units = len(set(row.doc_id for row in gold) | set(labelled or ()))
    return rows, Bootstrap(units=units, resamples=resamples, seed=seed, level=level)


def from_comparison(comparison: Comparison, *, title: str | None = None) -> EvalReport:
    """An EvalReport holding what ``odke eval compare`` found."""
    primary = comparison.primary
    return EvalReport(
        title=title or f"compare {comparison.a} {comparison.b}",
        n=primary.items,
        run=RunInfo(openodke=__version__),
        bootstrap=Bootstrap(
            unit=comparison.unit,
            units=primary.items,
            resamples=primary.resamples,
            seed=primary.seed,
            level=primary.level,
            # compare's defaults (DECISIONS #42): items percentile, documents expanded BCa
            method="percentile" if comparison.unit == "item" else "expanded-bca",
        ),
        rows=[],
        stages=[],
        notes=list(comparison.notes),
        diagnosis=[],
        fixes=[],
        comparison=comparison,
        calibration=[],
    )


def from_stage(
    stage: StageReport,
    *,
    rows: Sequence[Row] = (),
    bootstrap: Bootstrap | None = None,
    title: str | None = None,
    run: RunInfo | None = None,
    notes: Sequence[str] = (),
    **sections: Any,
) -> EvalReport:
    """An EvalReport holding one StageReport and the rows scored with it."""
    return EvalReport(
        title=title or f"odke eval {stage.stage}",
        n=stage.n,
        run=run or RunInfo(openodke=__version__),
        bootstrap=bootstrap or Bootstrap(units=0),
        rows=list(rows),
        stages=[stage],
        notes=list(notes),
        diagnosis=sections.pop("diagnosis", []),
        fixes=sections.pop("fixes", []),
        comparison=sections.pop("comparison", None),
        calibration=sections.pop("calibration", []),
        **sections,
    )
