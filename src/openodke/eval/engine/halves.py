"""Blocks of independent work shared between this process and one forked child.

:func:`share` forks a child that starts on the blocks at once, from the first, while this
process goes on with whatever it does before it needs the answers; :meth:`Shared.result` then
works the blocks from the last until the two meet, waits for the child and gives every block's
answers in order. So the child's share is whatever it finished by then, and neither waits on a
guess of how long the other's work takes.

Answers cross in memory the two processes share (an anonymous mapping made before the fork),
never pickled. Each block's state is a byte there: 0 free, 1 taken, 2 done. Two processes may
both take a block at the meeting point (the test and the mark are not one step): they then work
it both, to the same answers, which costs time, never a number. A child that dies (killed, out
of memory) leaves its blocks not done: this process works them too. So a block's answers never
depend on which process worked it, and a failure costs time alone. Nor can the child hang this
process: once every block is taken, it holds one at most, and if that takes more than
:data:`PATIENCE` (or 20 times this process's slowest block), the child is stopped and this
process works the block.

The child ignores Ctrl-C (it reaches the whole process group; this process stops the child),
dies with this process (``PR_SET_PDEATHSIG``), runs no ``atexit`` handler and flushes no buffer
of this process's (``os._exit``). It is forked only on Linux, from a process running one thread
(forking a threaded process can leave a lock held in the child), and never for less than
:data:`MIN_ITEMS` items.
"""

from __future__ import annotations

import mmap
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from contextlib import suppress

import numpy as np

__all__ = ["MIN_ITEMS", "PATIENCE", "Shared", "as_child", "share"]

PATIENCE = 2.0
"""Seconds this process waits for the child's last block, at least (20 times its own slowest
block, if more), before it stops the child and works that block itself."""

MIN_ITEMS = 8_192
"""Fewest items shared with a child: about where forking stops costing more than it saves
(measured on the surface rule, DECISIONS 319)."""

_FREE, _TAKEN, _DONE = 0, 1, 2


def _can_fork() -> bool:
    return sys.platform.startswith("linux") and threading.active_count() == 1


def as_child(parent: int) -> None:
    """In a forked child of ``parent``: leave Ctrl-C, which reaches the whole process group, to
    the parent (it stops its children), and die with the parent, even killed with -9.

    A parent killed between the fork and the death signal's setting sends none: the child,
    reparented by then, sees it and exits (the usual race of ``PR_SET_PDEATHSIG``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass
    if os.getppid() != parent:
        os._exit(1)


class Shared:
    """Blocks of items, each worked by :func:`share`'s ``work``: by a child, this process or
    both. :meth:`result` gives the answers (one int64 per item, in order)."""

    def __init__(self, items: np.ndarray, block: int, work: Callable[[np.ndarray], np.ndarray]):
        self.items = items
        self.work = work
        self.bounds = list(range(0, len(items), block)) + [len(items)]
        count = len(self.bounds) - 1
        self._answers = mmap.mmap(-1, max(8 * len(items), 1))
        self._state = mmap.mmap(-1, max(count, 1))
        self.answers = np.frombuffer(self._answers, dtype=np.int64, count=len(items))
        self.state = np.frombuffer(self._state, dtype=np.int8, count=count)
        self.child: int | None = None
        self.slowest = 0.0  # seconds, the slowest block this process worked

    def _work(self, k: int) -> None:
        start, stop = self.bounds[k], self.bounds[k + 1]
        self.state[k] = _TAKEN
        began = time.monotonic()
        self.answers[start:stop] = self.work(self.items[start:stop])
        self.slowest = max(self.slowest, time.monotonic() - began)
        self.state[k] = _DONE

    def _start(self) -> None:
        parent = os.getpid()
        child = os.fork()
        if child:
            self.child = child
            return
        code = 1
        try:  # the child: blocks from the first, until it meets one taken
            as_child(parent)
            for k in range(len(self.state)):
                if self.state[k] != _FREE:
                    break
                self._work(k)
            code = 0
        finally:
            os._exit(code)

    def result(self) -> np.ndarray:
        """Every item's answer: the blocks left are worked here, from the last, then whatever
        the child did not finish."""
        try:
            for k in range(len(self.state) - 1, -1, -1):
                if self.state[k] != _FREE:
                    break
                self._work(k)
            self._wait(patience=max(PATIENCE, 20 * self.slowest))
            for k in np.flatnonzero(self.state != _DONE).tolist():  # the child died in them
                self._work(k)
            return self.answers.copy()
        finally:
            self.close()

    def _wait(self, patience: float | None = None) -> None:
        """Wait for the child; past ``patience`` seconds (None: no end), stop it: it holds one
        block at most by then (it stops at the first block taken), which this process then
        works, so a child stuck or starved of a core costs time, never a hang."""
        child = self.child
        if child is None:
            return
        if patience is not None:
            deadline = time.monotonic() + patience
            while not os.waitpid(child, os.WNOHANG)[0]:
                if time.monotonic() > deadline:
                    with suppress(ProcessLookupError):
                        os.kill(child, signal.SIGKILL)
                    break
                time.sleep(0.0005)
            else:
                self.child = None  # reaped by the poll
                return
        os.waitpid(child, 0)
        self.child = None

    def close(self) -> None:
        """Stop the child, if it still runs, wait for it, and let go of the shared memory."""
        if self.child is not None:
            with suppress(ProcessLookupError):  # it may have ended already
                os.kill(self.child, signal.SIGKILL)
            self._wait()
        if not self._answers.closed:
            del self.answers, self.state  # the views first: a mapping with views stays open
            self._answers.close()
            self._state.close()


def share(items: np.ndarray, work: Callable[[np.ndarray], np.ndarray], *, block: int) -> Shared:
    """Start working ``items`` in blocks of ``block``: ``work(block_items)`` gives one int64
    per item, and depends on those items alone. A child is forked now to work blocks from the
    first (when there are at least :data:`MIN_ITEMS` items and forking is safe here); this
    process works the rest when :meth:`Shared.result` is called."""
    shared = Shared(items, max(block, 1), work)
    if len(items) >= MIN_ITEMS and len(shared.state) > 1 and _can_fork():
        try:
            shared._start()
        except OSError:  # no process to be had: all of it is worked here
            shared.child = None
    return shared
