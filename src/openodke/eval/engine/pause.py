"""Pausing what costs most while millions of rows are built: the cyclic garbage collector, and
numpy's huge pages for its large arrays."""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["paused_gc", "small_pages", "without_gc"]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while millions of rows are built (see below), with
    :func:`small_pages`."""
    # Millions of small containers make the cyclic collector rescan the heap over and over;
    # nothing here builds a cycle, so it is paused while rows load, and what was loaded is moved
    # out of its sight (gc.freeze) so it is not rescanned later either. Refcounting frees it.
    enabled = gc.isenabled()
    gc.disable()
    try:
        with small_pages():
            yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


@contextmanager
def small_pages() -> Iterator[None]:
    """Numpy's large arrays on ordinary pages for the duration (the setting before is put back).

    On Linux numpy asks for transparent huge pages for every array of 4 MB or more; a score
    allocates and frees hundreds of those, and each huge page is cleared when first touched: on
    the 2-core virtual machines measured, that was most of a million-row score's system time
    (DECISIONS.md 275). A ``NUMPY_MADVISE_HUGEPAGE`` the user set is left as they chose; where
    numpy asks for no huge pages (other systems) nothing changes.
    """
    switch = None if "NUMPY_MADVISE_HUGEPAGE" in os.environ else _switch()
    before = switch(False) if switch is not None else None
    try:
        yield
    finally:
        if switch is not None and before is not None:
            switch(before)


def _switch() -> Callable[[bool], bool] | None:
    """numpy's setter of its huge-page advice (it returns the setting before), if it has one."""
    try:
        from numpy._core import multiarray  # numpy 2
    except ImportError:  # pragma: no cover - numpy 1.26
        from numpy.core import multiarray  # type: ignore[no-redef]
    return getattr(multiarray, "_set_madvise_hugepage", None)


F = TypeVar("F", bound=Callable[..., Any])


def without_gc(function: F) -> F:
    """Run ``function`` with the cyclic collector paused (see :func:`paused_gc`)."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with paused_gc():
            return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
