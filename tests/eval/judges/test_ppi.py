"""Prediction-powered inference: hand-worked values, coverage by seeded simulation, Wilson."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from openodke.eval.judges.ppi import ppi_mean, wilson, z_of


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
