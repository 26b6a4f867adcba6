"""Prediction-powered inference for a proportion, in closed form: PPI and power-tuned PPI++.

Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023), "Prediction-powered inference", Science
382:669, the mean estimator (their Example 1 / Algorithm 1): with a judge's 0/1 answers ``f`` on
N unlabelled items and on n labelled ones, and the labels ``y``,

    θ = mean_N(f) − mean_n(f − y)           (the judge's rate, minus its bias on the labels)
    Var = σ²(f over N) / N + σ²(f − y over n) / n
    θ ± z(1 − α/2) · √Var                   (normal, clipped to [0, 1])

The labelled items are a uniform random sample of all items, disjoint from the N unlabelled ones.

``ppi_tuned`` is what judged precision uses (DECISIONS 163): PPI++ (Angelopoulos, Duchi & Zrnic
2023, "PPI++: Efficient prediction-powered inference", their Example 6.1 for a mean) weighs the
judge by λ chosen from the data,

    θ_λ = mean_n(y) + λ · (mean_N(f) − mean_n(f))
    λ̂ = Cov_n(f, y) / ((1 + n/N) · Var_{N+n}(f)), clipped to [0, 1]
    Var = λ² σ²(f over N) / N + σ²(y − λf over n) / n

so a judge that tells nothing about the labels (λ → 0) leaves the labels alone and a perfect one
(λ → 1) is plain PPI. The range is Wilson's at θ_λ on the effective size θ(1 − θ) / Var (as a
survey's Wilson interval on its effective size, Korn & Graubard 1998), with Student's t on n − 1
degrees of freedom in place of z for the estimated λ and variances: at λ = 0 the effective size is
n and the range is the labels' Wilson range, only wider by t. Where that range is wider than the
labels-only Wilson range, the labels-only range is the answer and the weight is 0: the judge is
never allowed to widen what the labels say.

One change (DECISIONS 78): ``f − y`` is −1, 0 or 1, and its variance is taken from the rates of
false support (1) and lost support (−1) each smoothed by half a count (Jeffreys), so a label
sample in which the judge made no error does not shrink the interval to the judge's own noise.
By seeded simulation (tests/eval/judges/test_ppi.py) the plain σ² covers 93.6% at n = 100 with a
judge wrong 2% of the time; smoothed, 98.9%; at n = 500 both are within a point of 95%.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from openodke.eval.refusals import wilson_interval
from openodke.eval.stats.intervals import student_t_quantile

__all__ = ["PPI", "SMOOTHING", "ppi_mean", "ppi_tuned", "wilson", "z_of"]

SMOOTHING = 0.5
"""Pseudo-count added to each of the false-support and lost-support counts for the variance."""


def z_of(level: float) -> float:
    """The two-sided normal quantile for ``level`` (1.959964 at 0.95)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    return NormalDist().inv_cdf(0.5 + level / 2)


@dataclass(frozen=True)
class PPI:
    """An estimate with its interval and standard error; None where undefined."""

    value: float | None
    low: float | None
    high: float | None
    se: float | None
    weight: float | None = None
    """PPI++'s λ, the weight on the judge (0: the labels alone; 1: plain PPI); None for PPI."""


def _variance(values: np.ndarray) -> float:
    # Sample variance (ddof = 1), as the paper's σ̂²; a single value has none.
    return float(np.var(values, ddof=1)) if len(values) > 1 else 0.0


def _rectifier_variance(rectifier: np.ndarray) -> float:
    """Var(f − y) from smoothed rates: q₊ + q₋ − (q₊ − q₋)², q = (count + ½) / (n + 1)."""
    n = len(rectifier)
    up = (float(np.count_nonzero(rectifier > 0)) + SMOOTHING) / (n + 2 * SMOOTHING)
    down = (float(np.count_nonzero(rectifier < 0)) + SMOOTHING) / (n + 2 * SMOOTHING)
    return up + down - (up - down) ** 2


def ppi_mean(
    judge_unlabelled: np.ndarray | list[float],
    judge_labelled: np.ndarray | list[float],
    labels: np.ndarray | list[float],
    *,
    level: float = 0.95,
) -> PPI:
    """The prediction-powered estimate of a proportion and its closed-form interval.

    ``judge_*`` and ``labels`` are 0/1 (a judge's supported, a person's true).
    With no labels it is undefined; with every item labelled it is the labels' proportion with
    its Wilson interval.
    """
    f_u, f_l, y = _answers(judge_unlabelled, judge_labelled, labels)
    if len(y) == 0:
        return PPI(None, None, None, None)
    if len(f_u) == 0:  # every item labelled: the labels alone say it
        return wilson(int(y.sum()), len(y), level=level)
    rectifier = f_l - y
    value = float(f_u.mean() - rectifier.mean())
    variance = _variance(f_u) / len(f_u) + _rectifier_variance(rectifier) / len(y)
    se = math.sqrt(variance)
    half = z_of(level) * se
    clipped = min(1.0, max(0.0, value))
    return PPI(clipped, max(0.0, value - half), min(1.0, value + half), se)


def wilson(successes: int, n: int, *, level: float = 0.95) -> PPI:
    """A proportion with its Wilson score interval; undefined when n is 0."""
    if n == 0:
        return PPI(None, None, None, None)
    p = successes / n
    low, high = wilson_interval(p, n, z_of(level))
    return PPI(p, low, high, math.sqrt(p * (1 - p) / n))


def ppi_tuned(
    judge_unlabelled: np.ndarray | list[float],
    judge_labelled: np.ndarray | list[float],
    labels: np.ndarray | list[float],
    *,
    level: float = 0.95,
) -> PPI:
    """Power-tuned PPI++ of a proportion: the judge weighed by λ̂ in [0, 1], never wider than
    the labels alone (see the module docstring); ``weight`` is λ̂, 0 when the labels decide."""
    f_u, f_l, y = _answers(judge_unlabelled, judge_labelled, labels)
    n, big_n = len(y), len(f_u)
    if n == 0:
        return PPI(None, None, None, None)
    alone = wilson(int(y.sum()), n, level=level)
    alone = PPI(alone.value, alone.low, alone.high, alone.se, 0.0)
    if big_n == 0 or n < 2:  # every item labelled, or one label: the labels alone say it
        return alone
    every = np.concatenate([f_u, f_l])
    spread = float(np.var(every, ddof=1))
    # PPI++ eq. (6) for a mean: λ* = Cov(f, y) / ((1 + n/N) Var(f)), estimated and clipped.
    together = float(np.mean((f_l - f_l.mean()) * (y - y.mean()))) * n / (n - 1)
    weight = min(1.0, max(0.0, together / ((1.0 + n / big_n) * spread))) if spread > 0 else 0.0
    value = float(y.mean() + weight * (f_u.mean() - f_l.mean()))
    variance = weight * weight * _variance(f_u) / big_n + float(np.var(y - weight * f_l)) / n
    theta = min(1.0, max(0.0, value))
    if variance <= 0.0 or theta * (1.0 - theta) == 0.0:
        return alone  # nothing left to weigh: every label and answer agree
    effective = theta * (1.0 - theta) / variance
    low, high = wilson_interval(theta, effective, student_t_quantile((1.0 - level) / 2, n - 1))
    assert alone.low is not None and alone.high is not None
    if high - low > alone.high - alone.low:
        return alone
    return PPI(theta, low, high, math.sqrt(variance), weight)


def _answers(*columns: np.ndarray | list[float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    f_u, f_l, y = (np.asarray(column, dtype=np.float64) for column in columns)
    if len(f_l) != len(y):
        raise ValueError("one judge answer per label")
    for values in (f_u, f_l, y):
        if not np.isin(values, (0.0, 1.0)).all():
            raise ValueError("judge answers and labels are 0 or 1")
    return f_u, f_l, y
