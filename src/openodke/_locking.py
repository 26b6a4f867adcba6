"""An exclusive lock on an open file, on any platform, with the standard library alone.

``fcntl.flock`` where the platform has it (Linux, macOS, the BSDs); ``msvcrt.locking`` on the
file's first byte on Windows (a byte-range lock; the region may lie past the end of the file, and
``LK_LOCK`` retries for about ten seconds before it gives up); elsewhere no lock, and appends rely
on ``O_APPEND`` alone. DECISIONS #68.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

__all__ = ["LOCKING", "locked"]


def _optional(name: str) -> ModuleType | None:
    try:
        return __import__(name)
    except ImportError:
        return None


fcntl = _optional("fcntl")
msvcrt = _optional("msvcrt")

LOCKING = "flock" if fcntl is not None else "msvcrt" if msvcrt is not None else "none"
"""How :func:`locked` locks on this platform: ``flock``, ``msvcrt`` or ``none``."""


@contextmanager
def locked(fd: int) -> Iterator[None]:
    """Hold an exclusive lock on the open file ``fd`` for the ``with`` block."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    elif msvcrt is not None:
        # msvcrt locks bytes from the current position: byte 0 stands for the whole file. An
        # O_APPEND write still goes to the end.
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
        try:
            yield
        finally:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    else:
        yield
