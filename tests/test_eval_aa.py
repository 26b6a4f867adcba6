"""A/A runs: two runs drawn from one distribution are called better or worse at most 5% of the time.

Each trial draws runs A and B independently from the same process, with a local
`numpy.random.default_rng(trial)`, and compares them at the default 95% level. A false alarm is
any verdict but inconclusive. 1,000 bootstrap draws per comparison (not 2,000) keep the file
under 30 seconds; the percentile ends move by sampling noise only.
"""

from __future__ import annotations

import numpy as np

from openodke.eval.engine.items import DocItem
from openodke.eval.stats import paired_bootstrap

TRIALS = 200
RESAMPLES = 1000


def _false_alarm_rate(verdicts: list[str]) -> float:
    return sum(verdict != "inconclusive" for verdict in verdicts) / len(verdicts)


def test_item_runs_from_one_distribution_rarely_get_a_verdict():
    # 300 items, each right with p = 0.85 in either run, independently.
    verdicts = []
    for trial in range(TRIALS):
        rng = np.random.default_rng(trial)
        a, b = rng.random(300) < 0.85, rng.random(300) < 0.85
        verdicts.append(
            paired_bootstrap(a.tolist(), b.tolist(), resamples=RESAMPLES, seed=trial).verdict
        )
    rate = _false_alarm_rate(verdicts)
    # Observed when written: 0.020 (4 of 200). Over 3,000 seeds: 4.4% from the interval alone
    # and 3.8% once McNemar's exact test (conservative) must agree.
    assert rate <= 0.05, f"A/A item comparisons called better or worse {rate:.1%} of the time"


def _document_run(rng: np.random.Generator, gold: np.ndarray) -> list[DocItem]:
    # Each gold fact found with p = 0.6; spurious predictions Poisson(1.5) per document.
    tp = rng.binomial(gold, 0.6)
    fp = rng.poisson(1.5, gold.size)
    return [
        DocItem(id=f"d{i}", tp=int(t), fp=int(f), fn=int(g - t))
        for i, (t, f, g) in enumerate(zip(tp, fp, gold, strict=True))
    ]


def test_document_runs_from_one_distribution_rarely_get_a_verdict():
    # 300 documents with Poisson(4) gold facts each (shared by both runs, as one label set is).
    verdicts = []
    for trial in range(TRIALS):
        rng = np.random.default_rng(10_000 + trial)
        gold = rng.poisson(4, 300)
        a, b = _document_run(rng, gold), _document_run(rng, gold)
        verdicts.append(paired_bootstrap(a, b, resamples=RESAMPLES, seed=trial).verdict)
    rate = _false_alarm_rate(verdicts)
    # Observed: 0.025 (5 of 200) with the expanded BCa interval, 0.030 when written with the
    # percentile one. These 200 trials are not the whole story: over 2,000 further seeds the
    # percentile rate was 5.6% (standard error 0.5%) at 300 documents and about 6% at 200; at
    # 200 documents expanded BCa runs at 5.0–5.3% over 10,000 (DECISIONS #40).
    assert rate <= 0.05, f"A/A document comparisons called better or worse {rate:.1%} of the time"


def test_fifty_documents_from_one_distribution_rarely_get_a_verdict():
    # 50 documents, the sizes above: the percentile interval called 5.7% of 10,000 such A/A
    # pairs better or worse (6.5% in issue 8's own run); the expanded BCa interval 4.7%
    # (bench/interval_coverage.py --sets 10000, DECISIONS #40).
    trials = 2000
    verdicts = []
    for trial in range(trials):
        rng = np.random.default_rng(20_000 + trial)
        gold = rng.poisson(4, 50)
        a, b = _document_run(rng, gold), _document_run(rng, gold)
        verdicts.append(paired_bootstrap(a, b, resamples=RESAMPLES, seed=trial).verdict)
    rate = _false_alarm_rate(verdicts)
    assert rate <= 0.055, f"A/A document comparisons called better or worse {rate:.1%} of the time"
