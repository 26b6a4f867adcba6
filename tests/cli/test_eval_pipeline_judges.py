"""``odke eval pipeline --adjudicate --lenient`` against a local OpenAI-compatible server.

The movie set with Vicuna-13B's facts on 25 manually verified sentences (as the ``--validator``
tests), the ground role pointed at a server that replays two hand-read cassettes: the grounding
verdicts of ``tests/fixtures/validator`` (the adjudicator asks the same span questions) and the
``fact_equiv@1`` answers of ``tests/fixtures/judges``. A rerun from the response cache makes no
request; a judge whose every call fails exits 1; the budget stops the run with exit 3; a model
that cannot be called exits 2 before any call.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openodke.bench import BenchSet, load_bench, prepare_text2kgbench
from openodke.eval.report.build import check_report
from tests.conftest import DATA, CliResult, run_odke
from tests.eval.pipeline.vicuna_validator import CASSETTE, write_config, write_subset_facts
from tests.support.llm_server import Answer, ReplayServer

LENIENT = Path(__file__).parents[1] / "fixtures" / "judges" / "vicuna.cassette.json"


def answers() -> list[Answer]:
    """Both cassettes' interactions, as the server's recorded answers."""
    out = []
    for path in (CASSETTE, LENIENT):
        for row in json.loads(path.read_text(encoding="utf-8"))["interactions"]:
            out.append(Answer(row["response"]["text"], contains=tuple(row["match"]["contains"])))
    return out


@pytest.fixture(scope="module")
def movie(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BenchSet, Path]:
    out = tmp_path_factory.mktemp("judges") / "movie"
    prepare_text2kgbench(DATA, out, ontology="ont_1_movie")
    bench = load_bench(out)
    facts = out.parent / "vicuna25.jsonl"
    write_subset_facts(out, bench, facts)
    return out, bench, facts


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer("openai", answers()) as replay:
        yield replay


def _config(folder: Path, server: ReplayServer, name: str = "odke-local.json") -> Path:
    local = {"model": "openai/gpt-4o-mini", "base_url": server.base_url}
    return write_config(folder, name, extract=local, ground=local)


def _run(movie: tuple[Path, BenchSet, Path], config: Path, *args: str) -> CliResult:
    folder, _, facts = movie
    return run_odke(
        "eval", "pipeline", "--bench", str(folder), "--predictions", str(facts),
        "--config", str(config), *args,
    )  # fmt: skip


@pytest.fixture(scope="module")
def twice(movie: tuple[Path, BenchSet, Path], server: ReplayServer) -> dict[str, Any]:
    """The same command run twice over one cache: what each printed and asked."""
    folder = movie[0]
    config = _config(folder, server)
    out = folder.parent
    runs = []
    for n in (1, 2):
        before = len(server.requests)
        result = _run(
            movie, config, "--validator", "--cache", str(out / "cache"),
            "--adjudicate", str(out / f"adjudicated{n}.jsonl"),
            "--lenient", str(out / f"pairs{n}.jsonl"), "--report", str(out / f"report{n}.json"),
            "--max-workers", "1",  # one at a time: a repeated question always finds the cache
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        runs.append((result, len(server.requests) - before))
    return {"runs": runs, "out": out}


def _read(out: Path, name: str) -> Any:
    text = (out / name).read_text(encoding="utf-8")
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines()]
    return json.loads(text)


def test_a_rerun_from_the_cache_makes_no_call(twice: dict[str, Any]) -> None:
    (first, asked), (again, asked_again) = twice["runs"]
    # 166 Validator questions (165 distinct: Troma twice), the adjudicator's second and third
    # groundings of the 152 + 21 predictions the gold lacks, asked once each (152: the 21 the
    # Validator wrote are among them): its first grounding is the Validator's question, cached;
    # the lenient judge's 25 candidate pairs read 25 distinct questions, in both orders.
    assert (asked, asked_again) == (165 + 2 * 152 + 2 * 25, 0)

    # the same output but what the calls cost: the rerun's are all cached, free
    def uncosted(text: str) -> list[str]:
        return [line for line in text.splitlines() if "model cost" not in line]

    assert uncosted(first.stdout) == uncosted(again.stdout.replace("2.jsonl", "1.jsonl"))
    assert "model cost" in first.stdout and "$0.0000" not in first.stdout.split("model cost")[1]
    out = twice["out"]
    assert _read(out, "adjudicated1.jsonl") == _read(out, "adjudicated2.jsonl")
    first_pairs, cached_pairs = _read(out, "pairs1.jsonl"), _read(out, "pairs2.jsonl")
    assert {a["cached"] for p in cached_pairs for a in p["answers"]} == {True}
    for pairs in (first_pairs, cached_pairs):
        for pair in pairs:
            pair["answers"] = [{**a, "cached": None} for a in pair["answers"]]
    assert first_pairs == cached_pairs


def test_the_adjudicated_precision_rises_and_the_strict_one_never_changes(
    twice: dict[str, Any],
) -> None:
    out = twice["out"]
    report = _read(out, "report1.json")
    assert check_report(report) == []
    section = report["adjudication"]
    rows = {row["name"]: row for row in section["rows"]}
    strict = {row["name"]: row["performance"]["precision"] for row in report["rows"]}
    assert (section["runs"], section["needed"], section["questions"]) == (3, 2, 152)
    for name in ("pipeline", "+ validator"):
        assert rows[name]["strict"] == strict[name]
    # The 21 predictions the gold lacks that the reading found supported are exactly the
    # Validator's 21 written false positives; each is possibly missing (3 of 3 supported).
    # pipeline 13 / 165 -> (13 + 21) / 165; + validator 13 / 34 -> 34 / 34.
    assert [rows["pipeline"][k] for k in ("not_in_gold", "asked", "possibly_missing")] == [
        152,
        152,
        21,
    ]
    assert rows["pipeline"]["adjudicated"]["value"] == pytest.approx(34 / 165)
    assert rows["+ validator"]["adjudicated"]["value"] == pytest.approx(1.0)
    listed = _read(out, "adjudicated1.jsonl")
    assert len(listed) == 152 and sum(i["possibly_missing_from_gold"] for i in listed) == 21
    assert {tuple(i["verdicts"]) for i in listed if i["supported"]} == {("supported",) * 3}
    stdout = twice["runs"][0][0].stdout
    assert "gold adjudication  (each prediction the gold lacks grounded 3 times" in stdout
    assert f"the list, with every verdict: {out / 'adjudicated1.jsonl'}" in stdout


def test_the_lenient_pairs_feed_the_surface_form_bucket_and_its_fix(twice: dict[str, Any]) -> None:
    out = twice["out"]
    report = _read(out, "report1.json")
    rows = {row["name"]: row for row in report["lenient"]["rows"]}
    pairs = _read(out, "pairs1.jsonl")
    assert report["lenient"]["judge"] == {"model": "openai/gpt-4o-mini", "prompt": "fact_equiv@1"}
    assert report["lenient"]["pairs"] == str(out / "pairs1.jsonl")
    assert len(pairs) == rows["pipeline"]["candidates"] == 25
    confirmed = [p for p in pairs if p["same"] and "+ validator" in p["rows"]]
    assert rows["+ validator"]["counted"] == len(confirmed) == 9
    surface = next(b for b in report["diagnosis"] if b["bucket"] == "surface_form")
    assert (surface["label"], surface["count"]) == ("surface form", 9)
    fix = next(f for f in report["fixes"] if f["id"] == "normalise-names")
    # 9 confirmed pairs over 2,240 gold facts (a share; printed as +0.4 points).
    assert fix["recall"]["expected"] == pytest.approx(9 / 2240)
    assert "9 confirmed by a judge / 2,240 gold" in fix["recall"]["basis"]


def test_the_report_lists_each_judge_and_prompt_that_ran(twice: dict[str, Any]) -> None:
    report = _read(twice["out"], "report1.json")
    assert report["run"]["models"] == {"ground": "openai/gpt-4o-mini"}
    assert report["run"]["prompts"] == ["ground.span@1", "fact_equiv@1"]
    assert report["run"]["claim_formats"] == {"ground.span@1": "span"}
    assert [(c["prompt"], c["line"]) for c in report["calibration"]] == [
        ("ground.span@1", "UNCALIBRATED"),
        ("fact_equiv@1", "UNCALIBRATED"),
    ]
    validator = next(r for r in report["rows"] if r["name"] == "+ validator")
    assert validator["cost"]["calls"] == 166 and validator["cost"]["prompt_tokens"] > 0


@pytest.mark.parametrize("flag", ["--adjudicate", "--lenient"])
def test_a_judge_whose_every_call_fails_exits_1(
    movie: tuple[Path, BenchSet, Path], tmp_path: Path, flag: str
) -> None:
    with ReplayServer("openai", []) as silent:  # every request is a 404: no recorded answer
        config = _config(movie[0], silent, "odke-silent.json")
        result = _run(movie, config, flag, str(tmp_path / "out.jsonl"), "--no-cache")
    assert result.exit_code == 1
    assert "calls failed" in result.stderr and "every one of" in result.stderr
    assert not (tmp_path / "out.jsonl").exists()


def test_the_budget_stops_the_judge_with_exit_3(
    movie: tuple[Path, BenchSet, Path], server: ReplayServer, tmp_path: Path
) -> None:
    config = _config(movie[0], server, "odke-budget.json")
    before = len(server.requests)
    result = _run(
        movie, config, "--lenient", str(tmp_path / "pairs.jsonl"), "--no-cache",
        "--budget-calls", "4", "--max-workers", "1",
    )  # fmt: skip
    assert result.exit_code == 3, result.stderr
    assert len(server.requests) - before <= 4


def test_a_model_that_cannot_be_called_exits_2_before_any_call(
    movie: tuple[Path, BenchSet, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    config = write_config(movie[0], "odke-anthropic.json", ground="anthropic/claude-haiku-4-5")
    result = _run(movie, config, "--adjudicate", str(tmp_path / "a.jsonl"))
    assert result.exit_code == 2
    assert "ANTHROPIC_API_KEY is not set" in result.stderr
