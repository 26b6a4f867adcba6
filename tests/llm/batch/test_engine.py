"""The batch engine against local servers speaking OpenAI's Batch API and Anthropic's Message
Batches: the bodies the live call sends, the cache, re-asks, failures, budgets and prices."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from openodke.errors import (
    BudgetStop,
    InputError,
    ModelConfigError,
    ProviderError,
    ProviderUnavailable,
)
from openodke.llm import Budget, ModelSpec
from openodke.llm.batch import BatchEngine, run_batched
from openodke.llm.batch.protocols import BATCH_PROTOCOLS
from openodke.llm.batch.state import STATE_FILE
from openodke.llm.cache import ResponseStore
from openodke.llm.prices import price_of
from tests.llm.batch.conftest import QUESTIONS, asking
from tests.support.llm_server import Answer

GOOD = [Answer('{"verdict": "supported"}')]
KEY = "sk-batch-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    for name in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def engine(out: io.StringIO | None = None) -> BatchEngine:
    return BatchEngine(poll=0.01, out=out or io.StringIO())


def submitted_bodies(server) -> list[dict]:
    """Every request body of every batch the server was sent, in order."""
    key = "body" if server.protocol == "openai" else "params"
    return [r[key] for batch in server.submissions for r in batch.requests]


@pytest.mark.parametrize(
    ("protocol", "model"), [("openai", "gpt-4o-mini"), ("anthropic", "claude-haiku-4-5")]
)
def test_a_batch_sends_the_live_bodies_and_headers_and_answers_like_live(
    protocol, model, batch_server, llm_server, tmp_path: Path
) -> None:
    live = llm_server(protocol, GOOD)
    live_answers = asking(live.spec(model), tmp_path / "live")()
    server = batch_server(protocol, GOOD, polls=2)
    out = io.StringIO()
    answers = run_batched(asking(server.spec(model), tmp_path / "batch"), engine(out))
    assert (
        [a.parsed for a in answers]
        == [a.parsed for a in live_answers]
        == [{"verdict": "supported"}] * 3
    )
    live_bodies = sorted((r.body for r in live.requests), key=json.dumps)
    assert sorted(submitted_bodies(server), key=json.dumps) == live_bodies  # byte for byte as JSON
    sent = [r for r in server.requests if r.method == "POST"]
    live_headers = live.requests[0].headers
    for name in ("x-api-key", "anthropic-version", "authorization"):
        if name in live_headers:
            assert all(r.headers.get(name) == live_headers[name] for r in sent), name
    if protocol == "openai":
        line = server.submissions[0].requests[0]
        assert line["method"] == "POST" and line["url"] == "/v1/chat/completions"
        assert line["body"]["response_format"]["json_schema"]["strict"] is True
    else:
        assert server.submissions[0].requests[0]["params"]["tool_choice"]["name"] == "reply"
    assert len(server.submissions) == 1
    # The cost is the batch price: half the live one for the same tokens.
    price = price_of(f"{protocol}/{model}")
    assert price is not None
    for a, b in zip(answers, live_answers, strict=True):
        assert (a.prompt_tokens, a.completion_tokens) == (b.prompt_tokens, b.completion_tokens)
        assert a.cost_usd == pytest.approx(
            price.usd(a.prompt_tokens, a.completion_tokens, batch=True)
        )
        assert a.cost_usd == pytest.approx(b.cost_usd / 2)
    text = out.getvalue()
    assert "3 requests submitted" in text and "3 of 3 done" in text and "at the batch price" in text
    assert KEY not in text


def test_cached_requests_are_not_submitted_and_a_third_run_makes_none(
    batch_server, tmp_path
) -> None:
    server = batch_server("openai", GOOD)
    spec = server.spec("gpt-4o-mini")
    run_batched(asking(spec, tmp_path, QUESTIONS[:2]), engine())
    assert [len(b.requests) for b in server.submissions] == [2]
    answers = run_batched(asking(spec, tmp_path, QUESTIONS), engine())
    assert [len(b.requests) for b in server.submissions] == [2, 1]  # only the new question
    assert [a.cached for a in answers] == [True, True, False]
    seen = len(server.requests)
    again = run_batched(asking(spec, tmp_path, QUESTIONS), engine())
    assert len(server.requests) == seen and all(a.cached for a in again)


def test_batches_split_at_the_providers_limits(batch_server, tmp_path, monkeypatch) -> None:
    server = batch_server("anthropic", GOOD)
    monkeypatch.setattr(BATCH_PROTOCOLS["anthropic"], "max_requests", 2)
    questions = [f"Claim: item {n}." for n in range(5)]
    answers = run_batched(asking(server.spec("claude-haiku-4-5"), tmp_path, questions), engine())
    assert [len(b.requests) for b in server.submissions] == [2, 2, 1]
    assert all(a.ok for a in answers)
    monkeypatch.setattr(BATCH_PROTOCOLS["anthropic"], "max_bytes", 10)  # one request a batch
    run_batched(asking(server.spec("claude-haiku-4-5"), tmp_path / "b", questions[:3]), engine())
    assert [len(b.requests) for b in server.submissions][3:] == [1, 1, 1]


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_an_unusable_answer_is_asked_again_once_in_a_follow_up_batch(
    protocol, batch_server, tmp_path
) -> None:
    server = batch_server(protocol, GOOD)
    server.item_fault("say", match="Claim: Bob", text="I think it is true.")
    spec = server.spec("m")
    answers = run_batched(asking(spec, tmp_path), engine())
    assert [len(b.requests) for b in server.submissions] == [3, 1]
    again = submitted_bodies(server)[-1]
    assert "could not be used (off schema" in json.dumps(again)
    assert answers[1].ok and answers[1].parsed == {"verdict": "supported"}
    # Both calls' tokens are counted (both were paid).
    assert answers[1].prompt_tokens > answers[0].prompt_tokens
    store = ResponseStore(tmp_path)
    assert len(store) == 4  # three answers, and the re-ask's own
    store.close()


@pytest.mark.parametrize(
    ("protocol", "fault", "kind"),
    [
        ("anthropic", "errored", "HTTP error"),
        ("anthropic", "expired", "batch expired"),
        ("anthropic", "canceled", "batch canceled"),
        ("openai", "errored", "HTTP error"),
        ("openai", "expired", "batch expired"),
        ("anthropic", "truncated", "cut off at max_tokens"),
        ("openai", "refusal", "refused"),
        ("openai", "empty", "empty"),
    ],
)
def test_a_result_that_failed_is_a_failure_of_its_kind_and_never_cached(
    protocol, fault, kind, batch_server, tmp_path
) -> None:
    server = batch_server(protocol, GOOD)
    server.item_fault(fault, match="Claim: Bob", times=2)
    answers = run_batched(asking(server.spec("m", max_tokens=64), tmp_path), engine())
    assert [a.ok for a in answers] == [True, False, True]
    assert answers[1].failure == kind
    rerun = run_batched(asking(server.spec("m", max_tokens=64), tmp_path), engine())
    assert [a.cached for a in rerun] == [True, False, True]  # the failure is asked again


def test_a_failed_batch_is_a_provider_error_and_nothing_is_left_pending(
    batch_server, tmp_path
) -> None:
    server = batch_server("openai", GOOD)
    server.batch_fault = "failed"
    with pytest.raises(ProviderError, match="failed: the file is bad"):
        run_batched(asking(server.spec("m"), tmp_path), engine())
    assert not (tmp_path / STATE_FILE).exists()


def test_an_expired_batch_leaves_its_requests_failed(batch_server, tmp_path) -> None:
    server = batch_server("openai", GOOD)
    server.batch_fault = "expired"
    out = io.StringIO()
    answers = run_batched(asking(server.spec("m"), tmp_path), engine(out))
    assert {a.failure for a in answers} == {"batch expired"}
    assert "expired with 3 of 3 requests unanswered" in out.getvalue()


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_a_refused_key_stops_before_anything_is_pending(protocol, batch_server, tmp_path) -> None:
    server = batch_server(protocol, GOOD)
    server.batch_fault = "401"
    with pytest.raises(ProviderUnavailable, match="HTTP 401") as error:
        run_batched(asking(server.spec("m"), tmp_path), engine())
    assert KEY not in str(error.value)
    assert not (tmp_path / STATE_FILE).exists()


def test_a_dead_server_is_a_provider_failure(tmp_path) -> None:
    spec = ModelSpec(model="openai/m", base_url="http://127.0.0.1:9")
    with pytest.raises(ProviderUnavailable, match="cannot connect"):
        run_batched(asking(spec, tmp_path), engine())


def test_a_budget_that_cannot_cover_the_worst_case_refuses_before_submitting(
    batch_server, tmp_path
) -> None:
    server = batch_server("openai", GOOD)
    spec = server.spec("gpt-4o-mini", max_tokens=1000)
    # Worst case per request: ~10 prompt tokens + 1000 out at $0.30/M = ~$0.0003; three: ~$0.0009.
    with pytest.raises(BudgetStop, match="at the batch price.*nothing was submitted"):
        run_batched(asking(spec, tmp_path, budget=Budget(usd=0.0005)), engine())
    assert server.requests == []
    with pytest.raises(BudgetStop, match="would pass calls 2"):
        run_batched(asking(spec, tmp_path, budget=Budget(calls=2)), engine())
    answers = run_batched(asking(spec, tmp_path, budget=Budget(usd=0.01)), engine())
    assert all(a.ok for a in answers)


def test_ollama_has_no_batch_api(tmp_path) -> None:
    spec = ModelSpec(model="ollama/llama3")
    with pytest.raises(ModelConfigError, match="ollama/llama3 has no batch API.*--max-workers"):
        run_batched(asking(spec, tmp_path), engine())


def test_a_batch_left_running_is_collected_by_the_rerun_without_a_second_submission(
    batch_server, tmp_path
) -> None:
    server = batch_server("anthropic", GOOD, polls=3)
    spec = server.spec("claude-haiku-4-5")

    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    out = io.StringIO()
    first = BatchEngine(poll=0.01, out=out, sleep=interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_batched(asking(spec, tmp_path), first)
    batch_id = server.submissions[0].id
    assert (
        f"batch {batch_id}" in out.getvalue()
        and "rerun the same command to collect it" in out.getvalue()
    )
    state = json.loads((tmp_path / STATE_FILE).read_text())
    assert [b["id"] for b in state["batches"]] == [batch_id]
    out = io.StringIO()
    answers = run_batched(asking(spec, tmp_path), engine(out))
    assert len(server.submissions) == 1 and all(a.ok and not a.cached for a in answers)
    assert "found from an earlier run" in out.getvalue()
    assert not (tmp_path / STATE_FILE).exists()


def test_a_pending_batch_the_server_does_not_know_is_forgotten_and_submitted_again(
    batch_server, tmp_path
) -> None:
    server = batch_server("openai", GOOD)
    spec = server.spec("m")
    run_batched(asking(spec, tmp_path, QUESTIONS[:1]), engine())
    from openodke.llm.cache import cache_key

    key = cache_key(
        [
            {"role": "system", "content": "Judge the claim."},
            {"role": "user", "content": QUESTIONS[1]},
        ],
        spec,
        __import__("tests.llm.batch.conftest", fromlist=["SCHEMA"]).SCHEMA,
    )
    state = {
        "schema_version": 1,
        "batches": [
            {
                "id": "batch_gone",
                "provider": "openai",
                "model": "openai/m",
                "endpoint": "x",
                "submitted_at": time.time(),  # 0 is past the provider's retention: pruned
                "requests": {key: key},
            }
        ],
    }
    (tmp_path / STATE_FILE).write_text(json.dumps(state))
    out = io.StringIO()
    answers = run_batched(asking(spec, tmp_path, QUESTIONS[:2]), engine(out))
    assert "batch batch_gone" in out.getvalue() and "unknown to the server" in out.getvalue()
    assert answers[1].ok and len(server.submissions) == 2


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"schema_version": 1, "batches": [{"id": "b', "batches.json:1: not the batch state"),
        ('{"schema_version": 1, "batches": "x"}', "batches"),
        ('{"schema_version": 1, "batches": [{"id": 5}]}', "batches.0"),
        ("[]", "(top)"),
        (
            '{"schema_version": 1, "batches": [{"id": "../x", "provider": "openai", "model": "m", '
            '"endpoint": "e", "submitted_at": 0, "requests": {"a": "b"}}]}',
            "batches.0.id",
        ),
        (
            '{"schema_version": 1, "batches": [{"id": "b1", "provider": "openai", "model": "m", '
            '"endpoint": "e", "submitted_at": 0, "requests": {"a": "b"}}]}',
            "not a cache key",
        ),
    ],
)
def test_a_damaged_batch_state_is_refused_naming_the_file(
    text, said, batch_server, tmp_path
) -> None:
    server = batch_server("openai", GOOD)
    (tmp_path / STATE_FILE).write_text(text)
    with pytest.raises(InputError, match="batches.json") as error:
        run_batched(asking(server.spec("m"), tmp_path), engine())
    assert said in str(error.value) and server.requests == []
