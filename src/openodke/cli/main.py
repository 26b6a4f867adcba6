"""The ``odke`` (alias ``openodke``) command: a thin layer over the library.

Each command group lives in its own module with a ``register(app)`` function; this module only
assembles the ones a command line needs (when :func:`main` runs) and is the one error boundary:
an expected error prints one line and exits with its code; anything unexpected prints one line
naming the command and its inputs (``--debug`` shows the traceback) and exits 1; a signal (Ctrl-C,
SIGTERM, SIGHUP) exits 128 + its number once the clean-up has run. Nothing prints a traceback
unless ``--debug`` asks for it.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

import typer

from openodke.cli import coerce, signals
from openodke.cli.guard import check_paths
from openodke.cli.quick_help import help_text
from openodke.cli.stdout import ReaderSafe
from openodke.cli.version import version_text
from openodke.errors import OdkeError, Terminated, exit_code_for

__all__ = ["PLAIN", "app", "bench_app", "eval_app", "label_app", "main"]

PLAIN = None
"""Help and usage errors in click's plain text, not rich's panels: loading rich and rendering
its panels took three times as long as the rest of `odke <command> --help` (DECISIONS #170)."""

coerce.install()  # plain option values without pydantic's adapters (cli/coerce.py)

app = typer.Typer(
    name="odke",
    help="Measure knowledge-extraction pipelines: score, diagnose and compare.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=PLAIN,
)
eval_app = typer.Typer(
    help="Score a stage or a whole pipeline against labels.",
    no_args_is_help=True,
    rich_markup_mode=PLAIN,
)
bench_app = typer.Typer(
    help="Benchmark sets from local files.", no_args_is_help=True, rich_markup_mode=PLAIN
)
label_app = typer.Typer(
    help="Label sheets a person ticks, and the label rows they become.",
    no_args_is_help=True,
    rich_markup_mode=PLAIN,
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
        typer.echo(version_text(), nl=False)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    debug: bool = typer.Option(False, "--debug", help="Show the traceback of an expected error."),
) -> None:
    """odke: documents in, facts out; how good is it, where does it lose facts, was it real?"""
    _State.debug = _State.debug or debug


class _State:
    debug = False


# Which command module defines a command: a command line naming one imports only that module
# (each imports its library code when it runs; see tests/cli/test_startup.py). Commands of
# eval_stages are every eval command not named here.
_OWN_MODULE = {
    "extract": "eval_extract",
    "compare": "eval_compare",
    "pipeline": "eval_pipeline",
    "ablation": "eval_ablation",
    "precision": "eval_judges",
    "pool": "eval_judges",
    "refusals": "eval_judges",
}
_TOP_MODULES = ("models", "ground", "validate", "run", "ontology", "report")
_registered: set[str] = set()


def _groups() -> dict[str, tuple[typer.Typer, tuple[str, ...]]]:
    return {
        "eval": (eval_app, _EVAL_MODULES),
        "bench": (bench_app, _BENCH_MODULES),
        "label": (label_app, _LABEL_MODULES),
    }


def _register(argv: Sequence[str]) -> None:
    """Add the command modules ``argv`` needs: the one defining the command it names, else all
    (``odke --help``, a group's ``--help``, a misspelt command: its error lists them all)."""
    words = [word for word in argv if not word.startswith("-")][:2]
    groups = _groups()
    if words and words[0] in _TOP_MODULES:
        _add(app, words[0])
    elif words and words[0] in groups and len(words) == 2:
        group, names = groups[words[0]]
        _add(group, _OWN_MODULE.get(words[1], "eval_stages") if words[0] == "eval" else names[0])
        if words[1] not in _command_names(group):
            _add_all(groups[words[0]])
    elif words and words[0] in groups:
        _add_all(groups[words[0]])
    else:
        for group_names in (*groups.values(), (app, _TOP_MODULES)):
            _add_all(group_names)


def _add_all(group_names: tuple[typer.Typer, tuple[str, ...]]) -> None:
    group, names = group_names
    for name in names:
        _add(group, name)


def _add(group: typer.Typer, name: str) -> None:
    if name in _registered:
        return
    module = _try_import(name)
    if module is not None:
        module.register(group)
    _registered.add(name)


def _command_names(group: typer.Typer) -> set[str]:
    return {
        info.name or (info.callback.__name__.replace("_", "-") if info.callback else "")
        for info in group.registered_commands
    }


def _try_import(name: str):  # type: ignore[no-untyped-def]
    try:
        return importlib.import_module(f"openodke.cli.{name}")
    except ModuleNotFoundError as error:
        if error.name == f"openodke.cli.{name}":
            return None
        raise


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; every way it can end is an exit code and at most one line on stderr.

    ``--debug`` is taken anywhere on the command line (it is a global option).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if not isinstance(sys.stdout, ReaderSafe):
        sys.stdout = ReaderSafe(sys.stdout)  # type: ignore[assignment]
    _State.debug = "--debug" in args
    if _State.debug:
        args = [word for word in args if word != "--debug"]
    with signals.handled():
        try:
            _register(args)
            check_paths(args)
            text = help_text(app, args, "odke")
            if text is not None:  # `odke ... --help`: at once (cli/quick_help.py)
                typer.echo(text)
            else:
                app(args=args, prog_name="odke")
        except OdkeError as error:
            if _State.debug:
                raise
            _fail(f"error: {error}", exit_code_for(error))
        except KeyboardInterrupt as error:
            _interrupted(error)
        except SystemExit as done:
            stopped = signals.received()
            if stopped is not None:  # typer turns an interrupt into exit 130
                _interrupted(Terminated(stopped))
            _flush()
            raise done from None
        except Exception as error:
            if _State.debug:
                raise
            stopped = signals.received()
            if stopped is not None:
                # The signal raised Terminated and a library turned it into an error of its
                # own (pydantic building a model's schema as Ctrl-C lands: SchemaError): the
                # run was interrupted, not broken.
                _interrupted(Terminated(stopped))
            if isinstance(error, PermissionError) and error.filename is not None:
                # a path the user cannot read, search or write
                _fail(f"error: {os.fsdecode(error.filename)}: permission denied", 2)
            _fail(_unexpected(error, args), 1)
        _flush()


def _fail(line: str, code: int) -> None:
    from openodke.llm.redact import scrub_text

    _flush()
    sys.stderr.write(scrub_text(line).rstrip("\n") + "\n")
    sys.exit(code)


def _interrupted(error: KeyboardInterrupt) -> None:
    code = exit_code_for(error)
    if isinstance(error, Terminated) and error.signum != signals.HANDLED[0]:
        name = {1: "SIGHUP", 15: "SIGTERM"}.get(error.signum, f"signal {error.signum}")
        _fail(f"stopped by {name}", code)
    _fail("interrupted", code)


def _flush() -> None:
    """Flush stdout; when its reader went away (``odke ... | head``), stop writing to it."""
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass


def _unexpected(error: BaseException, args: Sequence[str]) -> str:
    """One line for an exception nobody expected: the command, its inputs, the --debug hint."""
    words = [word for word in args if not word.startswith("-")]
    command = " ".join(["odke", *words[:2]]) if words[:1] in (["eval"], ["bench"]) else "odke"
    if command == "odke" and words:
        command = f"odke {words[0]}"
    inputs = _named_inputs(args)
    where = f" on {', '.join(inputs)}" if inputs else ""
    what = " ".join(str(error).split())[:200]
    kind = type(error).__name__
    return (
        f"error: {command} failed unexpectedly{where}: {kind}"
        + (f": {what}" if what else "")
        + "; this is a bug in openodke: rerun with --debug for the traceback and report it"
    )


def _named_inputs(args: Sequence[str]) -> list[str]:
    named: list[str] = []
    for index, word in enumerate(args):
        if word.startswith("-") or not os.path.lexists(word):
            continue
        before = args[index - 1] if index else ""
        named.append(f"{before} {word}" if before.startswith("--") else word)
    return named[:6]
