"""A fact citing several documents counts in every document it cites (issue 17, item 3).

The Validator merges a fact stated in several documents into one that cites them all, and a
sink's ``facts.jsonl`` holds such facts; each is a prediction in every document it cites, a hit
where that document's gold holds it, as the facts before merging would be. The CLI, the Python
API, the ``+ validator`` row and the ablation give the same numbers.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from openodke import Entity, Evidence, Fact
from openodke.eval import GoldFact, evaluate_extraction, load_jsonl
from openodke.eval.ablation import truth_of
from tests.conftest import ROOT, run_odke

E2E = ROOT / "examples" / "e2e"
ADA, LONDON, ACME = (
    Entity(key="ada", type="Person"),
    Entity(key="london", type="City"),
    Entity(key="acme", type="Company"),
)
BORN = Fact(subject=ADA, predicate="born_in", object_entity=LONDON)
WORKS = Fact(subject=ADA, predicate="works_for", object_entity=ACME)


def cites(fact: Fact, *docs: str) -> Fact:
    return fact.model_copy(update={"evidence": tuple(Evidence(doc_id=d) for d in docs)})


def gold(*rows: tuple[str, Fact]) -> list[GoldFact]:
    return [GoldFact(doc_id=d, fact=f) for d, f in rows]


# (gold rows, predictions, tp, fp, fn). Working: a fact citing d1 and d2 is a prediction in each.
CASES = {
    # in both documents' gold: a hit in each (the first-document rule gave tp 2, fn 1).
    "held by both": (
        gold(("d1", BORN), ("d2", BORN), ("d2", WORKS)),
        [cites(BORN, "d1", "d2"), cites(WORKS, "d2")],
        3, 0, 0,
    ),
    # only d2 holds it: a hit there, and a false positive in d1, which does not say it.
    "held by the second": (
        gold(("d1", WORKS), ("d2", BORN)),
        [cites(BORN, "d1", "d2"), cites(WORKS, "d1")],
        2, 1, 0,
    ),
    # two spans in one document: one prediction there.
    "twice in one document": (
        gold(("d1", BORN)),
        [cites(BORN, "d1", "d1")],
        1, 0, 0,
    ),
    # an unlabelled document beside a labelled one: scored in the labelled one only.
    "with an unlabelled document": (
        gold(("d1", BORN)),
        [cites(BORN, "d9", "d1")],
        1, 0, 0,
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_each_cited_document_scores_it_in_the_cli_and_the_api(case: str, tmp_path: Path) -> None:
    rows, facts, tp, fp, fn = CASES[case]
    labels, predictions = tmp_path / "gold.jsonl", tmp_path / "facts.jsonl"
    labels.write_text("".join(r.model_dump_json() + "\n" for r in rows), encoding="utf-8")
    predictions.write_text("".join(f.model_dump_json() + "\n" for f in facts), encoding="utf-8")
    result = run_odke(
        "eval", "extract", "--labels", str(labels), "--predictions", str(predictions), "--json"
    )
    assert result.exit_code == 0, result.stderr
    cli = json.loads(result.stdout)["metrics"]
    api = evaluate_extraction(rows, facts).metrics
    assert (cli["tp"], cli["fp"], cli["fn"]) == (tp, fp, fn)
    assert {k: api[k] for k in ("tp", "fp", "fn", "f1")} == {
        k: cli[k] for k in ("tp", "fp", "fn", "f1")
    }
    notes = json.loads(result.stdout)["notes"]
    assert not any("not scored" in n for n in notes)  # d9 beside d1 is scored, in d1


def test_the_note_says_how_many_facts_cite_several_documents() -> None:
    report = evaluate_extraction(*CASES["held by both"][:2])
    assert (
        "1 prediction(s) cite several documents: each is scored in every document it cites, "
        "against that document's gold"
    ) in report.notes


def test_truth_of_reads_each_cited_document() -> None:
    # The ablation's gate notes: true where any cited document's gold holds it.
    rows = gold(("d1", WORKS), ("d2", BORN))
    candidates = [cites(BORN, "d1", "d2"), cites(WORKS, "d2"), cites(BORN, "d9")]
    assert truth_of(rows, candidates) == [True, False, None]


@pytest.fixture(scope="module")
def e2e(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/e2e run once on its recorded answers; its documents and its 36 candidates (the
    extractor's facts before the Validator) written beside it."""
    from openodke.run import build, load_config
    from openodke.run.ablate import ablate
    from openodke.run.steps import load

    folder = tmp_path_factory.mktemp("several") / "e2e"
    shutil.copytree(E2E, folder, ignore=shutil.ignore_patterns("out", ".odke-cache"))
    result = run_odke("run", str(folder / "odke.yaml"), "--no-cache")
    assert result.exit_code == 0, result.stderr
    config = load_config(folder / "odke.yaml")
    with build(config) as built:
        documents, _ = load(built)
    with build(config) as built:
        candidates = ablate(built).candidates
    for name, rows in (("documents", documents), ("candidates", candidates)):
        text = "".join(r.model_dump_json() + "\n" for r in rows)
        (folder / f"{name}.jsonl").write_text(text, encoding="utf-8")
    return folder


def counts(metrics: dict[str, Any]) -> tuple[int, int, int]:
    return metrics["tp"], metrics["fp"], metrics["fn"]


def test_a_sinks_facts_score_as_the_ablation_does(e2e: Path) -> None:
    # The sink's 30 facts, 6 merged across documents: the ablation's "+ corroboration" row,
    # 34/2/2 (examples/e2e/README.md); scoring each merged fact in its first document alone
    # gave recall 28/36 = 0.778.
    facts = e2e / "out" / "facts.jsonl"
    result = run_odke(
        "eval", "extract", "--labels", str(e2e / "gold.jsonl"), "--predictions", str(facts),
        "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    cli = json.loads(result.stdout)["metrics"]
    assert counts(cli) == (34, 2, 2) and cli["recall"] == pytest.approx(34 / 36)
    api = evaluate_extraction(
        load_jsonl(e2e / "gold.jsonl", GoldFact), load_jsonl(facts, Fact)
    ).metrics
    assert counts(api) == counts(cli)


def test_the_validator_row_keeps_what_it_merged(e2e: Path) -> None:
    # Nothing refused (the gate marks, below the bar): the + validator row is the ablation's
    # last row, 34/2/2, not recall 0.778 with the merged facts' other documents "never
    # extracted" and a re-extraction fix on top.
    report = e2e / "report.json"
    result = run_odke(
        "eval", "pipeline", "--labels", str(e2e / "gold.jsonl"),
        "--documents", str(e2e / "documents.jsonl"), "--ontology", str(e2e / "ontology.json"),
        "--predictions", str(e2e / "candidates.jsonl"), "--config", str(e2e / "odke.yaml"),
        "--validator", "--no-cache", "--report", str(report),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    written = json.loads(report.read_text(encoding="utf-8"))
    rows = {row["name"]: row for row in written["rows"]}
    got = {n: [rows[n]["counts"][k] for k in ("hits", "over_extraction")] for n in rows}
    assert got == {"pipeline": [32, 4], "+ validator": [34, 2]}
    assert rows["+ validator"]["performance"]["recall"]["value"] == pytest.approx(34 / 36)
    assert rows["+ validator"]["counts"]["predicted"] == 30  # facts, not (fact, document) pairs
    found = {row["bucket"]: row["count"] for row in written["diagnosis"]}
    assert found["entity_missing"] == 0 and found["refused"] == 0
    assert [fix["id"] for fix in written["fixes"]][:1] == ["wider-context"]
    assert "refused by the Validator  (0 of 36 facts)" in result.stdout
