"""The ontology: loading with every problem listed, inverses, lookups, snippets, offered, diff."""

from __future__ import annotations

import json

import jsonschema
import pytest
from pydantic import BaseModel, Field

from openodke.errors import InputError, OntologyLoadError
from openodke.ontology import (
    LITERAL_TYPES,
    Diagnostic,
    Ontology,
    coverage,
    did_you_mean,
)

BASE = {
    "name": "firms",
    "version": "1",
    "types": {
        "Organisation": {"description": "Any organised body."},
        "Company": {"description": "A business.", "parents": ["Organisation"], "aliases": ["Firm"]},
        "Person": {"description": "A human being."},
        "Place": {},
    },
    "predicates": {
        "founded": {"domain": ["Organisation"], "range": "date", "importance": 0.9},
        "employs": {
            "domain": ["Company"],
            "range": "Person",
            "cardinality": "multi",
            "inverse_of": "works_for",
            "label": "has employee",
        },
        "works_for": {"domain": ["Person"], "range": "Company", "cardinality": "multi"},
        "headquarters": {
            "domain": "Company",
            "range": "Place",
            "description": "Where it is run from",
            "qualifiers": {"as_of": {"identity": True, "description": "the date"}, "source": {}},
        },
        "revenue": {
            "domain": ["Company"],
            "range": "quantity",
            "qualifiers": ["currency", "year"],
            "cardinality_scope": ["year"],
            "aliases": ["turnover", "annual revenue"],
        },
        "name": {"range": "string", "importance": 0.1},
    },
}


def firms() -> Ontology:
    return Ontology.from_dict(BASE)


def with_changes(**sections: dict) -> dict:
    """BASE with entries of `types`/`predicates` replaced (None deletes)."""
    data = json.loads(json.dumps(BASE))
    for section, entries in sections.items():
        for key, value in entries.items():
            if value is None:
                data[section].pop(key, None)
            else:
                data[section][key] = value
    return data


# -- loading and problems ----------------------------------------------------------------------


def test_defaults_and_names_from_keys():
    onto = Ontology.from_dict({"types": {"Person": None}, "predicates": {"born": {}}})
    assert (onto.name, onto.version, onto.inferred, onto.frozen_at) == (
        "untitled",
        "0",
        False,
        None,
    )
    assert onto.types["Person"].name == "Person"
    born = onto.predicates["born"]
    assert (born.name, born.range, born.cardinality, born.importance) == (
        "born",
        "string",
        "single",
        0.5,
    )
    assert born.domain == ()


def test_lists_of_names_are_accepted_for_types_and_predicates():
    onto = Ontology.from_dict(
        {"types": ["Person"], "predicates": [{"name": "born", "domain": ["Person"]}]}
    )
    assert list(onto.types) == ["Person"] and onto.predicates["born"].domain == ("Person",)


def test_strict_load_lists_every_problem_with_path_and_did_you_mean():
    data = with_changes(
        types={"Employee": {"parents": ["Persn"]}},
        predicates={
            "born": {"domain": ["Persn"], "range": "Plcae"},
            "owns": {"domain": ["Company"], "range": "Company", "inverse_of": "owned_bi"},
            "owned_by": {"domain": ["Company"], "range": "Company", "aliases": ["turnover"]},
            "staff": {"range": "integer", "qualifiers": ["year"], "cardinality_scope": ["yeer"]},
        },
    )
    with pytest.raises(OntologyLoadError) as caught:
        Ontology.from_dict(data)
    assert caught.value.problems == [
        "types.Employee.parents: unknown type 'Persn' (did you mean 'Person'?)",
        "predicates.owned_by.aliases: 'turnover' already names 'revenue'",
        "predicates.born.range: unknown type 'Plcae' (did you mean 'Place'?)",
        "predicates.born.domain: unknown type 'Persn' (did you mean 'Person'?)",
        "predicates.owns.inverse_of: unknown predicate 'owned_bi' (did you mean 'owned_by'?)",
        "predicates.staff.cardinality_scope: 'yeer' is not one of its qualifiers (did you mean 'year'?)",
    ]


def test_the_brief_example_message():
    data = {"types": {"Person": {}}, "predicates": {"born": {"range": "Persn"}}}
    with pytest.raises(OntologyLoadError) as caught:
        Ontology.from_dict(data, path="onto.json")
    assert str(caught.value) == (
        "onto.json: predicates.born.range: unknown type 'Persn' (did you mean 'Person'?)"
    )


def test_not_strict_builds_and_leaves_problems_to_validate():
    onto = Ontology.from_dict({"predicates": {"born": {"range": "Persn"}}}, strict=False)
    assert [d.code for d in onto.validate()] == ["unknown-range"]


def test_shape_errors_list_every_problem_with_did_you_mean():
    data = {"nme": "x", "predicates": {"born": {"rnage": "date", "cardinality": "many"}}}
    with pytest.raises(OntologyLoadError) as caught:
        Ontology.from_dict(data, strict=False)
    assert caught.value.problems == [
        "predicates.born.cardinality: Input should be 'single' or 'multi', got \"many\"",
        "predicates.born.rnage: unknown key (did you mean 'range'?)",
        "nme: unknown key (did you mean 'name'?)",
    ]


def test_top_level_must_be_an_object():
    with pytest.raises(OntologyLoadError, match="expected an object at the top level, got list"):
        Ontology.from_dict([1, 2])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("sections", "code", "path"),
    [
        ({"types": {"Person": {"name": "Human"}}}, "name-mismatch", "types.Person.name"),
        ({"types": {"string": {}}}, "reserved-type", "types.string"),
        ({"types": {"Person": {"parents": ["Ghost"]}}}, "unknown-parent", "types.Person.parents"),
        (
            {
                "types": {
                    "Company": {"parents": ["Organisation"]},
                    "Organisation": {"parents": ["Company"]},
                }
            },
            "parent-cycle",
            "types.Company.parents",
        ),
        ({"types": {"Person": {"keys": ["nmae"]}}}, "unknown-key", "types.Person.keys"),
        ({"predicates": {"born": {"range": "Moment"}}}, "unknown-range", "predicates.born.range"),
        (
            {"predicates": {"born": {"domain": ["Ghost"]}}},
            "unknown-domain",
            "predicates.born.domain",
        ),
        ({"predicates": {"Works For": {}}}, "duplicate-name", "predicates.Works For"),
        (
            {"predicates": {"staff": {"aliases": ["Has Employee"]}}},
            "duplicate-alias",
            "predicates.staff.aliases",
        ),
        ({"types": {"Place": {"aliases": ["firm"]}}}, "duplicate-alias", "types.Place.aliases"),
        (
            {"predicates": {"name": {"symmetric": True}}},
            "bad-symmetric",
            "predicates.name.symmetric",
        ),
    ],
)
def test_validate_codes(sections, code, path):
    onto = Ontology.from_dict(with_changes(**sections), strict=False)
    found = [(d.code, d.path) for d in onto.validate()]
    assert (code, path) in found


def test_unreachable_predicate_is_a_warning_beside_unknown_domain():
    onto = Ontology.from_dict({"predicates": {"born": {"domain": ["Ghost"]}}}, strict=False)
    found = onto.validate()
    assert [(d.code, d.severity) for d in found] == [
        ("unknown-domain", "error"),
        ("unreachable-predicate", "warning"),
    ]
    assert (
        str(found[1])
        == "predicates.born: no declared type is in its domain, so no snippet offers it"
    )


def test_a_clean_ontology_has_no_diagnostics():
    assert firms().validate() == []
    assert isinstance(Diagnostic(code="x", path="a.b", message="m"), Diagnostic)


def test_did_you_mean_ignores_case_and_says_nothing_when_far():
    assert did_you_mean("person", ["Person", "Place"]) == " (did you mean 'Person'?)"
    assert did_you_mean("zzz", ["Person"]) == ""


# -- files -------------------------------------------------------------------------------------


def test_from_json_and_yaml_read_the_same_ontology(tmp_path):
    import yaml

    (tmp_path / "o.json").write_text(json.dumps(BASE), encoding="utf-8")
    (tmp_path / "o.yaml").write_text(yaml.safe_dump(BASE), encoding="utf-8")
    from_json = Ontology.from_json(tmp_path / "o.json")
    assert from_json == Ontology.from_yaml(tmp_path / "o.yaml") == firms()
    assert Ontology.load(tmp_path / "o.yaml") == from_json


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("bad.json", '{\n  "types": {\n    "Person": {,\n  }\n}', "bad.json:3: invalid JSON"),
        ("bad.yaml", "types:\n  Person: {description: [unclosed\n", "bad.yaml:3: invalid YAML"),
        ("empty.json", "  \n", "empty.json: empty file"),
    ],
)
def test_bad_files_are_input_errors_at_path_line(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        Ontology.load(path)
    assert str(caught.value).startswith(f"{tmp_path}/{message}")


def test_a_file_with_problems_names_the_file(tmp_path):
    path = tmp_path / "o.json"
    path.write_text(json.dumps({"predicates": {"born": {"range": "Persn"}}}), encoding="utf-8")
    with pytest.raises(OntologyLoadError) as caught:
        Ontology.from_json(path)
    assert str(caught.value).startswith(f"{path}: predicates.born.range: unknown type 'Persn'")
    assert caught.value.path == str(path)


def test_missing_file():
    with pytest.raises(InputError, match="no such file"):
        Ontology.from_json("/nonexistent/o.json")


def test_from_pydantic_maps_classes_and_fields():
    class Company(BaseModel):
        """A business."""

        name: str
        founded: int | None = None

    class Person(BaseModel):
        """A human being."""

        name: str
        employer: Company | None = Field(default=None, description="Who pays them")
        skills: list[str] = []

    onto = Ontology.from_pydantic(Company, Person, name="people")
    assert onto.types["Person"].description == "A human being."
    assert onto.predicates["employer"].range == "Company"
    assert onto.predicates["employer"].description == "Who pays them"
    assert onto.predicates["name"].domain == ("Company", "Person")
    assert onto.predicates["founded"].range == "integer"
    assert onto.predicates["skills"].cardinality == "multi"


# -- inverses ----------------------------------------------------------------------------------


def test_inverse_declared_on_one_side_is_filled_on_the_other():
    onto = firms()
    assert onto.predicates["works_for"].inverse_of == "employs"
    both = with_changes(
        predicates={"works_for": {**BASE["predicates"]["works_for"], "inverse_of": "employs"}}
    )
    assert Ontology.from_dict(both).fingerprint() == onto.fingerprint()


@pytest.mark.parametrize(
    ("predicates", "message"),
    [
        (
            {"works_for": {"domain": ["Person"], "range": "Company", "inverse_of": "founded"}},
            "predicates.employs.inverse_of: does not hold both ways: 'works_for' is the inverse of 'founded'",
        ),
        (
            {"works_for": {"domain": ["Person"], "range": "Place"}},
            "predicates.employs.inverse_of: ends do not swap: 'employs' is Company -> Person "
            "but 'works_for' is Person -> Place",
        ),
        (
            {"works_for": {"domain": ["Person"], "range": "string"}},
            "predicates.employs.inverse_of: 'works_for' is a property (range 'string'); it has no inverse",
        ),
    ],
)
def test_inverse_that_does_not_hold_is_refused(predicates, message):
    with pytest.raises(OntologyLoadError) as caught:
        Ontology.from_dict(with_changes(predicates=predicates))
    assert message in caught.value.problems


def test_inverse_ends_swap_through_inheritance():
    # works_for's range is Company, a kind of Organisation: member_of takes Organisations.
    onto = Ontology.from_dict(
        with_changes(
            predicates={
                "employs": {
                    "domain": ["Organisation"],
                    "range": "Person",
                    "inverse_of": "works_for",
                },
            }
        )
    )
    assert onto.predicates["works_for"].inverse_of == "employs"


# -- lookups -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("works_for", "works_for"),
        ("Works For", "works_for"),
        ("WORKS_FOR", "works_for"),
        ("turnover", "revenue"),
        ("Annual_Revenue", "revenue"),
        ("has employee", "employs"),
        ("HAS_EMPLOYEE", "employs"),
        ("born", None),
    ],
)
def test_predicate_lookup(written, name):
    found = firms().predicate(written)
    assert (found.name if found else None) == name


def test_type_lookup_and_literals():
    onto = firms()
    assert onto.entity_type("firm").name == "Company"
    assert onto.entity_type("COMPANY").name == "Company"
    assert onto.entity_type("Ghost") is None
    assert all(onto.is_literal(t) for t in LITERAL_TYPES) and onto.is_literal("Date")
    assert not onto.is_literal("Company")
    assert sorted(LITERAL_TYPES) == sorted(
        ["string", "text", "integer", "number", "float", "boolean", "date", "datetime", "quantity"]
    )


def test_domain_types_follow_parents():
    onto = firms()
    assert onto.domain_types("Company") == ("Company", "Organisation")
    assert onto.domain_types("Firm") == ("Company", "Organisation")
    assert onto.covers("founded", "Company") and not onto.covers("founded", "Person")
    assert onto.covers("name", "Place")  # an empty domain is open to every type
    assert onto.fits_range("works_for", "Company") and not onto.fits_range("works_for", "Person")
    assert onto.fits_range("founded", None)


def test_identity_keys_are_identity_qualifiers_and_the_cardinality_scope():
    onto = firms()
    assert onto.identity_keys("headquarters") == ("as_of",)
    assert onto.identity_keys("turnover") == ("year",)  # bare list: reconcilable, but scoped
    assert onto.predicates["revenue"].qualifiers["currency"].identity is False
    assert onto.identity_keys("unknown") == ()


# -- snippets ----------------------------------------------------------------------------------


def test_snippet_ranks_by_importance_then_name_with_inherited_predicates():
    snippet = firms().snippet("Company")
    # founded (0.9, inherited from Organisation), then the 0.5s by name, then name (0.1).
    assert snippet.names == ("founded", "employs", "headquarters", "revenue", "name")
    assert snippet.left_out == ()


def many(n: int) -> Ontology:
    predicates = {f"p{i:02d}": {"domain": ["Thing"], "importance": 1 - i / 100} for i in range(n)}
    return Ontology.from_dict({"types": {"Thing": {}}, "predicates": predicates})


def test_snippet_cuts_at_25_by_default():
    snippet = many(30).snippet("Thing")
    assert snippet.limit == 25 and len(snippet.predicates) == 25
    assert snippet.names[0] == "p00" and snippet.names[-1] == "p24"
    assert snippet.left_out == ("p25", "p26", "p27", "p28", "p29")
    assert many(30).snippet("Thing", limit=None).left_out == ()
    assert many(30).snippet("Thing", limit=3).names == ("p00", "p01", "p02")


def test_snippet_render_format():
    text = firms().snippet("Company", limit=3).render()
    assert text == (
        "Entity type: Company\n"
        "A business.\n"
        "Properties you may extract:\n"
        "- founded (date, single)\n"
        "- employs (Person, multi)\n"
        "- headquarters (Place, single): Where it is run from [qualifiers: as_of (identity), source]"
    )


def test_snippet_render_shows_examples_and_says_none():
    onto = Ontology.from_dict(
        {
            "types": {"Person": {}, "Place": {}},
            "predicates": {"born": {"domain": ["Person"], "examples": ["Ada was born in 1815."]}},
        }
    )
    assert onto.snippet("Person").render().splitlines()[-1] == "  example: Ada was born in 1815."
    assert onto.snippet("Place").render().splitlines() == [
        "Entity type: Place",
        "Properties you may extract:",
        "(none)",
    ]


def test_snippet_json_schema_accepts_a_reply_and_refuses_an_unoffered_predicate():
    schema = firms().snippet("Company", limit=2).json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    reply = {
        "entities": [
            {
                "type": "Company",
                "name": "Halden Robotics",
                "facts": [{"predicate": "founded", "value": "2019", "quote": "founded in 2019"}],
            }
        ]
    }
    jsonschema.validate(reply, schema)
    reply["entities"][0]["facts"][0]["predicate"] = "revenue"  # past the limit
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(reply, schema)


def test_snippet_of_an_unknown_type():
    with pytest.raises(InputError, match=r"unknown type 'Compny' \(did you mean 'Company'\?\)"):
        firms().snippet("Compny")


# -- offered -----------------------------------------------------------------------------------


def test_offered_and_never_offered():
    onto = firms()
    offered = onto.offered(types=["Company", "person"], snippet_limit=2)
    assert offered == {
        "Organisation": (),
        "Company": ("founded", "employs"),
        "Person": ("works_for", "name"),
        "Place": (),
    }
    never = onto.never_offered(types=["Company", "person"], snippet_limit=2)
    assert never == {
        "Organisation": ("founded", "name"),  # left out of `types`: every covering predicate
        "Company": ("headquarters", "revenue", "name"),  # past the limit
        "Person": (),
        "Place": ("name",),
    }


def test_offered_defaults_to_every_type_and_the_limit_of_25():
    onto = many(30)
    assert onto.offered() == {"Thing": many(30).snippet("Thing").names}
    assert onto.never_offered() == {"Thing": ("p25", "p26", "p27", "p28", "p29")}
    assert coverage(onto, snippet_limit=28) == {
        "snippet_limit": 28,
        "offered": {"Thing": [f"p{i:02d}" for i in range(28)]},
        "never_offered": {"Thing": ["p28", "p29"]},
    }


def test_offered_with_an_unknown_type():
    with pytest.raises(InputError, match="did you mean 'Person'"):
        firms().offered(types=["Persn"])


# -- fingerprint, to_dict, diff ----------------------------------------------------------------


def test_fingerprint_is_sha256_of_canonical_json_and_ignores_key_order():
    import hashlib

    onto = firms()
    canonical = json.dumps(
        onto.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    assert onto.fingerprint() == hashlib.sha256(canonical.encode()).hexdigest()
    reordered = dict(reversed(list(BASE.items())))
    assert Ontology.from_dict(reordered).fingerprint() == onto.fingerprint()
    changed = with_changes(predicates={"name": {"range": "text"}})
    assert Ontology.from_dict(changed).fingerprint() != onto.fingerprint()


def test_to_dict_round_trips():
    onto = firms()
    assert Ontology.from_dict(onto.to_dict()) == onto


@pytest.mark.parametrize(
    ("sections", "breaking", "compatible"),
    [
        ({"predicates": {"name": None}}, ["predicates.name: removed"], []),
        ({"predicates": {"born": {}}}, [], ["predicates.born: added"]),
        ({"predicates": {"born": {"required": True}}}, ["predicates.born: added (required)"], []),
        ({"types": {"Place": None}}, ["types.Place: removed"], []),
        ({"types": {"Animal": {}}}, [], ["types.Animal: added"]),
        (
            {"predicates": {"name": {"range": "text", "importance": 0.1}}},
            ["predicates.name.range: 'string' -> 'text'"],
            [],
        ),
        (
            {
                "predicates": {
                    "founded": {"domain": ["Company"], "range": "date", "importance": 0.9}
                }
            },
            ["predicates.founded.domain: removed Organisation"],
            ["predicates.founded.domain: added Company"],
        ),
        (
            {"predicates": {"founded": {"range": "date", "importance": 0.9}}},
            [],
            ["predicates.founded.domain: opened to every type"],
        ),
        (
            {"predicates": {"works_for": {"domain": ["Person"], "range": "Company"}}},
            ["predicates.works_for.cardinality: multi -> single"],
            [],
        ),
        (
            {"predicates": {"name": {"range": "string", "importance": 0.7, "description": "d"}}},
            [],
            ["predicates.name.description: changed", "predicates.name.importance: changed"],
        ),
        (
            {"predicates": {"revenue": {**BASE["predicates"]["revenue"], "aliases": ["turnover"]}}},
            ["predicates.revenue.aliases: removed annual revenue"],
            [],
        ),
        (
            {
                "predicates": {
                    "headquarters": {
                        **BASE["predicates"]["headquarters"],
                        "qualifiers": {"as_of": {"identity": False}, "source": {}, "note": {}},
                    }
                }
            },
            ["predicates.headquarters.qualifiers.as_of.identity: True -> False"],
            [
                "predicates.headquarters.qualifiers.as_of.description: changed",
                "predicates.headquarters.qualifiers.note: added",
            ],
        ),
    ],
)
def test_diff_splits_breaking_and_compatible(sections, breaking, compatible):
    old, new = firms(), Ontology.from_dict(with_changes(**sections), strict=False)
    change = old.diff(new)
    assert [str(c) for c in change.breaking] == breaking
    assert [str(c) for c in change.compatible] == compatible
    assert change.is_breaking is bool(breaking)


def test_adding_inverse_of_is_compatible_and_removing_it_breaking():
    without = Ontology.from_dict(
        with_changes(
            predicates={
                "employs": {
                    "domain": ["Company"],
                    "range": "Person",
                    "cardinality": "multi",
                    "label": "has employee",
                }
            }
        )
    )
    added = without.diff(firms())
    assert not added.is_breaking
    assert [str(c) for c in added.compatible] == [
        "predicates.employs.inverse_of: added 'works_for'",
        "predicates.works_for.inverse_of: added 'employs'",
    ]
    removed = firms().diff(without)
    assert [str(c) for c in removed.breaking] == [
        "predicates.employs.inverse_of: removed 'works_for'",
        "predicates.works_for.inverse_of: removed 'employs'",
    ]


def test_diff_of_equal_ontologies_is_empty():
    change = firms().diff(firms())
    assert change.changes == () and change.render() == "no changes"
    assert firms().diff(Ontology.from_dict({**BASE, "version": "2"})).render() == (
        "compatible:\n  version: '1' -> '2'"
    )


def test_lookups_follow_a_copy_with_new_entries():
    onto = firms()
    assert onto.predicate("born") is None  # builds the lookup cache
    born = onto.predicates["name"].model_copy(update={"name": "born"})
    grown = onto.model_copy(update={"predicates": {**onto.predicates, "born": born}})
    assert grown.predicate("BORN") is born and onto.predicate("born") is None
    assert [p.name for p in grown.predicates_for("Place")] == ["name", "born"]
