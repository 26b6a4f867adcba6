"""Local HTTP servers that speak Ollama's, OpenAI's and Anthropic's chat protocols.

They replay recorded answers and inject faults on demand, so model-backed code is tested over
real HTTP with nothing mocked below it. Usage::

    from tests.support.llm_server import Answer, ReplayServer, llm_server  # noqa: F401 (fixture)

    def test_it(llm_server):
        server = llm_server("openai", [Answer('{"verdict": "supported"}', contains=("Claim: Ada",))])
        server.fault("429", retry_after=0.01).fault("cut", match="Claim: Bob")
        spec = server.spec("gpt-4o-mini")          # ModelSpec with base_url pointing here
        ...
        assert server.requests[0].body["response_format"]["type"] == "json_schema"

``ReplayServer.from_cassette(protocol, path_or_dict)`` serves a ReplayClient cassette. Faults are
``429`` (with ``retry_after`` seconds, or ``retry_after_ms``), ``500``, ``401``, ``403``, ``hang``
(no answer for ``seconds``), ``malformed`` (a 200 whose body is cut-off JSON) and ``cut`` (the
connection closed with no answer); and answers a real server gives that cannot be used:
``truncated`` (the answer's first ``text`` characters, stopped at the token cap: ``finish_reason:
length``, ``stop_reason: max_tokens``, ``done_reason: length``), ``refusal`` (OpenAI's
``message.refusal``, Anthropic's ``stop_reason: refusal``; Ollama has none and answers the words),
``empty``, and ``say`` (answer ``text`` instead of the recorded answer: prose, off-schema JSON, a
key echoed back). Each fires ``times`` times on requests containing ``match`` (any request when
None), in the order added. An Anthropic request with a forced tool (``tool_choice``) gets the
answer as that tool's input when it is JSON, as the API does.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

import pytest

from openodke.llm import ModelSpec

__all__ = ["Answer", "Fault", "Received", "ReplayServer", "llm_server"]

Protocol = Literal["ollama", "openai", "anthropic"]
FaultKind = Literal[
    "429", "500", "401", "403", "hang", "malformed", "cut", "truncated", "refusal", "empty", "say"
]
PATHS = {"ollama": "/api/chat", "openai": "/v1/chat/completions", "anthropic": "/v1/messages"}


@dataclass(frozen=True)
class Answer:
    """A recorded raw reply, given to the first request that contains every ``contains`` string."""

    text: str
    contains: tuple[str, ...] = ()
    model: str | None = None
    prompt_tokens: int | None = None  # default: words in the request's messages
    completion_tokens: int | None = None  # default: words in ``text``


@dataclass
class Fault:
    """A failure to inject: ``kind`` on the next ``times`` requests containing ``match``."""

    kind: FaultKind
    match: str | None = None
    times: int = 1
    retry_after: float | None = None
    seconds: float = 5.0
    text: str = ""
    retry_after_ms: float | None = None


@dataclass(frozen=True)
class Received:
    """One request as the server read it (headers lower-cased)."""

    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes


def prompt_of(protocol: str, body: Any) -> str:
    """The request's message contents joined by newlines (Anthropic's ``system`` first)."""
    if not isinstance(body, dict):
        return ""
    parts = [str(body["system"])] if protocol == "anthropic" and "system" in body else []
    parts += [str(m.get("content", "")) for m in body.get("messages", []) if isinstance(m, dict)]
    return "\n".join(parts)


def reply_body(
    protocol: str,
    model: str,
    text: str,
    prompt_tokens: int,
    completion: int,
    *,
    stop: Literal["stop", "length", "refusal"] = "stop",
    tool: str | None = None,
) -> dict:
    """A reply in the protocol's own shape: ``stop`` says why it ended; ``tool`` names the forced
    tool an Anthropic answer calls (its input is ``text`` parsed)."""
    if protocol == "ollama":
        return {
            "model": model,
            "created_at": "2025-06-01T00:00:00Z",
            "message": {"role": "assistant", "content": text},
            "done": True,
            "done_reason": "length" if stop == "length" else "stop",
            "prompt_eval_count": prompt_tokens,
            "eval_count": completion,
        }
    if protocol == "openai":
        return {
            "id": "chatcmpl-local",
            "object": "chat.completion",
            "created": 1748736000,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None if stop == "refusal" else text,
                        "refusal": text if stop == "refusal" else None,
                    },
                    "finish_reason": "length" if stop == "length" else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion,
                "total_tokens": prompt_tokens + completion,
            },
        }
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    reason = {"stop": "end_turn", "length": "max_tokens", "refusal": "refusal"}[stop]
    if tool is not None and stop == "stop":
        try:
            content = [
                {"type": "tool_use", "id": "toolu_local", "name": tool, "input": json.loads(text)}
            ]
            reason = "tool_use"
        except ValueError:
            pass
    return {
        "id": "msg_local",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": reason,
        "usage": {"input_tokens": prompt_tokens, "output_tokens": completion},
    }


class ReplayServer:
    """A threaded local server for one protocol; start it with ``with`` or ``start()``."""

    def __init__(
        self,
        protocol: Protocol,
        answers: Sequence[Answer] | Callable[[str], str] = (),
        *,
        latency: float = 0.0,
        model: str = "local-model",
        usage: bool = True,
        count: Callable[[str], int] | None = None,
    ) -> None:
        self.protocol = protocol
        self.usage = usage  # False: replies carry no token counts, as some servers send
        self.count = count or (lambda text: len(text.split()))  # the usage reported: words
        self.answers = answers
        self.latency = latency
        self.model = model
        self.requests: list[Received] = []
        self.faults: list[Fault] = []
        self.faults_fired: list[str] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def from_cassette(
        cls, protocol: Protocol, cassette: str | Path | dict, **kw: Any
    ) -> ReplayServer:
        """A server replaying a ReplayClient cassette's interactions."""
        data = (
            json.loads(Path(cassette).read_text()) if isinstance(cassette, str | Path) else cassette
        )
        answers = [
            Answer(
                text=row["response"]["text"],
                contains=tuple(row["match"]["contains"]),
                model=row["response"].get("model"),
            )
            for row in data["interactions"]
        ]
        return cls(protocol, answers, **kw)

    # -- set-up ---------------------------------------------------------------------------
    def fault(
        self,
        kind: FaultKind,
        *,
        match: str | None = None,
        times: int = 1,
        retry_after: float | None = None,
        seconds: float = 5.0,
        text: str = "",
        retry_after_ms: float | None = None,
    ) -> ReplayServer:
        """Inject ``kind`` on the next ``times`` requests containing ``match``; returns self."""
        with self._lock:
            self.faults.append(
                Fault(kind, match, times, retry_after, seconds, text, retry_after_ms)
            )
        return self

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``: what a ModelSpec's ``base_url`` should be."""
        assert self._httpd is not None, "start the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def backlog(self) -> int:
        """How many connections the listening socket queues before it accepts them."""
        return _Listener.request_queue_size

    def spec(self, name: str = "local-model", **fields: Any) -> ModelSpec:
        """A ModelSpec for ``<protocol>/<name>`` pointed at this server."""
        return ModelSpec(model=f"{self.protocol}/{name}", base_url=self.base_url, **fields)

    def start(self) -> ReplayServer:
        """Listen on a free port in a daemon thread."""
        handler = type("Handler", (_Handler,), {"replay": self})
        httpd = _Listener(("127.0.0.1", 0), handler)
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening; hanging handlers are released."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- serving --------------------------------------------------------------------------
    def _take_fault(self, prompt: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.times > 0 and (fault.match is None or fault.match in prompt):
                    fault.times -= 1
                    self.faults_fired.append(fault.kind)
                    return fault
        return None

    def _answer(self, prompt: str) -> Answer | None:
        if callable(self.answers):
            return Answer(self.answers(prompt))
        for answer in self.answers:
            if all(part in prompt for part in answer.contains):
                return answer
        return None


class _Listener(ThreadingHTTPServer):
    """A threaded server whose accept queue holds as many connections as a run opens at once.

    socketserver's default backlog is 5: when more workers connect at once than the accept thread
    has taken (it is one thread, slow to be scheduled on a busy machine), the kernel drops the
    extra handshakes and each client waits for its SYN to be sent again (1 s later), past a short
    ``timeout``: the attempt is retried, but this server never saw it (the "lost request" of the
    fault run with 8 workers, decision 222).
    """

    daemon_threads = True
    block_on_close = False  # a hanging handler must not hold up stop()
    request_queue_size = 1024


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; without TCP_NODELAY, Nagle's algorithm and the
    # client's delayed ACK add about 40 ms to every answer on a kept-alive connection.
    disable_nagle_algorithm = True
    replay: ReplayServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        replay = self.replay
        raw = self.rfile.read(int(self.headers.get("content-length", 0)))
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with replay._lock:
            replay.requests.append(
                Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body, raw)
            )
        if self.path != PATHS[replay.protocol]:
            self._send(404, json.dumps({"error": f"no route {self.path}"}).encode())
            return
        prompt = prompt_of(replay.protocol, body)
        fault = replay._take_fault(prompt)
        if fault is not None and self._fail(fault):
            return
        if replay.latency:
            time.sleep(replay.latency)
        answer = replay._answer(prompt)
        if answer is None:
            first = next((line for line in prompt.splitlines() if line.strip()), "")
            self._send(404, json.dumps({"error": f"no recorded answer for: {first}"}).encode())
            return
        text, stop = answer.text, "stop"
        if fault is not None:  # an answer that cannot be used
            if fault.kind == "truncated":
                text, stop = answer.text[: max(len(answer.text) // 2, 1)], "length"
            elif fault.kind == "refusal":
                text = fault.text or "I can't help with that."
                stop = "stop" if replay.protocol == "ollama" else "refusal"
            elif fault.kind == "empty":
                text = ""
            else:
                text = fault.text
        model = answer.model or (body or {}).get("model") or replay.model
        tool = (body or {}).get("tool_choice", {}).get("name") if isinstance(body, dict) else None
        payload = reply_body(
            replay.protocol,
            model,
            text,
            answer.prompt_tokens if answer.prompt_tokens is not None else replay.count(prompt),
            answer.completion_tokens
            if answer.completion_tokens is not None
            else replay.count(text),
            stop=stop,  # type: ignore[arg-type]
            tool=tool,
        )
        if not replay.usage:
            for name in ("usage", "prompt_eval_count", "eval_count"):
                payload.pop(name, None)
        self._send(200, json.dumps(payload).encode())

    def _fail(self, fault: Fault) -> bool:
        """Act out ``fault``; True when the request is finished."""
        if fault.kind in ("truncated", "refusal", "empty", "say"):
            return False  # answered, with what cannot be used
        if fault.kind == "429":
            extra = {} if fault.retry_after is None else {"retry-after": f"{fault.retry_after:g}"}
            if fault.retry_after_ms is not None:
                extra["retry-after-ms"] = f"{fault.retry_after_ms:g}"
            self._send(429, b'{"error": "rate limited"}', extra)
        elif fault.kind in ("401", "403"):
            key = self.headers.get("x-api-key") or self.headers.get("authorization") or ""
            said = {"error": {"message": f"Incorrect API key provided: {key}"}}
            self._send(int(fault.kind), json.dumps(said).encode())
        elif fault.kind == "500":
            self._send(500, b'{"error": "internal error"}')
        elif fault.kind == "malformed":
            self._send(200, b'{"message": {"content": "cut off')
        elif fault.kind in ("hang", "cut"):
            if fault.kind == "hang":
                self.replay._stopping.wait(fault.seconds)
            self.close_connection = True
        return True


@pytest.fixture
def llm_server() -> Iterator[Callable[..., ReplayServer]]:
    """Start replay servers: ``llm_server(protocol, answers, latency=..., model=...)``; all stop at the end."""
    started: list[ReplayServer] = []

    def start(
        protocol: Protocol,
        answers: Sequence[Answer] | Callable[[str], str] = (),
        **kw: Any,
    ) -> ReplayServer:
        server = ReplayServer(protocol, answers, **kw).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
