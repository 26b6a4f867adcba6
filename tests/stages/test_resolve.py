"""The native resolver: alike names proposed as links, nudged by shared or differing values."""

from __future__ import annotations

from openodke import Entity, Fact, LinkKind
from openodke.stages import NativeResolver, entities_of


def entity(type_: str, name: str, external_id: str | None = None) -> Entity:
    return Entity(key=f"{type_}:{name.casefold()}", type=type_, label=name, external_id=external_id)


def named(*entities: Entity) -> list[Fact]:
    # One fact per entity, so the resolver sees it.
    return [Fact(subject=e, predicate="mentioned", object_value=True) for e in entities]


def links_of(resolver: NativeResolver, facts: list[Fact]) -> list[tuple[str, str, str, float]]:
    return [
        (link.source_key, link.target_key, link.kind.value, link.score)
        for link in resolver.resolve(facts)
    ]


def test_alike_names_of_one_type_are_linked_and_nodes_are_never_merged(ontology):
    halden, halden_ltd = (
        entity("Company", "Halden Robotics"),
        entity("Company", "Halden Robotics Ltd"),
    )
    facts = named(
        halden,
        halden_ltd,
        entity("Company", "Nordic Arms"),
        entity("Company", "Nordik Arm"),
        entity("Company", "Acme"),
        entity("Company", "Acne"),
        entity("City", "Halden"),
    )
    got = links_of(NativeResolver(ontology), facts)
    assert got == [
        # Both names have two words or more: token_set_ratio; the shared words are all of the
        # shorter name, so 100 / 100 = 1.0.
        ("Company:halden robotics", "Company:halden robotics ltd", "same_as", 1.0),
        # Sorted "arms nordic" vs "arm nordik": longest common subsequence 9 of 11 + 10
        # characters, 2 x 9 / 21 = 0.857: within 0.1 under the threshold, so similar.
        ("Company:nordic arms", "Company:nordik arm", "similar", 0.857143),
    ]  # Acme/Acne: 2 x 3 / 8 = 0.75, too far; City:halden is another type
    assert entities_of(facts)[0] == halden


def test_shared_and_differing_single_values_nudge_the_score(ontology):
    kari, kari2 = entity("Person", "Kari Nordmann"), entity("Person", "Kari Nordman")
    # Name score: "kari nordmann" vs "kari nordman", 2 x 12 / 25 = 0.96.
    alone = links_of(NativeResolver(ontology), named(kari, kari2))
    assert alone == [("Person:kari nordman", "Person:kari nordmann", "same_as", 0.96)]
    same_birth = [
        Fact(subject=kari, predicate="born", object_value="1970-01-02"),
        Fact(subject=kari2, predicate="born", object_value="1970-01-02"),
    ]
    # 0.96 + 0.05, capped at 1.0.
    assert links_of(NativeResolver(ontology), same_birth)[0][2:] == ("same_as", 1.0)
    other_birth = [same_birth[0], Fact(subject=kari2, predicate="born", object_value="1971-05-05")]
    (link,) = NativeResolver(ontology).resolve(other_birth)
    # 0.96 - 0.1 = 0.86: under the threshold because of a conflicting value, so different.
    assert (link.kind, link.score) == (LinkKind.different, 0.86)
    assert link.reason == "names 'kari nordman' and 'kari nordmann' alike (0.96); different born"
    # A lower threshold takes it back to same_as.
    assert NativeResolver(ontology, threshold=0.85).resolve(other_birth)[0].kind is LinkKind.same_as


def test_external_ids_decide_and_big_blocks_are_skipped(ontology):
    a = entity("Company", "Alpha Group", external_id="Q1")
    b = entity("Company", "Completely Other", external_id="Q1")
    c = entity("Company", "Alpha Groups", external_id="Q2")
    got = links_of(NativeResolver(ontology), named(a, b, c))
    assert ("Company:alpha group", "Company:completely other", "same_as", 1.0) in got
    assert ("Company:alpha group", "Company:alpha groups", "different", 0.0) in got
    many = [
        entity("Company", f"Common {w}") for w in ("alpha", "beta", "gamma", "delta", "epsilon")
    ]
    resolver = NativeResolver(ontology, max_block=3)
    assert (
        resolver.resolve(named(*many)) == []
    )  # 'common' blocks 5 > 3; each other prefix is unique
    assert resolver.stats["skipped_blocks"] == 1
