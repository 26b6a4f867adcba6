"""Prediction-powered inference: hand-worked values, coverage by seeded simulation, Wilson."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import scipy.stats
from statsmodels.stats.proportion import proportion_confint

from openodke.eval.judges.ppi import ppi_mean, ppi_tuned, wilson, z_of


def test_hand_worked_estimate_and_interval() -> None:
    # Judge on 8 unlabelled items: 6 supported -> mean 0.75, sample var = 6*2/(8*7) ... worked:
    #   values 1,1,1,1,1,1,0,0: mean 0.75, Σ(x−m)² = 6·0.0625 + 2·0.5625 = 1.5, var = 1.5/7.
    f_u = [1, 1, 1, 1, 1, 1, 0, 0]
    # 4 labelled: judge 1,1,0,1 vs truth 1,0,0,1 -> rectifier 0,1,0,0: one false support.
    f_l, y = [1, 1, 0, 1], [1, 0, 0, 1]
    result = ppi_mean(f_u, f_l, y)
    # θ = 0.75 − 0.25 = 0.5
    assert result.value == pytest.approx(0.5)
    # Var(f − y) from smoothed rates: q+ = 1.5/5 = 0.3, q− = 0.5/5 = 0.1:
    #   0.3 + 0.1 − (0.3 − 0.1)² = 0.36; se² = (1.5/7)/8 + 0.36/4 = 0.0267857 + 0.09
    se = math.sqrt(1.5 / 7 / 8 + 0.36 / 4)
    assert result.se == pytest.approx(se)
    # 0.5 ± 1.96 · 0.342 runs past both ends: clipped to [0, 1].
    assert 0.5 - 1.959964 * se < 0 and 0.5 + 1.959964 * se > 1
    assert (result.low, result.high) == (0.0, 1.0)
    # Twenty copies of each sample: the same θ, se shrinks; (1.5/7 → 30/159 with ddof 1).
    big = ppi_mean(f_u * 20, f_l * 20, y * 20)
    se = math.sqrt((30 / 159) / 160 + _smoothed(80, 20, 0) / 80)
    assert big.value == pytest.approx(0.5)
    assert big.se == pytest.approx(se)
    assert (big.low, big.high) == pytest.approx(
        (0.5 - 1.959964 * se, 0.5 + 1.959964 * se), abs=1e-6
    )


def _smoothed(n: int, up: int, down: int) -> float:
    """q+ + q− − (q+ − q−)² with half a count added to each."""
    q_up, q_down = (up + 0.5) / (n + 1), (down + 0.5) / (n + 1)
    return q_up + q_down - (q_up - q_down) ** 2


def test_no_labels_is_undefined_and_all_labelled_is_wilson() -> None:
    assert ppi_mean([1, 0], [], []).value is None
    all_labelled = ppi_mean([], [1, 1, 0], [1, 0, 0])
    assert all_labelled == wilson(1, 3)


def test_answers_must_be_zero_or_one() -> None:
    with pytest.raises(ValueError, match="0 or 1"):
        ppi_mean([0.5], [1], [1])
    with pytest.raises(ValueError, match="one judge answer per label"):
        ppi_mean([1], [1, 0], [1])


def test_z_of_level() -> None:
    assert z_of(0.95) == pytest.approx(1.959964, abs=1e-6)
    with pytest.raises(ValueError):
        z_of(1.0)


def simulate(
    n: int,
    *,
    precision: float,
    false_support: float,
    lost_support: float,
    seed: int,
    sims: int = 2000,
    unlabelled: int = 2000,
) -> float:
    """Share of intervals covering the true precision: facts true with probability
    ``precision``; the judge says supported to a false fact with ``false_support`` and misses a
    true one with ``lost_support``; ``n`` of them labelled at random."""
    rng = np.random.default_rng(seed)
    covered = 0
    for _ in range(sims):
        y_u = rng.random(unlabelled) < precision
        f_u = np.where(
            y_u, rng.random(unlabelled) >= lost_support, rng.random(unlabelled) < false_support
        )
        y_l = rng.random(n) < precision
        f_l = np.where(y_l, rng.random(n) >= lost_support, rng.random(n) < false_support)
        result = ppi_mean(f_u.astype(float), f_l.astype(float), y_l.astype(float))
        assert result.low is not None and result.high is not None
        covered += result.low <= precision <= result.high
    return covered / sims


JUDGES = {
    # name: (precision, false_support, lost_support)
    "a close judge": (0.7, 0.02, 0.02),
    "a fair judge": (0.7, 0.15, 0.10),
    "a poor judge": (0.5, 0.30, 0.20),
}


@pytest.mark.parametrize("n", [100, 500])
@pytest.mark.parametrize("judge", sorted(JUDGES))
def test_coverage_is_at_least_94_percent(n: int, judge: str) -> None:
    precision, false_support, lost_support = JUDGES[judge]
    coverage = simulate(
        n, precision=precision, false_support=false_support, lost_support=lost_support, seed=n
    )
    # 2,000 seeded draws: the Monte Carlo error of a 95% coverage is 0.5 points.
    assert coverage >= 0.94, f"{judge}, n={n}: {coverage:.3f}"


def test_the_correction_removes_the_judges_bias() -> None:
    # A judge that says supported to 30% of false facts overstates precision by 0.15 at 0.5;
    # the corrected estimate's average over seeded runs is back at the truth.
    rng = np.random.default_rng(7)
    estimates, judge_only = [], []
    for _ in range(300):
        y_u = rng.random(3000) < 0.5
        f_u = np.where(y_u, True, rng.random(3000) < 0.3)
        y_l = rng.random(200) < 0.5
        f_l = np.where(y_l, True, rng.random(200) < 0.3)
        estimates.append(ppi_mean(f_u.astype(float), f_l.astype(float), y_l.astype(float)).value)
        judge_only.append(f_u.mean())
    assert np.mean(judge_only) == pytest.approx(0.65, abs=0.01)
    assert np.mean(estimates) == pytest.approx(0.5, abs=0.01)


@pytest.mark.parametrize(
    ("successes", "n"), [(0, 10), (3, 10), (10, 10), (57, 150), (1, 1), (99, 100)]
)
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_wilson_matches_statsmodels(successes: int, n: int, level: float) -> None:
    result = wilson(successes, n, level=level)
    low, high = proportion_confint(successes, n, alpha=1 - level, method="wilson")
    assert (result.low, result.high) == pytest.approx((low, high), abs=1e-9)
    assert result.value == successes / n
    assert wilson(0, 0).value is None


# ------------------------------------------------------------------ PPI++ (power-tuned, ppi_tuned)


def _reference_tuned(f_u, f_l, y, level=0.95):
    """PPI++ for a mean written out from the paper with numpy/scipy: λ̂ = Cov(f, y) /
    ((1 + n/N) Var(f over all N + n)), clipped; Wilson at θ on θ(1 − θ)/Var with t_(n−1)."""
    f_u, f_l, y = (np.asarray(v, float) for v in (f_u, f_l, y))
    n, big_n = len(y), len(f_u)
    lam = np.cov(f_l, y, ddof=1)[0, 1] / ((1 + n / big_n) * np.var(np.r_[f_u, f_l], ddof=1))
    lam = min(1.0, max(0.0, lam))
    theta = y.mean() + lam * (f_u.mean() - f_l.mean())
    var = lam**2 * np.var(f_u, ddof=1) / big_n + np.var(y - lam * f_l) / n
    t = scipy.stats.t.ppf(0.5 + level / 2, n - 1)
    effective = theta * (1 - theta) / var
    # statsmodels' Wilson at the z that equals t: alpha = 2·P(Z > t).
    low, high = proportion_confint(
        theta * effective, effective, alpha=2 * scipy.stats.norm.sf(t), method="wilson"
    )
    return lam, theta, low, high


def _judged(rng, n, accuracy, precision=0.7, unlabelled=2000):
    y_u = rng.random(unlabelled) < precision
    f_u = np.where(rng.random(unlabelled) < accuracy, y_u, ~y_u)
    y_l = rng.random(n) < precision
    f_l = np.where(rng.random(n) < accuracy, y_l, ~y_l)
    return f_u.astype(float), f_l.astype(float), y_l.astype(float)


@pytest.mark.parametrize(("seed", "accuracy"), [(1, 0.95), (2, 0.8), (3, 0.7), (4, 0.99)])
def test_tuned_matches_the_paper_written_out(seed: int, accuracy: float) -> None:
    f_u, f_l, y = _judged(np.random.default_rng(seed), 150, accuracy)
    lam, theta, low, high = _reference_tuned(f_u, f_l, y)
    result = ppi_tuned(f_u, f_l, y)
    assert 0 < lam < 1
    assert result.weight == pytest.approx(lam)
    assert (result.value, result.low, result.high) == pytest.approx((theta, low, high), abs=1e-9)


def test_a_judge_that_knows_nothing_leaves_the_labels_alone() -> None:
    rng = np.random.default_rng(5)
    y = (rng.random(100) < 0.6).astype(float)
    f_l = 1.0 - y  # always wrong: negative covariance, clipped to weight 0
    result = ppi_tuned(rng.random(500).round(), f_l, y)
    labels = wilson(int(y.sum()), 100)
    assert result.weight == 0.0
    assert (result.value, result.low, result.high) == (labels.value, labels.low, labels.high)


def test_edges_of_tuned() -> None:
    assert ppi_tuned([1, 0], [], []).value is None
    assert ppi_tuned([], [1, 0, 1], [1, 0, 0]) == dataclasses.replace(wilson(1, 3), weight=0.0)
    # Every answer and label agree and all are true: nothing to weigh, the labels' range.
    assert ppi_tuned([1] * 50, [1] * 20, [1] * 20).low == wilson(20, 20).low
    with pytest.raises(ValueError, match="0 or 1"):
        ppi_tuned([0.5], [1], [1])


@pytest.mark.parametrize("accuracy", [0.6, 0.8, 0.95])
def test_tuned_covers_94_to_96_percent_and_is_never_wider_than_the_labels(
    accuracy: float,
) -> None:
    # 2,000 seeded sets of 100 labels (precision 0.7, 2,000 unlabelled facts): the Monte Carlo
    # error of a 95% coverage is 0.5 points. bench/range_simulations.py runs the long version.
    rng = np.random.default_rng(int(accuracy * 100))
    covered, ratios = 0, []
    for _ in range(2000):
        f_u, f_l, y = _judged(rng, 100, accuracy)
        result, labels = ppi_tuned(f_u, f_l, y), wilson(int(y.sum()), 100)
        assert result.low is not None and result.high is not None
        assert labels.low is not None and labels.high is not None
        covered += result.low <= 0.7 <= result.high
        ratios.append((result.high - result.low) / (labels.high - labels.low))
    assert 0.94 <= covered / 2000 <= 0.96, f"judge {accuracy:.0%}: {covered / 2000:.3f}"
    assert max(ratios) <= 1.0
    if accuracy >= 0.8:  # a good judge narrows the range
        assert np.mean(ratios) < 0.9
