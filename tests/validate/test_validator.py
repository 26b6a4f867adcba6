"""The Validator end to end on recorded answers: every count of the report worked by hand."""

from __future__ import annotations

import json

import pytest

from openodke import GroundingVerdict, KnowledgeGraph, Validator
from openodke.calibration import CalibrationCard
from openodke.gate import VerdictGate
from openodke.llm import ModelRoles, RecordedClient
from openodke.sinks import JsonlSink
from openodke.stages import (
    PassthroughCorroborator,
    PassthroughGrounder,
    PassthroughNormalizer,
)
from tests.validate.conftest import ANSWERS, DOCUMENTS

ROLES = ModelRoles.single("ollama/qwen2.5:7b")


def validator(ontology, **options) -> Validator:
    return Validator(ontology, client=RecordedClient(ANSWERS), roles=ROLES, **options)


def keyed(graph: KnowledgeGraph) -> list[tuple[str, str, str]]:
    return [(f.subject.key, f.predicate, f.object_key) for f in graph.facts]


def test_the_default_stages_below_the_calibration_bar(ontology, rows):
    v = validator(ontology)
    graph, report = v.validate(rows, DOCUMENTS)
    # 10 rows; 'nowhere' names no document: 9 facts in. Grounding: rows 1, 3, 4, 7, 8 supported;
    # row 2 contradicted; row 5 not_found for free (its quote is not in the text), rows 6 and 10
    # not_found by the model. 8 calls (row 5 needs none).
    assert (report.facts_in, report.unmatched) == (9, 1)
    assert report.verdicts == {"unchecked": 0, "supported": 5, "contradicted": 1, "not_found": 3}
    assert (report.checked, report.calls, report.failed) == (9, 8, 0)
    assert report.cost_usd is None  # recorded answers are unpriced, never invented
    assert report.prompts == ["ground.span@1"]
    # Rows 1 and 7 share a signature: 1 merged. The gate refuses row 6 (schema: the predicate is
    # not in the ontology); row 2's contradicted comes from an uncalibrated model, so it is
    # marked, not refused. employs gives one works_for partner.
    assert (report.merged, report.refused, report.marked, report.derived) == (1, 1, 1, 1)
    assert report.refused_by == {"predicate": 1}
    assert report.facts_out == 9 + 1 - 1 - 1 == len(graph.facts)
    assert keyed(graph) == [
        ("Company:acme", "founded", "1998"),
        ("Company:acme", "founded", "1999"),  # normalised from "1999"
        ("Company:acme", "ceo", "Person:kari nordmann"),
        ("Company:acme", "employs", "Person:ola berg"),
        ("Company:acme", "ceo", "Person:ola"),
        ("Company:brask", "founded", "2001"),
        ("Company:brask", "legal_name", "'Brask AS'"),
        ("Person:ola berg", "works_for", "Company:acme"),
    ]
    by_key = {(f.predicate, f.object_key): f for f in graph.facts}
    marked = by_key[("founded", "1999")]
    assert marked.qualifiers["odke.review"].startswith("grounding verdict contradicted")
    assert marked.qualifiers["odke.source_form"] == "1999"
    # Competing single values are flagged: 1998 (support 1) against 1999; Kari against Ola.
    assert {p for (p, _), f in by_key.items() if "odke.conflict" in f.qualifiers} == {
        "founded",
        "ceo",
    }
    merged = by_key[("founded", "1998")]
    assert len(merged.evidence) == 2 and merged.support == 1  # two spans of one document
    # Scored: unverified (0.2) x supported (1.0), one source.
    assert merged.confidence == pytest.approx(0.2)
    assert by_key[("works_for", "Company:acme")].qualifiers["odke.derived"]["rule"] == "inverse_of"
    ((refused_fact, reason),) = v.refused
    assert refused_fact.predicate == "motto" and reason.startswith("schema: ")
    assert report.links == {"same_as": 0, "similar": 0, "different": 0}
    assert graph.stats["validation"] == report.model_dump(mode="json")
    # The gate saw 8 facts (9 less the merged one): 1 refused, 1 marked, 6 accepted.
    assert graph.stats["stages"]["validator"] == {
        "accepted": 6,
        "refused": {reason: 1},
        "marked": {marked.qualifiers["odke.review"]: 1},
    }
    assert report.notes == ["1 row named no document given and was dropped: 'nowhere'"]


def test_enforce_refuses_what_the_model_contradicted(ontology, rows):
    gate = VerdictGate(schema=True, enforce=True)
    graph, report = validator(ontology, gate=gate).validate(rows, DOCUMENTS)
    assert report.refused_by == {"predicate": 1, "contradicted": 1}
    assert (report.refused, report.marked) == (2, 0)
    assert report.facts_out == 9 + 1 - 2 - 1 == len(graph.facts) == 7


def test_a_judge_meeting_the_bar_refuses_without_enforce(ontology, rows):
    card = CalibrationCard.model_validate(
        {
            "judge": {"model": "ollama/qwen2.5:7b", "prompt": "ground.span@1"},
            "label_set": "G",
            "split": "gate",
            "n": 400,
            "agreement": {"value": 0.93, "low": 0.90, "high": 0.95},
            "kappa": 0.84,
            "measured_at": "2025-06-01T00:00:00Z",
        }
    )
    v = validator(ontology, cards=[card])
    assert v.gate.calibrated
    _, report = v.validate(rows, DOCUMENTS)
    assert (report.refused, report.marked) == (2, 0)


def test_pass_throughs_turn_stages_off(ontology, rows):
    v = Validator(
        ontology,
        grounder=PassthroughGrounder(),
        normalizer=PassthroughNormalizer(),
        corroborator=PassthroughCorroborator(),
        inverses=False,
        coverage=False,
    )
    graph, report = v.validate(rows, DOCUMENTS)
    # Nothing grounded: only row 5's free finding, stamped when its row was read, stands.
    assert report.verdicts == {"unchecked": 8, "supported": 0, "contradicted": 0, "not_found": 1}
    assert (report.calls, report.merged, report.derived, report.coverage) == (0, 0, 0, None)
    # The default gate refuses the schema misfits the free checks find; they did not run (the
    # grounder is off), so nothing is refused.
    assert report.refused == 0 and report.facts_out == 9 == len(graph.facts)
    assert {f.verdict for f in graph.facts} == {
        GroundingVerdict.unchecked,
        GroundingVerdict.not_found,
    }


def test_a_failed_call_leaves_its_fact_unchecked_and_counted(ontology, rows):
    answers = [a for a in ANSWERS if "Brask (Company) — founded" not in a["match"]]
    v = Validator(ontology, client=RecordedClient(answers), roles=ROLES)
    graph, report = v.validate(rows, DOCUMENTS)
    assert report.failed == 1 and report.verdicts["unchecked"] == 1
    assert report.facts_out == 8  # never dropped
    brask = [
        f for f in graph.facts if f.predicate == "founded" and f.subject.key == "Company:brask"
    ]
    assert brask[0].verdict is GroundingVerdict.unchecked


def test_a_dry_run_plans_and_prices_the_calls_and_makes_none(ontology, rows):
    client = RecordedClient([])  # any call would be an error
    v = Validator(ontology, client=client, roles=ModelRoles.single("openai/gpt-4o-mini"))
    graph, report = v.validate(rows, DOCUMENTS, dry_run=True)
    plan = graph.stats["dry_run"]
    assert plan["calls"] == 8 and plan["by_model"] == {"openai/gpt-4o-mini": 8}
    assert plan["by_prompt"] == {"ground.span@1": 8}
    assert plan["max_usd"] is not None and plan["max_usd"] > 0
    assert report.calls == 0 and report.notes[-1].startswith("dry run: 8 calls")
    unpriced = Validator(ontology, client=client, roles=ModelRoles.single("openai/my-tune"))
    graph, _ = unpriced.validate(rows, DOCUMENTS, dry_run=True)
    assert graph.stats["dry_run"]["max_usd"] is None


def test_sinks_write_the_graph_and_its_manifest(ontology, rows, tmp_path):
    v = validator(ontology, sinks=[JsonlSink(tmp_path / "out")])
    graph, report = v.validate(rows, DOCUMENTS)
    lines = (tmp_path / "out" / "facts.jsonl").read_text().splitlines()
    assert len(lines) == report.facts_out
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["stats"]["validation"]["facts_out"] == report.facts_out
    assert manifest["facts"] == len(graph.facts) and manifest["ontology"] == "firms"
    assert manifest["stats"]["coverage"]["snippet_limit"] is None
    assert manifest["stats"]["coverage"]["never_offered"]["Company"] == []
