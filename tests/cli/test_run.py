"""``odke run``: the real command, its output and each exit code."""

from __future__ import annotations

import json
from pathlib import Path

from tests.run.conftest import e2e, folder  # noqa: F401 - fixtures, used by name


def test_odke_run_prints_the_counts_and_the_cost_block(odke, e2e: Path) -> None:  # noqa: F811
    result = odke("run", str(e2e / "odke.yaml"))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:4] == [
        "run: 7 documents, 7 chunks (4 skipped, 0 deferred by the router)",
        "  extracted  36 facts (3 model calls)",
        "  grounded   supported 20, contradicted 1, not_found 15",
        "  written    30 facts (16 edges, 14 properties), 13 entities, 1 links; merged 6, "
        "refused 0, marked 1, derived 0",
    ]
    assert lines[4] == "cost"
    assert lines[5].startswith("  extract   3 calls (0 cached, 0 failed), ")
    assert lines[7].startswith("  total     39 calls (0 cached, 0 failed), ")
    assert lines[7].count("unpriced") == 1
    assert "judge: ground.span@1 on ollama/qwen2.5:3b: UNCALIBRATED" in lines
    assert f"wrote {e2e.resolve() / 'out' / 'manifest.json'}" in lines


def test_json_and_dry_run(odke, e2e: Path) -> None:  # noqa: F811
    result = odke("run", str(e2e / "odke.yaml"), "--dry-run", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["dry_run"] is True and data["plan"]["extract"]["calls"] == 3
    assert data["written"] == [] and not (e2e / "out").exists()
    done = json.loads(odke("run", str(e2e / "odke.yaml"), "--json").stdout)
    assert done["stats"]["validation"]["facts_out"] == 30


def test_a_bad_config_prints_each_problem_at_its_line_and_exits_2(odke, folder: Path) -> None:  # noqa: F811
    config = folder / "odke.yaml"
    config.write_text(
        "ontology: ontology.json\ninputs: [register.csv]\nstages: {extractor: pattrn, sink: rdf}\n"
        "bootstrap: {}\n"
    )
    result = odke("run", str(config))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{config}:3: stages.extractor: unknown extractor 'pattrn' (did you mean 'pattern'?); "
        "built: pattern, llm, hybrid, triples (or a custom class, package.module:Name)",
        f"{config}:3: rdf is not built",
        f"{config}:4: bootstrap is not built",
    ]
    missing = odke("run", str(folder / "nope.yaml"))
    assert (missing.exit_code, missing.stderr) == (
        2,
        f"error: {folder / 'nope.yaml'}: no such run config\n",
    )
    neither = odke("run")
    assert neither.exit_code == 2 and "give CONFIG" in neither.stderr


def test_from_manifest_exit_codes(odke, e2e: Path) -> None:  # noqa: F811
    assert odke("run", str(e2e / "odke.yaml")).exit_code == 0
    manifest = e2e / "kept.json"
    manifest.write_text((e2e / "out" / "manifest.json").read_text())
    again = odke("run", "--from-manifest", str(manifest))
    assert again.exit_code == 0, again.stderr
    (e2e / "corpus" / "factsheet.md").write_text("# Changed\n")
    changed = odke("run", "--from-manifest", str(manifest))
    assert changed.exit_code == 2
    assert "documents changed since this run: corpus/factsheet.md" in changed.stderr


def test_a_failed_document_exits_1(odke, e2e: Path) -> None:  # noqa: F811
    (e2e / "recorded" / "extract.json").write_text("[]")
    result = odke("run", str(e2e / "odke.yaml"))
    assert result.exit_code == 1
    assert result.stderr.startswith("error: 3 documents failed: corpus/notes/corvana.txt (")
    assert not (e2e / "out").exists()


def test_a_missing_key_exits_2_before_any_call(odke, folder: Path, monkeypatch) -> None:  # noqa: F811
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    config = folder / "odke.yaml"
    config.write_text("ontology: ontology.json\ninputs: [notes]\nstages: {extractor: llm}\n")
    result = odke("run", str(config))
    assert result.exit_code == 2
    assert "ANTHROPIC_API_KEY" in result.stderr
