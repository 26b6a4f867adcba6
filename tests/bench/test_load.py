"""Loading bench sets, aligning predictions onto gold keys, and benchmark submission files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openodke.bench import (
    BenchSet,
    align,
    facts_to_responses,
    gold_submission,
    load_bench,
    read_submission,
    score_official,
)
from openodke.errors import InputError
from openodke.eval.stages.extract import evaluate_extraction
from openodke.types import Entity, Evidence, Fact, Span
from tests.bench.conftest import TEKGEN, read_jsonl


def cite(doc_id: str) -> tuple[Evidence, ...]:
    return (Evidence(doc_id=doc_id),)


def edge(subject: Entity, predicate: str, obj: Entity, doc_id: str | None) -> Fact:
    return Fact(
        subject=subject,
        predicate=predicate,
        object_entity=obj,
        evidence=cite(doc_id) if doc_id else (),
    )


# --- loading -----------------------------------------------------------------------------


def test_redocred_set_loads(redocred_bench: BenchSet, redocred_test: list[dict[str, Any]]) -> None:
    bench = redocred_bench
    assert bench.dataset == "redocred" and bench.title == "Re-DocRED test (first 50 of 500)"
    assert [d.id for d in bench.documents] == [f"test_{i:04d}" for i in range(50)]
    assert bench.documents[1].title == "Vladimir Mitrofanovich Orlov"
    assert len(bench.gold) == 1_747
    assert all(g.fact.doc_ids == (g.doc_id,) for g in bench.gold)
    assert {g.doc_id for g in bench.gold} == {d.id for d in bench.documents}
    assert ("follows", "followed_by") in bench.inverses
    assert bench.config == bench.path / "odke.json" and bench.competitors == {}
    orlov = [
        g.fact for g in bench.gold if g.doc_id == "test_0001" and g.fact.predicate == "educated_at"
    ]
    assert [(f.subject.key, f.object_entity.key if f.object_entity else None) for f in orlov] == [
        ("Person:vladimir mitrofanovich orlov", "Organization:st petersburg university")
    ]


def test_redocred_gold_keys_are_unique_per_document(redocred_bench: BenchSet) -> None:
    for doc in redocred_bench.documents:
        keys = [e.key for e in redocred_bench.entities(doc.id)]
        assert len(keys) == len(set(keys)), doc.id
    # test_0003 has two LOC entries first named "Bantustan": the later one is index 13.
    keys = [e.key for e in redocred_bench.entities("test_0003")]
    assert keys.count("Location:bantustan") == 1 and keys[13] == "Location:bantustan#13"


def test_movie_set_loads(movie_bench: BenchSet) -> None:
    bench = movie_bench
    assert bench.dataset == "text2kgbench" and len(bench.documents) == 840
    assert bench.documents[0].id == "ont_1_movie_test_1"  # dataset order, not file-name order
    assert sorted(bench.competitors) == ["Alpaca-LoRA-13B", "Vicuna-13B"]
    assert bench.verified_ids is not None and len(bench.verified_ids) == 174
    first = [g.fact for g in bench.gold if g.doc_id == "ont_1_movie_test_1"]
    assert [(f.subject.key, f.predicate, f.object_key) for f in first] == [
        ("Film:bleach : hell verse", "director", "Human:noriyuki abe"),
        ("Film:bleach : hell verse", "publication_date", "'01 January 2010'"),
    ]


def test_not_a_bench_set(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a bench set"):
        load_bench(tmp_path)


# --- alignment ---------------------------------------------------------------------------

ORLOV = "Person:vladimir mitrofanovich orlov"
SPBU = "Organization:st petersburg university"


@pytest.mark.parametrize(
    ("fact", "subject", "obj"),
    [
        # the gold's own keys
        (edge(Entity(key=ORLOV, type="Person"), "educated_at", Entity(key=SPBU), "test_0001"), ORLOV, SPBU),
        # another mention name ("Orlov"), the relation's label, the object as a literal
        (
            Fact(subject=Entity(key="Person:orlov", type="Person", label="Orlov"), predicate="educated at",
                 object_value="St  Petersburg University", evidence=cite("test_0001")),
            ORLOV, SPBU,
        ),
        # the Wikidata id as the predicate; a key with no label; case and spacing differ
        (edge(Entity(key="Person:ORLOV"), "P69", Entity(key="x", label="st petersburg UNIVERSITY"), "test_0001"), ORLOV, SPBU),
        # tokenized text: "July 15 , 1895" matches "July 15, 1895" once spaces are ignored
        (
            Fact(subject=Entity(key="Person:orlov", type="Person"), predicate="date_of_birth",
                 object_value="July 15, 1895", evidence=cite("test_0001")),
            ORLOV, "Time:july 15 , 1895",
        ),
    ],
)  # fmt: skip
def test_redocred_alignment_by_any_mention_name(
    redocred_bench: BenchSet, fact: Fact, subject: str, obj: str
) -> None:
    (aligned,), failed = align(redocred_bench, [fact])
    assert failed == 0
    assert (aligned.subject.key, aligned.object_key) == (subject, obj)
    assert aligned.predicate in {"educated_at", "date_of_birth"}
    assert aligned.subject.type == "Person"


def test_redocred_alignment_failures_are_counted(redocred_bench: BenchSet) -> None:
    good = edge(Entity(key=ORLOV), "educated_at", Entity(key=SPBU), "test_0001")
    facts = [
        edge(
            Entity(key="Person:nobody"), "educated_at", Entity(key=SPBU), "test_0001"
        ),  # no such name
        edge(
            Entity(key=ORLOV), "educated_at", Entity(key=SPBU), "test_0000"
        ),  # not in that document
        edge(Entity(key=ORLOV), "educated_at", Entity(key=SPBU), None),  # cites nothing
        good,
    ]
    aligned, failed = align(redocred_bench, facts)
    assert failed == 3
    assert aligned[0] == facts[0] and aligned[3].subject.key == ORLOV


@pytest.mark.parametrize(
    ("doc_id", "name", "predicted_type", "index"),
    [
        ("test_0004", "Marilyn Manson", "Person", 7),  # the band (2, ORG) and the man (7, PER)
        ("test_0004", "Marilyn Manson", "Organization", 2),
        ("test_0004", "Marilyn Manson", "Thing", 2),  # no type matches: the lowest index
        ("test_0007", "Vauban", "Person", 13),  # 13's first mention is "Sébastien Le Prestre"
        ("test_0007", "Vauban", "Misc", 0),
        ("test_0007", "Vauban", None, 0),  # 0's first mention is "Vauban"
    ],
)
def test_redocred_prefers_the_predicted_type_then_the_first_mention(
    redocred_bench: BenchSet, doc_id: str, name: str, predicted_type: str | None, index: int
) -> None:
    assert redocred_bench.find_entity(doc_id, [name], predicted_type) == index


def test_text2kg_alignment_rebuilds_keys_from_domain_and_range(movie_bench: BenchSet) -> None:
    facts = [
        edge(Entity(key="Thing:bleach : hell verse", label="Bleach : Hell Verse"), "Director",
             Entity(key="noriyuki abe", label="Noriyuki Abe"), "ont_1_movie_test_1"),
        edge(Entity(key="Film:bleach : hell verse"), "publication date",
             Entity(key="Time:01 january 2010", type="Time", label="01 January 2010"), "ont_1_movie_test_1"),
        edge(Entity(key="Film:keyboard cat"), "film_award", Entity(key="award"), "ont_1_movie_test_2"),
    ]  # fmt: skip
    aligned, failed = align(movie_bench, facts)
    assert failed == 1  # film_award is not in the ontology
    gold = {g.fact.signature for g in movie_bench.gold if g.doc_id == "ont_1_movie_test_1"}
    assert {f.signature for f in aligned[:2]} == gold
    assert (aligned[2].predicate, aligned[2].subject.key) == ("film_award", "Thing:keyboard cat")
    report = evaluate_extraction(
        movie_bench.gold, aligned[:2], documents=[d.id for d in movie_bench.documents]
    )
    assert (report.metrics["tp"], report.metrics["fp"]) == (2, 0)


# --- submission files --------------------------------------------------------------------


def test_text2kg_response_rows_read_as_facts(movie_bench: BenchSet) -> None:
    path = movie_bench.competitors["Vicuna-13B"] / "responses.jsonl"
    facts = read_submission(path, movie_bench)
    rows = read_jsonl(
        TEKGEN / "baselines" / "Vicuna-13B" / "llm_responses" / "ont_1_movie_llm_responses.jsonl"
    )
    assert len(facts) == sum(len(row["triples"]) for row in rows) == 4_780
    prepared = read_jsonl(movie_bench.competitors["Vicuna-13B"] / "facts.jsonl")
    assert [f.signature for f in facts] == [Fact.model_validate(row).signature for row in prepared]


def test_docred_submission_reads_as_facts(redocred_bench: BenchSet, tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps(gold_submission(redocred_bench.gold_rows)))
    facts = read_submission(path, redocred_bench)
    assert sorted(f.signature for f in facts) == sorted(
        g.fact.signature for g in redocred_bench.gold
    )
    assert [f.doc_ids for f in facts[:1]] == [("test_0000",)]


@pytest.mark.parametrize(
    ("content", "message", "cites"),
    [
        (
            '[{"title": "No such page", "h_idx": 0, "t_idx": 1, "r": "P17"}]',
            "1 row(s) name a title the gold does not hold and 0 an entity index out of range",
            (),
        ),
        (
            '[{"title": "Loud Tour", "h_idx": 0, "t_idx": 999, "r": "P17"}]',
            "item 0: t_idx 999 is not an entity of test_0000",
            ("test_0000",),
        ),
    ],
)
def test_rows_the_official_scorer_counts_wrong_are_kept_with_a_note(
    redocred_bench: BenchSet, tmp_path: Path, content: str, message: str, cites: tuple
) -> None:
    """As DocRED's scorer does: kept (so they count wrong), naming an entity no gold fact has."""
    path = tmp_path / "result.json"
    path.write_text(content)
    notes: list[str] = []
    (fact,) = read_submission(path, redocred_bench, notes=notes)
    assert fact.doc_ids == cites
    gold_keys = {g.fact.subject.key for g in redocred_bench.gold} | {
        g.fact.object_key for g in redocred_bench.gold
    }
    assert {fact.subject.key, fact.object_key} - gold_keys
    assert len(notes) == 1 and message in notes[0] and "count as wrong" in notes[0]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[{"title": "Loud Tour"}]', "expected {title, h_idx, t_idx, r}"),
        ('{"id": "test_0000", "triples": [["a", "country", "b"]]}', "Text2KGBench's format"),
        ('{"id": "x", "triples": [["a", "b"]]}', "triples.0: expected"),
    ],
)
def test_bad_submissions_are_input_errors(
    redocred_bench: BenchSet, tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "result.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        read_submission(path, redocred_bench)


def test_docred_submission_needs_a_redocred_set(movie_bench: BenchSet, tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text("[]")
    with pytest.raises(InputError, match="needs a Re-DocRED bench set"):
        read_submission(path, movie_bench)


def test_our_gold_facts_as_responses_score_one_officially(movie_bench: BenchSet) -> None:
    facts = [g.fact for g in movie_bench.gold]
    rows = facts_to_responses(movie_bench, facts)
    assert len(rows) == 840 and rows[0]["triples"][0] == [
        "Bleach : Hell Verse",
        "director",
        "Noriyuki Abe",
    ]
    assert rows[0]["triples"][1] == ["Bleach : Hell Verse", "publication_date", "01 January 2010"]
    result = score_official(movie_bench, facts)
    assert (result.precision, result.recall, result.f1, result.onto_conf) == (1.0, 1.0, 1.0, 1.0)


@pytest.mark.parametrize(
    "cited", ["docs/test_0001.txt", "test_0001.txt", "runs/cmp/redocred/docs/test_0001.txt"]
)
def test_documents_named_as_odke_run_names_them_are_the_bench_documents(
    redocred_bench: BenchSet, cited: str
) -> None:
    fact = Fact(
        subject=Entity(key="Person:orlov", type="Person"),
        predicate="educated_at",
        object_value="St Petersburg University",
        evidence=(Evidence(doc_id=cited, span=Span(doc_id=cited, start=0, end=5)),),
    )
    (aligned,), failed = align(redocred_bench, [fact])
    assert failed == 0 and aligned.doc_ids == ("test_0001",)
    assert aligned.evidence[0].span is not None and aligned.evidence[0].span.doc_id == "test_0001"
    assert redocred_bench.doc_id_for("docs/elsewhere.txt") is None
