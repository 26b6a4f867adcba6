"""``odke bench run SET``: a prepared set's run config three ways, scored like the benchmark.

The config (``SET/odke.json`` unless another is given) runs as the ablation does
(``openodke.run.ablate``: extraction alone; + grounding; + corroboration, extraction and grounding
called once, then replayed). Each row is scored by :func:`openodke.eval.pipeline.evaluate.
score_pipeline` (our micro row with bootstrap ranges, and the benchmark's own scorer beside it as
``<row> (official)``); each competitor found in the set scores as its own row. The outputs, all
written together: ``report.json`` (EvalReport), ``predictions/<row>.jsonl`` (``{"id",
"triples"}`` per document), ``items/<row>.jsonl`` (per-document counts for ``odke eval compare``)
and ``rejections.jsonl`` (the extractor's rejected candidates).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openodke import __version__
from openodke.bench.load import BenchSet, load_bench
from openodke.bench.official_redocred import load_train_facts
from openodke.bench.submissions import facts_to_responses
from openodke.calibration import calibration_entry
from openodke.errors import ReportBug
from openodke.eval.ablation import gate_notes, per_document, truth_of
from openodke.eval.pipeline.evaluate import PipelineResult, bench_inputs, score_pipeline
from openodke.eval.report.build import usage_of
from openodke.eval.report.io import check_report, report_json
from openodke.eval.report.models import EvalReport, Row, RunInfo
from openodke.eval.report.render import render_report
from openodke.safeio import load_jsonl
from openodke.stages import Rejection
from openodke.types import Fact

__all__ = ["ROW_FILES", "BenchRun", "run_bench"]

ROW_FILES = {
    "extraction alone": "extraction-alone",
    "+ grounding": "grounding",
    "+ corroboration": "corroboration",
}
"""Each row's file name under ``predictions/`` and ``items/`` (without ``.jsonl``)."""


@dataclass
class BenchRun:
    """What a bench run gives: the report and the files it writes into the set."""

    report: EvalReport
    predictions: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    items: dict[str, str] = field(default_factory=dict)
    rejections: list[Rejection] = field(default_factory=list)

    def files(self, folder: Path) -> list[tuple[Path, str]]:
        """``(path, text)`` of every output, ``report.json`` last."""
        out: list[tuple[Path, str]] = []
        for name, rows in self.predictions.items():
            text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
            out.append((folder / "predictions" / f"{name}.jsonl", text))
        for name, text in self.items.items():
            out.append((folder / "items" / f"{name}.jsonl", text))
        rejected = "".join(r.model_dump_json() + "\n" for r in self.rejections)
        out.append((folder / "rejections.jsonl", rejected))
        out.append((folder / "report.json", report_json(self.report)))
        return out

    def render(self) -> str:
        """The rows table and the notes."""
        return render_report(self.report)


def _items(result: PipelineResult) -> str:
    return "".join(
        json.dumps({"id": doc, "tp": tp, "fp": fp, "fn": fn}, ensure_ascii=False) + "\n"
        for doc, (tp, fp, fn) in result.score.per_document().items()
    )


def _rows(result: PipelineResult, name: str) -> list[Row]:
    return [
        row if row.name == name else row.model_copy(update={"name": f"{name} (official)"})
        for row in result.report.rows
    ]


def _moved(what: str, a: Row, b: Row) -> str:
    def value(row: Row) -> str:
        p = row.performance.precision.value
        return "—" if p is None else f"{p:.3f}"

    def hallucinated(row: Row) -> str:
        h = row.hallucination
        if h is None or h.object is None:
            return "—"
        return f"{h.object:.3f}"

    return (
        f"{what} moved precision {value(a)} → {value(b)} and object hallucination "
        f"{hallucinated(a)} → {hallucinated(b)}"
    )


def _merged(row_notes: list[tuple[str, list[str]]]) -> list[str]:
    """Each row's notes once: a note every row has is shown bare, others name their rows."""
    rows_of: dict[str, list[str]] = {}
    for name, notes in row_notes:
        for note in notes:
            rows_of.setdefault(note, []).append(name)
    return [
        note if len(rows) == len(row_notes) else f"{', '.join(rows)}: {note}"
        for note, rows in rows_of.items()
    ]


def _competitors(bench: BenchSet, inputs: Any, train: Any) -> tuple[list[Row], list[str]]:
    rows: list[Row] = []
    notes: list[str] = []
    for name, folder in sorted(bench.competitors.items()):
        facts_file = folder / "facts.jsonl"
        if not facts_file.is_file():
            continue
        facts = load_jsonl(facts_file, Fact)
        responses = folder / "responses.jsonl"
        result = score_pipeline(
            facts,
            inputs,
            name=name,
            submission=responses if responses.is_file() else None,
            train_facts=train,
        )
        rows += _rows(result, name)
        notes.append(f"{name}: a competitor's published output, scored as its own row")
    return rows, notes


def run_bench(
    path: str | Path,
    *,
    config: str | Path | None = None,
    train_facts: str | Path | None = None,
    options: Any = None,
) -> BenchRun:
    """Run the set's config three ways and score every row (see the module docstring).

    ``options`` is an ``openodke.run.RunOptions`` (the command line's cache, workers, budget).
    Raises PipelineError (exit 1) when a document failed, InputError (exit 2) on bad input.
    """
    from dataclasses import replace

    from openodke.run import RunOptions, build, load_config
    from openodke.run.ablate import ROWS, ablate

    folder = Path(path)
    bench = load_bench(folder)
    parsed = load_config(Path(config) if config is not None else bench.config)
    options = replace(options or RunOptions(), meter=True)
    with build(parsed, options) as pipeline:
        done = ablate(pipeline)
        roles = pipeline.roles
        judge = pipeline.judge()
        cards = pipeline.cards
    inputs = bench_inputs(folder)
    train = load_train_facts(train_facts) if train_facts is not None else None
    rows: list[Row] = []
    stages = []
    row_notes: list[tuple[str, list[str]]] = []
    run = BenchRun(report=None, rejections=done.rejections)  # type: ignore[arg-type]
    first: PipelineResult | None = None
    ours: dict[str, Row] = {}
    for name in ROWS:
        facts = [bench.on_bench_documents(f) for f in per_document(done.rows[name])]
        result = score_pipeline(
            facts, inputs, name=name, usage=usage_of(done.cost[name]), train_facts=train
        )
        first = first or result
        scored = _rows(result, name)
        ours[name] = scored[0]
        rows += scored
        stages.append(result.report.stages[0].model_copy(update={"stage": f"extract ({name})"}))
        row_notes.append((name, list(result.report.notes)))
        run.predictions[ROW_FILES[name]] = facts_to_responses(bench, facts)
        run.items[ROW_FILES[name]] = _items(result)
    rival_rows, rival_notes = _competitors(bench, inputs, train)
    rows += rival_rows
    aligned, _ = bench.align([bench.on_bench_documents(f) for f in done.candidates])
    truth = truth_of(inputs.gold, aligned)
    verdicts = ", ".join(f"{k} {v}" for k, v in done.verdicts().items() if v)
    summary = [
        *done.notes,
        f"the grounder's verdicts on the {len(done.candidates)} candidates: {verdicts or 'none'}",
        _moved("grounding", ours[ROWS[0]], ours[ROWS[1]]),
        _moved("normalising, resolving and corroborating", ours[ROWS[1]], ours[ROWS[2]]),
        *gate_notes(truth, done.grounded, done.kept, done.gate, done.judged),
    ]
    assert first is not None
    calibration = (
        [calibration_entry("ground", judge[0], judge[1], cards)]
        if judge is not None and done.calls[ROWS[1]] > done.calls[ROWS[0]]
        else []
    )
    data = first.report.model_dump(mode="json")
    data.update(
        title=f"{bench.title}: odke bench run",
        run=RunInfo(
            openodke=__version__,
            models={"extract": roles.extract.model, "ground": roles.ground.model},
            prompts=done.prompts,
            claim_formats=done.claim_formats,  # type: ignore[arg-type]
            dataset=inputs.dataset,
            inputs={"config": str(parsed.path or "")},
        ).model_dump(mode="json"),
        rows=[row.model_dump(mode="json") for row in rows],
        stages=[stage.model_dump(mode="json") for stage in stages],
        notes=summary + rival_notes + _merged(row_notes),
        calibration=calibration,
    )
    report = EvalReport.model_validate(data)
    problems = check_report(report.model_dump(mode="json"))
    if problems:
        raise ReportBug("report.json fails its schema: " + "; ".join(problems[:3]))
    run.report = report
    return run
