"""The columnar diagnosis says what the row-by-row one said: every bucket, count, example, rate,
replay and fix of 64 seeded corpora (``golden_corpus``) and of the two real-data runs."""

from __future__ import annotations

import json

import pytest

from tests.eval.diagnosis.golden_corpus import GOLDEN, SEEDS, outcome


@pytest.fixture(scope="module")
def goldens() -> dict[str, dict]:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.parametrize("seed", SEEDS)
def test_diagnosis_and_fixes_equal_the_goldens(goldens, seed: int) -> None:
    assert json.loads(json.dumps(outcome(seed))) == goldens[str(seed)]
