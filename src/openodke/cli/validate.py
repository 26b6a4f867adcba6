"""``odke validate``: another system's facts through the Validator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from openodke.cli.options import (
    BATCH_PRICE_NOTE,
    AllowFailures,
    Batch,
    BatchPoll,
    BudgetCalls,
    BudgetUsd,
    Cache,
    MaxWorkers,
    NoCache,
    Prices,
    Rpm,
    Tpm,
    batched,
    give_prices,
)

__all__ = ["register"]

_HELP = """Validate facts another system extracted: ground each against the text it cites (the free checks first, then one model question per fact), normalise values and names, propose entity links, merge facts stated more than once, score them and gate them; add inverse partners the ontology declares.

With --facts, --config is read only for its models (and replay, cache, budget, calibration); without --facts, the config's inputs are read and its triples extractor supplies the facts, with its stages (those left out get the Validator's defaults). -o DIR writes facts.jsonl, entities.jsonl, links.jsonl, manifest.json and refused.jsonl, all or none. --dry-run prints the calls and their price and makes none. A failed call (cut off at max_tokens, refused, empty, off schema, ...) leaves its fact unchecked and is counted by kind; the files are written and the command exits 1 naming how many facts went unchecked, unless --allow-failures allows that share; when every call fails it writes nothing.

Examples:

  odke validate --facts triples.jsonl --texts texts/ --ontology ontology.json -o validated/

  odke validate --facts out/facts.jsonl --texts texts/ --ontology schema.json --config odke.yaml --dry-run

  odke validate --config odke.yaml --json
"""


def register(app: typer.Typer) -> None:
    """Add ``validate`` to the root ``odke`` app."""

    @app.command("validate", help=_HELP)
    def validate(
        facts: Annotated[
            Path | None,
            typer.Option("--facts", help="Facts: triples rows, Fact rows, or --adapter output."),
        ] = None,
        texts: Annotated[
            Path | None, typer.Option("--texts", help="The texts: a folder, or Document JSONL.")
        ] = None,
        ontology: Annotated[
            Path | None, typer.Option("--ontology", help="Ontology JSON or YAML.")
        ] = None,
        config: Annotated[
            Path | None, typer.Option("--config", help="A run config (odke.yaml).")
        ] = None,
        out: Annotated[
            Path | None, typer.Option("-o", "--out", help="Write the graph and refused.jsonl here.")
        ] = None,
        dry_run: Annotated[
            bool, typer.Option("--dry-run", help="Print the calls and their price; make none.")
        ] = False,
        locate: Annotated[
            bool, typer.Option("--locate", help="Find a window naming both ends when uncited.")
        ] = False,
        adapter: Annotated[
            str, typer.Option("--adapter", help="triples, langchain, langextract or graphrag.")
        ] = "triples",
        cache: Cache = None,
        no_cache: NoCache = False,
        max_workers: MaxWorkers = None,
        budget_usd: BudgetUsd = None,
        budget_calls: BudgetCalls = None,
        allow_failures: AllowFailures = None,
        rpm: Rpm = None,
        tpm: Tpm = None,
        price: Prices = None,
        batch: Batch = False,
        batch_poll: BatchPoll = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    ) -> None:
        give_prices(price)
        from openodke.calibration import card_line
        from openodke.errors import ProviderError
        from openodke.ground.files import write_files
        from openodke.types import KnowledgeGraph
        from openodke.validate import ValidationReport
        from openodke.validate.config import read_config
        from openodke.validate.job import ValidateJob, output_files, prepare, report_json, run

        def work() -> tuple[ValidateJob, KnowledgeGraph, ValidationReport]:
            job = prepare(
                facts=facts,
                texts=texts,
                ontology=ontology,
                config=config,
                adapter=adapter,
                locate=locate,
                max_workers=max_workers,
                cache=cache,
                no_cache=no_cache,
                budget_usd=budget_usd,
                budget_calls=budget_calls,
                rpm=rpm,
                tpm=tpm,
                progress=False if as_json else None,
            )
            with job:
                graph, report = run(job, dry_run=dry_run)
            return job, graph, report

        in_batches = batch or (config is not None and read_config(config).data.get("batch") is True)
        job, graph, report = batched(work, in_batches, batch_poll)
        if dry_run:
            plan = graph.stats["dry_run"]
            if as_json:
                shown = {**plan, "batch": True} if in_batches else plan
                payload = {"dry_run": shown, "report": report.model_dump(mode="json")}
                typer.echo(json.dumps(payload, indent=2))
            else:
                from openodke.validate import GroundingPlan

                lines = [
                    f"dry run: {report.facts_in} facts to validate ({report.unmatched} unmatched)",
                    GroundingPlan(**plan).render(),
                    *(note for note in report.notes if not note.startswith("dry run:")),
                    *([BATCH_PRICE_NOTE] if in_batches else []),
                    "nothing was grounded or written",
                ]
                typer.echo("\n".join(lines))
            return
        if report.calls and report.failed == report.calls:
            raise ProviderError(f"every model call failed ({report.calls}); nothing written")
        written: list[str] = []
        if out is not None:
            files = output_files(job, graph, out)
            write_files(files)
            written = [str(path) for path, _ in files]
        for sink in job.sinks:
            sink.write(graph)
            written.append(repr(sink))
        from openodke.llm.failures import enforce_failures

        def _enforce() -> None:
            enforce_failures(
                min(report.failed, report.facts_in),
                report.facts_in,
                unit="facts",
                allow=allow_failures,
                kinds=report.failures,
                first=graph.stats.get("stages", {}).get("grounder", {}).get("first_error"),
                after="written with those facts unchecked" if written else "",
            )

        if as_json:
            typer.echo(report_json(report, written))
            _enforce()
            return
        lines = [report.render()]
        card = getattr(job.validator.gate, "card", None)
        for judge in graph.stats.get("judges", []):
            shown = card_line(card) if card is not None else card_line(None)
            if card is None:
                shown = f"{judge['prompt']} on {judge['model']}: {shown}"
            lines.append(f"judge: {shown}")
        lines += [f"warning: {w}" for w in job.warnings]
        lines += [f"wrote {path}" for path in written]
        typer.echo("\n".join(lines))
        _enforce()
