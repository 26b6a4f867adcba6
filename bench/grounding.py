"""How fast is grounding? 1,000 facts at 50 ms a call against a local server, then from the cache.

    .venv/bin/python bench/grounding.py [--facts 1000] [--latency 0.05] [--workers 8]

1. Live: ``facts`` facts (40 documents, each fact citing its sentence) through the free checks and
   ``LLMGrounder`` (span format) -> CachedClient -> ProviderClient to a local OpenAI-protocol server
   that answers after ``latency`` seconds, ``workers`` calls at a time. Target <= 10 s for 1,000
   at 50 ms with 8 workers (the floor is 1000 x 0.05 / 8 = 6.25 s).
2. Cached: the same facts again with a new grounder on the same cache: every call a hit, no
   request reaches the server. Target < 1 s.
3. Overhead per fact outside the model call: one worker, a client that answers at once from
   memory; the time spent inside ``complete`` is measured and taken away, so what is left is all
   grounding's own (free checks, claim and prompt rendering, answer parsing, counting). Target
   < 1 ms per fact; and again with the facts uncited and ``locate=True``, the span locator
   finding each one's sentence.

Prints seconds, facts/s, per-fact overhead and peak memory (max RSS); exits 1 if a target fails.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.llm_server import ReplayServer  # noqa: E402

from openodke import Document, Entity, Evidence, Fact, Span  # noqa: E402
from openodke.ground import CheckedGrounder, LLMGrounder  # noqa: E402
from openodke.llm import (  # noqa: E402
    LLMResponse,
    ModelSpec,
    RecordedClient,
    client_for,
)

SENTENCE = "Company {i} was founded in {year} in City {c}, and it makes part {i}."


def corpus(n: int, documents: int = 40) -> list[tuple[Fact, Document]]:
    """``n`` facts, each citing its own sentence in one of ``documents`` texts."""
    per_doc = -(-n // documents)
    pairs: list[tuple[Fact, Document]] = []
    for d in range(documents):
        sentences, spans = [], []
        at = 0
        for k in range(per_doc):
            i = d * per_doc + k
            text = SENTENCE.format(i=i, year=1900 + i % 120, c=i % 7)
            sentences.append(text)
            spans.append((at, at + len(text), i))
            at += len(text) + 1
        doc = Document(id=f"doc{d}.txt", text=" ".join(sentences))
        for start, end, i in spans:
            if i >= n:
                break
            fact = Fact(
                id=f"f{i}",
                subject=Entity(key=f"Company:company {i}", type="Company", label=f"Company {i}"),
                predicate="founded",
                object_value=1900 + i % 120,
                evidence=(Evidence(doc_id=doc.id, span=Span(doc_id=doc.id, start=start, end=end)),),
            )
            pairs.append((fact, doc))
    return pairs


def ground(
    client: Any,
    spec: ModelSpec,
    pairs: list[tuple[Fact, Document]],
    workers: int,
    locate: bool = False,
) -> float:
    inner = LLMGrounder(spec, client=client, max_workers=workers, progress=False, locate=locate)
    grounder = CheckedGrounder(inner)
    started = time.perf_counter()
    out = grounder.ground_all(pairs)
    elapsed = time.perf_counter() - started
    stats = grounder.stats
    if stats["failed"] or any(f.verdict.value != "supported" for f in out):
        raise SystemExit(f"{stats['failed']} calls failed: {stats['first_error']}")
    return elapsed


class Timed:
    """Passes calls to ``inner`` and adds up the time spent inside them."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.inside = 0.0

    def complete(
        self, messages: Sequence[Any], spec: ModelSpec, schema: Mapping[str, Any] | None = None
    ) -> LLMResponse:
        started = time.perf_counter()
        try:
            return self.inner.complete(messages, spec, schema)  # type: ignore[no-any-return]
        finally:
            self.inside += time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()
    pairs = corpus(args.facts)
    with (
        tempfile.TemporaryDirectory() as tmp,
        ReplayServer(
            "openai", lambda prompt: '{"verdict": "supported"}', latency=args.latency
        ) as server,
    ):
        spec = server.spec("judge", max_tokens=16)
        cache = Path(tmp) / "cache"
        client = client_for(spec, cache=cache, env={})
        live = ground(client, spec, pairs, args.workers)
        client.close()
        requests = len(server.requests)
        client = client_for(spec, cache=cache, env={})
        cached = ground(client, spec, pairs, args.workers)
        client.close()
        assert len(server.requests) == requests == args.facts, "the cached run reached the server"

    answer = [{"match": "Claim:", "response": {"verdict": "supported"}}]
    instant = Timed(RecordedClient(answer))
    total = ground(instant, ModelSpec(model="openai/m", max_tokens=16), pairs, 1)
    per_fact = (total - instant.inside) / args.facts
    # The same facts uncited (each citing its whole document), the span locator finding each one's
    # sentence: the locator's cost per fact, over texts of ~25 sentences.
    uncited = [(f.model_copy(update={"evidence": (Evidence(doc_id=d.id),)}), d) for f, d in pairs]
    located = Timed(RecordedClient(answer))
    total_located = ground(located, ModelSpec(model="openai/m"), uncited, 1, locate=True)
    per_located = (total_located - located.inside) / args.facts

    floor = args.facts * args.latency / args.workers
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"live:   {args.facts} facts at {args.latency * 1000:.0f} ms a call, {args.workers} workers: "
        f"{live:.2f} s ({args.facts / live:.0f} facts/s; floor {floor:.2f} s; target <= 10 s)"
    )
    print(
        f"cached: {args.facts} facts: {cached:.3f} s ({args.facts / cached:.0f} facts/s; "
        f"target < 1 s); server requests {requests}"
    )
    print(
        f"overhead outside the model call: {per_fact * 1000:.3f} ms per fact (target < 1 ms); "
        f"with the in-memory client's own time {total / args.facts * 1000:.3f} ms"
    )
    print(
        f"overhead with the span locator (uncited facts, ~25-sentence texts): "
        f"{per_located * 1000:.3f} ms per fact (target < 1 ms)"
    )
    print(f"peak memory (max RSS): {rss_mb:.0f} MB")
    ok = live <= 10 and cached < 1 and per_fact < 0.001 and per_located < 0.001
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
