"""examples/e2e: the numbers its README states, from the run and from the ablation."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from openodke.eval import GoldFact, load_jsonl, run_ablation
from openodke.run import execute, load_config

MANIFEST_KEYS = {
    # the sink's
    "ontology", "created_at", "entities", "facts", "edges", "properties", "links", "stats",
    # the run's
    "manifest_version", "config_sha256", "config", "models", "prompts", "ontology_fingerprint",
    "documents_sha256", "openodke", "started_at", "finished_at", "config_dir",
}  # fmt: skip


def test_the_ablation_gives_the_pages_rows_and_notes(e2e: Path) -> None:
    report = run_ablation(load_config(e2e / "odke.yaml"), load_jsonl(e2e / "gold.jsonl", GoldFact))
    rows = report.breakdown
    assert list(rows) == ["extraction alone", "+ grounding", "+ corroboration"]
    # 36 candidates: 32 state a gold fact; of the 4 others, normalising fixes two (a fact-sheet
    # date written "2 May 2011", a chief executive named "Dr. Maud Penhale").
    assert [(r["tp"], r["fp"], r["fn"]) for r in rows.values()] == [
        (32, 4, 4),
        (32, 4, 4),
        (34, 2, 2),
    ]
    assert [r["precision"] for r in rows.values()] == [8 / 9, 8 / 9, 17 / 18]
    assert [r["model_calls"] for r in rows.values()] == [3, 39, 39]
    assert [r["facts"] for r in rows.values()] == [36, 36, 30]  # 6 merged across documents
    assert report.notes[:5] == (
        "grounding did not move precision on these labels (0.889); recall 0.889 → 0.889",
        "normalising, resolving and corroborating moved precision from 0.889 to 0.944; "
        "recall 0.889 → 0.944",
        "of the 36 extracted facts, 32 are true: the gate kept 32 of them and 4 of the 4 false ones",
        "the gate marks what the grounder refuses for review instead of dropping it (its card is "
        "below the bar, DECISIONS #54); refusing contradicted would keep 32 of 32 true facts and "
        "3 of 4 false ones (precision 0.914)",
        "refusing not_found as well would keep 19 of 32 true facts and 1 of 4 false ones "
        "(precision 0.950)",
    )
    assert not (e2e / "out").exists()  # nothing written


def test_the_recorded_verdicts_are_the_ones_the_readme_lists(e2e: Path) -> None:
    answers = json.loads((e2e / "recorded" / "ground.json").read_text())
    assert Counter(a["response"]["verdict"] for a in answers) == {
        "supported": 20,
        "not_found": 15,
        "contradicted": 1,
    }
    # A "Label: value" line never names its record's subject, so it settles nothing but a name.
    for answer in answers:
        passage = answer["match"].split("\n\nPassage:\n", 1)[1]
        if passage.startswith(("name: ", "founded: ", "city: ", "employees: ", "**")):
            expected = "supported" if passage.startswith("name: ") else "not_found"
            assert answer["response"]["verdict"] == expected, passage


def test_odke_run_writes_the_graph_and_the_manifest(e2e: Path) -> None:
    result = execute(load_config(e2e / "odke.yaml"))
    stats = result.stats
    assert (stats["documents"], stats["chunks"], stats["skipped"], stats["extracted"]) == (
        7,
        7,
        4,
        36,
    )
    validation = stats["validation"]
    assert validation["verdicts"] == {
        "unchecked": 0,
        "supported": 20,
        "contradicted": 1,
        "not_found": 15,
    }
    assert (validation["merged"], validation["refused"], validation["marked"]) == (6, 0, 1)
    assert validation["facts_out"] == 30 and stats["graph"]["links"] == 1
    assert stats["cost"]["total"]["calls"] == 39 and stats["cost"]["total"]["cost_usd"] is None
    assert stats["calibration"][0]["line"] == "UNCALIBRATED"
    out = e2e / "out"
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest) == MANIFEST_KEYS
    assert manifest["models"] == {
        "extract": {"asked": "ollama/qwen2.5:7b", "served": "ollama/qwen2.5:7b"},
        "ground": {"asked": "ollama/qwen2.5:3b", "served": "ollama/qwen2.5:3b"},
    }
    assert manifest["prompts"] == ["extract.facts@1", "ground.span@1"]
    assert len(manifest["documents_sha256"]) == 7
    assert manifest["config"]["inputs"][0]["path"] == str(e2e.resolve() / "corpus/register.csv")
    coverage = manifest["stats"]["coverage"]
    assert coverage["snippet_limit"] == 25 and "born_in" in coverage["offered"]["Person"]
    lines = (out / "facts.jsonl").read_text().splitlines()
    assert len(lines) == 30
    marked = [json.loads(line) for line in lines if "odke.review" in line]
    assert [(f["subject"]["key"], f["object_entity"]["key"]) for f in marked] == [
        ("Company:pellwick tiles", "City:varholm")
    ]
    assert (out / "refused.jsonl").read_text() == ""
    assert (out / "rejections.jsonl").read_text() == ""
    links = [json.loads(line) for line in (out / "links.jsonl").read_text().splitlines()]
    assert [(k["source_key"], k["target_key"], k["kind"]) for k in links] == [
        ("Company:corvana systems", "Company:corvana systems ltd", "same_as")
    ]
