"""VerdictGate: refusals and their exact reasons, conflicts, the calibration bar, refused.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke import Entity, Fact, GroundingVerdict
from openodke.calibration import read_cards
from openodke.errors import InputError
from openodke.gate import (
    CONFLICT,
    CONTRADICTED,
    NOT_FOUND,
    REFUSED_FILE,
    REVIEW,
    RefusedFact,
    VerdictGate,
    read_refused,
    reason_kind,
    write_refused,
)
from openodke.ground import CHECK

V = GroundingVerdict
CARDS = read_cards(Path(__file__).parents[1] / "calibration" / "cards")
TRUSTED = next(c for c in CARDS if c.split == "gate" and c.n == 400)
ADA = Entity(key="Person:ada", type="Person", label="Ada")


def fact(verdict: V = V.unchecked, check: str | None = None, conflict: object = None) -> Fact:
    qualifiers: dict[str, object] = {}
    if check is not None:
        qualifiers[CHECK] = check
    if conflict is not None:
        qualifiers["odke.conflict"] = conflict
    return Fact(
        subject=ADA, predicate="born", object_value=1815, verdict=verdict, qualifiers=qualifiers
    )


FREE_MISS = "quote not found in the document: 'in 1816'"
MISFIT = "schema: predicate 'born' is not in the ontology"


def test_the_reasons_are_the_spec_texts() -> None:
    assert CONTRADICTED == "grounding verdict contradicted: the passage says otherwise"
    assert NOT_FOUND == "grounding verdict not_found: the passage does not settle it"
    assert REFUSED_FILE == "refused.jsonl"


@pytest.mark.parametrize(
    ("options", "came", "action", "reason"),
    [
        ({}, fact(V.supported), "accept", None),
        ({}, fact(V.unchecked), "accept", None),
        ({}, fact(V.contradicted), "refuse", CONTRADICTED),
        ({}, fact(V.not_found), "accept", None),
        ({"refuse_not_found": True}, fact(V.not_found), "refuse", NOT_FOUND),
        ({}, fact(V.supported, check=MISFIT), "accept", None),  # schema off
        ({"schema": True}, fact(V.supported, check=MISFIT), "refuse", MISFIT),
        ({"schema": True}, fact(V.supported, check=f"span: moved; {MISFIT}"), "refuse", MISFIT),
        ({"schema": True}, fact(V.supported, check="span: the quote is at 3-9"), "accept", None),
        ({}, fact(V.supported, conflict=1816), "conflict", CONFLICT),
        ({}, fact(V.contradicted, conflict=1816), "refuse", CONTRADICTED),  # refusal first
    ],
)
def test_decisions_with_a_trusted_grounder(options, came, action, reason) -> None:
    verdict = VerdictGate(card=TRUSTED, **options).decide(came)
    assert (verdict.action, verdict.reason) == (action, reason)


def test_below_the_bar_model_refusals_are_marked_not_refused() -> None:
    gate = VerdictGate(refuse_not_found=True)  # no card: UNCALIBRATED
    assert not gate.calibrated
    facts = [fact(V.contradicted), fact(V.not_found), fact(V.supported)]
    result = gate.apply(facts)
    assert result.refused == []
    assert [f.qualifiers.get(REVIEW) for f in result.written] == [CONTRADICTED, NOT_FOUND, None]
    assert gate.stats == {
        "accepted": 1,
        "refused": {},
        "marked": {CONTRADICTED: 1, NOT_FOUND: 1},
    }
    assert gate.decide(fact(V.contradicted)).action == "accept"


def test_enforce_refuses_regardless_of_the_bar() -> None:
    gate = VerdictGate(refuse_not_found=True, enforce=True)
    result = gate.apply([fact(V.contradicted), fact(V.not_found), fact(V.supported)])
    assert [r for _, r in result.refused] == [CONTRADICTED, NOT_FOUND]
    assert gate.stats == {"accepted": 1, "refused": {CONTRADICTED: 1, NOT_FOUND: 1}, "marked": {}}


def test_the_bar_does_not_apply_to_free_checks_or_schema_misfits() -> None:
    gate = VerdictGate(refuse_not_found=True, schema=True)  # below the bar
    free = fact(V.not_found, check=FREE_MISS)
    misfit = fact(V.supported, check=MISFIT)
    result = gate.apply([free, misfit])
    assert result.refused == [(free, NOT_FOUND), (misfit, MISFIT)]
    assert gate.stats["marked"] == {}


def test_a_weak_card_is_below_the_bar() -> None:
    weak = next(c for c in CARDS if c.n == 99)
    gate = VerdictGate(card=weak)
    assert not gate.calibrated
    assert gate.apply([fact(V.contradicted)]).written[0].qualifiers[REVIEW] == CONTRADICTED


def test_for_judge_finds_the_grounders_card() -> None:
    gate = VerdictGate.for_judge("ollama/qwen2.5:7b", "ground.span@1", CARDS, schema=True)
    assert gate.calibrated and gate.schema and gate.card == TRUSTED
    assert not VerdictGate.for_judge("ollama/other", "ground.span@1", CARDS).calibrated


def test_a_marked_conflict_is_written_flagged_and_marked() -> None:
    gate = VerdictGate()
    verdict = gate.decide(fact(V.contradicted, conflict=1816))
    assert (verdict.action, verdict.reason) == ("conflict", CONTRADICTED)


def test_refused_is_the_set_of_refused_verdicts() -> None:
    assert VerdictGate().refused == {V.contradicted}
    assert VerdictGate(refuse_not_found=True).refused == {V.contradicted, V.not_found}


@pytest.mark.parametrize(
    ("reason", "kind"),
    [
        (CONTRADICTED, "contradicted"),
        (NOT_FOUND, "not_found"),
        (MISFIT, "predicate"),
        ("schema: domain of born is Person, not Company", "domain"),
        ("schema: range of born is integer, not an entity (City)", "range"),
        (CONFLICT, "conflict"),
        ("custom", "custom"),
    ],
)
def test_reason_kinds(reason: str, kind: str) -> None:
    assert reason_kind(reason) == kind


def test_refused_jsonl_round_trips_atomically(tmp_path: Path) -> None:
    gate = VerdictGate(enforce=True)
    result = gate.apply([fact(V.contradicted), fact(V.supported)])
    written = write_refused(tmp_path, result.refused)
    assert written == tmp_path / REFUSED_FILE
    lines = written.read_text(encoding="utf-8").splitlines()
    assert [sorted(json.loads(line)) for line in lines] == [["fact", "reason"]]
    assert read_refused(tmp_path) == [RefusedFact(fact=result.refused[0][0], reason=CONTRADICTED)]
    assert [p.name for p in tmp_path.iterdir()] == [REFUSED_FILE]  # no temp file left


def test_a_bad_refused_line_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / REFUSED_FILE
    path.write_text(
        '{"fact": {"subject": {"key": "a"}, "predicate": "p", "object_value": 1}, "reason": "r"}\n{"reason": "r"}\n'
    )
    with pytest.raises(InputError, match=rf"{path}:2: fact: Field required"):
        read_refused(path)
