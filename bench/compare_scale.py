"""How fast is a paired compare at scale? 2,000 draws over 100,000 documents.

    .venv/bin/python bench/compare_scale.py [--documents 100000] [--resamples 2000] [--distinct]

Builds two runs' per-document counts (seeded, no files), runs `compare_items` (precision, recall
and f1 from one set of paired draws) and prints seconds, rows/s and peak memory. The target is
≤ 2 s on a 2-core machine. `--distinct` makes almost every document's six counts unique, the
worst case, where the bootstrap resamples indices instead of grouped multinomial counts.
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import numpy as np

from openodke.eval.compare import compare_items
from openodke.eval.engine.items import DocItem
from openodke.eval.stats import resampled_sums


def runs(documents: int, *, distinct: bool, seed: int = 0) -> tuple[list[DocItem], list[DocItem]]:
    """Two correlated runs: B keeps A's counts for 70% of documents and finds a bit more."""
    rng = np.random.default_rng(seed)
    scale = 40 if distinct else 4
    gold = rng.poisson(scale, documents)
    tp_a = rng.binomial(gold, 0.6)
    fp_a = rng.poisson(scale / 3, documents)
    redraw = rng.random(documents) < 0.3
    tp_b = np.where(redraw, rng.binomial(gold, 0.62), tp_a)
    fp_b = np.where(redraw, rng.poisson(scale / 3, documents), fp_a)

    def rows(tp: np.ndarray, fp: np.ndarray) -> list[DocItem]:
        return [
            DocItem(id=f"d{i}", tp=int(t), fp=int(f), fn=int(g - t))
            for i, (t, f, g) in enumerate(zip(tp, fp, gold, strict=True))
        ]

    return rows(tp_a, fp_a), rows(tp_b, fp_b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--distinct", action="store_true", help="worst case: unique rows")
    options = parser.parse_args()

    a, b = runs(options.documents, distinct=options.distinct)
    table = np.array([[x.tp, x.fp, x.fn, y.tp, y.fp, y.fn] for x, y in zip(a, b, strict=True)])
    groups = len(np.unique(table, axis=0))
    compare_items(a[:100], b[:100], resamples=10)  # warm imports and numpy before timing

    tracemalloc.start()
    started = time.perf_counter()
    comparison = compare_items(a, b, resamples=options.resamples, seed=0)
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    # The resampling alone, without building rows into arrays.
    started = time.perf_counter()
    resampled_sums(table, resamples=options.resamples, seed=0)
    draw_seconds = time.perf_counter() - started

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    path = "grouped multinomial" if groups * 8 <= len(a) else "resampled indices"
    print(
        f"compare  {options.resamples} draws over {len(a):,} documents "
        f"({groups:,} distinct count rows: {path})"
    )
    print(f"  seconds      {seconds:.2f} (draws alone {draw_seconds:.2f})")
    print(f"  rows/s       {len(a) / seconds:,.0f} documents compared per second")
    print(f"  peak memory  {peak / 2**20:.0f} MiB traced by tracemalloc, {rss:.0f} MiB max RSS")
    primary = comparison.primary
    print(f"  verdict      {primary.verdict}, f1 difference {primary.difference:+.4f}")


if __name__ == "__main__":
    main()
