"""Was the change real? The public bootstrap API: one run's ranges and a paired comparison.

numpy and the standard library only: `openodke.eval` imports no scipy (DECISIONS #26).

Units are right-or-wrong items (accuracy) or documents with tp/fp/fn counts (corpus micro
precision, recall and F1, since a document's facts share one reading of it). A bootstrap draw
takes n units with replacement (`openodke.eval.stats.resample`); both runs of a comparison see the
same draws (paired, Koehn 2004). A range is the expanded BCa interval of the draws
(`openodke.eval.stats.intervals`, DECISIONS #40), which holds its level on small and skewed sets where
the percentile interval runs short; `method="percentile"` gives the plain percentile interval.
Each statistic's jackknife (its value with each unit left out), which BCa's acceleration needs,
is computed in closed form from the totals: O(n), no refitting.

An undefined metric in a draw (precision with no predictions, recall with no gold) is left out
of that metric's range and of the difference's; a value undefined overall is None, never NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from openodke.errors import InputError
from openodke.eval.stats.intervals import IntervalMethod, interval_bounds, small_set_note
from openodke.eval.stats.paired import Paired, PairedDraws, paired_documents, paired_items
from openodke.eval.stats.resample import resampled_sums
from openodke.eval.stats.significance import Z_POWER, McNemar, detection_limit, mcnemar
from openodke.eval.stats.units import (
    DOCUMENT_METRICS,
    ITEM_METRICS,
    aligned_units,
    check_metric,
    check_settings,
    counts_array,
    item_jackknife,
    metric_jackknife,
    metric_values,
    scalar,
    units_of,
)

__all__ = [
    "DOCUMENT_METRICS",
    "ITEM_METRICS",
    "Z_POWER",
    "Interval",
    "IntervalMethod",
    "McNemar",
    "Paired",
    "PairedDraws",
    "bootstrap_interval",
    "detection_limit",
    "document_intervals",
    "mcnemar",
    "paired_bootstrap",
    "paired_documents",
    "paired_items",
    "resampled_sums",
    "small_set_note",
]


class Interval(BaseModel):
    """A value and its bootstrap range; None where the metric is undefined."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    value: float | None = Field(description="The metric over all units.")
    low: float | None = Field(description="Lower end of the range (expanded BCa by default).")
    high: float | None = Field(description="Upper end of the range (expanded BCa by default).")


def paired_bootstrap(
    a: Sequence[Any],
    b: Sequence[Any],
    *,
    metric: str | None = None,
    resamples: int = 2000,
    seed: int | None = 0,
    level: float = 0.95,
    method: IntervalMethod | None = None,
) -> Paired:
    """Compare two runs on the same units with a paired bootstrap (Koehn 2004).

    `a` and `b` are right/wrong bools (or `RightWrongItem`s) for the same items in the same
    order, or `DocItem`s with the same ids (any order; B is aligned to A). The metric is
    accuracy for items; precision, recall or f1 (default) for documents. `method` None reads
    documents' ranges as expanded BCa and items' as percentile intervals, which McNemar's exact
    test backs (DECISIONS #42).
    """
    unit, values_a, values_b = aligned_units(a, b, "A", "B")
    if unit == "item":
        check_metric(metric, ITEM_METRICS)
        return paired_items(
            values_a,
            values_b,
            resamples=resamples,
            seed=seed,
            level=level,
            method=method or "percentile",
        )
    chosen = check_metric(metric, DOCUMENT_METRICS)
    drawn = paired_documents(
        values_a,
        values_b,
        (chosen,),
        resamples=resamples,
        seed=seed,
        level=level,
        method=method or "expanded-bca",
    )
    return drawn.pairs[chosen]


def bootstrap_interval(
    rows: Sequence[Any],
    *,
    metric: str | None = None,
    resamples: int = 2000,
    seed: int | None = 0,
    level: float = 0.95,
    method: IntervalMethod = "expanded-bca",
) -> Interval:
    """One run's value and range: accuracy over bools/`RightWrongItem`s, or precision, recall
    or f1 (default) over `DocItem`s; expanded BCa unless `method="percentile"`."""
    unit, values = units_of(rows, "rows")
    if unit == "item":
        check_metric(metric, ITEM_METRICS)
        check_settings(resamples, level)
        n = values.shape[0]
        draws = resampled_sums(values[:, None], resamples=resamples, seed=seed)[:, 0] / n
        return _interval(float(values.sum()) / n, draws, item_jackknife(values), n, level, method)
    chosen = check_metric(metric, DOCUMENT_METRICS)
    tp, fp, fn = values.T
    ranges = document_intervals(
        tp, fp, fn, resamples=resamples, seed=seed, level=level, method=method
    )
    return ranges[chosen]


def document_intervals(
    tp: Any,
    fp: Any,
    fn: Any,
    *,
    resamples: int = 2000,
    seed: int | None = 0,
    level: float = 0.95,
    fixed_tp: int = 0,
    fixed_fp: int = 0,
    fixed_fn: int = 0,
    method: IntervalMethod = "expanded-bca",
) -> dict[str, Interval]:
    """Corpus micro precision, recall and f1, each with its range over resampled documents.

    `tp`, `fp`, `fn` are per-document counts (array-likes of one length). `fixed_*` are added
    to every draw: a spurious prediction citing no document belongs to none, so it counts in
    every draw. F1 is 2tp / (2tp + fp + fn), undefined only with no gold and no predictions.
    Ranges are expanded BCa (DECISIONS #40) unless `method="percentile"`.
    """
    check_settings(resamples, level)
    values = np.column_stack(
        [counts_array(tp, "tp"), counts_array(fp, "fp"), counts_array(fn, "fn")]
    )
    fixed = np.array([fixed_tp, fixed_fp, fixed_fn], dtype=np.float64)
    if (fixed < 0).any():
        raise InputError("fixed_tp, fixed_fp and fixed_fn are counts, never negative")
    totals = values.sum(axis=0) + fixed
    draws = resampled_sums(values, resamples=resamples, seed=seed) + fixed
    n = values.shape[0]
    return {
        name: _interval(
            scalar(metric_values(name, *totals)),
            metric_values(name, *draws.T),
            metric_jackknife(name, values, totals),
            n,
            level,
            method,
        )
        for name in DOCUMENT_METRICS
    }


def _interval(
    value: float | None,
    draws: np.ndarray,
    jackknife: np.ndarray,
    units: int,
    level: float,
    method: IntervalMethod,
) -> Interval:
    found = None
    if value is not None:
        found = interval_bounds(
            draws, estimate=value, jackknife=jackknife, units=units, level=level, method=method
        )
    low, high = (None, None) if found is None else (found.low, found.high)
    return Interval(value=value, low=low, high=high)
