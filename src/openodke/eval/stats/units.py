"""What a bootstrap resamples: right-or-wrong items or documents' tp/fp/fn, aligned by id.

`aligned_units` turns two runs' rows into arrays in A's order (B aligned to A by id for item
rows); the checks raise `InputError` (exit 2) naming the file at fault. `metric_values` is
precision, recall or f1 of counts, and the jackknives are each metric with one unit left out,
in closed form from the totals: O(n), as BCa's acceleration needs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

from openodke.errors import InputError
from openodke.eval.engine.items import DocItem, RightWrongItem

__all__ = [
    "DOCUMENT_METRICS",
    "ITEM_METRICS",
    "aligned_units",
    "check_metric",
    "check_settings",
    "counts_array",
    "item_jackknife",
    "metric_jackknife",
    "metric_values",
    "same_length",
    "scalar",
    "units_of",
]

DOCUMENT_METRICS = ("precision", "recall", "f1")
ITEM_METRICS = ("accuracy",)


def aligned_units(
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
        same_length(len(rows_a), len(rows_b), f"{unit_a}s")
    return unit_a, units_of(rows_a, a_name)[1], units_of(rows_b, b_name)[1]


def units_of(rows: Sequence[Any], name: str) -> tuple[str, np.ndarray]:
    """("item", bools) or ("document", n × 3 int64 tp/fp/fn) for one run's rows."""
    listed = list(rows)
    unit = _unit_of(listed, name)
    if unit == "document":
        flat = chain.from_iterable((row.tp, row.fp, row.fn) for row in listed)
        counts = np.fromiter(flat, dtype=np.int64, count=3 * len(listed))
        return unit, counts.reshape(len(listed), 3)
    flags = (row.correct if isinstance(row, RightWrongItem) else bool(row) for row in listed)
    return unit, np.fromiter(flags, dtype=bool, count=len(listed))


def counts_array(values: Any, name: str) -> np.ndarray:
    """A 1-D array of non-negative integer counts as int64, else InputError."""
    array = np.asarray(values)
    if array.ndim != 1 or (array.size and not np.issubdtype(array.dtype, np.integer)):
        raise InputError(f"{name}: expected a 1-D array of integer counts")
    if array.size and array.min() < 0:
        raise InputError(f"{name}: counts are never negative")
    return array.astype(np.int64)


def same_length(n_a: int, n_b: int, what: str) -> None:
    """InputError unless the two runs hold as many units."""
    if n_a != n_b:
        raise InputError(
            f"A has {n_a} {what} and B {n_b}; a paired comparison needs the same {what} in "
            "the same order"
        )


def check_metric(metric: str | None, allowed: tuple[str, ...]) -> str:
    """The metric asked for (the last allowed one when None), else InputError."""
    chosen = allowed[-1] if metric is None else metric
    if chosen not in allowed:
        raise InputError(f"metric {metric!r} is not one of {', '.join(allowed)} for these rows")
    return chosen


def check_settings(resamples: int, level: float) -> None:
    """InputError for fewer than one draw or a level outside (0, 1)."""
    if resamples < 1:
        raise InputError(f"resamples must be at least 1, got {resamples}")
    if not 0.0 < level < 1.0:
        raise InputError(f"level must be between 0 and 1, got {level}")


def item_jackknife(right: np.ndarray) -> np.ndarray:
    """Accuracy with each item left out, (right − its own) / (n − 1): O(n)."""
    n = right.shape[0]
    if n < 2:
        return np.empty(0)
    return (float(np.count_nonzero(right)) - right) / (n - 1)


def metric_jackknife(name: str, values: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """The metric with each document left out, from the totals in closed form: O(n)."""
    if values.shape[0] < 2:
        return np.empty(0)
    return metric_values(name, *(totals - values).T)


def metric_values(name: str, tp: Any, fp: Any, fn: Any) -> np.ndarray:
    """Precision, recall or f1 of tp/fp/fn (arrays or totals); NaN where undefined."""
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


def scalar(value: np.ndarray) -> float | None:
    """A 0-d metric as a float, None where undefined (never NaN)."""
    number = float(value)
    return None if math.isnan(number) else number


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
                f"id {missing[:60]!r} of {name} is missing; both files must hold the same ids",
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
