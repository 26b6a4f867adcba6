"""What ``--validator``, ``--adjudicate`` and ``--lenient`` add to a scored pipeline.

:func:`extend_result` takes the scored pipeline row (``score_pipeline``'s result) and adds, in
order: the ``+ validator`` row (:mod:`.validator_row`), the gold adjudication and the lenient
score of every row (:mod:`openodke.eval.judges`), then the diagnosis of the last row with what
they found (the gate's refusals, the confirmed pairs), the report's ``run.models``,
``run.prompts``, ``run.claim_formats`` and ``calibration`` from the judges that actually ran. It
returns the report, the tables to print beside it and the files to write with ``--items`` and
``--report`` (all or none). :func:`with_small_set_note` adds the note for a set too small for its
ranges, on every path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openodke.eval.diagnosis import gold_view
from openodke.eval.pipeline.evaluate import (
    DiagnosisOptions,
    PipelineInputs,
    PipelineResult,
    score_pipeline,
)
from openodke.eval.pipeline.findings import diagnose_pipeline
from openodke.eval.report.build import small_set
from openodke.eval.report.models import Row
from openodke.types import Fact

if TYPE_CHECKING:  # the judges, the ground model and HTTP load only when an extra is asked for
    from openodke.eval.pipeline.judge_client import GroundModel, Provenance
    from openodke.run.config import RunConfig

__all__ = ["Extended", "Extras", "extend_in_batches", "extend_result", "with_small_set_note"]


def _judge_client() -> Any:
    from openodke.eval.pipeline import judge_client

    return judge_client


@dataclass
class Extras:
    """What the command line asked for beside the strict score, and the model that answers."""

    validator: bool = False
    adjudicate: Path | None = None
    lenient: Path | None = None
    config: RunConfig | None = None
    model: GroundModel | None = None
    allow_failures: float | None = None
    """The share of judge calls that may fail (``--allow-failures``)."""
    batch: bool = False
    """Ask the judges through the provider's batch API (``--batch``, or ``batch: true``)."""
    batch_poll: float | None = None
    """Seconds between the first polls of a batch (``--batch-poll``)."""

    @property
    def active(self) -> bool:
        """True when any of ``--validator``, ``--adjudicate``, ``--lenient`` was given."""
        return self.validator or self.adjudicate is not None or self.lenient is not None

    def close(self) -> None:
        """Close the model's client (its connections and the cache file)."""
        if self.model is not None:
            self.model.close()

    def __enter__(self) -> Extras:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class Extended:
    """The report with the extras, the tables printed after its rows, and the files to write."""

    result: PipelineResult
    tables: list[str] = field(default_factory=list)
    files: list[tuple[Path, str]] = field(default_factory=list)


@dataclass
class _Parts:
    """What the extras add, gathered as they run."""

    rows: list[tuple[str, list[Fact]]]
    notes: list[str]
    stages: list[Any]
    extra_rows: list[Row] = field(default_factory=list)
    sections: dict[str, Any] = field(default_factory=dict)
    refused: list[Fact] | None = None
    pairs: list[Any] | None = None
    provenance: Provenance = field(default_factory=lambda: _judge_client().Provenance())


def extend_in_batches(
    result: PipelineResult,
    inputs: PipelineInputs,
    extras: Extras,
    *,
    written: Sequence[Fact] = (),
    diagnosis: DiagnosisOptions | None = None,
) -> Extended:
    """:func:`extend_result` with the judges' calls sent through the provider's batch API: each
    round of batches runs the extras again on a ground model built anew (its client is the batch
    chain, its meter counts the last run only); the scored row is not made again."""
    import dataclasses

    from openodke.llm.batch import BatchEngine, run_batched

    assert extras.model is not None, "extras need the ground model"
    options = extras.model.options

    def job() -> Extended:
        model = _judge_client().GroundModel(extras.config, options)
        try:
            renewed = dataclasses.replace(extras, model=model)
            return extend_result(result, inputs, renewed, written=written, diagnosis=diagnosis)
        finally:
            model.close()

    return run_batched(job, BatchEngine(poll=extras.batch_poll))


def extend_result(
    result: PipelineResult,
    inputs: PipelineInputs,
    extras: Extras,
    *,
    written: Sequence[Fact] = (),
    diagnosis: DiagnosisOptions | None = None,
) -> Extended:
    """``result`` with what ``extras`` asks for (see the module docstring).

    ``written`` is the pipeline's output as it wrote it (the Validator reads that, not the facts
    aligned to a bench set's names). ``diagnosis`` diagnoses the last row (the ``+ validator``
    row with ``--validator``); None leaves ``result``'s diagnosis as it is.
    """
    if not extras.active:
        return Extended(result=result)
    from openodke.llm.cost import stage_cost_text

    model = extras.model
    assert model is not None, "extras need the ground model"
    report = result.report
    out = Extended(result=result)
    parts = _Parts(
        rows=[(report.rows[0].name, list(result.facts))],
        notes=list(report.notes),
        stages=list(report.stages),
    )
    if extras.validator:
        assert extras.config is not None, "--validator needs a run config"
        out.tables.append(_validator(parts, extras.config, written, inputs, model, report.title))
    for path, ask in ((extras.adjudicate, _adjudicate), (extras.lenient, _lenient)):
        if path is not None:
            table, lines = ask(parts, inputs, model, path, extras.allow_failures)
            out.tables.append(table)
            out.files.append((path, lines))
    findings = result.findings
    if diagnosis is not None:
        findings = _diagnose(parts, inputs, diagnosis)
        parts.sections.update(diagnosis=findings.diagnosis.rows(), fixes=findings.fixes)
    costs = model.costs()
    if costs:
        parts.notes.append(
            "model cost: "
            + "; ".join(
                f"{_ROLE.get(use, use)} "
                + (f"{cost.calls:,} calls" if model.replayed else stage_cost_text(cost))
                for use, cost in sorted(costs.items())
            )
            + (" (recorded answers: no tokens, no cost)" if model.replayed else "")
        )
    made = report.model_copy(
        update={
            **parts.sections,
            "rows": [*report.rows, *parts.extra_rows],
            "stages": parts.stages,
            "notes": parts.notes,
            "calibration": parts.provenance.calibration(model.cards),
            "run": _run_info(report, parts.provenance, extras.config),
        }
    )
    out.result = PipelineResult(
        report=made, score=result.score, facts=result.facts, findings=findings
    )
    return out


_ROLE = {
    "validator": "ground (validator)",
    "adjudicate": "judge (adjudicate)",
    "lenient": "judge (lenient)",
}


def _validator(
    parts: _Parts,
    config: RunConfig,
    written: Sequence[Fact],
    inputs: PipelineInputs,
    model: GroundModel,
    title: str,
) -> str:
    """The ``+ validator`` row (and its official row), its stages and notes; the refusals."""
    from openodke.eval.pipeline.validator_row import (
        ROW,
        refused_stage,
        render_refused,
        run_validator,
    )

    run = run_validator(config, written, inputs.documents, model)
    parts.provenance.add_stats(run.stats)
    scored = score_pipeline(
        run.written, inputs, name=ROW, usage=model.usage("validator"), title=title
    )
    for row in scored.report.rows:
        official = row.name == "official"
        parts.extra_rows.append(
            row.model_copy(update={"name": f"{ROW} (official)"}) if official else row
        )
    parts.stages.append(scored.report.stages[0].model_copy(update={"stage": f"extract ({ROW})"}))
    parts.stages.append(refused_stage(run))
    parts.notes += [f"{ROW}: {n}" for n in scored.report.notes if n not in parts.notes]
    parts.rows.append((ROW, list(scored.facts)))
    parts.refused = _aligned(inputs, [fact for fact, _ in run.refused])
    return render_refused(run)


def _diagnose(parts: _Parts, inputs: PipelineInputs, options: DiagnosisOptions) -> Any:
    """The last row's diagnosis and fixes, with the gate's refusals and the confirmed pairs."""
    name, facts = parts.rows[-1]
    view = gold_view(inputs.gold, facts, documents=[d.id for d in inputs.documents])
    if len(parts.rows) > 1:
        parts.notes.append(
            f"where it loses facts and what should change are of the last row, {name}"
        )
    return diagnose_pipeline(
        view,
        inputs,
        trace=options.trace,
        reference=options.reference,
        examples=options.examples,
        row=name,
        track_record=options.track_record,
        validator=parts.refused,
        lenient=parts.pairs,
    )


def _run_info(report: Any, provenance: Provenance, config: RunConfig | None) -> Any:
    """``run`` with the models, prompts and claim formats that ran, and the config read."""
    run = report.run
    inputs = dict(run.inputs)
    if config is not None and config.path is not None:
        inputs["config"] = str(config.path)
    return run.model_copy(
        update={
            "models": {**run.models, **provenance.models},
            "prompts": list(dict.fromkeys([*run.prompts, *provenance.prompts])),
            "claim_formats": {**(run.claim_formats or {}), **provenance.claim_formats},
            "inputs": inputs,
        }
    )


def with_small_set_note(result: PipelineResult) -> PipelineResult:
    """``result`` with the note for a set too small for its ranges (DECISIONS #41), once."""
    note = small_set(result.score)
    if note is None or note in result.report.notes:
        return result
    report = result.report.model_copy(update={"notes": [*result.report.notes, note]})
    return PipelineResult(
        report=report, score=result.score, facts=result.facts, findings=result.findings
    )


def _aligned(inputs: PipelineInputs, facts: list[Fact]) -> list[Fact]:
    """Refused facts under the gold's names on a bench set, as the rows are scored."""
    if inputs.bench is None or not facts:
        return facts
    aligned, _ = inputs.bench.align(facts)  # type: ignore[attr-defined]
    return list(aligned)


def _lines(rows: Sequence[Any]) -> str:
    return "".join(row.model_dump_json() + "\n" for row in rows)


def _adjudicate(
    parts: _Parts,
    inputs: PipelineInputs,
    model: GroundModel,
    path: Path,
    allow: float | None = None,
) -> tuple[str, str]:
    """The adjudication section of every row; its table and the list's lines."""
    from openodke.eval.judges import adjudicate
    from openodke.eval.judges.adjudicate import llm_grounders

    make = llm_grounders(
        model.roles,
        client=model.client("adjudicate"),
        max_workers=model.max_workers,
        progress=model.options.progress,
        **model.grounder_options(),
    )
    made: list[Any] = []

    def grounder(repeat: int) -> Any:
        made.append(make(repeat))
        return made[-1]

    outcome = adjudicate(
        parts.rows,
        inputs.gold,
        inputs.documents,
        grounder,
        labelled=[d.id for d in inputs.documents],
        max_workers=model.max_workers,
        list_path=path,
        cards=model.cards,
        allow_failures=allow,
    )
    for used in made:
        parts.provenance.add_grounder(used)
    parts.sections["adjudication"] = outcome.section
    parts.notes += outcome.notes
    return outcome.table, _lines(outcome.items)


def _lenient(
    parts: _Parts,
    inputs: PipelineInputs,
    model: GroundModel,
    path: Path,
    allow: float | None = None,
) -> tuple[str, str]:
    """The lenient section of every row and the last row's pairs; its table and the pairs."""
    from openodke.eval.equivalence import FACT_EQUIV, FactJudge, lenient_score

    judge = FactJudge(client=model.client("lenient"), roles=model.roles)
    outcome = lenient_score(
        parts.rows,
        inputs.gold,
        inputs.documents,
        judge,
        labelled=[d.id for d in inputs.documents],
        max_workers=model.max_workers,
        pairs_path=path,
        cards=model.cards,
        allow_failures=allow,
    )
    if outcome.tally.calls:
        parts.provenance.add_judge("ground", judge.model, FACT_EQUIV)
    parts.sections["lenient"] = outcome.section
    parts.notes += outcome.notes
    last = parts.rows[-1][0]
    parts.pairs = [pair for pair in outcome.pairs if last in pair.rows]
    return outcome.table, _lines(outcome.pairs)
