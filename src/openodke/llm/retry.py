"""When and how long to retry a model call: 4 attempts, 0.5 s doubling, capped at 30 s, jittered.

Only timeouts, connection errors, 429 and 5xx are retried (the provider client decides which);
a 429's ``Retry-After`` is honoured up to the cap. The jitter draws from the policy's own seeded
generator and the sleep is injectable, so tests run fast and repeat.
"""

from __future__ import annotations

import email.utils
import threading
import time
from collections.abc import Callable

import numpy as np

__all__ = ["RetryPolicy", "parse_retry_after"]


class RetryPolicy:
    """Attempts and backoff for one client; thread-safe.

    The wait after failed attempt ``n`` (1-based) is ``base_delay * multiplier ** (n - 1)``, times a
    factor drawn uniformly from ``[1 - jitter, 1 + jitter]``, at least the server's Retry-After, and
    never above ``max_delay``.
    """

    def __init__(
        self,
        attempts: int = 4,
        base_delay: float = 0.5,
        multiplier: float = 2.0,
        max_delay: float = 30.0,
        jitter: float = 0.1,
        *,
        seed: int | None = 0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        if not 0 <= jitter <= 1:
            raise ValueError("jitter must be between 0 and 1")
        self.attempts = attempts
        self.base_delay = base_delay
        self.multiplier = multiplier
        self.max_delay = max_delay
        self.jitter = jitter
        self.sleep = sleep
        self._rng = np.random.default_rng(seed)
        self._lock = threading.Lock()

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt ``attempt`` (1-based)."""
        wait = self.base_delay * self.multiplier ** (attempt - 1)
        if self.jitter:
            with self._lock:
                draw = float(self._rng.uniform(-1.0, 1.0))
            wait *= 1.0 + self.jitter * draw
        if retry_after is not None:
            wait = max(wait, retry_after)
        return min(max(wait, 0.0), self.max_delay)

    def wait(self, attempt: int, retry_after: float | None = None) -> float:
        """Sleep the delay after failed attempt ``attempt``; returns the seconds slept."""
        seconds = self.delay(attempt, retry_after)
        self.sleep(seconds)
        return seconds


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """A ``Retry-After`` header in seconds: delta-seconds or an HTTP date; None when absent or bad."""
    if value is None:
        return None
    text = value.strip()
    try:
        return max(float(text), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(when.timestamp() - current, 0.0)
