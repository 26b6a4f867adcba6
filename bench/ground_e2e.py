"""``odke ground`` end to end: 1,000 facts at 50 ms a call against a server in another process.

    .venv/bin/python bench/ground_e2e.py [--facts 1000] [--latency 0.05] [--workers 64] [--repeat 3]

The server (tests/support/llm_server.py, OpenAI protocol) runs in its own process, as a real one
would, and answers every grounding question after ``latency`` seconds. The command is the real
``odke ground`` in a fresh interpreter (imports, reading, the free checks, the model calls, the
cache, writing facts.jsonl and summary.json), timed from the outside:

1. live: a fresh cache, every fact one request. Target <= 2 s at 1,000 x 50 ms with 64 workers
   (the floor is 1000 x 0.05 / 64 = 0.78 s).
2. cached: the same command again: every answer from the cache, no request. Target <= 1 s.
3. startup: ``odke --version`` in the same conditions, for scale.

Best of ``repeat`` for each; prints the load, seconds, the ratio to the floor, and the peak
memory (max RSS of the command); exits 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ODKE = [sys.executable, "-c", "from openodke.cli import entry; entry()"]
SENTENCE = "Company {i} was founded in {year} in City {c}, and it makes part {i}."

SERVER = """
import sys, time
sys.path.insert(0, {root!r})
from tests.support.llm_server import ReplayServer
server = ReplayServer("openai", lambda prompt: '{{"verdict": "supported"}}', latency={latency})
server.start()
print(server.base_url, flush=True)
sys.stdin.read()
server.stop()
"""


def write_inputs(folder: Path, n: int, documents: int = 40) -> tuple[Path, Path]:
    """``n`` triples rows, each citing its own sentence in one of ``documents`` texts."""
    texts = folder / "texts"
    texts.mkdir()
    per_doc = -(-n // documents)
    rows = []
    for d in range(documents):
        sentences = []
        for k in range(per_doc):
            i = d * per_doc + k
            sentence = SENTENCE.format(i=i, year=1900 + i % 120, c=i % 7)
            sentences.append(sentence)
            if i < n:
                rows.append(
                    {
                        "doc": f"doc{d}",
                        "subject": f"Company {i}",
                        "predicate": "founded",
                        "object": str(1900 + i % 120),
                        "quote": sentence,
                    }
                )
        (texts / f"doc{d}.txt").write_text(" ".join(sentences) + "\n")
    facts = folder / "triples.jsonl"
    facts.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return facts, texts


CPU: list[float] = []  # CPU seconds (user + system) of each timed run, in order


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and the child's peak RSS (MB) of one run; raises if it fails."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    before = usage.ru_maxrss
    cpu_before = usage.ru_utime + usage.ru_stime
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[2:])} exited {done.returncode}:\n{done.stderr}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(usage.ru_utime + usage.ru_stime - cpu_before)
    peak = max(before, usage.ru_maxrss) / 1024
    return elapsed, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(ROOT / "src")
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER.format(root=str(ROOT), latency=args.latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        live_s, cached_s, start_s, peak = [], [], [], 0.0
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                facts, texts = write_inputs(folder, args.facts)
                config = folder / "odke.yaml"
                config.write_text(
                    "models:\n  ground:\n    model: openai/local\n"
                    f"    base_url: {base_url}\n    max_tokens: 16\n"
                )
                command = [
                    *ODKE,
                    "ground",
                    "--facts",
                    str(facts),
                    "--texts",
                    str(texts),
                    "--config",
                    str(config),
                    "--max-workers",
                    str(args.workers),
                    "--json",
                    "-o",
                    str(folder / "out"),
                ]
                seconds, rss = timed(command, env)
                live_s.append(seconds)
                peak = max(peak, rss)
                summary = json.loads((folder / "out" / "summary.json").read_text())
                if summary["calls"] - summary["cached"] != args.facts or summary["failed"]:
                    raise SystemExit(f"live run: unexpected summary {summary}")
                command[-1] = str(folder / "out2")
                seconds, rss = timed(command, env)
                cached_s.append(seconds)
                summary = json.loads((folder / "out2" / "summary.json").read_text())
                if summary["cached"] != args.facts:
                    raise SystemExit(f"cached run reached the server: {summary}")
            start_s.append(timed([*ODKE, "--version"], env)[0])
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)
    floor = args.facts * args.latency / args.workers
    live, cached, start = min(live_s), min(cached_s), min(start_s)
    print(f"load (1-minute average): {os.getloadavg()[0]:.2f}")
    print(
        f"live:   {args.facts} facts at {args.latency * 1000:.0f} ms, {args.workers} workers: "
        f"{live:.2f} s (best of {args.repeat}; all {', '.join(f'{s:.2f}' for s in live_s)}); "
        f"floor {floor:.2f} s, {live / floor:.1f}x the floor; target <= 2 s"
    )
    print(f"cached: {cached:.2f} s (all {', '.join(f'{s:.2f}' for s in cached_s)}); target <= 1 s")
    print(f"odke --version: {start:.2f} s; peak memory of a run (max RSS): {peak:.0f} MB")
    live_cpu, cached_cpu = min(CPU[0::3]), min(CPU[1::3])
    print(
        f"CPU (user + system) of the command, best: live {live_cpu:.2f} s, cached "
        f"{cached_cpu:.2f} s (wall time on a busy machine is mostly waiting for a core)"
    )
    raise SystemExit(0 if live <= 2 and cached <= 1 else 1)


if __name__ == "__main__":
    main()
