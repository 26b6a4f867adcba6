"""Real data: the lenient score of Vicuna-13B's movie triples (Text2KGBench), from recorded answers.

The set is Text2KGBench's manually verified movie sentences (174); the lenient pre-filter finds
187 candidate pairs in 66 of them (``tests/eval/judges/vicuna.py``). The answers in
``tests/fixtures/judges/vicuna.cassette.json`` were written by reading each sentence, helped by a
deterministic first reader and checked one by one (``vicuna.readings.jsonl``, and the README
beside it): no model answered.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from openodke.eval import evaluate_extraction
from openodke.eval.diagnosis import diagnose, gold_view
from openodke.eval.equivalence import FactJudge, LenientOutcome, lenient_score
from openodke.llm import ReplayClient, client_for
from tests.eval.judges.vicuna import (
    CASSETTE,
    READER,
    candidates,
    cassette,
    movie,
    propose,
    read_readings,
    verified,
)
from tests.support.llm_server import ReplayServer


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return movie(str(tmp_path_factory.mktemp("bench")))


@pytest.fixture(scope="module")
def outcome(bench: Any) -> LenientOutcome:
    gold, said, documents = verified(bench)
    judge = FactJudge(client=ReplayClient(CASSETTE))
    return lenient_score([("Vicuna-13B", said)], gold, documents, judge)


def test_the_cassette_is_built_from_the_readings(bench: Any) -> None:
    # Stale when the pre-filter, the alignment or the fact rendering changes what is asked:
    # then re-read the changed pairs (README) and rebuild with cassette(rows, readings).
    import json

    rows, readings = candidates(bench), read_readings()
    assert len(rows) == len(readings) == 187
    assert len({row["doc"] for row in rows}) == 66
    for row, reading in zip(rows, readings, strict=True):
        assert (reading["k"], reading["doc"]) == (row["k"], row["doc"])
        assert (reading["gold"], reading["prediction"]) == (
            row["gold_words"],
            row["prediction_words"],
        )
        assert reading["proposed"] == propose(row)
    assert json.loads(CASSETTE.read_text(encoding="utf-8")) == cassette(rows, readings)


def test_the_reading_corrected_the_first_reader_nine_times() -> None:
    # The first reader (same only when the differing ends are equal without case, spaces and
    # punctuation) proposed 24 same and 163 different; reading kept all 24 and turned 9
    # different into same (a shortened or fuller name the sentence gives, a year both agree
    # on, a type written before a name): 33 same, 154 different.
    changes = Counter((r["proposed"], r["decision"]) for r in read_readings())
    assert changes == {
        ("same", "same"): 24,
        ("different", "different"): 154,
        ("different", "same"): 9,
    }
    assert sorted(r["k"] for r in read_readings() if r["proposed"] != r["decision"]) == [
        4,
        5,
        6,
        18,
        38,
        111,
        118,
        169,
        170,
    ]


def test_confirmed_pairs_and_the_lenient_recall(outcome: LenientOutcome, bench: Any) -> None:
    gold, said, documents = verified(bench)
    (row,) = outcome.section.rows
    assert (row.candidates, row.same, row.counted) == (187, 33, 33)
    assert [p.same for p in outcome.pairs] == [r["decision"] == "same" for r in read_readings()]
    assert all(p.answers[0].decision == p.answers[1].decision for p in outcome.pairs)
    strict = evaluate_extraction(gold, said, documents=[d.id for d in documents])
    tp, fp, fn = (strict.metrics[k] for k in ("tp", "fp", "fn"))
    assert (tp, tp + fn) == (109, 484)
    # Strict recall 109 / 484 = 0.225; lenient: 33 confirmed pairs, each a different gold fact
    # and prediction, become hits: 142 / 484 = 0.293. Precision: 109 / 998 -> 142 / 998.
    assert row.strict.recall.value == pytest.approx(109 / 484)
    assert row.lenient.recall.value == pytest.approx(142 / 484)
    assert row.lenient.precision.value == pytest.approx((tp + 33) / (tp + fp))
    assert row.strict.precision.value == strict.metrics["precision"]
    # 187 pairs, 182 distinct questions (5 sentences repeat word for word in two documents),
    # each asked in both orders.
    assert outcome.tally.calls == 364 and outcome.tally.failed == 0


def test_the_diagnosis_files_the_confirmed_pairs_as_surface_forms(
    outcome: LenientOutcome, bench: Any
) -> None:
    gold, said, documents = verified(bench)
    view = gold_view(gold, said, documents=[d.id for d in documents])
    unconfirmed = {b.bucket: b.count for b in diagnose(view).buckets}["surface_form"]
    confirmed = {b.bucket: b for b in diagnose(view, lenient=outcome.pairs).buckets}["surface_form"]
    assert confirmed.label == "surface form" and confirmed.count == 33
    assert unconfirmed is not None and unconfirmed != confirmed.count


def test_over_an_openai_compatible_server_and_from_cache(bench: Any, tmp_path: Path) -> None:
    gold, said, documents = verified(bench)

    def run(server: ReplayServer) -> tuple[LenientOutcome, int]:
        before = len(server.requests)
        spec = server.spec("recorded-reader")
        client = client_for(spec, cache=tmp_path / "cache")
        try:
            result = lenient_score(
                [("Vicuna-13B", said)], gold, documents, FactJudge(client=client, roles=spec)
            )
        finally:
            client.close()  # type: ignore[attr-defined]
        return result, len(server.requests) - before

    with ReplayServer.from_cassette("openai", CASSETTE) as server:
        first, asked = run(server)
        again, asked_again = run(server)
        body = server.requests[0].body
    assert (asked, asked_again) == (364, 0)
    assert first.section == again.section and first.section.rows[0].counted == 33
    assert body["response_format"]["type"] == "json_schema"
    assert first.section.judge["model"] == "openai/recorded-reader"
    assert {p.answers[0].cached for p in again.pairs} == {True}
    assert READER == "hand/reader"
