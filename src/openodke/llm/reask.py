"""Asking once more when an answer cannot be used: the reason fed back, or room to finish.

``ReaskClient`` wraps the live client (inside the cache, outside the budget, so the second call
is charged like any other). An answer that failed as an answer (cut off, refused, empty, off
schema: :data:`~openodke.llm.failures.ANSWER_KINDS`) is asked again once: a cut-off with twice
the ``max_tokens`` (at least 256 more); the others with the answer and the reason it cannot be used appended to the
conversation. What comes back is the second answer, good or failed, with both calls' tokens,
USD and time added (both were paid); a failure that stays names the first one too. Only a good
answer reaches the cache above. DECISIONS #142.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from openodke.llm.base import LLMClient, LLMResponse, Message, ModelSpec, close_inner
from openodke.llm.failures import ANSWER_KINDS, FailureKind

__all__ = ["ReaskClient", "feedback"]

_DEFAULT_CAP = 1024


def feedback(response: LLMResponse, schema: Mapping[str, Any] | None) -> list[dict[str, str]]:
    """The turns that tell the model why its answer cannot be used."""
    shape = "one JSON value that fits the schema" if schema is not None else "your answer"
    reason = response.error or response.failure or "the answer cannot be used"
    turns: list[dict[str, str]] = []
    if response.text.strip():
        turns.append({"role": "assistant", "content": response.text})
    turns.append(
        {
            "role": "user",
            "content": f"Your reply could not be used ({reason}). Reply again with only {shape}.",
        }
    )
    return turns


def _sum(first: int | None, second: int | None) -> int | None:
    if first is None and second is None:
        return None
    return (first or 0) + (second or 0)


def _usd(first: LLMResponse, second: LLMResponse) -> float | None:
    paid = [r for r in (first, second) if r.prompt_tokens or r.completion_tokens]
    if any(r.cost_usd is None for r in paid):
        return None
    return (first.cost_usd or 0.0) + (second.cost_usd or 0.0)


class ReaskClient:
    """Asks ``inner`` once more when its answer failed as an answer (see the module)."""

    def __init__(self, inner: LLMClient) -> None:
        self.inner = inner
        self.cacheable = getattr(inner, "cacheable", True)

    def __repr__(self) -> str:
        return f"ReaskClient({self.inner!r})"

    def complete(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """The answer, asked again once when it cannot be used."""
        first = self.inner.complete(messages, spec, schema)
        if first.failure not in ANSWER_KINDS:
            return first
        if first.failure == FailureKind.cut_off:
            cap = spec.max_tokens or first.completion_tokens or _DEFAULT_CAP
            again = spec.model_copy(update={"max_tokens": max(2 * cap, cap + 256)})
            second = self.inner.complete(messages, again, schema)
        else:
            second = self.inner.complete([*messages, *feedback(first, schema)], spec, schema)
        error = second.error
        if error is not None and first.error is not None and error != first.error:
            error = f"{error} (asked again after: {first.error})"
        elif error is not None:
            error = f"{error} (asked twice)"
        return second.model_copy(
            update={
                "prompt_tokens": _sum(first.prompt_tokens, second.prompt_tokens),
                "completion_tokens": _sum(first.completion_tokens, second.completion_tokens),
                "cost_usd": _usd(first, second),
                "latency_s": first.latency_s + second.latency_s,
                "error": error,
            }
        )

    def close(self) -> None:
        """Close the inner client."""
        close_inner(self.inner)
