"""Labels keyed ``d0`` against a --documents folder holding ``d0.txt`` (issue 9): the ids join by
file stem, so the score, its ranges and its units are those of matching ids, and the notes say
only what is true."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke.documents import load_documents
from openodke.eval import GoldFact, evaluate_extraction, load_jsonl
from openodke.types import Fact
from tests.conftest import run_odke

N_LABELLED = 4  # d0..d3 hold gold facts; d4 is in the folder with none


def _gold_rows(doc: str, i: int) -> list[dict]:
    person = {"key": f"Person:ann{i}", "type": "Person"}
    return [
        {"doc_id": doc, "fact": {"subject": person, "predicate": "works_at",
                                 "object_entity": {"key": f"Org:acme{i}", "type": "Org"}}},
        {"doc_id": doc, "fact": {"subject": person, "predicate": "born",
                                 "object_value": 1990 + i}},
    ]  # fmt: skip


def _predictions(cite: str) -> list[dict]:
    """d0 both right; d1 works_at right, born wrong; d2 works_at right, born missing, one
    spurious; d3 nothing. By hand: tp 2+1+1 = 4; fp 1 (d1's wrong value) + 1 (d2's spurious)
    = 2; fn 1 (d1's wrong value) + 1 (d2's born) + 2 (d3's) = 4."""
    rows = []
    for i, born in ((0, 1990), (1, 2000), (2, None)):
        person = {"key": f"Person:ann{i}", "type": "Person"}
        evidence = [{"doc_id": cite.format(i)}]
        org = {"key": f"Org:acme{i}", "type": "Org"}
        rows.append({"subject": person, "predicate": "works_at", "object_entity": org,
                     "evidence": evidence})  # fmt: skip
        if born is not None:
            rows.append({"subject": person, "predicate": "born", "object_value": born,
                         "evidence": evidence})  # fmt: skip
    rows.append({"subject": {"key": "Person:ann2", "type": "Person"}, "predicate": "founded",
                 "object_entity": {"key": "Org:x2", "type": "Org"},
                 "evidence": [{"doc_id": cite.format(2)}]})  # fmt: skip
    return rows


def _as_triples(rows: list[dict]) -> list[dict]:
    """The predictions as a harness's triples rows, naming documents as the labels do."""
    out = []
    for r in rows:
        s, o = r["subject"], r.get("object_entity")
        row = {"doc": r["evidence"][0]["doc_id"], "subject": s["key"].split(":")[1],
               "subject_type": s["type"], "predicate": r["predicate"]}  # fmt: skip
        if o is not None:
            row.update(object=o["key"].split(":")[1], object_type=o["type"])
        else:
            row["object"] = r["object_value"]
        out.append(row)
    return out


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("docjoin")
    texts = root / "texts"
    texts.mkdir()
    for i in range(N_LABELLED + 1):
        (texts / f"d{i}.txt").write_text(f"Ann{i} works at Acme{i}. Ann{i} was born in {1990 + i}.")
    for name, doc in (("bare", "d{}"), ("named", "d{}.txt")):
        _write(root / f"gold-{name}.jsonl",
               [r for i in range(N_LABELLED) for r in _gold_rows(doc.format(i), i)])  # fmt: skip
        _write(root / f"facts-{name}.jsonl", _predictions(doc))
    _write(root / "facts-elsewhere.jsonl", _predictions("doc-{}"))
    _write(root / "facts-triples.jsonl", _as_triples(_predictions("d{}")))
    return root


def _pipeline(corpus: Path, labels: str, facts: str, *more: str) -> tuple[dict, str]:
    result = run_odke(
        "eval", "pipeline", "--labels", str(corpus / f"gold-{labels}.jsonl"),
        "--documents", str(corpus / "texts"), "--predictions", str(corpus / f"facts-{facts}.jsonl"),
        "--json", *more,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout), result.stderr


def _stem_notes(notes: list[str]) -> list[str]:
    return [n for n in notes if "or file stem" in n]


@pytest.mark.parametrize("facts", ["bare", "named", "triples"])
def test_labels_named_d0_join_a_folder_holding_d0_txt(corpus: Path, facts: str) -> None:
    same, _ = _pipeline(corpus, "named", "named")  # ids that match as written
    report, stderr = _pipeline(corpus, "bare", facts)
    counts = report["rows"][0]["counts"]
    assert (counts["hits"], counts["over_extraction"], counts["under_extraction"]) == (4, 2, 4)
    assert (counts["unscored"], counts["documents"]) == (0, N_LABELLED + 1)
    assert report["bootstrap"]["units"] == N_LABELLED + 1  # each document once, not 4 + 5
    f1 = report["rows"][0]["performance"]["f1"]["value"]
    assert f1 == pytest.approx(2 * 4 / (2 * 4 + 2 + 4))
    # the same row as with matching ids: the point, its ranges, the checks of the texts
    assert report["rows"] == same["rows"]
    assert report["rows"][0]["hallucination"]["facts"] == 6  # every prediction found its text
    assert [d["count"] for d in report["diagnosis"]] == [d["count"] for d in same["diagnosis"]]
    assert not any("--documents" in n or "unlabelled" in n for n in report["notes"])
    assert _stem_notes(same["notes"]) == []
    # d0.txt..d3.txt from the folder joined the labels' d0..d3; predictions citing d0.txt
    # name the joined ids, those citing d0 the labels' own
    assert _stem_notes(report["notes"]) == [
        "4 document ids joined a labelled document by letter case or file stem, none having their id "
        "(e.g. 'd0' ↔ 'd0.txt')"
    ]
    assert "warning" not in stderr


def test_eval_extract_joins_the_same_way_and_equals_the_api(corpus: Path, tmp_path: Path) -> None:
    labels, facts = corpus / "gold-bare.jsonl", corpus / "facts-bare.jsonl"
    items = tmp_path / "items.jsonl"
    result = run_odke(
        "eval", "extract", "--labels", str(labels), "--predictions", str(facts),
        "--documents", str(corpus / "texts"), "--json", "--items", str(items),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    cli = json.loads(result.stdout)
    m = cli["metrics"]
    assert (m["tp"], m["fp"], m["fn"], m["wrong_value"], m["spurious"]) == (4, 2, 4, 1, 1)
    ids = [json.loads(line)["id"] for line in items.read_text().splitlines()]
    assert ids == ["d0", "d1", "d2", "d3", "d4.txt"]  # the labels' names, then the rest
    docs = load_documents(corpus / "texts")
    api = evaluate_extraction(
        load_jsonl(labels, GoldFact), load_jsonl(facts, Fact), documents=[d.id for d in docs]
    ).model_dump(mode="json")
    for key in ("n", "metrics", "breakdown"):
        assert cli[key] == api[key], key
    assert cli["notes"][:-1] == api["notes"]  # and the CLI's small-set note (#41)
    assert cli["notes"][-1].startswith("only 4 of 5 documents hold a gold or predicted fact")


def test_a_labelled_document_really_missing_is_noted_truthfully(
    corpus: Path, tmp_path: Path
) -> None:
    rows = [json.loads(line) for line in (corpus / "gold-bare.jsonl").read_text().splitlines()]
    rows.append({**rows[0], "doc_id": "d9"})
    labels = _write(tmp_path / "gold.jsonl", rows)
    result = run_odke(
        "eval", "pipeline", "--labels", str(labels), "--documents", str(corpus / "texts"),
        "--predictions", str(corpus / "facts-bare.jsonl"), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    missing = [n for n in report["notes"] if "not in --documents" in n]
    assert missing == [
        "1 labelled document(s) are not in --documents, by id or file stem (first: 'd9'); "
        "their gold facts are scored all the same, but no text checks or diagnoses them"
    ]
    assert report["bootstrap"]["units"] == N_LABELLED + 2


def test_predictions_naming_no_labelled_document_warn_before_any_table(corpus: Path) -> None:
    result = run_odke(
        "eval", "pipeline", "--labels", str(corpus / "gold-bare.jsonl"),
        "--documents", str(corpus / "texts"),
        "--predictions", str(corpus / "facts-elsewhere.jsonl"),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    warning = (
        "6 of 6 predictions citing a document cite none the labels name, even by file stem "
        "(they cite 'doc-0', 'doc-1'; the labels name 'd0', 'd1'): they are not scored; name "
        "documents as the labels do"
    )
    lines = result.stdout.splitlines()
    assert lines[:2] == [warning, ""]  # before any table, and not again among the notes
    assert f"  • {warning}" not in lines
    report, _ = _pipeline(corpus, "bare", "elsewhere")
    assert report["notes"][0] == warning
    extract = run_odke(
        "eval", "extract", "--labels", str(corpus / "gold-bare.jsonl"),
        "--predictions", str(corpus / "facts-elsewhere.jsonl"),
    )  # fmt: skip
    assert extract.stdout.splitlines()[0] == warning
