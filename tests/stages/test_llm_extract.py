"""The llm extractor: snippets in, quotes checked against the chunk, rejections and failures kept."""

from __future__ import annotations

import json

import pytest

from openodke import Document
from openodke.llm import LLMResponse, ModelRoles, ProviderClient, RecordedClient, ScriptedClient
from openodke.stages import EXTRACT_PROMPT, LLMExtractor, PassthroughChunker, SentenceChunker
from tests.support.llm_server import Answer

TEXT = "Acme was founded in 1998. Kari Nordmann runs Acme.\nAcme is based in Oslo."
ROLES = ModelRoles.single("ollama/qwen2.5:7b")


def company(*facts: dict) -> dict:
    return {"type": "Company", "name": "Acme", "facts": list(facts)}


def chunked(doc: Document, max_words: int = 9):
    return [(doc, SentenceChunker(max_words=max_words).chunk(doc))]


def test_facts_cite_their_quote_in_document_offsets_and_bad_ones_are_rejected(ontology):
    doc = Document(id="acme.txt", text=TEXT)
    # max_words 9: "Acme was founded in 1998. Kari Nordmann runs Acme." (5 + 4 words) is chunk 0,
    # "Acme is based in Oslo." (5 words) chunk 1, starting at offset 51.
    first = {
        "entities": [
            company(
                {"predicate": "founded", "value": 1998, "quote": "founded in 1998", "start": 9},
                # Case and spacing differ: repaired, cited as the text has it.
                {"predicate": "ceo", "value": "Kari Nordmann", "quote": "kari  nordmann runs"},
                {"predicate": "ceo", "value": "Ola", "quote": "Ola runs Acme"},
                {"predicate": "motto", "value": "x", "quote": "Acme"},
                {"predicate": "founded", "value": "", "quote": "1998"},
                {"predicate": "founded", "value": 1998},
                "not a fact",
            ),
            {
                "type": "Planet",
                "name": "Mars",
                "facts": [{"predicate": "x", "value": 1, "quote": "a"}],
            },
        ]
    }
    second = {
        "entities": [
            # A wrong start: the quote is searched for instead.
            company({"predicate": "headquarters", "value": "Oslo", "quote": "Oslo", "start": 2})
        ]
    }
    client = ScriptedClient([first, second])
    extractor = LLMExtractor(ontology, client=client, roles=ROLES, max_workers=1)
    result = extractor.extract_batch(chunked(doc))
    got = [
        (f.subject.key, f.predicate, f.object_key, f.evidence[0].span.quote)  # type: ignore[union-attr]
        for f in result.facts
    ]
    assert got == [
        ("Company:acme", "founded", "1998", "founded in 1998"),
        ("Company:acme", "ceo", "Person:kari nordmann", "Kari Nordmann runs"),
        ("Company:acme", "headquarters", "City:oslo", "Oslo"),
    ]
    spans = [f.evidence[0].span for f in result.facts]
    assert [(s.start, s.end) for s in spans if s] == [(9, 24), (26, 44), (68, 72)]
    for span in spans:
        assert span is not None and TEXT[span.start : span.end] == span.quote
    assert {(f.extractor, f.confidence) for f in result.facts} == {("llm", 0.5)}
    assert [(r.chunk, r.reason, r.predicate) for r in result.rejections] == [
        (0, "quote not in chunk", "ceo"),
        (0, "unknown predicate", "motto"),
        (0, "no value", "founded"),
        (0, "no quote", "founded"),
        (0, "malformed", None),
        (0, "unknown type", "x"),
    ]
    assert result.stats["calls"] == 2 and result.stats["repaired"] == 1
    assert result.stats["rejected"] == 6 and result.stats["rejected: unknown type"] == 1
    assert result.failed == {}
    # The request: both messages carry the prompt id; the user message has each snippet and
    # the chunk; the schema lists the offered predicates.
    messages, spec, schema = client.calls[0]
    assert spec == ROLES.extract
    assert {m["prompt"] for m in messages} == {EXTRACT_PROMPT}
    assert "Entity type: Company" in messages[1]["content"]
    assert messages[1]["content"].endswith(
        "Text:\nAcme was founded in 1998. Kari Nordmann runs Acme."
    )
    assert schema is not None
    entity = schema["properties"]["entities"]["items"]
    assert entity["properties"]["type"]["enum"] == ["Company", "Person"]  # City offers nothing
    assert "works_for" in entity["properties"]["facts"]["items"]["properties"]["predicate"]["enum"]


def test_a_failed_call_marks_the_document_failed_and_never_raises(ontology):
    docs = [Document(id="a", text="Acme was founded in 1998."), Document(id="b", text="B.")]
    client = ScriptedClient(
        [
            {"entities": [company({"predicate": "founded", "value": 1998, "quote": "1998"})]},
            LLMResponse(model="ollama/qwen2.5:7b", error="HTTP 500 after 4 attempts"),
        ]
    )
    extractor = LLMExtractor(ontology, client=client, roles=ROLES, max_workers=1)
    items = [(d, PassthroughChunker().chunk(d)) for d in docs]
    result = extractor.extract_batch(items)
    assert len(result.facts) == 1
    assert result.failed == {"b": "chunk 0: HTTP 500 after 4 attempts"}
    assert result.stats["failed_calls"] == 1 and result.stats["failed_documents"] == 1


def test_a_reply_not_in_shape_is_asked_again_with_a_new_repeat(ontology):
    doc = Document(id="a", text="Acme was founded in 1998.")
    good = {"entities": [company({"predicate": "founded", "value": "1998", "quote": "1998"})]}
    client = ScriptedClient(["I think Acme was founded in 1998.", good])
    result = LLMExtractor(ontology, client=client, roles=ROLES, max_workers=1).extract_batch(
        [(doc, PassthroughChunker().chunk(doc))]
    )
    assert len(result.facts) == 1 and result.stats["retried"] == 1
    assert [spec.repeat for _, spec, _ in client.calls] == [0, 1]
    never = ScriptedClient(["prose", "more prose"])
    result = LLMExtractor(
        ontology, client=never, roles=ROLES, max_workers=1, retry=1
    ).extract_batch([(doc, PassthroughChunker().chunk(doc))])
    assert result.failed == {"a": 'chunk 0: the reply is not {"entities": [...]} JSON'}


def test_types_and_snippet_limit_decide_what_is_offered_and_never_offered(ontology):
    client = RecordedClient([{"match": "Text:", "response": {"entities": []}}])
    extractor = LLMExtractor(
        ontology, client=client, roles=ROLES, types=["Company"], snippet_limit=2, structured=False
    )
    doc = Document(id="a", text="Nothing here.")
    result = extractor.extract_batch([(doc, PassthroughChunker().chunk(doc))])
    assert result.facts == [] and result.failed == {}
    coverage = result.coverage
    assert coverage is not None and coverage["snippet_limit"] == 2
    # Company's predicates by importance (legal_name 0.9 first), then name.
    assert coverage["offered"] == {"Company": ["legal_name", "ceo"], "Person": [], "City": []}
    assert coverage["never_offered"]["Company"][:2] == ["employs", "founded"]
    assert coverage["never_offered"]["Person"] == ["born", "spouse", "works_for"]
    prompt = extractor.messages(PassthroughChunker().chunk(doc)[0])
    assert '{"entities": [{"type": "<entity type>"' in prompt[0]["content"]  # unstructured


def test_through_a_local_openai_compatible_server(ontology, llm_server):
    reply = json.dumps(
        {"entities": [company({"predicate": "founded", "value": 1998, "quote": "in 1998"})]}
    )
    server = llm_server("openai", [Answer(reply, contains=("Text:\nAcme was founded",))])
    roles = ModelRoles.single(server.spec("qwen2.5-7b-instruct"))
    with ProviderClient() as client:
        extractor = LLMExtractor(ontology, client=client, roles=roles)
        facts = extractor.extract(Document(id="a", text="Acme was founded in 1998."))
    assert [(f.predicate, f.object_value) for f in facts] == [("founded", 1998)]
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    body = request.body
    assert body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]["schema"]
    assert (
        "founded"
        in schema["properties"]["entities"]["items"]["properties"]["facts"]["items"]["properties"][
            "predicate"
        ]["enum"]
    )
    assert all("prompt" not in message for message in body["messages"])


@pytest.mark.parametrize(
    ("options", "message"), [({"retry": -1}, "retry"), ({"max_workers": 0}, "max_workers")]
)
def test_bad_options(ontology, options, message):
    from openodke.errors import InputError

    with pytest.raises(InputError, match=message):
        LLMExtractor(ontology, client=ScriptedClient([]), **options)
