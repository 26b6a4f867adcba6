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
from typing import TYPE_CHECKING, Annotated

import typer

from openodke.cli import pipeline_extras as extra
from openodke.cli import style
from openodke.cli.eval_extract import document_items, echo_first, without
from openodke.cli.options import (
    CALL_OPTIONS,
    AsJson,
    CallOptions,
    Describe,
    FailUnder,
    Html,
    Match,
    TypeMap,
    calls_options,
    identity_options,
    write_page,
)
from openodke.errors import InputError

if TYPE_CHECKING:
    from openodke.eval.pipeline.evaluate import PipelineResult
    from openodke.eval.pipeline.extras import Extended
from openodke.eval.engine.pause import without_gc

if TYPE_CHECKING:
    from openodke.types import Document

__all__ = ["register"]

Opt = typer.Option


@without_gc
@calls_options(leave_out=("rpm", "tpm"))
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
    as_json: AsJson = False,
    track_record: Annotated[Path | None, Opt("--track-record", help="Track record file.")] = None,
    train_facts: Annotated[
        Path | None,
        Opt("--train-facts", help="Re-DocRED's train_revised.json: the official row's Ign F1."),
    ] = None,
    describe_: Describe = False,
    html: Html = None,
    fail_under: FailUnder = None,
    calls: CallOptions = CALL_OPTIONS,
) -> None:
    """Run a pipeline, or read its output, and score it: rows with 95% ranges over documents.

    Example: odke eval pipeline --bench runs/movie --predictions out.jsonl --report r/report.json

    --fail-under X gates the pipeline's own row (exit 1 when the low end of its range is under
    X): --fail-under 0.7 --fail-under precision=0.8.
    """
    from openodke.eval.diagnosis.track_record import default_path
    from openodke.eval.pipeline.api import pipeline_run
    from openodke.eval.pipeline.model_options import ModelOptions
    from openodke.eval.report.floors import parse_floors
    from openodke.interop.describe import describe_pipeline

    if describe_:
        typer.echo(describe_pipeline())
        return
    if sum(x is not None for x in (cmd, run, predictions)) != 1:
        raise InputError("give exactly one of --cmd, --run or --predictions")
    floors = parse_floors(fail_under or [])
    mapped, how = identity_options(type_map, match)
    if not math.isfinite(timeout) or timeout <= 0:
        raise InputError(f"--timeout must be a number of seconds above 0, got {timeout:g}")
    extras = extra.make_extras(
        validator=validator,
        adjudicate=adjudicate,
        lenient=lenient,
        config=config,
        bench=bench,
        options=ModelOptions(
            cache=calls.cache,
            no_cache=calls.no_cache,
            max_workers=calls.max_workers,
            budget_usd=calls.budget_usd,
            budget_calls=calls.budget_calls,
            progress=False if as_json else None,
        ),
        allow_failures=calls.allow_failures,
        batch=calls.batch,
        batch_poll=calls.batch_poll,
    )
    record = track_record or (default_path(report) if report is not None else None)
    done = pipeline_run(
        labels=labels,
        documents=documents,
        predictions=predictions,
        run=run,
        cmd=cmd,
        ontology=ontology,
        bench=bench,
        adapter=adapter,
        type_map=mapped,
        match=how,
        timeout=timeout,
        trace=trace,
        config=config,
        reference=reference,
        examples=examples,
        track_record=record,
        train_facts=train_facts,
        extras=extras,
        on_stderr=_show_stderr,
    )
    _emit(
        done.result,
        as_json,
        items,
        report,
        record,
        done.extended,
        floors=floors,
        html=html,
        documents=done.inputs.documents,
    )


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
    html: Path | None = None,
    documents: Sequence[Document] = (),
) -> None:
    from openodke.eval.diagnosis.track_record import record_prediction, sha256_text
    from openodke.eval.engine.jsonl import write_outputs
    from openodke.eval.pipeline.extras import with_small_set_note
    from openodke.eval.pipeline.findings import render_findings
    from openodke.eval.report.build import report_json
    from openodke.eval.report.floors import check_floors, enforce_floors
    from openodke.eval.report.render import render_report

    result = with_small_set_note(result)
    gated = check_floors(result.report, floors, row=result.report.rows[0].name)
    result = replace(result, report=gated)
    if as_json:
        typer.echo(json.dumps(result.report.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        first = echo_first(result.score)
        shown = result.report.model_copy(update={"notes": without(result.report.notes, first)})
        typer.echo(style.report_table(render_report(shown), len(shown.rows)))
        for table in extended.tables if extended is not None else ():
            typer.echo("")
            typer.echo(table)
        if result.findings is not None:
            for table in render_findings(result.findings, row=result.findings.diagnosis.row):
                typer.echo("")
                typer.echo(style.findings(table))
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
    write_page(html, result.report, documents)
    sys.stdout.flush()
    enforce_floors(result.report)  # after every output is written: the report records the gate


def register(eval_app: typer.Typer) -> None:
    """Add ``odke eval pipeline``."""
    eval_app.command("pipeline")(pipeline)
