"""``odke bench prepare``: layout, counts, ontology, run config, and where it may write."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from openodke.bench import prepare_redocred, prepare_text2kgbench
from openodke.bench import writer as writer_module
from openodke.bench.redocred import TYPE_NAMES
from openodke.errors import InputError
from openodke.ontology import ontology_from_dict
from tests.bench.conftest import TEKGEN, read_json, read_jsonl
from tests.conftest import DATA

# --- Re-DocRED ---------------------------------------------------------------------------


def test_redocred_layout_and_the_spec_figures(
    redocred_dir: Path, redocred_test: list[dict[str, Any]]
) -> None:
    docs = sorted(p.name for p in (redocred_dir / "docs").iterdir())
    assert docs == [f"test_{i:04d}.txt" for i in range(50)]
    rows = read_jsonl(redocred_dir / "gold.jsonl")
    assert [row["id"] for row in rows] == [f"test_{i:04d}" for i in range(50)]
    assert [{k: v for k, v in row.items() if k != "id"} for row in rows] == redocred_test[:50]
    # benchmarks.md: the first 50 test documents hold 1,747 facts; test_0000 is "Loud Tour",
    # test_0001 "Vladimir Mitrofanovich Orlov".
    assert sum(len(doc["labels"]) for doc in redocred_test[:50]) == 1_747
    info = read_json(redocred_dir / "dataset.json")
    assert (info["dataset"], info["gold_facts"], info["documents"]) == ("redocred", 1_747, 50)
    assert (rows[0]["title"], rows[1]["title"]) == ("Loud Tour", "Vladimir Mitrofanovich Orlov")
    text = (redocred_dir / "docs" / "test_0001.txt").read_text(encoding="utf-8")
    assert text == " ".join(token for sentence in redocred_test[1]["sents"] for token in sentence)
    assert text.startswith("Vladimir Mitrofanovich Orlov ( ) ( July 15 , 1895")
    assert info["sentences"] == sum(len(doc["sents"]) for doc in redocred_test[:50])
    assert info["ontology"] == read_json(DATA / "redocred" / "rel_info.json")
    assert info["relation_labels"]["educated_at"] == "educated at"


def test_redocred_ontology_comes_from_the_dev_split(redocred_dir: Path) -> None:
    ontology = read_json(redocred_dir / "ontology.json")
    rel_info = read_json(DATA / "redocred" / "rel_info.json")
    dev = read_json(DATA / "redocred" / "dev_revised.json")
    assert sorted(ontology["types"]) == sorted(TYPE_NAMES.values())
    assert sorted(TYPE_NAMES.values()) == [
        "Amount",
        "Location",
        "Misc",
        "Organization",
        "Person",
        "Time",
    ]
    assert len(ontology["predicates"]) == len(rel_info) == 96
    heads: dict[str, Counter[str]] = {pid: Counter() for pid in rel_info}
    tails: dict[str, Counter[str]] = {pid: Counter() for pid in rel_info}
    for doc in dev:
        types = [TYPE_NAMES[entity[0]["type"]] for entity in doc["vertexSet"]]
        for label in doc["labels"]:
            heads[label["r"]][types[label["h"]]] += 1
            tails[label["r"]][types[label["t"]]] += 1
    most = max(sum(c.values()) for c in heads.values())
    for pid, label in rel_info.items():
        spec = ontology["predicates"][label.replace(" ", "_").replace(",", "")]
        assert (spec["label"], spec["aliases"]) == (label, [pid, label])
        assert spec["importance"] == round(sum(heads[pid].values()) / most, 4)
        if heads[pid]:
            assert set(heads[pid]) <= set(spec["domain"])
            assert tails[pid][spec["range"]] == max(tails[pid].values())
        else:
            assert (spec["domain"], spec["range"], spec["importance"]) == ([], "Misc", 0.0)
    orlov = ontology["predicates"]["educated_at"]
    assert (orlov["domain"], orlov["range"]) == (["Person"], "Organization")
    top = ontology["predicates"]["located_in_the_administrative_territorial_entity"]
    assert top["importance"] == 1.0  # P131, the most frequent in dev


def test_redocred_inverses(redocred_dir: Path) -> None:
    info = read_json(redocred_dir / "dataset.json")
    rules = read_json(DATA / "revisit-docred" / "reverse_rules.json")
    rel_info = read_json(DATA / "redocred" / "rel_info.json")
    name = {pid: label.replace(" ", "_") for pid, label in rel_info.items()}
    assert info["details"]["inverses"] == [
        [name[p], name[q]] for p, qs in rules.items() for q in qs
    ]
    # Declared: the listed pairs that hold both ways in dev (P1376 lists itself but never
    # holds that way; P527 lists P179 too, which holds 27 of 469 times; P40 → P22/P25 half).
    declared = {
        ("part_of", "has_part"), ("participant_of", "participant"), ("follows", "followed_by"),
        ("replaces", "replaced_by"), ("subsidiary", "parent_organization"), ("capital_of", "capital"),
    }  # fmt: skip
    assert {tuple(pair) for pair in info["details"]["declared_inverses"]} == declared
    assert sorted(info["details"]["symmetric"]) == ["sibling", "sister_city", "spouse"]
    predicates = read_json(redocred_dir / "ontology.json")["predicates"]
    for p, q in declared:
        assert (predicates[p]["inverse_of"], predicates[q]["inverse_of"]) == (q, p)
    assert "symmetric" not in predicates["capital_of"]
    assert "inverse_of" not in predicates["child"] and "inverse_of" not in predicates["series"]
    assert predicates["spouse"]["symmetric"] is True


def test_redocred_ontology_loads_strictly(redocred_dir: Path) -> None:
    ontology = ontology_from_dict(read_json(redocred_dir / "ontology.json"))
    assert ontology.validate() == [] or all(d.severity != "error" for d in ontology.validate())


def test_run_config(redocred_dir: Path, tmp_path: Path) -> None:
    assert read_json(redocred_dir / "odke.json") == {
        "ontology": "ontology.json",
        "inputs": [{"path": "docs", "loader": "directory"}],
        "models": {
            "extract": {"model": "anthropic/claude-sonnet-5", "max_tokens": 16000},
            "ground": "anthropic/claude-haiku-4-5-20251001",
        },
        "stages": {
            "extractor": {"use": "llm", "structured": False, "snippet_limit": 96},
            "grounder": {"use": "llm"},
            "corroborator": "signature",
            "scorer": "evidence",
            "gate": {"use": "verdict"},
        },
    }
    prepare_redocred(DATA, tmp_path / "paper", limit=1, paper=True, max_tokens=8000)
    config = read_json(tmp_path / "paper" / "odke.json")
    assert config["models"]["extract"]["max_tokens"] == 8000
    assert config["stages"]["grounder"] == {
        "use": "llm",
        "context": "document",
        "verdicts": "binary",
    }
    assert config["stages"]["gate"] == {"use": "verdict", "refuse_not_found": True, "enforce": True}


def test_data_dir_may_be_the_dataset_folder(tmp_path: Path) -> None:
    result = prepare_redocred(DATA / "redocred", tmp_path / "r", split="dev", limit=2)
    assert result.title == "Re-DocRED dev (first 2 of 500)"
    info = read_json(tmp_path / "r" / "dataset.json")
    assert info["details"]["other_split"] == "test" and info["details"]["declared_inverses"]
    assert sorted(p.name for p in (tmp_path / "r" / "docs").iterdir()) == [
        "dev_0000.txt",
        "dev_0001.txt",
    ]
    movie = prepare_text2kgbench(TEKGEN, tmp_path / "m", ontology="movie")
    assert movie.title == "Text2KGBench Wikidata-TekGen ont_1_movie"


# --- Text2KGBench ------------------------------------------------------------------------


def test_movie_layout_and_the_spec_figures(movie_dir: Path) -> None:
    test_rows = read_jsonl(TEKGEN / "test" / "ont_1_movie_test.jsonl")
    assert len(list((movie_dir / "docs").iterdir())) == len(test_rows) == 840
    for row in test_rows[:50]:  # text unchanged, mojibake included
        assert (movie_dir / "docs" / f"{row['id']}.txt").read_text(encoding="utf-8") == row["sent"]
    assert "BurÄ«chi" in (movie_dir / "docs" / "ont_1_movie_test_1.txt").read_text(encoding="utf-8")
    gold = read_jsonl(movie_dir / "gold.jsonl")
    assert gold == read_jsonl(TEKGEN / "ground_truth" / "ont_1_movie_ground_truth.jsonl")
    assert sum(len(row["triples"]) for row in gold) == 2_250
    ontology = read_json(movie_dir / "ontology.json")
    assert (len(ontology["predicates"]), len(ontology["types"])) == (15, 12)
    info = read_json(movie_dir / "dataset.json")
    assert (info["dataset"], info["ontology_id"], info["sentences"]) == (
        "text2kgbench",
        "ont_1_movie",
        840,
    )
    assert len(info["details"]["verified_ids"]) == 174
    assert info["ontology"] == read_json(TEKGEN / "ontologies" / "1_movie_ontology.json")
    assert info["relation_labels"]["cast_member"] == "cast member"
    assert read_json(movie_dir / "odke.json")["stages"]["extractor"]["snippet_limit"] == 15


def test_movie_ontology_maps_concepts_and_relations(movie_dir: Path) -> None:
    ontology = read_json(movie_dir / "ontology.json")
    assert sorted(ontology["types"]) == sorted(
        ["Human", "City", "Country", "Film", "FilmGenre", "Genre", "FilmProductionCompany",
         "FilmAward", "Award", "WrittenWork", "FilmCharacter", "FilmOrganization"]
    )  # fmt: skip
    cast = ontology["predicates"]["cast_member"]
    assert (cast["label"], cast["aliases"], cast["domain"], cast["range"]) == (
        "cast member", ["cast member"], ["Film"], "Human",
    )  # fmt: skip
    assert ontology["predicates"]["publication_date"]["range"] == "string"  # empty range


def test_competitors_are_the_published_outputs(movie_dir: Path) -> None:
    for name in ("Vicuna-13B", "Alpaca-LoRA-13B"):
        folder = movie_dir / "competitors" / name
        source = next((TEKGEN / "baselines" / name / "llm_responses").glob("ont_1_movie_*.jsonl"))
        assert (folder / "responses.jsonl").read_bytes() == source.read_bytes()
        facts = read_jsonl(folder / "facts.jsonl")
        assert len(facts) == sum(len(row["triples"]) for row in read_jsonl(source))
        assert {fact["extractor"] for fact in facts} == {name}
        usage = read_json(folder / "usage.json")
        assert (usage["cost"], usage["latency"]) == (None, None)


@pytest.mark.parametrize(
    "onto",
    [
        "1_movie",
        "2_music",
        "3_sport",
        "4_book",
        "5_military",
        "6_computer",
        "7_space",
        "8_politics",
        "9_nature",
        "10_culture",
    ],
)
def test_every_tekgen_ontology_prepares_and_loads_strictly(onto: str, tmp_path: Path) -> None:
    result = prepare_text2kgbench(DATA, tmp_path / onto, ontology=f"ont_{onto}")
    raw = read_json(TEKGEN / "ontologies" / f"{onto}_ontology.json")
    ontology = ontology_from_dict(read_json(tmp_path / onto / "ontology.json"))
    assert (
        len(ontology.predicates) == len({r["label"] for r in raw["relations"]}) == result.predicates
    )
    assert {c["qid"] for c in raw["concepts"]} <= {
        t.description.split("(Wikidata ")[1].split(")")[0] for t in ontology.types.values()
    }
    assert result.documents == len(read_jsonl(TEKGEN / "test" / f"ont_{onto}_test.jsonl"))


# --- where prepare may write -------------------------------------------------------------


def test_out_must_be_new_empty_or_an_earlier_prepare(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    prepare_redocred(DATA, tmp_path / "empty", limit=1)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="--out must be new, empty or an earlier"):
        prepare_redocred(DATA, foreign, limit=1)
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="not a folder"):
        prepare_redocred(DATA, tmp_path / "file", limit=1)


def test_reprepare_replaces_its_files_and_keeps_others(tmp_path: Path) -> None:
    out = tmp_path / "set"
    prepare_redocred(DATA, out, limit=3)
    (out / "report.json").write_text("{}")
    prepare_redocred(DATA, out, limit=2)
    assert len(list((out / "docs").iterdir())) == 2
    assert (out / "report.json").read_text() == "{}"
    prepare_text2kgbench(DATA, out, ontology="ont_10_culture")
    assert read_json(out / "dataset.json")["dataset"] == "text2kgbench"
    assert not any(p.name.startswith(".") for p in out.iterdir())


def test_a_failed_prepare_leaves_the_earlier_set_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "set"
    prepare_redocred(DATA, out, limit=3)
    before = (out / "dataset.json").read_text()

    def fail(staging: Path, target: Path) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(writer_module, "_swap_into", fail)
    with pytest.raises(OSError, match="disk full"):
        prepare_redocred(DATA, out, limit=2)
    assert (out / "dataset.json").read_text() == before
    assert len(list((out / "docs").iterdir())) == 3
    assert [p.name for p in tmp_path.iterdir()] == ["set"]  # no staging folder left behind


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda out: prepare_redocred(DATA / "nope", out), "no Re-DocRED data"),
        (lambda out: prepare_redocred(DATA, out, split="train"), "--split must be dev or test"),
        (lambda out: prepare_redocred(DATA, out, limit=0), "--limit must be at least 1"),
        (lambda out: prepare_redocred(DATA, out, max_tokens=20000), "--max-tokens must be between"),
        (
            lambda out: prepare_text2kgbench(DATA / "redocred", out, ontology="ont_1_movie"),
            "no Text2KGBench data",
        ),
        (
            lambda out: prepare_text2kgbench(DATA, out, ontology="ont_11_x"),
            "unknown ontology 'ont_11_x'",
        ),
    ],
)
def test_bad_inputs_are_input_errors(tmp_path: Path, call: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        call(tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_gold_json_lines_are_the_dataset_rows(redocred_dir: Path) -> None:
    line = (redocred_dir / "gold.jsonl").read_text(encoding="utf-8").splitlines()[1]
    row = json.loads(line)
    assert list(row)[:2] == ["id", "title"] and row["id"] == "test_0001"
