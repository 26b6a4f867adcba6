"""Two runs over the same draws: each metric's values, ranges, difference and verdict.

`paired_items` (accuracy, with McNemar's exact test) and `paired_documents` (precision, recall
and f1 from one set of draws) take arrays in one order; `openodke.eval.stats.paired_bootstrap`
and `openodke.eval.compare.compare_items` take rows. Both runs see the same draws (paired, Koehn
2004); ranges are read by `openodke.eval.stats.intervals` (expanded BCa for documents, percentile for
items unless asked otherwise, DECISIONS #40, #42).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from openodke.eval.stats.intervals import (
    IntervalMethod,
    degrees_of_freedom,
    expanded_z,
    interval_bounds,
)
from openodke.eval.stats.resample import resampled_sums
from openodke.eval.stats.significance import Z_POWER, binomial_two_sided, detection_limit
from openodke.eval.stats.units import (
    check_settings,
    item_jackknife,
    metric_jackknife,
    metric_values,
    scalar,
)

__all__ = ["Paired", "PairedDraws", "Verdict", "paired_documents", "paired_items"]

Verdict = Literal["better", "worse", "inconclusive"]

Z_80 = 0.841621
"""z for 80% power: Φ⁻¹(0.80)."""


class Paired(BaseModel):
    """One metric compared between runs A and B over the same units."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    items: int = Field(description="Units compared (items or documents).")
    a: float | None = Field(description="The metric for A; None when undefined.")
    b: float | None = Field(description="The metric for B; None when undefined.")
    difference: float | None = Field(description="B − A.")
    interval: tuple[float, float] | None = Field(
        description="Expanded BCa interval of B − A (percentile for items)."
    )
    a_interval: tuple[float, float] | None = Field(description="A's range over the same draws.")
    b_interval: tuple[float, float] | None = Field(description="B's range over the same draws.")
    flips: int = Field(
        description="Items whose right/wrong changed; documents whose own value of the metric "
        "changed (an undefined value equals only an undefined one)."
    )
    flip_share: float = Field(description="flips / items.")
    detection_limit: float | None = Field(
        description="Smallest change the set detects (95% confidence, 80% power), filled for "
        "every verdict: Z·sqrt(flip_share/items) for items; for documents (√(n/(n−1))·t_ν + "
        "z(0.80)·√(n/(n−1))) × the bootstrap standard error of B − A, the expanded interval's "
        "critical point plus 80% power's (a true change of that size clears zero 80% of the "
        "time)."
    )
    verdict: Verdict = Field(
        description="better or worse when the whole interval is above or below zero (items: "
        "and McNemar's exact p < 0.05); else inconclusive."
    )
    level: float = Field(description="Confidence level of the intervals.")
    resamples: int = Field(description="Bootstrap draws.")
    seed: int | None = Field(description="Seed of numpy.random.default_rng.")


class PairedDraws(NamedTuple):
    """Every metric of one paired comparison, from one set of draws."""

    pairs: dict[str, Paired]
    undefined: dict[str, int]
    """Per metric, the draws where B − A was undefined (left out of its interval)."""
    fallbacks: tuple[str, ...]
    """Metrics whose B − A range fell back from BCa to the expanded percentile interval."""


def paired_items(
    a: np.ndarray,
    b: np.ndarray,
    *,
    resamples: int,
    seed: int | None,
    level: float,
    method: IntervalMethod = "percentile",
) -> Paired:
    """Accuracy of B against A over right/wrong arrays in one order, with McNemar's test.

    The ranges are percentile intervals by default: the spec prints them, McNemar's exact test
    must agree before a verdict, and the A/A rate is 3.8% (DECISIONS #26, #42).
    """
    check_settings(resamples, level)
    n = a.shape[0]
    sums = resampled_sums(np.column_stack([a, b]), resamples=resamples, seed=seed)
    flips = int(np.count_nonzero(a != b))
    p_value = binomial_two_sided(int(np.count_nonzero(~a & b)), int(np.count_nonzero(a & ~b)))
    jackknife_a, jackknife_b = item_jackknife(a), item_jackknife(b)
    paired, _ = _paired(
        a_value=float(a.sum()) / n,
        b_value=float(b.sum()) / n,
        difference=float(int(b.sum()) - int(a.sum())) / n,  # one rounding, not two
        a_draws=sums[:, 0] / n,
        b_draws=sums[:, 1] / n,
        jackknives=(jackknife_a, jackknife_b, jackknife_b - jackknife_a),
        items=n,
        flips=flips,
        limit=detection_limit(n, flips / n),
        p_value=p_value,
        level=level,
        resamples=resamples,
        seed=seed,
        method=method,
    )
    return paired


def paired_documents(
    a: np.ndarray,
    b: np.ndarray,
    metrics: Sequence[str],
    *,
    resamples: int,
    seed: int | None,
    level: float,
    method: IntervalMethod = "expanded-bca",
) -> PairedDraws:
    """Each metric of B against A over n × 3 tp/fp/fn arrays in one order, from one set of
    draws, with the draws where B − A was undefined and the metrics whose range fell back."""
    check_settings(resamples, level)
    n = a.shape[0]
    sums = resampled_sums(np.column_stack([a, b]), resamples=resamples, seed=seed)
    totals_a, totals_b = a.sum(axis=0), b.sum(axis=0)
    pairs: dict[str, Paired] = {}
    undefined: dict[str, int] = {}
    fallbacks = []
    for name in metrics:
        a_draws, b_draws = metric_values(name, *sums[:, :3].T), metric_values(name, *sums[:, 3:].T)
        difference = b_draws - a_draws
        finite = difference[np.isfinite(difference)]
        per_doc_a, per_doc_b = metric_values(name, *a.T), metric_values(name, *b.T)
        same = (per_doc_a == per_doc_b) | (np.isnan(per_doc_a) & np.isnan(per_doc_b))
        jackknife_a, jackknife_b = (
            metric_jackknife(name, a, totals_a),
            metric_jackknife(name, b, totals_b),
        )
        # Koehn's bootstrap gives the standard error of B − A directly (DECISIONS #29); the
        # detection limit is read off the interval itself (DECISIONS 162, in `_paired`).
        spread = float(np.std(finite, ddof=1)) if finite.size >= 2 else None
        pairs[name], fell_back = _paired(
            a_value=scalar(metric_values(name, *totals_a)),
            b_value=scalar(metric_values(name, *totals_b)),
            a_draws=a_draws,
            b_draws=b_draws,
            jackknives=(jackknife_a, jackknife_b, jackknife_b - jackknife_a),
            items=n,
            flips=int(np.count_nonzero(~same)),
            limit=None,
            spread=spread,
            p_value=None,
            level=level,
            resamples=resamples,
            seed=seed,
            method=method,
        )
        undefined[name] = resamples - int(finite.size)
        if fell_back:
            fallbacks.append(name)
    return PairedDraws(pairs, undefined, tuple(fallbacks))


def _paired(
    *,
    a_value: float | None,
    b_value: float | None,
    difference: float | None = None,
    a_draws: np.ndarray,
    b_draws: np.ndarray,
    jackknives: tuple[np.ndarray, np.ndarray, np.ndarray],
    items: int,
    flips: int,
    limit: float | None,
    p_value: float | None,
    level: float,
    resamples: int,
    seed: int | None,
    method: IntervalMethod,
    spread: float | None = None,
) -> tuple[Paired, bool]:
    """The Paired result, and whether B − A's range fell back from BCa.

    With `spread` (the bootstrap standard deviation of B − A, documents), the detection limit is
    the change whose interval clears zero 80% of the time (`_limit`, DECISIONS 162).
    """
    # B − A as each draw computes it (two roundings), so a draw equal to it ties exactly in
    # BCa's bias correction; `difference` may be the exact one-rounding value for items.
    estimate = None if a_value is None or b_value is None else b_value - a_value
    if difference is None:
        difference = estimate
    jackknife_a, jackknife_b, jackknife_difference = jackknives

    def bounds(draws: np.ndarray, value: float | None, jackknife: np.ndarray) -> Any:
        return interval_bounds(
            draws, estimate=value, jackknife=jackknife, units=items, level=level, method=method
        )

    found = bounds(b_draws - a_draws, estimate, jackknife_difference)
    interval = None if found is None else (found.low, found.high)
    if spread is not None:
        limit = _limit(spread, items, level, degrees_of_freedom(jackknife_difference, items))
    verdict: Verdict = "inconclusive"
    # The interval of the paired difference (Koehn 2004); for right-or-wrong items the exact
    # McNemar test must agree, since a handful of one-way flips clears zero by chance.
    significant = p_value is None or p_value < 0.05
    if interval is not None and significant:
        if interval[0] > 0:
            verdict = "better"
        elif interval[1] < 0:
            verdict = "worse"
    a_found, b_found = bounds(a_draws, a_value, jackknife_a), bounds(b_draws, b_value, jackknife_b)
    paired = Paired(
        items=items,
        a=a_value,
        b=b_value,
        difference=difference,
        interval=interval,
        a_interval=None if a_found is None else (a_found.low, a_found.high),
        b_interval=None if b_found is None else (b_found.low, b_found.high),
        flips=flips,
        flip_share=flips / items,
        detection_limit=limit,
        verdict=verdict,
        level=level,
        resamples=resamples,
        seed=seed,
    )
    return paired, found is not None and found.method == "expanded-percentile"


def _limit(spread: float, units: int, level: float, df: int) -> float:
    """(√(n/(n−1)) · t_ν + z(0.80) · √(n/(n−1))) × the bootstrap standard error of B − A: the
    expanded interval's critical point (the one the verdict must clear, ν as the interval takes
    it) plus 80% power's, on the widened standard error (DECISIONS 162)."""
    if units < 2:
        return Z_POWER * spread
    return (-expanded_z(level, units, df) + Z_80 * math.sqrt(units / (units - 1))) * spread
