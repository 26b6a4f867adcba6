"""Hostile option values (issue 22, helper "reliab"): the fuzz table breaks files, these break
the values of options. Each was "this is a bug" (exit 1) before its fix; now typer's refusal,
exit 2, naming the option. Found by probing every option of every command of the fuzz table with
a value out of range, a number of thousands of digits, an empty path (tests/cli/test_boundary.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_odke
from tests.fuzz.seeds import items_files, judge_files, pipeline_files, report_files, write


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        # numpy's SeedSequence: "expected non-negative integer"
        ("--seed", "-1", "greater than or equal to 0"),
        # numpy: "Maximum allowed dimension exceeded"
        ("--resamples", "99999999999999999999", "less than or equal to 1000000"),
        ("--resamples", "0", "greater than or equal to 1"),
    ],
)
def test_compare_refuses_a_seed_or_draws_it_cannot_use(tmp_path: Path, option, value, said) -> None:
    write(tmp_path, items_files())
    result = run_odke("eval", "compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"),
                      option, value)  # fmt: skip
    assert result.exit_code == 2, result.stderr
    assert f"Invalid value for '{option}'" in result.stderr and said in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["pool", "run_a", "run_b", "--documents", "docs.jsonl", "--seed", "-1"],
        ["pool", "run_a", "run_b", "--documents", "docs.jsonl", "--resamples", "10000000"],
        ["refusals", "run_a", "--documents", "docs.jsonl", "--make-sheet", "s", "--seed", "-2"],
    ],
)
def test_the_judges_refuse_a_negative_seed_or_too_many_draws(
    tmp_path: Path, monkeypatch, args
) -> None:
    write(tmp_path, judge_files())
    monkeypatch.chdir(tmp_path)
    result = run_odke("eval", *args)
    assert result.exit_code == 2, result.stderr
    assert "Invalid value for '--" in result.stderr and "this is a bug" not in result.stderr


@pytest.mark.parametrize("root", ["/", "."])
def test_a_reference_report_that_is_the_root_folder_is_refused(
    tmp_path: Path, monkeypatch, root
) -> None:
    """``--reference /``: finishing a killed write's renames asked for ``Path("/")``'s intent
    file, whose name is empty (ValueError, "this is a bug"); the reader now says it is a folder."""
    write(tmp_path, pipeline_files())
    monkeypatch.chdir(tmp_path)
    result = run_odke("eval", "pipeline", "--labels", "gold.jsonl", "--documents", "docs.jsonl",
                      "--predictions", "triples.jsonl", "--reference", root)  # fmt: skip
    assert result.exit_code == 2, result.stderr
    assert "this is a bug" not in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize("where", ["afile", "/dev/zero", "afile/below"])
def test_report_tables_into_a_file_are_refused_with_nothing_written(
    tmp_path: Path, monkeypatch, fmt, where
) -> None:
    """``report parquet -o /dev/zero`` (or any file): mkdir raised FileExistsError, "this is a
    bug" (csv said "cannot write here" per table); both now refuse before any table."""
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    write(tmp_path, report_files())
    (tmp_path / "afile").write_text("kept\n")
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    result = run_odke("report", fmt, "report.json", "-o", where)
    assert result.exit_code == 2, result.stderr
    assert "this is a bug" not in result.stderr and result.stderr.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (tmp_path / "afile").read_text() == "kept\n"
