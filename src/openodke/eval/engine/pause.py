"""Pausing the cyclic garbage collector while millions of small objects are built."""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["paused_gc", "without_gc"]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while millions of rows are built (see below)."""
    # Millions of small containers make the cyclic collector rescan the heap over and over;
    # nothing here builds a cycle, so it is paused while rows load, and what was loaded is moved
    # out of its sight (gc.freeze) so it is not rescanned later either. Refcounting frees it.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


F = TypeVar("F", bound=Callable[..., Any])


def without_gc(function: F) -> F:
    """Run ``function`` with the cyclic collector paused (see :func:`paused_gc`)."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with paused_gc():
            return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
