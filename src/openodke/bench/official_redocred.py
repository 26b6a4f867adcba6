"""DocRED / Re-DocRED's official relation scores, replayed (benchmarks.md §3, DocRED).

Gold is the set of keys (title, r, h, t) with their evidence sentences. Predictions are
de-duplicated on the same key; the de-duplicated count is the precision denominator, and a
prediction for an unknown title stays in it (counted wrong). Micro P = correct / predictions,
R = correct / gold facts. Ign F1 (DocRED's ``official_evaluate``): a correct prediction is "in
train" when some pair of its entities' mention names with the same r is a training fact; Ign
precision = (correct − in train) / (predictions − in train), recall unchanged. The Re-DocRED
copy adds 1e-5 to that denominator and starts the evidence total at 1; we follow DocRED's
original (no epsilon, evidence total from 0) and report an undefined ratio as None.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from openodke.bench.formats import LabelledDoc, check
from openodke.errors import InputError
from openodke.safeio import read_json

__all__ = ["RedocredOfficial", "gold_submission", "load_train_facts", "score_redocred_official"]

TrainFact = tuple[str, str, str]


class RedocredOfficial(BaseModel):
    """Micro relation P/R/F1 by the official rules, Ign F1 when train facts are given."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    precision: float | None = Field(description="None when nothing was predicted.")
    recall: float | None = Field(description="None when the gold is empty.")
    f1: float | None
    correct: int
    predicted: int = Field(description="Distinct (title, h_idx, t_idx, r) predictions.")
    gold: int = Field(description="Distinct gold (title, r, h, t) keys.")
    unknown_titles: int = Field(description="Predictions naming no gold document (counted wrong).")
    ign_precision: float | None = None
    ign_f1: float | None = Field(default=None, description="Only with train facts.")
    correct_in_train: int | None = None
    evidence_precision: float | None = None
    evidence_recall: float | None = None
    evidence_f1: float | None = None
    unaligned: int = Field(default=0, description="Our predictions that could not be submitted.")
    notes: list[str] = Field(default_factory=list)


def _f1(p: float | None, r: float | None) -> float | None:
    if p is None or r is None:
        return None
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def _key(prediction: Any, number: int) -> tuple[str, int, int, str]:
    try:
        title, h, t, r = (
            prediction["title"],
            prediction["h_idx"],
            prediction["t_idx"],
            prediction["r"],
        )
    except (TypeError, KeyError):
        raise InputError(f"prediction {number}: expected {{title, h_idx, t_idx, r}}") from None
    if not (
        isinstance(title, str) and isinstance(h, int) and isinstance(t, int) and isinstance(r, str)
    ):
        raise InputError(
            f"prediction {number}: title and r must be strings, h_idx and t_idx integers"
        )
    return title, h, t, r


def score_redocred_official(
    predictions: Iterable[Mapping[str, Any]],
    gold_docs: Iterable[Mapping[str, Any]],
    *,
    train_facts: Iterable[TrainFact] | None = None,
) -> RedocredOfficial:
    """Score a DocRED-style submission ``[{title, h_idx, t_idx, r, evidence?}]`` against gold docs."""
    gold: dict[tuple[str, str, int, int], set[int]] = {}
    vertex_sets: dict[str, list[list[Mapping[str, Any]]]] = {}
    gold_evidence = 0
    for doc in gold_docs:
        vertex_sets[doc["title"]] = doc["vertexSet"]
        for label in doc["labels"]:
            gold[(doc["title"], label["r"], label["h"], label["t"])] = set(
                label.get("evidence", [])
            )
            gold_evidence += len(label.get("evidence", []))
    unique: dict[tuple[str, int, int, str], Mapping[str, Any]] = {}
    for number, prediction in enumerate(predictions):
        unique.setdefault(_key(prediction, number), prediction)
    train = set(train_facts) if train_facts is not None else None
    correct = in_train = unknown = predicted_evidence = evidence_hits = 0
    for (title, h, t, r), prediction in unique.items():
        if title not in vertex_sets:
            unknown += 1
            continue
        evidence = set(prediction.get("evidence") or [])
        predicted_evidence += len(evidence)
        if (title, r, h, t) not in gold:
            continue
        correct += 1
        evidence_hits += len(gold[(title, r, h, t)] & evidence)
        if train is not None:
            entities = vertex_sets[title]
            names = [(a["name"], b["name"], r) for a in entities[h] for b in entities[t]]
            in_train += any(name in train for name in names)
    precision, recall = _ratio(correct, len(unique)), _ratio(correct, len(gold))
    evidence_p, evidence_r = (
        _ratio(evidence_hits, predicted_evidence),
        _ratio(evidence_hits, gold_evidence),
    )
    notes = []
    if unknown:
        notes.append(f"{unknown} predictions name a title not in the gold; they count as wrong")
    ign_precision = ign_f1 = None
    if train is not None:
        ign_precision = _ratio(correct - in_train, len(unique) - in_train)
        ign_f1 = _f1(ign_precision, recall)
    else:
        notes.append("Ign F1 needs the training facts (--train-facts); not computed")
    return RedocredOfficial(
        precision=precision,
        recall=recall,
        f1=_f1(precision, recall),
        correct=correct,
        predicted=len(unique),
        gold=len(gold),
        unknown_titles=unknown,
        ign_precision=ign_precision,
        ign_f1=ign_f1,
        correct_in_train=in_train if train is not None else None,
        evidence_precision=evidence_p,
        evidence_recall=evidence_r,
        evidence_f1=_f1(evidence_p, evidence_r),
        notes=notes,
    )


def gold_submission(gold_docs: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The gold labels written as a submission (scores 1.0 against themselves)."""
    return [
        {
            "title": doc["title"],
            "h_idx": label["h"],
            "t_idx": label["t"],
            "r": label["r"],
            "evidence": list(label.get("evidence", [])),
        }
        for doc in gold_docs
        for label in doc["labels"]
    ]


def load_train_facts(path: str | Path) -> set[TrainFact]:
    """Training facts for Ign F1 from a DocRED-format file (a list of documents, e.g.
    ``train_revised.json``) or DocRED's cached ``.fact`` list of ``[head name, tail name, r]``.

    From documents: (head mention name, tail mention name, r) for every pair of mention names of
    every labelled fact, as DocRED's ``gen_train_facts`` builds it.
    """
    value = read_json(path, what="DocRED training documents")
    if not isinstance(value, list):
        raise InputError(
            "expected a list of DocRED documents or of [head, tail, r] triples", path=str(path)
        )
    facts: set[TrainFact] = set()
    for number, item in enumerate(value):
        if isinstance(item, dict) and "vertexSet" in item and "labels" in item:
            check(LabelledDoc, item, path=str(path), line=None, at=f"[{number}]")
            entities: Sequence[Sequence[Mapping[str, Any]]] = item["vertexSet"]
            for label in item["labels"]:
                for a in entities[label["h"]]:
                    for b in entities[label["t"]]:
                        facts.add((a["name"], b["name"], label["r"]))
        elif isinstance(item, list) and len(item) == 3 and all(isinstance(x, str) for x in item):
            facts.add((item[0], item[1], item[2]))
        else:
            raise InputError(
                f"item {number}: expected a DocRED document or [head, tail, r]", path=str(path)
            )
    return facts
