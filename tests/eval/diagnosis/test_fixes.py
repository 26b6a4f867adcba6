"""Fixes: the arithmetic against hand-worked cases (rate-based and exact), ranking, rendering."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke.errors import InputError
from openodke.eval.diagnosis import RECALL_BUCKETS, Bucket, Diagnosis, Group, Rate, Replay
from openodke.eval.diagnosis.fixes import (
    FIXES,
    Fix,
    FixRecall,
    fixes,
    reference_rates,
    render_fixes,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "reports"
PRECISION = ("refused_not_in_gold", "written_supported", "written_other")


def diagnosis(
    counts: dict[str, int | None],
    *,
    gold: int,
    hits: int,
    rates: dict[str, tuple[int, int] | None] | None = None,
    replays: dict[str, Replay | None] | None = None,
    groups: dict[str, tuple[Group, ...]] | None = None,
    confirmed: bool = False,
    knobs: tuple[str, ...] = (),
) -> Diagnosis:
    """A Diagnosis with the given bucket counts (others 0)."""
    buckets = [
        Bucket(bucket=b, side="recall", label=b, count=counts.get(b, 0), share=None)
        for b in RECALL_BUCKETS
    ] + [Bucket(bucket=b, side="precision", label=b, count=0, share=None) for b in PRECISION]
    given = {"row": (hits, gold), **(rates or {})}
    return Diagnosis(
        row="pipeline",
        gold=gold,
        hits=hits,
        misses=sum(c for c in counts.values() if c),
        false_positives=0,
        buckets=tuple(buckets),
        confirmed=confirmed,
        rates={k: Rate(hits=v[0], of=v[1]) if v else None for k, v in given.items()},
        replays=replays or {"audit": None, "inverses": None},
        groups=groups or {},
        offered_knobs=knobs,
    )


def by_id(found: list[Fix]) -> dict[str, Fix]:
    return {f.id: f for f in found}


def test_rate_based_gain_by_hand() -> None:
    found = by_id(
        fixes(
            diagnosis(
                {"never_offered": 363, "refused": None},
                gold=1747,
                hits=173,
                rates={"offered": (172, 1383)},
            )
        )
    )
    fix = found["offer-relations"]
    # 363 × (172 / 1383) / 1747 = 62,436 / 1,383 / 1,747 = 0.025841...
    assert fix.recall.expected == pytest.approx(363 * 172 / 1383 / 1747)
    assert round(fix.recall.expected * 100, 1) == 2.6
    assert fix.recall.ceiling == pytest.approx(363 / 1747)  # 0.2078: +20.8
    assert fix.recall.exact is False and fix.recall.precision is None
    assert fix.recall.basis == (
        "363 misses × 12.4% (its recall on the relations it was offered: 172 of 1,383) / 1,747 gold"
    )
    assert "audit-refusals" not in found  # its bucket cannot be measured


def test_the_rows_recall_is_the_default_rate() -> None:
    found = by_id(
        fixes(
            diagnosis(
                {"wrong_relation": 10, "entity_missing": 4, "not_linked": 6}, gold=200, hits=50
            )
        )
    )
    # 10 × 25% / 200 = 0.0125; reextract takes both of its buckets: 10 × 25% / 200.
    assert found["relation-descriptions"].recall.expected == pytest.approx(0.0125)
    assert found["reextract"].misses == 10
    assert found["reextract"].recall.expected == pytest.approx(0.0125)
    assert found["reextract"].buckets == ["entity_missing", "not_linked"]
    assert found["reextract"].recall.basis == (
        "10 misses × 25.0% (the row's recall: 50 of 200) / 200 gold"
    )


def test_an_undefined_rate_gives_no_expected_gain() -> None:
    fix = by_id(
        fixes(diagnosis({"cross_sentence": 5}, gold=10, hits=0, rates={"same_sentence": (0, 0)}))
    )["wider-context"]
    assert fix.recall.expected is None and fix.recall.ceiling == 0.5
    assert "5 misses × — (its recall on facts within one sentence: 0 of 0)" in fix.recall.basis


def test_exact_replays_give_recall_and_precision_changes() -> None:
    audit = Replay(
        added=4,
        found=3,
        recall_before=0.5,
        recall_after=0.53,
        precision_before=0.8,
        precision_after=0.78,
    )
    found = by_id(
        fixes(
            diagnosis(
                {"refused": 3, "inverse": 7},
                gold=100,
                hits=50,
                replays={"audit": audit, "inverses": None},
            ),
            reference={
                "fixes": [
                    {"id": "audit-refusals", "recall": {"exact": False, "basis": "x (y: 1 of 2)"}}
                ]
            },
        )
    )
    fix = found["audit-refusals"]
    assert fix.recall.expected == pytest.approx(0.03)
    assert fix.recall.precision == pytest.approx(-0.02)
    assert fix.recall.exact is True and fix.recall.reference is None  # exact: no reference
    assert fix.recall.basis == (
        "exact: accepting the 4 refused facts and rescoring finds 3 gold facts; "
        "precision 0.800 → 0.780"
    )
    inverses = found["inverses"]
    assert inverses.recall.expected is None and inverses.recall.ceiling == 0.07
    assert inverses.recall.basis.startswith("no inverse pairs known")
    # Known gains rank before unknown ones.
    assert fix.rank < inverses.rank


@pytest.mark.parametrize(
    ("confirmed", "expected", "exact", "basis"),
    [
        (False, 0.0, False, "0 until a judge confirms: 8 near misses unconfirmed (--lenient)"),
        (True, 0.08, True, "8 confirmed by a judge / 100 gold"),
    ],
)
def test_names_gain_waits_for_a_judge(confirmed, expected, exact, basis) -> None:
    fix = by_id(fixes(diagnosis({"surface_form": 8}, gold=100, hits=40, confirmed=confirmed)))[
        "normalise-names"
    ]
    assert (fix.recall.expected, fix.recall.exact, fix.recall.basis) == (expected, exact, basis)
    assert fix.recall.ceiling == 0.08


def test_ranking_by_gain_then_ceiling_then_the_tables_order() -> None:
    found = fixes(
        diagnosis({"wrong_relation": 4, "scored_apart": 4, "linked_other": 8}, gold=100, hits=50)
    )
    ranked = [f.id for f in found if f.misses]
    # every-relation: 8 × 50% = 4 points; the other two tie on 2 and on ceiling: table order.
    assert ranked == ["every-relation", "relation-descriptions", "check-details"]
    assert [f.rank for f in found] == list(range(1, len(found) + 1))
    assert all(not f.misses for f in found[3:])  # no misses: ranked last, kept for reference


def test_reference_rates_from_a_report_file(tmp_path: Path) -> None:
    other = fixes(
        diagnosis({"never_offered": 10}, gold=100, hits=30, rates={"offered": (351, 1000)})
    )
    path = tmp_path / "other.json"
    # A whole report (the shipped 1.4 golden file) holding these fixes: --reference reads a
    # report as every report is read, schema checked (a bare {"fixes": ...} file is refused).
    report = json.loads((FIXTURES / "report-1.4.json").read_text("utf-8"))
    report["fixes"] = [f.model_dump(mode="json") for f in other]
    path.write_text(json.dumps(report), "utf-8")
    rates = reference_rates(path)
    assert rates["offer-relations"] == pytest.approx(0.351)
    assert rates["reextract"] == pytest.approx(0.3)  # the row's recall, 30 of 100
    assert "normalise-names" not in rates  # unconfirmed: no rate
    mine = by_id(
        fixes(
            diagnosis({"never_offered": 363}, gold=1747, hits=10, rates={"offered": (1, 2)}),
            reference=path,
        )
    )
    # 363 × 0.351 / 1747 = 0.07293: the spec's +7.3.
    assert mine["offer-relations"].recall.reference == pytest.approx(363 * 0.351 / 1747)
    assert reference_rates(other) == rates


def test_a_reference_that_fails_check_report_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"schema_version": "1.4", "fixes": []}), "utf-8")
    with pytest.raises(
        InputError, match=r"not a valid eval report \(--reference\): title: missing"
    ):
        reference_rates(path)


def test_render_matches_the_spec_table() -> None:
    found = fixes(
        diagnosis(
            {"never_offered": 363, "cross_sentence": 717, "saturation": 260, "refused": None},
            gold=1747,
            hits=173,
            rates={
                "offered": (172, 1383),
                "same_sentence": (290, 1750),  # 717 × 16.57% / 1747 = 6.80 points
                "short_documents": (121, 1000),  # 260 × 12.1% / 1747 = 1.80 points
            },
            groups={"never_offered": (Group(name="Misc · producer", count=35),)},
            knobs=("stages.extractor.snippet_limit",),
        ),
        reference=[
            {"id": "offer-relations", "recall": {"exact": False, "basis": "(a: 351 of 1,000)"}},
            {"id": "wider-context", "recall": {"exact": False, "basis": "(a: 926 of 10,000)"}},
            {"id": "smaller-chunks", "recall": {"exact": False, "basis": "(a: 161 of 1,000)"}},
        ],
    )
    lines = render_fixes(found).splitlines()
    assert lines[:5] == [
        "what should change  (pipeline: ranked by expected recall gain; gains overlap)",
        "     fix                    expected  ceiling  reference  knob",
        "  1  wider-context          +6.8      +41.0    +3.8       stages.chunker",
        "  2  offer-relations        +2.6      +20.8    +7.3       stages.extractor.snippet_limit",
        "  3  smaller-chunks         +1.8      +14.9    +2.4       "
        "stages.chunker; models.extract.max_tokens",
    ]
    at = lines.index(
        "  2. Offer every relation the subject's type can take: raise the snippet limit, or name "
        "the types. 363 misses × 12.4% (its recall on the relations it was offered: 172 of "
        "1,383) / 1,747 gold"
    )
    assert lines[at + 1] == "     - Misc · producer: 35"


def test_offered_knobs_name_the_types_when_a_type_was_left_out() -> None:
    fix = by_id(
        fixes(
            diagnosis(
                {"never_offered": 3},
                gold=10,
                hits=1,
                rates={"offered": (1, 5)},
                knobs=("stages.extractor.snippet_limit", "stages.extractor.types"),
            )
        )
    )["offer-relations"]
    assert fix.knob == "stages.extractor.snippet_limit; stages.extractor.types"


def test_render_with_nothing_to_fix() -> None:
    assert render_fixes(fixes(diagnosis({}, gold=5, hits=5))).splitlines()[1] == (
        "  nothing: no miss was put down to a fix"
    )


def test_every_bucket_maps_to_one_fix() -> None:
    mapped = [b for spec in FIXES for b in spec.buckets]
    assert sorted(mapped) == sorted(RECALL_BUCKETS) and len(mapped) == len(set(mapped))
    assert [s.id for s in FIXES] == [
        "offer-relations",
        "audit-refusals",
        "relation-descriptions",
        "inverses",
        "normalise-names",
        "check-details",
        "wider-context",
        "smaller-chunks",
        "every-relation",
        "reextract",
        "align-identity",
    ]


def test_fix_has_the_reports_shape() -> None:
    fix = Fix(
        id="reextract",
        rank=1,
        buckets=["entity_missing"],
        misses=1,
        action="a",
        knob="k",
        recall=FixRecall(expected=0.1, ceiling=0.2, exact=False, basis="b"),
    )
    assert set(fix.model_dump()) == {
        "id",
        "rank",
        "buckets",
        "misses",
        "action",
        "knob",
        "recall",
        "detail",
        "record",
    }
    assert set(fix.model_dump()["recall"]) == {
        "expected",
        "ceiling",
        "exact",
        "basis",
        "reference",
        "precision",
    }
