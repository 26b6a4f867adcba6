"""odke eval pipeline --predictions on 1,000,000 facts over 100,000 documents, with bootstrap
ranges, --items and --report.

Target (issue 8): at most 15 s and 2 GB peak on a 2-core machine, with the diagnosis and fixes
(the texts read for the cross-sentence bucket). The documents are Document JSONL (their texts
feed the unnamed-end check and the diagnosis), the predictions a JsonlSink's facts.jsonl.

    python bench/pipeline_scale.py [--facts 1000000] [--documents 100000]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from extract_scale import load_note, run_odke, write_files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--documents", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_files(folder, args.facts, args.documents)
        with open(folder / "docs.jsonl", "w") as docs:
            for d in range(args.documents):
                text = " ".join(
                    f"P {i} works at o{i % 997} since {1800 + i % 200}."
                    for i in range(d, args.facts, args.documents)
                )
                docs.write(json.dumps({"id": f"doc_{d:06d}.txt", "text": text}) + "\n")
        note = load_note()
        _, seconds, peak_mb = run_odke(
            "eval", "pipeline", "--labels", str(folder / "gold.jsonl"),
            "--documents", str(folder / "docs.jsonl"), "--predictions", str(folder / "facts.jsonl"),
            "--items", str(folder / "items.jsonl"), "--report", str(folder / "report.json"),
        )  # fmt: skip
        report = json.loads((folder / "report.json").read_text())
        row = report["rows"][0]
    print(
        f"odke eval pipeline --predictions: {args.facts:,} facts over {args.documents:,} documents"
    )
    print(
        f"  {seconds:.2f} s ({seconds / 15:.2f} of the 15 s target), {args.facts / seconds:,.0f} facts/s"
    )
    print(f"  peak memory {peak_mb:,.0f} MB ({peak_mb / 2048:.2f} of the 2 GB target); {note}")
    buckets = {d["bucket"]: d["count"] for d in report["diagnosis"] if d["count"]}
    print(f"  diagnosis {buckets}; fixes {[f['id'] for f in report['fixes'] if f['misses']]}")
    f1 = row["performance"]["f1"]
    print(f"  f1 {f1['value']:.4f} [{f1['low']:.4f}, {f1['high']:.4f}]")


if __name__ == "__main__":
    main()
