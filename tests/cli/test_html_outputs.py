"""``--html PATH`` on the eval commands, and ``odke report html|csv|parquet`` for saved reports:
each writes a page (or tables) holding the numbers the command printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_odke
from tests.run.conftest import e2e  # noqa: F401 - a fixture, used by name

TRIPLES = ROOT / "examples" / "triples"


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example's report and items, written by odke eval pipeline."""
    out = tmp_path_factory.mktemp("saved")
    ran = run_odke(
        "eval", "pipeline", "--labels", str(TRIPLES / "gold.jsonl"),
        "--documents", str(TRIPLES / "texts"), "--ontology", str(TRIPLES / "ontology.json"),
        "--cmd", f"python {TRIPLES / 'pipeline.py'} {{in}} {{out}}",
        "--report", str(out / "report.json"), "--items", str(out / "items.jsonl"),
    )  # fmt: skip
    assert ran.exit_code == 0, ran.stderr
    return out


def test_report_html_writes_a_page_beside_the_report(saved: Path) -> None:
    ran = run_odke(
        "report", "html", str(saved / "report.json"), "--documents", str(TRIPLES / "texts")
    )
    assert ran.exit_code == 0, ran.stderr
    assert ran.stdout == f"wrote {saved / 'report.html'}\n"
    page = (saved / "report.html").read_text()
    assert "0.800 <span" in page and "<mark>Maren Oksdal</mark>" in page


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_report_tables(fmt: str, saved: Path, tmp_path: Path) -> None:
    ran = run_odke("report", fmt, str(saved / "report.json"), "-o", str(tmp_path))
    assert ran.exit_code == 0, ran.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    tables = ["diagnosis", "fixes", "predicates", "rows"]
    assert names == [f"report.{t}.{fmt}" for t in tables]
    assert ran.stdout.splitlines() == [
        f"wrote {tmp_path / name}"
        for name in ["report.rows", "report.predicates", "report.diagnosis", "report.fixes"]
        for name in [f"{name}.{fmt}"]
    ]


def test_report_of_what_is_not_a_report_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}')
    ran = run_odke("report", "html", str(bad))
    assert ran.exit_code == 2 and "not a report odke writes" in ran.stderr
    assert not (tmp_path / "bad.html").exists()


def test_html_may_not_overwrite_an_input(saved: Path) -> None:
    ran = run_odke(
        "eval",
        "compare",
        str(saved / "items.jsonl"),
        str(saved / "items.jsonl"),
        "--html",
        str(saved / "items.jsonl"),
    )
    assert ran.exit_code == 2
    assert json.loads((saved / "items.jsonl").read_text().splitlines()[0])["id"]


def test_extract_html_holds_the_printed_numbers(tmp_path: Path) -> None:
    gold = ROOT / "examples" / "e2e" / "gold.jsonl"
    facts = tmp_path / "facts.jsonl"
    rows = [json.loads(line) for line in gold.read_text().splitlines()]
    facts.write_text(
        "".join(
            json.dumps({**r["fact"], "evidence": [{"doc_id": r["doc_id"]}]}) + "\n"
            for r in rows[:-3]
        )
    )
    page = tmp_path / "extract.html"
    ran = run_odke(
        "eval", "extract", "--labels", str(gold), "--predictions", str(facts), "--html", str(page)
    )
    assert ran.exit_code == 0, ran.stderr
    html = page.read_text()
    recall = f"{(len(rows) - 3) / len(rows):.3f}"
    assert f"{recall} <span" in html and '<section id="diagnosis">' in html


def test_compare_html_and_json_agree(saved: Path, tmp_path: Path) -> None:
    page = tmp_path / "compare.html"
    ran = run_odke(
        "eval",
        "compare",
        str(saved / "items.jsonl"),
        str(saved / "items.jsonl"),
        "--html",
        str(page),
        "--json",
    )
    assert ran.exit_code == 0, ran.stderr
    data = json.loads(ran.stdout)
    assert data["primary"]["verdict"] == "inconclusive"
    assert "verdict: <strong>inconclusive</strong>" in page.read_text()


def test_ablation_html(e2e: Path, tmp_path: Path) -> None:  # noqa: F811
    page = tmp_path / "ablation.html"
    ran = run_odke(
        "eval", "ablation", "--config", str(e2e / "odke.yaml"), "--labels", str(e2e / "gold.jsonl"),
        "--html", str(page),
    )  # fmt: skip
    assert ran.exit_code == 0, ran.stderr
    html = page.read_text()
    assert 'data-chart="ablation"' in html and "<td>+ corroboration</td>" in html
