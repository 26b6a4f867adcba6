"""LLMGrounder through scripted and recorded clients: verdicts, failures, formats, locate, widen."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from openodke import Document, Entity, Evidence, Fact, GroundingVerdict, Span, SpanOrigin
from openodke.errors import BudgetStop, ModelConfigError
from openodke.ground import WIDEN, LLMGrounder
from openodke.llm import LLMResponse, ModelRoles, ModelSpec, RecordedClient, ScriptedClient
from openodke.llm.parse import joined

V = GroundingVerdict
TEXT = "Ada Lovelace was born in London in 1815. She wrote the first program."
DOC = Document(id="d1", text=TEXT)
ADA = Entity(key="Person:ada lovelace", type="Person", label="Ada Lovelace")
ROLES = ModelRoles.single("ollama/qwen2.5:3b")


def fact(predicate: str, value: object, span: tuple[int, int] | None = None, **fields: Any) -> Fact:
    if span is None:
        evidence = (
            Evidence(
                doc_id="d1",
                span=Span(doc_id="d1", start=0, end=len(TEXT)),
                span_origin=SpanOrigin.context,
            ),
        )
    else:
        evidence = (Evidence(doc_id="d1", span=Span(doc_id="d1", start=span[0], end=span[1])),)
    return Fact(subject=ADA, predicate=predicate, object_value=value, evidence=evidence, **fields)  # type: ignore[arg-type]


def test_one_question_per_fact_with_the_schema_and_ground_spec() -> None:
    client = ScriptedClient([{"verdict": "supported"}])
    grounder = LLMGrounder(ROLES, client=client)
    out = grounder.ground(fact("born", 1815), DOC)
    assert out.verdict is V.supported
    messages, spec, schema = client.calls[0]
    assert spec.model == "ollama/qwen2.5:3b" and spec.max_tokens == 256
    assert schema is not None and schema["required"] == ["verdict"]
    assert (
        messages[1]["content"] == f"Claim: Ada Lovelace (Person) — born — 1815.\n\nPassage:\n{TEXT}"
    )
    assert grounder.claim_formats == {"ground.span@1": "span"}
    assert grounder.judges == [
        {"role": "ground", "model": "ollama/qwen2.5:3b", "prompt": "ground.span@1"}
    ]


def test_a_cited_span_is_the_passage() -> None:
    client = ScriptedClient(["not_found"])
    LLMGrounder(ROLES, client=client).ground(fact("wrote", "program", span=(41, 69)), DOC)
    assert client.calls[0][0][1]["content"].endswith("Passage:\nShe wrote the first program.")


def test_context_document_shows_the_whole_text_even_for_a_cited_span() -> None:
    client = ScriptedClient(["supported"])
    LLMGrounder(ROLES, client=client, context="document").ground(
        fact("born", 1815, span=(0, 3)), DOC
    )
    assert client.calls[0][0][1]["content"].endswith(f"Passage:\n{TEXT}")


def test_the_paper_format_asks_true_or_false_about_the_whole_document() -> None:
    client = ScriptedClient(["True", "False"])
    grounder = LLMGrounder(ROLES, client=client, claim_format="paper")
    out = [
        grounder.ground(fact(p, v, span=(0, 3)), DOC).verdict
        for p, v in (("born", 1815), ("died", 1852))
    ]
    assert out == [V.supported, V.not_found]
    messages, _, schema = client.calls[0]
    assert schema is None
    assert messages[1]["content"].startswith(
        f"Document:\n{TEXT}\n\nTriple: <Ada Lovelace, born, 1815>"
    )
    assert grounder.claim_formats == {"ground.paper@1": "paper"}
    assert LLMGrounder(ROLES, client=client, verdicts="binary").prompt.key == "ground.paper@1"


@pytest.mark.parametrize(
    "answer",
    [
        LLMResponse(model="ollama/qwen2.5:3b", error="HTTP 500 after 4 attempts"),
        "I think the passage is about Ada.",
    ],
    ids=["failed call", "prose"],
)
def test_a_failed_or_unreadable_call_leaves_the_fact_unchecked_and_is_counted(answer: Any) -> None:
    grounder = LLMGrounder(ROLES, client=ScriptedClient([answer]))
    came = fact("born", 1815, verdict=V.supported)
    out = grounder.ground(came, DOC)
    assert out.verdict is V.unchecked and out.id == came.id
    stats = grounder.stats
    assert (stats["calls"], stats["failed"], stats["checked"]) == (1, 1, 0)
    assert stats["verdicts"]["unchecked"] == 1


class Raising:
    """A client that raises instead of returning an error result."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def complete(
        self, messages: Sequence[Any], spec: ModelSpec, schema: Mapping[str, Any] | None = None
    ) -> LLMResponse:
        raise self.error


def test_a_client_that_raises_is_a_failed_call_not_a_crash() -> None:
    grounder = LLMGrounder(ROLES, client=Raising(ConnectionError("reset by peer")))
    assert grounder.ground(fact("born", 1815), DOC).verdict is V.unchecked
    assert grounder.stats["failed"] == 1


@pytest.mark.parametrize("error", [BudgetStop("budget: 10 calls"), ModelConfigError("no key")])
def test_a_budget_stop_or_a_model_config_error_passes_through(error: Exception) -> None:
    with pytest.raises(type(error)):
        LLMGrounder(ROLES, client=Raising(error)).ground(fact("born", 1815), DOC)


def test_tokens_and_cost_add_up_and_an_unpriced_call_makes_the_cost_unknown() -> None:
    answers = [
        LLMResponse(
            text='{"verdict":"supported"}',
            parsed={"verdict": "supported"},
            model="m",
            prompt_tokens=100,
            completion_tokens=5,
            cost_usd=0.002,
        ),
        LLMResponse(
            text='{"verdict":"supported"}',
            parsed={"verdict": "supported"},
            model="m",
            cost_usd=0.0,
            cached=True,
        ),
        LLMResponse(
            text='{"verdict":"not_found"}',
            parsed={"verdict": "not_found"},
            model="m",
            prompt_tokens=90,
            completion_tokens=6,
            cost_usd=0.001,
        ),
    ]
    grounder = LLMGrounder(ROLES, client=ScriptedClient(answers))
    for _ in answers:
        grounder.ground(fact("born", 1815), DOC)
    stats = grounder.stats
    # 100 + 5 + 90 + 6 = 201 tokens from the two live calls; the cached one spends none.
    assert (stats["tokens"], stats["cached"], stats["cost_usd"]) == (201, 1, pytest.approx(0.003))
    grounder = LLMGrounder(ROLES, client=ScriptedClient([answers[0], "supported"]))
    grounder.ground(fact("born", 1815), DOC)
    grounder.ground(fact("born", 1815), DOC)
    assert grounder.stats["cost_usd"] is None and grounder.stats["priced_usd"] == pytest.approx(
        0.002
    )


def test_locate_shows_the_located_window_and_marks_the_evidence() -> None:
    text = "Intro line here. Ada Lovelace was born in London. She died in 1852."
    doc = Document(id="d1", text=text)
    london = Fact(
        subject=ADA,
        predicate="birthplace",
        object_entity=Entity(key="Location:london", type="Location", label="London"),
        evidence=(Evidence(doc_id="d1", span_origin=SpanOrigin.context),),
    )
    client = ScriptedClient(["supported"])
    grounder = LLMGrounder(ROLES, client=client, locate=True)
    out = grounder.ground(london, doc)
    assert client.calls[0][0][1]["content"].endswith("Passage:\nAda Lovelace was born in London.")
    ev = out.evidence[0]
    assert (ev.span_origin, text[ev.span.start : ev.span.end]) == (
        SpanOrigin.located,
        "Ada Lovelace was born in London.",
    )
    assert grounder.stats["located"] == 1


def test_locate_finding_nothing_shows_the_whole_document() -> None:
    client = ScriptedClient(["not_found"])
    out = LLMGrounder(ROLES, client=client, locate=True).ground(fact("died", 1852), DOC)
    assert client.calls[0][0][1]["content"].endswith(f"Passage:\n{TEXT}")
    assert out.evidence[0].span_origin is SpanOrigin.context


def test_widen_retries_a_narrow_not_found_against_its_sentence_once() -> None:
    client = ScriptedClient(["not_found", "supported"])
    grounder = LLMGrounder(ROLES, client=client, widen=True)
    out = grounder.ground(fact("born", 1815, span=(25, 31)), DOC)  # cites "London"
    passages = [call[0][1]["content"].split("Passage:\n")[1] for call in client.calls]
    assert passages == ["London", "Ada Lovelace was born in London in 1815."]
    assert out.verdict is V.supported
    assert out.qualifiers[WIDEN] == {"span": [0, 40], "was": "not_found"}
    assert grounder.stats["widened"] == 1 and grounder.stats["calls"] == 2


@pytest.mark.parametrize(
    ("span", "first"),
    [((0, 40), "not_found"), ((25, 31), "supported"), (None, "not_found")],
    ids=["already the sentence", "answered first time", "whole document"],
)
def test_widen_does_not_retry(span: tuple[int, int] | None, first: str) -> None:
    client = ScriptedClient([first, "supported"])
    out = LLMGrounder(ROLES, client=client, widen=True).ground(fact("born", 1815, span=span), DOC)
    assert len(client.calls) == 1 and WIDEN not in out.qualifiers


def test_a_failed_widened_retry_keeps_the_first_answer() -> None:
    client = ScriptedClient(["not_found", LLMResponse(model="m", error="timeout")])
    grounder = LLMGrounder(ROLES, client=client, widen=True)
    out = grounder.ground(fact("born", 1815, span=(25, 31)), DOC)
    assert out.verdict is V.not_found and grounder.stats["failed"] == 1


class Jittery:
    """Answers from a recording after a delay that varies by claim, so calls finish out of order."""

    def __init__(self, recorded: RecordedClient) -> None:
        self.recorded = recorded
        self.in_flight = 0
        self.most = 0
        self._lock = threading.Lock()

    def complete(
        self, messages: Sequence[Any], spec: ModelSpec, schema: Mapping[str, Any] | None = None
    ) -> LLMResponse:
        with self._lock:
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
        number = int(joined(messages).split("— ")[-1].split(".")[0])
        time.sleep(0.002 * (7 - number % 7))
        with self._lock:
            self.in_flight -= 1
        return self.recorded.complete(messages, spec, schema)


def test_ground_all_runs_concurrently_and_keeps_input_order() -> None:
    recorded = RecordedClient(
        [
            {"match": f"— {n}.", "response": {"verdict": "supported" if n % 3 else "not_found"}}
            for n in range(40)
        ]
    )
    client = Jittery(recorded)
    grounder = LLMGrounder(ROLES, client=client, max_workers=8)
    facts = [fact("count", n) for n in range(40)]
    out = grounder.ground_all([(f, DOC) for f in facts])
    assert [f.id for f in out] == [f.id for f in facts]
    assert [f.verdict for f in out] == [V.supported if n % 3 else V.not_found for n in range(40)]
    assert 1 < client.most <= 8
    assert grounder.stats["calls"] == 40 and grounder.stats["facts"] == 40


def test_plan_lists_the_calls_without_making_any() -> None:
    client = ScriptedClient([])
    grounder = LLMGrounder(ROLES, client=client)
    plan = grounder.plan([(fact("born", 1815), DOC), (fact("died", 1852), DOC)])
    assert [(p.model, p.prompt) for p in plan] == [("ollama/qwen2.5:3b", "ground.span@1")] * 2
    assert "— 1852." in plan[1].messages[1]["content"]
    assert client.calls == [] and grounder.stats["calls"] == 0


@pytest.mark.parametrize(
    "options",
    [{"claim_format": "table"}, {"context": "chunk"}, {"verdicts": "ternary"}, {"max_workers": 0}],
)
def test_bad_options_are_refused_before_any_call(options: dict[str, Any]) -> None:
    with pytest.raises(ModelConfigError):
        LLMGrounder(ROLES, client=ScriptedClient([]), **options)


def test_a_model_string_or_spec_is_the_ground_model() -> None:
    assert LLMGrounder("openai/gpt-4o-mini", client=ScriptedClient([])).spec.max_tokens == 256
    spec = ModelSpec(model="openai/gpt-4o-mini", max_tokens=64)
    assert LLMGrounder(spec, client=ScriptedClient([])).spec is spec
