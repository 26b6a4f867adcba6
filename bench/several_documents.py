"""What does scoring a fact in every document it cites cost? (issue 17, DECISIONS #130)

    .venv/bin/python bench/several_documents.py [--facts 200000] [--share 0.2] [--repeat 3]

Writes, seeded, a gold file and two prediction files stating the same (fact, document) pairs:
``split`` one Fact row per document, ``merged`` one row citing every document that states it
(``--share`` of the facts are stated in 2-3 documents, as the Validator's corroborator merges
them). Scores each with ``odke eval extract``'s loader and ``score_keys`` (best of ``--repeat``)
and prints seconds, the ratio merged / split, and the peak memory. The counts must be equal;
the merged file has fewer rows to read, and laying them out one row per document
(``FactColumns.per_document``) should cost no more than reading the split rows.
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from openodke.eval.engine.fastload import load_both
from openodke.eval.stages.extract import score_keys


def _fact(i: int, docs: list[str]) -> str:
    evidence = ", ".join(f'{{"doc_id": "{d}"}}' for d in docs)
    return (
        f'{{"subject": {{"key": "Person:p{i}", "type": "Person"}}, "predicate": "born_in", '
        f'"object_entity": {{"key": "City:c{i % 977}", "type": "City"}}, "evidence": [{evidence}]}}'
    )


def write(folder: Path, facts: int, share: float, seed: int = 0) -> tuple[Path, Path, Path]:
    """The gold, the split predictions and the merged ones."""
    rng = np.random.default_rng(seed)
    spread = np.where(rng.random(facts) < share, rng.integers(2, 4, facts), 1)
    first = rng.integers(0, facts // 10 + 1, facts)
    gold, split, merged = [], [], []
    for i, (k, d) in enumerate(zip(spread.tolist(), first.tolist(), strict=True)):
        docs = [f"d{d + j}" for j in range(k)]
        fact = json.loads(_fact(i, docs[:1]))
        for doc in docs:
            gold.append(json.dumps({"doc_id": doc, "fact": {**fact, "evidence": []}}))
            split.append(_fact(i, [doc]))
        merged.append(_fact(i, docs))
    paths = folder / "gold.jsonl", folder / "split.jsonl", folder / "merged.jsonl"
    for path, lines in zip(paths, (gold, split, merged), strict=True):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


def score(gold: Path, said: Path, repeat: int) -> tuple[float, dict[str, int]]:
    best, counts = float("inf"), {}
    for _ in range(repeat):
        start = time.perf_counter()
        g, p = load_both(gold, said, workers=1)
        counts = score_keys(g, p).matching.counts()
        best = min(best, time.perf_counter() - start)
    return best, {k: counts[k] for k in ("tp", "fp", "fn")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=200_000)
    parser.add_argument("--share", type=float, default=0.2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gold, split, merged = write(Path(tmp), args.facts, args.share)
        a, counts_a = score(gold, split, args.repeat)
        b, counts_b = score(gold, merged, args.repeat)
    assert counts_a == counts_b, (counts_a, counts_b)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"split  {a:.2f} s  {counts_a}")
    print(f"merged {b:.2f} s  ratio merged/split {b / a:.2f}; peak {peak:.0f} MB")


if __name__ == "__main__":
    main()
