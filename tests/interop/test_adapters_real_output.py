"""Adapters on output the libraries really write (tests/fixtures/adapters/make_fixtures.py made
every file with the library itself): LangExtract's relationship groups, LangChain's ``dumps()``,
``--run`` returning the libraries' objects, and GraphRAG descriptions that are sentences."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke import Document
from openodke.interop import read_graphrag, read_langchain, read_langextract
from openodke.interop.adapters import graphrag_notes, plain, rows_from_objects
from openodke.interop.adapters.langchain import parse_repr
from openodke.ontology import Ontology
from tests.conftest import run_odke

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "adapters"
TEXTS = FIXTURES / "texts"
DOCS = [
    Document(id="halden.txt", text=(TEXTS / "halden.txt").read_text(encoding="utf-8")),
    Document(id="veska.txt", text=(TEXTS / "veska.txt").read_text(encoding="utf-8")),
]
# What rows_from_objects read from the libraries' own objects, recorded by make_fixtures.py.
FROM_OBJECTS = json.loads((FIXTURES / "run_rows.json").read_text(encoding="utf-8"))


def dumped(rows) -> list[dict]:
    return [row.model_dump(mode="json") for row in rows]


def records(path: Path) -> list:
    text = path.read_text(encoding="utf-8")
    return (
        json.loads(text)
        if text.lstrip().startswith("[")
        else list(map(json.loads, text.splitlines()))
    )


# -- LangExtract: the documented relationship pattern ----------------------------------------------


def test_langextract_groups_become_rows_from_the_head():
    rows = read_langextract(FIXTURES / "langextract" / "grouped.jsonl", DOCS)
    got = [(r.doc, r.subject, r.subject_type, r.predicate, r.object, r.quote) for r in rows]
    assert got == [
        # company_group "Halden Robotics": the company extraction is the head
        ("halden.txt", "Halden Robotics", "company", "founded", "2019", "2019"),
        ("halden.txt", "Halden Robotics", "company", "founded_by", "Ada Brandt", "Ada Brandt"),
        ("halden.txt", "Halden Robotics", "company", "located_in", "Tromsø", "Tromsø"),
        (
            "halden.txt",
            "Ada Brandt",
            "person",
            "chief_executive_of",
            "Halden Robotics",
            "Halden Robotics",
        ),
        # LangExtract's own id (doc_...): matched by its text
        ("veska.txt", "Veska Labs", "company", "based_in", "Porto", "Porto"),
        ("veska.txt", "Veska Labs", "company", "founded_by", "Tomas Quill", "Tomas Quill"),
        ("veska.txt", "Veska Labs", "company", "employees", "40", "40"),
        ("veska.txt", "Tomas Quill", "person", "worked_at", "Halden Robotics", "Halden Robotics"),
    ]
    # Each row cites the member's span: the object where the text names it.
    for row in rows:
        text = DOCS[0 if row.doc == "halden.txt" else 1].text
        assert text[row.start : row.end] == row.object
    # The group attribute is a link, not a property: no "company_group" rows.
    assert not [r for r in rows if r.predicate.endswith("_group")]


def test_a_group_with_no_head_member_is_headed_by_its_value(tmp_path):
    record = {
        "document_id": "halden",
        "text": DOCS[0].text,
        "extractions": [
            {
                "extraction_class": "dosage",
                "extraction_text": "100mg",
                "attributes": {"medication_group": "Aspirin"},
            },
            {
                "extraction_class": "founder",
                "extraction_text": "Ada Brandt",
                "attributes": {"relationship_group": "Halden Robotics"},
            },
        ],
    }
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    rows = read_langextract(path, DOCS)
    assert [(r.subject, r.subject_type, r.predicate, r.object) for r in rows] == [
        ("Aspirin", "medication", "dosage", "100mg"),  # typed by the attribute's prefix
        ("Halden Robotics", None, "founder", "Ada Brandt"),  # "relationship" is no type
    ]


def test_langextract_objects_and_their_dumps_read_alike():
    got = rows_from_objects(
        records(FIXTURES / "langextract" / "grouped.jsonl"), "langextract", DOCS
    )
    assert dumped(got) == FROM_OBJECTS["langextract"]


# -- LangChain: dumps() -------------------------------------------------------------------------


def test_langchain_dumps_reads_like_model_dump():
    from_dumps = read_langchain(FIXTURES / "langchain" / "dumps.json", DOCS)
    from_model_dump = read_langchain(FIXTURES / "langchain" / "graph_documents.json", DOCS)
    assert len(from_dumps) == 9
    assert dumped(from_dumps) == dumped(from_model_dump)


def test_langchain_objects_and_their_dumps_read_alike():
    for path in ("dumps.json", "graph_documents.json"):
        got = rows_from_objects(records(FIXTURES / "langchain" / path), "langchain", DOCS)
        assert dumped(got) == FROM_OBJECTS["langchain"]


def test_a_repr_is_parsed_never_run(tmp_path):
    marker = tmp_path / "ran"
    text = f"Node(id=__import__('pathlib').Path({str(marker)!r}).touch(), type='Person', n=-2)"
    assert parse_repr(text) == {"id": {}, "type": "Person", "n": -2}  # the call is just a dict
    assert not marker.exists()


def test_plain_reads_dataclasses_through_their_properties():
    from dataclasses import dataclass, field
    from enum import Enum

    class Status(Enum):
        exact = "match_exact"

    @dataclass
    class Item:
        status: Status
        _document_id: str | None = None
        _tokens: list = field(default_factory=list)

        @property
        def document_id(self) -> str:
            return self._document_id or "doc_made_up"

    assert plain([Item(Status.exact)]) == [{"status": "match_exact", "document_id": "doc_made_up"}]


# -- GraphRAG: descriptions that are sentences -------------------------------------------------

ONTOLOGY = Ontology.from_dict(
    {
        "types": {"Company": {}, "Person": {}, "Location": {}},
        "predicates": {
            "founded_by": {"domain": ["Company"], "range": "Person"},
            "located_in": {"domain": ["Company"], "range": "Location"},
            "founded": {"domain": ["Person"], "range": "Company"},
        },
    }
)


def test_graphrag_sentences_get_a_note_saying_how_to_prompt_for_labels():
    rows = read_graphrag(FIXTURES / "graphrag" / "sentences", DOCS)
    (note,) = graphrag_notes(rows, ONTOLOGY)
    assert "none of the 5 relationship descriptions names a predicate of the ontology" in note
    assert "5 are sentences" in note and "Ada Brandt founded Halden Robotics" in note
    assert "prompts/extract_graph.txt" in note and "founded, founded_by, located_in" in note
    (untyped,) = graphrag_notes(rows, None)
    assert untyped.startswith("graphrag: 5 of the 5 relationship descriptions are sentences")


def test_graphrag_labels_get_no_note():
    rows = read_graphrag(FIXTURES / "graphrag" / "csv", DOCS)  # founded, located_in, ...
    assert graphrag_notes(rows, ONTOLOGY) == []
    assert graphrag_notes(rows, None) == []  # 1 of 5 is a sentence


# -- end to end through the CLI ------------------------------------------------------------------

GOLD = [
    ("halden.txt", "Company:halden robotics", "founded_by", "Person:ada brandt"),
    ("halden.txt", "Company:halden robotics", "located_in", "Location:tromsø"),
    ("halden.txt", "Company:halden robotics", "founded", 2019),
    ("halden.txt", "Person:ada brandt", "chief_executive_of", "Company:halden robotics"),
    ("veska.txt", "Company:veska labs", "based_in", "Location:porto"),
    ("veska.txt", "Company:veska labs", "founded_by", "Person:tomas quill"),
    ("veska.txt", "Company:veska labs", "employees", 40),
    ("veska.txt", "Person:tomas quill", "worked_at", "Company:halden robotics"),
]
CLI_ONTOLOGY = {
    "name": "firms",
    "version": "1",
    "types": {"Company": {}, "Person": {}, "Location": {}},
    "predicates": {
        "founded_by": {"domain": ["Company"], "range": "Person"},
        "located_in": {"domain": ["Company"], "range": "Location"},
        "based_in": {"domain": ["Company"], "range": "Location"},
        "founded": {"domain": ["Company"], "range": "integer"},
        "employees": {"domain": ["Company"], "range": "integer"},
        "chief_executive_of": {"domain": ["Person"], "range": "Company"},
        "worked_at": {"domain": ["Person"], "range": "Company"},
    },
}


@pytest.fixture
def labelled(tmp_path: Path) -> list[str]:
    """--labels, --documents and --ontology for the fixtures' two texts."""
    rows = []
    for doc, subject, predicate, obj in GOLD:
        kind = subject.split(":")[0]
        fact = {"subject": {"key": subject, "type": kind}, "predicate": predicate}
        if isinstance(obj, int):
            fact["object_value"] = obj
        else:
            fact["object_entity"] = {"key": obj, "type": obj.split(":")[0]}
        rows.append(json.dumps({"doc_id": doc, "fact": fact}, ensure_ascii=False))
    (tmp_path / "gold.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (tmp_path / "ontology.json").write_text(json.dumps(CLI_ONTOLOGY), encoding="utf-8")
    return [
        "--labels",
        str(tmp_path / "gold.jsonl"),
        "--documents",
        str(TEXTS),
        "--ontology",
        str(tmp_path / "ontology.json"),
    ]


def _run_file(tmp_path: Path, fixture: str) -> str:
    """A --run function returning what the library's dump holds (the objects' data)."""
    module = tmp_path / "returns_dumps.py"
    module.write_text(
        "import json\n"
        f"PATH = {str(FIXTURES / fixture)!r}\n"
        "def run(documents):\n"
        "    with open(PATH, encoding='utf-8') as handle:\n"
        "        text = handle.read()\n"
        "    if text.lstrip().startswith('['):\n"
        "        return json.loads(text)\n"
        "    return [json.loads(line) for line in text.splitlines() if line.strip()]\n",
        encoding="utf-8",
    )
    return f"{module}:run"


def test_run_returning_langextract_documents_scores_with_adapter(tmp_path, labelled):
    spec = _run_file(tmp_path, "langextract/grouped.jsonl")
    result = run_odke(
        "eval", "pipeline", *labelled, "--run", spec, "--adapter", "langextract", "--json"
    )
    assert result.exit_code == 0, result.stderr
    counts = json.loads(result.stdout)["rows"][0]["counts"]
    assert (counts["hits"], counts["over_extraction"], counts["under_extraction"]) == (8, 0, 0)
    # Without --adapter the rows are refused, naming the adapter that reads them.
    refused = run_odke("eval", "pipeline", *labelled, "--run", spec)
    assert refused.exit_code == 2
    assert "item 1 is langextract's output: add --adapter langextract" in refused.stderr


def test_run_returning_langchain_dumps_scores_with_adapter(tmp_path, labelled):
    spec = _run_file(tmp_path, "langchain/dumps.json")
    result = run_odke(
        "eval", "pipeline", *labelled, "--run", spec, "--adapter", "langchain", "--json"
    )
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    counts = report["rows"][0]["counts"]
    # 8 rows: FOUNDED written Person -> Company finds "founded" (a year) and misses both
    # founded_by facts; untyped Porto takes based_in's range. 6 hits, 2 over, 2 under.
    assert (counts["hits"], counts["over_extraction"], counts["under_extraction"]) == (6, 2, 2)
    assert any("memo.txt" in note for note in report["notes"])  # the memo graph is dropped


def test_graphrag_sentences_note_reaches_the_report(labelled):
    result = run_odke(
        "eval",
        "pipeline",
        *labelled,
        "--predictions",
        str(FIXTURES / "graphrag" / "sentences"),
        "--adapter",
        "graphrag",
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["rows"][0]["counts"]["hits"] == 0
    (note,) = [n for n in report["notes"] if n.startswith("graphrag:")]
    assert "none of the 5 relationship descriptions names a predicate" in note
    assert "prompts/extract_graph.txt" in note


def test_graphrag_output_returned_by_run_is_refused_naming_the_way() -> None:
    from openodke.errors import InputError

    with pytest.raises(InputError, match="--adapter graphrag reads files, not returned objects"):
        rows_from_objects([{"source": "A", "target": "B"}], "graphrag", DOCS)
