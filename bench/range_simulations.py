"""Do the ranges hold at the edges? Coverage, A/A, power at the detection limit and PPI, by simulation.

    .venv/bin/python bench/range_simulations.py [--sets 2000] [--resamples 1000]
        [--parts coverage aa power ppi] [--documents 10 20 50 200 1000]
        [--sizes poisson lognormal pareto] [--levels high middle low] [--seed 0]

Seeded simulations with known truth (issue 19, DECISIONS 160-164), each through the library's own
functions: `document_intervals` (one run's F1 range), `small_set_note` (the flag for a set too
small or too concentrated), `paired_documents` (compare's interval, verdict and detection limit)
and `ppi_tuned` (judged precision).

Documents: each has g gold facts, finds each with p and makes spurious predictions at c per gold
fact, so the true corpus F1 is 2p / (1 + p + c) whatever the sizes:

- F1 levels: high p = 0.9, c = 0.1 (F1 0.9); middle p = 0.6, c = 0.375 (0.608); low p = 0.3,
  c = 0.7 (0.3);
- sizes: equal (g = 4), poisson (g ~ Poisson(4), fp ~ Poisson(4c)), heavy-tailed lognormal
  (g ~ Poisson(4·L / E[L]), L lognormal with σ = 2.5: a few documents hold most facts) and pareto
  (L ~ Lomax(2.2), variance barely finite), with fp ~ Poisson(c·g).

Coverage: the share of sets whose 95% F1 range holds the truth, among the sets the flag leaves
unflagged (the flagged share is printed), with the Monte Carlo standard error; `width` is the mean
unflagged width over 2 × 1.96 × the standard deviation of the estimate across sets (1.00 = as
narrow as a range that knew the sampling spread).

A/A and power: run B is drawn on the same gold as A, independently (as tests/test_eval_aa.py and
DECISIONS #40 do). A/A (B from A's process) counts the verdicts that are not inconclusive; the
median detection limit printed there, moved once to the median printed where that change is true
(a pilot of a quarter of the sets), is made the true change (B finds facts at the rate that makes
its F1 lower by it) and power is the share of those sets called worse.

PPI: judged precision 0.7 on 2,000 unlabelled facts and 100 labels, a judge right with 60%, 80% or
95% accuracy on true and false facts alike; coverage of `ppi_tuned`, its width over the
labels-only Wilson range (mean and largest) and the judge's mean weight.

The defaults (2,000 sets, 1,000 draws) take hours on 2 shared cores; `--sets 400` is a quick
look (± 1.1 points on a coverage of 95%). The standard error is printed on every line.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from openodke.eval.judges.ppi import ppi_tuned, wilson
from openodke.eval.stats import document_intervals, paired_documents
from openodke.eval.stats.intervals import effective_documents, small_set_note

LEVELS = {"high": (0.9, 0.1), "middle": (0.6, 0.375), "low": (0.3, 0.7)}
Z95 = 1.959964


def truth(level: str, p: float | None = None) -> float:
    """The true corpus F1 of a level (or of find rate p at that level's spurious rate)."""
    found, spurious = LEVELS[level]
    found = found if p is None else p
    return 2 * found / (1 + found + spurious)


def gold_sizes(rng: np.random.Generator, documents: int, sizes: str) -> np.ndarray:
    """Gold facts per document, mean 4."""
    if sizes == "equal":
        return np.full(documents, 4)
    if sizes == "poisson":
        return rng.poisson(4.0, documents)
    if sizes == "lognormal":
        sigma = 2.5
        return rng.poisson(4.0 * rng.lognormal(0.0, sigma, documents) / math.exp(sigma**2 / 2))
    if sizes == "pareto":
        alpha = 2.2  # Lomax(α) has mean 1 / (α − 1)
        return rng.poisson(4.0 * (alpha - 1) * rng.pareto(alpha, documents))
    raise ValueError(f"unknown sizes {sizes!r}")


def spurious(rng: np.random.Generator, gold: np.ndarray, sizes: str, rate: float) -> np.ndarray:
    if sizes in ("equal", "poisson"):
        return rng.poisson(4.0 * rate, gold.size)
    return rng.poisson(rate * gold)


def run_a(rng: np.random.Generator, gold: np.ndarray, sizes: str, level: str) -> np.ndarray:
    """One run's n × 3 tp/fp/fn counts over the given gold."""
    found, rate = LEVELS[level]
    tp = rng.binomial(gold, found)
    return np.column_stack([tp, spurious(rng, gold, sizes, rate), gold - tp])


def run_b(
    rng: np.random.Generator, gold: np.ndarray, sizes: str, level: str, p_b: float
) -> np.ndarray:
    """Run B on the same gold: its own draws, finding each gold fact with p_b (A/A: p_b = p)."""
    _, rate = LEVELS[level]
    tp = rng.binomial(gold, p_b)
    return np.column_stack([tp, spurious(rng, gold, sizes, rate), gold - tp])


def find_rate(level: str, f1: float) -> float:
    """The find rate p giving corpus F1 `f1` at the level's spurious rate: f1 (1 + c) / (2 − f1)."""
    _, rate = LEVELS[level]
    return f1 * (1 + rate) / (2 - f1)


def flagged(counts: np.ndarray) -> bool:
    weights = 2 * counts[:, 0] + counts[:, 1] + counts[:, 2]
    informative = int(np.count_nonzero(weights))
    effective = effective_documents(weights)
    return small_set_note(informative, total=len(counts), effective=effective) is not None


def se(share: float, sets: int) -> float:
    return 100 * math.sqrt(max(share * (1 - share), 0.0025) / max(sets, 1))


def coverage(sizes: str, documents: int, level: str, options: argparse.Namespace) -> str:
    true_f1 = truth(level)
    estimates, hits, widths, flags = [], [], [], 0
    for index in range(options.sets):
        rng = np.random.default_rng([options.seed, 1, documents, index, len(sizes), len(level)])
        counts = run_a(rng, gold_sizes(rng, documents, sizes), sizes, level)
        f1 = document_intervals(*counts.T, resamples=options.resamples, seed=index)["f1"]
        if f1.value is None or f1.low is None or f1.high is None:
            flags += 1  # no fact at all: nothing to cover
            continue
        estimates.append(f1.value)
        if flagged(counts):
            flags += 1
            continue
        hits.append(f1.low <= true_f1 <= f1.high)
        widths.append(f1.high - f1.low)
    kept = len(hits)
    if not kept:
        return f"flagged {100 * flags / options.sets:5.1f}%  (every set: no coverage to read)"
    cover = float(np.mean(hits))
    oracle = 2 * Z95 * float(np.std(estimates)) if len(estimates) > 1 else math.nan
    width = float(np.mean(widths)) / oracle if oracle > 0 else math.nan
    return (
        f"flagged {100 * flags / options.sets:5.1f}%  unflagged coverage "
        f"{100 * cover:5.1f} ± {se(cover, kept):.1f} ({kept} sets)  width {width:4.2f}"
    )


def compare_cases(sizes: str, documents: int, level: str, options: argparse.Namespace) -> str:
    found, _ = LEVELS[level]
    alarms, limits = 0, []
    for index in range(options.sets):
        rng = np.random.default_rng([options.seed, 2, documents, index, len(sizes), len(level)])
        gold = gold_sizes(rng, documents, sizes)
        a = run_a(rng, gold, sizes, level)
        b = run_b(rng, gold, sizes, level, found)
        pair = _pair(a, b, index, options)
        alarms += pair.verdict != "inconclusive"
        if pair.detection_limit is not None:
            limits.append(pair.detection_limit)
    if "power" not in options.parts:
        alarm = alarms / options.sets
        return f"A/A alarms {100 * alarm:4.1f} ± {se(alarm, options.sets):.1f}"
    # The limit a set prints grows with the change itself (B's F1 further from A's spreads
    # more), so the true change tried is the limit printed where that change is true: a pilot
    # of a quarter of the sets at the A/A limit moves it once.
    limit = float(np.median(limits))
    pilot, _ = _power(sizes, documents, level, limit, max(options.sets // 4, 1), options)
    limit = float(np.median(pilot))
    printed, detected = _power(sizes, documents, level, limit, options.sets, options)
    alarm, power = alarms / options.sets, detected / options.sets
    return (
        f"A/A alarms {100 * alarm:4.1f} ± {se(alarm, options.sets):.1f}  true change "
        f"{100 * limit:4.1f} points (A/A limit {100 * float(np.median(limits)):4.1f}, printed "
        f"at it {100 * float(np.median(printed)):4.1f})  power {100 * power:5.1f} ± "
        f"{se(power, options.sets):.1f}"
    )


def _power(
    sizes: str, documents: int, level: str, change: float, sets: int, options: argparse.Namespace
) -> tuple[list[float], int]:
    """The limits printed and how many sets were called worse when B's F1 is lower by change."""
    p_b = find_rate(level, truth(level) - change)
    detected, printed = 0, []
    for index in range(sets):
        rng = np.random.default_rng([options.seed, 3, documents, index, len(sizes), len(level)])
        gold = gold_sizes(rng, documents, sizes)
        a = run_a(rng, gold, sizes, level)
        pair = _pair(a, run_b(rng, gold, sizes, level, p_b), index, options)
        detected += pair.verdict == "worse"
        if pair.detection_limit is not None:
            printed.append(pair.detection_limit)
    return printed, detected


def _pair(a: np.ndarray, b: np.ndarray, index: int, options: argparse.Namespace):  # noqa: ANN202
    drawn = paired_documents(a, b, ("f1",), resamples=options.resamples, seed=index, level=0.95)
    return drawn.pairs["f1"]


def judged(accuracy: float, options: argparse.Namespace) -> str:
    rng = np.random.default_rng([options.seed, 4, int(accuracy * 100)])
    precision, hits, ratios, weights = 0.7, 0, [], []
    for _ in range(options.sets):
        y_u = rng.random(2000) < precision
        f_u = np.where(rng.random(2000) < accuracy, y_u, ~y_u)
        y = rng.random(100) < precision
        f_l = np.where(rng.random(100) < accuracy, y, ~y)
        result = ppi_tuned(f_u.astype(float), f_l.astype(float), y.astype(float))
        alone = wilson(int(y.sum()), 100)
        assert result.low is not None and result.high is not None
        assert alone.low is not None and alone.high is not None
        hits += result.low <= precision <= result.high
        ratios.append((result.high - result.low) / (alone.high - alone.low))
        weights.append(result.weight or 0.0)
    cover = hits / options.sets
    return (
        f"coverage {100 * cover:5.1f} ± {se(cover, options.sets):.1f}  width / labels-only "
        f"mean {np.mean(ratios):.2f} max {np.max(ratios):.2f}  weight {np.mean(weights):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--parts", nargs="+", default=["coverage", "aa", "power", "ppi"])
    parser.add_argument("--documents", type=int, nargs="+", default=[10, 20, 50, 200, 1000])
    parser.add_argument("--sizes", nargs="+", default=["poisson", "lognormal", "pareto"])
    parser.add_argument("--levels", nargs="+", default=list(LEVELS))
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    print(
        f"{options.sets:,} seeded sets per case, {options.resamples:,} draws; ± is one Monte "
        "Carlo standard error"
    )
    started = time.perf_counter()
    if "coverage" in options.parts:
        print("F1 range coverage (95%), unflagged sets")
        for sizes in options.sizes:
            for documents in options.documents:
                for level in options.levels:
                    line = coverage(sizes, documents, level, options)
                    print(f"  {sizes:<10}{documents:>5}  {level:<7} {line}", flush=True)
    if "aa" in options.parts or "power" in options.parts:
        print("compare on F1: A/A false alarms, power at the median printed detection limit")
        for sizes in options.sizes:
            for documents in (d for d in options.documents if d >= 50):
                for level in options.levels:
                    line = compare_cases(sizes, documents, level, options)
                    print(f"  {sizes:<10}{documents:>5}  {level:<7} {line}", flush=True)
    if "ppi" in options.parts:
        print("judged precision (PPI++), 100 labels, precision 0.7")
        for accuracy in (0.6, 0.8, 0.95):
            print(f"  judge {accuracy:.0%}  {judged(accuracy, options)}", flush=True)
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
