"""The claim formats as surface.md's table renders them, and the prompts pinned to their versions."""

from __future__ import annotations

import hashlib
import json

import pytest

from openodke import Entity, Fact, Polarity
from openodke.ground import (
    PAPER,
    PROMPTS,
    SPAN,
    predicate_words,
    render_paper_claim,
    render_span_claim,
)

ADA = Entity(key="Person:ada lovelace", type="Person", label="Ada Lovelace")
LONDON = Entity(key="Location:london", type="Location", label="London")
ACME = Entity(key="Company:acme", type="Company", label="Acme")


@pytest.mark.parametrize(
    ("fact", "span", "paper"),
    [
        (
            Fact(subject=ADA, predicate="birthplace", object_entity=LONDON),
            "Ada Lovelace (Person) — birthplace — London (Location).",
            "<Ada Lovelace, birthplace, London>",
        ),
        (  # a literal object has no type
            Fact(subject=ADA, predicate="born", object_value=1815),
            "Ada Lovelace (Person) — born — 1815.",
            "<Ada Lovelace, born, 1815>",
        ),
        (  # denied polarity
            Fact(subject=ADA, predicate="born", object_value=1816, polarity=Polarity.denied),
            "It is NOT the case that: Ada Lovelace (Person) — born — 1816.",
            "NOT <Ada Lovelace, born, 1816>",
        ),
        (  # only identity qualifiers appear
            Fact(
                subject=ACME,
                predicate="uptime_commitment",
                object_value="99.9%",
                qualifiers={"percentile": "p50", "note": "from the SLA"},
                identity_keys=("percentile",),
            ),
            "Acme (Company) — uptime commitment (percentile: p50) — 99.9%.",
            "<Acme, uptime_commitment(percentile: p50), 99.9%>",
        ),
        (  # the literal as written wins over the normalised value
            Fact(
                subject=ADA,
                predicate="born",
                object_value="1815-12-10",
                qualifiers={"odke.source_form": "10 December 1815"},
            ),
            "Ada Lovelace (Person) — born — 10 December 1815.",
            "<Ada Lovelace, born, 10 December 1815>",
        ),
        (  # an untyped end shows no type; a key without a label gives its name
            Fact(subject=Entity(key="Thing:ada"), predicate="educatedAt", object_value=True),
            "ada — educated at — true.",
            "<ada, educatedAt, true>",
        ),
    ],
)
def test_claim_rendering(fact: Fact, span: str, paper: str) -> None:
    assert render_span_claim(fact) == span
    assert render_paper_claim(fact) == paper


@pytest.mark.parametrize(
    ("predicate", "words"),
    [
        ("educated_at", "educated at"),
        ("birthPlace", "birth place"),
        ("country of citizenship", "country of citizenship"),
        ("P17", "P17"),
        ("hasURL", "has URL"),
    ],
)
def test_predicate_words(predicate: str, words: str) -> None:
    assert predicate_words(predicate) == words


def test_span_messages_carry_the_claim_passage_and_prompt_key() -> None:
    messages = SPAN.messages("Ada Lovelace (Person) — born — 1815.", "Ada was born in 1815.")
    assert [m["role"] for m in messages] == ["system", "user"]
    assert all(m["prompt"] == "ground.span@1" for m in messages)
    assert messages[1]["content"] == (
        "Claim: Ada Lovelace (Person) — born — 1815.\n\nPassage:\nAda was born in 1815."
    )


def test_paper_messages_put_the_document_first() -> None:
    messages = PAPER.messages("<Ada, born, 1815>", "Ada was born in 1815.")
    assert messages[1]["content"] == (
        "Document:\nAda was born in 1815.\n\nTriple: <Ada, born, 1815>\n\n"
        "Is the triple true according to the document?"
    )


# Any change to a prompt's words must bump its version: these digests pin version 1 of each.
# Recompute only together with a new version (and a new entry here).
PINNED = {
    "ground.span@1": "f5e43ef68235",
    "ground.paper@1": "56e340c32ba4",
}


def _digest(key: str) -> str:
    prompt = PROMPTS[key]
    body = {"system": prompt.system, "template": prompt.template, "schema": prompt.schema}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@pytest.mark.parametrize("key", sorted(PROMPTS))
def test_prompt_text_is_pinned_to_its_version(key: str) -> None:
    assert _digest(key) == PINNED[key], f"{key}'s text changed: bump its version"


def test_registry_keys_are_id_at_version_with_their_formats() -> None:
    assert {k: p.claim_format for k, p in PROMPTS.items()} == {
        "ground.span@1": "span",
        "ground.paper@1": "paper",
    }
    assert SPAN.schema is not None
    assert SPAN.schema["properties"]["verdict"]["enum"] == [
        "supported",
        "contradicted",
        "not_found",
    ]
