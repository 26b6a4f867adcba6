"""``odke bench prepare`` on the command line: output, JSON, and each error exit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import DATA, run_odke


def test_prepare_prints_a_one_paragraph_summary(tmp_path: Path) -> None:
    out = tmp_path / "set"
    result = run_odke(
        "bench",
        "prepare",
        "redocred",
        str(DATA),
        "--split",
        "test",
        "--limit",
        "3",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        f"Prepared Re-DocRED test (first 3 of 500) in {out}: 3 documents in docs/"
    )
    assert "6 inverse pairs and 3 symmetric predicates declared" in lines[0]
    assert (out / "dataset.json").is_file() and len(list((out / "docs").iterdir())) == 3


def test_prepare_text2kgbench_json(tmp_path: Path) -> None:
    out = tmp_path / "culture"
    result = run_odke(
        "bench", "prepare", "text2kgbench", str(DATA), "--ontology", "ont_10_culture",
        "--out", str(out), "--paper", "--max-tokens", "4000", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["dataset"], summary["documents"], summary["predicates"]) == (
        "text2kgbench",
        159,
        8,
    )
    assert sorted(summary["competitors"]) == ["Alpaca-LoRA-13B", "Vicuna-13B"]
    config = json.loads((out / "odke.json").read_text())
    assert config["models"]["extract"]["max_tokens"] == 4000
    assert config["stages"]["gate"]["refuse_not_found"] is True


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["redocred", "no-such-dir"], "no-such-dir: no such folder (DATA_DIR)"),
        (["redocred", str(DATA / "text2kgbench")], "no Re-DocRED data"),
        (["wikidata", str(DATA)], "unknown dataset 'wikidata'"),
        (["text2kgbench", str(DATA)], "text2kgbench needs --ontology"),
        (
            ["text2kgbench", str(DATA), "--ontology", "ont_1_movie", "--limit", "5"],
            "--split and --limit are for redocred",
        ),
        (["redocred", str(DATA), "--ontology", "ont_1_movie"], "--ontology is for text2kgbench"),
        (["redocred", str(DATA), "--max-tokens", "0"], "--max-tokens must be between 1 and 16000"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    result = run_odke("bench", "prepare", *args, "--out", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr
    assert not (tmp_path / "out").exists()


def test_non_empty_out_exits_2(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    result = run_odke(
        "bench", "prepare", "redocred", str(DATA), "--limit", "1", "--out", str(tmp_path)
    )
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {tmp_path}: --out must be new, empty or an earlier `odke bench prepare` output; "
        "this folder holds other files\n"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]
