"""The price table shipped in ``openodke/llm/prices.json``: USD per million tokens, by model string.

A model not in the table is unpriced: its cost is None, never invented.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Price", "cost_of", "price_of", "price_table"]


class Price(BaseModel):
    """One model's price: USD per million input and output tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float = Field(ge=0, description="USD per million input (prompt) tokens.")
    output: float = Field(ge=0, description="USD per million output (completion) tokens.")


@cache
def price_table() -> dict[str, Price]:
    """Every priced model, ``{"<provider>/<model>": Price}``, read once from the package."""
    raw = json.loads(resources.files("openodke.llm").joinpath("prices.json").read_text("utf-8"))
    return {model: Price.model_validate(row) for model, row in sorted(raw.items())}


def price_of(model: str) -> Price | None:
    """The model's price, or None when it is unpriced."""
    return price_table().get(model)


def cost_of(model: str, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
    """USD for one call, or None when the model is unpriced or a token count is unknown."""
    price = price_of(model)
    if price is None or prompt_tokens is None or completion_tokens is None:
        return None
    return (prompt_tokens * price.input + completion_tokens * price.output) / 1_000_000
