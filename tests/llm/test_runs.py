"""Whole runs over each protocol: faults along the way, the run completes, failures are counted,
and the API key reaches no file, report, log or error."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from openodke.errors import ModelConfigError
from openodke.llm import (
    Budget,
    CostMeter,
    ModelRoles,
    ProviderClient,
    RetryPolicy,
    client_for,
    map_calls,
)
from tests.support.llm_server import Answer, ReplayServer

KEY = "sk-leak-canary-5d41402abc4b2a76"
VERDICTS = ["supported", "contradicted", "not_found"]


def answers() -> list[Answer]:
    return [
        Answer(json.dumps({"verdict": VERDICTS[i % 3]}), contains=(f"Claim: fact {i:02d}\n",))
        for i in range(30)
    ]


def messages(i: int) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "Check the claim.", "prompt": "ground.span@1"},
        {"role": "user", "content": f"Claim: fact {i:02d}\nPassage: text {i}"},
    ]


@pytest.mark.parametrize("protocol", ["ollama", "openai", "anthropic"])
def test_after_every_fault_the_run_completes_and_failures_are_counted(llm_server, protocol) -> None:
    server: ReplayServer = llm_server(protocol, answers())
    server.fault("429", retry_after=0.01, match="fact 01")
    server.fault("500", match="fact 02", times=2)
    server.fault("hang", match="fact 03", seconds=2.0)
    server.fault("cut", match="fact 04")
    server.fault("malformed", match="fact 05")  # not retried: this call fails
    server.fault("500", match="fact 06", times=10)  # keeps failing: 4 attempts, then an error
    meter = CostMeter()
    live = ProviderClient(
        retry=RetryPolicy(base_delay=0.01, seed=1), env={"ANTHROPIC_API_KEY": "k"}
    )
    client = meter.client(live, stage="ground")
    spec = server.spec("m", timeout=0.5)
    schema = {"type": "object", "properties": {"verdict": {"enum": VERDICTS}}}
    results = map_calls(lambda i: client.complete(messages(i), spec, schema), range(30))
    live.close()
    failed = [i for i, r in enumerate(results) if r.error is not None]
    assert failed == [5, 6]
    assert [r.parsed["verdict"] for i, r in enumerate(results) if i not in failed] == [
        VERDICTS[i % 3] for i in range(30) if i not in failed
    ]
    report = meter.report(documents=30)
    assert (report.total.calls, report.total.failed) == (30, 2)
    assert sorted(server.faults_fired) == sorted(
        ["429", "500", "500", "hang", "cut", "malformed", "500", "500", "500", "500"]
    )
    # 30 first attempts + 1 (429) + 2 (500 twice) + 1 (hang) + 1 (cut) + 3 (fact 06 retried).
    # Exact with 8 workers: with the accept queue of 5 the replay server once had, a connection
    # over it waited past the 0.5 s timeout and was retried unseen (decision 222).
    assert len(server.requests) == 38


def test_many_workers_and_many_faults_every_attempt_reaches_the_server(llm_server) -> None:
    """64 workers open their connections at once, 20 facts fail in every way: the server sees
    exactly the attempts the faults and the retry policy make, no fewer (a connection the server
    never accepted is an attempt lost) and no more. The timeout is long enough that a busy
    machine adds no retry of its own; the queue the server listens with is checked directly."""
    server: ReplayServer = llm_server(
        "openai", lambda prompt: json.dumps({"verdict": VERDICTS[len(prompt) % 3]})
    )
    assert server.backlog >= 256  # socketserver's 5 dropped connects past it (decision 222)
    expected = 200
    for n in range(0, 200, 10):  # 20 faulted facts of the 200
        kind = ("429", "500", "cut", "malformed", "always")[n // 10 % 5]
        if kind == "always":
            server.fault("500", match=f"fact {n:03d}\n", times=10)
            expected += 3  # 4 attempts, then a failure
        else:
            server.fault(kind, match=f"fact {n:03d}\n", retry_after=0.01)  # type: ignore[arg-type]
            expected += kind != "malformed"  # retried once; a malformed reply is not retried
    live = ProviderClient(retry=RetryPolicy(base_delay=0.01, seed=1))
    spec = server.spec("m", timeout=10)
    ask = [{"role": "user", "content": f"Claim: fact {i:03d}\n"} for i in range(200)]
    results = map_calls(lambda m: live.complete([m], spec), ask, max_workers=64)
    live.close()
    failed = [i for i, r in enumerate(results) if r.error is not None]
    assert failed == [n for n in range(0, 200, 10) if n // 10 % 5 in (3, 4)]
    assert len(server.requests) == expected


def test_the_factory_checks_every_model_before_any_call(tmp_path) -> None:
    with pytest.raises(ModelConfigError, match="ANTHROPIC_API_KEY"):
        client_for(ModelRoles(), env={})  # the defaults are anthropic models
    with pytest.raises(ModelConfigError, match="unknown provider 'vertex'"):
        client_for("ollama/q", "vertex/gemini", env={})
    client = client_for("ollama/q", cache=False, env={})
    assert type(client).__name__ == "ReaskClient"
    assert type(client.inner).__name__ == "ProviderClient"  # type: ignore[attr-defined]
    client.close()  # type: ignore[attr-defined]


def files_under(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


def test_the_key_reaches_no_file_report_log_or_error(
    llm_server, tmp_path, monkeypatch, caplog
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    server = llm_server("anthropic", answers())
    server.fault("500", match="fact 07", times=10)
    spec = server.spec("claude-haiku-4-5-20251001", max_tokens=64)
    work = tmp_path / "run"
    meter = CostMeter()
    client = meter.client(
        client_for(
            spec,
            cache=work / ".odke-cache",
            budget=Budget(usd=5.0, calls=100),
            retry=RetryPolicy(base_delay=0.001),
        ),
        stage="ground",
    )
    results = map_calls(lambda i: client.complete(messages(i), spec), range(30))
    echo = client.complete([{"role": "user", "content": f"please echo {KEY}"}], spec)
    again = map_calls(lambda i: client.complete(messages(i), spec), range(30))
    client.close()
    report = meter.report(documents=30)
    (work / "cost.json").write_text(report.model_dump_json())
    (work / "results.jsonl").write_text(
        "\n".join(r.model_dump_json() for r in [*results, echo, *again])
    )
    (work / "repr.txt").write_text(repr(client) + repr(spec) + str(meter.report()))
    assert sum(r.cached for r in again) == 29 and report.total.failed == 3
    assert echo.error is not None and KEY not in echo.error
    # the key went where Anthropic wants it, and nowhere else in any request
    assert all(r.headers["x-api-key"] == KEY for r in server.requests)
    assert sum(KEY.encode() in r.raw for r in server.requests) == 1  # the echo prompt itself
    written = files_under(work)
    assert {p.name for p in written} >= {"responses.sqlite", "cost.json", "results.jsonl"}
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in caplog.text
