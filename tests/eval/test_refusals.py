"""Refusal precision: the spec example, Wilson against statsmodels, and strata weighted by size."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from statsmodels.stats.proportion import proportion_confint

from openodke.errors import InputError
from openodke.eval import RefusalLabel, report_refusals
from openodke.eval.refusals import refusal_precision, wilson_interval


def test_spec_example_verbatim() -> None:
    def label(judgement: str, gold: bool) -> RefusalLabel:
        return RefusalLabel(
            id=judgement,
            claim="Loud — performer — Rihanna.",
            text="…",
            verdict="not_found",
            reason="the passage does not settle it",
            predicate="performer",
            gold=gold,
            judgement=judgement,
        )

    labels = [label("refusal_correct", False)] * 6 + [label("gold_wrong", True)] * 2
    labels += [label("refusal_wrong", True)] * 2 + [label("unsure", False)]
    report = report_refusals(labels)
    assert (
        "refusal precision 0.800 [0.490, 0.943] (Wilson 95%), 10 judged, 1 unsure"
        in report.render()
    )
    # 8 right of 10 judged; statsmodels' Wilson interval for 8/10 is the reference.
    low, high = proportion_confint(8, 10, alpha=0.05, method="wilson")
    assert report.stage == "refusals"
    assert report.n == 11
    assert report.metrics["refusal_precision"] == pytest.approx(0.8)
    assert report.metrics["low"] == pytest.approx(low, abs=1e-6)
    assert report.metrics["high"] == pytest.approx(high, abs=1e-6)
    assert report.metrics["judged"] == 10
    assert report.metrics["unsure"] == 1
    assert report.metrics["effective_n"] == pytest.approx(10.0)
    assert report.breakdown["verdict=not_found"]["refusal_precision"] == pytest.approx(0.8)
    assert "stratum=not_found" not in report.breakdown  # one implicit stratum: no stratum rows


@pytest.mark.parametrize(
    ("count", "nobs"),
    [(0, 1), (1, 1), (0, 10), (10, 10), (8, 10), (1, 3), (45, 50), (15, 50), (500, 1000)]
    + [(3.7, 12.4), (37.25, 41.9)],  # effective (non-integer) sizes, as the stratified row uses
)
def test_wilson_matches_statsmodels(count: float, nobs: float) -> None:
    low, high = proportion_confint(count, nobs, alpha=0.05, method="wilson")
    got = wilson_interval(count / nobs, nobs)
    assert got == pytest.approx((low, high), abs=1e-6)


def test_wilson_needs_positive_n() -> None:
    with pytest.raises(ValueError, match="n > 0"):
        wilson_interval(0.5, 0)


def row(
    i: int, right: bool, stratum: str | None = None, size: int | None = None, **extra: str
) -> RefusalLabel:
    return RefusalLabel(
        id=f"r{i}",
        claim="A — p — B.",
        text="…",
        verdict=extra.pop("verdict", "not_found"),
        reason="r",
        predicate="p",
        gold=None,
        judgement="refusal_correct" if right else "refusal_wrong",
        stratum=stratum,
        stratum_size=size,
        **extra,
    )


def stratum(name: str, right: int, n: int, size: int | None, start: int = 0) -> list[RefusalLabel]:
    return [row(start + i, i < right, name, size) for i in range(n)]


def test_equal_shares_pooled_mislead_and_strata_weighted_recover_the_truth() -> None:
    # Spec: 1,000 refusals 90% right and 50 that are 30% right; equal shares draw 50 + 50.
    # True precision: (1000·0.9 + 50·0.3) / 1050 = 915/1050 = 0.8714.
    # Pooled as one random sample: (45 + 15) / 100 = 0.600. (The spec says 62%; exact equal
    # shares at these rates give 60%.)
    labels = stratum("big", 45, 50, 1000) + stratum("small", 15, 50, 50, start=50)
    one_sample = [r.model_copy(update={"stratum": None, "stratum_size": None}) for r in labels]
    pooled = refusal_precision(one_sample)
    assert pooled.refusal_precision == pytest.approx(0.600)
    assert not pooled.weighted
    report = report_refusals(labels)
    assert report.metrics["refusal_precision"] == pytest.approx(915 / 1050)
    assert "refusal precision 0.871 [" in report.render()
    # Weighted per stratum: W = 1000/1050, 50/1050.
    w_big, w_small = 1000 / 1050, 50 / 1050
    var = w_big**2 * 0.9 * 0.1 / 50 + w_small**2 * 0.3 * 0.7 / 50
    n_eff = (915 / 1050) * (135 / 1050) / var
    assert report.metrics["effective_n"] == pytest.approx(n_eff)
    low, high = proportion_confint(915 / 1050 * n_eff, n_eff, alpha=0.05, method="wilson")
    assert (report.metrics["low"], report.metrics["high"]) == pytest.approx((low, high))
    r_low, r_high = report.metrics["low"], report.metrics["high"]
    assert r_low is not None and r_high is not None
    assert r_low < 915 / 1050 < r_high
    assert not r_low <= 0.600 <= r_high  # the pooled reading falls outside the interval
    assert report.breakdown["stratum=big"]["refusal_precision"] == pytest.approx(0.9)
    assert report.breakdown["stratum=small"]["refusal_precision"] == pytest.approx(0.3)
    assert any("weighted by size" in note for note in report.notes)


def test_hand_computed_three_strata() -> None:
    # Sizes 200, 100, 700 → W = 0.2, 0.1, 0.7; p_h = 8/10, 3/5, 19/20.
    # p = 0.16 + 0.06 + 0.665 = 0.885
    # Var = 0.04·0.8·0.2/10 + 0.01·0.6·0.4/5 + 0.49·0.95·0.05/20
    #     = 0.00064 + 0.00048 + 0.00116375 = 0.00228375
    # n_eff = 0.885·0.115 / 0.00228375 = 44.565...
    labels = stratum("a", 8, 10, 200) + stratum("b", 3, 5, 100, 10) + stratum("c", 19, 20, 700, 15)
    got = refusal_precision(labels)
    assert got.refusal_precision == pytest.approx(0.885)
    assert got.effective_n == pytest.approx(0.885 * 0.115 / 0.00228375)
    assert got.judged == 35
    assert got.weighted


def test_sizes_argument_overrides_and_fills_in() -> None:
    labels = stratum("big", 45, 50, None) + stratum("small", 15, 50, None, start=50)
    without = report_refusals(labels)
    assert without.metrics["refusal_precision"] is None
    assert "rows span strata without sizes" in without.notes[0]
    assert without.breakdown["stratum=big"]["refusal_precision"] == pytest.approx(0.9)
    with_sizes = report_refusals(labels, sizes={"big": 1000, "small": 50})
    assert with_sizes.metrics["refusal_precision"] == pytest.approx(915 / 1050)


def test_a_row_spanning_strata_in_the_breakdown_is_weighted_too() -> None:
    labels = [
        row(i, i < 9, "x/not_found", 900, dataset="x", verdict="not_found") for i in range(10)
    ]
    labels += [
        row(10 + i, i < 1, "x/contradicted", 100, dataset="x", verdict="contradicted")
        for i in range(10)
    ]
    report = report_refusals(labels)
    # 0.9·0.9 + 0.1·0.1 = 0.82, not the pooled 10/20.
    assert report.breakdown["dataset=x"]["refusal_precision"] == pytest.approx(0.82)
    assert report.breakdown["verdict=contradicted"]["refusal_precision"] == pytest.approx(0.1)
    assert report.breakdown["verdict=not_found"]["refusal_precision"] == pytest.approx(0.9)
    assert "extractor=" not in " ".join(report.breakdown)


def test_default_stratum_is_dataset_extractor_verdict() -> None:
    # No stratum and no sizes, but two verdicts: drawn in equal shares, so no pooled figure.
    labels = [row(i, True, verdict="not_found") for i in range(3)]
    labels += [row(3 + i, False, verdict="contradicted") for i in range(3)]
    report = report_refusals(labels)
    assert report.metrics["refusal_precision"] is None
    assert report.breakdown["stratum=-/-/contradicted"]["refusal_precision"] == 0.0
    assert report.breakdown["stratum=-/-/not_found"]["refusal_precision"] == 1.0


def test_zero_variance_uses_the_judged_count() -> None:
    labels = stratum("a", 5, 5, 10) + stratum("b", 4, 4, 30, 5)
    got = refusal_precision(labels)
    assert got.refusal_precision == pytest.approx(1.0)
    assert got.effective_n == 9.0
    low, high = proportion_confint(9, 9, alpha=0.05, method="wilson")
    assert (got.low, got.high) == pytest.approx((low, high))


@pytest.mark.parametrize(
    ("labels", "why", "unsure"),
    [
        ([], "no labels", 0),
        ([row(0, True).model_copy(update={"judgement": "unsure"})] * 3, "all 3 labels unsure", 3),
    ],
)
def test_degenerate_cases_give_none_with_a_note(
    labels: list[RefusalLabel], why: str, unsure: int
) -> None:
    report = report_refusals(labels)
    for key in ("refusal_precision", "low", "high", "effective_n"):
        assert report.metrics[key] is None
    assert report.metrics["judged"] == 0
    assert report.metrics["unsure"] == unsure
    assert report.notes[0] == f"refusal precision — ({why}), 0 judged, {unsure} unsure"
    json.loads(report.model_dump_json())  # strict JSON: null, never NaN
    assert "NaN" not in report.model_dump_json()


def test_a_stratum_of_only_unsure_is_left_out_with_a_note() -> None:
    unsure = [
        r.model_copy(update={"judgement": "unsure"}) for r in stratum("c", 0, 2, 500, start=90)
    ]
    labels = stratum("a", 9, 10, 100) + stratum("b", 1, 10, 100, 10) + unsure
    report = report_refusals(labels)
    assert report.metrics["refusal_precision"] == pytest.approx(0.5)
    assert report.breakdown["stratum=c"]["refusal_precision"] is None
    assert any("only unsure" in n for n in report.notes)


def test_inconsistent_sizes_are_input_errors() -> None:
    with pytest.raises(InputError, match="sizes"):
        refusal_precision(stratum("a", 1, 2, 10) + stratum("a", 1, 2, 20, 2))
    with pytest.raises(InputError, match="3 labels but size 2"):
        refusal_precision(stratum("a", 1, 3, 2) + stratum("b", 1, 2, 5, 3))


def test_label_model_is_strict_and_frozen() -> None:
    good = row(0, True)
    with pytest.raises(ValidationError):
        RefusalLabel.model_validate({**good.model_dump(), "extra": 1})
    with pytest.raises(ValidationError):
        RefusalLabel.model_validate({**good.model_dump(), "judgement": "maybe"})
    with pytest.raises(ValidationError):
        RefusalLabel.model_validate({**good.model_dump(), "stratum_size": 0})
    with pytest.raises(ValidationError):
        good.id = "x"  # type: ignore[misc]
    assert RefusalLabel.model_validate_json(good.model_dump_json()) == good


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 30), st.integers(0, 30), st.integers(1, 5000)),
        min_size=2,
        max_size=5,
    )
)
def test_weighted_precision_lies_between_strata(cells: list[tuple[int, int, int]]) -> None:
    labels: list[RefusalLabel] = []
    rates = []
    for h, (n, right, size) in enumerate(cells):
        right = min(right, n)
        labels += stratum(f"s{h}", right, n, max(size, n), start=len(labels))
        rates.append(right / n)
    got = refusal_precision(labels)
    assert got.refusal_precision is not None and got.low is not None and got.high is not None
    assert min(rates) - 1e-12 <= got.refusal_precision <= max(rates) + 1e-12
    assert 0.0 <= got.low <= got.refusal_precision <= got.high <= 1.0
    assert got.effective_n is not None and math.isfinite(got.effective_n)
