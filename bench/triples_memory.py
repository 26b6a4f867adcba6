"""Memory of reading a 100 MB triples file: ``read_triples`` must stay under 1 GB (issue 13).

Writes a triples JSONL file of the given size (rows of ~200 bytes over 5,000 documents) in a
temp folder, reads it in a fresh process and prints the rows, the seconds and the peak resident
memory (``ru_maxrss``); exit 1 past the limit.

    python bench/triples_memory.py [--mb 100] [--limit-mb 1024]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

_READ = """
import resource, sys, time
from openodke.interop.triples import read_triples
started = time.monotonic()
rows = read_triples(sys.argv[1])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(len(rows), round(time.monotonic() - started, 1), round(peak))
"""


def write_rows(path: Path, megabytes: int, seed: int = 0) -> int:
    """Write about ``megabytes`` MB of triples rows; the number of rows."""
    rng = random.Random(seed)
    size = count = 0
    with path.open("w", encoding="utf-8") as handle:
        while size < megabytes << 20:
            row = {
                "doc": f"doc_{count % 5000:05d}",
                "subject": f"Person number {count}",
                "predicate": rng.choice(["works_for", "born_in", "lives_in"]),
                "object": f"Organisation {count % 977}",
                "quote": f"Person number {count} works for Organisation {count % 977}",
                "confidence": 0.5,
            }
            line = json.dumps(row) + "\n"
            handle.write(line)
            size += len(line)
            count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--limit-mb", type=int, default=1024)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "triples.jsonl"
        write_rows(path, args.mb)
        done = subprocess.run(
            [sys.executable, "-c", _READ, str(path)], capture_output=True, text=True, check=True
        )
    rows, seconds, peak = done.stdout.split()
    print(f"read_triples: {args.mb} MB, {int(rows):,} rows in {seconds} s, peak {peak} MB")
    if int(peak) > args.limit_mb:
        print(f"over the {args.limit_mb} MB limit")
        sys.exit(1)


if __name__ == "__main__":
    main()
