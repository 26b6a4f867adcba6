"""collect: triples rows, Fact rows, adapter output and returned rows as Facts matched to documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openodke.errors import InputError, PipelineError
from openodke.eval.engine.jsonl import dump_jsonl
from openodke.eval.pipeline import Collected, check_last_line, collect
from openodke.interop import TripleRow
from openodke.ontology import Ontology
from openodke.types import Document, Entity, Evidence, Fact, GroundingVerdict, SpanOrigin

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "adapters"
TEXT = "Ada Brandt founded Halden Robotics in 2019."
DOCS = [Document(id="texts/halden.txt", text=TEXT), Document(id="veska.txt", text="Veska.")]


def write_rows(path: Path, *rows: dict) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def row(**fields) -> dict:
    return {
        "doc": "halden",
        "subject": "Ada Brandt",
        "predicate": "founded",
        "object": "Halden",
    } | fields


def test_triples_rows_by_evidence_kind(tmp_path):
    path = write_rows(
        tmp_path / "out.jsonl",
        row(start=0, end=10, quote="Ada Brandt"),  # cited: offsets
        row(quote="founded Halden"),  # quoted: found at 11
        row(quote="started Halden"),  # quote_not_found
        row(),  # context: the whole text
        row(doc="nowhere"),
    )
    got = collect(path, DOCS)
    assert isinstance(got, Collected)
    assert got.evidence_kinds == {"cited": 1, "quoted": 1, "quote_not_found": 1, "context": 1}
    assert (got.rows_read, got.dropped) == (5, 1)
    assert got.notes == ["1 row named no document and was dropped: 'nowhere'"]
    spans = [
        (f.evidence[0].span.start, f.evidence[0].span.end) for f in got.facts if f.evidence[0].span
    ]
    # "founded Halden" starts after "Ada Brandt " (10 characters and a space): 11 to 25.
    # A quote not found, like no quote, cites the whole text as context.
    assert spans == [(0, 10), (11, 25), (0, len(TEXT)), (0, len(TEXT))]
    assert [f.verdict for f in got.facts] == [GroundingVerdict.unchecked, GroundingVerdict.unchecked, GroundingVerdict.not_found, GroundingVerdict.unchecked]  # fmt: skip
    assert [f.evidence[0].span_origin for f in got.facts] == [SpanOrigin.cited] * 2 + [
        SpanOrigin.context
    ] * 2
    assert {f.evidence[0].doc_id for f in got.facts} == {"texts/halden.txt"}  # matched by stem


def test_dropped_rows_are_counted_and_named(tmp_path):
    path = write_rows(tmp_path / "o.jsonl", row(doc="x"), row(doc="x"), row(doc="y"), row())
    got = collect(path, DOCS)
    assert (len(got.facts), got.dropped) == (1, 3)
    assert got.notes == ["3 rows named no document and were dropped: 'x' (2), 'y'"]


def test_harness_names_match_rows_back_to_ids(tmp_path):
    docs = [Document(id="a/b.txt", text="one"), Document(id="a_b.txt", text="two")]
    names = {"a/b.txt": "a_b.txt", "a_b.txt": "a_b~2.txt"}
    path = write_rows(
        tmp_path / "o.jsonl", row(doc="a_b"), row(doc="a_b~2.txt"), row(doc="a_b.txt")
    )
    got = collect(path, docs, names=names)
    # "a_b.txt" is a document id, and ids come before harness names.
    assert [f.evidence[0].doc_id for f in got.facts] == ["a/b.txt", "a_b.txt", "a_b.txt"]


def test_the_ontology_names_predicates_and_types(tmp_path):
    ontology = Ontology.from_dict(
        {
            "types": {"Person": {}, "Company": {}},
            "predicates": {"founded": {"domain": ["Person"], "range": "Company"}},
        }
    )
    got = collect(
        write_rows(tmp_path / "o.jsonl", row(predicate="FOUNDED")), DOCS, ontology=ontology
    )
    (fact,) = got.facts
    assert fact.signature[:4] == ("Person:ada brandt", "Person", "founded", "Company:halden")


def make_facts() -> list[Fact]:
    ada = Entity(key="Person:ada", type="Person")
    return [
        Fact(
            subject=ada,
            predicate="born",
            object_value=1815,
            evidence=(Evidence(doc_id="veska.txt"),),
        ),  # fmt: skip
        # Cites no known document: kept as it is, for the scorer to count.
        Fact(
            subject=ada,
            predicate="born",
            object_value=1816,
            evidence=(Evidence(doc_id="elsewhere"),),
        ),  # fmt: skip
        Fact(subject=ada, predicate="died", object_value=1852),
    ]


@pytest.mark.parametrize("adapter", ["triples", "langchain", "langextract"])
def test_fact_rows_are_read_as_facts_and_kept(tmp_path, adapter):
    path = tmp_path / "facts.jsonl"
    facts = make_facts()
    dump_jsonl(path, facts)
    got = collect(path, DOCS, adapter=adapter)
    assert got.facts == facts
    assert (got.rows_read, got.dropped, got.notes) == (3, 0, [])
    assert set(got.evidence_kinds.values()) == {0}


def test_a_bad_fact_row_names_its_line(tmp_path):
    path = tmp_path / "facts.jsonl"
    dump_jsonl(path, make_facts()[:1])
    with path.open("a") as handle:
        handle.write('{"subject": {"key": "x"}, "predicate": "p", "colour": 1}\n')
    with pytest.raises(InputError, match=r"facts\.jsonl:2: colour: unknown key"):
        collect(path, DOCS)


def test_returned_rows_of_every_kind_mixed():
    fact = make_facts()[0]
    items = [row(), TripleRow.model_validate(row(doc="veska.txt")), fact, fact.model_dump(mode="json"), row(doc="z")]  # fmt: skip
    got = collect(items, DOCS)
    assert (got.rows_read, got.dropped) == (5, 1)
    assert got.facts[:2] == [fact, fact]  # Facts first, then the rows' facts in order
    assert [f.evidence[0].doc_id for f in got.facts[2:]] == ["texts/halden.txt", "veska.txt"]
    assert got.evidence_kinds["context"] == 2


def test_a_bad_returned_row_names_its_item():
    with pytest.raises(InputError, match=r"returned rows: item 2: object: missing required field"):
        collect([row(), {"doc": "a", "subject": "b", "predicate": "c"}], DOCS)


# -- adapters, on the fixtures the libraries themselves made ----------------------------------

ADAPTER_DOCS = [
    Document(id=name, text=(FIXTURES / "texts" / name).read_text(encoding="utf-8"))
    for name in ("halden.txt", "veska.txt")
]


@pytest.mark.parametrize(
    ("adapter", "path", "facts", "dropped", "kinds"),
    [
        # 9 relationships, one from a memo the corpus lacks; GraphDocuments carry no offsets.
        ("langchain", "langchain/graph_documents.json", 8, 1, {"context": 8}),
        # char_interval makes 6 cited spans; one extraction without it has its quote found.
        ("langextract", "langextract/annotated.jsonl", 7, 0, {"cited": 6, "quoted": 1}),
        ("graphrag", "graphrag/csv", 6, 0, {"context": 6}),
        ("graphrag", "graphrag/parquet/relationships.parquet", 6, 0, {"context": 6}),
    ],
)
def test_adapters(adapter, path, facts, dropped, kinds):
    got = collect(FIXTURES / path, ADAPTER_DOCS, adapter=adapter)
    assert (len(got.facts), got.dropped, got.rows_read) == (facts, dropped, facts + dropped)
    assert (
        got.evidence_kinds == {"cited": 0, "quoted": 0, "quote_not_found": 0, "context": 0} | kinds
    )
    assert {f.extractor for f in got.facts} == {adapter}
    assert {f.evidence[0].doc_id for f in got.facts} == {"halden.txt", "veska.txt"}
    if dropped:
        assert got.notes == ["1 row named no document and was dropped: 'memo.txt'"]


def test_adapter_output_matches_through_harness_names():
    # A --cmd harness named the texts halden.txt and veska.txt; the documents' ids are a and b.
    docs = [
        Document(id="a", text=ADAPTER_DOCS[0].text),
        Document(id="b", text=ADAPTER_DOCS[1].text),
    ]
    names = {"a": "halden.txt", "b": "veska.txt"}
    got = collect(FIXTURES / "graphrag" / "csv", docs, adapter="graphrag", names=names)
    assert [f.evidence[0].doc_id for f in got.facts] == ["a", "a", "b", "b", "a", "b"]


def test_unknown_adapter():
    with pytest.raises(InputError, match=r"unknown adapter 'langchian' \(did you mean 'langchain'"):
        collect(FIXTURES / "langchain" / "graph_documents.json", DOCS, adapter="langchian")


# -- half-written last lines ------------------------------------------------------------------

GOOD = json.dumps(row()).encode()
LONG = json.dumps(row(quote="x" * 70_000)).encode()  # longer than one 64 KiB read


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (GOOD + b"\n", None),
        (GOOD, None),  # no final newline, but whole
        (GOOD + b"\n" + GOOD + b"\n   ", None),  # trailing blanks
        (b'[\n  {"a": 1},\n  {"a": 2}\n]', None),  # one JSON document, pretty-printed
        (GOOD + b"\n" + GOOD[:20], 2),
        (GOOD + b"\r\n\r\n" + GOOD[:-1], 3),
        (GOOD + b'\n{"doc": "\xc3', 2),  # cut inside a UTF-8 character
        (GOOD[:5], 1),
        ((GOOD + b"\n") * 3000 + GOOD[:30], 3001),  # many blocks before the cut
        (GOOD + b"\n" + LONG[:-2], 2),  # the cut line spans blocks
    ],
)
@pytest.mark.parametrize("from_command", [False, True])
def test_half_lines(tmp_path, content, line, from_command):
    path = tmp_path / "out.jsonl"
    path.write_bytes(content)
    if line is None:
        check_last_line(path, from_command=from_command)
        return
    if from_command:
        expected = PipelineError, rf"^command wrote a half line at {path}:{line} "
    else:
        expected = InputError, rf"^{path}:{line}: half-written last line"
    with pytest.raises(expected[0], match=expected[1]):
        check_last_line(path, from_command=from_command)
    with pytest.raises(expected[0], match=expected[1]):
        collect(path, DOCS, from_command=from_command)


def test_half_line_check_skips_folders_and_graphrag_tables(tmp_path):
    check_last_line(tmp_path)
    check_last_line(tmp_path / "missing")
    # A CSV without a final newline is not JSON, and is not half-written either.
    csv = FIXTURES / "graphrag" / "csv"
    for name in ("relationships", "text_units", "documents", "entities"):
        data = (csv / f"{name}.csv").read_bytes()
        (tmp_path / f"{name}.csv").write_bytes(data.rstrip(b"\r\n"))
    got = collect(
        tmp_path / "relationships.csv", ADAPTER_DOCS, adapter="graphrag", from_command=True
    )
    assert len(got.facts) == 6
