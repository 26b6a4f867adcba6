"""A local server that speaks OpenAI's Batch API and Anthropic's Message Batches.

Each batch is answered request by request from recorded answers, in the protocol's own reply
shape (``tests.support.llm_server.reply_body``), after ``polls`` status reads. Usage::

    server = batch_server("openai", [Answer('{"verdict": "supported"}')], polls=2)
    server.item_fault("errored", match="Claim: Bob")   # one request's result
    server.batch_fault = "failed"                       # the whole batch
    spec = server.spec("gpt-4o-mini")
    ...
    assert len(server.submissions) == 1

Item faults: ``errored``, ``expired``, ``canceled`` (the request has no answer), ``truncated``,
``refusal``, ``empty``, ``say`` (``text`` instead of the answer). Batch faults: ``failed``
(OpenAI ``status: failed``), ``expired`` (OpenAI ``status: expired`` with no output), ``401`` on
every request, ``missing`` (404 on the batch), ``never`` (it never ends). ``requests`` lists every
HTTP request (path, headers, body) as received.

Both lists of batches are served, newest first, a page at a time (``list_page`` long): OpenAI's
``GET /v1/batches?limit&after`` (each batch with the ``metadata`` it was created with, and
``created_at`` in seconds) and Anthropic's ``GET /v1/messages/batches?limit&after_id``
(``created_at`` in RFC 3339); ``lists = False`` answers them 404. ``hold_create`` makes a create wait for ``release`` after the batch
is made (a client killed while it waits leaves a batch it never heard of); ``created`` is set
when a create has arrived.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from openodke.llm import ModelSpec
from tests.support.llm_server import Answer, prompt_of, reply_body

__all__ = ["BatchServer", "batch_server"]


@dataclass
class ItemFault:
    kind: str
    match: str | None = None
    times: int = 1
    text: str = ""


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes


@dataclass
class Batch:
    id: str
    requests: list[dict[str, Any]]
    reads: int = 0
    results: list[dict[str, Any]] = field(default_factory=list)
    metadata: dict[str, str] | None = None
    created_at: float = field(default_factory=time.time)


def _multipart(raw: bytes, content_type: str) -> dict[str, bytes]:
    """The parts of a multipart/form-data body by field name."""
    boundary = content_type.split("boundary=", 1)[1].strip().strip('"').encode()
    parts: dict[str, bytes] = {}
    for chunk in raw.split(b"--" + boundary):
        if b"\r\n\r\n" not in chunk:
            continue
        head, body = chunk.split(b"\r\n\r\n", 1)
        name = head.split(b'name="', 1)[1].split(b'"', 1)[0].decode()
        parts[name] = body[:-2] if body.endswith(b"\r\n") else body
    return parts


class BatchServer:
    """One protocol's batch endpoints on a local port."""

    def __init__(
        self,
        protocol: str,
        answers: Sequence[Answer] | Callable[[str], str] = (),
        *,
        polls: int = 1,
    ) -> None:
        self.protocol = protocol
        self.answers = answers
        self.polls = polls
        self.requests: list[Seen] = []
        self.batches: dict[str, Batch] = {}
        self.files: dict[str, bytes] = {}
        self.item_faults: list[ItemFault] = []
        self.batch_fault: str | None = None
        self.list_page = 2
        self.lists = True
        self.hold_create = False
        self.created = threading.Event()
        self.release = threading.Event()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def submissions(self) -> list[Batch]:
        """The batches created, in order."""
        return list(self.batches.values())

    @property
    def base_url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def spec(self, name: str = "local-model", **fields: Any) -> ModelSpec:
        return ModelSpec(model=f"{self.protocol}/{name}", base_url=self.base_url, **fields)

    def item_fault(
        self, kind: str, *, match: str | None = None, times: int = 1, text: str = ""
    ) -> BatchServer:
        self.item_faults.append(ItemFault(kind, match, times, text))
        return self

    def start(self) -> BatchServer:
        handler = type("Handler", (_Handler,), {"server_state": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        self.release.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    # -- answering ----------------------------------------------------------------------------
    def _fault(self, prompt: str) -> ItemFault | None:
        for fault in self.item_faults:
            if fault.times > 0 and (fault.match is None or fault.match in prompt):
                fault.times -= 1
                return fault
        return None

    def _answer(self, prompt: str) -> Answer | None:
        if callable(self.answers):
            return Answer(self.answers(prompt))
        return next((a for a in self.answers if all(p in prompt for p in a.contains)), None)

    def answer(self, body: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        """The reply body for one request, or the failure kind it gets."""
        prompt = prompt_of(self.protocol, body)
        with self._lock:
            fault = self._fault(prompt)
        if fault is not None and fault.kind in ("errored", "expired", "canceled"):
            return None, fault.kind
        answer = self._answer(prompt)
        if answer is None:
            return None, "errored"
        text, stop = answer.text, "stop"
        if fault is not None:
            if fault.kind == "truncated":
                text, stop = text[: max(len(text) // 2, 1)], "length"
            elif fault.kind == "refusal":
                text, stop = fault.text or "I can't help with that.", "refusal"
            elif fault.kind == "empty":
                text = ""
            else:
                text = fault.text
        tool = (
            body.get("tool_choice", {}).get("name")
            if isinstance(body.get("tool_choice"), dict)
            else None
        )
        payload = reply_body(
            self.protocol,
            body.get("model", "m"),
            text,
            len(prompt.split()),
            len(text.split()),
            stop=stop,
            tool=tool,  # type: ignore[arg-type]
        )
        return payload, None

    def finish(self, batch: Batch) -> None:
        """Answer every request of ``batch`` (once)."""
        if batch.results:
            return
        for request in batch.requests:
            body = request["body"] if self.protocol == "openai" else request["params"]
            payload, failure = self.answer(body)
            custom_id = request["custom_id"]
            if self.protocol == "openai":
                if failure is None:
                    row = {
                        "id": f"req_{custom_id[:8]}",
                        "custom_id": custom_id,
                        "response": {"status_code": 200, "request_id": "r", "body": payload},
                        "error": None,
                    }
                else:
                    code = {"expired": "batch_expired", "canceled": "batch_cancelled"}.get(
                        failure, "server_error"
                    )
                    row = {
                        "id": "x",
                        "custom_id": custom_id,
                        "response": None,
                        "error": {"code": code, "message": f"the request {failure}"},
                    }
            elif failure is None:
                row = {"custom_id": custom_id, "result": {"type": "succeeded", "message": payload}}
            elif failure == "errored":
                row = {
                    "custom_id": custom_id,
                    "result": {
                        "type": "errored",
                        "error": {
                            "type": "error",
                            "error": {"type": "invalid_request_error", "message": "bad request"},
                        },
                    },
                }
            else:
                row = {"custom_id": custom_id, "result": {"type": failure}}
            batch.results.append(row)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server_state: BatchServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def _send(self, status: int, payload: Any, *, jsonl: bool = False) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/jsonl" if jsonl else "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _record(self, method: str) -> tuple[bytes, Any]:
        raw = self.rfile.read(int(self.headers.get("content-length", 0) or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        state = self.server_state
        with state._lock:
            state.requests.append(
                Seen(method, self.path, {k.lower(): v for k, v in self.headers.items()}, body, raw)
            )
        return raw, body

    def _refused(self) -> bool:
        if self.server_state.batch_fault == "401":
            self._send(401, {"error": {"message": "invalid x-api-key"}})
            return True
        return False

    def do_POST(self) -> None:  # noqa: N802
        raw, body = self._record("POST")
        state = self.server_state
        if self._refused():
            return
        if state.protocol == "openai" and self.path == "/v1/files":
            parts = _multipart(raw, self.headers["content-type"])
            if parts.get("purpose") != b"batch":
                self._send(400, {"error": {"message": "purpose must be batch"}})
                return
            file_id = f"file-{next(state._ids)}"
            state.files[file_id] = parts["file"]
            self._send(200, {"id": file_id, "object": "file", "purpose": "batch"})
        elif state.protocol == "openai" and self.path == "/v1/batches":
            content = state.files.get(body.get("input_file_id"), b"")
            lines = [json.loads(line) for line in content.splitlines() if line.strip()]
            batch = Batch(f"batch_{next(state._ids)}", lines, metadata=body.get("metadata"))
            state.batches[batch.id] = batch
            self._held()
            self._send(200, {"id": batch.id, "object": "batch", "status": "validating"})
        elif state.protocol == "anthropic" and self.path == "/v1/messages/batches":
            batch = Batch(f"msgbatch_{next(state._ids)}", list(body["requests"]))
            state.batches[batch.id] = batch
            self._held()
            self._send(
                200, {"id": batch.id, "type": "message_batch", "processing_status": "in_progress"}
            )
        else:
            self._send(404, {"error": f"no route {self.path}"})

    def _held(self) -> None:
        """Made; under ``hold_create`` the answer waits for ``release`` (or 60 s)."""
        state = self.server_state
        state.created.set()
        if state.hold_create:
            state.release.wait(60)

    def _list(self, query: dict[str, list[str]]) -> None:
        """One page of the batches, newest first, after the cursor's batch."""
        state = self.server_state
        cursor = "after" if state.protocol == "openai" else "after_id"
        limit = min(int(query.get("limit", ["20"])[0]), state.list_page)
        newest = sorted(state.batches.values(), key=lambda b: b.created_at, reverse=True)
        ids = [b.id for b in newest]
        after = query.get(cursor, [None])[0]
        start = ids.index(after) + 1 if after in ids else 0
        page = newest[start : start + limit]
        data = [self._listed(b) for b in page]
        self._send(
            200,
            {
                "object": "list",
                "data": data,
                "first_id": page[0].id if page else None,
                "last_id": page[-1].id if page else None,
                "has_more": start + limit < len(newest),
            },
        )

    def _listed(self, batch: Batch) -> dict[str, Any]:
        state = self.server_state
        n = len(batch.requests)
        if state.protocol == "openai":
            return {
                "id": batch.id,
                "object": "batch",
                "status": "completed" if batch.results else "in_progress",
                "created_at": int(batch.created_at),
                "metadata": batch.metadata,
                "request_counts": {"total": n, "completed": 0, "failed": 0},
            }
        stamp = datetime.fromtimestamp(batch.created_at, UTC).isoformat().replace("+00:00", "Z")
        counts = {"processing": n, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if batch.results:
            counts["processing"] = 0
            for row in batch.results:
                counts[row["result"]["type"]] += 1
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": "ended" if batch.results else "in_progress",
            "created_at": stamp,
            "request_counts": counts,
            "results_url": f"{state.base_url}/v1/messages/batches/{batch.id}/results"
            if batch.results
            else None,
        }

    def do_GET(self) -> None:  # noqa: N802
        self._record("GET")
        state = self.server_state
        if self._refused():
            return
        split = urlsplit(self.path)
        parts = split.path.strip("/").split("/")
        if parts in (["v1", "batches"], ["v1", "messages", "batches"]):
            if (state.protocol == "openai") == (parts == ["v1", "batches"]) and state.lists:
                self._list(parse_qs(split.query))
            else:
                self._send(404, {"error": f"no route {self.path}"})
        elif state.protocol == "openai" and parts[:2] == ["v1", "batches"] and len(parts) == 3:
            self._openai_status(parts[2])
        elif state.protocol == "openai" and parts[:2] == ["v1", "files"] and parts[-1] == "content":
            content = state.files.get(parts[2])
            self._send(200, content, jsonl=True) if content is not None else self._send(404, {})
        elif state.protocol == "anthropic" and parts[:3] == ["v1", "messages", "batches"]:
            batch = state.batches.get(parts[3]) if len(parts) > 3 else None
            if batch is None or state.batch_fault == "missing":
                self._send(404, {"error": {"type": "not_found_error"}})
            elif len(parts) == 5 and parts[4] == "results":
                data = b"".join(json.dumps(r).encode() + b"\n" for r in batch.results)
                self._send(200, data, jsonl=True)
            else:
                self._anthropic_status(batch)
        else:
            self._send(404, {"error": f"no route {self.path}"})

    def _openai_status(self, batch_id: str) -> None:
        state = self.server_state
        batch = state.batches.get(batch_id)
        if batch is None or state.batch_fault == "missing":
            self._send(404, {"error": {"message": "No batch found"}})
            return
        batch.reads += 1
        n = len(batch.requests)
        out: dict[str, Any] = {
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
        }
        if state.batch_fault == "failed":
            out |= {
                "status": "failed",
                "errors": {"data": [{"code": "invalid_file", "message": "the file is bad"}]},
                "request_counts": {"total": n, "completed": 0, "failed": 0},
            }
        elif state.batch_fault == "never" or batch.reads <= state.polls:
            out |= {
                "status": "in_progress",
                "request_counts": {"total": n, "completed": 0, "failed": 0},
            }
        elif state.batch_fault == "expired":
            out |= {
                "status": "expired",
                "request_counts": {"total": n, "completed": 0, "failed": 0},
            }
        else:
            state.finish(batch)
            good = [r for r in batch.results if r["response"]]
            bad = [r for r in batch.results if not r["response"]]
            out |= {
                "status": "completed",
                "request_counts": {"total": n, "completed": len(good), "failed": len(bad)},
            }
            out["output_file_id"] = f"file-out-{batch.id}"
            state.files[out["output_file_id"]] = b"".join(
                json.dumps(r).encode() + b"\n" for r in good
            )
            if bad:
                out["error_file_id"] = f"file-err-{batch.id}"
                state.files[out["error_file_id"]] = b"".join(
                    json.dumps(r).encode() + b"\n" for r in bad
                )
        self._send(200, out)

    def _anthropic_status(self, batch: Batch) -> None:
        state = self.server_state
        batch.reads += 1
        n = len(batch.requests)
        out: dict[str, Any] = {"id": batch.id, "type": "message_batch"}
        if state.batch_fault == "never" or batch.reads <= state.polls:
            out |= {
                "processing_status": "in_progress",
                "results_url": None,
                "request_counts": {
                    "processing": n,
                    "succeeded": 0,
                    "errored": 0,
                    "canceled": 0,
                    "expired": 0,
                },
            }
        else:
            state.finish(batch)
            counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
            for row in batch.results:
                counts[row["result"]["type"]] += 1
            out |= {
                "processing_status": "ended",
                "request_counts": counts,
                "results_url": f"{state.base_url}/v1/messages/batches/{batch.id}/results",
            }
        self._send(200, out)


@pytest.fixture
def batch_server() -> Iterator[Callable[..., BatchServer]]:
    """Start batch servers: ``batch_server(protocol, answers, polls=1)``; all stop at the end."""
    started: list[BatchServer] = []

    def start(
        protocol: str, answers: Sequence[Answer] | Callable[[str], str] = (), **kw: Any
    ) -> BatchServer:
        server = BatchServer(protocol, answers, **kw).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
