"""``odke eval route|ground|resolve|score|gate|validate|spans``: score one stage against labels.

Each labelled stage is one row of :data:`STAGES` (its label row, how its predictions are read,
the adapter that runs a ``--run`` stage over the labels, its evaluator and its items), and one
builder makes its command: read the label rows (``--labels``), take predictions from a file
(``--predictions``) or run a stage over the labels (``--run package.module:Name``), call the
evaluator and print its StageReport (``--json`` for the JSON). ``spans`` reads facts and no
labels. Unreadable input exits 2 with ``path:line: what is wrong``; a ``--run`` stage that raises
exits 1.
"""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from openodke.cli import options as opt
from openodke.errors import InputError

# The evaluators and label rows are named here and imported when a command runs, so that
# `odke eval <stage> --help` loads none of them (tests/cli/test_startup.py).
if TYPE_CHECKING:
    from pydantic import BaseModel

    from openodke.eval.stages.labels import LinkRow
    from openodke.eval.stages.stage_report import StageReport

__all__ = ["STAGES", "StageSpec", "register", "stage_command"]


@dataclass(frozen=True)
class StageSpec:
    """One labelled stage's command: what it reads, what it runs and how it is scored."""

    name: str
    help: str
    label: str
    """The label row, read from ``--labels``: its name in :mod:`openodke.eval.stages.labels`."""
    read: Callable[[Path], Sequence[Any]]
    """The prediction rows, from the ``--predictions`` path."""
    run: Callable[[object, list[Any]], Sequence[Any]] | None
    """Runs the stage ``--run`` names over the label rows; None: the stage reads files only."""
    evaluate: Callable[..., StageReport]
    """(label rows, predictions or None, extra options) to the report."""
    items: Callable[[list[Any], Any], Sequence[dict[str, Any]]] | None
    """The ``--items`` rows; None: the stage has no right-or-wrong items."""
    contract: str = ""
    """The ``--describe`` text's name, when not the command's."""
    required: str | None = None
    """What ``--predictions`` must hold when it (or ``--run``) is required."""
    no_run: str = ""
    no_items: str = ""
    need_predictions: str = ""
    """Said when ``--predictions`` is missing and ``--run`` cannot stand for it."""
    extra: tuple[inspect.Parameter, ...] = ()
    """Options of this stage alone, passed to ``evaluate`` by name."""


def _links(path: Path) -> list[LinkRow]:
    from openodke.eval.stages.resolve import load_links

    return load_links(path / "links.jsonl" if path.is_dir() else path)


def _rows(model: str) -> Callable[[Path], list[Any]]:
    """Rows of the label module's ``model``, read from a path."""

    def read(path: Path) -> list[Any]:
        from openodke.safeio import load_jsonl

        return load_jsonl(path, _label_row(model))

    return read


def _label_row(name: str) -> type[BaseModel]:
    from openodke.eval.stages import labels

    return getattr(labels, name)  # type: ignore[no-any-return]


def _late(target: str) -> Callable[..., Any]:
    """The function ``module:name`` names, imported when first called."""
    module, name = target.split(":")

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    return call


_STAGES = "openodke.eval.stages"


_SIMILAR_AS_SAME = inspect.Parameter(
    "similar_as_same",
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    default=False,
    annotation=Annotated[
        bool, typer.Option("--similar-as-same", help="Count similar links as same_as.")
    ],
)

STAGES: tuple[StageSpec, ...] = (
    StageSpec(
        name="route",
        help="Score a router: per-label P/R/F1, confusion, facts_skipped.\n\n"
        "Example: odke eval route --labels route.jsonl --run mypackage.routers:MarketingRouter",
        label="RouteLabel",
        read=_rows("RoutePrediction"),
        run=_late(f"{_STAGES}.route:route_labels"),
        evaluate=_late(f"{_STAGES}.route:evaluate_routing"),
        items=_late(f"{_STAGES}.route:routing_items"),
        required="RoutePrediction rows, or --run pkg.mod:Router",
    ),
    StageSpec(
        name="ground",
        help="Score grounding verdicts: accuracy, false_support, lost_support.\n\n"
        "Example: odke eval ground --labels ground.jsonl --predictions out/facts.jsonl",
        label="GroundingLabel",
        read=_late(f"{_STAGES}.spans:load_facts"),
        run=_late(f"{_STAGES}.ground:ground_labels"),
        evaluate=_late(f"{_STAGES}.ground:evaluate_grounding"),
        items=_late(f"{_STAGES}.ground:grounding_items"),
    ),
    StageSpec(
        name="resolve",
        help="Score entity links: pairwise P/R/F1 and B-cubed.\n\n"
        "Example: odke eval resolve --labels pairs.jsonl --predictions out/links.jsonl --json",
        label="PairLabel",
        read=_links,
        run=None,
        evaluate=_late(f"{_STAGES}.resolve:evaluate_resolution"),
        items=None,
        no_run="resolve reads its links from a file: give --predictions, not --run",
        no_items="--items is per item; resolve scores pairs: leave --items out",
        need_predictions="--predictions is required: LinkRow rows or a sink's links.jsonl",
        extra=(_SIMILAR_AS_SAME,),
    ),
    StageSpec(
        name="score",
        help="Score confidences: Brier, reliability curve, ECE.\n\n"
        "Example: odke eval score --labels calibration.jsonl --predictions out/facts.jsonl",
        label="CalibrationLabel",
        read=_late(f"{_STAGES}.spans:load_facts"),
        run=_late(f"{_STAGES}.score:score_labels"),
        evaluate=_late(f"{_STAGES}.score:evaluate_calibration"),
        items=None,
        no_items="--items is right-or-wrong per item; score has no such item",
    ),
    StageSpec(
        name="gate",
        help="Score a gate: agreement, kappa, wrongly_refused, wrongly_written.\n\n"
        "Example: odke eval gate --labels verdicts.jsonl --run mypackage.gate:MyGate",
        label="GateLabel",
        read=_rows("ValidationPrediction"),
        run=_late(f"{_STAGES}.gate:gate_labels"),
        evaluate=_late(f"{_STAGES}.gate:evaluate_gate"),
        items=_late(f"{_STAGES}.gate:gate_items"),
        contract="validate",
        required="ValidationPrediction rows, or --run pkg.mod:Gate",
    ),
)


def _labels(path: Path | None, model: str, stage: str) -> list[Any]:
    from openodke.safeio import load_jsonl

    if path is None:
        raise InputError(f"--labels is required (odke eval {stage} --describe shows the format)")
    return load_jsonl(path, _label_row(model))


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
    from openodke.eval.engine.jsonl import write_outputs
    from openodke.eval.report.build import from_stage, report_json

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


def _score_stage(
    spec: StageSpec,
    labels: Path | None,
    predictions: Path | None,
    run: str | None,
    ontology: Path | None,
    documents: Path | None,
    config: Path | None,
    describe_: bool,
    as_json: bool,
    items: Path | None,
    report: Path | None,
    **extra: Any,
) -> None:
    """The body of every labelled stage command, checks in the order the user meets them."""
    if describe_:
        from openodke.eval.stages.labels import describe

        typer.echo(describe(spec.contract or spec.name))
        return
    if run is not None and spec.run is None:
        raise InputError(spec.no_run)
    opt.one_source(predictions, run, required=spec.required)
    if items is not None and spec.items is None:
        raise InputError(spec.no_items)
    if predictions is None and run is None and spec.need_predictions:
        raise InputError(spec.need_predictions)
    _unused(ontology=ontology, documents=documents, config=config)
    rows = _labels(labels, spec.label, spec.name)
    predicted: Sequence[Any] | None = None
    if run is not None and spec.run is not None:
        from openodke.protocols import load_stage

        predicted = spec.run(load_stage(run), rows)
    elif predictions is not None:
        predicted = spec.read(predictions)
    item_rows = spec.items(rows, predicted) if items is not None and spec.items else ()
    with opt.naming(predictions=predictions, labels=labels):
        result = spec.evaluate(rows, predicted, **extra)
    _emit(result, as_json, report, items, item_rows)


def _option(name: str, annotation: Any, default: Any = None) -> inspect.Parameter:
    return inspect.Parameter(
        name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=annotation
    )


# Every labelled stage's options, in the order --help lists them.
_OPTIONS = (
    _option("labels", opt.Labels),
    _option("predictions", opt.Predictions),
    _option("run", opt.Run),
    _option("ontology", opt.Ontology),
    _option("documents", opt.Documents),
    _option("config", opt.Config),
    _option("describe_", opt.Describe, False),
    _option("as_json", opt.AsJson, False),
    _option("items", opt.Items),
    _option("report", opt.Report),
)


def stage_command(spec: StageSpec) -> Callable[..., None]:
    """The typer command for ``spec``: its options are read from ``__signature__``."""

    def command(**options: Any) -> None:
        _score_stage(spec, **options)

    parameters = (*_OPTIONS, *spec.extra)
    setattr(command, "__signature__", inspect.Signature(list(parameters)))  # noqa: B010
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    command.__name__ = command.__qualname__ = spec.name
    command.__doc__ = spec.help
    return command


def spans(
    facts: Annotated[
        Path | None,
        typer.Option("--facts", help="A run's facts.jsonl, or the folder a sink wrote."),
    ] = None,
    describe_: opt.Describe = False,
    as_json: opt.AsJson = False,
    report: opt.Report = None,
) -> None:
    """Span width per verdict, and the share of facts citing no span. No labels.

    Example: odke eval spans --facts out/
    """
    from openodke.eval.stages.labels import describe
    from openodke.eval.stages.spans import evaluate_spans, load_facts

    if describe_:
        typer.echo(describe("spans"))
        return
    if facts is None:
        raise InputError("--facts is required: a facts.jsonl or the folder a sink wrote")
    _emit(evaluate_spans(load_facts(facts)), as_json, report)


def register(eval_app: typer.Typer) -> None:
    """Add the per-stage commands to ``odke eval``; ``validate`` is an alias of ``gate``."""
    for spec in STAGES:
        command = stage_command(spec)
        eval_app.command(spec.name)(command)
        if spec.name == "gate":
            eval_app.command("validate", help="Alias of gate. " + spec.help)(command)
    eval_app.command("spans")(spans)
