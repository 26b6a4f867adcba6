"""``odke eval route|ground|resolve|score|gate|validate|spans``: score one stage against labels.

Each command reads its label rows (``--labels``), takes predictions from a file
(``--predictions``) or runs a stage over the labels (``--run package.module:Name``), calls one
evaluator and prints its StageReport (``--json`` for the JSON). Unreadable input exits 2 with
``path:line: what is wrong``; a ``--run`` stage that raises exits 1.
"""

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from pydantic import BaseModel

from openodke.cli.options import (
    AsJson,
    Config,
    Describe,
    Documents,
    Items,
    Labels,
    Ontology,
    Predictions,
    Report,
    Run,
    one_source,
)
from openodke.errors import InputError
from openodke.eval.engine.jsonl import load_jsonl, write_outputs
from openodke.eval.report.build import from_stage, report_json
from openodke.eval.report.stage_report import StageReport
from openodke.eval.stages.gate import evaluate_gate, gate_items, gate_labels
from openodke.eval.stages.ground import evaluate_grounding, ground_labels, grounding_items
from openodke.eval.stages.labels import (
    CalibrationLabel,
    GateLabel,
    GroundingLabel,
    PairLabel,
    RouteLabel,
    RoutePrediction,
    ValidationPrediction,
    describe,
)
from openodke.eval.stages.resolve import evaluate_resolution, load_links
from openodke.eval.stages.route import evaluate_routing, route_labels, routing_items
from openodke.eval.stages.score import evaluate_calibration, score_labels
from openodke.eval.stages.spans import evaluate_spans, load_facts
from openodke.protocols import load_stage
from openodke.types import Fact

__all__ = ["register"]

M = TypeVar("M", bound=BaseModel)


def _labels(path: Path | None, model: type[M], stage: str) -> list[M]:
    if path is None:
        raise InputError(f"--labels is required (odke eval {stage} --describe shows the format)")
    return load_jsonl(path, model)


def _given(path: Path | None) -> Path:
    assert path is not None  # one_source(required=...) has checked
    return path


def _unused(**paths: Path | None) -> None:
    # The stages loaded by --run are built with no arguments, so these reach them only once the
    # ontology and config loaders are wired in; until then each must at least exist.
    for name, path in paths.items():
        if path is None:
            continue
        if not path.exists():
            raise InputError("no such file or folder", path=str(path))
        typer.echo(f"note: --{name} is checked but not passed to the stage", err=True)


def _emit(
    report: StageReport,
    as_json: bool,
    report_path: Path | None,
    items_path: Path | None = None,
    item_rows: Sequence[dict[str, Any]] = (),
) -> None:
    """Print the report, then write --items and --report together (both or neither)."""
    if as_json:
        typer.echo(json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        typer.echo(report.render())
    outputs = []
    if items_path is not None:
        outputs.append((items_path, _items_text(item_rows)))
    if report_path is not None:
        outputs.append((report_path, report_json(from_stage(report))))
    write_outputs(outputs)


def _items_text(rows: Sequence[dict[str, Any]]) -> str:
    # compare needs unique ids, so a repeated label id keeps its first row.
    unique = {str(row["id"]): row for row in reversed(rows)}
    ordered = [unique[i] for i in dict.fromkeys(str(row["id"]) for row in rows)]
    return "".join(json.dumps(row) + "\n" for row in ordered)


def ground(
    labels: Labels = None,
    predictions: Predictions = None,
    run: Run = None,
    ontology: Ontology = None,
    documents: Documents = None,
    config: Config = None,
    describe_: Describe = False,
    as_json: AsJson = False,
    items: Items = None,
    report: Report = None,
) -> None:
    """Score grounding verdicts: accuracy, false_support, lost_support.

    Example: odke eval ground --labels ground.jsonl --predictions out/facts.jsonl
    """
    if describe_:
        typer.echo(describe("ground"))
        return
    one_source(predictions, run)
    _unused(ontology=ontology, documents=documents, config=config)
    rows = _labels(labels, GroundingLabel, "ground")
    predicted: list[Fact] | None = None
    if run is not None:
        predicted = ground_labels(load_stage(run), rows)
    else:
        predicted = load_facts(predictions) if predictions is not None else None
    item_rows = grounding_items(rows, predicted) if items is not None else ()
    _emit(evaluate_grounding(rows, predicted), as_json, report, items, item_rows)


def resolve(
    labels: Labels = None,
    predictions: Predictions = None,
    run: Run = None,
    ontology: Ontology = None,
    documents: Documents = None,
    config: Config = None,
    describe_: Describe = False,
    as_json: AsJson = False,
    items: Items = None,
    report: Report = None,
    similar_as_same: Annotated[
        bool, typer.Option("--similar-as-same", help="Count similar links as same_as.")
    ] = False,
) -> None:
    """Score entity links: pairwise P/R/F1 and B-cubed.

    Example: odke eval resolve --labels pairs.jsonl --predictions out/links.jsonl --json
    """
    if describe_:
        typer.echo(describe("resolve"))
        return
    if run is not None:
        raise InputError("resolve reads its links from a file: give --predictions, not --run")
    if items is not None:
        raise InputError("--items is per item; resolve scores pairs: leave --items out")
    if predictions is None:
        raise InputError("--predictions is required: LinkRow rows or a sink's links.jsonl")
    _unused(ontology=ontology, documents=documents, config=config)
    rows = _labels(labels, PairLabel, "resolve")
    path = predictions / "links.jsonl" if predictions.is_dir() else predictions
    report_ = evaluate_resolution(rows, load_links(path), similar_as_same=similar_as_same)
    _emit(report_, as_json, report)


def score(
    labels: Labels = None,
    predictions: Predictions = None,
    run: Run = None,
    ontology: Ontology = None,
    documents: Documents = None,
    config: Config = None,
    describe_: Describe = False,
    as_json: AsJson = False,
    items: Items = None,
    report: Report = None,
) -> None:
    """Score confidences: Brier, reliability curve, ECE.

    Example: odke eval score --labels calibration.jsonl --predictions out/facts.jsonl
    """
    if describe_:
        typer.echo(describe("score"))
        return
    one_source(predictions, run)
    if items is not None:
        raise InputError("--items is right-or-wrong per item; score has no such item")
    _unused(ontology=ontology, documents=documents, config=config)
    rows = _labels(labels, CalibrationLabel, "score")
    predicted: list[Fact] | None = None
    if run is not None:
        predicted = score_labels(load_stage(run), rows)
    else:
        predicted = load_facts(predictions) if predictions is not None else None
    _emit(evaluate_calibration(rows, predicted), as_json, report)


def gate(
    labels: Labels = None,
    predictions: Predictions = None,
    run: Run = None,
    ontology: Ontology = None,
    documents: Documents = None,
    config: Config = None,
    describe_: Describe = False,
    as_json: AsJson = False,
    items: Items = None,
    report: Report = None,
) -> None:
    """Score a gate: agreement, kappa, wrongly_refused, wrongly_written.

    Example: odke eval gate --labels verdicts.jsonl --run mypackage.gate:MyGate
    """
    if describe_:
        typer.echo(describe("validate"))
        return
    one_source(predictions, run, required="ValidationPrediction rows, or --run pkg.mod:Gate")
    _unused(ontology=ontology, documents=documents, config=config)
    rows = _labels(labels, GateLabel, "gate")
    if run is not None:
        predicted = gate_labels(load_stage(run), rows)
    else:
        predicted = load_jsonl(_given(predictions), ValidationPrediction)
    item_rows = gate_items(rows, predicted) if items is not None else ()
    _emit(evaluate_gate(rows, predicted), as_json, report, items, item_rows)


def route(
    labels: Labels = None,
    predictions: Predictions = None,
    run: Run = None,
    ontology: Ontology = None,
    documents: Documents = None,
    config: Config = None,
    describe_: Describe = False,
    as_json: AsJson = False,
    items: Items = None,
    report: Report = None,
) -> None:
    """Score a router: per-label P/R/F1, confusion, facts_skipped.

    Example: odke eval route --labels route.jsonl --run mypackage.routers:MarketingRouter
    """
    if describe_:
        typer.echo(describe("route"))
        return
    one_source(predictions, run, required="RoutePrediction rows, or --run pkg.mod:Router")
    _unused(ontology=ontology, documents=documents, config=config)
    rows = _labels(labels, RouteLabel, "route")
    if run is not None:
        predicted = route_labels(load_stage(run), rows)
    else:
        predicted = load_jsonl(_given(predictions), RoutePrediction)
    item_rows = routing_items(rows, predicted) if items is not None else ()
    _emit(evaluate_routing(rows, predicted), as_json, report, items, item_rows)


def spans(
    facts: Annotated[
        Path | None,
        typer.Option("--facts", help="A run's facts.jsonl, or the folder a sink wrote."),
    ] = None,
    describe_: Describe = False,
    as_json: AsJson = False,
    report: Report = None,
) -> None:
    """Span width per verdict, and the share of facts citing no span. No labels.

    Example: odke eval spans --facts out/
    """
    if describe_:
        typer.echo(describe("spans"))
        return
    if facts is None:
        raise InputError("--facts is required: a facts.jsonl or the folder a sink wrote")
    _emit(evaluate_spans(load_facts(facts)), as_json, report)


def register(eval_app: typer.Typer) -> None:
    """Add the per-stage commands to ``odke eval``; ``validate`` is an alias of ``gate``."""
    eval_app.command("route")(route)
    eval_app.command("ground")(ground)
    eval_app.command("resolve")(resolve)
    eval_app.command("score")(score)
    eval_app.command("gate")(gate)
    eval_app.command("validate", help="Alias of gate. " + (gate.__doc__ or ""))(gate)
    eval_app.command("spans")(spans)
