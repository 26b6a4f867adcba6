"""``odke run CONFIG``: a run config end to end (``openodke.run.execute``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from openodke.cli.options import (
    BATCH_PRICE_NOTE,
    CALL_OPTIONS,
    CallOptions,
    DryRun,
    ResultJson,
    calls_options,
)

__all__ = ["register", "report_config_error"]

_HELP = """Run a pipeline from its run config (odke.yaml or odke.json): read the inputs, chunk and route them, extract, ground, normalise, resolve, corroborate, score, gate and write the graph.

Every key of the config is checked first; each problem is printed as path:line: what is wrong (exit 2). --dry-run prints the model calls and their price and makes none. --from-manifest replays a run from its manifest.json (its config, unless CONFIG is given) and refuses (exit 2) when the ontology or any document changed. Exit 1: a document failed (nothing is written), every grounding call failed (nothing is written), or grounding calls failed (cut off at max_tokens, refused, empty, off schema, ...) and left facts unchecked (the files are written), unless --allow-failures allows that share of documents or facts; a refused key or an unreachable server stops the run at once; exit 3: the next call would pass the budget.

Examples:

  odke run examples/e2e/odke.yaml

  odke run odke.yaml --dry-run --model openai/gpt-4o-mini

  odke run --from-manifest out/manifest.json
"""


def report_config_error(error: Exception) -> None:
    """Print each problem of a ConfigError on its own line (``path:line: what is wrong``)."""
    for problem in getattr(error, "problems", [error]):
        sys.stderr.write(f"{getattr(problem, 'message', problem)}\n")


def register(app: typer.Typer) -> None:
    """Add ``run`` to the root ``odke`` app."""

    @app.command("run", help=_HELP)
    @calls_options()
    def run(
        config: Annotated[Path | None, typer.Argument(help="The run config (odke.yaml).")] = None,
        dry_run: DryRun = False,
        model: Annotated[
            str | None, typer.Option("--model", help="Put every role on this model.")
        ] = None,
        model_provider: Annotated[
            str | None,
            typer.Option("--model-provider", help="Prefix for model strings without one."),
        ] = None,
        widen: Annotated[
            bool, typer.Option("--widen", help="Retry a narrow not_found once on its sentence.")
        ] = False,
        from_manifest: Annotated[
            Path | None,
            typer.Option("--from-manifest", help="Replay the run this manifest.json records."),
        ] = None,
        calls: CallOptions = CALL_OPTIONS,
        as_json: ResultJson = False,
    ) -> None:
        from openodke.errors import InputError
        from openodke.run import ConfigError, config_from_manifest, execute, load_config

        if config is None and from_manifest is None:
            raise InputError("give CONFIG (a run config), or --from-manifest manifest.json")
        options = calls.run_options(
            as_json=as_json, model=model, model_provider=model_provider, widen=widen
        )
        try:
            if from_manifest is not None:
                parsed = config_from_manifest(from_manifest, config)
            else:
                assert config is not None
                parsed = load_config(config)
        except ConfigError as error:
            report_config_error(error)
            raise typer.Exit(2) from None
        result = calls.batched(
            lambda: execute(parsed, dry_run, options=options, from_manifest=from_manifest),
            parsed.batch,
        )
        if dry_run and (calls.batch or parsed.batch) and result.plan is not None:
            result.plan.notes.append(BATCH_PRICE_NOTE)
            result.stats["dry_run"] = {**result.plan.as_dict(), "batch": True}
        if as_json:
            typer.echo(json.dumps(result.as_dict(), indent=2, ensure_ascii=False))
        else:
            typer.echo(result.render())
        if result.failures is not None:
            from openodke.llm.failures import enforce_failures

            enforce_failures(
                result.failures["failed"],
                result.failures["facts"],
                unit="facts",
                allow=calls.allow_failures,
                kinds=result.failures["kinds"],
                after="written with those facts unchecked; a rerun asks only for them",
            )
