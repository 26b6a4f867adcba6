"""strip_secrets: a config copied into a track record or manifest carries no key."""

from __future__ import annotations

import json

import pytest

from openodke.llm import strip_secrets
from openodke.llm.redact import is_secret_field, scrub_text, shown_url

KEY = "sk-ant-0123456789abcdef"


def test_secret_fields_go_and_key_values_are_redacted() -> None:
    config = {
        "models": {
            "extract": {"model": "anthropic/x", "api_key": KEY, "api_key_env": "TEAM_KEY"},
            "ground": {
                "model": "openai/y",
                "extra": {"headers": {"Authorization": f"Bearer {KEY}"}},
            },
        },
        "stages": [{"use": "llm", "note": f"uses {KEY}"}],
        "inputs": ("a.txt",),
        "budget": {"usd": 1.0},
    }
    env = {"ANTHROPIC_API_KEY": KEY, "HOME": "/root", "SHORT_KEY": "abc"}
    clean = strip_secrets(config, env)
    assert clean == {
        "models": {
            "extract": {"model": "anthropic/x", "api_key_env": "TEAM_KEY"},
            "ground": {"model": "openai/y", "extra": {"headers": {}}},
        },
        "stages": [{"use": "llm", "note": "uses <redacted>"}],
        "inputs": ("a.txt",),
        "budget": {"usd": 1.0},
    }
    assert KEY not in json.dumps(clean)
    assert config["models"]["extract"]["api_key"] == KEY  # the input is left as it was


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("openaiApiKey", True), ("apiKey", True), ("X-Api-Key", True), ("AccessToken", True),
        ("clientSecret", True), ("OPENAI_API_KEY", True), ("privateKey", True),
        ("apiKeyEnv", False), ("api_key_env", False), ("maxTokens", False), ("monkey", False),
    ],
)  # fmt: skip
def test_credential_names_in_any_case_style(name: str, secret: bool) -> None:
    assert is_secret_field(name) is secret


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("http://u:SECRETVALUE@host:8/v1", "http://<redacted>@host:8/v1"),
        ("Authorization: Bearer abcdefghijk1234567", "Authorization: Bearer <redacted>"),
        ("Film:basic instinct, Basic Instinct", "Film:basic instinct, Basic Instinct"),
        ("X-Api-Key: 0123456789abcdef", "X-Api-Key: <redacted>"),
        ('{"openaiApiKey": "v-1", "max_tokens": "5"}', '{"openaiApiKey": "<redacted>", "max_tokens": "5"}'),
        ("nothing secret here: max_tokens 256", "nothing secret here: max_tokens 256"),
    ],
)  # fmt: skip
def test_text_is_scrubbed_of_urls_headers_and_json_fields(text: str, shown: str) -> None:
    assert scrub_text(text, env={}) == shown


def test_values_of_lowercase_key_variables_are_scrubbed_too() -> None:
    assert scrub_text("k=abcdefghij", env={"my_api_key": "abcdefghij"}) == "k=<redacted>"
    assert shown_url("https://api.example/v1") == "https://api.example/v1"
