"""OpenAI chat completions, and every server that speaks them (vLLM, llama.cpp server, LM Studio).

``POST {base}/chat/completions``; the schema goes in ``response_format`` as ``json_schema`` with
``strict: true`` when it can be made strict-valid (:func:`openodke.llm.schema.strict_schema`).
A base URL with a path is used as written (Gemini's ``.../v1beta/openai``); only a bare host
(``http://localhost:8000``) gets ``/v1``. ``finish_reason: length`` is a cut-off, and a
``refusal`` (or ``finish_reason: content_filter``) a refusal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from openodke.llm.base import Message, ModelSpec
from openodke.llm.providers.base import Provider, Reply, merge_extra, plain_messages, tokens
from openodke.llm.schema import strict_schema

__all__ = ["OpenAI"]

OPENAI_BASE = "https://api.openai.com/v1"


class OpenAI(Provider):
    """``openai/<model>``: base ``base_url``, else OPENAI_BASE_URL, else OpenAI's."""

    name = "openai"
    key_env = "OPENAI_API_KEY"
    base_env = "OPENAI_BASE_URL"
    default_base = OPENAI_BASE

    def base(self, spec: ModelSpec, env: Mapping[str, str]) -> str:
        """The base as written; a bare host (no path: ``http://localhost:8000``) gets ``/v1``."""
        base = super().base(spec, env)
        return base + "/v1" if urlsplit(base).path in ("", "/") else base

    def schema_sent(self, schema: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """The strict-valid rewrite when there is one, else the schema as given."""
        if schema is None:
            return None
        return strict_schema(schema) or schema

    def url(self, spec: ModelSpec, env: Mapping[str, str]) -> str:
        """``{base}/chat/completions``."""
        return self.base(spec, env) + "/chat/completions"

    def key_required(self, spec: ModelSpec, env: Mapping[str, str]) -> bool:
        """OpenAI's own endpoint needs one, and so does a named ``api_key_env``; a local server not."""
        return spec.api_key_env is not None or self.base(spec, env) == OPENAI_BASE

    def headers(self, key: str | None) -> dict[str, str]:
        """JSON, and ``Authorization: Bearer`` when there is a key."""
        headers = {"content-type": "application/json"}
        if key:
            headers["authorization"] = f"Bearer {key}"
        return headers

    def body(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None,
        env: Mapping[str, str],
    ) -> dict[str, Any]:
        """Model, messages, temperature and the token cap when set, ``response_format``, extra.

        OpenAI's own endpoint gets ``max_completion_tokens`` (its reasoning models refuse
        ``max_tokens``); compatible servers get ``max_tokens``, which all of them read.
        """
        body: dict[str, Any] = {"model": spec.name, "messages": plain_messages(messages)}
        if spec.temperature is not None:
            body["temperature"] = spec.temperature
        if spec.max_tokens is not None:
            own = self.base(spec, env) == OPENAI_BASE
            body["max_completion_tokens" if own else "max_tokens"] = spec.max_tokens
        if schema is not None:
            strict = strict_schema(schema)
            format_: dict[str, Any] = {"name": "reply", "schema": strict or dict(schema)}
            if strict is not None:
                format_["strict"] = True
            body["response_format"] = {"type": "json_schema", "json_schema": format_}
        return merge_extra(body, spec.extra)

    def read(self, payload: Any) -> Reply:
        """``choices[0].message.content``, its ``refusal`` and ``finish_reason``; tokens from ``usage``."""
        usage = payload.get("usage") or {}
        choice = payload["choices"][0]
        message = choice["message"]
        finish = choice.get("finish_reason")
        refusal = message.get("refusal")
        if refusal is None and finish == "content_filter":
            refusal = ""
        return Reply(
            text=str(message.get("content") or ""),
            model=payload.get("model"),
            prompt_tokens=tokens(usage.get("prompt_tokens")),
            completion_tokens=tokens(usage.get("completion_tokens")),
            finish_reason=finish if isinstance(finish, str) else None,
            cut_off=finish == "length",
            refusal=None if refusal is None else str(refusal),
        )
