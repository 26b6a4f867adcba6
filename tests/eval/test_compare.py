"""compare_items and render_comparison: the verdict, guardrails, notes and the printed table."""

from __future__ import annotations

import json
import re

import pytest

from openodke.errors import InputError
from openodke.eval.compare import Comparison, compare_items, render_comparison
from openodke.eval.engine.items import DocItem, RightWrongItem
from openodke.eval.stats import mcnemar, paired_bootstrap

SPEC_TABLE = """\
compare  accuracy over 300 items  (A: p1.items.jsonl, B: p2.items.jsonl)
  verdict   inconclusive: with this set the smallest change it can detect is 5.1 points
  accuracy  A 0.853  B 0.847  difference -0.7 points, 95% interval -4.3 to +3.0
  limit     5.1 points: the smallest change these 300 items detect (95% confidence, 80% power)
  flips     30 of 300 items changed (10.0%): 14 gained, 16 lost, McNemar exact p = 0.856
  B range   0.807 to 0.887 (95%)"""


def spec_runs() -> tuple[list[RightWrongItem], list[RightWrongItem]]:
    """The page's example: 300 items, 240 right in both, 16 lost, 14 gained, 30 wrong in both."""
    a = [True] * 240 + [True] * 16 + [False] * 14 + [False] * 30
    b = [True] * 240 + [False] * 16 + [True] * 14 + [False] * 30
    return (
        [RightWrongItem(id=f"g{i}", correct=x) for i, x in enumerate(a)],
        [RightWrongItem(id=f"g{i}", correct=x) for i, x in enumerate(b)],
    )


def docs(rows, prefix="d"):
    return [DocItem(id=f"{prefix}{i}", tp=tp, fp=fp, fn=fn) for i, (tp, fp, fn) in enumerate(rows)]


def test_spec_items_table_is_reproduced():
    a, b = spec_runs()
    comparison = compare_items(a, b, a_name="p1.items.jsonl", b_name="p2.items.jsonl")
    assert render_comparison(comparison) == SPEC_TABLE


def test_items_comparison_fields():
    a, b = spec_runs()
    comparison = compare_items(a, b)
    assert (comparison.a, comparison.b, comparison.unit, comparison.metric) == (
        "A",
        "B",
        "item",
        "accuracy",
    )
    assert comparison.guardrails == {}
    assert comparison.mcnemar == mcnemar([r.correct for r in a], [r.correct for r in b])
    assert (comparison.mcnemar.gained, comparison.mcnemar.lost) == (14, 16)
    # The primary is paired_bootstrap over the same rows, same draws.
    assert comparison.primary == paired_bootstrap(a, b)
    assert set(Comparison.model_fields) == {
        "a",
        "b",
        "unit",
        "metric",
        "primary",
        "guardrails",
        "mcnemar",
        "notes",
    }


DOC_A = [(3, 1, 1), (2, 0, 2), (0, 2, 3), (4, 1, 0), (1, 1, 1)] * 20
DOC_B = [(4, 1, 0), (2, 1, 2), (1, 1, 2), (4, 0, 0), (1, 1, 1)] * 20


@pytest.mark.parametrize(
    ("metric", "primary", "guardrails"),
    [
        (None, "f1", ["precision", "recall"]),
        ("f1", "f1", ["precision", "recall"]),
        ("precision", "precision", ["recall", "f1"]),
        ("recall", "recall", ["precision", "f1"]),
    ],
)
def test_document_comparison_decides_on_one_metric(metric, primary, guardrails):
    comparison = compare_items(docs(DOC_A), docs(DOC_B), metric=metric)
    assert (comparison.unit, comparison.metric, comparison.mcnemar) == ("document", primary, None)
    assert list(comparison.guardrails) == guardrails
    # Each metric's Paired is what paired_bootstrap gives for it: one set of draws for all.
    assert comparison.primary == paired_bootstrap(docs(DOC_A), docs(DOC_B), metric=primary)
    for name, paired in comparison.guardrails.items():
        assert paired == paired_bootstrap(docs(DOC_A), docs(DOC_B), metric=name)


def test_document_table_has_guardrail_lines_and_no_flips_line():
    comparison = compare_items(docs(DOC_A), docs(DOC_B), a_name="base.jsonl", b_name="head.jsonl")
    text = render_comparison(comparison)
    lines = text.splitlines()
    assert lines[0] == "compare  f1 over 100 documents  (A: base.jsonl, B: head.jsonl)"
    assert lines[1].startswith("  verdict    better: the whole 95% interval of B − A is above zero")
    number = r"[+-]\d+\.\d"
    metric_line = rf"A \d\.\d{{3}}  B \d\.\d{{3}}  difference {number} points, 95% interval {number} to {number}"
    assert re.fullmatch(rf"  f1         {metric_line}", lines[2])
    assert re.fullmatch(
        r"  limit      \d+\.\d points: the smallest change these 100 documents detect "
        r"\(95% confidence, 80% power\)",
        lines[3],
    )
    assert re.fullmatch(
        rf"  precision  {metric_line}  \(guardrail: (better|worse|inconclusive)\)", lines[4]
    )
    assert re.fullmatch(
        rf"  recall     {metric_line}  \(guardrail: (better|worse|inconclusive)\)", lines[5]
    )
    assert re.fullmatch(r"  B range    \d\.\d{3} to \d\.\d{3} \(95%\)", lines[6])
    assert "flips" not in text and "McNemar" not in text


def test_ids_are_matched_not_positions():
    a, b = docs(DOC_A), docs(DOC_B)
    assert compare_items(a, list(reversed(b))) == compare_items(a, b)


@pytest.mark.parametrize(
    ("a", "b", "path", "fragment"),
    [
        (
            docs([(1, 0, 0), (1, 0, 0)]),
            docs([(1, 0, 0)]),
            "b.jsonl",
            "id 'd1' of a.jsonl is missing",
        ),
        (
            docs([(1, 0, 0)]),
            docs([(1, 0, 0), (1, 0, 0)]),
            "a.jsonl",
            "id 'd1' of b.jsonl is missing",
        ),
        (docs([(1, 0, 0)]), [RightWrongItem(id="d0", correct=True)], "b.jsonl", "document rows"),
    ],
)
def test_files_that_cannot_be_compared(a, b, path, fragment):
    with pytest.raises(InputError) as raised:
        compare_items(a, b, a_name="a.jsonl", b_name="b.jsonl")
    assert str(raised.value).startswith(f"{path}: ")
    assert fragment in str(raised.value)
    assert raised.value.exit_code == 2


@pytest.mark.parametrize(
    ("rows", "metric"),
    [
        (docs([(1, 0, 0)]), "accuracy"),
        (docs([(1, 0, 0)]), "F1"),
        ([RightWrongItem(id="g", correct=True)], "f1"),
    ],
)
def test_a_metric_the_rows_do_not_have_is_an_input_error(rows, metric):
    with pytest.raises(InputError, match="metric"):
        compare_items(rows, rows, metric=metric)


def test_identical_runs_note_that_nothing_flipped():
    a, _ = spec_runs()
    comparison = compare_items(a, a)
    assert comparison.primary.verdict == "inconclusive"
    assert any("nothing flipped" in note for note in comparison.notes)
    assert "  note      A and B agree on every item" in render_comparison(comparison)


def test_mcnemar_disagreeing_with_the_interval_is_explained():
    # Four items all fixed, none lost: the interval clears zero but p = 0.125.
    a = [RightWrongItem(id=f"g{i}", correct=i < 30) for i in range(40)]
    b = [RightWrongItem(id=f"g{i}", correct=i < 34) for i in range(40)]
    comparison = compare_items(a, b)
    assert comparison.primary.verdict == "inconclusive"
    verdict_line = render_comparison(comparison).splitlines()[1]
    assert verdict_line.startswith(
        "  verdict   inconclusive: the interval is clear of zero but McNemar exact p = 0.125 is not below 0.05"
    )


def test_undefined_metrics_render_as_dashes_and_stay_strict_json():
    a = docs([(0, 0, 2), (0, 0, 1), (0, 0, 1)])  # A predicted nothing
    b = docs([(1, 0, 1), (0, 1, 1), (0, 0, 1)])
    comparison = compare_items(a, b, metric="precision")
    text = render_comparison(comparison)
    assert "precision  A —  B 0.500  difference — points, 95% interval —" in text
    assert any("precision is undefined for A (no predictions)" in note for note in comparison.notes)
    json.dumps(comparison.model_dump(mode="json"), allow_nan=False)


def test_draws_with_an_undefined_metric_are_noted():
    a = docs([(0, 0, 1)] * 5 + [(1, 0, 0)])  # precision defined only in draws holding d5
    b = docs([(0, 0, 1)] * 5 + [(1, 1, 0)])
    comparison = compare_items(a, b, metric="precision", resamples=500)
    assert any(
        re.fullmatch(r"precision was undefined \(no predictions\) in \d+ of 500 draws.*", n)
        for n in comparison.notes
    )


def test_a_worse_guardrail_is_noted():
    # Recall rises a lot, precision falls a lot: f1 decides, the precision drop gets a note.
    a = docs([(2, 0, 4)] * 200)
    b = docs([(4, 3, 2)] * 100 + [(3, 3, 3)] * 100)
    comparison = compare_items(a, b)
    assert comparison.guardrails["precision"].verdict == "worse"
    assert any(note.startswith("guardrail precision is worse") for note in comparison.notes)


@pytest.mark.parametrize(
    ("a", "b", "note"),
    [
        (docs(DOC_A[:9]), docs(DOC_B[:9]), "only 9 documents: too few"),
        (docs(DOC_A[:10]), docs(DOC_B[:10]), None),
        # 40 documents, but only 6 hold a fact in A or B: empty ones add nothing to any sum.
        (
            docs(DOC_A[:5] + [(0, 0, 0)] * 35),
            docs(DOC_B[:5] + [(0, 0, 0)] * 34 + [(0, 1, 0)]),
            "only 6 of 40 documents hold a gold or predicted fact: too few",
        ),
        (
            [RightWrongItem(id=f"g{i}", correct=i % 2 == 0) for i in range(5)],
            [RightWrongItem(id=f"g{i}", correct=i % 3 == 0) for i in range(5)],
            "only 5 items: too few",
        ),
    ],
)
def test_a_set_under_ten_informative_units_is_noted(a, b, note):
    comparison = compare_items(a, b)
    small = [text for text in comparison.notes if text.startswith("only ")]
    if note is None:
        assert small == []
    else:
        assert len(small) == 1 and small[0].startswith(note)
        assert small[0].endswith("read the ranges as rough")
        assert f"note{' ' * 6 if note.endswith('items: too few') else ' ' * 7}{note}" in (
            render_comparison(comparison)
        )


def test_document_ranges_are_expanded_bca_unless_percentile_is_asked():
    a, b = docs(DOC_A[:30]), docs(DOC_B[:30])
    default = compare_items(a, b)
    assert default == compare_items(a, b, method="expanded-bca")
    percentile = compare_items(a, b, method="percentile")
    assert percentile.primary == paired_bootstrap(a, b, method="percentile")
    # Same draws, another reading: the value and the detection limit agree, the ends do not.
    assert percentile.primary.difference == default.primary.difference
    assert percentile.primary.detection_limit == default.primary.detection_limit
    assert percentile.primary.interval != default.primary.interval


def test_item_ranges_stay_percentile_by_default():
    # The page prints the percentile ends (SPEC_TABLE); expanded BCa is there when asked.
    a, b = spec_runs()
    assert compare_items(a, b) == compare_items(a, b, method="percentile")
    assert compare_items(a, b, method="expanded-bca").primary.interval != (
        compare_items(a, b).primary.interval
    )


def test_a_concentrated_document_set_says_so_and_doubts_its_limit():
    # 40 documents: one holds 60 gold facts, the others 1 each (found by A and B alike, with
    # B finding 10 more in the big one). Kish over both runs' 2tp + fp + fn is far under 30.
    rows_a = [(40, 0, 20)] + [(1, 0, 0)] * 39
    rows_b = [(50, 0, 10)] + [(1, 0, 0)] * 39
    result = compare_items(docs(rows_a), docs(rows_b))
    concentrated = [n for n in result.notes if n.startswith("the facts sit in few documents")]
    assert len(concentrated) == 1 and "effective documents of 40" in concentrated[0]
    assert any("58–75%" in note for note in result.notes)
    # Documents of similar sizes: neither note.
    even = compare_items(docs([(3, 1, 1)] * 40), docs([(4, 1, 0)] * 20 + [(3, 1, 1)] * 20))
    assert not any("effective documents" in n or "58–75%" in n for n in even.notes)
