"""A run's budget: stop cleanly before the call that would pass ``usd`` or ``calls`` (exit 3).

The budget wraps the live client inside the cache, so a cached answer never reaches it and is
free. A call's USD is not known until it returns, so the check uses a worst case: the prompt at
four characters a token and the whole ``max_tokens`` (1024 when unset) as output, at the model's
price; an unpriced model costs nothing against ``usd``. Calls in flight are reserved, so workers
in parallel cannot pass the budget together.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from openodke.errors import BudgetStop
from openodke.llm.base import LLMClient, LLMResponse, Message, ModelSpec
from openodke.llm.prices import price_of

__all__ = ["Budget", "BudgetedClient", "estimate_usd"]

_CHARS_PER_TOKEN = 4
_UNSET_MAX_TOKENS = 1024


def estimate_usd(
    messages: Sequence[Message], spec: ModelSpec, schema: Mapping[str, Any] | None = None
) -> float:
    """The most one call should cost: its prompt's tokens estimated, ``max_tokens`` out."""
    price = price_of(spec.model)
    if price is None:
        return 0.0
    chars = sum(len(str(m.get("content", ""))) for m in messages)
    if schema is not None:
        chars += len(json.dumps(schema))
    prompt = math.ceil(chars / _CHARS_PER_TOKEN)
    output = spec.max_tokens or _UNSET_MAX_TOKENS
    return (prompt * price.input + output * price.output) / 1_000_000


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
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Budget(usd={self.usd}, calls={self.calls})"

    def reserve(self, estimate: float) -> None:
        """Claim one call costing up to ``estimate``; BudgetStop when that would pass a cap."""
        with self._lock:
            if self.calls is not None and self.calls_made + self._in_flight + 1 > self.calls:
                raise BudgetStop(
                    f"budget: the next model call would pass calls {self.calls} "
                    f"({self.calls_made} made)"
                )
            if self.usd is not None and (self.spent_usd + self._reserved_usd + estimate > self.usd):
                raise BudgetStop(
                    f"budget: the next model call (up to ${estimate:.4f}) would pass "
                    f"usd {self.usd:g} (${self.spent_usd:.4f} spent)"
                )
            self._in_flight += 1
            self._reserved_usd += estimate

    def settle(self, estimate: float, cost_usd: float | None) -> None:
        """Release a reservation and count what the call did cost."""
        with self._lock:
            self._in_flight -= 1
            self._reserved_usd -= estimate
            self.calls_made += 1
            self.spent_usd += cost_usd or 0.0


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
        close = getattr(self.inner, "close", None)
        if callable(close):
            close()
