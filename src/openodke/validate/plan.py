"""A dry run's plan: the model calls grounding would make, what they are expected to cost and at
most.

Nothing is sent. ``max_usd`` is an upper bound, as the budget reckons it
(``openodke.llm.budget``: the prompt at four characters a token, the whole ``max_tokens`` out);
``usd`` the expected cost, a verdict's few tokens out (``openodke.llm.estimate``). An unpriced
model makes the totals unknown (None), never a guess.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from openodke.llm import ModelSpec
from openodke.llm.budget import estimate_usd
from openodke.llm.estimate import VERDICT_TOKENS, expected_usd
from openodke.llm.prices import price_of
from openodke.types import Document, Fact

__all__ = ["GroundingPlan", "plan_grounding"]

_CHARS_PER_TOKEN = 4


@dataclass
class GroundingPlan:
    """Planned calls by model and prompt, estimated prompt tokens and the most they cost."""

    calls: int = 0
    by_model: dict[str, int] = field(default_factory=dict)
    by_prompt: dict[str, int] = field(default_factory=dict)
    prompt_tokens: int = 0
    usd: float | None = 0.0
    max_usd: float | None = 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``calls``, ``by_model``, ``by_prompt``, ``prompt_tokens``, ``usd``,
        ``max_usd``."""
        return {
            "calls": self.calls,
            "by_model": dict(self.by_model),
            "by_prompt": dict(self.by_prompt),
            "prompt_tokens": self.prompt_tokens,
            "usd": self.usd,
            "max_usd": self.max_usd,
        }

    def render(self) -> str:
        """``3 calls to openai/gpt-4o-mini (ground.span@1), ~420 prompt tokens, at most $0.0012``."""
        if not self.calls:
            return "no model call would be made"
        models = ", ".join(f"{n} to {m}" for m, n in self.by_model.items())
        prompts = ", ".join(self.by_prompt)
        price = (
            "unpriced"
            if self.max_usd is None or self.usd is None
            else f"about ${self.usd:.4f}, at most ${self.max_usd:.4f}"
        )
        word = "call" if self.calls == 1 else "calls"
        return f"{self.calls} {word} ({models}; {prompts}), ~{self.prompt_tokens} prompt tokens, {price}"


def plan_grounding(grounder: Any, pairs: Sequence[tuple[Fact, Document]]) -> GroundingPlan:
    """What ``grounder.plan(pairs)`` says it would ask; an empty plan when it cannot plan."""
    planner = getattr(grounder, "plan", None)
    planned = list(planner(pairs)) if callable(planner) and pairs else []
    plan = GroundingPlan(calls=len(planned))
    models: Counter[str] = Counter()
    prompts: Counter[str] = Counter()
    total: float | None = 0.0
    expected = 0.0
    for call in planned:
        models[call.model] += 1
        prompts[call.prompt] += 1
        chars = sum(len(str(m.get("content", ""))) for m in call.messages)
        plan.prompt_tokens += math.ceil(chars / _CHARS_PER_TOKEN)
        if price_of(call.model) is None:
            total = None
        elif total is not None:
            spec = _spec_of(grounder, call.model)
            total += estimate_usd(call.messages, spec, call.schema)
            expected += expected_usd(call.messages, spec, call.schema, VERDICT_TOKENS) or 0.0
    plan.by_model, plan.by_prompt = dict(models), dict(prompts)
    plan.max_usd = None if total is None else round(total, 6)
    plan.usd = None if total is None else round(expected, 6)
    return plan


def _spec_of(grounder: Any, model: str) -> ModelSpec:
    inner = getattr(grounder, "inner", grounder)
    spec = getattr(inner, "spec", None)
    return spec if isinstance(spec, ModelSpec) and spec.model == model else ModelSpec(model=model)
