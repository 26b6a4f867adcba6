"""`odke validate` end to end, through a local OpenAI-compatible server replaying answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke.interop.triples import TripleRow
from tests.conftest import run_odke
from tests.stages.conftest import ONTOLOGY
from tests.support.llm_server import Answer
from tests.validate.conftest import ACME_TEXT, ANSWERS, BRASK_TEXT, ROWS

SECRET = "sk-test-not-a-real-key-7f3a9c"


def answers() -> list[Answer]:
    return [Answer(json.dumps(a["response"]), contains=(a["match"],)) for a in ANSWERS]


def case(tmp_path: Path, server=None, **config) -> dict[str, Path]:
    """Texts, ontology, triples rows (the shared ten), and a config pointing at ``server``."""
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "acme.txt").write_text(ACME_TEXT)
    (texts / "brask.txt").write_text(BRASK_TEXT)
    ontology = tmp_path / "ontology.json"
    ontology.write_text(json.dumps(ONTOLOGY))
    rows = []
    for row in ROWS:
        if isinstance(row, TripleRow):
            data = row.model_dump(mode="json", exclude_defaults=True)
            data["doc"] = data["doc"].replace("texts/", "")  # the folder's ids: acme.txt
            rows.append(data)
    facts = tmp_path / "triples.jsonl"
    facts.write_text("".join(json.dumps(r) + "\n" for r in rows))
    paths = {"texts": texts, "ontology": ontology, "facts": facts}
    if server is not None or config:
        data = dict(config)
        if server is not None:
            data.setdefault(
                "models", {"ground": {"model": "openai/qwen2.5-7b", "base_url": server.base_url}}
            )
        data.setdefault("ontology", "ontology.json")
        data.setdefault("stages", {"extractor": {"use": "triples", "path": "triples.jsonl"}})
        path = tmp_path / "odke.yaml"
        path.write_text(json.dumps(data, indent=2))  # JSON is YAML
        paths["config"] = path
    return paths


def args(paths: dict[str, Path], *extra: str) -> list[str]:
    return [
        "validate",
        "--facts",
        str(paths["facts"]),
        "--texts",
        str(paths["texts"]),
        "--ontology",
        str(paths["ontology"]),
        "--config",
        str(paths["config"]),
        *extra,
    ]


def test_validate_writes_the_graph_and_refused_facts(tmp_path, llm_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    server = llm_server("openai", answers())
    paths = case(tmp_path, server)
    out = tmp_path / "validated"
    result = run_odke(*args(paths, "-o", str(out), "--cache", str(tmp_path / "cache")))
    assert result.exit_code == 0, result.stderr
    # Nine rows (the shared ten less the Fact); 'nowhere' is unmatched: 8 in. Row 5 needs no
    # call (its quote is not in the text); the other 7 are asked.
    assert len(server.requests) == 7
    body = server.requests[0].body
    assert server.requests[0].path == "/v1/chat/completions"
    assert body["model"] == "qwen2.5-7b" and body["response_format"]["type"] == "json_schema"
    assert "8 facts in, 7 written (1 unmatched)" in result.stdout
    assert "1 refused (predicate 1), 1 marked for review" in result.stdout
    assert "judge: ground.span@1 on openai/qwen2.5-7b: UNCALIBRATED" in result.stdout
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "entities.jsonl",
        "facts.jsonl",
        "links.jsonl",
        "manifest.json",
        "refused.jsonl",
    ]
    (refused,) = [json.loads(line) for line in (out / "refused.jsonl").read_text().splitlines()]
    assert refused["fact"]["predicate"] == "motto" and refused["reason"].startswith("schema: ")
    manifest = json.loads((out / "manifest.json").read_text())
    # 8 in + 1 partner - 1 refused - 1 merged.
    assert manifest["facts"] == 7 == manifest["stats"]["validation"]["facts_out"]
    assert manifest["manifest_version"] == 1 and manifest["openodke"]
    assert set(manifest["documents_sha256"]) == {"acme.txt", "brask.txt"}
    assert manifest["models"]["ground"]["asked"] == "openai/qwen2.5-7b"
    assert manifest["prompts"] == ["ground.span@1"]
    assert manifest["stats"]["stages"]["validator"]["accepted"] == 5
    # The key is never written anywhere: not in the outputs, not in the cache.
    for file in [*out.iterdir(), *(tmp_path / "cache").rglob("*")]:
        if file.is_file():
            assert SECRET.encode() not in file.read_bytes(), file
    # A rerun answers from the cache: no request reaches the server.
    again = run_odke(*args(paths, "--cache", str(tmp_path / "cache"), "--json"))
    assert again.exit_code == 0 and len(server.requests) == 7
    assert json.loads(again.stdout)["report"]["calls"] == 7  # cached calls are calls


def test_a_dry_run_prices_the_calls_and_makes_none(tmp_path, llm_server):
    server = llm_server("openai", answers())
    paths = case(tmp_path, server)
    out = tmp_path / "validated"
    result = run_odke(*args(paths, "--dry-run", "-o", str(out)))
    assert result.exit_code == 0, result.stderr
    assert "dry run: 8 facts to validate (1 unmatched)" in result.stdout
    assert "7 calls (7 to openai/qwen2.5-7b; ground.span@1)" in result.stdout
    assert "unpriced" in result.stdout  # no price for this local model is invented
    assert server.requests == [] and not out.exists()
    as_json = run_odke(*args(paths, "--dry-run", "--json"))
    assert json.loads(as_json.stdout)["dry_run"]["calls"] == 7


def test_when_every_call_fails_nothing_is_written_and_it_exits_1(tmp_path, llm_server):
    server = llm_server("openai", answers())
    server.fault("malformed", times=100)
    paths = case(tmp_path, server)
    out = tmp_path / "validated"
    result = run_odke(*args(paths, "-o", str(out), "--no-cache"))
    assert result.exit_code == 1
    assert "every model call failed (7); nothing written" in result.stderr
    assert not out.exists()


def test_some_failed_calls_are_counted_the_rest_written_and_exit_1(tmp_path, llm_server):
    server = llm_server("openai", answers())
    server.fault("refusal", match="Claim: Brask (Company) — founded", times=2)
    paths = case(tmp_path, server)
    result = run_odke(*args(paths, "--no-cache", "--json"))
    assert result.exit_code == 1, result.stderr
    assert "facts unchecked (1 refused)" in result.stderr
    report = json.loads(result.stdout)["report"]
    assert report["failed"] == 1 and report["verdicts"]["unchecked"] == 1
    assert report["failures"] == {"refused": 1}
    server.fault("refusal", match="Claim: Brask (Company) — founded", times=2)
    allowed = run_odke(*args(paths, "--no-cache", "--json", "--allow-failures", "0.5"))
    assert allowed.exit_code == 0, allowed.stderr


def test_the_budget_stops_before_the_call_that_would_pass_it(tmp_path, llm_server):
    server = llm_server("openai", answers())
    paths = case(tmp_path, server)
    result = run_odke(*args(paths, "--no-cache", "--budget-calls", "3", "--max-workers", "1"))
    assert result.exit_code == 3
    assert "budget" in result.stderr and len(server.requests) == 3


def test_without_facts_the_configs_triples_extractor_and_stages_run(tmp_path):
    recorded = tmp_path / "ground.json"
    recorded.write_text(json.dumps(ANSWERS))
    paths = case(
        tmp_path,
        inputs=[{"path": "texts", "loader": "directory", "pattern": "*.txt"}],
        models={"ground": "openai/qwen2.5-7b", "replay": {"ground": "ground.json"}},
        stages={
            "extractor": {"use": "triples", "path": "triples.jsonl"},
            "gate": {"use": "verdict", "schema": True, "enforce": True},
            "sink": {"use": "jsonl", "directory": "graph"},
        },
    )
    result = run_odke("validate", "--config", str(paths["config"]), "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)["report"]
    # Documents are texts/acme.txt and texts/brask.txt (relative to the config); the rows name
    # acme.txt and brask.txt, which match by stem. enforce refuses the contradicted row too.
    assert (report["facts_in"], report["unmatched"]) == (8, 1)
    assert report["refused_by"] == {"predicate": 1, "contradicted": 1}
    assert (tmp_path / "graph" / "facts.jsonl").exists()


@pytest.mark.parametrize(
    ("config", "cli", "message"),
    [
        ({"stages": {"sink": "neo4j"}}, [], r"odke\.yaml:\d+: neo4j is not built"),
        ({"bootstrap": True}, [], r"odke\.yaml:\d+: bootstrap is not built"),
        (
            {"modles": {}},
            [],  # line 5: after "{" and the three lines of inputs
            r"odke\.yaml:5: modles: unknown key \(did you mean 'models'\?\)",
        ),
        (
            {"stages": {"extractor": "llm"}, "models": {"ground": "ollama/m"}},
            [],
            r"stages\.extractor is 'llm': without --facts, validate runs a triples extractor",
        ),
        ({"models": {"ground": "acme/m"}}, [], "unknown provider 'acme'"),
        (  # found by the fuzz campaign of seed 25: the refusal named only "ontology.j on"
            {"ontology": "ontology.j on", "models": {"ground": "ollama/m"}},
            [],
            r"odke\.yaml:\d+: ontology: no such file .*ontology\.j on$",
        ),
        (  # fuzz seed 26: a role that is a number or a list was "this is a bug"
            {"models": {"ground": 5}},
            [],
            r"odke\.yaml:\d+: models: ground: expected a model string .* got a number",
        ),
        ({"models": {"ground": [[]]}}, [], r"odke\.yaml:\d+: models: ground: .* got a list"),
    ],
)
def test_bad_configs_exit_2_at_their_line(tmp_path, config, cli, message):
    paths = case(tmp_path, inputs=["texts"], **config)
    result = run_odke("validate", "--config", str(paths["config"]), *cli)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.count("\n") == 1
    import re

    assert re.search(message, result.stderr), result.stderr


def test_missing_inputs_exit_2(tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    paths = case(tmp_path)
    no_texts = run_odke(
        "validate", "--facts", str(paths["facts"]), "--ontology", str(paths["ontology"])
    )
    assert no_texts.exit_code == 2 and "give --texts DIR" in no_texts.stderr
    no_ontology = run_odke(
        "validate", "--facts", str(paths["facts"]), "--texts", str(paths["texts"])
    )
    assert no_ontology.exit_code == 2 and "give --ontology FILE" in no_ontology.stderr
    # The default ground model is Anthropic's: without its key, exit 2 before any call.
    no_key = run_odke(
        "validate",
        "--facts",
        str(paths["facts"]),
        "--texts",
        str(paths["texts"]),
        "--ontology",
        str(paths["ontology"]),
    )
    assert no_key.exit_code == 2 and "ANTHROPIC_API_KEY is not set" in no_key.stderr
