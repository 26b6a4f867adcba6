"""Adapters: each library's own output (fixtures made by the library) read as triples rows."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from openodke import Document
from openodke.errors import InputError
from openodke.interop import (
    ADAPTERS,
    DocumentIndex,
    match_documents,
    read_graphrag,
    read_langchain,
    read_langextract,
    read_predictions,
    to_fact,
)
from openodke.ontology import Ontology

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "adapters"
HALDEN = (FIXTURES / "texts" / "halden.txt").read_text(encoding="utf-8")
VESKA = (FIXTURES / "texts" / "veska.txt").read_text(encoding="utf-8")
# As `odke eval pipeline --documents texts/` loads them: the id is the path in the folder.
DOCS = [Document(id="halden.txt", text=HALDEN), Document(id="veska.txt", text=VESKA)]


def triples(rows) -> list[tuple]:
    return [(r.doc, r.subject, r.subject_type, r.predicate, r.object, r.object_type) for r in rows]


def test_registry_names():
    assert list(ADAPTERS) == ["triples", "langchain", "langextract", "graphrag"]


def test_unknown_adapter_has_a_did_you_mean():
    with pytest.raises(
        InputError, match=r"unknown adapter 'langchian' \(did you mean 'langchain'\?\)"
    ):
        read_predictions("x", "langchian", DOCS)


def test_triples_adapter_reads_rows(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"doc": "halden", "subject": "a", "predicate": "p", "object": 1}\n')
    (row,) = read_predictions(path, "triples", DOCS)
    assert (row.doc, row.object) == ("halden", 1)


# -- langchain ---------------------------------------------------------------------------------


def test_langchain_graph_documents():
    rows = read_langchain(FIXTURES / "langchain" / "graph_documents.json", DOCS)
    assert triples(rows) == [
        # matched by metadata source "texts/halden.txt": its stem
        ("halden.txt", "Ada Brandt", "Person", "FOUNDED", "Halden Robotics", "Company"),
        ("halden.txt", "Ada Brandt", "Person", "CHIEF_EXECUTIVE_OF", "Halden Robotics", "Company"),
        ("halden.txt", "Halden Robotics", "Company", "LOCATED_IN", "Tromsø", "Location"),
        ("halden.txt", "Halden Robotics", "Company", "founded", 2019, None),  # a node property
        # matched by its page_content (the file has a final newline; the dump does not)
        ("veska.txt", "Tomas Quill", "Person", "FOUNDED", "Veska Labs", "Company"),
        ("veska.txt", "Tomas Quill", "Person", "WORKED_AT", "Halden Robotics", "Company"),
        ("veska.txt", "Veska Labs", "Company", "BASED_IN", "Porto", None),  # type "Node": untyped
        ("veska.txt", "Veska Labs", "Company", "employees", 40, None),
        # no such document: kept with its reference, for the harness to drop
        ("memo.txt", "Memo", "Note", "MENTIONS", "Ada Brandt", "Person"),
    ]
    assert rows[2].qualifiers == {"since": "2019"}
    assert {r.extractor for r in rows} == {"langchain"}
    assert all(r.start is None and r.quote is None for r in rows)
    matched, dropped, notes = match_documents(rows, DOCS)
    assert (len(matched), dropped) == (8, 1)
    assert notes == ["1 row named no document and was dropped: 'memo.txt'"]


def test_langchain_rows_become_facts_through_the_ontology():
    ontology = Ontology.from_dict(
        {
            "types": {"Person": {}, "Company": {}},
            "predicates": {"founded": {"domain": ["Person"], "range": "Company"}},
        }
    )
    row = read_langchain(FIXTURES / "langchain" / "graph_documents.json", DOCS)[0]
    fact = to_fact(row, DOCS[0], ontology)
    assert fact.signature[:4] == (
        "Person:ada brandt",
        "Person",
        "founded",
        "Company:halden robotics",
    )
    assert fact.evidence[0].span_origin.value == "context"


def test_langchain_dumpd_envelope_and_jsonl(tmp_path):
    node = {
        "lc": 1,
        "type": "constructor",
        "id": ["x", "Node"],
        "kwargs": {"id": "Ada", "type": "Person"},
    }
    target = {"id": "Halden", "type": "Company", "properties": {}}
    graph = {
        "nodes": [],
        "relationships": [{"source": node, "target": target, "type": "WORKS_AT"}],
        "source": {"id": "halden.txt", "metadata": {}, "page_content": "", "type": "Document"},
    }
    path = tmp_path / "graphs.jsonl"
    path.write_text(json.dumps(graph) + "\n" + json.dumps(graph) + "\n")
    rows = read_predictions(path, "langchain", DOCS)
    assert triples(rows) == [("halden.txt", "Ada", "Person", "WORKS_AT", "Halden", "Company")] * 2


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[{"nodes": []}]', "record 1: expected a GraphDocument object"),
        (
            '[{"relationships": [{"source": {"id": "a"}, "type": "T"}], "source": {}}]',
            "record 1: relationships[0]: missing 'target'",
        ),
        (
            '{"relationships": []}\n{"relationships": [{"source": {"id": "a"}, "target": {"id": "b"}, "type": ""}]}\n',
            ":2: relationships[0]: predicate: String should have at least 1 character",
        ),
    ],
)
def test_langchain_malformed(tmp_path, content, message):
    path = tmp_path / "g.json"
    path.write_text(content)
    with pytest.raises(InputError) as caught:
        read_langchain(path, DOCS)
    assert str(caught.value).startswith(str(path)) and message in str(caught.value)


# -- langextract -------------------------------------------------------------------------------


def test_langextract_annotated_documents():
    rows = read_langextract(FIXTURES / "langextract" / "annotated.jsonl", DOCS)
    assert triples(rows) == [
        # an entity's attributes: properties of the entity
        ("halden.txt", "Halden Robotics", "company", "founded_year", "2019", "string"),
        ("halden.txt", "Halden Robotics", "company", "location", "Tromsø", "string"),
        # a relation extraction
        ("halden.txt", "Ada Brandt", "Person", "chief_executive_of", "Halden Robotics", "Company"),
        ("halden.txt", "Ada Brandt", "person", "role", "founder", "string"),
        ("halden.txt", "warehouse robot", "product", "category", "robotics", "string"),
        ("halden.txt", "warehouse robot", "product", "category", "logistics", "string"),
        # document_id unknown: matched by the annotated text
        ("veska.txt", "Tomas Quill", None, "worked_at", "Halden Robotics", None),
    ]
    spans = [(r.start, r.end, r.quote) for r in rows]
    assert spans == [
        (0, 15, "Halden Robotics"),
        (0, 15, "Halden Robotics"),
        (61, 113, "Ada Brandt is the chief executive of Halden Robotics"),
        (None, None, "Ada Brandt"),  # no char_interval: the quote is searched
        (134, 150, None),  # fuzzy: the offsets cite "warehouse robots", not the extraction text
        (134, 150, None),
        (59, 108, "Tomas Quill, previously worked at Halden Robotics"),
    ]
    assert HALDEN[61:113] == rows[2].quote and VESKA[59:108] == rows[6].quote
    assert rows[6].qualifiers == {"tense": "past"}
    assert {r.extractor for r in rows} == {"langextract"}


def test_langextract_offsets_shift_when_the_annotated_text_is_a_part(tmp_path):
    part = "Ada Brandt is the chief executive of Halden Robotics."
    record = {
        "document_id": "chunk-7",
        "text": part,
        "extractions": [
            {
                "extraction_class": "ceo",
                "extraction_text": "Ada Brandt",
                "char_interval": {"start_pos": 0, "end_pos": 10},
                "attributes": {"subject": "Ada Brandt", "object": "Halden Robotics"},
            }
        ],
    }
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(record) + "\n")
    (row,) = read_langextract(path, DOCS)
    offset = HALDEN.index(part)
    assert (row.doc, row.predicate, row.start, row.end) == (
        "halden.txt",
        "ceo",
        offset,
        offset + 10,
    )
    assert HALDEN[row.start : row.end] == row.quote == "Ada Brandt"


def test_langextract_malformed_line(tmp_path):
    path = tmp_path / "a.jsonl"
    good = {"document_id": "halden", "text": HALDEN, "extractions": []}
    bad = {"document_id": "halden", "extractions": [{"extraction_text": "x"}]}
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(InputError, match=r":2: extractions\[0\]: missing 'extraction_class'"):
        read_langextract(path, DOCS)


# -- graphrag ----------------------------------------------------------------------------------

GRAPHRAG_ROWS = [
    ("halden.txt", "ADA BRANDT", "PERSON", "founded", "HALDEN ROBOTICS", "ORGANIZATION"),
    ("halden.txt", "HALDEN ROBOTICS", "ORGANIZATION", "located_in", "TROMSØ", "GEO"),
    ("veska.txt", "TOMAS QUILL", "PERSON", "founded", "VESKA LABS", "ORGANIZATION"),
    (
        "veska.txt",
        "TOMAS QUILL",
        "PERSON",
        "Tomas Quill previously worked at Halden Robotics",
        "HALDEN ROBOTICS",
        "ORGANIZATION",
    ),
    # read from two text units in two documents: a row for each
    ("halden.txt", "ADA BRANDT", "PERSON", "former_colleague_of", "TOMAS QUILL", "PERSON"),
    ("veska.txt", "ADA BRANDT", "PERSON", "former_colleague_of", "TOMAS QUILL", "PERSON"),
]


@pytest.mark.parametrize(
    "path",
    [
        FIXTURES / "graphrag" / "parquet",
        FIXTURES / "graphrag" / "parquet" / "relationships.parquet",
        FIXTURES / "graphrag" / "csv",
        FIXTURES / "graphrag" / "csv" / "relationships.csv",
    ],
    ids=["parquet-folder", "parquet-file", "csv-folder", "csv-file"],
)
def test_graphrag_tables(path):
    rows = read_graphrag(path, DOCS)
    assert triples(rows) == GRAPHRAG_ROWS
    assert [r.id for r in rows][-2:] == [
        "cdee515f-49b6-530e-b7b2-f15899fc8657~1",
        "cdee515f-49b6-530e-b7b2-f15899fc8657~2",
    ]
    assert rows[0].id == "bf35e63f-edca-5ac8-8feb-842703a19e7f"
    assert {r.extractor for r in rows} == {"graphrag"}


def test_graphrag_through_harness_names():
    # A --cmd harness wrote the texts as doc-0.txt and doc-1.txt; graphrag titled them so.
    docs = [Document(id="a", text=HALDEN), Document(id="b", text=VESKA)]
    index = DocumentIndex(docs, names={"a": "halden.txt", "b": "veska.txt"})
    rows = read_predictions(FIXTURES / "graphrag" / "csv", "graphrag", index)
    assert [r.doc for r in rows] == ["a", "a", "b", "b", "a", "b"]


def write_csv(folder: Path, name: str, header: list[str], *rows: list[str]) -> None:
    import csv

    with (folder / f"{name}.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def test_graphrag_older_layout_with_document_ids_and_numpy_lists(tmp_path):
    # GraphRAG 0.x-1.x: create_final_* names, text units listing document_ids, lists printed by numpy.
    write_csv(
        tmp_path,
        "create_final_relationships",
        ["id", "source", "target", "description", "weight", "text_unit_ids"],
        ["r1", "ADA BRANDT", "HALDEN ROBOTICS", "", "1.0", "['u1' 'u2']"],
    )
    write_csv(tmp_path, "create_final_text_units", ["id", "text", "document_ids"],
              ["u1", "x", '["g1"]'], ["u2", "y", "['g2']"])  # fmt: skip
    write_csv(tmp_path, "create_final_documents", ["id", "title", "text"],
              ["g1", "renamed.txt", HALDEN], ["g2", "memo.txt", "unknown"])  # fmt: skip
    rows = read_graphrag(tmp_path, DOCS)
    # g1 matched by its text; g2 by nothing: kept as GraphRAG's id for the harness to drop
    assert triples(rows) == [
        ("halden.txt", "ADA BRANDT", None, "related_to", "HALDEN ROBOTICS", None),
        ("g2", "ADA BRANDT", None, "related_to", "HALDEN ROBOTICS", None),
    ]


def test_graphrag_without_text_units(tmp_path):
    write_csv(tmp_path, "relationships", ["source", "target", "text_unit_ids"], ["a", "b", "[]"])
    with pytest.raises(InputError, match="no text_units table"):
        read_graphrag(tmp_path, DOCS)


def test_graphrag_empty_folder(tmp_path):
    with pytest.raises(InputError, match="no relationships table"):
        read_graphrag(tmp_path, DOCS)


def test_graphrag_parquet_without_pyarrow(monkeypatch):
    # None in sys.modules makes the import fail, as on an install without the parquet extra.
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(InputError, match=r"install openodke\[parquet\]"):
        read_graphrag(FIXTURES / "graphrag" / "parquet", DOCS)


def test_fixtures_name_the_versions_that_made_them():
    versions = json.loads((FIXTURES / "versions.json").read_text())
    assert set(versions) >= {"langchain-core", "langchain-community", "langextract", "graphrag"}


@pytest.mark.parametrize(
    ("cell", "items"),
    [
        ('["a", "b"]', ["a", "b"]),
        ("['a', \"O'Brien\"]", ["a", "O'Brien"]),
        ("['a' 'b']", ["a", "b"]),  # numpy's print
        ("['a'\n 'b']", ["a", "b"]),  # numpy's print of a long array
        ("[]", []),
        ("a, b", ["a", "b"]),
        ("", []),
        (None, []),
        (["x", "y"], ["x", "y"]),
    ],
)
def test_graphrag_list_cells(cell, items):
    from openodke.interop.adapters.graphrag import _as_list

    assert _as_list(cell) == items
