"""How fast is the model layer? 1,000 calls at 50 ms against a local server, then from the cache.

    .venv/bin/python bench/llm_calls.py [--calls 1000] [--latency 0.05] [--workers 8]

1. Live: ``calls`` requests through CostMeter -> CachedClient -> ProviderClient to a local
   OpenAI-protocol server that answers after ``latency`` seconds, ``workers`` at a time. Target
   ≤ 10 s for 1,000 at 50 ms with 8 workers (the floor is 1000 × 0.05 / 8 = 6.25 s).
2. Cached: the same calls again, every one a hit. Target < 1 s.
3. Overhead outside the model call: the live path with the network and the model taken away (an
   httpx transport that returns a provider reply at once), one worker, so each call's time is all
   ours: request body, httpx, reply parsing, the cache key, the SQLite commit and the meter.
   Target < 1 ms per call.

Prints seconds, calls/s, per-call overhead and peak memory (max RSS).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.llm_server import ReplayServer, reply_body  # noqa: E402

from openodke.llm import (  # noqa: E402
    CachedClient,
    CostMeter,
    ModelSpec,
    ProviderClient,
    map_calls,
)

SCHEMA = {"type": "object", "properties": {"verdict": {"enum": ["supported", "not_found"]}}}


def messages(i: int) -> list[dict[str, str]]:
    return [
        {
            "role": "system",
            "content": "Check the claim against the passage.",
            "prompt": "ground.span@1",
        },
        {
            "role": "user",
            "content": f"Claim: Company {i} — founded in — {1900 + i % 100}.\n\nPassage:\n"
            + "Some passage text. " * 20,
        },
    ]


def run(client: CachedClient, meter: CostMeter, spec: ModelSpec, calls: int, workers: int) -> float:
    metered = meter.client(client, stage="ground")
    started = time.perf_counter()
    results = map_calls(
        lambda i: metered.complete(messages(i), spec, SCHEMA),
        range(calls),
        max_workers=workers,
        progress=False,
    )
    elapsed = time.perf_counter() - started
    failed = sum(r.error is not None for r in results)
    if failed:
        raise SystemExit(f"{failed} calls failed")
    return elapsed


def overhead(calls: int, folder: Path) -> float:
    body = json.dumps(reply_body("openai", "m", '{"verdict": "supported"}', 120, 6)).encode()

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    live = ProviderClient(env={}, transport=httpx.MockTransport(answer))
    client = CachedClient(live, folder)
    meter = CostMeter()
    spec = ModelSpec(model="openai/m", base_url="http://instant.invalid")
    elapsed = run(client, meter, spec, calls, 1)
    client.close()
    return elapsed / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        ReplayServer(
            "openai", lambda prompt: '{"verdict": "supported"}', latency=args.latency
        ) as server,
    ):
        spec = server.spec("m", max_tokens=16)
        client = CachedClient(ProviderClient(env={}), Path(tmp) / "cache")
        meter = CostMeter()
        live = run(client, meter, spec, args.calls, args.workers)
        requests = len(server.requests)
        cached = run(client, meter, spec, args.calls, args.workers)
        assert len(server.requests) == requests == args.calls, "the cached run reached the server"
        report = meter.report()
        client.close()
        per_call = overhead(args.calls, Path(tmp) / "overhead")
    floor = args.calls * args.latency / args.workers
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"live:   {args.calls} calls at {args.latency * 1000:.0f} ms, {args.workers} workers: "
        f"{live:.2f} s ({args.calls / live:.0f} calls/s; floor {floor:.2f} s; target <= 10 s)"
    )
    print(
        f"cached: {args.calls} calls: {cached:.3f} s ({args.calls / cached:.0f} calls/s; "
        f"target < 1 s); hits {report.total.cached}, server requests {requests}"
    )
    print(f"overhead outside the model call: {per_call * 1000:.3f} ms per call (target < 1 ms)")
    print(f"peak memory (max RSS): {rss_mb:.0f} MB")
    ok = live <= 10 and cached < 1 and per_call < 0.001
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
