"""openodke.eval.stats against scipy, hand computations and a plain-loop reference bootstrap."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.special
import scipy.stats
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openodke.errors import InputError
from openodke.eval.engine.items import DocItem, RightWrongItem
from openodke.eval.stats import (
    Z_POWER,
    bootstrap_interval,
    detection_limit,
    document_intervals,
    mcnemar,
    paired_bootstrap,
    resampled_sums,
)

# ----------------------------------------------------------------------------- spec examples


def test_spec_detection_limits():
    assert [round(detection_limit(n, 0.10) * 100, 1) for n in (300, 1_500, 5_000)] == [
        5.1,
        2.3,
        1.3,
    ]


def test_spec_paired_example_is_worse_by_eight_points():
    # 300 items: 240 pass in both, 3 fixed, 27 broken, 30 fail in both.
    before = [True] * 240 + [False] * 3 + [True] * 27 + [False] * 30
    after = [True] * 240 + [True] * 3 + [False] * 27 + [False] * 30
    result = paired_bootstrap(before, after)
    assert (result.verdict, round(result.difference * 100, 1)) == ("worse", -8.0)
    assert round(result.detection_limit * 100, 1) == 5.1
    assert mcnemar(before, after).p_value < 0.001


def test_spec_two_documents_span_everything():
    # One right document (tp=1), one wrong (fp=1, fn=1): a draw holds both copies of one of
    # them a quarter of the time each, so the 2.5% and 97.5% points are 0 and 1.
    ranges = document_intervals([1, 0], [0, 1], [0, 1])
    precision = ranges["precision"]
    assert (precision.value, precision.low, precision.high) == (0.5, 0.0, 1.0)


# ----------------------------------------------------------------------------- detection limit


@pytest.mark.parametrize(
    ("n", "share", "expected"),
    [
        # (1.959964 + 0.841621) * sqrt(0.1 / 300) = 2.801585 * 0.0182574 = 0.0511497
        (300, 0.10, 0.0511497),
        (100, 0.25, 2.801585 * 0.05),
        (1, 1.0, 2.801585),
        (50, 0.0, 0.0),
    ],
)
def test_detection_limit_by_hand(n, share, expected):
    assert pytest.approx(2.801585, abs=1e-12) == Z_POWER
    assert detection_limit(n, share) == pytest.approx(expected, rel=1e-6, abs=1e-12)


@pytest.mark.parametrize(("n", "share"), [(0, 0.1), (-3, 0.1), (10, -0.1), (10, 1.5)])
def test_detection_limit_refuses_impossible_inputs(n, share):
    with pytest.raises(InputError):
        detection_limit(n, share)


# ----------------------------------------------------------------------------- McNemar


def _flipped(gained: int, lost: int, both_right: int = 5, both_wrong: int = 3):
    a = [True] * both_right + [False] * gained + [True] * lost + [False] * both_wrong
    b = [True] * both_right + [True] * gained + [False] * lost + [False] * both_wrong
    return a, b


@pytest.mark.parametrize(
    ("gained", "lost"),
    [
        (0, 0),
        (1, 0),
        (0, 1),
        (4, 0),
        (3, 27),
        (14, 16),
        (16, 14),
        (10, 10),
        (50, 30),
        (0, 25),
        (7, 1),
        (460, 500),
        (2100, 2000),
        (2600, 2400),  # 5,000 flips: the last summed in exact integers
        (2601, 2400),  # 5,001 flips: the first summed in logs
        (20000, 20500),
        (60000, 59000),
        (70000, 50000),  # p underflows to 0 in both
    ],
)
def test_mcnemar_equals_scipy_exact_binomial_test(gained, lost):
    a, b = _flipped(gained, lost)
    result = mcnemar(a, b)
    assert (result.items, result.gained, result.lost) == (len(a), gained, lost)
    flips = gained + lost
    expected = 1.0 if flips == 0 else scipy.stats.binomtest(gained, flips, 0.5).pvalue
    # Up to 5,000 flips the tail is exact integers; beyond, logs good to about 1e-10.
    assert result.p_value == pytest.approx(
        expected, rel=1e-12 if flips <= 5000 else 1e-8, abs=1e-300
    )


def test_mcnemar_spec_line_value():
    # 14 gained, 16 lost: 2 * P(X <= 14), X ~ Bin(30, 1/2) = 0.8555..., printed 0.856.
    a, b = _flipped(14, 16, both_right=240, both_wrong=30)
    assert f"{mcnemar(a, b).p_value:.3f}" == "0.856"


def test_mcnemar_needs_equal_lengths():
    with pytest.raises(InputError):
        mcnemar([True, False], [True])


# ----------------------------------------------------------------------------- reference loop


def _reference_metric(name: str, tp: int, fp: int, fn: int) -> Fraction | None:
    numerator, denominator = {
        "precision": (tp, tp + fp),
        "recall": (tp, tp + fn),
        "f1": (2 * tp, 2 * tp + fp + fn),
        "accuracy": (tp, tp + fn),  # items: tp = right, fn = wrong
    }[name]
    return None if denominator == 0 else Fraction(numerator, denominator)


def _reference_quantile(values: list[float], q: float) -> float:
    # Linear interpolation between order statistics (Hyndman & Fan type 7, numpy's default).
    ordered = sorted(values)
    h = (len(ordered) - 1) * q
    low = math.floor(h)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (h - low) * (ordered[high] - ordered[low])


def _reference_draws(keys: list[tuple], resamples: int, seed: int) -> list[list[int]]:
    """The documented draws, rebuilt by hand: unit indices for each draw."""
    n = len(keys)
    first: dict[tuple, int] = {}
    sizes: dict[tuple, int] = {}
    for index, key in enumerate(keys):
        first.setdefault(key, index)
        sizes[key] = sizes.get(key, 0) + 1
    rng = np.random.default_rng(seed)
    if len(first) * 8 <= n:  # grouped: multinomial over groups in first-appearance order
        groups = list(first)
        counts = rng.multinomial(n, [sizes[key] / n for key in groups], size=resamples)
        return [
            [first[key] for key, count in zip(groups, row, strict=True) for _ in range(count)]
            for row in counts
        ]
    return rng.integers(0, n, size=(resamples, n), dtype=np.int32).tolist()


def _reference_paired(a_rows, b_rows, metric, *, resamples, seed, level=0.95, method):
    """Plain-loop paired bootstrap: each draw's totals summed in Python, metrics as Fractions;
    the ends read as percentile or expanded BCa intervals, written out by hand."""
    keys = [(*x, *y) for x, y in zip(a_rows, b_rows, strict=True)]
    a_values, b_values, differences = [], [], []
    for draw in _reference_draws(keys, resamples, seed):
        totals_a = [sum(a_rows[i][k] for i in draw) for k in range(3)]
        totals_b = [sum(b_rows[i][k] for i in draw) for k in range(3)]
        value_a = _reference_metric(metric, *totals_a)
        value_b = _reference_metric(metric, *totals_b)
        if value_a is not None:
            a_values.append(float(value_a))
        if value_b is not None:
            b_values.append(float(value_b))
        if value_a is not None and value_b is not None:
            differences.append(float(value_b) - float(value_a))

    def whole(rows, skip=None):
        kept = [row for i, row in enumerate(rows) if i != skip]
        return _reference_metric(metric, *(sum(row[k] for row in kept) for k in range(3)))

    def left_out(rows):
        return [whole(rows, skip=i) for i in range(len(rows))]

    def difference(x, y):
        return None if x is None or y is None else float(y) - float(x)

    n = len(keys)
    estimate_a, estimate_b = whole(a_rows), whole(b_rows)
    loo_a, loo_b = left_out(a_rows), left_out(b_rows)
    loo_d = [difference(x, y) for x, y in zip(loo_a, loo_b, strict=True)]
    return (
        _reference_bounds(differences, difference(estimate_a, estimate_b), loo_d, n, level, method),
        _reference_bounds(a_values, estimate_a, loo_a, n, level, method),
        _reference_bounds(b_values, estimate_b, loo_b, n, level, method),
    )


def _reference_bounds(values, estimate, left_out, n, level, method):
    """Percentile or expanded BCa ends, with scipy's normal and t; BCa falls back to the
    expanded percentile interval when every draw is on one side of the estimate."""
    if not values:
        return None
    tail = (1 - level) / 2
    if method == "percentile" or estimate is None or n < 2:
        return (_reference_quantile(values, tail), _reference_quantile(values, 1 - tail))
    estimate = float(estimate)
    loo = [float(x) for x in left_out if x is not None]
    mean = sum(loo) / len(loo) if loo else 0.0
    m2 = sum((x - mean) ** 2 for x in loo) / len(loo) if loo else 0.0
    m4 = sum((x - mean) ** 4 for x in loo) / len(loo) if loo else 0.0
    # Satterthwaite's degrees of freedom, capped at n − 1 (intervals.degrees_of_freedom).
    df = n - 1
    if len(loo) >= 2 and m4 > m2 * m2:
        df = max(1, min(n - 1, math.floor(2 * len(loo) * m2 * m2 / (m4 - m2 * m2))))
    z = -math.sqrt(n / (n - 1)) * scipy.stats.t.isf(tail, df)
    below = sum(v < estimate for v in values) + sum(v == estimate for v in values) / 2
    if 0 < below < len(values):
        z0 = scipy.special.ndtri(below / len(values))
        squares = sum((mean - x) ** 2 for x in loo)
        a = sum((mean - x) ** 3 for x in loo) / (6 * squares**1.5) if squares > 0 else 0.0
        ends = [z0 + (z0 + q) / (1 - a * (z0 + q)) for q in (z, -z)]
        if all(1 - a * (z0 + q) > 0 for q in (z, -z)):
            return tuple(_reference_quantile(values, scipy.special.ndtr(w)) for w in ends)
    low = scipy.special.ndtr(z)
    return (_reference_quantile(values, low), _reference_quantile(values, 1 - low))


def _approx_pair(pair):
    # 1e-9: the t point is good to 1e-10 relative, and quantile positions move with it.
    return None if pair is None else pytest.approx(pair, abs=1e-9)


def _docs(rows, prefix="d"):
    return [DocItem(id=f"{prefix}{i}", tp=tp, fp=fp, fn=fn) for i, (tp, fp, fn) in enumerate(rows)]


@pytest.mark.parametrize("method", ["expanded-bca", "percentile"])
@pytest.mark.parametrize("metric", ["precision", "recall", "f1"])
@pytest.mark.parametrize(
    "shape",
    [
        "distinct",  # few documents, all different: the index path
        "repeated",  # many documents, few distinct rows: the grouped multinomial path
        "sparse",  # most documents have no predictions: precision undefined in some draws
    ],
)
def test_document_bootstrap_matches_plain_loop_reference(metric, shape, method):
    rng = np.random.default_rng(7)
    if shape == "distinct":
        a = rng.integers(0, 6, size=(12, 3)).tolist()
        b = rng.integers(0, 6, size=(12, 3)).tolist()
    elif shape == "repeated":
        a = [[1, 0, 1], [2, 1, 0], [0, 0, 2]] * 30
        b = [[1, 1, 1], [2, 0, 0], [0, 0, 2]] * 30
    else:
        a = [[0, 0, 1]] * 5 + [[1, 0, 0]]
        b = [[0, 0, 1]] * 4 + [[0, 1, 1], [1, 1, 0]]
    result = paired_bootstrap(
        _docs(a), _docs(b), metric=metric, resamples=300, seed=11, method=method
    )
    interval, a_interval, b_interval = _reference_paired(
        a, b, metric, resamples=300, seed=11, method=method
    )
    assert result.interval == _approx_pair(interval)
    assert result.a_interval == _approx_pair(a_interval)
    assert result.b_interval == _approx_pair(b_interval)


@pytest.mark.parametrize("method", [None, "percentile", "expanded-bca"])
@pytest.mark.parametrize(("n", "seed"), [(10, 0), (200, 3)])
def test_item_bootstrap_matches_plain_loop_reference(n, seed, method):
    # Items read percentile intervals unless asked otherwise (DECISIONS #42).
    rng = np.random.default_rng(seed)
    a = (rng.random(n) < 0.7).tolist()
    b = (rng.random(n) < 0.75).tolist()
    # Items as (right, 0, wrong) rows, so accuracy is the reference's tp / (tp + fn).
    rows_a = [(int(x), 0, int(not x)) for x in a]
    rows_b = [(int(x), 0, int(not x)) for x in b]
    result = paired_bootstrap(a, b, resamples=400, seed=seed, method=method)
    interval, a_interval, b_interval = _reference_paired(
        rows_a, rows_b, "accuracy", resamples=400, seed=seed, method=method or "percentile"
    )
    assert result.interval == _approx_pair(interval)
    assert result.a_interval == _approx_pair(a_interval)
    assert result.b_interval == _approx_pair(b_interval)
    assert result.difference == pytest.approx((sum(b) - sum(a)) / n, abs=1e-15)


def test_paired_intervals_agree_with_scipy_bootstrap_loosely():
    # Independent draws, same method (percentile, paired): ends agree to sampling noise.
    rng = np.random.default_rng(5)
    n = 200
    gold = rng.poisson(4, n)
    tp_a = rng.binomial(gold, 0.6)
    tp_b = rng.binomial(gold, 0.65)
    fp_a, fp_b = rng.poisson(1.5, n), rng.poisson(1.2, n)
    a = _docs(zip(tp_a.tolist(), fp_a.tolist(), (gold - tp_a).tolist(), strict=True))
    b = _docs(zip(tp_b.tolist(), fp_b.tolist(), (gold - tp_b).tolist(), strict=True))
    ours = paired_bootstrap(a, b, metric="f1", resamples=5000, seed=1, method="percentile")

    def f1_difference(ta, fa, na, tb, fb, nb, axis=-1):
        s = [x.sum(axis=axis) for x in (ta, fa, na, tb, fb, nb)]
        return 2 * s[3] / (2 * s[3] + s[4] + s[5]) - 2 * s[0] / (2 * s[0] + s[1] + s[2])

    theirs = scipy.stats.bootstrap(
        (tp_a, fp_a, gold - tp_a, tp_b, fp_b, gold - tp_b),
        f1_difference,
        paired=True,
        vectorized=True,
        n_resamples=5000,
        method="percentile",
        rng=np.random.default_rng(2),
    ).confidence_interval
    assert ours.interval == pytest.approx((theirs.low, theirs.high), abs=0.01)

    right_a, right_b = rng.random(n) < 0.8, rng.random(n) < 0.85
    ours_items = paired_bootstrap(right_a.tolist(), right_b.tolist(), resamples=5000, seed=1)
    theirs_items = scipy.stats.bootstrap(
        (right_a.astype(float), right_b.astype(float)),
        lambda x, y, axis=-1: y.mean(axis=axis) - x.mean(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=5000,
        method="percentile",
        rng=np.random.default_rng(2),
    ).confidence_interval
    assert ours_items.interval == pytest.approx((theirs_items.low, theirs_items.high), abs=0.01)


# ----------------------------------------------------------------------------- resampled sums


@pytest.mark.parametrize("method", ["grouped", "indices"])
def test_resampled_sums_draw_n_units_with_replacement(method):
    rng = np.random.default_rng(0)
    values = np.column_stack([np.ones(400, dtype=np.int64), rng.integers(0, 5, 400)])
    sums = resampled_sums(values, resamples=4000, seed=3, method=method)
    assert sums.shape == (4000, 2)
    assert (sums[:, 0] == 400).all()  # every draw holds exactly n units
    # Sum of n draws with replacement: mean n·mean, variance n·var (population variance).
    column = values[:, 1]
    assert sums[:, 1].mean() == pytest.approx(400 * column.mean(), rel=0.01)
    assert sums[:, 1].var() == pytest.approx(400 * column.var(), rel=0.1)


def test_resampled_sums_of_no_units_are_zero():
    assert (resampled_sums(np.zeros((0, 3)), resamples=5, seed=0) == 0).all()


# ----------------------------------------------------------------------------- verdicts


def test_four_one_way_flips_need_mcnemar_to_agree():
    # Four items all fixed: the interval clears zero (no fixed item in a draw of 40 happens
    # (36/40)^40 = 1.5% of the time) but McNemar's exact p = 2 / 2^4 = 0.125.
    a = [True] * 30 + [False] * 4 + [False] * 6
    b = [True] * 30 + [True] * 4 + [False] * 6
    result = paired_bootstrap(a, b)
    assert result.interval[0] > 0
    assert mcnemar(a, b).p_value == 0.125
    assert result.verdict == "inconclusive"


@pytest.mark.parametrize(("shift", "verdict"), [(0.15, "better"), (-0.15, "worse")])
def test_clear_document_changes_get_a_verdict(shift, verdict):
    rng = np.random.default_rng(1)
    gold = rng.poisson(5, 300) + 1
    tp_a = rng.binomial(gold, 0.5)
    tp_b = rng.binomial(gold, 0.5 + shift)
    a = _docs(zip(tp_a.tolist(), [1] * 300, (gold - tp_a).tolist(), strict=True))
    b = _docs(zip(tp_b.tolist(), [1] * 300, (gold - tp_b).tolist(), strict=True))
    result = paired_bootstrap(a, b)
    assert result.verdict == verdict
    # Documents: the limit is Z times the bootstrap standard error of the difference, so it
    # is about Z / (2 × 1.96) of the 95% interval's width.
    low, high = result.interval
    assert result.detection_limit == pytest.approx(Z_POWER * (high - low) / (2 * 1.96), rel=0.15)


def test_undefined_precision_is_none_and_never_nan():
    a = _docs([(0, 0, 2), (0, 0, 1)])  # A predicted nothing: precision undefined
    b = _docs([(1, 0, 1), (0, 1, 1)])
    result = paired_bootstrap(a, b, metric="precision")
    assert (result.a, result.difference, result.interval, result.a_interval) == (
        None,
        None,
        None,
        None,
    )
    assert result.verdict == "inconclusive"
    json.dumps(result.model_dump(mode="json"), allow_nan=False)  # strict JSON
    ranges = document_intervals([0, 0], [0, 0], [0, 0])
    assert all(r.value is None and r.low is None and r.high is None for r in ranges.values())


def test_document_flips_count_documents_whose_own_metric_changed():
    a = _docs([(1, 0, 0), (1, 1, 0), (0, 0, 0), (2, 0, 0)])
    b = _docs([(1, 0, 0), (2, 2, 0), (0, 1, 0), (1, 1, 0)])
    # precision per document: 1→1 same; 1/2→2/4 same; undefined→0 changed; 1→1/2 changed
    result = paired_bootstrap(a, b, metric="precision", resamples=50)
    assert (result.flips, result.flip_share) == (2, 0.5)


def test_fixed_counts_join_every_draw():
    # Two uncited spurious predictions count in every draw: precision 2/(2+2) overall, and
    # no draw can reach 1.0 any more.
    ranges = document_intervals([1, 1], [0, 0], [0, 0], fixed_fp=2)
    assert ranges["precision"].value == 0.5
    assert ranges["precision"].high == 0.5
    assert ranges["recall"].value == 1.0


def test_bootstrap_interval_is_one_runs_range():
    rows = [RightWrongItem(id=f"g{i}", correct=i % 4 != 0) for i in range(200)]
    interval = bootstrap_interval(rows)
    assert interval.value == 0.75
    assert interval.low < 0.75 < interval.high
    docs = _docs([(1, 0, 1), (2, 1, 0), (0, 1, 1)] * 10)
    tp, fp, fn = zip(*[(d.tp, d.fp, d.fn) for d in docs], strict=True)
    assert bootstrap_interval(docs, metric="recall") == document_intervals(tp, fp, fn)["recall"]


@pytest.mark.parametrize(
    ("a", "b", "metric"),
    [
        ([True, False], [True], None),  # lengths differ
        ([True], [True], "f1"),  # not a metric of items
        (_docs([(1, 0, 0)]), _docs([(1, 0, 0)]), "accuracy"),  # not a metric of documents
        (_docs([(1, 0, 0)]), [True], None),  # two kinds
        (_docs([(1, 0, 0)]), _docs([(1, 0, 0)], prefix="x"), None),  # different ids
        ([], [], None),  # nothing to compare
    ],
)
def test_paired_bootstrap_refuses_what_cannot_be_compared(a, b, metric):
    with pytest.raises(InputError):
        paired_bootstrap(a, b, metric=metric, resamples=10)


@pytest.mark.parametrize(("resamples", "level"), [(0, 0.95), (100, 0.0), (100, 1.0)])
def test_settings_are_checked(resamples, level):
    with pytest.raises(InputError):
        paired_bootstrap([True, False], [False, True], resamples=resamples, level=level)


# ----------------------------------------------------------------------------- properties

bools = st.lists(st.booleans(), min_size=1, max_size=60)
count = st.integers(min_value=0, max_value=6)
doc_rows = st.lists(st.tuples(count, count, count), min_size=1, max_size=30)
fast = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fast
@given(values=bools, seed=st.integers(0, 2**32 - 1))
def test_items_compared_with_themselves_are_inconclusive(values, seed):
    result = paired_bootstrap(values, values, resamples=200, seed=seed)
    assert (result.verdict, result.difference, result.interval) == ("inconclusive", 0.0, (0, 0))
    assert result.flips == 0


@fast
@given(rows=doc_rows, metric=st.sampled_from(["precision", "recall", "f1"]))
def test_documents_compared_with_themselves_are_inconclusive(rows, metric):
    docs = _docs(rows)
    result = paired_bootstrap(docs, docs, metric=metric, resamples=200)
    assert result.verdict == "inconclusive"
    assert result.difference in (0.0, None)
    assert result.interval in ((0.0, 0.0), None)


def _swapped(forward, backward):
    assert backward.difference == (None if forward.difference is None else -forward.difference)
    if forward.interval is None:
        assert backward.interval is None
    else:
        assert backward.interval == pytest.approx((-forward.interval[1], -forward.interval[0]))
    assert (backward.a_interval, backward.b_interval) == (forward.b_interval, forward.a_interval)
    opposite = {"better": "worse", "worse": "better", "inconclusive": "inconclusive"}
    assert backward.verdict == opposite[forward.verdict]


@fast
@given(pairs=st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=80))
def test_swapping_items_flips_the_sign(pairs):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    _swapped(paired_bootstrap(a, b, resamples=200), paired_bootstrap(b, a, resamples=200))


@fast
@given(
    pairs=st.lists(
        st.tuples(st.tuples(count, count, count), st.tuples(count, count, count)),
        min_size=1,
        max_size=30,
    ),
    metric=st.sampled_from(["precision", "recall", "f1"]),
)
def test_swapping_documents_flips_the_sign(pairs, metric):
    a, b = _docs([x for x, _ in pairs]), _docs([y for _, y in pairs])
    forward = paired_bootstrap(a, b, metric=metric, resamples=200)
    _swapped(forward, paired_bootstrap(b, a, metric=metric, resamples=200))


@fast
@given(values=bools, other=bools, seed=st.integers(0, 1000))
def test_a_fixed_seed_repeats(values, other, seed):
    b = (other * len(values))[: len(values)]
    first = paired_bootstrap(values, b, resamples=150, seed=seed)
    assert paired_bootstrap(values, b, resamples=150, seed=seed) == first


def test_different_seeds_draw_differently():
    a = [True] * 50 + [False] * 50
    b = [True] * 40 + [False] * 10 + [True] * 20 + [False] * 30
    intervals = {paired_bootstrap(a, b, resamples=500, seed=s).interval for s in range(5)}
    assert len(intervals) > 1


def test_spec_example_verbatim(capsys):
    from openodke.eval import detection_limit, mcnemar, paired_bootstrap

    print([round(detection_limit(n, 0.10) * 100, 1) for n in (300, 1_500, 5_000)])
    # 300 items: 240 pass in both, 3 fixed, 27 broken, 30 fail in both.
    before = [True] * 240 + [False] * 3 + [True] * 27 + [False] * 30
    after = [True] * 240 + [True] * 3 + [False] * 27 + [False] * 30
    result = paired_bootstrap(before, after)
    print(result.verdict, round(result.difference * 100, 1), round(result.detection_limit * 100, 1))
    assert mcnemar(before, after).p_value < 0.001
    assert capsys.readouterr().out == "[5.1, 2.3, 1.3]\nworse -8.0 5.1\n"


def test_document_detection_limit_is_the_expanded_critical_point_plus_power():
    # DECISIONS 162: limit = √(n/(n−1)) · (t_ν(0.975) + z(0.80)) × the bootstrap standard error
    # of B − A, recomputed here from the same draws with scipy's t and normal quantiles.
    from openodke.eval.stats.intervals import degrees_of_freedom
    from openodke.eval.stats.paired import paired_documents
    from openodke.eval.stats.resample import resampled_sums
    from openodke.eval.stats.units import metric_jackknife, metric_values

    rng = np.random.default_rng(8)
    gold = rng.poisson(4, 60) + 1
    tp_a, tp_b = rng.binomial(gold, 0.6), rng.binomial(gold, 0.65)
    a = np.column_stack([tp_a, rng.poisson(1, 60), gold - tp_a])
    b = np.column_stack([tp_b, rng.poisson(1, 60), gold - tp_b])
    pair = paired_documents(a, b, ("f1",), resamples=2000, seed=4, level=0.95).pairs["f1"]
    sums = resampled_sums(np.column_stack([a, b]), resamples=2000, seed=4)
    draws = metric_values("f1", *sums[:, 3:].T) - metric_values("f1", *sums[:, :3].T)
    jackknife = metric_jackknife("f1", b, b.sum(axis=0)) - metric_jackknife("f1", a, a.sum(axis=0))
    df = degrees_of_freedom(jackknife, 60)
    widen = math.sqrt(60 / 59)
    expected = widen * (scipy.stats.t.ppf(0.975, df) + scipy.stats.norm.ppf(0.8))
    assert pair.detection_limit == pytest.approx(expected * np.std(draws, ddof=1), rel=1e-6)
