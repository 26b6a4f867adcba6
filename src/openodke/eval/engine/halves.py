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
depend on which process worked it, and a failure costs time alone.

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
from collections.abc import Callable
from contextlib import suppress

import numpy as np

__all__ = ["MIN_ITEMS", "Shared", "as_child", "share"]

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

    def _work(self, k: int) -> None:
        start, stop = self.bounds[k], self.bounds[k + 1]
        self.state[k] = _TAKEN
        self.answers[start:stop] = self.work(self.items[start:stop])
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
            self._wait()
            for k in np.flatnonzero(self.state != _DONE).tolist():  # the child died in them
                self._work(k)
            return self.answers.copy()
        finally:
            self.close()

    def _wait(self) -> None:
        if self.child is not None:
            child, self.child = self.child, None
            os.waitpid(child, 0)

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
