"""``odke ontology snippet|types|validate|diff``: look at an ontology the way the extractor does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register"]

_HELP = """Read an ontology (JSON or YAML) the way a run does.

Examples:

  odke ontology types examples/e2e/ontology.json

  odke ontology snippet examples/e2e/ontology.json Company --limit 3

  odke ontology validate ontology.json

  odke ontology diff old.json new.json --fail-on-breaking
"""


def register(app: typer.Typer) -> None:
    """Add the ``ontology`` command group to the root ``odke`` app."""
    group = typer.Typer(help=_HELP, no_args_is_help=True, rich_markup_mode=None)  # as main.PLAIN
    app.add_typer(group, name="ontology")

    @group.command("snippet")
    def snippet(
        file: Annotated[Path, typer.Argument(metavar="FILE", help="Ontology JSON or YAML.")],
        type_name: Annotated[str, typer.Argument(metavar="TYPE", help="An entity type.")],
        limit: Annotated[
            int | None, typer.Option("--limit", min=0, help="Predicates shown (25).")
        ] = 25,
        json_schema: Annotated[
            bool, typer.Option("--json-schema", help="Print the snippet as a JSON Schema.")
        ] = False,
    ) -> None:
        """What the extractor is shown for TYPE: its predicates ranked by importance, cut at
        --limit; a predicate past the limit is never offered."""
        from openodke.ontology import Ontology

        found = Ontology.load(file).snippet(type_name, limit=limit)
        typer.echo(json.dumps(found.json_schema(), indent=2) if json_schema else found.render())

    @group.command("types")
    def types(
        file: Annotated[Path, typer.Argument(metavar="FILE", help="Ontology JSON or YAML.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    ) -> None:
        """Each entity type with the predicates whose domain covers it."""
        from openodke.ontology import Ontology

        ontology = Ontology.load(file)
        table = {name: [p.name for p in ontology.predicates_for(name)] for name in ontology.types}
        if as_json:
            typer.echo(json.dumps(table, indent=2))
            return
        for name, predicates in table.items():
            typer.echo(f"{name}: {', '.join(predicates) or '(no predicates)'}")

    @group.command("validate")
    def validate(
        file: Annotated[Path, typer.Argument(metavar="FILE", help="Ontology JSON or YAML.")],
    ) -> None:
        """Every problem as ``path: message`` (code); exit 2 when any is an error."""
        from openodke.ontology import Ontology

        ontology = Ontology.load(file, strict=False)
        found = ontology.validate()
        for item in found:
            typer.echo(f"{file}: {item.severity}: {item} ({item.code})")
        if any(item.severity == "error" for item in found):
            raise typer.Exit(2)
        if not found:
            typer.echo(
                f"{file}: valid ({len(ontology.types)} types, {len(ontology.predicates)} predicates)"
            )

    @group.command("diff")
    def diff(
        old: Annotated[Path, typer.Argument(metavar="OLD", help="The ontology before.")],
        new: Annotated[Path, typer.Argument(metavar="NEW", help="The ontology after.")],
        fail_on_breaking: Annotated[
            bool, typer.Option("--fail-on-breaking", help="Exit 1 on a breaking change.")
        ] = False,
    ) -> None:
        """Breaking and compatible changes from OLD to NEW."""
        from openodke.ontology import Ontology

        changes = Ontology.load(old).diff(Ontology.load(new))
        typer.echo(changes.render())
        if fail_on_breaking and changes.is_breaking:
            raise typer.Exit(1)
