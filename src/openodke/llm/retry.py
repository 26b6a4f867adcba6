"""When and how long to retry a model call: 4 attempts, 0.5 s doubling, capped at 30 s, jittered.

Only timeouts, connection errors, 429 and 5xx are retried (the provider client decides which).
A server's ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms`` is honoured in full,
never cut to the cap. The jitter draws from the policy's own generator, seeded from the OS in
each process (so concurrent runs do not retry in lockstep) unless a seed is given; the sleep is
injectable, so tests run fast and repeat.
"""

from __future__ import annotations

import email.utils
import math
import random
import threading
import time
from collections.abc import Callable
from typing import Protocol

__all__ = ["RetryPolicy", "parse_retry_after", "retry_after_of"]


class Headers(Protocol):
    """Response headers read by name, in any letter case (httpx's, http.client's, a mapping)."""

    def get(self, name: str, /) -> str | None:
        """The header's value, or None."""
        ...


class RetryPolicy:
    """Attempts and backoff for one client; thread-safe.

    The wait after failed attempt ``n`` (1-based) is ``base_delay * multiplier ** (n - 1)``, times a
    factor drawn uniformly from ``[1 - jitter, 1 + jitter]``, never above ``max_delay``; a server's
    Retry-After, when longer, is waited in full (plus the jitter's share, so workers spread out).
    """

    def __init__(
        self,
        attempts: int = 4,
        base_delay: float = 0.5,
        multiplier: float = 2.0,
        max_delay: float = 30.0,
        jitter: float = 0.1,
        *,
        seed: int | None = None,
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
        self._rng = random.Random(seed)  # not numpy: its import alone is ~0.2 s of a command
        self._lock = threading.Lock()

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt ``attempt`` (1-based)."""
        wait = self.base_delay * self.multiplier ** (attempt - 1)
        draw = 0.0
        if self.jitter:
            with self._lock:
                draw = self._rng.uniform(-1.0, 1.0)
            wait *= 1.0 + self.jitter * draw
        wait = min(max(wait, 0.0), self.max_delay)
        if retry_after is not None and retry_after > wait:
            # in full: the server knows when it will take calls again
            wait = retry_after * (1.0 + self.jitter * abs(draw))
        return wait

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
        seconds = float(text)
    except ValueError:
        pass
    else:
        return max(seconds, 0.0) if math.isfinite(seconds) else None
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(when.timestamp() - current, 0.0)


def retry_after_of(headers: Headers, *, now: float | None = None) -> float | None:
    """The wait a response asks for: ``retry-after-ms`` (milliseconds, OpenAI's and Azure's) first,
    then ``Retry-After``; None when neither is there or readable."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis.strip())
        except ValueError:
            value = -1.0
        if value >= 0 and math.isfinite(value):
            return value / 1000.0
    return parse_retry_after(headers.get("retry-after"), now=now)
