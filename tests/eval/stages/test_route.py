"""The route evaluator: actions, facts skipped or deferred, wasted extractions and labels."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

from openodke.errors import InputError, PipelineError
from openodke.eval.stages.labels import RouteLabel, RoutePrediction
from openodke.eval.stages.route import evaluate_routing, route_labels, routing_items, run_route
from openodke.protocols import RouteVerdict

# id, labelled action and label, predicted action and label.
TABLE = [
    ("r1", "extract", "fact", "extract", "fact"),
    ("r2", "extract", "fact", "skip", "marketing"),
    ("r3", "extract", "fact", "defer", "fact"),
    ("r4", "skip", "marketing", "extract", "fact"),
    ("r5", "skip", "marketing", "skip", "marketing"),
    ("r6", "defer", None, "defer", None),
]


def split(rows):
    labels = [RouteLabel(id=i, text=f"text {i}", action=a, label=lab) for i, a, lab, _, _ in rows]
    predictions = [RoutePrediction(id=i, action=a, label=lab) for i, _, _, a, lab in rows]
    return labels, predictions


def test_metrics_by_hand():
    report = evaluate_routing(*split(TABLE))
    m = report.metrics
    # Actions right on r1, r5, r6: 3 of 6.
    assert m["action_accuracy"] == 0.5
    # extract: predicted on r1, r4 (right on r1) → P 1/2; labelled on r1–r3 → R 1/3;
    # F1 = 2·1 / (2·1 + 1 + 2) = 0.4.
    assert (m["extract_precision"], m["extract_recall"], m["extract_f1"]) == (0.5, 1 / 3, 0.4)
    # skip: predicted on r2, r5 (right on r5) → P 1/2; labelled on r4, r5 → R 1/2.
    assert (m["skip_precision"], m["skip_recall"]) == (0.5, 0.5)
    # r2 labelled extract, skipped; r3 deferred; r4 labelled skip, extracted.
    assert (m["facts_skipped"], m["facts_skipped_rate"]) == (1, 1 / 3)
    assert (m["facts_deferred"], m["wasted_extractions"]) == (1, 1)
    # Labels on r1–r5: right on r1, r3, r5 → 3/5. fact: tp 2, fp 1 (r4), fn 1 (r2) → F1 2/3;
    # marketing: tp 1, fp 1 (r2), fn 1 (r4) → F1 1/2; macro (2/3 + 1/2) / 2 = 7/12.
    assert m["label_accuracy"] == 0.6
    assert m["label_macro_f1"] == pytest.approx(7 / 12)
    assert report.breakdown["fact"] == {
        "n": 3,
        "action_accuracy": 1 / 3,
        "facts_skipped": 1,
        "precision": 2 / 3,
        "recall": 2 / 3,
        "f1": pytest.approx(2 / 3),
    }
    assert report.breakdown["(no label)"]["n"] == 1
    assert report.breakdown["(no label)"]["precision"] is None
    assert report.confusion["extract"] == {"extract": 1, "skip": 1, "defer": 1}


def test_metric_keys_are_exactly_the_surface_ones():
    assert list(evaluate_routing(*split(TABLE)).metrics) == [
        "action_accuracy",
        "extract_precision",
        "extract_recall",
        "extract_f1",
        "skip_precision",
        "skip_recall",
        "facts_skipped",
        "facts_skipped_rate",
        "facts_deferred",
        "wasted_extractions",
        "label_accuracy",
        "label_macro_f1",
    ]


ACTION = st.sampled_from(["extract", "skip", "defer"])
NAME = st.sampled_from(["fact", "ad", None])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(ACTION, NAME, ACTION, NAME), min_size=1, max_size=30))
def test_action_and_label_scores_match_sklearn(rows):
    table = [(f"r{i}", *row) for i, row in enumerate(rows)]
    report = evaluate_routing(*split(table))
    truth, predicted = [r[0] for r in rows], [r[2] for r in rows]
    assert report.metrics["action_accuracy"] == pytest.approx(accuracy_score(truth, predicted))
    if "extract" in truth:
        expected = recall_score(truth, predicted, labels=["extract"], average="micro")
        assert report.metrics["extract_recall"] == pytest.approx(expected)
    if "skip" in predicted:
        expected = precision_score(truth, predicted, labels=["skip"], average="micro")
        assert report.metrics["skip_precision"] == pytest.approx(expected)
    named = [(t, p or "(none)") for _, t, _, p in rows if t]
    if named:
        gold = [t for t, _ in named]
        macro = f1_score(
            gold, [p for _, p in named], labels=sorted(set(gold)), average="macro", zero_division=0
        )
        assert report.metrics["label_macro_f1"] == pytest.approx(macro)
    else:
        assert report.metrics["label_accuracy"] is None


@pytest.mark.parametrize(
    ("labels", "predictions"),
    [
        ([], []),
        ([RouteLabel(id="a", text="t", action="skip")], []),
        ([], [RoutePrediction(id="a", action="skip")]),
    ],
)
def test_degenerate_tables_give_none_with_a_note(labels, predictions):
    report = evaluate_routing(labels, predictions)
    assert report.n == 0
    assert report.metrics["action_accuracy"] is None
    assert report.metrics["facts_skipped_rate"] is None
    assert report.notes[0] == "no labelled row was scored: every rate is undefined"
    json.dumps(report.model_dump(mode="json"), allow_nan=False)


def test_rows_without_labels_leave_label_scores_undefined_and_say_so():
    report = evaluate_routing(*split([("a", "extract", None, "extract", "fact")]))
    assert report.metrics["label_accuracy"] is None and report.metrics["label_macro_f1"] is None
    assert any("no labelled row carries a label" in note for note in report.notes)


# --- run_route ---------------------------------------------------------------------------------


class MarketingRouter:
    def route(self, text):
        if "buy" in text:
            return RouteVerdict(action="skip", label="marketing", reason="an advert")
        return {"action": "extract", "label": "fact"}


def test_run_route_routes_each_text():
    labels = [
        RouteLabel(id="a", text="buy now", action="skip", label="marketing"),
        RouteLabel(id="b", text="Ada was born in 1815.", action="extract", label="fact"),
    ]
    assert route_labels(MarketingRouter(), labels)[0] == RoutePrediction(
        id="a", action="skip", label="marketing"
    )
    report = run_route(MarketingRouter(), labels)
    assert report.metrics["action_accuracy"] == 1.0 and report.metrics["label_accuracy"] == 1.0


@pytest.mark.parametrize(
    ("router", "error"),
    [(lambda text: 1 / 0, PipelineError), (lambda text: "later", InputError), (3, InputError)],
)
def test_run_route_failures_are_typed(router, error):
    with pytest.raises(error):
        run_route(router, [RouteLabel(id="a", text="t", action="skip")])


def test_items_judge_the_action():
    labels, predictions = split(TABLE[:2])
    assert routing_items(labels, predictions) == [
        {"id": "r1", "correct": True},
        {"id": "r2", "correct": False},
    ]
