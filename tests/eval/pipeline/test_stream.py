"""Triples rows and adapters' output are read straight into columns (stream.py): the CLI's report
and items equal the library's on the collected Facts, block by block at any block size."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from openodke.cli.eval_extract import document_items
from openodke.eval.pipeline import collect
from openodke.eval.pipeline.evaluate import DiagnosisOptions, label_inputs, score_pipeline
from openodke.eval.pipeline.extras import with_small_set_note
from openodke.eval.report.io import report_json
from tests.conftest import run_odke

ROOT = Path(__file__).resolve().parents[3]
ADAPTERS = ROOT / "tests" / "fixtures" / "adapters"
TRIPLES = ROOT / "examples" / "triples"


def _random_triples(folder: Path) -> tuple[Path, Path, Path, Path]:
    """Gold and triples rows over 12 documents: hits, wrong objects, rows naming a document by
    stem, naming none, quotes found and not, offsets, literals and an ontology."""
    rng = random.Random(7)
    texts = {f"d{i}": f"P{i} lives in c{i % 5}. P{i} was born in {1800 + i}." for i in range(12)}
    docs = folder / "texts"
    docs.mkdir()
    for name, text in texts.items():
        (docs / f"{name}.txt").write_text(text, encoding="utf-8")
    gold, said = [], []
    for n in range(300):
        i = n % 12
        doc = f"d{i}"
        gold.append({"doc_id": doc, "fact": {"subject": {"key": f"Person:p{i}", "type": "Person"},
                     "predicate": "lives", "object_entity": {"key": f"Place:c{i % 5}",
                     "type": "Place"}}})  # fmt: skip
        r = rng.random()
        row = {"doc": rng.choice([doc, f"{doc}.txt", f"texts/{doc}.txt"]), "subject": f"P{i}",
               "predicate": "lives", "object": f"c{i % 5}", "subject_type": "Person",
               "object_type": "Place"}  # fmt: skip
        if r < 0.1:
            row["doc"] = "nowhere"
        elif r < 0.3:
            row["object"] = f"c{(i + 1) % 5}"
        elif r < 0.45:
            row.update(predicate="born", object=1800 + i, object_type="integer")
        if rng.random() < 0.4:
            row["quote"] = rng.choice([f"P{i} lives in c{i % 5}", "not in the text"])
        elif rng.random() < 0.3:
            row.update(start=0, end=len(f"P{i}"))
        if rng.random() < 0.2:
            row["confidence"] = round(rng.random(), 2)
        said.append(row)
    ontology = {
        "types": {"Person": {}, "Place": {}},
        "predicates": {
            "born": {"domain": ["Person"], "range": "integer"},
            "lives": {"domain": ["Person"], "range": "Place"},
        },
    }
    (folder / "ontology.json").write_text(json.dumps(ontology))
    (folder / "gold.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gold))
    (folder / "said.jsonl").write_text("".join(json.dumps(s) + "\n" for s in said))
    return folder / "gold.jsonl", docs, folder / "ontology.json", folder / "said.jsonl"


def _fixture(kind: str, folder: Path) -> tuple[list[str], Path, str]:
    """(--labels/--documents/--ontology arguments, predictions, adapter)."""
    if kind == "random":
        gold, docs, ontology, said = _random_triples(folder)
        return (
            ["--labels", str(gold), "--documents", str(docs), "--ontology", str(ontology)],
            said,
            "triples",
        )
    if kind == "example":
        args = ["--labels", str(TRIPLES / "gold.jsonl"), "--documents", str(TRIPLES / "texts"),
                "--ontology", str(TRIPLES / "ontology.json")]  # fmt: skip
        return args, TRIPLES / "triples.jsonl", "triples"
    from tests.interop.test_adapters_real_output import CLI_ONTOLOGY, GOLD, TEXTS

    rows = []
    for doc, subject, predicate, obj in GOLD:
        fact = {"subject": {"key": subject, "type": subject.split(":")[0]}, "predicate": predicate}
        if isinstance(obj, int):
            fact["object_value"] = obj
        else:
            fact["object_entity"] = {"key": obj, "type": obj.split(":")[0]}
        rows.append(json.dumps({"doc_id": doc, "fact": fact}, ensure_ascii=False))
    (folder / "gold.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (folder / "ontology.json").write_text(json.dumps(CLI_ONTOLOGY), encoding="utf-8")
    args = ["--labels", str(folder / "gold.jsonl"), "--documents", str(TEXTS),
            "--ontology", str(folder / "ontology.json")]  # fmt: skip
    adapter, path = kind.split(":")
    return args, ADAPTERS / path, adapter


@pytest.mark.parametrize(
    "kind",
    [
        "random",
        "example",
        "langchain:langchain/graph_documents.json",
        "langchain:langchain/dumps.json",
        "langextract:langextract/annotated.jsonl",
        "langextract:langextract/grouped.jsonl",
        "graphrag:graphrag/csv",
        "graphrag:graphrag/sentences",
    ],
)
@pytest.mark.parametrize("block", [3, 1024])
def test_streamed_rows_score_as_the_collected_facts(tmp_path, monkeypatch, kind, block):
    monkeypatch.setattr("openodke.eval.pipeline.stream.BLOCK", block)
    args, said, adapter = _fixture(kind, tmp_path)
    items = tmp_path / "items.jsonl"
    cli = run_odke("eval", "pipeline", *args, "--predictions", str(said), "--adapter", adapter,
                   "--json", "--items", str(items))  # fmt: skip
    assert cli.exit_code == 0, cli.stderr
    got = json.loads(cli.stdout)
    labels, documents, ontology = (Path(args[i]) for i in (1, 3, 5))
    inputs = label_inputs(labels, documents, ontology)
    collected = collect(said, inputs.documents, ontology=inputs.ontology, adapter=adapter)
    api = score_pipeline(
        collected.facts, inputs, notes=collected.notes, run_inputs={"predictions": str(said)},
        diagnosis=DiagnosisOptions(),
    )  # fmt: skip
    expected = json.loads(report_json(with_small_set_note(api).report))
    for key in ("rows", "stages", "notes", "diagnosis", "fixes", "n"):
        assert got[key] == expected[key], key
    assert items.read_text() == document_items(api.score)
    assert got["rows"][0]["counts"]["predicted"] > 0


def test_a_bad_row_after_a_full_block_is_named_and_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.setattr("openodke.eval.pipeline.stream.BLOCK", 3)
    args, said, _ = _fixture("random", tmp_path)
    lines = said.read_text().splitlines(keepends=True)
    lines[40] = '{"doc": "d1", "subj": "P1", "predicate": "lives", "object": "c1"}\n'
    said.write_text("".join(lines))
    report = tmp_path / "report.json"
    result = run_odke(
        "eval", "pipeline", *args, "--predictions", str(said), "--report", str(report)
    )
    assert result.exit_code == 2
    assert f"{said}:41: subj: unknown field (did you mean 'subject'?)" in result.stderr
    assert not report.exists()
