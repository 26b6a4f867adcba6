"""A small case the Validator tests share: two texts, ten rows, recorded grounding answers."""

from __future__ import annotations

import pytest

from openodke import Document, Entity, Evidence, Fact
from openodke.interop.triples import TripleRow
from tests.stages.conftest import ONTOLOGY, ontology  # noqa: F401 - a fixture, used by name
from tests.support.llm_server import llm_server  # noqa: F401 - a fixture, used by name

ACME_TEXT = "Acme was founded in 1998. Kari Nordmann runs Acme. Acme employs Ola Berg."
BRASK_TEXT = "Brask was founded in 2001."

DOCUMENTS = [
    Document(id="texts/acme.txt", text=ACME_TEXT),
    Document(id="texts/brask.txt", text=BRASK_TEXT),
]

ROWS: list[TripleRow | Fact] = [
    # 1. stated: supported
    TripleRow(
        doc="texts/acme.txt",
        subject="Acme",
        predicate="founded",
        object=1998,
        quote="founded in 1998",
    ),
    # 2. the text says otherwise: contradicted
    TripleRow(
        doc="texts/acme.txt", subject="Acme", predicate="founded", object="1999", start=0, end=25
    ),
    # 3. stated: supported
    TripleRow(
        doc="texts/acme.txt",
        subject="Acme",
        predicate="ceo",
        object="Kari Nordmann",
        quote="Kari Nordmann runs Acme",
    ),
    # 4. stated: supported; employs has the inverse works_for
    TripleRow(
        doc="acme",
        subject="Acme",
        predicate="employs",
        object="Ola Berg",
        quote="Acme employs Ola Berg",
    ),
    # 5. the quote is nowhere in the text: not_found for free, no call
    TripleRow(
        doc="texts/acme.txt", subject="Acme", predicate="ceo", object="Ola", quote="Ola runs it"
    ),
    # 6. a predicate the ontology lacks: a schema misfit
    TripleRow(
        doc="texts/acme.txt",
        subject="Acme",
        predicate="motto",
        object="Build well",
        subject_type="Company",
    ),
    # 7. row 1 again from another span: merged with it
    TripleRow(
        doc="acme",
        subject="acme",
        predicate="Year founded",
        object=1998,
        quote="Acme was founded in 1998",
    ),
    # 8. stated: supported
    TripleRow(doc="brask", subject="Brask", predicate="founded", object=2001),
    # 9. names no document given: unmatched
    TripleRow(doc="nowhere", subject="X", predicate="founded", object=1),
    # 10. a Fact, not a row: not in the text
    Fact(
        subject=Entity(key="Company:brask", type="Company", label="Brask"),
        predicate="legal_name",
        object_value="Brask AS",
        evidence=(Evidence(doc_id="brask.txt"),),
    ),
]

ANSWERS = [
    {"match": "Claim: Acme (Company) — founded — 1998.", "response": {"verdict": "supported"}},
    {"match": "Claim: Acme (Company) — founded — 1999.", "response": {"verdict": "contradicted"}},
    {"match": "Claim: acme (Company) — founded — 1998.", "response": {"verdict": "supported"}},
    {"match": "Claim: Acme (Company) — ceo — Kari Nordmann", "response": {"verdict": "supported"}},
    {"match": "Claim: Acme (Company) — employs — Ola Berg", "response": {"verdict": "supported"}},
    {"match": "Claim: Acme (Company) — motto", "response": {"verdict": "not_found"}},
    {"match": "Claim: Brask (Company) — founded — 2001.", "response": {"verdict": "supported"}},
    {"match": "Claim: Brask (Company) — legal name", "response": {"verdict": "not_found"}},
]
"""Recorded answers: what a grounder says of each claim against ACME_TEXT and BRASK_TEXT."""


@pytest.fixture
def rows() -> list[TripleRow | Fact]:
    """The ten rows (a fresh list per test)."""
    return list(ROWS)
