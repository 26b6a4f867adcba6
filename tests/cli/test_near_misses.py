"""``odke eval extract`` and ``odke eval pipeline`` say near misses first, and the API agrees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke.eval import GoldFact, load_jsonl
from openodke.eval.diagnosis import diagnose, gold_view
from openodke.eval.diagnosis.fixes import fixes
from openodke.types import Fact
from tests.conftest import run_odke


def _gold(doc: str, s: str, o: str) -> dict:
    return {
        "doc_id": doc,
        "fact": {
            "subject": {"key": s, "type": "Person"},
            "predicate": "works_at",
            "object_entity": {"key": o, "type": "Company"},
        },
    }


def _said(doc: str, s: str, o: str, o_type: str) -> dict:
    return {
        "subject": {"key": s, "type": "Person"},
        "predicate": "works_at",
        "object_entity": {"key": o, "type": o_type},
        "evidence": [{"doc_id": doc}],
    }


@pytest.fixture
def files(tmp_path: Path) -> Path:
    # 4 gold facts; predictions: ada and bob typed Organization (type), cy right (hit),
    # di keyed c:delta (key). By hand: tp 1, fp 3, fn 3; near misses 2 type, 1 key.
    gold = [_gold("d1", "ada", "acme"), _gold("d1", "bob", "beta")]
    gold += [_gold("d2", "cy", "gamma"), _gold("d2", "di", "delta")]
    said = [_said("d1", "ada", "acme", "Organization"), _said("d1", "bob", "beta", "Organization")]
    said += [_said("d2", "cy", "gamma", "Company"), _said("d2", "di", "c:delta", "Company")]
    (tmp_path / "gold.jsonl").write_text("".join(json.dumps(r) + "\n" for r in gold))
    (tmp_path / "facts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in said))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "d1.txt").write_text("Ada works at Acme. Bob works at Beta.")
    (docs / "d2.txt").write_text("Cy works at Gamma. Di works at Delta.")
    return tmp_path


TYPE_LINE = (
    "near misses (type): 2 missed gold facts would match a prediction but for an entity's "
    "declared type, e.g. d1: gold ada (Person) · works_at · acme (Company) vs written ada "
    "(Person) · works_at · acme (Organization); d1: gold bob (Person) · works_at · beta (Company) "
    "vs written bob (Person) · works_at · beta (Organization). Fix: pass --type-map FILE, FILE "
    'holding {"Organization": "Company"} (their type -> ours), or declare those names as '
    "aliases of the ontology's types (with --ontology)"
)


@pytest.mark.parametrize("command", ["extract", "pipeline"])
def test_the_first_lines_are_the_near_misses(files: Path, command: str) -> None:
    args = ["--labels", str(files / "gold.jsonl"), "--predictions", str(files / "facts.jsonl")]
    if command == "pipeline":
        args += ["--documents", str(files / "docs")]
    result = run_odke("eval", command, *args)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == TYPE_LINE
    assert lines[1].startswith("near misses (key): 1 missed gold fact would match a prediction ")
    assert "d2: gold di (Person) · works_at · delta (Company) vs written di (Person) · " in lines[1]
    assert "Fix: write entity keys as the gold does" in lines[1]
    assert lines[2] == ""
    assert result.stdout.count("near misses (type)") == 1  # not again among the notes
    assert "  same fact, other type or key          3       100.0%" in lines
    assert "align-identity" in result.stdout


def test_json_notes_and_diagnosis_equal_the_api(files: Path) -> None:
    result = run_odke(
        "eval", "extract", "--labels", str(files / "gold.jsonl"),
        "--predictions", str(files / "facts.jsonl"), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    cli = json.loads(result.stdout)
    assert (cli["metrics"]["tp"], cli["metrics"]["fp"], cli["metrics"]["fn"]) == (1, 3, 3)
    assert cli["notes"][0] == TYPE_LINE
    assert cli["notes"][1].startswith("near misses (key): 1 ")
    view = gold_view(
        load_jsonl(files / "gold.jsonl", GoldFact), load_jsonl(files / "facts.jsonl", Fact)
    )
    found = diagnose(view, row="extract")
    api = [row.model_dump(mode="json") for row in found.rows()]
    assert cli["diagnosis"] == api
    assert cli["fixes"] == [fix.model_dump(mode="json") for fix in fixes(found)]
    best = cli["fixes"][0]
    assert best["id"] == "align-identity" and best["recall"]["exact"]
    assert best["recall"]["expected"] == pytest.approx(3 / 4)  # 3 near misses / 4 gold


def test_nothing_printed_first_without_near_misses(files: Path) -> None:
    right = [
        _said(d, s, o, "Company") for d, s, o in [("d1", "ada", "acme"), ("d2", "cy", "gamma")]
    ]
    (files / "right.jsonl").write_text("".join(json.dumps(r) + "\n" for r in right))
    result = run_odke(
        "eval", "extract", "--labels", str(files / "gold.jsonl"),
        "--predictions", str(files / "right.jsonl"),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("extract  (")
    assert "near misses" not in result.stdout and "nothing in common" not in result.stdout
    assert "same fact, other type or key" not in result.stdout  # the row shows only when counted


def test_the_pipeline_report_notes_start_with_them(files: Path) -> None:
    result = run_odke(
        "eval", "pipeline", "--labels", str(files / "gold.jsonl"),
        "--predictions", str(files / "facts.jsonl"), "--documents", str(files / "docs"), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["notes"][0] == TYPE_LINE
    assert report["diagnosis"][0]["bucket"] == "other_type_or_key"
    assert report["diagnosis"][0]["count"] == 3
