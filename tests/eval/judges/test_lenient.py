"""The lenient score: the spec's example, the pre-filter, both orders, once per fact."""

from __future__ import annotations

from pathlib import Path

import pytest

from openodke import Document, Entity, Evidence, Fact, Polarity
from openodke.errors import ProviderError
from openodke.eval import GoldFact
from openodke.eval.diagnosis import diagnose, gold_view
from openodke.eval.equivalence import (
    FactJudge,
    candidate,
    lenient,
    lenient_score,
    passage_for,
    surface_pair,
    surface_pairs,
)
from openodke.eval.judges.lenient import one_to_one
from openodke.llm import LLMResponse, RecordedClient, ScriptedClient


def test_spec_example_verbatim() -> None:
    ada = Entity(key="ada", type="Person", label="Ada Lovelace")
    doc = Document(id="a1", text="Ada Lovelace was born in London on 10 December 1815.")
    cited = (Evidence(doc_id="a1"),)
    gold = [GoldFact(doc_id="a1", fact=Fact(subject=ada, predicate="born", object_value="1815"))]
    said = [Fact(subject=ada, predicate="born", object_value="10 December 1815", evidence=cited)]

    # Recorded answers: "same" in both orders.
    judge = FactJudge(
        client=RecordedClient([{"match": "Fact 1", "response": {"decision": "same"}}])
    )
    section, pairs = lenient([("extract", said)], gold, [doc], judge)
    (row,) = section.rows
    assert (row.candidates, row.same, row.counted) == (1, 1, 1)
    assert (row.strict.recall.value, row.lenient.recall.value) == (0.0, 1.0)
    assert pairs[0].passage == "Ada Lovelace was born in London on 10 December 1815."


def person(name: str, key: str | None = None) -> Entity:
    return Entity(key=key or f"Person:{name.casefold()}", type="Person", label=name)


def place(name: str) -> Entity:
    return Entity(key=f"Place:{name.casefold()}", type="Place", label=name)


def edge(s: Entity, p: str, o: Entity, doc: str = "d1", **kw: object) -> Fact:
    return Fact(subject=s, predicate=p, object_entity=o, evidence=(Evidence(doc_id=doc),), **kw)  # type: ignore[arg-type]


GABBY = person("Gabby Logan")
GABRIELLE = person("Gabrielle Nicole Logan")
LEEDS, LONDON = place("Leeds"), place("London")


@pytest.mark.parametrize(
    ("gold", "prediction", "end"),
    [
        # one end equal (the object), the other written another way: a candidate
        (edge(GABRIELLE, "born_in", LEEDS), edge(GABBY, "born_in", LEEDS), "object"),
        # the subject equal, the object another
        (edge(GABBY, "born_in", LEEDS), edge(GABBY, "born_in", LONDON), "subject"),
        # equal by name key only: accents, case and punctuation ignored
        (edge(person("Zoë Ball"), "born_in", LEEDS), edge(person("ZOE  BALL."), "born_in", LONDON), "subject"),
        # an alias counts as a name
        (edge(person("Gabby Logan").model_copy(update={"aliases": ("Gabrielle",)}), "born_in", LEEDS),
         edge(person("Gabrielle"), "born_in", LONDON), "subject"),
        # no end shared
        (edge(GABBY, "born_in", LEEDS), edge(GABRIELLE, "born_in", LONDON), None),
        # both ends the same nodes: the same triple scored apart, not a surface form
        (edge(GABBY, "born_in", LEEDS), edge(GABBY, "born_in", LEEDS), None),
    ],
)  # fmt: skip
def test_surface_pair_names_the_shared_end(gold: Fact, prediction: Fact, end: str | None) -> None:
    assert surface_pair(gold, prediction) == end
    assert candidate(gold, prediction) is (end is not None)


def test_candidate_needs_the_same_relation_and_polarity() -> None:
    gold = edge(GABRIELLE, "born_in", LEEDS)
    assert candidate(gold, edge(GABBY, "born_in", LEEDS))
    assert not candidate(gold, edge(GABBY, "lives_in", LEEDS))
    assert not candidate(gold, edge(GABBY, "born_in", LEEDS, polarity=Polarity.denied))


def test_surface_pairs_take_misses_and_unmatched_predictions_of_one_document() -> None:
    gold = [
        GoldFact(doc_id="d1", fact=edge(GABRIELLE, "born_in", LEEDS)),
        GoldFact(doc_id="d1", fact=edge(GABBY, "works_for", place("BBC"))),  # hit below
        GoldFact(doc_id="d2", fact=edge(GABRIELLE, "born_in", LEEDS, doc="d2")),
    ]
    said = [
        edge(GABBY, "born_in", LEEDS),  # d1: a near miss of gold 0
        edge(GABBY, "works_for", place("BBC")),  # d1: a hit, never a candidate
        edge(GABBY, "born_in", LEEDS, doc="d3"),  # another document: unscored
    ]
    view = gold_view(gold, said, documents=["d1", "d2"])
    pairs = surface_pairs(view)
    assert [(p.doc_id, p.gold, p.prediction, p.end) for p in pairs] == [("d1", 0, 0, "object")]


def test_one_to_one_is_a_maximum_matching() -> None:
    # Greedy in order would take (0, 0) and leave gold 1 unmatched; the maximum takes both.
    assert one_to_one([(0, 0), (0, 1), (1, 0)]) == [(0, 1), (1, 0)]
    assert one_to_one([(0, 0), (1, 0), (2, 0)]) == [(0, 0)]
    assert one_to_one([]) == []


TEXT = "Gabrielle Nicole Logan, known as Gabby Logan, was born in Leeds. She presents sport."


def setting() -> tuple[list[GoldFact], list[Document]]:
    gold = [
        GoldFact(doc_id="d1", fact=edge(GABRIELLE, "born_in", LEEDS)),
        GoldFact(doc_id="d1", fact=edge(GABRIELLE, "presents", place("Sport"))),
    ]
    return gold, [Document(id="d1", text=TEXT)]


def test_each_gold_fact_and_prediction_counts_once() -> None:
    gold, docs = setting()
    # Two predictions are near misses of the same gold fact: both judged same, one counts.
    said = [edge(GABBY, "born_in", LEEDS), edge(person("G. Logan"), "born_in", LEEDS)]
    judge = FactJudge(
        client=RecordedClient([{"match": "Fact 1", "response": {"decision": "same"}}])
    )
    section, pairs = lenient([("run", said)], gold, docs, judge)
    (row,) = section.rows
    assert (row.candidates, row.same, row.counted) == (2, 2, 1)
    # strict: tp 0, fp 2, fn 2; lenient: tp 1, fp 1, fn 1
    assert row.strict.recall.value == 0.0 and row.lenient.recall.value == 0.5
    assert row.lenient.precision.value == 0.5
    assert {p.same for p in pairs} == {True}


def test_same_counts_only_when_both_orders_say_so() -> None:
    gold, docs = setting()
    said = [edge(GABBY, "born_in", LEEDS)]
    gold_words = "Fact 1: Gabrielle Nicole Logan (Person) — born in — Leeds (Place)"
    client = RecordedClient(
        [
            {"match": gold_words, "response": {"decision": "same"}},
            {"match": "Fact 1", "response": {"decision": "different", "why": "other person"}},
        ]
    )
    section, pairs = lenient([("run", said)], gold, docs, FactJudge(client=client))
    assert (section.rows[0].same, section.rows[0].counted) == (0, 0)
    (pair,) = pairs
    assert [a.decision for a in pair.answers] == ["same", "different"]
    assert pair.same is False and pair.why == "prediction first: different (other person)"


def test_a_failed_call_counts_neither_way_and_is_reported() -> None:
    gold, docs = setting()
    said = [edge(GABBY, "born_in", LEEDS), edge(GABRIELLE, "presents", place("Football"))]
    failed = LLMResponse(model="m", error="HTTP 500 after 4 attempts")
    # One question per candidate, both orders, in order: the first pair fails once.
    client = ScriptedClient([{"decision": "same"}, failed, "same", "Same."])
    outcome = lenient_score([("run", said)], gold, docs, FactJudge(client=client), max_workers=1)
    assert [p.same for p in outcome.pairs] == [None, True]
    assert outcome.pairs[0].why == "prediction first: HTTP 500 after 4 attempts; counts neither way"
    assert (outcome.tally.calls, outcome.tally.failed) == (4, 1)
    assert outcome.section.rows[0].counted == 1
    assert "1 of 4 calls failed and count neither way" in outcome.notes[0]
    assert "1 of 4 calls failed" in outcome.table


def test_every_call_failing_is_a_provider_error() -> None:
    gold, docs = setting()
    client = RecordedClient([{"match": "no such prompt", "response": {"decision": "same"}}])
    with pytest.raises(ProviderError, match="every one of 2 calls failed"):
        lenient([("run", [edge(GABBY, "born_in", LEEDS)])], gold, docs, FactJudge(client=client))


def test_an_unreadable_answer_counts_neither_way() -> None:
    gold, docs = setting()
    client = ScriptedClient(["I think they might be the same person", {"decision": "same"}])
    outcome = lenient_score(
        [("run", [edge(GABBY, "born_in", LEEDS)])],
        gold,
        docs,
        FactJudge(client=client),
        max_workers=1,
    )
    (pair,) = outcome.pairs
    assert pair.same is None and pair.answers[0].error is not None
    assert pair.answers[0].error.startswith("unreadable answer")


def test_a_question_two_rows_share_is_asked_once() -> None:
    gold, docs = setting()
    said = [edge(GABBY, "born_in", LEEDS)]
    client = ScriptedClient([{"decision": "same"}] * 2)
    outcome = lenient_score(
        [("a", said), ("b", list(said))], gold, docs, FactJudge(client=client), max_workers=1
    )
    assert len(client.calls) == 2  # two orders of one question
    assert [r.counted for r in outcome.section.rows] == [1, 1]
    assert outcome.pairs[0].rows == ("a", "b")


def test_the_prompt_shows_relation_both_facts_and_passage() -> None:
    gold, docs = setting()
    client = ScriptedClient([{"decision": "same"}] * 2)
    judge = FactJudge(client=client, relations={"born_in": "where a person was born"})
    lenient([("run", [edge(GABBY, "born_in", LEEDS)])], gold, docs, judge, max_workers=1)
    (first, _, schema), (second, _, _) = client.calls
    user = first[-1]["content"]
    assert "Relation: born in (where a person was born)" in user
    assert "Fact 1: Gabrielle Nicole Logan (Person) — born in — Leeds (Place)" in user
    assert "Fact 2: Gabby Logan (Person) — born in — Leeds (Place)" in user
    assert "Passage:\nGabrielle Nicole Logan, known as Gabby Logan, was born in Leeds." in user
    assert "Fact 1: Gabby Logan" in second[-1]["content"]
    assert all(m["prompt"] == "fact_equiv@1" for m in first)
    assert schema is not None and schema["properties"]["decision"]["enum"] == ["same", "different"]


def test_passage_is_the_gold_facts_evidence_sentences() -> None:
    gold = edge(GABRIELLE, "born_in", LEEDS)
    text = "She presents sport. Gabrielle Nicole Logan was born in Leeds. Logan lives in London."
    assert passage_for(gold, edge(GABBY, "born_in", LEEDS), text) == (
        "Gabrielle Nicole Logan was born in Leeds."
    )
    # No sentence names both ends: those naming an end of either fact.
    text = "Gabby Logan presents sport. Leeds is a city."
    assert passage_for(gold, edge(GABBY, "born_in", LEEDS), text) == text
    # A cited span wins.
    from openodke import Span

    cited = gold.model_copy(
        update={"evidence": (Evidence(doc_id="d1", span=Span(doc_id="d1", start=0, end=11)),)}
    )
    assert passage_for(cited, edge(GABBY, "born_in", LEEDS), text) == "Gabby Logan"


def test_confirmed_pairs_feed_the_diagnosis_surface_bucket() -> None:
    gold, docs = setting()
    said = [edge(GABBY, "born_in", LEEDS)]
    judge = FactJudge(
        client=RecordedClient([{"match": "Fact 1", "response": {"decision": "same"}}])
    )
    _, pairs = lenient([("run", said)], gold, docs, judge)
    found = diagnose(gold_view(gold, said), lenient=pairs)
    bucket = {b.bucket: b for b in found.buckets}["surface_form"]
    assert bucket.count == 1 and bucket.label == "surface form"
    assert found.confirmed


def test_the_table_has_the_judges_card_line() -> None:
    gold, docs = setting()
    judge = FactJudge(
        client=RecordedClient([{"match": "Fact 1", "response": {"decision": "same"}}])
    )
    outcome = lenient_score(
        [("run", [edge(GABBY, "born_in", LEEDS)])], gold, docs, judge, pairs_path="pairs.jsonl"
    )
    assert outcome.section.calibrated is False
    assert outcome.section.judge == {
        "model": "anthropic/claude-haiku-4-5-20251001",
        "prompt": "fact_equiv@1",
    }
    assert "UNCALIBRATED (below the bar: printed, not trusted)" in outcome.table
    assert outcome.table.splitlines()[-1] == "  the pairs, with every answer: pairs.jsonl"


def test_a_card_that_meets_the_bar_is_shown_and_trusted(tmp_path: Path) -> None:
    import json

    card = {
        "judge": {"model": "ollama/qwen2.5:7b", "prompt": "fact_equiv@1"},
        "label_set": "F",
        "split": "gate",
        "n": 400,
        "agreement": {"value": 0.95, "low": 0.92, "high": 0.97},
        "kappa": 0.88,
        "measured_at": "2025-06-01T00:00:00Z",
    }
    (tmp_path / "card.json").write_text(json.dumps(card), encoding="utf-8")
    gold, docs = setting()
    client = RecordedClient([{"match": "Fact 1", "response": {"decision": "same"}}])
    judge = FactJudge(client=client, roles="ollama/qwen2.5:7b")
    outcome = lenient_score(
        [("run", [edge(GABBY, "born_in", LEEDS)])],
        gold,
        docs,
        judge,
        cards=[tmp_path / "card.json"],
    )
    assert outcome.section.calibrated is True and outcome.calibration.meets_bar
    assert outcome.calibration.line == (
        "fact_equiv@1 on ollama/qwen2.5:7b: agreement 0.95 [0.92, 0.97] (Wilson 95%), kappa 0.88, "
        "n 400, F/gate, 2025-06-01"
    )
    assert (
        "judge fact_equiv@1 on ollama/qwen2.5:7b: agreement 0.95 [0.92, 0.97] (Wilson 95%), "
        "kappa 0.88, n 400, F/gate, 2025-06-01 (meets the bar)"
    ) in outcome.table
