"""Text2KGBench's official scores, replayed on the published baseline outputs."""

from __future__ import annotations

import math
import sys
from functools import cache
from typing import Any

import pytest

from openodke.bench import score_text2kg_official
from openodke.bench.official_text2kg import BUILTIN_NOTE, METRICS, Text2KGOfficial
from openodke.bench.text2kgbench import read_responses
from tests.bench.conftest import TEKGEN, read_json, read_jsonl

SYSTEMS = {"Vicuna-13B": "ont_llm_avg_stats_v2.jsonl", "Alpaca-LoRA-13B": "ont_llm_avg_stats.jsonl"}
ONTOLOGIES = [
    "1_movie", "2_music", "3_sport", "4_book", "5_military",
    "6_computer", "7_space", "8_politics", "9_nature", "10_culture",
]  # fmt: skip


@cache
def published(system: str) -> dict[tuple[str, str], dict[str, Any]]:
    rows = read_jsonl(TEKGEN / "baselines" / system / "eval_metrics" / SYSTEMS[system])
    return {(row.get("onto", "global"), row["type"]): row for row in rows}


@cache
def replay(system: str, onto: str) -> Text2KGOfficial:
    oid = f"ont_{onto}"
    responses = read_responses(
        next((TEKGEN / "baselines" / system / "llm_responses").glob(f"{oid}_*.jsonl"))
    )
    gold = read_jsonl(TEKGEN / "ground_truth" / f"{oid}_ground_truth.jsonl")
    ontology = read_json(TEKGEN / "ontologies" / f"{onto}_ontology.json")
    verified = (TEKGEN / "manually_verified_sentences" / f"selected_{oid}.txt").read_text().split()
    return score_text2kg_official(responses, gold, ontology, verified_ids=verified)


def assert_matches(mine: dict[str, str], row: dict[str, Any]) -> None:
    """P, R, F1, OC and RH exactly at 2 decimals; SH and OH within 0.01 (tokenizer drift)."""
    for metric in ("precision", "recall", "f1", "onto_conf", "rel_halluc"):
        assert mine[metric] == row[f"avg_{metric}"], metric
    for metric in ("sub_halluc", "obj_halluc"):
        assert abs(float(mine[metric]) - float(row[f"avg_{metric}"])) <= 0.01 + 1e-9, metric


@pytest.mark.parametrize("system", sorted(SYSTEMS))
@pytest.mark.parametrize("onto", ONTOLOGIES)
def test_published_averages_are_reproduced(system: str, onto: str) -> None:
    result = replay(system, onto)
    assert_matches(result.rounded(), published(system)[(onto, "all_test_cases")])
    selected = published(system).get((onto, "selected_test_cases"))
    assert selected is not None and result.verified is not None
    assert_matches(result.verified.rounded(), selected)


def test_spec_figures_for_vicuna_on_movie() -> None:
    # benchmarks.md: P 0.33 R 0.23 F1 0.25 OC 0.89 SH 0.26 RH 0.11 OH 0.26; verified subset
    # 0.38 / 0.26 / 0.28 / 0.91 / 0.22 / 0.09 / 0.29; 174 verified ids, 840 sentences.
    result = replay("Vicuna-13B", "1_movie")
    assert result.rounded() == {
        "precision": "0.33", "recall": "0.23", "f1": "0.25", "onto_conf": "0.89",
        "rel_halluc": "0.11", "sub_halluc": "0.26", "obj_halluc": "0.26",
    }  # fmt: skip
    assert result.verified is not None and result.verified.sentences == 174
    assert result.verified.rounded() == {
        "precision": "0.38", "recall": "0.26", "f1": "0.28", "onto_conf": "0.91",
        "rel_halluc": "0.09", "sub_halluc": "0.22", "obj_halluc": "0.29",
    }  # fmt: skip
    assert (result.sentences, result.answered) == (840, 840)


def test_vicuna_global_row_is_the_mean_of_the_ontologies() -> None:
    row = published("Vicuna-13B")[("global", "global")]
    for metric in METRICS:
        mean = sum(getattr(replay("Vicuna-13B", onto), metric) for onto in ONTOLOGIES) / len(
            ONTOLOGIES
        )
        assert abs(mean - float(row[f"avg_{metric}"])) <= 0.005 + 1e-9, metric


def test_missing_sentences_count_zero_so_oc_and_rh_do_not_sum_to_one() -> None:
    # benchmarks.md: Vicuna/nature has 134 of 474 sentences missing → OC 0.68, RH 0.04.
    result = replay("Vicuna-13B", "9_nature")
    assert (result.sentences, result.answered) == (474, 340)
    assert (f"{result.onto_conf:.2f}", f"{result.rel_halluc:.2f}") == ("0.68", "0.04")
    assert any("134 of 474 gold sentences have no system entry" in note for note in result.notes)


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_per_sentence_scores_match_the_published_movie_file(system: str) -> None:
    result = replay(system, "1_movie")
    ours = {row.id: row for row in result.per_sentence}
    rows = read_jsonl(
        TEKGEN / "baselines" / system / "eval_metrics" / "ont_1_movie_llm_stats.jsonl"
    )
    assert len(rows) == len(ours) == 840
    for row in rows:
        mine = ours[row["id"]]
        for metric in METRICS:
            value = row[metric]  # Vicuna's file has 2-decimal strings, Alpaca's raw numbers
            if isinstance(value, str):
                assert f"{getattr(mine, metric):.2f}" == value, (row["id"], metric)
            else:
                assert math.isclose(getattr(mine, metric), value, abs_tol=1e-9), (row["id"], metric)
        assert mine.llm_triples == row["llm_triples"]
        assert mine.filtered_llm_triples == row["filtered_llm_triples"]
        assert mine.gt_triples == row["gt_triples"]


ONTOLOGY = {
    "concepts": [{"qid": "Q1", "label": "film"}, {"qid": "Q5", "label": "human"}],
    "relations": [
        {"pid": "P57", "label": "director", "domain": "Q1", "range": "Q5"},
        {"pid": "P577", "label": "publication date", "domain": "Q1", "range": ""},
        {"pid": "P161", "label": "cast member", "domain": "Q1", "range": "Q5"},
    ],
}
GOLD = [
    {
        "id": "s1",
        "sent": "Alien is a 1979 film directed by Ridley Scott.",
        "triples": [
            {"sub": "Alien", "rel": "director", "obj": "Ridley Scott"},
            {"sub": "Alien", "rel": "publication date", "obj": "01 January 1979"},
        ],
    },
    {
        "id": "s2",
        "sent": "Heat stars Al Pacino.",
        "triples": [{"sub": "Heat", "rel": "cast member", "obj": "Al Pacino"}],
    },
    {
        "id": "s3",
        "sent": "Jaws is a film.",
        "triples": [{"sub": "Jaws", "rel": "director", "obj": "Steven Spielberg"}],
    },
]
RESPONSES = [
    {"id": "s2", "triples": [["Heat", "cast_member", "Robert De Niro"]]},  # replaced below
    {
        "id": "s1",
        "response": "raw text is ignored",
        "triples": [
            ["Alien", "director", "Ridley Scott"],  # hit; conformant
            ["Alien", "publication_date", "01 January 1979"],  # hit (underscore = gold's space)
            ["Alien", "publication date", "1979"],  # space: filtered out, not conformant
            ["Alien", "genre", "horror"],  # not a gold relation; not in ontology; object absent
            ["Aliens", "director", "James Cameron"],  # wrong; "Aliens" stems to "alien"
        ],
    },
    {"id": "s2", "triples": []},  # the last row of an id wins: s2 has no triples
]


def test_hand_worked_case() -> None:
    result = score_text2kg_official(
        RESPONSES, GOLD, ONTOLOGY, verified_ids=["s1", "s3"], tokenizer="builtin"
    )
    # s1: filtered = 3 triples (director, publication_date, director), 2 of them gold:
    #     P = 2/3, R = 2/2, F1 = 2·(2/3)·1/(5/3) = 0.8; OC = 3/5; SH = 0/5 ("alien" is in
    #     the stemmed sentence); OH = 2/5 ("horror", "jamescameron"; "01 January 1979" stems
    #     to "01januari1979", minus "01januari" = "1979", which is there).
    # s2: an entry with no triples: P = R = F1 = 0, OC = 1, RH = SH = OH = 0.
    # s3: no entry: 0 on every metric, OC included.
    s1 = next(row for row in result.per_sentence if row.id == "s1")
    assert (s1.precision, s1.recall, s1.f1) == pytest.approx((2 / 3, 1.0, 0.8))
    assert (s1.onto_conf, s1.rel_halluc, s1.sub_halluc, s1.obj_halluc) == pytest.approx(
        (0.6, 0.4, 0.0, 0.4)
    )
    assert len(s1.filtered_llm_triples) == 3
    # Averages over all 3 gold sentences: P = (2/3)/3, R = 1/3, F1 = 0.8/3, OC = (0.6 + 1)/3,
    # RH = 0.4/3, SH = 0, OH = 0.4/3. Verified ids s1, s3: divided by 2.
    expected = (2 / 9, 1 / 3, 0.8 / 3, 1.6 / 3, 0.4 / 3, 0.0, 0.4 / 3)
    assert tuple(getattr(result, m) for m in METRICS) == pytest.approx(expected)
    assert result.verified is not None
    assert tuple(getattr(result.verified, m) for m in METRICS) == pytest.approx(
        (1 / 3, 1 / 2, 0.4, 0.3, 0.2, 0.0, 0.2)
    )
    assert (result.sentences, result.answered) == (3, 2)


def test_without_nltk_a_note_says_the_third_decimal_may_differ(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "nltk", None)  # makes `import nltk...` fail
    result = score_text2kg_official(RESPONSES, GOLD, ONTOLOGY)
    assert result.tokenizer == "builtin"
    assert BUILTIN_NOTE in result.notes
    assert (
        BUILTIN_NOTE
        == "SH/OH use the built-in tokenizer and Porter stemmer; the third decimal may differ from NLTK's"
    )


def test_a_bad_ontology_is_refused() -> None:
    from openodke.errors import InputError

    with pytest.raises(InputError, match="concepts, relations"):
        score_text2kg_official(RESPONSES, GOLD, {"predicates": {}})
