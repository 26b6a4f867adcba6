"""`odke eval compare A B`: the table, JSON, report file, gates and exit codes."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
import typer
from typer.testing import CliRunner

from openodke.cli.eval_compare import register
from openodke.errors import OdkeError
from openodke.eval.engine.items import DocItem, RightWrongItem, write_items
from tests.conftest import run_odke
from tests.eval.test_compare import SPEC_TABLE, spec_runs


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str


def _app() -> typer.Typer:
    app = typer.Typer()
    eval_app = typer.Typer()
    app.add_typer(eval_app, name="eval")
    register(eval_app)
    return app


def odke(*args: str) -> Run:
    """Run `eval ARGS` on a small app holding only this command; an OdkeError becomes its exit
    code and an `error:` line on stderr, as the real entry point does."""
    result = CliRunner().invoke(_app(), ["eval", *args])
    stderr = result.stderr
    code = result.exit_code
    if isinstance(result.exception, OdkeError):
        code = result.exception.exit_code
        stderr += f"error: {result.exception}\n"
    elif result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Run(code, result.stdout, stderr)


def _items(path, flags, prefix="g"):
    write_items(path, [RightWrongItem(id=f"{prefix}{i}", correct=x) for i, x in enumerate(flags)])
    return str(path)


@pytest.fixture
def spec_files(tmp_path, monkeypatch):
    """p1.items.jsonl and p2.items.jsonl as the page names them, in the working directory."""
    monkeypatch.chdir(tmp_path)
    a, b = spec_runs()
    write_items("p1.items.jsonl", a)
    write_items("p2.items.jsonl", b)
    return "p1.items.jsonl", "p2.items.jsonl"


def test_spec_table(spec_files):
    run = odke("compare", *spec_files)
    assert run.exit_code == 0
    assert run.stdout == SPEC_TABLE + "\n"
    # The header structure and McNemar's p, whatever the draws.
    assert run.stdout.splitlines()[4] == (
        "  flips     30 of 300 items changed (10.0%): 14 gained, 16 lost, McNemar exact p = 0.856"
    )


def test_json_is_one_comparison_block(spec_files):
    run = odke("compare", *spec_files, "--json")
    assert run.exit_code == 0
    block = json.loads(run.stdout)
    assert set(block) == {"a", "b", "unit", "metric", "primary", "guardrails", "mcnemar", "notes"}
    assert block["primary"]["verdict"] == "inconclusive"
    assert block["mcnemar"] == {
        "items": 300,
        "gained": 14,
        "lost": 16,
        "p_value": pytest.approx(0.8555, abs=1e-4),
    }
    assert set(block["primary"]) == {
        "items", "a", "b", "difference", "interval", "a_interval", "b_interval", "flips",
        "flip_share", "detection_limit", "verdict", "level", "resamples", "seed",
    }  # fmt: skip


def test_report_file_holds_the_comparison(spec_files, tmp_path):
    run = odke("compare", *spec_files, "--report", "out/report.json")
    assert run.exit_code == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    from openodke.eval.report.build import check_report

    assert check_report(report) == []
    assert report["bootstrap"]["unit"] == "item" and report["n"] == 300
    assert report["comparison"]["primary"]["b_interval"] == [
        pytest.approx(0.807, abs=5e-4),
        pytest.approx(0.887, abs=5e-4),
    ]


def test_resamples_and_seed_reach_the_result(spec_files):
    block = json.loads(
        odke("compare", *spec_files, "--json", "--resamples", "300", "--seed", "9").stdout
    )
    assert (block["primary"]["resamples"], block["primary"]["seed"]) == (300, 9)


def test_worse_exits_1_with_a_gate_line(tmp_path):
    before = [True] * 240 + [False] * 3 + [True] * 27 + [False] * 30
    after = [True] * 240 + [True] * 3 + [False] * 27 + [False] * 30
    run = odke("compare", _items(tmp_path / "a.jsonl", before), _items(tmp_path / "b.jsonl", after))
    assert run.exit_code == 1
    assert (
        "  verdict   worse: the whole 95% interval of B − A is below zero, and McNemar exact p < 0.001"
        in run.stdout
    )
    assert "gate: fail: B is worse than A on accuracy: -8.0 points, 95% interval" in run.stdout
    assert run.stderr.startswith("error: compare gate failed")


def test_better_exits_0(tmp_path):
    before = [True] * 240 + [False] * 27 + [True] * 3 + [False] * 30
    after = [True] * 240 + [True] * 27 + [False] * 3 + [False] * 30
    run = odke("compare", _items(tmp_path / "a.jsonl", before), _items(tmp_path / "b.jsonl", after))
    assert (run.exit_code, run.stdout.splitlines()[1][:18]) == (0, "  verdict   better")
    assert "gate:" not in run.stdout


@pytest.mark.parametrize(
    ("flags", "code", "gate_lines"),
    [
        ([], 0, []),
        (
            ["--fail-on-inconclusive"],
            1,
            ["gate: fail: inconclusive on accuracy, and --fail-on-inconclusive is set"],
        ),
        (["--fail-under", "0.80"], 0, []),
        (
            ["--fail-under", "0.85"],
            1,
            ["gate: fail: the low end of B's accuracy range, 0.807, is under --fail-under 0.85"],
        ),
        (
            ["--fail-under", "0.85", "--fail-on-inconclusive"],
            1,
            [
                "gate: fail: inconclusive on accuracy, and --fail-on-inconclusive is set",
                "gate: fail: the low end of B's accuracy range, 0.807, is under --fail-under 0.85",
            ],
        ),
    ],
)
def test_gates(spec_files, flags, code, gate_lines):
    run = odke("compare", *spec_files, *flags)
    assert run.exit_code == code
    assert [line for line in run.stdout.splitlines() if line.startswith("gate:")] == gate_lines


def test_gate_lines_go_to_stderr_beside_json(spec_files):
    run = odke("compare", *spec_files, "--json", "--fail-on-inconclusive")
    assert run.exit_code == 1
    json.loads(run.stdout)  # stdout stays one JSON document
    assert "gate: fail: inconclusive" in run.stderr


def test_documents_compare_on_f1_with_guardrails(tmp_path):
    a = [DocItem(id=f"d{i}", tp=2, fp=1, fn=1) for i in range(50)]
    b = [DocItem(id=f"d{i}", tp=2 + i % 2, fp=1, fn=1 - i % 2) for i in range(50)]
    write_items(tmp_path / "a.jsonl", a)
    write_items(tmp_path / "b.jsonl", b)
    run = odke(
        "compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "--metric", "recall"
    )
    assert run.exit_code == 0
    lines = run.stdout.splitlines()
    assert (
        lines[0]
        == f"compare  recall over 50 documents  (A: {tmp_path / 'a.jsonl'}, B: {tmp_path / 'b.jsonl'})"
    )
    assert [line.split()[0] for line in lines[1:]] == [
        "verdict",
        "recall",
        "limit",
        "precision",
        "f1",
        "B",
    ]


@pytest.mark.parametrize(
    ("b_text", "fragment"),
    [
        ('{"id": "g0", "correct": true}\n', "id 'g1' of "),  # B lacks an id
        (
            '{"id": "g0", "tp": 1, "fp": 0, "fn": 0}\n{"id": "g1", "tp": 1, "fp": 0, "fn": 0}\n',
            "rows",
        ),
        ('{"id": "g0", "correct": true}\n{"id": "g1", "correct": tru}\n', ":2: not JSON"),
        ("", "no rows"),
    ],
)
def test_files_that_cannot_be_compared_exit_2(tmp_path, b_text, fragment):
    a = _items(tmp_path / "a.jsonl", [True, False])
    b = tmp_path / "b.jsonl"
    b.write_text(b_text)
    run = odke("compare", a, str(b))
    assert run.exit_code == 2
    assert str(b) in run.stderr and fragment in run.stderr
    assert run.stdout == ""


def test_unknown_metric_exits_2(spec_files):
    run = odke("compare", *spec_files, "--metric", "f1")
    assert run.exit_code == 2
    assert "metric 'f1'" in run.stderr


def test_missing_arguments_exit_2():
    run = odke("compare")
    assert run.exit_code == 2
    assert "two items files" in run.stderr


def test_describe_prints_the_contract():
    run = odke("compare", "--describe")
    assert run.exit_code == 0
    for fragment in (
        '{"id": "d1", "tp": 3, "fp": 1, "fn": 0}',
        '{"id": "g7", "correct": true}',
        "better",
        "worse",
        "inconclusive",
        "exit codes",
        "--fail-under",
        "McNemar",
    ):
        assert fragment in run.stdout


def test_applied_and_track_record_are_accepted(spec_files, tmp_path):
    # issue 4 gives them behaviour; for now they are accepted and change nothing.
    run = odke(
        "compare", *spec_files, "--applied", "offer-relations", "--track-record", "record.jsonl"
    )
    assert (run.exit_code, run.stdout) == (0, SPEC_TABLE + "\n")
    assert not (tmp_path / "record.jsonl").exists()


def test_through_the_real_entry_point(spec_files):
    result = run_odke("eval", "compare", *spec_files, "--fail-on-inconclusive")
    assert result.exit_code == 1
    assert result.stdout.startswith(SPEC_TABLE)
    assert result.stderr.startswith("error: compare gate failed")
