"""The spans check: citation widths per verdict, with no labels."""

from __future__ import annotations

import json
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openodke import Entity, Evidence, Fact, GroundingVerdict, KnowledgeGraph, Span, SpanOrigin
from openodke.errors import InputError
from openodke.eval.stages.spans import evaluate_spans, load_facts, span_width
from openodke.sinks import JsonlSink
from tests.eval import spec_stage_names

ADA = Entity(key="ada", type="Person")


def test_spec_example(monkeypatch, capsys):
    spec_stage_names.provide(monkeypatch)
    from openodke import Entity, Evidence, Fact, GroundingVerdict, Span

    ada = Entity(key="ada", type="Person")  # from the extract example
    # --- spec: spans ---
    from openodke.eval import evaluate_spans

    def cited(predicate, value, width, verdict):
        """One fact whose citation is `width` characters wide."""
        evidence = (Evidence(doc_id="d1", span=Span(doc_id="d1", start=0, end=width)),)
        return Fact(
            subject=ada,
            predicate=predicate,
            object_value=value,
            evidence=evidence,
            verdict=GroundingVerdict(verdict),
        )

    facts = [
        cited("supports_language", "German", 6, "not_found"),  # cited 'German'
        cited("operates_in", "Ireland", 7, "not_found"),  # cited 'Ireland'
        cited("operates_in", "Virginia", 8, "not_found"),
        cited("operates_in", "Singapore", 9, "not_found"),
        cited("uptime_commitment", 99.9, 12, "not_found"),
        cited("performs", "on-call rotation", 46, "supported"),  # cited the clause
        cited("performs", "data residency", 81, "supported"),
    ]
    report = evaluate_spans(facts)

    print(report.notes[0])
    # not_found median 8 chars vs supported 63.5 — citations are too narrow
    assert report.metrics["not_found_rate"] == 5 / 7
    assert report.breakdown["not_found"]["max"] < report.breakdown["supported"]["min"]
    # --- end spec ---
    assert capsys.readouterr().out.splitlines() == [
        "not_found median 8 chars vs supported 63.5 — citations are too narrow"
    ]
    # Quartiles by hand (linear interpolation): not_found 6, 7, 8, 9, 12 → p25 7, median 8,
    # p75 9; supported 46, 81 → p25 46 + 0.25·35 = 54.75, median 63.5.
    assert report.breakdown["not_found"] == {
        "n": 5,
        "no_span": 0,
        "min": 6,
        "p25": 7.0,
        "median": 8.0,
        "p75": 9.0,
        "max": 12,
    }
    assert report.breakdown["supported"]["p25"] == 54.75
    assert report.metrics["median_gap"] == 63.5 - 8


def fact(verdict: str = "unchecked", *evidence: Evidence) -> Fact:
    return Fact(
        subject=ADA,
        predicate="p",
        object_value=1,
        evidence=evidence,
        verdict=GroundingVerdict(verdict),
    )


def ev(start: int, end: int, origin: str = "cited") -> Evidence:
    return Evidence(
        doc_id="d", span=Span(doc_id="d", start=start, end=end), span_origin=SpanOrigin(origin)
    )


@pytest.mark.parametrize(
    ("evidence", "expected"),
    [
        ((), ("none", None)),
        ((Evidence(doc_id="d"),), ("none", None)),
        ((ev(0, 100, "context"),), ("none", None)),  # the whole text: nobody chose it
        ((ev(3, 10, "located"),), ("located", 7)),
        ((ev(3, 10, "located"), ev(0, 4)), ("cited", 4)),  # a cited span wins
    ],
)
def test_span_width_says_who_chose_the_span(evidence, expected):
    assert span_width(fact("unchecked", *evidence)) == expected


def test_located_and_missing_spans_are_counted_apart():
    facts = [
        fact("supported", ev(0, 10)),
        fact("supported", ev(0, 50, "located")),
        fact("not_found"),
        fact("not_found", ev(0, 200, "context")),
    ]
    report = evaluate_spans(facts)
    m = report.metrics
    assert (m["with_span"], m["located"], m["no_span"]) == (1, 1, 2)
    assert m["no_span_rate"] == 0.5 and m["median_width"] == 10.0
    assert report.breakdown["not_found"]["no_span"] == 2
    assert report.breakdown["not_found"]["median"] is None
    assert report.notes[0].startswith("no comparison")
    assert any("span locator" in note for note in report.notes)


def test_overlapping_widths_are_not_called_too_narrow():
    facts = [fact("not_found", ev(0, w)) for w in (10, 40)] + [
        fact("supported", ev(0, w)) for w in (20, 50)
    ]
    note = evaluate_spans(facts).notes[0]
    assert "too narrow" not in note and "overlap" in note


def test_no_facts_give_none_with_a_note():
    report = evaluate_spans([])
    assert report.n == 0 and report.metrics["no_span_rate"] is None
    assert report.metrics["median_width"] is None and report.metrics["median_gap"] is None
    assert report.notes[0] == "no facts: every width is undefined"
    json.dumps(report.model_dump(mode="json"), allow_nan=False)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 500), min_size=1, max_size=30))
def test_quartiles_match_the_standard_librarys_inclusive_method(widths):
    report = evaluate_spans([fact("supported", ev(0, w)) for w in widths])
    row = report.breakdown["supported"]
    if len(widths) > 1:
        # statistics' "inclusive" method is the same linear interpolation (Hyndman & Fan type 7).
        p25, median, p75 = statistics.quantiles(widths, n=4, method="inclusive")
        assert (row["p25"], row["median"], row["p75"]) == pytest.approx((p25, median, p75))
    assert row["median"] == pytest.approx(statistics.median(widths))
    assert (row["min"], row["max"]) == (min(widths), max(widths))


def test_load_facts_reads_a_file_or_the_folder_a_sink_wrote(tmp_path):
    facts = (fact("supported", ev(0, 5)), fact("not_found"))
    JsonlSink(tmp_path / "out").write(KnowledgeGraph(facts=facts))
    assert load_facts(tmp_path / "out") == list(facts)
    assert load_facts(tmp_path / "out" / "facts.jsonl") == list(facts)


def test_load_facts_on_a_folder_without_facts_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no facts.jsonl"):
        load_facts(tmp_path)
