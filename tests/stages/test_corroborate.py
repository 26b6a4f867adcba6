"""The signature corroborator: merging by signature, counting sources, flagging conflicts."""

from __future__ import annotations

from datetime import UTC, datetime

from openodke import Entity, Evidence, Fact, GroundingVerdict, SourceTier
from openodke.stages import CONFLICT, SignatureCorroborator, source_of

ACME = Entity(key="Company:acme", type="Company", label="Acme")


def person(name: str) -> Entity:
    return Entity(key=f"Person:{name.casefold()}", type="Person", label=name)


def cited(doc_id: str, tier: SourceTier = SourceTier.unverified, year: int = 2025) -> Evidence:
    return Evidence(doc_id=doc_id, tier=tier, retrieved_at=datetime(year, 1, 1, tzinfo=UTC))


def test_source_of_drops_record_suffixes():
    assert [source_of(d) for d in ("a/r.csv#L2", "a/r.csv#L10~2", "notes.txt~3", "x")] == [
        "a/r.csv",
        "a/r.csv",
        "notes.txt",
        "x",
    ]


def test_one_fact_per_signature_with_its_independent_sources(ontology):
    auth = SourceTier.authoritative
    facts = [
        Fact(
            id="f1",
            subject=ACME,
            predicate="founded",
            object_value=1998,
            evidence=(cited("register.csv#L2", auth, 2024),),
            extractor="pattern",
            confidence=0.8,
        ),
        Fact(id="f2", subject=ACME, predicate="revenue", object_value=5),
        Fact(
            id="f3",
            subject=ACME,
            predicate="founded",
            object_value=1998,
            evidence=(cited("register.csv#L3", auth, 2025),),
            extractor="pattern",
            confidence=0.7,
            verdict=GroundingVerdict.not_found,
        ),
        Fact(
            id="f4",
            subject=ACME,
            predicate="founded",
            object_value=1998,
            evidence=(cited("notes/a.txt"),),
            extractor="llm",
            confidence=0.5,
            verdict=GroundingVerdict.supported,
            qualifiers={"note": "x"},
        ),
    ]
    corroborator = SignatureCorroborator(ontology)
    out = corroborator.corroborate(facts)
    assert [f.id for f in out] == ["f1", "f2"]  # first-seen order, the first fact's id
    merged = out[0]
    # Two records of one CSV are one source; the note is another: support 2.
    assert merged.support == 2
    assert [(s.source, s.documents, s.tier) for s in merged.supported_by] == [
        ("register.csv", ("register.csv#L2", "register.csv#L3"), auth),
        ("notes/a.txt", ("notes/a.txt",), SourceTier.unverified),
    ]
    assert merged.supported_by[0].retrieved_at == datetime(2025, 1, 1, tzinfo=UTC)  # newest
    assert [e.doc_id for e in merged.evidence] == [
        "register.csv#L2",
        "register.csv#L3",
        "notes/a.txt",
    ]
    assert merged.verdict is GroundingVerdict.supported  # the strongest verdict
    assert (merged.confidence, merged.extractor) == (0.8, "pattern+llm")
    assert merged.qualifiers == {"note": "x"}
    # An uncited fact counts as one source.
    assert (out[1].support, out[1].supported_by) == (1, ())
    assert corroborator.stats == {"facts_in": 4, "facts_out": 2, "merged": 2, "conflicts": 0}


def test_competing_single_values_are_flagged_and_ranked(ontology):
    auth = SourceTier.authoritative
    kari = [
        Fact(
            subject=ACME,
            predicate="ceo",
            object_entity=person("Kari"),
            evidence=(cited(doc, auth, 2025),),
        )
        for doc in ("a.txt", "b.txt")
    ]
    ola = Fact(
        subject=ACME,
        predicate="ceo",
        object_entity=person("Ola"),
        evidence=(cited("c.txt", SourceTier.unverified, 2024),),
    )
    staff = [  # employs is multi: two values never compete
        Fact(subject=ACME, predicate="employs", object_entity=person(n), evidence=(cited("a.txt"),))
        for n in ("Kari", "Ola")
    ]
    out = SignatureCorroborator(ontology).corroborate([*kari, ola, *staff])
    flags = {f.object_key: f.qualifiers.get(CONFLICT) for f in out if f.predicate == "ceo"}
    # Kari: trust 0.8 x freshness 1 (the newest) x agreement 2/3 = 0.533333.
    assert flags["Person:kari"] == {"with": ["Ola"], "rank": 1, "score": 0.533333}
    # Ola: trust 0.2 x 0.5 ** (366 days / 365) x 1/3 = 0.2 x 0.499051 / 3 = 0.033270.
    assert flags["Person:ola"] == {"with": ["Kari"], "rank": 2, "score": 0.03327}
    assert [f.qualifiers.get(CONFLICT) for f in out if f.predicate == "employs"] == [None, None]


def test_non_overlapping_valid_times_do_not_compete_unless_intervals_is_off(ontology):
    first = Fact(
        subject=ACME,
        predicate="ceo",
        object_entity=person("Kari"),
        valid_from=datetime(2010, 1, 1),
        valid_to=datetime(2015, 1, 1),
    )
    second = Fact(
        subject=ACME,
        predicate="ceo",
        object_entity=person("Ola"),
        valid_from=datetime(2015, 1, 1, tzinfo=UTC),
    )
    out = SignatureCorroborator(ontology).corroborate([first, second])
    assert all(CONFLICT not in f.qualifiers for f in out)
    overlapping = second.model_copy(update={"valid_from": datetime(2014, 1, 1)})
    out = SignatureCorroborator(ontology).corroborate([first, overlapping])
    assert all(CONFLICT in f.qualifiers for f in out)
    out = SignatureCorroborator(ontology, intervals=False).corroborate([first, second])
    assert all(CONFLICT in f.qualifiers for f in out)


def test_identity_qualifiers_scope_the_cardinality(ontology):
    def uptime(value: str, percentile: str) -> Fact:
        return Fact(
            subject=ACME,
            predicate="uptime",
            object_value=value,
            qualifiers={"percentile": percentile},
            identity_keys=("percentile",),
        )

    out = SignatureCorroborator(ontology).corroborate(
        [uptime("99.9%", "p50"), uptime("99%", "p99")]
    )
    assert all(CONFLICT not in f.qualifiers for f in out)
    out = SignatureCorroborator(ontology).corroborate(
        [uptime("99.9%", "p50"), uptime("99%", "p50")]
    )
    assert all(CONFLICT in f.qualifiers for f in out)
