"""Drawing refusals: equal shares across strata, predicates taking turns, sizes kept."""

from __future__ import annotations

from collections import Counter

import pytest

from openodke.errors import InputError
from openodke.eval import report_refusals
from openodke.eval.judges.refusal_sample import Refusal, draw_refusals, shares, strata_sizes
from openodke.eval.refusals import RefusalLabel


def refusal(
    i: int, *, dataset: str = "movie", verdict: str = "not_found", predicate: str = "director"
) -> Refusal:
    return Refusal(
        id=f"r{dataset}{verdict}{i}",
        claim=f"claim {i}",
        text="…",
        verdict=verdict,
        reason="the passage does not settle it",
        predicate=predicate,
        gold=None,
        dataset=dataset,
        extractor="llm",
        source="runs",
    )


@pytest.mark.parametrize(
    ("sizes", "n", "expected"),
    [
        ({"a": 50, "b": 50}, 10, {"a": 5, "b": 5}),
        ({"a": 50, "b": 50, "c": 50}, 10, {"a": 4, "b": 3, "c": 3}),  # remainder to the first
        ({"a": 2, "b": 50, "c": 50}, 30, {"a": 2, "b": 14, "c": 14}),  # a's leftover passed on
        ({"a": 2, "b": 3}, 100, {"a": 2, "b": 3}),  # fewer than n: every row
        ({"a": 1, "b": 1, "c": 1}, 2, {"a": 1, "b": 1, "c": 0}),
    ],
)
def test_shares(sizes: dict[str, int], n: int, expected: dict[str, int]) -> None:
    assert shares(sizes, n) == expected


def test_predicates_take_turns_within_a_stratum() -> None:
    rows = [refusal(i, predicate="director") for i in range(40)]
    rows += [refusal(100 + i, predicate="starring") for i in range(3)]
    drawn = draw_refusals(rows, n=8, seed=0)
    counts = Counter(r.predicate for r in drawn)
    # A plain random draw of 8 from 43 would expect 0.56 "starring"; turns take all 3.
    assert counts == {"director": 5, "starring": 3}


def test_each_drawn_row_carries_its_stratum_and_size() -> None:
    rows = [refusal(i) for i in range(1000)] + [refusal(i, dataset="music") for i in range(50)]
    drawn = draw_refusals(rows, n=100, seed=0)
    assert Counter(r.stratum for r in drawn) == {
        "movie/llm/not_found": 50,
        "music/llm/not_found": 50,
    }
    assert {r.stratum: r.stratum_size for r in drawn} == {
        "movie/llm/not_found": 1000,
        "music/llm/not_found": 50,
    }
    assert strata_sizes(rows) == {"movie/llm/not_found": 1000, "music/llm/not_found": 50}


def test_the_draw_repeats_with_its_seed() -> None:
    rows = [refusal(i, predicate=f"p{i % 4}") for i in range(60)]
    assert [r.id for r in draw_refusals(rows, n=20, seed=5)] == [
        r.id for r in draw_refusals(rows, n=20, seed=5)
    ]
    assert [r.id for r in draw_refusals(rows, n=20, seed=5)] != [
        r.id for r in draw_refusals(rows, n=20, seed=6)
    ]


def test_weighting_by_the_recorded_sizes_recovers_the_truth() -> None:
    # The spec's case: 1,000 refusals 90% right and 50 that are 30% right; truth (900 + 15) / 1050.
    rows = [refusal(i) for i in range(1000)] + [refusal(i, dataset="small") for i in range(50)]
    drawn = draw_refusals(rows, n=100, seed=0)
    right = {"movie": 45, "small": 15}  # 90% of 50, 30% of 50
    labels = []
    for r in drawn:
        ok = right[r.dataset or ""] > 0
        right[r.dataset or ""] -= 1
        labels.append(
            RefusalLabel(**r.label_fields(), judgement="refusal_correct" if ok else "refusal_wrong")
        )
    report = report_refusals(labels)
    assert report.metrics["refusal_precision"] == pytest.approx((1000 * 0.9 + 50 * 0.3) / 1050)
    # Pooled as one random sample it would read (45 + 15) / 100.
    assert sum(label.judgement == "refusal_correct" for label in labels) / len(labels) == 0.6


def test_ids_must_be_distinct_and_n_positive() -> None:
    with pytest.raises(InputError, match="share the id"):
        draw_refusals([refusal(1), refusal(1)], n=5)
    with pytest.raises(InputError, match="at least 1"):
        draw_refusals([refusal(1)], n=0)
