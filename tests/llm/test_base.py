"""ModelSpec, ModelRoles and the recorded clients: the plain types the grounder builds on."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from openodke.llm import (
    LLMClient,
    LLMResponse,
    ModelRoles,
    ModelSpec,
    RecordedClient,
    ReplayClient,
    ScriptedClient,
    load_replay,
    parse_reply,
)

USER = [
    {"role": "system", "content": "You check facts."},
    {"role": "user", "content": "Claim: A\nB"},
]


def test_single_puts_every_role_on_one_model_and_grounding_keeps_256_tokens() -> None:
    roles = ModelRoles.single("ollama/qwen2.5:3b")
    assert (roles.extract.model, roles.extract.max_tokens) == ("ollama/qwen2.5:3b", 2048)
    assert (roles.ground.model, roles.ground.max_tokens) == ("ollama/qwen2.5:3b", 256)


def test_defaults_are_the_surface_pages() -> None:
    roles = ModelRoles()
    assert (roles.extract.model, roles.extract.max_tokens) == ("anthropic/claude-sonnet-5", 2048)
    assert (roles.ground.model, roles.ground.max_tokens) == (
        "anthropic/claude-haiku-4-5-20251001",
        256,
    )
    assert roles.ground.timeout == 120.0 and roles.ground.temperature is None


@pytest.mark.parametrize(
    ("models", "extract", "ground"),
    [
        (
            {"extract": "openai/gpt-4o-mini"},
            ("openai/gpt-4o-mini", 2048),
            ("openai/gpt-4o-mini", 256),
        ),
        (
            {"ground": {"model": "ollama/x", "max_tokens": 64}},
            ("anthropic/claude-sonnet-5", 2048),
            ("ollama/x", 64),
        ),
        ({"extract": "a/b", "ground": "c/d"}, ("a/b", 2048), ("c/d", 256)),
    ],
)
def test_parse_reads_a_run_configs_models(models, extract, ground) -> None:
    roles = ModelRoles.parse(models)
    assert (roles.extract.model, roles.extract.max_tokens) == extract
    assert (roles.ground.model, roles.ground.max_tokens) == ground


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (5, "got a number"),
        ([[]], "got a list"),  # dict([[]]) raised ValueError: "this is a bug" (fuzz seed 26)
        ([["model", "openai/x"]], "got a list"),  # dict() took a list of pairs as a mapping
        (None, "got null"),
        ({1: "x"}, "got a mapping whose keys are not all strings"),
    ],
)
def test_a_role_that_is_neither_a_string_nor_a_mapping_is_a_config_error(given, said) -> None:
    from openodke.errors import ModelConfigError

    with pytest.raises(ModelConfigError, match=f"models: ground: expected a model string.*{said}"):
        ModelRoles.parse({"ground": given})
    with pytest.raises(TypeError, match=said):
        ModelSpec.parse(given)


def test_with_model_and_provider_fill_every_role() -> None:
    roles = ModelRoles().with_model("qwen2.5:7b", provider="ollama")
    assert roles.extract.model == roles.ground.model == "ollama/qwen2.5:7b"
    assert roles.ground.max_tokens == 256
    bare = ModelRoles.single("gpt-4o").with_provider("openai")
    assert bare.extract.model == "openai/gpt-4o"


def test_an_api_key_in_a_config_is_refused_without_echoing_it() -> None:
    with pytest.raises(ValidationError) as caught:
        ModelSpec.parse({"model": "openai/x", "api_key": "sk-very-secret"})
    assert "sk-very-secret" not in str(caught.value)
    assert "api_key_env" in str(caught.value)


def test_spec_splits_provider_and_name() -> None:
    spec = ModelSpec(model="openai/org/model:v1")
    assert (spec.provider, spec.name) == ("openai", "org/model:v1")
    assert ModelSpec(model="bare").provider == ""


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ('{"verdict": "supported"}', {"verdict": "supported"}),
        ('Sure! ```json\n{"verdict": "not_found"}\n``` done', {"verdict": "not_found"}),
        ('{broken then {"a": 1}', {"a": 1}),
        ("true", True),
        ("Supported.", None),
        ("", None),
    ],
)
def test_parse_reply_reads_json_or_the_first_object(text, parsed) -> None:
    assert parse_reply(text) == parsed


def test_scripted_answers_by_position_and_records_calls() -> None:
    error = LLMResponse(model="x/y", error="boom")
    client = ScriptedClient([{"verdict": "supported"}, "contradicted", error])
    spec = ModelSpec(model="ollama/q")
    first = client.complete(USER, spec, {"type": "object"})
    assert first.parsed == {"verdict": "supported"} and first.cost_usd is None
    assert client.complete(USER, spec).text == "contradicted"
    assert client.complete(USER, spec) is error
    assert "script exhausted" in (client.complete(USER, spec).error or "")
    assert client.calls[0] == (USER, spec, {"type": "object"})
    assert isinstance(client, LLMClient) and client.cacheable is False


def test_recorded_matches_by_content_and_misses_name_the_first_line(tmp_path) -> None:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps([{"match": "Claim: A", "response": {"verdict": "supported"}}]))
    client = load_replay(path)
    assert isinstance(client, RecordedClient)
    spec = ModelSpec(model="ollama/q")
    assert client.complete(USER, spec).parsed == {"verdict": "supported"}
    assert client.complete(USER, spec).parsed == {"verdict": "supported"}  # reusable
    missed = client.complete([{"role": "user", "content": "Claim: Z\nmore"}], spec)
    assert missed.error == "no recorded answer matches the request: 'Claim: Z'"


def test_replay_needs_every_contains_and_parses_raw_text(tmp_path) -> None:
    cassette = {
        "description": "two answers",
        "interactions": [
            {"match": {"contains": ["Claim: A", "nothing"]}, "response": {"text": "{}"}},
            {
                "match": {"contains": ["Claim: A", "B"]},
                "response": {"text": 'Answer: {"verdict": "contradicted"}', "model": "ollama/m"},
            },
        ],
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cassette))
    client = load_replay(path)
    assert isinstance(client, ReplayClient)
    answer = client.complete(USER, ModelSpec(model="ollama/q"))
    assert answer.parsed == {"verdict": "contradicted"} and answer.model == "ollama/m"
    assert client.used == [0, 1]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "c.json:1: not JSON"),
        ('"x"', "c.json: expected a list of recorded answers or a cassette object"),
        ('[{"match": 1}]', "c.json: [0].match: Input should be a valid string"),
    ],
)
def test_bad_recordings_are_input_errors(tmp_path, content, message) -> None:
    path = tmp_path / "c.json"
    path.write_text(content)
    with pytest.raises(Exception) as caught:
        load_replay(path)
    assert str(caught.value).startswith(str(tmp_path / message))
    assert getattr(caught.value, "exit_code", None) == 2
