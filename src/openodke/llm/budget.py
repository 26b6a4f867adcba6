"""A run's budget: stop cleanly before the call that would pass ``usd`` or ``calls`` (exit 3).

The budget wraps the live client inside the cache, so a cached answer never reaches it and is
free. A call's USD is not known until it returns, so each call reserves a worst case before it is
made (the prompt at four characters a token and the whole ``max_tokens``, 1024 when unset, as
output, at the model's price) and settles at what it cost. A call whose reservation would pass the
cap waits while other calls are in flight (they usually cost far less than reserved) and is
refused only when nothing is in flight and it would still pass: so any number of workers can
neither overspend nor stop early (decision 151). A USD cap needs a price for every model it may
call: :func:`require_prices` refuses an unpriced one before the run starts.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from openodke.errors import BudgetStop, ModelConfigError
from openodke.llm.base import LLMClient, LLMResponse, Message, ModelSpec, close_inner
from openodke.llm.prices import cost_of, price_of

__all__ = [
    "Budget",
    "BudgetedClient",
    "estimate_tokens",
    "estimate_usd",
    "prompt_tokens_estimate",
    "require_prices",
    "with_usage",
]

_CHARS_PER_TOKEN = 4
_UNSET_MAX_TOKENS = 1024


def estimate_tokens(text: str) -> int:
    """Tokens in ``text`` at four characters a token (rounded up): the estimate used wherever a
    count is not known (a server that reports no usage, a budget's reservation, a dry run)."""
    return math.ceil(len(text) / _CHARS_PER_TOKEN)


def prompt_tokens_estimate(
    messages: Sequence[Message], schema: Mapping[str, Any] | None = None
) -> int:
    """The estimated input tokens of a request: its messages and its schema."""
    chars = sum(len(str(m.get("content", ""))) for m in messages)
    if schema is not None:
        chars += len(json.dumps(schema))
    return math.ceil(chars / _CHARS_PER_TOKEN)


def estimate_usd(
    messages: Sequence[Message],
    spec: ModelSpec,
    schema: Mapping[str, Any] | None = None,
    *,
    batch: bool | None = None,
) -> float:
    """The most one call should cost: its prompt's tokens estimated, ``max_tokens`` out; 0.0 for
    an unpriced model (a USD cap refuses those before it starts). ``batch`` None: at the batch
    rate when the command runs in batch mode (``--batch``)."""
    price = price_of(spec.model)
    if price is None:
        return 0.0
    if batch is None:
        from openodke.llm.batch.context import active_engine

        batch = active_engine() is not None
    output = spec.max_tokens or _UNSET_MAX_TOKENS
    return price.usd(prompt_tokens_estimate(messages, schema), output, batch=batch)


def with_usage(
    response: LLMResponse,
    messages: Sequence[Message],
    spec: ModelSpec,
    schema: Mapping[str, Any] | None = None,
    *,
    batch: bool = False,
) -> LLMResponse:
    """``response`` with its token counts estimated when the server sent none (and marked so),
    priced from them; an error result or one with both counts is returned as it is."""
    if response.error is not None or (
        response.prompt_tokens is not None and response.completion_tokens is not None
    ):
        return response
    prompt = response.prompt_tokens
    if prompt is None:
        prompt = prompt_tokens_estimate(messages, schema)
    completion = response.completion_tokens
    if completion is None:
        completion = estimate_tokens(response.text)
    cost = cost_of(spec.model, prompt, completion, batch=batch)
    if cost is None:
        cost = cost_of(response.model, prompt, completion, batch=batch)
    return response.model_copy(
        update={
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "cost_usd": cost,
            "tokens_estimated": True,
        }
    )


def require_prices(specs: Sequence[ModelSpec], budget: Budget | None) -> None:
    """ModelConfigError (exit 2) when a USD cap is set and a model has no price."""
    if budget is None or budget.usd is None:
        return
    for spec in specs:
        if price_of(spec.model) is None:
            raise ModelConfigError(
                f"budget: usd {budget.usd:g} needs a price for {spec.model}, which the price "
                "table does not know; give it with --price in=X,out=Y or prices: in the run "
                "config (USD per million tokens)"
            )


class Budget:
    """``usd`` and ``calls`` caps (either may be None); thread-safe."""

    def __init__(self, usd: float | None = None, calls: int | None = None) -> None:
        if usd is not None and usd < 0:
            raise ValueError("a USD budget cannot be negative")
        if calls is not None and calls < 0:
            raise ValueError("a call budget cannot be negative")
        self.usd = usd
        self.calls = calls
        self.spent_usd = 0.0
        self.calls_made = 0
        self._reserved_usd = 0.0
        self._in_flight = 0
        self._lock = threading.Condition()

    def __repr__(self) -> str:
        return f"Budget(usd={self.usd}, calls={self.calls})"

    def reserve(self, estimate: float) -> None:
        """Claim one call costing up to ``estimate``; BudgetStop when that would pass a cap.

        While the claim does not fit but calls are in flight, wait for them to settle: what they
        did not spend of their reservations comes back.
        """
        with self._lock:
            while True:
                calls_over = self.calls is not None and (
                    self.calls_made + self._in_flight + 1 > self.calls
                )
                usd_over = self.usd is not None and (
                    self.spent_usd + self._reserved_usd + estimate > self.usd
                )
                if not (calls_over or usd_over):
                    break
                # A call cap is exact (calls in flight count, answered or not): stop at once.
                if calls_over or self._in_flight == 0:
                    self._stop(estimate, calls_over)
                self._lock.wait()
            self._in_flight += 1
            self._reserved_usd += estimate

    def _stop(self, estimate: float, calls_over: bool) -> None:
        if calls_over:
            raise BudgetStop(
                f"budget: the next model call would pass calls {self.calls} "
                f"({self.calls_made} made)"
            )
        raise BudgetStop(
            f"budget: the next model call (up to ${estimate:.4f}) would pass "
            f"usd {self.usd:g} (${self.spent_usd:.4f} spent)"
        )

    def charge(self, cost_usd: float, calls: int = 1) -> None:
        """Count calls already made and paid elsewhere (a provider's batch)."""
        with self._lock:
            self.calls_made += calls
            self.spent_usd += cost_usd
            self._lock.notify_all()

    def settle(self, estimate: float, cost_usd: float | None) -> None:
        """Release a reservation and count what the call did cost."""
        with self._lock:
            self._in_flight -= 1
            self._reserved_usd -= estimate
            self.calls_made += 1
            self.spent_usd += cost_usd or 0.0
            self._lock.notify_all()


class BudgetedClient:
    """Charges each call to ``budget`` before making it; raises BudgetStop instead of passing it."""

    def __init__(self, inner: LLMClient, budget: Budget) -> None:
        self.inner = inner
        self.budget = budget
        self.cacheable = getattr(inner, "cacheable", True)

    def __repr__(self) -> str:
        return f"BudgetedClient({self.inner!r}, {self.budget!r})"

    def complete(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """The inner client's answer, if the budget allows the call."""
        estimate = estimate_usd(messages, spec, schema)
        self.budget.reserve(estimate)
        cost: float | None = None
        try:
            response = self.inner.complete(messages, spec, schema)
            cost = response.cost_usd
        finally:
            self.budget.settle(estimate, cost)
        return response

    def close(self) -> None:
        """Close the inner client."""
        close_inner(self.inner)
