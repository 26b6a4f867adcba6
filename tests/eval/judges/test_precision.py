"""Judged precision: the judge's rate, the labels' rate and the PPI correction, with counts."""

from __future__ import annotations

import numpy as np
import pytest

from openodke import Entity, Evidence, Fact, GroundingVerdict
from openodke.errors import InputError
from openodke.eval.judges.ppi import ppi_mean, ppi_tuned, wilson
from openodke.eval.judges.precision import by_predicate, draw, judged_precision, render_judged


def fact(i: int, verdict: str, predicate: str = "p") -> Fact:
    return Fact(
        id=f"f{i}",
        subject=Entity(key=f"s{i}"),
        predicate=predicate,
        object_value=i,
        evidence=(Evidence(doc_id="d"),),
        verdict=GroundingVerdict(verdict),
    )


# 10 facts: 7 supported, 2 not_found, 1 unchecked.
FACTS = [fact(i, "supported") for i in range(7)] + [
    fact(7, "not_found"),
    fact(8, "not_found"),
    fact(9, "unchecked"),
]
# Labels on 4: f0 true, f1 false (false support), f7 true (lost support), f9 true (unchecked).
LABELS = {"f0": True, "f1": False, "f7": True, "f9": True}


def test_counts_and_the_three_figures() -> None:
    section = judged_precision(FACTS, LABELS)
    assert (section.facts, section.supported, section.labels, section.labelled_supported) == (
        10,
        7,
        4,
        3,
    )
    assert (section.false_support, section.lost_support) == (1, 1)
    assert section.coverage == 0.9
    # The judge's own rate over the 9 checked facts.
    assert section.judge_only.value == pytest.approx(7 / 9)
    assert (section.judge_only.low, section.judge_only.high) == pytest.approx(
        (wilson(7, 9).low, wilson(7, 9).high)
    )
    # PPI++: unlabelled checked f2..f6 (1), f8 (0); labelled checked f0, f1, f7: judge 1, 1, 0
    # against truth 1, 0, 1. Cov(f, y) = ((1/3)(1/3) + (1/3)(−2/3) + (−2/3)(1/3)) / 2 = −1/6 < 0:
    # the judge earns weight 0 and the labels decide, all four of them (f9's too).
    expected = ppi_tuned([1, 1, 1, 1, 1, 0], [1, 1, 0], [1, 0, 1])
    assert expected.weight == 0.0
    assert section.weight == 0.0 and section.method == "ppi++"
    assert section.corrected == section.labels_only
    assert section.labels_only.value == 0.75
    # Plain PPI would have said 5/6 (rectifier 0, +1, −1: mean 0), wider than the labels.
    assert ppi_mean([1, 1, 1, 1, 1, 0], [1, 1, 0], [1, 0, 1]).value == pytest.approx(5 / 6)
    assert section.calibrated is False and section.minimum == 100


def test_a_hundred_labels_are_calibrated() -> None:
    facts = [fact(i, "supported") for i in range(150)]
    section = judged_precision(facts, {f"f{i}": True for i in range(100)})
    assert section.calibrated and section.labels == 100


def test_without_labels_only_the_judge_speaks() -> None:
    section = judged_precision(FACTS)
    assert section.corrected.value is None and section.labels_only.value is None
    assert section.judge_only.value == pytest.approx(7 / 9)
    text = render_judged(section, "judge ground.span@1 on m: UNCALIBRATED")
    assert "  corrected " not in text and "uncalibrated: 0 labels" in text


def test_a_label_for_an_unknown_fact_is_an_input_error() -> None:
    with pytest.raises(
        InputError, match="1 label\\(s\\) name facts not in the --facts run, e.g. id 'nope'"
    ):
        judged_precision(FACTS, {"nope": True})


def test_by_predicate_splits_facts_and_labels() -> None:
    facts = [fact(0, "supported", "a"), fact(1, "not_found", "a"), fact(2, "supported", "b")]
    rows = by_predicate(facts, {"f0": True, "f2": False})
    assert sorted(rows) == ["a", "b"]
    assert (rows["a"].facts, rows["a"].labels, rows["b"].false_support) == (2, 1, 1)


def test_the_draw_is_seeded_and_uniform() -> None:
    facts = [fact(i, "supported") for i in range(40)]
    first, again = draw(facts, 10, seed=3), draw(facts, 10, seed=3)
    assert [f.id for f in first] == [f.id for f in again]
    assert len({f.id for f in first}) == 10
    assert [f.id for f in draw(facts, 10, seed=4)] != [f.id for f in first]
    assert len(draw(facts, 100, seed=0)) == 40
    # Uniform: over many seeds each fact is drawn about n/N of the time.
    counts = np.zeros(40)
    for seed in range(2000):
        for f in draw(facts, 10, seed=seed):
            counts[int(f.id[1:])] += 1
    assert counts.min() > 2000 * 0.25 * 0.85 and counts.max() < 2000 * 0.25 * 1.15
    with pytest.raises(InputError):
        draw(facts, 0)
