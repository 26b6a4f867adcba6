"""``odke eval extract`` and ``pipeline`` say when a set is too small for its ranges
(``small_set_note``, DECISIONS #41): below ten documents holding a gold or predicted fact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke import Entity, Evidence, Fact
from openodke.eval import GoldFact, dump_jsonl, load_jsonl
from openodke.eval.stats.intervals import small_set_note
from tests.conftest import run_odke


def _write(tmp_path: Path, documents: int, empty: int = 0) -> tuple[Path, Path, Path]:
    """``documents`` texts each with one gold fact (found in every other one), plus ``empty``
    texts holding none; labels, predictions and a folder of texts."""
    texts = tmp_path / "texts"
    texts.mkdir()
    gold, said = [], []
    for d in range(documents + empty):
        name = f"doc{d:02d}.txt"
        (texts / name).write_text(f"Ada{d} was born in {1800 + d}.\n", encoding="utf-8")
        if d >= documents:
            continue
        fact = Fact(subject=Entity(key=f"ada{d}", type="Person"), predicate="born", object_value=d)
        gold.append(GoldFact(doc_id=name, fact=fact))
        if d % 2 == 0:
            said.append(fact.model_copy(update={"evidence": (Evidence(doc_id=name),)}))
    labels, predictions = tmp_path / "gold.jsonl", tmp_path / "facts.jsonl"
    dump_jsonl(labels, gold)
    dump_jsonl(predictions, said)
    return labels, predictions, texts


@pytest.mark.parametrize("command", ["extract", "pipeline"])
@pytest.mark.parametrize(("documents", "empty", "small"), [(4, 8, True), (12, 0, False)])
def test_a_small_set_is_said_to_be_small(
    tmp_path: Path, command: str, documents: int, empty: int, small: bool
) -> None:
    labels, predictions, texts = _write(tmp_path, documents, empty)
    report = tmp_path / "report.json"
    result = run_odke(
        "eval", command, "--labels", str(labels), "--predictions", str(predictions),
        "--documents", str(texts), "--report", str(report),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    # 4 of 12 documents hold a fact: the 8 empty ones add nothing to any sum.
    note = small_set_note(documents, total=documents + empty)
    assert (note is not None) == small
    notes = json.loads(report.read_text(encoding="utf-8"))["notes"]
    if small:
        assert note is not None and note.startswith("only 4 of 12 documents hold a gold")
        assert note in notes and note in result.stdout
    else:
        assert not any("too few for any range" in n for n in notes)
        assert "too few for any range" not in result.stdout


@pytest.mark.parametrize("command", ["extract", "pipeline"])
def test_a_concentrated_set_says_its_effective_size(tmp_path: Path, command: str) -> None:
    # 12 documents; the first holds 30 gold facts, all found (weight 2·30 = 60), the others one
    # each, found in every other one (weights 2 and 1). Kish: (60 + 6·2 + 5·1)² / (60² + 6·2² +
    # 5·1²) = 77² / 3629 = 1.63 effective documents of 12 (DECISIONS 161).
    labels, predictions, texts = _write(tmp_path, 12)
    heavy = [
        GoldFact(
            doc_id="doc00.txt",
            fact=Fact(subject=Entity(key=f"x{i}", type="Person"), predicate="born", object_value=i),
        )
        for i in range(29)
    ]
    gold = [*load_jsonl(labels, GoldFact), *heavy]
    said = [
        *load_jsonl(predictions, Fact),
        *(g.fact.model_copy(update={"evidence": (Evidence(doc_id="doc00.txt"),)}) for g in heavy),
    ]
    dump_jsonl(labels, gold)
    dump_jsonl(predictions, said)
    report = tmp_path / "report.json"
    result = run_odke(
        "eval", command, "--labels", str(labels), "--predictions", str(predictions),
        "--documents", str(texts), "--report", str(report),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    note = small_set_note(12, total=12, effective=77**2 / 3629)
    assert note is not None and note.startswith("the facts sit in few documents: 1.6 effective")
    assert note in json.loads(report.read_text(encoding="utf-8"))["notes"]
    assert "1.6 effective documents of 12" in result.stdout
