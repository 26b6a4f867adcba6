"""Near misses: one kind each, with tp/fp/fn and the kind's count worked out by hand."""

from __future__ import annotations

import pytest

from openodke import Entity, Evidence, Fact
from openodke.eval import GoldFact
from openodke.eval.engine.near import KINDS
from openodke.eval.stages.extract import score_facts
from openodke.eval.stages.first_warnings import first_warnings
from openodke.types import Polarity


def fact(
    s: str,
    p: str,
    o: str,
    doc: str | None = "d1",
    *,
    s_type: str = "Person",
    o_type: str = "Company",
    polarity: Polarity = Polarity.asserted,
) -> Fact:
    return Fact(
        subject=Entity(key=s, type=s_type),
        predicate=p,
        object_entity=Entity(key=o, type=o_type),
        evidence=() if doc is None else (Evidence(doc_id=doc),),
        polarity=polarity,
    )


GOLD = [
    GoldFact(doc_id="d1", fact=fact("ada", "works_at", "acme")),
    GoldFact(doc_id="d1", fact=fact("bob", "works_at", "beta")),
    GoldFact(doc_id="Doc2", fact=fact("cy", "works_at", "gamma", "Doc2")),
]

# Each case: predictions, then (tp, fp, fn) and the near misses per kind, by hand. Every
# prediction below that is not a hit is one false positive; each gold row not hit is one miss.
CASES = [
    pytest.param(
        [fact("ada", "works_at", "acme", o_type="Organization"), fact("bob", "works_at", "beta")],
        (1, 1, 2),  # bob hits; ada's Organization is not Company; cy is not predicted
        {"type": 1},
        id="type-of-the-object",
    ),
    pytest.param(
        [fact("Person:ada", "works_at", "acme", s_type="Agent")],
        (0, 1, 3),
        {"type": 1},  # bare names agree, types differ: a type miss, not a key one
        id="type-and-key-is-type",
    ),
    pytest.param(
        [fact("ada", "works_at", "c:acme"), fact("x:bob", "works_at", "beta")],
        (0, 2, 3),
        {"key": 2},
        id="key-with-another-prefix",
    ),
    pytest.param(
        [fact("ADA ", "works_at", "Company:Acme")],
        (1, 0, 2),  # case, whitespace and an own-type prefix are identity already: a hit
        {},
        id="own-type-prefix-is-a-hit",
    ),
    pytest.param(
        [fact("ada", "Works_At", "acme"), fact("bob", "works at", "beta")],
        (2, 0, 1),
        {},  # matching compares predicates in lookup form: hits, not near misses
        id="predicate-case-and-underscores-match",
    ),
    pytest.param(
        [fact("ada", "worksAt", "acme"), fact("bob", "WORKS-AT", "beta")],
        (0, 2, 3),
        {"predicate": 2},
        id="predicate-spelling",
    ),
    pytest.param(
        [fact("ada", "employer", "acme")],
        (0, 1, 3),
        {},  # another predicate altogether: wrong relation, no near miss
        id="other-predicate-is-not-near",
    ),
    pytest.param(
        [fact("ada", "employer", "acme", o_type="Award")],
        (0, 1, 3),
        {},  # another predicate and another type: still no near miss (the Vicuna case)
        id="other-predicate-and-type-is-not-near",
    ),
    pytest.param(
        [fact("cy", "works_at", "gamma", "doc2 "), fact("cy", "works_at", "gamma", "doc3")],
        (0, 0, 3),  # both cite unlabelled documents: unscored, no false positive
        {"document": 1},
        id="document-id-in-another-form",
    ),
    pytest.param(
        [fact("cy", "works_at", "gamma", "DOC2"), fact("cy", "works_at", "gamma", "doc3")],
        (1, 0, 2),  # an id in another letter case names the document (issue 17)
        {},
        id="document-id-in-another-case-joins",
    ),
    pytest.param(
        [fact("ada", "works_at", "acme", polarity=Polarity.denied)],
        (0, 1, 3),
        {},  # polarity is part of the fact
        id="polarity-is-not-near",
    ),
    pytest.param(
        [fact("ada", "works_at", "acme", None, o_type="Organization")],
        (0, 1, 3),
        {"type": 1},  # a prediction citing no document stands for any
        id="uncited-prediction",
    ),
    pytest.param(
        [
            fact("ada", "works_at", "acme", o_type="Organization"),
            fact("ada", "works_at", "acme", o_type="Firm"),
        ],
        (0, 2, 3),
        {"type": 1},  # one gold row, one near miss: the second prediction is left over
        id="one-to-one",
    ),
]


@pytest.mark.parametrize(("predicted", "counts", "kinds"), CASES)
def test_each_kind_counts_as_worked_out_by_hand(predicted, counts, kinds) -> None:
    score = score_facts(GOLD, predicted)
    c = score.matching.counts()
    assert (c["tp"], c["fp"], c["fn"]) == counts
    assert score.near.counts() == {kind: kinds.get(kind, 0) for kind in KINDS}
    lines = [w for w in first_warnings(score) if w.startswith("near misses")]
    assert [line.split(")")[0].removeprefix("near misses (") for line in lines] == [
        k for k in KINDS if kinds.get(k)
    ]


def test_near_misses_never_change_the_counts() -> None:
    predicted = [fact("ada", "works_at", "acme", o_type="Organization")]
    before = score_facts(GOLD, predicted)
    counts = before.matching.counts()
    assert before.near.total == 1
    assert before.matching.counts() == counts
    assert before.report().metrics["tp"] == 0


def test_the_type_line_builds_the_type_map_from_the_misses() -> None:
    predicted = [
        fact("ada", "works_at", "acme", o_type="Organization"),
        fact("bob", "works_at", "beta", s_type="Human", o_type="Organization"),
    ]
    (line,) = first_warnings(score_facts(GOLD, predicted))
    assert line.startswith("near misses (type): 2 missed gold facts would match a prediction")
    assert "d1: gold ada (Person) · works_at · acme (Company) vs written ada (Person) · " in line
    assert "written bob (Human) · works_at · beta (Organization)" in line  # the second example
    # Organization -> Company twice, Human -> Person once: most common first.
    assert '--type-map FILE, FILE holding {"Organization": "Company", "Human": "Person"}' in line


def test_the_document_line_shows_both_ids() -> None:
    first = first_warnings(score_facts(GOLD, [fact("cy", "works_at", "gamma", "doc2 ")]))
    assert len(first) == 2 and first[0].startswith(
        "1 of 1 predictions citing a document cite none the labels name, even by file stem"
    )
    line = first[1]  # the only prediction is unscored: nothing in common comes first
    assert "gold Doc2: cy (Person) · works_at · gamma (Company) vs written doc2 : " in line
    assert line.endswith("Fix: name documents as the labels do (each example shows both ids)")


def test_the_report_notes_start_with_the_near_misses() -> None:
    score = score_facts(GOLD, [fact("ada", "worksAt", "acme")])
    notes = score.report().notes
    assert notes[0].startswith("near misses (predicate): 1 missed gold fact ")
    assert "with --ontology" in notes[0]


def test_nothing_in_common_documents() -> None:
    # 3 predictions, 2 cite unlabelled documents: 2 of 3 > half.
    predicted = [
        fact("ada", "works_at", "acme"),
        fact("q", "p", "r", "other-1"),
        fact("s", "p", "t", "other-2"),
    ]
    first = first_warnings(score_facts(GOLD, predicted))
    assert first[0] == (
        "2 of 3 predictions citing a document cite none the labels name, even by file stem "
        "(they cite 'other-1', 'other-2'; the labels name 'd1', 'Doc2'): they are not scored; "
        "name documents as the labels do"
    )


def test_nothing_in_common_names() -> None:
    # 3 scored predictions: zed's and yan's ends are no gold end (2 of 3); bob's subject is.
    predicted = [
        fact("zed", "works_at", "omega"),
        fact("yan", "works_at", "psi"),
        fact("bob", "founded", "nu"),
    ]
    first = first_warnings(score_facts(GOLD, predicted))
    assert first[0].startswith(
        "nothing in common: 2 of 3 (66.7%) scored predictions name no entity the gold names, "
        "e.g. written zed (Person) · works_at · omega (Company); yan (Person)"
    )


# Predictions that share a name with the gold by their subject ("s"), only by their object
# ("o": a subject no gold fact has), or by nothing ("-"); the warning is said when the strangers
# are more than half of the scored predictions, however the rest share (by hand).
@pytest.mark.parametrize(
    ("kinds", "said"),
    [
        ("s--", True),  # 2 of 3 strangers
        ("ss-", False),  # the subjects alone settle it
        ("o--", True),
        ("oo-", False),  # the subjects leave 3 of 3 unshared: the objects are read
        ("so-", False),
        ("o---s", True),  # 3 of 5
        ("oo--s", False),  # 2 of 5
        ("----", True),
    ],
)
def test_nothing_in_common_counts_every_name_a_prediction_shares(kinds: str, said: bool) -> None:
    ends = {
        "s": lambda k: ("ada", f"new{k}"),
        "o": lambda k: (f"who{k}", "acme"),
        "-": lambda k: (f"who{k}", f"new{k}"),
    }
    pairs = (ends[kind](k) for k, kind in enumerate(kinds))
    predicted = [fact(subject, "founded", obj) for subject, obj in pairs]
    first = first_warnings(score_facts(GOLD, predicted))
    assert any(w.startswith("nothing in common") for w in first) is said


def test_nothing_said_when_half_share() -> None:
    predicted = [fact("zed", "works_at", "omega"), fact("bob", "founded", "nu")]  # 1 of 2
    assert first_warnings(score_facts(GOLD, predicted)) == []


def test_a_bare_name_counts_as_shared() -> None:
    predicted = [fact("x:ada", "founded", "omega"), fact("x:bob", "founded", "psi")]
    assert not any(w.startswith("nothing") for w in first_warnings(score_facts(GOLD, predicted)))
