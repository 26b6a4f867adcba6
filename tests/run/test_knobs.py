"""Every knob the diagnosis's fixes name exists in the run config and does what the fix says."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from openodke.eval.diagnosis.fixes import FIXES
from openodke.run import RunOptions, build, execute, parse_config
from tests.run.conftest import ONTOLOGY, PATTERN
from tests.support.llm_server import Answer

NOTE = (
    "Acme Ltd was founded in 2011. The weather was fine. Acme Ltd is based in Kessby. "
    "Nothing else happened that year. Sales grew.\n"
)


def _llm_config(folder: Path, answers: list[dict[str, Any]], **stages: Any) -> dict[str, Any]:
    (folder / "notes" / "a.txt").write_text(NOTE)
    (folder / "extract.json").write_text(json.dumps(answers))
    return {
        "ontology": "ontology.json",
        "inputs": ["notes"],
        "models": {"extract": "ollama/x", "replay": {"extract": "extract.json"}},
        "stages": {"extractor": {"use": "llm"}, **stages},
    }


NOTHING = [{"match": "Text:", "response": {"entities": []}}]


def _facts(folder: Path, directory: str = "out") -> list[dict[str, Any]]:
    text = (folder / directory / "facts.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_every_knob_a_fix_names_is_a_run_config_key() -> None:
    knobs = {k for fix in FIXES for k in fix.knobs if k not in ("ontology", "prompts")}
    assert knobs == {
        "stages.extractor.snippet_limit",
        "stages.extractor.types",
        "stages.gate",
        "inverses",
        "stages.normalizer",
        "stages.chunker",
        "models.extract.max_tokens",
        "reextract",
    }
    printed = " ".join(fix.knob for fix in FIXES)
    assert "stages.gate.refuse_not_found" in printed and "inverses: true" in printed


@pytest.mark.parametrize(
    ("chunker", "calls"), [(None, 1), ({"use": "sentence", "max_words": 5}, 5)]
)
def test_stages_chunker_sets_what_one_call_reads(folder: Path, chunker: Any, calls: int) -> None:
    stages = {"chunker": chunker} if chunker else {}
    result = execute(parse_config(_llm_config(folder, NOTHING, **stages), folder))
    assert result.stats["stages"]["extractor"]["calls"] == calls
    assert result.stats["chunks"] == calls


def test_snippet_limit_and_types_decide_what_is_offered(folder: Path) -> None:
    config = _llm_config(folder, NOTHING)
    config["stages"]["extractor"] = {"use": "llm", "snippet_limit": 1, "types": ["Company"]}
    coverage = execute(parse_config(config, folder)).stats["coverage"]
    assert coverage["snippet_limit"] == 1
    # Equal importance: ranked by name, cut at one.
    assert coverage["offered"]["Company"] == ["ceo"]
    assert coverage["never_offered"]["Company"] == [
        "employees",
        "founded",
        "headquartered_in",
        "legal_name",
    ]
    assert not coverage["offered"].get("Person")


def test_reextract_asks_again_around_an_entity_no_fact_cites(folder: Path) -> None:
    first = {
        "match": "Text:\nAcme Ltd was founded in 2011.",
        "response": {
            "entities": [
                {
                    "type": "Company",
                    "name": "Acme Ltd",
                    "facts": [
                        {
                            "predicate": "founded",
                            "value": "2011",
                            "quote": "Acme Ltd was founded in 2011.",
                        }
                    ],
                }
            ]
        },
    }
    window = {
        "match": "Text:\nThe weather was fine. Acme Ltd is based in Kessby.",
        "response": {
            "entities": [
                {
                    "type": "Company",
                    "name": "Acme Ltd",
                    "facts": [
                        {
                            "predicate": "headquartered_in",
                            "value": "Kessby",
                            "quote": "Acme Ltd is based in Kessby.",
                        }
                    ],
                }
            ]
        },
    }
    config = _llm_config(folder, [first, window], sink={"use": "jsonl", "directory": "out"})
    without = execute(parse_config(config, folder))
    assert without.stats["extracted"] == 1
    result = execute(parse_config({**config, "reextract": True}, folder))
    assert result.stats["reextract"] == {"windows": 1, "calls": 1, "facts": 1}
    (found,) = [f for f in _facts(folder) if "odke.reextract" in f["qualifiers"]]
    assert found["predicate"] == "headquartered_in"
    start, end = found["qualifiers"]["odke.reextract"]["window"]
    assert NOTE[start:end] == (
        "The weather was fine. Acme Ltd is based in Kessby. Nothing else happened that year."
    )


@pytest.mark.parametrize(("normalizer", "value"), [(None, "3 March 1999"), ("value", "1999-03-03")])
def test_stages_normalizer_reads_values_by_their_range(
    folder: Path, normalizer: str | None, value: str
) -> None:
    stages: dict[str, Any] = {"extractor": PATTERN, "sink": {"use": "jsonl", "directory": "out"}}
    if normalizer:
        stages["normalizer"] = normalizer
    execute(
        parse_config(
            {"ontology": "ontology.json", "inputs": ["register.csv"], "stages": stages}, folder
        )
    )
    founded = [f["object_value"] for f in _facts(folder) if f["predicate"] == "founded"]
    assert value in founded


@pytest.mark.parametrize(("inverses", "derived"), [(None, 1), (True, 1), (False, 0)])
def test_inverses_add_the_partner_the_ontology_declares(
    folder: Path, inverses: bool | None, derived: int
) -> None:
    ontology = json.loads(json.dumps(ONTOLOGY))
    ontology["types"]["Person"] = {}
    ontology["predicates"]["ceo_of"] = {
        "domain": ["Person"],
        "range": "Company",
        "inverse_of": "ceo",
    }
    (folder / "ontology.json").write_text(json.dumps(ontology))
    (folder / "people.csv").write_text("name,chief executive\nAcme Ltd,Ida Brenner\n")
    pattern = {
        "use": "pattern",
        "subject_type": "Company",
        "mappings": {"name": "legal_name", "chief executive": "ceo"},
    }
    config: dict[str, Any] = {
        "ontology": "ontology.json",
        "inputs": ["people.csv"],
        "stages": {"extractor": pattern, "sink": {"use": "jsonl", "directory": "out"}},
    }
    if inverses is not None:
        config["inverses"] = inverses
    result = execute(parse_config(config, folder))
    assert result.stats["validation"]["derived"] == derived
    partners = [f for f in _facts(folder) if f["predicate"] == "ceo_of"]
    assert [(f["subject"]["key"], f["object_entity"]["key"]) for f in partners] == [
        ("Person:ida brenner", "Company:acme ltd")
    ][:derived]


@pytest.mark.parametrize(
    ("gate", "refused", "marked"),
    [
        ({"use": "verdict"}, 0, 0),
        ({"use": "verdict", "refuse_not_found": True}, 0, 8),  # uncalibrated: marked
        ({"use": "verdict", "refuse_not_found": True, "enforce": True}, 8, 0),
    ],
)
def test_refuse_not_found_refuses_or_marks_what_grounding_did_not_find(
    folder: Path, gate: dict[str, Any], refused: int, marked: int
) -> None:
    (folder / "ground.json").write_text(
        json.dumps([{"match": "Claim:", "response": {"verdict": "not_found"}}])
    )
    config = {
        "ontology": "ontology.json",
        "inputs": ["register.csv"],
        "models": {"ground": "ollama/g", "replay": {"ground": "ground.json"}},
        "stages": {
            "extractor": PATTERN,
            "grounder": "llm",
            "gate": gate,
            "sink": {"use": "jsonl", "directory": "out"},
        },
    }
    result = execute(parse_config(config, folder))
    validation = result.stats["validation"]
    assert (validation["refused"], validation["marked"]) == (refused, marked)
    lines = (folder / "out" / "refused.jsonl").read_text().splitlines()
    assert len(lines) == refused
    if refused:
        assert json.loads(lines[0])["reason"] == (
            "grounding verdict not_found: the passage does not settle it"
        )


def test_models_extract_max_tokens_reaches_the_provider(folder: Path, llm_server) -> None:
    server = llm_server("openai", [Answer('{"entities": []}')])
    config = _llm_config(folder, NOTHING)
    config["models"] = {
        "extract": {"model": "openai/local", "base_url": server.base_url, "max_tokens": 777}
    }
    execute(parse_config(config, folder), options=RunOptions(no_cache=True))
    (request,) = server.requests
    assert request.body["max_tokens"] == 777
    assert re.search(r"Text:\nAcme Ltd was founded", request.body["messages"][-1]["content"])


def test_model_options_and_widen_change_the_built_pipeline(folder: Path) -> None:
    (folder / "ground.json").write_text("[]")
    config = parse_config(
        {
            "ontology": "ontology.json",
            "inputs": ["register.csv"],
            "models": {"ground": "ollama/g", "replay": {"ground": "ground.json"}},
            "stages": {"extractor": PATTERN, "grounder": "llm"},
        },
        folder,
    )
    with build(config, RunOptions(model="llama3", model_provider="ollama", widen=True)) as pipeline:
        assert pipeline.roles.extract.model == pipeline.roles.ground.model == "ollama/llama3"
        assert pipeline.roles.ground.max_tokens == 256
        assert pipeline.grounder.inner.widen is True
