"""Parts written into arrays sized once: the bound on rows holds, the parts read by workers into
shared memory join to what one process reads, and numpy's huge-page setting is put back."""

from __future__ import annotations

import json
import os
from pathlib import Path

import msgspec
import numpy as np
import pytest

from openodke.eval.engine import fastload, pause
from openodke.eval.engine.columns import FactColumns
from openodke.eval.engine.fastload import load_both
from openodke.eval.engine.parts import MIN_ROW_BYTES, Part, capacity, fields
from openodke.eval.engine.structs import Fact as FactStruct
from openodke.eval.engine.structs import Gold as GoldStruct
from openodke.types import Entity, Fact

SHORTEST = b'{"subject":{"key":"a"},"predicate":"","object_value":0}'


def test_the_shortest_fact_line_is_the_bound_and_gold_lines_are_longer() -> None:
    assert len(SHORTEST) == MIN_ROW_BYTES
    assert msgspec.json.decode(SHORTEST, type=FactStruct).subject.key == "a"
    gold = b'{"doc_id":"","fact":' + SHORTEST + b"}"
    assert msgspec.json.decode(gold, type=GoldStruct).doc_id == ""
    assert len(gold) > MIN_ROW_BYTES
    # n lines of the shortest kind, each but the last with its break, fit the bound
    for n in (1, 2, 1000):
        assert n <= capacity(n * (MIN_ROW_BYTES + 1) - 1)


def test_a_part_refuses_more_rows_than_it_was_sized_for() -> None:
    facts = [Fact(subject=Entity(key=f"s{i}"), predicate="p", object_value=i) for i in range(3)]
    part = Part.allocate(2, fields(flags=False, answers=False))
    with pytest.raises(ValueError, match="more rows"):
        part.add(FactColumns.of_facts(facts), np.arange(3, dtype=np.int64))


def _rows(i: int) -> tuple[dict, dict]:
    doc = f"d{i % 7}"
    end = {"key": f"Org:o{i % 11}", "type": "Org"} if i % 3 else None
    fact = {
        "subject": {"key": f"Person:p{i % 50}", "type": "Person" if i % 4 else "Thing"},
        "predicate": ["born", "Works_for", "works for"][i % 3],
        **({"object_entity": end} if end else {"object_value": 1800 + i % 9}),
    }
    cited = [{"doc_id": doc}] + ([{"doc_id": f"d{i % 5}"}] if i % 13 == 0 else [])
    said = {**fact, "evidence": cited if i % 17 else [], "polarity": "asserted"}
    return {"doc_id": doc, "fact": fact}, said


def _same(a: FactColumns, b: FactColumns) -> None:
    for name in (
        "subject_node", "object_node", "subject_type", "object_type", "subject_names",
        "object_names", "subject_bare", "object_bare", "polarity", "verdict",
    ):  # fmt: skip
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    for name in ("subject_rest", "object_rest", "subject_name", "object_name", "subject_type"):
        assert np.array_equal(getattr(a.keys, name), getattr(b.keys, name)), name
    assert np.array_equal(a.keys.literal, b.keys.literal)
    assert np.array_equal(a.keys.key, b.keys.key)
    assert list(a.keys.predicates.items()) == list(b.keys.predicates.items())
    assert np.array_equal(a.docs.hashes, b.docs.hashes)
    assert np.array_equal(a.docs.present, b.docs.present)
    assert a.docs.names == b.docs.names and a.docs.more == b.docs.more and a.types == b.types
    assert np.array_equal(a.rows.offsets, b.rows.offsets)  # type: ignore[attr-defined]


def test_parts_read_by_workers_join_to_what_one_process_reads(tmp_path: Path, monkeypatch) -> None:
    gold, said = tmp_path / "gold.jsonl", tmp_path / "facts.jsonl"
    rows = [_rows(i) for i in range(3000)]
    gold.write_text("".join(json.dumps(g) + "\n" for g, _ in rows))
    said.write_text("".join(json.dumps(s) + "\n\n" for _, s in rows))  # blank lines too
    one = load_both(gold, said, workers=1)
    monkeypatch.setattr(fastload, "_read", None)  # no reading in this process from here on
    monkeypatch.setattr(fastload, "PARALLEL_BYTES", 0)  # parts of any size
    assert fastload._shares(gold, 3) == 6
    many = load_both(gold, said, workers=3)  # several parts of each file
    for a, b in zip(one, many, strict=True):
        _same(a, b)
    assert many[1].docs.more  # rows citing several documents kept their place across parts


def test_small_pages_puts_numpy_setting_back_and_leaves_a_users_choice(monkeypatch) -> None:
    switch = pause._switch()
    assert switch is not None
    before = switch(True)
    try:
        monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
        with pause.small_pages():
            assert switch(False) is False  # off inside
        assert switch(True) is True  # back on after
        monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
        with pause.small_pages():
            assert switch(True) is True  # the user's choice stands
    finally:
        switch(before)
    assert "NUMPY_MADVISE_HUGEPAGE" in os.environ
