"""Real data: Revisit-DocRED's from-scratch annotation scored against Re-DocRED's test gold.

Both are human gold for the same DocRED documents, so scoring one against the other is a
real-data check of ``evaluate_extraction``: with the same GoldFact conversion on both sides and
identical entity lists, its tp/fp/fn must equal plain set arithmetic on (title, h, t, r) keys
taken straight from the JSON files.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from openodke.bench.redocred import gold_facts, predicate_names
from openodke.eval.stages.extract import evaluate_extraction
from tests.conftest import DATA

Key = tuple[str, int, int, str]


def read(path: str) -> Any:
    return json.loads((DATA / path).read_text(encoding="utf-8"))


def entity_lists(doc: dict[str, Any]) -> list[list[tuple[Any, ...]]]:
    return [
        [(m["name"], m["sent_id"], tuple(m["pos"]), m["type"]) for m in entity]
        for entity in doc["vertexSet"]
    ]


def shared(split: str) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(Re-DocRED id, Re-DocRED doc, scratch doc) for titles in both with identical entity lists."""
    scratch = {doc["title"]: doc for doc in read("revisit-docred/valid_scratch.json")}
    return [
        (f"{split}_{i:04d}", doc, scratch[doc["title"]])
        for i, doc in enumerate(read(f"redocred/{split}_revised.json"))
        if doc["title"] in scratch and entity_lists(doc) == entity_lists(scratch[doc["title"]])
    ]


def keys(doc: dict[str, Any]) -> set[Key]:
    return {(doc["title"], label["h"], label["t"], label["r"]) for label in doc["labels"]}


@pytest.fixture(scope="module")
def test_pairs() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    return shared("test")


def test_the_join_gives_the_documented_overlap() -> None:
    # benchmarks.md: 87 documents with identical entity lists across Re-DocRED dev + test;
    # Re-DocRED 3,008 facts, scratch 3,016, shared 1,921.
    pairs = shared("dev") + shared("test")
    ours = set().union(*(keys(doc) for _, doc, _ in pairs))
    theirs = set().union(*(keys(scratch) for _, _, scratch in pairs))
    assert (len(pairs), len(ours), len(theirs), len(ours & theirs)) == (87, 3_008, 3_016, 1_921)


def test_scratch_against_redocred_test_matches_set_arithmetic(test_pairs: list[Any]) -> None:
    names = predicate_names(read("redocred/rel_info.json"))
    gold = [g for doc_id, doc, _ in test_pairs for g in gold_facts(doc, doc_id, names)]
    predicted = [
        g.fact for doc_id, _, scratch in test_pairs for g in gold_facts(scratch, doc_id, names)
    ]
    redocred = set().union(*(keys(doc) for _, doc, _ in test_pairs))
    revisit = set().union(*(keys(scratch) for _, _, scratch in test_pairs))
    tp, fp, fn = len(redocred & revisit), len(revisit - redocred), len(redocred - revisit)
    assert (len(test_pairs), tp, fp, fn) == (42, 878, 553, 544)
    report = evaluate_extraction(gold, predicted, documents=[doc_id for doc_id, _, _ in test_pairs])
    assert (report.metrics["tp"], report.metrics["fp"], report.metrics["fn"]) == (tp, fp, fn)
    assert report.metrics["precision"] == pytest.approx(tp / (tp + fp))
    assert report.metrics["recall"] == pytest.approx(tp / (tp + fn))
