"""``odke models``: providers, their variables set or not (never the value), priced models."""

from __future__ import annotations

import json

from tests.conftest import run_odke

SECRET = "sk-never-print-this-0042"


def test_models_lists_providers_variables_and_prices(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = run_odke("models")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    for line in (
        "  anthropic  POST https://api.anthropic.com/v1/messages",
        "key ANTHROPIC_API_KEY: not set (required)",
        "key OPENAI_API_KEY: set (required)",
        "  ollama     POST ",
    ):
        assert line in out
    assert "openai/gpt-4o-mini" in out and "0.15 /   0.60" in out
    assert SECRET not in out + result.stderr


def test_models_json_names_variables_only(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://user:pw@localhost:8000")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    result = run_odke("models", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    openai = next(p for p in data["providers"] if p["prefix"] == "openai")
    assert openai == {
        "prefix": "openai",
        "endpoint": "http://localhost:8000/v1/chat/completions",
        "endpoint_env": "OPENAI_BASE_URL",
        "endpoint_env_set": True,
        "key_env": "OPENAI_API_KEY",
        "key_env_set": True,
        "key_required": False,  # a local server needs no key
    }
    assert {"model": "anthropic/claude-haiku-4-5", "input": 1.0, "output": 5.0} in data[
        "priced_models"
    ]
    assert SECRET not in result.stdout and "pw" not in result.stdout


def test_models_help_has_an_example() -> None:
    result = run_odke("models", "--help")
    assert result.exit_code == 0 and "odke models --json" in result.stdout
