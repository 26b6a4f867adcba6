"""The live client: one httpx connection pool for every provider, with retries and prices.

Keys are read from the environment at each call, sent only in the request headers, and scrubbed
from any error text; the client object holds none.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from openodke.errors import ModelConfigError
from openodke.llm.base import LLMResponse, Message, ModelSpec
from openodke.llm.budget import with_usage
from openodke.llm.parse import parse_reply
from openodke.llm.prices import cost_of
from openodke.llm.providers import PROVIDERS, Provider
from openodke.llm.providers.base import ENV_NAME
from openodke.llm.retry import RetryPolicy, parse_retry_after

__all__ = ["ProviderClient", "check_spec"]

_RETRYABLE_STATUS = 429


def _provider(spec: ModelSpec) -> Provider:
    provider = PROVIDERS.get(spec.provider)
    if provider is None:
        known = ", ".join(sorted(PROVIDERS))
        what = f"unknown provider {spec.provider!r}" if spec.provider else "no provider prefix"
        raise ModelConfigError(
            f"model {spec.model!r}: {what}; write <provider>/<model> with one of: {known} "
            "(or pass --model-provider)"
        )
    return provider


def check_spec(spec: ModelSpec, env: Mapping[str, str] | None = None) -> None:
    """Raise ModelConfigError (exit 2) for an unknown prefix or a missing key; makes no call."""
    env = os.environ if env is None else env
    provider = _provider(spec)
    if spec.api_key_env is not None and not ENV_NAME.match(spec.api_key_env):
        raise ModelConfigError(
            f"model {spec.model!r}: api_key_env must be the NAME of an environment variable "
            "(what it holds is not shown)"
        )
    variable = provider.key_variable(spec)
    if provider.key_required(spec, env) and not (variable and env.get(variable)):
        raise ModelConfigError(
            f"model {spec.model!r}: the key variable {variable} is not set; "
            f"export {variable}=... (keys are read from the environment only)"
        )


def _scrub(text: str, key: str | None) -> str:
    return text.replace(key, "***") if key else text


class ProviderClient:
    """Calls ``ollama/``, ``openai/`` and ``anthropic/`` models over HTTP; thread-safe.

    ``complete`` retries timeouts, connection errors, 429 (honouring Retry-After) and 5xx by
    ``retry``; any other failure, or the last retry's, is an error result. Only an unknown prefix
    or a missing key raises (ModelConfigError), and :func:`check_spec` finds those before a run.
    """

    cacheable = True

    def __init__(
        self,
        *,
        retry: RetryPolicy | None = None,
        env: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
        max_connections: int = 32,
    ) -> None:
        self.retry = retry or RetryPolicy()
        self._env = env
        limits = httpx.Limits(
            max_connections=max_connections, max_keepalive_connections=max_connections
        )
        self._http = httpx.Client(transport=transport, limits=limits, follow_redirects=False)

    def __repr__(self) -> str:
        return f"ProviderClient(attempts={self.retry.attempts})"

    @property
    def env(self) -> Mapping[str, str]:
        """Where keys and endpoints are read: the process environment unless one was given."""
        return os.environ if self._env is None else self._env

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> ProviderClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """Ask ``spec``'s model; an error result after the retries, never an exception."""
        check_spec(spec, self.env)
        provider = _provider(spec)
        variable = provider.key_variable(spec)
        key = self.env.get(variable) if variable else None
        url = provider.url(spec, self.env)
        headers = provider.headers(key)
        body = provider.body(messages, spec, schema, self.env)
        started = time.perf_counter()
        failure = "no attempt made"
        for attempt in range(1, self.retry.attempts + 1):
            retry_after: float | None = None
            try:
                response = self._http.post(url, json=body, headers=headers, timeout=spec.timeout)
            except httpx.TimeoutException:
                failure = f"timed out after {spec.timeout:g} s"
            except httpx.TransportError as error:
                failure = _scrub(f"connection failed ({type(error).__name__}: {error})", key)
            else:
                status = response.status_code
                if status == _RETRYABLE_STATUS or status >= 500:
                    failure = f"HTTP {status}"
                    retry_after = parse_retry_after(response.headers.get("retry-after"))
                elif status >= 400:
                    detail = _scrub(response.text[:300], key)
                    return self._error(spec, f"HTTP {status}: {detail}", started)
                else:
                    answer = self._answer(provider, spec, response, started, key)
                    return with_usage(answer, messages, spec, schema)
            if attempt < self.retry.attempts:
                self.retry.wait(attempt, retry_after)
        return self._error(spec, f"{failure} (after {self.retry.attempts} attempts)", started)

    def _error(self, spec: ModelSpec, message: str, started: float) -> LLMResponse:
        return LLMResponse(model=spec.model, error=message, latency_s=time.perf_counter() - started)

    def _answer(
        self,
        provider: Provider,
        spec: ModelSpec,
        response: httpx.Response,
        started: float,
        key: str | None,
    ) -> LLMResponse:
        try:
            reply = provider.read(response.json())
        except ValueError:
            return self._error(spec, "malformed reply: the body is not JSON", started)
        except (KeyError, TypeError, IndexError, AttributeError) as error:
            detail = _scrub(f"{type(error).__name__}: {error}", key)
            return self._error(spec, f"malformed reply: {detail}", started)
        model = f"{provider.name}/{reply.model}" if reply.model else spec.model
        cost = cost_of(spec.model, reply.prompt_tokens, reply.completion_tokens)
        if cost is None and model != spec.model:
            cost = cost_of(model, reply.prompt_tokens, reply.completion_tokens)
        return LLMResponse(
            text=reply.text,
            parsed=parse_reply(reply.text),
            model=model,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            cost_usd=cost,
            latency_s=time.perf_counter() - started,
        )
