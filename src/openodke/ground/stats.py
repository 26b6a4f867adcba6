"""A grounder's counts: verdicts, model calls, failures, tokens and cost; safe across threads.

``stats`` (a plain dict) has ``facts`` (grounded), ``verdicts`` (verdict → count), ``checked``
(facts given a verdict other than ``unchecked``), ``calls`` (model calls made, cached ones
included), ``cached``, ``failed`` (calls that ended in an error, or whose answer could not be
read: each leaves its fact ``unchecked``), ``unreadable`` (the latter alone), ``tokens``,
``prompt_tokens``, ``completion_tokens`` (paid live calls, failed answers included),
``cost_usd`` (None when any paid live call was unpriced, never invented; a cached answer costs
0.0), ``priced_usd`` (the partial sum),
``unpriced_calls``, ``located``, ``widened``, ``free_not_found``, ``schema_misfits`` and
``no_document`` (facts citing no document given), ``failures`` (failed calls by kind: ``cut off
at max_tokens``, ``refused``, ``empty``, ``off schema``, ``unreadable answer``, ``timed out``...)
and ``first_error`` (the first failure's message, or None).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping
from typing import Any

from openodke.llm import LLMResponse
from openodke.llm.cost import paid
from openodke.llm.failures import FailureKind, FailureTally, merge_kinds
from openodke.types import Fact, GroundingVerdict

__all__ = ["GroundingStats", "combine"]

_VERDICTS = tuple(v.value for v in GroundingVerdict)


class GroundingStats:
    """Counts kept while grounding; ``as_dict()`` is the ``stats`` a grounder reports."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._verdicts: Counter[str] = Counter()
        self._counts: Counter[str] = Counter()
        self._priced = 0.0
        self._unpriced = 0
        self._first_error: str | None = None
        self._failures = FailureTally()

    def fact(self, fact: Fact) -> None:
        """Count one grounded fact by its final verdict."""
        with self._lock:
            self._verdicts[fact.verdict.value] += 1

    def add(self, name: str, n: int = 1) -> None:
        """Add ``n`` to a named count (``located``, ``widened``, ``free_not_found``, ...)."""
        with self._lock:
            self._counts[name] += n

    def call(self, response: LLMResponse, *, readable: bool) -> None:
        """Count one model call: its tokens and cost, and whether it failed."""
        with self._lock:
            self._counts["calls"] += 1
            if response.cached:
                self._counts["cached"] += 1
            if response.error is not None:
                self._counts["failed"] += 1
                self._first_error = self._first_error or response.error
                self._failures.add(response.failure or FailureKind.other)
            elif not readable:
                self._counts["failed"] += 1
                self._counts["unreadable"] += 1
                self._first_error = (
                    self._first_error or f"unreadable answer: {response.text[:80]!r}"
                )
                self._failures.add(FailureKind.unreadable)
            # As CostMeter counts: a cached answer is free and spends no tokens; a failed call
            # costs what its answers spent (asked twice: both paid), nothing known without one;
            # a paid live call with no price makes the total unknown.
            if paid(response):
                self._counts["prompt_tokens"] += response.prompt_tokens or 0
                self._counts["completion_tokens"] += response.completion_tokens or 0
                self._counts["estimated_calls"] += int(response.tokens_estimated)
                if response.cost_usd is None:
                    self._unpriced += 1
                else:
                    self._priced += response.cost_usd

    def as_dict(self) -> dict[str, Any]:
        """The counts as a JSON-ready dict (see the module docstring)."""
        with self._lock:
            counts = self._counts
            verdicts = {v: self._verdicts[v] for v in _VERDICTS}
            facts = sum(verdicts.values())
            prompt, completion = counts["prompt_tokens"], counts["completion_tokens"]
            return {
                "facts": facts,
                "verdicts": verdicts,
                "checked": facts - verdicts["unchecked"],
                "calls": counts["calls"],
                "cached": counts["cached"],
                "failed": counts["failed"],
                "unreadable": counts["unreadable"],
                "tokens": prompt + completion,
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "cost_usd": None if self._unpriced else round(self._priced, 10),
                "priced_usd": round(self._priced, 10),
                "unpriced_calls": self._unpriced,
                "estimated_calls": counts["estimated_calls"],
                "located": counts["located"],
                "widened": counts["widened"],
                "free_not_found": counts["free_not_found"],
                "schema_misfits": counts["schema_misfits"],
                "no_document": counts["no_document"],
                "failures": self._failures.as_dict(),
                "first_error": self._first_error,
            }


_CALL_COUNTS = (
    "calls",
    "cached",
    "failed",
    "unreadable",
    "prompt_tokens",
    "completion_tokens",
    "tokens",
    "priced_usd",
    "unpriced_calls",
    "estimated_calls",
    "located",
    "widened",
)


def combine(outer: dict[str, Any], inner: Mapping[str, Any] | None) -> dict[str, Any]:
    """``outer`` (a wrapper's own counts) with an inner grounder's call counts added."""
    if not inner:
        return outer
    merged = dict(outer)
    for name in _CALL_COUNTS:
        value = inner.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            merged[name] = merged.get(name, 0) + value
    merged["first_error"] = merged.get("first_error") or inner.get("first_error")
    merged["failures"] = merge_kinds(merged.get("failures"), inner.get("failures"))
    merged["priced_usd"] = round(merged["priced_usd"], 10)
    merged["cost_usd"] = None if merged["unpriced_calls"] else merged["priced_usd"]
    return merged
