"""strip_secrets: a config copied into a track record or manifest carries no key."""

from __future__ import annotations

import json

from openodke.llm import strip_secrets

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
