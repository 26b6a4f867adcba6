"""The response cache: the key of decision 5, reruns that make no call, resume, no errors stored."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from openodke.llm import (
    CachedClient,
    LLMResponse,
    ModelSpec,
    ProviderClient,
    ResponseStore,
    RetryPolicy,
    ScriptedClient,
    cache_key,
    map_calls,
)
from tests.support.llm_server import Answer

ROOT = Path(__file__).resolve().parents[2]
ECHO = [Answer('{"verdict": "supported"}')]


def prompts(n: int) -> list[list[dict[str, str]]]:
    return [
        [{"role": "user", "content": f"Claim: fact {i}", "prompt": "ground.span@1"}]
        for i in range(n)
    ]


@pytest.fixture
def live():
    made: list[ProviderClient] = []

    def make() -> ProviderClient:
        made.append(ProviderClient(retry=RetryPolicy(sleep=lambda s: None), env={}))
        return made[-1]

    yield make
    for client in made:
        client.close()


def test_the_key_is_sha256_of_the_canonical_request() -> None:
    spec = ModelSpec(model="ollama/q", temperature=0.0, max_tokens=256, timeout=5, api_key_env="X")
    messages = [{"role": "user", "content": "Claim: é", "prompt": "ground.span@1"}]
    canonical = (
        '{"endpoint":"http://localhost:11434/api/chat","extra":{},"format":2,"max_tokens":256,'
        '"messages":[{"content":"Claim: é","role":"user"}],"model":"ollama/q",'
        '"prompts":["ground.span@1"],"schema":{"type":"object"},"temperature":0.0}'
    )
    expected = hashlib.sha256(canonical.encode()).hexdigest()
    assert cache_key(messages, spec, {"type": "object"}, env={}) == expected


@pytest.mark.parametrize(
    ("change", "same"),
    [
        ({"timeout": 1.0}, True),
        ({"api_key_env": "OTHER"}, True),
        ({"repeat": 0}, True),
        ({"repeat": 1}, False),
        ({"temperature": 0.5}, False),
        ({"max_tokens": 10}, False),
        ({"base_url": "http://h"}, False),
        ({"extra": {"seed": 1}}, False),
        ({"model": "ollama/r"}, False),
    ],
)
def test_what_the_key_depends_on(change, same) -> None:
    spec = ModelSpec(model="ollama/q")
    messages = [{"role": "user", "content": "x"}]
    assert (
        cache_key(messages, spec) == cache_key(messages, spec.model_copy(update=change))
    ) is same


def test_the_prompt_id_separates_keys() -> None:
    spec = ModelSpec(model="ollama/q")
    plain = [{"role": "user", "content": "x"}]
    span = [{"role": "user", "content": "x", "prompt": "ground.span@1"}]
    paper = [{"role": "user", "content": "x", "prompt": "ground.paper@1"}]
    assert len({cache_key(plain, spec), cache_key(span, spec), cache_key(paper, spec)}) == 3


def test_a_rerun_makes_zero_calls(llm_server, live, tmp_path) -> None:
    server = llm_server("ollama", ECHO)
    spec = server.spec("q")
    first = CachedClient(live(), tmp_path)
    answers = map_calls(lambda m: first.complete(m, spec), prompts(20), max_workers=4)
    first.close()
    assert len(server.requests) == 20 and not any(a.cached for a in answers)
    again = CachedClient(live(), tmp_path)
    replayed = map_calls(lambda m: again.complete(m, spec), prompts(20), max_workers=4)
    again.close()
    assert len(server.requests) == 20  # nothing new reached the server
    assert all(a.cached and a.cost_usd == 0.0 for a in replayed)
    assert [a.parsed for a in replayed] == [a.parsed for a in answers]
    assert (again.hits, again.misses) == (20, 0)
    assert (tmp_path / "responses.sqlite").exists()


def test_errors_are_never_stored(llm_server, live, tmp_path) -> None:
    server = llm_server("openai", ECHO).fault("500", match="fact 3", times=4)
    spec = server.spec("m")
    client = CachedClient(live(), tmp_path)
    answers = [client.complete(m, spec) for m in prompts(5)]
    assert [a.error is not None for a in answers] == [False, False, False, True, False]
    assert len(client.store) == 4
    retried = client.complete(prompts(5)[3], spec)  # the fault is spent: this time it answers
    assert retried.error is None and not retried.cached
    assert len(client.store) == 5
    client.close()
    with pytest.raises(ValueError, match="never stored"):
        ResponseStore(tmp_path).put("k", LLMResponse(model="x/y", error="boom"))


def test_recorded_and_scripted_clients_bypass_the_cache(tmp_path) -> None:
    client = CachedClient(ScriptedClient([{"a": 1}, {"a": 1}]), tmp_path)
    spec = ModelSpec(model="ollama/q")
    assert not client.complete(prompts(1)[0], spec).cached
    assert not client.complete(prompts(1)[0], spec).cached
    assert len(client.store) == 0
    client.close()


def test_threads_share_one_store(tmp_path) -> None:
    store = ResponseStore(tmp_path / "c.sqlite")
    answer = LLMResponse(text="{}", parsed={}, model="x/y")
    map_calls(lambda i: store.put(f"k{i}", answer), range(400), max_workers=8)
    assert len(store) == 400 and store.get("k399")["parsed"] == {}
    store.close()


RUNNER = """
import sys
from openodke.llm import CachedClient, ModelSpec, ProviderClient
spec = ModelSpec(model="ollama/q", base_url=sys.argv[1])
client = CachedClient(ProviderClient(env={}), sys.argv[2])
for i in range(20):
    client.complete([{"role": "user", "content": f"Claim: fact {i}"}], spec)
    print(i, flush=True)
"""


def test_an_interrupted_run_resumes_from_the_cache(llm_server, live, tmp_path) -> None:
    server = llm_server("ollama", ECHO, latency=0.05)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    child = subprocess.Popen(
        [sys.executable, "-c", RUNNER, server.base_url, str(tmp_path)],
        stdout=subprocess.PIPE,
        env=env,
    )
    assert child.stdout is not None
    for _ in range(6):  # six answers arrived and were committed
        child.stdout.readline()
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    child.stdout.close()
    time.sleep(0.1)
    before = len(server.requests)
    assert 6 <= before < 20
    kept = len(ResponseStore(tmp_path))
    assert kept >= 6  # each answer was committed as it arrived, not at the end
    spec = server.spec("q")
    client = CachedClient(live(), tmp_path)
    resumed = [
        client.complete([{"role": "user", "content": f"Claim: fact {i}"}], spec) for i in range(20)
    ]
    client.close()
    assert sum(a.cached for a in resumed) == kept
    assert len(server.requests) == before + (20 - kept)
    assert all(a.error is None for a in resumed)


def test_the_store_holds_no_request_secrets(tmp_path) -> None:
    store = ResponseStore(tmp_path)
    store.put("k", LLMResponse(text="t", parsed=None, model="x/y", prompt_tokens=3))
    assert json.loads(json.dumps(store.get("k"))) == {
        "text": "t",
        "parsed": None,
        "model": "x/y",
        "prompt_tokens": 3,
        "completion_tokens": None,
        "latency_s": 0.0,
    }
    store.close()


@pytest.mark.parametrize(
    ("cache", "config", "expected"),
    [
        (False, "proj/odke.yaml", None),
        (None, "proj/odke.yaml", Path("proj/.odke-cache")),
        (True, None, Path.cwd() / ".odke-cache"),
        ("elsewhere", "proj/odke.yaml", Path("elsewhere")),
    ],
)
def test_the_cache_lives_beside_the_config_unless_moved(cache, config, expected) -> None:
    from openodke.llm import cache_location

    assert cache_location(cache, config=config) == expected


def test_the_factory_puts_the_cache_beside_the_config(tmp_path) -> None:
    from openodke.llm import client_for

    client = client_for("ollama/q", config=tmp_path / "odke.yaml", env={})
    assert isinstance(client, CachedClient)
    assert client.store.path == tmp_path / ".odke-cache" / "responses.sqlite"
    client.close()


_FULL_DISK = """
import resource, signal, sys
from openodke.errors import OutputError
from openodke.llm.base import LLMResponse
from openodke.llm.cache import ResponseStore
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit a write fails (EFBIG), as on a full disk
store = ResponseStore(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, resource.RLIM_INFINITY))
try:
    for n in range(1000):
        store.put(f"k{n}", LLMResponse(text="x" * 4000, model="ollama/m"))
except OutputError as error:
    print(error.exit_code, error)
"""


def test_a_full_disk_under_the_cache_is_exit_1_not_bad_input(tmp_path):
    """A full disk under --cache exited 2, "bad input" (issue 22)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _FULL_DISK, str(tmp_path / "cache")], capture_output=True, text=True
    )
    assert done.stdout.startswith("1 cannot store an answer in the response cache"), done.stderr
    assert "the disk is full or failed" in done.stdout
