"""The HTML page and the notebook view, without a browser: well-formed, self-contained, every
section where the report has its data; each report kind's ``_repr_html_`` holds a table."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from openodke.eval import (
    CalibrationLabel,
    GoldFact,
    evaluate_calibration,
    evaluate_extraction,
    load_jsonl,
)
from openodke.eval.compare import compare_runs
from openodke.eval.report.build import from_comparison
from openodke.eval.report.export import load_any_report
from openodke.eval.report.html import render_html
from openodke.eval.report.html.context import ends_of, snippet
from openodke.eval.report.models import EvalReport
from openodke.eval.stages.stage_report import StageReport
from openodke.types import Entity, Evidence, Fact
from tests.conftest import ROOT, run_odke

TRIPLES = ROOT / "examples" / "triples"
VOID = {"meta", "br", "img", "input", "link", "hr", "col", "area", "base", "wbr", "source"}
SVG_EMPTY = {"line", "circle", "rect", "polyline", "path"}


class Checked(HTMLParser):
    """Every tag closed in order; counts of tags; any src/href that leaves the page."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.counts: dict[str, int] = {}
        self.outside: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.counts[tag] = self.counts.get(tag, 0) + 1
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith(("#", "data:")):
                self.outside.append(value)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.counts[tag] = self.counts.get(tag, 0) + 1

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:]}")
            return
        self.stack.pop()


def checked(html: str) -> Checked:
    parser = Checked()
    parser.feed(html)
    parser.close()
    assert parser.problems == [] and parser.stack == [], (parser.problems, parser.stack)
    return parser


@pytest.fixture(scope="module")
def triples_report(tmp_path_factory: pytest.TempPathFactory) -> EvalReport:
    out = tmp_path_factory.mktemp("triples") / "report.json"
    ran = run_odke(
        "eval",
        "pipeline",
        "--labels",
        str(TRIPLES / "gold.jsonl"),
        "--documents",
        str(TRIPLES / "texts"),
        "--ontology",
        str(TRIPLES / "ontology.json"),
        "--cmd",
        f"python {TRIPLES / 'pipeline.py'} {{in}} {{out}}",
        "--report",
        str(out),
    )
    assert ran.exit_code == 0, ran.stderr
    report = load_any_report(out)
    assert isinstance(report, EvalReport)
    return report


def _compare(tmp_path: Path) -> EvalReport:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(
        "".join(f'{{"id": "g{i}", "correct": {str(i % 3 > 0).lower()}}}\n' for i in range(60))
    )
    b.write_text(
        "".join(f'{{"id": "g{i}", "correct": {str(i % 4 > 0).lower()}}}\n' for i in range(60))
    )
    return from_comparison(compare_runs(a, b))


def _stage() -> StageReport:
    ada = Entity(key="ada", type="Person")
    gold = [GoldFact(doc_id="d1", fact=Fact(subject=ada, predicate="born", object_value=1815))]
    said = [
        Fact(subject=ada, predicate="born", object_value=1815, evidence=(Evidence(doc_id="d1"),))
    ]
    return evaluate_extraction(gold, said)


def _score() -> StageReport:
    ada = Entity(key="ada", type="Person")
    return evaluate_calibration(
        [
            CalibrationLabel(
                fact=Fact(subject=ada, predicate="p", object_value=i, confidence=i / 10), true=i > 4
            )
            for i in range(10)
        ]
    )


def test_the_page_is_well_formed_self_contained_and_has_every_section(
    triples_report: EvalReport,
) -> None:
    texts = {p.name: p.read_text() for p in (TRIPLES / "texts").iterdir()}
    html = render_html(triples_report, documents=texts)
    parsed = checked(html)
    assert parsed.outside == [] and "<script" not in html and "@import" not in html
    assert "default-src 'none'" in html  # nothing may load, whatever a report's text holds
    for section in ("notes", "headline", "predicates", "diagnosis", "fixes", "cost"):
        assert f'<section id="{section}"' in html
    assert parsed.counts["svg"] >= 4 and parsed.counts["mark"] >= 2
    assert "0.800" in html and "F1 is zero for: born_in" in html


def test_report_text_is_escaped(triples_report: EvalReport) -> None:
    hostile = triples_report.model_copy(update={"notes": ['<script>alert(1)</script> & "x"']})
    html = render_html(hostile)
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;" in html


def test_a_page_without_documents_says_the_text_is_missing(triples_report: EvalReport) -> None:
    html = render_html(triples_report)
    assert "no text given for this document" in html and "<mark>" not in html


@pytest.mark.parametrize(
    ("text", "fact", "expected"),
    [
        (
            "Maren Oksdal was born in Lindby.",
            "maren oksdal · born in · lindby",
            "<mark>Maren Oksdal</mark> was born in <mark>Lindby</mark>.",
        ),
        (
            "It employs about 240 people.",
            "Company:halden · employees · 240",
            "It employs about <mark>240</mark> people.",
        ),
        ("Nothing here.", "ada · born · 1815", None),
        (
            "Bleach: Hell Verse (2010) is directed by Noriyuki Abe.",
            "Bleach : Hell Verse · director · Noriyuki Abe",
            "<mark>Bleach: Hell Verse</mark> (2010) is directed by <mark>Noriyuki Abe</mark>.",
        ),
        (
            "a <b> & Ada\n  Lovelace",
            "ada   lovelace · x · y",
            "a &lt;b&gt; &amp; <mark>Ada Lovelace</mark>",
        ),
    ],
)
def test_snippet_marks_the_ends_in_their_text(text: str, fact: str, expected: str | None) -> None:
    assert snippet(text, fact) == expected


def test_ends_drop_a_type_prefix_but_keep_a_colon_in_a_name() -> None:
    assert ends_of("Person:ada · born · City:london") == ("ada", "london")
    assert ends_of("Star Wars: Episode IV · director · George Lucas") == (
        "Star Wars: Episode IV",
        "George Lucas",
    )


@pytest.mark.parametrize("kind", ["pipeline", "compare", "extract", "score"])
def test_every_report_kind_has_a_notebook_view_with_a_table(
    kind: str, triples_report: EvalReport, tmp_path: Path
) -> None:
    report = {
        "pipeline": lambda: triples_report,
        "compare": lambda: _compare(tmp_path),
        "extract": _stage,
        "score": _score,
    }[kind]()
    html = report._repr_html_()
    parsed = checked(html)
    assert parsed.counts.get("table", 0) >= 1 and parsed.counts.get("td", 0) >= 2
    page = render_html(report)
    assert checked(page).counts["svg"] >= 1


def test_the_notebook_view_leads_with_the_headline_and_the_top_fix(
    triples_report: EvalReport,
) -> None:
    html = triples_report._repr_html_()
    assert "0.800 <span" in html and "top fix: <strong>reextract</strong>" in html
    assert "entity never extracted: 2 (100.0%)" in html


def test_labels_rows_from_a_file_render_too() -> None:
    gold = load_jsonl(TRIPLES / "gold.jsonl", GoldFact)
    html = render_html(evaluate_extraction(gold, [g.fact for g in gold]))
    assert checked(html).counts["svg"] == 1  # the predicates' chart; every F1 is 1


def test_calibration_cards_cost_and_judged_sections(triples_report: EvalReport) -> None:
    from openodke.eval.report.models import CalibrationLine, Cost

    row = triples_report.rows[0].model_copy(
        update={
            "cost": Cost(calls=12, cached=2, prompt_tokens=900, completion_tokens=80, usd=0.0123)
        }
    )
    card = CalibrationLine(
        role="ground",
        model="openai/gpt-4o-mini",
        prompt="ground@3",
        line="UNCALIBRATED",
        meets_bar=False,
    )
    html = render_html(triples_report.model_copy(update={"calibration": [card], "rows": [row]}))
    checked(html)
    assert (
        '<section id="calibration">' in html and "UNCALIBRATED" in html and "below the bar" in html
    )
    assert "$0.0123" in html and "<td class=num>12</td>" in html
