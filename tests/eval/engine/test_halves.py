"""Blocks of work shared with a forked child give the answers one process gives, whatever the
child does: finishes, dies at once, dies half-way, or is stopped; and no child outlives the call."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

from openodke.eval.engine import halves
from tests.support.children import alive, gone_soon

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="a child is forked on Linux alone"
)


def _squares(items: np.ndarray) -> np.ndarray:
    return items * items + 1


@pytest.fixture
def forks(monkeypatch) -> list[int]:
    """Every child :func:`halves.share` forks (its pid), with no floor on the items shared."""
    monkeypatch.setattr(halves, "MIN_ITEMS", 1)
    seen: list[int] = []
    start = halves.Shared._start

    def counted(self: halves.Shared) -> None:
        start(self)
        if self.child is not None:
            seen.append(self.child)

    monkeypatch.setattr(halves.Shared, "_start", counted)
    return seen


def _gone(pid: int) -> bool:
    """The child was waited for: no zombie of it is left."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@pytest.mark.parametrize("size, block", [(1, 1), (10, 3), (1000, 7), (5000, 5000), (4097, 64)])
def test_shared_answers_equal_one_process(forks, size: int, block: int) -> None:
    items = np.arange(size, dtype=np.int64) * 3 - 7
    got = halves.share(items, _squares, block=block).result()
    np.testing.assert_array_equal(got, _squares(items))
    assert all(map(_gone, forks))
    if -(-size // block) > 1:  # two blocks or more: a child was forked
        assert len(forks) == 1


def test_no_child_below_the_floor_or_with_threads(monkeypatch) -> None:
    items = np.arange(100, dtype=np.int64)
    monkeypatch.setattr(halves, "MIN_ITEMS", 1000)
    shared = halves.share(items, _squares, block=10)
    assert shared.child is None
    np.testing.assert_array_equal(shared.result(), _squares(items))
    monkeypatch.setattr(halves, "MIN_ITEMS", 1)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        shared = halves.share(items, _squares, block=10)
        assert shared.child is None  # forking a threaded process is never safe
        np.testing.assert_array_equal(shared.result(), _squares(items))
    finally:
        stop.set()
        other.join()


def test_a_child_that_dies_at_once_costs_no_answer(forks, monkeypatch) -> None:
    monkeypatch.setattr(halves, "as_child", lambda parent: os._exit(3))
    items = np.arange(500, dtype=np.int64)
    np.testing.assert_array_equal(halves.share(items, _squares, block=10).result(), _squares(items))
    assert len(forks) == 1 and _gone(forks[0])


def test_a_child_killed_half_way_costs_no_answer(forks) -> None:
    parent = os.getpid()
    done = [0]

    def dies(items: np.ndarray) -> np.ndarray:
        if os.getpid() != parent:
            done[0] += 1
            if done[0] == 3:  # in its third block, before its answers are written
                os.kill(os.getpid(), signal.SIGKILL)
        return _squares(items)

    items = np.arange(2000, dtype=np.int64)
    shared = halves.share(items, dies, block=10)
    # the parent starts late, as it does when it has its own work first
    deadline = 200
    while deadline and (shared.state == 0).sum() > 150:
        os.sched_yield()
        deadline -= 1
    np.testing.assert_array_equal(shared.result(), _squares(items))
    assert _gone(forks[0])


def test_a_stuck_child_is_stopped_and_its_block_worked_here(forks, monkeypatch) -> None:
    parent = os.getpid()
    monkeypatch.setattr(halves, "PATIENCE", 0.2)

    def stuck(items: np.ndarray) -> np.ndarray:
        if os.getpid() != parent:
            signal.pause()  # a child that never finishes its first block
        return _squares(items)

    items = np.arange(100, dtype=np.int64)
    started = time.monotonic()
    np.testing.assert_array_equal(halves.share(items, stuck, block=10).result(), _squares(items))
    assert time.monotonic() - started < 10
    assert len(forks) == 1 and gone_soon(forks)


def test_an_interrupted_parent_stops_and_waits_for_the_child(forks) -> None:
    parent = os.getpid()

    def slow(items: np.ndarray) -> np.ndarray:
        if os.getpid() == parent:
            raise KeyboardInterrupt
        signal.pause()  # the child would never finish on its own
        return _squares(items)

    shared = halves.share(np.arange(100, dtype=np.int64), slow, block=10)
    with pytest.raises(KeyboardInterrupt):
        shared.result()
    assert len(forks) == 1 and _gone(forks[0])


def test_closing_before_the_result_stops_the_child(forks) -> None:
    def never(items: np.ndarray) -> np.ndarray:
        signal.pause()
        return items

    shared = halves.share(np.arange(100, dtype=np.int64), never, block=10)
    shared.close()
    assert len(forks) == 1 and _gone(forks[0])


SHARING = textwrap.dedent(
    """
    import os, signal, sys, time
    import numpy as np
    from openodke.cli import signals
    from openodke.errors import Terminated
    from openodke.eval.engine import halves
    halves.MIN_ITEMS = 1
    def slow(items):
        time.sleep(0.05)
        return items
    with signals.handled():
        shared = halves.share(np.arange(100_000, dtype=np.int64), slow, block=10)
        try:
            print(shared.child, flush=True)
            if sys.argv[1] == "term":
                os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(30)  # -9 from the test, or SIGTERM raised here
        except Terminated:
            print("stopped", flush=True)
        finally:
            shared.close()
    """
)


@pytest.mark.parametrize("how", ["term", "kill"])
def test_the_child_is_gone_when_its_parent_ends_however_it_ends(how: str) -> None:
    """SIGTERM: the parent stops and waits for the child; kill -9: the child dies with it."""
    process = subprocess.Popen(
        [sys.executable, "-c", SHARING, how], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    child = int(process.stdout.readline())
    if how == "kill":
        assert alive(child)
        process.kill()
    out = process.stdout.read()  # what the line read left in its buffer too
    process.wait(timeout=30)
    process.stdout.close()
    if how == "term":
        assert out.strip() == "stopped"
    assert gone_soon([child])
