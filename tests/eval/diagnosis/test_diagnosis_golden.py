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


@pytest.mark.parametrize("seed", SEEDS[:16])
def test_the_surface_rule_in_blocks_of_misses_says_the_same(
    goldens, seed: int, monkeypatch
) -> None:
    """The surface-form rule holds the words of a block of misses at a time (DECISIONS 316):
    blocks of two misses give every corpus's goldens too."""
    monkeypatch.setattr("openodke.eval.diagnosis.surface.BLOCK", 2)
    assert json.loads(json.dumps(outcome(seed))) == goldens[str(seed)]


@pytest.mark.parametrize("seed", SEEDS[:16])
def test_the_surface_rule_shared_with_a_child_says_the_same(
    goldens, seed: int, monkeypatch
) -> None:
    """The surface-form rule starts in a forked child on every miss, in blocks, and this process
    works the blocks left (engine.halves): every corpus's goldens, with blocks of two."""
    from openodke.eval.engine import halves

    started: list[tuple[int, int | None]] = []  # (misses, child) of each rule started
    begin = halves.Shared._start

    def counted(self: halves.Shared) -> None:
        begin(self)
        started.append((len(self.items), self.child))

    monkeypatch.setattr(halves, "MIN_ITEMS", 1)
    monkeypatch.setattr(halves.Shared, "_start", counted)
    monkeypatch.setattr("openodke.eval.diagnosis.surface.BLOCK", 2)
    assert json.loads(json.dumps(outcome(seed))) == goldens[str(seed)]
    assert all(child is not None for _, child in started)  # each start forked a child
