"""DocRED / Re-DocRED's official relation scores, and submissions from our facts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openodke.bench import (
    BenchSet,
    gold_submission,
    load_train_facts,
    score_official,
    score_redocred_official,
    to_docred_submission,
)
from openodke.errors import InputError
from openodke.types import Entity

DOCS: list[dict[str, Any]] = [
    {
        "title": "A",
        "vertexSet": [
            [{"name": "Ann", "sent_id": 0}, {"name": "Annie", "sent_id": 1}],
            [{"name": "Acme", "sent_id": 0}],
            [{"name": "Oslo", "sent_id": 1}],
        ],
        "labels": [
            {"h": 0, "t": 1, "r": "P1", "evidence": [0]},
            {"h": 1, "t": 2, "r": "P2", "evidence": [0, 1]},
        ],
    },
    {
        "title": "B",
        "vertexSet": [[{"name": "Bo", "sent_id": 0}], [{"name": "Bergen", "sent_id": 0}]],
        "labels": [{"h": 0, "t": 1, "r": "P1", "evidence": []}],
    },
]
PREDICTIONS = [
    {"title": "A", "h_idx": 0, "t_idx": 1, "r": "P1", "evidence": [0]},  # correct
    {"title": "A", "h_idx": 0, "t_idx": 1, "r": "P1", "evidence": [0]},  # repeat: dropped
    {"title": "A", "h_idx": 1, "t_idx": 2, "r": "P1"},  # wrong relation
    {"title": "B", "h_idx": 0, "t_idx": 1, "r": "P1", "evidence": [2]},  # correct
    {"title": "Z", "h_idx": 0, "t_idx": 1, "r": "P1"},  # unknown title: stays, wrong
]


def test_hand_worked_case() -> None:
    result = score_redocred_official(PREDICTIONS, DOCS)
    # 4 distinct predictions, 2 correct, 3 gold facts: P = 2/4, R = 2/3,
    # F1 = 2·0.5·(2/3)/(0.5 + 2/3) = (2/3)/(7/6) = 4/7.
    assert (result.predicted, result.correct, result.gold, result.unknown_titles) == (4, 2, 3, 1)
    assert (result.precision, result.recall, result.f1) == pytest.approx((0.5, 2 / 3, 4 / 7))
    # Evidence: predicted ids of known titles {0} + {2} = 2; hits {0}∩{0} = 1; gold ids 1+2+0 = 3.
    assert (result.evidence_precision, result.evidence_recall) == pytest.approx((1 / 2, 1 / 3))
    assert result.ign_f1 is None and any("Ign F1 needs" in note for note in result.notes)


def test_ign_f1_with_training_facts() -> None:
    # (Annie, Acme, P1) was seen in training: A's correct P1 is "in train", B's is not.
    # Ign P = (2 − 1)/(4 − 1) = 1/3; recall unchanged 2/3; Ign F1 = 2·(1/3)(2/3)/1 = 4/9.
    result = score_redocred_official(PREDICTIONS, DOCS, train_facts=[("Annie", "Acme", "P1")])
    assert result.correct_in_train == 1
    assert (result.ign_precision, result.ign_f1) == pytest.approx((1 / 3, 4 / 9))


def test_nothing_predicted_has_no_precision() -> None:
    result = score_redocred_official([], DOCS)
    assert (result.precision, result.recall, result.f1, result.predicted) == (None, 0.0, None, 0)


def test_bad_prediction_row_is_an_input_error() -> None:
    with pytest.raises(InputError, match="prediction 0"):
        score_redocred_official([{"title": "A", "h_idx": "0", "t_idx": 1, "r": "P1"}], DOCS)


def test_the_gold_as_a_submission_scores_one(redocred_test: list[dict[str, Any]]) -> None:
    result = score_redocred_official(gold_submission(redocred_test), redocred_test)
    assert (result.precision, result.recall, result.f1) == (1.0, 1.0, 1.0)
    assert result.predicted == result.gold == result.correct == 17_448
    assert (result.evidence_precision, result.evidence_recall) == (1.0, 1.0)


@pytest.mark.parametrize("form", ["documents", "triples"])
def test_training_facts_load_from_documents_or_triples(tmp_path: Path, form: str) -> None:
    path = tmp_path / "train.json"
    if form == "documents":
        path.write_text(json.dumps(DOCS[:1]))
        # label (0, 1, P1): 2 head names × 1 tail name; label (1, 2, P2): 1 × 1.
        expected = {("Ann", "Acme", "P1"), ("Annie", "Acme", "P1"), ("Acme", "Oslo", "P2")}
    else:
        path.write_text(json.dumps([["Ann", "Acme", "P1"]]))
        expected = {("Ann", "Acme", "P1")}
    assert load_train_facts(path) == expected


def test_training_facts_refuse_other_json(tmp_path: Path) -> None:
    path = tmp_path / "train.json"
    path.write_text(json.dumps([{"h": 1}]))
    with pytest.raises(InputError, match="item 0"):
        load_train_facts(path)


def test_our_gold_facts_submit_as_the_gold(redocred_bench: BenchSet) -> None:
    rows, failed = to_docred_submission(redocred_bench, [g.fact for g in redocred_bench.gold])
    assert failed == 0
    expected = {
        (r["title"], r["h_idx"], r["t_idx"], r["r"])
        for r in gold_submission(redocred_bench.gold_rows)
    }
    assert {(r["title"], r["h_idx"], r["t_idx"], r["r"]) for r in rows} == expected
    assert len(expected) == 1_747


def test_unaligned_predictions_are_counted_and_left_out(redocred_bench: BenchSet) -> None:
    facts = [g.fact for g in redocred_bench.gold]
    broken = [
        fact.model_copy(update={"subject": Entity(key="Person:nobody at all", type="Person")})
        for fact in facts[:3]
    ]
    unknown_relation = facts[3].model_copy(update={"predicate": "invented_relation"})
    result = score_official(redocred_bench, [*broken, unknown_relation, *facts[4:]])
    # 4 of 1,747 predictions cannot be submitted: 1,743 predicted, all correct.
    assert result.unaligned == 4
    assert (result.predicted, result.correct, result.gold) == (1_743, 1_743, 1_747)
    assert result.recall == pytest.approx(1_743 / 1_747)
    assert any(
        note.startswith("4 of 1747 predictions could not be aligned") for note in result.notes
    )
