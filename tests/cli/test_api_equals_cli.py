"""One engine at every size: the Python API and ``odke eval extract`` give the same report on the
same files (rows with their ranges, the stage, the diagnosis and the fixes, the items), tiny,
about 50 MB and about 200 MB. The larger files are read by the CLI in parts by worker processes,
the API reads every row as a Fact: two readers, one engine."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from openodke.cli.eval_extract import document_items
from openodke.documents import load_documents
from openodke.eval import GoldFact, evaluate_extraction, load_jsonl
from openodke.eval.diagnosis import diagnose, gold_view
from openodke.eval.diagnosis.fixes import fixes
from openodke.eval.eval_report import extraction_rows, from_stage
from openodke.eval.report.io import report_json
from openodke.eval.stages.first_warnings import first_warnings
from openodke.types import Fact
from tests.conftest import run_odke

PREDICATES = ["born_in", "employer", "award", "member_of", "founded", "spouse"]
SIZES = {"tiny": 300, "50MB": 56_000, "200MB": 225_000}  # gold facts; as many predictions


def _entity(key: str, kind: str, label: str | None, full: bool) -> dict:
    entity: dict = {"key": key, "type": kind}
    if label is not None or full:
        entity["label"] = label
    if full:
        entity.update(aliases=[], external_id=None, resolution=None, attributes={})
    return entity


def _said(
    subject: dict,
    predicate: str,
    obj: dict,
    doc: str | None,
    full: bool,
    polarity: str = "asserted",
) -> dict:
    fact: dict = {"subject": subject, "predicate": predicate, **obj}
    evidence = [] if doc is None else [{"doc_id": doc}]
    if full:  # as a JsonlSink writes it: every field (most rows of the large files)
        for e in evidence:
            e.update(span={"doc_id": doc, "start": 0, "end": 9, "quote": None}, mention=None)
            e.update(span_origin="cited", uri=None, tier="unverified", retrieved_at=None)
        fact.setdefault("object_entity", None)
        fact.setdefault("object_value", None)
        fact = {"id": f"{random.getrandbits(64):016x}", **fact, "polarity": polarity}
        fact.update(qualifiers={}, identity_keys=[], valid_from=None, valid_to=None)
        fact.update(extractor="llm", confidence=0.5, verdict="unchecked", support=1)
        fact.update(supported_by=[], retired_at=None)
    fact["evidence"] = evidence
    if polarity != "asserted":
        fact["polarity"] = polarity
    return fact


def write_corpus(folder: Path, n: int, seed: int = 0) -> None:
    """gold.jsonl, facts.jsonl and docs.jsonl: ``n`` gold facts, ten a document, and
    predictions making each kind of mistake the diagnosis sorts; texts name some ends."""
    rng = random.Random(seed)
    full = n > 1000
    with (
        open(folder / "gold.jsonl", "w") as gold,
        open(folder / "facts.jsonl", "w") as said,
        open(folder / "docs.jsonl", "w") as docs,
    ):
        for d in range(n // 10):
            doc = f"d{d}"
            names = [f"Ann{d}", f"Bob{d}", f"Cy{d}", f"Dee{d}"]
            sentences = [f"{names[k]} met Acme{d}{k}." for k in range(4)]
            docs.write(json.dumps({"id": doc, "text": " ".join(sentences)}) + "\n")
            for k in range(10):
                i = 10 * d + k
                s = names[k % 4]
                subject = {"key": f"Person:{s.lower()}", "type": "Person"}
                predicate = PREDICATES[i % len(PREDICATES)]
                if k % 5 == 0:
                    obj: dict = {"object_value": 1000 + i}
                else:
                    obj = {"object_entity": {"key": f"Org:acme{d}{k % 6}", "type": "Org"}}
                gold.write(json.dumps({"doc_id": doc, "fact": {"subject": subject,
                                       "predicate": predicate, **obj}}) + "\n")  # fmt: skip
                r = rng.random()
                subject = _entity(subject["key"], "Person", s, full and r < 0.7)
                if "object_entity" in obj:
                    obj = {"object_entity": _entity(obj["object_entity"]["key"], "Org", None, full)}
                cited: str | None = doc
                polarity = "asserted"
                if r < 0.08:
                    continue  # missing
                if r < 0.12:
                    predicate = PREDICATES[(i + 1) % len(PREDICATES)]
                elif r < 0.15 and "object_entity" in obj:
                    subject, obj = obj["object_entity"], {"object_entity": subject}
                elif r < 0.17 and "object_entity" in obj:
                    key = obj["object_entity"]["key"] + " inc"
                    obj = {"object_entity": _entity(key, "Org", None, full)}
                elif r < 0.18:  # another declared type: a near miss (other type or key)
                    subject = {**subject, "key": s.lower(), "type": "Agent"}
                elif r < 0.19:  # scored apart
                    polarity = "denied"
                elif r < 0.21 and "object_value" in obj:
                    obj = {"object_value": 2000 + i}
                elif r < 0.22:
                    cited = None
                elif r < 0.23:
                    cited = "elsewhere"
                row = _said(subject, predicate, obj, cited, full, polarity)
                said.write(json.dumps(row) + "\n")
                if rng.random() < 0.05:
                    extra = {"object_entity": _entity(f"Org:x{i}", "Org", None, full)}
                    said.write(json.dumps(_said(subject, "founded", extra, doc, full)) + "\n")


@pytest.fixture(scope="session")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for name, n in SIZES.items():
        folder = tmp_path_factory.mktemp(f"corpus-{name}")
        write_corpus(folder, n)
        out[name] = folder
    return out


@pytest.mark.parametrize("size", list(SIZES))
def test_the_api_and_the_cli_give_the_same_report(corpora, size: str) -> None:
    folder = corpora[size]
    megabytes = sum(f.stat().st_size for f in folder.iterdir()) / 1e6
    assert megabytes < 1 if size == "tiny" else abs(megabytes - int(size[:-2])) < 20
    result = run_odke(
        "eval", "extract", "--labels", str(folder / "gold.jsonl"),
        "--predictions", str(folder / "facts.jsonl"), "--documents", str(folder / "docs.jsonl"),
        "--report", str(folder / "cli.json"), "--items", str(folder / "cli.items.jsonl"),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    cli = json.loads((folder / "cli.json").read_text())

    gold = load_jsonl(folder / "gold.jsonl", GoldFact)
    facts = load_jsonl(folder / "facts.jsonl", Fact)
    docs = load_documents(folder / "docs.jsonl")
    ids = [d.id for d in docs]
    rows, how = extraction_rows([("extract", facts, None)], gold, documents=ids)
    view = gold_view(gold, facts, documents=ids)
    found = diagnose(view, texts=docs, row="extract")
    made = from_stage(
        evaluate_extraction(gold, facts, documents=ids),
        rows=rows,
        bootstrap=how,
        diagnosis=found.rows(),
        fixes=fixes(found),
        notes=first_warnings(view.score),
    )
    api = json.loads(report_json(made))
    for key in ("n", "bootstrap", "rows", "stages", "notes", "diagnosis", "fixes"):
        assert cli[key] == api[key], key
    counts = {row["bucket"]: row["count"] for row in api["diagnosis"]}
    assert counts["cross_sentence"] and counts["wrong_relation"] and counts["inverse"]
    assert counts["scored_apart"] and counts["surface_form"] and counts["other_type_or_key"]
    assert cli["notes"][0].startswith("near misses (type): ")
    items = (folder / "cli.items.jsonl").read_text()
    assert items == document_items(view.score)
