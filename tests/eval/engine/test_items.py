"""Items files: reading every row kind, every error naming path:line, atomic writes."""

from __future__ import annotations

import os

import pytest

from openodke.errors import InputError
from openodke.eval.engine.items import DocItem, RightWrongItem, read_items, write_items


def _write(tmp_path, text: str | bytes, name: str = "run.items.jsonl"):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_reads_document_rows(tmp_path):
    path = _write(
        tmp_path,
        '{"id": "d1", "tp": 3, "fp": 1, "fn": 0}\n{"id": "d2", "tp": 0, "fp": 0, "fn": 2}\n',
    )
    assert read_items(path) == [
        DocItem(id="d1", tp=3, fp=1, fn=0),
        DocItem(id="d2", tp=0, fp=0, fn=2),
    ]


def test_reads_item_rows(tmp_path):
    path = _write(tmp_path, '{"id": "g7", "correct": true}\n{"id": "g8", "correct": false}')
    assert read_items(path) == [
        RightWrongItem(id="g7", correct=True),
        RightWrongItem(id="g8", correct=False),
    ]


def test_tolerates_bom_crlf_and_blank_lines(tmp_path):
    text = '\ufeff{"id": "g1", "correct": true}\r\n\r\n   \r\n{"id": "g2", "correct": false}\r\n'
    path = _write(tmp_path, text.encode("utf-8"))
    assert [row.id for row in read_items(path)] == ["g1", "g2"]


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ('{"id": "d1", "tp": 1, "fp": 0, "fn": 0}\n{"id": "d2", "tp": 1,\n', 2, "not JSON"),
        ("[1, 2]\n", 1, "expected a JSON object, found list"),
        ('{"id": "d1", "tp": 1, "fp": 0, "fn": 0, "fq": 2}\n', 1, "unknown key 'fq'"),
        ('{"id": "d1", "tp": 1, "fp": 0}\n', 1, "missing field 'fn'"),
        ('{"id": "d1", "tp": "3", "fp": 0, "fn": 0}\n', 1, "field 'tp'"),
        ('{"id": "d1", "tp": 1.0, "fp": 0, "fn": 0}\n', 1, "field 'tp'"),
        ('{"id": "d1", "tp": true, "fp": 0, "fn": 0}\n', 1, "field 'tp'"),
        ('{"id": "d1", "tp": -1, "fp": 0, "fn": 0}\n', 1, "greater than or equal to 0"),
        ('{"id": 7, "correct": true}\n', 1, "field 'id'"),
        ('{"id": "g1", "correct": "yes"}\n', 1, "field 'correct'"),
        ('{"id": "g1", "correct": 1}\n', 1, "field 'correct'"),
        ('{"id": "g1"}\n', 1, 'needs "tp", "fp" and "fn"'),
        ('{"id": "g1", "correct": true, "tp": 1}\n', 1, "unknown key 'tp'"),
        (
            '{"id": "d1", "tp": 1, "fp": 0, "fn": 0}\n\n{"id": "g1", "correct": true}\n',
            3,
            "one file holds one kind",
        ),
        (
            '{"id": "g1", "correct": true}\n{"id": "g1", "correct": false}\n',
            2,
            "duplicate id 'g1' (first on line 1)",
        ),
    ],
)
def test_bad_rows_name_path_and_line(tmp_path, text, line, fragment):
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as raised:
        read_items(path)
    message = str(raised.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert fragment in message
    assert raised.value.exit_code == 2


@pytest.mark.parametrize(
    ("content", "where", "fragment"),
    [("", "", "no rows"), ("\n \r\n", "", "no rows"), (b"\xff\xfe{", ":1", "not UTF-8")],
)
def test_empty_or_undecodable_files_name_the_path(tmp_path, content, where, fragment):
    path = _write(tmp_path, content)
    with pytest.raises(InputError) as raised:
        read_items(path)
    assert str(raised.value).startswith(f"{path}{where}: ")
    assert fragment in str(raised.value)


def test_a_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such items file"):
        read_items(tmp_path / "absent.jsonl")


@pytest.mark.parametrize(
    "rows",
    [
        [DocItem(id="d1", tp=3, fp=1, fn=0), DocItem(id="d2 ✓", tp=0, fp=2, fn=5)],
        [RightWrongItem(id="g7", correct=True), RightWrongItem(id="g8", correct=False)],
    ],
)
def test_write_then_read_round_trips(tmp_path, rows):
    path = tmp_path / "out" / "run.items.jsonl"
    write_items(path, rows)
    assert read_items(path) == rows
    assert os.listdir(path.parent) == ["run.items.jsonl"]  # no temporary file left behind


def test_write_is_atomic_over_an_existing_file(tmp_path, monkeypatch):
    path = _write(tmp_path, '{"id": "g1", "correct": true}\n')

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_items(path, [RightWrongItem(id="g2", correct=False)])
    assert read_items(path) == [RightWrongItem(id="g1", correct=True)]  # the old file intact
    assert os.listdir(tmp_path) == ["run.items.jsonl"]  # and the temporary file removed


def test_write_refuses_mixed_kinds(tmp_path):
    with pytest.raises(ValueError, match="one kind"):
        write_items(
            tmp_path / "x.jsonl",
            [DocItem(id="d", tp=0, fp=0, fn=0), RightWrongItem(id="g", correct=True)],
        )
