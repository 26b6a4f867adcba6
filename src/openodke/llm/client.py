"""The live client: one httpx connection pool for every provider, with retries, limits and prices.

Keys are read from the environment at each call, sent only in the request headers, and scrubbed
from any answer and error text (every key variable's value, not only this call's); the client
object holds none.

An answer is checked before it is returned as one: a cut-off (``finish_reason: length``,
``stop_reason: max_tokens``), a refusal, an empty reply, and, when a schema was given, a reply
that is not JSON or does not fit the schema as sent are failures of their kind
(:class:`~openodke.llm.failures.FailureKind`), carrying the text for the re-ask
(:class:`~openodke.llm.reask.ReaskClient`). 401/403 from an endpoint, or a connection refused by
an endpoint that never answered (after one retry), raise ProviderUnavailable at once, and every
later call to that endpoint raises it without a request: the run stops with one clear error.
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from openodke.errors import ModelConfigError, ProviderUnavailable
from openodke.llm.base import LLMResponse, Message, ModelSpec
from openodke.llm.budget import with_usage
from openodke.llm.failures import FailureKind
from openodke.llm.parse import parse_reply
from openodke.llm.plain import PlainHTTP, PlainReply, plain_ok
from openodke.llm.prices import cost_of
from openodke.llm.providers import PROVIDERS, Provider
from openodke.llm.providers.base import ENV_NAME, Reply
from openodke.llm.ratelimit import RateLimiter
from openodke.llm.redact import scrub_text, shown_url
from openodke.llm.retry import RetryPolicy, retry_after_of
from openodke.llm.schema import schema_problem

if TYPE_CHECKING:
    import httpx  # imported at the first call: a run answered from the cache never needs it

__all__ = ["ProviderClient", "check_spec", "endpoint_of"]


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


def endpoint_of(spec: ModelSpec, env: Mapping[str, str] | None = None) -> str | None:
    """Where a request for ``spec`` goes now (config, ``*_BASE_URL``, ``OLLAMA_HOST``, default);
    None for an unknown provider. Part of the cache key."""
    provider = PROVIDERS.get(spec.provider)
    return None if provider is None else provider.url(spec, os.environ if env is None else env)


def _httpx() -> Any:
    """httpx, imported when first needed: a plain ``http://`` call (decision 225) that succeeds
    never loads it; the ``except`` clauses naming its exceptions are evaluated only when a call
    raised (the plain client raises httpx's kinds, importing it then)."""
    import httpx

    return httpx


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


_AUTH_STATUS = (401, 403)
_CHARS_PER_TOKEN = 4
_UNSET_MAX_TOKENS = 1024
_SHOWN_TEXT = 120


def _estimate_tokens(body: Mapping[str, Any], spec: ModelSpec) -> float:
    chars = len(json.dumps(body.get("messages", ""), ensure_ascii=False))
    return math.ceil(chars / _CHARS_PER_TOKEN) + (spec.max_tokens or _UNSET_MAX_TOKENS)


class _Lane:
    """What one call borrows: an httpx client (made when first needed) and plain connections."""

    def __init__(self) -> None:
        self.http: httpx.Client | None = None
        self.plain = PlainHTTP()

    def close(self) -> None:
        if self.http is not None:
            self.http.close()
        self.plain.close()


class _Connections:
    """Connections lent to one call at a time (decision 220).

    One shared ``httpx.Client`` scans every pooled connection on each request (with 64 workers,
    1.3 M calls for 1,000 requests: the CPU that kept 1,000 calls at 50 ms above 2 s on 2
    cores). Here a call borrows an idle lane (the one returned last, whose connections are
    warm) or makes one, and gives it back: as many connections as calls at once, each found in
    O(1). A plain ``http://`` URL with no proxy goes over the standard library's client
    (:mod:`openodke.llm.plain`, decision 225); anything else over httpx, every client sharing
    one TLS context made at the first such call (loading the CA bundle costs ~0.1 s: a run
    answered from the cache never pays it). ``limit`` caps the lanes (the connections): a call
    waits for one to be given back. An injected ``transport`` (tests) always takes httpx.
    """

    def __init__(self, transport: httpx.BaseTransport | None, limit: int | None) -> None:
        self._transport = transport
        self._idle: list[_Lane] = []
        self._made: list[_Lane] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(limit) if limit is not None else None
        self._tls: Any = None

    def _httpx(self, lane: _Lane) -> httpx.Client:
        import httpx

        if lane.http is None:
            with self._lock:  # held while the context is made: once, not once per connection
                if self._tls is None and self._transport is None:
                    self._tls = httpx.create_ssl_context()
            lane.http = httpx.Client(
                transport=self._transport,
                verify=self._tls if self._tls is not None else True,
                follow_redirects=False,
            )
        return lane.http

    def post(
        self, url: str, body: Mapping[str, Any], headers: Mapping[str, str], timeout: float
    ) -> httpx.Response | PlainReply:
        """POST ``body`` as JSON on a borrowed lane; the response is read in full."""
        if self._slots is not None:
            self._slots.acquire()
        try:
            with self._lock:
                lane = self._idle.pop() if self._idle else None
            if lane is None:
                lane = _Lane()
                with self._lock:
                    self._made.append(lane)
            try:
                if self._transport is None and plain_ok(url):
                    return lane.plain.post(url, body, headers, timeout)
                return self._httpx(lane).post(url, json=body, headers=headers, timeout=timeout)
            finally:
                with self._lock:
                    self._idle.append(lane)
        finally:
            if self._slots is not None:
                self._slots.release()

    def close(self) -> None:
        """Close every connection."""
        with self._lock:
            made, self._made, self._idle = self._made, [], []
        for lane in made:
            lane.close()


class ProviderClient:
    """Calls ``ollama/``, ``openai/`` and ``anthropic/`` models over HTTP; thread-safe.

    ``complete`` retries timeouts, connection errors, 429 (honouring Retry-After and
    retry-after-ms in full) and 5xx by ``retry``; any other failure, or the last retry's, is an
    error result with its failure kind. An unknown prefix or a missing key raises
    ModelConfigError (:func:`check_spec` finds those before a run); a refused key or a dead server
    raises ProviderUnavailable (see the module). ``rpm``/``tpm`` limit each model (a ModelSpec's
    own ``rpm``/``tpm`` win); ``max_connections`` None lets the pool grow with the workers.
    """

    cacheable = True

    def __init__(
        self,
        *,
        retry: RetryPolicy | None = None,
        env: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
        max_connections: int | None = None,
        rpm: float | None = None,
        tpm: float | None = None,
    ) -> None:
        self.retry = retry or RetryPolicy()
        self._env = env
        self.rpm = rpm
        self.tpm = tpm
        self._http = _Connections(transport, max_connections)
        self._lock = threading.Lock()
        self._answered: set[str] = set()
        self._dead: dict[str, str] = {}
        self._limiters: dict[str, RateLimiter] = {}
        self._paused: dict[str, float] = {}

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

    def limiter(self, spec: ModelSpec) -> RateLimiter | None:
        """The rate limiter of ``spec``'s model, or None when it has no limit."""
        rpm = spec.rpm if spec.rpm is not None else self.rpm
        tpm = spec.tpm if spec.tpm is not None else self.tpm
        if rpm is None and tpm is None:
            return None
        with self._lock:
            found = self._limiters.get(spec.model)
            if found is None:
                found = self._limiters[spec.model] = RateLimiter(rpm, tpm, sleep=self.retry.sleep)
            return found

    def _scrub(self, text: str, key: str | None) -> str:
        text = text.replace(key, "<redacted>") if key else text
        return scrub_text(text, self.env)

    def _stop(self, url: str, message: str) -> ProviderUnavailable:
        with self._lock:
            self._dead.setdefault(url, message)
        return ProviderUnavailable(message)

    def _wait_pause(self, url: str, waited_until: float) -> None:
        """Wait out a pause another call's 429 set, beyond what this call has waited already."""
        with self._lock:
            until = self._paused.get(url, 0.0)
        wait = until - max(time.monotonic(), waited_until)
        if wait > 0:
            self.retry.sleep(wait)

    def _pause(self, url: str, seconds: float) -> None:
        with self._lock:
            self._paused[url] = max(self._paused.get(url, 0.0), time.monotonic() + seconds)

    def complete(
        self,
        messages: Sequence[Message],
        spec: ModelSpec,
        schema: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """Ask ``spec``'s model; an error result after the retries (see the class)."""
        check_spec(spec, self.env)
        provider = _provider(spec)
        variable = provider.key_variable(spec)
        key = self.env.get(variable) if variable else None
        url = provider.url(spec, self.env)
        where = shown_url(url)
        with self._lock:
            dead = self._dead.get(url)
        if dead is not None:
            raise ProviderUnavailable(dead)
        headers = provider.headers(key)
        body = provider.body(messages, spec, schema, self.env)
        limiter = self.limiter(spec)
        estimate = _estimate_tokens(body, spec)
        started = time.perf_counter()
        failure, kind = "no attempt made", FailureKind.other
        waited_until = 0.0
        for attempt in range(1, self.retry.attempts + 1):
            retry_after: float | None = None
            self._wait_pause(url, waited_until)
            entry = limiter.acquire(estimate) if limiter is not None else None
            try:
                response = self._http.post(url, body, headers, spec.timeout)
            except _httpx().TimeoutException:  # evaluated only when a call raised
                failure, kind = f"timed out after {spec.timeout:g} s", FailureKind.timeout
            except _httpx().ConnectError as error:
                failure = self._scrub(f"cannot connect to {where} ({error})", key)
                kind = FailureKind.unreachable
                with self._lock:
                    never = url not in self._answered
                if never and attempt >= 2:
                    raise self._stop(
                        url,
                        f"{spec.model}: {failure}: is the server running? "
                        f"(stopped after {attempt} attempts; no call to it has answered)",
                    ) from None
            except _httpx().TransportError as error:
                failure = self._scrub(f"connection failed ({type(error).__name__}: {error})", key)
                kind = FailureKind.unreachable
            else:
                status = response.status_code
                if status in _AUTH_STATUS:
                    detail = self._scrub(response.text[:200], key)
                    named = f"the key in {variable}" if variable and key else "no key was sent"
                    raise self._stop(
                        url,
                        f"{spec.model}: HTTP {status} from {where}: the server refuses the "
                        f"request ({named}); no further calls are made. Server said: {detail}",
                    )
                if status == 429 or status >= 500:
                    failure = f"HTTP {status}"
                    kind = FailureKind.rate_limited if status == 429 else FailureKind.http
                    retry_after = retry_after_of(response.headers)
                    if status == 429 and retry_after:
                        self._pause(url, retry_after)
                        failure += f" (retry after {retry_after:g} s)"
                elif status >= 400:
                    detail = self._scrub(response.text[:300], key)
                    return self._error(spec, f"HTTP {status}: {detail}", started, FailureKind.http)
                else:
                    with self._lock:
                        self._answered.add(url)
                    answer = self._answer(provider, spec, schema, response, started, key)
                    answer = with_usage(answer, messages, spec, schema)
                    if entry is not None and limiter is not None:
                        spent = (answer.prompt_tokens or 0) + (answer.completion_tokens or 0)
                        limiter.settle(entry, spent or None)
                    return answer
            if attempt < self.retry.attempts:
                waited_until = time.monotonic() + self.retry.wait(attempt, retry_after)
        return self._error(spec, f"{failure} (after {self.retry.attempts} attempts)", started, kind)

    def _error(
        self, spec: ModelSpec, message: str, started: float, kind: FailureKind
    ) -> LLMResponse:
        return LLMResponse(
            model=spec.model,
            error=message,
            failure=kind.value,
            latency_s=time.perf_counter() - started,
        )

    def _answer(
        self,
        provider: Provider,
        spec: ModelSpec,
        schema: Mapping[str, Any] | None,
        response: httpx.Response | PlainReply,
        started: float,
        key: str | None,
    ) -> LLMResponse:
        try:
            reply = provider.read(response.json())
        except ValueError:
            return self._error(
                spec, "malformed reply: the body is not JSON", started, FailureKind.malformed
            )
        except (KeyError, TypeError, IndexError, AttributeError) as error:
            detail = self._scrub(f"{type(error).__name__}: {error}", key)
            return self._error(spec, f"malformed reply: {detail}", started, FailureKind.malformed)
        model = f"{provider.name}/{reply.model}" if reply.model else spec.model
        cost = cost_of(spec.model, reply.prompt_tokens, reply.completion_tokens)
        if cost is None and model != spec.model:
            cost = cost_of(model, reply.prompt_tokens, reply.completion_tokens)
        text = self._scrub(reply.text, key)
        parsed = parse_reply(text)
        problem = _problem(reply, text, parsed, spec, provider.schema_sent(schema))
        return LLMResponse(
            text=text,
            parsed=parsed if problem is None else None,
            model=model,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            cost_usd=cost,
            latency_s=time.perf_counter() - started,
            error=None if problem is None else problem[1],
            failure=None if problem is None else problem[0].value,
            finish_reason=reply.finish_reason,
        )


def _shown(text: str) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= _SHOWN_TEXT else flat[: _SHOWN_TEXT - 3] + "...")


def _problem(
    reply: Reply,
    text: str,
    parsed: Any,
    spec: ModelSpec,
    schema: Mapping[str, Any] | None,
) -> tuple[FailureKind, str] | None:
    """Why the answer cannot be used, or None."""
    if reply.refusal is not None:
        said = f": {_shown(reply.refusal)}" if reply.refusal.strip() else ""
        return FailureKind.refused, f"refused{said}"
    if reply.cut_off:
        cap = spec.max_tokens if spec.max_tokens is not None else "the server's default"
        spent = f" after {reply.completion_tokens} tokens" if reply.completion_tokens else ""
        return (
            FailureKind.cut_off,
            f"cut off at max_tokens ({cap}){spent}: raise max_tokens for this role",
        )
    if not text.strip():
        return FailureKind.empty, "empty answer"
    if schema is None:
        return None
    if parsed is None:
        return FailureKind.off_schema, f"off schema: not JSON: {_shown(text)}"
    problem = schema_problem(parsed, schema)
    if problem is not None:
        return FailureKind.off_schema, f"off schema: {problem}"
    return None
