"""Do the ranges hold their level? Coverage and A/A false alarms, percentile vs expanded BCa.

    .venv/bin/python bench/interval_coverage.py [--sets 1000] [--resamples 1000]
        [--documents 20 50 200] [--sizes poisson lognormal pareto] [--seed 0]

A seeded simulation with known truth. Each document has g gold facts, finds each with p = 0.6
(tp ~ Binomial(g, 0.6), fn = g − tp) and makes fp spurious predictions:

- poisson: g ~ Poisson(4), fp ~ Poisson(1.5), the sizes of tests/test_eval_aa.py;
- lognormal: g ~ Poisson(4·L / E[L]), L lognormal with σ = 2.5, fp ~ Poisson(0.375 g): heavy tails,
  a few documents hold most facts;
- pareto: as lognormal with L ~ Lomax(α = 2.2), whose variance is barely finite.

Each has true precision 2.4 / 3.9, recall 0.6 and F1 4.8 / 7.9 (every expectation is 4 gold and
1.5 spurious per document). For each set of n documents the 95% range of `document_intervals`
is read both ways and counted when it covers the truth. A/A: run B is drawn from the same
process as A on the same gold (the second run of the same pipeline); a false alarm is a range of
B − A (`paired_documents`, one set of draws for both methods) clear of zero.

The default (1,000 sets of each, 1,000 draws) takes a few minutes on 2 cores; a coverage is
good to about ±0.7 points there (one standard error), so the long campaign is
`--sets 10000` (±0.2). Prints one line per size, method and metric.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from openodke.eval.stats import document_intervals, paired_documents
from openodke.eval.stats.intervals import IntervalMethod

TRUTH = {"precision": 2.4 / 3.9, "recall": 0.6, "f1": 4.8 / 7.9}
METHODS: tuple[IntervalMethod, ...] = ("percentile", "expanded-bca")
METRICS = ("precision", "recall", "f1")


def gold_sizes(rng: np.random.Generator, documents: int, sizes: str) -> np.ndarray:
    """Gold facts per document, mean 4."""
    if sizes == "poisson":
        return rng.poisson(4.0, documents)
    if sizes == "lognormal":
        sigma = 2.5
        return rng.poisson(4.0 * rng.lognormal(0.0, sigma, documents) / math.exp(sigma**2 / 2))
    if sizes == "pareto":
        alpha = 2.2  # Lomax(α) has mean 1 / (α − 1)
        return rng.poisson(4.0 * (alpha - 1) * rng.pareto(alpha, documents))
    raise ValueError(f"unknown sizes {sizes!r}")


def run(rng: np.random.Generator, gold: np.ndarray, sizes: str) -> np.ndarray:
    """One run's n × 3 tp/fp/fn counts over the given gold."""
    tp = rng.binomial(gold, 0.6)
    fp = rng.poisson(1.5, gold.size) if sizes == "poisson" else rng.poisson(0.375 * gold)
    return np.column_stack([tp, fp, gold - tp])


def coverage(documents: int, sizes: str, sets: int, resamples: int, seed: int) -> dict:
    """Share of sets whose range covers the truth, per (method, metric)."""
    hits = {(method, name): 0 for method in METHODS for name in METRICS}
    for index in range(sets):
        rng = np.random.default_rng([seed, documents, index])
        counts = run(rng, gold_sizes(rng, documents, sizes), sizes)
        for method in METHODS:
            ranges = document_intervals(*counts.T, resamples=resamples, seed=index, method=method)
            for name in METRICS:
                low, high = ranges[name].low, ranges[name].high
                hits[method, name] += (
                    low is not None and high is not None and low <= TRUTH[name] <= high
                )
    return {key: value / sets for key, value in hits.items()}


def false_alarms(documents: int, sizes: str, sets: int, resamples: int, seed: int) -> dict:
    """Share of A/A pairs whose range of B − A is clear of zero, per (method, metric)."""
    alarms = {(method, name): 0 for method in METHODS for name in METRICS}
    for index in range(sets):
        rng = np.random.default_rng([seed, documents, index, 1])
        gold = gold_sizes(rng, documents, sizes)
        a, b = run(rng, gold, sizes), run(rng, gold, sizes)
        for method in METHODS:
            drawn = paired_documents(
                a, b, METRICS, resamples=resamples, seed=index, level=0.95, method=method
            )
            for name in METRICS:
                alarms[method, name] += drawn.pairs[name].verdict != "inconclusive"
    return {key: value / sets for key, value in alarms.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--documents", type=int, nargs="+", default=[20, 50, 200])
    parser.add_argument("--sizes", nargs="+", default=["poisson", "lognormal", "pareto"])
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()

    print(
        f"95% ranges over {options.sets:,} seeded sets each, {options.resamples:,} draws "
        f"(± {100 * math.sqrt(0.05 * 0.95 / options.sets):.1f} points for a coverage of 95%)"
    )
    print(f"  {'sizes':<10}{'docs':>5}  {'method':<14}{'coverage P/R/F1':<24}{'A/A alarms P/R/F1'}")
    for sizes in options.sizes:
        for documents in options.documents:
            started = time.perf_counter()
            covered = coverage(documents, sizes, options.sets, options.resamples, options.seed)
            alarms = false_alarms(documents, sizes, options.sets, options.resamples, options.seed)
            for method in METHODS:
                cover = " ".join(f"{100 * covered[method, n]:5.1f}" for n in METRICS)
                alarm = " ".join(f"{100 * alarms[method, n]:4.1f}" for n in METRICS)
                print(f"  {sizes:<10}{documents:>5}  {method:<14}{cover:<24}{alarm}")
            print(f"  ({time.perf_counter() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
