"""Adjudication: predictions the gold lacks, grounded three times; the strict precision stays."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from openodke import Document, Entity, Evidence, Fact, GroundingVerdict
from openodke.errors import InputError, ProviderError
from openodke.eval import GoldFact
from openodke.eval.judges.adjudicate import adjudicate

ADA = Entity(key="ada", type="Person", label="Ada Lovelace")
DOC = Document(id="d1", text="Ada Lovelace was born in London in 1815. She died in 1852.")


def said(predicate: str, value: object, doc: str | None = "d1") -> Fact:
    evidence = (Evidence(doc_id=doc),) if doc else ()
    return Fact(subject=ADA, predicate=predicate, object_value=value, evidence=evidence)  # type: ignore[arg-type]


GOLD = [
    GoldFact(doc_id="d1", fact=Fact(subject=ADA, predicate=p, object_value=v))
    for p, v in [("born", 1815), ("birthplace", "London"), ("died", 1852)]
]
FIVE = [
    said("born", 1815),
    said("birthplace", "London"),
    said("died", 1852),
    said("wrote", "notes"),
    said("married", "Byron"),
]


class Table:
    """A grounder reading its verdicts from a table: (predicate, run) -> verdict."""

    def __init__(self, run: int, verdicts: Callable[[str, int], str], calls: list[str]) -> None:
        self.run, self.verdicts, self.calls = run, verdicts, calls

    def ground(self, fact: Fact, document: Document) -> Fact:
        assert document.id == "d1"
        self.calls.append(f"{fact.predicate}@{self.run}")
        verdict = GroundingVerdict(self.verdicts(fact.predicate, self.run))
        return fact.model_copy(update={"verdict": verdict})


def grounders(verdicts: Callable[[str, int], str], calls: list[str]) -> Callable[[int], Table]:
    return lambda run: Table(run, verdicts, calls)


def spec_verdicts(predicate: str, run: int) -> str:
    # "wrote" supported every time; "married" once only.
    if predicate == "wrote" or (predicate == "married" and run == 0):
        return "supported"
    return "not_found"


def test_the_spec_table() -> None:
    calls: list[str] = []
    outcome = adjudicate(
        [("pipeline", FIVE)],
        GOLD,
        [DOC],
        grounders(spec_verdicts, calls),
        list_path="adjudicated.jsonl",
    )
    lines = outcome.table.splitlines()
    assert lines[:4] == [
        "gold adjudication  (each prediction the gold lacks grounded 3 times; supported in 2 is "
        "possibly missing from gold)",
        "            strict                adjudicated           not in gold  asked  possibly missing",
        "  pipeline  0.600 [0.600, 0.600]  0.800 [0.800, 0.800]  2            2      1",
        "  the strict precision never changes; the list, with every verdict: adjudicated.jsonl",
    ]
    assert "UNCALIBRATED" in lines[4]
    assert sorted(calls) == ["married@0", "married@1", "married@2", "wrote@0", "wrote@1", "wrote@2"]
    section = outcome.section
    assert (section.runs, section.needed, section.questions) == (3, 2, 2)
    (row,) = section.rows
    assert row.strict.value == 0.6 and row.adjudicated.value == 0.8


def test_the_list_has_every_verdict() -> None:
    outcome = adjudicate([("pipeline", FIVE)], GOLD, [DOC], grounders(spec_verdicts, []))
    wrote, married = outcome.items
    assert wrote.model_dump(exclude={"fact"}) == {
        "doc_id": "d1",
        "claim": "Ada Lovelace (Person) — wrote — notes.",
        "kind": "spurious",
        "rows": ("pipeline",),
        "verdicts": ("supported", "supported", "supported"),
        "supported": 3,
        "possibly_missing_from_gold": True,
    }
    assert married.verdicts == ("supported", "not_found", "not_found")
    assert not married.possibly_missing_from_gold
    assert wrote.fact == FIVE[3]


def test_a_failed_grounding_counts_neither_way() -> None:
    def verdicts(predicate: str, run: int) -> str:
        # "wrote": supported once, failed twice: 1 of 3, not possibly missing.
        return "supported" if run == 0 else "unchecked"

    outcome = adjudicate([("p", FIVE[:4])], GOLD, [DOC], grounders(verdicts, []))
    (item,) = outcome.items
    assert item.verdicts == ("supported", "unchecked", "unchecked") and item.supported == 1
    assert not item.possibly_missing_from_gold
    assert (outcome.tally.calls, outcome.tally.failed) == (3, 2)
    assert outcome.notes == [
        "adjudication grounder: 2 of 3 calls failed and count neither way "
        "(first: the grounding failed (unchecked))"
    ]


def test_every_grounding_failing_is_a_provider_error() -> None:
    with pytest.raises(ProviderError, match="every one of 6 calls failed"):
        adjudicate([("p", FIVE)], GOLD, [DOC], grounders(lambda p, r: "unchecked", []))


def test_a_prediction_in_two_rows_is_asked_once_and_counts_in_both() -> None:
    calls: list[str] = []
    outcome = adjudicate(
        [("alone", FIVE), ("grounded", FIVE[:4])], GOLD, [DOC], grounders(spec_verdicts, calls)
    )
    assert len(calls) == 6
    assert outcome.items[0].rows == ("alone", "grounded")
    alone, grounded = outcome.section.rows
    assert (grounded.not_in_gold, grounded.asked, grounded.possibly_missing) == (1, 1, 1)
    assert grounded.strict.value == 0.75 and grounded.adjudicated.value == 1.0
    assert alone.adjudicated.value == 0.8


def test_uncited_and_unknown_documents_are_not_asked() -> None:
    facts = [*FIVE[:3], said("wrote", "notes", doc=None), said("married", "Byron", doc="elsewhere")]
    calls: list[str] = []
    outcome = adjudicate([("p", facts)], GOLD, [DOC], grounders(spec_verdicts, calls))
    (row,) = outcome.section.rows
    # The uncited fact is a false positive no document can settle; "elsewhere" is unlabelled.
    assert (row.not_in_gold, row.asked, row.possibly_missing) == (1, 0, 0)
    assert calls == [] and outcome.items == []
    assert row.strict.value == row.adjudicated.value == 0.75


def test_one_grounder_object_is_asked_three_times() -> None:
    calls: list[str] = []
    outcome = adjudicate([("p", FIVE)], GOLD, [DOC], Table(0, spec_verdicts, calls))
    assert sorted(calls) == ["married@0"] * 3 + ["wrote@0"] * 3
    assert [i.supported for i in outcome.items] == [3, 3]


def test_needed_and_runs_are_checked() -> None:
    with pytest.raises(InputError, match="needed must be between 1 and runs"):
        adjudicate([("p", FIVE)], GOLD, [DOC], grounders(spec_verdicts, []), needed=4)


def test_the_adjudicated_range_is_a_bootstrap_over_documents() -> None:
    # Two documents: d1 as above, d2 all hits; the range spans the two documents' precisions.
    doc2 = Document(id="d2", text="Charles Babbage was born in 1791.")
    babbage = Entity(key="babbage", type="Person", label="Charles Babbage")
    gold = [
        *GOLD,
        GoldFact(doc_id="d2", fact=Fact(subject=babbage, predicate="born", object_value=1791)),
    ]
    facts = [
        *FIVE,
        Fact(
            subject=babbage, predicate="born", object_value=1791, evidence=(Evidence(doc_id="d2"),)
        ),
    ]
    outcome = adjudicate([("p", facts)], gold, [DOC, doc2], grounders(spec_verdicts, []))
    (row,) = outcome.section.rows
    assert row.strict.value == pytest.approx(4 / 6) and row.adjudicated.value == pytest.approx(
        5 / 6
    )
    # Draws of d1 only (0.6 strict, 0.8 adjudicated) and d2 only (1.0) bound the ranges.
    assert (row.strict.low, row.strict.high) == (0.6, 1.0)
    assert (row.adjudicated.low, row.adjudicated.high) == (0.8, 1.0)
