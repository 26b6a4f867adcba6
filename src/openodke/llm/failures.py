"""Why a model call failed, how failures are counted, and the one rule that turns them into exit 1.

Every failed call carries a :class:`FailureKind` (``LLMResponse.failure``). The answer kinds
(``cut off at max_tokens``, ``refused``, ``empty``, ``off schema``) are answers the server gave
that cannot be used; they are asked again once and never cached. The transport kinds (``timed
out``, ``unreachable``, ``unauthorized``, ``rate limited``, ``HTTP error``, ``malformed reply``)
are what retries could not mend; ``batch expired`` and ``batch canceled`` are requests a
provider's batch ended without answering.

:class:`FailureTally` counts failures by kind across threads; :func:`enforce_failures` is the exit
rule every model-calling command shares (``ground``, ``validate``, ``run``, ``bench run``, ``eval
ablation``, the judges): any unchecked unit beyond ``--allow-failures`` (a share, 0 by default) is
:class:`CallsFailed`, exit 1, naming how many facts or documents went unchecked and why.
DECISIONS #140.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from enum import StrEnum

from openodke.errors import CallsFailed

__all__ = [
    "ANSWER_KINDS",
    "FailureKind",
    "FailureTally",
    "enforce_failures",
    "failure_line",
    "kinds_text",
    "merge_kinds",
]


class FailureKind(StrEnum):
    """Why a call ended without a usable answer (the value is what reports print)."""

    cut_off = "cut off at max_tokens"
    refused = "refused"
    empty = "empty"
    off_schema = "off schema"
    timeout = "timed out"
    unreachable = "unreachable"
    unauthorized = "unauthorized"
    rate_limited = "rate limited"
    http = "HTTP error"
    malformed = "malformed reply"
    unreadable = "unreadable answer"
    expired = "batch expired"
    canceled = "batch canceled"
    other = "failed"


ANSWER_KINDS = frozenset(
    {FailureKind.cut_off, FailureKind.refused, FailureKind.empty, FailureKind.off_schema}
)
"""Kinds where the server answered but the answer cannot be used: asked again once."""


def kinds_text(kinds: Mapping[str, int]) -> str:
    """``3 cut off at max_tokens, 1 refused``: the kinds by count, most first."""
    ordered = sorted(((n, k) for k, n in kinds.items() if n), key=lambda p: (-p[0], p[1]))
    return ", ".join(f"{n} {k}" for n, k in ordered)


class FailureTally:
    """Failed calls counted by kind, with the first failure's message; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kinds: Counter[str] = Counter()
        self.first: str | None = None

    def add(self, kind: str | None, message: str | None = None) -> None:
        """Count one failure of ``kind`` (``failed`` when None)."""
        with self._lock:
            self._kinds[str(kind or FailureKind.other)] += 1
            if self.first is None and message:
                self.first = message

    def extend(self, kinds: Mapping[str, int]) -> None:
        """Add counts by kind (another tally's ``as_dict()``)."""
        with self._lock:
            for kind, n in kinds.items():
                self._kinds[kind] += n

    @property
    def total(self) -> int:
        """Failures counted."""
        with self._lock:
            return sum(self._kinds.values())

    def as_dict(self) -> dict[str, int]:
        """Counts by kind, sorted by kind."""
        with self._lock:
            return dict(sorted((k, n) for k, n in self._kinds.items() if n))


def failure_line(
    failed: int,
    total: int,
    unit: str,
    *,
    kinds: Mapping[str, int] | None = None,
    first: str | None = None,
) -> str:
    """``12 of 200 facts unchecked (10 cut off at max_tokens, 2 refused); first: ...``."""
    line = f"{failed} of {total} {unit} unchecked"
    why = kinds_text(kinds or {})
    if why:
        line += f" ({why})"
    if first:
        line += f"; first: {first}"
    return line


def enforce_failures(
    failed: int,
    total: int,
    *,
    unit: str = "facts",
    allow: float | None = None,
    kinds: Mapping[str, int] | None = None,
    first: str | None = None,
    after: str = "",
) -> None:
    """Raise CallsFailed (exit 1) when ``failed`` of ``total`` units is more than ``allow`` allows.

    ``allow`` is the share of units that may fail (``--allow-failures 0.02``; None or 0: none);
    ``after`` is added to the message (what was written anyway, how to resume).
    """
    if failed <= 0 or total <= 0:
        return
    share = 0.0 if allow is None else allow
    if failed <= share * total:
        return
    line = failure_line(failed, total, unit, kinds=kinds, first=first)
    allowed = f"; --allow-failures {share:g} allows {int(share * total)}" if share else ""
    raise CallsFailed(line + allowed + (f"; {after}" if after else ""))


def merge_kinds(*tallies: Iterable[tuple[str, int]] | Mapping[str, int] | None) -> dict[str, int]:
    """Counts by kind added together."""
    total: Counter[str] = Counter()
    for tally in tallies:
        if not tally:
            continue
        items = tally.items() if isinstance(tally, Mapping) else tally
        for kind, n in items:
            total[kind] += n
    return dict(sorted(total.items()))
