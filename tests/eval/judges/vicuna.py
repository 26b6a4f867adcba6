"""The real-data lenient set: Vicuna-13B's movie triples against Text2KGBench's gold.

Text2KGBench (Wikidata-TekGen, ``ont_1_movie``) ships Vicuna-13B's answers for every test
sentence; ``odke bench prepare`` turns them into facts (``competitors/Vicuna-13B``) and
``BenchSet.align`` keys them as the gold is keyed. We keep the benchmark's own manually verified
sentences (``details.verified_ids``: 174 of 840) and there every candidate of the lenient
pre-filter: 187 pairs in 66 sentences. ``propose`` is the deterministic first reader; each
proposal was then read against the sentence and kept or corrected (``vicuna.readings.jsonl``,
see ``tests/fixtures/judges/README.md``).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from openodke.bench import BenchSet, load_bench, prepare_text2kgbench
from openodke.bench.submissions import read_submission
from openodke.eval import GoldFact
from openodke.eval.diagnosis import gold_view
from openodke.eval.judges.claims import fact_words
from openodke.eval.judges.prefilter import passage_for, surface_pairs
from openodke.types import Document, Fact
from tests.conftest import DATA, ROOT

__all__ = [
    "CASSETTE",
    "READER",
    "READINGS",
    "candidates",
    "cassette",
    "movie",
    "propose",
    "read_readings",
    "verified",
]

FIXTURES = ROOT / "tests" / "fixtures" / "judges"
CASSETTE = FIXTURES / "vicuna.cassette.json"
READINGS = FIXTURES / "vicuna.readings.jsonl"
READER = "hand/reader"
"""The ``model`` of every recorded answer: a person reading the sentence, not a model."""
DESCRIPTION = (
    "fact_equiv@1 answers for the lenient pre-filter's 187 candidates on Text2KGBench movie's "
    "manually verified sentences (Vicuna-13B against the gold; tests/eval/judges/vicuna.py). No "
    "model answered: each decision was written by reading the sentence (see "
    "tests/fixtures/judges/README.md and vicuna.readings.jsonl); both orders get the same answer."
)


@cache
def movie(folder: str) -> BenchSet:
    """``odke bench prepare text2kgbench data --ontology ont_1_movie`` into ``folder``, loaded."""
    out = Path(folder) / "movie"
    if not out.exists():
        prepare_text2kgbench(DATA, out, ontology="ont_1_movie")
    return load_bench(out)


def verified(bench: BenchSet) -> tuple[list[GoldFact], list[Fact], list[Document]]:
    """Gold, Vicuna's aligned facts and the texts of the verified sentences only."""
    keep = set(bench.verified_ids or ())
    facts, _ = bench.align(
        read_submission(bench.competitors["Vicuna-13B"] / "responses.jsonl", bench)
    )
    gold = [g for g in bench.gold if g.doc_id in keep]
    said = [f for f in facts if f.doc_ids and f.doc_ids[0] in keep]
    documents = [d for d in bench.documents if d.id in keep]
    return gold, said, documents


def candidates(bench: BenchSet) -> list[dict[str, Any]]:
    """Every pre-filter candidate: ``k``, ``doc``, both facts, their words and the passage."""
    gold, said, documents = verified(bench)
    texts = {d.id: d.text for d in documents}
    view = gold_view(gold, said, documents=list(texts))
    out = []
    for k, pair in enumerate(surface_pairs(view)):
        g, p = gold[pair.gold].fact, said[pair.prediction]
        out.append(
            {
                "k": k,
                "doc": pair.doc_id,
                "end": pair.end,
                "gold": g,
                "prediction": p,
                "gold_words": fact_words(g),
                "prediction_words": fact_words(p),
                "passage": passage_for(g, p, texts[pair.doc_id]),
            }
        )
    return out


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def propose(row: dict[str, Any]) -> str:
    """The deterministic first reader: ``same`` when the ends that differ are equal once case,
    spaces and punctuation are dropped (tokenisation: "Alice 's" / "Alice's"), else
    ``different``. Every proposal was then read and kept or corrected by hand."""
    g, p = row["gold"], row["prediction"]
    if row["end"] == "subject":
        a = g.object_entity.label if g.object_entity else str(g.object_value)
        b = p.object_entity.label if p.object_entity else str(p.object_value)
    else:
        a, b = g.subject.label or g.subject.key, p.subject.label or p.subject.key
    return "same" if _squash(str(a)) == _squash(str(b)) else "different"


def read_readings() -> list[dict[str, Any]]:
    """The hand readings, one per candidate, in candidate order."""
    return [json.loads(line) for line in READINGS.read_text(encoding="utf-8").splitlines()]


def cassette(rows: list[dict[str, Any]], readings: list[dict[str, Any]]) -> dict[str, Any]:
    """The ReplayClient cassette: per candidate, both orders, matched by the two fact lines and
    the passage's start, answering the decision read by hand."""
    interactions = []
    for row, reading in zip(rows, readings, strict=True):
        answer = json.dumps(
            {"decision": reading["decision"], "why": reading["why"]}, ensure_ascii=False
        )
        for first, second in (
            (row["gold_words"], row["prediction_words"]),
            (row["prediction_words"], row["gold_words"]),
        ):
            interactions.append(
                {
                    "match": {
                        "contains": [
                            f"Fact 1: {first}\nFact 2: {second}\n",
                            "Passage:\n" + row["passage"][:80],
                        ]
                    },
                    "response": {"text": answer, "model": READER},
                }
            )
    return {"description": DESCRIPTION, "interactions": interactions}
