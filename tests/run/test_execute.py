"""execute: outputs written together or not at all, dry runs, replays, failures and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke.errors import BudgetStop, InputError, PipelineError
from openodke.run import RunOptions, execute, load_config, parse_config
from openodke.run.manifest import redact
from tests.run.conftest import PATTERN, write_config
from tests.support.llm_server import Answer

SPAN_CONFIG = {
    "ontology": "ontology.json",
    "inputs": [{"path": "register.csv", "tier": "authoritative"}],
    "stages": {
        "extractor": PATTERN,
        "grounder": "span",
        "normalizer": "value",
        "corroborator": "signature",
        "gate": "verdict",
        "sink": {"use": "jsonl", "directory": "out"},
    },
}


def test_a_model_free_run_writes_every_file_and_fills_the_scorer(folder: Path) -> None:
    result = execute(parse_config(SPAN_CONFIG, folder))
    out = folder / "out"
    assert sorted(p.name for p in out.iterdir()) == [
        "entities.jsonl",
        "facts.jsonl",
        "links.jsonl",
        "manifest.json",
        "refused.jsonl",
        "rejections.jsonl",
    ]
    facts = [json.loads(line) for line in (out / "facts.jsonl").read_text().splitlines()]
    assert len(facts) == 8
    # Left out, the scorer is `evidence`: an authoritative, unchecked fact scores 0.8 x 0.5.
    assert {f["confidence"] for f in facts} == {0.4}
    # `3 March 1999` read by the date range: the normalizer ran.
    assert {f["object_value"] for f in facts if f["predicate"] == "founded"} == {
        "2011-05-02",
        "1999-03-03",
    }
    assert all(f["qualifiers"]["odke.score"]["tier"] == 0.8 for f in facts)
    assert result.stats["extracted"] == 8
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["models"]["extract"]["served"] is None  # no model was called


def test_without_a_jsonl_sink_the_manifest_goes_beside_the_config(folder: Path) -> None:
    config = {**SPAN_CONFIG, "stages": {"extractor": PATTERN}}
    result = execute(load_config(write_config(folder, json.dumps(config), "odke.json")))
    assert result.written == [str(folder.resolve() / "manifest.json")]
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["facts"] == 8 and manifest["manifest_version"] == 1


def test_a_dry_run_plans_grounding_exactly_when_extraction_is_free(
    folder: Path, llm_server
) -> None:
    server = llm_server("openai", [Answer('{"verdict": "supported"}')])
    config = {
        **SPAN_CONFIG,
        "models": {"ground": {"model": "openai/gpt-4o-mini", "base_url": server.base_url}},
        "stages": {**SPAN_CONFIG["stages"], "grounder": "llm"},
    }
    result = execute(parse_config(config, folder), dry_run=True, options=RunOptions(no_cache=True))
    plan = result.plan
    assert plan is not None and plan.ground is not None
    assert (plan.extract.calls, plan.ground.calls, plan.calls) == (0, 8, 8)
    assert plan.max_usd is not None and plan.max_usd > 0  # gpt-4o-mini is priced
    assert server.requests == [] and not (folder / "out").exists()
    assert "nothing was called or written" in result.render()


def test_a_dry_run_of_a_model_extractor_counts_its_calls_and_leaves_grounding_open(
    e2e: Path,
) -> None:
    result = execute(load_config(e2e / "odke.yaml"), dry_run=True)
    assert result.plan is not None
    assert (result.plan.extract.calls, result.plan.calls, result.plan.max_usd) == (3, None, None)
    assert not (e2e / "out").exists()


def test_from_manifest_replays_and_refuses_a_changed_document_or_ontology(e2e: Path) -> None:
    first = execute(load_config(e2e / "odke.yaml"))
    manifest = e2e / "out" / "manifest.json"
    kept = e2e / "kept-manifest.json"
    kept.write_text(manifest.read_text())
    from openodke.run import config_from_manifest

    again = execute(config_from_manifest(kept), from_manifest=kept)
    assert again.stats["graph"] == first.stats["graph"]
    note = e2e / "corpus" / "notes" / "mirefield.txt"
    note.write_text(note.read_text().replace("35 people", "36 people"))
    with pytest.raises(InputError) as caught:
        execute(config_from_manifest(kept), from_manifest=kept)
    assert caught.value.exit_code == 2
    assert "documents changed since this run: corpus/notes/mirefield.txt" in str(caught.value)
    ontology = e2e / "ontology.json"
    ontology.write_text(ontology.read_text().replace('"version": "1"', '"version": "2"'))
    with pytest.raises(InputError, match="the ontology changed since this run"):
        execute(config_from_manifest(kept), from_manifest=kept)


def test_a_failed_document_fails_the_run_and_writes_nothing(e2e: Path) -> None:
    recorded = e2e / "recorded" / "extract.json"
    answers = json.loads(recorded.read_text())
    recorded.write_text(json.dumps([a for a in answers if "Pellwick" not in a["match"]]))
    with pytest.raises(PipelineError) as caught:
        execute(load_config(e2e / "odke.yaml"))
    assert caught.value.exit_code == 1
    assert str(caught.value).startswith("1 document failed: corpus/notes/pellwick.txt (chunk 0: ")
    assert not (e2e / "out").exists()


def test_the_budget_stops_before_the_call_that_would_pass_it(folder: Path, llm_server) -> None:
    server = llm_server("openai", [Answer('{"verdict": "supported"}')])
    config = {
        **SPAN_CONFIG,
        "models": {"ground": {"model": "openai/local", "base_url": server.base_url}},
        "stages": {**SPAN_CONFIG["stages"], "grounder": {"use": "llm", "max_workers": 1}},
        "budget": {"calls": 3},
    }
    with pytest.raises(BudgetStop) as caught:
        execute(parse_config(config, folder), options=RunOptions(no_cache=True))
    assert caught.value.exit_code == 3
    assert len(server.requests) == 3 and not (folder / "out").exists()


def test_secrets_in_a_config_are_redacted_in_the_manifest(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXAMPLE_API_KEY", "sk-canary-0123456789")
    assert redact({"extra": {"auth_token": "x", "password": "y", "max_tokens": 5}}) == {
        "extra": {"auth_token": "<redacted>", "password": "<redacted>", "max_tokens": 5}
    }
    config = {
        **SPAN_CONFIG,
        "models": {
            "extract": {
                "model": "ollama/x",
                "api_key_env": "EXAMPLE_API_KEY",
                "base_url": "http://localhost:1/sk-canary-0123456789",
                "extra": {"access_token": "tok-secret-value"},
            }
        },
    }
    execute(parse_config(config, folder))
    text = (folder / "out" / "manifest.json").read_text()
    assert "sk-canary-0123456789" not in text and "tok-secret-value" not in text
    extract = json.loads(text)["config"]["models"]["extract"]
    assert extract["api_key_env"] == "EXAMPLE_API_KEY"
    assert extract["extra"] == {"access_token": "<redacted>"}


def test_a_failed_document_is_left_out_when_allow_failures_allows_it(e2e: Path) -> None:
    recorded = e2e / "recorded" / "extract.json"
    answers = json.loads(recorded.read_text())
    recorded.write_text(json.dumps([a for a in answers if "Pellwick" not in a["match"]]))
    with pytest.raises(PipelineError, match=r"allows 0\); nothing written"):
        execute(load_config(e2e / "odke.yaml"), options=RunOptions(allow_failures=0.01))
    result = execute(load_config(e2e / "odke.yaml"), options=RunOptions(allow_failures=0.5))
    assert any("pellwick.txt" in w and "left out" in w for w in result.warnings)
    assert (e2e / "out" / "facts.jsonl").exists()


def test_refused_grounding_calls_are_written_and_the_command_exits_1(
    folder: Path, llm_server, odke
) -> None:
    server = llm_server("openai", [Answer('{"verdict": "supported"}')])
    server.fault("refusal", match="Bolt Co", times=100)
    config = {
        **SPAN_CONFIG,
        "models": {"ground": {"model": "openai/local", "base_url": server.base_url}},
        "stages": {**SPAN_CONFIG["stages"], "grounder": {"use": "llm", "max_workers": 2}},
    }
    path = folder / "odke.json"
    path.write_text(json.dumps(config))
    result = odke("run", str(path), "--no-cache")
    assert result.exit_code == 1, result.stderr
    assert "facts unchecked (" in result.stderr and " refused)" in result.stderr
    assert "written with those facts unchecked" in result.stderr
    assert (folder / "out" / "facts.jsonl").exists()
    allowed = odke("run", str(path), "--no-cache", "--allow-failures", "0.9")
    assert allowed.exit_code == 0, allowed.stderr
