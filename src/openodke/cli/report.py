"""``odke report html|csv|parquet REPORT.json``: a saved report as a page or as tables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register"]

_HELP = """A saved report as one HTML page, or as tables (CSV, parquet).

REPORT is what odke writes: an eval report (--report, odke bench run's report.json), a stage's
--json (odke eval extract --json > r.json) or a compare --json block.

Examples:

  odke report html runs/vicuna/report.json -o vicuna.html --documents runs/movie/documents.jsonl

  odke report csv runs/vicuna/report.json -o tables/
"""

Source = Annotated[Path, typer.Argument(metavar="REPORT", help="A saved report (JSON).")]
Folder = Annotated[
    Path | None, typer.Option("-o", "--out", help="The folder (default: beside REPORT).")
]


def _bench_documents(report: object) -> object:
    """A bench set's documents, when the report names a prepared set that is still there."""
    dataset = getattr(getattr(report, "run", None), "dataset", None)
    folder = Path(dataset.path) if dataset is not None and dataset.path else None
    if folder is None or not (folder / "dataset.json").is_file():
        return None
    from openodke.bench import load_bench

    return load_bench(folder).documents


def _tables(fmt: str, source: Path, out: Path | None) -> None:
    from openodke.eval.report.export import load_any_report, write_tables

    report = load_any_report(source)
    for path in write_tables(report, out or source.parent, source.stem, fmt):
        typer.echo(f"wrote {path}")


def register(app: typer.Typer) -> None:
    """Add the ``report`` command group to the root ``odke`` app."""
    group = typer.Typer(help=_HELP, no_args_is_help=True)
    app.add_typer(group, name="report")

    @group.command("html")
    def html(
        source: Source,
        out: Annotated[
            Path | None, typer.Option("-o", "--out", help="The page (default REPORT.html).")
        ] = None,
        documents: Annotated[
            Path | None,
            typer.Option(
                "--documents",
                help="The texts, so each diagnosis example is shown in its context (a bench "
                "set's report finds its set's own).",
            ),
        ] = None,
    ) -> None:
        """Write REPORT as one self-contained HTML page (no network: opens from a file).

        Example: odke report html runs/vicuna/report.json -o vicuna.html
        """
        from openodke.eval.report.export import load_any_report
        from openodke.eval.report.html import write_html

        report = load_any_report(source)
        docs: object = None
        if documents is not None:
            from openodke.documents import load_documents

            docs = load_documents(documents)
        else:
            docs = _bench_documents(report)
        page = out or source.with_suffix(".html")
        write_html(page, report, documents=docs)  # type: ignore[arg-type]
        typer.echo(f"wrote {page}")

    @group.command("csv")
    def csv(source: Source, out: Folder = None) -> None:
        """Write REPORT's tables as CSV: <stem>.rows.csv, .predicates, .diagnosis, .fixes, ...

        Example: odke report csv runs/vicuna/report.json -o tables/
        """
        _tables("csv", source, out)

    @group.command("parquet")
    def parquet(source: Source, out: Folder = None) -> None:
        """Write REPORT's tables as parquet (needs openodke[parquet]).

        Example: odke report parquet runs/vicuna/report.json -o tables/
        """
        _tables("parquet", source, out)
