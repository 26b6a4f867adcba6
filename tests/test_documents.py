"""load_documents: a folder of texts, or Document JSONL (large files without a model per row)."""

from __future__ import annotations

import pytest

from openodke.documents import load_documents
from openodke.errors import InputError
from openodke.eval import load_jsonl
from openodke.types import Document

ROWS = (
    '{"id": "a", "text": "Ada was born in 1815.", "tier": "curated", '
    '"retrieved_at": "2025-01-01T00:00:00Z", "metadata": {"page": 3}}\n'
    '{"id": "b", "text": "Halden Robotics.", "modality": "structured", "title": "H"}\n'
)


def test_jsonl_reads_as_the_model_does(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text(ROWS)
    fast, slow = load_documents(path), load_jsonl(path, Document)
    assert [d.model_dump(exclude={"retrieved_at"}) for d in fast] == [
        d.model_dump(exclude={"retrieved_at"}) for d in slow
    ]
    assert fast[0].retrieved_at == slow[0].retrieved_at


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (ROWS + '{"id": "c", "txt": "x"}\n', "docs.jsonl:3: txt: unknown key"),
        (ROWS + '{"id": "a", "text": "again"}\n', "docs.jsonl:3: document id 'a' appears twice"),
        ('{"id": "a", "text": "x", "tier": "gold"}\n', "docs.jsonl:1: tier"),
    ],
)
def test_bad_jsonl_names_the_line(tmp_path, content, message):
    path = tmp_path / "docs.jsonl"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        load_documents(path)


def test_folder_ids_are_paths_inside_it(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "halden.txt").write_text("one")
    (tmp_path / "sub" / "orvik.txt").write_text("two")
    (tmp_path / ".hidden").write_text("skip")
    assert [d.id for d in load_documents(tmp_path)] == ["halden.txt", "sub/orvik.txt"]


def test_non_utf8_file_in_a_folder_is_named(tmp_path):
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe")
    with pytest.raises(InputError, match="bad.txt:1: not UTF-8"):
        load_documents(tmp_path)
