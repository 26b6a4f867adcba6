"""The diagnosis on real data, end to end: the published Vicuna-13B outputs on the movie ontology
(Text2KGBench) and the model-free baseline on Re-DocRED test (the spec's first 50 documents)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from openodke.bench import BenchSet, load_bench, prepare_redocred, prepare_text2kgbench
from openodke.eval.diagnosis import (
    RECALL_BUCKETS,
    Diagnosis,
    diagnose,
    evidence_from_bench,
    gold_view,
    offered_from_trace,
)
from openodke.eval.diagnosis.fixes import fixes, render_fixes
from openodke.eval.engine.jsonl import load_jsonl
from openodke.eval.stages.extract import score_facts
from openodke.interop.triples import read_triples, to_fact
from openodke.ontology import Ontology
from openodke.types import Fact
from tests.conftest import DATA, ROOT


def _diagnosed(bench: BenchSet, facts: list[Fact]) -> tuple[Diagnosis, dict[str, int]]:
    aligned, _ = bench.align(facts)
    ids = [d.id for d in bench.documents]
    counts = score_facts(bench.gold, aligned, ids).matching.counts()
    ontology = Ontology.from_dict(bench.ontology)
    found = diagnose(
        gold_view(bench.gold, aligned, documents=ids),
        offered=offered_from_trace(bench.config),
        inverses=[ontology, *bench.inverses],
        evidence=evidence_from_bench(bench),
        texts=bench.documents,
    )
    return found, counts


@pytest.fixture(scope="module")
def vicuna(tmp_path_factory: pytest.TempPathFactory) -> tuple[Diagnosis, dict[str, int]]:
    out = tmp_path_factory.mktemp("bench") / "movie"
    prepare_text2kgbench(DATA, out, ontology="ont_1_movie")
    bench = load_bench(out)
    facts = load_jsonl(bench.competitors["Vicuna-13B"] / "facts.jsonl", Fact)
    return _diagnosed(bench, facts)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> tuple[Diagnosis, dict[str, int]]:
    out = tmp_path_factory.mktemp("bench") / "redocred"
    prepare_redocred(DATA, out, split="test", limit=50)
    bench = load_bench(out)
    rows = out / "baseline.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "examples/baseline/pipeline.py"), str(out / "docs"), str(rows)],
        check=True,
        timeout=120,
    )
    documents = {d.id: d for d in bench.documents}
    ontology = Ontology.from_dict(bench.ontology)
    facts = [to_fact(row, documents[row.doc], ontology) for row in read_triples(rows)]
    return _diagnosed(bench, facts)


REAL = Path(__file__).resolve().parents[2] / "fixtures" / "diagnosis" / "real.json"


@pytest.mark.parametrize("run", ["vicuna", "baseline"])
def test_diagnosis_and_fixes_equal_the_goldens(request, run: str) -> None:
    # Written by the row-by-row diagnosis before the columnar engine: nothing may move.
    found, _ = request.getfixturevalue(run)
    golden = json.loads(REAL.read_text(encoding="utf-8"))[run]
    assert found.model_dump(mode="json") == golden["diagnosis"]
    assert [f.model_dump(mode="json") for f in fixes(found)] == golden["fixes"]


def _every_miss_once(found: Diagnosis, counts: dict[str, int]) -> None:
    recall = [b.count for b in found.recall_side if b.count is not None]
    assert found.misses == counts["fn"] == sum(recall)
    assert sum(b.share for b in found.recall_side if b.share is not None) == pytest.approx(1.0)
    assert found.false_positives == counts["fp"]
    precision = [b for b in found.precision_side if b.count is not None]
    assert sum(b.count for b in precision) == counts["fp"]  # no --validator: written only
    assert sum(b.share for b in precision) == pytest.approx(1.0)


def test_vicuna_on_the_movie_ontology(vicuna) -> None:
    found, counts = vicuna
    _every_miss_once(found, counts)
    assert found.gold == 2240 and counts["tp"] == found.hits
    by = {b.bucket: b.count for b in found.recall_side}
    # Every relation is offered: the set's odke.json sets snippet_limit to the ontology's size.
    assert by["never_offered"] == 0
    assert by["refused"] is None  # no --validator
    assert by["cross_sentence"] == 0  # every document is one sentence
    assert by["entity_missing"] > by["surface_form"] > 0
    assert found.bucket("surface_form").label == "surface form (unconfirmed)"
    text = found.render()
    assert text.startswith(f"where it loses facts  (pipeline: {found.misses:,} misses)")
    assert render_fixes(fixes(found)).splitlines()[2].startswith("  1  reextract")


def test_baseline_on_redocred(baseline) -> None:
    found, counts = baseline
    _every_miss_once(found, counts)
    assert found.gold == 1747
    by = {b.bucket: b.count for b in found.recall_side}
    assert all(by[b] is not None for b in RECALL_BUCKETS if b != "refused")
    # A sentence-level baseline: facts whose evidence spans sentences are its largest loss.
    assert max(by, key=lambda b: by[b] or 0) == "cross_sentence"
    assert found.replays["inverses"] is not None  # the bench set carries its reverse rules
    ranked = fixes(found)
    assert ranked[0].id == "wider-context"
    assert "its recall on facts within one sentence" in ranked[0].recall.basis


def test_baseline_writes_triples_rows(tmp_path: Path) -> None:
    docs = tmp_path / "in"
    docs.mkdir()
    (docs / "halden.txt").write_text(
        "John Smith was born in 1950 in London . He died in 2001 .", encoding="utf-8"
    )
    out = tmp_path / "out.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "examples/baseline/pipeline.py"), str(docs), str(out)],
        check=True,
        timeout=60,
    )
    rows = read_triples(out)
    assert rows and {r.doc for r in rows} == {"halden"}
    assert any(
        (r.subject, r.predicate, r.object) == ("John Smith", "date_of_birth", "1950") for r in rows
    )


def write_goldens() -> None:
    """Write real.json again (``python -m tests.eval.diagnosis.test_diagnosis_real``), after a
    change of rules that is meant to move the diagnosis."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        factory = pytest.TempPathFactory(
            Path(tmp),
            retention_count=0,
            retention_policy="none",
            trace=lambda *a: None,
            _ispytest=True,
        )
        found = {"vicuna": vicuna.__wrapped__(factory), "baseline": baseline.__wrapped__(factory)}  # type: ignore[attr-defined]
    REAL.write_text(
        json.dumps(
            {
                run: {
                    "diagnosis": diagnosis.model_dump(mode="json"),
                    "fixes": [f.model_dump(mode="json") for f in fixes(diagnosis)],
                }
                for run, (diagnosis, _) in found.items()
            }
        ),
        encoding="utf-8",
    )


if __name__ == "__main__":
    write_goldens()
