"""``odke eval pipeline``: run any extraction pipeline (or read what it wrote) and score it.

Three modes: ``--cmd`` runs a command with no shell on ``{in}`` (a folder of ``<name>.txt``) and
reads ``{out}``; ``--run`` calls a Python function with the Documents; ``--predictions`` reads a
file already written. Scored against ``--labels`` + ``--documents`` or a ``--bench`` set.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from openodke.cli import pipeline_extras as extra
from openodke.cli.eval_extract import document_items, echo_first, without
from openodke.cli.options import (
    BudgetCalls,
    BudgetUsd,
    Cache,
    Describe,
    FailUnder,
    Match,
    MaxWorkers,
    NoCache,
    TypeMap,
    identity_options,
)
from openodke.errors import InputError
from openodke.eval.diagnosis.track_record import default_path, record_prediction, sha256_text
from openodke.eval.engine.fastload import without_gc
from openodke.eval.engine.jsonl import write_outputs
from openodke.eval.pipeline import collect, run_callable, run_command
from openodke.eval.pipeline.collect import check_last_line
from openodke.eval.pipeline.evaluate import (
    DiagnosisOptions,
    PipelineResult,
    bench_inputs,
    label_inputs,
    score_fact_file,
    score_pipeline,
)
from openodke.eval.pipeline.extras import Extended, extend_result, with_small_set_note
from openodke.eval.pipeline.findings import render_findings
from openodke.eval.pipeline.judge_client import ModelOptions
from openodke.eval.report.build import report_json
from openodke.eval.report.floors import check_floors, enforce_floors, parse_floors
from openodke.eval.report.models import Cost, Latency
from openodke.eval.report.render import render_report
from openodke.eval.stages.gold_rows import is_triples_file
from openodke.interop import is_fact_rows
from openodke.interop.describe import describe_pipeline
from openodke.ontology import Ontology
from openodke.safeio import open_regular

__all__ = ["is_submission", "register"]

Opt = typer.Option


def is_submission(path: Path) -> bool:
    """True for a benchmark's own format: a DocRED list, or Text2KGBench response rows."""
    try:
        with open_regular(path) as handle:
            first = b""
            while not first.strip() and (raw := handle.readline(_FIRST_LINE)):
                first = raw.lstrip(b"\xef\xbb\xbf")
    except (InputError, OSError):
        return False
    if first.lstrip().startswith(b"["):
        return True
    try:
        row = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(row, dict) and "triples" in row and "id" in row and "subject" not in row


_FIRST_LINE = 1 << 20  # bytes of the first line read to tell a submission


@without_gc
def pipeline(
    cmd: Annotated[
        str | None, Opt("--cmd", help='Command run with no shell: "python x.py {in} {out}".')
    ] = None,
    run: Annotated[str | None, Opt("--run", help="my_pkg.extract:run or path/file.py:run.")] = None,
    predictions: Annotated[
        Path | None, Opt("--predictions", help="Output already written.")
    ] = None,
    labels: Annotated[Path | None, Opt("--labels", help="GoldFact rows.")] = None,
    documents: Annotated[
        Path | None, Opt("--documents", help="A folder of texts or Document JSONL.")
    ] = None,
    bench: Annotated[Path | None, Opt("--bench", help="A set from odke bench prepare.")] = None,
    ontology: Annotated[Path | None, Opt("--ontology", help="Ontology JSON or YAML.")] = None,
    type_map: TypeMap = None,
    match: Match = "identity",
    adapter: Annotated[
        str | None,
        Opt(
            "--adapter",
            help="triples (default), langchain, langextract or graphrag; given, it decides how "
            "--predictions is read (a --bench set's own submission format is tried only without).",
        ),
    ] = None,
    timeout: Annotated[float, Opt("--timeout", help="Seconds --cmd may run.")] = 600.0,
    validator: extra.Validator = False,
    config: Annotated[
        Path | None, Opt("--config", help="The run config that made the predictions.")
    ] = None,
    adjudicate: extra.Adjudicate = None,
    lenient: extra.Lenient = None,
    trace: Annotated[
        Path | None, Opt("--trace", help="manifest.json or run config: what was offered.")
    ] = None,
    reference: Annotated[Path | None, Opt("--reference", help="Another system's report.")] = None,
    examples: Annotated[int, Opt("--examples", help="Examples per diagnosis bucket.")] = 3,
    items: Annotated[
        Path | None, Opt("--items", help='Write {"id","tp","fp","fn"} per document.')
    ] = None,
    report: Annotated[Path | None, Opt("--report", help="Write the eval report here.")] = None,
    as_json: Annotated[bool, Opt("--json", help="Print the report as JSON.")] = False,
    track_record: Annotated[Path | None, Opt("--track-record", help="Track record file.")] = None,
    train_facts: Annotated[
        Path | None,
        Opt("--train-facts", help="Re-DocRED's train_revised.json: the official row's Ign F1."),
    ] = None,
    describe_: Describe = False,
    cache: Cache = None,
    no_cache: NoCache = False,
    max_workers: MaxWorkers = None,
    budget_usd: BudgetUsd = None,
    budget_calls: BudgetCalls = None,
    fail_under: FailUnder = None,
) -> None:
    """Run a pipeline, or read its output, and score it: rows with 95% ranges over documents.

    Example: odke eval pipeline --bench runs/movie --predictions out.jsonl --report r/report.json

    --fail-under X gates the pipeline's own row (exit 1 when the low end of its range is under
    X): --fail-under 0.7 --fail-under precision=0.8.
    """
    if describe_:
        typer.echo(describe_pipeline())
        return
    if sum(x is not None for x in (cmd, run, predictions)) != 1:
        raise InputError("give exactly one of --cmd, --run or --predictions")
    floors = parse_floors(fail_under or [])
    sniff = adapter is None  # only then may --predictions be a benchmark's own submission
    adapter = adapter or "triples"
    how = identity_options(type_map, match)
    if not math.isfinite(timeout) or timeout <= 0:
        raise InputError(f"--timeout must be a number of seconds above 0, got {timeout:g}")
    extras = extra.make_extras(
        validator=validator,
        adjudicate=adjudicate,
        lenient=lenient,
        config=config,
        bench=bench,
        options=ModelOptions(
            cache=cache,
            no_cache=no_cache,
            max_workers=max_workers,
            budget_usd=budget_usd,
            budget_calls=budget_calls,
            progress=False if as_json else None,
        ),
    )
    if bench is not None:
        if labels is not None or documents is not None:
            raise InputError("--bench brings its own gold and documents: drop --labels/--documents")
        inputs = bench_inputs(bench)
    elif labels is None or documents is None:
        raise InputError("score against --labels with --documents, or a --bench set")
    else:
        # --validator, --adjudicate and --lenient read the facts themselves: no column path
        columns = (
            predictions is not None
            and _fact_file(predictions, adapter)
            and not extras.active
            and not is_triples_file(labels)  # gold as triples rows: read as predictions are
        )
        inputs = label_inputs(labels, documents, ontology, load_gold=not columns)
        inputs.type_map, inputs.match = how
        if columns:
            assert predictions is not None
            check_last_line(predictions)
            record = track_record or (default_path(report) if report is not None else None)
            result = score_fact_file(
                predictions,
                labels,
                inputs,
                run_inputs={"predictions": str(predictions)},
                diagnosis=DiagnosisOptions(
                    trace=trace or config,
                    reference=reference,
                    examples=examples,
                    track_record=record,
                ),
            )
            _emit(result, as_json, items, report, record, floors=floors)
            return
    if ontology is not None and bench is not None:
        inputs.ontology = Ontology.load(ontology)
    inputs.type_map, inputs.match = how
    train = None
    if train_facts is not None:
        if inputs.bench is None or inputs.bench.dataset != "redocred":  # type: ignore[attr-defined]
            raise InputError("--train-facts is for a Re-DocRED --bench set (its Ign F1)")
        from openodke.bench import load_train_facts

        train = load_train_facts(train_facts)
    docs = inputs.documents
    usage = None
    notes: list[str] = []
    submission = None
    run_inputs: dict[str, str] = {}
    if predictions is not None:
        run_inputs["predictions"] = str(predictions)
        if inputs.bench is not None and sniff and is_submission(predictions):
            from openodke.bench import read_submission

            facts = read_submission(predictions, inputs.bench, notes=notes)  # type: ignore[arg-type]
            submission = predictions
        else:
            got = collect(predictions, docs, ontology=inputs.ontology, adapter=adapter)
            facts, notes = got.facts, got.notes
    elif cmd is not None:
        run_inputs["command"] = cmd
        with run_command(cmd, docs, timeout=timeout, on_stderr=_show_stderr) as ran:
            got = collect(
                ran.out_path,
                docs,
                ontology=inputs.ontology,
                adapter=adapter,
                names=ran.names,
                from_command=True,
            )
        facts, notes = got.facts, got.notes
        usage = (Cost(), Latency(seconds=round(ran.seconds, 3)))
    else:
        assert run is not None
        run_inputs["run"] = run
        got = collect(
            run_callable(run, docs, adapter=adapter),
            docs,
            ontology=inputs.ontology,
            adapter=adapter,
        )
        facts, notes = got.facts, got.notes
    record = track_record or (default_path(report) if report is not None else None)
    diagnosis = DiagnosisOptions(
        trace=trace or config, reference=reference, examples=examples, track_record=record
    )
    result = score_pipeline(
        facts,
        inputs,
        usage=usage,
        notes=notes,
        run_inputs=run_inputs,
        submission=submission,
        train_facts=train,
        diagnosis=None if extras.active else diagnosis,
    )
    with extras:
        extended = extend_result(
            result,
            inputs,
            extras,
            written=facts,
            diagnosis=diagnosis if extras.active else None,
        )
    _emit(extended.result, as_json, items, report, record, extended, floors=floors)


def _fact_file(predictions: Path, adapter: str) -> bool:
    """A file of Fact rows scored against labels is read straight to columns, at any size."""
    return adapter == "triples" and predictions.is_file() and is_fact_rows(predictions)


def _show_stderr(line: str) -> None:
    """A ``--cmd`` command's stderr line, shown as it comes: its progress."""
    sys.stderr.write(f"[cmd] {line}\n")
    sys.stderr.flush()


def _emit(
    result: PipelineResult,
    as_json: bool,
    items: Path | None,
    report: Path | None,
    record: Path | None = None,
    extended: Extended | None = None,
    *,
    floors: Sequence[tuple[str, float]] = (),
) -> None:
    result = with_small_set_note(result)
    gated = check_floors(result.report, floors, row=result.report.rows[0].name)
    result = replace(result, report=gated)
    if as_json:
        typer.echo(json.dumps(result.report.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        first = echo_first(result.score)
        shown = result.report.model_copy(update={"notes": without(result.report.notes, first)})
        typer.echo(render_report(shown))
        for table in extended.tables if extended is not None else ():
            typer.echo("")
            typer.echo(table)
        if result.findings is not None:
            for table in render_findings(result.findings, row=result.findings.diagnosis.row):
                typer.echo("")
                typer.echo(table)
    outputs = []
    items_text = None
    if items is not None:
        items_text = document_items(result.score)
        outputs.append((items, items_text))
    if report is not None:
        outputs.append((report, report_json(result.report)))
    outputs += extended.files if extended is not None else []
    write_outputs(outputs)
    if report is not None and record is not None and result.findings is not None:
        line = record_prediction(
            record,
            fixes=result.findings.fixes,
            report=report,
            config=result.findings.config,
            # this run's items, as written: another run may replace the file meanwhile
            items_sha256=None if items_text is None else sha256_text(items_text),
        )
        count = len(line.fixes)
        typer.echo(
            f"track record: appended {count} predicted fix{'' if count == 1 else 'es'} to {record}",
            err=True,
        )
    sys.stdout.flush()
    enforce_floors(result.report)  # after every output is written: the report records the gate


def register(eval_app: typer.Typer) -> None:
    """Add ``odke eval pipeline``."""
    eval_app.command("pipeline")(pipeline)
