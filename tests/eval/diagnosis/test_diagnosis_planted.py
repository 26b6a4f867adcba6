"""A planted corpus: each miss is built to fit exactly one bucket, each false positive one class.

Five documents. The long ones (L1: 100 words, L2: 200) hold most gold facts, the short ones (S1-S3:
10, 12 and 14 words) one each, while every document gets exactly six predictions: extractions are
flat against length (slope 0) and gold is not, so output is saturated and documents over the median
(14 words) are long. Texts are filler except where a bucket needs names.
"""

from __future__ import annotations

from typing import Any

import pytest

from openodke import Entity, Evidence, Fact, GroundingVerdict, Polarity
from openodke.eval import GoldFact
from openodke.eval.diagnosis import Offered, diagnose, gold_view

PERSON_RELATIONS = ("employer", "founded", "parent", "child", "award", "lives_in", "pad")
OFFERED = Offered(by_type={"Person": PERSON_RELATIONS, "Thing": ("pad",)})


def fact(
    s: str,
    p: str,
    o: str,
    doc: str,
    *,
    s_type: str = "Person",
    verdict: GroundingVerdict = GroundingVerdict.unchecked,
    polarity: Polarity = Polarity.asserted,
) -> Fact:
    return Fact(
        subject=Entity(key=s, type=s_type, label=s.title()),
        predicate=p,
        object_entity=Entity(key=o, type="Thing", label=o.title()),
        evidence=(Evidence(doc_id=doc),),
        verdict=verdict,
        polarity=polarity,
    )


def filler(words: int, prefix: str = "") -> str:
    head = prefix.split()
    return " ".join(head + ["lorem"] * (words - len(head)))


def pads(doc: str, n: int, *, supported: int = 0) -> list[Fact]:
    return [
        fact(
            f"pad-{doc}-{k}",
            "pad",
            f"padobj-{doc}-{k}",
            doc,
            s_type="Thing",
            verdict=GroundingVerdict.supported if k < supported else GroundingVerdict.unchecked,
        )
        for k in range(n)
    ]


def planted() -> dict[str, Any]:
    gold: list[tuple[str, str, str, str]] = [
        # L1, long: one miss for each of buckets 0-5, 7 and 9, plus the hit bucket 9 needs.
        ("ann", "secret", "x1", "L1"),  # 1 never offered
        ("ann", "employer", "acme", "L1"),  # 2 refused
        ("bob", "employer", "beta", "L1"),  # 3 wrong relation
        ("cal", "parent", "dan", "L1"),  # 4 inverse
        ("eve", "employer", "acme corporation", "L1"),  # 5 surface form
        ("fay", "award", "medal", "L1"),  # 0 same fact, other type (written typed Robot)
        ("cara", "lives_in", "oslo", "L1"),  # 7 cross-sentence (the text)
        ("gil", "employer", "gamma", "L1"),  # 9 linked by another true relation
        ("gil", "founded", "gamma", "L1"),  # (hit)
        # L2, long: the saturation miss, and never-offered misses that make gold grow.
        ("hal", "employer", "delta", "L2"),  # 8 saturation
        ("lee", "award", "cup", "L2"),  # 6 scored apart (written denied)
        ("max", "employer", "omicron", "L2"),  # 0 same fact, other key (written p:max)
        *[(f"h{k}", "secret", f"y{k}", "L2") for k in range(7)],  # 1 never offered
        ("ivy", "employer", "epsilon", "S1"),  # 10 entity never extracted
        ("jon", "employer", "zeta", "S2"),  # 11 both seen, not linked
        ("kim", "employer", "eta", "S3"),  # (hit)
    ]
    predicted = [
        fact("bob", "founded", "beta", "L1"),
        fact("dan", "child", "cal", "L1"),
        fact("eve", "employer", "the acme corporation", "L1"),
        fact("fay", "award", "medal", "L1", s_type="Robot"),
        fact("gil", "founded", "gamma", "L1"),
        *pads("L1", 1, supported=1),
        fact("lee", "award", "cup", "L2", polarity=Polarity.denied),
        fact("p:max", "employer", "omicron", "L2"),
        *pads("L2", 4),
        *pads("S1", 6),
        fact("jon", "pad", "p1", "S2"),
        fact("p2", "pad", "zeta", "S2", s_type="Thing"),
        *pads("S2", 4),
        fact("kim", "employer", "eta", "S3"),
        *pads("S3", 5),
    ]
    refused = [
        {"fact": fact("ann", "employer", "acme", "L1").model_dump(), "reason": "contradicted"},
        fact("zed", "employer", "omega", "L1"),  # not in gold: the gate's catch
    ]
    texts = {
        "L1": filler(100, "Cara lives here . Then lorem lorem . Oslo is far ."),
        "L2": filler(200),
        "S1": filler(10),
        "S2": filler(12),
        "S3": filler(14),
    }
    return {
        "gold": [GoldFact(doc_id=d, fact=fact(s, p, o, d)) for s, p, o, d in gold],
        "predicted": predicted,
        "refused": refused,
        "texts": texts,
    }


EXPECTED = {
    "other_type_or_key": 2,  # fay (Robot, not Person) and max (p:max, not max)
    "never_offered": 8,
    "refused": 1,
    "wrong_relation": 1,
    "inverse": 1,
    "surface_form": 1,
    "scored_apart": 1,
    "cross_sentence": 1,
    "saturation": 1,
    "linked_other": 1,
    "entity_missing": 1,
    "not_linked": 1,
    # 30 predictions: 2 hits, 28 false positives; one of them grounded supported.
    "refused_not_in_gold": 1,
    "written_supported": 1,
    "written_other": 27,
}


@pytest.fixture(scope="module")
def found():
    corpus = planted()
    view = gold_view(corpus["gold"], corpus["predicted"])
    return diagnose(
        view, offered=OFFERED, validator=corpus["refused"], texts=corpus["texts"], examples=5
    )


def test_every_count(found) -> None:
    assert {b.bucket: b.count for b in found.buckets} == EXPECTED
    assert (found.gold, found.hits, found.misses, found.false_positives) == (22, 2, 20, 28)


def test_each_planted_miss_is_the_example_of_its_bucket(found) -> None:
    first = {b.bucket: b.examples[0] for b in found.recall_side}
    assert first["refused"].gold == "Ann · employer · Acme" and first["refused"].why == (
        "refused: contradicted"
    )
    assert first["wrong_relation"].nearest == "Bob · founded · Beta"
    assert first["inverse"].nearest == "Dan · child · Cal"
    assert first["surface_form"].why == "unconfirmed: written as The Acme Corporation"
    assert first["scored_apart"].why == "polarity denied, not asserted"
    assert first["other_type_or_key"].why == "typed Robot, not Person (--type-map)"
    assert (
        found.bucket("other_type_or_key").examples[1].why
        == "keyed p:max (Person), not max (Person)"
    )
    assert first["cross_sentence"].why == "no sentence names both ends"
    assert first["saturation"].gold == "Hal · employer · Delta"
    assert first["linked_other"].why == "linked as founded"
    assert first["entity_missing"].gold == "Ivy · employer · Epsilon"
    assert first["not_linked"].gold == "Jon · employer · Zeta"


def test_shares_add_up_on_each_side(found) -> None:
    recall = [b.share for b in found.recall_side]
    assert sum(recall) == pytest.approx(1.0)
    assert found.bucket("never_offered").share == pytest.approx(8 / 20)
    precision = [b.share for b in found.precision_side]
    assert sum(precision) == pytest.approx(1.0)
    assert found.bucket("written_other").share == pytest.approx(27 / 29)


def test_saturation_note_gives_both_slopes(found) -> None:
    note = found.bucket("saturation").note
    # Extractions are 6 everywhere: slope 0. Gold slope by hand: log-log OLS of (10, 1), (12, 1),
    # (14, 1), (100, 9), (200, 10) is positive (about 0.8), so 0 < half of it: flat.
    assert note.startswith("extractions grow as length^0.00, gold as length^0.")
    assert "output is flat; documents over 14 words (the median) are long" in note


def test_null_buckets_without_their_inputs() -> None:
    corpus = planted()
    found = diagnose(gold_view(corpus["gold"], corpus["predicted"]))
    counts = {b.bucket: b.count for b in found.buckets}
    for name in ("never_offered", "refused", "cross_sentence", "saturation"):
        assert counts[name] is None and found.bucket(name).share is None
    assert counts["refused_not_in_gold"] is None
    # No input, no bucket: each miss still lands once, in the next bucket that fits.
    assert sum(c for c in counts.values() if c is not None) - 28 == found.misses == 20
    # never offered (8), refused, cross-sentence and saturation misses join ivy's.
    assert counts["entity_missing"] == 8 + 1 + 1 + 1 + 1
    assert counts["written_supported"] == 1  # verdicts are there


# A case per precedence rule: a miss that fits two buckets lands in the earlier one.
G = ("ann", "employer", "acme")


def _case(preds, *, offered=None, refused=None, texts=None, gold=(G,)):
    gold_rows = [GoldFact(doc_id="d", fact=fact(*g, "d")) for g in gold]
    view = gold_view(gold_rows, [fact(*p, "d", **kw) for *p, kw in preds])
    found = diagnose(view, offered=offered, validator=refused, texts=texts)
    miss = [b.bucket for b in found.recall_side if b.count]
    return miss


PRECEDENCE = [
    pytest.param(
        [("ann", "employer", "acme", {"s_type": "Robot"})],
        {"offered": Offered(by_type={}), "refused": [fact(*G, "d")]},
        "other_type_or_key",
        id="other_type_or_key-over-never_offered-and-refused",
    ),
    pytest.param(
        [("Person:ann", "employer", "acme", {"s_type": "Agent"}), ("ann", "founded", "acme", {})],
        {},
        "other_type_or_key",
        id="type-and-key-over-wrong_relation",
    ),
    pytest.param(
        [("ann", "founded", "acme", {})],
        {"offered": Offered(by_type={"Person": ("founded",)})},
        "never_offered",
        id="never_offered-over-wrong_relation",
    ),
    pytest.param(
        [("ann", "founded", "acme", {})],
        {"refused": [fact(*G, "d")]},
        "refused",
        id="refused-over-wrong_relation",
    ),
    pytest.param(
        [("ann", "founded", "acme", {}), ("acme", "owner", "ann", {})],
        {},
        "wrong_relation",
        id="wrong_relation-over-inverse",
    ),
    pytest.param(
        [("acme", "owner", "ann", {}), ("ann", "employer", "the acme", {})],
        {},
        "inverse",
        id="inverse-over-surface_form",
    ),
    pytest.param(
        [
            ("ann", "employer", "the acme", {}),
            ("ann", "employer", "acme", {"polarity": Polarity.denied}),
        ],
        {},
        "surface_form",
        id="surface_form-over-scored_apart",
    ),
    pytest.param(
        [("ann", "employer", "acme", {"polarity": Polarity.denied})],
        {"texts": {"d": "Ann left . Acme stayed ."}},
        "scored_apart",
        id="scored_apart-over-cross_sentence",
    ),
    pytest.param(
        [],
        {"texts": {"d": "Ann left . Acme stayed ."}},
        "cross_sentence",
        id="cross_sentence-over-entity_missing",
    ),
    pytest.param(
        [("ann", "pad", "x", {}), ("y", "pad", "acme", {})],
        {"texts": {"d": "Ann left . Acme stayed ."}},
        "cross_sentence",
        id="cross_sentence-over-not_linked",
    ),
    pytest.param(
        [("ann", "founded", "acme", {}), ("ann", "owns", "acme", {})],
        {"gold": (G, ("ann", "owns", "acme"))},
        "wrong_relation",
        id="wrong_relation-over-linked_other",
    ),
    pytest.param(
        [("ann", "founded", "acme", {})],
        {"gold": (G, ("ann", "founded", "acme")), "texts": {"d": "Ann left . Acme stayed ."}},
        "linked_other",
        id="linked_other-when-a-hit-comes-near-even-across-sentences",
    ),
    pytest.param(
        [("ann", "founded", "acme", {})],
        {"offered": Offered(by_type={"Person": ("employer", "founded")})},
        "wrong_relation",
        id="offered-miss-goes-on",
    ),
    pytest.param(
        [("ann", "founded", "acme", {})],
        {"offered": Offered(by_type={})},
        "never_offered",
        id="type-offered-nothing",
    ),
]


@pytest.mark.parametrize(("preds", "inputs", "bucket"), PRECEDENCE)
def test_precedence(preds, inputs, bucket) -> None:
    gold = inputs.pop("gold", (G,))
    assert _case(preds, gold=gold, **inputs) == [bucket]


def _saturated(miss_text: str, preds_in_long: list[tuple[str, str, str]]):
    """A saturated background (as the planted corpus) with one miss G in the long document L."""
    gold = [GoldFact(doc_id="L", fact=fact(*G, "L"))]
    gold += [GoldFact(doc_id="L", fact=fact(f"h{k}", "secret", f"y{k}", "L")) for k in range(8)]
    gold += [GoldFact(doc_id=d, fact=fact("u", "secret", "v", d)) for d in ("S1", "S2")]
    preds = [fact(*p, "L") for p in preds_in_long] + pads("L", 4 - len(preds_in_long))
    preds += pads("S1", 4) + pads("S2", 4)
    texts = {"L": filler(200, miss_text), "S1": filler(10), "S2": filler(20)}
    found = diagnose(
        gold_view(gold, preds),
        offered=Offered(by_type={"Person": ("employer", "pad")}),
        texts=texts,
    )
    assert found.bucket("never_offered").count == 10
    return [b.bucket for b in found.recall_side if b.count and b.bucket != "never_offered"]


@pytest.mark.parametrize(
    ("text", "preds", "bucket"),
    [
        ("Ann left . Acme stayed .", [], "cross_sentence"),  # over saturation
        ("Ann joined Acme .", [], "saturation"),  # over entity_missing
        ("", [("ann", "pad", "x"), ("y", "pad", "acme")], "saturation"),  # over not_linked
        ("", [("ann", "owns", "acme")], "wrong_relation"),  # something came near
    ],
)
def test_saturation_precedence(text, preds, bucket) -> None:
    assert _saturated(text, preds) == [bucket]
