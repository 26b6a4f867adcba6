"""The spec's diagnosis example, verbatim, and the diagnosis table's rendering."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from openodke import Entity, Evidence, Fact
from openodke.eval import GoldFact
from openodke.eval.diagnosis import (
    BUCKETS,
    Bucket,
    Diagnosis,
    DiagnosisExample,
    Offered,
    diagnose,
    diagnosis_view,
    gold_view,
)

SPEC_EXAMPLE = """
from openodke import Entity, Evidence, Fact
from openodke.eval import GoldFact
from openodke.eval.diagnosis import Offered, diagnose, gold_view
from openodke.eval.diagnosis.fixes import fixes


def said(subject, predicate, obj, doc="d1"):
    return Fact(
        subject=Entity(key=subject, type="Person"),
        predicate=predicate,
        object_entity=Entity(key=obj, type="Thing"),
        evidence=(Evidence(doc_id=doc),),
    )


gold = [
    GoldFact(doc_id="d1", fact=said("ada", p, o))
    for p, o in [
        ("born_in", "london"),
        ("employer", "acme"),
        ("award", "medal"),
        ("award", "prize"),
    ]
]
view = gold_view(gold, [said("ada", "born_in", "london"), said("ada", "founded", "acme")])
found = diagnose(view, offered=Offered(by_type={"Person": ("born_in", "employer")}))
print({b.bucket: b.count for b in found.buckets if b.count})
# {'never_offered': 2, 'wrong_relation': 1, 'written_other': 1}
best = fixes(found)[0]
print(best.id, round(best.recall.expected, 3), best.recall.basis)
# offer-relations 0.25 2 misses × 50.0% (its recall on the relations it was offered: 1 of 2) / 4 gold
"""


def test_the_spec_example_prints_what_the_spec_shows() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(SPEC_EXAMPLE, "spec-example", "exec"), {"__name__": "spec_example"})
    assert out.getvalue().splitlines() == [
        "{'never_offered': 2, 'wrong_relation': 1, 'written_other': 1}",
        "offer-relations 0.25 2 misses × 50.0% (its recall on the relations it was offered: "
        "1 of 2) / 4 gold",
    ]


def _said(subject: str, predicate: str, obj: str, doc: str = "d1") -> Fact:
    return Fact(
        subject=Entity(key=subject, type="Person"),
        predicate=predicate,
        object_entity=Entity(key=obj, type="Thing"),
        evidence=(Evidence(doc_id=doc),),
    )


def test_diagnosis_view_is_gold_view() -> None:
    assert diagnosis_view is gold_view


def test_rows_follow_the_report_shape_and_are_strict_json() -> None:
    gold = [GoldFact(doc_id="d1", fact=_said("ada", "born_in", "london"))]
    found = diagnose(gold_view(gold, []))
    rows = found.rows()
    assert [r.bucket for r in rows] == list(BUCKETS)
    assert {r.side for r in rows[:12]} == {"recall"} and {r.side for r in rows[12:]} == {
        "precision"
    }
    data = [r.model_dump(mode="json") for r in rows]
    json.dumps(data, allow_nan=False)
    assert set(data[0]) == {"row", "side", "bucket", "label", "count", "share", "examples", "note"}
    assert data[0]["bucket"] == "other_type_or_key" and data[0]["count"] == 0  # always measured
    assert data[1]["count"] is None and data[1]["share"] is None  # no --trace: cannot say
    assert data[1]["note"].startswith("needs --trace")


def _bucket(name: str, label: str, count: int | None, share: float | None, side: str = "recall"):
    return Bucket(bucket=name, side=side, label=label, count=count, share=share)  # type: ignore[arg-type]


def test_render_matches_the_spec_table() -> None:
    """The spec's numbers put into a Diagnosis print the spec's table line for line."""
    spec = [
        ("other_type_or_key", "same fact, other type or key", 0),  # not printed at 0
        ("never_offered", "relation never offered", 363),
        ("refused", "refused by the Validator", None),
        ("wrong_relation", "wrong relation", 4),
        ("inverse", "inverse direction", 0),
        ("surface_form", "surface form (unconfirmed)", 7),
        ("scored_apart", "same triple, scored apart", 6),
        ("cross_sentence", "cross-sentence", 717),
        ("saturation", "output saturation", 260),
        ("linked_other", "pair linked by another true relation", 29),
        ("entity_missing", "entity never extracted", 149),
        ("not_linked", "both seen but not linked", 39),
    ]
    buckets = [_bucket(n, label, c, None if c is None else c / 1574) for n, label, c in spec]
    buckets[1] = buckets[1].model_copy(
        update={
            "examples": (
                DiagnosisExample(
                    doc_id="test_0001",
                    gold="Orlov · educated at · St Petersburg University",
                    why="not offered for Person",
                ),
            )
        }
    )
    buckets += [
        _bucket(n, n, None, None, side="precision")
        for n in ("refused_not_in_gold", "written_supported", "written_other")
    ]
    found = Diagnosis(
        row="pipeline",
        gold=1747,
        hits=173,
        misses=1574,
        false_positives=0,
        buckets=tuple(buckets),
        confirmed=False,
        rates={},
        replays={},
        groups={},
    )
    expected = """\
where it loses facts  (pipeline: 1,574 misses)
                                        misses  share
  relation never offered                363     23.1%
  refused by the Validator              —       —
  wrong relation                        4       0.3%
  inverse direction                     0       0.0%
  surface form (unconfirmed)            7       0.4%
  same triple, scored apart             6       0.4%
  cross-sentence                        717     45.6%
  output saturation                     260     16.5%
  pair linked by another true relation  29      1.8%
  entity never extracted                149     9.5%
  both seen but not linked              39      2.5%

  e.g. relation never offered: test_0001: Orlov · educated at · St Petersburg University (not offered for Person)"""
    assert found.render().startswith(expected + "\n")


@pytest.mark.parametrize("examples", [0, 1, 3])
def test_examples_are_capped_and_spread_over_documents(examples: int) -> None:
    gold = [
        GoldFact(doc_id=doc, fact=_said("ada", "award", obj, doc))
        for doc, obj in [("d1", "a"), ("d1", "b"), ("d2", "c"), ("d3", "d")]
    ]
    found = diagnose(
        gold_view(gold, []), offered=Offered(by_type={"Person": ()}), examples=examples
    )
    shown = found.bucket("never_offered").examples
    assert len(shown) == examples
    # One per document first: d1, d2, d3 before d1's second miss.
    assert [e.doc_id for e in shown] == ["d1", "d2", "d3"][:examples]
    assert all(e.why == "not offered for Person" for e in shown)
