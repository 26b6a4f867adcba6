"""Whether a command runs in batch mode, and the signal that a round of requests waits for a batch.

Light on purpose: :func:`openodke.llm.map_calls` asks :func:`raise_if_deferred` after every set
of calls, so this module imports nothing of the model layer. In batch mode the bottom client
defers each request it has no answer for; when a set of calls ends with requests deferred,
:class:`BatchPending` unwinds the command (a BaseException: no ``except Exception`` in a stage
turns it into a failed call, and nothing is written), the engine submits, polls and collects,
and the command runs again with those answers (decision 210).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

__all__ = ["BatchPending", "active_engine", "raise_if_deferred"]

_ENGINE: ContextVar[Any] = ContextVar("odke_batch_engine", default=None)


class BatchPending(BaseException):  # noqa: N818 - a control-flow signal, like KeyboardInterrupt
    """A set of model calls ended with requests waiting for a batch (not an error)."""


def active_engine() -> Any:
    """The BatchEngine the command runs under, or None (live calls)."""
    return _ENGINE.get()


def raise_if_deferred() -> None:
    """Raise BatchPending when requests wait for a batch (called after each set of calls)."""
    engine = _ENGINE.get()
    if engine is not None and engine.deferred():
        raise BatchPending()
