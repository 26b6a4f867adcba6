"""Reading refusals from odke ground output, a Validator's refused.jsonl and bench sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke import Entity, Evidence, Fact, GroundingVerdict, Span
from openodke.bench import prepare_text2kgbench
from openodke.errors import InputError
from openodke.eval.judges.refusal_sources import passage_of, read_refusals
from tests.conftest import DATA

TEXTS = {
    "halden.txt": "Halden Robotics was founded in 2015. It is based in Oslo. Its CEO is Kari Nordmann.",
}
HALDEN = Entity(key="Company:halden robotics", type="Company", label="Halden Robotics")


def fact(predicate: str, value: str, verdict: str, **kw: object) -> Fact:
    return Fact(
        subject=HALDEN,
        predicate=predicate,
        object_value=value,
        evidence=(Evidence(doc_id="halden.txt", span=Span(doc_id="halden.txt", start=37, end=56)),),
        verdict=GroundingVerdict(verdict),
        extractor="llm",
        **kw,  # type: ignore[arg-type]
    )


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_ground_output_gives_contradicted_not_found_and_checked(tmp_path: Path) -> None:
    facts = [
        fact("based_in", "Oslo", "supported"),
        fact("based_in", "Bergen", "contradicted"),
        fact("ceo", "Ola", "not_found"),
        fact("founded", "2015", "unchecked", qualifiers={"odke.check": "range: expected a date"}),
    ]
    write_jsonl(tmp_path / "ground" / "facts.jsonl", [f.model_dump(mode="json") for f in facts])
    rows = read_refusals(tmp_path / "ground", TEXTS)
    assert [(r.verdict, r.predicate) for r in rows] == [
        ("contradicted", "based_in"),
        ("not_found", "ceo"),
        ("check", "founded"),
    ]
    first = rows[0]
    assert first.claim == "Halden Robotics (Company) — based in — Bergen."
    assert first.reason == "grounding verdict contradicted: the passage says otherwise"
    assert first.text == "It is based in Oslo."  # the sentence around the cited span
    assert (first.dataset, first.extractor, first.gold, first.doc_id) == (
        None,
        "llm",
        None,
        "halden.txt",
    )
    assert first.stratum_key == "-/llm/contradicted"
    assert read_refusals(tmp_path / "ground" / "facts.jsonl", TEXTS)[0].id == first.id


def test_ground_output_needs_the_texts(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "facts.jsonl", [fact("ceo", "Ola", "not_found").model_dump(mode="json")])
    with pytest.raises(InputError, match="needs --documents"):
        read_refusals(tmp_path / "facts.jsonl")
    with pytest.raises(InputError, match="not among --documents"):
        read_refusals(tmp_path / "facts.jsonl", {"other.txt": "x"})


def test_validate_output_gives_refused_and_marked(tmp_path: Path) -> None:
    out = tmp_path / "validated"
    write_jsonl(
        out / "refused.jsonl",
        [
            {
                "fact": fact("based_in", "Bergen", "contradicted").model_dump(mode="json"),
                "reason": "grounding verdict contradicted: the passage says otherwise",
            },
            {
                "fact": fact("owns", "Oslo", "unchecked").model_dump(mode="json"),
                "reason": "schema: owns is not in the ontology",
            },
        ],
    )
    marked = fact(
        "ceo", "Ola", "not_found", qualifiers={"odke.review": "grounding verdict not_found"}
    )
    write_jsonl(
        out / "facts.jsonl",
        [
            marked.model_dump(mode="json"),
            fact("based_in", "Oslo", "supported").model_dump(mode="json"),
        ],
    )
    rows = read_refusals(out, TEXTS)
    assert [(r.verdict, r.reason) for r in rows] == [
        ("contradicted", "grounding verdict contradicted: the passage says otherwise"),
        ("schema", "schema: owns is not in the ontology"),
        ("not_found", "marked: grounding verdict not_found"),
    ]


@pytest.fixture(scope="module")
def movie(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench") / "movie"
    prepare_text2kgbench(DATA, out, ontology="ont_1_movie")
    # What odke bench run writes: the extraction, and the gated row that dropped two triples.
    alone = [
        {
            "id": "ont_1_movie_test_1",
            "triples": [
                ["Bleach : Hell Verse", "director", "Noriyuki Abe"],
                ["Bleach : Hell Verse", "publication date", "01 January 2010"],
                ["Bleach : Hell Verse", "director", "Tite Kubo"],
            ],
        },
    ]
    gated = [
        {
            "id": "ont_1_movie_test_1",
            "triples": [["Bleach : Hell Verse", "director", "Noriyuki Abe"]],
        }
    ]
    write_jsonl(out / "predictions" / "extraction-alone.jsonl", alone)
    write_jsonl(out / "predictions" / "grounding.jsonl", gated)
    return out


def test_a_bench_set_gives_what_the_gated_row_lacks_with_gold(movie: Path) -> None:
    rows = read_refusals(movie)
    assert [(r.claim, r.gold) for r in rows] == [
        ("Bleach : Hell Verse — publication date — 01 January 2010.", True),
        ("Bleach : Hell Verse — director — Tite Kubo.", False),
    ]
    assert {(r.dataset, r.extractor, r.verdict) for r in rows} == {("movie", "llm", "refused")}
    assert rows[0].predicate == "publication_date"
    assert rows[0].text.startswith("Bleach: Hell Verse (Japanese")


def test_a_folder_of_runs_reads_each(movie: Path, tmp_path: Path) -> None:
    # runs/cmp holds the bench set and a ground output side by side.
    cmp = movie.parent
    write_jsonl(
        cmp / "ground" / "facts.jsonl", [fact("ceo", "Ola", "not_found").model_dump(mode="json")]
    )
    rows = read_refusals(cmp, TEXTS)
    assert sorted({r.verdict for r in rows}) == ["not_found", "refused"]
    with pytest.raises(InputError, match="holds no run"):
        read_refusals(tmp_path)


def test_a_bench_set_that_was_not_run(tmp_path: Path) -> None:
    out = tmp_path / "movie"
    prepare_text2kgbench(DATA, out, ontology="ont_1_movie")
    with pytest.raises(InputError, match="run odke bench run first"):
        read_refusals(out)


def test_passage_without_a_span_is_the_text() -> None:
    assert passage_of(None, "short") == "short"
    assert passage_of(None, "x" * 4000).endswith(" …")
