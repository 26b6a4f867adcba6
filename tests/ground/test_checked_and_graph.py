"""CheckedGrounder (free checks in front of any grounder), ground_graph and the summary's shapes."""

from __future__ import annotations

from openodke import Document, Entity, Evidence, Fact, GroundingVerdict, Span, SpanOrigin
from openodke.ground import (
    CHECK,
    WIDEN,
    CheckedGrounder,
    LLMGrounder,
    failure_shapes,
    ground_graph,
    ground_summary,
)
from openodke.interop import TripleRow
from openodke.llm import ModelRoles, RecordedClient, ScriptedClient
from openodke.ontology import Ontology

V = GroundingVerdict
TEXT = "Halden Robotics was founded in Oslo in 2011. It makes welding arms."
DOC = Document(id="halden.txt", text=TEXT)
HALDEN = Entity(key="Company:halden robotics", type="Company", label="Halden Robotics")
ONTOLOGY = Ontology.from_dict(
    {
        "types": {"Company": {}, "City": {}},
        "predicates": {
            "founded_in": {"domain": ["Company"], "range": "City"},
            "founded": {"domain": ["Company"], "range": "integer"},
        },
    }
)
ROLES = ModelRoles.single("ollama/qwen2.5:3b")


def cited(
    predicate: str,
    value: object,
    start: int,
    end: int,
    quote: str | None = None,
    doc: str = "halden.txt",
) -> Fact:
    span = Span(doc_id=doc, start=start, end=end, quote=quote)
    return Fact(
        subject=HALDEN,
        predicate=predicate,
        object_value=value,
        evidence=(Evidence(doc_id=doc, span=span),),
    )  # type: ignore[arg-type]


def test_a_free_not_found_never_reaches_the_model() -> None:
    client = ScriptedClient([{"verdict": "supported"}])
    grounder = CheckedGrounder(LLMGrounder(ROLES, client=client))
    missing = grounder.ground(cited("founded", 2012, 0, 4, "in 2012"), DOC)
    assert missing.verdict is V.not_found and client.calls == []
    found = grounder.ground(cited("founded", 2011, 0, 44), DOC)
    assert found.verdict is V.supported and len(client.calls) == 1
    stats = grounder.stats
    assert stats["free_not_found"] == 1 and stats["calls"] == 1
    assert stats["verdicts"] == {"unchecked": 0, "supported": 1, "contradicted": 0, "not_found": 1}
    assert grounder.claim_formats == {"ground.span@1": "span"}


def test_schema_misfits_are_written_and_the_model_still_asked() -> None:
    client = ScriptedClient(["supported"])
    grounder = CheckedGrounder(LLMGrounder(ROLES, client=client), ONTOLOGY)
    out = grounder.ground(cited("headquarters", "Oslo", 0, 44), DOC)
    assert out.verdict is V.supported
    assert out.qualifiers[CHECK] == "schema: predicate 'headquarters' is not in the ontology"
    assert grounder.stats["schema_misfits"] == 1


def test_without_an_inner_grounder_only_the_free_checks_run() -> None:
    grounder = CheckedGrounder()
    facts = [cited("founded", 2011, 0, 44), cited("founded", 2012, 0, 4, "2012")]
    out = grounder.ground_all([(f, DOC) for f in facts])
    assert [f.verdict for f in out] == [V.unchecked, V.not_found]
    assert grounder.stats["calls"] == 0 and grounder.stats["checked"] == 1
    assert grounder.plan([(f, DOC) for f in facts]) == []


def test_ground_all_asks_only_the_unsettled_facts_in_order() -> None:
    recorded = RecordedClient(
        [
            {"match": "— 2011.", "response": {"verdict": "supported"}},
            {"match": "— 2010.", "response": {"verdict": "contradicted"}},
        ]
    )
    grounder = CheckedGrounder(LLMGrounder(ROLES, client=recorded, max_workers=4))
    facts = [
        cited("founded", 2011, 0, 44),
        cited("founded", 1999, 0, 4, "1999"),
        cited("founded", 2010, 0, 44),
    ]
    out = grounder.ground_all([(f, DOC) for f in facts])
    assert [f.verdict for f in out] == [V.supported, V.not_found, V.contradicted]
    assert [p.fact_id for p in grounder.plan([(f, DOC) for f in facts])] == [
        facts[0].id,
        facts[2].id,
    ]


def test_a_plain_function_grounder_works_behind_the_checks() -> None:
    def always(fact: Fact, document: Document) -> Fact:
        return fact.model_copy(update={"verdict": V.supported})

    out = CheckedGrounder(always).ground_all([(cited("founded", 2011, 0, 44), DOC)])
    assert out[0].verdict is V.supported


def test_ground_graph_from_triples_rows_and_facts() -> None:
    rows = [
        TripleRow(
            doc="halden",
            subject="Halden Robotics",
            predicate="founded",
            object=2011,
            start=0,
            end=44,
        ),
        TripleRow(
            doc="halden",
            subject="Halden Robotics",
            predicate="founded",
            object=2012,
            quote="in 2012",
        ),
        TripleRow(doc="elsewhere", subject="Halden Robotics", predicate="founded", object=2011),
    ]
    fact = cited("founded_in", "Oslo", 31, 35, "Oslo", doc="halden")  # cites the stem: rehomed
    recorded = RecordedClient([{"match": "Passage:\n", "response": {"verdict": "supported"}}])
    graph = ground_graph(
        [*rows, fact], [DOC], LLMGrounder(ROLES, client=recorded), ontology=ONTOLOGY
    )
    assert [f.verdict for f in graph.facts] == [V.supported, V.not_found, V.unchecked, V.supported]
    assert graph.facts[3].evidence[0].doc_id == "halden.txt"
    stats = graph.stats["stages"]["grounder"]
    assert stats["no_document"] == 1 and stats["facts"] == 4
    assert stats["verdicts"]["unchecked"] == 1
    assert graph.stats["claim_formats"] == {"ground.span@1": "span"}
    assert {e.key for e in graph.entities} == {"Company:halden robotics"}


def test_ground_graph_without_a_grounder_runs_the_free_checks() -> None:
    graph = ground_graph([cited("founded", 2012, 0, 4, "2012")], [DOC])
    assert graph.facts[0].verdict is V.not_found
    assert graph.stats["stages"]["grounder"]["free_not_found"] == 1
    assert graph.stats["prompts"] == []


def test_failure_shapes_split_too_narrow_from_unsupported() -> None:
    narrow = cited("founded_in", "Oslo", 31, 35).model_copy(
        update={"id": "narrow", "verdict": V.not_found}
    )
    widened = narrow.model_copy(
        update={
            "id": "widened",
            "verdict": V.supported,
            "qualifiers": {WIDEN: {"span": [0, 44], "was": "not_found"}},
        }
    )
    whole = cited("founded", 1999, 0, 44).model_copy(
        update={"id": "whole", "verdict": V.contradicted}
    )
    context = Fact(
        id="context",
        subject=HALDEN,
        predicate="ceo",
        object_value="Ada",
        evidence=(
            Evidence(
                doc_id="halden.txt",
                span=Span(doc_id="halden.txt", start=0, end=len(TEXT)),
                span_origin=SpanOrigin.context,
            ),
        ),
        verdict=V.not_found,
    )
    fine = cited("founded", 2011, 0, 44).model_copy(update={"id": "fine", "verdict": V.supported})
    shapes = failure_shapes(
        [narrow, widened, whole, context, fine], {"halden.txt": DOC}, examples=1
    )
    assert shapes["too_narrow"]["ids"] == ["narrow", "widened"]
    assert shapes["unsupported"]["ids"] == ["whole", "context"]
    assert shapes["too_narrow"]["examples"] == [
        {
            "id": "narrow",
            "claim": "Halden Robotics (Company) — founded in — Oslo.",
            "verdict": "not_found",
            "cited": "Oslo",
            "sentence": "Halden Robotics was founded in Oslo in 2011.",
        }
    ]
    summary = ground_summary([narrow, fine], {"halden.txt": DOC}, {"calls": 2, "failed": 1})
    assert summary["verdicts"] == {
        "unchecked": 0,
        "supported": 1,
        "contradicted": 0,
        "not_found": 1,
    }
    assert (summary["calls"], summary["failed"], summary["too_narrow"]["count"]) == (2, 1, 1)
