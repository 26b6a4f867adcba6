"""Anthropic messages: ``POST https://api.anthropic.com/v1/messages``, ``anthropic-version: 2023-06-01``.

The base moves with ``base_url`` or ANTHROPIC_BASE_URL. A schema whose top is an object is asked
for through tool use: one tool, ``reply``, whose ``input_schema`` is the schema, forced by
``tool_choice``; the tool call's input is the answer. Any other schema goes in the system
prompt. ``stop_reason: max_tokens`` is a cut-off and ``stop_reason: refusal`` a refusal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from openodke.llm.base import Message, ModelSpec
from openodke.llm.providers.base import Provider, Reply, merge_extra, schema_text, tokens

__all__ = ["ANTHROPIC_VERSION", "Anthropic", "SCHEMA_INSTRUCTION", "TOOL_NAME"]

ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 1024
TOOL_NAME = "reply"
SCHEMA_INSTRUCTION = (
    "Reply with one JSON object, and nothing else, that conforms to this JSON schema:\n"
)


class Anthropic(Provider):
    """``anthropic/<model>``: key ANTHROPIC_API_KEY (or ``api_key_env``), always required."""

    name = "anthropic"
    key_env = "ANTHROPIC_API_KEY"
    base_env = "ANTHROPIC_BASE_URL"
    default_base = "https://api.anthropic.com"

    def url(self, spec: ModelSpec, env: Mapping[str, str]) -> str:
        """``{base}/v1/messages``; a ``base_url`` ending in ``/v1`` or ``/v1/messages`` is kept."""
        base = self.base(spec, env)
        if base.endswith("/v1/messages"):
            return base
        return base + ("/messages" if base.endswith("/v1") else "/v1/messages")

    def key_required(self, spec: ModelSpec, env: Mapping[str, str]) -> bool:
        """Always."""
        return True

    def headers(self, key: str | None) -> dict[str, str]:
        """``x-api-key`` and ``anthropic-version``."""
        headers = {"content-type": "application/json", "anthropic-version": ANTHROPIC_VERSION}
        if key:
            headers["x-api-key"] = key
        return headers

    def body(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None,
        env: Mapping[str, str],
    ) -> dict[str, Any]:
        """System messages move to ``system``; an object schema becomes the forced ``reply`` tool
        (another goes after the system messages); ``max_tokens`` is required (1024)."""
        system = [str(m["content"]) for m in messages if m["role"] == "system"]
        tool = schema is not None and schema.get("type") == "object"
        if schema is not None and not tool:
            system.append(SCHEMA_INSTRUCTION + schema_text(schema))
        body: dict[str, Any] = {
            "model": spec.name,
            "max_tokens": spec.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": [
                {"role": m["role"], "content": m["content"]}
                for m in messages
                if m["role"] != "system"
            ],
        }
        if system:
            body["system"] = "\n\n".join(system)
        if spec.temperature is not None:
            body["temperature"] = spec.temperature
        if tool and schema is not None:
            body["tools"] = [
                {
                    "name": TOOL_NAME,
                    "description": "Give your answer as this tool's input.",
                    "input_schema": dict(schema),
                }
            ]
            body["tool_choice"] = {"type": "tool", "name": TOOL_NAME}
        return merge_extra(body, spec.extra)

    def read(self, payload: Any) -> Reply:
        """The ``reply`` tool call's input as JSON text, else the text blocks of ``content``
        joined; ``stop_reason``; tokens from ``usage``."""
        blocks = payload["content"]
        usage = payload.get("usage") or {}
        stop = payload.get("stop_reason")
        calls = [b for b in blocks if b.get("type") == "tool_use" and b.get("name") == TOOL_NAME]
        words = "".join(b["text"] for b in blocks if b.get("type") == "text")
        text = json.dumps(calls[0]["input"], ensure_ascii=False) if calls else words
        return Reply(
            text=text,
            model=payload.get("model"),
            prompt_tokens=tokens(usage.get("input_tokens")),
            completion_tokens=tokens(usage.get("output_tokens")),
            finish_reason=stop if isinstance(stop, str) else None,
            cut_off=stop == "max_tokens",
            refusal=words if stop == "refusal" else None,
        )
