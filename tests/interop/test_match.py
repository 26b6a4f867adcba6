"""Harness matching: a row's doc as an id, a harness file name, or a unique source stem."""

from __future__ import annotations

import pytest

from openodke import Document
from openodke.interop import DocumentIndex, TripleRow, match_documents, match_rows
from openodke.interop.match import source_stem

DOCS = [
    Document(id="texts/halden.txt", text="Halden Robotics makes robots."),
    Document(id="texts/veska.txt", text="Veska Labs makes batteries."),
    Document(id="corpus/register.csv#L2", text="name: Halden Robotics Ltd"),
    Document(id="corpus/register.csv#L3", text="name: Veska Labs AS"),
    Document(id="d-42", text="A note.", uri="notes/memo.md"),
]


def row(doc: str) -> TripleRow:
    return TripleRow(doc=doc, subject="a", predicate="p", object="b")


@pytest.mark.parametrize(
    ("reference", "doc_id", "how"),
    [
        ("texts/halden.txt", "texts/halden.txt", "id"),
        ("halden", "texts/halden.txt", "stem"),
        ("other/halden.txt", "texts/halden.txt", "stem"),
        ("memo", "d-42", "stem"),  # the uri's stem
        ("register", None, "ambiguous"),  # two records of one file
        ("corpus/register.csv#L3", "corpus/register.csv#L3", "id"),
        ("nowhere", None, "unmatched"),
    ],
)
def test_resolve_by_id_then_stem(reference, doc_id, how):
    found, said = DocumentIndex(DOCS).resolve(reference)
    assert (found.id if found else None, said) == (doc_id, how)


def test_harness_names_with_or_without_txt():
    names = {"texts/halden.txt": "doc-000.txt", "corpus/register.csv#L2": "register-L2.txt"}
    index = DocumentIndex(DOCS, names=names)
    assert index.resolve("doc-000") == (DOCS[0], "name")
    assert index.resolve("doc-000.txt") == (DOCS[0], "name")
    assert index.resolve("register-L2") == (DOCS[2], "name")
    assert index.notes == []


def test_an_id_wins_over_a_name():
    names = {"texts/veska.txt": "texts/halden.txt"}  # a perverse name: the id still wins
    assert DocumentIndex(DOCS, names=names).resolve("texts/halden.txt") == (DOCS[0], "id")


def test_a_name_shared_by_two_documents_goes_to_the_first_with_a_warning():
    names = {"texts/halden.txt": "same.txt", "texts/veska.txt": "same.txt"}
    matched, dropped, notes = match_documents([row("same"), row("same.txt")], DOCS, names=names)
    assert [doc.id for _, doc in matched] == ["texts/halden.txt", "texts/halden.txt"]
    assert dropped == 0
    assert notes == [
        "file name 'same.txt' is shared by documents 'texts/halden.txt' and 'texts/veska.txt'; "
        "rows naming it go to 'texts/halden.txt'"
    ]


def test_rows_naming_no_document_are_dropped_and_counted():
    rows = [row("halden"), row("ghost"), row("ghost"), row("register"), row("veska")]
    matched, dropped, notes = match_documents(rows, DOCS)
    assert [(r.doc, doc.id) for r, doc in matched] == [
        ("halden", "texts/halden.txt"),
        ("veska", "texts/veska.txt"),
    ]
    assert dropped == 3
    assert notes == [
        "2 rows named no document and were dropped: 'ghost' (2)",
        "1 row named a file stem several documents share and was dropped: 'register'",
    ]


def test_match_rows_details_for_stats():
    result = match_rows([row("ghost"), row("register"), row("halden")], DOCS)
    assert (result.unmatched_rows, result.ambiguous_rows, result.dropped) == (1, 1, 2)
    assert result.unmatched_docs == ["ghost"] and result.ambiguous_docs == ["register"]


def test_notes_list_at_most_20_references():
    rows = [row(f"ghost{i:02d}") for i in range(23)]
    _, dropped, notes = match_documents(rows, DOCS)
    assert dropped == 23
    assert notes[0].startswith("23 rows named no document and were dropped: 'ghost00', ")
    assert notes[0].endswith("'ghost19' and 3 more")


def test_text_lookups():
    index = DocumentIndex(DOCS)
    assert index.by_text("Veska Labs makes batteries.") is DOCS[1]
    assert index.by_text("  Veska Labs makes batteries.\n") is DOCS[1]
    assert index.by_text("Veska") is None
    assert index.containing("makes batteries") is DOCS[1]
    assert index.containing("makes") is None  # two documents: not one


@pytest.mark.parametrize(
    ("reference", "stem"),
    [
        ("texts/halden.txt", "halden"),
        ("corpus/register.csv#L12", "register"),
        ("texts/halden.txt~2", "halden"),
        ("C:\\data\\veska.md", "veska"),
        ("plain", "plain"),
    ],
)
def test_source_stem(reference, stem):
    assert source_stem(reference) == stem
