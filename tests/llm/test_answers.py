"""Only good answers are kept: cut-offs, refusals, empty, prose and off-schema answers, over HTTP.

Each protocol's local server answers as a real one does when it cannot give a usable answer; the
live client chain (cache over re-ask over HTTP) asks once more with the reason (or a larger
max_tokens), stores only a good answer, and records a failure of its kind otherwise.
"""

from __future__ import annotations

import pytest

from openodke.llm import ModelSpec, client_for
from openodke.llm.failures import FailureKind
from openodke.llm.retry import RetryPolicy
from tests.support.llm_server import Answer

SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["supported", "not_found"]}},
    "required": ["verdict"],
    "additionalProperties": False,
}
MESSAGES = [
    {"role": "system", "content": "You check one claim.", "prompt": "ground.span@1"},
    {"role": "user", "content": "Claim: Ada was born in London.\n\nPassage:\nAda ..."},
]
GOOD = '{"verdict": "supported"}'
ENV = {"ANTHROPIC_API_KEY": "sk-ant-test-0123456789", "OPENAI_API_KEY": "sk-test-0123456789"}
PROTOCOLS = ["ollama", "openai", "anthropic"]


def _client(tmp_path, **kw):
    retry = RetryPolicy(sleep=lambda s: None, jitter=0.0)
    return client_for(cache=tmp_path / "cache", retry=retry, env=ENV, **kw)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize(
    ("fault", "text", "kind"),
    [
        ("truncated", "", FailureKind.cut_off),
        ("refusal", "I can't help with that.", FailureKind.refused),
        ("empty", "", FailureKind.empty),
        ("say", "I think the passage supports it.", FailureKind.off_schema),  # prose
        ("say", '{"verdict": "maybe"}', FailureKind.off_schema),
    ],
)
def test_an_unusable_answer_is_asked_again_once_then_kept_only_when_good(
    llm_server, tmp_path, protocol, fault, text, kind
) -> None:
    if protocol == "ollama" and fault == "refusal":
        kind = FailureKind.off_schema  # Ollama has no refusal field: the words are prose
    server = llm_server(protocol, [Answer(GOOD, contains=("Claim: Ada",))])
    server.fault(fault, text=text, times=2)
    spec = server.spec("m", max_tokens=64)
    client = _client(tmp_path)
    reply = client.complete(MESSAGES, spec, SCHEMA)
    assert reply.failure == kind.value and reply.error is not None
    assert reply.error.startswith(kind.value) and "asked" in reply.error
    assert "unreadable answer" not in reply.error
    assert len(server.requests) == 2
    second = server.requests[1].body
    if fault == "truncated":
        tokens = second.get("max_tokens") or second.get("options", {}).get("num_predict")
        assert tokens == 320  # twice the cap, and at least 256 more
    else:
        said = second["messages"][-1]["content"]
        assert said.startswith("Your reply could not be used (") and kind.value in said
    # nothing was stored: the rerun asks again, and this time the server answers well
    again = client.complete(MESSAGES, spec, SCHEMA)
    assert again.ok and again.parsed == {"verdict": "supported"} and not again.cached
    assert len(server.requests) == 3
    third = client.complete(MESSAGES, spec, SCHEMA)
    assert third.cached and len(server.requests) == 3
    client.close()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_cut_off_mended_by_a_larger_cap_is_kept_with_both_calls_tokens(
    llm_server, tmp_path, protocol
) -> None:
    server = llm_server(protocol, [Answer(GOOD, contains=("Claim: Ada",), completion_tokens=5)])
    server.fault("truncated")
    client = _client(tmp_path)
    reply = client.complete(MESSAGES, server.spec("m", max_tokens=64), SCHEMA)
    assert reply.ok and reply.parsed == {"verdict": "supported"}
    assert reply.completion_tokens == 10  # 5 paid for the cut-off answer, 5 for this one
    assert client.complete(MESSAGES, server.spec("m", max_tokens=64), SCHEMA).cached
    client.close()


@pytest.mark.parametrize(
    ("protocol", "field", "value"),
    [("openai", "finish_reason", "length"), ("anthropic", "stop_reason", "max_tokens")],
)
def test_the_cut_off_is_read_from_the_provider_field(
    llm_server, tmp_path, protocol, field, value
) -> None:
    server = llm_server(protocol, [Answer(GOOD, contains=("Claim: Ada",))])
    server.fault("truncated", times=2)
    client = _client(tmp_path)
    reply = client.complete(MESSAGES, server.spec("m", max_tokens=64), None)
    client.close()
    assert reply.failure == "cut off at max_tokens"
    assert reply.finish_reason == value
    assert "max_tokens (320)" in reply.error  # the second ask's cap: max(2 * 64, 64 + 256)


def test_a_key_echoed_back_reaches_neither_the_cache_nor_the_answer(llm_server, tmp_path) -> None:
    key = ENV["OPENAI_API_KEY"]
    echo = '{"verdict": "supported", "note": "your key is ' + key + '"}'
    server = llm_server("openai", [Answer(echo, contains=("Claim: Ada",))])
    client = _client(tmp_path)
    reply = client.complete(MESSAGES, server.spec("m"), None)
    assert key not in reply.text and "<redacted>" in reply.text
    assert reply.parsed == {"verdict": "supported", "note": "your key is <redacted>"}
    client.close()
    for path in (tmp_path / "cache").rglob("*"):
        assert key.encode() not in path.read_bytes(), path


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_a_refused_key_stops_the_run_after_the_first_few_calls(
    llm_server, tmp_path, protocol
) -> None:
    from openodke.errors import ProviderUnavailable
    from openodke.llm import map_calls

    server = llm_server(protocol, [Answer(GOOD)]).fault("401", times=1000)
    spec = server.spec("m", api_key_env="OPENAI_API_KEY")
    client = _client(tmp_path)
    with pytest.raises(ProviderUnavailable) as stop:
        map_calls(
            lambda i: client.complete([{"role": "user", "content": f"Claim {i}"}], spec, None),
            range(200),
            max_workers=8,
        )
    message = str(stop.value)
    assert "HTTP 401" in message and "OPENAI_API_KEY" in message
    assert ENV["OPENAI_API_KEY"] not in message  # the server echoed it; the error does not
    assert len(server.requests) <= 8 * 2  # the calls in flight, never 200
    client.close()


def test_a_dead_server_stops_the_run_after_two_attempts_per_call(tmp_path) -> None:
    import socket

    from openodke.errors import ProviderUnavailable
    from openodke.llm import map_calls

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    spec = ModelSpec(model="ollama/m", base_url=f"http://127.0.0.1:{port}")
    attempts: list[float] = []
    retry = RetryPolicy(sleep=attempts.append, jitter=0.0)
    client = client_for(cache=False, retry=retry, env={})
    with pytest.raises(ProviderUnavailable, match="is the server running"):
        map_calls(
            lambda i: client.complete([{"role": "user", "content": f"x{i}"}], spec, None),
            range(100),
            max_workers=4,
        )
    assert len(attempts) <= 4  # one wait per call in flight, never 3 waits for each of 100
    with pytest.raises(ProviderUnavailable):  # later calls stop at once, no request
        client.complete([{"role": "user", "content": "y"}], spec, None)
    client.close()


def test_two_servers_on_two_ports_have_their_own_cache_entries(
    llm_server, tmp_path, monkeypatch
) -> None:
    first = llm_server("openai", [Answer(GOOD)])
    second = llm_server("openai", [Answer('{"verdict": "not_found"}')])
    spec = ModelSpec(model="openai/m")  # the endpoint comes from OPENAI_BASE_URL alone
    answers = []
    for server in (first, second, first):
        env = {"OPENAI_BASE_URL": server.base_url + "/v1"}
        retry = RetryPolicy(sleep=lambda s: None)
        client = client_for(cache=tmp_path / "cache", retry=retry, env=env)
        answers.append(client.complete(MESSAGES, spec, SCHEMA))
        client.close()
    assert [a.parsed["verdict"] for a in answers] == ["supported", "not_found", "supported"]
    assert [a.cached for a in answers] == [False, False, True]
    assert (len(first.requests), len(second.requests)) == (1, 1)


def test_anthropic_base_url_is_honoured(llm_server, tmp_path) -> None:
    server = llm_server("anthropic", [Answer(GOOD)])
    env = {**ENV, "ANTHROPIC_BASE_URL": server.base_url}
    client = client_for(cache=False, env=env, retry=RetryPolicy(sleep=lambda s: None))
    reply = client.complete(MESSAGES, ModelSpec(model="anthropic/claude-x"), SCHEMA)
    assert reply.ok and len(server.requests) == 1
    client.close()


def test_a_damaged_cache_page_is_a_counted_miss_said_once(llm_server, tmp_path, capfd) -> None:
    import sqlite3

    server = llm_server("openai", [Answer(GOOD)])
    spec = server.spec("m")
    client = _client(tmp_path)
    for i in range(3):
        client.complete([{"role": "user", "content": f"Claim {i}"}], spec, None)
    client.close()
    path = tmp_path / "cache" / "responses.sqlite"
    with sqlite3.connect(path) as db:  # a damaged row: what a torn page reads back as
        db.execute('UPDATE responses SET response = \'{"text": "cut\'')
    client = _client(tmp_path)
    replies = [
        client.complete([{"role": "user", "content": f"Claim {i}"}], spec, None) for i in range(3)
    ]
    assert all(r.ok and not r.cached for r in replies)
    assert client.damaged == 3 and len(server.requests) == 6
    err = capfd.readouterr().err
    assert err.count("is damaged") == 1 and "read as misses" in err
    client.close()
