"""The score evaluator: Brier, its baseline, the reliability bins and ECE."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import brier_score_loss

from openodke import Entity, Fact
from openodke.errors import InputError, PipelineError
from openodke.eval.stages.labels import CalibrationLabel
from openodke.eval.stages.score import BIN_NAMES, evaluate_calibration, run_score, score_labels
from tests.eval import spec_stage_names

ADA = Entity(key="ada", type="Person")


def test_spec_example(monkeypatch, capsys):
    spec_stage_names.provide(monkeypatch)
    from openodke import Entity, Fact

    ada = Entity(key="ada", type="Person")  # from the extract example
    # --- spec: score ---
    from openodke.eval import CalibrationLabel, evaluate_calibration

    rows = [
        CalibrationLabel(
            fact=Fact(subject=ada, predicate=f"claim_{i}", object_value=i, confidence=0.9),
            true=i < 6,
        )
        for i in range(10)
    ]
    report = evaluate_calibration(rows)

    print(report.notes[0])
    # of facts scored ≥ 0.9, 60% were true (6 of 10)
    assert round(report.metrics["ece"], 3) == 0.3
    assert report.metrics["brier"] > report.metrics["brier_baseline"]  # worse than a constant
    # --- end spec ---
    assert capsys.readouterr().out.splitlines() == [
        "of facts scored ≥ 0.9, 60% were true (6 of 10)"
    ]


def row(confidence: float, true: bool, ident: str | None = None) -> CalibrationLabel:
    fact = Fact(subject=ADA, predicate="p", object_value=1, confidence=confidence)
    if ident is not None:
        fact = fact.model_copy(update={"id": ident})
    return CalibrationLabel(fact=fact, true=true)


def test_ece_and_bins_by_hand():
    rows = [row(0.05, False), row(0.15, True), row(0.15, False), row(0.95, True), row(0.95, True)]
    report = evaluate_calibration(rows)
    # Bins: 0.0–0.1 n 1, mean 0.05, true 0 → gap 0.05; 0.1–0.2 n 2, mean 0.15, true 0.5 → gap 0.35;
    # 0.9–1.0 n 2, mean 0.95, true 1 → gap 0.05. ECE = (1·0.05 + 2·0.35 + 2·0.05) / 5 = 0.17.
    assert report.metrics["ece"] == pytest.approx(0.17)
    assert report.metrics["max_gap"] == pytest.approx(0.35)
    assert report.breakdown["0.1–0.2"] == {"n": 2, "mean_confidence": 0.15, "true_rate": 0.5}
    assert report.breakdown["0.5–0.6"] == {"n": 0, "mean_confidence": None, "true_rate": None}
    # base rate 3/5 → baseline 0.6 · 0.4.
    assert report.metrics["base_rate"] == pytest.approx(0.6)
    assert report.metrics["brier_baseline"] == pytest.approx(0.24)
    assert report.metrics["mean_confidence"] == pytest.approx(0.45)
    assert report.metrics["scored_at_threshold"] == 2
    assert report.metrics["true_rate_at_threshold"] == 1.0
    assert report.notes[0] == "of facts scored ≥ 0.9, 100% were true (2 of 2)"


def test_bin_names_and_edges():
    assert BIN_NAMES[0] == "0.0–0.1" and BIN_NAMES[-1] == "0.9–1.0" and len(BIN_NAMES) == 10
    # k/10 lands in bin k (its lower edge is closed); 1.0 joins the last bin.
    rows = [row(k / 10, True) for k in range(11)]
    bins = evaluate_calibration(rows).breakdown
    assert [bins[name]["n"] for name in BIN_NAMES] == [1] * 9 + [2]


def test_no_fact_at_the_threshold_leaves_its_rate_undefined():
    report = evaluate_calibration([row(0.2, False), row(0.4, True)])
    assert report.metrics["scored_at_threshold"] == 0
    assert report.metrics["true_rate_at_threshold"] is None
    assert report.notes[0] == "no fact was scored ≥ 0.9: the true rate there is undefined"


def test_threshold_is_a_keyword():
    report = evaluate_calibration([row(0.5, True), row(0.7, False)], threshold=0.5)
    assert report.metrics["threshold"] == 0.5
    assert report.notes[0] == "of facts scored ≥ 0.5, 50% were true (1 of 2)"


def test_predictions_join_on_fact_id():
    labels = [row(0.0, True, "a"), row(0.0, False, "b")]
    scored = [labels[0].fact.model_copy(update={"confidence": 1.0})]
    report = evaluate_calibration(labels, scored)
    assert report.n == 1 and report.metrics["brier"] == 0.0
    assert any("(b)" in note for note in report.notes)


@pytest.mark.parametrize("confidence", [-0.1, 1.5, float("nan")])
def test_a_confidence_outside_zero_one_is_an_input_error(confidence):
    with pytest.raises(InputError, match="outside 0–1"):
        evaluate_calibration([row(confidence, True)])


@pytest.mark.parametrize(
    ("labels", "predictions"),
    [([], None), ([], []), ([row(0.5, True, "a")], [])],
)
def test_degenerate_tables_give_none_with_a_note(labels, predictions):
    report = evaluate_calibration(labels, predictions)
    assert report.n == 0
    for key in ("brier", "brier_baseline", "ece", "max_gap", "base_rate", "mean_confidence"):
        assert report.metrics[key] is None
    assert report.notes[0] == "no labelled fact was scored: every metric is undefined"
    json.dumps(report.model_dump(mode="json"), allow_nan=False)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=1, max_size=40))
def test_brier_matches_sklearn_and_ece_is_bounded(rows):
    report = evaluate_calibration([row(c, t) for c, t in rows])
    truth, confidence = [int(t) for _, t in rows], [c for c, _ in rows]
    assert report.metrics["brier"] == pytest.approx(
        brier_score_loss(truth, confidence, pos_label=1)
    )
    assert 0.0 <= report.metrics["ece"] <= report.metrics["max_gap"] + 1e-12 <= 1.0 + 1e-12
    assert sum(b["n"] for b in report.breakdown.values()) == len(rows)


# --- run_score --------------------------------------------------------------------------------


class Halves:
    def score(self, fact):
        return fact.model_copy(update={"confidence": 0.5, "id": "new"})


def test_run_score_scores_each_label_and_keeps_its_id():
    labels = [row(0.0, True, "a"), row(0.0, False, "b")]
    assert [f.id for f in score_labels(Halves(), labels)] == ["a", "b"]
    report = run_score(Halves(), labels)
    assert report.metrics["brier"] == 0.25 and report.metrics["mean_confidence"] == 0.5


@pytest.mark.parametrize(
    ("scorer", "error"),
    [(lambda fact: 1 / 0, PipelineError), (lambda fact: 0.5, PipelineError), (42, InputError)],
)
def test_run_score_failures_are_typed(scorer, error):
    with pytest.raises(error):
        run_score(scorer, [row(0.5, True)])
