"""Requests and tokens a minute, per model, shared by every worker of a client.

``RateLimiter.acquire(tokens)`` waits until one more request, and ``tokens`` more tokens, fit
the last 60 seconds (a sliding window, so a burst never passes the rate either); ``pause(s)``
holds every worker back after a 429 told one of them to wait (``Retry-After``). Tokens are the
client's estimate before the call (prompt characters / 4 + ``max_tokens``), settled to what the
server counted when it says. The clock and the sleep are injectable for tests.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

__all__ = ["RateLimiter", "WINDOW_S"]

WINDOW_S = 60.0


class RateLimiter:
    """At most ``rpm`` requests and ``tpm`` tokens in any 60 s (either may be None); thread-safe."""

    def __init__(
        self,
        rpm: float | None = None,
        tpm: float | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if rpm is not None and rpm <= 0:
            raise ValueError("rpm must be positive")
        if tpm is not None and tpm <= 0:
            raise ValueError("tpm must be positive")
        self.rpm = rpm
        self.tpm = tpm
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._sent: deque[list[float]] = deque()  # [when, tokens]
        self._paused_until = 0.0
        self.waited_s = 0.0

    def __repr__(self) -> str:
        return f"RateLimiter(rpm={self.rpm}, tpm={self.tpm})"

    def _wait_needed(self, now: float, tokens: float) -> float:
        while self._sent and self._sent[0][0] <= now - WINDOW_S:
            self._sent.popleft()
        wait = max(self._paused_until - now, 0.0)
        if self.rpm is not None and len(self._sent) >= self.rpm:
            index = int(len(self._sent) - self.rpm)
            wait = max(wait, self._sent[index][0] + WINDOW_S - now)
        if self.tpm is not None and self._sent:
            used = sum(row[1] for row in self._sent)
            if used + tokens > self.tpm:
                # the oldest sends leave the window one by one until the new call fits
                freed = used + tokens - self.tpm
                for when, spent in self._sent:
                    freed -= spent
                    if freed <= 0:
                        wait = max(wait, when + WINDOW_S - now)
                        break
        return wait

    def acquire(self, tokens: float = 0.0) -> list[float]:
        """Wait until the call fits, then count it; returns its entry (for :meth:`settle`)."""
        while True:
            with self._lock:
                now = self._clock()
                wait = self._wait_needed(now, tokens)
                if wait <= 0:
                    entry = [now, float(tokens)]
                    self._sent.append(entry)
                    return entry
            self.waited_s += wait
            self._sleep(min(wait, 5.0))

    def settle(self, entry: list[float], tokens: float | None) -> None:
        """Count what the call spent, when the server said."""
        if tokens is not None:
            with self._lock:
                entry[1] = float(tokens)

    def pause(self, seconds: float) -> None:
        """Hold every call back for ``seconds`` (a 429's Retry-After)."""
        with self._lock:
            self._paused_until = max(self._paused_until, self._clock() + seconds)
