"""Budgets stop before the call that would pass them; calls run bounded, results in input order."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from openodke.errors import BudgetStop, exit_code_for
from openodke.llm import (
    Budget,
    BudgetedClient,
    CachedClient,
    ModelSpec,
    ProviderClient,
    RetryPolicy,
    map_calls,
)
from openodke.llm.budget import estimate_usd
from openodke.llm.concurrency import _show
from tests.support.llm_server import Answer


def test_results_come_back_in_input_order_whatever_the_timing() -> None:
    delays = np.random.default_rng(4).uniform(0, 0.01, size=60)
    active, peak, lock = [0], [0], threading.Lock()

    def work(i: int) -> int:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(delays[i])
        with lock:
            active[0] -= 1
        return i * i

    assert map_calls(work, range(60), max_workers=5) == [i * i for i in range(60)]
    assert 1 < peak[0] <= 5


def test_the_first_error_stops_new_calls_and_lets_running_ones_finish() -> None:
    started: list[int] = []
    finished: list[int] = []

    def work(i: int) -> int:
        started.append(i)
        if i == 3:
            raise BudgetStop("budget: stop")
        time.sleep(0.02)
        finished.append(i)
        return i

    with pytest.raises(BudgetStop):
        map_calls(work, range(100), max_workers=4)
    assert len(started) < 20  # nothing new after the stop beyond the queued window
    assert sorted(finished) == sorted(i for i in started if i != 3)  # in flight ran to the end


def test_one_worker_runs_in_the_calling_thread() -> None:
    names = map_calls(lambda _: threading.current_thread().name, range(3), max_workers=1)
    assert set(names) == {threading.current_thread().name}


@pytest.mark.parametrize(
    ("progress", "total", "tty", "shown"),
    [
        (None, 100, True, True),
        (None, 100, False, False),
        (None, 5, True, False),
        (False, 100, True, False),
        (True, 2, False, True),
    ],
)
def test_the_bar_shows_for_long_work_on_a_terminal(
    monkeypatch, progress, total, tty, shown
) -> None:
    monkeypatch.setattr("sys.stderr.isatty", lambda: tty)
    assert _show(progress, total) is shown


def test_no_bar_means_no_stderr(capfd) -> None:
    map_calls(lambda i: i, range(50), max_workers=2)
    assert capfd.readouterr().err == ""


@pytest.fixture
def live(llm_server):
    server = llm_server(
        "openai", [Answer('{"verdict": "supported"}', prompt_tokens=1000, completion_tokens=10)]
    )
    client = ProviderClient(retry=RetryPolicy(sleep=lambda s: None), env={"OPENAI_API_KEY": "k"})
    yield server, client
    client.close()


def messages(i: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"Claim: fact {i:03d}"}]


def test_a_call_budget_stops_before_the_call_that_would_pass_it(live, tmp_path) -> None:
    server, client = live
    spec = server.spec("m")
    budgeted = BudgetedClient(client, Budget(calls=5))
    with pytest.raises(BudgetStop, match="would pass calls 5") as caught:
        map_calls(lambda i: budgeted.complete(messages(i), spec), range(12), max_workers=4)
    assert exit_code_for(caught.value) == 3
    assert len(server.requests) == 5  # exactly the budget, never one more


def test_cached_answers_take_no_budget(live, tmp_path) -> None:
    server, client = live
    spec = server.spec("m")
    first = CachedClient(BudgetedClient(client, Budget(calls=5)), tmp_path)
    with pytest.raises(BudgetStop):
        map_calls(lambda i: first.complete(messages(i), spec), range(12), max_workers=1)
    second = CachedClient(BudgetedClient(client, Budget(calls=5)), tmp_path)
    # the first five come from the cache for free; five more live calls; the 11th stops
    with pytest.raises(BudgetStop):
        map_calls(lambda i: second.complete(messages(i), spec), range(12), max_workers=1)
    assert len(server.requests) == 10 and second.hits == 5
    first.store.close()
    second.store.close()


def test_a_usd_budget_stops_on_the_worst_case_of_the_next_call(live) -> None:
    server, client = live
    spec = server.spec("gpt-4o-mini", max_tokens=100)
    # estimate: "Claim: fact 000" is 15 chars -> ceil(15 / 4) = 4 tokens in, 100 out (max_tokens):
    # (4 * 0.15 + 100 * 0.60) / 1e6 = 6.06e-5 USD
    estimate = estimate_usd(messages(0), spec)
    assert estimate == pytest.approx(6.06e-5)
    # one real call: (1000 * 0.15 + 10 * 0.60) / 1e6 = 1.56e-4 USD
    budget = Budget(usd=2 * 1.56e-4 + estimate - 1e-9)
    budgeted = BudgetedClient(client, budget)
    with pytest.raises(BudgetStop, match="would pass usd"):
        for i in range(10):
            budgeted.complete(messages(i), spec)
    # after two calls 3.12e-4 is spent; a third would pass: 3.12e-4 + 6.06e-5 > budget
    assert len(server.requests) == 2 and budget.spent_usd == pytest.approx(3.12e-4)


def test_budgeted_client_alone_charges_an_unpriced_model_nothing(live) -> None:
    # client_for refuses a USD cap over an unpriced model before it starts (test_prices_budget)
    server, client = live
    budgeted = BudgetedClient(client, Budget(usd=0.0))
    assert budgeted.complete(messages(0), server.spec("local-llama")).error is None


def test_budget_rejects_negative_caps() -> None:
    with pytest.raises(ValueError):
        Budget(usd=-1)
    with pytest.raises(ValueError):
        Budget(calls=-1)
    with pytest.raises(ValueError):
        map_calls(lambda i: i, [1], max_workers=0)
    assert ModelSpec(model="x/y").repeat == 0


BAR_SCRIPT = """
import time
from openodke.llm import map_calls
map_calls(lambda i: time.sleep(0.01), range(30), max_workers=3, description="grounding")
"""


@pytest.mark.parametrize(("terminal", "shown"), [(True, True), (False, False)])
def test_the_bar_draws_on_a_terminal_stderr_only(terminal, shown, tmp_path) -> None:
    import os
    import pty
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "TERM": "xterm", "COLUMNS": "80"}
    chunks: list[bytes] = []
    if terminal:
        leader, err = pty.openpty()

        def drain() -> None:  # read as it comes, so a full pty buffer never blocks the child
            while True:
                try:
                    chunk = os.read(leader, 4096)
                except OSError:
                    return
                if not chunk:
                    return
                chunks.append(chunk)

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
    else:
        err = os.open(tmp_path / "err.txt", os.O_WRONLY | os.O_CREAT)
    child = subprocess.run(
        [sys.executable, "-c", BAR_SCRIPT], stderr=err, stdout=subprocess.PIPE, env=env, timeout=60
    )
    os.close(err)
    if terminal:
        reader.join(timeout=5)
        os.close(leader)
        written = b"".join(chunks)
    else:
        written = (tmp_path / "err.txt").read_bytes()
    assert child.returncode == 0 and child.stdout == b""
    assert (b"grounding" in written) is shown
