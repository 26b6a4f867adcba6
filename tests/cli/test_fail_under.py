"""``--fail-under`` on one run (issue 17, item 6): ``odke eval pipeline`` and ``odke eval extract``
exit 1 when the low end of a metric's 95% range is under its floor, say which gate failed in one
line, and record every gate in the report. (``odke bench run`` is tested in
``tests/bench/test_bench_run.py``.)

examples/triples scores 10/3/2 (README): F1 0.800 [0.714, 0.909], precision 0.769 [0.714, 0.833],
recall 0.833 [0.714, 1.000] over its 2 documents (2,000 draws, seed 0).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke.eval.report.io import check_report
from tests.conftest import ROOT, run_odke

TRIPLES = ROOT / "examples" / "triples"
AGAINST = (
    "--labels", str(TRIPLES / "gold.jsonl"), "--documents", str(TRIPLES / "texts"),
    "--ontology", str(TRIPLES / "ontology.json"),
)  # fmt: skip

# (floors, exit code, the error line, the gates recorded: (metric, floor, passed))
CASES = {
    "no floor": ([], 0, None, None),
    "f1 over its floor": (["0.7"], 0, None, [("f1", 0.7, True)]),
    "f1 under": (
        ["0.75"], 1,
        "error: --fail-under: the low end of pipeline's f1 range, 0.714, is under 0.75",
        [("f1", 0.75, False)],
    ),
    "precision under, f1 over": (
        ["0.7", "precision=0.8"], 1,
        "error: --fail-under: the low end of pipeline's precision range, 0.714, is under 0.8",
        [("f1", 0.7, True), ("precision", 0.8, False)],
    ),
    "two under": (
        ["f1=0.8", "recall=0.72"], 1,
        "error: --fail-under: the low end of pipeline's f1 range, 0.714, is under 0.8; "
        "the low end of pipeline's recall range, 0.714, is under 0.72",
        [("f1", 0.8, False), ("recall", 0.72, False)],
    ),
}  # fmt: skip


def floors(values: list[str]) -> list[str]:
    return [word for value in values for word in ("--fail-under", value)]


@pytest.mark.parametrize("case", CASES)
def test_eval_pipeline_gates_the_low_end_of_its_range(case: str, tmp_path: Path) -> None:
    given, code, line, gates = CASES[case]
    report = tmp_path / "report.json"
    result = run_odke(
        "eval", "pipeline", *AGAINST, "--predictions", str(TRIPLES / "triples.jsonl"),
        "--report", str(report), *floors(given),
    )  # fmt: skip
    assert result.exit_code == code, result.stderr
    errors = [e for e in result.stderr.splitlines() if e.startswith("error:")]
    assert errors == ([line] if line else [])
    assert "0.800 [0.714, 0.909]" in result.stdout  # the table is printed all the same
    written = json.loads(report.read_text(encoding="utf-8"))  # and the report written
    assert check_report(written) == []
    recorded = written.get("gates")
    if gates is None:
        assert recorded is None
    else:
        assert [(g["metric"], g["floor"], g["passed"]) for g in recorded] == gates
        assert {g["row"] for g in recorded} == {"pipeline"}


def test_eval_extract_gates_as_pipeline_does(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    # The same facts as Fact rows: odke eval extract reads no triples rows, so write them with
    # the pipeline's own reading (--predictions a Fact file scores the same 10/3/2).
    facts = tmp_path / "facts.jsonl"
    from openodke.documents import load_documents
    from openodke.eval.pipeline import collect
    from openodke.ontology import Ontology

    got = collect(
        TRIPLES / "triples.jsonl",
        load_documents(TRIPLES / "texts"),
        ontology=Ontology.load(TRIPLES / "ontology.json"),
    )
    facts.write_text("".join(f.model_dump_json() + "\n" for f in got.facts), encoding="utf-8")
    args = ("eval", "extract", "--labels", str(TRIPLES / "gold.jsonl"))
    result = run_odke(
        *args, "--predictions", str(facts), "--ontology", str(TRIPLES / "ontology.json"),
        "--report", str(report), "--fail-under", "0.75", "--json",
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "error: --fail-under: the low end of extract's f1 range, 0.714, is under 0.75"
    )
    printed = json.loads(result.stdout)  # stdout stays one JSON document
    assert printed["metrics"]["f1"] == pytest.approx(0.8)
    assert printed["gates"] == json.loads(report.read_text(encoding="utf-8"))["gates"]
    assert printed["gates"][0]["low"] == pytest.approx(0.714, abs=5e-4)


def test_a_zero_score_fails_any_floor(tmp_path: Path) -> None:
    # Every prediction on the other document: F1 0.000, which exited 0 with nothing to gate on.
    rows = [json.loads(line) for line in (TRIPLES / "triples.jsonl").read_text().splitlines()]
    swapped = tmp_path / "swapped.jsonl"
    swap = {"halden": "orvik", "orvik": "halden"}
    swapped.write_text(
        "".join(json.dumps({**row, "doc": swap[row["doc"]]}) + "\n" for row in rows),
        encoding="utf-8",
    )
    result = run_odke("eval", "pipeline", *AGAINST, "--predictions", str(swapped), "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["rows"][0]["performance"]["f1"]["value"] == 0.0
    gated = run_odke(
        "eval", "pipeline", *AGAINST, "--predictions", str(swapped), "--fail-under", "0.01"
    )
    assert gated.exit_code == 1
    assert gated.stderr.strip() == (
        "error: --fail-under: the low end of pipeline's f1 range, 0.000, is under 0.01"
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("f2=0.5", "--fail-under 'f2=0.5': the metric must be one of f1, precision, recall"),
        ("1.5", "--fail-under '1.5': the floor must be a number from 0 to 1"),
        ("nan", "--fail-under 'nan': the floor must be a number from 0 to 1"),
        ("precision=", "--fail-under 'precision=': the floor must be a number from 0 to 1"),
    ],
)
def test_a_bad_floor_is_exit_2_before_anything_runs(
    value: str, message: str, tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    for command in (("eval", "pipeline", *AGAINST), ("eval", "extract", *AGAINST[:2])):
        result = run_odke(
            *command, "--predictions", str(TRIPLES / "triples.jsonl"),
            "--report", str(report), "--fail-under", value,
        )  # fmt: skip
        assert result.exit_code == 2
        assert message in result.stderr
        assert not report.exists()


def test_one_metric_given_two_floors_is_exit_2() -> None:
    result = run_odke(
        "eval", "pipeline", *AGAINST, "--predictions", str(TRIPLES / "triples.jsonl"),
        "--fail-under", "0.5", "--fail-under", "f1=0.6",
    )  # fmt: skip
    assert result.exit_code == 2
    assert "--fail-under: f1 is given two floors; give one" in result.stderr
