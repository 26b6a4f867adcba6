"""Sentences for the diagnosis come from a splitter that knows abbreviations (sentencex): a gold
fact stated in "Acme Inc. is based in Berlin." is within one sentence, so its miss is never filed
as cross-sentence and the top fix is never "give more than one sentence"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke.eval.diagnosis import split_sentences
from openodke.eval.diagnosis.sentences import TextIndex, segments
from tests.conftest import run_odke


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Acme Inc. is based in Berlin.", ["Acme Inc. is based in Berlin."]),
        (
            "Dr. Smith met Mr. Jones at 3 p.m. today. He left.",
            ["Dr. Smith met Mr. Jones at 3 p.m. today.", "He left."],
        ),
        (
            "The U.S. Army hired him. He left in 1990.",
            ["The U.S. Army hired him.", "He left in 1990."],
        ),
        (
            "Mt. Everest is high. St. Paul is a city.",
            ["Mt. Everest is high.", "St. Paul is a city."],
        ),
        # A line wrapped mid-sentence stays one sentence; a paragraph break ends one.
        ("Acme Inc. is based\nin Berlin.", ["Acme Inc. is based\nin Berlin."]),
        ("A title\n\nAcme is big. It grows.", ["A title", "Acme is big.", "It grows."]),
        ("", []),
    ],
)
def test_split_sentences_knows_abbreviations(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


def test_segments_keep_every_character() -> None:
    text = 'Acme Inc. is based in Berlin.  "Yes," he said!\n\nNext: 3.5 per cent. Done'
    assert "".join(segments(text)) == text


@pytest.mark.parametrize(
    ("text", "cross"),
    [
        ("Acme Inc. is based in Berlin.", False),  # the old rule cut after "Inc."
        ("Acme Inc. grew. Its home is Berlin.", True),
        ("Acme Inc. is based\nin Berlin.", False),  # the old rule cut at the line break
    ],
)
def test_text_index_places_names_in_real_sentences(text: str, cross: bool) -> None:
    assert TextIndex(text).cross(["Acme Inc."], ["Berlin"]) is cross


ONTOLOGY = {
    "name": "acme",
    "version": "1",
    "types": {"Company": {}, "City": {}, "Person": {}},
    "predicates": {
        "based_in": {"domain": ["Company"], "range": "City"},
        "ceo": {"domain": ["Company"], "range": "Person"},
    },
}


def test_a_miss_inside_one_abbreviated_sentence_is_not_cross_sentence(tmp_path: Path) -> None:
    """End to end: the pipeline names Acme Inc. and Berlin but never links them; with the old
    splitter the miss was "cross-sentence" and the top fix "wider-context"."""
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "acme.txt").write_text(
        "Acme Inc. is based in Berlin. Acme Inc. is run by Ada Brandt. Berlin is large.\n",
        encoding="utf-8",
    )
    gold = tmp_path / "gold.jsonl"
    rows = [
        ("based_in", "City:berlin", "City"),
        ("ceo", "Person:ada brandt", "Person"),
    ]
    gold.write_text(
        "".join(
            json.dumps(
                {
                    "doc_id": "acme.txt",
                    "fact": {
                        "subject": {"key": "Company:acme inc.", "type": "Company"},
                        "predicate": predicate,
                        "object_entity": {"key": key, "type": kind},
                    },
                }
            )
            + "\n"
            for predicate, key, kind in rows
        ),
        encoding="utf-8",
    )
    ontology = tmp_path / "ontology.json"
    ontology.write_text(json.dumps(ONTOLOGY), encoding="utf-8")
    # Hits the ceo fact (so Acme Inc. is extracted) and names Berlin in a spurious row.
    predictions = tmp_path / "triples.jsonl"
    predictions.write_text(
        json.dumps(
            {"doc": "acme", "subject": "Acme Inc.", "predicate": "ceo", "object": "Ada Brandt"}
        )
        + "\n"
        + json.dumps(
            {"doc": "acme", "subject": "Acme Inc.", "predicate": "ceo", "object": "Berlin"}
        )
        + "\n",
        encoding="utf-8",
    )
    result = run_odke(
        "eval",
        "pipeline",
        "--labels",
        str(gold),
        "--documents",
        str(texts),
        "--ontology",
        str(ontology),
        "--predictions",
        str(predictions),
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    buckets = {
        row["bucket"]: row["count"] for row in report["diagnosis"] if row["side"] == "recall"
    }
    assert buckets["cross_sentence"] == 0
    assert sum(c for c in buckets.values() if c) == 1  # the one miss: based_in
    by_id = {fix["id"]: fix for fix in report["fixes"]}
    assert by_id["wider-context"]["misses"] == 0
    assert report["fixes"][0]["id"] != "wider-context" and report["fixes"][0]["misses"] == 1
