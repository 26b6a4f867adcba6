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
from typing import Any

from openodke.eval.diagnosis import gold_view
from openodke.eval.pipeline.evaluate import (
    DiagnosisOptions,
    PipelineInputs,
    PipelineResult,
    score_pipeline,
)
from openodke.eval.pipeline.findings import diagnose_pipeline
from openodke.eval.pipeline.judge_client import GroundModel, Provenance
from openodke.eval.pipeline.validator_row import (
    ROW,
    refused_stage,
    render_refused,
    run_validator,
)
from openodke.eval.report.build import small_set
from openodke.eval.report.models import Row
from openodke.run.config import RunConfig
from openodke.types import Fact

__all__ = ["Extended", "Extras", "extend_result", "with_small_set_note"]


@dataclass
class Extras:
    """What the command line asked for beside the strict score, and the model that answers."""

    validator: bool = False
    adjudicate: Path | None = None
    lenient: Path | None = None
    config: RunConfig | None = None
    model: GroundModel | None = None

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


def _jsonl(rows: Sequence[Any]) -> str:
    return "".join(row.model_dump_json() + "\n" for row in rows)


def _prefixed(notes: Sequence[str], seen: Sequence[str], prefix: str) -> list[str]:
    return [f"{prefix}{note}" for note in notes if note not in seen]


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
    report = result.report
    notes = list(report.notes)
    if not extras.active:
        return Extended(result=result)
    model = extras.model
    assert model is not None, "extras need the ground model"
    out = Extended(result=result)
    provenance = Provenance()
    name = report.rows[0].name
    rows: list[tuple[str, list[Fact]]] = [(name, list(result.facts))]
    extra_rows: list[Row] = []
    stages = list(report.stages)
    refused: list[Fact] | None = None
    if extras.validator:
        assert extras.config is not None, "--validator needs a run config"
        run = run_validator(extras.config, written, inputs.documents, model)
        provenance.add_stats(run.stats)
        scored = score_pipeline(
            run.written, inputs, name=ROW, usage=model.usage("validator"), title=report.title
        )
        for row in scored.report.rows:
            official = row.name == "official"
            extra_rows.append(
                row.model_copy(update={"name": f"{ROW} (official)"}) if official else row
            )
        stages.append(scored.report.stages[0].model_copy(update={"stage": f"extract ({ROW})"}))
        stages.append(refused_stage(run))
        notes += _prefixed(scored.report.notes, notes, f"{ROW}: ")
        rows.append((ROW, list(scored.facts)))
        refused = _aligned(inputs, [fact for fact, _ in run.refused])
        out.tables.append(render_refused(run))
    update: dict[str, Any] = {}
    pairs: list[Any] | None = None
    if extras.adjudicate is not None:
        section, table, items, more = _adjudicate(
            rows, inputs, model, extras.adjudicate, provenance
        )
        update["adjudication"] = section
        out.tables.append(table)
        out.files.append((extras.adjudicate, _jsonl(items)))
        notes += more
    if extras.lenient is not None:
        section, table, judged, more = _lenient(rows, inputs, model, extras.lenient, provenance)
        update["lenient"] = section
        out.tables.append(table)
        out.files.append((extras.lenient, _jsonl(judged)))
        notes += more
        pairs = [p for p in judged if rows[-1][0] in p.rows]
    findings = None
    if diagnosis is not None:
        view = gold_view(inputs.gold, rows[-1][1], documents=[d.id for d in inputs.documents])
        findings = diagnose_pipeline(
            view,
            inputs,
            trace=diagnosis.trace,
            reference=diagnosis.reference,
            examples=diagnosis.examples,
            row=rows[-1][0],
            track_record=diagnosis.track_record,
            validator=refused,
            lenient=pairs,
        )
        update.update(diagnosis=findings.diagnosis.rows(), fixes=findings.fixes)
        if len(rows) > 1:
            notes.append(f"where it loses facts and what should change are of the last row, {ROW}")
    calls = model.calls()
    run_info = report.run.model_copy(
        update={
            "models": {**report.run.models, **provenance.models},
            "prompts": list(dict.fromkeys([*report.run.prompts, *provenance.prompts])),
            "claim_formats": {**(report.run.claim_formats or {}), **provenance.claim_formats},
            "inputs": {**report.run.inputs, **_config_input(extras.config)},
        }
    )
    if calls:
        notes.append(
            "model calls: "
            + ", ".join(f"{use} {n:,}" for use, n in sorted(calls.items()))
            + (" (recorded answers)" if model.replayed else "")
        )
    update.update(
        rows=[*report.rows, *extra_rows],
        stages=stages,
        notes=notes,
        calibration=provenance.calibration(model.cards),
        run=run_info,
    )
    made = report.model_copy(update=update)
    out.result = PipelineResult(
        report=made,
        score=result.score,
        facts=result.facts,
        findings=findings if findings is not None else result.findings,
    )
    return out


def with_small_set_note(result: PipelineResult) -> PipelineResult:
    """``result`` with the note for a set too small for its ranges (DECISIONS #41), once."""
    note = small_set(result.score)
    if note is None or note in result.report.notes:
        return result
    report = result.report.model_copy(update={"notes": [*result.report.notes, note]})
    return PipelineResult(
        report=report, score=result.score, facts=result.facts, findings=result.findings
    )


def _config_input(config: RunConfig | None) -> dict[str, str]:
    if config is None or config.path is None:
        return {}
    return {"config": str(config.path)}


def _aligned(inputs: PipelineInputs, facts: list[Fact]) -> list[Fact]:
    """Refused facts under the gold's names on a bench set, as the rows are scored."""
    if inputs.bench is None or not facts:
        return facts
    aligned, _ = inputs.bench.align(facts)  # type: ignore[attr-defined]
    return list(aligned)


def _adjudicate(
    rows: list[tuple[str, list[Fact]]],
    inputs: PipelineInputs,
    model: GroundModel,
    path: Path,
    provenance: Provenance,
) -> tuple[Any, str, list[Any], list[str]]:
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
        rows,
        inputs.gold,
        inputs.documents,
        grounder,
        labelled=[d.id for d in inputs.documents],
        max_workers=model.max_workers,
        list_path=path,
        cards=model.cards,
    )
    for used in made:
        provenance.add_grounder(used)
    return outcome.section, outcome.table, outcome.items, outcome.notes


def _lenient(
    rows: list[tuple[str, list[Fact]]],
    inputs: PipelineInputs,
    model: GroundModel,
    path: Path,
    provenance: Provenance,
) -> tuple[Any, str, list[Any], list[str]]:
    from openodke.eval.equivalence import FACT_EQUIV, FactJudge, lenient_score

    judge = FactJudge(client=model.client("lenient"), roles=model.roles)
    outcome = lenient_score(
        rows,
        inputs.gold,
        inputs.documents,
        judge,
        labelled=[d.id for d in inputs.documents],
        max_workers=model.max_workers,
        pairs_path=path,
        cards=model.cards,
    )
    if outcome.tally.calls:
        provenance.add_judge("ground", judge.model, FACT_EQUIV)
    return outcome.section, outcome.table, outcome.pairs, outcome.notes
