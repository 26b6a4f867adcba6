"""``odke bench run`` end to end: the movie set against a local OpenAI-compatible server replaying
recorded answers (tests/bench/movie_replay.py), twice, then ``odke eval compare`` of the two."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openodke.bench import load_bench
from openodke.eval.report.io import check_report
from tests.bench.conftest import read_jsonl
from tests.bench.movie_replay import record
from tests.support.batch_server import batch_server  # noqa: F401 - a fixture, used by name
from tests.support.llm_server import ReplayServer

ROWS = ["extraction alone", "+ grounding", "+ corroboration"]


@pytest.fixture(scope="module")
def server(movie_dir: Path) -> Iterator[ReplayServer]:
    """An OpenAI-compatible server answering from the movie set's recorded answers."""
    recorded = record(load_bench(movie_dir))
    with ReplayServer("openai", recorded.answer) as replay:
        yield replay


def _set(movie_dir: Path, root: Path, name: str, server: Any, **gate: object) -> Path:
    folder = root / name
    shutil.copytree(movie_dir, folder)
    config = json.loads((folder / "odke.json").read_text())
    local = {"model": "openai/gpt-4o-mini", "base_url": server.base_url}
    config["models"] = {"extract": {**local, "max_tokens": 16000}, "ground": local}
    config["stages"]["gate"] = {"use": "verdict", **gate}
    (folder / "odke-local.json").write_text(json.dumps(config))
    return folder


@pytest.fixture(scope="module")
def runs(
    movie_dir: Path, server: ReplayServer, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """Two runs: the prepared config (the gate marks), then one refusing not_found and
    contradicted (enforce), answered from the first run's cache."""
    from tests.conftest import run_odke

    root = tmp_path_factory.mktemp("bench-run")
    cache = root / "cache"
    sets = {
        "marks": _set(movie_dir, root, "marks", server),
        "refuses": _set(movie_dir, root, "refuses", server, refuse_not_found=True, enforce=True),
    }
    for name, folder in sets.items():
        page = ["--html", str(folder / "page.html")] if name == "marks" else []
        result = run_odke(
            "bench", "run", str(folder), "--config", str(folder / "odke-local.json"),
            "--cache", str(cache), *page,
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        (folder / "stdout.txt").write_text(result.stdout)
    return sets


def _report(folder: Path) -> dict:
    return json.loads((folder / "report.json").read_text())


def test_the_report_has_each_row_its_official_row_and_each_competitor(
    runs: dict[str, Path],
) -> None:
    report = _report(runs["marks"])
    assert check_report(report) == []
    names = [row["name"] for row in report["rows"]]
    assert names == [
        "extraction alone",
        "extraction alone (official)",
        "+ grounding",
        "+ grounding (official)",
        "+ corroboration",
        "+ corroboration (official)",
        "Alpaca-LoRA-13B",
        "Alpaca-LoRA-13B (official)",
        "Vicuna-13B",
        "Vicuna-13B (official)",
    ]
    rows = {row["name"]: row for row in report["rows"]}
    assert rows["extraction alone"]["cost"]["calls"] == 840  # one call per sentence
    # then one grounding call per candidate: "the grounder's verdicts on the N candidates: ..."
    candidates = int(report["notes"][0].split(" candidates")[0].rsplit(" ", 1)[1])
    assert rows["+ grounding"]["cost"]["calls"] == 840 + candidates
    assert rows["+ corroboration"]["cost"] == rows["+ grounding"]["cost"]  # replayed
    assert rows["extraction alone (official)"]["performance"]["average"] == "macro"
    assert report["run"]["models"] == {
        "extract": "openai/gpt-4o-mini",
        "ground": "openai/gpt-4o-mini",
    }
    assert report["run"]["claim_formats"] == {"ground.span@1": "span"}
    assert report["calibration"][0]["line"] == "UNCALIBRATED"
    assert report["notes"][0].startswith("the grounder's verdicts on the ")


def test_html_writes_the_report_as_a_page(runs: dict[str, Path]) -> None:
    page = (runs["marks"] / "page.html").read_text()
    report = _report(runs["marks"])
    assert page.startswith("<!DOCTYPE html>") and '<section id="headline">' in page
    for row in report["rows"]:
        assert f"<td>{row['name']}</td>" in page
    assert not (runs["refuses"] / "page.html").exists()


def test_the_files_it_writes(runs: dict[str, Path]) -> None:
    folder = runs["marks"]
    for name in ("extraction-alone", "grounding", "corroboration"):
        predictions = read_jsonl(folder / "predictions" / f"{name}.jsonl")
        assert len(predictions) == 840 and set(predictions[0]) == {"id", "triples"}
        items = read_jsonl(folder / "items" / f"{name}.jsonl")
        assert len(items) == 840 and set(items[0]) == {"id", "tp", "fp", "fn"}
    assert (folder / "rejections.jsonl").read_text() == ""  # every quote is its sentence
    stdout = (folder / "stdout.txt").read_text()
    assert stdout.startswith(
        "Text2KGBench Wikidata-TekGen ont_1_movie: odke bench run  (840 documents"
    )
    assert f"wrote {folder / 'report.json'}" in stdout


def test_a_gate_that_refuses_raises_precision_and_compare_says_so(
    runs: dict[str, Path], odke
) -> None:
    marks = {r["name"]: r for r in _report(runs["marks"])["rows"]}
    refuses_report = _report(runs["refuses"])
    refuses = {r["name"]: r for r in refuses_report["rows"]}
    # The marking gate keeps every candidate; the refusing one drops contradicted and not_found.
    assert marks["+ grounding"]["counts"] == marks["extraction alone"]["counts"]
    a = marks["+ grounding"]["performance"]["precision"]["value"]
    b = refuses["+ grounding"]["performance"]["precision"]["value"]
    assert b > a
    # The second run was answered from the first run's cache.
    assert refuses["+ grounding"]["cost"]["cached"] == refuses["+ grounding"]["cost"]["calls"]
    assert "the gate refuses what the grounder refuses (enforce is set)" in " ".join(
        refuses_report["notes"]
    )
    result = odke(
        "eval", "compare",
        str(runs["marks"] / "items" / "grounding.jsonl"),
        str(runs["refuses"] / "items" / "grounding.jsonl"),
        "--metric", "precision",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "better" in result.stdout.splitlines()[1]


def test_a_missing_set_or_bad_config_exits_2(odke, tmp_path: Path, movie_dir: Path) -> None:
    assert odke("bench", "run", str(tmp_path / "nope")).exit_code == 2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"ontology": "x.json", "inputs": ["docs"], "stages": {}}))
    result = odke("bench", "run", str(movie_dir), "--config", str(bad))
    assert result.exit_code == 2
    assert f"{bad}:1: stages: stages.extractor is required" in result.stderr


@pytest.mark.parametrize("paper", [False, True])
def test_prepared_configs_run_as_they_are(
    odke, tmp_path: Path, paper: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openodke.bench import prepare_redocred, prepare_text2kgbench
    from openodke.run import load_config
    from tests.conftest import DATA

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    movie, redocred = tmp_path / "movie", tmp_path / "redocred"
    prepare_text2kgbench(DATA, movie, ontology="ont_1_movie", paper=paper)
    prepare_redocred(DATA, redocred, split="test", limit=5, paper=paper)
    for folder, documents in ((movie, 840), (redocred, 5)):
        config = load_config(folder / "odke.json")
        assert config.stages.extractor.options["structured"] is False
        result = odke("run", str(folder / "odke.json"), "--dry-run", "--json")
        assert result.exit_code == 0, result.stderr
        plan = json.loads(result.stdout)["plan"]
        assert (plan["documents"], plan["extract"]["calls"]) == (documents, documents)
        assert plan["extract"]["model"] == "anthropic/claude-sonnet-5"


def test_fail_under_gates_the_last_of_our_rows(runs: dict[str, Path], odke) -> None:
    # The run again from the cache, with an F1 floor just over the low end of "+ corroboration"
    # (what the config writes) and a recall floor at its low end: the first fails, the second
    # passes; both are in the report, and the one line names the failed one.
    folder = runs["marks"]
    before = {r["name"]: r for r in _report(folder)["rows"]}["+ corroboration"]["performance"]
    f1, recall = before["f1"]["low"], before["recall"]["low"]
    result = odke(
        "bench", "run", str(folder), "--config", str(folder / "odke-local.json"),
        "--cache", str(folder.parent / "cache"),
        "--fail-under", f"{f1 + 0.001}", "--fail-under", f"recall={recall}",
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == (
        f"error: --fail-under: the low end of + corroboration's f1 range, {f1:.3f}, is under "
        f"{f1 + 0.001:g}"
    )
    gates = _report(folder)["gates"]
    assert [(g["row"], g["metric"], g["passed"]) for g in gates] == [
        ("+ corroboration", "f1", False),
        ("+ corroboration", "recall", True),
    ]


def test_bench_run_in_batches_gives_the_live_report(
    runs: dict[str, Path],
    movie_dir: Path,
    batch_server,  # noqa: F811 - the fixture imported above
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``odke bench run --batch``: the same recorded answers through OpenAI's Batch API (a local
    server) give the live run's rows, call for call; extraction and grounding are two rounds,
    corroboration replays them; a rerun submits nothing."""
    from tests.conftest import run_odke

    monkeypatch.setenv("ODKE_BATCH_POLL", "0.02")
    batches = batch_server("openai", record(load_bench(movie_dir)).answer)
    folder = _set(movie_dir, tmp_path, "batch", batches)
    args = [
        "bench", "run", str(folder), "--config", str(folder / "odke-local.json"),
        "--cache", str(tmp_path / "cache"), "--batch",
    ]  # fmt: skip
    result = run_odke(*args)
    assert result.exit_code == 0, result.stderr
    texts = {d.text for d in load_bench(movie_dir).documents}  # 840 documents, 794 texts
    assert [len(b.requests) for b in batches.submissions][:1] == [len(texts)]  # one per text
    assert len(batches.submissions) == 2 and "at the batch price" in result.stderr
    live = {r["name"]: r for r in _report(runs["marks"])["rows"]}
    batch = {r["name"]: r for r in _report(folder)["rows"]}
    assert list(batch) == list(live)
    for name, row in batch.items():
        assert row["counts"] == live[name]["counts"], name
        assert row["performance"] == live[name]["performance"], name
        if row.get("cost") and live[name].get("cost"):
            assert row["cost"]["calls"] == live[name]["cost"]["calls"], name
    asked = sum(len(b.requests) for b in batches.submissions)
    assert 0 < asked < live["+ grounding"]["cost"]["calls"]  # identical requests go once
    again = run_odke(*args)
    assert again.exit_code == 0 and sum(len(b.requests) for b in batches.submissions) == asked
