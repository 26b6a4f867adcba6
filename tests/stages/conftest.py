"""A small ontology the stage tests share, and the replay-server fixture for model-backed tests."""

from __future__ import annotations

import pytest

from openodke.ontology import Ontology
from tests.support.llm_server import llm_server  # noqa: F401 - a fixture, used by name

ONTOLOGY = {
    "name": "firms",
    "types": {
        "Company": {"description": "A business.", "keys": ["legal_name"]},
        "Person": {"description": "A human being."},
        "City": {},
    },
    "predicates": {
        "legal_name": {"domain": ["Company"], "range": "string", "importance": 0.9},
        "founded": {"domain": ["Company"], "range": "integer", "aliases": ["year founded"]},
        "founded_on": {"domain": ["Company"], "range": "date"},
        "headquarters": {"domain": ["Company"], "range": "City", "label": "HQ"},
        "ceo": {"domain": ["Company"], "range": "Person"},
        "employs": {"domain": ["Company"], "range": "Person", "cardinality": "multi"},
        "works_for": {
            "domain": ["Person"],
            "range": "Company",
            "cardinality": "multi",
            "inverse_of": "employs",
        },
        "born": {"domain": ["Person"], "range": "date"},
        "spouse": {"domain": ["Person"], "range": "Person", "symmetric": True},
        "revenue": {"domain": ["Company"], "range": "number"},
        "listed": {"domain": ["Company"], "range": "boolean"},
        "products": {"domain": ["Company"], "range": "string", "cardinality": "multi"},
        "uptime": {
            "domain": ["Company"],
            "range": "string",
            "qualifiers": {"percentile": {"identity": True}},
        },
    },
}


@pytest.fixture(scope="session")
def ontology() -> Ontology:
    """The firms ontology: companies, people, cities; one inverse pair and one symmetric."""
    return Ontology.from_dict(ONTOLOGY)
