"""SIGINT, SIGTERM and SIGHUP end a run the same way: one exception, raised where the program is.

The first of them raises :class:`~openodke.errors.Terminated` (a KeyboardInterrupt), so the
clean-up Ctrl-C already runs (a ``--cmd`` process group ended, temp folders removed, staged
outputs deleted) runs for a ``kill`` or a closed terminal too; every clean-up step is bounded in
time, and model calls in flight are not waited for. A second signal while that clean-up runs
ends the process at once (exit 128 + its number): the user asked twice (decision 152).
This module imports the standard library alone, so it is in place before anything slow loads.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from openodke.errors import Terminated

__all__ = ["HANDLED", "after_the_command", "handled", "received"]

HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that end a run."""

_received: list[int] = []
_deferred: list[int] = []

# Code the interpreter calls for itself (a weakref callback during an import, a __del__): an
# exception raised there is printed as "Exception ignored" with its traceback and then dropped.
_CALLBACKS = frozenset({"cb", "remove", "_remove", "__del__", "_callback"})
_RETRY = 0.005  # seconds before a deferred signal is raised again


def _raise(signum: int, frame: FrameType | None) -> None:
    if _received:  # already stopping, asked again: go now
        os.write(2, b"stopped at once by a second signal\n")
        os._exit(128 + signum)
    if frame is not None and frame.f_code.co_name in _CALLBACKS:
        _deferred[:] = [signum]  # raise it a moment later, where it cannot be dropped
        signal.setitimer(signal.ITIMER_REAL, _RETRY)
        return
    _received.append(signum)
    raise Terminated(signum)


def _again(signum: int, frame: FrameType | None) -> None:
    if _deferred:
        _raise(_deferred.pop(), frame)


def received() -> int | None:
    """The signal that ended the run, if one did."""
    return _received[0] if _received else None


@contextmanager
def handled() -> Iterator[None]:
    """Turn the signals into :class:`~openodke.errors.Terminated` for the ``with`` block.

    Only the main thread may set handlers; elsewhere (a test runner's thread) nothing changes.
    A signal the caller ignores stays ignored. The previous handlers are restored on the way out.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    # A signal already ignored (nohup ignores SIGHUP; a background job, SIGINT) stays ignored.
    previous = {
        sig: signal.signal(sig, _raise)
        for sig in HANDLED
        if signal.getsignal(sig) is not signal.SIG_IGN
    }
    previous[signal.SIGALRM] = signal.signal(signal.SIGALRM, _again)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _deferred.clear()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _exit_now(signum: int, frame: FrameType | None) -> None:
    os._exit(128 + signum)


def after_the_command() -> None:
    """From here to the process's end, outside :func:`handled` blocks (which put these back
    when they are done), SIGINT, SIGTERM and SIGHUP end it at once with 128 + the signal's
    number. Set before the command runs, so no moment is left after it: left to Python's
    default, a Ctrl-C there printed a KeyboardInterrupt traceback (from ``threading._shutdown``,
    or from the import that used to set these). A signal the caller ignores stays ignored;
    only the main thread may set handlers."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in HANDLED:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _exit_now)
