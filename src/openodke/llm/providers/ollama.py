"""Ollama's chat API: ``POST {OLLAMA_HOST}/api/chat`` with ``stream: false``; the schema goes in ``format``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from openodke.llm.base import Message, ModelSpec
from openodke.llm.providers.base import Provider, Reply, merge_extra, plain_messages, tokens

__all__ = ["Ollama"]


class Ollama(Provider):
    """``ollama/<model>``: no key (``api_key_env`` sends one as a bearer token, for a proxy)."""

    name = "ollama"
    key_env = None
    base_env = "OLLAMA_HOST"
    default_base = "http://localhost:11434"

    def base(self, spec: ModelSpec, env: Mapping[str, str]) -> str:
        """The host: OLLAMA_HOST may omit the scheme (``127.0.0.1:11434``) or the port too."""
        base = super().base(spec, env)
        if "://" not in base:
            base = "http://" + base
            if ":" not in base.removeprefix("http://"):
                base += ":11434"
        return base

    def url(self, spec: ModelSpec, env: Mapping[str, str]) -> str:
        """``{host}/api/chat``."""
        return self.base(spec, env) + "/api/chat"

    def key_required(self, spec: ModelSpec, env: Mapping[str, str]) -> bool:
        """Only when ``api_key_env`` names a variable."""
        return spec.api_key_env is not None

    def headers(self, key: str | None) -> dict[str, str]:
        """JSON, and a bearer token when a key was configured."""
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
        """Temperature and ``num_predict`` go in ``options``; an ``extra`` ``options`` merges in."""
        body: dict[str, Any] = {
            "model": spec.name,
            "messages": plain_messages(messages),
            "stream": False,
        }
        if schema is not None:
            body["format"] = dict(schema)
        options: dict[str, Any] = {}
        if spec.temperature is not None:
            options["temperature"] = spec.temperature
        if spec.max_tokens is not None:
            options["num_predict"] = spec.max_tokens
        extra = dict(spec.extra)
        if isinstance(extra.get("options"), Mapping):
            options.update(extra.pop("options"))
        if options:
            body["options"] = options
        return merge_extra(body, extra)

    def read(self, payload: Any) -> Reply:
        """``message.content``; ``done_reason`` (``length`` is a cut-off); tokens from
        ``prompt_eval_count`` and ``eval_count``."""
        done = payload.get("done_reason")
        return Reply(
            text=str(payload["message"]["content"] or ""),
            model=payload.get("model"),
            prompt_tokens=tokens(payload.get("prompt_eval_count")),
            completion_tokens=tokens(payload.get("eval_count")),
            finish_reason=done if isinstance(done, str) else None,
            cut_off=done == "length",
        )
