"""A score's peak: both sides' key columns are laid end to end before matching, so the
matching's table of every row is those arrays rather than a copy beside them; the aligner keeps
no column of every gold end; and the diagnosis's node codes are built in one array. Each test
fails if its saving is undone (a copy made, a column held, a temporary per column)."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import openodke.eval.engine.fastload as fastload
import openodke.eval.stages.extract as extract
from openodke.eval.engine.fastload import load_both, load_facts, load_gold
from openodke.eval.engine.identity import _GOLD_WIDE
from openodke.eval.engine.joins import distinct, distinct_mixed, mix
from openodke.eval.engine.key_table import _ARRAYS, _MIX, end_to_end

KEY_ARRAYS = _ARRAYS  # the key table's own columns

ROWS = 20_000


def _files(folder: Path, rows: int = ROWS, untyped: bool = False) -> tuple[Path, Path]:
    """A gold file and a predictions file (every seventh fact left out); ``untyped``: the
    predictions' objects give no type, so aligning them reads the gold's ends."""
    gold, said = folder / "gold.jsonl", folder / "facts.jsonl"
    with gold.open("w") as g, said.open("w") as p:
        for i in range(rows):
            doc = f"d{i % 500}"
            fact = {
                "subject": {"key": f"Person:p{i}", "type": "Person"},
                "predicate": ["born", "employer"][i % 2],
                **(
                    {"object_value": 1900 + i % 90}
                    if i % 2 == 0
                    else {"object_entity": {"key": f"o{i % 97}", "type": "Org"}}
                ),
            }
            g.write(json.dumps({"doc_id": doc, "fact": fact}) + "\n")
            if i % 7:
                fact = {**fact, "evidence": [{"doc_id": doc}]}
                if untyped and "object_entity" in fact:
                    fact["object_entity"] = {"key": fact["object_entity"]["key"]}
                p.write(json.dumps(fact) + "\n")
    return gold, said


def _peak(run: Callable[[], object]) -> tuple[int, object]:
    """The most memory ``run`` held at once beyond what was held before it (traced bytes)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = run()
        return tracemalloc.get_traced_memory()[1] - before, out
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    ("parts", "joined"),
    [
        ([(0, 3), (3, 10)], True),  # end to end: one view
        ([(0, 3), (4, 10)], False),  # a gap
        ([(3, 10), (0, 3)], False),  # the wrong order
        ([(0, 0), (0, 5)], True),  # an empty first part
    ],
)
def test_end_to_end_views_one_buffer_only_when_the_parts_lie_so(
    parts: list[tuple[int, int]], joined: bool
) -> None:
    base = np.arange(10, dtype=np.int64)
    arrays = [base[a:b] for a, b in parts]
    out = end_to_end(arrays)
    assert np.array_equal(out, np.concatenate(arrays))
    assert (out.base is base) is joined


def test_arrays_of_two_buffers_are_copied() -> None:
    a, b = np.arange(3), np.arange(3, 6)
    out = end_to_end([a, b])
    assert out.base is None and np.array_equal(out, np.arange(6))


def test_the_score_joins_no_copy_of_the_key_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gold_path, said_path = _files(tmp_path)

    def score() -> tuple[int, extract.ExtractionScore]:
        tracemalloc.start()  # from before the reading, so the sides' columns freed count
        try:
            gold, said = load_gold(gold_path), load_facts(said_path)  # read apart
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            out = extract.score_keys(gold, said)
            return tracemalloc.get_traced_memory()[1] - before, out
        finally:
            tracemalloc.stop()

    joined_peak, joined = score()
    monkeypatch.setattr(extract, "join_sides", lambda *a: None)  # as before: concat copies
    copied_peak, copied = score()
    assert joined.report().model_dump() == copied.report().model_dump()  # type: ignore[attr-defined]
    rows = joined.matching.rows  # type: ignore[attr-defined]
    table_bytes = sum(getattr(rows, n).nbytes for n in ("subject_rest", "object_name", "predicate"))
    # the copy held the key columns of every row (these three and five more) beside the
    # sides' own (at 20,000 rows: 3.9 MB traced at the peak, joined 0.35 MB)
    assert copied_peak - joined_peak > 2 * table_bytes
    # each side's keys and the columns as given read the one table of every row
    assert np.shares_memory(joined.gold.keys.subject_rest, rows.subject_rest)  # type: ignore[attr-defined]
    assert np.shares_memory(joined.predicted.subject_node, rows.subject_name)  # type: ignore[attr-defined]


@pytest.mark.parametrize("untyped", [False, True], ids=["typed", "untyped-objects"])
def test_the_aligner_holds_no_column_of_every_gold_end(tmp_path: Path, untyped: bool) -> None:
    gold_path, said_path = _files(tmp_path, untyped=untyped)
    score = extract.score_keys(load_gold(gold_path), load_facts(said_path))
    assert score.report().metrics["tp"] == len(score.predicted)  # type: ignore[arg-type]
    held: list[np.ndarray] = []
    values = list(vars(score.aligner).values())
    while values:  # arrays, in tuples of tuples too
        value = values.pop()
        if isinstance(value, np.ndarray):
            held.append(value)
        elif isinstance(value, tuple):
            values.extend(value)
    assert sum(a.nbytes for a in held) < 2 * ROWS  # a bool or two per row at most


@pytest.mark.parametrize("rows", [0, 1, 5_000])
@pytest.mark.parametrize("columns", [1, 2, 3])
def test_distinct_mixed_is_distinct_of_the_mixed_columns(rows: int, columns: int) -> None:
    rng = np.random.default_rng(rows + columns)
    first = rng.integers(-3, 40, rows)  # repeats, negative documents (uncited: -1)
    others = [rng.integers(0, 60, rows) for _ in range(columns)]
    expected = distinct(np.concatenate([mix(first, c) for c in others]))
    assert np.array_equal(distinct_mixed(first, *others), expected)


def test_distinct_mixed_makes_no_column_per_input() -> None:
    rows = 200_000
    rng = np.random.default_rng(0)
    first, a, b = (rng.integers(0, 1 << 40, rows) for _ in range(3))
    peak, _ = _peak(lambda: distinct_mixed(first, a, b))
    # its codes and the distinct ones (16 bytes a row each) and a mask: under 40 bytes a row
    # (mixing each column apart, joining and sorting a copy held ~64)
    assert peak < 40 * rows


def test_the_parallel_reader_lays_both_sides_key_columns_end_to_end(tmp_path: Path) -> None:
    gold_path, said_path = _files(tmp_path)
    gold, said = load_both(gold_path, said_path, workers=2)
    for name in KEY_ARRAYS:
        mine, theirs = getattr(gold.keys, name), getattr(said.keys, name)
        assert end_to_end([mine, theirs]).base is mine.base is not None, name
    alone = load_gold(gold_path)  # the same values as a file read alone
    assert np.array_equal(gold.keys.subject_rest, alone.keys.subject_rest)
    assert gold.subject_node is gold.keys.subject_name


def test_documents_named_once_per_worker_join_in_file_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gold_path, said_path = _files(tmp_path)  # every part cites documents of the others
    monkeypatch.setattr(fastload, "PARALLEL_BYTES", 8 << 10)  # parts of a kilobyte and more
    assert fastload._shares(gold_path, 2) == 4
    gold, said = load_both(gold_path, said_path, workers=2)
    for loaded, alone in ((gold, load_gold(gold_path)), (said, load_facts(said_path))):
        assert list(loaded.docs.names.items()) == list(alone.docs.names.items())
        assert np.array_equal(loaded.docs.hashes, alone.docs.hashes)


@pytest.mark.parametrize("refused", ["gold", "facts", "both"])
def test_a_file_the_careful_reader_takes_leaves_the_other_as_read_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refused: str
) -> None:
    gold_path, said_path = _files(tmp_path, 300)
    # a line only pydantic reads: an int field written as a string
    coerced = {"subject": {"key": "Person:x"}, "predicate": "born", "object_value": 1}
    coerced["support"] = "2"
    if refused in ("gold", "both"):
        with gold_path.open("a") as g:
            g.write(json.dumps({"doc_id": "d0", "fact": coerced}) + "\n")
    if refused in ("facts", "both"):
        with said_path.open("a") as p:
            p.write(json.dumps(coerced) + "\n")
    careful: list[bool] = []
    slow = fastload._slow
    monkeypatch.setattr(
        fastload, "_slow", lambda path, gold: careful.append(gold) or slow(path, gold)
    )
    gold, said = load_both(gold_path, said_path, workers=2)
    assert careful == {"gold": [True], "facts": [False], "both": [True, False]}[refused]
    for loaded, alone in ((gold, load_gold(gold_path)), (said, load_facts(said_path))):
        assert len(loaded) == len(alone)
        for name in KEY_ARRAYS:
            assert np.array_equal(getattr(loaded.keys, name), getattr(alone.keys, name)), name


def test_an_aligner_that_let_go_aligns_again_to_the_same_keys(tmp_path: Path) -> None:
    gold_path, said_path = _files(tmp_path, untyped=True)
    score = extract.score_keys(load_gold(gold_path), load_facts(said_path))
    aligner, said = score.aligner, load_facts(said_path)
    assert aligner is not None and not set(vars(aligner)) & set(_GOLD_WIDE)
    again = aligner.keys(said.keys, said.docs, said.types, said)  # worked out once more
    assert "_one_types" in vars(aligner)
    for name in KEY_ARRAYS:
        assert np.array_equal(getattr(again, name), getattr(score.predicted.keys, name)), name


def test_matching_keeps_the_key_and_lets_the_groups_go(tmp_path: Path) -> None:
    gold_path, said_path = _files(tmp_path)
    score = extract.score_keys(load_gold(gold_path), load_facts(said_path))
    rows = score.matching.rows
    for table in (rows, score.gold.keys, score.predicted.keys):  # type: ignore[union-attr]
        assert "key" in vars(table)
        assert not {"subject", "object"} & set(vars(table))
    key = rows.key
    assert np.array_equal(rows.subject * _MIX + rows.object, key)  # worked out again, the same
