"""Was the change real? Paired bootstrap, McNemar's exact test and the detection limit.

numpy and the standard library only: `openodke.eval` imports no scipy (DECISIONS #26).

Units are right-or-wrong items (accuracy) or documents with tp/fp/fn counts (corpus micro
precision, recall and F1, since a document's facts share one reading of it). A bootstrap draw
takes n units with replacement; both runs of a comparison see the same draws (paired, Koehn
2004), and a range is the percentile interval of the draws.

How the draws are made (reproducible from `seed`, see `resampled_sums`): units whose numbers
are equal are grouped, in order of first appearance, and a draw is
`rng.multinomial(n, sizes / n)` over the groups, which has the distribution of resampling the
units themselves and costs O(groups) instead of O(n). With many distinct units (groups > n / 8)
it resamples indices, `rng.integers(0, n, size=(draws, n), dtype=np.int32)`, counted per draw.
Either depends only on the units, the number of draws and the seed, so swapping A and B, or
comparing a run with itself, sees the same draws.

An undefined metric in a draw (precision with no predictions, recall with no gold) is left out
of that metric's range and of the difference's; a value undefined overall is None, never NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import chain
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from openodke.errors import InputError
from openodke.eval.engine.items import DocItem, RightWrongItem

__all__ = [
    "DOCUMENT_METRICS",
    "ITEM_METRICS",
    "Z_POWER",
    "Interval",
    "McNemar",
    "Paired",
    "bootstrap_interval",
    "detection_limit",
    "document_intervals",
    "mcnemar",
    "paired_bootstrap",
    "resampled_sums",
]

# z for a two-sided 95% test plus z for 80% power: the minimum detectable effect of a paired
# test of proportions, Z·sqrt(d/n) with d the discordant share (DECISIONS #29; Connor 1987).
Z_POWER = 1.959964 + 0.841621
DOCUMENT_METRICS = ("precision", "recall", "f1")
ITEM_METRICS = ("accuracy",)
# At most this many resampled indices (or group counts) in memory at once: about 16 MB.
_CHUNK_ELEMENTS = 1 << 21
# McNemar: up to this many flips the tail is summed in exact integers, beyond it in logs.
_EXACT_FLIPS = 5000

Verdict = Literal["better", "worse", "inconclusive"]


class Interval(BaseModel):
    """A value and its bootstrap range; None where the metric is undefined."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    value: float | None = Field(description="The metric over all units.")
    low: float | None = Field(description="Lower end of the percentile interval.")
    high: float | None = Field(description="Upper end of the percentile interval.")


class McNemar(BaseModel):
    """McNemar's exact test on the items that flipped between two runs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    items: int = Field(description="Items compared.")
    gained: int = Field(description="Wrong in A, right in B.")
    lost: int = Field(description="Right in A, wrong in B.")
    p_value: float = Field(description="Exact two-sided binomial p on gained vs lost.")


class Paired(BaseModel):
    """One metric compared between runs A and B over the same units."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    items: int = Field(description="Units compared (items or documents).")
    a: float | None = Field(description="The metric for A; None when undefined.")
    b: float | None = Field(description="The metric for B; None when undefined.")
    difference: float | None = Field(description="B − A.")
    interval: tuple[float, float] | None = Field(description="Percentile interval of B − A.")
    a_interval: tuple[float, float] | None = Field(description="A's range over the same draws.")
    b_interval: tuple[float, float] | None = Field(description="B's range over the same draws.")
    flips: int = Field(
        description="Items whose right/wrong changed; documents whose own value of the metric "
        "changed (an undefined value equals only an undefined one)."
    )
    flip_share: float = Field(description="flips / items.")
    detection_limit: float | None = Field(
        description="Smallest change the set detects (95% confidence, 80% power), filled for "
        "every verdict: Z·sqrt(flip_share/items) for items, Z × the bootstrap standard error "
        "of B − A for documents."
    )
    verdict: Verdict = Field(
        description="better or worse when the whole interval is above or below zero (items: "
        "and McNemar's exact p < 0.05); else inconclusive."
    )
    level: float = Field(description="Confidence level of the intervals.")
    resamples: int = Field(description="Bootstrap draws.")
    seed: int | None = Field(description="Seed of numpy.random.default_rng.")


def detection_limit(n: int, flip_share: float) -> float:
    """The smallest change n paired items detect at 95% confidence and 80% power, Z·√(d/n).

    `flip_share` is d, the share of items whose right/wrong differs between the runs
    (DECISIONS #29). `[round(detection_limit(n, 0.10) * 100, 1) for n in (300, 1_500, 5_000)]`
    is `[5.1, 2.3, 1.3]`.
    """
    if n < 1:
        raise InputError(f"detection_limit needs at least one item, got n={n}")
    if not 0.0 <= flip_share <= 1.0:
        raise InputError(f"flip_share is a share between 0 and 1, got {flip_share}")
    return Z_POWER * math.sqrt(flip_share / n)


def mcnemar(a: Sequence[bool], b: Sequence[bool]) -> McNemar:
    """McNemar's exact test: two-sided binomial test of gained vs lost at p = 1/2.

    p = min(1, 2·P(X ≤ min(gained, lost))), X ~ Bin(gained + lost, 1/2), computed in exact
    integer arithmetic (McNemar 1947; the exact form as in Fagerland et al. 2013). No flips: p = 1.
    """
    right_a, right_b = _bools(a, "A"), _bools(b, "B")
    _same_length(right_a.size, right_b.size, "items")
    gained = int(np.count_nonzero(~right_a & right_b))
    lost = int(np.count_nonzero(right_a & ~right_b))
    return McNemar(
        items=int(right_a.size), gained=gained, lost=lost, p_value=_binomial_two_sided(gained, lost)
    )


def paired_bootstrap(
    a: Sequence[Any],
    b: Sequence[Any],
    *,
    metric: str | None = None,
    resamples: int = 2000,
    seed: int | None = 0,
    level: float = 0.95,
) -> Paired:
    """Compare two runs on the same units with a paired bootstrap (Koehn 2004).

    `a` and `b` are right/wrong bools (or `RightWrongItem`s) for the same items in the same
    order, or `DocItem`s with the same ids (any order; B is aligned to A). The metric is
    accuracy for items; precision, recall or f1 (default) for documents.
    """
    unit, values_a, values_b = _aligned_units(a, b, "A", "B")
    if unit == "item":
        _check_metric(metric, ITEM_METRICS)
        return _paired_items(values_a, values_b, resamples=resamples, seed=seed, level=level)
    chosen = _check_metric(metric, DOCUMENT_METRICS)
    pairs, _ = _paired_documents(
        values_a, values_b, (chosen,), resamples=resamples, seed=seed, level=level
    )
    return pairs[chosen]


def bootstrap_interval(
    rows: Sequence[Any],
    *,
    metric: str | None = None,
    resamples: int = 2000,
    seed: int | None = 0,
    level: float = 0.95,
) -> Interval:
    """One run's value and percentile range: accuracy over bools/`RightWrongItem`s, or
    precision, recall or f1 (default) over `DocItem`s."""
    unit, values = _units(rows, "rows")
    if unit == "item":
        _check_metric(metric, ITEM_METRICS)
        _check_settings(resamples, level)
        n = values.shape[0]
        draws = resampled_sums(values[:, None], resamples=resamples, seed=seed)[:, 0] / n
        return _interval(float(values.sum()) / n, draws, level)
    chosen = _check_metric(metric, DOCUMENT_METRICS)
    tp, fp, fn = values.T
    return document_intervals(tp, fp, fn, resamples=resamples, seed=seed, level=level)[chosen]


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
) -> dict[str, Interval]:
    """Corpus micro precision, recall and f1, each with its range over resampled documents.

    `tp`, `fp`, `fn` are per-document counts (array-likes of one length). `fixed_*` are added
    to every draw: a spurious prediction citing no document belongs to none, so it counts in
    every draw. F1 is 2tp / (2tp + fp + fn), undefined only with no gold and no predictions.
    """
    _check_settings(resamples, level)
    values = np.column_stack([_counts(tp, "tp"), _counts(fp, "fp"), _counts(fn, "fn")])
    fixed = np.array([fixed_tp, fixed_fp, fixed_fn], dtype=np.float64)
    if (fixed < 0).any():
        raise InputError("fixed_tp, fixed_fp and fixed_fn are counts, never negative")
    totals = values.sum(axis=0) + fixed
    draws = resampled_sums(values, resamples=resamples, seed=seed) + fixed
    return {
        name: _interval(_scalar(_metric(name, *totals)), _metric(name, *draws.T), level)
        for name in DOCUMENT_METRICS
    }


def resampled_sums(
    values: Any,
    *,
    resamples: int,
    seed: int | None,
    method: Literal["auto", "grouped", "indices"] = "auto",
) -> np.ndarray:
    """Column sums of `values` (n units × k numbers) over `resamples` bootstrap draws of n units.

    Returns a float64 array (resamples × k). "grouped" draws multinomial counts over the groups
    of equal rows (first-appearance order); "indices" draws
    `rng.integers(0, n, (resamples, n), dtype=np.int32)` in row chunks; "auto" picks grouped
    when there are at most n / 8 groups (a binomial per group costs about eight index draws).
    """
    table = np.asarray(values)
    if table.ndim != 2:
        raise ValueError("resampled_sums: values must be 2-D, units × numbers")
    n, k = table.shape
    rng = np.random.default_rng(seed)
    if n == 0:
        return np.zeros((resamples, k))
    first, sizes = _groups(table)
    order = np.argsort(first)
    if method == "auto":
        method = "grouped" if sizes.size * 8 <= n else "indices"
    if method == "grouped":
        groups = table[first[order]].astype(np.float64)
        probabilities = sizes[order] / n
        step = max(1, _CHUNK_ELEMENTS // sizes.size)
        return np.concatenate(
            [
                rng.multinomial(n, probabilities, size=min(step, resamples - start)) @ groups
                for start in range(0, resamples, step)
            ]
        )
    units = table.astype(np.float64)
    out = np.empty((resamples, k))
    step = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, resamples, step):
        rows = min(step, resamples - start)
        # int32 draws are a third cheaper than int64.
        index = rng.integers(0, n, size=(rows, n), dtype=np.int32)
        for row, drawn in enumerate(index, start):
            # One draw at a time: its n counts stay in the CPU cache while they are added up
            # (one bincount over the whole chunk scattered its increments over rows × n counts).
            out[row] = np.bincount(drawn, minlength=n) @ units
    return out


def _groups(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First row index and size of each group of equal rows (in sorted-key order)."""
    if np.issubdtype(table.dtype, np.integer) or table.dtype == bool:
        low = table.min(axis=0).astype(np.int64)
        spans = table.max(axis=0).astype(np.int64) - low + 1
        if float(np.prod(spans.astype(np.float64))) < 2.0**62:
            # Small non-negative counts: one mixed-radix int64 key per row, so np.unique sorts
            # plain integers instead of rows (ten times faster at 100,000 documents).
            radix = np.concatenate([np.cumprod(spans[::-1])[::-1][1:], [1]])
            keys = (table.astype(np.int64) - low) @ radix
            _, first, sizes = np.unique(keys, return_index=True, return_counts=True)
            return first, sizes
    _, first, sizes = np.unique(table, axis=0, return_index=True, return_counts=True)
    return first, sizes


# ---------------------------------------------------------------------------------------------


def _paired_items(
    a: np.ndarray, b: np.ndarray, *, resamples: int, seed: int | None, level: float
) -> Paired:
    _check_settings(resamples, level)
    n = a.shape[0]
    sums = resampled_sums(np.column_stack([a, b]), resamples=resamples, seed=seed)
    flips = int(np.count_nonzero(a != b))
    p_value = _binomial_two_sided(int(np.count_nonzero(~a & b)), int(np.count_nonzero(a & ~b)))
    return _paired(
        a_value=float(a.sum()) / n,
        b_value=float(b.sum()) / n,
        difference=float(int(b.sum()) - int(a.sum())) / n,  # one rounding, not two
        a_draws=sums[:, 0] / n,
        b_draws=sums[:, 1] / n,
        items=n,
        flips=flips,
        limit=detection_limit(n, flips / n),
        p_value=p_value,
        level=level,
        resamples=resamples,
        seed=seed,
    )


def _paired_documents(
    a: np.ndarray,
    b: np.ndarray,
    metrics: Sequence[str],
    *,
    resamples: int,
    seed: int | None,
    level: float,
) -> tuple[dict[str, Paired], dict[str, int]]:
    """Paired results for each metric from one set of draws, and per metric the number of
    draws where B − A was undefined (left out of its interval)."""
    _check_settings(resamples, level)
    n = a.shape[0]
    sums = resampled_sums(np.column_stack([a, b]), resamples=resamples, seed=seed)
    totals_a, totals_b = a.sum(axis=0), b.sum(axis=0)
    pairs: dict[str, Paired] = {}
    undefined: dict[str, int] = {}
    for name in metrics:
        a_draws, b_draws = _metric(name, *sums[:, :3].T), _metric(name, *sums[:, 3:].T)
        difference = b_draws - a_draws
        finite = difference[np.isfinite(difference)]
        per_doc_a, per_doc_b = _metric(name, *a.T), _metric(name, *b.T)
        same = (per_doc_a == per_doc_b) | (np.isnan(per_doc_a) & np.isnan(per_doc_b))
        # Koehn's bootstrap gives the standard error of B − A directly; Z × it is the change
        # this set detects at 95% confidence and 80% power (DECISIONS #29).
        limit = Z_POWER * float(np.std(finite, ddof=1)) if finite.size >= 2 else None
        pairs[name] = _paired(
            a_value=_scalar(_metric(name, *totals_a)),
            b_value=_scalar(_metric(name, *totals_b)),
            a_draws=a_draws,
            b_draws=b_draws,
            items=n,
            flips=int(np.count_nonzero(~same)),
            limit=limit,
            p_value=None,
            level=level,
            resamples=resamples,
            seed=seed,
        )
        undefined[name] = resamples - int(finite.size)
    return pairs, undefined


def _paired(
    *,
    a_value: float | None,
    b_value: float | None,
    difference: float | None = None,
    a_draws: np.ndarray,
    b_draws: np.ndarray,
    items: int,
    flips: int,
    limit: float | None,
    p_value: float | None,
    level: float,
    resamples: int,
    seed: int | None,
) -> Paired:
    interval = _percentiles(b_draws - a_draws, level)
    if difference is None and a_value is not None and b_value is not None:
        difference = b_value - a_value
    verdict: Verdict = "inconclusive"
    # Percentile interval of the paired difference (Koehn 2004); for right-or-wrong items the
    # exact McNemar test must agree, since a handful of one-way flips clears zero by chance.
    significant = p_value is None or p_value < 0.05
    if interval is not None and significant:
        if interval[0] > 0:
            verdict = "better"
        elif interval[1] < 0:
            verdict = "worse"
    return Paired(
        items=items,
        a=a_value,
        b=b_value,
        difference=difference,
        interval=interval,
        a_interval=_percentiles(a_draws, level),
        b_interval=_percentiles(b_draws, level),
        flips=flips,
        flip_share=flips / items,
        detection_limit=limit,
        verdict=verdict,
        level=level,
        resamples=resamples,
        seed=seed,
    )


def _metric(name: str, tp: Any, fp: Any, fn: Any) -> np.ndarray:
    tp, fp, fn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn))
    if name == "precision":
        return _ratio(tp, tp + fp)
    if name == "recall":
        return _ratio(tp, tp + fn)
    return _ratio(2 * tp, 2 * tp + fp + fn)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.full(np.shape(numerator), np.nan)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _scalar(value: np.ndarray) -> float | None:
    number = float(value)
    return None if math.isnan(number) else number


def _percentiles(draws: np.ndarray, level: float) -> tuple[float, float] | None:
    # Percentile interval (Efron & Tibshirani 1993, ch. 13), as Koehn (2004) uses it; draws
    # where the metric is undefined say nothing about it and are left out.
    finite = draws[np.isfinite(draws)]
    if finite.size == 0:
        return None
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(finite, [tail, 1.0 - tail])
    return float(low), float(high)


def _interval(value: float | None, draws: np.ndarray, level: float) -> Interval:
    bounds = _percentiles(draws, level) if value is not None else None
    low, high = bounds if bounds is not None else (None, None)
    return Interval(value=value, low=low, high=high)


def _binomial_two_sided(gained: int, lost: int) -> float:
    n, k = gained + lost, min(gained, lost)
    if n > _EXACT_FLIPS:
        return _binomial_two_sided_logs(n, k)
    term = total = 1  # C(n, 0); running sum of C(n, i) for i ≤ k, exact integers
    for i in range(k):
        term = term * (n - i) // (i + 1)
        total += term
    return min(1.0, (2 * total) / (1 << n))  # int / int is correctly rounded in Python


def _binomial_two_sided_logs(n: int, k: int) -> float:
    # Beyond a few thousand flips exact integers cost seconds. P(X <= k) = pmf(k) times
    # sum over j of prod_{m<j} (k - m) / (n - k + 1 + m): with k <= n/2 every ratio is below 1,
    # so the sum is good to ~1e-14; pmf(k) from lgamma carries ~1e-10 relative error at
    # 100,000 flips (Loader 2000's saddle point would do better; no p-value needs it).
    steps = np.arange(k, dtype=np.float64)
    tail = 1.0 + float(np.cumprod((k - steps) / (n - k + 1 + steps)).sum())
    log_pmf = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2)
    return min(1.0, 2 * math.exp(log_pmf) * tail)


def _aligned_units(
    a: Sequence[Any], b: Sequence[Any], a_name: str, b_name: str
) -> tuple[str, np.ndarray, np.ndarray]:
    """Both runs as arrays in A's order: bools for items, n × 3 counts for documents."""
    rows_a, rows_b = list(a), list(b)
    unit_a, unit_b = _unit_of(rows_a, a_name), _unit_of(rows_b, b_name)
    if unit_a != unit_b:
        raise InputError(
            f"{a_name} holds {unit_a} rows and {b_name} holds {unit_b} rows; "
            "a comparison needs one kind in both",
            path=b_name,
        )
    if _kinds(rows_a + rows_b) <= {DocItem, RightWrongItem}:
        rows_b = _align_ids(rows_a, rows_b, a_name, b_name)
    else:
        _same_length(len(rows_a), len(rows_b), f"{unit_a}s")
    return unit_a, _units(rows_a, a_name)[1], _units(rows_b, b_name)[1]


def _align_ids(rows_a: list[Any], rows_b: list[Any], a_name: str, b_name: str) -> list[Any]:
    """B's rows in A's order; an id in one run only is an InputError naming the other file."""
    ids_a, ids_b = [row.id for row in rows_a], [row.id for row in rows_b]
    if ids_a == ids_b and len(set(ids_a)) == len(ids_a):
        return rows_b
    set_a, set_b = set(ids_a), set(ids_b)
    for ids, others, name, other_name in (
        (ids_a, set_b, a_name, b_name),
        (ids_b, set_a, b_name, a_name),
    ):
        missing = next((row_id for row_id in ids if row_id not in others), None)
        if missing is not None:
            raise InputError(
                f"id {missing!r} of {name} is missing; both files must hold the same ids",
                path=other_name,
            )
    if len(set_a) != len(ids_a) or len(set_b) != len(ids_b):
        raise InputError(
            "duplicate ids: each id must appear once in each run",
            path=a_name if len(set_a) != len(ids_a) else b_name,
        )
    by_id = dict(zip(ids_b, rows_b, strict=True))
    return [by_id[row_id] for row_id in ids_a]


def _kinds(rows: list[Any]) -> set[type]:
    return set(map(type, rows))


def _unit_of(rows: list[Any], name: str) -> str:
    if not rows:
        raise InputError(f"{name} has no rows to compare")
    kinds = _kinds(rows)
    if all(issubclass(kind, DocItem) for kind in kinds):
        return "document"
    if all(issubclass(kind, RightWrongItem | bool | np.bool_) for kind in kinds):
        return "item"
    raise InputError(
        f"{name}: expected right-or-wrong bools or RightWrongItems, or DocItems; one kind"
    )


def _units(rows: Sequence[Any], name: str) -> tuple[str, np.ndarray]:
    listed = list(rows)
    unit = _unit_of(listed, name)
    if unit == "document":
        flat = chain.from_iterable((row.tp, row.fp, row.fn) for row in listed)
        counts = np.fromiter(flat, dtype=np.int64, count=3 * len(listed))
        return unit, counts.reshape(len(listed), 3)
    flags = (row.correct if isinstance(row, RightWrongItem) else bool(row) for row in listed)
    return unit, np.fromiter(flags, dtype=bool, count=len(listed))


def _bools(values: Sequence[bool], name: str) -> np.ndarray:
    unit, array = _units(values, name)
    if unit != "item":
        raise InputError(f"{name}: McNemar's test needs right-or-wrong items")
    return array


def _counts(values: Any, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1 or (array.size and not np.issubdtype(array.dtype, np.integer)):
        raise InputError(f"{name}: expected a 1-D array of integer counts")
    if array.size and array.min() < 0:
        raise InputError(f"{name}: counts are never negative")
    return array.astype(np.int64)


def _same_length(n_a: int, n_b: int, what: str) -> None:
    if n_a != n_b:
        raise InputError(
            f"A has {n_a} {what} and B {n_b}; a paired comparison needs the same {what} in "
            "the same order"
        )


def _check_metric(metric: str | None, allowed: tuple[str, ...]) -> str:
    chosen = allowed[-1] if metric is None else metric
    if chosen not in allowed:
        raise InputError(f"metric {metric!r} is not one of {', '.join(allowed)} for these rows")
    return chosen


def _check_settings(resamples: int, level: float) -> None:
    if resamples < 1:
        raise InputError(f"resamples must be at least 1, got {resamples}")
    if not 0.0 < level < 1.0:
        raise InputError(f"level must be between 0 and 1, got {level}")
