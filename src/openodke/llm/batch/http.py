"""The HTTP of a batch engine: GETs retried where that is safe, POSTs only when nothing was sent.

A 401/403 is ProviderUnavailable (the key is refused; exit 1); a server that cannot be reached
after the retries is ProviderUnavailable too; a 404 on a batch is :class:`BatchMissing`; any other
4xx, or a 5xx after the retries, is ProviderError. Every message is scrubbed of keys.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from openodke.errors import ProviderError, ProviderUnavailable
from openodke.llm.redact import scrub_text, shown_url
from openodke.llm.retry import retry_after_of

__all__ = ["BatchHttp", "BatchMissing", "SentUnanswered"]

_ATTEMPTS = 4
_TIMEOUT = 60.0


class BatchMissing(ProviderError):
    """The server does not know the batch (404): it was deleted, or the state names another server."""


class SentUnanswered(ProviderError):
    """A POST was sent and its answer never came (the connection broke): the server may have
    acted on it, so a batch create that ends so keeps its intent for the next run to look up."""


class BatchHttp:
    """One connection pool for a batch engine's requests."""

    def __init__(
        self,
        env: Mapping[str, str],
        *,
        backoff: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.env = env
        self.backoff = backoff
        self.sleep = sleep
        self._http = httpx.Client(transport=transport, follow_redirects=False, timeout=_TIMEOUT)

    def close(self) -> None:
        """Close the pool."""
        self._http.close()

    def _said(self, response: httpx.Response) -> str:
        return scrub_text(" ".join(response.text[:300].split()), self.env)

    def _check(self, response: httpx.Response, what: str, url: str) -> httpx.Response:
        status = response.status_code
        if status in (401, 403):
            raise ProviderUnavailable(
                f"{what}: HTTP {status} from {shown_url(url)}: the server refuses the key; "
                f"nothing was submitted or collected. Server said: {self._said(response)}"
            )
        if status == 404:
            raise BatchMissing(f"{what}: HTTP 404 from {shown_url(url)}: {self._said(response)}")
        if status >= 400:
            raise ProviderError(
                f"{what}: HTTP {status} from {shown_url(url)}: {self._said(response)}"
            )
        return response

    def get(self, url: str, headers: Mapping[str, str], what: str) -> httpx.Response:
        """GET ``url``, retrying connection errors, timeouts, 429 and 5xx (a GET is safe)."""
        failure = ""
        for attempt in range(1, _ATTEMPTS + 1):
            wait = self.backoff * 2 ** (attempt - 1)
            try:
                response = self._http.get(url, headers=dict(headers))
            except httpx.TransportError as error:
                failure = scrub_text(f"{type(error).__name__}: {error}", self.env)
            else:
                if response.status_code != 429 and response.status_code < 500:
                    return self._check(response, what, url)
                failure = f"HTTP {response.status_code}"
                wait = max(wait, retry_after_of(response.headers) or 0.0)
            if attempt < _ATTEMPTS:
                self.sleep(wait)
        raise ProviderUnavailable(
            f"{what}: {shown_url(url)} did not answer ({failure}) after {_ATTEMPTS} attempts; "
            "the batch is left on the provider: rerun the same command to collect it"
        )

    def post(self, url: str, headers: Mapping[str, str], what: str, **send: Any) -> Any:
        """POST and read the JSON reply; retried only when the connection was never made."""
        for attempt in (1, 2):
            try:
                response = self._http.post(url, headers=dict(headers), **send)
            except httpx.ConnectError as error:
                if attempt == 2:
                    raise ProviderUnavailable(
                        f"{what}: cannot connect to {shown_url(url)} "
                        f"({scrub_text(str(error), self.env)}): is the server running? "
                        "Nothing was submitted."
                    ) from None
                self.sleep(self.backoff)
                continue
            except httpx.TransportError as error:
                raise SentUnanswered(
                    f"{what}: the connection to {shown_url(url)} failed "
                    f"({scrub_text(f'{type(error).__name__}: {error}', self.env)})"
                ) from None
            return _json(self._check(response, what, url), what, url)
        raise AssertionError("unreachable")  # pragma: no cover

    def get_json(self, url: str, headers: Mapping[str, str], what: str) -> Any:
        """GET and read the JSON reply."""
        return _json(self.get(url, headers, what), what, url)


def _json(response: httpx.Response, what: str, url: str) -> Any:
    try:
        return response.json()
    except ValueError:
        raise ProviderError(
            f"{what}: {shown_url(url)} answered something that is not JSON"
        ) from None
