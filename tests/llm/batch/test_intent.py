"""A batch survives a crash at any point (issue 22 item 2, decisions 290-291): the intent written
before the create is looked up in the provider's list before anything is submitted again, and
``batches.json`` sheds the entries nothing can come of. The kill -9 itself, on the real command:
tests/llm/batch/test_cli.py."""

from __future__ import annotations

import io
import json
import time

import pytest

from openodke.errors import ProviderUnavailable
from openodke.llm import LLMResponse
from openodke.llm.batch import run_batched
from openodke.llm.batch.http import SentUnanswered
from openodke.llm.batch.protocols import BATCH_PROTOCOLS
from openodke.llm.batch.state import DAY, STATE_FILE, BatchRecord, BatchState
from openodke.llm.cache import ResponseStore, cache_key
from tests.llm.batch.conftest import QUESTIONS, SCHEMA, asking
from tests.llm.batch.test_engine import GOOD, engine, keys  # noqa: F401 - a fixture, used by name
from tests.support.batch_server import Batch


def _cut(monkeypatch, protocol: str, *, arrived: bool) -> None:
    """The create's connection breaks: after the server made the batch (``arrived``) or before."""
    real = BATCH_PROTOCOLS[protocol].submit

    def submit(http, spec, env, entries, intent):
        if arrived:
            real(http, spec, env, entries, intent)
        raise SentUnanswered("creating the batch: the connection to the server failed")

    monkeypatch.setattr(BATCH_PROTOCOLS[protocol], "submit", submit)


def _state(folder) -> list[dict]:
    path = folder / STATE_FILE
    return json.loads(path.read_text())["batches"] if path.exists() else []


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_a_create_unanswered_leaves_its_intent_and_the_rerun_collects_that_batch(
    protocol, batch_server, tmp_path, monkeypatch
) -> None:
    server = batch_server(protocol, GOOD)
    server.list_page = 2  # the batch is found on a later page: newer batches of others come first
    spec = server.spec("m")
    with monkeypatch.context() as patch:
        _cut(patch, protocol, arrived=True)
        with pytest.raises(SentUnanswered):
            run_batched(asking(spec, tmp_path), engine())
    [intent] = _state(tmp_path)
    assert intent["id"] is None and len(intent["intent"]) == 32
    if protocol == "openai":
        assert server.submissions[0].metadata == {"odke_intent": intent["intent"]}
    for n in range(3):  # three batches made later (another program on the same account)
        other = Batch(f"other_{n}", [], created_at=time.time() + n + 1)
        server.batches[other.id] = other
    out = io.StringIO()
    answers = run_batched(asking(spec, tmp_path), engine(out))
    assert [a.ok and not a.cached for a in answers] == [True] * 3
    assert len([b for b in server.submissions if b.requests]) == 1, out.getvalue()
    assert "found from an earlier run" in out.getvalue()
    listed = [r for r in server.requests if r.method == "GET" and "batches?" in r.path]
    assert len(listed) == 2  # pages of two: the three newer ones, then ours on the second
    assert _state(tmp_path) == []


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_an_intent_no_batch_answers_is_dropped_and_submitted_once(
    protocol, batch_server, tmp_path, monkeypatch
) -> None:
    server = batch_server(protocol, GOOD)
    spec = server.spec("m")
    with monkeypatch.context() as patch:
        _cut(patch, protocol, arrived=False)
        with pytest.raises(SentUnanswered):
            run_batched(asking(spec, tmp_path), engine())
    assert [b["id"] for b in _state(tmp_path)] == [None] and server.submissions == []
    out = io.StringIO()
    answers = run_batched(asking(spec, tmp_path), engine(out))
    assert all(a.ok for a in answers) and len(server.submissions) == 1
    assert "no batch of the provider answers it" in out.getvalue()
    assert _state(tmp_path) == []


def test_a_server_that_lists_no_batches_cannot_block_every_rerun(
    batch_server, tmp_path, monkeypatch
) -> None:
    """An OpenAI-compatible server without ``GET /v1/batches`` (404): the intent cannot be
    checked; it is dropped with a warning that the batch may be paid again, and submitted."""
    server = batch_server("openai", GOOD)
    server.lists = False
    spec = server.spec("m")
    with monkeypatch.context() as patch:
        _cut(patch, "openai", arrived=False)
        with pytest.raises(SentUnanswered):
            run_batched(asking(spec, tmp_path), engine())
    out = io.StringIO()
    answers = run_batched(asking(spec, tmp_path), engine(out))
    assert all(a.ok for a in answers) and len(server.submissions) == 1
    assert "the server lists no batches" in out.getvalue() and "paid again" in out.getvalue()
    assert _state(tmp_path) == []


def _foreign(server, questions: list[str]) -> Batch:
    """A batch someone else made on the same account just now, with as many requests."""
    rows = [
        {
            "custom_id": f"{n:064x}",
            "params": {
                "model": "claude-haiku-4-5",
                "max_tokens": 50,
                "messages": [{"role": "user", "content": q}],
            },
        }
        for n, q in enumerate(questions)
    ]
    batch = Batch("msgbatch_foreign", rows)
    server.batches[batch.id] = batch
    return batch


@pytest.mark.parametrize("ended", [True, False])
def test_an_anthropic_batch_of_the_same_size_and_time_that_is_not_ours_is_never_used(
    ended, batch_server, tmp_path, monkeypatch
) -> None:
    """Message Batches keep no client data: a batch is taken by time and size, and its results
    must answer the intent's custom_ids (ended: checked before it is taken; running: checked when
    it ends, then forgotten and the requests submitted)."""
    server = batch_server("anthropic", GOOD)
    spec = server.spec("m")
    with monkeypatch.context() as patch:
        _cut(patch, "anthropic", arrived=False)
        with pytest.raises(SentUnanswered):
            run_batched(asking(spec, tmp_path), engine())
    foreign = _foreign(server, QUESTIONS)
    if ended:
        server.finish(foreign)
    out = io.StringIO()
    answers = run_batched(asking(spec, tmp_path), engine(out))
    assert all(a.ok for a in answers), out.getvalue()
    ours = [b for b in server.submissions if b.id != foreign.id]
    assert len(ours) == 1
    assert {r["custom_id"] for r in ours[0].requests}.isdisjoint(
        r["custom_id"] for r in foreign.requests
    )
    if not ended:
        assert "answers none of the requests of the intent" in out.getvalue()
    assert _state(tmp_path) == []


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_a_create_refused_leaves_no_intent(protocol, batch_server, tmp_path) -> None:
    server = batch_server(protocol, GOOD)
    server.batch_fault = "401"
    with pytest.raises(ProviderUnavailable):
        run_batched(asking(server.spec("m"), tmp_path), engine())
    assert not (tmp_path / STATE_FILE).exists()


def _key(spec, question: str) -> str:
    messages = [
        {"role": "system", "content": "Judge the claim."},
        {"role": "user", "content": question},
    ]
    return cache_key(messages, spec, SCHEMA)


def _record(batch_id: str, key: str, *, age_days: float = 0.0, provider: str = "openai"):
    return BatchRecord(
        id=batch_id,
        provider=provider,
        model=f"{provider}/m",
        endpoint="http://127.0.0.1:9",
        submitted_at=time.time() - age_days * DAY,
        requests={key: key},
    )


def test_stale_entries_are_pruned_and_said(batch_server, tmp_path) -> None:
    """Pruned: every answer already in the cache (a run killed between storing the results and
    forgetting the batch), or older than the provider keeps results (OpenAI 30 days, Anthropic
    29). Kept: a batch whose answers are still to come, within the retention."""
    server = batch_server("openai", GOOD)
    spec = server.spec("m")
    run_batched(asking(spec, tmp_path, QUESTIONS[:1]), engine())  # Q0 answered and cached
    unasked = "e" * 64
    entries = [
        _record("batch_consumed", _key(spec, QUESTIONS[0])),
        _record("batch_too_old", unasked, age_days=31),
        _record("msgbatch_too_old", unasked, age_days=29.5, provider="anthropic"),
        _record("batch_in_time", unasked, age_days=29.5),
        _record("msgbatch_in_time", unasked, age_days=28.5, provider="anthropic"),
    ]
    state = BatchState(tmp_path)
    with state.lock():
        for record in entries:
            state.add(record)
    seen = len(server.requests)
    out = io.StringIO()
    [answer] = run_batched(asking(spec, tmp_path, QUESTIONS[:1]), engine(out))
    assert answer.ok and answer.cached and len(server.requests) == seen
    assert [b["id"] for b in _state(tmp_path)] == ["batch_in_time", "msgbatch_in_time"]
    for gone in ("batch_consumed", "batch_too_old", "msgbatch_too_old"):
        assert f"batch {gone} (" in out.getvalue() and "dropped from" in out.getvalue()


def test_prune_keeps_the_file_untouched_when_nothing_is_stale(tmp_path) -> None:
    state = BatchState(tmp_path)
    with state.lock():
        state.add(_record("batch_live", "a" * 64))
    before = (tmp_path / STATE_FILE).stat().st_mtime_ns
    store = ResponseStore(tmp_path)
    store.put("b" * 64, LLMResponse(text="{}", model="openai/m"))
    dropped = state.prune(lambda k: store.get(k) is not None, lambda p: 30 * DAY)
    store.close()
    assert dropped == [] and (tmp_path / STATE_FILE).stat().st_mtime_ns == before
