"""Child processes in tests: reaped however the test ends, and timed from a signal to their exit."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


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


def alive(pid: int) -> bool:
    """Process ``pid`` runs (neither gone nor a zombie waiting to be reaped)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] not in ("Z", "X")


def gone_soon(pids: list[int], seconds: float = 5) -> bool:
    """Every one of ``pids`` has ended within ``seconds`` (a loaded machine may take a few)."""
    deadline = time.monotonic() + seconds
    while any(map(alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(map(alive, pids))
