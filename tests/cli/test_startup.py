"""What a command line loads before it runs: ``--version`` and every ``--help`` import neither
numpy nor the HTTP client, the schema checker or the report models (issue 20: `odke` starts at
once). Checked on the modules a fresh interpreter holds, not on a clock."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

# What no --version or --help may load: each costs a tenth of a second or more to import.
HEAVY = (
    "numpy",
    "httpx",
    "jsonschema",
    "msgspec",
    "rapidfuzz",
    "yaml",
    "openodke.eval.report.models",
    "openodke.eval.stages.stage_report",
    "openodke.types",
    # typer coerces each parsed option value with pydantic: `--help` is answered without
    # parsing (cli/quick_help.py), so neither loads, nor rich (plain help, DECISIONS #170).
    "pydantic",
    "pydantic_core",
    "typer._adapters",
    "rich",
)

PROBE = """
import json, sys
from openodke.cli import entry
try:
    entry({args!r})
except SystemExit:
    pass
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
"""


def loaded(*args: str) -> set[str]:
    """The modules a fresh ``odke ARGS`` has imported when it exits."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=list(args))],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    line = next(row for row in done.stderr.splitlines() if row.startswith("MODULES "))
    return set(json.loads(line.removeprefix("MODULES ")))


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_version_loads_neither_typer_nor_pydantic():
    modules = loaded("--version")
    assert heavy(modules) == []
    assert not {"typer", "click", "pydantic", "rich"} & modules


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("eval", "--help"),
        ("eval", "extract", "--help"),
        ("eval", "pipeline", "--help"),
        ("eval", "compare", "--help"),
        ("eval", "ablation", "--help"),
        ("eval", "precision", "--help"),
        ("eval", "ground", "--help"),
        ("eval", "spans", "--help"),
        ("bench", "run", "--help"),
        ("label", "--help"),
        ("ground", "--help"),
        ("validate", "--help"),
        ("run", "--help"),
        ("models", "--help"),
        ("ontology", "--help"),
        ("report", "--help"),
    ],
    ids=" ".join,
)
def test_help_loads_no_engine_model_or_client(args):
    assert heavy(loaded(*args)) == []


def _odke(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from openodke.cli import entry; entry()", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "COLUMNS": "100"},
    )


@pytest.mark.parametrize(
    "words",
    [(), ("eval",), ("eval", "extract"), ("bench", "run"), ("ground",), ("ontology", "diff")],
    ids=lambda words: " ".join(words) or "odke",
)
def test_quick_help_is_the_text_click_prints(words):
    """`WORDS --help` is answered without parsing; `WORDS --help --help` is parsed by click (an
    option before the last word): both print the same text, exit 0."""
    quick, parsed = _odke(*words, "--help"), _odke(*words, "--help", "--help")
    assert (quick.returncode, parsed.returncode) == (0, 0)
    assert quick.stdout == parsed.stdout
    assert quick.stdout.startswith(" ".join(["Usage: odke", *words, "[OPTIONS]"]))


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("eval", "nosuch", "--help"), "No such command 'nosuch'"),
        (("nosuch", "--help"), "No such command 'nosuch'"),
    ],
)
def test_a_help_line_with_a_mistake_is_parsed_and_refused(args, said):
    done = _odke(*args)
    assert done.returncode == 2
    assert said in done.stderr
