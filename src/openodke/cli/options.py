"""The options the eval commands share, and their checks: light to import, so a command's
module can take them without loading the others' evaluators."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from openodke.errors import InputError

__all__ = [
    "AsJson",
    "Config",
    "Describe",
    "Documents",
    "Items",
    "Labels",
    "Ontology",
    "Predictions",
    "Report",
    "Run",
    "one_source",
]

Labels = Annotated[
    Path | None, typer.Option("--labels", help="Label rows, one JSON object per line.")
]
Predictions = Annotated[
    Path | None,
    typer.Option("--predictions", help="Prediction rows (a sink's facts.jsonl or links.jsonl)."),
]
Run = Annotated[
    str | None,
    typer.Option("--run", help="Run a stage over the labels: package.module:Name."),
]
Ontology = Annotated[Path | None, typer.Option("--ontology", help="Ontology JSON or YAML.")]
Documents = Annotated[
    Path | None, typer.Option("--documents", help="A folder of texts, or Document JSONL.")
]
Config = Annotated[Path | None, typer.Option("--config", help="A run config (odke.yaml).")]
Describe = Annotated[
    bool, typer.Option("--describe", help="Print what to label and what to predict, then exit.")
]
AsJson = Annotated[bool, typer.Option("--json", help="Print the report as JSON.")]
Items = Annotated[
    Path | None,
    typer.Option("--items", help='Write {"id", "correct"} per labelled item, for compare.'),
]
Report = Annotated[Path | None, typer.Option("--report", help="Write the eval report here.")]


def one_source(predictions: Path | None, run: str | None, *, required: str | None = None) -> None:
    """Refuse --predictions with --run, and (``required``) neither of them."""
    if predictions is not None and run is not None:
        raise InputError("give --predictions or --run, not both")
    if required is not None and predictions is None and run is None:
        raise InputError(f"give --predictions ({required})")
