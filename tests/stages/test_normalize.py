"""The value normalizer and its parsers: dates, numbers, booleans, person names."""

from __future__ import annotations

import pytest

from openodke import Entity, Fact
from openodke.stages import NAME_KEY, SOURCE_FORM, ValueNormalizer
from openodke.stages.values import parse_bool, parse_date, parse_number, person_key


@pytest.mark.parametrize(
    ("text", "day_first", "expected"),
    [
        ("1815-12-10", False, "1815-12-10"),
        ("1815/12/10", False, "1815-12-10"),
        ("1815-12", False, "1815-12"),
        ("1815", False, "1815"),
        ("10 December 1815", False, "1815-12-10"),
        ("10th of Dec. 1815", False, "1815-12-10"),
        ("December 10, 1815", False, "1815-12-10"),
        ("Sept 1815", False, "1815-09"),
        ("10/12/1815", False, "1815-10-12"),  # month first by default
        ("10/12/1815", True, "1815-12-10"),
        ("25/12/1815", False, "1815-12-25"),  # 25 cannot be a month
        ("31 February 1815", False, None),  # no such day
        ("Smarch 3, 1815", False, None),
        ("last spring", False, None),
    ],
)
def test_parse_date(text, day_first, expected):
    assert parse_date(text, day_first=day_first) == expected


@pytest.mark.parametrize(
    ("text", "integer", "expected"),
    [
        ("1,200", False, 1200),
        ("1 200 000", False, 1200000),
        ("-3.5", False, -3.5),
        ("2.4 million", False, 2400000),
        ("12", True, 12),
        ("3.0", True, 3),
        ("3.5", True, None),
        ("1,20", False, None),  # not thousands
        ("about 12", False, None),
    ],
)
def test_parse_number(text, integer, expected):
    result = parse_number(text, integer=integer)
    assert result == expected and type(result) is type(expected)


@pytest.mark.parametrize(("text", "expected"), [("Yes", True), (" false ", False), ("maybe", None)])
def test_parse_bool(text, expected):
    assert parse_bool(text) is expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Ada Lovelace", "ada lovelace"),
        ("Lovelace, Ada", "ada lovelace"),
        ("Dr. Ada Lovelace", "ada lovelace"),
        ("Martin Luther King, Jr.", "martin luther king"),
        ("Zoë  Ørsted-Berg", "zoe ørsted berg"),  # ø is a letter, not an accent
        ("Dr.", "dr"),  # nothing else left: kept
    ],
)
def test_person_key(name, expected):
    assert person_key(name) == expected


def company(name: str = "Acme") -> Entity:
    return Entity(key=f"Company:{name.casefold()}", type="Company", label=name)


def test_literals_are_read_by_range_and_the_written_form_is_kept(ontology):
    normalizer = ValueNormalizer(ontology, day_first=True)
    facts = [
        Fact(subject=company(), predicate="founded", object_value="1,998"),
        Fact(subject=company(), predicate="founded_on", object_value="03/04/1998"),
        Fact(subject=company(), predicate="revenue", object_value="2.5 million"),
        Fact(subject=company(), predicate="listed", object_value="yes"),
        Fact(subject=company(), predicate="legal_name", object_value="  Acme   Ltd "),
        Fact(subject=company(), predicate="founded", object_value="nineteen"),  # unreadable
        Fact(subject=company(), predicate="founded", object_value=1998),  # already a number
        Fact(subject=company(), predicate="unknown", object_value=" x  y "),
    ]
    out = normalizer.normalize(facts)
    assert [f.object_value for f in out] == [
        1998,
        "1998-04-03",
        2500000,
        True,
        "Acme Ltd",
        "nineteen",
        1998,
        "x y",
    ]
    assert [f.qualifiers.get(SOURCE_FORM) for f in out] == [
        "1,998",
        "03/04/1998",
        "2.5 million",
        "yes",
        "  Acme   Ltd ",
        None,
        None,
        " x  y ",
    ]
    assert out[5] is facts[5] and out[6] is facts[6]  # unchanged facts are the same objects
    assert normalizer.stats["values"] == 6


def test_person_ends_are_rekeyed_by_name_key_and_recorded(ontology):
    boss = Entity(key="Person:dr. kari nordmann", type="Person", label="Dr. Kari Nordmann")
    spouse = Entity(key="Person:nordmann, ola", type="Person", label="Nordmann, Ola")
    facts = [
        Fact(subject=company(), predicate="ceo", object_entity=boss),
        Fact(subject=boss, predicate="spouse", object_entity=spouse),
    ]
    out = ValueNormalizer(ontology).normalize(facts)
    assert out[0].object_entity is not None
    assert out[0].object_entity.key == "Person:kari nordmann"
    assert out[0].object_entity.label == "Dr. Kari Nordmann"
    assert out[0].object_entity.aliases == ("Dr. Kari Nordmann",)
    assert out[0].subject == company()  # not a person
    assert out[0].qualifiers[NAME_KEY] == {"object": "kari nordmann"}
    assert out[1].subject.key == "Person:kari nordmann"
    assert out[1].object_entity is not None and out[1].object_entity.key == "Person:ola nordmann"
    assert out[1].qualifiers[NAME_KEY] == {"subject": "kari nordmann", "object": "ola nordmann"}


def test_without_an_ontology_values_are_only_collapsed_and_person_types_are_configurable():
    author = Entity(key="Author:lovelace, ada", type="Author", label="Lovelace, Ada")
    fact = Fact(subject=author, predicate="born", object_value="10 December 1815")
    (out,) = ValueNormalizer(person_types=["Author"]).normalize([fact])
    assert out.object_value == "10 December 1815"  # no range known: not read as a date
    assert out.subject.key == "Author:ada lovelace"
    (same,) = ValueNormalizer().normalize([fact])
    assert same is fact
