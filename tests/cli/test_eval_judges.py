"""``odke eval precision|pool|refusals``: the real commands end to end, with their exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke import Entity, Evidence, Fact, GroundingVerdict
from openodke.eval.report.build import read_report
from tests.conftest import run_odke


def fact(i: int, verdict: str, doc: str = "a.txt", predicate: str = "p") -> Fact:
    return Fact(
        id=f"f{i}",
        subject=Entity(key=f"Thing:s{i}", label=f"S{i}"),
        predicate=predicate,
        object_value=f"v{i}",
        evidence=(Evidence(doc_id=doc),),
        verdict=GroundingVerdict(verdict),
        extractor="llm",
    )


def write(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A ground run of 20 facts over two texts: 14 supported, 6 not_found."""
    facts = [
        fact(i, "supported" if i < 14 else "not_found", doc="a.txt" if i % 2 else "b.txt")
        for i in range(20)
    ]
    write(tmp_path / "run" / "facts.jsonl", [f.model_dump(mode="json") for f in facts])
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "a.txt").write_text("Text A. It says things.", encoding="utf-8")
    (tmp_path / "texts" / "b.txt").write_text("Text B.", encoding="utf-8")
    return tmp_path


def test_precision_sheets_labels_and_report(run: Path) -> None:
    made = run_odke(
        "eval",
        "precision",
        "--facts",
        str(run / "run"),
        "--documents",
        str(run / "texts"),
        "--make-sheet",
        str(run / "sheets"),
        "--n",
        "6",
        "--seed",
        "1",
    )
    assert made.exit_code == 0, made.stderr
    assert made.stdout.startswith("6 of 20 facts drawn (seed 1) into 1 sheet(s)")
    drawn = [
        json.loads(line)["id"]
        for line in (run / "sheets" / "sample.jsonl").read_text().splitlines()
    ]
    assert len(drawn) == 6
    sheet = run / "sheets" / "sheet-001.md"
    sheet.write_text(
        sheet.read_text().replace("- [ ] supported", "- [x] supported"), encoding="utf-8"
    )
    assert (
        run_odke("label", "read", str(run / "sheets"), "-o", str(run / "labels.jsonl")).exit_code
        == 0
    )
    result = run_odke(
        "eval",
        "precision",
        "--facts",
        str(run / "run" / "facts.jsonl"),
        "--labels",
        str(run / "labels.jsonl"),
        "--report",
        str(run / "report.json"),
        "--by-predicate",
    )
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "judged precision  (20 facts, 14 judged supported; 6 labels)"
    assert lines[1].startswith("  judge only  0.700 [")
    assert (
        "  corrected   " in result.stdout
        and "uncalibrated: 6 labels, under the 100 needed" in result.stdout
    )
    assert "(model not recorded): UNCALIBRATED" in result.stdout
    report, _ = read_report(run / "report.json")
    section = report.judged_precision
    assert section is not None and (section.facts, section.labels, section.calibrated) == (
        20,
        6,
        False,
    )
    assert report.calibration is not None and report.calibration[0].line == "UNCALIBRATED"
    assert "p" in report.stages[0].breakdown


def test_precision_exit_codes(run: Path) -> None:
    no_docs = run_odke(
        "eval", "precision", "--facts", str(run / "run"), "--make-sheet", str(run / "s")
    )
    assert no_docs.exit_code == 2 and "needs --documents" in no_docs.stderr
    write(run / "unchecked" / "facts.jsonl", [fact(1, "unchecked").model_dump(mode="json")])
    none = run_odke("eval", "precision", "--facts", str(run / "unchecked"))
    assert none.exit_code == 2 and "no fact carries a verdict" in none.stderr
    stranger = fact(99, "supported")
    write(
        run / "labels.jsonl",
        [{"text": "x", "fact": stranger.model_dump(mode="json"), "verdict": "supported"}],
    )
    unknown = run_odke(
        "eval", "precision", "--facts", str(run / "run"), "--labels", str(run / "labels.jsonl")
    )
    assert unknown.exit_code == 2 and "name facts not in the --facts run" in unknown.stderr
    as_json = run_odke("eval", "precision", "--facts", str(run / "run"), "--json")
    assert json.loads(as_json.stdout)["method"] == "ppi++"


def test_pool(run: Path) -> None:
    other = [fact(i, "supported", doc="a") for i in range(10, 24)]  # cites by stem
    write(run / "other" / "facts.jsonl", [f.model_dump(mode="json") for f in other])
    result = run_odke(
        "eval",
        "pool",
        str(run / "run"),
        str(run / "other" / "facts.jsonl"),
        "--documents",
        str(run / "texts"),
        "--report",
        str(run / "pool.json"),
    )
    assert result.exit_code == 0, result.stderr
    # run: f0..f13 supported, odd ones in a.txt, even in b.txt; other: f10..f23 all in a.txt
    # ("a" joins a.txt by stem). Shared (same fact, same document): f11, f13. Pool 14 + 14 − 2.
    assert (
        result.stdout.splitlines()[0]
        == "pooled recall  (26 supported facts pooled over 2 runs, 2 documents)"
    )
    report, _ = read_report(run / "pool.json")
    pooled = report.pooled_recall
    assert pooled is not None and [r.name for r in pooled.runs] == ["run", "other"]
    assert [r.supported for r in pooled.runs] == [14, 14]
    assert [r.unique for r in pooled.runs] == [12, 12]
    assert [r.relative_recall.value for r in pooled.runs] == [14 / 26, 14 / 26]
    one = run_odke("eval", "pool", str(run / "run"))
    assert one.exit_code == 2 and "at least 2 runs" in one.stderr


def test_refusals_sample_tick_and_score(run: Path) -> None:
    drawn = run_odke(
        "eval",
        "refusals",
        str(run / "run"),
        "--documents",
        str(run / "texts"),
        "--make-sheet",
        str(run / "rs"),
        "--n",
        "4",
    )
    assert drawn.exit_code == 0, drawn.stderr
    assert drawn.stdout.startswith("4 of 6 refusals drawn (seed 0) into 1 sheet(s)")
    kept = [json.loads(line) for line in (run / "rs" / "refusals.jsonl").read_text().splitlines()]
    assert {(r["stratum"], r["stratum_size"]) for r in kept} == {("-/llm/not_found", 6)}
    sheet = run / "rs" / "sheet-001.md"
    text = sheet.read_text().replace("- [ ] refusal correct", "- [x] refusal correct", 3)
    sheet.write_text(
        text.replace("- [ ] unsure", "- [x] unsure").replace("- [x] unsure", "- [ ] unsure", 3),
        encoding="utf-8",
    )
    assert run_odke("label", "read", str(run / "rs"), "-o", str(run / "rl.jsonl")).exit_code == 0
    scored = run_odke("eval", "refusals", "--labels", str(run / "rl.jsonl"))
    assert scored.exit_code == 0, scored.stderr
    assert (
        "refusal precision 1.000 [0.439, 1.000] (Wilson 95%), 3 judged, 1 unsure" in scored.stdout
    )


def test_refusals_summary_and_errors(run: Path) -> None:
    listed = run_odke("eval", "refusals", str(run / "run"), "--documents", str(run / "texts"))
    assert listed.exit_code == 0, listed.stderr
    assert listed.stdout.splitlines()[0].startswith("refusals  (6 in 1 strata;")
    assert run_odke("eval", "refusals").exit_code == 2
    needs = run_odke("eval", "refusals", str(run / "run"))
    assert needs.exit_code == 2 and "needs --documents" in needs.stderr


def test_refusal_labels_without_sizes_take_them_from_the_runs(tmp_path: Path) -> None:
    # A run with 8 not_found and 2 contradicted refusals; labels carry strata but no sizes.
    facts = [fact(i, "not_found" if i < 8 else "contradicted") for i in range(10)]
    write(tmp_path / "run" / "facts.jsonl", [f.model_dump(mode="json") for f in facts])
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "a.txt").write_text("Text A.", encoding="utf-8")

    def label(i: int, verdict: str, judgement: str) -> dict:
        return {
            "id": f"r{i}", "claim": "c", "text": "t", "verdict": verdict, "reason": "r",
            "predicate": "p", "gold": None, "judgement": judgement, "extractor": "llm",
        }  # fmt: skip

    rows = [label(i, "not_found", "refusal_correct") for i in range(2)]
    rows += [label(2, "contradicted", "refusal_correct"), label(3, "contradicted", "refusal_wrong")]
    write(tmp_path / "labels.jsonl", rows)
    alone = run_odke("eval", "refusals", "--labels", str(tmp_path / "labels.jsonl"))
    assert alone.exit_code == 0, alone.stderr
    assert "rows span strata without sizes: see the per-stratum rows" in alone.stdout
    sized = run_odke(
        "eval",
        "refusals",
        str(tmp_path / "run"),
        "--documents",
        str(tmp_path / "texts"),
        "--labels",
        str(tmp_path / "labels.jsonl"),
    )
    assert sized.exit_code == 0, sized.stderr
    # Weighted by the run's sizes: 0.8 · 1.0 + 0.2 · 0.5 = 0.9.
    assert (
        "refusal precision 0.900 [" in sized.stdout and "2 strata weighted by size" in sized.stdout
    )


def test_refusals_accept_the_empty_refused_jsonl_validate_writes(tmp_path: Path) -> None:
    run = tmp_path / "validated"
    run.mkdir()
    (run / "refused.jsonl").write_text("")  # odke validate refused nothing
    result = run_odke("eval", "refusals", str(run), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"refusals": 0, "strata": {}}
    alone = run_odke("eval", "refusals", str(run / "refused.jsonl"), "--json")
    assert alone.exit_code == 0, alone.stderr
