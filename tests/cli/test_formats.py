"""Formats (issue 17, item 5): ``--adapter`` decides over the benchmark-submission sniffing, and
gold written as triples rows is read by the rules predictions are read by (``odke eval
pipeline``, ``odke eval extract``, ``openodke.eval.read_gold``) or converted by ``odke label
convert``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from openodke.bench import load_bench, prepare_text2kgbench
from openodke.eval import GoldFact, evaluate_extraction, load_jsonl, read_gold
from tests.conftest import DATA, ROOT, run_odke

TRIPLES = ROOT / "examples" / "triples"
ONTOLOGY = TRIPLES / "ontology.json"


@pytest.fixture(scope="module")
def movie(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("formats") / "movie"
    prepare_text2kgbench(DATA, out, ontology="ont_1_movie")
    return out


def _graph_document(doc_id: str, text: str, rows: list[tuple[str, str, str]]) -> dict[str, Any]:
    """``GraphDocument.model_dump()`` as langchain-community writes it."""
    node = lambda name: {"id": name, "type": "Node", "properties": {}}  # noqa: E731
    return {
        "nodes": [node(n) for s, _, o in rows for n in (s, o)],
        "relationships": [
            {"source": node(s), "target": node(o), "type": p, "properties": {}} for s, p, o in rows
        ],
        "source": {
            "id": None,
            "metadata": {"id": doc_id},
            "page_content": text,
            "type": "Document",
        },
    }


def test_adapter_langchain_reads_a_json_list_on_a_bench_set(movie: Path, tmp_path: Path) -> None:
    # json.dumps([g.model_dump() for g in graph_documents]) starts with "[", as a DocRED
    # submission does: it was read as a submission (exit 2). Two graphs, each stating its
    # sentence's first gold fact by the names the sentence uses: 2 hits.
    bench = load_bench(movie)
    texts = {d.id: d.text for d in bench.documents}
    graphs = []
    for doc_id in ("ont_1_movie_test_1", "ont_1_movie_test_2"):
        fact = next(g.fact for g in bench.gold if g.doc_id == doc_id)
        assert fact.object_entity is not None
        row = (fact.subject.label, fact.predicate, fact.object_entity.label)
        graphs.append(_graph_document(doc_id, texts[doc_id], [row]))  # type: ignore[list-item]
    dump = tmp_path / "graphs.json"
    dump.write_text(json.dumps(graphs), encoding="utf-8")
    args = ("eval", "pipeline", "--bench", str(movie), "--predictions", str(dump), "--json")
    result = run_odke(*args, "--adapter", "langchain")
    assert result.exit_code == 0, result.stderr
    ours = json.loads(result.stdout)["rows"][0]
    assert (ours["counts"]["hits"], ours["counts"]["predicted"]) == (2, 2)
    # Without --adapter the list is still taken for the benchmark's own format, as before.
    assert run_odke(*args).exit_code == 2


def as_triples(row: GoldFact) -> dict[str, Any]:
    """A GoldFact row written as a triples row: names as the text gives them, types beside."""
    fact = row.fact
    out: dict[str, Any] = {
        "doc": row.doc_id.removesuffix(".txt"),  # by file stem, as pipeline rows name them
        "subject": fact.subject.key.split(":", 1)[1].title(),
        "subject_type": fact.subject.type,
        "predicate": fact.predicate.replace("_", " "),  # a label-like spelling
    }
    if fact.object_entity is not None:
        out["object"] = fact.object_entity.key.split(":", 1)[1]
        out["object_type"] = fact.object_entity.type
    else:
        out["object"] = fact.object_value
    return out


@pytest.fixture
def triples_gold(tmp_path: Path) -> Path:
    rows = load_jsonl(TRIPLES / "gold.jsonl", GoldFact)
    path = tmp_path / "gold-triples.jsonl"
    path.write_text("".join(json.dumps(as_triples(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def counts(row: dict[str, Any]) -> list[int]:
    return [row["counts"][k] for k in ("hits", "over_extraction", "under_extraction")]


def test_gold_as_triples_rows_scores_as_the_gold_file(triples_gold: Path) -> None:
    # examples/triples is 10/3/2 against its GoldFact gold (README); the same gold written as
    # triples rows (stems, title-cased names, predicates with spaces) scores the same.
    predictions = str(TRIPLES / "triples.jsonl")
    got = {}
    for name, labels in (("goldfact", TRIPLES / "gold.jsonl"), ("triples", triples_gold)):
        result = run_odke(
            "eval", "pipeline", "--labels", str(labels), "--documents", str(TRIPLES / "texts"),
            "--ontology", str(ONTOLOGY), "--predictions", predictions, "--json",
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        got[name] = counts(json.loads(result.stdout)["rows"][0])
    assert got == {"goldfact": [10, 3, 2], "triples": [10, 3, 2]}


def test_eval_extract_and_the_api_read_triples_gold(triples_gold: Path, tmp_path: Path) -> None:
    from openodke.documents import load_documents
    from openodke.eval.pipeline import collect
    from openodke.ontology import Ontology

    docs, onto = load_documents(TRIPLES / "texts"), Ontology.load(ONTOLOGY)
    facts = collect(TRIPLES / "triples.jsonl", docs, ontology=onto).facts
    path = tmp_path / "facts.jsonl"
    path.write_text("".join(f.model_dump_json() + "\n" for f in facts), encoding="utf-8")
    result = run_odke(
        "eval", "extract", "--labels", str(triples_gold), "--predictions", str(path),
        "--documents", str(TRIPLES / "texts"), "--ontology", str(ONTOLOGY), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    cli = json.loads(result.stdout)["metrics"]
    api = evaluate_extraction(read_gold(triples_gold, docs, onto), facts).metrics
    assert (cli["tp"], cli["fp"], cli["fn"]) == (api["tp"], api["fp"], api["fn"]) == (10, 3, 2)


def test_label_convert_writes_the_gold_rows(triples_gold: Path, tmp_path: Path) -> None:
    out = tmp_path / "gold.jsonl"
    result = run_odke(
        "label", "convert", str(triples_gold), "--ontology", str(ONTOLOGY), "-o", str(out)
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == f"12 gold row(s) in 2 document(s) to {out}"
    converted = load_jsonl(out, GoldFact)
    original = load_jsonl(TRIPLES / "gold.jsonl", GoldFact)
    # The same facts: predicates by the ontology's names, keys Type:name, literals by the range.
    assert [(g.fact.subject.key, g.fact.predicate) for g in converted] == [
        (g.fact.subject.key, g.fact.predicate) for g in original
    ]
    assert [g.doc_id for g in converted][:1] == ["halden"]  # as written: joined by stem
    again = tmp_path / "again.jsonl"
    run_odke("label", "convert", str(triples_gold), "--ontology", str(ONTOLOGY), "-o", str(again))
    assert again.read_bytes() == out.read_bytes()  # ids gold-<line>: the same file twice
    scored = run_odke(
        "eval", "pipeline", "--labels", str(out), "--documents", str(TRIPLES / "texts"),
        "--ontology", str(ONTOLOGY), "--predictions", str(TRIPLES / "triples.jsonl"), "--json",
    )  # fmt: skip
    assert scored.exit_code == 0, scored.stderr
    assert counts(json.loads(scored.stdout)["rows"][0]) == [10, 3, 2]


def test_label_convert_names_a_bad_row(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    shutil.copy(TRIPLES / "gold.jsonl", bad)  # GoldFact rows are not triples rows
    out = tmp_path / "out.jsonl"
    result = run_odke("label", "convert", str(bad), "-o", str(out))
    assert result.exit_code == 2
    assert f"{bad}:1: doc_id: unknown field (did you mean 'doc'?)" in result.stderr
    assert not out.exists()
