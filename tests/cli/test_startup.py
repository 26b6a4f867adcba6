"""What a command line loads before it runs: ``--version`` and every ``--help`` import neither
numpy nor the HTTP client, the schema checker or the report models (issue 20: `odke` starts at
once). Checked on the modules a fresh interpreter holds, not on a clock."""

from __future__ import annotations

import json
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
