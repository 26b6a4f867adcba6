"""openodke.eval.stats.intervals: expanded BCa against scipy and hand computations, its fallbacks."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.special
import scipy.stats

from openodke.eval.stats import document_intervals
from openodke.eval.stats.intervals import (
    CONCENTRATED,
    EFFECTIVE_SET,
    SMALL_SET,
    acceleration,
    bias_correction,
    degrees_of_freedom,
    effective_documents,
    expanded_z,
    interval_bounds,
    small_set_note,
    student_t_quantile,
)

# ----------------------------------------------------------------------------- Student's t


@pytest.mark.parametrize(
    "df", [1, 2, 3, 4, 5, 6, 7, 19, 20, 49, 99, 199, 399, 400, 401, 402, 1000, 99_999]
)
@pytest.mark.parametrize("tail", [0.5, 0.25, 0.05, 0.025, 0.005, 1e-6])
def test_student_t_quantile_equals_scipy(df, tail):
    # Series (odd and even df) up to 400, Cornish–Fisher beyond: both within 1e-9 relative.
    expected = scipy.stats.t.isf(tail, df)
    assert student_t_quantile(tail, df) == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("tail", "df"), [(0.0, 5), (0.6, 5), (0.025, 0)])
def test_student_t_quantile_refuses_what_has_none(tail, df):
    with pytest.raises(ValueError):
        student_t_quantile(tail, df)


def test_expanded_z_by_hand():
    # n = 50: −√(50/49) · t_49(0.975) = −1.0101525 · 2.0095752 = −2.0299775
    assert expanded_z(0.95, 50) == pytest.approx(-2.0299775, abs=1e-6)
    # n = 2: −√2 · t_1(0.975) = −1.4142136 · 12.7062047 = −17.9692871
    assert expanded_z(0.95, 2) == pytest.approx(-17.9692871, abs=1e-6)
    # Fewer degrees of freedom widen it: −√(50/49) · t_5(0.975) = −1.0101525 · 2.5705818
    assert expanded_z(0.95, 50, 5) == pytest.approx(-2.5966800, abs=1e-6)
    assert expanded_z(0.95, 1) == -math.inf
    # Large n: the expansion vanishes, z → Φ⁻¹(0.025).
    assert expanded_z(0.95, 1_000_000) == pytest.approx(-1.959964, abs=1e-5)


# ----------------------------------------------------------------------------- parts of BCa


def test_degrees_of_freedom_by_hand():
    # Values 0, 0, 0, 4: mean 1, deviations −1, −1, −1, 3; squares 1, 1, 1, 9.
    # m2 = 12/4 = 3, m4 = (1 + 1 + 1 + 81)/4 = 21; 2·4·3² / (21 − 9) = 72/12 = 6, above n − 1 = 3.
    assert degrees_of_freedom(np.array([0.0, 0.0, 0.0, 4.0]), 4) == 3
    # Nine zeros and one 10: deviations −1 (×9) and 9; m2 = (9 + 81)/10 = 9,
    # m4 = (9 + 6561)/10 = 657; 2·10·81 / (657 − 81) = 1620/576 = 2.81 → 2.
    assert degrees_of_freedom(np.array([0.0] * 9 + [10.0]), 10) == 2
    # Two-point symmetric or constant values say nothing of tails: n − 1.
    assert degrees_of_freedom(np.array([1.0, -1.0] * 5), 10) == 9
    assert degrees_of_freedom(np.full(10, 0.3), 10) == 9
    assert degrees_of_freedom(np.array([np.nan, 1.0]), 2) == 1


def test_bias_correction_counts_ties_half():
    draws = np.sort(np.array([0.0, 0.5, 0.5, 1.0]))
    # Below 0.5: 1 draw, tied: 2 → (1 + 1) / 4 = 0.5, z0 = 0.
    assert bias_correction(draws, 0.5) == 0.0
    # Below 0.75: 3 of 4 → Φ⁻¹(0.75) = 0.6744898.
    assert bias_correction(draws, 0.75) == pytest.approx(0.6744898, abs=1e-7)
    assert bias_correction(draws, 0.25) == pytest.approx(-0.6744898, abs=1e-7)
    assert bias_correction(draws, 2.0) is None  # every draw below: z0 infinite
    assert bias_correction(draws, -1.0) is None


def test_acceleration_by_hand():
    # Leave-one-out values 1, 2, 6: mean 3, d = 2, 1, −3; Σd² = 14, Σd³ = 8 + 1 − 27 = −18;
    # a = −18 / (6 · 14^1.5) = −18 / 314.302 = −0.0572703
    assert acceleration(np.array([1.0, 2.0, 6.0])) == pytest.approx(-0.0572703, abs=1e-7)
    assert acceleration(np.array([1.0, 1.0, 1.0])) == 0.0
    assert acceleration(np.array([np.nan, 1.0, 2.0, 6.0])) == acceleration(
        np.array([1.0, 2.0, 6.0])
    )
    assert acceleration(np.empty(0)) == 0.0


# ----------------------------------------------------------------------------- the interval


def _reference_bca(draws, estimate, jackknife, units, level):
    """BCa at Hesterberg's expanded level, written out with scipy's normal and t."""
    finite = np.sort(draws[np.isfinite(draws)])
    share = (np.sum(finite < estimate) + np.sum(finite <= estimate)) / (2 * finite.size)
    z0 = scipy.special.ndtri(share)
    values = jackknife[np.isfinite(jackknife)]
    d = values.mean() - values
    a = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
    c = values - values.mean()
    m2, m4 = np.mean(c**2), np.mean(c**4)
    df = max(1, min(units - 1, math.floor(2 * values.size * m2**2 / (m4 - m2**2))))
    tail = (1 - level) / 2
    z = -math.sqrt(units / (units - 1)) * scipy.stats.t.isf(tail, df)
    ends = [scipy.special.ndtr(z0 + (z0 + q) / (1 - a * (z0 + q))) for q in (z, -z)]
    return tuple(np.quantile(finite, ends))


@pytest.mark.parametrize("seed", range(4))
def test_interval_bounds_equal_a_written_out_bca_on_fixed_draws(seed):
    rng = np.random.default_rng(seed)
    units = 30
    sample = rng.lognormal(0, 1, units)
    draws = rng.choice(sample, size=(3000, units)).mean(axis=1)
    jackknife = (sample.sum() - sample) / (units - 1)
    found = interval_bounds(
        draws, estimate=sample.mean(), jackknife=jackknife, units=units, level=0.95
    )
    assert found.method == "expanded-bca"
    expected = _reference_bca(draws, sample.mean(), jackknife, units, 0.95)
    assert (found.low, found.high) == pytest.approx(expected, abs=1e-10)


def test_one_runs_f1_range_agrees_with_scipy_bca_loosely():
    # scipy's BCa at the level our expanded z stands for, over its own draws: the ends agree
    # to what 20,000 different draws allow.
    rng = np.random.default_rng(3)
    n = 60
    gold = rng.poisson(4, n)
    tp, fp = rng.binomial(gold, 0.6), rng.poisson(1.5, n)
    fn = gold - tp
    ours = document_intervals(tp, fp, fn, resamples=20_000, seed=1)["f1"]

    def f1(t, f, m, axis=-1):
        t, f, m = (x.sum(axis=axis) for x in (t, f, m))
        return 2 * t / (2 * t + f + m)

    totals = np.array([tp.sum(), fp.sum(), fn.sum()])
    rows = np.column_stack([tp, fp, fn])
    loo = 2 * (totals[0] - rows[:, 0])
    loo = loo / (loo + totals[1] - rows[:, 1] + totals[2] - rows[:, 2])
    z = expanded_z(0.95, n, degrees_of_freedom(loo, n))
    theirs = scipy.stats.bootstrap(
        (tp, fp, fn),
        f1,
        paired=True,
        vectorized=True,
        n_resamples=20_000,
        confidence_level=1 - 2 * scipy.special.ndtr(z),
        method="BCa",
        rng=np.random.default_rng(2),
    ).confidence_interval
    assert (ours.low, ours.high) == pytest.approx((theirs.low, theirs.high), abs=0.004)


def test_every_draw_on_one_side_falls_back_to_the_expanded_percentile():
    draws = np.linspace(0.6, 0.9, 1001)
    found = interval_bounds(
        draws, estimate=0.5, jackknife=np.array([0.4, 0.5, 0.6]), units=3, level=0.95
    )
    tail = scipy.special.ndtr(expanded_z(0.95, 3))  # Φ(−√(3/2) · t_2(0.975)) = Φ(−5.2734)
    assert found.method == "expanded-percentile"
    assert (found.low, found.high) == pytest.approx(tuple(np.quantile(draws, [tail, 1 - tail])))


def test_an_acceleration_that_folds_over_falls_back():
    # Leave-one-out values 0 (×9) and −10: mean −1, d = −1 (×9) and 9, Σd³ = −9 + 729 = 720,
    # Σd² = 90, a = 720 / (6 · 90^1.5) = 0.1405. With two units z = ±17.97 and at the upper
    # end 1 − a(z0 + z) = 1 − 0.1405 · 17.97 < 0: BCa's adjusted point is undefined there.
    jackknife = np.array([0.0] * 9 + [-10.0])
    assert acceleration(jackknife) == pytest.approx(0.1405457, abs=1e-7)
    draws = np.random.default_rng(0).normal(0.0, 1.0, 2000)
    found = interval_bounds(draws, estimate=0.0, jackknife=jackknife, units=2, level=0.95)
    assert found.method == "expanded-percentile"


@pytest.mark.parametrize(
    ("estimate", "units", "method"), [(None, 30, "expanded-bca"), (0.5, 1, "expanded-bca")]
)
def test_no_estimate_or_one_unit_reads_the_percentile_interval(estimate, units, method):
    draws = np.linspace(0.0, 1.0, 401)
    found = interval_bounds(
        draws, estimate=estimate, jackknife=np.empty(0), units=units, level=0.9, method=method
    )
    assert found == (pytest.approx(0.05), pytest.approx(0.95), "percentile")


def test_undefined_draws_are_left_out_and_none_defined_is_none():
    draws = np.array([np.nan, 0.2, 0.4, np.nan, 0.6])
    found = interval_bounds(draws, estimate=0.4, jackknife=np.empty(0), units=1, level=0.5)
    assert (found.low, found.high) == pytest.approx((0.3, 0.5))  # quartiles of 0.2, 0.4, 0.6
    assert (
        interval_bounds(np.full(5, np.nan), estimate=0.4, jackknife=np.empty(0), units=5, level=0.9)
        is None
    )


@pytest.mark.parametrize("seed", range(6))
def test_negated_draws_give_the_exact_mirror_image(seed):
    rng = np.random.default_rng(seed)
    draws = np.round(rng.gamma(2.0, 1.0, 999) - 2.0, 2)  # skewed, with ties
    jackknife = rng.gamma(2.0, 1.0, 12)
    estimate = float(np.round(np.median(draws) + 0.1, 2))
    forward = interval_bounds(draws, estimate=estimate, jackknife=jackknife, units=12, level=0.95)
    backward = interval_bounds(
        -draws, estimate=-estimate, jackknife=-jackknife, units=12, level=0.95
    )
    assert (backward.low, backward.high) == (-forward.high, -forward.low)


# ----------------------------------------------------------------------------- small sets


TAIL = (
    ": too few for any range to be trusted (below 10 a 95% range can cover the truth far "
    "less than 95% of the time); read the ranges as rough"
)


@pytest.mark.parametrize(
    ("units", "unit", "total", "expected"),
    [
        (1, "document", None, "only 1 document" + TAIL),
        (9, "item", 9, "only 9 items" + TAIL),
        (4, "document", 15, "only 4 of 15 documents hold a gold or predicted fact" + TAIL),
        (1, "document", 200, "only 1 of 200 documents holds a gold or predicted fact" + TAIL),
        (10, "document", 200, None),
        (2000, "item", None, None),
    ],
)
def test_small_set_note(units, unit, total, expected):
    assert SMALL_SET == 10
    assert small_set_note(units, unit, total=total) == expected


# ------------------------------------------------------------------ concentrated sets (Kish)


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        ([4, 4, 4, 4], 4.0),  # equal sizes: every document counts
        ([10, 1, 1], 144 / 102),  # (10 + 1 + 1)² / (100 + 1 + 1)
        ([0, 0, 3], 1.0),  # empty documents add nothing
        ([0, 0], 0.0),
    ],
)
def test_effective_documents_is_kish(weights, expected):
    assert effective_documents(np.array(weights)) == pytest.approx(expected)


def test_effective_documents_equals_the_design_effect_of_statsmodels():
    # Kish's n_eff = n / deff with deff = n Σw² / (Σw)², the inverse of statsmodels'
    # DescrStatsW(…, weights=w).sum_weights ** 2 / Σw² (its effective "nobs" for weights w).
    from statsmodels.stats.weightstats import DescrStatsW

    w = np.random.default_rng(3).lognormal(0.0, 1.5, 200).round() + 1
    described = DescrStatsW(np.zeros(200), weights=w)
    assert effective_documents(w) == pytest.approx(described.sum_weights**2 / float((w * w).sum()))


CONCENTRATED_NOTE = (
    "the facts sit in few documents: {eff} effective documents of {units} (Kish's (Σw)²/Σw², "
    "w = a document's gold + predicted facts), under 30: a 95% range can cover the truth less "
    "than 95% of the time when a few documents hold most facts; read the ranges as rough"
)


@pytest.mark.parametrize(
    ("units", "effective", "flagged"),
    [
        (200, 29.9, True),  # the threshold: under 30 effective documents ...
        (200, 30.0, False),
        (45, 29.9, True),  # ... when they are at most 1/1.5 of the informative documents
        (44, 29.9, False),  # 20-odd documents of similar sizes cover 95%: not concentrated
        (20, 16.4, False),  # Poisson(4) sizes: design effect about 1.2
        (1000, 3.2, True),
    ],
)
def test_the_concentrated_set_threshold(units, effective, flagged):
    assert (EFFECTIVE_SET, CONCENTRATED) == (30, 1.5)
    note = small_set_note(units, effective=effective)
    expected = CONCENTRATED_NOTE.format(eff=f"{effective:.1f}", units=units)
    assert note == (expected if flagged else None)
    # Below ten informative documents the small-set note wins, whatever the concentration.
    assert small_set_note(9, effective=1.0) == "only 9 documents" + TAIL
