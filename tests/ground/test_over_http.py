"""LLMGrounder over real HTTP: the local replay servers of each protocol, with faults injected.

Nothing is mocked below HTTP: the grounder builds the same client a run builds (``client_for``),
with a retry policy whose sleep returns at once so the faults cost no wall time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from openodke import Document, Entity, Evidence, Fact, GroundingVerdict, Span
from openodke.errors import ModelConfigError
from openodke.ground import CheckedGrounder, LLMGrounder
from openodke.llm import RetryPolicy, client_for
from tests.support.llm_server import Answer

V = GroundingVerdict
TEXT = (
    "Ada Lovelace was born in London in 1815. She wrote the first program. "
    "Her father was Lord Byron. She died in 1852."
)
DOC = Document(id="ada.txt", text=TEXT)
ADA = Entity(key="Person:ada lovelace", type="Person", label="Ada Lovelace")
CLAIMS = {
    "born": (1815, "supported"),
    "died": (1852, "supported"),
    "wrote": ("the first program", "supported"),
    "father": ("Lord Byron", "supported"),
    "married": ("Charles Babbage", "not_found"),
    "birthplace": ("Paris", "contradicted"),
}


def fact(predicate: str) -> Fact:
    value = CLAIMS[predicate][0]
    span = Span(doc_id="ada.txt", start=0, end=len(TEXT))
    return Fact(
        id=predicate,
        subject=ADA,
        predicate=predicate,
        object_value=value,
        evidence=(Evidence(doc_id="ada.txt", span=span),),
    )


ANSWERS = [
    Answer(f'{{"verdict": "{verdict}"}}', contains=(f"— {predicate} — {value}.",))
    for predicate, (value, verdict) in CLAIMS.items()
]
FACTS = [fact(p) for p in CLAIMS]
EXPECTED = [V(verdict) for _, verdict in CLAIMS.values()]


def fast(**options: object) -> RetryPolicy:
    return RetryPolicy(sleep=lambda seconds: None, jitter=0.0, **options)  # type: ignore[arg-type]


@pytest.fixture
def live():
    """``live(spec, **options)``: a client_for(spec) with instant retries; all closed at the end."""
    made = []

    def make(spec, **options):
        options.setdefault("cache", False)
        options.setdefault("retry", fast())
        made.append(client_for(spec, **options))
        return made[-1]

    yield make
    for client in made:
        client.close()


@pytest.mark.parametrize("protocol", ["ollama", "openai", "anthropic"])
def test_every_protocol_grounds_every_fact(llm_server, live, protocol: str) -> None:
    server = llm_server(protocol, ANSWERS)
    spec = server.spec("judge", max_tokens=256)
    client = live(spec, env={"ANTHROPIC_API_KEY": "sk-test"})
    grounder = LLMGrounder(spec, client=client, max_workers=4)
    out = grounder.ground_all([(f, DOC) for f in FACTS])
    assert [f.verdict for f in out] == EXPECTED
    assert len(server.requests) == len(FACTS)
    body = server.requests[0].body
    if protocol == "ollama":
        assert body["format"]["required"] == ["verdict"]
    elif protocol == "openai":
        assert body["response_format"]["type"] == "json_schema"
    else:
        assert body["tool_choice"] == {"type": "tool", "name": "reply"}
        assert body["tools"][0]["input_schema"]["required"] == ["verdict"]
    stats = grounder.stats
    assert (stats["calls"], stats["failed"], stats["checked"]) == (6, 0, 6)
    assert stats["tokens"] > 0  # counted by the server: words in and out


def test_faults_are_retried_or_leave_the_fact_unchecked_and_counted(llm_server, live) -> None:
    server = llm_server("openai", ANSWERS)
    # Retried away (each fires fewer times than the 4 attempts):
    server.fault("429", match="— born —", retry_after=0.01)
    server.fault("500", match="— died —", times=2)
    server.fault("cut", match="— father —")
    # Not retried (a 200 whose body is not JSON is not a transient failure): a failed call.
    server.fault("malformed", match="— wrote —")
    # Fails every attempt.
    server.fault("500", match="— married —", times=4)
    server.fault("hang", match="— birthplace —", times=4, seconds=2.0)
    spec = server.spec("judge", max_tokens=256, timeout=0.2)
    grounder = LLMGrounder(spec, client=live(spec), max_workers=6)
    out = grounder.ground_all([(f, DOC) for f in FACTS])
    # born, died, father answered after their retries; wrote, married, birthplace left unchecked.
    assert [f.verdict for f in out] == [
        V.supported,
        V.supported,
        V.unchecked,
        V.supported,
        V.unchecked,
        V.unchecked,
    ]
    assert [f.id for f in out] == [f.id for f in FACTS]
    stats = grounder.stats
    assert (stats["calls"], stats["failed"], stats["checked"]) == (6, 3, 3)
    assert stats["verdicts"] == {"unchecked": 3, "supported": 3, "contradicted": 0, "not_found": 0}
    assert sorted(server.faults_fired) == sorted(
        ["429", "500", "500", "malformed", "cut"] + ["500"] * 4 + ["hang"] * 4
    )


def test_a_cached_rerun_makes_no_request(llm_server, tmp_path: Path) -> None:
    server = llm_server("ollama", ANSWERS)
    spec = server.spec("judge", max_tokens=256)
    with LLMGrounder(spec, retry={"sleep": lambda s: None}, cache=tmp_path) as first:
        assert [f.verdict for f in first.ground_all([(f, DOC) for f in FACTS])] == EXPECTED
    with LLMGrounder(spec, cache=tmp_path) as again:
        assert [f.verdict for f in again.ground_all([(f, DOC) for f in FACTS])] == EXPECTED
    assert len(server.requests) == len(FACTS)
    assert (again.stats["calls"], again.stats["cached"], again.stats["cost_usd"]) == (6, 6, 0.0)


def test_the_paper_format_over_ollama_sends_no_schema(llm_server, live) -> None:
    server = llm_server("ollama", [Answer("True", contains=("<Ada Lovelace, born, 1815>",))])
    spec = server.spec("judge")
    grounder = LLMGrounder(spec, client=live(spec), claim_format="paper")
    assert grounder.ground(fact("born"), DOC).verdict is V.supported
    assert "format" not in server.requests[0].body


def test_a_missing_key_or_unknown_provider_stops_before_any_call(monkeypatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ModelConfigError, match="ANTHROPIC_API_KEY"):
        LLMGrounder("anthropic/claude-haiku-4-5-20251001", cache=False)
    with pytest.raises(ModelConfigError):
        LLMGrounder("nosuch/model", cache=False)


def test_free_checks_spare_the_server(llm_server, live) -> None:
    server = llm_server("openai", ANSWERS)
    spec = server.spec("judge")
    grounder = CheckedGrounder(LLMGrounder(spec, client=live(spec)))
    quoted = fact("born").model_copy(
        update={
            "evidence": (
                Evidence(
                    doc_id="ada.txt", span=Span(doc_id="ada.txt", start=0, end=9, quote="in 1816")
                ),
            )
        }
    )
    out = grounder.ground_all([(quoted, DOC), (fact("died"), DOC)])
    assert [f.verdict for f in out] == [V.not_found, V.supported]
    assert len(server.requests) == 1
