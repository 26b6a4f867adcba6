"""Child processes in tests: reaped however the test ends, and timed from a signal to their exit."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def reaped(child: subprocess.Popen[str]) -> Iterator[subprocess.Popen[str]]:
    """``child``, killed and waited for on the way out if it is still running (a failed
    assertion must not leave it behind)."""
    try:
        yield child
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def signalled(child: subprocess.Popen[str], sig: int, timeout: float = 30) -> tuple[str, float]:
    """Send ``sig`` to ``child``: its standard error and the seconds from the signal to its exit."""
    sent = time.monotonic()
    child.send_signal(sig)
    _, err = child.communicate(timeout=timeout)
    return err, time.monotonic() - sent
