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
import io, json, sys, contextlib
from openodke.cli import entry
try:
    with contextlib.redirect_stdout(io.StringIO()):
        entry({args!r})
except SystemExit as done:
    sys.stderr.write(f"\\nEXIT {{done.code}}")
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
"""


def probe(*args: str, cwd=None) -> tuple[str, set[str]]:
    """The exit line and the modules a fresh ``odke ARGS`` has imported when it exits."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=list(args))],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
    )
    lines = done.stderr.splitlines()
    exit_line = next((row for row in lines if row.startswith("EXIT ")), "EXIT 0")
    modules = next(row for row in lines if row.startswith("MODULES "))
    return exit_line, set(json.loads(modules.removeprefix("MODULES ")))


def loaded(*args: str) -> set[str]:
    """The modules a fresh ``odke ARGS`` has imported when it exits."""
    return probe(*args)[1]


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


# -- what a command that runs loads (issue 20, Deliver 3: run overhead) -----------------------

# A validate dry run needs no option adapter (cli/coerce.py), no extractor, loader or fuzzy
# matcher it does not run (lazy openodke.stages, DECISIONS #287), and no model client.
NOT_FOR_VALIDATE = (
    "typer._adapters",
    "numpy",
    "httpx",
    "jsonschema",
    "rich",
    "rapidfuzz",
    "openodke.stages.llm_extract",
    "openodke.stages.hybrid",
    "openodke.stages.pattern",
    "openodke.stages.records",
    "openodke.eval.engine.matching",
)


def test_a_validate_dry_run_loads_only_what_it_runs(tmp_path):
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "d.txt").write_text("Acme was founded in 1990 in Oslo.\n")
    (tmp_path / "facts.jsonl").write_text(
        '{"doc": "d", "subject": "Acme", "predicate": "founded", "object": "1990"}\n'
    )
    (tmp_path / "ontology.json").write_text(
        '{"name": "o", "types": {"Company": {}}, "predicates": {"founded": {"range": "integer"}}}'
    )
    (tmp_path / "odke.yaml").write_text("models: {ground: ollama/llama3}\n")
    exit_line, modules = probe(
        "validate", "--facts", "facts.jsonl", "--texts", "texts",
        "--ontology", "ontology.json", "--config", "odke.yaml", "--dry-run", "--max-workers", "2", cwd=tmp_path,
    )  # fmt: skip
    assert exit_line == "EXIT 0"
    assert sorted(m for m in modules if m.startswith(NOT_FOR_VALIDATE)) == []


def test_the_stages_package_loads_a_stage_when_it_is_named():
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, openodke.stages as s; before = sorted(m for m in sys.modules "
            "if m.startswith('openodke.stages.')); s.SignatureCorroborator; "
            "print(before, 'openodke.stages.corroborate' in sys.modules, "
            "'openodke.stages.llm_extract' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.split() == ["[]", "True", "False"]


def test_a_command_runs_with_the_collector_raised_and_restores_it(monkeypatch):
    """The cyclic collector's thresholds are raised while a command imports and runs (DECISIONS
    #289) and put back after, so a process calling `entry` more than once keeps its own."""
    import gc

    import openodke.cli.main
    from openodke.cli import _THRESHOLDS, entry

    seen = []
    monkeypatch.setattr(openodke.cli.main, "main", lambda argv: seen.append(gc.get_threshold()))
    before = gc.get_threshold()
    entry(["ground", "--help"])
    assert seen == [_THRESHOLDS] and gc.get_threshold() == before != _THRESHOLDS


def test_a_live_local_run_that_never_fails_loads_no_httpx(tmp_path):
    """`odke ground` against a local `http://` server: the calls go over the standard library
    (decision 225) and httpx is imported only when a call raises (DECISIONS #287)."""
    from tests.support.llm_server import ReplayServer

    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "d.txt").write_text("Acme was founded in 1990.\n")
    (tmp_path / "facts.jsonl").write_text(
        '{"doc": "d", "subject": "Acme", "predicate": "founded", "object": "1990", '
        '"quote": "Acme was founded in 1990."}\n'
    )
    with ReplayServer("openai", lambda prompt: '{"verdict": "supported"}') as server:
        (tmp_path / "odke.yaml").write_text(
            f"models: {{ground: {{model: openai/local, base_url: '{server.base_url}'}}}}\n"
        )
        exit_line, modules = probe(
            "ground", "--facts", "facts.jsonl", "--texts", "texts", "--config", "odke.yaml",
            "--no-cache", "-o", "out", cwd=tmp_path,
        )  # fmt: skip
        assert exit_line == "EXIT 0" and len(server.requests) == 1
    assert (tmp_path / "out" / "facts.jsonl").exists()
    assert "openodke.llm.plain" in modules and "jsonschema" in modules  # the reply was checked
    assert sorted(m for m in modules if m.split(".")[0] in {"httpx", "httpcore", "h11"}) == []


# -- what `eval extract` loads before its readers fork, and at all (issue 20, Must hold 1) ------

FORK_PROBE = """
import json, sys
import openodke.eval.engine.fastload as fastload

def seen(*args, **kwargs):
    sys.stderr.write("\\nFORKED " + json.dumps(sorted(sys.modules)) + "\\n")
    raise OSError("probe: read here instead")  # the loader falls back to reading in-process

fastload._load_parallel = seen
from openodke.cli import entry
try:
    entry({args!r})
except SystemExit as done:
    sys.stderr.write(f"\\nEXIT {{done.code}}")
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
"""

# What a forked reader must not carry in (each worker would start with it) and what scoring two
# files never needs: the Fact and report models load after the fork, while the readers read.
BEFORE_THE_FORK = (
    "pydantic",
    "yaml",
    "jsonschema",
    "httpx",
    "openodke.types",
    "openodke.ontology",
    "openodke.eval.report.models",
    "openodke.eval.report.io",
    "openodke.eval.stages.labels",
    "openodke.eval.stages.stage_report",
    "openodke.interop",
)
NEVER_FOR_FILES = (
    "jsonschema",
    "httpx",
    "yaml",
    "openodke.types",
    "openodke.ontology",
    "openodke.interop",
    "openodke.eval.report.io",
    "openodke.eval.compare",
    "openodke.eval.stages.labels",
)


def test_eval_extract_forks_its_readers_before_the_models_load(tmp_path):
    gold = '{"doc_id": "d%d", "fact": {"subject": {"key": "s"}, "predicate": "p", "object_entity": {"key": "o"}}}\n'
    said = '{"subject": {"key": "s"}, "predicate": "p", "object_entity": {"key": "o"}, "evidence": [{"doc_id": "d%d"}]}\n'
    (tmp_path / "gold.jsonl").write_text("".join(gold % i for i in range(50_000)))
    (tmp_path / "facts.jsonl").write_text("".join(said % i for i in range(50_000)))
    assert (tmp_path / "gold.jsonl").stat().st_size > (8 << 20) // 2  # both: past PARALLEL_BYTES
    args = ["eval", "extract", "--labels", "gold.jsonl", "--predictions", "facts.jsonl", "--json"]
    done = subprocess.run(
        [sys.executable, "-c", FORK_PROBE.format(args=args)],
        capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
    )  # fmt: skip
    lines = done.stderr.splitlines()
    assert "EXIT 0" in lines or not any(row.startswith("EXIT") for row in lines), done.stderr[-800:]
    forked = set(json.loads(next(r for r in lines if r.startswith("FORKED ")).split(" ", 1)[1]))
    at_end = set(json.loads(next(r for r in lines if r.startswith("MODULES ")).split(" ", 1)[1]))
    assert sorted(m for m in forked if m.startswith(BEFORE_THE_FORK)) == []
    assert sorted(m for m in at_end if m.startswith(NEVER_FOR_FILES)) == []
    assert "openodke.eval.stages.stage_report" in at_end  # the report was built after all
