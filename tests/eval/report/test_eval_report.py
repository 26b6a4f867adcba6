"""The eval report: the spec's example, schema staleness, check_report, reading forward."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke import Entity, Evidence, Fact
from openodke.errors import InputError
from openodke.eval import GoldFact, evaluate_extraction
from openodke.eval.report.build import (
    check_report,
    extraction_rows,
    from_stage,
    read_report,
    report_schema,
    write_report,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "reports"
SCHEMA = (
    Path(__file__).resolve().parents[3] / "src" / "openodke" / "eval" / "eval_report.schema.json"
)

ada, babbage = Entity(key="ada", type="Person"), Entity(key="babbage", type="Person")
GOLD = [
    GoldFact(doc_id="d1", fact=Fact(subject=ada, predicate="born", object_value=1815)),
    GoldFact(doc_id="d2", fact=Fact(subject=babbage, predicate="born", object_value=1791)),
]
SAID = [
    Fact(subject=ada, predicate="born", object_value="1815", evidence=(Evidence(doc_id="d1"),)),
    Fact(subject=babbage, predicate="born", object_value=1792, evidence=(Evidence(doc_id="d2"),)),
]


def spec_report():
    rows, how = extraction_rows([("extract", SAID, None)], GOLD)
    return from_stage(evaluate_extraction(GOLD, SAID), rows=rows, bootstrap=how)


def test_spec_example_report():
    report = spec_report()
    precision = report.rows[0].performance.precision
    assert (precision.value, precision.low, precision.high) == (0.5, 0.0, 1.0)
    assert check_report(report.model_dump(mode="json")) == []


def test_committed_schema_is_current():
    committed = json.loads(SCHEMA.read_text())
    assert committed == report_schema(), "regenerate: python -m openodke.eval.report.io"


def test_uncited_spurious_counts_in_every_draw():
    said = [SAID[0], Fact(subject=ada, predicate="died", object_value=1852)]
    rows, _ = extraction_rows([("x", said, None)], GOLD[:1])
    p = rows[0].performance.precision
    # One document (tp 1) and one uncited false positive: every draw is 1 / (1 + 1).
    assert (p.value, p.low, p.high) == (0.5, 0.5, 0.5)
    assert rows[0].counts.uncited == 1


def test_check_report_lists_every_mismatch():
    data = spec_report().model_dump(mode="json")
    data["rows"][0]["performance"]["precision"]["low"] = "x"
    data["rows"][0]["extra"] = 1
    del data["title"]
    data["bootstrap"]["seed"] = float("nan")
    problems = check_report(data)
    assert 'rows[0].performance.precision.low: expected number or null, got "x"' in problems
    assert "rows[0]: unknown field(s) extra" in problems
    assert "title: missing required field" in problems
    assert any(p.startswith("bootstrap.seed: nan is not allowed") for p in problems)


def test_written_report_reads_back_equal(tmp_path):
    report = spec_report()
    write_report(tmp_path / "report.json", report)
    again, notes = read_report(tmp_path / "report.json")
    assert again == report and notes == []


def test_golden_files_of_each_version():
    current, notes = read_report(FIXTURES / "report-1.4.json")
    assert current.rows[0].name == "extract" and notes == []
    later, notes = read_report(FIXTURES / "report-1.7.json")
    assert notes == ["report-1.7.json: dropped fields from 1.7: rows[].foo, x"]
    assert later.rows == current.rows
    earlier, notes = read_report(FIXTURES / "report-1.2.json")
    assert earlier.calibration is None and earlier.run.claim_formats is None
    with pytest.raises(
        InputError, match=r"report-2.0.json: schema_version 2.0; this version reads 1.x \(1.4\)"
    ):
        read_report(FIXTURES / "report-2.0.json")
    with pytest.raises(InputError, match="rows"):
        read_report(FIXTURES / "corrupt.json")
