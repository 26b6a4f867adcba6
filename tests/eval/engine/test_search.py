"""``joins.search`` gives ``np.searchsorted``'s positions, whatever the order of the queries."""

from __future__ import annotations

import numpy as np
import pytest

from openodke.eval.engine.joins import common, search, stable_order


@pytest.mark.parametrize(
    ("keys", "values"),
    [
        (0, 0),  # empty both
        (5, 0),  # no query
        (0, 7),  # empty table: every position 0
        (1_000, 1_000),  # random against random
        (50, 2_000),  # many repeats among the queries
        (10_000, 30),
    ],
)
@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.float64])
def test_the_same_positions_as_searchsorted(keys: int, values: int, dtype: type) -> None:
    rng = np.random.default_rng(keys * 31 + values)
    table = np.sort(rng.integers(0, 300, keys).astype(dtype))  # repeats in the table too
    queries = rng.integers(-5, 305, values).astype(dtype)
    found = search(table, queries)
    assert found.dtype == np.intp and found.shape == queries.shape
    assert np.array_equal(found, np.searchsorted(table, queries))


def test_sorted_and_reversed_queries() -> None:
    table = np.arange(0, 100, 3, dtype=np.int64)
    for queries in (np.arange(100), np.arange(100)[::-1].copy()):
        assert np.array_equal(search(table, queries), np.searchsorted(table, queries))


@pytest.mark.parametrize(
    ("left", "right"), [(0, 0), (0, 5), (5, 0), (1, 1), (300, 200), (2_000, 30)]
)
@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_common_is_intersect1d_of_values_without_repeats(left: int, right: int, dtype) -> None:
    rng = np.random.default_rng(left * 7 + right)
    x = rng.permutation(np.arange(0, 3 * max(left, 1), 3))[:left].astype(dtype)
    y = rng.permutation(np.arange(0, 2 * max(right, 1), 2))[:right].astype(dtype)
    got = common(x, y)
    want = np.intersect1d(x, y, assume_unique=True, return_indices=True)
    for mine, theirs in zip(got, want, strict=True):
        assert np.array_equal(mine, theirs)
        assert mine.dtype.kind == theirs.dtype.kind


@pytest.mark.parametrize(
    ("size", "spread"), [(0, 1), (1, 1), (2, 1), (1_000, 5), (1_000, 10**18), (5_000, 2)]
)
def test_stable_order_is_a_stable_argsort(size: int, spread: int) -> None:
    values = np.random.default_rng(size).integers(-spread, spread, size, dtype=np.int64)
    assert np.array_equal(stable_order(values), np.argsort(values, kind="stable"))
