"""odke eval pipeline reads a Fact file straight to columns at any size: the same rows, diagnosis
and fixes as the library scoring the Facts themselves."""

from __future__ import annotations

import json

import pytest

from openodke.cli.eval_extract import document_items
from openodke.eval import dump_jsonl
from openodke.types import Document
from tests.cli.test_eval_extract import random_corpus
from tests.conftest import run_odke


@pytest.fixture
def corpus(tmp_path):
    gold, said = random_corpus(3, n=300)
    docs = [Document(id=f"d{i}", text=f"P {i} lives in c{i % 6} since 1815.") for i in range(20)]
    dump_jsonl(tmp_path / "gold.jsonl", gold)
    dump_jsonl(tmp_path / "facts.jsonl", said)
    dump_jsonl(tmp_path / "docs.jsonl", docs)
    ontology = {
        "types": {"Person": {}, "Place": {}},
        "predicates": {
            "born": {"domain": ["Person"], "range": "integer"},
            "lives": {"domain": ["Person"], "range": "Place"},
        },
    }
    (tmp_path / "ontology.json").write_text(json.dumps(ontology))
    return tmp_path


def score(folder, name):
    result = run_odke(
        "eval",
        "pipeline",
        "--labels",
        str(folder / "gold.jsonl"),
        "--documents",
        str(folder / "docs.jsonl"),
        "--ontology",
        str(folder / "ontology.json"),
        "--predictions",
        str(folder / "facts.jsonl"),
        "--json",
        "--items",
        str(folder / f"{name}.items.jsonl"),
    )
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout), (folder / f"{name}.items.jsonl").read_text()


@pytest.mark.parametrize("parts", [False, True])
def test_the_file_gives_the_rows_diagnosis_and_fixes_of_the_facts(corpus, monkeypatch, parts):
    from openodke.eval import GoldFact, load_jsonl
    from openodke.eval.pipeline.evaluate import DiagnosisOptions, label_inputs, score_pipeline
    from openodke.eval.report.io import report_json
    from openodke.types import Fact

    monkeypatch.setattr("openodke.eval.engine.fastload.PARALLEL_BYTES", 0 if parts else 1 << 40)
    cli, cli_items = score(corpus, "cli")
    inputs = label_inputs(corpus / "gold.jsonl", corpus / "docs.jsonl", corpus / "ontology.json")
    assert inputs.gold == load_jsonl(corpus / "gold.jsonl", GoldFact)
    facts = load_jsonl(corpus / "facts.jsonl", Fact)
    api = score_pipeline(
        facts, inputs, run_inputs={"predictions": str(corpus / "facts.jsonl")},
        diagnosis=DiagnosisOptions(),
    )  # fmt: skip
    expected = json.loads(report_json(api.report))
    for key in ("rows", "stages", "notes", "diagnosis", "fixes"):
        assert cli[key] == expected[key], key
    assert cli["diagnosis"] and cli["fixes"]
    assert cli_items == document_items(api.score)
    assert cli["rows"][0]["conformance"]["facts"] == cli["rows"][0]["counts"]["predicted"]


@pytest.mark.parametrize("key", ["", "  "])
@pytest.mark.parametrize("side", ["gold", "facts"])
def test_a_blank_entity_key_is_refused_at_its_line(corpus, key, side):
    """A blank key reached the diagnosis and raised IndexError (issue 22)."""
    path = corpus / f"{side}.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    row = json.loads(lines[4])
    (row["fact"] if side == "gold" else row)["subject"]["key"] = key
    lines[4] = json.dumps(row) + "\n"
    path.write_text("".join(lines))
    result = run_odke(
        "eval", "pipeline", "--labels", str(corpus / "gold.jsonl"),
        "--documents", str(corpus / "docs.jsonl"), "--predictions", str(corpus / "facts.jsonl"),
    )  # fmt: skip
    assert result.exit_code == 2, result.stderr
    where = "fact.subject.key" if side == "gold" else "subject.key"
    assert f"{path}:5: {where}: Value error, key is blank" in result.stderr
