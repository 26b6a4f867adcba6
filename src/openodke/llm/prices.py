"""USD per million tokens, by model string: the shipped table, and the prices a user gives.

The table ``openodke/llm/prices.json`` is generated from genai-prices' data by
``tools/update_prices.py`` (decision 150); it holds the standard and, where the provider has one,
the batch rate. A dated name (``claude-haiku-4-5-20251001``, ``gpt-4o-2024-08-06``) takes its
undated model's price. Prices a user gives (``prices:`` in a run config, ``--price``) come first:
:func:`add_prices` for one model, or for every model (``"*"``). An ``ollama/`` model runs on the
user's machine and costs 0. Any other model not found is unpriced: its cost is None, never invented.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from openodke.errors import InputError

__all__ = [
    "Price",
    "add_prices",
    "cost_of",
    "given_prices",
    "parse_price",
    "parse_prices",
    "price_of",
    "price_table",
    "table_source",
    "using_prices",
]

EVERY_MODEL = "*"
_FREE = ("ollama/",)
_DATED = (re.compile(r"-\d{8}$"), re.compile(r"-\d{4}-\d{2}-\d{2}$"))


class Price(BaseModel):
    """One model's price: USD per million input and output tokens (and the batch rates)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float = Field(ge=0, description="USD per million input (prompt) tokens.")
    output: float = Field(ge=0, description="USD per million output (completion) tokens.")
    batch_input: float | None = Field(
        default=None, ge=0, description="Through the provider's batch API; null: half of input."
    )
    batch_output: float | None = Field(
        default=None, ge=0, description="Through the provider's batch API; null: half of output."
    )

    def usd(self, prompt_tokens: int, completion_tokens: int, *, batch: bool = False) -> float:
        """USD for one call's tokens, at the batch rate when ``batch``."""
        if batch:
            rate_in = self.input / 2 if self.batch_input is None else self.batch_input
            rate_out = self.output / 2 if self.batch_output is None else self.batch_output
        else:
            rate_in, rate_out = self.input, self.output
        return (prompt_tokens * rate_in + completion_tokens * rate_out) / 1_000_000


@cache
def price_table() -> dict[str, Price]:
    """Every priced model, ``{"<provider>/<model>": Price}``, read once from the package."""
    text = resources.files("openodke.llm").joinpath("prices.json").read_text("utf-8")
    rows: dict[str, Any] = json.loads(text)
    return {model: Price.model_validate(row) for model, row in sorted(rows.items())}


def table_source() -> str:
    """Where the table came from and as of when (``genai-prices 0.2.3 …, as of 2026-12-02``)."""
    source = resources.files("openodke.llm").joinpath("prices-source.txt")
    return source.read_text("utf-8").strip()


# Prices a user gave: the command line's layer ("flag") before the run config's ("config").
_given: dict[str, dict[str, Price]] = {"flag": {}, "config": {}}
_given_lock = threading.Lock()


def add_prices(prices: Mapping[str, Price], *, layer: str = "flag") -> None:
    """Use these prices before the table's, for the rest of the process (``"*"``: every model).

    ``layer`` "flag" (``--price``) wins over "config" (``prices:`` in a run config).
    """
    with _given_lock:
        _given[layer].update(prices)


def given_prices() -> dict[str, Price]:
    """The prices a user gave so far, by model (``"*"`` for every model), flags winning."""
    with _given_lock:
        return {**_given["config"], **_given["flag"]}


@contextmanager
def using_prices(prices: Mapping[str, Price], *, layer: str = "flag") -> Iterator[None]:
    """``prices`` added for the ``with`` block, the earlier ones restored after it."""
    with _given_lock:
        before = {name: dict(rows) for name, rows in _given.items()}
    add_prices(prices, layer=layer)
    try:
        yield
    finally:
        with _given_lock:
            for name, rows in before.items():
                _given[name] = rows


def price_of(model: str) -> Price | None:
    """The model's price: given (flag, then config), else the table's (its undated name too),
    else 0 for ``ollama/``, else None."""
    with _given_lock:
        for layer in ("flag", "config"):
            given = _given[layer].get(model) or _given[layer].get(EVERY_MODEL)
            if given is not None:
                return given
    table = price_table()
    found = table.get(model)
    if found is not None:
        return found
    for dated in _DATED:
        undated = dated.sub("", model)
        if undated != model:
            return table.get(undated) or table.get(f"{undated}-latest")
    if model.startswith(_FREE):
        return Price(input=0.0, output=0.0)
    return table.get(f"{model}-latest")


def cost_of(
    model: str, prompt_tokens: int | None, completion_tokens: int | None, *, batch: bool = False
) -> float | None:
    """USD for one call, or None when the model is unpriced or a token count is unknown."""
    price = price_of(model)
    if price is None or prompt_tokens is None or completion_tokens is None:
        return None
    return price.usd(prompt_tokens, completion_tokens, batch=batch)


def parse_price(text: str, where: str = "--price") -> dict[str, Price]:
    """``[MODEL=]in=X,out=Y`` (USD per million tokens) as ``{model or "*": Price}``."""
    model, _, rates = text.rpartition("=in=") if "=in=" in text else ("", "", text)
    if model:
        rates = "in=" + rates
    fields: dict[str, float] = {}
    for part in rates.split(","):
        name, eq, value = part.strip().partition("=")
        if not eq or name not in ("in", "out") or name in fields:
            raise InputError(
                f"{where}: expected in=X,out=Y (USD per million tokens), "
                f"optionally after MODEL=; got {text!r}"
            )
        try:
            fields[name] = float(value)
        except ValueError:
            raise InputError(f"{where}: {name}={value!r} is not a number") from None
        if not fields[name] >= 0:
            raise InputError(f"{where}: {name} must be 0 or more")
    if set(fields) != {"in", "out"}:
        raise InputError(f"{where}: give both in= and out= (USD per million tokens)")
    return {model or EVERY_MODEL: Price(input=fields["in"], output=fields["out"])}


def parse_prices(value: Any, where: str = "prices") -> dict[str, Price]:
    """A config's ``prices:``: ``{MODEL: {input: X, output: Y}}`` (``in``/``out`` too)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: expected a mapping of <provider>/<model> to {{input, output}}")
    out: dict[str, Price] = {}
    for model, row in value.items():
        if not isinstance(row, Mapping):
            raise InputError(f"{where}.{model}: expected {{input: X, output: Y}}")
        fields = {{"in": "input", "out": "output"}.get(str(k), str(k)): v for k, v in row.items()}
        unknown = sorted(set(fields) - set(Price.model_fields))
        if unknown:
            raise InputError(f"{where}.{model}: unknown field {unknown[0]!r}; use input, output")
        missing = [name for name in ("input", "output") if name not in fields]
        if missing:
            raise InputError(f"{where}.{model}: {missing[0]} is missing (USD per million tokens)")
        for name, number in fields.items():
            if isinstance(number, bool) or not isinstance(number, int | float) or number < 0:
                raise InputError(f"{where}.{model}.{name}: expected a number, 0 or more")
        out[str(model)] = Price(**fields)
    return out
