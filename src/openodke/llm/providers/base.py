"""What a provider adapter knows: its endpoint, its key, its request body and where its reply lies.

Adapters hold no state and no key: the client reads the key from the environment at each call
and hands it to :meth:`Provider.headers`, which is the only place a key goes.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openodke.llm.base import Message, ModelSpec

__all__ = ["ENV_NAME", "Provider", "Reply", "plain_messages"]

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
"""What an environment variable's name looks like (``api_key_env`` must be one)."""


@dataclass(frozen=True)
class Reply:
    """The parts of a provider's answer the client keeps."""

    text: str
    model: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None = None
    """Why the model stopped, in the provider's words (``stop``, ``length``, ``max_tokens``...)."""
    cut_off: bool = False
    """The answer stopped at the token cap (``length``, ``max_tokens``)."""
    refusal: str | None = None
    """The model declined: its refusal text ('' when it gave none); None when it did not."""


def plain_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Only ``role`` and ``content`` of each message: the ``prompt`` id is never sent."""
    return [{"role": message["role"], "content": message["content"]} for message in messages]


def schema_text(schema: Mapping[str, Any]) -> str:
    """The schema as compact JSON with sorted keys, for a prompt."""
    return json.dumps(schema, sort_keys=True, ensure_ascii=False)


def merge_extra(body: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``body`` with the spec's ``extra`` fields added; an ``extra`` field wins."""
    body.update(extra)
    return body


def tokens(value: Any) -> int | None:
    """A token count as an int, or None when the provider gave none."""
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


class Provider(ABC):
    """One protocol: ``ollama``, ``openai`` or ``anthropic``."""

    name: str
    """The model-string prefix."""
    key_env: str | None
    """The environment variable read for the key when ``api_key_env`` is unset."""
    base_env: str | None
    """The environment variable that moves the endpoint, if any."""
    default_base: str
    """The endpoint's base when nothing moves it."""

    def base(self, spec: ModelSpec, env: Mapping[str, str]) -> str:
        """The base URL: ``base_url``, else the base variable, else the default; no trailing slash."""
        base = spec.base_url or (env.get(self.base_env) if self.base_env else None)
        return (base or self.default_base).rstrip("/")

    def schema_sent(self, schema: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """The schema as this protocol sends it, which is what an answer is checked against."""
        return schema

    @abstractmethod
    def url(self, spec: ModelSpec, env: Mapping[str, str]) -> str:
        """The URL a request for ``spec`` is posted to."""

    def key_variable(self, spec: ModelSpec) -> str | None:
        """The variable the key is read from, or None when this provider sends none."""
        return spec.api_key_env or self.key_env

    @abstractmethod
    def key_required(self, spec: ModelSpec, env: Mapping[str, str]) -> bool:
        """Whether a call for ``spec`` cannot go without a key."""

    @abstractmethod
    def headers(self, key: str | None) -> dict[str, str]:
        """The request headers, with the key where this protocol wants it."""

    @abstractmethod
    def body(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None,
        env: Mapping[str, str],
    ) -> dict[str, Any]:
        """The JSON request body."""

    @abstractmethod
    def read(self, payload: Any) -> Reply:
        """The reply's text, model and tokens; raises KeyError, TypeError or IndexError if malformed."""
