"""The HTML report in a real browser (headless Chromium): the numbers and the charts are in the
DOM, nothing is fetched, no console error, and a screenshot is kept under test-artifacts/html/."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from openodke.eval import CalibrationLabel, evaluate_calibration
from openodke.eval.report.html import write_html
from openodke.types import Entity, Fact
from tests.conftest import ROOT, run_odke

TRIPLES = ROOT / "examples" / "triples"


class Opened:
    """A page loaded from a file, with what it said and asked for while loading."""

    def __init__(self, chromium: object, path: Path, shot: Path) -> None:
        self.page = chromium.new_page(viewport={"width": 1100, "height": 900})  # type: ignore[attr-defined]
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(f"pageerror: {error}"))
        self.page.on("request", lambda request: self.requests.append(request.url))
        started = time.perf_counter()
        self.page.goto(path.resolve().as_uri(), wait_until="load")
        self.seconds = time.perf_counter() - started
        self.page.screenshot(path=str(shot), full_page=True)

    def _console(self, message: object) -> None:
        if message.type == "error":  # type: ignore[attr-defined]
            self.errors.append(message.text)  # type: ignore[attr-defined]

    def texts(self, selector: str) -> list[str]:
        return [e.inner_text() for e in self.page.query_selector_all(selector)]

    def attributes(self, selector: str, name: str) -> list[str | None]:
        return [e.get_attribute(name) for e in self.page.query_selector_all(selector)]

    def close(self, path: Path) -> None:
        self.page.close()
        assert self.errors == [], self.errors
        # self-contained: the page's own file is the only thing loaded
        assert self.requests == [path.resolve().as_uri()], self.requests


def test_the_examples_page_shows_f1_0_800_and_its_charts(
    chromium: object, artifacts: Path, tmp_path: Path
) -> None:
    page_path = tmp_path / "triples.html"
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
        "--html",
        str(page_path),
    )
    assert ran.exit_code == 0, ran.stderr
    opened = Opened(chromium, page_path, artifacts / "examples-triples.png")
    headline = opened.texts("#headline table.headline tbody tr")
    assert len(headline) == 1 and "0.800 [0.714, 0.909]" in headline[0]
    f1 = opened.page.query_selector_all('svg[data-chart="headline"] circle[data-series="f1"]')
    assert [dot.get_attribute("data-value") for dot in f1] == ["0.800"]
    # per predicate, the worst first: born_in (F1 0) leads, 6 predicates drawn
    assert opened.attributes('svg[data-chart="predicates"] circle.mark', "data-value")[0] == "0.000"
    assert len(opened.page.query_selector_all('svg[data-chart="predicates"] circle.mark')) == 6
    assert opened.texts("table.predicates tbody tr td:first-child")[0] == "born_in"
    # where facts are lost: the bar of "entity never extracted" holds both misses
    assert "2" in opened.attributes('svg[data-chart="diagnosis"] rect.bar', "data-value")
    marks = opened.texts("#diagnosis blockquote.context mark")
    assert "Maren Oksdal" in marks and "Lindby" in marks
    assert opened.texts("#fixes ol.fixes li strong")[0] == "reextract"
    assert "F1 is zero for: born_in" in opened.texts("#notes li")
    # every chart has a box the browser laid out
    for chart in opened.page.query_selector_all("svg.chart"):
        box = chart.bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 20
    opened.close(page_path)


def test_a_compare_page_shows_the_difference_and_the_detection_limit(
    chromium: object, artifacts: Path, tmp_path: Path
) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    rows_a = [{"id": f"d{i}", "tp": 5, "fp": 1 + i % 3, "fn": 2} for i in range(40)]
    rows_b = [{"id": f"d{i}", "tp": 6, "fp": 1 + i % 2, "fn": 1} for i in range(40)]
    a.write_text("".join(json.dumps(r) + "\n" for r in rows_a))
    b.write_text("".join(json.dumps(r) + "\n" for r in rows_b))
    page_path = tmp_path / "compare.html"
    ran = run_odke("eval", "compare", str(a), str(b), "--html", str(page_path))
    assert ran.exit_code == 0, ran.stderr
    opened = Opened(chromium, page_path, artifacts / "compare.png")
    verdict = opened.texts("#comparison p.verdict")[0]
    assert verdict.startswith("verdict: better on f1 over 40 documents")
    assert len(opened.page.query_selector_all('svg[data-chart="difference"] rect.limit')) == 1
    assert len(opened.page.query_selector_all('svg[data-chart="difference"] circle.mark')) == 3
    first = opened.texts("table.comparison tbody tr")[0]
    assert first.split("\t")[:2] == ["f1", "decides"]
    opened.close(page_path)


def test_a_score_stage_page_draws_its_reliability_diagram(
    chromium: object, artifacts: Path, tmp_path: Path
) -> None:
    ada = Entity(key="ada", type="Person")
    labels = [
        CalibrationLabel(
            fact=Fact(subject=ada, predicate=f"p{i}", object_value=i, confidence=c),
            true=truth,
        )
        for i, (c, truth) in enumerate(
            [(0.95, True), (0.92, False), (0.85, True), (0.55, False), (0.52, True), (0.15, False)]
        )
    ]
    page_path = tmp_path / "score.html"
    write_html(page_path, evaluate_calibration(labels))
    opened = Opened(chromium, page_path, artifacts / "score-reliability.png")
    dots = opened.attributes('svg[data-chart="reliability"] circle.mark', "data-value")
    assert dots == ["0.000", "0.500", "1.000", "0.500"]  # bins 0.1, 0.5, 0.8, 0.9
    assert "brier" in opened.texts("table.metrics")[0]
    opened.close(page_path)


def _large_set(folder: Path, documents: int) -> tuple[Path, Path, Path]:
    """``documents`` documents, three gold facts each; the predictions find two, get one
    object wrong in every fifth document and add one of their own in every seventh."""
    gold, said, docs = folder / "gold.jsonl", folder / "facts.jsonl", folder / "docs.jsonl"
    with open(gold, "w") as g, open(said, "w") as s, open(docs, "w") as t:
        for d in range(documents):
            doc, person, town, firm = f"d{d}", f"Ann Lee {d}", f"Town {d}", f"Firm {d}"
            text = f"{person} was born in {town}. {person} works for {firm}. {firm} has staff."
            t.write(json.dumps({"id": doc, "text": text}) + "\n")
            facts = [("born_in", town, "City"), ("employer", firm, "Company")]
            facts.append(("staff", "Lee" if d % 2 else "Ann", "Person"))
            for k, (p, o, kind) in enumerate(facts):
                fact = {
                    "subject": {"key": person.lower(), "type": "Person"},
                    "predicate": p,
                    "object_entity": {"key": o.lower(), "type": kind},
                }
                g.write(json.dumps({"doc_id": doc, "fact": fact}) + "\n")
                if k == 2:
                    continue  # never found: the subject is never in a prediction for it
                if k == 1 and d % 5 == 0:
                    fact = {**fact, "object_entity": {"key": "other", "type": kind}}
                s.write(json.dumps({**fact, "evidence": [{"doc_id": doc}]}) + "\n")
            if d % 7 == 0:
                extra = {
                    "subject": {"key": firm.lower(), "type": "Company"},
                    "predicate": "located_in",
                    "object_entity": {"key": town.lower(), "type": "City"},
                    "evidence": [{"doc_id": doc}],
                }
                s.write(json.dumps(extra) + "\n")
    return gold, said, docs


@pytest.mark.parametrize("documents", [10_000])
def test_a_10000_document_page_is_small_and_renders_fast(
    chromium: object, artifacts: Path, tmp_path: Path, documents: int
) -> None:
    gold, said, docs = _large_set(tmp_path, documents)
    page_path = tmp_path / "large.html"
    ran = run_odke(
        "eval",
        "extract",
        "--labels",
        str(gold),
        "--predictions",
        str(said),
        "--documents",
        str(docs),
        "--html",
        str(page_path),
    )
    assert ran.exit_code == 0, ran.stderr
    size = page_path.stat().st_size
    assert size < 5 * 1024 * 1024, size
    opened = Opened(chromium, page_path, artifacts / "large-10000-documents.png")
    assert opened.seconds < 3.0, opened.seconds
    assert f"{documents:,} documents" in opened.texts("header p.sub")[0]
    assert opened.texts("#diagnosis blockquote.context mark")  # examples in their text
    opened.close(page_path)
