"""The ``--validator`` fixture: Vicuna-13B's movie triples on 25 sentences, and recorded verdicts.

The subset is the first 25 of Text2KGBench's manually verified movie sentences (sorted by id);
Vicuna-13B's published output has 166 facts on them. Each question the Validator's grounder asks
(``ground.span@1``: the claim, the sentence as its passage) has a verdict written by reading the
sentence (``tests/fixtures/validator/vicuna.readings.jsonl``, README beside it); no model
answered. ``cassette`` turns the readings into the ReplayClient cassette committed beside them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openodke.bench import BenchSet

__all__ = [
    "CASSETTE",
    "READINGS",
    "SENTENCES",
    "cassette",
    "read_readings",
    "subset",
    "write_config",
    "write_subset_facts",
]

FIXTURES = Path(__file__).parents[2] / "fixtures" / "validator"
READINGS = FIXTURES / "vicuna.readings.jsonl"
CASSETTE = FIXTURES / "vicuna.cassette.json"
SENTENCES = 25


def subset(bench: BenchSet) -> list[str]:
    """The first 25 manually verified sentence ids, sorted."""
    return sorted(bench.verified_ids)[:SENTENCES]


def write_subset_facts(bench_dir: Path, bench: BenchSet, out: Path) -> int:
    """Vicuna-13B's facts on the subset, as published (Fact rows), written to ``out``."""
    keep = set(subset(bench))
    source = bench_dir / "competitors" / "Vicuna-13B" / "facts.jsonl"
    lines = [
        line
        for line in source.read_text(encoding="utf-8").splitlines()
        if line.strip() and json.loads(line)["evidence"][0]["doc_id"] in keep
    ]
    out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)


def read_readings() -> list[dict[str, Any]]:
    """One row per question: ``k``, ``doc``, ``claim``, ``verdict``, ``why``."""
    return [json.loads(line) for line in READINGS.read_text(encoding="utf-8").splitlines() if line]


def cassette(bench: BenchSet, readings: list[dict[str, Any]]) -> dict[str, Any]:
    """The ReplayClient cassette: each reading matched by its claim and its sentence's start."""
    texts = {doc.id: doc.text for doc in bench.documents}
    return {
        "description": (
            "Vicuna-13B's facts on the first 25 manually verified Text2KGBench movie sentences, "
            "asked with ground.span@1 by odke eval pipeline --validator. No model answered: each "
            "verdict was written by reading the sentence (tests/fixtures/validator/README.md)."
        ),
        "interactions": [
            {
                "match": {
                    "contains": [
                        f"Claim: {row['claim']}",
                        "Passage:\n" + texts[row["doc"]][:80],
                    ]
                },
                "response": {
                    "text": json.dumps({"verdict": row["verdict"]}),
                    "model": "hand/reader",
                },
            }
            for row in readings
        ],
    }


def write_config(bench_dir: Path, name: str = "odke-validator.json", **models: Any) -> Path:
    """The set's odke.json with a gate that refuses not_found and contradicted regardless of the
    calibration bar (as ``bench prepare --paper`` writes it), the ground role answered from the
    cassette unless ``models`` says otherwise."""
    config = json.loads((bench_dir / "odke.json").read_text(encoding="utf-8"))
    config["stages"]["gate"] = {"use": "verdict", "refuse_not_found": True, "enforce": True}
    if models:
        config["models"] = models
    else:
        config["models"]["replay"] = {"ground": str(CASSETTE)}
    path = bench_dir / name
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path
