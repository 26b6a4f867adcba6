"""place.first_and_kept: the two lookups of the same queries (without and with a filter) that
the wrong-relation and linked-other rules make, against Lookup.first_here_or_uncited."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from openodke.eval.diagnosis.place import first_and_kept
from openodke.eval.engine.joins import Lookup

codes = st.lists(st.integers(0, 5), max_size=30)


@settings(max_examples=200, deadline=None)
@given(
    table=codes,
    queries=codes,
    uncited=st.booleans(),
    drop=st.lists(st.booleans(), min_size=60, max_size=60),
)
def test_first_and_kept_equal_two_lookups(table, queries, uncited, drop) -> None:
    # rows ascending, codes in any order; code 5 stands for "citing none" when asked
    lookup = Lookup(np.array(table, dtype=np.int64), np.arange(len(table), dtype=np.int64))
    here = np.array(queries, dtype=np.int64)
    other = np.full(len(here), 5, dtype=np.int64) if uncited else None
    kept = np.array(drop, dtype=bool)

    def keep(q: np.ndarray, j: np.ndarray) -> np.ndarray:
        return ~kept[(q * 7 + j) % len(kept)]  # depends on both the query and the row

    first, second = first_and_kept(lookup, here, other, keep)
    assert first.tolist() == lookup.first_here_or_uncited(here, other).tolist()
    assert second.tolist() == lookup.first_here_or_uncited(here, other, keep).tolist()
