"""Option values coerced without pydantic (cli/coerce.py) equal typer's own adapters' values, and
every value the plain path is not certain of goes to typer's adapter (its result or its error)."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer._click import Context
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param, resolve_type_descriptor
from typer.models import OptionInfo

import openodke.cli.main  # noqa: F401 - installs the plain path
from openodke.cli.coerce import _TYPER, plain_value

HERE = Path(__file__)

CASES = [
    # (annotation, OptionInfo keywords, value)
    (str, {}, "abc"),
    (str, {}, ""),
    (str, {}, b"bytes"),
    (int, {}, "8"),
    (int, {}, "007"),
    (int, {}, 3),
    (int, {"min": 1}, "1"),
    (int, {"min": 1}, "0"),
    (int, {"min": 1}, "+5"),
    (int, {}, "-3"),
    (int, {}, " 4"),
    (int, {}, "1_000"),
    (int, {}, "x"),
    (int, {}, "٣"),  # an Arabic-Indic digit: Python's int() reads it; typer decides
    (int, {"min": 0, "max": 5, "clamp": True}, "9"),
    (int, {}, "9" * 5000),  # past int()'s 4,300 digits: a ValueError, "this is a bug" (seed 26)
    (int, {"min": 1}, "1" + "0" * 4300),
    (float, {}, "9" * 5000),
    (float, {}, "0.5"),
    (float, {}, "2"),
    (float, {}, 2),
    (float, {"min": 0, "max": 1}, "1.0"),
    (float, {"min": 0, "max": 1}, "1.5"),
    (float, {"min": 0.01}, "0.001"),
    (float, {}, "1e3"),
    (float, {}, "inf"),
    (float, {}, "nan"),
    (float, {}, ".5"),
    (Path, {}, "some/where.jsonl"),
    (Path, {}, ""),
    (Path, {}, str(HERE)),
    (Path, {"exists": True}, str(HERE)),
    (Path, {"exists": True}, "/no/such/file"),
    (Path, {"dir_okay": False}, str(HERE.parent)),
    (Path, {"resolve_path": True}, "."),
    (Path, {}, HERE),
    (list[str], {}, ("a", "b")),
    (list[str], {}, ()),
    (bool, {}, "true"),
]


def _typer_value(annotation, info, value):
    descriptor = resolve_type_descriptor(annotation, info)
    runtime = build_runtime_param(descriptor)  # typer's own, not the installed one
    ctx = Context(typer.core.TyperCommand("x"))
    try:
        return "ok", runtime._coerce_value(value, param=None, ctx=ctx)
    except BadParameter as error:
        return "error", error.message


@pytest.mark.parametrize(("annotation", "keywords", "value"), CASES, ids=lambda v: repr(v)[:40])
def test_the_plain_path_gives_typers_value_or_asks_typer(annotation, keywords, value):
    info = OptionInfo(**keywords)
    kind, expected = _typer_value(annotation, info, value)
    ctx = Context(typer.core.TyperCommand("x"))
    try:
        got = plain_value(annotation, info, value, None, ctx)
    except BadParameter as error:  # typer's own path checks, called by the plain path too
        assert (kind, expected) == ("error", error.message)
        return
    if got is _TYPER:
        return  # typer's adapter answers: its value or its error, as before
    assert kind == "ok", f"plain path accepted what typer refuses: {expected}"
    assert got == expected and type(got) is type(expected)


def test_every_case_of_our_commands_takes_the_plain_path():
    """The values our commands are given (paths, counts, shares, names) never build an adapter."""
    ctx = Context(typer.core.TyperCommand("x"))
    for annotation, keywords, value in [
        (Path, {}, "facts.jsonl"),
        (int, {"min": 1}, "64"),
        (float, {"min": 0, "max": 1}, "0.25"),
        (str, {}, "triples"),
        (list[str], {}, ("gpt-4o-mini=in=1,out=2",)),
    ]:
        assert plain_value(annotation, OptionInfo(**keywords), value, None, ctx) is not _TYPER


def test_a_command_line_builds_no_pydantic_adapter(tmp_path):
    """`odke validate` on a dry run parses its options without loading typer._adapters; a bad
    value still gets typer's own message and exit 2."""
    import subprocess
    import sys

    probe = (
        "import sys\nfrom openodke.cli import entry\n"
        "try:\n    entry(sys.argv[1:])\nexcept SystemExit as done:\n"
        "    sys.stderr.write(f'\\nEXIT {done.code} ADAPTERS {\"typer._adapters\" in sys.modules}')\n"
    )
    facts = tmp_path / "facts.jsonl"
    facts.write_text('{"doc": "d", "subject": "A", "predicate": "p", "object": "B"}\n')
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "d.txt").write_text("A p B.\n")
    config = tmp_path / "odke.yaml"
    config.write_text("models: {ground: ollama/llama3}\n")
    ontology = tmp_path / "ontology.json"
    ontology.write_text('{"name": "o", "types": {"T": {}}, "predicates": {"p": {}}}')
    common = [
        "validate", "--facts", str(facts), "--texts", str(tmp_path / "texts"),
        "--ontology", str(ontology), "--config", str(config), "--dry-run",
    ]  # fmt: skip
    ok = subprocess.run(
        [sys.executable, "-c", probe, *common, "--max-workers", "4", "--allow-failures", "0.5"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert "EXIT 0 ADAPTERS False" in ok.stderr, ok.stderr
    bad = subprocess.run(
        [sys.executable, "-c", probe, *common, "--max-workers", "0"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert "EXIT 2 ADAPTERS True" in bad.stderr
    assert (
        "Invalid value for '--max-workers'" in bad.stderr
        and "greater than or equal to 1" in bad.stderr
    )


@pytest.mark.parametrize("option", ["--max-workers", "--budget-calls"])
def test_a_number_of_5000_digits_is_typers_refusal_not_a_bug(option, tmp_path) -> None:
    """Found probing the options added since the campaign of seed 25: int() refuses more than
    4,300 digits with a ValueError the plain path let through (exit 1, "this is a bug")."""
    from tests.conftest import run_odke

    result = run_odke("ground", "--facts", "x.jsonl", "--texts", "t", option, "9" * 5000)
    assert result.exit_code == 2, result.stderr
    assert "this is a bug" not in result.stderr and f"'{option}'" in result.stderr
