"""Large Fact files take the fast path in odke eval pipeline: the same rows as the Fact path."""

from __future__ import annotations

import json

import pytest

from openodke.eval import dump_jsonl
from openodke.types import Document
from tests.cli.test_eval_extract import random_corpus
from tests.conftest import run_odke


@pytest.fixture
def corpus(tmp_path):
    gold, said = random_corpus(3, n=300)
    docs = [Document(id=f"d{i}", text=f"P {i} lives in c{i % 6} since 1815.") for i in range(20)]
    dump_jsonl(tmp_path / "gold.jsonl", gold)
    dump_jsonl(tmp_path / "facts.jsonl", said)
    dump_jsonl(tmp_path / "docs.jsonl", docs)
    ontology = {
        "types": {"Person": {}, "Place": {}},
        "predicates": {
            "born": {"domain": ["Person"], "range": "integer"},
            "lives": {"domain": ["Person"], "range": "Place"},
        },
    }
    (tmp_path / "ontology.json").write_text(json.dumps(ontology))
    return tmp_path


def score(folder, name):
    result = run_odke(
        "eval",
        "pipeline",
        "--labels",
        str(folder / "gold.jsonl"),
        "--documents",
        str(folder / "docs.jsonl"),
        "--ontology",
        str(folder / "ontology.json"),
        "--predictions",
        str(folder / "facts.jsonl"),
        "--json",
        "--items",
        str(folder / f"{name}.items.jsonl"),
    )
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout), (folder / f"{name}.items.jsonl").read_text()


@pytest.mark.parametrize("workers", [1, 2])
def test_fast_path_gives_the_fact_path_rows(corpus, monkeypatch, workers):
    slow, slow_items = score(corpus, "slow")
    monkeypatch.setattr("openodke.cli.eval_pipeline.PARALLEL_BYTES", 0)
    monkeypatch.setattr(
        "openodke.eval.engine.fastload.PARALLEL_BYTES", 0 if workers == 2 else 1 << 40
    )
    fast, fast_items = score(corpus, "fast")
    assert fast["rows"] == slow["rows"]
    assert fast_items == slow_items
    assert fast["stages"] == slow["stages"]
    assert any("fast path" in note for note in fast["notes"])
    assert fast["rows"][0]["conformance"]["facts"] == slow["rows"][0]["counts"]["predicted"]
