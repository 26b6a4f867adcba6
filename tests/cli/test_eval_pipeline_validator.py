"""``odke eval pipeline --validator`` and ``--trace manifest.json``, through the real command.

On Text2KGBench's movie set: Vicuna-13B's published triples on 25 manually verified sentences,
the Validator's grounding answered from verdicts written by reading each sentence
(``tests/fixtures/validator``). On ``examples/triples``: the gate's refusal of a gold fact fills
the recall side's "refused by the Validator" bucket. A failed grounding exits 1 naming the
document. On ``examples/e2e``: a run's ``manifest.json`` says what was offered, as its config does.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from openodke.bench import BenchSet, load_bench, prepare_text2kgbench
from openodke.eval.report.build import check_report
from tests.conftest import DATA, ROOT, CliResult, run_odke
from tests.eval.pipeline.vicuna_validator import (
    CASSETTE,
    cassette,
    read_readings,
    write_config,
    write_subset_facts,
)

TRIPLES = ROOT / "examples" / "triples"
E2E = ROOT / "examples" / "e2e"


def pipeline(*args: str) -> CliResult:
    return run_odke("eval", "pipeline", *args)


def buckets(report: dict[str, Any]) -> dict[str, int | None]:
    return {row["bucket"]: row["count"] for row in report["diagnosis"]}


@pytest.fixture(scope="module")
def movie(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BenchSet, Path]:
    """The prepared movie set, Vicuna-13B's facts on the 25 sentences, and the config."""
    out = tmp_path_factory.mktemp("validator") / "movie"
    prepare_text2kgbench(DATA, out, ontology="ont_1_movie")
    bench = load_bench(out)
    facts = out.parent / "vicuna25.jsonl"
    assert write_subset_facts(out, bench, facts) == 166
    return out, bench, facts


@pytest.fixture(scope="module")
def validated(movie: tuple[Path, BenchSet, Path]) -> tuple[CliResult, dict[str, Any]]:
    folder, _, facts = movie
    config = write_config(folder)
    report = folder.parent / "report.json"
    result = pipeline(
        "--bench", str(folder), "--predictions", str(facts), "--config", str(config),
        "--validator", "--report", str(report),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return result, json.loads(report.read_text(encoding="utf-8"))


def test_the_cassette_is_the_readings(movie: tuple[Path, BenchSet, Path]) -> None:
    # Stale when the claim rendering or the subset changes: re-read the changed questions
    # (tests/fixtures/validator/README.md) and rebuild with cassette(bench, read_readings()).
    _, bench, _ = movie
    readings = read_readings()
    assert json.loads(CASSETTE.read_text(encoding="utf-8")) == cassette(bench, readings)
    assert Counter(r["verdict"] for r in readings) == {
        "supported": 34,
        "not_found": 131,
        "contradicted": 1,
    }


def test_the_validator_row_is_at_least_as_precise_and_lists_what_it_refused(
    validated: tuple[CliResult, dict[str, Any]],
) -> None:
    result, report = validated
    assert check_report(report) == []
    rows = {row["name"]: row for row in report["rows"]}
    assert list(rows) == ["pipeline", "official", "+ validator", "+ validator (official)"]
    plain, checked = rows["pipeline"], rows["+ validator"]
    # 166 facts, one repeated (Troma Entertainment twice in test_122, counted once): 13 gold
    # facts and 152 others. The Validator writes the 34 read supported (the gate refuses
    # not_found and contradicted, enforce: true) and refuses the other 132 less the repeat it
    # merged: 131. Precision 13 / 165 = 0.079 -> 13 / 34 = 0.382; recall unchanged.
    assert [plain["counts"][k] for k in ("hits", "over_extraction", "predicted")] == [13, 152, 166]
    assert [checked["counts"][k] for k in ("hits", "over_extraction", "predicted")] == [13, 21, 34]
    assert plain["performance"]["precision"]["value"] == pytest.approx(13 / 165)
    assert checked["performance"]["precision"]["value"] == pytest.approx(13 / 34)
    assert (
        checked["performance"]["precision"]["value"] >= plain["performance"]["precision"]["value"]
    )
    assert checked["performance"]["recall"]["value"] == plain["performance"]["recall"]["value"]
    stage = next(s for s in report["stages"] if s["stage"] == "validator")
    assert stage["metrics"]["refused"] == len(stage["breakdown"]) == 131
    assert stage["metrics"]["refused: contradicted"] == 1
    alita = [r for r in stage["breakdown"].values() if r["verdict"] == "contradicted"]
    assert alita[0]["claim"].startswith("Alita: Battle Angel (Film) — publication date")
    assert "refused by the Validator  (131 of 166 facts)" in result.stdout
    assert "… and 111 more: the report's stages[validator] lists each" in result.stdout


def test_the_diagnosis_of_the_validator_row_reads_the_refusals(
    validated: tuple[CliResult, dict[str, Any]],
) -> None:
    _, report = validated
    assert {row["row"] for row in report["diagnosis"]} == {"+ validator"}
    found = buckets(report)
    # No refused fact is a gold fact here (the 13 hits survive), so the recall side's bucket is
    # measured and empty; every refusal is a catch, and every written false positive carries
    # the supported verdict it was written on.
    assert found["refused"] == 0
    assert found["refused_not_in_gold"] == 131
    assert (found["written_supported"], found["written_other"]) == (21, 0)
    assert not any("needs --validator" in (row["note"] or "") for row in report["diagnosis"])


def test_the_report_says_which_judge_ran(validated: tuple[CliResult, dict[str, Any]]) -> None:
    _, report = validated
    assert report["run"]["models"] == {"ground": "anthropic/claude-haiku-4-5-20251001"}
    assert report["run"]["prompts"] == ["ground.span@1"]
    assert report["run"]["claim_formats"] == {"ground.span@1": "span"}
    assert report["calibration"] == [
        {
            "role": "ground",
            "model": "anthropic/claude-haiku-4-5-20251001",
            "prompt": "ground.span@1",
            "line": "UNCALIBRATED",
            "meets_bar": False,
        }
    ]
    assert report["bootstrap"]["method"] == "expanded-bca"
    assert (
        "model cost: ground (validator) 166 calls (recorded answers: no tokens, no cost)"
        in report["notes"]
    )


def _triples(tmp_path: Path, **gate: Any) -> Path:
    folder = tmp_path / "triples"
    shutil.copytree(TRIPLES, folder)
    config = folder / "odke.yaml"
    text = config.read_text(encoding="utf-8")
    shown = ", ".join(f"{k}: {json.dumps(v)}" for k, v in gate.items())
    config.write_text(
        text.replace("gate: {use: verdict, schema: true, enforce: true}", f"gate: {{{shown}}}"),
        encoding="utf-8",
    )
    return folder


def _against(folder: Path) -> tuple[str, ...]:
    return (
        "--labels", str(folder / "gold.jsonl"), "--documents", str(folder / "texts"),
        "--ontology", str(folder / "ontology.json"),
        "--predictions", str(folder / "triples.jsonl"), "--config", str(folder / "odke.yaml"),
    )  # fmt: skip


def test_the_triples_readme_shows_what_validator_prints() -> None:
    text = (TRIPLES / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## The `+ validator` row") :]
    command, printed = re.findall(r"```\n(.*?)```", section, re.DOTALL)[:2]
    args = shlex.split(command.replace("\\\n", " "))
    assert args[:3] == ["odke", "eval", "pipeline"] and "--validator" in args
    result = run_odke(*(a.replace("examples/", f"{ROOT}/examples/") for a in args[1:]))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split("\n\nwhere it loses facts")[0] + "\n" == printed


def test_a_refused_gold_fact_lands_in_the_refused_bucket(tmp_path: Path) -> None:
    # The recorded answers say not_found of citations too narrow for their claim; a gate that
    # refuses not_found then refuses gold facts, and the misses they leave are its.
    folder = _triples(tmp_path, use="verdict", refuse_not_found=True, enforce=True)
    result = pipeline(*_against(folder), "--validator", "--json", "--no-cache")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    stage = next(s for s in report["stages"] if s["stage"] == "validator")
    rows = {row["name"]: row["counts"] for row in report["rows"]}
    found = buckets(report)
    lost = rows["pipeline"]["hits"] - rows["+ validator"]["hits"]
    assert lost > 0 and found["refused"] == lost
    # Every refusal is either a gold fact missed for it or a catch (none is both here).
    assert found["refused"] + found["refused_not_in_gold"] == stage["metrics"]["refused"]


def test_a_failed_grounding_exits_1_naming_the_document(tmp_path: Path) -> None:
    folder = _triples(tmp_path, use="verdict")
    recorded = folder / "recorded" / "ground.json"
    answers = json.loads(recorded.read_text(encoding="utf-8"))
    kept = [a for a in answers if "Orvik Foods" not in a["match"]]
    assert len(kept) < len(answers)
    recorded.write_text(json.dumps(kept), encoding="utf-8")
    report = tmp_path / "report.json"
    result = pipeline(*_against(folder), "--validator", "--no-cache", "--report", str(report))
    assert result.exit_code == 1
    assert "--validator: 1 document failed: orvik.txt (a grounding call failed" in result.stderr
    assert "not scored" in result.stderr and not report.exists()


@pytest.fixture(scope="module")
def e2e_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/e2e run once (recorded answers), and its documents as Document JSONL."""
    from openodke.run import build, load_config
    from openodke.run.steps import load

    folder = tmp_path_factory.mktemp("e2e") / "e2e"
    shutil.copytree(E2E, folder, ignore=shutil.ignore_patterns("out", ".odke-cache"))
    result = run_odke("run", str(folder / "odke.yaml"), "--no-cache")
    assert result.exit_code == 0, result.stderr
    with build(load_config(folder / "odke.yaml")) as built:
        documents, _ = load(built)
    lines = "".join(d.model_dump_json() + "\n" for d in documents)
    (folder / "documents.jsonl").write_text(lines, encoding="utf-8")
    return folder


def test_trace_reads_what_a_manifest_says_was_offered(e2e_run: Path) -> None:
    manifest = json.loads((e2e_run / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["stats"]["coverage"]["offered"]
    args = (
        "--labels", str(e2e_run / "gold.jsonl"), "--documents", str(e2e_run / "documents.jsonl"),
        "--ontology", str(e2e_run / "ontology.json"),
        "--predictions", str(e2e_run / "out" / "facts.jsonl"), "--json",
    )  # fmt: skip
    by_manifest = pipeline(*args, "--trace", str(e2e_run / "out" / "manifest.json"))
    by_config = pipeline(*args, "--trace", str(e2e_run / "odke.yaml"))
    untraced = pipeline(*args)
    for result in (by_manifest, by_config, untraced):
        assert result.exit_code == 0, result.stderr
    traced = buckets(json.loads(by_manifest.stdout))
    assert traced["never_offered"] is not None
    assert traced == buckets(json.loads(by_config.stdout))
    assert buckets(json.loads(untraced.stdout))["never_offered"] is None
