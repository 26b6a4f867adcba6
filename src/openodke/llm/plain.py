"""Plain HTTP/1.1 for a local server: the standard library's client, with httpx's error kinds.

A model server on ``http://`` (Ollama, vLLM, SGLang, a replay server) is the case where the
client's own CPU is the limit: 1,000 calls at 50 ms on 64 workers spent ~0.55 ms of CPU a call
in httpx (request and URL models, cookies, h11) against ~0.15 ms here (DECISIONS #225). Only
``http://`` URLs with no proxy variable set come here; ``https://`` (TLS) and proxied requests
keep httpx. A failure is raised as the httpx exception of its kind, so the caller reads it the
same: ``ConnectError``, ``ConnectTimeout``, ``ReadTimeout``, ``WriteTimeout``,
``RemoteProtocolError``, ``ReadError``, ``WriteError``.

One object holds one kept-alive connection per host and is used by one call at a time. A
connection that became readable while idle (the server closed it) is dropped before it is
reused, as httpcore does, so a request is never written onto a closed connection.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import socket
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

__all__ = ["PlainHTTP", "PlainReply", "plain_ok"]

_PROXY_VARIABLES = ("http_proxy", "all_proxy")


def plain_ok(url: str, env: Mapping[str, str] = os.environ) -> bool:
    """Whether ``url`` goes over plain HTTP with no proxy (what :class:`PlainHTTP` serves)."""
    if not url.startswith("http://"):
        return False
    return not any(env.get(name) or env.get(name.upper()) for name in _PROXY_VARIABLES)


class PlainReply:
    """What the caller reads of a response: ``status_code``, ``headers``, ``text``, ``json()``."""

    def __init__(self, status: int, headers: http.client.HTTPMessage, content: bytes) -> None:
        self.status_code = status
        self.headers = headers  # case-insensitive ``get``
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode(self.headers.get_content_charset() or "utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.content)


def _idle_closed(sock: socket.socket) -> bool:
    """True when an idle connection has something to read: the server closed it (or sent what
    was never asked for); either way it cannot carry a request."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class PlainHTTP:
    """Kept-alive connections by host; one call at a time (see the module)."""

    def __init__(self) -> None:
        self._connections: dict[tuple[str, int], http.client.HTTPConnection] = {}

    def close(self) -> None:
        """Close every connection."""
        for connection in self._connections.values():
            connection.close()
        self._connections.clear()

    def _connection(self, host: str, port: int, timeout: float) -> http.client.HTTPConnection:
        connection = self._connections.get((host, port))
        if connection is not None and (connection.sock is None or _idle_closed(connection.sock)):
            connection.close()
            connection = None
        if connection is None:
            connection = http.client.HTTPConnection(host, port, timeout=timeout)
            try:
                connection.connect()
            except OSError as error:
                import httpx  # only for a failure: a run that never fails never loads it

                if isinstance(error, TimeoutError):
                    raise httpx.ConnectTimeout(str(error) or "timed out") from None
                raise httpx.ConnectError(str(error)) from None
            connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._connections[(host, port)] = connection
        else:
            connection.timeout = timeout
            connection.sock.settimeout(timeout)
        return connection

    def post(
        self, url: str, body: Mapping[str, Any], headers: Mapping[str, str], timeout: float
    ) -> PlainReply:
        """POST ``body`` as JSON (encoded as httpx encodes it) and read the whole reply."""
        parts = urlsplit(url)
        host, port = parts.hostname or "localhost", parts.port or 80
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        sent = {"Content-Type": "application/json", "Accept": "*/*", **headers}
        connection = self._connection(host, port, timeout)
        written = False
        try:
            connection.request("POST", path, body=data.encode("utf-8"), headers=sent)
            written = True
            response = connection.getresponse()
            content = response.read()
        except (OSError, http.client.HTTPException) as error:
            self._drop(host, port)
            raise _transport_error(error, written) from None
        if response.will_close:
            self._drop(host, port)
        return PlainReply(response.status, response.headers, content)

    def _drop(self, host: str, port: int) -> None:
        connection = self._connections.pop((host, port), None)
        if connection is not None:
            connection.close()


def _transport_error(error: BaseException, written: bool) -> Exception:
    """The httpx exception of ``error``'s kind (httpx is imported only when a call fails)."""
    import httpx

    message = str(error) or type(error).__name__
    if isinstance(error, TimeoutError):
        return (httpx.ReadTimeout if written else httpx.WriteTimeout)(message)
    if isinstance(error, http.client.RemoteDisconnected):  # in httpx's words
        return httpx.RemoteProtocolError("Server disconnected without sending a response.")
    if isinstance(error, http.client.BadStatusLine):
        return httpx.RemoteProtocolError(message)
    return (httpx.ReadError if written else httpx.WriteError)(message)
