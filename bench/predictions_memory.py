"""Peak memory of ``odke eval pipeline --predictions`` per input kind, against the file's size.

Target (issue 22): peak memory at most 4x the predictions file on every path, and 300 MB of
triples rows scored in at most 1.2 GB. For each kind, writes about ``--mb`` MB of predictions
over 5,000 documents (Document JSONL), GoldFact labels for a third of the rows, runs the venv's
``odke eval pipeline --labels --documents --predictions --adapter KIND --report`` and prints the
seconds, the peak resident memory (wait4's max RSS) and peak / file size; exit 1 past the ratio.

Kinds: ``triples`` (triples rows), ``facts`` (a sink's Fact rows), ``langextract`` (annotated
documents, JSONL), ``langchain`` (GraphDocument dumps, JSONL), ``submission`` (Text2KGBench
response rows scored with ``--bench``: a prepared set is needed, so it is measured only with
``--bench-set``).

    python bench/predictions_memory.py [--mb 100] [--kinds triples,facts] [--limit 4]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path

from extract_scale import load_note, run_odke

DOCS = 5000
PREDICATES = ("works_for", "born_in", "lives_in")


def _triple(count: int, rng: random.Random) -> dict:
    return {
        "doc": f"doc_{count // 50 % DOCS:05d}",  # 50 rows a document, in a row
        "subject": f"Person number {count}",
        "predicate": rng.choice(PREDICATES),
        "object": f"Organisation {count % 977}",
        "quote": f"Person number {count} works for Organisation {count % 977}",
        "confidence": 0.5,
    }


def _fact(row: dict) -> dict:
    """The Fact a sink would write for ``row`` (the to_fact shape, defaults left out)."""
    subject = row["subject"]
    obj = row["object"]
    return {
        "subject": {"key": f"Thing:{subject.casefold()}", "type": "Thing", "label": subject},
        "predicate": row["predicate"],
        "object_entity": {"key": f"Thing:{obj.casefold()}", "type": "Thing", "label": obj},
        "evidence": [{"doc_id": row["doc"], "span_origin": "context"}],
        "extractor": "triples",
        "confidence": 0.5,
    }


def _langextract(rows: list[dict]) -> dict:
    """One annotated document holding ``rows`` (all of one document) as relation extractions."""
    return {
        "document_id": rows[0]["doc"],
        "extractions": [
            {
                "extraction_class": r["predicate"],
                "extraction_text": r["object"],
                "attributes": {"subject": r["subject"]},
            }
            for r in rows
        ],
    }


def _langchain(rows: list[dict]) -> dict:
    """One GraphDocument dump holding ``rows`` (all of one document) as relationships."""
    return {
        "nodes": [],
        "relationships": [
            {
                "source": {"id": r["subject"], "type": "Node"},
                "target": {"id": r["object"], "type": "Node"},
                "type": r["predicate"],
                "properties": {},
            }
            for r in rows
        ],
        "source": {"metadata": {"source": rows[0]["doc"]}, "page_content": ""},
    }


def write_inputs(folder: Path, kind: str, megabytes: int, seed: int = 0) -> Path:
    """Predictions of ``kind`` (about ``megabytes`` MB), gold.jsonl and docs.jsonl."""
    rng = random.Random(seed)
    path = folder / f"{kind}.jsonl"
    size = count = 0
    group: list[dict] = []
    with path.open("w") as out, (folder / "gold.jsonl").open("w") as gold:
        while size < megabytes << 20:
            row = _triple(count, rng)
            if count % 3 == 0:
                fact = _fact(row)
                del fact["evidence"], fact["extractor"], fact["confidence"]
                gold.write(json.dumps({"doc_id": row["doc"], "fact": fact}) + "\n")
            count += 1
            if kind in ("langextract", "langchain"):
                group.append(row)
                if len(group) < 50:
                    continue
                record = _langextract(group) if kind == "langextract" else _langchain(group)
                group = []
                line = json.dumps(record)
            else:
                line = json.dumps(_fact(row) if kind == "facts" else row)
            out.write(line + "\n")
            size += len(line) + 1
    with (folder / "docs.jsonl").open("w") as docs:
        for d in range(DOCS):
            docs.write(json.dumps({"id": f"doc_{d:05d}", "text": f"Document {d} text."}) + "\n")
    return path


def measure(kind: str, megabytes: int) -> tuple[float, float, float]:
    """(file MB, seconds, peak MB) of scoring ``kind`` predictions."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        said = write_inputs(folder, kind, megabytes)
        file_mb = said.stat().st_size / (1 << 20)
        _, seconds, peak = run_odke(
            "eval", "pipeline", "--labels", str(folder / "gold.jsonl"),
            "--documents", str(folder / "docs.jsonl"), "--predictions", str(said),
            "--adapter", "triples" if kind == "facts" else kind,
            "--report", str(folder / "report.json"),
        )  # fmt: skip
    return file_mb, seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--kinds", default="triples,facts,langextract,langchain")
    parser.add_argument("--limit", type=float, default=4.0, help="peak / file size allowed")
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.1f}; {load_note()}")
    worst = 0.0
    for kind in args.kinds.split(","):
        file_mb, seconds, peak = measure(kind, args.mb)
        ratio = peak / file_mb
        worst = max(worst, ratio)
        print(
            f"{kind:12} {file_mb:7.0f} MB in {seconds:6.1f} s, peak {peak:7.0f} MB "
            f"= {ratio:.2f}x the file (limit {args.limit:g}x)"
        )
    if worst > args.limit:
        print(f"over the {args.limit:g}x limit")
        sys.exit(1)


if __name__ == "__main__":
    main()
