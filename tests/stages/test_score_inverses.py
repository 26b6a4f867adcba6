"""The evidence scorer (tier x verdict x support) and inverse partners."""

from __future__ import annotations

import pytest

from openodke import Entity, Evidence, Fact, GroundingVerdict, SourceTier, Support
from openodke.errors import InputError
from openodke.ontology import Ontology
from openodke.stages import DERIVED, SCORE, EvidenceScorer, InverseDeriver, declares_inverses

ACME = Entity(key="Company:acme", type="Company", label="Acme")
KARI = Entity(key="Person:kari", type="Person", label="Kari")
OLA = Entity(key="Person:ola", type="Person", label="Ola")


def fact(verdict: str, tiers: tuple[str, ...], support: int = 1, **fields) -> Fact:
    return Fact(
        subject=ACME,
        predicate="founded",
        object_value=1998,
        verdict=GroundingVerdict(verdict),
        evidence=tuple(Evidence(doc_id=f"d{i}", tier=SourceTier(t)) for i, t in enumerate(tiers)),
        support=support,
        **fields,
    )


@pytest.mark.parametrize(
    ("verdict", "tiers", "support", "expected"),
    [
        ("supported", ("curated",), 1, 1.0),  # 1 - (1 - 1.0 x 1.0) ** 1
        ("unchecked", ("unverified",), 1, 0.1),  # 0.2 x 0.5
        ("unchecked", ("unverified",), 3, 0.271),  # 1 - 0.9 ** 3
        ("supported", ("unverified", "community"), 2, 0.75),  # best tier 0.5; 1 - 0.5 ** 2
        ("not_found", ("authoritative",), 1, 0.2),  # 0.8 x 0.25
        ("contradicted", ("curated",), 4, 0.0),
        ("supported", (), 1, 0.2),  # cites nothing: the prior 0.2
    ],
)
def test_confidence_is_a_noisy_or_of_tier_times_verdict(verdict, tiers, support, expected):
    scored = EvidenceScorer().score(fact(verdict, tiers, support))
    assert scored.confidence == pytest.approx(expected)
    assert scored.qualifiers[SCORE]["support"] == support


def test_supported_by_tiers_win_and_options_change_the_weights():
    supported_by = (Support(source="a", tier=SourceTier.authoritative),)
    base = fact("unchecked", ("unverified",), supported_by=supported_by)
    scored = EvidenceScorer(verdict_weights={"unchecked": 1.0}).score(base)
    assert scored.confidence == pytest.approx(0.8)  # authoritative 0.8 x 1.0
    assert scored.qualifiers[SCORE] == {"tier": 0.8, "verdict": 1.0, "support": 1, "single": 0.8}
    assert EvidenceScorer(prior=0.6).score(fact("supported", ())).confidence == pytest.approx(0.6)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"prior": 1.5}, "prior"),
        ({"verdict_weights": {"maybe": 0.1}}, "'maybe' is not a verdict"),
        ({"verdict_weights": {"supported": 2}}, "verdict_weights.supported"),
    ],
)
def test_bad_scorer_options(options, message):
    with pytest.raises(InputError, match=message):
        EvidenceScorer(**options)


def test_inverse_and_symmetric_partners(ontology):
    assert declares_inverses(ontology)
    employs = Fact(
        subject=ACME,
        predicate="employs",
        object_entity=KARI,
        evidence=(Evidence(doc_id="d1"),),
        verdict=GroundingVerdict.supported,
        confidence=0.7,
        qualifiers={"odke.name_key": {"object": "kari"}, "odke.conflict": {"rank": 1}},
    )
    married = Fact(subject=KARI, predicate="spouse", object_entity=OLA)
    stated_back = Fact(subject=OLA, predicate="spouse", object_entity=KARI)
    founded = Fact(subject=ACME, predicate="founded", object_value=1998)
    derived = InverseDeriver(ontology).derive([employs, married, founded])
    assert [(f.subject.key, f.predicate, f.object_key) for f in derived] == [
        ("Person:kari", "works_for", "Company:acme"),
        ("Person:ola", "spouse", "Person:kari"),
    ]
    partner = derived[0]
    assert partner.id != employs.id
    assert partner.qualifiers == {
        "odke.name_key": {"subject": "kari"},
        DERIVED: {
            "rule": "inverse_of",
            "from": ["Company:acme", "Company", "employs", "Person:kari", "asserted", []],
        },
    }
    assert (partner.evidence, partner.verdict, partner.confidence) == (
        employs.evidence,
        employs.verdict,
        employs.confidence,
    )
    assert derived[1].qualifiers[DERIVED]["rule"] == "symmetric"
    # Said both ways already: nothing to add; and partners are never derived from partners.
    assert InverseDeriver(ontology).derive([married, stated_back]) == []
    assert InverseDeriver(ontology).derive(derived) == []


def test_an_ontology_without_inverses_declares_none():
    assert not declares_inverses(Ontology.from_dict({"types": {"A": {}}, "predicates": {"p": {}}}))
