"""``odke ground``: stamp a grounding verdict on every fact, against the text it cites."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from openodke.cli import options as opt
from openodke.errors import ProviderError

__all__ = ["register"]

_HELP = """Check each fact against the text it cites: the free checks first (offsets, quotes; with --ontology the schema), then one model question per fact.

Writes facts.jsonl (the facts with their verdicts) and summary.json (verdict counts, failed calls by kind, and the failure shapes unsupported and too_narrow) into -o DIR, both or neither. A failed call (cut off at max_tokens, refused, empty, off schema, timed out, ...) leaves its fact unchecked and is counted; the files are written and the command exits 1 naming how many facts went unchecked, unless --allow-failures allows that share. When every call fails it writes nothing. A refused key (401/403) or an unreachable server stops the run at once (exit 1). --dry-run prints the calls and their price and makes none.

Examples:

  odke ground --facts triples.jsonl --texts texts/ --model ollama/qwen2.5:7b -o grounded/

  odke ground --facts out/facts.jsonl --texts texts/ --config odke.yaml --locate --dry-run

  odke ground --facts graph.json --adapter langchain --texts texts/ --paper --json -o grounded/
"""

_SHOWN = 20  # dry run: calls listed before "… N more"


def _money(usd: float | None) -> str:
    return "unknown (unpriced)" if usd is None else f"${usd:.4f}"


def _dry_run_text(plan: dict[str, Any]) -> str:
    lines = [f"{plan['facts']} facts; {plan['calls']} model calls would be made"]
    if plan["model"] is not None:
        lines[0] += f" to {plan['model']} with {plan['prompt']}"
        cached = f", {plan['cached']} already in the cache" if plan["cached"] else ""
        if not plan["replayed"]:
            price = f"about {_money(plan['usd'])}, at most {_money(plan['max_usd'])}"
            lines.append(f"price: {price}{cached}")
    for request in plan["requests"][:_SHOWN]:
        lines.append(f"  {request['fact_id']}: {request['claim']}")
    if len(plan["requests"]) > _SHOWN:
        lines.append(f"  … {len(plan['requests']) - _SHOWN} more")
    lines += plan["notes"]
    return "\n".join(lines)


def _summary_text(summary: dict[str, Any], written: list[str]) -> str:
    verdicts = ", ".join(f"{name} {n}" for name, n in summary["verdicts"].items())
    lines = [f"{summary['facts']} facts: {verdicts}"]
    if summary["model"] is not None:
        cost = "" if summary["cost_usd"] is None else f", ${summary['cost_usd']:.4f}"
        lines.append(
            f"{summary['calls']} calls to {summary['model']} ({summary['cached']} cached, "
            f"{summary['failed']} failed{cost})"
        )
    if summary.get("estimated_calls"):
        lines.append(
            f"tokens of {summary['estimated_calls']} calls estimated at 4 characters a token "
            "(the server reported no usage); their cost is an estimate"
        )
    if summary["failed"]:
        from openodke.llm.failures import kinds_text

        why = kinds_text(summary.get("failures") or {})
        lines.append(
            f"failed calls leave their facts unchecked ({why}); first: {summary['first_error']}"
        )
    for name in ("unsupported", "too_narrow"):
        shape = summary[name]
        if shape["count"]:
            lines.append(f"{name.replace('_', ' ')}: {shape['count']}")
            for example in shape["examples"]:
                lines.append(f"  {example['id']}: {example['claim']} ({example['verdict']})")
    for judge in summary["calibration"]:
        lines.append(f"judge: {judge['line']}")
    lines += [f"wrote {path}" for path in written]
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    """Add ``ground`` to the root ``odke`` app."""

    @app.command("ground", help=_HELP)
    @opt.calls_options()
    def ground(
        facts: Annotated[Path, opt.FACTS],
        texts: Annotated[Path, opt.TEXTS],
        adapter: opt.Adapter = "triples",
        ontology: Annotated[
            Path | None, typer.Option("--ontology", help="Ontology JSON or YAML: schema checks.")
        ] = None,
        config: Annotated[
            Path | None,
            typer.Option("--config", help="A run config, read for its models and grounder."),
        ] = None,
        model: Annotated[
            str | None, typer.Option("--model", help="The grounding model, <provider>/<model>.")
        ] = None,
        model_provider: Annotated[
            str | None,
            typer.Option("--model-provider", help="A provider for a model named without one."),
        ] = None,
        locate: opt.Locate = False,
        paper: Annotated[
            bool, typer.Option("--paper", help="The paper format: True/False on the document.")
        ] = False,
        dry_run: opt.DryRun = False,
        out: Annotated[
            Path | None, typer.Option("-o", "--out", help="Write facts.jsonl and summary.json.")
        ] = None,
        calls: opt.CallOptions = opt.CALL_OPTIONS,
        as_json: opt.ResultJson = False,
    ) -> None:
        from openodke.ground.files import write_files
        from openodke.ground.job import (
            build_grounder,
            plan_grounding,
            read_inputs,
            run_grounding,
        )
        from openodke.ground.settings import read_settings
        from openodke.llm.failures import enforce_failures

        settings = read_settings(config).with_flags(
            model=model,
            model_provider=model_provider,
            **calls.client_flags(),
        )
        inputs = read_inputs(facts, texts, adapter=adapter, ontology=ontology)

        def job() -> Any:
            grounder = build_grounder(
                settings,
                inputs.ontology,
                paper=paper,
                locate=locate,
                max_workers=calls.max_workers,
                progress=False if as_json else None,
            )
            with grounder:
                if dry_run:
                    return plan_grounding(grounder, inputs)
                return run_grounding(grounder, inputs, settings)

        result = calls.batched(job, settings.batch)
        if dry_run:
            plan = result.as_dict()
            if calls.batch or settings.batch:
                plan["batch"] = True
                plan["notes"] = [*plan["notes"], opt.BATCH_PRICE_NOTE]
            typer.echo(json.dumps(plan, indent=2) if as_json else _dry_run_text(plan))
            return
        summary = result.summary
        if summary["calls"] and summary["failed"] == summary["calls"]:
            raise ProviderError(
                f"every model call failed ({summary['calls']}); nothing written. "
                f"First: {summary['first_error']}"
            )
        written: list[str] = []
        if out is not None:
            files = [
                (
                    out / "facts.jsonl",
                    "".join(f.model_dump_json() + "\n" for f in result.graph.facts),
                ),
                (out / "summary.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n"),
            ]
            write_files(files)
            written = [str(path) for path, _ in files]
        if as_json:
            typer.echo(json.dumps({**summary, "written": written}, indent=2, ensure_ascii=False))
        else:
            typer.echo(_summary_text(summary, written))
        enforce_failures(
            min(summary["failed"], summary["facts"]),
            summary["facts"],
            unit="facts",
            allow=calls.allow_failures,
            kinds=summary.get("failures"),
            first=summary.get("first_error"),
            after="written with those facts unchecked; a rerun asks only for them"
            if written
            else "",
        )
