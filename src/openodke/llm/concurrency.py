"""Bounded concurrency for model calls, with results in input order and a progress bar.

Output never depends on timing: results are merged by input position. The bar goes to stderr,
only when it is a terminal (or when asked), and only for more than a few calls; the CLI passes
``progress=False`` under ``--json``. The first exception a call raises (a BudgetStop, say) stops
new calls, lets the calls in flight finish (their answers reach the cache) and is re-raised. An
interrupt does not wait for calls in flight: the workers are daemon threads (decision 152).
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from openodke.llm.batch.context import raise_if_deferred

__all__ = ["DEFAULT_MAX_WORKERS", "PROGRESS_MIN_CALLS", "map_calls"]

T = TypeVar("T")
R = TypeVar("R")

DEFAULT_MAX_WORKERS = 8
PROGRESS_MIN_CALLS = 5
"""A bar shows for more calls than this."""


class _Bar:
    """A rich progress bar on stderr, or nothing."""

    def __init__(self, total: int, description: str, show: bool) -> None:
        self._progress: Any = None
        self._task: Any = None
        if show:
            from rich.console import Console
            from rich.progress import Progress

            self._progress = Progress(console=Console(stderr=True), transient=True)
            self._task = self._progress.add_task(description, total=total)

    def __enter__(self) -> _Bar:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def advance(self) -> None:
        if self._progress is not None:
            self._progress.advance(self._task)


def _show(progress: bool | None, total: int) -> bool:
    if progress is not None:
        return progress
    return total > PROGRESS_MIN_CALLS and sys.stderr.isatty()


def map_calls(
    fn: Callable[[T], R],
    items: Iterable[T],
    *,
    max_workers: int = DEFAULT_MAX_WORKERS,
    progress: bool | None = None,
    description: str = "model calls",
) -> list[R]:
    """``[fn(item) for item in items]`` on up to ``max_workers`` threads, in input order.

    ``progress`` None shows a bar when stderr is a terminal and there are more than a few calls.
    """
    if max_workers < 1:
        raise ValueError("max_workers must be at least 1")
    work = list(items)
    results: list[Any] = [None] * len(work)
    with _Bar(len(work), description, _show(progress, len(work))) as bar:
        if max_workers == 1 or len(work) <= 1:
            for index, item in enumerate(work):
                results[index] = fn(item)
                bar.advance()
            raise_if_deferred()
            return results
        _run_pool(fn, work, results, max_workers, bar)
    raise_if_deferred()  # --batch: the requests deferred go to a batch first (decision 210)
    return results


_SKIPPED = object()  # a queued call not started because the run is stopping


def _run_pool(
    fn: Callable[[T], R], work: list[T], results: list[Any], max_workers: int, bar: _Bar
) -> None:
    """Daemon workers fed through a bounded window (decision 152).

    The first exception a call raises stops new calls; the calls in flight finish (their answers
    reach the cache) and it is re-raised. An interrupt in the calling thread (Ctrl-C, SIGTERM as
    Terminated) does not wait for them: the workers are daemons, so the process can exit at once
    and their connections close with it; what was answered before is already stored.
    """
    window = max_workers * 2  # enough queued to keep workers busy, bounded for long inputs
    tasks: queue.SimpleQueue[tuple[int, T] | None] = queue.SimpleQueue()
    done: queue.SimpleQueue[tuple[int, Any, BaseException | None]] = queue.SimpleQueue()
    stop = threading.Event()

    def worker() -> None:
        while True:
            task = tasks.get()
            if task is None:
                return
            index, item = task
            if stop.is_set():
                done.put((index, _SKIPPED, None))
                continue
            try:
                done.put((index, fn(item), None))
            except BaseException as error:  # noqa: BLE001 - handed to the calling thread
                done.put((index, None, error))

    workers = [
        threading.Thread(target=worker, name=f"odke-call-{n}", daemon=True)
        for n in range(min(max_workers, len(work)))
    ]
    for thread in workers:
        thread.start()
    failure: BaseException | None = None
    pending = 0
    position = 0
    try:
        while True:
            while failure is None and position < len(work) and pending < window:
                tasks.put((position, work[position]))
                position += 1
                pending += 1
            if not pending:
                break
            index, value, error = done.get()
            pending -= 1
            if error is not None:
                failure = failure or error
                stop.set()
            elif value is not _SKIPPED:
                results[index] = value
                bar.advance()
    finally:
        stop.set()
        for _ in workers:
            tasks.put(None)
    if failure is not None:
        raise failure
