"""``odke validate``: another system's facts through the Validator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from openodke.cli import options as opt

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
    @opt.calls_options()
    def validate(
        facts: Annotated[Path | None, opt.FACTS] = None,
        texts: Annotated[Path | None, opt.TEXTS] = None,
        ontology: opt.Ontology = None,
        config: opt.Config = None,
        out: Annotated[
            Path | None, typer.Option("-o", "--out", help="Write the graph and refused.jsonl here.")
        ] = None,
        dry_run: opt.DryRun = False,
        locate: opt.Locate = False,
        adapter: opt.Adapter = "triples",
        calls: opt.CallOptions = opt.CALL_OPTIONS,
        as_json: opt.ResultJson = False,
    ) -> None:
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
                max_workers=calls.max_workers,
                **calls.client_flags(),
                progress=False if as_json else None,
            )
            with job:
                graph, report = run(job, dry_run=dry_run)
            return job, graph, report

        in_config = config is not None and read_config(config).data.get("batch") is True
        job, graph, report = calls.batched(work, in_config)
        in_batches = calls.batch or in_config
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
                    *([opt.BATCH_PRICE_NOTE] if in_batches else []),
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
                allow=calls.allow_failures,
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
