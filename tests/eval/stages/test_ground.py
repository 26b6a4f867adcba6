"""The ground evaluator, grounding_ablation and run_ground."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, f1_score

from openodke import Entity, Fact, GroundingVerdict
from openodke.errors import InputError, PipelineError
from openodke.eval.stages.ground import (
    evaluate_grounding,
    ground_labels,
    grounding_ablation,
    grounding_items,
    run_ground,
)
from openodke.eval.stages.labels import GroundingLabel
from tests.eval import spec_stage_names

TEXT = "Ada Lovelace was born in London in 1815."
ADA = Entity(key="ada", type="Person")


def label(ident: str, verdict: str, stamped: str = "unchecked") -> GroundingLabel:
    fact = Fact(
        id=ident,
        subject=ADA,
        predicate="p_" + ident,
        object_value=1,
        verdict=GroundingVerdict(stamped),
    )
    return GroundingLabel(text=TEXT, fact=fact, verdict=verdict)


def stamp(row: GroundingLabel, verdict: str) -> Fact:
    return row.fact.model_copy(update={"verdict": GroundingVerdict(verdict)})


def spec_ground_example() -> list[GroundingLabel]:
    """The spec's ground example, verbatim after the extract example's names it uses."""
    # From the extract example, which the ground example builds on:
    from openodke import Entity, Evidence, Fact, GroundingVerdict, Span  # noqa: F401

    ada = Entity(key="ada", type="Person")
    spec_stage_names.extraction_prelude()

    # --- spec: ground ---
    from openodke.eval import GroundingLabel, evaluate_grounding, grounding_ablation

    text = "Ada Lovelace was born in London in 1815."
    passage = (Evidence(doc_id="d1", span=Span(doc_id="d1", start=0, end=len(text))),)

    def labelled(id, predicate, value, verdict):
        fact = Fact(id=id, subject=ada, predicate=predicate, object_value=value, evidence=passage)
        return GroundingLabel(text=text, fact=fact, verdict=verdict)

    labels = [
        labelled("g1", "born", 1815, "supported"),
        labelled("g2", "birthplace", "London", "supported"),
        labelled("g3", "born", 1816, "contradicted"),
        labelled("g4", "died", 1852, "not_found"),
    ]
    # What a grounder stamped on each: right three times, and it lost g2.
    said = {"g1": "supported", "g2": "not_found", "g3": "contradicted", "g4": "not_found"}
    grounded = [
        row.fact.model_copy(update={"verdict": GroundingVerdict(said[row.fact.id])})
        for row in labels
    ]

    report = evaluate_grounding(labels, grounded)
    assert (report.metrics["false_support"], report.metrics["lost_support"]) == (0, 1)

    ablation = grounding_ablation(labels, grounded)
    print(ablation.notes[0])
    # grounding moved precision from 0.500 to 1.000, keeping 1 of 2 true facts
    # --- end spec ---
    return labels


def test_spec_example_prints_what_the_spec_shows(monkeypatch, capsys):
    spec_stage_names.provide(monkeypatch)
    spec_ground_example()
    assert capsys.readouterr().out.splitlines() == [
        "grounding moved precision from 0.500 to 1.000, keeping 1 of 2 true facts"
    ]


# (labels, stamped, accuracy, false_support, lost_support, unchecked). Working:
#   row 1: s→s right, c→s false support, n→n right: 2/3, fs 1, ls 0.
#   row 2: s→n lost, s→u lost and unchecked, c→c right: 1/3, fs 0, ls 2, u 1.
#   row 3: n→s and c→s both false support, s→s right: 1/3, fs 2.
CASES = [
    (
        ["supported", "contradicted", "not_found"],
        ["supported", "supported", "not_found"],
        2 / 3,
        1,
        0,
        0,
    ),
    (
        ["supported", "supported", "contradicted"],
        ["not_found", "unchecked", "contradicted"],
        1 / 3,
        0,
        2,
        1,
    ),
    (
        ["not_found", "contradicted", "supported"],
        ["supported", "supported", "supported"],
        1 / 3,
        2,
        0,
        0,
    ),
]


@pytest.mark.parametrize(
    ("truth", "stamped", "accuracy", "false_support", "lost", "unchecked"), CASES
)
def test_metrics_on_hand_worked_tables(truth, stamped, accuracy, false_support, lost, unchecked):
    labels = [label(f"f{i}", t) for i, t in enumerate(truth)]
    report = evaluate_grounding(labels, [stamp(r, p) for r, p in zip(labels, stamped, strict=True)])
    assert report.metrics["accuracy"] == pytest.approx(accuracy)
    assert report.metrics["false_support"] == false_support
    assert report.metrics["lost_support"] == lost
    assert report.metrics["unchecked"] == unchecked
    assert report.n == len(truth)


def test_confusion_runs_label_to_predicted_and_breakdown_is_per_verdict():
    labels = [label("a", "supported"), label("b", "supported"), label("c", "not_found")]
    report = evaluate_grounding(
        labels,
        [
            stamp(labels[0], "supported"),
            stamp(labels[1], "unchecked"),
            stamp(labels[2], "supported"),
        ],
    )
    assert report.confusion == {
        "supported": {"supported": 1, "unchecked": 1},
        "not_found": {"supported": 1, "unchecked": 0},
    }
    # supported: tp 1, predicted 2, n 2 → P 0.5, R 0.5; not_found: never predicted → P None, F1 0.
    assert report.breakdown["supported"] == {
        "n": 2,
        "predicted": 2,
        "correct": 1,
        "precision": 0.5,
        "recall": 0.5,
        "f1": 0.5,
    }
    assert report.breakdown["not_found"]["precision"] is None
    assert report.breakdown["not_found"]["f1"] == 0.0
    assert list(report.breakdown) == ["supported", "not_found", "unchecked"]


def test_without_predictions_the_labels_own_verdicts_are_scored():
    labels = [
        label("a", "supported", stamped="supported"),
        label("b", "not_found", stamped="supported"),
    ]
    report = evaluate_grounding(labels)
    assert (report.metrics["accuracy"], report.metrics["false_support"]) == (0.5, 1)


def test_predictions_join_on_fact_id_and_strays_are_noted_not_fatal():
    labels = [label("a", "supported"), label("b", "contradicted")]
    stray = Fact(
        id="zz", subject=ADA, predicate="x", object_value=1, verdict=GroundingVerdict.supported
    )
    report = evaluate_grounding(labels, [stray, stamp(labels[1], "contradicted")])
    assert report.n == 1 and report.metrics["accuracy"] == 1.0
    assert any("no prediction of their id, left out: 1 of 2 (a)" in n for n in report.notes)
    assert "predictions matching no label, ignored: 1 (zz)" in report.notes


@pytest.mark.parametrize(
    ("labels", "predictions"),
    [
        ([], None),  # neither
        ([], []),  # no labels, no predictions
        ([label("a", "supported")], []),  # no predictions
        ([], [Fact(id="a", subject=ADA, predicate="p", object_value=1)]),  # no labels
    ],
)
def test_degenerate_tables_give_none_with_a_note(labels, predictions):
    report = evaluate_grounding(labels, predictions)
    assert report.n == 0
    assert report.metrics["accuracy"] is None and report.metrics["macro_f1"] is None
    assert report.notes[0] == "no labelled fact was scored: every rate is undefined"
    json.dumps(report.model_dump(mode="json"), allow_nan=False)


VERDICT = st.sampled_from(["supported", "contradicted", "not_found"])
STAMP = st.sampled_from(["supported", "contradicted", "not_found", "unchecked"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(VERDICT, STAMP), min_size=1, max_size=30))
def test_accuracy_and_macro_f1_agree_with_sklearn(rows):
    labels = [label(f"f{i}", t) for i, (t, _) in enumerate(rows)]
    report = evaluate_grounding(
        labels, [stamp(r, p) for r, (_, p) in zip(labels, rows, strict=True)]
    )
    truth, predicted = [t for t, _ in rows], [p for _, p in rows]
    assert report.metrics["accuracy"] == pytest.approx(accuracy_score(truth, predicted))
    # macro over the verdicts present in the labels; a labelled verdict never predicted scores 0.
    expected = f1_score(
        truth, predicted, labels=sorted(set(truth)), average="macro", zero_division=0
    )
    assert report.metrics["macro_f1"] == pytest.approx(expected)
    assert report.metrics["false_support"] + report.metrics["lost_support"] <= report.n


# --- grounding_ablation ---------------------------------------------------------------------


def test_ablation_that_changes_nothing_says_so():
    labels = [label("a", "supported"), label("b", "not_found")]
    grounded = [stamp(labels[0], "supported"), stamp(labels[1], "supported")]
    report = grounding_ablation(labels, grounded)
    # off: 1 true of 2; on: both kept → 1 of 2 again.
    assert report.notes[0] == (
        "grounding did not move precision on these labels (0.500), keeping 1 of 1 true facts"
    )
    assert report.metrics["recall_cost"] == 0.0


def test_ablation_that_drops_everything_leaves_precision_undefined():
    labels = [label("a", "supported"), label("b", "contradicted")]
    report = grounding_ablation(labels, [stamp(r, "not_found") for r in labels])
    assert report.metrics["precision_on"] is None
    assert report.metrics["recall_on"] == 0.0
    assert report.notes[0].startswith("grounding dropped all 2 facts")


def test_ablation_drop_is_configurable_and_leaves_out_ungrounded_labels():
    labels = [label("a", "supported"), label("b", "not_found"), label("c", "contradicted")]
    grounded = [stamp(labels[0], "not_found"), stamp(labels[1], "not_found")]
    report = grounding_ablation(labels, grounded, drop=("contradicted",))
    # c has no grounded fact: left out; over a, b: off 1/2, on (not_found kept) 1/2.
    assert report.metrics["facts"] == 2 and report.metrics["precision_on"] == 0.5
    assert any("(c)" in note and "grounded fact" in note for note in report.notes[1:])
    with pytest.raises(ValueError):
        grounding_ablation(labels, grounded, drop=("nonsense",))


def test_ablation_with_nothing_grounded_is_undefined():
    report = grounding_ablation([], [])
    assert report.metrics["precision_off"] is None and report.metrics["precision_on"] is None
    assert report.notes[0].startswith("no labelled fact was grounded")


# --- run_ground -----------------------------------------------------------------------------


class SaysSupported:
    def ground(self, fact, document):
        assert document.text == TEXT
        return fact.model_copy(update={"verdict": GroundingVerdict.supported, "id": "renamed"})


def test_run_ground_calls_the_grounder_per_label_and_keeps_label_ids():
    labels = [label("a", "supported"), label("b", "not_found")]
    report = run_ground(SaysSupported(), labels)
    assert (report.n, report.metrics["false_support"]) == (2, 1)
    assert [f.id for f in ground_labels(SaysSupported(), labels)] == ["a", "b"]


def test_run_ground_takes_a_plain_function():
    def ground(fact, document):
        return fact.model_copy(update={"verdict": GroundingVerdict.not_found})

    assert run_ground(ground, [label("a", "not_found")]).metrics["accuracy"] == 1.0


@pytest.mark.parametrize(
    ("grounder", "error"),
    [
        (lambda fact, document: 1 / 0, PipelineError),
        (lambda fact, document: "supported", PipelineError),
        (object(), InputError),
    ],
)
def test_run_ground_failures_are_typed(grounder, error):
    with pytest.raises(error):
        run_ground(grounder, [label("a", "supported")])


def test_items_say_right_or_wrong_per_labelled_fact():
    labels = [label("a", "supported"), label("b", "not_found")]
    items = grounding_items(labels, [stamp(labels[0], "supported"), stamp(labels[1], "supported")])
    assert items == [{"id": "a", "correct": True}, {"id": "b", "correct": False}]
