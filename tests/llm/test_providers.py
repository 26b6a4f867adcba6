"""The three protocols over a local HTTP server: exact request bodies, tokens, prices, faults."""

from __future__ import annotations

import pytest

from openodke.errors import ModelConfigError
from openodke.llm import ModelSpec
from openodke.llm.client import ProviderClient, check_spec
from openodke.llm.retry import RetryPolicy
from tests.support.llm_server import Answer

SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"enum": ["supported", "contradicted", "not_found"]}},
    "required": ["verdict"],
}
MESSAGES = [
    {"role": "system", "content": "You check one claim.", "prompt": "ground.span@1"},
    {"role": "user", "content": "Claim: Ada Lovelace (Person) — born in — London.\n\nPassage:\nx"},
]
KEY = "sk-test-9f8e7d6c5b4a"


class Sleeps:
    """An injected sleep that records and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def client():
    """Make ProviderClients with a recording sleep and no jitter; all are closed at the end."""
    made: list[ProviderClient] = []

    def make(sleeps: Sleeps, env: dict[str, str] | None = None, **retry) -> ProviderClient:
        retry.setdefault("jitter", 0.0)
        made.append(ProviderClient(retry=RetryPolicy(sleep=sleeps, **retry), env=env or {}))
        return made[-1]

    yield make
    for live in made:
        live.close()


ANSWER = [Answer('{"verdict": "supported"}', contains=("Claim: Ada",))]


def test_ollama_sends_the_schema_as_format_and_reads_eval_counts(
    llm_server, sleeps, client
) -> None:
    server = llm_server("ollama", ANSWER)
    spec = server.spec("qwen2.5:3b", temperature=0.0, max_tokens=256)
    reply = client(sleeps).complete(MESSAGES, spec, SCHEMA)
    (request,) = server.requests
    assert request.path == "/api/chat"
    assert request.body == {
        "model": "qwen2.5:3b",
        "messages": [
            {"role": "system", "content": "You check one claim."},
            {"role": "user", "content": MESSAGES[1]["content"]},
        ],
        "stream": False,
        "format": SCHEMA,
        "options": {"temperature": 0.0, "num_predict": 256},
    }
    assert "authorization" not in request.headers
    # prompt tokens = words in the two contents: 4 + 11 = 15; completion: 2 words
    assert (reply.prompt_tokens, reply.completion_tokens) == (15, 2)
    assert reply.parsed == {"verdict": "supported"} and reply.error is None
    assert reply.model == "ollama/qwen2.5:3b" and reply.cost_usd == 0.0  # local: free


def test_ollama_host_without_scheme_or_port_is_completed() -> None:
    from openodke.llm.providers import PROVIDERS

    ollama = PROVIDERS["ollama"]
    spec = ModelSpec(model="ollama/x")
    assert ollama.url(spec, {}) == "http://localhost:11434/api/chat"
    assert ollama.url(spec, {"OLLAMA_HOST": "10.0.0.5"}) == "http://10.0.0.5:11434/api/chat"
    assert ollama.url(spec, {"OLLAMA_HOST": "10.0.0.5:9"}) == "http://10.0.0.5:9/api/chat"
    assert ollama.url(spec, {"OLLAMA_HOST": "https://o.example/"}) == "https://o.example/api/chat"


def test_openai_sends_response_format_json_schema_and_prices_the_call(
    llm_server, sleeps, client
) -> None:
    server = llm_server("openai", ANSWER)
    spec = server.spec("gpt-4o-mini", max_tokens=256, extra={"seed": 7})
    env = {"OPENAI_API_KEY": KEY}
    reply = client(sleeps, env).complete(MESSAGES, spec, SCHEMA)
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"  # /v1 appended to a base without it
    assert request.body == {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "You check one claim."},
            {"role": "user", "content": MESSAGES[1]["content"]},
        ],
        "max_tokens": 256,
        "response_format": {
            "type": "json_schema",
            # strict: every property required, no others (SCHEMA's one property is required)
            "json_schema": {
                "name": "reply",
                "schema": {**SCHEMA, "additionalProperties": False},
                "strict": True,
            },
        },
        "seed": 7,
    }
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert KEY.encode() not in request.raw
    # gpt-4o-mini: $0.15 in, $0.60 out per million; 15 * 0.15 + 2 * 0.60 = 3.45 -> 3.45e-6 USD
    assert reply.cost_usd == pytest.approx(3.45e-6)
    assert (reply.prompt_tokens, reply.completion_tokens) == (15, 2)


@pytest.mark.parametrize(
    ("base", "url"),
    [
        (None, "https://api.openai.com/v1/chat/completions"),
        ("http://localhost:8000", "http://localhost:8000/v1/chat/completions"),
        ("http://localhost:8000/v1/", "http://localhost:8000/v1/chat/completions"),
        # a base with a path is used as written: Gemini's OpenAI-compatible endpoint
        (
            "https://generativelanguage.googleapis.com/v1beta/openai/",
            "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions",
        ),
        ("https://gw.example/proxy/openai", "https://gw.example/proxy/openai/chat/completions"),
    ],
)
def test_openai_base_gets_v1_only_when_it_is_a_bare_host(base, url) -> None:
    from openodke.llm.providers import PROVIDERS

    assert PROVIDERS["openai"].url(ModelSpec(model="openai/m", base_url=base), {}) == url


def test_openai_compatible_local_server_needs_no_key(llm_server, sleeps, client) -> None:
    server = llm_server("openai", ANSWER)
    reply = client(sleeps).complete(MESSAGES, server.spec("llama-3"), None)
    assert reply.parsed == {"verdict": "supported"}
    assert "authorization" not in server.requests[0].headers
    assert "response_format" not in server.requests[0].body


def test_anthropic_asks_for_the_schema_through_a_forced_tool(llm_server, sleeps, client) -> None:
    answers = [Answer('{"verdict": "contradicted"}', ("Claim: Ada",))]
    server = llm_server("anthropic", answers)
    spec = server.spec("claude-haiku-4-5-20251001", max_tokens=256, temperature=0.2)
    reply = client(sleeps, {"ANTHROPIC_API_KEY": KEY}).complete(MESSAGES, spec, SCHEMA)
    (request,) = server.requests
    assert request.path == "/v1/messages"
    assert request.body == {
        "model": "claude-haiku-4-5-20251001",
        "max_tokens": 256,
        "messages": [{"role": "user", "content": MESSAGES[1]["content"]}],
        "system": "You check one claim.",
        "temperature": 0.2,
        "tools": [
            {
                "name": "reply",
                "description": "Give your answer as this tool's input.",
                "input_schema": SCHEMA,
            }
        ],
        "tool_choice": {"type": "tool", "name": "reply"},
    }
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert reply.parsed == {"verdict": "contradicted"}  # the tool call's input
    assert reply.finish_reason == "tool_use"
    # server tokens: the words of system and user; read back as sent
    assert reply.prompt_tokens == len(
        (request.body["system"] + "\n" + MESSAGES[1]["content"]).split()
    )
    # haiku 4.5: $1 in, $5 out per million
    expected = (reply.prompt_tokens * 1.0 + reply.completion_tokens * 5.0) / 1e6
    assert reply.cost_usd == pytest.approx(expected)


@pytest.mark.parametrize(
    ("kind", "extra", "requests", "waits"),
    [
        ("429", {"retry_after": 3}, 2, [3.0]),  # Retry-After beats the 0.5 s backoff
        ("429", {"retry_after": 99}, 2, [99.0]),  # ...in full, past the 30 s backoff cap
        ("429", {"retry_after_ms": 1500, "retry_after": 9}, 2, [1.5]),  # retry-after-ms first
        ("429", {}, 2, [0.5]),
        ("500", {"times": 3}, 4, [0.5, 1.0, 2.0]),
        ("cut", {}, 2, [0.5]),
        ("hang", {"seconds": 2.0}, 2, [0.5]),
    ],
)
def test_retryable_faults_are_retried_and_the_call_completes(
    llm_server, sleeps, client, kind, extra, requests, waits
) -> None:
    server = llm_server("openai", ANSWER).fault(kind, **extra)
    reply = client(sleeps).complete(MESSAGES, server.spec("m", timeout=0.3), SCHEMA)
    assert reply.error is None and reply.parsed == {"verdict": "supported"}
    assert len(server.requests) == requests
    assert sleeps.waits == waits


@pytest.mark.parametrize(
    ("kind", "error"),
    [
        ("500", "HTTP 500 (after 4 attempts)"),
        ("429", "HTTP 429 (after 4 attempts)"),
        (
            "cut",
            "connection failed (RemoteProtocolError: Server disconnected without sending a response.) (after 4 attempts)",
        ),
        ("hang", "timed out after 0.2 s (after 4 attempts)"),
    ],
)
def test_a_call_that_keeps_failing_returns_an_error_result(
    llm_server, sleeps, client, kind, error
) -> None:
    server = llm_server("ollama", ANSWER).fault(kind, times=10, seconds=2.0)
    reply = client(sleeps).complete(MESSAGES, server.spec("m", timeout=0.2), SCHEMA)
    assert reply.error == error and reply.parsed is None and reply.cost_usd is None
    assert len(server.requests) == 4
    assert sleeps.waits == [0.5, 1.0, 2.0]


def test_malformed_json_and_client_errors_are_not_retried(llm_server, sleeps, client) -> None:
    server = llm_server("anthropic", ANSWER).fault("malformed")
    env = {"ANTHROPIC_API_KEY": KEY}
    reply = client(sleeps, env).complete(MESSAGES, server.spec("m"), SCHEMA)
    assert reply.error == "malformed reply: the body is not JSON"
    missing = client(sleeps, env).complete(
        [{"role": "user", "content": "nothing"}], server.spec("m")
    )
    assert missing.error == 'HTTP 404: {"error": "no recorded answer for: nothing"}'
    assert len(server.requests) == 2 and sleeps.waits == []


def test_a_reply_of_the_wrong_shape_is_malformed(llm_server, sleeps, client) -> None:
    # An Ollama reply sent to an OpenAI client: valid JSON, wrong fields.
    server = llm_server("ollama", ANSWER)
    spec = ModelSpec(model="openai/m", base_url=server.base_url + "/api/chat#")
    reply = client(sleeps).complete(MESSAGES, spec)
    assert reply.error == "malformed reply: KeyError: 'choices'"


def test_backoff_doubles_is_capped_and_jitter_is_seeded() -> None:
    plain = RetryPolicy(attempts=10, jitter=0.0)
    assert [plain.delay(n) for n in range(1, 9)] == [0.5, 1, 2, 4, 8, 16, 30, 30]
    a, b = RetryPolicy(seed=3), RetryPolicy(seed=3)
    draws = [a.delay(n) for n in (1, 2, 3)]
    assert draws == [b.delay(n) for n in (1, 2, 3)]
    assert all(
        0.9 * 0.5 * 2 ** (n - 1) <= d <= 1.1 * 0.5 * 2 ** (n - 1)
        for n, d in zip((1, 2, 3), draws, strict=True)
    )
    assert draws != [0.5, 1.0, 2.0]


def test_retry_after_reads_seconds_and_http_dates() -> None:
    from openodke.llm.retry import parse_retry_after

    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


@pytest.mark.parametrize(
    ("spec", "env", "message"),
    [
        (ModelSpec(model="gemini/pro"), {}, "unknown provider 'gemini'"),
        (ModelSpec(model="qwen2.5"), {}, "no provider prefix"),
        (ModelSpec(model="anthropic/claude-haiku-4-5"), {}, "ANTHROPIC_API_KEY is not set"),
        (ModelSpec(model="openai/gpt-4o"), {}, "OPENAI_API_KEY is not set"),
        (ModelSpec(model="ollama/q", api_key_env="PROXY_KEY"), {}, "PROXY_KEY is not set"),
        (ModelSpec(model="openai/gpt-4o", api_key_env=KEY + "-x"), {}, "must be the NAME"),
    ],
)
def test_a_model_that_cannot_be_called_fails_before_any_call(spec, env, message) -> None:
    with pytest.raises(ModelConfigError, match=message) as caught:
        check_spec(spec, env)
    assert caught.value.exit_code == 2
    assert KEY not in str(caught.value)


@pytest.mark.parametrize(
    ("spec", "env"),
    [
        (ModelSpec(model="ollama/q"), {}),
        (ModelSpec(model="openai/m", base_url="http://localhost:8000"), {}),
        (ModelSpec(model="openai/m"), {"OPENAI_BASE_URL": "http://localhost:1234"}),
        (ModelSpec(model="anthropic/m", api_key_env="MY_KEY"), {"MY_KEY": "k"}),
    ],
)
def test_callable_models_pass_the_check(spec, env) -> None:
    check_spec(spec, env)


def test_api_key_env_names_another_variable(llm_server, sleeps, client) -> None:
    server = llm_server("openai", ANSWER)
    env = {"OPENAI_API_KEY": "wrong", "TEAM_KEY": KEY}
    client(sleeps, env).complete(MESSAGES, server.spec("m", api_key_env="TEAM_KEY"))
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_the_client_repr_and_errors_hold_no_key(llm_server, sleeps, client) -> None:
    server = llm_server("openai", ANSWER)
    env = {"OPENAI_API_KEY": KEY}
    live = client(sleeps, env)
    spec = server.spec("m")
    reply = live.complete([{"role": "user", "content": f"echo {KEY}"}], spec)
    assert reply.error is not None and KEY not in reply.error  # the 404 body quoted the key
    assert KEY not in repr(live) and KEY not in repr(spec)


@pytest.mark.parametrize(
    ("base", "field"),
    [(None, "max_completion_tokens"), ("http://localhost:8000", "max_tokens")],
)
def test_openais_own_endpoint_gets_max_completion_tokens(base, field) -> None:
    from openodke.llm.providers import PROVIDERS

    spec = ModelSpec(model="openai/gpt-5-mini", base_url=base, max_tokens=256)
    body = PROVIDERS["openai"].body(MESSAGES, spec, None, {})
    assert body[field] == 256 and len({"max_tokens", "max_completion_tokens"} & set(body)) == 1
