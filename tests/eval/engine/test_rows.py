"""FileRows.fetch: rows read again by offset, cut out of windows and decoded a window at a time,
come back as the file holds them, in the order asked (repeats, blank lines, CRLF, a last line
without a break, a row longer than a window, gold rows)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from openodke.eval.engine import rows as rows_module
from openodke.eval.engine.fastload import load_facts, load_gold

CUTS = [pytest.param(rows_module.py_cut_lines, id="python")]
if rows_module.cut_lines is not rows_module.py_cut_lines:
    CUTS.append(pytest.param(rows_module.cut_lines, id="c"))


def _fact(i: int, long: bool = False) -> dict:
    label = "x" * 3_000_000 if long else f"E {i}"
    return {
        "subject": {"key": f"s{i}", "type": "Person", "label": label},
        "predicate": "p",
        "object_value": i,
        "evidence": [{"doc_id": f"d{i % 3}"}],
    }


@pytest.mark.parametrize(
    ("between", "end", "long_row"),
    [("\n", "\n", None), ("\r\n", "", None), ("\n\n  \n", "\n", None), ("\n", "", 7)],
    ids=["plain", "crlf-no-last-break", "blank-lines", "a-row-past-the-window"],
)
@pytest.mark.parametrize("cut", CUTS)
def test_fetch_gives_each_row_asked_in_order(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    between: str,
    end: str,
    long_row: int | None,
    cut,
) -> None:
    monkeypatch.setattr(rows_module, "_WINDOW", 4096)  # many windows on a small file
    monkeypatch.setattr(rows_module, "cut_lines", cut)
    facts = [_fact(i, long=i == long_row) for i in range(400)]
    path = tmp_path / "facts.jsonl"
    path.write_text(between.join(json.dumps(f) for f in facts) + end)
    columns = load_facts(path)
    assert isinstance(columns.rows, rows_module.FileRows)
    asked = [399, 0, 5, 5, 7, 398, 1, 200, 7, 0]
    found = columns.rows.fetch(asked)
    assert [f.subject.key for f in found] == [f"s{i}" for i in asked]
    assert [f.object_value for f in found] == asked
    every = columns.rows.fetch(np.arange(400)[::-1].tolist())
    assert [f.object_value for f in every] == list(range(399, -1, -1))
    ascending = [0, 0, 1, 5, 200, 398, 399]  # in file order: read as asked, no sort
    assert [f.object_value for f in columns.rows.fetch(ascending)] == ascending
    assert columns.rows.fetch([]) == []


def test_fetch_gold_rows_gives_their_facts(tmp_path: Path) -> None:
    path = tmp_path / "gold.jsonl"
    path.write_text(
        "".join(json.dumps({"doc_id": "d", "fact": _fact(i)}) + "\n" for i in range(50))
    )
    found = load_gold(path).rows.fetch([49, 3, 3])
    assert [f.subject.key for f in found] == ["s49", "s3", "s3"]


def _ends(fact) -> tuple:
    return fact.subject, fact.object_entity, fact.object_value


@pytest.mark.parametrize("gold", [False, True], ids=["facts", "gold"])
def test_fetch_ends_reads_the_ends_fetch_reads(tmp_path: Path, gold: bool) -> None:
    facts = [_fact(i) for i in range(30)]
    facts[4] = {**facts[4], "object_entity": {"key": "o", "aliases": ["O"]}, "qualifiers": {}}
    del facts[4]["object_value"]
    path = tmp_path / "rows.jsonl"
    lines = ({"doc_id": "d", "fact": f} if gold else f for f in facts)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    source = (load_gold if gold else load_facts)(path).rows
    asked = [29, 4, 4, 0, 17]
    whole = source.fetch(asked)
    lean = rows_module.fetch_ends(source, asked)
    assert [_ends(f) for f in lean] == [_ends(f) for f in whole]
    assert not hasattr(lean[0], "predicate")  # the rest of the row is not decoded
    # rows of rows (a fact citing several documents) and rows held as Facts read the same
    repeated = rows_module.RepeatedRows(source, np.array([3, 3, 29], dtype=np.int64))
    assert [_ends(f) for f in rows_module.fetch_ends(repeated, [2, 0])] == [
        _ends(f) for f in source.fetch([29, 3])
    ]
    held = rows_module.ModelRows(whole)
    assert rows_module.fetch_ends(held, [1, 0]) == [whole[1], whole[0]]


@pytest.mark.parametrize("cut", CUTS)
def test_cut_lines_cuts_each_span_and_ends_it_with_a_break(cut) -> None:
    block = b"abc\ndef\n\nghij"
    starts, stops = np.array([0, 4, 9, 2, 9], np.int64), np.array([4, 7, 13, 2, 9], np.int64)
    assert cut(block, starts, stops) == b"abc\n\ndef\nghij\n\n\n"
    assert cut(block, np.empty(0, np.int64), np.empty(0, np.int64)) == b""


def test_cut_lines_refuses_a_span_outside_the_block() -> None:
    if rows_module.cut_lines is rows_module.py_cut_lines:
        pytest.skip("the C extension was not built")
    with pytest.raises(ValueError):
        rows_module.cut_lines(b"abc", np.array([1], np.int64), np.array([4], np.int64))
