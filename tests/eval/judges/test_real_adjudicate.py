"""Real data: adjudicate Revisit-DocRED's re-annotation scored against Re-DocRED's gold.

Both annotate the same DocRED documents; scored as predictions against Re-DocRED, every fact
only Revisit-DocRED has is a false positive, though a careful annotator wrote it. Adjudication
grounds each three times. The subset and the recorded answers are the grounding engineers'
(``tests/ground/revisit.py``: the first 12 documents with identical entity lists; their 107
Revisit-only facts; ``tests/fixtures/grounding/revisit.cassette.json``, verdicts written by
reading each passage, with reasons in ``revisit.readings.jsonl``): see
``tests/fixtures/judges/README.md``. The three runs replay the same reading, so a fact is
supported 3 times or none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openodke import Document
from openodke.bench.redocred import document_text, gold_facts, predicate_names
from openodke.eval import GroundingLabel, evaluate_extraction, load_jsonl
from openodke.eval.judges.adjudicate import AdjudicationOutcome, adjudicate, llm_grounders
from openodke.llm import client_for
from tests.conftest import DATA, ROOT
from tests.ground.revisit import MODEL, selected
from tests.support.llm_server import ReplayServer

GROUNDING = ROOT / "tests" / "fixtures" / "grounding"
CASSETTE = GROUNDING / "revisit.cassette.json"


def readings() -> dict[str, str]:
    """Hand verdict per fact, keyed as ``gold_facts`` keys the scratch labels (``doc:L<n>``)."""
    rows = [
        json.loads(line) for line in (GROUNDING / "revisit.readings.jsonl").read_text().splitlines()
    ]
    return {row["id"].replace(":S", ":L"): row["verdict"] for row in rows}


def inputs() -> tuple[list[Any], list[Any], list[Document], set[tuple[str, int, int, str]]]:
    """Re-DocRED gold, Revisit-DocRED's facts, the texts, and the Revisit-only label keys."""
    names = predicate_names(json.loads((DATA / "redocred" / "rel_info.json").read_text()))
    gold, said, docs, only = [], [], [], set()
    for doc_id, doc, scratch in selected():
        gold += gold_facts(doc, doc_id, names)
        said += [g.fact for g in gold_facts(scratch, doc_id, names)]
        docs.append(Document(id=doc_id, text=document_text(doc)))
        ours = {(x["h"], x["t"], x["r"]) for x in doc["labels"]}
        only |= {(doc_id, x["h"], x["t"], x["r"]) for x in scratch["labels"]} - {
            (doc_id, *k) for k in ours
        }
    return gold, said, docs, only


def run(server: ReplayServer, cache: Path | bool) -> tuple[AdjudicationOutcome, int]:
    """Adjudicate through a fresh client over ``server``: (outcome, requests it received)."""
    gold, said, docs, _ = inputs()
    before = len(server.requests)
    spec = server.spec(MODEL.split("/", 1)[1])
    client = client_for(spec, cache=cache)
    try:
        grounders = llm_grounders(spec, client=client, locate=True)
        outcome = adjudicate([("Revisit-DocRED", said)], gold, docs, grounders)
    finally:
        client.close()  # type: ignore[attr-defined]
    return outcome, len(server.requests) - before


@pytest.fixture(scope="module")
def outcome() -> AdjudicationOutcome:
    with ReplayServer.from_cassette("ollama", CASSETTE) as server:
        result, requests = run(server, cache=False)
    assert requests == 3 * 107
    return result


def test_strict_precision_is_the_set_arithmetic_and_never_changes(
    outcome: AdjudicationOutcome,
) -> None:
    gold, said, docs, only = inputs()
    (row,) = outcome.section.rows
    report = evaluate_extraction(gold, said, documents=[d.id for d in docs])
    tp, fp = report.metrics["tp"], report.metrics["fp"]
    assert (len(only), fp) == (107, 107)  # every Revisit-only fact is a false positive
    assert row.strict.value == pytest.approx(tp / (tp + fp)) == report.metrics["precision"]
    assert (row.not_in_gold, row.asked, row.possibly_missing) == (107, 107, 50)
    # Adjudicated: the 50 possibly missing count as hits, (tp + 50) / (tp + fp).
    assert row.adjudicated.value == pytest.approx((tp + 50) / (tp + fp))
    assert row.adjudicated.value > row.strict.value
    assert (round(row.strict.value, 3), round(row.adjudicated.value, 3)) == (0.733, 0.858)


def test_the_possibly_missing_list_is_the_revisit_only_facts_read_as_supported(
    outcome: AdjudicationOutcome,
) -> None:
    _, _, _, only = inputs()
    read = readings()
    assert {i.fact.id for i in outcome.items} == set(read)
    # Every listed prediction is a fact Revisit-DocRED has and Re-DocRED lacks ...
    keys = {
        (i.doc_id, i.fact.subject.key, i.fact.object_entity.key, i.fact.predicate)
        for i in outcome.items
    }  # type: ignore[union-attr]
    assert len(keys) == len(only) == 107
    # ... and the rate the test states: 50 of those 107 (46.7%) are possibly missing from
    # Re-DocRED, exactly the ones the reading found supported by the passage shown.
    flagged = {i.fact.id for i in outcome.items if i.possibly_missing_from_gold}
    assert len(flagged) / len(only) == pytest.approx(50 / 107)
    assert flagged == {fid for fid, verdict in read.items() if verdict == "supported"}
    assert all(i.verdicts == (read[i.fact.id],) * 3 for i in outcome.items)


def test_against_the_whole_text_labels(outcome: AdjudicationOutcome) -> None:
    # 30 of the 107 carry labels read against the whole text (18 true): every flagged one is
    # true (no false support), and 4 true ones are missed where the located window fell short.
    labels = {
        row.fact.id.replace(":S", ":L"): row.verdict == "supported"
        for row in load_jsonl(GROUNDING / "labels.jsonl", GroundingLabel)
    }
    flagged = {i.fact.id for i in outcome.items if i.possibly_missing_from_gold}
    labelled = [(fid in flagged, true) for fid, true in labels.items()]
    assert sum(f and t for f, t in labelled) == 14
    assert sum(f and not t for f, t in labelled) == 0
    assert sum(t and not f for f, t in labelled) == 4


def test_over_an_openai_compatible_server_and_from_cache(tmp_path: Path) -> None:
    # The cache key holds the base URL, so both runs go to one server (one port).
    with ReplayServer.from_cassette("openai", CASSETTE) as server:
        first, asked = run(server, cache=tmp_path / "cache")
        again, asked_again = run(server, cache=tmp_path / "cache")
        paths = {request.path for request in server.requests}
    assert paths == {"/v1/chat/completions"}
    assert (asked, asked_again) == (3 * 107, 0)
    assert first.section == again.section
    assert [i.verdicts for i in first.items] == [i.verdicts for i in again.items]
    assert first.section.rows[0].possibly_missing == 50
