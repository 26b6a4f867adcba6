"""Loaders: document ids (path relative to the config, #L<line>, ~n), options and errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from openodke import Document, Modality, SourceTier
from openodke.errors import InputError
from openodke.stages import (
    CsvLoader,
    DirectoryLoader,
    JsonlLoader,
    MarkdownLoader,
    TextLoader,
    unique_ids,
)


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding))
    return path


def test_text_loader_keeps_the_text_and_ids_it_by_path_relative_to_the_config(tmp_path):
    file = write(tmp_path / "corpus" / "notes" / "a.txt", "Ada was born in 1815.\r\nShe wrote.")
    (doc,) = TextLoader(tier="community").load(file, tmp_path)
    assert doc.id == "corpus/notes/a.txt"
    assert doc.text == "Ada was born in 1815.\r\nShe wrote."  # offsets count every character
    assert doc.tier is SourceTier.community and doc.modality is Modality.unstructured
    assert doc.uri == str(file)


def test_a_byte_order_mark_is_dropped_and_another_encoding_is_read(tmp_path):
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbfHello")
    assert TextLoader().load(bom, tmp_path)[0].text == "Hello"
    latin = write(tmp_path / "l.txt", "Café Zoë", encoding="latin-1")
    assert TextLoader(encoding="latin-1").load(latin, tmp_path)[0].text == "Café Zoë"
    with pytest.raises(InputError, match=r"l\.txt: not utf-8 \(byte 0xe9 at offset 3\)"):
        TextLoader().load(latin, tmp_path)


def test_a_path_outside_the_config_folder_is_relative_with_dots(tmp_path):
    file = write(tmp_path / "data" / "x.txt", "x")
    (doc,) = TextLoader().load(file, tmp_path / "configs")
    assert doc.id == "../data/x.txt"


def test_markdown_is_semi_structured_and_titled_by_its_first_heading(tmp_path):
    file = write(tmp_path / "sheet.md", "Intro line\n\n## Halden Robotics ##\nFounded: 2011\n")
    (doc,) = MarkdownLoader().load(file, tmp_path)
    assert doc.title == "Halden Robotics"
    assert doc.modality is Modality.semi_structured
    assert doc.text.endswith("Founded: 2011\n")
    (plain,) = MarkdownLoader(modality="unstructured").load(
        write(tmp_path / "p.md", "no heading"), tmp_path
    )
    assert plain.title is None and plain.modality is Modality.unstructured


def test_csv_records_are_documents_named_by_the_line_they_start_on(tmp_path):
    text = (
        "legal_name,founded,city\n"
        "Halden Robotics Ltd,2011,Oslo\n"
        "\n"
        '"Brask, Lund & Co","1998","Bergen\nNorway"\n'
        "Ostra AB,,Malmo\n"
    )
    file = write(tmp_path / "corpus" / "register.csv", text)
    docs = CsvLoader(tier="authoritative").load(file, tmp_path)
    # Line 1 is the header; line 3 is blank; the quoted record spans lines 4-5.
    assert [d.id for d in docs] == [
        "corpus/register.csv#L2",
        "corpus/register.csv#L4",
        "corpus/register.csv#L6",
    ]
    assert docs[0].text == "legal_name: Halden Robotics Ltd\nfounded: 2011\ncity: Oslo"
    assert docs[1].text == "legal_name: Brask, Lund & Co\nfounded: 1998\ncity: Bergen Norway"
    assert docs[2].text == "legal_name: Ostra AB\ncity: Malmo"  # the empty value is left out
    assert docs[0].metadata == {
        "legal_name": "Halden Robotics Ltd",
        "founded": "2011",
        "city": "Oslo",
    }
    assert docs[0].modality is Modality.structured and docs[0].tier is SourceTier.authoritative


def test_csv_columns_choose_and_order_the_fields_and_a_delimiter_splits(tmp_path):
    file = write(tmp_path / "r.csv", "a;b;c\n1;2;3\n")
    (doc,) = CsvLoader(columns=["c", "a"], delimiter=";").load(file, tmp_path)
    assert doc.text == "c: 3\na: 1"
    with pytest.raises(
        InputError, match=r"r\.csv:1: columns: no column 'bb' \(did you mean 'b'\?\)"
    ):
        CsvLoader(columns=["bb"], delimiter=";").load(file, tmp_path)


def test_csv_problems_name_the_line(tmp_path):
    file = write(tmp_path / "r.csv", "a,b\n1,2\n1,2,3\n")
    with pytest.raises(InputError, match=r"r\.csv:3: 3 fields, but the header names 2"):
        CsvLoader().load(file, tmp_path)
    with pytest.raises(InputError, match="no records under the header"):
        CsvLoader().load(write(tmp_path / "h.csv", "a,b\n"), tmp_path)


def test_records_false_reads_the_whole_file_as_one_document(tmp_path):
    file = write(tmp_path / "r.csv", "a,b\n1,2\n")
    (doc,) = CsvLoader(records=False).load(file, tmp_path)
    assert (doc.id, doc.text) == ("r.csv", "a,b\n1,2\n")
    rows = write(tmp_path / "r.jsonl", '{"text": "x"}\n')
    (whole,) = JsonlLoader(records=False).load(rows, tmp_path)
    assert (whole.id, whole.text) == ("r.jsonl", '{"text": "x"}\n')


def test_jsonl_rows_use_text_or_render_columns_and_keep_their_fields(tmp_path):
    file = write(
        tmp_path / "news.jsonl",
        '{"text": "Ada wrote.", "title": "T1", "source": "wire"}\n\n{"text": "Bob ran."}\n',
    )
    docs = JsonlLoader().load(file, tmp_path)
    assert [(d.id, d.text, d.title) for d in docs] == [
        ("news.jsonl#L1", "Ada wrote.", "T1"),
        ("news.jsonl#L3", "Bob ran.", None),
    ]
    assert docs[0].metadata == {"text": "Ada wrote.", "title": "T1", "source": "wire"}
    rendered = JsonlLoader(columns=["name", "born"]).load(
        write(tmp_path / "p.jsonl", '{"name": "Ada", "born": 1815, "x": 1}\n'), tmp_path
    )
    assert rendered[0].text == "name: Ada\nborn: 1815"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"text": "a"}\n[1]\n', r"r\.jsonl:2: expected a JSON object, got list"),
        ('{"text": "a"}\n{"text": \n', r"r\.jsonl:2: invalid JSON"),
        ('{"body": "a"}\n', r"r\.jsonl:1: no string 'text' field: set the loader's columns"),
        ("\n\n", r"r\.jsonl: empty file"),
    ],
)
def test_jsonl_problems_name_the_line(tmp_path, content, message):
    with pytest.raises(InputError, match=message):
        JsonlLoader().load(write(tmp_path / "r.jsonl", content), tmp_path)


def test_directory_sends_each_file_to_its_suffix_loader_and_skips_hidden_and_unbuilt(tmp_path):
    root = tmp_path / "corpus"
    write(root / "notes" / "b.txt", "B.")
    write(root / "a.md", "# A\nFounded: 2011")
    write(root / "r.csv", "name\nAda\n")
    write(root / "x.jsonl", '{"text": "X."}\n')
    write(root / ".hidden" / "h.txt", "hidden")
    write(root / "page.html", "<p>no</p>")
    loader = DirectoryLoader(tier="curated")
    docs = loader.load(root, tmp_path)
    assert [d.id for d in docs] == [
        "corpus/a.md",
        "corpus/notes/b.txt",
        "corpus/r.csv#L2",
        "corpus/x.jsonl#L1",
    ]
    assert {d.tier for d in docs} == {SourceTier.curated}
    assert docs[0].title == "A" and docs[0].modality is Modality.semi_structured
    assert loader.warnings == [f"{root / 'page.html'}: the html loader is not built; skipped"]


def test_directory_pattern_selects_files_and_an_empty_match_is_an_error(tmp_path):
    root = tmp_path / "docs"
    write(root / "a.txt", "A")
    write(root / "b.md", "B")
    assert [d.id for d in DirectoryLoader(pattern="*.txt").load(root, root)] == ["a.txt"]
    with pytest.raises(InputError, match=r"no documents match '\*\.pdf'"):
        DirectoryLoader(pattern="*.pdf").load(root, root)
    with pytest.raises(InputError, match="no such folder"):
        DirectoryLoader().load(tmp_path / "missing", tmp_path)


def test_unique_ids_number_repeats_from_two():
    docs = [Document(id=i, text="t") for i in ("a", "b", "a", "a", "a~2")]
    assert [d.id for d in unique_ids(docs)] == ["a", "b", "a~2", "a~3", "a~2~2"]


@pytest.mark.parametrize(
    ("options", "message"),
    [({"tier": "gold"}, "tier: 'gold' is not one of"), ({"modality": "x"}, "modality: 'x'")],
)
def test_bad_options_are_input_errors(options, message):
    with pytest.raises(InputError, match=message):
        TextLoader(**options)
