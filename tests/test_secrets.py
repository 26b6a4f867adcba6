"""No key reaches disk: configs are stripped, and every key variable's value is scrubbed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke.llm.redact import REDACTED, scrub_text, strip_secrets
from tests.conftest import run_odke
from tests.fuzz.seeds import pipeline_files, write
from tests.support.llm_server import llm_server  # noqa: F401 - a fixture, used by name

ENV_KEY = "sk-env-not-a-real-key-41c9e2"
GATEWAY_KEY = "gw-custom-variable-value-77aa"
CONFIG_KEYS = ("sk-config-api-key-0d1f", "hf-token-value-93ab", "db-password-value-1e2f",
               "bearer-header-value-55cd")  # fmt: skip


@pytest.mark.parametrize(
    ("field", "dropped"),
    [
        ("api_key", True), ("x-api-key", True), ("openai_api_key", True), ("key", True),
        ("hf_token", True), ("access_token", True), ("db_password", True), ("passwd", True),
        ("client_secret", True), ("Authorization", True), ("credentials", True),
        ("api_key_env", False), ("max_tokens", False), ("keys", False), ("monkey", False),
        ("model", False), ("token_budget", False),
    ],
)  # fmt: skip
def test_fields_named_like_secrets_are_dropped(field, dropped):
    stripped = strip_secrets({"models": {"ground": {field: "value", "model": "m"}}}, env={})
    assert (field not in stripped["models"]["ground"]) is dropped
    assert stripped["models"]["ground"]["model"] == "m"


def test_values_of_key_variables_are_replaced_wherever_they_appear():
    env = {"OPENAI_API_KEY": ENV_KEY, "MY_GATEWAY": GATEWAY_KEY, "HOME": "/home/someone-long"}
    config = {"note": f"Bearer {ENV_KEY}", "models": {"g": {"api_key_env": "MY_GATEWAY"}},
              "other": [f"x{GATEWAY_KEY}y"], "home": "/home/someone-long"}  # fmt: skip
    stripped = strip_secrets(config, env=env)
    assert stripped["note"] == f"Bearer {REDACTED}"
    assert stripped["other"] == [f"x{REDACTED}y"]  # named by api_key_env: its value is a key
    assert stripped["home"] == "/home/someone-long"  # not a key variable
    assert scrub_text(f"a {ENV_KEY} b", env=env) == f"a {REDACTED} b"


def test_no_file_an_eval_pipeline_run_writes_holds_a_key(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    monkeypatch.setenv("MY_GATEWAY", GATEWAY_KEY)
    write(tmp_path, pipeline_files())
    api_key, token, password, bearer = CONFIG_KEYS
    config = {
        "ontology": "ontology.json",
        "models": {
            "ground": {"model": "openai/qwen2.5-7b", "api_key": api_key, "api_key_env": "MY_GATEWAY",
                       "headers": {"Authorization": f"Bearer {bearer}"}},
            "extract": {"model": "openai/qwen2.5-7b", "hf_token": token},
        },
        "database": {"db_password": password, "url": f"postgres://u:{ENV_KEY}@h/db"},
        "stages": {"extractor": {"use": "llm", "snippet_limit": 5}},
        "note": f"gateway {GATEWAY_KEY}",
    }  # fmt: skip
    (tmp_path / "odke.yaml").write_text(json.dumps(config))
    out = tmp_path / "out"
    result = run_odke(
        "eval", "pipeline", "--labels", str(tmp_path / "gold.jsonl"), "--documents",
        str(tmp_path / "docs.jsonl"), "--predictions", str(tmp_path / "triples.jsonl"),
        "--config", str(tmp_path / "odke.yaml"), "--report", str(out / "report.json"),
        "--items", str(out / "items.jsonl"),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    written = sorted(p for p in out.rglob("*") if p.is_file())
    assert {p.name for p in written} >= {"report.json", "items.jsonl", "track-record.jsonl"}
    for path in written:
        data = path.read_bytes()
        for secret in (ENV_KEY, GATEWAY_KEY, *CONFIG_KEYS):
            assert secret.encode() not in data, (path.name, secret)
    for stream in (result.stdout, result.stderr):
        assert not any(secret in stream for secret in (ENV_KEY, GATEWAY_KEY, *CONFIG_KEYS))
    (line,) = [json.loads(x) for x in (out / "track-record.jsonl").read_text().splitlines()]
    ground = line["config"]["models"]["ground"]
    assert ground == {"model": "openai/qwen2.5-7b", "api_key_env": "MY_GATEWAY", "headers": {}}
    assert line["config"]["note"] == f"gateway {REDACTED}"


def test_every_file_a_validate_run_writes_is_free_of_its_key(
    tmp_path: Path, llm_server, monkeypatch
):
    from tests.support.llm_server import Answer
    from tests.validate.conftest import ANSWERS

    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    server = llm_server(
        "openai", [Answer(json.dumps(a["response"]), contains=(a["match"],)) for a in ANSWERS]
    )
    write(tmp_path, pipeline_files())
    config = {"ontology": "ontology.json",
              "models": {"ground": {"model": "openai/qwen2.5-7b", "base_url": server.base_url}}}  # fmt: skip
    (tmp_path / "odke.yaml").write_text(json.dumps(config))
    out, cache = tmp_path / "validated", tmp_path / "cache"
    result = run_odke(
        "validate", "--facts", str(tmp_path / "triples.jsonl"), "--texts", str(tmp_path / "texts"),
        "--ontology", str(tmp_path / "ontology.yaml"), "--config", str(tmp_path / "odke.yaml"),
        "-o", str(out), "--cache", str(cache),
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    assert (
        server.requests and server.requests[0].headers.get("authorization") == f"Bearer {ENV_KEY}"
    )
    for path in [*out.rglob("*"), *cache.rglob("*")]:
        if path.is_file():
            assert ENV_KEY.encode() not in path.read_bytes(), path
