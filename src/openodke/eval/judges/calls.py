"""Running a judge's questions: concurrently, merged in input order, failures counted.

A failed call (an error result, or an answer that cannot be read) counts neither way; the caller
reports how many failed; when every call failed it is a provider error (exit 1), and when more
failed than ``--allow-failures`` allows it is CallsFailed (exit 1): the rule every model-calling
command shares (``openodke.llm.failures``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from openodke.errors import ProviderError
from openodke.llm import map_calls
from openodke.llm.failures import enforce_failures

__all__ = ["CallTally", "in_order"]

T = TypeVar("T")
R = TypeVar("R")


def in_order(
    ask: Callable[[T], R], items: Sequence[T], *, max_workers: int = 8, what: str = "judge calls"
) -> list[R]:
    """``ask(item)`` for every item, up to ``max_workers`` at a time, results in input order, with
    a progress bar on stderr when it is a terminal (``openodke.llm.map_calls``)."""
    return map_calls(ask, items, max_workers=max_workers, description=what)


@dataclass
class CallTally:
    """How many model calls a judge made, and how many failed."""

    what: str
    calls: int = 0
    failed: int = 0
    first_error: str | None = None

    def add(self, error: str | None) -> None:
        """Count one call; ``error`` is why it failed, or None."""
        self.calls += 1
        if error is not None:
            self.failed += 1
            if self.first_error is None:
                self.first_error = error

    def note(self) -> str | None:
        """A sentence for the report when any call failed, else None."""
        if not self.failed:
            return None
        return (
            f"{self.what}: {self.failed} of {self.calls} calls failed and count neither way "
            f"(first: {self.first_error})"
        )

    def check(self, allow: float | None = None) -> None:
        """ProviderError (exit 1) when there were calls and every one failed; CallsFailed (exit 1)
        when more failed than the share ``allow`` (``--allow-failures``; the CLI passes 0 when it
        is not given; None, the library's default, leaves partial failures to the report's note)."""
        if self.calls and self.failed == self.calls:
            raise ProviderError(
                f"{self.what}: every one of {self.calls} calls failed (first: {self.first_error})"
            )
        if allow is None:
            return
        enforce_failures(
            self.failed, self.calls, unit=f"{self.what} calls", allow=allow, first=self.first_error
        )
