"""Pooled relative recall against a brute-force computation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openodke import Entity, Evidence, Fact, GroundingVerdict
from openodke.errors import InputError
from openodke.eval.judges.pool import CAVEAT, pooled_recall, render_pool


def fact(doc: str, n: int, verdict: str = "supported") -> Fact:
    return Fact(
        subject=Entity(key=f"e{n}"),
        predicate="p",
        object_value=n,
        evidence=(Evidence(doc_id=doc),),
        verdict=GroundingVerdict(verdict),
    )


def brute(runs: list[list[tuple[str, int, str]]]) -> tuple[int, list[float | None], list[int]]:
    """Pool size, each run's relative recall and unique count, by plain set arithmetic."""
    sets = [{(d, n) for d, n, v in run if v == "supported"} for run in runs]
    pool = set().union(*sets)
    recall = [len(s) / len(pool) if pool else None for s in sets]
    unique = [
        len(s - set().union(*(o for j, o in enumerate(sets) if j != i))) for i, s in enumerate(sets)
    ]
    return len(pool), recall, unique


rows = st.lists(
    st.tuples(
        st.sampled_from(["d1", "d2", "d3"]),
        st.integers(0, 6),
        st.sampled_from(["supported", "supported", "not_found", "unchecked"]),
    ),
    max_size=15,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(rows, min_size=2, max_size=4))
def test_pool_matches_set_arithmetic(runs: list[list[tuple[str, int, str]]]) -> None:
    named = [(f"r{i}", [fact(d, n, v) for d, n, v in run]) for i, run in enumerate(runs)]
    section = pooled_recall(named, resamples=50)
    size, recall, unique = brute(runs)
    assert section.pool == size
    assert [r.relative_recall.value for r in section.runs] == pytest.approx(recall)
    assert [r.unique for r in section.runs] == unique
    assert [r.facts for r in section.runs] == [len(run) for run in runs]


def test_the_range_matches_a_brute_force_bootstrap_over_documents() -> None:
    rng = np.random.default_rng(1)
    docs = [f"d{i}" for i in range(30)]
    runs = []
    for r in range(3):
        runs.append(
            [(d, n, "supported") for d in docs for n in range(5) if rng.random() < 0.3 + 0.2 * r]
        )
    named = [(f"r{i}", [fact(d, n, v) for d, n, v in run]) for i, run in enumerate(runs)]
    section = pooled_recall(named, documents=docs, resamples=20000, seed=0)
    # Brute force: draw documents with replacement, recount pool and run per draw.
    sets = [{(d, n) for d, n, _ in run} for run in runs]
    pool = set().union(*sets)
    per_doc = np.array(
        [
            [sum(1 for x in pool if x[0] == d)] + [sum(1 for x in s if x[0] == d) for s in sets]
            for d in docs
        ]
    )
    draws = np.random.default_rng(99).integers(0, len(docs), size=(20000, len(docs)))
    sums = per_doc[draws].sum(axis=1)
    for r, run in enumerate(section.runs):
        ratios = sums[:, 1 + r] / sums[:, 0]
        low, high = np.quantile(ratios, [0.025, 0.975])
        assert run.relative_recall.value == pytest.approx(len(sets[r]) / len(pool))
        # Two independent 20,000-draw bootstraps agree to Monte Carlo error.
        assert run.relative_recall.low == pytest.approx(low, abs=0.01)
        assert run.relative_recall.high == pytest.approx(high, abs=0.01)


def test_unchecked_facts_count_neither_way_and_show_in_coverage() -> None:
    a = [fact("d1", 1), fact("d1", 2, "unchecked")]
    b = [fact("d1", 1), fact("d1", 3)]
    section = pooled_recall([("a", a), ("b", b)], resamples=100)
    assert section.pool == 2
    assert [r.relative_recall.value for r in section.runs] == [0.5, 1.0]
    assert [r.coverage for r in section.runs] == [0.5, 1.0]
    assert [r.unique for r in section.runs] == [0, 1]
    assert section.caveat == CAVEAT
    assert "caveat: recall relative to the pool" in render_pool(section)


def test_documents_are_the_units_and_stems_join() -> None:
    a, b = [fact("halden", 1)], [fact("texts/halden.txt", 1), fact("oslo.txt", 2)]
    section = pooled_recall(
        [("a", a), ("b", b)], documents=["halden.txt", "oslo.txt", "empty.txt"], resamples=100
    )
    assert (section.pool, section.documents) == (2, 3)
    with pytest.raises(InputError, match="outside --documents"):
        pooled_recall([("a", a), ("b", b)], documents=["oslo.txt"])


def test_a_pool_needs_two_distinct_runs() -> None:
    with pytest.raises(InputError, match="at least 2 runs"):
        pooled_recall([("a", [])])
    with pytest.raises(InputError, match="repeat"):
        pooled_recall([("a", []), ("a", [])])


def test_an_empty_pool_is_undefined() -> None:
    section = pooled_recall([("a", [fact("d1", 1, "not_found")]), ("b", [])], resamples=10)
    assert section.pool == 0
    assert all(r.relative_recall.value is None for r in section.runs)
    assert list(itertools.chain(section.runs))[1].coverage is None
