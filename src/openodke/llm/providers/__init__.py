"""The providers a model string can name, and what ``odke models`` shows about them."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from openodke.llm.prices import price_table
from openodke.llm.providers.anthropic import Anthropic
from openodke.llm.providers.base import Provider, Reply
from openodke.llm.providers.ollama import Ollama
from openodke.llm.providers.openai import OpenAI

__all__ = [
    "Anthropic",
    "Ollama",
    "OpenAI",
    "PROVIDERS",
    "PricedModel",
    "Provider",
    "ProviderInfo",
    "Reply",
    "describe_providers",
    "priced_models",
]

PROVIDERS: dict[str, Provider] = {p.name: p for p in (Anthropic(), Ollama(), OpenAI())}
"""Every provider by its model-string prefix."""


class ProviderInfo(BaseModel):
    """One provider as ``odke models`` lists it: its variables, set or not (never their values)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prefix: str = Field(description="The model-string prefix, as in `ollama/qwen2.5:7b`.")
    endpoint: str = Field(description="Where requests go now.")
    endpoint_env: str | None = Field(description="The variable that moves the endpoint.")
    endpoint_env_set: bool = Field(description="Whether that variable is set.")
    key_env: str | None = Field(description="The variable the key is read from.")
    key_env_set: bool = Field(
        description="Whether that variable is set (its value is never shown)."
    )
    key_required: bool = Field(description="Whether a call at the current endpoint needs a key.")


class PricedModel(BaseModel):
    """One row of the price table."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(description="`<provider>/<model>`.")
    input: float = Field(description="USD per million input tokens.")
    output: float = Field(description="USD per million output tokens.")


_USERINFO = re.compile(r"//[^/@]*@")
"""Credentials written into a URL (``https://user:pass@host``), never shown."""


def describe_providers(env: Mapping[str, str] | None = None) -> list[ProviderInfo]:
    """Every provider with its endpoint and variables, by prefix."""
    from openodke.llm.base import ModelSpec

    env = os.environ if env is None else env
    rows = []
    for prefix, provider in sorted(PROVIDERS.items()):
        spec = ModelSpec(model=f"{prefix}/any")
        rows.append(
            ProviderInfo(
                prefix=prefix,
                endpoint=_USERINFO.sub("//", provider.url(spec, env)),
                endpoint_env=provider.base_env,
                endpoint_env_set=bool(provider.base_env and env.get(provider.base_env)),
                key_env=provider.key_env,
                key_env_set=bool(provider.key_env and env.get(provider.key_env)),
                key_required=provider.key_required(spec, env),
            )
        )
    return rows


def priced_models() -> list[PricedModel]:
    """Every priced model, sorted by model string."""
    return [
        PricedModel(model=model, input=price.input, output=price.output)
        for model, price in price_table().items()
    ]
