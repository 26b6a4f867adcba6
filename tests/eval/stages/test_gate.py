"""The validate (gate) evaluator: agreement, Cohen's kappa and the three kinds of mistake."""

from __future__ import annotations

import json
import math
import warnings
from enum import Enum

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, cohen_kappa_score, f1_score

from openodke import Entity, Fact
from openodke.errors import InputError, PipelineError
from openodke.eval.stages.gate import (
    cohen_kappa,
    evaluate_gate,
    gate_items,
    gate_labels,
    run_validate,
)
from openodke.eval.stages.labels import GateLabel, ValidationPrediction
from openodke.protocols import ValidationVerdict

ADA = Entity(key="ada", type="Person")
ACTION = st.sampled_from(["accept", "refuse", "conflict"])


def sklearn_kappa(truth, predicted):
    """scikit-learn's kappa, with its nan (0/0) read as None."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = cohen_kappa_score(truth, predicted)
    return None if math.isnan(value) else value


def label(ident: str, action: str) -> GateLabel:
    return GateLabel(fact=Fact(id=ident, subject=ADA, predicate="p", object_value=1), action=action)


def said(ident: str, action: str) -> ValidationPrediction:
    return ValidationPrediction(id=ident, action=action)


def table(truth, predicted):
    labels = [label(f"f{i}", t) for i, t in enumerate(truth)]
    return labels, [said(f"f{i}", p) for i, p in enumerate(predicted)]


@pytest.mark.parametrize(
    ("truth", "predicted"),
    [
        (["accept", "refuse", "accept", "conflict"], ["accept", "refuse", "refuse", "accept"]),
        (["accept"] * 4, ["accept"] * 4),  # one class on both sides: sklearn nan → None
        (["refuse"], ["refuse"]),
        (["accept"] * 3, ["refuse"] * 3),  # never agree: p_e 0, kappa 0
        (["accept", "refuse"], ["accept", "refuse"]),  # perfect: 1
        (["accept", "refuse"], ["refuse", "accept"]),  # perfectly wrong: -1
    ],
)
def test_kappa_matches_sklearn_including_degenerate_cases(truth, predicted):
    ours = cohen_kappa(list(zip(truth, predicted, strict=True)))
    expected = sklearn_kappa(truth, predicted)
    assert (ours is None) == (expected is None)
    if expected is not None:
        assert ours == pytest.approx(expected)


def test_kappa_of_nothing_is_none():
    assert cohen_kappa([]) is None


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(ACTION, ACTION), min_size=1, max_size=40))
def test_agreement_kappa_and_macro_f1_match_sklearn(rows):
    truth, predicted = [t for t, _ in rows], [p for _, p in rows]
    report = evaluate_gate(*table(truth, predicted))
    assert report.metrics["agreement"] == pytest.approx(accuracy_score(truth, predicted))
    expected = sklearn_kappa(truth, predicted)
    if expected is None:
        assert report.metrics["kappa"] is None
    else:
        assert report.metrics["kappa"] == pytest.approx(expected)
    macro = f1_score(truth, predicted, labels=sorted(set(truth)), average="macro", zero_division=0)
    assert report.metrics["macro_f1"] == pytest.approx(macro)


def test_the_three_mistakes_by_hand():
    truth = ["accept", "accept", "refuse", "refuse", "conflict", "conflict", "accept"]
    predicted = ["refuse", "accept", "accept", "conflict", "accept", "conflict", "conflict"]
    report = evaluate_gate(*table(truth, predicted))
    # wrongly refused: row 1 only (accept → refuse). Wrongly written: rows 3 and 4 (refuse → accept,
    # refuse → conflict). Conflicts missed: row 5 (conflict → accept). Row 7 (accept → conflict) is
    # none of the three.
    assert report.metrics["wrongly_refused"] == 1
    assert report.metrics["wrongly_written"] == 2
    assert report.metrics["conflicts_missed"] == 1
    assert report.confusion == {
        "accept": {"accept": 1, "refuse": 1, "conflict": 1},
        "refuse": {"accept": 1, "refuse": 0, "conflict": 1},
        "conflict": {"accept": 1, "refuse": 0, "conflict": 1},
    }
    assert set(report.breakdown) == {"accept", "refuse", "conflict"}
    # accept: n 3, predicted 3, correct 1 → P 1/3, R 1/3.
    assert report.breakdown["accept"]["precision"] == pytest.approx(1 / 3)


def test_one_action_everywhere_leaves_kappa_undefined_with_a_note():
    report = evaluate_gate(*table(["accept"] * 3, ["accept"] * 3))
    assert report.metrics["agreement"] == 1.0 and report.metrics["kappa"] is None
    assert any("kappa is undefined" in note for note in report.notes)


def test_a_prediction_for_no_label_is_noted():
    labels = [label("a", "accept")]
    report = evaluate_gate(labels, [said("a", "accept"), said("ghost", "refuse")])
    assert report.n == 1
    assert any(note == "predictions matching no label, ignored: 1 (ghost)" for note in report.notes)


@pytest.mark.parametrize(
    ("labels", "predictions"),
    [([], []), ([label("a", "accept")], []), ([], [said("a", "accept")])],
)
def test_degenerate_tables_give_none_with_a_note(labels, predictions):
    report = evaluate_gate(labels, predictions)
    assert report.n == 0
    assert report.metrics["agreement"] is None and report.metrics["kappa"] is None
    assert report.metrics["macro_f1"] is None
    assert report.notes[0] == "no labelled fact was scored: every rate is undefined"
    json.dumps(report.model_dump(mode="json"), allow_nan=False)


# --- run_validate -----------------------------------------------------------------------------


class Action(Enum):
    refuse = "refuse"


class LookAlike:
    action = Action.refuse
    reason = "mine"


@pytest.mark.parametrize(
    "answer",
    [
        ValidationVerdict(action="refuse", reason="mine"),
        {"action": "refuse", "reason": "mine"},
        LookAlike(),
        "refuse",
    ],
)
def test_run_validate_reads_any_verdict_shape(answer):
    class Gate:
        def decide(self, fact):
            return answer

    predictions = gate_labels(Gate(), [label("a", "refuse")])
    assert predictions[0].id == "a" and predictions[0].action == "refuse"
    assert run_validate(Gate(), [label("a", "refuse")]).metrics["agreement"] == 1.0


@pytest.mark.parametrize(
    ("gate", "error"),
    [
        (lambda fact: 1 / 0, PipelineError),
        (lambda fact: "maybe", InputError),
        (lambda fact: {"reason": "no action"}, InputError),
        ("not a gate", InputError),
    ],
)
def test_run_validate_failures_are_typed(gate, error):
    with pytest.raises(error):
        run_validate(gate, [label("a", "accept")])


def test_items_are_right_or_wrong_per_labelled_fact():
    labels, predictions = table(["accept", "refuse"], ["accept", "accept"])
    assert gate_items(labels, predictions) == [
        {"id": "f0", "correct": True},
        {"id": "f1", "correct": False},
    ]
