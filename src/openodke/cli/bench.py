"""``odke bench prepare``: make a bench set from a benchmark's local files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from openodke.cli.options import (
    CALL_OPTIONS,
    AsJson,
    CallOptions,
    FailUnder,
    Html,
    ResultJson,
    calls_options,
    write_page,
)

if TYPE_CHECKING:
    from openodke.bench.prepare import PrepareResult
from openodke.errors import InputError

__all__ = ["register"]

_HELP = """Make a bench set folder from a benchmark's local files (no model is called).

DATASET is redocred or text2kgbench; DATA_DIR is laid out like the project's data/ folder (or is the dataset's own folder). --out must be new, empty or an earlier prepare's output.

Examples:

  odke bench prepare redocred data --split test --limit 50 --out runs/cmp/redocred

  odke bench prepare text2kgbench data --ontology ont_1_movie --out runs/movie
"""


def _prepare(
    dataset: str,
    data_dir: Path,
    out: Path,
    split: str | None,
    limit: int | None,
    ontology: str | None,
    paper: bool,
    max_tokens: int | None,
) -> PrepareResult:
    from openodke.bench.prepare import prepare_redocred, prepare_text2kgbench

    if not data_dir.is_dir():
        raise InputError("no such folder (DATA_DIR)", path=str(data_dir))
    if dataset == "redocred":
        if ontology is not None:
            raise InputError("--ontology is for text2kgbench; Re-DocRED has one ontology")
        return prepare_redocred(
            data_dir, out, split=split or "test", limit=limit, paper=paper, max_tokens=max_tokens
        )
    if dataset == "text2kgbench":
        if split is not None or limit is not None:
            raise InputError(
                "--split and --limit are for redocred; text2kgbench uses its test split"
            )
        if ontology is None:
            raise InputError("text2kgbench needs --ontology, e.g. --ontology ont_1_movie")
        return prepare_text2kgbench(
            data_dir, out, ontology=ontology, paper=paper, max_tokens=max_tokens
        )
    raise InputError(f"unknown dataset {dataset!r}; expected redocred or text2kgbench")


_RUN_HELP = """Run a prepared bench set's run config three ways (extraction alone; + grounding; + corroboration: extraction and grounding called once, then replayed) and score each row by our micro rules and the benchmark's own (<row> (official)); each competitor in the set scores as its own row.

Writes into DIR, all together: report.json (an eval report), predictions/<row>.jsonl ({"id", "triples"} per document), items/<row>.jsonl (for odke eval compare) and rejections.jsonl (the extractor's rejected candidates). Exit 1: a document failed (named); exit 3: the budget.

Examples:

  odke bench run runs/movie

  odke bench run runs/cmp/redocred --config runs/cmp/redocred/odke-snippet25.json --train-facts train.json
"""


def register(bench_app: typer.Typer) -> None:
    """Add ``prepare`` and ``run`` to the ``odke bench`` command group."""

    @bench_app.command("run", help=_RUN_HELP)
    @calls_options()
    def run(
        folder: Annotated[Path, typer.Argument(metavar="DIR", help="A prepared bench set folder.")],
        config: Annotated[
            Path | None, typer.Option("--config", help="The run config (default DIR/odke.json).")
        ] = None,
        train_facts: Annotated[
            Path | None,
            typer.Option("--train-facts", help="Re-DocRED train facts, for the official Ign F1."),
        ] = None,
        calls: CallOptions = CALL_OPTIONS,
        as_json: AsJson = False,
        html: Html = None,
        fail_under: FailUnder = None,
    ) -> None:
        from openodke.bench.run import run_bench
        from openodke.cli.run import report_config_error
        from openodke.eval.report.floors import check_floors, enforce_floors, parse_floors
        from openodke.eval.report.io import report_json
        from openodke.ground.files import write_files
        from openodke.run import ConfigError
        from openodke.run.ablate import ROWS

        floors = parse_floors(fail_under or [])
        if not folder.is_dir():
            raise InputError("no such bench set folder", path=str(folder))
        options = calls.run_options(as_json=as_json)
        try:
            result = calls.batched(
                lambda: run_bench(folder, config=config, train_facts=train_facts, options=options)
            )
        except ConfigError as error:
            report_config_error(error)
            raise typer.Exit(2) from None
        # The gate reads the last of our rows: what the run config writes.
        result.report = check_floors(result.report, floors, row=ROWS[-1])
        files = result.files(folder)
        write_files(files)
        if html is not None:
            from openodke.bench import load_bench

            write_page(html, result.report, load_bench(folder).documents)
        if as_json:
            typer.echo(report_json(result.report))
        else:
            typer.echo(result.render())
            typer.echo("\n".join(f"wrote {path}" for path, _ in files))
        enforce_floors(result.report)

    @bench_app.command("prepare", help=_HELP)
    def prepare(
        dataset: Annotated[str, typer.Argument(help="redocred or text2kgbench.")],
        data_dir: Annotated[Path, typer.Argument(help="Folder laid out like data/.")],
        out: Annotated[Path, typer.Option("--out", help="The bench set folder to write.")],
        split: Annotated[
            str | None, typer.Option("--split", help="redocred: dev or test (test).")
        ] = None,
        limit: Annotated[
            int | None, typer.Option("--limit", help="redocred: the first N documents.")
        ] = None,
        ontology: Annotated[
            str | None, typer.Option("--ontology", help="text2kgbench: e.g. ont_1_movie.")
        ] = None,
        paper: Annotated[
            bool,
            typer.Option(
                "--paper", help="Ground on the whole document with binary verdicts; gate refuses."
            ),
        ] = False,
        max_tokens: Annotated[
            int | None,
            typer.Option("--max-tokens", help="Lower the extractor's max_tokens (16000)."),
        ] = None,
        as_json: ResultJson = False,
    ) -> None:
        result = _prepare(dataset, data_dir, out, split, limit, ontology, paper, max_tokens)
        typer.echo(result.model_dump_json(indent=2) if as_json else result.summary())
