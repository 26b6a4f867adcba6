"""An OpenAI-compatible server (vLLM, SGLang) at 256 concurrent requests (issue 18 item 6).

The server holds every request open until 256 are open at once (a barrier), then answers them
all: the test passes only when the client really has 256 calls in flight on 256 connections.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from openodke.llm import CachedClient, ModelSpec, ProviderClient, RetryPolicy, map_calls
from tests.support.llm_server import reply_body

WIDTH = 256


class _Wide(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 1024  # the default 5 would make 256 connects queue up in SYN retries


def _server(barrier: threading.Barrier, peak: list[int]) -> _Wide:
    lock = threading.Lock()
    open_now = [0]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            with lock:
                open_now[0] += 1
                peak[0] = max(peak[0], open_now[0])
            try:
                barrier.wait(timeout=60)
                ok = True
            except threading.BrokenBarrierError:
                ok = False
            with lock:
                open_now[0] -= 1
            text = json.dumps({"verdict": "supported" if ok else "not_found"})
            reply = reply_body("openai", body["model"], text, 10, 5)
            payload = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = _Wide(("127.0.0.1", 0), Handler)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return server


def test_256_requests_are_in_flight_at_once(tmp_path) -> None:
    barrier = threading.Barrier(WIDTH)
    peak = [0]
    server = _server(barrier, peak)
    try:
        spec = ModelSpec(
            model="openai/local", base_url=f"http://127.0.0.1:{server.server_address[1]}"
        )
        live = ProviderClient(retry=RetryPolicy(attempts=1), env={})
        client = CachedClient(live, tmp_path)
        asks = [[{"role": "user", "content": f"Claim: fact {i}"}] for i in range(WIDTH)]
        answers = map_calls(lambda m: client.complete(m, spec), asks, max_workers=WIDTH)
        client.close()
    finally:
        barrier.abort()
        server.shutdown()
        server.server_close()
    assert peak[0] == WIDTH
    assert [a.parsed for a in answers] == [{"verdict": "supported"}] * WIDTH
    assert all(a.error is None and not a.cached for a in answers)
