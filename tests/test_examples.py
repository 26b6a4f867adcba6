"""The shipped examples: the page's command runs on examples/triples and prints what its README says."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from openodke.documents import load_documents
from openodke.eval import GoldFact, load_jsonl
from openodke.eval.pipeline import collect
from openodke.eval.report.build import check_report, read_report
from openodke.interop import read_triples
from openodke.ontology import Ontology
from tests.conftest import ROOT, run_odke

TRIPLES = ROOT / "examples" / "triples"

# The page's command (evaluate-a-pipeline.md, "Point it at your pipeline"), verbatim.
SPEC_COMMAND = """odke eval pipeline --labels examples/triples/gold.jsonl \\
    --documents examples/triples/texts --ontology examples/triples/ontology.json \\
    --cmd "python examples/triples/pipeline.py {in} {out}" --report report.json"""


@pytest.fixture
def at_root(monkeypatch):
    """Run from the repository root with this interpreter's bin first on PATH, so the command's
    ``python`` is the one running the tests (a venv's, in CI too)."""
    monkeypatch.chdir(ROOT)
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", bin_dir + os.pathsep + os.environ.get("PATH", ""))


def readme_block(after: str) -> str:
    """The first fenced block in the README after the line containing ``after``."""
    text = (TRIPLES / "README.md").read_text(encoding="utf-8")
    start = text.index(after)
    match = re.search(r"```\n(.*?)```", text[start:], re.DOTALL)
    assert match is not None, f"no fenced block after {after!r}"
    return match.group(1)


def run_spec_command(report: Path, *extra: str):
    args = shlex.split(SPEC_COMMAND.replace("\\\n", " "))
    assert args[:3] == ["odke", "eval", "pipeline"] and args[-1] == "report.json"
    return run_odke(*args[1:-1], str(report), *extra)


def test_the_pages_command_prints_what_the_readme_states(tmp_path, at_root):
    result = run_spec_command(tmp_path / "report.json")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == readme_block("It prints:")
    # The README quotes the page's command too.
    assert SPEC_COMMAND in (TRIPLES / "README.md").read_text(encoding="utf-8")


def test_the_pages_command_writes_the_readmes_numbers(tmp_path, at_root):
    report_path = tmp_path / "report.json"
    result = run_spec_command(report_path, "--items", str(tmp_path / "items.jsonl"))
    assert result.exit_code == 0, result.stderr
    data = json.loads(report_path.read_text(encoding="utf-8"))
    assert check_report(data) == []
    report, notes = read_report(report_path)
    assert notes == []
    (row,) = report.rows
    perf = row.performance
    # Hand computation (README): halden.txt 5 hits, 2 false positives, 2 misses; orvik.txt 5
    # hits, 1 false positive. Pooled: P 10/13, R 10/12, F1 20/25. A draw of halden.txt twice:
    # P 10/14, R 10/14, F1 20/28; orvik.txt twice: P 10/12, R 10/10, F1 20/22. With two
    # documents every percentile range spans those two extremes.
    assert (perf.precision.value, perf.precision.low, perf.precision.high) == pytest.approx(
        (10 / 13, 10 / 14, 10 / 12)
    )
    assert (perf.recall.value, perf.recall.low, perf.recall.high) == pytest.approx(
        (10 / 12, 10 / 14, 1.0)
    )
    assert (perf.f1.value, perf.f1.low, perf.f1.high) == pytest.approx((0.8, 20 / 28, 20 / 22))
    counts = row.counts
    assert counts is not None
    assert (counts.hits, counts.over_extraction, counts.under_extraction) == (10, 3, 2)
    assert (counts.predicted, counts.gold, counts.documents, counts.uncited) == (13, 12, 2, 0)
    assert row.conformance is not None and row.conformance.rate == 1.0
    assert row.hallucination is not None
    assert (row.hallucination.subject, row.hallucination.object) == (0.0, pytest.approx(1 / 13))
    metrics = report.stages[0].metrics
    assert (metrics["wrong_value"], metrics["spurious"], metrics["missing"]) == (1, 2, 1)
    items = (tmp_path / "items.jsonl").read_text(encoding="utf-8")
    assert items == readme_block("Add `--items items.jsonl`")


def test_the_example_is_what_the_page_asks_for():
    ontology = Ontology.load(TRIPLES / "ontology.json")  # strict: any problem raises
    assert 3 <= len(ontology.types) <= 4
    documents = load_documents(TRIPLES / "texts")
    assert [d.id for d in documents] == ["halden.txt", "orvik.txt"]
    rows = read_triples(TRIPLES / "triples.jsonl")
    collected = collect(TRIPLES / "triples.jsonl", documents, ontology=ontology)
    assert collected.dropped == 0 and len(collected.facts) == len(rows)
    # Each evidence kind: offsets and quote, quote only, a quote not in the text, neither.
    assert collected.evidence_kinds == {"cited": 5, "quoted": 4, "quote_not_found": 1, "context": 3}
    texts = {Path(d.id).stem: d.text for d in documents}
    for row in rows:
        if row.start is not None:
            assert texts[row.doc][row.start : row.end] == row.quote
    gold = load_jsonl(TRIPLES / "gold.jsonl", GoldFact)
    assert {g.doc_id for g in gold} == {d.id for d in documents}


def test_pipeline_script_writes_the_recorded_rows_for_the_texts_it_is_given(tmp_path):
    out = tmp_path / "out.jsonl"
    script = TRIPLES / "pipeline.py"
    done = subprocess.run(
        [sys.executable, str(script), str(TRIPLES / "texts"), str(out)],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == (TRIPLES / "triples.jsonl").read_text("utf-8")
    # Given one text, it writes only that text's rows.
    only = tmp_path / "only"
    only.mkdir()
    (only / "orvik.txt").write_text((TRIPLES / "texts" / "orvik.txt").read_text("utf-8"))
    done = subprocess.run([sys.executable, str(script), str(only), str(out)], check=False)
    assert done.returncode == 0
    assert {json.loads(line)["doc"] for line in out.read_text("utf-8").splitlines()} == {"orvik"}
