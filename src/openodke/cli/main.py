"""The ``odke`` (alias ``openodke``) command: a thin layer over the library.

Each command group lives in its own module with a ``register(app)`` function; this module only
assembles the ones a command line needs (when :func:`main` runs) and maps errors to exit codes in
one place.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

import typer

from openodke import __version__
from openodke.errors import OdkeError, exit_code_for

__all__ = ["app", "bench_app", "eval_app", "label_app", "main"]

app = typer.Typer(
    name="odke",
    help="Measure knowledge-extraction pipelines: score, diagnose and compare.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
eval_app = typer.Typer(
    help="Score a stage or a whole pipeline against labels.", no_args_is_help=True
)
bench_app = typer.Typer(help="Benchmark sets from local files.", no_args_is_help=True)
label_app = typer.Typer(
    help="Label sheets a person ticks, and the label rows they become.", no_args_is_help=True
)
app.add_typer(eval_app, name="eval")
app.add_typer(bench_app, name="bench")
app.add_typer(label_app, name="label")

# Command modules under openodke.cli; each defines register(eval_app) or register_bench(bench_app).
_EVAL_MODULES = (
    "eval_stages",
    "eval_extract",
    "eval_compare",
    "eval_pipeline",
    "eval_ablation",
    "eval_judges",
)
_BENCH_MODULES = ("bench",)
_LABEL_MODULES = ("label",)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"openodke {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    debug: bool = typer.Option(False, "--debug", help="Show the traceback of an expected error."),
) -> None:
    """odke: documents in, facts out; how good is it, where does it lose facts, was it real?"""
    _State.debug = debug


class _State:
    debug = False


# Eval commands with a module of their own: a command line naming one imports only that module
# (the others' evaluators and models cost about half a second to load).
_OWN_MODULE = {
    "extract": "eval_extract",
    "compare": "eval_compare",
    "pipeline": "eval_pipeline",
    "ablation": "eval_ablation",
    "precision": "eval_judges",
    "pool": "eval_judges",
    "refusals": "eval_judges",
}
_registered: set[str] = set()


def _register(argv: Sequence[str]) -> None:
    """Add the command modules ``argv`` needs: all, unless it names an eval command above."""
    words = [word for word in argv if not word.startswith("-")][:2]
    only = _OWN_MODULE.get(words[1]) if words[:1] == ["eval"] and len(words) == 2 else None
    for group, names in (
        (eval_app, _EVAL_MODULES),
        (bench_app, _BENCH_MODULES),
        (label_app, _LABEL_MODULES),
        (app, ("models", "ground", "validate", "run", "ontology")),
    ):
        for name in names:
            if name in _registered or (only is not None and name != only):
                continue
            module = _try_import(name)
            if module is not None:
                module.register(group)
            _registered.add(name)


def _try_import(name: str):  # type: ignore[no-untyped-def]
    try:
        return importlib.import_module(f"openodke.cli.{name}")
    except ModuleNotFoundError as error:
        if error.name == f"openodke.cli.{name}":
            return None
        raise


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; an expected error prints one line and exits with its code, no traceback."""
    args = sys.argv[1:] if argv is None else argv
    _register(args)
    try:
        app(args=args, prog_name="odke")
    except OdkeError as error:
        if _State.debug:
            raise
        sys.stderr.write(f"error: {error}\n")
        sys.exit(exit_code_for(error))
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
