"""odke eval extract on 1,000,000 gold and 1,000,000 predicted facts over 100,000 documents.

Target (issue 2): at most 10 s and 1.5 GB peak on a 2-core machine. Predictions are written the
way a JsonlSink writes them (every Fact field); gold rows in the spec's short form. Prints the
command's wall time, rows per second and peak memory (the child's max RSS).

    python bench/extract_scale.py [--facts 1000000] [--documents 100000]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PREDICATES = ["born", "employer", "award", "located_in", "member_of", "founded", "spouse"]


def fact_line(i: int, doc: str, predicate: str, obj: dict, rng: random.Random) -> str:
    """A Fact as JsonlSink writes it: every field, in model order."""
    return json.dumps(
        {
            "id": f"{i:032x}",
            "subject": {
                "key": f"Person:p{i}",
                "type": "Person",
                "label": f"P {i}",
                "aliases": [],
                "external_id": None,
                "resolution": None,
                "attributes": {},
            },
            "predicate": predicate,
            **obj,
            "polarity": "asserted",
            "qualifiers": {},
            "identity_keys": [],
            "valid_from": None,
            "valid_to": None,
            "evidence": [
                {
                    "doc_id": doc,
                    "span": {"doc_id": doc, "start": 0, "end": 40, "quote": None},
                    "mention": None,
                    "span_origin": "cited",
                    "uri": None,
                    "tier": "unverified",
                    "retrieved_at": "2025-01-01T00:00:00Z",
                }
            ],
            "extractor": "llm",
            "confidence": round(rng.random(), 3),
            "verdict": "unchecked",
            "support": 1,
            "supported_by": [],
            "retired_at": None,
        }
    )


def write_files(folder: Path, n: int, documents: int) -> None:
    rng = random.Random(0)
    with open(folder / "gold.jsonl", "w") as gold, open(folder / "facts.jsonl", "w") as said:
        for i in range(n):
            doc = f"doc_{i % documents:06d}.txt"
            predicate = PREDICATES[i % len(PREDICATES)]
            if i % 3 == 0:
                obj = {"object_entity": None, "object_value": 1800 + i % 200}
                short = {"object_value": 1800 + i % 200}
            else:
                entity = {"key": f"Organization:o{i % 997}", "type": "Organization"}
                obj = {
                    "object_entity": {
                        **entity,
                        "label": None,
                        "aliases": [],
                        "external_id": None,
                        "resolution": None,
                        "attributes": {},
                    },
                    "object_value": None,
                }
                short = {"object_entity": entity}
            gold.write(
                json.dumps(
                    {
                        "doc_id": doc,
                        "fact": {
                            "subject": {"key": f"Person:p{i}", "type": "Person"},
                            "predicate": predicate,
                            **short,
                        },
                    }
                )
                + "\n"
            )
            r = rng.random()
            if r < 0.15:  # spurious
                predicate, obj = "unrelated", {"object_entity": None, "object_value": "x"}
            elif r < 0.25 and obj["object_value"] is not None:  # wrong value
                obj = {"object_entity": None, "object_value": obj["object_value"] + 1}
            said.write(fact_line(i, doc, predicate, obj, rng) + "\n")


def run_odke(*args: str) -> tuple[str, float, float]:
    """Run the venv's ``odke`` with ``args``: its stdout, wall seconds and peak memory (MB)."""
    odke = Path(sys.executable).with_name("odke")
    start = time.perf_counter()
    done = subprocess.run([str(odke), *args], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"odke failed: {done.stderr.strip()}")
    return done.stdout, seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--documents", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_files(folder, args.facts, args.documents)
        stdout, seconds, peak_mb = run_odke(
            "eval", "extract", "--labels", str(folder / "gold.jsonl"),
            "--predictions", str(folder / "facts.jsonl"), "--items", str(folder / "items.jsonl"),
            "--json",
        )  # fmt: skip
        metrics = json.loads(stdout)["metrics"]
    rows = 2 * args.facts
    print(
        f"odke eval extract: {args.facts:,} gold + {args.facts:,} predicted over {args.documents:,} documents"
    )
    print(
        f"  {seconds:.2f} s ({seconds / 10:.2f} of the 10 s target), {rows / seconds:,.0f} rows/s"
    )
    print(f"  peak memory {peak_mb:,.0f} MB ({peak_mb / 1536:.2f} of the 1.5 GB target)")
    print(
        f"  f1 {metrics['f1']:.4f}, tp {metrics['tp']:,}, fp {metrics['fp']:,}, fn {metrics['fn']:,}"
    )


if __name__ == "__main__":
    main()
